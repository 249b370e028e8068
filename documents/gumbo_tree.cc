#include "documents/gumbo_tree.h"

#include <cstdlib>
#include <vector>

#include "documents/nesting.h"

namespace documents {

namespace {

GumboVector* children_of(GumboNode* node) {
  if (node->type == GUMBO_NODE_DOCUMENT) return &node->v.document.children;
  if (node->type == GUMBO_NODE_ELEMENT || node->type == GUMBO_NODE_TEMPLATE) return &node->v.element.children;
  return nullptr;
}

// Visits every node below `root` in document order with its depth (1 for root's children), walking the
// parent links instead of recursing. `visit` returns false to stop.
template <class Visit>
void walk(GumboNode* root, const Visit& visit) {
  GumboVector* top = children_of(root);
  if (top == nullptr || top->length == 0) return;
  GumboNode* node = static_cast<GumboNode*>(top->data[0]);
  size_t depth = 1;
  for (;;) {
    if (!visit(node, depth)) return;
    GumboVector* children = children_of(node);
    if (children != nullptr && children->length > 0) {
      node = static_cast<GumboNode*>(children->data[0]);
      ++depth;
      continue;
    }
    for (;;) {
      GumboNode* parent = node->parent;
      if (parent == nullptr) return;
      GumboVector* siblings = children_of(parent);
      const size_t next = node->index_within_parent + 1;
      if (next < siblings->length) {
        node = static_cast<GumboNode*>(siblings->data[next]);
        break;
      }
      if (parent == root) return;
      node = parent;
      --depth;
    }
  }
}

}  // namespace

GumboTree::GumboTree(std::string_view html) {
  GumboOptions options = kGumboDefaultOptions;
  options.max_errors = 0;
  output_ = gumbo_parse_with_options(&options, html.data(), html.size());
}

const GumboNode* GumboTree::first_too_deep() const {
  const GumboNode* found = nullptr;
  walk(output_->document, [&](GumboNode* node, size_t depth) {
    if (depth > kMaxNestingDepth && node->type == GUMBO_NODE_ELEMENT) found = node;
    return found == nullptr;
  });
  return found;
}

GumboTree::~GumboTree() {
  // Every node at a multiple of kMaxNestingDepth levels gives up its children, each of which is freed as a
  // tree of its own (gumbo frees an output's document and the output itself, nothing else).
  std::vector<GumboNode*> cut;
  walk(output_->document, [&](GumboNode* node, size_t depth) {
    if (depth % kMaxNestingDepth == 0 && children_of(node) != nullptr) cut.push_back(node);
    return true;
  });
  std::vector<GumboNode*> pieces;
  for (GumboNode* node : cut) {
    GumboVector* children = children_of(node);
    for (unsigned i = 0; i < children->length; ++i)
      pieces.push_back(static_cast<GumboNode*>(children->data[i]));
    children->length = 0;
  }
  gumbo_destroy_output(&kGumboDefaultOptions, output_);
  for (GumboNode* piece : pieces) {
    // calloc: gumbo frees the output with free(), and an empty error list needs no more.
    auto* output = static_cast<GumboOutput*>(std::calloc(1, sizeof(GumboOutput)));
    if (output == nullptr) continue;  // no memory left: the piece leaks rather than the run dying
    output->document = output->root = piece;
    gumbo_destroy_output(&kGumboDefaultOptions, output);
  }
}

}  // namespace documents
