// The translator's types as documents/ names them: the one header that follows where the pipeline keeps
// them, so documents/ knows the translator through this file and translate_segments.cc alone.
#pragma once

#include "pipeline/translator.h"
#include "pipeline/word_alignment.h"

namespace documents {

using Translator = pipeline::Translator;
using TranslateOptions = pipeline::TranslateOptions;
using Translation = pipeline::Translation;
using TranslateProgress = pipeline::TranslateProgress;
using WordLink = pipeline::WordLink;  // a target word's source word (whitespace-separated words, 0-based)

}  // namespace documents
