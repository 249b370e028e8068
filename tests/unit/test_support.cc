#include "test_support.h"

#include <grp.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <stdexcept>

#include "tokenizer/sentence_splitter.h"

namespace test {

std::vector<float> random_values(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = u(rng);
  return v;
}

TempDir::TempDir() {
  const char* base = std::getenv("TMPDIR");
  std::string tmpl = std::string(base && *base ? base : "/tmp") + "/nmt-test-XXXXXX";
  if (!::mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
  path_ = tmpl;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::string TempDir::write(const std::string& relative, const std::string& content) const {
  const std::string full = file(relative);
  std::filesystem::create_directories(std::filesystem::path(full).parent_path());
  write_file(full, content);
  return full;
}

std::string without_length_limit_warnings(const std::string& err) {
  std::string kept;
  std::size_t start = 0;
  while (start < err.size()) {
    std::size_t end = err.find('\n', start);
    end = end == std::string::npos ? err.size() : end + 1;
    const std::string line = err.substr(start, end - start);
    if (line.find("the translation stopped at the length limit") == std::string::npos) kept += line;
    start = end;
  }
  return kept;
}

void skip(const std::string& reason) { std::cout << NMT_TEST_SKIP_MARKER << " " << reason << std::endl; }

std::string run_unprivileged(const std::function<std::string()>& body) {
  if (::geteuid() != 0) return body();
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    ::close(fds[0]);
    int code = 0;
    std::string result;
    try {
      // Groups first: without root, setgroups and setresgid are refused.
      if (::setgroups(0, nullptr) != 0 || ::setresgid(kNobody, kNobody, kNobody) != 0 ||
          ::setresuid(kNobody, kNobody, kNobody) != 0)
        throw std::runtime_error(std::string("dropping root: ") + std::strerror(errno));
      result = body();
    } catch (const std::exception& e) {
      result = e.what();
      code = 1;
    }
    for (size_t done = 0; done < result.size();) {
      const ssize_t n = ::write(fds[1], result.data() + done, result.size() - done);
      if (n <= 0) ::_exit(2);
      done += static_cast<size_t>(n);
    }
    ::_exit(code);  // no atexit handlers or Catch2 reporting in the child
  }
  ::close(fds[1]);
  std::string out;
  char buffer[4096];
  for (ssize_t n; (n = ::read(fds[0], buffer, sizeof buffer)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    out.append(buffer, static_cast<size_t>(n));
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw std::runtime_error("unprivileged child failed (status " + std::to_string(status) + "): " + out);
  return out;
}

models::ModelDescription small_description() {
  models::ModelDescription d;
  auto& c = d.config;
  c.d_model = 16;
  c.n_heads = 2;
  c.encoder_layers = 2;
  c.decoder_layers = 2;
  c.ffn_dim = 32;
  c.max_positions = 64;
  c.src_vocab_size = 40;
  c.tgt_vocab_size = 40;
  d.tokens = {0, 1, 2, 3};
  d.decoding.beam_size = 3;
  d.decoding.max_length_a = 1.5f;
  d.decoding.max_length_b = 5;
  d.decoding.max_length = 60;
  d.tokenizer.source_spm = "spm.model";
  d.tokenizer.target_spm = "spm.model";
  return d;
}

std::vector<models::NamedTensor> random_tensors(const models::ModelDescription& d, unsigned seed) {
  const auto& c = d.config;
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 0.3f);
  std::vector<models::NamedTensor> out;
  auto add = [&](const std::string& name, std::vector<int64_t> shape, float offset = 0.0f) {
    models::NamedTensor t{name, shape, {}};
    size_t n = 1;
    for (auto s : shape) n *= static_cast<size_t>(s);
    for (size_t i = 0; i < n; ++i) t.values.push_back(offset + normal(rng));
    out.push_back(std::move(t));
  };
  const int64_t dm = c.d_model;
  add("encoder.embed_tokens", {c.src_vocab_size, dm});
  if (!c.shared_embeddings) add("decoder.embed_tokens", {c.tgt_vocab_size, dm});
  if (c.positions == models::Positions::kTable) {
    add("encoder.positions", {c.max_positions, dm});
    add("decoder.positions", {c.max_positions, dm});
  }
  if (!c.tied_output) add("output.weight", {c.tgt_vocab_size, dm});
  if (c.output_bias) add("output.bias", {c.tgt_vocab_size});
  auto attention = [&](const std::string& s) {
    for (const char* p : {"q_proj", "k_proj", "v_proj", "out_proj"}) {
      add(s + "." + p + ".weight", {dm, dm});
      add(s + "." + p + ".bias", {dm});
    }
  };
  auto norm = [&](const std::string& s) {
    add(s + ".weight", {dm}, 1.0f);
    add(s + ".bias", {dm});
  };
  auto ffn = [&](const std::string& s) {
    add(s + ".fc1.weight", {c.ffn_dim, dm});
    add(s + ".fc1.bias", {c.ffn_dim});
    add(s + ".fc2.weight", {dm, c.ffn_dim});
    add(s + ".fc2.bias", {dm});
  };
  for (int i = 0; i < c.encoder_layers; ++i) {
    const std::string s = "encoder.layers." + std::to_string(i);
    attention(s + ".self_attn");
    norm(s + ".self_attn_norm");
    ffn(s);
    norm(s + ".ffn_norm");
  }
  for (int i = 0; i < c.decoder_layers; ++i) {
    const std::string s = "decoder.layers." + std::to_string(i);
    if (c.decoder_recurrence == models::DecoderRecurrence::kSsru) {
      add(s + ".ssru_input.weight", {dm, dm});
      add(s + ".ssru_forget.weight", {dm, dm});
      add(s + ".ssru_forget.bias", {dm});
      norm(s + ".ssru_norm");
    } else {
      attention(s + ".self_attn");
      norm(s + ".self_attn_norm");
    }
    attention(s + ".cross_attn");
    norm(s + ".cross_attn_norm");
    ffn(s);
    norm(s + ".ffn_norm");
  }
  if (c.final_norm) {
    norm("encoder.final_norm");
    norm("decoder.final_norm");
  }
  return out;
}

void write_random_model(const std::string& dir, const models::ModelDescription& d, unsigned seed,
                        models::DType dtype) {
  models::write_checkpoint(dir, d, random_tensors(d, seed), dtype);
}

std::string with_source_whitespace(const std::string& source, const std::string& translation) {
  const tokenizer::Span core = tokenizer::trim_whitespace(source, {0, source.size()});
  if (core.begin == core.end) return source;
  return source.substr(0, core.begin) + translation + source.substr(core.end);
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_file(const std::string& path, const std::string& data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << data;
}

RunResult run(const std::string& command, const std::string& input) {
  TempDir tmp;
  write_file(tmp.file("in"), input);
  const std::string full =
      "(" + command + ") < '" + tmp.file("in") + "' > '" + tmp.file("out") + "' 2> '" + tmp.file("err") + "'";
  const int status = std::system(full.c_str());
  RunResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = read_file(tmp.file("out"));
  r.err = read_file(tmp.file("err"));
  return r;
}

std::string nmt_binary() { return NMT_BINARY; }
std::string fixtures_dir() { return NMT_TEST_FIXTURES; }

}  // namespace test
