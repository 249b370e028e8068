#include "front/language_router.h"

#include "core/error.h"
#include "front/language_codes.h"
#include "pipeline/language_identifier.h"

namespace front {

namespace {

// A line left as it is: its text, no score, and alignments or word scores when asked (each word to itself).
pipeline::Translation copied(const std::string& line, const std::string& language,
                             const pipeline::TranslateOptions& o, bool flagged) {
  pipeline::Translation t;
  t.detected_language = language;
  t.texts = {line};
  t.scores = {0.0f};
  t.ids = {{}};
  t.raw_scores = {0.0f};
  t.flags = {flagged ? std::vector<std::string>{"unrouted"} : std::vector<std::string>{}};
  t.confidences = {flagged ? 0.0f : 1.0f};
  t.output_languages = {""};
  size_t words = 0;
  bool in_word = false;
  for (char c : line) {
    const bool space = c == ' ' || c == '\t';
    if (!space && !in_word) ++words;
    in_word = !space;
  }
  if (o.alignment) {
    std::vector<pipeline::WordLink> links;
    for (size_t i = 0; i < words; ++i) links.push_back({static_cast<int>(i), static_cast<int>(i)});
    t.alignments = {links};
  }
  if (o.word_scores) t.word_scores = {std::vector<float>(words, 0.0f)};
  return t;
}

}  // namespace

LanguageRouter::LanguageRouter(const ModelCatalog& catalog, std::string target, std::string pivot,
                               TranslateFlags flags, std::shared_ptr<const pipeline::Translator> base)
    : Translator(*base, ShareModel{}),
      catalog_(catalog),
      target_(normalize_language(target)),
      pivot_(std::move(pivot)),
      flags_(std::move(flags)) {}

const LanguageRouter::Route& LanguageRouter::route_for(const std::string& language) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = routes_.find(language);
  if (found != routes_.end()) return found->second;
  Route route;
  if (std::optional<ModelRoute> r = catalog_.route(language, target_, pivot_)) {
    route.translator = load_route(*r, flags_);
    route.options = resolve_translate_flags(flags_, *route.translator);
  }
  return routes_.emplace(language, std::move(route)).first->second;
}

std::vector<pipeline::Translation> LanguageRouter::translate(
    const std::vector<std::string>& lines, const pipeline::TranslateOptions& options,
    std::vector<pipeline::TranslateWarning>* warnings,
    const std::vector<pipeline::LineControls>* controls) const {
  std::string window;
  for (const std::string& line : lines) window += line + "\n";
  const std::string window_language = normalize_language(pipeline::identify_language(window));
  std::map<std::string, std::vector<size_t>> groups;  // language -> line indices
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string language = normalize_language(pipeline::identify_language(lines[i]));
    if (language.empty()) language = window_language;
    groups[language].push_back(i);
  }
  std::vector<pipeline::Translation> out(lines.size());
  for (const auto& [language, indices] : groups) {
    const Route* route = language.empty() || language == target_ ? nullptr : &route_for(language);
    if (!route || !route->translator) {
      for (size_t i : indices) {
        const bool blank = lines[i].find_first_not_of(" \t") == std::string::npos;
        const bool flagged = language != target_ && !blank;
        out[i] = copied(lines[i], language, options, flagged);
        if (flagged && warnings) {
          warnings->push_back({i, language.empty() ? "its language cannot be told: copied as it is"
                                                   : "no model translates " + language + " to " + target_ +
                                                         ": copied as it is (" +
                                                         install_command(language, target_) + ")"});
        }
      }
      continue;
    }
    std::vector<std::string> group_lines;
    std::vector<pipeline::LineControls> group_controls;
    for (size_t i : indices) {
      group_lines.push_back(lines[i]);
      if (controls) group_controls.push_back((*controls)[i]);
    }
    pipeline::TranslateOptions o = route->options;
    o.first_line = options.first_line;
    o.alignment = options.alignment;
    o.word_scores = options.word_scores;
    o.progress = options.progress;
    std::vector<pipeline::TranslateWarning> group_warnings;
    std::vector<pipeline::Translation> translated =
        route->translator->translate(group_lines, o, &group_warnings, controls ? &group_controls : nullptr);
    for (size_t k = 0; k < indices.size(); ++k) out[indices[k]] = std::move(translated[k]);
    if (warnings) {
      for (pipeline::TranslateWarning& w : group_warnings) warnings->push_back({indices[w.line], w.message});
    }
  }
  return out;
}

ModelRoute route_into(const ModelCatalog& catalog, const std::string& target) {
  for (const models::StoredModel& m : catalog.models()) {
    if (!m.target_lang.empty() && same_language_code(m.target_lang, target) && catalog.preferred(m))
      return ModelRoute{{m}};
  }
  throw core::UsageError("no model translates into " + normalize_language(target) +
                         "; install one with: " + install_command("en", target));
}

}  // namespace front
