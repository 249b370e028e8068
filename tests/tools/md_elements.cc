// The elements md4c reads in a Markdown file, one per line in document order (HTML's names: p, li, h2,
// em, a, br, ...), so a test can compare the rendering of a source and its translation without an HTML
// renderer. Usage: md_elements FILE
#include <md4c.h>

#include <fstream>
#include <iostream>
#include <iterator>
#include <string>

namespace {

const char* block_name(MD_BLOCKTYPE type, void* detail) {
  static const char* headings[] = {"h1", "h2", "h3", "h4", "h5", "h6"};
  switch (type) {
    case MD_BLOCK_DOC:
      return "doc";
    case MD_BLOCK_QUOTE:
      return "blockquote";
    case MD_BLOCK_UL:
      return "ul";
    case MD_BLOCK_OL:
      return "ol";
    case MD_BLOCK_LI:
      return "li";
    case MD_BLOCK_HR:
      return "hr";
    case MD_BLOCK_H:
      return headings[static_cast<MD_BLOCK_H_DETAIL*>(detail)->level - 1];
    case MD_BLOCK_CODE:
      return "pre";
    case MD_BLOCK_HTML:
      return "html";
    case MD_BLOCK_P:
      return "p";
    case MD_BLOCK_TABLE:
      return "table";
    case MD_BLOCK_THEAD:
      return "thead";
    case MD_BLOCK_TBODY:
      return "tbody";
    case MD_BLOCK_TR:
      return "tr";
    case MD_BLOCK_TH:
      return "th";
    case MD_BLOCK_TD:
      return "td";
  }
  return "block";
}

const char* span_name(MD_SPANTYPE type) {
  switch (type) {
    case MD_SPAN_EM:
      return "em";
    case MD_SPAN_STRONG:
      return "strong";
    case MD_SPAN_A:
      return "a";
    case MD_SPAN_IMG:
      return "img";
    case MD_SPAN_CODE:
      return "code";
    case MD_SPAN_DEL:
      return "del";
    default:
      return "span";
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: md_elements FILE\n";
    return 64;
  }
  std::ifstream in(argv[1], std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  MD_PARSER parser{};
  parser.flags = MD_FLAG_TABLES | MD_FLAG_STRIKETHROUGH | MD_FLAG_TASKLISTS;
  parser.enter_block = [](MD_BLOCKTYPE type, void* detail, void*) {
    std::cout << block_name(type, detail) << '\n';
    return 0;
  };
  parser.leave_block = [](MD_BLOCKTYPE, void*, void*) { return 0; };
  parser.enter_span = [](MD_SPANTYPE type, void*, void*) {
    std::cout << span_name(type) << '\n';
    return 0;
  };
  parser.leave_span = [](MD_SPANTYPE, void*, void*) { return 0; };
  parser.text = [](MD_TEXTTYPE type, const MD_CHAR*, MD_SIZE, void*) {
    if (type == MD_TEXT_BR) std::cout << "br\n";
    return 0;
  };
  return md_parse(text.data(), static_cast<MD_SIZE>(text.size()), &parser, nullptr) == 0 ? 0 : 1;
}
