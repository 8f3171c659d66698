// The speed model against the published measurements it was fitted on, llama-bench's test names,
// and which measurements count as "measured" beside an estimate.
#include "canitrun/speed_check.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "canitrun/measurements.hpp"
#include "catch.hpp"
#include "test_support.hpp"

using namespace canitrun;

TEST_CASE("llama-bench test names") {
    auto pp = parse_bench_test("pp512");
    REQUIRE(pp);
    CHECK(pp->n_prompt == 512);
    CHECK(pp->n_gen == 0);
    auto old = parse_bench_test("pp 512");
    REQUIRE(old);
    CHECK(old->n_prompt == 512);
    auto deep = parse_bench_test("tg32 @ d32768");
    REQUIRE(deep);
    CHECK(deep->n_gen == 32);
    CHECK(deep->depth == 32768);
    auto both = parse_bench_test("pp512+tg128");
    REQUIRE(both);
    CHECK(both->n_prompt == 512);
    CHECK(both->n_gen == 128);
    for (const char* bad : {"", "pp", "tg-1", "pp512 @ 4096", "xx512", "pp512 tg128", "pp0",
                            "pp99999999999999999999"}) {
        INFO(bad);
        CHECK_FALSE(parse_bench_test(bad));
    }
}

TEST_CASE("llama-bench tests from token counts, within the speed model's limits") {
    auto deep = bench_test(512, 128, 4096);
    REQUIRE(deep);
    CHECK(deep->n_prompt == 512);
    CHECK(deep->n_gen == 128);
    CHECK(deep->depth == 4096);
    CHECK(bench_test(16777216, 16777216, 67108864));  // 2^24, 2^24, 2^26: the most
    const std::array<std::array<std::uint64_t, 3>, 6> outside{{{0, 0, 0},
                                                               {0, 0, 4096},
                                                               {16777217, 0, 0},
                                                               {0, 16777217, 0},
                                                               {512, 0, 67108865},
                                                               {~std::uint64_t{0}, 1, 0}}};
    for (const auto& [pp, tg, depth] : outside) {
        CAPTURE(pp, tg, depth);
        CHECK_FALSE(bench_test(pp, tg, depth));
    }
    // A name reads as its counts do.
    auto named = parse_bench_test("pp512+tg128 @ d4096");
    REQUIRE(named);
    CHECK(named->n_prompt == 512);
    CHECK(named->n_gen == 128);
    CHECK(named->depth == 4096);
}

namespace {

struct Errors {
    std::vector<double> decode, prefill;  // |predicted / measured - 1|
    std::vector<double> prefill_ratio;    // predicted / measured
};

// |predicted / measured - 1| for every measurement the fit uses (fit_exclusion says which).
Errors fitted_errors() {
    Errors e;
    for (const Measurement& m : embedded_measurements()) {
        auto run = bench_run_for(test::database(), m);
        if (!run) continue;
        auto p = predict_bench(*run);
        if (!p || !fit_exclusion(m, *run->model, p->hardware).empty()) continue;
        const double err = std::fabs(p->tokens_per_s / m.tokens_per_second - 1);
        if (run->test.n_gen == 0) {
            e.prefill.push_back(err);
            e.prefill_ratio.push_back(p->tokens_per_s / m.tokens_per_second);
        }
        if (run->test.n_prompt == 0) e.decode.push_back(err);
    }
    return e;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[(v.size() - 1) / 2];
}

}  // namespace

// The first speed issue's targets in sample: median |error| at most 10 % for decode and 25 % for
// prefill, and 90 % of prefill points within 2x (docs/SPEED.md has the figures, and the ones
// leaving a source out).
TEST_CASE("the fitted speed model meets its error targets on the published measurements") {
    const Errors e = fitted_errors();
    REQUIRE(e.decode.size() > 100);
    REQUIRE(e.prefill.size() > 100);
    CHECK(median(e.decode) <= 0.10);
    CHECK(median(e.prefill) <= 0.25);
    const auto within_2x = std::count_if(e.prefill_ratio.begin(), e.prefill_ratio.end(),
                                         [](double r) { return r >= 0.5 && r <= 2.0; });
    CHECK(static_cast<double>(within_2x) / static_cast<double>(e.prefill_ratio.size()) >= 0.90);
}

// The MI50 rows of validation/llama-bench.json: gpt-oss-120b is exact (model_id), Meta-Llama-3
// rows are relatives (nearest_model_id) and never shown as "measured" for Llama 3.1.
TEST_CASE("measured figures are exact model, quantization and GPU matches") {
    const auto& all = embedded_measurements();
    const Gpu* strix = &test::gpu("ryzen-ai-max-395-128gb");
    const auto exact = measurements_for(all, "gpt-oss-120b", "MXFP4", {strix});
    REQUIRE_FALSE(exact.empty());
    for (const Measurement* m : exact) {
        CHECK(m->exact_model);
        CHECK(m->gpu_id == "ryzen-ai-max-395-128gb");
        CHECK(m->n_gpus == 1);
    }
    const Gpu* rtx3090 = &test::gpu("rtx-3090");
    CHECK(measurements_for(all, "llama-3.1-8b", "Q4_K_M", {rtx3090}).empty());
    // The index by model gives the same rows in the same order.
    CHECK(embedded_measurements_for("gpt-oss-120b", "MXFP4", {strix}) == exact);
    CHECK(embedded_measurements_for("no-such-model", "MXFP4", {strix}).empty());
    CHECK(measurements_for(all, "gpt-oss-120b", "MXFP4", {strix, strix}).empty());
}

// A class's band is its own or none: at 9 left-out runs in a regime "no measured band", at 10
// the class's figure; another class's runs never stand in (docs/SPEED.md).
TEST_CASE("speed bands: none below ten left-out runs of the class and regime") {
    SpeedModel m;
    SpeedClassCoefficients& apple = m.classes[static_cast<int>(SpeedClass::apple)];
    apple.decode_band = 0.25;
    apple.prefill_band = 1.5;
    apple.decode_rows = 9;
    apple.prefill_rows = 10;
    m.classes[static_cast<int>(SpeedClass::nvidia)].decode_rows = 300;
    CHECK_FALSE(speed_band(m, SpeedClass::apple, false).has_value());
    REQUIRE(speed_band(m, SpeedClass::apple, true).has_value());
    CHECK(*speed_band(m, SpeedClass::apple, true) == 1.5);
    apple.decode_rows = 10;
    REQUIRE(speed_band(m, SpeedClass::apple, false).has_value());
    CHECK(*speed_band(m, SpeedClass::apple, false) == 0.25);
}

// Every band the fit prints, judged on runs of sources it never saw (each source's runs against
// the band the other sources' left-out runs give, predicted without the source): the issue asks
// 75-85 % for each kind of band, and docs/SPEED.md has the figures per class. A band is the
// 80th percentile of the class's left-out runs, each run weighing one (tools/speed/
// speed_report.cpp band_quantile), as this tally counts them. With each source weighing one
// instead, a source of one or two runs (bug reports, mostly) weighed as much as one of 20 and
// set its class's band at its own runs' error: Intel's decode band (within 2.2x) was a run of
// llama.cpp#24005's, its prefill band (within 3.9x) the one run of #20893's, the datacenter
// class's prefill band (within 5.6x over 25 runs) llm-tracker's 8x H100 deepseek-v3; those
// bands held 89 % (67 of 75) and the "+/- N %" ones 81 % of 492. Counted by runs, every class a
// left-out source can judge prints "+/- N %" (the V100's "within 2.2x" prefill comes from one
// source), and those bands hold 78.1 % of 567 runs (Intel's prefill 47 %, 18 of 38: with
// kyuz0's B70 runs left out its band is the other sources' +/- 18 %; docs/SPEED.md).
TEST_CASE("speed bands: how they held on sources they did not see") {
    const SpeedModel& m = fitted_speed_model();
    REQUIRE(m.narrow_bands.runs >= 500);
    CHECK(m.narrow_bands.share >= 0.75);
    CHECK(m.narrow_bands.share <= 0.85);
    // No judged class prints "within N×" today; one that does must hold 75-85 % too.
    if (m.wide_bands.runs > 0) {
        CHECK(m.wide_bands.share >= 0.75);
        CHECK(m.wide_bands.share <= 0.85);
    }
    // Leaving one source out (docs/SPEED.md): #34 took prefill's p90 from 119 % to 103 % (MLA's
    // absorbed attention), then to 97 % and its median from 26 % to 25 % (lhl's DGX Spark
    // prompts read at their sweep's -ub 2048), then to 96.9 % and 24.5 % (the Arc Pro B50 on a
    // Raspberry Pi 500+ host flagged an outlier, as the Pi 5's RX 7900 XT was), then to 94.8 %
    // (the FP16 GEMM's and flash attention's multipliers held at 1 or more: no kernel beats the
    // FP16 peak; tools/speed/fit_speed.cpp), then to 77.8 % and the median to 23.8 % (an Intel
    // GPU's BF16 prompts at its FP32 shader rate: float_tflops), then to 66.1 % and 22.3 % (an
    // RDNA3.5 APU's ROCm prompts from before llama.cpp#17576 kept, not fitted: fit_exclusion),
    // then to 57.6 % and 21.8 % (a V100's prompts on coefficients of their own, pinned at the
    // other datacenter cards': nvidia_volta), then with 88 more rows and an RDNA3.5 APU's prompt
    // terms falling back on the discrete Radeons' (fit_speed.cpp parent_group) to 52.7 % and
    // 16.7 %.
    // Decode's median went from 12.3 % to 12.0 % (a group's unpacking cost u scaled by the
    // device's FP32 rate per byte: unpack_scale), its p90 stayed 45.8 %; then to 10.8 % and
    // 43.6 % (Gated DeltaNet runs before llama.cpp b8233's fused op not fitted: fit_exclusion),
    // then to 11.0 % and 42.2 % (an Arc Pro B70's MoE K-quant decodes on Vulkan before b9452's
    // MMVQ on Xe2 not fitted; the median up 0.2 points as shared terms moved, Intel's 23 % / 111 %
    // to 17 % / 54 %), then to 11.8 % and 38.4 % (decodes deep in a cache without flash
    // attention not fitted: fit_exclusion). That last step raised the median bound from 0.110 to
    // 0.118, on purpose: the 39 runs it keeps out measured a path canitrun never plans
    // (llama-bench's default fa off: the cache read once per query head, jiegec's glm-4.7-flash
    // 32768 deep at a seventh of the prediction), and without them the shared terms moved
    // (XiongjieDai's GeForce and workstation runs left out 9 % to 12-15 %). Then 90 more
    // published rows, the first MoE runs on one GeForce card (RTX 5090s: the fit read their
    // decode at 190 t/s where they measure 244-318), raised all four bounds on purpose: decode
    // to 12.9 % / 44.8 %, prefill to 19.5 % / 60.7 % (with a held at 1 or more; 14 % / 49 %
    // without). Unseen runs the model explains less well are what these figures are for; the
    // data stays, the model is what is left to mend (#34). Then decode's p90 went to 38.9 % and
    // its median to 13.1 %, the bounds 0.449 to 0.389 and 0.130 to 0.131, on purpose: a Metal
    // decode reads an all-MLA cache once per query head (speed_work.cpp latent_readers: an M2
    // Ultra's glm-4.7-flash 32768 deep from 2.64x to 0.71x its measure left out) and a group's
    // share of the bandwidth is pinned at the pooled one (fit_speed.cpp kBandwidthPinWeight:
    // AMD's median 26 % to 16 %, Intel's 19 % to 14 %). The median rose as both moved the M2
    // Ultra's a, on which, with XiongjieDai's 70 runs left out, the shared per-layer cost of
    // builds before 2025 partly rests (14 runs): those runs' median left out 10 % to 13 %
    // (docs/SPEED.md). Then prefill: a routed expert's FLOPs at their own multiplier (pe: the
    // RTX 5090's and V100's MoE prompts at 2048-8192 tokens a micro-batch had read 1.6-2.5x fast
    // left out), a V100's unmeasured parent coefficient pinned at the pooled value, and GCN's
    // non-Q4_0/Q4_1 products at half its dp4a rate (quantized_tflops): prefill 16.6 % / 56.4 %.
    // The bounds are those figures. Then 46 published M5 Max runs (defai-digital/ax-engine's
    // llama-bench baselines, a 43rd source; #34 asked for M5-generation rows) took decode to
    // 11.0 % / 38.7 % and prefill to 17.5 % / 57.2 %, raising the prefill bounds on purpose:
    // left out, their Gemma 4 E2B and E4B prompts read at 0.49-0.64x their measure (as the
    // V100's and P100's gemma-4-e4b pp512 do, 0.43-0.48x: not the M5's) and their prompts at
    // -ub 2048 at 1.10-1.44x (each run last in its model's sweep, after pp128 and pp512 with
    // 15 s between: throttling, likely, as an M5 Max does in ggml-org/llama.cpp#16634, not
    // confirmed), and with one Apple coefficient set for M1 to M5 the older Apple prompts moved
    // (the M2 Ultra's median left out 10 % to 14 %). The data stays; the model is what is left
    // to mend. Then three changes took prefill to 16.4 % / 50.9-51.7 % and decode to 11.1 % /
    // 38.7 %, the bounds with them: a Gemma E model's per-layer embedding table is a get_rows
    // lookup, not matrix work (speed_work.cpp, per_layer_embedding_width: the M5 Max's E2B and
    // E4B prompts from 0.49-0.64x to 0.78-1.03x left out), a floored parent multiplier counts as
    // measured only where a run spends 1 % of its time on it (fit_speed.cpp kFloorMeasuredShare:
    // the V100's MoE prompts 32768 deep from 1.9-2.35x to 1.5-1.8x), and bands by runs, not
    // sources (speed_report.cpp). Then three more took prefill to 15.9 % / 46.4 % and decode to
    // 11.0 % / 38.1 %: a stated decode cost per cached position on Xe2 GPUs (llama.cpp#26581: the
    // B70's decodes 16384 deep from a 47 % to an 18 % median left out), attention on a GeForce
    // card at 1 / 1.5 of its FP16-accumulate rate (KQ accumulates in FP32: jiegec's deep RTX 4090
    // prompts from 22 % to 17 %), and a prompt at the clock a card's board power sustains
    // (sustained_clock_share: the RTX 6000 Ada's prompts from 1.53-2.28x to 1.15-1.61x).
    // Then three took prefill to 14.3 % / 41.9 % and decode's p90 to 34.1 %, under #34's 15 %
    // and 35 %: a CUDA build before llama.cpp#8075 multiplies a quantized prompt as an FP16
    // GEMM after converting the weights (XiongjieDai's 2024 prompts from 15 % / 46 % to
    // 8 % / 35 %), a tied model's decode reads its output head whole (the DGX Spark's
    // gemma-3-4b from 1.40-1.57x to 1.05-1.06x), and a sliding layer's prompt attention runs
    // over its cache's masked cells off Metal. Decode's median rose from 11.0 % to 12.5 %, its
    // bound with it, on purpose: the tied head is what llama.cpp reads (in sample decode went
    // from 8 % / 32 % to 7 % / 26 %), and the shared per-layer cost the Spark's gemma rows had
    // held up fell, so small models on GeForce cards read fast left out (GeForce's median 11 %
    // to 15 %): the model is what is left to mend.
    // Then four took decode to 11.0 % / 31.6 % and prefill to 13.6 % / 36.1 %: a decoded token
    // on CUDA builds from llama.cpp#19165 to #21472 pays a per-layer check of its graph on the
    // CPU (#21472: "~500us per token"; GeForce's decode median 15 % to 12 %), llama.cpp's MMQ
    // re-reads a dense FFN's weights for every 128-token tile when they overflow L2 (the DGX
    // Spark's qwen2.5-coder-7b prompts from 1.31-2.37x to 1.05-1.28x), a V100 (from 64 tokens)
    // and a P100 multiply quantized experts one at a time (their 35B-A3B prompts from
    // 1.51-1.94x to 1.11-1.36x), and three of XiongjieDai's prompts that rise with length at
    // spreads of 2-14 % are kept, not fitted.
    // Then decode's median went to 10.4 % (p90 31.6 %): a ROCm decode built before
    // llama.cpp#22254 ("HIP: flip GGML_HIP_GRAPHS to on") launches every kernel from the host,
    // a per-layer cost fitted at 34 us (the PR's own runs: 12-42 us); AMD's median 16 % to 11 %.
    // Then four took decode to 9.8 % / 30.4 % (#34's 10 %) and prefill to 12.9 % / 35.6 %: the
    // graph check costs a MoE layer 1.44x a dense one (Pessimist228's nsys kernel counts:
    // GeForce's median 12 % to 9 %), an Intel GPU unpacks MXFP4 byte by byte on Mesa's MMVQ
    // path (Intel's median 16 % to 13 %, within 1.5x of the overall), lhl's rocWMMA-build deep
    // decodes are kept, not fitted (VEC flash attention reads the cache once per query head),
    // and a prompt's activations that overflow L2 go through memory (the DGX Spark's median
    // 15 % to 8 %; the datacenter class's 14 % to 23 %, its shared re-read r moving).
    // Then four took decode to 9.7 % / 30.4 % and prefill to 12.6 % / 33.7 %, every target met
    // (38 prompts past 35 %, 47 allowed): the host fills each micro-batch's KQ mask cell by
    // cell while the GPUs wait (llama.cpp#18631; jiegec's RTX 4090 Qwen 3.5 prompts 32768 deep
    // from 1.35-1.40x to 1.17-1.21x), an Intel GPU runs heads wider than 256 at a tenth of its
    // attention rate (llama.cpp#27638; the B70's Gemma 4 prompts from 6.7-7.1x to 0.95-0.97x),
    // a product run one expert at a time pays the host's sort of the batch by expert, and a
    // GCN GPU multiplies BF16 at its FP32 rate (the MI50's qwen3-14b BF16 5.5x to 3.0x).
    // Then Unsloth's plain-named Qwen 3.5 MoE Q4_K_M came to be typed as its UD-Q4_K_M mix
    // (data/publishers.json): the 32 runs of the 35B-A3B's file read heavier (24 of them of 20.70
    // GiB of tensors, 0.2 GiB over that mix's 20.49 and 1.0 over llama-quantize's 19.70; 8 of
    // 20.09), and the refit moved prefill's median 12.6 % to 12.9 %, decode's p90 30.35 % to
    // 30.07 %.
    CHECK(m.out_of_sample.prefill_p90 <= 0.342);
    CHECK(m.out_of_sample.prefill_median <= 0.130);
    CHECK(m.out_of_sample.decode_median <= 0.098);
    CHECK(m.out_of_sample.decode_p90 <= 0.305);
}

// A published run reads its file at the size llama-bench printed, not its label's: Unsloth's
// Qwen3.5-9B-UD-Q8_K_XL prints as "qwen35 9B Q8_0" at 11.58 bits per weight where Q8_0 is 8.5
// (kyuz0/intel-b70-ai-toolboxes). The weights scale with the file, so a file twice as large
// holds twice the weight bytes on the GPU; without a size the label's bytes stand.
TEST_CASE("llama-bench runs: the weights are read at the file's printed size") {
    BenchRun run;
    run.model = &test::model("qwen3.5-9b");
    run.quant = &test::quant("Q8_0");
    run.gpus = {&test::gpu("rtx-4090")};
    run.test = parse_bench_test("pp512").value();
    const auto label = predict_bench(run).value();
    run.file_bytes = 10e9;
    const auto one = predict_bench(run).value();
    run.file_bytes = 20e9;
    const auto two = predict_bench(run).value();
    const double held = one.prefill.gpus.front().resident_bytes;
    CHECK(held > 0);
    CHECK(two.prefill.gpus.front().resident_bytes == Approx(2 * held).epsilon(1e-6));
    CHECK(two.decode.gpus.front().weight_count ==
          Approx(2 * one.decode.gpus.front().weight_count).epsilon(1e-6));
    CHECK(label.prefill.gpus.front().resident_bytes != Approx(held));
}

// llama.cpp offloads the last -ngl of a model's n_layer + 1 slots, the output head the last
// (src/llama-model.cpp: i_gpu_start = max(n_layer + 1 - n_gpu_layers, 0)). Llama 3.1 405B has
// 126 layers: -ngl 116 starts at slot 127 - 116 = 11 (layers 0-10 in RAM), -ngl 126 at slot 1
// (layer 0 in RAM), -ngl 127 at 0 (all). Llama 3.1 8B's 32 layers: -ngl 99 starts at 0.
TEST_CASE("llama-bench runs: -ngl puts every layer on the GPUs only from n_layer + 1") {
    const Model& big = test::model("llama-3.1-405b");
    REQUIRE(big.arch.layers == 126);
    CHECK_FALSE(bench_all_on_gpus(116, big));
    CHECK_FALSE(bench_all_on_gpus(126, big));
    CHECK(bench_all_on_gpus(127, big));
    CHECK(bench_all_on_gpus(999, big));
    const Model& small = test::model("llama-3.1-8b");
    REQUIRE(small.arch.layers == 32);
    CHECK(bench_all_on_gpus(99, small));
    CHECK(bench_all_on_gpus(33, small));
    CHECK_FALSE(bench_all_on_gpus(32, small));
    // The published 405B IQ2_XXS run at -ngl 116 on an RTX PRO 6000 is left out of the fit.
    Measurement m;
    m.model_id = "llama-3.1-405b";
    m.gpu_id = "rtx-pro-6000-blackwell";
    m.quant = "IQ2_XXS";
    m.backend = "CUDA";
    m.test = "tg128";
    m.ngl = 116;
    CHECK_FALSE(bench_run_for(test::database(), m));
    m.ngl = 999;
    CHECK(bench_run_for(test::database(), m));
}

// An FP32 model's prompt runs cuBLAS's SGEMM on the shaders (ggml-cuda.cu: an F32 product calls
// cublasSgemm), not the FP16 path the fit's float multiplier is: kept, not fitted. Its decode
// reads the weights as any other run's does, and is fitted.
TEST_CASE("speed fit: an FP32 model's prompt is not fitted, its decode is") {
    Measurement m;
    m.quant = "F32";
    m.backend = "CUDA";
    m.test = "pp512";
    const Hardware h = test::hardware_of({"rtx-4090"});
    const Model& model = test::model("llama-3.1-8b");
    CHECK_FALSE(fit_exclusion(m, model, h).empty());
    m.test = "tg128";
    CHECK(fit_exclusion(m, model, h).empty());
    m.quant = "FP16";
    m.test = "pp512";
    CHECK(fit_exclusion(m, model, h).empty());
}

// A Gated DeltaNet model's run from before llama.cpp b8233 (c5a778891, llama.cpp#19504, the
// fused GATED_DELTA_NET op) ran the decomposed recurrence: kept, not fitted. The same build's
// dense model, and the same model from b8233 on, are fitted; the build number wins over the date.
TEST_CASE("speed fit: a Gated DeltaNet model's run before llama.cpp b8233 is not fitted") {
    Measurement m;
    m.quant = "Q2_K";
    m.backend = "CUDA";
    m.test = "tg128";
    m.build = "707cbafca (7700)";  // llama.cpp#18683's master run, 2026-01
    m.date = "2026-01";
    const Hardware h = test::hardware_of({"rtx-3090"});
    const Model& next = test::model("qwen3-next-80b-a3b");
    CHECK_FALSE(fit_exclusion(m, next, h).empty());
    CHECK(fit_exclusion(m, test::model("llama-3.1-8b"), h).empty());
    m.build = "c5a778891 (8233)";
    CHECK(fit_exclusion(m, next, h).empty());
    m.build = "b8232";
    CHECK_FALSE(fit_exclusion(m, next, h).empty());
    m.build = "707cbafca";  // no number: the date decides
    CHECK_FALSE(fit_exclusion(m, next, h).empty());
    m.date = "2026-03";
    CHECK(fit_exclusion(m, next, h).empty());
}

// An Xe2 (Battlemage) card's MoE K-quant decode on Vulkan before llama.cpp b9452 (#23056: MMVQ
// for K-quants on Xe2 "even for small k") ran the float mat-vec path: kept, not fitted. The same
// run from b9452 on, its prompt, a dense model's decode and an MXFP4 MoE file's are fitted.
TEST_CASE("speed fit: an Xe2 MoE K-quant decode on Vulkan before llama.cpp b9452 is not fitted") {
    Measurement m;
    m.quant = "Q4_K_M";
    m.backend = "Vulkan";
    m.test = "tg128";
    m.build = "1a2b3c4d5 (9039)";  // kyuz0's Arc Pro B70 runs, 2026-05
    m.date = "2026-05";
    const Hardware h = test::hardware_of({"arc-pro-b70"});
    const Model& moe = test::model("qwen3.6-35b-a3b");
    CHECK_FALSE(fit_exclusion(m, moe, h).empty());
    CHECK(fit_exclusion(m, test::model("llama-3.1-8b"), h).empty());
    m.build = "b9452";
    CHECK(fit_exclusion(m, moe, h).empty());
    m.build = "1a2b3c4d5 (9039)";
    m.test = "pp512";
    CHECK(fit_exclusion(m, moe, h).empty());
    m.test = "tg128";
    m.quant = "MXFP4";
    CHECK(fit_exclusion(m, test::model("gpt-oss-20b"), h).empty());
}

// A decode deep in a cache without flash attention reads the cache once per query head (CUDA's
// mul_mat_vec_f broadcasts a KV head over its query heads, one block each): a path canitrun never
// plans, kept, not fitted. The same run with flash attention, at depth 0, a prompt and a row that
// does not say are fitted. jiegec/kb's RTX 4090 glm-4.7-flash runs (llama-bench's default, fa
// off, at b8396) are the case.
TEST_CASE("speed fit: a decode deep in a cache without flash attention is not fitted") {
    Measurement m;
    m.quant = "Q4_K_M";
    m.backend = "CUDA";
    m.test = "tg64 @ d32768";
    m.build = "054d8b0f2 (8396)";
    m.date = "2026-03";
    m.flash_attn = false;
    const Hardware h = test::hardware_of({"rtx-4090"});
    const Model& glm = test::model("glm-4.7-flash");
    CHECK_FALSE(fit_exclusion(m, glm, h).empty());
    CHECK_FALSE(fit_exclusion(m, test::model("llama-3.1-8b"), h).empty());
    m.flash_attn = true;
    CHECK(fit_exclusion(m, glm, h).empty());
    m.flash_attn.reset();
    CHECK(fit_exclusion(m, glm, h).empty());
    m.flash_attn = false;
    m.test = "tg64";
    CHECK(fit_exclusion(m, glm, h).empty());
    m.test = "pp1024 @ d32768";
    CHECK(fit_exclusion(m, glm, h).empty());
}

// validation/llama-bench.json's "fa" is llama-bench's fa column: a row without it does not say.
TEST_CASE("measurements: a row's fa column is read when given") {
    const auto rows = parse_measurements(
        R"([{"model_id": "glm-4.7-flash", "quant": "Q4_K_M", "gpu_id": "rtx-4090",
             "backend": "CUDA", "test": "tg64", "tokens_per_second": 132.27, "fa": false,
             "source": "https://github.com/jiegec/kb"},
            {"model_id": "glm-4.7-flash", "quant": "Q8_0", "gpu_id": "dgx-spark",
             "backend": "CUDA", "test": "tg32", "tokens_per_second": 48.68, "fa": true,
             "source": "https://github.com/ggml-org/llama.cpp"},
            {"model_id": "glm-4.7-flash", "quant": "Q8_0", "gpu_id": "dgx-spark",
             "backend": "CUDA", "test": "tg32", "tokens_per_second": 48.68,
             "source": "https://github.com/ggml-org/llama.cpp"}])");
    REQUIRE(rows);
    REQUIRE(rows->size() == 3);
    CHECK((*rows)[0].flash_attn == false);
    CHECK((*rows)[1].flash_attn == true);
    CHECK_FALSE((*rows)[2].flash_attn.has_value());
}
