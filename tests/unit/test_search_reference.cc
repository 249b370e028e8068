// Beam search against a plain Hugging Face style reference, and batch-independence properties.
#include "search_test_support.h"

using namespace search_test;

namespace {

constexpr int kRandomVocab = 8;  // 0 EOS, 5 pad/start, the rest words

// Logits from a hash of (seed, prefix, token); EOS grows likelier with length so lengths vary.
Model random_model(std::vector<uint64_t> seeds) {
  return [seeds](int sentence, const Prefix& prefix, float* logits) {
    uint64_t h = mix(seeds[sentence]);
    for (int32_t t : prefix) h = mix(h ^ static_cast<uint64_t>(t));
    for (int t = 0; t < kRandomVocab; ++t) {
      logits[t] = static_cast<float>((mix(h + t) >> 11) * 0x1.0p-53 * 6.0 - 3.0);
    }
    logits[kEos] += 0.5f * static_cast<float>(prefix.size()) - 1.0f;
  };
}

}  // namespace

namespace {

// Hugging Face's algorithm written plainly, in double: K copies of the start scored [0, -1e9, ...], a full
// stable sort of all K*V candidates, BeamHypotheses, is_done, finalize. The one-row start of core::search
// only matches it when vocab - banned >= 2K.
std::vector<Hypothesis> reference_beam_search(const Model& model, int sentence, int max_length,
                                              const SearchOptions& o) {
  const int k = o.beam_size, v = kRandomVocab;
  struct Beam {
    Prefix prefix;
    double cum;
  };
  struct Done {
    Prefix tokens;
    double score;
  };
  std::vector<Beam> beams(k, Beam{{}, -1e9});
  beams[0].cum = 0;
  std::vector<Done> kept;
  double worst = 1e9;
  auto add = [&](const Prefix& tokens, double cum, int len) {
    const double score = cum / std::pow(len, o.length_penalty);
    if (static_cast<int>(kept.size()) >= k && !(score > worst)) return;
    kept.push_back({tokens, score});
    if (static_cast<int>(kept.size()) <= k) {
      worst = std::min(worst, score);
      return;
    }
    size_t w = 0;
    for (size_t i = 1; i < kept.size(); ++i) w = kept[i].score < kept[w].score ? i : w;
    kept.erase(kept.begin() + w);
    worst = kept[0].score;
    for (const Done& d : kept) worst = std::min(worst, d.score);
  };
  auto log_softmax = [](std::vector<double>& x) {
    const double m = *std::max_element(x.begin(), x.end());
    double sum = 0;
    for (double xi : x) sum += std::exp(xi - m);
    for (double& xi : x) xi = xi - m - std::log(sum);
  };
  for (int len = 1;; ++len) {
    std::vector<std::pair<double, int>> candidates;  // (cum, beam * v + token)
    for (int b = 0; b < k; ++b) {
      std::vector<float> logits(v);
      model(sentence, beams[b].prefix, logits.data());
      std::vector<double> lp(logits.begin(), logits.end());
      log_softmax(lp);
      for (int32_t id : o.banned) lp[id] = -INFINITY;
      if (o.renormalize) log_softmax(lp);
      if (len == max_length) lp.assign(v, -INFINITY), lp[o.eos_id] = 0;
      for (int t = 0; t < v; ++t) candidates.push_back({beams[b].cum + lp[t], b * v + t});
    }
    std::stable_sort(candidates.begin(), candidates.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
    std::vector<Beam> next;
    for (int rank = 0; rank < 2 * k && static_cast<int>(next.size()) < k; ++rank) {
      const Beam& from = beams[candidates[rank].second / v];
      const int32_t token = candidates[rank].second % v;
      if (token != o.eos_id) {
        next.push_back({from.prefix, candidates[rank].first});
        next.back().prefix.push_back(token);
      } else if (rank < k) {
        add(from.prefix, candidates[rank].first, len);
      }
    }
    if (static_cast<int>(kept.size()) == k && worst >= candidates[0].first / std::pow(len, o.length_penalty))
      break;
    beams = next;
    if (len == max_length) {
      for (const Beam& b : beams) add(b.prefix, b.cum, len + 1);
      break;
    }
  }
  std::stable_sort(kept.begin(), kept.end(), [](const Done& a, const Done& b) { return a.score > b.score; });
  std::vector<Hypothesis> result;
  for (const Done& d : kept) {
    // Scores near -1e9 come from the dummy copies (only when max_length is 1); we start with one row instead.
    if (static_cast<int>(result.size()) < o.n_best && d.score > -1e8) {
      result.emplace_back();
      result.back().tokens = d.tokens;
      result.back().score = static_cast<float>(d.score);
    }
  }
  return result;
}

struct RandomCase {
  std::vector<uint64_t> seeds;
  std::vector<int> max_lengths;
};

RandomCase random_case(int n_sentences, uint64_t salt) {
  RandomCase c;
  for (int s = 0; s < n_sentences; ++s) {
    c.seeds.push_back(mix(salt * 1000 + s));
    c.max_lengths.push_back(1 + static_cast<int>(mix(salt + 77 * s) % 14));
  }
  return c;
}

std::vector<SearchOptions> option_grid(int beam_size, int n_best) {
  std::vector<SearchOptions> grid;
  for (float lp : {0.0f, 0.6f, 1.0f, 1.5f}) {
    for (bool renormalize : {false, true}) {
      for (const auto& banned : std::vector<Prefix>{{}, {kPad}, {kPad, 3}}) {
        SearchOptions o = make_options(beam_size, n_best, lp);
        o.renormalize = renormalize;
        o.banned = banned;
        grid.push_back(o);
      }
    }
  }
  return grid;
}

}  // namespace

TEST_CASE("beam search agrees with a plain Hugging Face style reference", "[search]") {
  for (int beam_size : {2, 3}) {
    for (const SearchOptions& o : option_grid(beam_size, beam_size)) {
      if (kRandomVocab - static_cast<int>(o.banned.size()) < 2 * beam_size) continue;
      const RandomCase c = random_case(12, beam_size * 100 + o.banned.size());
      CheckedDecoder decoder(kRandomVocab, random_model(c.seeds), beam_size);
      auto results = core::search(decoder, c.max_lengths, o);
      REQUIRE(results.size() == c.seeds.size());
      for (size_t s = 0; s < c.seeds.size(); ++s) {
        INFO("beam " << beam_size << " lp " << o.length_penalty << " renormalize " << o.renormalize
                     << " banned " << o.banned.size() << " sentence " << s);
        auto expected = reference_beam_search(random_model(c.seeds), s, c.max_lengths[s], o);
        REQUIRE(results[s].size() == expected.size());
        for (size_t i = 0; i < expected.size(); ++i)
          check_hypothesis(results[s][i], expected[i].tokens, expected[i].score);
      }
    }
  }
}

TEST_CASE("beam 1 equals greedy, tokens and scores", "[search]") {
  int compared = 0;
  for (const SearchOptions& o : option_grid(1, 1)) {
    const RandomCase c = random_case(30, 7 + compared);
    CheckedDecoder greedy_decoder(kRandomVocab, random_model(c.seeds), 1);
    CheckedDecoder beam_decoder(kRandomVocab, random_model(c.seeds), 1);
    auto greedy = core::search(greedy_decoder, c.max_lengths, o);
    auto beam = core::search_detail::beam_search(beam_decoder, c.max_lengths, o);
    REQUIRE(greedy.size() == beam.size());
    for (size_t s = 0; s < greedy.size(); ++s) {
      REQUIRE(greedy[s].size() == 1);
      REQUIRE(beam[s].size() == 1);
      CHECK(greedy[s][0].tokens == beam[s][0].tokens);
      CHECK(greedy[s][0].score == beam[s][0].score);  // exactly: same float sums, same normalisation
      ++compared;
    }
    CHECK(greedy_decoder.steps_of_sentence == beam_decoder.steps_of_sentence);
  }
  CHECK(compared == 24 * 30);
}

TEST_CASE("a sentence decodes the same alone and inside a batch", "[search]") {
  const RandomCase c = random_case(9, 4242);
  for (int beam_size : {1, 3}) {
    SearchOptions o = make_options(beam_size, beam_size, 1.0f);
    o.banned = {kPad};
    CheckedDecoder batch_decoder(kRandomVocab, random_model(c.seeds), beam_size);
    auto batch = core::search(batch_decoder, c.max_lengths, o);
    for (size_t s = 0; s < c.seeds.size(); ++s) {
      CheckedDecoder alone_decoder(kRandomVocab, random_model({c.seeds[s]}), beam_size);
      auto alone = core::search(alone_decoder, {c.max_lengths[s]}, o);
      REQUIRE(alone[0].size() == batch[s].size());
      for (size_t i = 0; i < alone[0].size(); ++i) {
        CHECK(alone[0][i].tokens == batch[s][i].tokens);
        CHECK(alone[0][i].score == batch[s][i].score);
      }
      CHECK(alone_decoder.steps_of_sentence[0] == batch_decoder.steps_of_sentence[s]);
    }
  }
}

TEST_CASE("finished sentences leave the batch, banned ids never appear", "[search]") {
  const RandomCase c = random_case(20, 99);
  for (int beam_size : {1, 2, 4}) {
    SearchOptions o = make_options(beam_size, beam_size, 1.0f);
    o.banned = {kPad, 2};
    CheckedDecoder decoder(kRandomVocab, random_model(c.seeds), beam_size);
    auto results = core::search(decoder, c.max_lengths, o);
    int greedy_rows = 0;
    for (size_t s = 0; s < results.size(); ++s) {
      REQUIRE(!results[s].empty());
      CHECK(decoder.steps_of_sentence[s] <= c.max_lengths[s]);
      for (const Hypothesis& h : results[s]) {
        CHECK(static_cast<int>(h.tokens.size()) < c.max_lengths[s]);
        for (int32_t t : h.tokens) CHECK((t != kPad && t != 2 && t != kEos));
      }
      for (size_t i = 1; i < results[s].size(); ++i) CHECK(results[s][i - 1].score >= results[s][i].score);
      greedy_rows += static_cast<int>(results[s][0].tokens.size()) + 1;
    }
    // Greedy steps each sentence once per generated token, EOS included, and never after it.
    if (beam_size == 1) CHECK(decoder.rows_stepped == greedy_rows);
  }
}
