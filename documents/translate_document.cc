#include "documents/translate_document.h"

#include <optional>
#include <stdexcept>

#include "documents/docx.h"
#include "documents/epub.h"
#include "documents/html_chunks.h"
#include "documents/html_reader.h"
#include "documents/lang_attributes.h"
#include "documents/markdown_writer.h"
#include "documents/odt.h"
#include "documents/pptx.h"
#include "documents/projection.h"
#include "documents/protected_spans.h"
#include "documents/subtitles.h"
#include "documents/text_encoding.h"
#include "documents/translate_segments.h"
#include "documents/xml_reader.h"

namespace documents {

namespace {

bool is_decimal_digit(char c) { return c >= '0' && c <= '9'; }

// The numbers of `text`: digit runs joined by single '.' or ',' ("1,250.50"). Scanned by hand: std::regex
// recurses once per character and a long number would exhaust the stack.
std::vector<std::string> numbers_in(const std::string& text) {
  std::vector<std::string> numbers;
  for (size_t i = 0; i < text.size();) {
    if (!is_decimal_digit(text[i])) {
      ++i;
      continue;
    }
    const size_t begin = i;
    while (i < text.size() && is_decimal_digit(text[i])) ++i;
    while (i + 1 < text.size() && (text[i] == '.' || text[i] == ',') && is_decimal_digit(text[i + 1])) {
      ++i;
      while (i < text.size() && is_decimal_digit(text[i])) ++i;
    }
    numbers.push_back(text.substr(begin, i - begin));
  }
  return numbers;
}

// "page.html:12", or the name alone for a segment without a line.
std::string position_of(const Segment& segment, const std::string& name) {
  return segment.line > 0 ? name + ":" + std::to_string(segment.line) : name;
}

// A number of the source that the translation lacks, digit for digit, is worth a warning.
void check_numbers(const Segment& source, const std::string& target, const std::string& name,
                   std::vector<std::string>* warnings) {
  if (warnings == nullptr) return;
  std::string target_digits;
  for (char c : target) target_digits += is_decimal_digit(c) ? c : ' ';
  for (const std::string& number : numbers_in(source.text)) {
    std::string digits;
    for (char c : number) {
      if (is_decimal_digit(c)) digits += c;
    }
    if (target.find(number) == std::string::npos && target_digits.find(digits) == std::string::npos)
      warnings->push_back(position_of(source, name) + ": the translation lacks the number " + number);
  }
}

// One document's translation: the translator, its options, the name its warnings carry and where they
// go, and the caller's hooks.
struct Run {
  const Translator& translator;
  TranslateOptions options;  // `progress` set per window from the hooks
  std::string name;
  std::vector<std::string>* warnings;
  const DocumentHooks& hooks;
  bool byte_windows = true;  // false for a package member, whose offsets are not the document's

  // The same run for a member of a package ("book.epub:OPS/ch1.xhtml").
  Run member(const std::string& member_name) const {
    Run run = *this;
    run.name = name + ":" + member_name;
    run.byte_windows = false;
    return run;
  }
  // The document's bytes [from, to) go to the translator next.
  void start_window(uint64_t from, uint64_t to) {
    if (hooks.start_window && byte_windows) options.progress = hooks.start_window(from, to);
  }
  // The language the document is translated into: the options' target tag or the model's.
  std::string target_language() const {
    return options.target_lang.empty() ? translator.model().description().target_lang : options.target_lang;
  }
  std::vector<SegmentTranslation> translate(const std::vector<Segment>& segments) const {
    return translate_segments(translator, options, segments);
  }
  // The translator the readers that rebuild their documents themselves call: segments translated and
  // checked here.
  SegmentTranslator checked() const {
    return [this](std::vector<Segment>& segments) {
      for (Segment& segment : segments) protect_spans(segment);
      std::vector<SegmentTranslation> translations = translate(segments);
      for (size_t i = 0; i < segments.size(); ++i) done(segments[i], translations[i]);
      return translations;
    };
  }
  // A translated segment checked for lost numbers and handed to the caller.
  void done(const Segment& segment, const SegmentTranslation& t) const {
    check_numbers(segment, t.text, name, warnings);
    if (hooks.segment_done) hooks.segment_done(position_of(segment, name), t);
  }
};

// The escape a segment is written with: an attribute value's depends on its quote (Segment::quote).
using EscapeFor = std::function<TextEscape(const Segment& segment)>;

EscapeFor every_segment(TextEscape escape) {
  return [escape](const Segment&) { return escape; };
}

std::string render(Document& document, const Run& run, const EscapeFor& escape_for) {
  for (Segment& segment : document.segments) protect_spans(segment, escape_for(segment));
  const std::vector<SegmentTranslation> translations = run.translate(document.segments);
  return document.assemble([&](int index) {
    const Segment& segment = document.segments[index];
    const SegmentTranslation& t = translations[index];
    run.done(segment, t);
    size_t moved = 0;
    std::string projected = project_markup(segment, t.text, t.links, escape_for(segment), nullptr, &moved);
    if (moved > 0 && run.warnings) run.warnings->push_back(moved_elements_warning(run.name, segment, moved));
    return projected;
  });
}

// One chunk of a page, parsed behind its context (the markup that opens what is open at its start), the
// context's bytes taken off again; in two passes: translated attribute values first, then the text of the
// chunk they are spliced into. XHTML (an EPUB's content documents) is written with XML's escapes.
std::string translate_html_chunk(const Run& run, std::string_view page, const HtmlChunk& chunk, bool xhtml) {
  std::string with_attributes;
  {
    std::string source = chunk.context;
    source.append(page.substr(chunk.begin, chunk.end - chunk.begin));
    Document attributes = read_html(source, HtmlPass::kAttributes, run.name, nullptr, chunk.first_line);
    const EscapeFor attribute_escape = [xhtml](const Segment& segment) -> TextEscape {
      const char quote = segment.quote;
      if (xhtml) return [quote](std::string_view text) { return escape_xhtml_attribute(text, quote); };
      return [quote](std::string_view text) { return escape_html_attribute(text, quote); };
    };
    with_attributes = render(attributes, run, attribute_escape);
  }
  Document text = read_html(with_attributes, HtmlPass::kText, run.name, run.warnings, chunk.first_line);
  with_attributes = std::string();
  std::string out = render(text, run, every_segment(xhtml ? escape_xhtml_text : escape_html_text));
  if (out.compare(0, chunk.context.size(), chunk.context) != 0)
    throw std::logic_error("translate_html_chunk: a segment reached into the chunk's context");
  out.erase(0, chunk.context.size());
  return out;
}

// A page chunk by chunk, each chunk's output handed to `write` as it is done.
void write_translated_html(Run run, std::string_view page, bool xhtml, const DocumentWriter& write,
                           size_t chunk_bytes) {
  HtmlChunker chunker(page, chunk_bytes);
  for (HtmlChunk chunk; chunker.next(&chunk);) {
    run.start_window(chunk.begin, chunk.end);
    std::string out = translate_html_chunk(run, page, chunk, xhtml);
    write(chunk.begin == 0 ? retarget_root_language(out, run.target_language()) : out);
  }
}

std::string translate_html(std::string_view page, bool xhtml, const Run& run) {
  std::string out;
  write_translated_html(
      run, page, xhtml, [&out](std::string_view piece) { out += piece; }, kHtmlChunkBytes);
  return out;
}

std::string translate_xml(std::string_view bytes, const std::vector<std::string>& only, const Run& run) {
  Document document = read_xml(bytes, run.name, only);
  return render(document, run, every_segment(escape_xml_text));
}

}  // namespace

void write_translated_document(const Translator& translator, const TranslateOptions& options,
                               DocumentFormat format, std::string_view bytes, const std::string& name,
                               std::vector<std::string>* warnings, const DocumentWriter& write,
                               size_t html_chunk_bytes, uint64_t max_inflated, const DocumentHooks& hooks) {
  if (format == DocumentFormat::kSrt || format == DocumentFormat::kVtt) {
    Run run{translator, options, name, warnings, hooks};
    const std::optional<std::string> utf8 = text_as_utf8(bytes, name, warnings);
    run.byte_windows = !utf8;  // a converted file's offsets are not the input's
    write_translated_subtitles(utf8 ? std::string_view(*utf8) : bytes, name, warnings, run.checked(),
                               format == DocumentFormat::kVtt, write,
                               [&run](size_t from, size_t to) { run.start_window(from, to); });
    return;
  }
  if (format != DocumentFormat::kHtml) {
    write(translate_document(translator, options, format, bytes, name, warnings, max_inflated, hooks));
    return;
  }
  const Run run{translator, options, name, warnings, hooks};
  if (const std::optional<std::string> utf8 = text_as_utf8(bytes, name, warnings)) {
    // A legacy page is read whole (converted first), its charset declared again.
    write(declare_utf8_charset(translate_html(*utf8, false, run)));
    return;
  }
  write_translated_html(run, bytes, false, write, html_chunk_bytes);
}

std::string translate_document(const Translator& translator, const TranslateOptions& options,
                               DocumentFormat format, std::string_view bytes, const std::string& name,
                               std::vector<std::string>* warnings, uint64_t max_inflated,
                               const DocumentHooks& hooks) {
  Run run{translator, options, name, warnings, hooks};
  run.start_window(0, bytes.size());
  const SegmentTranslator checked = run.checked();
  std::optional<std::string> utf8;  // a text document in UTF-16 or Latin-1, as UTF-8 (text_encoding.h)
  if (format == DocumentFormat::kHtml || format == DocumentFormat::kMarkdown ||
      format == DocumentFormat::kSrt || format == DocumentFormat::kVtt) {
    utf8 = text_as_utf8(bytes, name, warnings);
    if (utf8) bytes = *utf8;
  }
  switch (format) {
    case DocumentFormat::kHtml:
      return utf8 ? declare_utf8_charset(translate_html(bytes, false, run))
                  : translate_html(bytes, false, run);
    case DocumentFormat::kXml:
      return translate_xml(bytes, {}, run);
    case DocumentFormat::kEpub:
      return translate_epub(
          bytes, name, warnings,
          [&run](EpubPart part, const std::string& member, const std::string& xml) {
            const Run chapter = run.member(member);
            if (part == EpubPart::kXhtml) return translate_html(xml, true, chapter);
            const std::vector<std::string> every_element;
            return translate_xml(xml, part == EpubPart::kOpf ? opf_translated_elements() : every_element,
                                 chapter);
          },
          max_inflated);
    case DocumentFormat::kMarkdown:
      return translate_markdown(bytes, name, warnings, checked);
    case DocumentFormat::kDocx:
      return translate_docx(bytes, name, warnings, checked, max_inflated, run.target_language());
    case DocumentFormat::kOdt:
      return translate_odt(bytes, name, warnings, checked, max_inflated, run.target_language());
    case DocumentFormat::kPptx:
      return translate_pptx(bytes, name, warnings, checked, max_inflated, run.target_language());
    case DocumentFormat::kSrt:
    case DocumentFormat::kVtt:
      return translate_subtitles(bytes, name, warnings, checked, format == DocumentFormat::kVtt);
    case DocumentFormat::kText:
      break;
  }
  throw std::logic_error("translate_document: plain text is not a document format");
}

}  // namespace documents
