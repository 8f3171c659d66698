#include "canitrun/context_search.hpp"

#include <bit>
#include <cmath>
#include <vector>

#include "canitrun/hardware_questions.hpp"

#include "catch.hpp"
#include "test_support.hpp"

using namespace canitrun;

namespace {

// A verdict over step counts and the room each probe reports, with the probes counted.
struct Counted {
    std::function<bool(std::uint64_t)> fits;
    std::function<std::optional<double>(std::uint64_t)> room;
    int probes = 0;

    StepProber prober() {
        return [this](std::uint64_t k) -> Result<StepProbe> {
            ++probes;
            return StepProbe{fits(k), room(k)};
        };
    }
};

// The answer the search must give: the plain bisection over [0, last + 1].
std::uint64_t bisected(std::uint64_t last, const std::function<bool(std::uint64_t)>& fits) {
    std::uint64_t lo = 0, hi = last + 1;
    while (hi - lo > 1) {
        const std::uint64_t mid = lo + (hi - lo) / 2;
        (fits(mid) ? lo : hi) = mid;
    }
    return lo;
}

// Llama 3.1 8B at Q4_K_M under the quick rule on an RTX 4060 (8,589,934,592 B), by hand:
// weights 8.03e9 x 4.873 / 8 = 4,891,273,750 B; KV 2 x 32 layers x 8 KV heads x 128 x 2 B =
// 131,072 B per token. X = 4,891,273,750 + 131,072 c fits while X + floor(0.12 X) <=
// 8,589,934,592, i.e. X <= 7,669,584,458 (X + 1 gives 8,589,934,594), c <= 2,778,310,708 /
// 131,072 = 21,196.8: the largest multiple of 256 is 20,992, 82 steps of the 512 of its
// 131,072-token window.
constexpr Bytes kCapacity = 8'589'934'592;
constexpr Bytes kWeights = 4'891'273'750;
constexpr Bytes kKvPerStep = 131'072ULL * 256;

Bytes quick_total(std::uint64_t steps) {
    const Bytes x = kWeights + kKvPerStep * steps;
    return x + x * 12 / 100;
}

}  // namespace

TEST_CASE("longest context of llama-3.1-8b at Q4_K_M on an RTX 4060, by hand") {
    const auto c = max_native_context(test::model("llama-3.1-8b"), test::quant("Q4_K_M"),
                                      test::hardware_of({"rtx-4060"}), quick_settings());
    REQUIRE(c);
    REQUIRE(c->has_value());
    CHECK(**c == 20992);
}

// The same boundary as a probe that reports its room: from a guess 40 % low (50 steps, as the
// quick estimate sits on MoE models), the guess and its neighbour give the line, the line's
// step (82) fits and its neighbour (83) does not: four probes, where halving [50, 513] takes
// nine more after those two.
TEST_CASE("the aimed search settles a linear room in four probes") {
    Counted c;
    c.fits = [](std::uint64_t k) { return quick_total(k) <= kCapacity; };
    c.room = [](std::uint64_t k) -> std::optional<double> {
        return static_cast<double>(kCapacity) - static_cast<double>(quick_total(k));
    };
    const auto steps = longest_fitting_steps(512, 50, c.prober());
    REQUIRE(steps);
    CHECK(*steps == 82);
    CHECK(c.probes == 4);
    // Guessed high (120 steps): 120 and 119 do not fit, then 82 and 83.
    Counted high = c;
    high.probes = 0;
    CHECK(longest_fitting_steps(512, 120, high.prober()).value() == 82);
    CHECK(high.probes == 4);
}

// Whatever the rooms say (a line, a bend as a sliding window's cache stops growing, a
// staircase as an uneven split moves a layer, rooms that contradict the verdicts, none at
// all), the answer is the bisection's, and the probes are at most the aimed ones (12) and a
// bisection's.
TEST_CASE("the aimed search gives the bisection's answer whatever the rooms") {
    struct Shape {
        const char* name;
        std::function<double(std::uint64_t, std::uint64_t)> room;  // (steps, boundary)
    };
    const std::vector<Shape> shapes = {
        {"line",
         [](std::uint64_t k, std::uint64_t b) { return 1e6 * (double(b) + 0.5 - double(k)); }},
        {"bend",
         [](std::uint64_t k, std::uint64_t b) {
             const double x = double(k) - double(b) - 0.5;
             return x < 0 ? -x * 5e6 : -x * 1e4;
         }},
        {"square",
         [](std::uint64_t k, std::uint64_t b) {
             const double x = double(b) + 0.5, y = double(k);
             return x * x - y * y;
         }},
        {"stairs",
         [](std::uint64_t k, std::uint64_t b) {
             return 3e8 * std::floor((double(b) - double(k)) / 7.0) + 1e6 * double(b % 7) + 1.0;
         }},
        {"contradicting", [](std::uint64_t, std::uint64_t) { return 1e9; }},
    };
    const std::vector<std::uint64_t> lasts = {1, 2, 3, 64, 512, 4000};
    for (const std::uint64_t last : lasts) {
        for (std::uint64_t boundary :
             {std::uint64_t{0}, std::uint64_t{1}, last / 3, last - 1, last}) {
            const auto fits = [boundary](std::uint64_t k) { return k <= boundary; };
            const std::uint64_t want = bisected(last, fits);
            REQUIRE(want == boundary);
            for (const auto& shape : shapes) {
                for (const bool with_room : {true, false}) {
                    for (std::uint64_t first :
                         {std::uint64_t{0}, std::uint64_t{1}, boundary / 2 + 1, boundary,
                          boundary + 1, last, last + 1}) {
                        INFO(shape.name << " last " << last << " boundary " << boundary << " first "
                                        << first << " room " << with_room);
                        Counted c;
                        c.fits = fits;
                        c.room = [&](std::uint64_t k) -> std::optional<double> {
                            if (!with_room) return std::nullopt;
                            return shape.room(k, boundary);
                        };
                        CHECK(longest_fitting_steps(last, first, c.prober()).value() == want);
                        CHECK(static_cast<std::uint64_t>(c.probes) <=
                              12 + std::bit_width(last + 1));
                    }
                }
            }
        }
    }
}

TEST_CASE("the aimed search passes a probe's error on") {
    const StepProber failing = [](std::uint64_t) -> Result<StepProbe> {
        return fail(ErrorKind::bad_input, "no plan", "");
    };
    CHECK_FALSE(longest_fitting_steps(512, 50, failing));
}
