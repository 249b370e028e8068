// `nmt attention`: the SVG renders to a real image in a real renderer (rsvg-convert), the JSON has the
// documented shape with rows summing to 1, and bad flags or outputs fail cleanly.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "front/svg_heatmap.h"
#include "test_support.h"

namespace {

using Catch::Matchers::Contains;

std::string attention() {
  return "'" + test::nmt_binary() + "' attention -m '" + test::fixtures_dir() + "/opus/model'";
}

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + what.size())) ++n;
  return n;
}

uint32_t big_endian(const std::string& s, size_t at) {
  uint32_t v = 0;
  for (size_t i = 0; i < 4; ++i) v = v << 8 | static_cast<unsigned char>(s.at(at + i));
  return v;
}

// Every [.][.][row][col] row of one kind sums to 1.
void check_rows(const nlohmann::json& kind, size_t layers, size_t heads, size_t rows, size_t cols) {
  REQUIRE(kind.size() == layers);
  for (const auto& layer : kind) {
    REQUIRE(layer.size() == heads);
    for (const auto& head : layer) {
      REQUIRE(head.size() == rows);
      for (const auto& row : head) {
        REQUIRE(row.size() == cols);
        double sum = 0.0;
        for (const auto& x : row) sum += x.get<double>();
        REQUIRE(sum == Approx(1.0).margin(1e-5));
      }
    }
  }
}

}  // namespace

TEST_CASE("nmt attention -o a.svg renders to a PNG of sensible size", "[attention_command]") {
  test::TempDir dir;
  const auto r = test::run(attention() + " 'the man is walking' -o '" + dir.file("a.svg") + "'");
  REQUIRE(r.exit_code == 0);
  REQUIRE(r.err.empty());
  const std::string svg = test::read_file(dir.file("a.svg"));
  CHECK_THAT(svg, Contains("<svg xmlns=\"http://www.w3.org/2000/svg\""));
  // The opus fixture: 2 decoder layers x (4 heads + their mean), a cell with a <title> per weight.
  CHECK(count(svg, "layer 1 \xC2\xB7 mean") == 1);
  CHECK(count(svg, "</title></rect>") % 10 == 0);
  const auto png =
      test::run("rsvg-convert -f png -o '" + dir.file("a.png") + "' '" + dir.file("a.svg") + "'");
  REQUIRE(png.exit_code == 0);
  REQUIRE(png.err.empty());
  const std::string image = test::read_file(dir.file("a.png"));
  REQUIRE(image.size() > 2000);
  REQUIRE(image.compare(0, 8, "\x89PNG\r\n\x1a\n") == 0);
  const uint32_t width = big_endian(image, 16), height = big_endian(image, 20);
  CHECK(width >= 400);
  CHECK(width <= 3000);
  CHECK(height >= 250);
  CHECK(height <= 3000);
}

TEST_CASE("nmt attention --format json: tokens and every layer's and head's rows, each summing to 1",
          "[attention_command]") {
  const auto r = test::run(attention() + " --format json 'the man is walking'");
  REQUIRE(r.exit_code == 0);
  const nlohmann::json j = nlohmann::json::parse(r.out);
  const size_t s = j["source_tokens"].size(), t = j["target_tokens"].size();
  REQUIRE(s >= 2);
  REQUIRE(t >= 1);
  CHECK(j["source_tokens"].back() == "</s>");
  // The opus fixture: 2 encoder and 2 decoder layers, 4 heads.
  check_rows(j["cross"], 2, 4, t, s);
  check_rows(j["encoder"], 2, 4, s, s);
  check_rows(j["decoder"], 2, 4, t, t);
  // The text equals the plain translation.
  const auto plain = test::run(
      "'" + test::nmt_binary() + "' translate -m '" + test::fixtures_dir() + "/opus/model' --no-split",
      "the man is walking\n");
  CHECK(j["translation"].get<std::string>() + "\n" == plain.out);
  // Standard input when no text is given.
  const auto piped = test::run(attention() + " --format json", "the man is walking\n");
  REQUIRE(piped.exit_code == 0);
  CHECK(piped.out == r.out);
}

TEST_CASE("nmt attention: one layer, one head, other kinds", "[attention_command]") {
  const auto one = test::run(attention() + " --kind encoder --layer 1 --head 2 'a small dog'");
  REQUIRE(one.exit_code == 0);
  CHECK(count(one.out, "layer 1 \xC2\xB7 head 2") == 1);
  CHECK(count(one.out, "head 0") == 0);
  CHECK_THAT(one.out, Contains("Encoder self-attention"));
  const auto decoder = test::run(attention() + " --kind decoder 'a small dog'");
  REQUIRE(decoder.exit_code == 0);
  CHECK_THAT(decoder.out, Contains("&lt;s&gt;"));  // the start token labels the first key column
}

TEST_CASE("nmt attention: bad flags exit 64, a bad output exits 1 before the model loads",
          "[attention_command]") {
  auto r = test::run(attention() + " --layer 2 'a dog'");
  CHECK(r.exit_code == 64);
  CHECK_THAT(r.err, Contains("layers 0..1"));
  r = test::run(attention() + " --head 4 'a dog'");
  CHECK(r.exit_code == 64);
  r = test::run(attention() + " --kind sideways 'a dog'");
  CHECK(r.exit_code == 64);
  r = test::run(attention() + " --format png 'a dog'");
  CHECK(r.exit_code == 64);
  r = test::run(attention(), "   \n");
  CHECK(r.exit_code == 64);
  test::TempDir dir;
  r = test::run(attention() + " 'a dog' -o '" + dir.file("missing/a.svg") + "'");
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Contains("missing"));
}

TEST_CASE("heatmap SVG: one titled cell per weight, labels escaped", "[attention_command]") {
  front::HeatmapFigure f;
  f.caption = "a < b & c";
  f.row_labels = {"<x>", "y"};
  f.column_labels = {"\"q\"", "r", "s"};
  f.panels = {{"p", {0.0f, 0.5f, 0.5f, 1.0f, 0.0f, 0.0f}, true}};
  const std::string svg = front::render_heatmap_svg(f);
  CHECK(count(svg, "</title></rect>") == 6);
  CHECK_THAT(svg, Contains("&lt;x&gt; \xE2\x86\x92 &quot;q&quot;: 0.000"));
  CHECK_THAT(svg, Contains("y \xE2\x86\x92 &quot;q&quot;: 1.000"));
  CHECK_THAT(svg, Contains("a &lt; b &amp; c"));
  CHECK(svg.find('\x01') == std::string::npos);
  CHECK(front::xml_escape("a\x01z") == "a\xEF\xBF\xBDz");
}

TEST_CASE("nmt attention --format json keeps only --layer and --head, a row per line",
          "[attention_command]") {
  const auto all = test::run(attention() + " --format json 'the man is walking'");
  REQUIRE(all.exit_code == 0);
  const nlohmann::json full = nlohmann::json::parse(all.out);
  const size_t s = full["source_tokens"].size(), t = full["target_tokens"].size();
  CHECK(count(all.out, "\n") > 2 * 4 * (t + s + t));  // streamed: each matrix row its own line
  CHECK(full.find("layer") == full.end());
  const auto one = test::run(attention() + " --format json --layer 1 --head 2 'the man is walking'");
  REQUIRE(one.exit_code == 0);
  const nlohmann::json j = nlohmann::json::parse(one.out);
  CHECK(j["layer"] == 1);
  CHECK(j["head"] == 2);
  check_rows(j["cross"], 1, 1, t, s);
  check_rows(j["encoder"], 1, 1, s, s);
  check_rows(j["decoder"], 1, 1, t, t);
  CHECK(j["cross"][0][0] == full["cross"][1][2]);
  CHECK(j["encoder"][0][0] == full["encoder"][1][2]);
  const auto heads = nlohmann::json::parse(test::run(attention() + " --format json --head 3 'a dog'").out);
  check_rows(heads["cross"], 2, 1, heads["target_tokens"].size(), heads["source_tokens"].size());
}

TEST_CASE("nmt attention on two sentences shows the first and says so", "[attention_command]") {
  const auto r = test::run(attention() + " --format json 'A small dog. The man is walking.'");
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.err, Contains("2 sentences"));
  CHECK_THAT(r.err, Contains("\"A small dog.\""));
  const auto first = test::run(attention() + " --format json 'A small dog.'");
  CHECK(first.err.empty());
  CHECK(first.out == r.out);
}

TEST_CASE("nmt attention labels pieces without the SentencePiece word marker", "[attention_command]") {
  const auto r = test::run(attention() + " 'the man is walking'");
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("\xE2\x96\x81") == std::string::npos);
  CHECK_THAT(r.out, Contains(">man<"));
  // The JSON keeps the pieces as the vocabulary spells them.
  const auto j = test::run(attention() + " --format json 'the man is walking'");
  CHECK(j.out.find("\xE2\x96\x81") != std::string::npos);
}

TEST_CASE("nmt attention draws at most 300 pieces a side, JSON has no such bound", "[attention_command]") {
  std::string text;
  for (int i = 0; i < 320; ++i) text += i == 0 ? "dog" : " dog";
  const auto svg = test::run(attention() + " -b 1 '" + text + "'");
  CHECK(svg.exit_code == 64);
  CHECK_THAT(svg.err, Contains("at most 300 pieces"));
  CHECK_THAT(svg.err, Contains("--format json"));
  const auto json = test::run(attention() + " -b 1 --format json '" + text + "'");
  CHECK(json.exit_code == 0);
  CHECK(nlohmann::json::parse(json.out)["source_tokens"].size() > 300);
}

TEST_CASE("docs/attention.svg draws the bundled model's alignment layer, as nmt draws it now",
          "[attention_command]") {
  const std::string data = NMT_TEST_DATA;
  const auto r = test::run("'" + test::nmt_binary() + "' attention -m '" + data +
                           "/multi30k-en-de' --layer 1 'A man rides a bike.'");
  REQUIRE(r.exit_code == 0);
  CHECK(r.out == test::read_file(data + "/../docs/attention.svg"));
  // The layer the README's caption describes is the one --alignment reads by default.
  const auto info = test::run("'" + test::nmt_binary() + "' info '" + data + "/multi30k-en-de'");
  CHECK_THAT(info.out, Contains("  alignment_layer: 1\n"));
}
