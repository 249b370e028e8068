// cpp-httplib's server with the connection handling `nmt serve` needs and Debian's compiled library fixes
// otherwise: a deadline for receiving each whole request (request line, headers and body), so clients that
// drip bytes cannot hold the connection threads; a listen backlog sized for many clients; and no exception
// escaping a connection thread, where it would end the process.
#pragma once

#include <httplib.h>

#include <chrono>
#include <string>

namespace serve {

// The kernel's queue of connections not yet accepted. cpp-httplib's is 5, which refuses clients arriving
// together long before the connection threads are busy.
inline constexpr int kListenBacklog = 1024;

// Content-Type with its media type and parameter names in lower case, parameter values as sent
// ("Multipart/Form-Data; Boundary=AbC" -> "multipart/form-data; boundary=AbC"): media types are
// case-insensitive (RFC 9110), and cpp-httplib recognises a multipart form and its boundary in lower case
// only.
std::string lowercase_media_type(const std::string& content_type);

class BoundedServer : public httplib::Server {
 public:
  // `receive_deadline`: the time a client has to send one whole request, counted from the moment a
  // connection thread starts reading it (the first bytes of a request on a kept-alive connection).
  // `threads`: connections served at once.
  BoundedServer(std::chrono::seconds receive_deadline, int threads);

  // listen(2) again on the bound socket with kListenBacklog; Linux takes the new backlog.
  void widen_backlog();

 private:
  bool process_and_close_socket(socket_t sock) override;

  const std::chrono::seconds receive_deadline_;
};

}  // namespace serve
