#include "pipeline/line_alignment.h"

#include <algorithm>

namespace pipeline {

namespace {

const std::string kWordBoundary = "\xE2\x96\x81";  // U+2581, SentencePiece's word boundary

bool is_ascii_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

// Where segment k's words start among the line's words: a word of the previous segment that runs on
// into this one (nothing between them) is one word of the line.
int next_offset(int offset, int words, bool runs_on) {
  return offset + words - (runs_on && words > 0 ? 1 : 0);
}

}  // namespace

models::AttentionRequest alignment_request(const Translator& translator, const TranslateOptions& options) {
  models::AttentionRequest request;
  request.cross = true;
  request.layer =
      options.alignment_layer >= 0 ? options.alignment_layer : translator.model().config().decoder_layers - 1;
  return request;
}

std::vector<std::vector<core::Hypothesis>> translate_aligned(
    const Translator& translator, const std::vector<std::vector<int32_t>>& sources,
    const TranslateOptions& options, std::vector<std::vector<AlignedSegment>>* aligned) {
  const models::AttentionRequest capture = alignment_request(translator, options);
  std::vector<std::vector<core::Hypothesis>> hyps(sources.size());
  aligned->assign(sources.size(), {});
  for (size_t first = 0; first < sources.size(); first += kAlignedSentencesPerGroup) {
    const size_t last = std::min(sources.size(), first + kAlignedSentencesPerGroup);
    const std::vector<std::vector<int32_t>> group(sources.begin() + first, sources.begin() + last);
    std::vector<std::vector<models::AttentionMatrices>> attention;
    std::vector<std::vector<core::Hypothesis>> group_hyps =
        translator.translate_ids(group, options, {}, &capture, &attention);
    for (size_t i = 0; i < group.size(); ++i) {
      for (size_t h = 0; h < group_hyps[i].size(); ++h) {
        const std::vector<int32_t>& tokens = group_hyps[i][h].tokens;
        (*aligned)[first + i].push_back(align_segment(translator, group[i], tokens, attention[i][h], options,
                                                      translator.tokenizer().decode(tokens)));
      }
      hyps[first + i] = std::move(group_hyps[i]);
    }
  }
  return hyps;
}

AlignedSegment align_segment(const Translator& translator, const std::vector<int32_t>& source,
                             const std::vector<int32_t>& target, const models::AttentionMatrices& attention,
                             const TranslateOptions& options, const std::string& translation) {
  const models::SpecialTokens& special = translator.model().description().tokens;
  std::vector<std::string> source_pieces = translator.tokenizer().source_pieces(source);
  const std::string tag = ">>" + options.target_lang + "<<";
  for (size_t i = 0; i < source.size(); ++i) {
    std::string& piece = source_pieces[i];
    if (source[i] == special.eos || source[i] == special.pad) piece.clear();
    if (!options.target_lang.empty() && (piece == tag || piece == kWordBoundary + tag)) {
      piece.clear();
      if (i > 0 && source_pieces[i - 1] == kWordBoundary) source_pieces[i - 1].clear();
    }
  }
  const int layer = alignment_request(translator, options).layer;
  const std::vector<int> source_words = piece_words(source_pieces);
  AlignedSegment out;
  out.links = align_words(
      alignment_weights(attention, layer, translator.model().description().decoding.alignment_head),
      attention.source_len, piece_words(translator.tokenizer().target_pieces(target)), source_words);
  for (int w : source_words) out.source_words = std::max(out.source_words, w + 1);
  out.translation = translation;
  return out;
}

int count_words(const std::string& text) {
  int words = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (!is_ascii_space(text[i]) && (i == 0 || is_ascii_space(text[i - 1]))) ++words;
  }
  return words;
}

std::vector<WordLink> line_links(const LineLayout& layout, const std::vector<AlignedSegment>& segments,
                                 const std::string& source_line, const std::string& target_line,
                                 bool join_unspaced) {
  const int n_source = count_words(source_line), n_target = count_words(target_line);
  if (n_source == 0 || n_target == 0) return {};
  std::vector<std::string> translations;
  for (const AlignedSegment& s : segments) translations.push_back(s.translation);
  std::vector<int> source_of(n_target, -1);
  int source_offset = 0, target_offset = 0;
  for (size_t k = 0; k < segments.size(); ++k) {
    const AlignedSegment& segment = segments[k];
    const int target_words = count_words(segment.translation);
    for (const WordLink& link : segment.links) {
      if (target_words == 0) break;
      const int s = std::clamp(source_offset + link.source, 0, n_source - 1);
      const int t = std::clamp(target_offset + std::min(link.target, target_words - 1), 0, n_target - 1);
      if (source_of[t] < 0) source_of[t] = s;
    }
    if (k + 1 == segments.size()) break;
    source_offset = next_offset(source_offset, segment.source_words, layout.after[k].empty());
    const std::string& next = segments[k + 1].translation;
    const bool target_runs_on = separator(layout, translations, k, join_unspaced).empty() &&
                                !segment.translation.empty() && !is_ascii_space(segment.translation.back()) &&
                                !next.empty() && !is_ascii_space(next.front());
    target_offset = next_offset(target_offset, target_words, target_runs_on);
  }
  // Words the segments' pieces did not reach (the decoded text split differently): a neighbour's source.
  for (int t = 1; t < n_target; ++t) {
    if (source_of[t] < 0) source_of[t] = source_of[t - 1];
  }
  for (int t = n_target - 2; t >= 0; --t) {
    if (source_of[t] < 0) source_of[t] = source_of[t + 1];
  }
  std::vector<WordLink> links;
  for (int t = 0; t < n_target; ++t) links.push_back({std::max(source_of[t], 0), t});
  return links;
}

}  // namespace pipeline
