// nmt::Translator: the pipeline's Translator behind a pimpl, every call under its own thread count and
// every failure an nmt::Error.
#include "nmt/translator.h"

#include <dlfcn.h>
#include <sys/stat.h>

#include <climits>
#include <cstdlib>
#include <thread>

#include "api/convert_results.h"
#include "api/error_mapping.h"
#include "api/file_io.h"
#include "api/forced_decoding.h"
#include "api/resolve_options.h"
#include "core/text_lines.h"
#include "core/threads.h"
#include "documents/translate_document.h"
#include "front/model_catalog.h"
#include "pipeline/translator.h"

namespace nmt {

namespace {

bool is_directory(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// Where the installed models are: beside this library as installed (LIBDIR/NMT_LIBRARY_TO_DATA, so a
// relocated install finds its own), else where the build was configured to install them.
std::string installed_models_dir() {
  Dl_info self;
  if (::dladdr(reinterpret_cast<void*>(&installed_models_dir), &self) != 0 && self.dli_fname) {
    std::string library = self.dli_fname;
    const std::string beside = library.substr(0, library.rfind('/') + 1) + NMT_LIBRARY_TO_DATA;
    char resolved[PATH_MAX];
    if (library.find('/') != std::string::npos && ::realpath(beside.c_str(), resolved) &&
        is_directory(resolved))
      return resolved;
  }
  return NMT_INSTALL_DATA_DIR;
}

// A directory as it is; a plain name of a model shipped with nmt or installed by `nmt models install`,
// its folder; a language pair ("fr-en", "fra-eng"), the model `nmt translate --from fr --to en` would take.
std::string model_directory(const std::string& model) {
  if (is_directory(model) || model.find('/') != std::string::npos) return model;
  const std::string shipped = installed_models_dir() + "/" + model;
  if (is_directory(shipped)) return shipped;
  const front::ModelCatalog catalog = front::ModelCatalog::load();
  for (const models::StoredModel& stored : catalog.models()) {
    if (stored.name == model) return stored.dir.string();
  }
  for (size_t dash = model.find('-'); dash != std::string::npos; dash = model.find('-', dash + 1)) {
    const models::StoredModel* pair = catalog.direct(model.substr(0, dash), model.substr(dash + 1));
    if (pair != nullptr) return pair->dir.string();
  }
  return model;
}

// The file's lines ('\n'-separated, a last line without one included), translated one window at a time.
constexpr size_t kFileWindowLines = 1024;

}  // namespace

struct Translator::Impl {
  std::string model_dir;
  int threads = 1;
  std::unique_ptr<pipeline::Translator> pipeline;

  std::vector<Translation> translate(const std::vector<std::string>& lines,
                                     const pipeline::TranslateOptions& o,
                                     const std::vector<pipeline::LineControls>* controls) const {
    return api::convert_translations(*pipeline, pipeline->translate(lines, o, nullptr, controls));
  }
  // Plain text: each line's best translation, '\n'-terminated as the input's lines are.
  std::string translate_text(const std::string& text, pipeline::TranslateOptions o, size_t* n_lines) const {
    std::vector<std::string> lines = core::file_lines(text);
    std::string out;
    for (size_t first = 0; first < lines.size(); first += kFileWindowLines) {
      const size_t last = std::min(lines.size(), first + kFileWindowLines);
      o.first_line = first;
      const std::vector<pipeline::Translation> done =
          pipeline->translate(std::vector<std::string>(lines.begin() + first, lines.begin() + last), o);
      for (size_t i = 0; i < done.size(); ++i) {
        out += done[i].texts.empty() ? std::string() : done[i].texts[0];
        if (first + i + 1 < lines.size() || (!text.empty() && text.back() == '\n')) out += '\n';
      }
    }
    if (n_lines) *n_lines = lines.size();
    return out;
  }
  std::string translate_document(const std::string& bytes, documents::DocumentFormat format,
                                 const pipeline::TranslateOptions& o, const std::string& name,
                                 size_t* n_lines) const {
    if (format == documents::DocumentFormat::kText) return translate_text(bytes, o, n_lines);
    std::vector<std::string> warnings;
    return documents::translate_document(*pipeline, o, format, bytes, name, &warnings);
  }
};

Translator::Translator(const std::string& model, int threads) : impl_(std::make_unique<Impl>()) {
  api::guarded([&] {
    if (threads < 0)
      throw Error(ErrorCode::kInvalidArgument, "threads must be >= 0 (0: the machine's cores)");
    impl_->model_dir = model_directory(model);
    impl_->threads = threads > 0 ? threads : std::max(1u, std::thread::hardware_concurrency());
    impl_->pipeline = std::make_unique<pipeline::Translator>(impl_->model_dir);
  });
}

Translator::~Translator() = default;
Translator::Translator(Translator&&) noexcept = default;
Translator& Translator::operator=(Translator&&) noexcept = default;

std::vector<Translation> Translator::translate(const std::vector<std::string>& lines, const Options& options,
                                               const std::vector<std::string>& target_prefixes) const {
  return api::guarded([&] {
    core::ThreadsOnThisThread threads(impl_->threads);
    const pipeline::TranslateOptions o = api::resolve_options(options, *impl_->pipeline);
    if (target_prefixes.empty()) return impl_->translate(lines, o, nullptr);
    if (target_prefixes.size() != lines.size())
      throw Error(ErrorCode::kInvalidArgument, "target_prefixes: " + std::to_string(target_prefixes.size()) +
                                                   " for " + std::to_string(lines.size()) + " lines");
    std::vector<pipeline::LineControls> controls(lines.size());
    for (size_t i = 0; i < lines.size(); ++i) {
      if (!target_prefixes[i].empty())
        impl_->pipeline->prefix_ids(target_prefixes[i]);  // throws if unspellable
      controls[i].prefix = target_prefixes[i];
    }
    return impl_->translate(lines, o, &controls);
  });
}

std::string Translator::translate_document(const std::string& bytes, const std::string& format,
                                           const Options& options) const {
  return api::guarded([&] {
    core::ThreadsOnThisThread threads(impl_->threads);
    if (format == "auto")
      throw Error(ErrorCode::kInvalidArgument, "format: name the document's format, not auto");
    return impl_->translate_document(bytes, documents::format_from_name(format),
                                     api::resolve_options(options, *impl_->pipeline), "document", nullptr);
  });
}

size_t Translator::translate_file(const std::string& input, const std::string& output, const Options& options,
                                  const std::string& format) const {
  return api::guarded([&] {
    core::ThreadsOnThisThread threads(impl_->threads);
    const pipeline::TranslateOptions o = api::resolve_options(options, *impl_->pipeline);
    const documents::DocumentFormat chosen =
        format == "auto" ? documents::format_for_path(input) : documents::format_from_name(format);
    const std::string bytes = api::read_file(input);
    size_t n_lines = 0;
    const std::string translated = impl_->translate_document(bytes, chosen, o, input, &n_lines);
    api::write_file_atomically(output, translated);
    return n_lines;
  });
}

std::vector<Score> Translator::score(const std::vector<std::string>& sources,
                                     const std::vector<std::string>& targets, const Options& options) const {
  return api::guarded([&] {
    core::ThreadsOnThisThread threads(impl_->threads);
    return api::score_pairs(*impl_->pipeline, api::resolve_options(options, *impl_->pipeline), sources,
                            targets);
  });
}

ModelInfo Translator::info() const {
  const models::ModelDescription& d = impl_->pipeline->model().description();
  ModelInfo info;
  info.model_dir = impl_->model_dir;
  info.source_lang = d.source_lang;
  info.target_lang = d.target_lang;
  info.language_tags = impl_->pipeline->language_tags();
  info.source_vocab_size = d.config.src_vocab_size;
  info.target_vocab_size = d.config.tgt_vocab_size;
  info.d_model = d.config.d_model;
  info.encoder_layers = d.config.encoder_layers;
  info.decoder_layers = d.config.decoder_layers;
  info.beam_size = d.decoding.beam_size;
  info.length_penalty = d.decoding.length_penalty;
  info.threads = impl_->threads;
  return info;
}

int Translator::threads() const { return impl_->threads; }

}  // namespace nmt
