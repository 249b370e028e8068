#include "cli/commands/signals.h"

#include <signal.h>
#include <unistd.h>

#include <cstring>

#include "cli/exit_codes.h"
#include "core/temp_files.h"

namespace cli {
namespace {

// Known before any signal: isatty() is not on the async-signal-safe list.
bool g_stderr_is_tty = false;

void write_stderr(const char* text) {
  std::size_t left = std::strlen(text);
  while (left > 0) {
    const ssize_t n = ::write(2, text, left);
    if (n <= 0) return;
    text += n;
    left -= static_cast<std::size_t>(n);
  }
}

extern "C" void on_termination_signal(int sig) {
  core::remove_registered_temp_files();
  const char* name = sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "SIGHUP";
  // "\r\x1b[K" erases a progress line first when stderr is a terminal.
  if (g_stderr_is_tty) write_stderr("\r\x1b[K");
  write_stderr("nmt: interrupted by ");
  write_stderr(name);
  write_stderr(": stopped, unfinished outputs removed\n");
  ::_exit(kExitSignalBase + sig);
}

}  // namespace

void install_termination_handlers() {
  g_stderr_is_tty = ::isatty(2) == 1;
  struct sigaction action {};
  action.sa_handler = on_termination_signal;
  sigemptyset(&action.sa_mask);
  // While one handler runs, the others wait: the cleanup and the exit status belong to the first signal.
  sigaddset(&action.sa_mask, SIGINT);
  sigaddset(&action.sa_mask, SIGTERM);
  sigaddset(&action.sa_mask, SIGHUP);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    // An inherited "ignore" stays: `nohup nmt ...`, or a background job of a script (SIGINT).
    struct sigaction previous {};
    if (::sigaction(sig, nullptr, &previous) == 0 && previous.sa_handler == SIG_IGN) continue;
    ::sigaction(sig, &action, nullptr);
  }
}

}  // namespace cli
