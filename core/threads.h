// One thread setting drives both BLAS and our own loops; parallel regions never nest.
#pragma once

namespace core {

// Sets the number of threads used by BLAS (and by our own parallel loops). n >= 1.
void set_num_threads(int n);
int num_threads();

}  // namespace core
