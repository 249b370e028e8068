// The store of installed models: its directory from the environment, and what a listing shows or skips.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>

#include "models/model_error.h"
#include "models/model_store.h"
#include "test_support.h"

namespace {

const std::string kOpusModel = std::string(NMT_TEST_FIXTURES) + "/opus/model";

// Sets an environment variable for one scope (unset when `value` is null), restoring it afterwards.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    const char* old = std::getenv(name);
    had_ = old != nullptr;
    if (had_) old_ = old;
    if (value)
      ::setenv(name, value, 1);
    else
      ::unsetenv(name);
  }
  ~ScopedEnv() {
    if (had_)
      ::setenv(name_, old_.c_str(), 1);
    else
      ::unsetenv(name_);
  }

 private:
  const char* name_;
  bool had_ = false;
  std::string old_;
};

void copy_model(const std::string& to) {
  std::filesystem::copy(kOpusModel, to, std::filesystem::copy_options::recursive);
}

}  // namespace

TEST_CASE("models home: NMT_MODELS_DIR, then XDG_DATA_HOME, then HOME", "[model_store]") {
  ScopedEnv store("NMT_MODELS_DIR", "/srv/models");
  ScopedEnv xdg("XDG_DATA_HOME", "/x/data");
  ScopedEnv home("HOME", "/home/u");
  CHECK(models::models_home() == "/srv/models");
  ::unsetenv("NMT_MODELS_DIR");
  CHECK(models::models_home() == "/x/data/nmt/models");
  ::unsetenv("XDG_DATA_HOME");
  CHECK(models::models_home() == "/home/u/.local/share/nmt/models");
  ::unsetenv("HOME");
  CHECK(models::models_home().empty());
}

TEST_CASE("the store lists its models by name and skips installs in progress and damage", "[model_store]") {
  test::TempDir home;
  CHECK(models::list_stored_models(home.file("absent")).empty());
  copy_model(home.file("opus-mt-en-de"));
  copy_model(home.file(".installing-fr-en"));
  copy_model(home.file("b-damaged"));
  home.write("b-damaged/model.json", "{ not json");
  home.write("a-no-model/readme.txt", "nothing here");
  home.write("stray-file", "x");

  const auto listed = models::list_stored_models(home.path());
  REQUIRE(listed.size() == 1);
  CHECK(listed[0].name == "opus-mt-en-de");
  CHECK(listed[0].source_lang == "en");
  CHECK(listed[0].target_lang == "de");
  CHECK_FALSE(listed[0].bundled);
  CHECK_THROWS_AS(models::describe_model_dir(home.file("b-damaged"), false), models::ModelError);
}
