// What libnmt exports: the library is built with hidden visibility, and only what carries NMT_API is
// visible to programs that link it.
#pragma once

#if defined(__GNUC__) || defined(__clang__)
#define NMT_API __attribute__((visibility("default")))
#else
#define NMT_API
#endif
