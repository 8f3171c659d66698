"""The script tests' side of support/sampling.hpp. In the sanitized builds, where ASan and UBSan
make every run of the binary about ten times slower, tests/CMakeLists.txt sets
CANITRUN_TEST_STRIDE and a script test that asks the binary one question per case checks every
STRIDE-th case (the first included): the sanitizers still see each path on a spread of cases,
and the plain build, which the README's test command runs, checks them all."""
import os

STRIDE = max(1, int(os.environ.get("CANITRUN_TEST_STRIDE", "1")))


def sampled(items):
    """Every STRIDE-th item, the first included; all of them in a plain build."""
    return list(items)[::STRIDE]


def sampled_count(n):
    """How many of n cases run."""
    return (n + STRIDE - 1) // STRIDE
