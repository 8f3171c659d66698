#pragma once
// The command line: parse argv, call the core, print. One entry point that returns the exit
// code, so the end-to-end tests and main() share it.
//
// Exit codes (README "Exit codes"):
//   0  answered (and, with --gpu, the model fits on those GPUs whole)
//   1  with --gpu: the model does not fit on the GPUs whole; fit: no model fits
//   2  bad input: unknown name, bad flag value, unreadable or malformed database
//   3  internal error (a bug): an exception no handler expected

#include <cstddef>
#include <iosfwd>

namespace canitrun::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitDoesNotFit = 1;
inline constexpr int kExitBadInput = 2;
inline constexpr int kExitInternal = 3;

// `out_is_terminal`: whether `out` is a terminal, for colour and the chart (style.hpp);
// `terminal_columns`: its width (0: unknown; COLUMNS, else 80).
int run(int argc, const char* const* argv, std::ostream& out, std::ostream& err,
        bool out_is_terminal = false, std::size_t terminal_columns = 0);

}  // namespace canitrun::cli
