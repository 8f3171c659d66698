#pragma once
// The command line: parse argv, call the core, print. One entry point that returns the exit
// code, so the end-to-end tests and main() share it.
//
// Exit codes (README "Exit codes"):
//   0  answered (and, with --gpu, the model fits that GPU natively)
//   1  the model does not fit the GPU asked about (--gpu) natively
//   2  bad input: unknown name, bad flag value, unreadable or malformed database
//   3  internal error (a bug): an exception no handler expected

#include <iosfwd>

namespace canitrun::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitDoesNotFit = 1;
inline constexpr int kExitBadInput = 2;
inline constexpr int kExitInternal = 3;

int run(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

}  // namespace canitrun::cli
