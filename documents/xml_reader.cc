#include "documents/xml_reader.h"

#include <algorithm>
#include <cstring>
#include <pugixml.hpp>

#include "core/utf8_encode.h"
#include "documents/nesting.h"
#include "documents/xml_checks.h"

namespace documents {

namespace {

bool is_xml_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

bool is_blank_text(std::string_view text) {
  return std::all_of(text.begin(), text.end(), [](char c) { return is_xml_space(c); });
}

// One code point as UTF-8; "" for one XML cannot hold.
std::string utf8(unsigned long cp) {
  std::string out;
  if (cp == 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return out;
  core::append_utf8(out, static_cast<std::uint32_t>(cp));
  return out;
}

// The text an entity reference stands for; "" for one the document's DTD defines (kept as written).
std::string predefined_entity(std::string_view ref) {
  const std::string_view body = ref.substr(1, ref.size() - 2);
  if (body == "amp") return "&";
  if (body == "lt") return "<";
  if (body == "gt") return ">";
  if (body == "quot") return "\"";
  if (body == "apos") return "'";
  if (body.size() > 1 && body[0] == '#') {
    const bool hex = body[1] == 'x';
    const std::string digits(body.substr(hex ? 2 : 1));
    if (digits.empty() || digits.size() > 8) return "";
    char* end = nullptr;
    const unsigned long cp = std::strtoul(digits.c_str(), &end, hex ? 16 : 10);
    if (*end != '\0') return "";
    return utf8(cp);
  }
  return "";
}

bool is_translate_no(const pugi::xml_node& node) {
  for (const char* attribute : {"translate", "its:translate"}) {
    if (std::strcmp(node.attribute(attribute).value(), "no") == 0) return true;
  }
  return false;
}

// The xml:space the node sets, or the one it inherits.
bool preserves_space(const pugi::xml_node& node, bool inherited) {
  const std::string_view space = node.attribute("xml:space").value();
  if (space == "preserve") return true;
  if (space == "default") return false;
  return inherited;
}

// A segment and the source bytes [begin, end) its translation replaces.

class XmlReader {
 public:
  XmlReader(std::string_view xml, const std::vector<std::string>& only) : xml_(xml), only_(only) {
    for (size_t i = 0; i < xml.size(); ++i) {
      if (xml[i] == '\n') line_starts_.push_back(i + 1);
    }
  }

  std::vector<SourceSpan> spans;

  void read(const pugi::xml_node& node, bool preserve) {
    for (pugi::xml_node child : node.children()) {
      if (child.type() != pugi::node_element || is_translate_no(child)) continue;
      const bool child_preserve = preserves_space(child, preserve);
      if (has_own_text(child) && chosen(child)) {
        read_segment(child, child_preserve);
      } else {
        read(child, child_preserve);
      }
    }
  }

 private:
  bool chosen(const pugi::xml_node& node) const {
    return only_.empty() || std::find(only_.begin(), only_.end(), node.name()) != only_.end();
  }

  static bool has_own_text(const pugi::xml_node& node) {
    for (pugi::xml_node child : node.children()) {
      if (child.type() == pugi::node_pcdata && !is_blank_text(child.value())) return true;
    }
    return false;
  }

  int line_of(size_t offset) const {
    return static_cast<int>(std::upper_bound(line_starts_.begin(), line_starts_.end(), offset) -
                            line_starts_.begin()) +
           1;
  }

  // Where the start tag whose name begins at `name` ends (one past its '>'), quotes respected.
  size_t start_tag_end(size_t name) const {
    char quote = 0;
    for (size_t i = name; i < xml_.size(); ++i) {
      const char c = xml_[i];
      if (quote != 0) {
        if (c == quote) quote = 0;
      } else if (c == '"' || c == '\'') {
        quote = c;
      } else if (c == '>') {
        return i + 1;
      }
    }
    return xml_.size();
  }

  static size_t begin_of(const pugi::xml_node& node) {
    const size_t offset = static_cast<size_t>(node.offset_debug());
    switch (node.type()) {
      case pugi::node_element:
        return offset - 1;  // "<"
      case pugi::node_comment:
        return offset - 4;  // "<!--"
      case pugi::node_cdata:
        return offset - 9;  // "<![CDATA["
      case pugi::node_pi:
        return offset - 2;  // "<?"
      default:
        return offset;
    }
  }

  size_t end_of(const pugi::xml_node& node) const {
    const size_t offset = static_cast<size_t>(node.offset_debug());
    switch (node.type()) {
      case pugi::node_pcdata:
        return offset + std::strlen(node.value());
      case pugi::node_comment:
      case pugi::node_cdata:
        return offset + std::strlen(node.value()) + 3;  // "-->", "]]>"
      case pugi::node_pi: {
        const size_t close = xml_.find("?>", offset);
        return close == std::string_view::npos ? xml_.size() : close + 2;
      }
      case pugi::node_element:
        return element_end(node);
      default:
        return offset;
    }
  }

  // Where the element's content ends: its end tag's '<' (or its start tag's end when self-closing).
  size_t content_end(const pugi::xml_node& node) const {
    const size_t tag_end = start_tag_end(static_cast<size_t>(node.offset_debug()));
    if (tag_end >= 2 && xml_[tag_end - 2] == '/') return tag_end;
    pugi::xml_node last = node.last_child();
    return last ? end_of(last) : tag_end;
  }

  size_t element_end(const pugi::xml_node& node) const {
    const size_t tag_end = start_tag_end(static_cast<size_t>(node.offset_debug()));
    if (tag_end >= 2 && xml_[tag_end - 2] == '/') return tag_end;
    const size_t close = xml_.find('>', content_end(node));
    return close == std::string_view::npos ? xml_.size() : close + 1;
  }

  std::string_view bytes(size_t begin, size_t end) const { return xml_.substr(begin, end - begin); }

  // The element's content as segments: one, or under xml:space="preserve" one per stretch between kept
  // whitespace runs.
  void read_segment(const pugi::xml_node& element, bool preserve) {
    run_ = Segment();
    run_begin_ = start_tag_end(static_cast<size_t>(element.offset_debug()));
    add_children(element, preserve, true);
    finish_run(content_end(element));
  }

  void finish_run(size_t end) {
    Segment segment = std::move(run_);
    run_ = Segment();
    while (!segment.text.empty() && segment.text.back() == ' ') segment.text.pop_back();
    if (segment.text.empty()) return;  // nothing to translate: the bytes stay as they are
    for (InlineElement& e : segment.elements) {
      e.begin = std::min(e.begin, segment.text.size());
      e.end = std::min(e.end, segment.text.size());
    }
    bool after_trailing_space = false;
    for (Insertion& i : segment.insertions) {
      // The first one after the text's trailing space: the space comes back before it.
      if (i.at > segment.text.size() && !after_trailing_space) i.spaced = after_trailing_space = true;
      i.at = std::min(i.at, segment.text.size());
    }
    // Whitespace at the segment's edges stays in the skeleton.
    size_t first = run_begin_, last = end;
    while (first < last && is_xml_space(xml_[first])) ++first;
    while (last > first && is_xml_space(xml_[last - 1])) --last;
    segment.line = line_of(first);
    spans.push_back({first, last, std::move(segment)});
  }

  // Whether the source byte at `offset` starts a new word.
  bool space_at(size_t offset) const { return offset >= xml_.size() || is_xml_space(xml_[offset]); }
  bool at_word_start() const { return run_.text.empty() || run_.text.back() == ' '; }

  void add_children(const pugi::xml_node& parent, bool preserve, bool top_level) {
    for (pugi::xml_node child : parent.children()) {
      if (child.type() == pugi::node_pcdata) {
        add_text(child.value(), static_cast<size_t>(child.offset_debug()), preserve, top_level);
        continue;
      }
      const std::string_view whole = bytes(begin_of(child), end_of(child));
      if (child.type() != pugi::node_element) {  // comments, CDATA, processing instructions
        run_.insert(std::string(whole));
        continue;
      }
      if (is_translate_no(child) || !child.first_child()) {
        // A kept element between spaces is a word of its own; an empty one (<br/>) ends a word, as in HTML.
        const bool spaced = at_word_start() && space_at(end_of(child));
        run_.insert(std::string(whole), spaced);
        if (!child.first_child() && !at_word_start()) run_.text += ' ';
        continue;
      }
      const size_t tag_begin = begin_of(child);
      const size_t tag_end = start_tag_end(static_cast<size_t>(child.offset_debug()));
      const size_t index = run_.open_element(std::string(bytes(tag_begin, tag_end)));
      add_children(child, preserves_space(child, preserve), false);
      std::string close(bytes(content_end(child), end_of(child)));
      const bool spaced = at_word_start() && space_at(end_of(child));
      if (!run_.close_as_insertion(index, close, spaced)) run_.close_element(index, std::move(close));
    }
  }

  // Raw character data starting at source offset `base`: entities decoded (a DTD's own entities kept as
  // insertions), whitespace runs as one space. Under xml:space="preserve" a run other than one space stays
  // as it is: between segments at the top level, as an insertion inside an inline element.
  void add_text(std::string_view raw, size_t base, bool preserve, bool top_level) {
    for (size_t i = 0; i < raw.size();) {
      const char c = raw[i];
      if (is_xml_space(c)) {
        size_t run = i;
        while (run < raw.size() && is_xml_space(raw[run])) ++run;
        if (preserve && raw.substr(i, run - i) != " " && top_level) {
          finish_run(base + i);
          run_begin_ = base + run;
        } else if (preserve && raw.substr(i, run - i) != " ") {
          run_.insert(std::string(raw.substr(i, run - i)));
          if (!at_word_start()) run_.text += ' ';
        } else if (!at_word_start()) {
          run_.text += ' ';
        }
        i = run;
        continue;
      }
      const size_t semicolon = c == '&' ? raw.find(';', i) : std::string_view::npos;
      if (semicolon != std::string_view::npos) {
        const std::string_view ref = raw.substr(i, semicolon - i + 1);
        const std::string decoded = predefined_entity(ref);
        if (decoded.empty()) {
          run_.insert(std::string(ref), at_word_start() && space_at(base + semicolon + 1));
        } else {
          run_.text += decoded;
        }
        i = semicolon + 1;
        continue;
      }
      run_.text += c;
      ++i;
    }
  }

  std::string_view xml_;
  const std::vector<std::string>& only_;
  std::vector<size_t> line_starts_;
  Segment run_;  // the segment being read, over the source from run_begin_
  size_t run_begin_ = 0;
};

}  // namespace

std::string escape_xml_text(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '&') {
      out += "&amp;";
    } else if (c == '<') {
      out += "&lt;";
    } else if (c == '>') {
      out += "&gt;";
    } else {
      out += c;
    }
  }
  return out;
}

Document read_xml(std::string_view xml, const std::string& name, const std::vector<std::string>& only) {
  pugi::xml_document parsed;
  // Escapes and line ends left undecoded, so every text node's value is its source bytes.
  const unsigned options =
      (pugi::parse_full | pugi::parse_ws_pcdata) & ~(pugi::parse_escapes | pugi::parse_eol);
  const pugi::xml_parse_result result =
      parsed.load_buffer(xml.data(), xml.size(), options, pugi::encoding_utf8);
  std::optional<XmlFault> fault;
  if (!result) {
    fault = XmlFault{std::min(static_cast<size_t>(result.offset), xml.size()), result.description()};
  } else {
    // The checks and the reader recurse once per level: a deeper document is refused before they walk it.
    if (const pugi::xml_node deep = first_too_deep(parsed)) {
      const size_t offset = static_cast<size_t>(std::max<ptrdiff_t>(deep.offset_debug(), 0));
      throw TooDeep(too_deep_message(name + ":" + std::to_string(line_at(xml, offset))));
    }
    fault = first_xml_fault(xml, parsed);
  }
  if (fault) {
    size_t line = 1, column = 1;
    for (size_t i = 0; i < std::min(fault->offset, xml.size()); ++i) {
      if (xml[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    throw MalformedXml(name + ":" + std::to_string(line) + ":" + std::to_string(column) +
                       ": malformed XML: " + fault->reason);
  }
  XmlReader reader(xml, only);
  reader.read(parsed, false);
  return splice_spans(xml, std::move(reader.spans));
}

}  // namespace documents
