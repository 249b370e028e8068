#include "documents/cue_text.h"

#include <cctype>
#include <utility>
#include <vector>

namespace documents {

namespace {

std::string tag_name(std::string_view tag) {  // "<i>" -> "i", "</c.x>" -> "c", "<v Bob>" -> "v"
  size_t i = tag[1] == '/' ? 2 : 1;
  size_t end = i;
  while (end < tag.size() && std::string_view(" .>\t").find(tag[end]) == std::string_view::npos) ++end;
  return std::string(tag.substr(i, end - i));
}

// The character a WebVTT reference stands for, "" when it is kept as written (bidi marks, unknown ones).
std::string_view decoded_reference(std::string_view reference) {
  static const std::pair<std::string_view, std::string_view> kDecoded[] = {
      {"&amp;", "&"}, {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&apos;", "'"}, {"&nbsp;", "\xC2\xA0"},
  };
  for (const auto& [name, character] : kDecoded) {
    if (reference == name) return character;
  }
  return {};
}

void append_text(Segment& segment, char c) {
  if (c != ' ' || (!segment.text.empty() && segment.text.back() != ' ')) segment.text += c;
}

}  // namespace

void add_cue_text(Segment& segment, const std::string& text, bool webvtt) {
  std::vector<std::pair<std::string, size_t>> open;
  for (size_t i = 0; i < text.size();) {
    if (text[i] == '{' && i + 1 < text.size() && text[i + 1] == '\\') {
      const size_t close = text.find('}', i);
      if (close != std::string::npos) {
        segment.insert(text.substr(i, close + 1 - i));
        i = close + 1;
        continue;
      }
    }
    if (webvtt && text[i] == '&') {
      const size_t semicolon = text.find(';', i);
      if (semicolon != std::string::npos && semicolon - i <= 10) {
        const std::string_view reference(text.data() + i, semicolon + 1 - i);
        const std::string_view character = decoded_reference(reference);
        if (character.empty()) {
          segment.insert(std::string(reference));
        } else {
          segment.text += character;
        }
        i = semicolon + 1;
        continue;
      }
    }
    const size_t close = text[i] == '<' ? text.find('>', i) : std::string::npos;
    if (close == std::string::npos) {
      append_text(segment, text[i++]);
      continue;
    }
    const std::string tag = text.substr(i, close + 1 - i);
    i = close + 1;
    const std::string name = tag_name(tag);
    if (tag[1] == '/') {
      if (!open.empty() && open.back().first == name) {
        segment.close_element(open.back().second, tag);
        open.pop_back();
      } else {
        segment.insert(tag);
      }
    } else if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) {
      segment.insert(tag);  // a WebVTT timestamp tag
    } else {
      open.emplace_back(name, segment.open_element(tag));
    }
  }
  while (!open.empty()) {
    segment.close_element(open.back().second, "");
    open.pop_back();
  }
}

size_t dialogue_dash_length(std::string_view line) {
  static const std::string_view kDashes[] = {"-", "\xE2\x80\x93", "\xE2\x80\x94"};  // -, en dash, em dash
  for (std::string_view dash : kDashes) {
    if (line.substr(0, dash.size()) != dash) continue;
    size_t n = dash.size();
    if (n < line.size() && line[n] == '-') return 0;  // "--" or "-->" is not a speaker's dash
    while (n < line.size() && line[n] == ' ') ++n;
    return n;
  }
  return 0;
}

}  // namespace documents
