// The languages a release states: Hugging Face's tokenizer_config.json, a native Marian release's
// README.md, or the options given to `nmt convert` (which win). See docs/convert.md.
#pragma once

#include <string>
#include <utility>

#include "models/convert/convert_common.h"
#include "models/model_config.h"

namespace models {

using LanguagePair = std::pair<std::string, std::string>;  // {source, target}; "" when unknown

// tokenizer_config.json's "source_lang"/"target_lang" when they are language tags; {} when the file is
// absent. Throws ModelError naming the file when it is not a JSON object.
LanguagePair languages_from_tokenizer_config(const std::string& path);

// An OPUS-MT release README's "* source language(s): en" / "* target language(s): de" lines (one tag
// each), else its download link ".../OPUS-MT-models/en-de/opus-2020-02-26.zip"; {} when absent.
LanguagePair languages_from_release_readme(const std::string& path);

// Sets `d`'s languages (guessed from the directory name) to those the release states in `found`, then to
// those `options` names: what is said outright beats a name.
void apply_languages(ModelDescription& d, const LanguagePair& found, const ConvertOptions& options);

}  // namespace models
