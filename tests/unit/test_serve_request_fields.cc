// serve/request_fields: a request's fields from whatever body a client sends, read within --max-body.
#include <httplib.h>

#include <catch2/catch.hpp>
#include <string>

#include "serve/api_error.h"
#include "serve/request_fields.h"

namespace {

// The fields of a POST to `target` with `body` of media type `type`, read as the server reads them.
serve::RequestData fields_of(const std::string& type, const std::string& body, size_t max_body = 1 << 20,
                             const std::string& target = "/translate") {
  httplib::Request req;
  req.method = "POST";
  req.target = target;
  if (!type.empty()) req.headers.emplace("Content-Type", type);
  httplib::Response res;
  const httplib::ContentReader reader(
      [&body](httplib::ContentReceiver receive) { return receive(body.data(), body.size()); },
      [](httplib::MultipartContentHeader, httplib::ContentReceiver) { return false; });
  return serve::read_request(req, res, reader, max_body);
}

}  // namespace

TEST_CASE("serve read_request: JSON by its media type in any case, or by its shape in a form", "[serve]") {
  const std::string json = R"({"q": ["a", "b"], "source": "en"})";
  CHECK(fields_of("application/json", json).fields["q"].size() == 2);
  CHECK(fields_of("Application/JSON; charset=UTF-8", json).fields["source"] == "en");
  // curl -d '{...}' labels JSON as a form.
  CHECK(fields_of("application/x-www-form-urlencoded", json).fields["q"][1] == "b");
  CHECK_THROWS_WITH(fields_of("application/json", "[1]"), Catch::Contains("expected a JSON object"));
  CHECK_THROWS_WITH(fields_of("application/json", "{\"q\": "), Catch::Contains("not valid JSON"));
}

TEST_CASE("serve read_request: forms of any size up to the body limit, q twice an array", "[serve]") {
  const std::string pad(20000, 'x');
  const serve::RequestData form =
      fields_of("application/x-www-form-urlencoded", "q=a&q=b&source=en&pad=" + pad, 1 << 20, "/t?target=de");
  CHECK(form.fields["q"] == nlohmann::json::array({"a", "b"}));
  CHECK(form.fields["target"] == "de");
  CHECK(form.fields["pad"].get<std::string>().size() == pad.size());
  try {
    fields_of("application/x-www-form-urlencoded", "q=" + pad, 1024);
    FAIL("a body over the limit was read");
  } catch (const serve::ApiError& e) {
    CHECK(e.status() == 413);
  }
}
