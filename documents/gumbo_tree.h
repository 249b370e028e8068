// An HTML page parsed by gumbo, held and freed without recursion over its depth: gumbo frees a tree one
// stack frame per level, so the tree is cut into pieces no deeper than kMaxNestingDepth before it is freed.
#pragma once

#include <gumbo.h>

#include <string_view>

namespace documents {

class GumboTree {
 public:
  explicit GumboTree(std::string_view html);
  ~GumboTree();
  GumboTree(const GumboTree&) = delete;
  GumboTree& operator=(const GumboTree&) = delete;

  const GumboNode& document() const { return *output_->document; }
  // The first element nested deeper than kMaxNestingDepth, or null.
  const GumboNode* first_too_deep() const;

 private:
  GumboOutput* output_;
};

}  // namespace documents
