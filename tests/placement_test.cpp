#include "canitrun/placement.hpp"
#include "canitrun/plan_settings.hpp"

#include "canitrun/llamacpp_parts.hpp"

#include "catch.hpp"
#include "test_support.hpp"

using namespace canitrun;

using test::hardware_of;
using test::parts_of;

// Llama 3.3 70B at Q4_K_M (4.873 bits per weight), by hand:
//   weights W = 70e9 x 4.873 / 8 = 42,638,750,000 B (the published 70B).
//   Architecture: embedding 128256 x 8192 = 1,050,673,152 (input and output, untied); a layer
//   8192x128x(64+8) + 8192x128x8 + 64x128x8192 + 3x8192x28672 = 855,638,016; all
//   2 x 1,050,673,152 + 80 x 855,638,016 = 70,552,387,584.
//   Shares: a layer floor(W x 855,638,016 / 70,552,387,584) = 517,109,862; the output head
//   634,980,493; the input gets the rest: 634,980,547.
//   KV per layer: 8 heads x (128 + 128) x 2 B = 4,096 B per token.
// Two RTX 3090s (24 GiB = 25,769,803,776 B each), 81 units (80 layers + output): unit i goes to
// GPU 0 while i/81 < 1/2, so GPU 0 holds layers 0..40 (41) plus the input embedding, GPU 1
// layers 41..79 (39) plus the output head.
TEST_CASE("2x RTX 3090: a 70B Q4_K_M at 4k splits 41 and 39 layers and fits") {
    const ModelParts parts = parts_of("llama-3.3-70b", "Q4_K_M", 4096);
    REQUIRE(parts.weights() == 42638750000ULL);
    const auto p = place(parts, hardware_of({"rtx-3090", "rtx-3090"}), {});
    REQUIRE(p);
    REQUIRE(p->gpus.size() == 2);
    CHECK(p->gpus[0].layers == 41);
    CHECK(p->gpus[1].layers == 39);
    CHECK(p->gpus[1].output);
    // GPU 0: 634,980,547 + 41 x 517,109,862 = 21,836,484,889 weights; KV 41 x 4096 x 4096 =
    // 687,865,856; overhead floor(12 % of 22,524,350,745) = 2,702,922,089.
    CHECK(p->gpus[0].weights == 21836484889ULL);
    CHECK(p->gpus[0].kv_cache == 687865856ULL);
    CHECK(p->gpus[0].total() == 25227272834ULL);
    // GPU 1: 39 x 517,109,862 + 634,980,493 = 20,802,265,111; KV 654,311,424;
    // total 21,456,576,535 x 1.12 rounded down = 24,031,365,719.
    CHECK(p->gpus[1].total() == 24031365719ULL);
    CHECK(p->fits());
    CHECK(p->ram.total() == 0);
}

TEST_CASE("2x RTX 3090: a 70B Q4_K_M at 8k fits the 48 GiB sum but not GPU 0") {
    const ModelParts parts = parts_of("llama-3.3-70b", "Q4_K_M", 8192);
    // The sum: (42,638,750,000 + 80 x 4096 x 8192) x 1.12 = 50,761,877,107 B, under
    // 2 x 25,769,803,776 = 51,539,607,552.
    const Bytes sum = parts.weights() + parts.kv_cache();
    CHECK(sum + sum * 12 / 100 == 50761877107ULL);
    const auto p = place(parts, hardware_of({"rtx-3090", "rtx-3090"}), {});
    REQUIRE(p);
    // GPU 0: (21,836,484,889 + 41 x 4096 x 8192) x 1.12 = 25,997,682,593 > 25,769,803,776.
    CHECK(p->gpus[0].total() == 25997682593ULL);
    CHECK_FALSE(p->gpus[0].fits());
    CHECK(p->gpus[1].fits());
    CHECK_FALSE(p->fits());
    // The plan splits 40 : 41 units instead (-ts 40,41): every layer stays on the GPUs.
    // GPU 0: (634,980,547 + 40 x 517,109,862 + 40 x 4096 x 8192) x 1.12 =
    //   22,661,552,307 x 1.12 = 25,380,938,583 <= 25,769,803,776;
    // GPU 1 (layers 40..79 and the output head):
    //   (40 x 517,109,862 + 634,980,493 + 1,342,177,280) x 1.12 = 22,661,552,253 x 1.12 =
    //   25,380,938,523.
    // 41 units on GPU 0 is the 25,997,682,593 above, over: 40 is the most it holds.
    const auto plan = plan_placement(parts, hardware_of({"rtx-3090", "rtx-3090"}));
    REQUIRE(plan);
    CHECK(plan->kind == PlanKind::native);
    CHECK(plan->placement.tensor_split == std::vector<std::uint64_t>{40, 41});
    CHECK(plan->placement.gpus[0].layers == 40);
    CHECK(plan->placement.gpus[1].layers == 40);
    CHECK(plan->placement.gpus[1].output);
    CHECK(plan->placement.gpus[0].total() == 25380938583ULL);
    CHECK(plan->placement.gpus[1].total() == 25380938523ULL);
    CHECK(plan->placement.ram.layers == 0);
    // The same split given by hand places the same, and the default split is still the one
    // a plain place() makes.
    PlacementOptions given;
    given.tensor_split = {40, 41};
    const auto same = place(parts, hardware_of({"rtx-3090", "rtx-3090"}), given);
    REQUIRE(same);
    CHECK(same->gpus[0].total() == 25380938583ULL);
    CHECK(same->tensor_split == std::vector<std::uint64_t>{40, 41});
}

TEST_CASE("placement: a --tensor-split with the wrong count or all zeros is refused") {
    const ModelParts parts = parts_of("llama-3.3-70b", "Q4_K_M", 4096);
    PlacementOptions o;
    o.tensor_split = {1, 1, 1};
    const auto three = place(parts, hardware_of({"rtx-3090", "rtx-3090"}), o);
    REQUIRE_FALSE(three);
    CHECK(three.error().message == "--tensor-split gives 3 proportions for 2 GPUs");
    o.tensor_split = {0, 0};
    const auto zeros = place(parts, hardware_of({"rtx-3090", "rtx-3090"}), o);
    REQUIRE_FALSE(zeros);
    CHECK(zeros.error().message == "--tensor-split gives every GPU 0");
    // 3 : 1 of 81 units: unit i goes to GPU 0 while i / 81 < 3 / 4, i.e. i <= 60: 61 layers.
    o.tensor_split = {3, 1};
    const auto p = place(parts, hardware_of({"rtx-3090", "rtx-3090"}), o);
    REQUIRE(p);
    CHECK(p->gpus[0].layers == 61);
    CHECK(p->gpus[1].layers == 19);
}

// llama.cpp (llama-model.cpp, load_tensors) puts offloaded unit u of n on the GPU that
// std::upper_bound finds for u / n among the cumulative shares: the first share above it.
TEST_CASE("placement: a --tensor-split over three GPUs cuts the units where llama.cpp does") {
    const ModelParts parts = parts_of("llama-3.3-70b", "Q4_K_M", 4096);  // 80 layers + head
    const Hardware three = hardware_of({"rtx-3090", "rtx-3090", "rtx-3090"});
    PlacementOptions o;
    // 1 : 1 : 1 of 81 units, shares 1/3 and 2/3: u = 27 is 27 / 81 = 1/3, not above, so GPU 1's
    // first unit; u = 54 is GPU 2's. 27, 27 and 27 units, the last of them the output head.
    o.tensor_split = {1, 1, 1};
    const auto even = place(parts, three, o);
    REQUIRE(even);
    CHECK(even->gpus[0].layers == 27);
    CHECK(even->gpus[1].layers == 27);
    CHECK(even->gpus[2].layers == 26);
    CHECK(even->gpus[2].output);
    // 1 : 0 : 1, shares 1/2, 1/2, 1: u <= 40 (40 / 81 < 1/2) on GPU 0, none on GPU 1 (its share
    // is GPU 0's), u = 41..80 on GPU 2: 39 layers and the head.
    o.tensor_split = {1, 0, 1};
    const auto gap = place(parts, three, o);
    REQUIRE(gap);
    CHECK(gap->gpus[0].layers == 41);
    CHECK(gap->gpus[1].layers == 0);
    CHECK_FALSE(gap->gpus[1].output);
    CHECK(gap->gpus[2].layers == 39);
    CHECK(gap->gpus[2].output);
}

// Qwen3.5-35B-A3B at Q4_K_M, 8k, on an RTX 4080 (16 GiB = 17,179,869,184 B), by hand:
//   W = 35e9 x 4.873 / 8 = 21,319,375,000. Architecture params: embedding 248320 x 2048 =
//   508,559,360 (x2, untied); linear-attention mixer 33,718,272 (x30), full-attention mixer
//   27,262,976 (x10); each MoE block: shared expert 3x2048x512 + router 2048x256 = 3,670,016
//   always, routed 256 x 3x2048x512 = 805,306,368. All: 34,660,352,000.
//   Routed share per layer: floor(W x 805,306,368 / 34,660,352,000) = 495,339,125.
//   KV: 10 full layers x 2 heads x (256 + 256) x 2 B x 8192 = 167,772,160.
//   Experts of the first N layers in RAM leave W - N x 495,339,125 + KV (x 1.12) on the GPU:
//   N = 12: (15,375,305,500 + 167,772,160) x 1.12 = 17,408,246,979 > 16 GiB;
//   N = 13: (14,879,966,375 + 167,772,160) x 1.12 = 16,853,467,159 fits.
TEST_CASE(
    "MoE expert offload: qwen3.5-35b-a3b Q4_K_M on an RTX 4080 keeps 13 layers' experts in RAM") {
    const ModelParts parts = parts_of("qwen3.5-35b-a3b", "Q4_K_M", 8192);
    CHECK(parts.layers[0].routed_experts == 495339125ULL);
    const auto plan = plan_placement(parts, hardware_of({"rtx-4080"}));
    REQUIRE(plan);
    CHECK(plan->kind == PlanKind::expert_offload);
    CHECK(plan->placement.cpu_moe_layers == 13);
    CHECK(plan->placement.gpus[0].weights == 14879966375ULL);
    CHECK(plan->placement.gpus[0].kv_cache == 167772160ULL);
    CHECK(plan->placement.gpus[0].total() == 16853467159ULL);
    // RAM: 13 x 495,339,125 = 6,439,408,625, x 1.12 = 7,212,137,660.
    CHECK(plan->placement.ram.weights == 6439408625ULL);
    CHECK(plan->placement.ram.total() == 7212137660ULL);
    const auto fewer =
        place(parts, hardware_of({"rtx-4080"}), test::split_options(std::nullopt, 12));
    REQUIRE(fewer);
    CHECK(fewer->gpus[0].total() == 17408246979ULL);
    CHECK_FALSE(fewer->fits());
}

TEST_CASE("gpu layers 0 keeps everything in RAM and the RAM limit applies") {
    const ModelParts parts = parts_of("llama-3.3-70b", "Q4_K_M", 4096);
    const auto p =
        place(parts, hardware_of({"rtx-3090"}, 32), test::split_options(0, std::nullopt));
    REQUIRE(p);
    CHECK(p->gpus[0].total() == 0);
    CHECK(p->ram.layers == 80);
    CHECK(p->ram.weights == 42638750000ULL);
    CHECK_FALSE(p->fits());  // 49.3 GB of RAM needed, 32 GB given
}

TEST_CASE("one GPU holding everything gives the quick estimate's total") {
    const ModelParts parts = parts_of("qwen3.5-35b-a3b", "Q4_K_M", 8192);
    const auto p = place(parts, hardware_of({"rtx-5090"}), {});
    REQUIRE(p);
    // The reference page's headline: 21,319,375,000 + 167,772,160 + 2,578,457,659.
    CHECK(p->gpus[0].total() == 24065604819ULL);
}

namespace {

// The offload search done step by step, as llama.cpp users would try it: the fewest expert
// layers in RAM, else the most layers on the GPU.
Plan stepwise_plan(const ModelParts& parts, const Hardware& h, const PlacementOptions& base) {
    const std::uint64_t n = parts.layers.size();
    const auto at = [&](std::optional<std::uint64_t> ngl, std::optional<std::uint64_t> moe) {
        PlacementOptions o = base;
        o.gpu_layers = ngl;
        o.cpu_moe_layers = moe;
        return place(parts, h, o).value();
    };
    const Placement all = at(std::nullopt, std::nullopt);
    if (all.fits()) return Plan{PlanKind::native, all};
    bool experts = false;
    for (const auto& l : parts.layers) experts = experts || l.routed_experts > 0;
    for (std::uint64_t k = 1; experts && k <= n; ++k) {
        if (const Placement p = at(std::nullopt, k); p.fits())
            return Plan{PlanKind::expert_offload, p};
    }
    for (std::uint64_t ngl = n; ngl >= 1; --ngl) {
        if (const Placement p = at(ngl, std::nullopt); p.fits())
            return Plan{PlanKind::layer_offload, p};
    }
    return Plan{PlanKind::none, all};
}

}  // namespace

TEST_CASE("placement: the one-GPU offload search finds what trying every split finds") {
    const auto& db = test::database();
    for (const auto& m : db.models) {
        const PlanSettings s = settings_for_model(m, PlanSettings{});
        const auto parts = plan_parts(m, test::quant("Q4_K_M"), s);
        if (!parts) continue;
        for (const char* gpu : {"gtx-1080-ti", "rtx-3060", "rtx-4060", "rtx-4080", "rtx-4090"}) {
            INFO(m.id << " on " << gpu);
            const Hardware h = test::hardware_of({gpu}, 64);
            const PlacementOptions o = placement_for(h, s);
            const Plan fast = plan_placement(*parts, h, o).value();
            const Plan slow = stepwise_plan(*parts, h, o);
            CHECK(fast.kind == slow.kind);
            CHECK(fast.placement.gpu_layers == slow.placement.gpu_layers);
            CHECK(fast.placement.cpu_moe_layers == slow.placement.cpu_moe_layers);
        }
    }
}

// A memo gives a lone discrete GPU the placements made on another of other memory, with its
// own capacity: the plans must be the ones made without it, in whatever order the GPUs come
// (the 4060 again after larger cards, whose searches made other placements), and hardware it
// does not apply to (two GPUs) is planned as without it.
TEST_CASE("placement: plans through a PlacementMemo are the plans made without one") {
    const Model& m = test::model("qwen3.5-35b-a3b");
    const auto parts = plan_parts(m, test::quant("Q4_K_M"), PlanSettings{}).value();
    PlacementMemo memo(parts);
    for (const auto& gpus : std::vector<std::vector<std::string>>{{"rtx-4060"},
                                                                  {"rtx-3060"},
                                                                  {"rtx-4090"},
                                                                  {"rtx-4060"},
                                                                  {"gtx-1080-ti"},
                                                                  {"rtx-3090", "rtx-3090"}}) {
        INFO(gpus.front() << " x " << gpus.size());
        const Hardware h = hardware_of(gpus, 64);
        const PlacementOptions o = placement_for(h, PlanSettings{});
        const Plan with = plan_placement(memo, h, o).value();
        const Plan without = plan_placement(parts, h, o).value();
        CHECK(with.kind == without.kind);
        CHECK(with.placement.gpu_layers == without.placement.gpu_layers);
        CHECK(with.placement.cpu_moe_layers == without.placement.cpu_moe_layers);
        REQUIRE(with.placement.gpus.size() == without.placement.gpus.size());
        for (std::size_t d = 0; d < gpus.size(); ++d) {
            CHECK(with.placement.gpus[d].capacity == without.placement.gpus[d].capacity);
            CHECK(with.placement.gpus[d].most() == without.placement.gpus[d].most());
        }
        CHECK(with.placement.ram.most() == without.placement.ram.most());
        const auto native = native_placement(memo, h, o).value();
        CHECK(native.has_value() == native_placement(parts, h, o).value().has_value());
    }
}

TEST_CASE("placement: llama.cpp's weights in RAM are the mapped file, the GPU's are not") {
    // llama.cpp maps the GGUF (use_mmap, its default) and the CPU backend computes on the
    // mapping: the RAM share's weights are page cache, not allocated memory. The quick rule
    // knows no file.
    const Model& m = test::model("qwen3.5-35b-a3b");
    const Quant& q = test::quant("Q4_K_M");
    const auto parts = plan_parts(m, q, PlanSettings{}).value();
    const auto plan = plan_placement(parts, hardware_of({"rtx-4060"}),
                                     placement_for(hardware_of({"rtx-4060"}), PlanSettings{}))
                          .value();
    REQUIRE(plan.kind == PlanKind::expert_offload);
    CHECK(plan.placement.ram.mapped == plan.placement.ram.weights);
    CHECK(plan.placement.ram.mapped > parts.input_weights);  // experts beside token_embd
    CHECK(plan.placement.gpus[0].mapped == 0);
    const auto quick =
        place(parts_of("qwen3.5-35b-a3b", "Q4_K_M", 8192), hardware_of({"rtx-4060"}), {}).value();
    CHECK(quick.ram.mapped == 0);
}

// Metal maps the model file's byte range of a device's tensors as one buffer under mmap
// (placement.cpp, tied_head_weights). A tied model by hand, in MiB: token_embd 60 and a
// per-layer table 40 in host memory (input 100), four layers of 50, no output head of its own
// (tied: the head is token_embd's duplicate, 60). The file holds 100 + 4 x 50 = 300.
// - On CUDA (no mapped buffer) the GPU holds its layers and the duplicate: 200 + 60 = 260.
// - On Metal its buffer runs from token_embd to the last block: the whole file, 300, the
//   per-layer table (40) in it beside what CUDA holds.
// - With -ngl 3 (the head and the last two layers), CUDA holds 100 + 60 = 160; Metal's range
//   still starts at token_embd and takes in the two layers left in RAM: 300 again.
// - Read without mmap (--load-mode none) the buffers are allocated: 260 as on CUDA.
// The host keeps its own in every case: 100, and 200 with two layers in RAM.
TEST_CASE("Metal with mmap maps the file from a tied head's token_embd to its last layer") {
    ModelParts parts;
    parts.overhead_percent = 0;
    for (int i = 0; i < 4; ++i) {
        LayerPart l;
        l.weights = 50 * kMiB;
        l.largest_tensor = 20 * kMiB;
        parts.layers.push_back(l);
    }
    parts.input_weights = 100 * kMiB;
    RuntimeBuffers b;
    b.output_duplicate = 60 * kMiB;
    parts.buffers = b;
    const Hardware one_gpu = hardware_of({"rtx-4090"});
    const auto gpu_weights = [&](bool maps_file, std::optional<std::uint64_t> ngl, bool mmap) {
        PlacementOptions o;
        o.gpu_layers = ngl;
        o.gpu_maps_file = {maps_file};
        o.server.mapped = mmap;
        const auto p = place(parts, one_gpu, o);
        REQUIRE(p);
        return std::pair{p->gpus[0].weights / kMiB, p->ram.weights / kMiB};
    };
    CHECK(gpu_weights(false, std::nullopt, true) == std::pair<Bytes, Bytes>{260, 100});
    CHECK(gpu_weights(true, std::nullopt, true) == std::pair<Bytes, Bytes>{300, 100});
    CHECK(gpu_weights(false, 3, true) == std::pair<Bytes, Bytes>{160, 200});
    CHECK(gpu_weights(true, 3, true) == std::pair<Bytes, Bytes>{300, 200});
    CHECK(gpu_weights(true, std::nullopt, false) == std::pair<Bytes, Bytes>{260, 100});
    // One memory (Apple silicon): Metal's buffer is newBufferWithBytesNoCopy on the mapping
    // (ggml-metal-device.m, shared storage) and the host's CPU_Mapped tensors lie in its range,
    // the same pages: the RAM side's total leaves its mapped 100 (200 with -ngl 3) out, the
    // GPU keeps the range, 300 (320 with -ngl 3: Metal offloads a host layer's batched
    // products too, ggml_backend_metal_device_offload_op, copying its largest tensor, 20, into
    // the compute buffer). Read without mmap nothing is shared: RAM 100.
    const Hardware mac = hardware_of({"m4-pro-48gb"});
    const auto totals = [&](std::optional<std::uint64_t> ngl, bool mmap) {
        PlacementOptions o;
        o.gpu_layers = ngl;
        o.gpu_maps_file = {true};
        o.server.mapped = mmap;
        const auto p = place(parts, mac, o);
        REQUIRE(p);
        return std::pair{p->gpus[0].total() / kMiB, p->ram.total() / kMiB};
    };
    CHECK(totals(std::nullopt, true) == std::pair<Bytes, Bytes>{300, 0});
    CHECK(totals(3, true) == std::pair<Bytes, Bytes>{320, 0});
    CHECK(totals(std::nullopt, false) == std::pair<Bytes, Bytes>{260, 100});
    // Untied (an output head of its own, 60), what lies within depends on where the file put
    // token_embd: the head's own weights, as on CUDA: 200 + 60.
    parts.output_weights = 60 * kMiB;
    parts.buffers->output_duplicate = 0;
    CHECK(gpu_weights(true, std::nullopt, true) == std::pair<Bytes, Bytes>{260, 100});
    CHECK(totals(std::nullopt, true) == std::pair<Bytes, Bytes>{260, 100});
}

// DeepSeek Sparse Attention's top-k leaves (llamacpp_engine.cpp, dsa_bytes): ggml-alloc
// allocates a graph's leaves before its first node and the scheduler gives each to the backend
// of the layer reading it, so a GPU's buffer holds its own MLA layers' leaves only. By hand, in
// MiB: four MLA layers, a leaf of 4 each; the whole graph 100 (output phase 50), the layers'
// phase 90, the logits batch 60. --tensor-split 3,2 over five units (four layers and the head):
// GPU 0 holds layers 0-2, GPU 1 layer 3 and the head.
// - GPU 0 (no head: the whole graph) lacks layer 3's leaf: 100 - 4 = 96.
// - GPU 1 (the head: the larger of the layers' phase and the logits batch) lacks three:
//   max(90 - 12, 60) = 78.
// - With an output phase of 98 the whole graph cannot fall under it: GPU 0 = 98.
TEST_CASE("placement: each GPU holds only its own DSA layers' top-k leaves") {
    ModelParts parts;
    parts.overhead_percent = 0;
    for (int i = 0; i < 4; ++i) {
        LayerPart l;
        l.kind = LayerKind::mla;
        l.weights = 50 * kMiB;
        parts.layers.push_back(l);
    }
    RuntimeBuffers b;
    b.compute = 100 * kMiB;
    b.output_phase = 50 * kMiB;
    b.attention_phase = 90 * kMiB;
    b.logits_batch = 60 * kMiB;
    b.dsa_leaf = 4 * kMiB;
    parts.buffers = b;
    PlacementOptions o;
    o.tensor_split = {3, 2};
    const Hardware two = hardware_of({"rtx-4090", "rtx-4090"});
    const auto p = place(parts, two, o).value();
    REQUIRE(p.gpus[0].layers == 3);
    CHECK(p.gpus[0].compute == 96 * kMiB);
    CHECK(p.gpus[1].compute == 78 * kMiB);
    parts.buffers->output_phase = 98 * kMiB;
    CHECK(place(parts, two, o).value().gpus[0].compute == 98 * kMiB);
    // one GPU holds every leaf: the figures as given
    CHECK(place(parts, hardware_of({"rtx-4090"}), {}).value().gpus[0].compute == 90 * kMiB);
}

// CUDA's MoE reduction fusion (cuda_fusion.cpp, from ggml-cuda.cu at 0ad4a86): the graph
// optimizer keeps each layer's experts' outputs alive until their sum is done, so ffn_moe_weighted
// is a second [n_embd, n_used, n_tokens] tensor and in the last layer the logits lie above it and
// the sum. Qwen3.5-35B-A3B: n_vocab 248,320, n_embd 2,048, 8 of 256 experts a token (2 <= 8 <=
// 15, the matcher's bounds), expert width 512, a shared expert after them (it keeps ffn_norm
// alive): its down products (2,048 a token an expert) do not fit the freed gate and up outputs
// (2 x 512 = 1,024), so weighted takes their block. At ubatch 512, 32768 cells:
//   the logits batch 512 x 4 x (248,320 + 2,048) = 512,753,664 B (489.00 MiB),
//   the fused rows   512 x 4 x 8 x 2,048          =  33,554,432 B,
// 546,308,096 B = 521.00 MiB (the H200: 521.02); the layers' phase, 512 x (2 x 32,768 + 4 x
// (3 x 2,048 + 3 x (8 + 1) x 512)) = 74,448,896 B, is below. ROCm builds the same source
// (ggml-hip); Vulkan has no such fusion.
TEST_CASE("placement: CUDA's MoE reduction fusion puts the logits above the weighted experts") {
    const auto options = [](Backend backend) {
        LlamaCppOptions o;
        o.context = 32768;
        o.flash_attn = FlashAttn::on;
        o.backend = backend;
        return o;
    };
    const auto compute = [&](const std::string& id, Backend backend) {
        return llamacpp_compute_bytes(test::model(id), options(backend)).value();
    };
    CHECK(compute("qwen3.5-35b-a3b", Backend::vulkan) == 512'753'664ULL);
    CHECK(compute("qwen3.5-35b-a3b", Backend::cuda) == 546'308'096ULL);
    CHECK(compute("qwen3.5-35b-a3b", Backend::rocm) == 546'308'096ULL);
    // Qwen3-30B-A3B has no shared expert: ffn_norm's freed row takes the sum lower down.
    // DeepSeek-V2-Lite's down products (2,048) fit its freed gate and up (2 x 1,408). Llama 4
    // weighs the experts' inputs (llama-graph.cpp's weight_before_ffn): no match.
    for (const char* id : {"qwen3-30b-a3b", "deepseek-v2-lite", "llama-4-scout-17b-16e"}) {
        CHECK(compute(id, Backend::cuda) == compute(id, Backend::vulkan));
    }
    // Placed on one GPU that holds the head, only a GPU whose backend fuses adds the rows.
    const auto parts = llamacpp_parts(test::model("qwen3.5-35b-a3b"), test::quant("Q4_K_M"),
                                      options(Backend::cuda))
                           .value();
    REQUIRE(parts.buffers->fused_moe_sum == 33'554'432ULL);
    PlacementOptions fused;
    fused.gpu_moe_fusion = {true};
    const auto a = place(parts, hardware_of({"h200-sxm"}), {});
    const auto b = place(parts, hardware_of({"h200-sxm"}), fused);
    REQUIRE(a);
    REQUIRE(b);
    CHECK(b->gpus[0].compute - a->gpus[0].compute == 33'554'432ULL);
}
