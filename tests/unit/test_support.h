// Helpers shared by the tests: temporary directories, tiny random models, running the nmt binary.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "models/checkpoint.h"
#include "models/convert/checkpoint_writer.h"
#include "models/model_config.h"

// Ends a test that cannot run here; ctest reports it as skipped with the reason (test::skip), never as
// passed.
#define NMT_SKIP_TEST(reason) \
  do {                        \
    test::skip(reason);       \
    return;                   \
  } while (0)

namespace test {

// A fresh directory under $TMPDIR (or /tmp), removed (recursively) on destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  std::string file(const std::string& relative) const { return path_ + "/" + relative; }
  // Writes `content` to `relative`, creating its parent directories; returns the full path.
  std::string write(const std::string& relative, const std::string& content) const;

 private:
  std::string path_;
};

// Catch2 v2 has no skip: a test that cannot run here returns `skip(reason)`, which prints the marker
// that CMakeLists.txt gives ctest as SKIP_REGULAR_EXPRESSION, so ctest reports the test skipped.
void skip(const std::string& reason);

// `err` without the length-limit warnings that the tiny random fixture models (which never end a sentence)
// give for every line, for tests about other messages.
std::string without_length_limit_warnings(const std::string& err);

// Runs `body` in a child process as user and group 65534 (nobody) when this process is root, else here;
// gives what `body` returns, or throws with what it threw. For behaviour root never sees (EACCES).
std::string run_unprivileged(const std::function<std::string()>& body);
constexpr unsigned kNobody = 65534;

// n floats uniform in [-1, 1), reproducible from the seed.
std::vector<float> random_values(size_t n, unsigned seed);

// A small description: d 16, 2 heads, 2+2 layers, ffn 32, vocab 40/40.
models::ModelDescription small_description();

// Every tensor the description requires, filled with deterministic pseudo-random values.
std::vector<models::NamedTensor> random_tensors(const models::ModelDescription& d, unsigned seed);

// Writes a random model (weights only, no tokenizer files) into `dir`.
void write_random_model(const std::string& dir, const models::ModelDescription& d, unsigned seed,
                        models::DType dtype = models::DType::kF32);

std::string read_file(const std::string& path);
void write_file(const std::string& path, const std::string& data);

struct RunResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};
// Runs `command` with /bin/sh, `input` on stdin; captures stdout and stderr.
RunResult run(const std::string& command, const std::string& input = "");

// What the translator gives for `source` when the reference translates it to `translation`: the
// whitespace around the source comes back around the translation (a blank source comes back as it is).
std::string with_source_whitespace(const std::string& source, const std::string& translation);

// Path of the built nmt binary and of the checked-in fixtures.
std::string nmt_binary();
std::string fixtures_dir();

}  // namespace test
