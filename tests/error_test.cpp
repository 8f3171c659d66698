#include <catch2/catch.hpp>

#include "canitrun/error.hpp"

using namespace canitrun;

namespace {

Result<int> half(int n) {
    if (n % 2 != 0)
        return fail(ErrorKind::bad_input, std::to_string(n) + " is odd", "give it even");
    return n / 2;
}

// A chain of steps through the macros: each failure returns its own error unchanged.
Result<int> quarter(int n) {
    CANITRUN_TRY_ASSIGN(const int h, half(n));
    CANITRUN_TRY_ASSIGN(const int q, half(h));
    return q;
}

Result<bool> all_even(const std::vector<int>& ns, std::vector<int>& halves) {
    for (const int n : ns) {
        halves.push_back(0);
        CANITRUN_TRY_ASSIGN(halves.back(), half(n));
    }
    CANITRUN_TRY(half(static_cast<int>(ns.size())));
    return true;
}

}  // namespace

TEST_CASE("CANITRUN_TRY_ASSIGN declares the value, or returns the first error unchanged") {
    CHECK(quarter(12) == 3);
    const auto odd = quarter(6);  // 6 / 2 = 3, and 3 is odd: the second step fails
    REQUIRE_FALSE(odd);
    CHECK(odd.error().message == "3 is odd");
    CHECK(odd.error().hint == "give it even");
    CHECK(quarter(5).error().message == "5 is odd");
}

TEST_CASE("CANITRUN_TRY_ASSIGN assigns to an lvalue, and CANITRUN_TRY drops the value") {
    std::vector<int> halves;
    CHECK(all_even({2, 8}, halves) == true);
    CHECK(halves == std::vector<int>{1, 4});
    halves.clear();
    const auto bad = all_even({2, 7, 4}, halves);  // stops at 7: 4 is never read
    REQUIRE_FALSE(bad);
    CHECK(bad.error().message == "7 is odd");
    CHECK(halves == std::vector<int>{1, 0});
    halves.clear();
    CHECK(all_even({2}, halves).error().message == "1 is odd");  // the count, 1, is odd
}
