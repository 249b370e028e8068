#include "documents/subtitles.h"

#include <algorithm>

#include "documents/cue_text.h"
#include "documents/cue_timing.h"
#include "documents/projection.h"
#include "documents/xml_reader.h"

namespace documents {

namespace {

// Private markers of a cue's start and end inside a sentence's projected translation.
constexpr char kCueOpen[] = "\x01";
constexpr char kCueClose[] = "\x02";
constexpr size_t kMaxCuesPerSentence = 8;
constexpr size_t kDefaultWidth = 42;
// A cue shown this long after the one before starts a sentence of its own (chapter titles, a caption after
// a pause), whatever the one before ends with.
constexpr long long kMaxSentenceGapMs = 2000;
// A file is translated a window of cues at a time, so its memory stays that of a window, not of the file:
// a window ends at the first sentence end after this many cues (enough sentences for full batches), or
// anywhere after kHardWindowCues in a file whose cues never end a sentence.
constexpr size_t kWindowCues = 1000;
constexpr size_t kHardWindowCues = 4 * kWindowCues;

// A cue's text, or one line of a dialogue cue (each speaker's line is a sentence of its own, written back
// on its own line after its dash).
struct Cue {
  size_t part = 0;                 // its slot among the output parts
  std::vector<std::string> lines;  // its text lines, without line endings
  int line = 0;                    // the file line of its first text line
  bool last_line_ended = true;     // false: the file ends on its last text line without a line break
  std::string dash;                // a dialogue line's speaker dash with its spaces
  bool dialogue = false;
  long long start_ms = -1, end_ms = -1;  // from its timing line; -1 where that does not parse
};

// Whether a block's first line is a WebVTT header or a NOTE, STYLE or REGION block, or an SRT index alone:
// no cue, so no timing line is expected.
bool is_cue_free_block(const std::string& first_line, bool alone) {
  for (std::string_view word : {"WEBVTT", "NOTE", "STYLE", "REGION", "\xEF\xBB\xBFWEBVTT"}) {
    if (first_line.compare(0, word.size(), word) == 0) return true;
  }
  return alone && !first_line.empty() && first_line.find_first_not_of("0123456789 \r") == std::string::npos;
}

// A cue's text lines as cues: one, or one per line when a line after the first opens with a speaker's dash.
void add_cue(std::vector<Cue>& cues, Cue cue) {
  bool dialogue = false;
  for (size_t k = 1; k < cue.lines.size(); ++k) dialogue = dialogue || dialogue_dash_length(cue.lines[k]) > 0;
  if (!dialogue) {
    cues.push_back(std::move(cue));
    return;
  }
  for (size_t k = 0; k < cue.lines.size(); ++k) {
    Cue line = cue;
    const size_t dash = dialogue_dash_length(cue.lines[k]);
    line.dash = cue.lines[k].substr(0, dash);
    line.lines = {cue.lines[k].substr(dash)};
    line.line = cue.line + static_cast<int>(k);
    line.dialogue = true;
    line.last_line_ended = k + 1 < cue.lines.size() || cue.last_line_ended;
    cues.push_back(std::move(line));
  }
}

size_t columns(std::string_view text) {
  size_t n = 0;
  bool in_tag = false;
  for (char c : text) {
    if (c == '<') in_tag = true;
    if (!in_tag && (static_cast<unsigned char>(c) & 0xC0) != 0x80) ++n;
    if (c == '>') in_tag = false;
  }
  return n;
}

bool ends_sentence(const std::string& text) {
  std::string_view t(text);
  while (!t.empty() && (t.back() == ' ' || t.back() == '"' || t.back() == '\'' || t.back() == ')'))
    t.remove_suffix(1);
  if (t.empty()) return true;
  static const std::vector<std::string_view> ends = {".", "!", "?", "\xE2\x80\xA6", "\xE2\x99\xAA", ":", ";"};
  return std::any_of(ends.begin(), ends.end(), [&](std::string_view e) {
    return t.size() >= e.size() && t.substr(t.size() - e.size()) == e;
  });
}

std::string strip_tags(const std::string& text) {
  std::string out;
  bool in_tag = false;
  for (char c : text) {
    if (c == '<') in_tag = true;
    if (!in_tag) out += c;
    if (c == '>') in_tag = false;
  }
  return out;
}

std::string trim(std::string text) {
  const size_t b = text.find_first_not_of(' ');
  if (b == std::string::npos) return "";
  return text.substr(b, text.find_last_not_of(' ') + 1 - b);
}

// The projected sentence cut at the cue markers; text outside every marker joins the cue before it.
std::vector<std::string> split_cues(const std::string& projected) {
  std::vector<std::string> cues;
  std::string pending;
  bool inside = false;
  for (char c : projected) {
    if (c == kCueOpen[0]) {
      cues.push_back(pending);
      pending.clear();
      inside = true;
    } else if (c == kCueClose[0]) {
      inside = false;
    } else if (inside || cues.empty()) {
      (cues.empty() ? pending : cues.back()) += c;
    } else {
      cues.back() += c;
    }
  }
  if (!pending.empty() && !cues.empty()) cues.front() = pending + cues.front();
  for (std::string& cue : cues) cue = trim(cue);
  return cues;
}

// Words spread over `n` cues in proportion to the source cues' word counts.
std::vector<std::string> spread(const std::string& target, const std::vector<size_t>& source_words) {
  std::vector<std::string> words;
  for (size_t i = 0; i < target.size();) {
    const size_t end = std::min(target.find(' ', i), target.size());
    if (end > i) words.push_back(target.substr(i, end - i));
    i = end + 1;
  }
  size_t total = 0;
  for (size_t n : source_words) total += std::max<size_t>(n, 1);
  std::vector<std::string> cues(source_words.size());
  size_t done = 0, seen = 0;
  for (size_t c = 0; c < cues.size(); ++c) {
    seen += std::max<size_t>(source_words[c], 1);
    size_t upto = c + 1 == cues.size() ? words.size() : std::min(words.size(), seen * words.size() / total);
    // With a word for every cue, none is left empty: each takes one, leaving one for each cue after it.
    const size_t later = cues.size() - c - 1;
    if (words.size() >= cues.size()) upto = std::clamp(upto, done + 1, words.size() - later);
    for (; done < upto; ++done) cues[c] += (cues[c].empty() ? "" : " ") + words[done];
  }
  return cues;
}

}  // namespace

std::vector<std::string> wrap_cue(const std::string& text, size_t width) {
  std::vector<std::string> words;  // split at spaces outside tags
  std::string word;
  bool in_tag = false;
  for (char c : text) {
    if (c == '<') in_tag = true;
    if (c == '>') in_tag = false;
    if (c == ' ' && !in_tag) {
      if (!word.empty()) words.push_back(word);
      word.clear();
    } else {
      word += c;
    }
  }
  if (!word.empty()) words.push_back(word);
  std::vector<std::string> lines;
  for (const std::string& w : words) {
    if (!lines.empty() && columns(lines.back()) + 1 + columns(w) <= width) {
      lines.back() += " " + w;
    } else {
      lines.push_back(w);
    }
  }
  return lines;
}

namespace {

std::string line_body(std::string_view line) {
  size_t n = line.size();
  while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r')) --n;
  return std::string(line.substr(0, n));
}

bool is_blank_line(std::string_view line) {
  return line_body(line).find_first_not_of(" \t") == std::string::npos;
}

// Whether `next` cannot share a sentence with `previous`, wherever the sentence started.
bool sentence_boundary(const Cue& previous, const Cue& next) {
  return next.dialogue || previous.dialogue || ends_sentence(strip_tags(previous.lines.back())) ||
         (next.start_ms >= 0 && previous.end_ms >= 0 && next.start_ms - previous.end_ms > kMaxSentenceGapMs);
}

// The cues read and not yet written, with the output parts around them (verbatim bytes and one slot per
// cue), translated and written together when the window is full at a sentence's end.
class CueWindow {
 public:
  CueWindow(const std::string& name, std::vector<std::string>* warnings, const SegmentTranslator& translate,
            bool webvtt, const SubtitleWriter& write, const WindowStart& starting)
      : name_(name),
        warnings_(warnings),
        translate_(translate),
        webvtt_(webvtt),
        write_(write),
        starting_(starting) {}

  void set_eol(std::string eol) { eol_ = std::move(eol); }
  // The file's bytes read so far: where the window (or the next) ends.
  void read_to(size_t offset) { read_to_ = offset; }
  void verbatim(std::string bytes) { parts_.push_back(std::move(bytes)); }
  // A cue after the verbatim bytes before it (its block's index and timing lines).
  void cue(Cue cue) {
    Cue probe = cue;
    probe.dialogue = false;
    for (size_t k = 1; k < cue.lines.size(); ++k)
      probe.dialogue = probe.dialogue || dialogue_dash_length(cue.lines[k]) > 0;
    if (!cues_.empty() && (cues_.size() >= kHardWindowCues ||
                           (cues_.size() >= kWindowCues && sentence_boundary(cues_.back(), probe)))) {
      flush();
    }
    cue.part = parts_.size();
    parts_.emplace_back();
    add_cue(cues_, std::move(cue));
  }
  // Translates and writes what the window holds.
  void flush();

 private:
  const std::string& name_;
  std::vector<std::string>* warnings_;
  const SegmentTranslator& translate_;
  const bool webvtt_;
  const SubtitleWriter& write_;
  const WindowStart& starting_;
  std::string eol_ = "\n";
  size_t window_begin_ = 0, read_to_ = 0;  // the window's bytes of the file
  std::vector<std::string> parts_;
  std::vector<Cue> cues_;
};

void CueWindow::flush() {
  std::vector<std::string>& parts = parts_;
  std::vector<Cue>& cues = cues_;
  std::vector<std::string>* warnings = warnings_;
  const std::string& name = name_;
  const std::string& eol = eol_;
  const bool webvtt = webvtt_;
  const SegmentTranslator& translate = translate_;
  if (starting_) starting_(window_begin_, read_to_);
  window_begin_ = read_to_;
  // Sentences: runs of cues up to one whose text ends a sentence.
  std::vector<Segment> segments;
  std::vector<std::vector<size_t>> members;
  for (size_t c = 0; c < cues.size(); ++c) {
    if (members.empty() || members.back().size() >= kMaxCuesPerSentence ||
        sentence_boundary(cues[c - 1], cues[c])) {
      segments.emplace_back();
      segments.back().line = cues[c].line;
      members.emplace_back();
    }
    Segment& segment = segments.back();
    if (!segment.text.empty()) segment.text += ' ';
    const size_t index = segment.open_element(kCueOpen);
    std::string joined;
    for (const std::string& line : cues[c].lines) joined += (joined.empty() ? "" : " ") + line;
    add_cue_text(segment, joined, webvtt);
    while (!segment.text.empty() && segment.text.back() == ' ') segment.text.pop_back();
    segment.close_element(index, kCueClose);
    members.back().push_back(c);
  }
  const std::vector<SegmentTranslation> translations = translate(segments);
  // WebVTT escapes '&', '<' and '>' as XML text does.
  const TextEscape escape = webvtt ? TextEscape(escape_xml_text)
                                   : TextEscape([](std::string_view text) { return std::string(text); });
  for (size_t s = 0; s < segments.size(); ++s) {
    std::vector<std::string> texts =
        split_cues(project_markup(segments[s], translations[s].text, translations[s].links, escape));
    const bool empty_cue =
        std::any_of(texts.begin(), texts.end(), [](const std::string& t) { return t.empty(); });
    if (texts.size() != members[s].size() || (empty_cue && !translations[s].text.empty())) {
      if (warnings) {
        warnings->push_back(
            name + ":" + std::to_string(segments[s].line) +
            ": the alignment leaves a cue without words: words spread by length, tags dropped");
      }
      std::vector<size_t> counts;
      for (size_t c : members[s]) {
        size_t words = 0;
        for (const std::string& line : cues[c].lines) {
          const std::string text = trim(strip_tags(line));
          if (!text.empty()) words += static_cast<size_t>(std::count(text.begin(), text.end(), ' ') + 1);
        }
        counts.push_back(words);
      }
      texts = spread(escape(translations[s].text), counts);
    }
    for (size_t k = 0; k < members[s].size(); ++k) {
      const Cue& cue = cues[members[s][k]];
      size_t width = cue.dialogue ? std::string::npos : kDefaultWidth;  // a speaker's line stays one line
      for (const std::string& line : cue.lines) width = std::max(width, columns(line));
      std::vector<std::string> wrapped = wrap_cue(texts[k], width);
      if (wrapped.empty()) wrapped.push_back(texts[k]);
      std::string& out = parts[cue.part];
      out += cue.dash;
      for (size_t l = 0; l < wrapped.size(); ++l) {
        out += wrapped[l];
        if (l + 1 < wrapped.size() || cue.last_line_ended) out += eol;
      }
    }
  }
  std::string out;
  for (const std::string& part : parts) out += part;
  parts.clear();
  cues.clear();
  write_(out);
}

}  // namespace

void write_translated_subtitles(std::string_view bytes, const std::string& name,
                                std::vector<std::string>* warnings, const SegmentTranslator& translate,
                                bool webvtt, const SubtitleWriter& write, const WindowStart& starting) {
  CueWindow window(name, warnings, translate, webvtt, write, starting);
  const size_t first_nl = bytes.find('\n');
  if (first_nl != std::string_view::npos && first_nl > 0 && bytes[first_nl - 1] == '\r')
    window.set_eol("\r\n");
  std::vector<std::string> block;  // a run of lines that are not blank, with their line endings
  size_t block_line = 0;           // the file line (from 0) of its first
  const auto end_block = [&]() {
    for (size_t i = 0; i < block.size();) {
      size_t end = block.size();
      size_t timing = i;
      while (timing < end && !is_timing_line(line_body(block[timing]))) ++timing;
      // A timing line inside the text starts the next cue (WebVTT reads cues so; SRT files written without
      // blank lines do the same).
      for (size_t k = timing + 1; k < end; ++k) {
        if (is_timing_line(line_body(block[k]))) end = k;
      }
      std::string head;
      for (size_t k = i; k < std::min(end, timing + 1); ++k) head += block[k];
      window.verbatim(std::move(head));
      if (timing == end && warnings && !is_cue_free_block(line_body(block[i]), end == i + 1)) {
        warnings->push_back(name + ":" + std::to_string(block_line + i + 1) +
                            ": a block without a timing line (\"-->\") is kept untranslated");
      }
      if (timing + 1 < end) {
        Cue cue;
        cue.line = static_cast<int>(block_line + timing + 2);
        for (size_t k = timing + 1; k < end; ++k) cue.lines.push_back(line_body(block[k]));
        cue.last_line_ended = block[end - 1].back() == '\n';
        parse_timing(line_body(block[timing]), &cue.start_ms, &cue.end_ms);
        window.cue(std::move(cue));
      }
      i = end;
    }
    block.clear();
  };
  size_t line = 0;
  for (size_t i = 0; i < bytes.size(); ++line) {
    const size_t nl = bytes.find('\n', i);
    const size_t end = nl == std::string_view::npos ? bytes.size() : nl + 1;
    const std::string_view text = bytes.substr(i, end - i);
    i = end;
    window.read_to(i);
    if (!is_blank_line(text)) {
      if (block.empty()) block_line = line;
      block.emplace_back(text);
      continue;
    }
    end_block();
    window.verbatim(std::string(text));
  }
  end_block();
  window.flush();
}

std::string translate_subtitles(std::string_view bytes, const std::string& name,
                                std::vector<std::string>* warnings, const SegmentTranslator& translate,
                                bool webvtt) {
  std::string out;
  write_translated_subtitles(bytes, name, warnings, translate, webvtt,
                             [&out](std::string_view piece) { out += piece; });
  return out;
}

}  // namespace documents
