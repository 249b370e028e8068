#include "pipeline/glossary.h"

#include <unicode/uchar.h>
#include <unicode/utf8.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "core/error.h"
#include "core/utf8_encode.h"
#include "pipeline/translate_options.h"

namespace pipeline {
namespace {

struct Word {
  size_t begin, end;
  std::string text;  // folded when asked
};

bool is_word_char(UChar32 c) { return u_isalnum(c) || (U_GET_GC_MASK(c) & U_GC_M_MASK) != 0; }

// The words of `text` (runs of letters, digits and marks) with their byte spans; `fold`: case-folded.
std::vector<Word> words_of(std::string_view text, bool fold) {
  std::vector<Word> words;
  const auto* s = reinterpret_cast<const uint8_t*>(text.data());
  const int32_t n = static_cast<int32_t>(text.size());
  int32_t i = 0;
  bool in_word = false;
  while (i < n) {
    const int32_t start = i;
    UChar32 c;
    U8_NEXT(s, i, n, c);
    if (c < 0 || !is_word_char(c)) {
      in_word = false;
      continue;
    }
    if (!in_word) words.push_back({static_cast<size_t>(start), 0, {}});
    in_word = true;
    Word& w = words.back();
    w.end = static_cast<size_t>(i);
    const UChar32 folded = fold ? u_foldCase(c, U_FOLD_CASE_DEFAULT) : c;
    core::append_utf8(w.text, static_cast<uint32_t>(folded));
  }
  return words;
}

std::string trim(std::string_view s) {
  const size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string_view::npos) return "";
  const size_t e = s.find_last_not_of(" \t\r");
  return std::string(s.substr(b, e - b + 1));
}

std::vector<std::string> split_forms(std::string_view targets) {
  std::vector<std::string> forms;
  size_t start = 0;
  while (true) {
    const size_t bar = targets.find('|', start);
    forms.push_back(trim(targets.substr(start, bar == std::string_view::npos ? bar : bar - start)));
    if (bar == std::string_view::npos) return forms;
    start = bar + 1;
  }
}

}  // namespace

Glossary Glossary::parse(std::string_view text, const std::string& origin) {
  Glossary g;
  size_t line_no = 0;
  for (size_t start = 0; start < text.size();) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++line_no;
    if (line_no == 1 && line.substr(0, 3) == "\xEF\xBB\xBF") line.remove_prefix(3);  // a BOM
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const std::string where = origin + ":" + std::to_string(line_no);
    if (trim(line).empty() || trim(line)[0] == '#') continue;
    const size_t tab = line.find('\t');
    if (tab == std::string_view::npos)
      throw core::UsageError(where + ": expected SOURCE<TAB>TARGET, found no tab");
    GlossaryEntry entry;
    entry.source = trim(line.substr(0, tab));
    std::string_view rest = line.substr(tab + 1);
    const size_t tab2 = rest.find('\t');
    entry.targets = split_forms(rest.substr(0, tab2));
    if (tab2 != std::string_view::npos) {
      const std::string flags = trim(rest.substr(tab2 + 1));
      if (flags == "case") {
        entry.case_sensitive = true;
      } else if (!flags.empty()) {
        throw core::UsageError(where + ": unknown flag '" + flags + "' (the third column takes 'case')");
      }
    }
    g.add(std::move(entry), where);
  }
  return g;
}

Glossary Glossary::read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  if (in) text << in.rdbuf();
  if (!in || in.bad()) throw core::UsageError(path + ": cannot read the glossary");
  return parse(text.str(), path);
}

void Glossary::add_term(std::string_view term, const std::string& where) {
  const size_t eq = term.find('=');
  if (eq == std::string_view::npos)
    throw core::UsageError(where + " '" + std::string(term) + "': expected SOURCE=TARGET");
  add_pair(term.substr(0, eq), term.substr(eq + 1), where + " '" + std::string(term) + "'");
}

void Glossary::add_pair(std::string_view source, std::string_view targets, const std::string& where) {
  GlossaryEntry entry;
  entry.source = trim(source);
  entry.targets = split_forms(targets);
  add(std::move(entry), where);
}

void Glossary::add(GlossaryEntry entry, const std::string& where) {
  if (words_of(entry.source, false).empty())
    throw core::UsageError(where + ": the source term has no word (letters or digits)");
  if (entry.targets.size() > kMaxTermForms)
    throw core::UsageError(where + ": more than " + std::to_string(kMaxTermForms) + " target forms");
  for (const std::string& form : entry.targets) {
    if (form.empty()) throw core::UsageError(where + ": an empty target form");
    if (form.find_first_of("\t\n") != std::string::npos)
      throw core::UsageError(where + ": a target form holds a tab or line break");
  }
  Key key{{}, 0};
  for (Word& w : words_of(entry.source, !entry.case_sensitive)) key.words.push_back(std::move(w.text));
  for (size_t i = 0; i < keys_.size(); ++i) {
    if (keys_[i].words == key.words && entries_[i].case_sensitive == entry.case_sensitive) {
      entries_[i] = std::move(entry);
      return;
    }
  }
  key.entry = entries_.size();
  entries_.push_back(std::move(entry));
  keys_.push_back(std::move(key));
}

void Glossary::merge(const Glossary& other) {
  for (const GlossaryEntry& e : other.entries_) add(e, "glossary");
}

std::vector<TermMatch> Glossary::match(std::string_view text) const {
  std::vector<TermMatch> out;
  if (entries_.empty()) return out;
  const std::vector<Word> folded = words_of(text, true), exact = words_of(text, false);
  for (size_t w = 0; w < folded.size();) {
    size_t best_entry = 0, best_words = 0;
    for (const Key& key : keys_) {
      const size_t n = key.words.size();
      if (n <= best_words || w + n > folded.size()) continue;
      const std::vector<Word>& words = entries_[key.entry].case_sensitive ? exact : folded;
      bool same = true;
      for (size_t k = 0; same && k < n; ++k) same = words[w + k].text == key.words[k];
      if (same) {
        best_entry = key.entry;
        best_words = n;
      }
    }
    if (best_words == 0) {
      ++w;
      continue;
    }
    out.push_back({best_entry, folded[w].begin, folded[w + best_words - 1].end});
    w += best_words;
  }
  return out;
}

std::string Glossary::canonical() const {
  std::string out;
  for (const GlossaryEntry& e : entries_) {
    out += e.source + '\t';
    for (size_t i = 0; i < e.targets.size(); ++i) out += (i ? "|" : "") + e.targets[i];
    out += e.case_sensitive ? "\tcase\n" : "\n";
  }
  return out;
}

bool holds_term(std::string_view translation, const GlossaryEntry& entry) {
  return std::any_of(entry.targets.begin(), entry.targets.end(), [&](const std::string& form) {
    return translation.find(form) != std::string_view::npos;
  });
}

std::shared_ptr<const Glossary> load_glossary(const TranslateOptions& options) {
  if (options.glossary.empty() && options.terms.empty()) return nullptr;
  auto glossary =
      std::make_shared<Glossary>(options.glossary.empty() ? Glossary() : Glossary::read(options.glossary));
  std::string_view terms = options.terms;
  while (!terms.empty()) {
    const size_t newline = terms.find('\n');
    glossary->add_term(terms.substr(0, newline), "--term");
    terms = newline == std::string_view::npos ? std::string_view() : terms.substr(newline + 1);
  }
  return glossary;
}

}  // namespace pipeline
