#include "models/convert/convert_hf_marian.h"

#include <nlohmann/json.hpp>

#include "models/convert/hf_marian_config.h"
#include "models/convert/hf_marian_tensors.h"
#include "models/model_error.h"

namespace models {

namespace {

// Step 3: validate the description, then the tokenizer files, weights.bin and model.json.
ConvertReport write_hf_model(const std::string& src, const HfSource& source, MappedTensors mapped,
                             const ConvertOptions& options) {
  const ModelDescription& d = source.description;
  const std::vector<NamedTensor>& out = mapped.tensors;
  // The description must satisfy our own parser before anything is written.
  parse_description(description_to_json(d), source.config_path + " (converted)");
  const DType dtype = convert_detail::choose_dtype(options.dtype, mapped.all_source_f16);

  convert_detail::OutputFiles files;
  files.copies = {{src + "/source.spm", "source.spm"}, {src + "/target.spm", "target.spm"}};
  try {
    if (source.config.shared) {
      files.contents.push_back({"vocab.json", convert_detail::vocab_json(source.source_vocab)});
    } else {
      files.contents.push_back({"source_vocab.json", convert_detail::vocab_json(source.source_vocab)});
      files.contents.push_back({"target_vocab.json", convert_detail::vocab_json(source.target_vocab)});
    }
  } catch (const nlohmann::json::exception& e) {
    throw ModelError(source.vocab_path + ": cannot write the vocabulary: " + e.what());
  }
  convert_detail::write_model(options, d, out, dtype, files);
  return convert_detail::make_report(options, d, out, dtype, source.warnings);
}

}  // namespace

// Read config -> map tensors -> write; nothing is written before both reads succeed.
ConvertReport convert_hf_marian(const std::string& src, const ConvertOptions& options) {
  convert_detail::check_output_dir(options.output_dir, src, options.force);
  const HfSource source = read_hf_source(src, options);
  MappedTensors mapped = map_hf_tensors(source.weights_path, source.config);
  return write_hf_model(src, source, std::move(mapped), options);
}

}  // namespace models
