// Hostile local inputs and outputs through the binary (issue #39): stdout that cannot take the
// answer (a full disk, a closed descriptor, a pipe whose reader is gone), names with terminal
// escapes, config.json with impossible numbers, and the empty flag values once accepted.

#include <filesystem>
#include <fstream>

#include "catch.hpp"
#include "refusal.hpp"
#include "run_binary.hpp"

using canitrun::test::has;
using canitrun::test::lines_of;
using canitrun::test::Outcome;
using canitrun::test::run_shell;
using canitrun::test::shell_quote;
namespace fs = std::filesystem;

namespace {

std::string binary() {
    return shell_quote(CANITRUN_BINARY);
}

}  // namespace

TEST_CASE("hostile output: a write to a full disk is exit 4 with one line") {
    const Outcome o = run_shell(binary() + " llama-3.1-8b > /dev/full");
    INFO(o.err);
    CHECK(o.code == 4);
    const auto lines = lines_of(o.err);
    REQUIRE(lines.size() == 1);
    CHECK(lines[0].rfind("canitrun: error: cannot write the answer to stdout: ", 0) == 0);
    CHECK(has(lines[0], "No space left on device"));
}

TEST_CASE("hostile output: a closed stdout is exit 4 with one line") {
    const Outcome o = run_shell(binary() + " llama-3.1-8b --json >&-");
    INFO(o.err);
    CHECK(o.code == 4);
    REQUIRE(lines_of(o.err).size() == 1);
    CHECK(has(o.err, "Bad file descriptor"));
}

TEST_CASE("hostile output: a pipe whose reader has gone, SIGPIPE ignored, is not exit 0") {
    // The reader (true) is gone before canitrun starts; with SIGPIPE ignored the write fails
    // with EPIPE: quiet, as `| head` users expect, but exit 4. The code comes back on stdout.
    const Outcome o = run_shell("( ( trap '' PIPE; sleep 0.3; " + binary() +
                                " llama-3.1-8b; echo $? >&3 ) | true ) 3>&1");
    INFO(o.err);
    CHECK(o.out == "4\n");
    CHECK(o.err.empty());
}
