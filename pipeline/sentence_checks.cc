#include "pipeline/sentence_checks.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <sstream>
#include <stdexcept>

#include "core/utf8_chars.h"

namespace pipeline {
namespace {

constexpr int kLongestLoopNgram = 4;
constexpr double kMinLengthRatio = 0.4, kMaxLengthRatio = 2.5;
constexpr size_t kMinRatioSourceChars = 10;  // shorter sources vary too much to judge
constexpr size_t kMinCopyWords = 3;
constexpr double kCopyShare = 0.7;

// Whether `ids` repeats an n-gram back to back: 3 times for n >= 2, 4 times for one token (a word can
// legitimately double a piece).
bool has_loop(const std::vector<int32_t>& ids) {
  for (size_t n = 1; n <= kLongestLoopNgram; ++n) {
    const size_t times = n == 1 ? 4 : 3;
    for (size_t i = 0; i + n * times <= ids.size(); ++i) {
      bool repeated = true;
      for (size_t k = n; k < n * times && repeated; ++k) repeated = ids[i + k] == ids[i + k % n];
      if (repeated) return true;
    }
  }
  return false;
}

size_t characters(const std::string& text) { return core::count_code_points(text); }

bool length_ratio_off(const std::string& source, const std::string& target) {
  const size_t s = characters(source);
  if (s < kMinRatioSourceChars) return false;
  const double ratio = static_cast<double>(characters(target)) / static_cast<double>(s);
  return ratio < kMinLengthRatio || ratio > kMaxLengthRatio;
}

// Whitespace-separated words, ASCII-lowercased, punctuation at either end dropped.
std::vector<std::string> plain_words(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> words;
  for (std::string w; in >> w;) {
    const auto is_punct = [](char c) { return std::ispunct(static_cast<unsigned char>(c)) != 0; };
    while (!w.empty() && is_punct(w.back())) w.pop_back();
    w.erase(w.begin(), std::find_if_not(w.begin(), w.end(), is_punct));
    for (char& c : w) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (!w.empty()) words.push_back(w);
  }
  return words;
}

bool copies_source(const std::string& source, const std::string& target) {
  const std::vector<std::string> target_words = plain_words(target);
  if (target_words.size() < kMinCopyWords) return false;
  std::vector<std::string> source_words = plain_words(source);
  std::sort(source_words.begin(), source_words.end());
  const auto copied = std::count_if(target_words.begin(), target_words.end(), [&](const std::string& w) {
    return std::binary_search(source_words.begin(), source_words.end(), w);
  });
  return static_cast<double>(copied) >= kCopyShare * static_cast<double>(target_words.size());
}

constexpr int kLargestWordNumber = 12;  // "2 girls" may become "zwei Mädchen"

bool is_space_at(const std::string& text, size_t at) {
  return at >= text.size() || std::isspace(static_cast<unsigned char>(text[at])) != 0;
}

// Runs of ASCII digits, counted: "12.5" and German "12,5" both give {12, 5}. With `skip_words`, numbers up
// to kLargestWordNumber standing alone between spaces are left out: a translation may spell them.
std::map<std::string, int> digit_runs(const std::string& text, bool skip_words = false) {
  std::map<std::string, int> runs;
  for (size_t i = 0; i < text.size();) {
    if (std::isdigit(static_cast<unsigned char>(text[i])) == 0) {
      ++i;
      continue;
    }
    size_t end = i;
    while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end])) != 0) ++end;
    const std::string digits = text.substr(i, end - i);
    const bool word = (i == 0 || is_space_at(text, i - 1)) && is_space_at(text, end);
    if (!(skip_words && word && digits.size() <= 2 && std::stoi(digits) <= kLargestWordNumber))
      ++runs[digits];
    i = end;
  }
  return runs;
}

bool numbers_lost(const std::string& source, const std::string& target) {
  const std::map<std::string, int> in_target = digit_runs(target);
  for (const auto& [digits, count] : digit_runs(source, /*skip_words=*/true)) {
    const auto it = in_target.find(digits);
    if (it == in_target.end() || it->second < count) return true;
  }
  return false;
}

}  // namespace

float sentence_confidence(const std::vector<float>& token_scores) {
  if (token_scores.empty()) return 0.0f;
  double sum = 0.0;
  for (float s : token_scores) sum += s;
  const double mean = sum / static_cast<double>(token_scores.size());
  return std::isfinite(mean) ? static_cast<float>(std::exp(mean)) : 0.0f;
}

std::vector<std::string> failure_flags(const std::string& source, const std::string& target,
                                       const std::vector<int32_t>& target_ids) {
  std::vector<std::string> flags;
  if (has_loop(target_ids)) flags.push_back("loop");
  if (length_ratio_off(source, target)) flags.push_back("length-ratio");
  if (copies_source(source, target)) flags.push_back("copy");
  if (numbers_lost(source, target)) flags.push_back("numbers");
  return flags;
}

LowConfidenceAction low_confidence_action(const std::string& name) {
  if (name == "keep") return LowConfidenceAction::kKeep;
  if (name == "source") return LowConfidenceAction::kSource;
  if (name == "empty") return LowConfidenceAction::kEmpty;
  if (name == "mark") return LowConfidenceAction::kMark;
  throw std::invalid_argument("'" + name + "' is not one of keep, source, empty, mark");
}

std::string low_confidence_text(LowConfidenceAction action, const std::string& source,
                                const std::string& target) {
  switch (action) {
    case LowConfidenceAction::kSource:
      return source;
    case LowConfidenceAction::kEmpty:
      return "";
    case LowConfidenceAction::kMark:
      return kLowConfidenceMark + target;
    case LowConfidenceAction::kKeep:
      break;
  }
  return target;
}

std::vector<WordLink> low_confidence_links(LowConfidenceAction action, const std::string& source,
                                           const std::vector<WordLink>& links) {
  const auto word_count = [](const std::string& text) {
    int n = 0;
    bool in_word = false;
    for (char c : text) {
      const bool space = c == ' ' || c == '\t' || c == '\n';
      if (!space && !in_word) ++n;
      in_word = !space;
    }
    return n;
  };
  std::vector<WordLink> out;
  switch (action) {
    case LowConfidenceAction::kSource:
      for (int i = 0, n = word_count(source); i < n; ++i) out.push_back({i, i});
      return out;
    case LowConfidenceAction::kEmpty:
      return out;
    case LowConfidenceAction::kMark: {
      const int mark_words = word_count(source) > 0 ? word_count(kLowConfidenceMark) : 0;
      for (int i = 0; i < mark_words; ++i) out.push_back({0, i});
      for (const WordLink& link : links) out.push_back({link.source, link.target + mark_words});
      return out;
    }
    case LowConfidenceAction::kKeep:
      break;
  }
  return links;
}

}  // namespace pipeline
