// nmt::Options into the pipeline's TranslateOptions, resolved over the model's defaults as the command
// line resolves its flags (front/translate_flags.h), so a call and `nmt translate` translate alike.
#pragma once

#include "nmt/options.h"
#include "pipeline/translate_options.h"
#include "pipeline/translator.h"

namespace api {

// Throws pipeline::OptionError for a value the model cannot take (error_mapping names it by its API name).
pipeline::TranslateOptions resolve_options(const nmt::Options& options,
                                           const pipeline::Translator& translator);

}  // namespace api
