// A model directory that cannot be used: bad JSON, bad tensors, missing files (exit code 2).
#pragma once

#include "core/error.h"

namespace models {

class ModelError : public core::Error {
 public:
  using core::Error::Error;
};

}  // namespace models
