#include "canitrun/speed_check.hpp"

#include <charconv>

#include "canitrun/plan_settings.hpp"

namespace canitrun {
namespace {

// "512" at the front of `s` (after spaces); advances `s` past it.
bool take_number(std::string_view& s, std::uint64_t& out) {
    while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
    const auto r = std::from_chars(s.data(), s.data() + s.size(), out);
    if (r.ec != std::errc() || r.ptr == s.data()) return false;
    s.remove_prefix(static_cast<std::size_t>(r.ptr - s.data()));
    return true;
}

bool take(std::string_view& s, std::string_view word) {
    while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
    if (!s.starts_with(word)) return false;
    s.remove_prefix(word.size());
    return true;
}

}  // namespace

Result<BenchTest> parse_bench_test(std::string_view text) {
    BenchTest t;
    std::string_view s = text;
    const auto bad = [&] {
        return fail(ErrorKind::bad_input,
                    "not a llama-bench test name: '" + std::string(text.substr(0, 40)) + "'",
                    "llama-bench names its tests pp512, tg128, pp512+tg128 or pp512 @ d4096");
    };
    bool any = false;
    while (true) {
        std::uint64_t n = 0;
        if (take(s, "pp")) {
            if (!take_number(s, n) || t.n_prompt != 0) return bad();
            t.n_prompt = n;
        } else if (take(s, "tg")) {
            if (!take_number(s, n) || t.n_gen != 0) return bad();
            t.n_gen = n;
        } else {
            return bad();
        }
        any = true;
        if (!take(s, "+")) break;
    }
    if (take(s, "@")) {
        if (!take(s, "d") || !take_number(s, t.depth)) return bad();
    }
    while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
    if (!any || !s.empty() || t.n_prompt + t.n_gen == 0 || t.n_prompt > (1ULL << 24) ||
        t.n_gen > (1ULL << 24) || t.depth > (1ULL << 26)) {
        return bad();
    }
    return t;
}

Result<BenchPrediction> predict_bench(const BenchRun& run, const SpeedModel& m) {
    if (run.model == nullptr || run.quant == nullptr) {
        return fail(ErrorKind::bad_input, "a llama-bench run needs a model and a quantization");
    }
    BenchPrediction out;
    out.hardware.gpus = devices_for(run.gpus);
    out.hardware.ram = ~Bytes{0} >> 2;  // llama-bench -ngl 99: nothing is offloaded
    const BenchTest& t = run.test;
    PlanSettings asked;
    asked.ubatch = run.ubatch;
    asked.estimate.context = std::max<std::uint64_t>(t.depth + t.n_prompt + t.n_gen, 1);
    const PlanSettings settings = settings_for_model(*run.model, asked);
    auto parts = plan_parts(*run.model, *run.quant, settings);
    if (!parts) return std::unexpected(parts.error());
    PlacementOptions all;  // every layer and the output head on the GPUs, no margin
    auto placed = place(*parts, out.hardware, all);
    if (!placed) return std::unexpected(placed.error());
    const std::uint64_t context = settings.estimate.context;
    out.decode =
        speed_work(*run.model, *run.quant, *placed, context, {t.depth + t.n_prompt, t.n_gen});
    out.prefill = speed_work(*run.model, *run.quant, *placed, context, {t.depth, t.n_prompt});
    double seconds = 0;
    if (t.n_prompt > 0) {
        const auto per_token = prefill_seconds(out.prefill, out.hardware, m, run.ubatch);
        if (!per_token) {
            return fail(ErrorKind::bad_input,
                        "no throughput figure for this device: no prefill rate");
        }
        seconds += *per_token * static_cast<double>(t.n_prompt);
    }
    if (t.n_gen > 0) {
        const double per_token = decode_seconds(out.decode, out.hardware, m);
        if (per_token <= 0)
            return fail(ErrorKind::bad_input, "no bandwidth figure for this device");
        seconds += per_token * static_cast<double>(t.n_gen);
    }
    out.tokens_per_s = static_cast<double>(t.n_prompt + t.n_gen) / seconds;
    return out;
}

}  // namespace canitrun
