// Element-wise and row-wise kernels on contiguous float rows. No allocation.
#pragma once

#include <cstddef>

namespace core {

enum class Activation { kRelu, kGelu, kSwish };

// In place: x[i] = act(x[i]) for n values.
void activate(float* x, size_t n, Activation act);

// y[r] = LayerNorm(x[r]) * gamma + beta for rows of width d. x and y may alias.
void layer_norm(const float* x, int rows, int d, const float* gamma, const float* beta, float eps, float* y);

// x += y, n values.
void add_in_place(float* x, const float* y, size_t n);

// In place softmax over one row of n values (max-subtracted; -inf entries become 0).
void softmax(float* x, int n);

// In place log_softmax over one row of n values.
void log_softmax(float* x, int n);

}  // namespace core
