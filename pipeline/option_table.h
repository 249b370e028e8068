// Every translation option declared once: its TranslateOptions (or FrontOptions) field, flag names, help,
// where its default comes from, its valid range and whether it changes the output. The CLI registers its
// flags from this table, resolves them over the model's defaults, validates them, names them in messages and
// keys the resume manifest by the output-changing ones; Translator::check validates ranges through it too.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "pipeline/translator.h"

namespace pipeline {

// A value of one option: kInt as int64_t, kNumber as double, kFlag as bool, kText as std::string.
using OptionValue = std::variant<int64_t, double, bool, std::string>;

enum class OptionType { kInt, kNumber, kFlag, kText };
enum class DefaultFrom { kFixed, kModel };  // a constant, or the model's (model.json, `nmt info`)

struct OptionSpec {
  std::string_view field;  // the options' field ("sampling.top_k"), also the manifest key
  std::string_view names;  // CLI11 names: "-b,--beam-size,--beam"; the first long one names it in messages
  std::string_view help;   // what it does; help adds "(default: ...)" and the range
  OptionType type;
  DefaultFrom default_from;
  std::string_view default_text;  // how help names the default ("the model's", "32", "a random seed")
  double lo = 0, hi = 0;          // kInt, kNumber: the allowed values lo..hi
  bool lo_exclusive = false;      // lo itself is not allowed (0 < X <= 1)
  bool changes_output = false;    // a file translated with another value must be translated again
  bool attention = false;         // `nmt attention` takes it too
  // A translator's option reads and writes TranslateOptions; a front end's, FrontOptions (the other pair is
  // null).
  OptionValue (*get)(const TranslateOptions&) = nullptr;
  void (*set)(TranslateOptions&, const OptionValue&) = nullptr;
  OptionValue (*get_front)(const FrontOptions&) = nullptr;
  void (*set_front)(FrontOptions&, const OptionValue&) = nullptr;
  // nullptr: the value always matters; else only when this holds (the seed only when sampling).
  bool (*applies)(const TranslateOptions&) = nullptr;
  // A value outside the range that means "choose for me" (alignment_layer -1: the last layer).
  std::optional<int64_t> automatic;
  bool flag_value = true;       // kFlag: the value the flag sets (--no-split sets split_sentences false)
  std::string_view choices;     // kText: the values allowed, "|"-separated; empty: any
  std::string_view value_name;  // what help calls the value ("FILE"); empty: by type ("N", "X", "LANG")
  bool repeats = false;         // kText: each use adds a line to the value (--term)
};

// The table, in the order help lists the options.
const std::vector<OptionSpec>& option_table();
// The row of a TranslateOptions field; throws std::logic_error for a field the table lacks.
const OptionSpec& option_spec(std::string_view field);
// "--beam-size": the first long name, for messages.
std::string flag_name(const OptionSpec& spec);
// "1..256", "0 < X <= 1", "0..2^63-1", "keep|source": the range as help and messages show it.
std::string range_text(const OptionSpec& spec);
// "" when `value` is in the spec's range, else the rule it breaks ("must be a whole number in 1..256").
std::string range_error(const OptionSpec& spec, const OptionValue& value);

// The rule between the beam and the other options, declared once: "" when a run with `options` may
// search with `beam_size` beams, else the rule it breaks (sampling draws one token at a time; n-best
// needs as many beams).
std::string beam_rule_error(const TranslateOptions& options, int64_t beam_size);

// Throws OptionError for the first option of `options` out of its table range, or for limits that
// cannot produce a sentence (--max-length-a and -b leaving no room for one token and the end).
void check_option_ranges(const TranslateOptions& options);

}  // namespace pipeline
