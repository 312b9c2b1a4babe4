// Catch2 v2 main for the kernels tests (its own file so the big header compiles once).
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
