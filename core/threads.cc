#include "core/threads.h"

#include <cblas.h>

namespace core {

namespace {
int g_threads = 1;
}

void set_num_threads(int n) {
  g_threads = n < 1 ? 1 : n;
  openblas_set_num_threads(g_threads);
}

int num_threads() { return g_threads; }

}  // namespace core
