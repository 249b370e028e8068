// GitHub's tables in md4c. GitHub (cmark-gfm) reads a delimiter row whose cells have one dash or more
// (`|--|`); md4c wants three. md4c parses a copy whose short delimiter cells are widened to three dashes,
// and the reader maps md4c's offsets in it back to the source, so the source bytes are what is kept.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace documents {

class WidenedTables {
 public:
  explicit WidenedTables(std::string_view markdown);

  // What md4c parses: the source, or a copy with short delimiter cells widened.
  std::string_view parse_text() const { return copy_.empty() ? source_ : std::string_view(copy_); }
  // The source offset of parse_text()'s `offset`; one inside added dashes maps to the end of the cell's.
  size_t source_offset(size_t offset) const;

 private:
  std::string_view source_;
  std::string copy_;                              // empty when nothing was widened
  std::vector<std::pair<size_t, size_t>> added_;  // (offset in the copy where dashes were added, how many)
};

}  // namespace documents
