#include "documents/nesting.h"

#include <algorithm>

namespace documents {

std::string too_deep_message(const std::string& where) {
  return where + ": elements nested deeper than " + std::to_string(kMaxNestingDepth) + " levels";
}

pugi::xml_node first_too_deep(const pugi::xml_node& root) {
  size_t depth = 1;
  for (pugi::xml_node node = root.first_child(); node;) {
    if (depth > kMaxNestingDepth && node.type() == pugi::node_element) return node;
    if (node.first_child()) {
      node = node.first_child();
      ++depth;
      continue;
    }
    while (!node.next_sibling()) {
      node = node.parent();
      --depth;
      if (node == root) return {};
    }
    node = node.next_sibling();
  }
  return {};
}

size_t line_at(std::string_view text, size_t offset) {
  offset = std::min(offset, text.size());
  return 1 + static_cast<size_t>(std::count(text.begin(), text.begin() + offset, '\n'));
}

}  // namespace documents
