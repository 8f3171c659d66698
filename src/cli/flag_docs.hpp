#pragma once
// What is made from the flag table (flag_table.hpp), as ripgrep's `rg --generate` makes it:
// the man page's OPTIONS section and the bash, zsh and fish completion scripts. The files in
// docs/ and completions/ are these texts (tools/flags/regenerate.sh writes them; the flag_docs
// test fails when they differ).

#include <string>
#include <string_view>
#include <vector>

#include "canitrun/error.hpp"
#include "flag_table.hpp"

namespace canitrun::cli {

// `canitrun --generate KIND`: man, complete-bash, complete-zsh or complete-fish.
Result<std::string> generated(std::string_view kind);

std::string man_options();
std::string bash_completion();
std::string zsh_completion();
std::string fish_completion();

// A row's help without its parentheses, up to its first ";": the completions' description.
std::string flag_summary(const FlagRow& row);
// The rows a command reads, --help included, in the table's order.
std::vector<const FlagRow*> rows_of(Cmd c);
// The note at the top of a generated script ("bash", "zsh", "fish").
std::string generated_note(const std::string& shell);

// The subcommands' words, space separated, in --help's order.
std::string subcommand_words();

}  // namespace canitrun::cli
