#include "documents/translate_document.h"

#include <regex>
#include <stdexcept>

#include "documents/docx.h"
#include "documents/html_chunks.h"
#include "documents/html_reader.h"
#include "documents/markdown_reader.h"
#include "documents/odt.h"
#include "documents/projection.h"
#include "documents/protected_spans.h"
#include "documents/subtitles.h"
#include "documents/translate_segments.h"

namespace documents {

namespace {

// A number of the source that the translation lacks, digit for digit, is worth a warning.
void check_numbers(const Segment& source, const std::string& target, const std::string& name,
                   std::vector<std::string>* warnings) {
  if (warnings == nullptr) return;
  static const std::regex number("[0-9]+(?:[.,][0-9]+)*");
  std::string target_digits;
  for (char c : target) target_digits += (c >= '0' && c <= '9') ? c : ' ';
  for (auto it = std::sregex_iterator(source.text.begin(), source.text.end(), number);
       it != std::sregex_iterator(); ++it) {
    std::string digits;
    for (char c : it->str()) {
      if (c >= '0' && c <= '9') digits += c;
    }
    if (target.find(it->str()) == std::string::npos && target_digits.find(digits) == std::string::npos) {
      const std::string where = source.line > 0 ? name + ":" + std::to_string(source.line) : name;
      warnings->push_back(where + ": the translation lacks the number " + it->str());
    }
  }
}

std::string render(Document& document, const Translator& translator, const TranslateOptions& options,
                   const TextEscape& escape, const std::string& name, std::vector<std::string>* warnings) {
  for (Segment& segment : document.segments) protect_spans(segment);
  const std::vector<SegmentTranslation> translations =
      translate_segments(translator, options, document.segments);
  std::string out;
  for (const Document::Part& part : document.parts) {
    if (part.segment < 0) {
      out += part.verbatim;
      continue;
    }
    const Segment& segment = document.segments[part.segment];
    const SegmentTranslation& t = translations[part.segment];
    check_numbers(segment, t.text, name, warnings);
    out += project_markup(segment, t.text, t.links, escape);
  }
  return out;
}

// One chunk of a page, parsed behind its context (the markup that opens what is open at its start), the
// context's bytes taken off again.
std::string translate_html_chunk(const Translator& translator, const TranslateOptions& options,
                                 std::string_view page, const HtmlChunk& chunk, const std::string& name,
                                 std::vector<std::string>* warnings) {
  std::string with_attributes;
  {
    std::string source = chunk.context;
    source.append(page.substr(chunk.begin, chunk.end - chunk.begin));
    Document attributes = read_html(source, HtmlPass::kAttributes, name, nullptr, chunk.first_line);
    with_attributes = render(attributes, translator, options, escape_html_attribute, name, warnings);
  }
  Document text = read_html(with_attributes, HtmlPass::kText, name, warnings, chunk.first_line);
  with_attributes = std::string();
  std::string out = render(text, translator, options, escape_html_text, name, warnings);
  if (out.compare(0, chunk.context.size(), chunk.context) != 0)
    throw std::logic_error("translate_html_chunk: a segment reached into the chunk's context");
  out.erase(0, chunk.context.size());
  return out;
}

}  // namespace

void write_translated_document(const Translator& translator, const TranslateOptions& options,
                               DocumentFormat format, std::string_view bytes, const std::string& name,
                               std::vector<std::string>* warnings, const DocumentWriter& write,
                               size_t html_chunk_bytes) {
  if (format != DocumentFormat::kHtml) {
    write(translate_document(translator, options, format, bytes, name, warnings));
    return;
  }
  HtmlChunker chunker(bytes, html_chunk_bytes);
  for (HtmlChunk chunk; chunker.next(&chunk);)
    write(translate_html_chunk(translator, options, bytes, chunk, name, warnings));
}

std::string translate_document(const Translator& translator, const TranslateOptions& options,
                               DocumentFormat format, std::string_view bytes, const std::string& name,
                               std::vector<std::string>* warnings) {
  // The readers that rebuild their documents themselves get the segments translated and checked here.
  const SegmentTranslator checked = [&](std::vector<Segment>& segments) {
    for (Segment& segment : segments) protect_spans(segment);
    std::vector<SegmentTranslation> translations = translate_segments(translator, options, segments);
    for (size_t i = 0; i < segments.size(); ++i)
      check_numbers(segments[i], translations[i].text, name, warnings);
    return translations;
  };
  switch (format) {
    case DocumentFormat::kHtml: {
      std::string out;
      write_translated_document(translator, options, format, bytes, name, warnings,
                                [&out](std::string_view piece) { out += piece; });
      return out;
    }
    case DocumentFormat::kMarkdown: {
      Document document = read_markdown(bytes, name, warnings);
      return render(
          document, translator, options, [](std::string_view text) { return std::string(text); }, name,
          warnings);
    }
    case DocumentFormat::kDocx:
      return translate_docx(bytes, name, warnings, checked);
    case DocumentFormat::kOdt:
      return translate_odt(bytes, name, warnings, checked);
    case DocumentFormat::kSrt:
    case DocumentFormat::kVtt:
      return translate_subtitles(bytes, name, warnings, checked);
    case DocumentFormat::kText:
      break;
  }
  throw std::logic_error("translate_document: plain text is not a document format");
}

}  // namespace documents
