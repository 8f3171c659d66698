#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "canitrun/checked.hpp"
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

TEST_CASE(
    "catch_overflow passes a value or an error through, and turns an overflow into its error") {
    int built = 0;  // the overflow's error is built only when there is one
    const auto on_overflow = [&] {
        ++built;
        return overflow_error("the sum", "add less");
    };
    const Result<std::uint64_t> sum =
        catch_overflow([] { return checked::add(2, 3); }, on_overflow);
    CHECK(sum == 5U);
    const auto odd = catch_overflow([] { return half(3); }, on_overflow);
    CHECK(odd.error().message == "3 is odd");
    CHECK(built == 0);
    const Result<std::uint64_t> big =
        catch_overflow([] { return checked::add(UINT64_MAX, 1); }, on_overflow);
    REQUIRE_FALSE(big);
    CHECK(built == 1);
    CHECK(big.error().kind == ErrorKind::overflow);
    CHECK(big.error().message == "the sum does not fit in 64-bit byte counts");
    CHECK(big.error().hint == "add less");
}

TEST_CASE("overflow_or gives the fallback only on an overflow") {
    CHECK(overflow_or([] { return checked::mul(1ULL << 32, 1ULL << 31); }, std::uint64_t{7}) ==
          1ULL << 63);
    CHECK(overflow_or([] { return checked::mul(1ULL << 32, 1ULL << 32); }, std::uint64_t{7}) == 7);
}

TEST_CASE("OverflowError is caught in checked.hpp alone") {
    // One conversion: a second try / catch of it would be a second rule for what an overflow
    // means. The pattern is split so that this file does not match it.
    const std::string pattern = std::string("catch (const ") + "OverflowError";
    std::vector<std::string> found;
    for (const char* dir : {"src", "include"}) {
        for (const auto& e : std::filesystem::recursive_directory_iterator(
                 std::filesystem::path(CANITRUN_SOURCE_DIR) / dir)) {
            if (!e.is_regular_file()) continue;
            std::ifstream in(e.path());
            const std::string text((std::istreambuf_iterator<char>(in)),
                                   std::istreambuf_iterator<char>());
            if (text.find(pattern) != std::string::npos) {
                found.push_back(e.path().filename().string());
            }
        }
    }
    CHECK(found == std::vector<std::string>{"checked.hpp"});
}
