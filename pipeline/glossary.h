// Terminology: source terms and the target forms their translation must use (--glossary, --term, a JSON
// line's or a request's `glossary`), and where the terms stand in a source sentence.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace pipeline {

struct GlossaryEntry {
  std::string source;                // the term as written (one or more words)
  std::vector<std::string> targets;  // its forms: the translation holds one of them
  bool case_sensitive = false;       // match the source's case exactly
};

// One occurrence of an entry in a text: bytes [begin, end).
struct TermMatch {
  size_t entry = 0;
  size_t begin = 0, end = 0;
};

// The fewest beams a sentence with terms is searched with (greedy included): the constrained search keeps
// hypotheses that hold a term and hypotheses that do not yet side by side, which one beam cannot.
constexpr int kGlossaryMinBeam = 4;

// Forms one entry may have ("Vertrag|Vertrags|Verträge"): core::kMaxConstraintForms.
constexpr size_t kMaxTermForms = 32;

class Glossary {
 public:
  // A glossary file's text: one entry a line, SOURCE<TAB>TARGET[<TAB>FLAGS], TARGET its forms separated
  // by '|', FLAGS "case" (match the source's case); blank lines and lines starting with '#' are skipped.
  // Throws core::UsageError "ORIGIN:LINE: what is wrong".
  static Glossary parse(std::string_view text, const std::string& origin);
  // parse() of a file; throws core::UsageError "PATH: cannot read ..." when it cannot be read.
  static Glossary read(const std::string& path);

  // One entry as `--term` gives it, "SOURCE=TARGET" (TARGET may hold forms); `where` names it in errors.
  void add_term(std::string_view term, const std::string& where);
  // One entry from its source and its TARGET (forms separated by '|').
  void add_pair(std::string_view source, std::string_view targets, const std::string& where);
  // Checks and adds one entry; an entry for the same source (and case rule) replaces the earlier one.
  void add(GlossaryEntry entry, const std::string& where);
  // Every entry of `other` added after these.
  void merge(const Glossary& other);

  bool empty() const { return entries_.empty(); }
  const std::vector<GlossaryEntry>& entries() const { return entries_; }

  // Where the entries stand in `text`, left to right, not overlapping: whole words only (a word is a run
  // of letters, digits and marks), case-insensitive unless the entry says otherwise, the longest entry
  // where several begin at the same word.
  std::vector<TermMatch> match(std::string_view text) const;

  // The entries in one text that changes whenever they change (the resume key's part).
  std::string canonical() const;

 private:
  struct Key {
    std::vector<std::string> words;  // folded unless case-sensitive
    size_t entry;
  };
  std::vector<GlossaryEntry> entries_;
  std::vector<Key> keys_;  // one per entry
};

// Whether `translation` holds one of the entry's forms.
bool holds_term(std::string_view translation, const GlossaryEntry& entry);

}  // namespace pipeline
