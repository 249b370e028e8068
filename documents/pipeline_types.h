// The translator's types as documents/ names them: the one header that follows where the pipeline keeps
// them, so documents/ knows the translator through this file and translate_segments.cc alone.
#pragma once

#include "models/translator.h"
#include "models/word_alignment.h"

namespace documents {

using Translator = models::Translator;
using TranslateOptions = models::TranslateOptions;
using Translation = models::Translation;
using WordLink = models::WordLink;  // a target word's source word (whitespace-separated words, 0-based)

}  // namespace documents
