#pragma once
// The refusal of a flag given to a command that does not read it (issue "Hardening"): which
// command reads which flag is the flag table's (flag_table.hpp); here are the checks of one run,
// and the few flags whose use depends on other values.

#include <CLI/CLI.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "app_options.hpp"
#include "canitrun/error.hpp"
#include "command_kind.hpp"
#include "flag_table.hpp"

namespace canitrun::cli {

// The flag table's command of a parse: the subcommand's, or the model page without one.
Cmd parsed_command(const CLI::App* sub);

struct Request;

// Throws Failure for a flag given to a command that does not read it, by the flag table alone
// (before any value is read).
void check_flags_apply(const CLI::App& app, const CLI::App* sub);

// The same for the flags whose use depends on other values (kValueDependent: --offline with a
// remote model, --link with several hosts, ...), on the resolved command line.
void check_flags_read(const CLI::App& app, const CLI::App* sub, const Request& r);

// A flag of the table that CLI11 found no place for (an ExtrasError): given after a command
// that does not read it, or before a command that reads it only after its word. Nullopt for
// anything else (an unknown flag, a stray operand), which CLI11's message names.
std::optional<Error> misplaced_flag(std::span<const std::string> extras, Cmd where,
                                    bool before_command);

// The flags refused by value rather than by command (--link without two hosts, ...): each is a
// row of the table (flag_table_test.cpp).
std::span<const std::string_view> value_dependent_flags();

}  // namespace canitrun::cli
