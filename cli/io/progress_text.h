// What a progress line says: the counts, in units that fit, with rate and ETA. Formatting only, no I/O.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace cli {

struct ProgressState {
  std::uint64_t total_files = 0;  // directory mode: the files to go through; 0 for one stream
  std::uint64_t file_number = 0;  // ... the file being translated, counting from 1
  std::string file_name;          // ... its path under --input-dir, printable
  std::uint64_t total_bytes = 0;  // input size; 0 when unknown (a pipe): no %, no ETA
  std::uint64_t bytes = 0;        // input done (within a read window: estimated from tokens translated)
  std::uint64_t sentences = 0;    // sentences translated
  std::uint64_t lines = 0;        // lines written (the final line says them)
  double seconds = 0;             // since the start
  bool finished = false;          // the final line: totals and elapsed time instead of an ETA
};

// "512/900 B", "0.3/1.2 kB", "1.2/4.0 MB", "3.1/12.0 GB": both in the unit that fits `total` (decimal
// prefixes, like file managers); total 0: "12.3 kB", `done` alone.
std::string format_bytes(std::uint64_t done, std::uint64_t total);

// "4.2s" under 10 s, "45s", "1m07s", "6h00m".
std::string format_duration(double seconds);

// The percentage of the input done, 0..100 (floor); -1 when the total is unknown.
int progress_percent(const ProgressState& state);

// One line without "\r", escapes or newline, e.g.
//   "1.2/4.0 MB (30%)  1234 sentences  56.7 sentences/s  ETA 1m23s"
//   "[file 3/10] a/b.txt  1.2/4.0 MB (30%)  1234 sentences  56.7 sentences/s  ETA 1m23s"
//   "4.0/4.0 MB (100%)  1200 lines  1500 sentences  3.8 sentences/s  in 6m40s" (finished)
// With max_columns > 0 the line fits that many columns: the rate goes first, then the file name's start
// ("...b.txt"), then the line's end.
std::string progress_text(const ProgressState& state, std::size_t max_columns = 0);

}  // namespace cli
