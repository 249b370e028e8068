// SIGINT, SIGTERM and SIGHUP end a run cleanly: our temp files removed, a one-line message, and the exit
// status a shell reports for that signal (130, 143, 129). SIGPIPE stays ignored (see ignore_sigpipe()).
#pragma once

namespace cli {

// Installs the handlers. The handler is async-signal-safe: it unlinks the temp files registered with
// register_temp_file(), writes "nmt: interrupted by SIGxxx: ..." to stderr and calls _exit().
// A write-through output (FIFO, device, stdout) keeps what was written before the signal. A signal
// ignored when nmt starts (nohup, a script's background job) stays ignored.
void install_termination_handlers();

}  // namespace cli
