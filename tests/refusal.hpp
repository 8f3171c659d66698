#pragma once
// The bad-input contract, checked on one run of the binary: exit 2, nothing on stdout, and one
// stderr line `canitrun: error: ...` that contains `message` (the problem and its fix together).

#include <string>
#include <vector>

#include "catch.hpp"
#include "run_binary.hpp"

namespace canitrun::test {

inline void check_refusal(const Outcome& o, const std::vector<std::string>& args,
                          const std::string& message) {
    std::string joined;
    for (const auto& a : args) joined += "[" + a + "] ";
    INFO("args: " << joined << "\nstderr: " << o.err);
    CHECK(o.code == 2);
    CHECK(o.out.empty());
    const auto lines = lines_of(o.err);
    REQUIRE(lines.size() == 1);
    CHECK(lines[0].rfind("canitrun: error: ", 0) == 0);
    CHECK(has(lines[0], message));
}

}  // namespace canitrun::test
