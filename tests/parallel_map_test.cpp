// parallel_map: the answers in index order whatever thread computed them, each index once, and
// an exception rethrown from the first index that threw, as a loop would meet it.

#include <atomic>
#include <stdexcept>
#include <thread>

#include "canitrun/parallel_map.hpp"
#include "catch.hpp"

using canitrun::parallel_map;

TEST_CASE("parallel_map: every index once, the answers in index order") {
    std::atomic<int> calls{0};
    const auto out = parallel_map(1000, [&](std::size_t i) {
        ++calls;
        return i * i;
    });
    REQUIRE(out.size() == 1000);
    CHECK(calls == 1000);
    for (std::size_t i = 0; i < out.size(); ++i) CHECK(out[i] == i * i);
    CHECK(parallel_map(0, [](std::size_t i) { return i; }).empty());
}

TEST_CASE("parallel_map: the first index that threw is the one rethrown") {
    const auto f = [](std::size_t i) -> int {
        if (i == 700) throw std::runtime_error("seven hundred");
        if (i == 300) throw std::runtime_error("three hundred");
        return static_cast<int>(i);
    };
    CHECK_THROWS_WITH(parallel_map(1000, f), "three hundred");
}
