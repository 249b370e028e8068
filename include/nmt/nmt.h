// The whole library: #include <nmt/nmt.h>, link nmt::nmt (CMake) or `pkg-config --libs nmt`.
#pragma once

#include "nmt/error.h"
#include "nmt/options.h"
#include "nmt/results.h"
#include "nmt/translator.h"
