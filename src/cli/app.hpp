#pragma once
// The command line: parse argv, call the core, print. One entry point that returns the exit
// code, so the end-to-end tests and main() share it.
//
// Exit codes (README "Exit codes"):
//   0  answered (and, with --gpu, the model fits on those GPUs whole)
//   1  with --gpu: the model does not fit on the GPUs whole; fit: no model fits
//   2  bad input: unknown name, bad flag value, unreadable or malformed database
//   3  internal error (a bug): an exception no handler expected
//   4  the answer could not be written whole (a full disk, a closed stdout or pipe)

#include <cstddef>
#include <iosfwd>
#include <string_view>

namespace canitrun::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitDoesNotFit = 1;
inline constexpr int kExitBadInput = 2;
inline constexpr int kExitInternal = 3;
inline constexpr int kExitOutput = 4;

// `out_is_terminal`: whether `out` is a terminal, for colour and the chart (style.hpp);
// `terminal_columns`: its width (0: unknown; COLUMNS, else 80).
int run(int argc, const char* const* argv, std::ostream& out, std::ostream& err,
        bool out_is_terminal = false, std::size_t terminal_columns = 0);

// Writes the whole answer to `fd` (stdout) and returns `code`, or kExitOutput when a write
// fails or stops short: with one line on `err` naming why, except for a pipe whose reader has
// gone (EPIPE: `canitrun ... | head` is used that way), which stays quiet but is not exit 0.
int write_answer(int fd, std::string_view text, std::ostream& err, int code);

}  // namespace canitrun::cli
