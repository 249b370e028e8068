// Descriptors 0, 1 and 2 made valid before anything else is opened: started with one closed
// (`nmt translate <&-`), the next file we open would take its number and be read as input or written as
// output (the weights translated as text).
#pragma once

namespace cli {

// Opens /dev/null onto each closed standard descriptor: stdin reads nothing, stderr discards, and
// stdout cannot be written, so output meant for it is an error (EBADF) rather than lost. False if
// that fails (nothing is safe to open).
bool open_missing_standard_fds();

}  // namespace cli
