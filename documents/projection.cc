#include "documents/projection.h"

#include <algorithm>
#include <cctype>
#include <limits>

namespace documents {

namespace {

struct Word {
  size_t begin = 0, end = 0;
};

bool is_text_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}
bool is_continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

std::vector<Word> words_of(const std::string& text) {
  std::vector<Word> words;
  for (size_t i = 0; i < text.size();) {
    if (is_text_space(text[i])) {
      ++i;
      continue;
    }
    size_t end = i;
    while (end < text.size() && !is_text_space(text[end])) ++end;
    words.push_back({i, end});
    i = end;
  }
  return words;
}

// Byte offsets of the code points of text[word.begin, word.end); a word always has one, even of invalid
// UTF-8.
std::vector<size_t> code_points(const std::string& text, Word word) {
  std::vector<size_t> starts;
  for (size_t i = word.begin; i < word.end; ++i) {
    if (i == word.begin || !is_continuation(text[i])) starts.push_back(i);  // stray bytes count too
  }
  return starts;
}

// How many of the code points at the word's start (or end) are ASCII punctuation.
size_t edge_punctuation(const std::string& text, const std::vector<size_t>& code_points, bool at_end) {
  size_t n = 0;
  while (n < code_points.size()) {
    const unsigned char c = text[code_points[at_end ? code_points.size() - 1 - n : n]];
    if (c >= 0x80 || std::isalnum(c)) break;
    ++n;
  }
  return n;
}

constexpr size_t kNone = std::numeric_limits<size_t>::max();

// A placed element or insertion: [begin, end) of the target; an insertion or an empty element has
// begin == end.
struct Placed {
  size_t begin = 0, end = 0;
  int order = 0;
  const std::string* open = nullptr;
  const std::string* close = nullptr;  // nullptr: an insertion or an empty element
  std::string both;                    // an empty element's open + close tags (open is then unused)
  const std::string& opening() const { return both.empty() ? *open : both; }
};

class Projector {
 public:
  Projector(const Segment& source, const std::string& target, const std::vector<WordLink>& links)
      : source_(source),
        target_(target),
        source_words_(words_of(source.text)),
        target_words_(words_of(target)) {
    source_of_target_.assign(target_words_.size(), 0);
    std::vector<bool> linked(target_words_.size(), false);
    for (const WordLink& link : links) {
      if (link.target < 0 || link.target >= static_cast<int>(target_words_.size()) || link.source < 0 ||
          link.source >= static_cast<int>(source_words_.size()) || linked[link.target])
        continue;
      source_of_target_[link.target] = link.source;
      linked[link.target] = true;
    }
    for (size_t t = 1; t < target_words_.size(); ++t) {
      if (!linked[t]) source_of_target_[t] = source_of_target_[t - 1];
    }
    map_characters();
  }

  const std::string& target() const { return target_; }

  // The target point for source offset `at` (an insertion's place).
  size_t point(size_t at) const {
    if (target_words_.empty() || source_words_.empty()) return 0;
    for (size_t w = 0; w < source_words_.size(); ++w) {
      const Word sw = source_words_[w];
      if (sw.begin < at && at < sw.end) {
        const size_t t = last_target_of(w);
        if (t == kNone) break;
        const std::vector<size_t> s_cp = code_points(source_.text, sw);
        const std::vector<size_t> t_cp = code_points(target_, target_words_[t]);
        const size_t j = std::lower_bound(s_cp.begin(), s_cp.end(), at) - s_cp.begin();
        const size_t k = (j * t_cp.size() + s_cp.size() / 2) / s_cp.size();
        return k >= t_cp.size() ? target_words_[t].end : t_cp[k];
      }
    }
    // The word it follows: the last one ending at or before it, else it stands before every word.
    for (size_t w = source_words_.size(); w-- > 0;) {
      if (source_words_[w].end > at) continue;
      for (size_t v = w + 1; v-- > 0;) {
        const size_t t = last_target_of(v);
        if (t != kNone) return target_words_[t].end;
      }
      break;
    }
    return 0;
  }

  // The target word starting at or after `at`, else the last one before it, without the ASCII punctuation
  // at its end; {kNone, kNone} without words.
  std::pair<size_t, size_t> word_after(size_t at) const {
    if (target_words_.empty()) return {kNone, kNone};
    Word w = target_words_.back();
    for (const Word& t : target_words_) {
      if (t.begin >= at) {
        w = t;
        break;
      }
    }
    size_t end = w.end;
    while (end > w.begin + 1 && std::ispunct(static_cast<unsigned char>(target_[end - 1]))) --end;
    return {w.begin, end};
  }

  // The hull of the target characters whose source character lies in [begin, end); {kNone, kNone} if none.
  std::pair<size_t, size_t> hull(size_t begin, size_t end) const {
    size_t lo = kNone, hi = kNone;
    for (const auto& [target_at, source_at] : char_map_) {
      if (source_at < begin || source_at >= end) continue;
      size_t next = target_at + 1;
      while (next < target_.size() && is_continuation(target_[next])) ++next;
      if (lo == kNone) lo = target_at;
      hi = next;
    }
    return {lo, hi};
  }

 private:
  size_t last_target_of(size_t source_word) const {
    for (size_t t = target_words_.size(); t-- > 0;) {
      if (static_cast<size_t>(source_of_target_[t]) == source_word) return t;
    }
    return kNone;
  }

  // Each target character (in order) -> the source character at the same relative place in its source word.
  void map_characters() {
    if (source_words_.empty()) return;
    for (size_t t = 0; t < target_words_.size(); ++t) {
      const Word sw = source_words_[source_of_target_[t]];
      const std::vector<size_t> s_cp = code_points(source_.text, sw);
      const std::vector<size_t> t_cp = code_points(target_, target_words_[t]);
      // Punctuation at a word's edges maps to the same punctuation; the letters between, proportionally.
      const size_t lead =
          std::min(edge_punctuation(source_.text, s_cp, false), edge_punctuation(target_, t_cp, false));
      const size_t trail =
          std::min(edge_punctuation(source_.text, s_cp, true), edge_punctuation(target_, t_cp, true));
      for (size_t k = 0; k < t_cp.size(); ++k) {
        size_t j;
        if (lead + trail >= t_cp.size() || lead + trail >= s_cp.size()) {
          j = k * s_cp.size() / t_cp.size();
        } else if (k < lead) {
          j = k;
        } else if (k >= t_cp.size() - trail) {
          j = s_cp.size() - (t_cp.size() - k);
        } else {
          j = lead + (k - lead) * (s_cp.size() - lead - trail) / (t_cp.size() - lead - trail);
        }
        char_map_.emplace_back(t_cp[k], s_cp[j]);
      }
    }
  }

  const Segment& source_;
  const std::string& target_;
  std::vector<Word> source_words_, target_words_;
  std::vector<int> source_of_target_;
  std::vector<std::pair<size_t, size_t>> char_map_;
};

bool crosses(const Placed& a, const Placed& b) {
  return (a.begin < b.begin && b.begin < a.end && a.end < b.end) ||
         (b.begin < a.begin && a.begin < b.end && b.end < a.end);
}

// Whether element `i` holds words of its own and no element with text.
bool is_text_leaf(const Segment& source, size_t i) {
  const std::vector<InlineElement>& elements = source.elements;
  const InlineElement& e = elements[i];
  if (e.begin >= std::min(e.end, source.text.size())) return false;  // readers may trim the text after it
  const std::string_view text =
      std::string_view(source.text).substr(e.begin, std::min(e.end, source.text.size()) - e.begin);
  if (text.find_first_not_of(" \t\n") == std::string_view::npos) return false;
  for (size_t j = i + 1; j < elements.size() && elements[j].begin < e.end; ++j) {
    if (elements[j].begin < elements[j].end) return false;
  }
  return true;
}

// An element the translation left empty goes around the target word at its place, when that word lies
// inside its parent and in no other element with text.
bool move_to_nearest_word(std::vector<Placed>& placed, const std::vector<int>& parent, size_t i,
                          const Projector& projector, const InlineElement& e) {
  const auto [lo, hi] = projector.word_after(placed[i].begin);
  if (lo == kNone) return false;
  if (parent[i] >= 0 && (lo < placed[parent[i]].begin || hi > placed[parent[i]].end)) return false;
  for (size_t j = 0; j < placed.size(); ++j) {
    bool ancestor = false;
    for (int a = parent[i]; a >= 0 && !ancestor; a = parent[a]) ancestor = static_cast<size_t>(a) == j;
    if (j == i || ancestor || placed[j].begin == placed[j].end) continue;
    if (placed[j].begin < hi && lo < placed[j].end) return false;
  }
  placed[i].begin = lo;
  placed[i].end = hi;
  placed[i].both.clear();
  placed[i].open = &e.open;
  placed[i].close = &e.close;
  return true;
}

// Element hulls made well nested: each inside its source parent, none crossing an earlier one. With
// `moved`, a leaf element whose words the translation dropped goes around the nearest free word, counted
// there.
std::vector<Placed> place_elements(const Segment& source, const Projector& projector, size_t* moved) {
  const std::vector<InlineElement>& elements = source.elements;
  std::vector<Placed> placed(elements.size());
  std::vector<int> parent(elements.size(), -1);
  std::vector<bool> dropped(elements.size(), false);
  for (size_t i = 0; i < elements.size(); ++i) {
    const InlineElement& e = elements[i];
    for (size_t j = i; j-- > 0;) {
      if (elements[j].begin <= e.begin && e.end <= elements[j].end && elements[j].begin < elements[j].end) {
        parent[i] = static_cast<int>(j);
        break;
      }
    }
    Placed& p = placed[i];
    p.order = e.order;
    auto [lo, hi] = e.begin < e.end ? projector.hull(e.begin, e.end) : std::make_pair(kNone, kNone);
    dropped[i] = moved != nullptr && lo == kNone && is_text_leaf(source, i);
    if (lo == kNone) lo = hi = projector.point(e.begin);
    p.begin = lo;
    p.end = hi;
    if (parent[i] >= 0) {
      const Placed& outer = placed[parent[i]];
      p.begin = std::clamp(p.begin, outer.begin, outer.end);
      p.end = std::clamp(p.end, p.begin, outer.end);
    }
    for (bool changed = true; changed;) {
      changed = false;
      for (size_t j = 0; j < i; ++j) {
        if (!crosses(placed[j], p)) continue;
        if (placed[j].begin < p.begin) {
          p.begin = placed[j].end;
        } else {
          p.end = placed[j].begin;
        }
        p.end = std::max(p.end, p.begin);
        changed = true;
      }
    }
    while (p.begin < p.end && is_text_space(projector.target()[p.begin])) ++p.begin;  // clipped onto a space
    while (p.end > p.begin && is_text_space(projector.target()[p.end - 1])) --p.end;
    if (p.begin == p.end) {
      p.both = e.open + e.close;
      p.open = &e.open;
    } else {
      p.open = &e.open;
      p.close = &e.close;
    }
  }
  if (moved != nullptr) {
    for (size_t i = 0; i < elements.size(); ++i) {
      if (dropped[i]) *moved += move_to_nearest_word(placed, parent, i, projector, elements[i]) ? 1 : 0;
    }
  }
  return placed;
}

}  // namespace

std::string project_markup(const Segment& source, const std::string& target,
                           const std::vector<WordLink>& links, const TextEscape& escape,
                           std::vector<MarkupRange>* markup, size_t* moved) {
  if (!source.has_markup()) return escape(target);
  const Projector projector(source, target, links);
  std::vector<Placed> items = place_elements(source, projector, moved);
  size_t previous = 0;  // insertions keep their source order
  for (const Insertion& insertion : source.insertions) {
    previous = std::max(previous, projector.point(insertion.at));
    Placed p;
    p.begin = p.end = previous;
    p.order = insertion.order;
    p.open = &insertion.bytes;
    if (insertion.spaced) {  // a space on each side where the target has none
      const bool space_before = previous == 0 || is_text_space(target[previous - 1]);
      const bool space_after =
          previous == target.size() || is_text_space(target[previous]) ||
          std::string_view(",.;:!?)]}'\"").find(target[previous]) != std::string_view::npos;
      p.both = (space_before ? "" : " ") + insertion.bytes + (space_after ? "" : " ");
    }
    items.push_back(std::move(p));
  }
  // At each point: closes (innermost first), then opens longest first with the empty items among them in
  // source order, then the text up to the next point.
  std::string out;
  std::vector<const Placed*> at_point, open_stack;
  std::vector<size_t> open_starts;  // where each element of open_stack starts in the output
  const auto emit = [&](const std::string& bytes) {
    if (markup != nullptr && !bytes.empty())
      markup->push_back({out.size(), out.size() + bytes.size(), false, {}});
    out += bytes;
  };
  const auto close_top = [&] {
    emit(*open_stack.back()->close);
    if (markup != nullptr)
      markup->push_back({open_starts.back(), out.size(), true, *open_stack.back()->open});
    open_stack.pop_back();
    open_starts.pop_back();
  };
  std::vector<size_t> points = {0, target.size()};
  for (const Placed& p : items) {
    points.push_back(p.begin);
    points.push_back(p.end);
  }
  std::sort(points.begin(), points.end());
  points.erase(std::unique(points.begin(), points.end()), points.end());
  for (size_t n = 0; n < points.size(); ++n) {
    const size_t x = points[n];
    while (!open_stack.empty() && open_stack.back()->end == x) close_top();
    std::vector<const Placed*> opens, empties;
    for (const Placed& p : items) {
      if (p.begin != x) continue;
      (p.close ? opens : empties).push_back(&p);
    }
    std::sort(opens.begin(), opens.end(), [](const Placed* a, const Placed* b) {
      return a->end != b->end ? a->end > b->end : a->order < b->order;
    });
    std::sort(empties.begin(), empties.end(),
              [](const Placed* a, const Placed* b) { return a->order < b->order; });
    at_point.clear();
    size_t e = 0;
    for (const Placed* o : opens) {
      while (e < empties.size() && empties[e]->order < o->order) at_point.push_back(empties[e++]);
      at_point.push_back(o);
    }
    while (e < empties.size()) at_point.push_back(empties[e++]);
    for (const Placed* p : at_point) {
      if (p->close) open_starts.push_back(out.size());
      emit(p->opening());
      if (p->close) open_stack.push_back(p);
    }
    if (n + 1 < points.size()) out += escape(std::string_view(target).substr(x, points[n + 1] - x));
  }
  while (!open_stack.empty()) close_top();
  return out;
}

std::string moved_elements_warning(const std::string& name, const Segment& segment, size_t moved) {
  const std::string where = segment.line > 0 ? name + ":" + std::to_string(segment.line) : name;
  return where + ": the translation left " + std::to_string(moved) + " inline element" +
         (moved == 1 ? "" : "s") + " without words; each went around the word at its place";
}

}  // namespace documents
