#include "serve/http_connection.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iostream>

namespace serve {

namespace {

using Clock = std::chrono::steady_clock;

// Waits until `sock` is ready for `events` or `until` passes; false when it passed or the socket failed.
// Bytes already received are ready even past `until`.
bool wait_for(int sock, short events, Clock::time_point until) {
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now()).count();
    pollfd p{sock, events, 0};
    const int n = ::poll(&p, 1, static_cast<int>(std::clamp<long long>(left, 0, 1000 * 60)));
    if (n > 0) return (p.revents & (events | POLLHUP | POLLERR)) != 0;
    if (n == 0 && left <= 0) return false;
    if (n < 0 && errno != EINTR) return false;
  }
}

void address_of(const sockaddr_storage& a, std::string& ip, int& port) {
  char text[INET6_ADDRSTRLEN] = "";
  if (a.ss_family == AF_INET) {
    const auto& v4 = reinterpret_cast<const sockaddr_in&>(a);
    inet_ntop(AF_INET, &v4.sin_addr, text, sizeof text);
    port = ntohs(v4.sin_port);
  } else if (a.ss_family == AF_INET6) {
    const auto& v6 = reinterpret_cast<const sockaddr_in6&>(a);
    inet_ntop(AF_INET6, &v6.sin6_addr, text, sizeof text);
    port = ntohs(v6.sin6_port);
  }
  ip = text;
}

// A socket stream whose reads stop at a deadline: each read waits at most the read timeout (a silent
// client) and never past the request's deadline (a client that drips bytes).
class DeadlineStream : public httplib::Stream {
 public:
  DeadlineStream(int sock, std::chrono::microseconds read_timeout, std::chrono::microseconds write_timeout,
                 Clock::time_point deadline)
      : sock_(sock), read_timeout_(read_timeout), write_timeout_(write_timeout), deadline_(deadline) {}

  bool is_readable() const override { return buffered_ < filled_ || wait_for(sock_, POLLIN, read_until()); }
  bool is_writable() const override { return wait_for(sock_, POLLOUT, Clock::now() + write_timeout_); }

  ssize_t read(char* ptr, size_t size) override {
    if (buffered_ == filled_) {
      if (!wait_for(sock_, POLLIN, read_until())) {
        timed_out_ = true;
        return -1;
      }
      const ssize_t n = recv_some(buffer_, sizeof buffer_);
      if (n <= 0) return n;
      buffered_ = 0;
      filled_ = static_cast<size_t>(n);
    }
    const size_t n = std::min(size, filled_ - buffered_);
    std::memcpy(ptr, buffer_ + buffered_, n);
    buffered_ += n;
    return static_cast<ssize_t>(n);
  }

  ssize_t write(const char* ptr, size_t size) override {
    if (!is_writable()) return -1;
    ssize_t n;
    do {
      n = ::send(sock_, ptr, size, MSG_NOSIGNAL);
    } while (n < 0 && errno == EINTR);
    return n;
  }

  void get_remote_ip_and_port(std::string& ip, int& port) const override {
    sockaddr_storage a{};
    socklen_t len = sizeof a;
    if (::getpeername(sock_, reinterpret_cast<sockaddr*>(&a), &len) == 0) address_of(a, ip, port);
  }
  void get_local_ip_and_port(std::string& ip, int& port) const override {
    sockaddr_storage a{};
    socklen_t len = sizeof a;
    if (::getsockname(sock_, reinterpret_cast<sockaddr*>(&a), &len) == 0) address_of(a, ip, port);
  }
  socket_t socket() const override { return sock_; }

  // A read ran out of time: the rest of the request is unread, so the connection cannot carry another.
  bool timed_out() const { return timed_out_; }

 private:
  Clock::time_point read_until() const { return std::min(deadline_, Clock::now() + read_timeout_); }

  ssize_t recv_some(char* ptr, size_t size) {
    ssize_t n;
    do {
      n = ::recv(sock_, ptr, size, 0);
    } while (n < 0 && errno == EINTR);
    return n;
  }

  const int sock_;
  const std::chrono::microseconds read_timeout_, write_timeout_;
  const Clock::time_point deadline_;
  char buffer_[4096];
  size_t buffered_ = 0, filled_ = 0;  // buffer_[buffered_, filled_) is read, not yet handed out
  bool timed_out_ = false;
};

}  // namespace

BoundedServer::BoundedServer(std::chrono::seconds receive_deadline, int threads)
    : receive_deadline_(receive_deadline) {
  new_task_queue = [threads] { return new httplib::ThreadPool(static_cast<size_t>(threads)); };
}

void BoundedServer::widen_backlog() {
  const socket_t sock = svr_sock_;
  if (sock != INVALID_SOCKET) ::listen(sock, kListenBacklog);
}

std::string lowercase_media_type(const std::string& content_type) {
  std::string out = content_type;
  bool in_name = true;  // the media type, or a parameter's name: up to '=' (a value runs to ';')
  bool quoted = false;
  for (char& c : out) {
    if (quoted) {
      quoted = c != '"';
    } else if (c == ';') {
      in_name = true;
    } else if (c == '=') {
      in_name = false;
    } else if (c == '"' && !in_name) {
      quoted = true;
    } else if (in_name && c >= 'A' && c <= 'Z') {
      c = static_cast<char>(c - 'A' + 'a');
    }
  }
  return out;
}

bool BoundedServer::process_and_close_socket(socket_t sock) {
  bool ok = false;
  try {
    const std::chrono::microseconds read_timeout =
        std::chrono::seconds(read_timeout_sec_) + std::chrono::microseconds(read_timeout_usec_);
    const std::chrono::microseconds write_timeout =
        std::chrono::seconds(write_timeout_sec_) + std::chrono::microseconds(write_timeout_usec_);
    for (size_t left = keep_alive_max_count_; left > 0; --left) {
      // A kept-alive connection waits for its next request in slices, so stop() is seen within one.
      const Clock::time_point idle_until = Clock::now() + std::chrono::seconds(keep_alive_timeout_sec_);
      bool ready = false;
      while (!ready && svr_sock_ != INVALID_SOCKET && Clock::now() < idle_until)
        ready = wait_for(sock, POLLIN, std::min(idle_until, Clock::now() + std::chrono::milliseconds(100)));
      if (!ready || svr_sock_ == INVALID_SOCKET) break;
      DeadlineStream stream(sock, read_timeout, write_timeout, Clock::now() + receive_deadline_);
      bool closed = false;
      ok = process_request(stream, left == 1, closed, [](httplib::Request& req) {
        const auto type = req.headers.find("Content-Type");
        if (type != req.headers.end()) type->second = lowercase_media_type(type->second);
      });
      if (!ok || closed || stream.timed_out()) break;
    }
  } catch (const std::exception& e) {  // cpp-httplib's own parsing, out of memory: this connection only
    std::cerr << "nmt serve: a connection failed: " << e.what() << std::endl;
    ok = false;
  } catch (...) {
    ok = false;
  }
  ::shutdown(sock, SHUT_RDWR);
  ::close(sock);
  return ok;
}

}  // namespace serve
