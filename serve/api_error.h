// A request the server refuses: the HTTP status and the message of LibreTranslate's {"error": msg}.
#pragma once

#include <stdexcept>
#include <string>

namespace serve {

class ApiError : public std::runtime_error {
 public:
  ApiError(int status, const std::string& message) : std::runtime_error(message), status_(status) {}
  int status() const { return status_; }

 private:
  int status_;
};

}  // namespace serve
