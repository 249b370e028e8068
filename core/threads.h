// One thread setting drives our own loops (and BLAS, on CPUs without a packed kernel, where BLAS does the
// heavy products); parallel regions never nest: inside parallel_for every worker runs BLAS single-threaded.
#pragma once

#include <functional>

namespace core {

// Sets the number of threads used by parallel_for (and BLAS, see above). n >= 1.
void set_num_threads(int n);
int num_threads();

// Runs task(i) for i in [0, n_tasks) on up to num_threads() threads (the caller is one of them),
// handing out tasks in order. BLAS runs single-threaded meanwhile. The first exception thrown by a
// task is rethrown after all workers stop; remaining tasks are skipped.
void parallel_for(int n_tasks, const std::function<void(int)>& task);

}  // namespace core
