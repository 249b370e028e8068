#include "serve/document_worker.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <new>
#include <stdexcept>

#include "core/error.h"
#include "serve/api_error.h"

namespace serve {

namespace {

// The child's answer on the pipe: three digits of HTTP status, then the document (200) or the message.
constexpr size_t kStatusDigits = 3;

uint64_t address_space_bytes() {
  std::ifstream statm("/proc/self/statm");
  uint64_t pages = 0;
  statm >> pages;
  return pages * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
}

void write_all(int fd, const std::string& bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the parent stopped reading: it has given up on this child
    done += static_cast<size_t>(n);
  }
}

std::string status_prefixed(int status, const std::string& text) {
  const std::string digits = std::to_string(std::clamp(status, 100, 599));
  return digits + text;
}

// In the child: runs work and writes its answer; never returns.
[[noreturn]] void child_main(int out_fd, const std::function<std::string()>& work, uint64_t address_limit,
                             uint64_t memory_bytes) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);  // a child never outlives the server
  const struct rlimit limit = {address_limit, address_limit};
  setrlimit(RLIMIT_AS, &limit);
  // The listening socket and the clients' connections stay with the server alone.
  if (out_fd > 3) close_range(3, static_cast<unsigned>(out_fd) - 1, 0);
  close_range(static_cast<unsigned>(out_fd) + 1, ~0U, 0);
  int code = 0;
  try {
    std::string answer = work();
    answer.insert(0, "200");
    write_all(out_fd, answer);
  } catch (const ApiError& e) {
    write_all(out_fd, status_prefixed(e.status(), e.what()));
  } catch (const core::Error& e) {
    write_all(out_fd, status_prefixed(400, std::string("Invalid request: ") + e.what()));
  } catch (const std::bad_alloc&) {
    write_all(out_fd,
              status_prefixed(500, "out of memory: the document needs more than the " +
                                       std::to_string(memory_bytes >> 20) + " MB a document may take"));
  } catch (const std::exception& e) {
    write_all(out_fd, status_prefixed(500, std::string("translation failed: ") + e.what()));
  } catch (...) {
    code = 1;
  }
  _exit(code);
}

// Kills and reaps the child unless it was reaped already, whatever ends the parent's wait.
class ChildGuard {
 public:
  explicit ChildGuard(pid_t pid) : pid_(pid) {}
  ~ChildGuard() {
    if (pid_ <= 0) return;
    kill(pid_, SIGKILL);
    reap();
  }
  ChildGuard(const ChildGuard&) = delete;
  ChildGuard& operator=(const ChildGuard&) = delete;

  // The child's wait status, once it has ended.
  int reap() {
    int status = 0;
    while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    pid_ = 0;
    return status;
  }

 private:
  pid_t pid_;
};

class PipeEnd {
 public:
  explicit PipeEnd(int fd) : fd_(fd) {}
  ~PipeEnd() {
    if (fd_ >= 0) close(fd_);
  }
  PipeEnd(const PipeEnd&) = delete;
  PipeEnd& operator=(const PipeEnd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

// Everything the child writes until it closes the pipe; false when `deadline` passes first.
bool read_until_closed(int fd, std::chrono::steady_clock::time_point deadline, std::string& out) {
  char buffer[65536];
  for (;;) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    struct pollfd p = {fd, POLLIN, 0};
    const int ready = poll(&p, 1, static_cast<int>(std::min<int64_t>(left.count(), 1000)));
    if (ready < 0 && errno != EINTR) throw std::runtime_error(std::string("poll: ") + std::strerror(errno));
    if (ready <= 0) continue;
    const ssize_t n = read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return true;
    out.append(buffer, static_cast<size_t>(n));
  }
}

std::string ended_abnormally(int status) {
  if (WIFSIGNALED(status))
    return "killed by signal " + std::to_string(WTERMSIG(status)) + " (" + strsignal(WTERMSIG(status)) + ")";
  return "exit status " + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

}  // namespace

std::string run_in_worker(const std::function<std::string()>& work,
                          std::chrono::steady_clock::time_point deadline, uint64_t memory_bytes) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  PipeEnd read_end(fds[0]);
  const uint64_t address_limit = address_space_bytes() + memory_bytes;
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    child_main(fds[1], work, address_limit, memory_bytes);
  }
  close(fds[1]);
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  ChildGuard child(pid);
  std::string answer;
  if (!read_until_closed(read_end.get(), deadline, answer)) {
    throw ApiError(503,
                   "the document was not translated within its time (--request-timeout); its work was "
                   "stopped");
  }
  const int status = child.reap();
  const bool clean = WIFEXITED(status) && WEXITSTATUS(status) == 0 && answer.size() >= kStatusDigits;
  if (!clean) {
    throw ApiError(500, "the document's translation ended abnormally (" + ended_abnormally(status) +
                            "); the server goes on");
  }
  const int code = std::stoi(answer.substr(0, kStatusDigits));
  answer.erase(0, kStatusDigits);
  if (code != 200) throw ApiError(code, answer);
  return answer;
}

}  // namespace serve
