// models/hub/ without a network: repository specs, the hub's URL from flags and environment, which files
// a conversion fetches, origins (the token's scope), the digests the hub states, and install.json.
#include <catch2/catch.hpp>
#include <cstdlib>

#include "models/hub/file_digest.h"
#include "models/hub/http_client.h"
#include "models/hub/hub_repo.h"
#include "models/hub/install_manifest.h"
#include "models/hub/url_package.h"
#include "test_support.h"
#include "zip_writer.h"

namespace {

std::vector<hub::HubFile> named(const std::vector<std::string>& names) {
  std::vector<hub::HubFile> files;
  for (const std::string& n : names) files.push_back({n, 1, "", ""});
  return files;
}

std::vector<std::string> names_of(const std::vector<hub::HubFile>& files) {
  std::vector<std::string> names;
  for (const hub::HubFile& f : files) names.push_back(f.path);
  return names;
}

}  // namespace

TEST_CASE("a repository spec names a revision after '@', main by default", "[hub]") {
  CHECK(hub::parse_repo_spec("Helsinki-NLP/opus-mt-fr-en").revision == "main");
  const hub::RepoSpec spec = hub::parse_repo_spec("Helsinki-NLP/opus-mt-fr-en@v1.0");
  CHECK(spec.repo == "Helsinki-NLP/opus-mt-fr-en");
  CHECK(spec.revision == "v1.0");
}

TEST_CASE("the hub comes from --hub, then NMT_HUB, then HF_ENDPOINT", "[hub]") {
  ::setenv("NMT_HUB", "http://a.example/", 1);
  ::setenv("HF_ENDPOINT", "http://b.example", 1);
  CHECK(hub::hub_endpoint("http://flag.example//") == "http://flag.example");
  CHECK(hub::hub_endpoint("") == "http://a.example");
  ::unsetenv("NMT_HUB");
  CHECK(hub::hub_endpoint("") == "http://b.example");
  ::unsetenv("HF_ENDPOINT");
  CHECK(hub::hub_endpoint("") == "https://huggingface.co");
}

TEST_CASE("a conversion fetches its configs, tokenizers and one weights file", "[hub]") {
  const hub::RepoSpec spec = hub::parse_repo_spec("org/opus-mt-en-de");
  const auto all =
      named({"config.json", "model.safetensors", "pytorch_model.bin", "tf_model.h5", "rust_model.ot",
             "flax_model.msgpack", "source.spm", "target.spm", "vocab.json", ".gitattributes"});
  CHECK(names_of(hub::conversion_files(spec, all)) == std::vector<std::string>{"config.json", "source.spm",
                                                                               "target.spm", "vocab.json",
                                                                               "model.safetensors"});
  CHECK(names_of(hub::conversion_files(spec, named({"config.json", "pytorch_model.bin", "tf_model.h5"}))) ==
        std::vector<std::string>{"config.json", "pytorch_model.bin"});
  CHECK_THROWS_WITH(hub::conversion_files(spec, named({"config.json", "tf_model.h5"})),
                    Catch::Contains("org/opus-mt-en-de") && Catch::Contains("neither model.safetensors"));
}

TEST_CASE("an origin is scheme, host and port: the token's scope", "[hub]") {
  CHECK(hub::url_origin("https://huggingface.co/api/models/x") == "https://huggingface.co:443");
  CHECK(hub::url_origin("http://127.0.0.1:8080/a?b") == "http://127.0.0.1:8080");
  CHECK(hub::url_origin("https://cdn-lfs.huggingface.co/x") != hub::url_origin("https://huggingface.co/x"));
  CHECK(hub::url_origin("not a url").empty());
}

TEST_CASE("file digests are the hub's: sha256 and the git blob id", "[hub]") {
  test::TempDir dir;
  const std::string file = dir.write("hello.txt", "hello\n");
  CHECK(hub::sha256_hex(file) == "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03");
  CHECK(hub::git_blob_id(file) == "ce013625030ba8dba906f756967f9e9ca394464a");  // git hash-object
}

TEST_CASE("install.json round-trips and lists the installed files' hashes", "[hub]") {
  test::TempDir dir;
  dir.write("model.json", "{}");
  hub::InstallManifest m;
  m.name = "opus-mt-fr-en";
  m.source_lang = "fr";
  m.target_lang = "en";
  m.source = "Helsinki-NLP/opus-mt-fr-en";
  m.revision = std::string(40, 'a');
  m.installed_files = hub::hash_directory(dir.path());
  m.dtype = "int8";
  m.installed_at = hub::utc_now();
  hub::write_manifest(dir.path(), m);
  const hub::InstallManifest back = hub::read_manifest(dir.path());
  CHECK(back.name == m.name);
  CHECK(back.source_lang == "fr");
  CHECK(back.revision == m.revision);
  REQUIRE(back.installed_files.size() == 1);
  CHECK(back.installed_files[0].path == "model.json");
  CHECK(hub::hash_directory(dir.path()).size() == 1);  // install.json itself is not hashed
  dir.write("install.json", "{");
  CHECK_THROWS_WITH(hub::read_manifest(dir.path()), Catch::Contains("install.json"));
}

TEST_CASE("a zip package unpacks flat and refuses members that climb out", "[hub]") {
  test::TempDir dir;
  const auto make_zip = [&](const std::string& name, const std::vector<std::string>& members) {
    const std::string path = dir.file(name);
    test::ZipMembers named_after_themselves;
    for (const std::string& m : members) named_after_themselves.emplace_back(m, m);
    test::write_zip(path, named_after_themselves);
    return path;
  };
  const std::string good = make_zip("good.zip", {"release/model.npz", "release/decoder.yml"});
  hub::unpack_zip(good, dir.file("out"));
  CHECK(test::read_file(dir.file("out/model.npz")) == "release/model.npz");
  CHECK(test::read_file(dir.file("out/decoder.yml")) == "release/decoder.yml");
  CHECK_THROWS_WITH(hub::unpack_zip(make_zip("evil.zip", {"../evil.txt"}), dir.file("evil")),
                    Catch::Contains("points outside the package"));
  CHECK_THROWS_WITH(hub::unpack_zip(make_zip("twice.zip", {"a/x.spm", "b/x.spm"}), dir.file("twice")),
                    Catch::Contains("named twice"));
}
