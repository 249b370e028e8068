// A subtitle cue's timing line, `00:00:01,000 --> 00:00:03,500` (SRT) or `00:01.000 --> 00:03.500
// align:start` (WebVTT): what marks a line as one, and the times it gives.
#pragma once

#include <string_view>

namespace documents {

// A line with "-->" between a digit before it and one after it. A line with "-->" and no times (a stray
// arrow in a cue's text) is none; WebVTT ends a cue's text at a timing line even without a blank line.
bool is_timing_line(std::string_view line);

// The cue's start and end in milliseconds, from `[hh:]mm:ss[.,]mmm --> [hh:]mm:ss[.,]mmm`; false (the
// times untouched) when either does not parse.
bool parse_timing(std::string_view line, long long* start_ms, long long* end_ms);

}  // namespace documents
