// The one Catch2 main for all unit, golden and end-to-end tests.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
