// llama.cpp's --split-mode row (row_split.hpp): the rows each GPU holds of a matrix, as
// ggml-cuda.cu's get_row_split and ggml_backend_cuda_split_buffer_init_tensor give them, and a
// whole plan worked by hand from those rules; and --split-mode tensor (tensor_split.hpp), the
// slices llama_meta_device_get_split_state gives each GPU.

#include <algorithm>

#include "canitrun/hardware_questions.hpp"
#include "canitrun/launch_command.hpp"
#include "canitrun/llamacpp_rules.hpp"
#include "canitrun/plan_settings.hpp"
#include "canitrun/row_split.hpp"
#include "canitrun/speed.hpp"
#include "canitrun/tensor_split.hpp"
#include "catch.hpp"
#include "test_support.hpp"

using namespace canitrun;

// get_row_split: row_low = nrows x share[id] (float, truncated), rounded down to the rounding;
// the last device to nrows. ggml_backend_cuda_split_buffer_type: share[i] = sum of -ts before i
// / the whole sum.
TEST_CASE("row split: the rows each GPU holds, by get_row_split") {
    const Hardware two = test::hardware_of({"rtx-3090", "rtx-3090"}, 64);
    const auto even = row_shares(two, {1, 1});
    REQUIRE(even.size() == 2);
    CHECK(even[0] == 0.0f);
    CHECK(even[1] == 0.5f);
    // RTX 3090: Ampere, get_mmq_y_host 128 (Volta and newer).
    CHECK(row_rounding(two, even) == 128);
    CHECK(row_range(4096, even, 128, 0).rows() == 2048);
    CHECK(row_range(4096, even, 128, 1).low == 2048);
    CHECK(row_range(4096, even, 128, 1).high == 4096);
    // 128256 / 2 = 64128 = 501 x 128: no rounding.
    CHECK(row_range(128256, even, 128, 0).rows() == 64128);
    // -ts 2,1: 4096 x 0.6666667 = 2730.67 -> 2730 -> 2730 - 2730 % 128 = 2688.
    const auto uneven = row_shares(two, {2, 1});
    CHECK(row_range(4096, uneven, 128, 0).rows() == 2688);
    CHECK(row_range(4096, uneven, 128, 1).rows() == 4096 - 2688);
    // -ts 1,0: GPU 1's share starts at 1.0, so it has none and takes no part in the rounding.
    const auto alone = row_shares(two, {1, 0});
    CHECK(row_range(4096, alone, 128, 1).rows() == 0);
    CHECK(row_range(4096, alone, 128, 0).rows() == 4096);
    // Pascal (GTX 1080 Ti): get_mmq_y_host 64 before Volta; the largest of the GPUs with a share.
    const Hardware pascal = test::hardware_of({"gtx-1080-ti", "gtx-1080-ti"}, 64);
    CHECK(row_rounding(pascal, row_shares(pascal, {1, 1})) == 64);
    const Hardware mixed = test::hardware_of({"gtx-1080-ti", "rtx-3090"}, 64);
    CHECK(row_rounding(mixed, row_shares(mixed, {1, 1})) == 128);
}

// Llama 3.1 8B at Q8_0 (every matrix Q8_0: 34 bytes per 32 weights) on 2x RTX 3090 with -ts 1,1.
// Layers by the split points as with -sm layer: unit i of 33 goes to GPU 0 while i / 33 < 0.5,
// so GPU 0 holds layers 0-16 (17) and GPU 1 layers 17-31 (15) and the output head.
// A layer's matrices (hidden 4096, 8 KV heads of 128, FFN 14336), rows x row bytes:
//   attn_q, attn_output 4096 x 4352; attn_k, attn_v 1024 x 4352; ffn_gate, ffn_up 14336 x 4352;
//   ffn_down 4096 x 15232: 231,735,296 bytes whole. output.weight 128256 x 4352 = 558,170,112.
// Cut by rows at shares 0 and 0.5 (all counts already multiples of 128; rows of 4096 and 14336
// elements are multiples of 512, so no padding), each GPU holds half of every matrix:
//   32 x 115,867,648 + 64128 x 4352 = 3,707,764,736 + 279,085,056 = 3,986,849,792 bytes.
// Norms stay with their layer; the KV cache, compute buffers and runtime are -sm layer's.
TEST_CASE("row split: Llama 3.1 8B Q8_0 on 2x RTX 3090, per-GPU bytes by hand") {
    const Model& m = test::model("llama-3.1-8b");
    const Quant& q = test::quant("Q8_0");
    const Hardware h = test::hardware_of({"rtx-3090", "rtx-3090"}, 64);
    PlanSettings s;
    s.estimate.context = 8192;
    PlacementOptions given;
    given.tensor_split = {1, 1};
    const auto layer = answer_for(m, q, h, s, given).value();
    s.split_mode = SplitMode::row;
    const auto row = answer_for(m, q, h, s, given).value();
    REQUIRE(row.plan.kind == PlanKind::native);
    const Placement& l = layer.plan.placement;
    const Placement& r = row.plan.placement;
    REQUIRE(l.gpus[0].layers == 17);
    REQUIRE(l.gpus[1].layers == 15);
    REQUIRE(l.gpus[1].output);
    CHECK(r.row_split);
    CHECK(r.gpus[0].layers == 17);
    constexpr Bytes kLayerMatrices = 231'735'296;
    constexpr Bytes kOutput = 558'170'112;
    constexpr Bytes kHalf = 3'986'849'792;
    CHECK(r.gpus[0].weights == l.gpus[0].weights - 17 * kLayerMatrices + kHalf);
    CHECK(r.gpus[1].weights == l.gpus[1].weights - 15 * kLayerMatrices - kOutput + kHalf);
    for (std::size_t d = 0; d < 2; ++d) {
        CHECK(r.gpus[d].kv_cache == l.gpus[d].kv_cache);
        CHECK(r.gpus[d].compute == l.gpus[d].compute);
        CHECK(r.gpus[d].runtime == l.gpus[d].runtime);
    }
    CHECK(r.ram.weights == l.ram.weights);
    // No published run measures -sm row: no speed figure.
    CHECK(row.speed.decode_tokens_per_s == 0);
    // The command carries the mode; the layer plan's does not.
    const auto args = llama_server_args({&m, &q, {}}, row.settings, &h, &r);
    CHECK(std::find(args.begin(), args.end(), "-sm") != args.end());
    CHECK(std::find(args.begin(), args.end(), "row") != args.end());
    const auto plain = llama_server_args({&m, &q, {}}, layer.settings, &h, &l);
    CHECK(std::find(plain.begin(), plain.end(), "-sm") == plain.end());
}

TEST_CASE("row split: refused where it does not apply, and so is tensor mode") {
    const Model& m = test::model("llama-3.1-8b");
    const Quant& q = test::quant("Q4_K_M");
    PlanSettings s;
    s.estimate.context = 8192;
    s.split_mode = SplitMode::row;
    // CUDA only: llama.cpp's split buffer is the CUDA backend's.
    CHECK_FALSE(answer_for(m, q, test::hardware_of({"rx-7900-xtx", "rx-7900-xtx"}, 64), s));
    // Several GPUs.
    CHECK_FALSE(answer_for(m, q, test::hardware_of({"rtx-3090"}, 64), s));
    // Every layer on the GPUs.
    PlacementOptions ngl;
    ngl.gpu_layers = 10;
    CHECK_FALSE(answer_for(m, q, test::hardware_of({"rtx-3090", "rtx-3090"}, 64), s, ngl));
    // -sm tensor: one Meta device over GPUs of one backend, several of them.
    s.split_mode = SplitMode::tensor;
    CHECK_FALSE(answer_for(m, q, test::hardware_of({"rtx-3090"}, 64), s));
    const auto mixed = answer_for(m, q, test::hardware_of({"rtx-3090", "rx-7900-xtx"}, 64), s);
    REQUIRE_FALSE(mixed);
    CHECK(mixed.error().message.find("one backend") != std::string::npos);
    CHECK_FALSE(answer_for(m, q, test::hardware_of({"rtx-3090", "rtx-3090"}, 64), s, ngl));
    CHECK(parse_split_mode("row").value() == SplitMode::row);
    CHECK_FALSE(parse_split_mode("rows"));
}

// One rule for -sm row (hardware_questions.cpp): the page's longest context and best
// quantization come from the row placement, as its plan does. The longest context's row plan
// fits and 256 tokens more (the search's step) do not; the best quantization is a row plan,
// with no speed figure, where the -sm layer pick carried one.
TEST_CASE("row split: the longest context and the best quantization are the row plan's") {
    const Model& m = test::model("llama-3.3-70b");
    const Quant& q = test::quant("Q4_K_M");
    const Hardware h = test::hardware_of({"rtx-3090", "rtx-3090"}, 64);
    PlanSettings s = test::settings_at_8k(m);
    s.split_mode = SplitMode::row;
    const auto longest = max_native_context(m, q, h, s).value();
    REQUIRE(longest);
    PlanSettings at = s;
    at.estimate.context = *longest;
    const auto fits = answer_for(m, q, h, at).value();
    CHECK(fits.plan.kind == PlanKind::native);
    CHECK(fits.plan.placement.row_split);
    at.estimate.context = *longest + 256;
    CHECK(answer_for(m, q, h, at).value().plan.kind == PlanKind::none);
    const auto best = best_quant_for_hardware(m, llama_cpp_quants(test::database()), h, s).value();
    REQUIRE(best);
    CHECK(best->plan.kind == PlanKind::native);
    CHECK(best->plan.placement.row_split);
    CHECK(best->speed.decode_tokens_per_s == 0);
    s.split_mode = SplitMode::layer;
    const auto layer = best_quant_for_hardware(m, llama_cpp_quants(test::database()), h, s).value();
    REQUIRE(layer);
    CHECK_FALSE(layer->plan.placement.row_split);
    CHECK(layer->speed.decode_tokens_per_s > 0);
}

// Where the user's placement flags are why the plan fails, answer_for carries the planner's own
// plan (the same question without them); where they are not, or the plan fits, none. By hand:
// qwen3-30b-a3b's Q4_K_M file is 18.6 GB (unsloth's listing), over the 16.1 GB an RTX 4060 Ti
// 16GB holds after its 1 GiB margin, so --n-cpu-moe 0 fails and the plan's own keeps experts in
// RAM. Llama 3.3 70B at Q4_K_M (42.5 GB) cannot fit 8 GB and 32 GB of RAM by any placement.
TEST_CASE("placement flags: a plan they make fail carries the plan's own") {
    const Model& moe = test::model("qwen3-30b-a3b");
    const Quant& q = test::quant("Q4_K_M");
    const Hardware h = test::hardware_of({"rtx-4060-ti-16gb"}, 32);
    const PlanSettings s = test::settings_at_8k(moe);
    PlacementOptions none_in_ram;
    none_in_ram.cpu_moe_layers = 0;
    const auto failed = answer_for(moe, q, h, s, none_in_ram).value();
    CHECK(failed.plan.kind == PlanKind::none);
    REQUIRE(failed.alternative);
    const auto own = answer_for(moe, q, h, s).value();
    CHECK_FALSE(own.alternative);
    CHECK(own.plan.kind == PlanKind::expert_offload);
    CHECK(failed.alternative->plan.kind == own.plan.kind);
    CHECK(failed.alternative->plan.placement.cpu_moe_layers == own.plan.placement.cpu_moe_layers);
    CHECK(failed.alternative->plan.placement.cpu_moe_layers > 0);
    CHECK(failed.alternative->decode_tokens_per_s == own.speed.decode_tokens_per_s);
    // Flags that fit carry none.
    PlacementOptions fits;
    fits.cpu_moe_layers = moe.arch.layers;
    CHECK_FALSE(answer_for(moe, q, h, s, fits).value().alternative);
    // Nothing fits: the flags are not why.
    const Model& dense = test::model("llama-3.3-70b");
    PlacementOptions ngl;
    ngl.gpu_layers = 50;
    const auto over =
        answer_for(dense, q, test::hardware_of({"rtx-4060"}, 32), test::settings_at_8k(dense), ngl)
            .value();
    CHECK(over.plan.kind == PlanKind::none);
    CHECK_FALSE(over.alternative);
}

// llm_arch_supports_sm_tensor at 0ad4a86 (src/llama-arch.cpp:1130), by LLM_ARCH_NAMES' spelling.
TEST_CASE("tensor split: the architectures llama.cpp refuses it for") {
    for (const char* refused : {"deepseek2", "granitehybrid", "gemma3n", "minimax-m2", "olmoe",
                                "nemotron_h_moe", "kimi-linear", "hy_v4"}) {
        CHECK_FALSE(llama_arch_supports_tensor_split(refused));
    }
    for (const char* runs : {"llama", "qwen3moe", "qwen35", "gpt-oss", "gemma3", "glm4moe"}) {
        CHECK(llama_arch_supports_tensor_split(runs));
    }
}

// llama_meta_device_get_split_state's cut of one segment (src/llama-model.cpp, 0ad4a86): the
// points at the cumulative -ts share (float, truncated), or with no -ts at ne x (j + 1) / GPUs,
// rounded down to the granularity; the last GPU takes the rest; the proportions and the slots
// rotated by the layer's turn.
// n_reduce_steps = ceil(log2(GPUs)) (ggml_backend_meta_context).
TEST_CASE("tensor split: the Meta device's reduction steps") {
    CHECK(meta_reduce_steps(2) == 1);
    CHECK(meta_reduce_steps(3) == 2);
    CHECK(meta_reduce_steps(4) == 2);
    CHECK(meta_reduce_steps(5) == 3);
    CHECK(meta_reduce_steps(8) == 3);
}

TEST_CASE("tensor split: the elements each GPU holds of a cut axis") {
    // Even: 1000 / 2 = 500 -> 500 - 500 % 128 = 384 to the first slot, 616 to the last.
    CHECK(tensor_split_counts(1000, 128, {}, 2, 0) == std::vector<std::uint64_t>{384, 616});
    // Turn 1: the same cut, the slots rotated (GPU 1 first).
    CHECK(tensor_split_counts(1000, 128, {}, 2, 1) == std::vector<std::uint64_t>{616, 384});
    // -ts 2,1: 4096 x 2 / 3 = 2730.67 -> 2730 -> 2730 - 170 = 2560 and 1536.
    CHECK(tensor_split_counts(4096, 512, {2, 1}, 2, 0) == std::vector<std::uint64_t>{2560, 1536});
    // Turn 1 reads the proportions from GPU 1 on: 4096 x 1 / 3 = 1365 -> 1024 to GPU 1, the
    // rest, 3072, to GPU 0.
    CHECK(tensor_split_counts(4096, 512, {2, 1}, 2, 1) == std::vector<std::uint64_t>{3072, 1024});
}

// Llama 3.1 8B at Q8_0 (every matrix Q8_0: 34 bytes per 32 weights) on 2x RTX 3090 under
// -sm tensor, evenly (llama.cpp's default; printed -ts 1,1). Granularities: n_gqa = 32 / 8 = 4,
// n_gqa x head_dim = 512; Q8_0's block 32 doubles to 64, then 128 (each time under 128 and
// 2 x it under 512): Q's lcm(512, 128) = 512, K's, V's and the caches' 512 / 4 = 128; the FFN's
// lcm(32, 128) = 128. Every cut count is a multiple of its granularity at half (2048 of Q's
// 4096, 512 of K's and V's 1024, 7168 of 14336, 64128 of the head's 128256 rows, granularity 1),
// so each GPU holds half of every matrix, as in the row test above:
//   32 x 231,735,296 / 2 + 558,170,112 / 2 = 3,707,764,736 + 279,085,056 = 3,986,849,792,
// and the whole of every other tensor (MIRRORED): the norms, 32 x 2 x 4096 x 4 = 1,048,576,
// output_norm 16,384 and rope_freqs 64 x 4 = 256: 3,987,915,008 bytes of weights on each GPU.
// The KV cache at 8192 tokens, f16: K and V of 8 x 128 = 1024 elements per token, each
// 8192 x 1024 x 2 = 16,777,216 bytes a layer, cut in two along those 1024: 32 x 2 x 8,388,608 =
// 536,870,912 bytes on each GPU. token_embd stays on the host, as under -sm layer.
// The Meta device's partial-sum buffers (ggml-backend-meta.cpp, 0ad4a86): ceil(log2(2)) = 1
// reduction step, each a buffer of the largest partial sum, the f32 [n_embd, n_ubatch] output of
// attn_output and ffn_down: 4 x 4096 x 512 = 8,388,608 bytes on each GPU.
// Decode: the two GPUs hold the same bytes, so each reads half of what the -sm layer plan reads
// (the whole model on one RTX 3090: the split search's fastest) and pays half its per-layer
// costs, plus 2 x 32 reductions.
TEST_CASE("tensor split: Llama 3.1 8B Q8_0 on 2x RTX 3090, per-GPU weights and KV by hand") {
    const Model& m = test::model("llama-3.1-8b");
    const Quant& q = test::quant("Q8_0");
    const Hardware h = test::hardware_of({"rtx-3090", "rtx-3090"}, 64);
    PlanSettings s;
    s.estimate.context = 8192;
    const auto layer = answer_for(m, q, h, s).value();
    s.split_mode = SplitMode::tensor;
    const auto tensor = answer_for(m, q, h, s).value();
    REQUIRE(tensor.plan.kind == PlanKind::native);
    const Placement& t = tensor.plan.placement;
    CHECK(t.tensor_parallel);
    CHECK(t.tensor_split == std::vector<std::uint64_t>{1, 1});
    for (std::size_t d = 0; d < 2; ++d) {
        CHECK(t.gpus[d].weights == 3'987'915'008u);
        CHECK(t.gpus[d].kv_cache == 536'870'912u);
    }
    CHECK(t.ram.weights == layer.plan.placement.ram.weights);
    for (const Share& g : t.gpus) {
        REQUIRE(g.resident.size() == 1);
        CHECK(g.resident[0].name == kMetaReduceTerm);
        CHECK(g.resident[0].load == 8'388'608u);
        CHECK(g.resident[0].most == 8'388'608u);
    }
    const SpeedModel& sm_model = fitted_speed_model();
    const auto work_of = [&](const Placement& p) { return speed_work(m, q, p, 8192, {0, 128}); };
    const SpeedWork layered = work_of(layer.plan.placement);
    REQUIRE(layer.plan.placement.gpus[1].layers == 0);
    CHECK(decode_seconds(work_of(t), h, sm_model) ==
          Approx(decode_seconds(layered, h, sm_model) / 2 + 64 * sm_model.meta_reduce_s));
    // The prompt by the same rule: each GPU multiplies half of the weights at once, plus 64
    // reductions a token (the halves differ from the layer plan's whole by the norms each GPU
    // holds whole and the output head, under 0.1 % of the time). The host fills the KQ mask
    // once a token whatever the split (SpeedWork::mask_cells): not halved.
    const auto prompt_of = [&](const Placement& p) {
        return prefill_seconds(speed_work(m, q, p, 8192, {0, 512}), h, sm_model, 512).value();
    };
    const double mask = speed_work(m, q, t, 8192, {0, 512}).mask_cells * sm_model.mask_cell_s;
    CHECK(prompt_of(t) == Approx((prompt_of(layer.plan.placement) - mask) / 2 + mask +
                                 64 * sm_model.meta_prefill_reduce_s)
                              .epsilon(1e-3));
    CHECK(tensor.speed.tensor_parallel);
    REQUIRE(tensor.speed.prefill_tokens_per_s);
    CHECK(*tensor.speed.prefill_tokens_per_s == Approx(1 / prompt_of(t)));
    CHECK_FALSE(tensor.speed.prefill_band);
    CHECK_FALSE(tensor.speed.decode_band);
    const auto args = llama_server_args({&m, &q, {}}, tensor.settings, &h, &t);
    const auto sm = std::find(args.begin(), args.end(), "-sm");
    REQUIRE(sm != args.end());
    CHECK(*(sm + 1) == "tensor");
    const auto ts = std::find(args.begin(), args.end(), "-ts");
    REQUIRE(ts != args.end());
    CHECK(*(ts + 1) == "1,1");
}

// A MoE model's largest partial sum is the routed experts' down product, one f32 row of n_embd
// per expert used and token (MUL_MAT_ID, [n_embd, n_expert_used, n_tokens]): Qwen3-30B-A3B's
// 2048 x 8 (its config.json) x 512 x 4 = 33,554,432 bytes; over 4 GPUs ceil(log2(4)) = 2
// reduction steps, so 67,108,864 bytes on each GPU.
TEST_CASE("tensor split: a MoE model's partial sums hold one row per expert used") {
    const Model& m = test::model("qwen3-30b-a3b");
    const Hardware h = test::hardware_of({"rtx-3090", "rtx-3090", "rtx-3090", "rtx-3090"}, 64);
    PlanSettings s;
    s.split_mode = SplitMode::tensor;
    const auto a = answer_for(m, test::quant("Q4_K_M"), h, s).value();
    REQUIRE(a.plan.placement.gpus.size() == 4);
    for (const Share& g : a.plan.placement.gpus) {
        REQUIRE(g.resident.size() == 1);
        CHECK(g.resident[0].most == 67'108'864u);
    }
}

// Qwen 3.5 27B (config.json: 48 Gated DeltaNet layers of 16 key and 48 value heads of 128, conv
// kernel 4; 16 gated full-attention layers of 24 / 4 heads of 256) on 2 GPUs, planned as the
// pinned llama.cpp cuts it (llama_meta_device_get_split_state's qwen35 segments). The state of a
// DeltaNet layer, f32: the conv cache 3 x (2 x 2048 + 6144) = 30,720 elements, segments of
// 16 x 128 x 3 = 6,144 repeated 2 + 48 / 16 = 5 times, granularity lcm(lcm(block, 128), 128) x 3
// (384 or 768), so 3,072 a segment each; the state 48 x 128 x 128 = 786,432 elements, segments
// of 16 x 16,384 = 262,144 repeated 3 times, granularity 128 x 128 x (1 or 2), so 131,072 each:
// both halve exactly. (30,720 + 786,432) x 4 = 3,268,608 bytes a layer, 48 layers, half each:
// 78,446,592 bytes on each GPU. The KV cache: 1,024 of K's elements a token (4 x 256), K's
// granularity lcm(6 x 256, 256) / 6 = 256, so 512 each: half of it on each GPU.
TEST_CASE("tensor split: Qwen 3.5 27B's Gated DeltaNet and gated Q, cut as llama.cpp cuts them") {
    const Model& m = test::model("qwen3.5-27b");
    const Hardware h = test::hardware_of({"rtx-3090", "rtx-3090"}, 64);
    PlanSettings s;
    s.estimate.context = 8192;
    s.split_mode = SplitMode::tensor;
    const auto a = answer_for(m, test::quant("Q4_K_M"), h, s).value();
    const Placement& p = a.plan.placement;
    REQUIRE(p.gpus.size() == 2);
    const auto parts = plan_parts(m, test::quant("Q4_K_M"), a.settings).value();
    CHECK(parts.recurrent_state() == 48ull * 3'268'608ull);
    for (const Share& g : p.gpus) {
        CHECK(g.recurrent_state == 78'446'592u);
        CHECK(g.kv_cache * 2 == parts.kv_cache());
    }
    // Every cut divides evenly here, so the two GPUs hold the same weights.
    CHECK(p.gpus[0].weights == p.gpus[1].weights);
    CHECK(a.speed.decode_tokens_per_s > 0);
}

// LFM2 1.2B: its 10 short-convolution layers run whole on every GPU (llama.cpp's LFM2 case:
// the conv state MIRRORED), each 2 x 2048 f32 = 16,384 bytes of state, so every GPU holds all
// 163,840 bytes; its 6 attention layers' KV cache is cut in two.
TEST_CASE("tensor split: LFM2's short convolutions stay whole on every GPU") {
    const Model& m = test::model("lfm2-1.2b");
    const Hardware h = test::hardware_of({"rtx-3090", "rtx-3090"}, 64);
    PlanSettings s;
    s.split_mode = SplitMode::tensor;
    const auto a = answer_for(m, test::quant("Q8_0"), h, s).value();
    for (const Share& g : a.plan.placement.gpus) CHECK(g.recurrent_state == 163'840u);
}
