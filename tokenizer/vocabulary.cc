#include "tokenizer/vocabulary.h"

#include <functional>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/regular_file.h"

namespace tokenizer {

// Reads the JSON as a stream of events (no document tree: the file can hold tens of thousands of
// entries), accepting only a flat object of integer ids; the first problem is kept as `error`.
class Vocabulary::Builder {
 public:
  using json = nlohmann::json;

  explicit Builder(Vocabulary& v) : v_(v) {}

  std::string error;

  bool start_object(std::size_t) {
    if (depth_ == 0) return ++depth_, true;
    return bad_id();
  }
  bool end_object() { return --depth_, true; }
  bool key(json::string_t& k) {
    if (v_.text_.size() + k.size() >= kNoPiece) return fail("vocabulary text too large");
    pending_ = Span{static_cast<uint32_t>(v_.text_.size()), static_cast<uint32_t>(k.size())};
    v_.text_ += k;
    return true;
  }
  bool number_integer(json::number_integer_t n) { return n < 0 ? bad_id() : add(static_cast<uint64_t>(n)); }
  bool number_unsigned(json::number_unsigned_t n) { return add(n); }
  bool number_float(json::number_float_t, const json::string_t&) { return bad_id(); }
  bool null() { return bad_id(); }
  bool boolean(bool) { return bad_id(); }
  bool string(json::string_t&) { return bad_id(); }
  bool binary(json::binary_t&) { return bad_id(); }
  bool start_array(std::size_t) { return bad_id(); }
  bool end_array() { return bad_id(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) {
    return fail(std::string("vocabulary is not valid JSON: ") + e.what());
  }

  // The index over every piece read, once the whole object is in.
  bool index() {
    size_t slots = 16;
    while (slots < 2 * v_.spans_.size()) slots *= 2;
    v_.slots_.assign(slots, -1);
    for (int32_t id = 0; id < v_.size(); ++id) {
      if (v_.spans_[id].start == kNoPiece) continue;
      const std::string_view piece = v_.piece(id);
      const size_t slot = v_.slot_of(piece);
      if (v_.slots_[slot] >= 0) return fail("piece '" + std::string(piece) + "' appears twice");
      v_.slots_[slot] = id;
    }
    return true;
  }

 private:
  bool fail(std::string message) {
    if (error.empty()) error = std::move(message);
    return false;
  }
  bool bad_id() {
    if (depth_ == 0) return fail("vocabulary must be a JSON object {\"piece\": id}");
    const Span s = pending_;
    return fail("piece '" + v_.text_.substr(s.start, s.size) + "': id must be an integer in [0, 2^24)");
  }
  bool add(uint64_t id) {
    if (depth_ == 0) return bad_id();
    if (id >= (uint64_t{1} << 24)) return bad_id();
    if (id >= v_.spans_.size()) v_.spans_.resize(id + 1);
    if (v_.spans_[id].start != kNoPiece) return fail("id " + std::to_string(id) + " used twice");
    v_.spans_[id] = pending_;
    return true;
  }

  Vocabulary& v_;
  int depth_ = 0;
  Span pending_;
};

Vocabulary Vocabulary::load_json(const std::string& path) {
  const std::string text = core::read_regular_file(path, "vocabulary", kMaxVocabularyBytes);
  Vocabulary v;
  Builder builder(v);
  if (!nlohmann::json::sax_parse(text, &builder) || !builder.index()) {
    throw core::Error(path + ": " + builder.error);
  }
  v.text_.shrink_to_fit();
  v.spans_.shrink_to_fit();
  return v;
}

size_t Vocabulary::slot_of(std::string_view piece) const {
  const size_t mask = slots_.size() - 1;
  for (size_t slot = std::hash<std::string_view>{}(piece)&mask;; slot = (slot + 1) & mask) {
    const int32_t id = slots_[slot];
    if (id < 0 || this->piece(id) == piece) return slot;
  }
}

int32_t Vocabulary::id(std::string_view piece, int32_t missing) const {
  const int32_t id = slots_.empty() ? -1 : slots_[slot_of(piece)];
  return id < 0 ? missing : id;
}

std::string_view Vocabulary::piece(int32_t id) const {
  if (id < 0 || id >= size() || spans_[id].start == kNoPiece) return {};
  return std::string_view(text_).substr(spans_[id].start, spans_[id].size);
}

}  // namespace tokenizer
