#include "canitrun/context_search.hpp"

#include <algorithm>
#include <cmath>

namespace canitrun {
namespace {

// Probes that may be aimed (`first` and its neighbour among them) before the search only
// halves: a line that keeps missing costs these few probes more than a bisection, never more.
// 12 rather than 8: on several GPUs the room is the last GPU's, a staircase as units move
// between them, and a few more aimed probes still beat halving what is left (probes of `fit`
// over the database, 8 -> 12: 2x3090 --ram 64 593 -> 499, 2xH100 449 -> 432; one GPU the same).
constexpr int kMostAimed = 12;

// A probe's step count and its room; at a bracket's end, the room the aim counts (Illinois).
struct Point {
    std::uint64_t steps = 0;
    double room = 0;
};

// Where the line through two probes reaches room 0, as a step strictly inside (lo, hi): the
// most steps it says fit. Empty where the line does not fall as the steps grow.
std::optional<std::uint64_t> aim(Point a, Point b, std::uint64_t lo, std::uint64_t hi) {
    const double slope =
        (b.room - a.room) / (static_cast<double>(b.steps) - static_cast<double>(a.steps));
    if (!(slope < 0)) return std::nullopt;  // NaN too
    const double at = std::floor(static_cast<double>(b.steps) - b.room / slope);
    if (!std::isfinite(at)) return std::nullopt;
    return static_cast<std::uint64_t>(
        std::clamp(at, static_cast<double>(lo + 1), static_cast<double>(hi - 1)));
}

// The search's state: the bracket (fits(lo) holds, 0 by convention; fits(hi) does not, past
// `last` by convention), its ends' rooms where probed, and the last two probes' rooms.
struct Bracket {
    std::uint64_t lo = 0, hi = 0;
    std::optional<Point> lo_at, hi_at;
    std::optional<Point> before, latest;
    int moved = 0;  // which end the last probe moved: +1 lo, -1 hi, 0 none yet
    bool first_probed = false;

    // The next probe's aim; empty: halve.
    std::optional<std::uint64_t> next(int probes, std::uint64_t first) const {
        if (probes == 0) {
            if (first > lo && first < hi) return first;
            return std::nullopt;  // none, or past the bracket
        }
        // `first`'s neighbour on the side left open: a guess one step off settles in two probes.
        if (probes == 1 && first_probed) {
            return moved > 0 ? first + 1 : first - 1;
        }
        if (probes >= kMostAimed) return std::nullopt;
        if (lo_at && hi_at) {
            // Rooms that contradict the verdicts (a fit over capacity) aim nowhere sure.
            if (lo_at->room < 0 || hi_at->room >= 0) return std::nullopt;
            return aim(*lo_at, *hi_at, lo, hi);
        }
        if (before && latest) return aim(*before, *latest, lo, hi);
        return std::nullopt;
    }

    void take(std::uint64_t steps, const StepProbe& p) {
        std::optional<Point> at;
        if (p.room) at = Point{steps, *p.room};
        // Illinois: the same end moved twice in a row, the other end's room counts half.
        const int side = p.fits ? 1 : -1;
        std::optional<Point>& kept = p.fits ? hi_at : lo_at;
        if (moved == side && kept) kept->room /= 2;
        moved = side;
        (p.fits ? lo : hi) = steps;
        (p.fits ? lo_at : hi_at) = at;
        if (at) {
            before = latest;
            latest = at;
        }
    }
};

}  // namespace

Result<std::uint64_t> longest_fitting_steps(std::uint64_t last, std::uint64_t first,
                                            const StepProber& probe) {
    Bracket b;
    b.hi = last + 1;
    for (int probes = 0; b.hi - b.lo > 1; ++probes) {
        const auto aimed = b.next(probes, first);
        const std::uint64_t mid = aimed.value_or(b.lo + (b.hi - b.lo) / 2);
        if (probes == 0) b.first_probed = aimed.has_value();
        CANITRUN_TRY_ASSIGN(const StepProbe p, probe(mid));
        b.take(mid, p);
    }
    return b.lo;
}

}  // namespace canitrun
