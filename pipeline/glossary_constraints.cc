// Translator's glossary step: the terms found in each segment's source become constraints of the search,
// each target form spelled in the model's target pieces.
#include <algorithm>

#include "pipeline/translator.h"

namespace pipeline {

std::vector<std::vector<core::Constraint>> Translator::segment_constraints(
    const SegmentedLines& segmented, const TranslateOptions& o,
    const std::vector<LineControls>* controls) const {
  if (o.sampling.enabled) return {};  // refused with a run's glossary (check); a line's is not searched
  const std::shared_ptr<const Glossary> run = o.glossary_terms ? o.glossary_terms : load_glossary(o);
  const bool line_terms = controls && std::any_of(controls->begin(), controls->end(),
                                                  [](const LineControls& c) { return !c.glossary.empty(); });
  if ((!run || run->empty()) && !line_terms) return {};
  std::vector<std::vector<core::Constraint>> out(segmented.ids.size());
  bool any = false;
  for (size_t i = 0; i < segmented.lines.size(); ++i) {
    const LineLayout& layout = segmented.lines[i];
    Glossary merged;
    const Glossary* glossary = run.get();
    if (controls && !(*controls)[i].glossary.empty()) {
      if (run) merged = *run;
      merged.merge((*controls)[i].glossary);
      glossary = &merged;
    }
    if (glossary == nullptr) continue;
    for (size_t k = 0; k < layout.after.size(); ++k) {
      const size_t s = layout.first + k;
      std::vector<size_t> entries;
      for (const TermMatch& m : glossary->match(segmented.texts[s])) {
        if (std::find(entries.begin(), entries.end(), m.entry) == entries.end()) entries.push_back(m.entry);
      }
      for (size_t e : entries) {
        if (out[s].size() == static_cast<size_t>(core::kMaxConstraints)) break;
        core::Constraint c;
        for (const std::string& form : glossary->entries()[e].targets) {
          std::vector<int32_t> ids = tokenizer_->encode_target(form);
          if (!ids.empty() && std::find(c.forms.begin(), c.forms.end(), ids) == c.forms.end())
            c.forms.push_back(std::move(ids));
        }
        if (c.forms.empty()) continue;
        out[s].push_back(std::move(c));
        any = true;
      }
    }
  }
  if (!any) return {};
  return out;
}

}  // namespace pipeline
