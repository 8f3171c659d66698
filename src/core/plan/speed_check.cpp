#include "canitrun/speed_check.hpp"

#include <algorithm>
#include <charconv>
#include <string>

#include "canitrun/plan_settings.hpp"

namespace canitrun {
namespace {

void skip_spaces(std::string_view& s) {
    while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
}

// Digits at the very front of `s` (no sign, no space); advances `s` past them.
bool take_number(std::string_view& s, std::uint64_t& out) {
    const auto r = std::from_chars(s.data(), s.data() + s.size(), out);
    if (r.ec != std::errc() || r.ptr == s.data()) return false;
    s.remove_prefix(static_cast<std::size_t>(r.ptr - s.data()));
    return true;
}

// `word` at the front of `s` after any spaces; advances `s` past it.
bool take(std::string_view& s, std::string_view word) {
    skip_spaces(s);
    if (!s.starts_with(word)) return false;
    s.remove_prefix(word.size());
    return true;
}

// "pp512" at the front of `s` when `kind` is "pp": a count above 0, with at most one space
// before it (builds before mid 2024 printed "pp 512"). `s` and `n` are left as they were when
// it does not read.
bool take_part(std::string_view& s, std::string_view kind, std::uint64_t& n) {
    std::string_view rest = s;
    std::uint64_t count = 0;
    if (!rest.starts_with(kind)) return false;
    rest.remove_prefix(kind.size());
    if (rest.starts_with(' ')) rest.remove_prefix(1);
    if (!take_number(rest, count) || count == 0) return false;
    s = rest;
    n = count;
    return true;
}

// The weights at the file's own size: a published file can hold more than its label's type
// (Unsloth's UD-Q8_K_XL prints as Q8_0 with about a quarter more bytes), and the run read
// them all. Every weight term of every device scales by the same factor. A GPU holding a tied
// head holds a copy of token_embd that the file does not (tied_head_weights): the file's bytes
// are what is planned without it.
void weights_at_file_size(Placement& placed, const ModelParts& parts, double file_bytes) {
    auto planned = static_cast<double>(placed.ram.weights);
    const Bytes copy = parts.buffers ? parts.buffers->output_duplicate : 0;
    for (const Share& g : placed.gpus)
        planned += static_cast<double>(g.weights) - (g.output ? static_cast<double>(copy) : 0);
    if (file_bytes <= 0 || planned <= 0) return;
    const double f = file_bytes / planned;
    const auto scale = [f](Bytes& b) { b = static_cast<Bytes>(static_cast<double>(b) * f); };
    const auto scale_share = [&](Share& s) {
        scale(s.weights);
        scale(s.active_weights);
        scale(s.active_experts);
        scale(s.embedding);
    };
    for (Share& g : placed.gpus) scale_share(g);
    scale_share(placed.ram);
}

}  // namespace

Result<BenchTest> bench_test(std::uint64_t n_prompt, std::uint64_t n_gen, std::uint64_t depth) {
    if ((n_prompt == 0 && n_gen == 0) || n_prompt > kMaxBenchTestTokens ||
        n_gen > kMaxBenchTestTokens || depth > kMaxBenchTestDepth) {
        return fail(ErrorKind::bad_input,
                    "not a llama-bench test canitrun predicts: " + std::to_string(n_prompt) +
                        " prompt and " + std::to_string(n_gen) + " generated tokens at depth " +
                        std::to_string(depth),
                    "a test has prompt or generated tokens, each at most " +
                        std::to_string(kMaxBenchTestTokens) + ", at a depth up to " +
                        std::to_string(kMaxBenchTestDepth));
    }
    return BenchTest{n_prompt, n_gen, depth};
}

// pp<n>, tg<n> or pp<n>+tg<n>, then "@ d<n>" at a depth; spaces around the '+' and '@' are
// passed over.
Result<BenchTest> parse_bench_test(std::string_view text) {
    BenchTest t;
    std::string_view s = text;
    skip_spaces(s);
    const bool prompt = take_part(s, "pp", t.n_prompt);
    bool ok = prompt || take_part(s, "tg", t.n_gen);
    if (ok && prompt && take(s, "+")) {
        skip_spaces(s);
        ok = take_part(s, "tg", t.n_gen);
    }
    if (ok && take(s, "@")) ok = take(s, "d") && take_number(s, t.depth);
    skip_spaces(s);
    if (!ok || !s.empty()) {
        return fail(ErrorKind::bad_input,
                    "not a llama-bench test name: '" + std::string(text.substr(0, 40)) + "'",
                    "llama-bench names its tests pp512, tg128, pp512+tg128 or pp512 @ d4096");
    }
    return bench_test(t.n_prompt, t.n_gen, t.depth);
}

bool bench_all_on_gpus(std::uint64_t ngl, const Model& model) {
    return ngl > model.arch.layers;
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
    CANITRUN_TRY_ASSIGN(auto parts, plan_parts(*run.model, *run.quant, settings));
    PlacementOptions all;  // every layer and the output head on the GPUs, no margin
    CANITRUN_TRY_ASSIGN(auto placed, place(parts, out.hardware, all));
    weights_at_file_size(placed, parts, run.file_bytes);
    const std::uint64_t context = settings.estimate.context;
    out.decode =
        speed_work(*run.model, *run.quant, placed, context, {t.depth + t.n_prompt, t.n_gen});
    out.prefill =
        speed_work(*run.model, *run.quant, placed, context, {t.depth, t.n_prompt, run.ubatch});
    out.prefill.older_build = run.older_build;
    out.decode.older_build = run.older_build;
    out.decode.graph_node_check = run.graph_node_check;
    out.decode.hip_no_graphs = run.hip_no_graphs;
    out.prefill.cublas_quantized = run.cublas_quantized;
    out.ubatch = std::max<std::uint64_t>(std::min(run.ubatch, t.n_prompt), 1);
    double seconds = 0;
    if (t.n_prompt > 0) {
        const auto per_token = prefill_seconds(out.prefill, out.hardware, m, out.ubatch);
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
