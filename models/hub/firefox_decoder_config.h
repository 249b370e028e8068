// The Marian decoder configuration Firefox's translation engine gives a Remote Settings model
// (translations-engine.worker.js), written as the decoder.yml of the model directory nmt convert reads.
#pragma once

#include <string>

#include "models/hub/model_listing.h"

namespace hub {

constexpr const char* kDecoderConfigName = "decoder.yml";

// decoder.yml for `entry`'s files (by their stored names): models, vocabs, shortlist, and Firefox's
// search settings (greedy, normalize 1.0, max-length-factor 2.0, int8shiftAlphaAll unless the model is an
// intgemm8 one).
std::string firefox_decoder_yml(const ListingEntry& entry);

}  // namespace hub
