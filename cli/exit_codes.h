// Process exit codes (documented in README.md). Only main() turns errors into these.
#pragma once

namespace cli {

constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;     // I/O error, or some files failed in directory mode
constexpr int kExitModelError = 2;  // the model directory is unusable (bad JSON, tensors, tokenizer files)
constexpr int kExitIncomplete = 3;  // directory mode: input not covered (no file matched, a tree too deep)
constexpr int kExitDownload = 4;    // `nmt models install`: a download failed (HTTP, network, checksum)
constexpr int kExitUsage = 64;      // bad command line (sysexits EX_USAGE)
constexpr int kExitSignalBase =
    128;  // + the signal: 129 SIGHUP, 130 SIGINT, 143 SIGTERM (as a shell reports)
constexpr int kExitBrokenPipe = 141;  // our reader went away (128 + SIGPIPE, as a shell reports it)

}  // namespace cli
