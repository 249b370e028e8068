// One kind of attention of a translated sentence drawn as an SVG heatmap: `nmt attention` writes it and
// the server's /v1/attention answers it.
#pragma once

#include <string>

#include "pipeline/attention_translation.h"

namespace front {

// Which attention is drawn.
struct AttentionView {
  std::string kind = "cross";  // cross | encoder | decoder (the SVG's panels)
  int layer = -1;              // -1: every layer
  int head = -1;               // -1: every head and their mean
};

// The SVG form of one kind of attention (the JSON form: cli/io/attention_json.h). core::UsageError when a
// side has more than 300 pieces.
std::string attention_svg(const pipeline::AttentionTranslation& t, const std::string& source_text,
                          const AttentionView& view);

}  // namespace front
