// --no-op-offload (llama.cpp's op_offload off) and a BLAS backend: the first GPU no longer
// copies in (all, or BLAS's share of) the weights kept in host memory for a prompt batch, and
// the CPU's compute buffer holds what it runs instead (placement.cpp, host_work, add_buffers and
// host_compute). Every figure below is derived by hand from the buffers this test sets, in MiB.

#include "canitrun/placement.hpp"

#include "catch.hpp"
#include "test_support.hpp"

using namespace canitrun;

namespace {

// Two MoE layers, each 1000 MiB of which 800 are routed experts, the largest expert tensor
// 400 MiB (the largest tensor of the layer too), 10 MiB of KV; `recurrent` gives each layer
// 1 MiB of recurrent state (Qwen3-Next's kind, where the copy adds to the graph).
ModelParts two_moe_layers(bool recurrent) {
    ModelParts parts;
    parts.overhead_percent = 0;
    for (int i = 0; i < 2; ++i) {
        LayerPart l;
        l.weights = 1000 * kMiB;
        l.routed_experts = 800 * kMiB;
        l.active_weights = 300 * kMiB;
        l.kv_cache = 10 * kMiB;
        l.recurrent_state = recurrent ? kMiB : 0;
        l.largest_tensor = 400 * kMiB;
        l.largest_expert_tensor = 400 * kMiB;
        parts.layers.push_back(l);
    }
    parts.output_weights = 100 * kMiB;
    parts.input_weights = 100 * kMiB;
    RuntimeBuffers b;
    b.compute = 300 * kMiB;
    b.attention_phase = 300 * kMiB;
    b.logits_batch = 200 * kMiB;
    b.mask_copy = 16 * kMiB;
    b.f32_mask_copy = true;    // a build before llama.cpp PR #23764: the GPU keeps the f32 copy
    b.device_mask = 8 * kMiB;  // the f16 masks: half the f32 copy
    b.expert_batch = 80 * kMiB;
    b.host_compute = 12 * kMiB;
    b.output = kMiB;
    b.output_head = 100 * kMiB;
    parts.buffers = b;
    return parts;
}

Placement placed(const ModelParts& parts, const PlacementOptions& o) {
    const auto p = place(parts, test::hardware_of({"h200-sxm"}, 256), o);
    REQUIRE(p);
    REQUIRE(p->gpus.size() == 1);
    return *p;
}

}  // namespace

// Every layer's experts in RAM (--cpu-moe) on one GPU that holds the output head.
// Without op offload GPU 0's buffer is its own graph's: the larger of the layers' phase with
// the masks' copy (300 + 16 = 316) and the output phase (200): 316 MiB.
// With it, beside recurrent layers the largest expert tensor adds to the whole graph's buffer:
// 300 + 16 + 400 = 716 MiB, so the difference is exactly the copied tensor, 400 MiB.
// With dense attention the copy reuses the graph's memory: the larger of 316 and the copy with
// one expert batch, the f16 masks and the f32 masks they are cast from, alive beside them in a
// build before PR #23764 (400 + 80 + 8 + 16 = 504): 504, 188 MiB more than 316.
TEST_CASE("no op offload: GPU 0 sheds exactly the copy of the largest expert in RAM") {
    for (const bool recurrent : {true, false}) {
        const ModelParts parts = two_moe_layers(recurrent);
        PlacementOptions with;
        with.cpu_moe_layers = 2;
        PlacementOptions without = with;
        without.op_offload = false;
        const Placement on = placed(parts, with);
        const Placement off = placed(parts, without);
        CHECK(off.gpus[0].compute == 316 * kMiB);
        CHECK(on.gpus[0].compute == (recurrent ? 716 : 504) * kMiB);
        CHECK(on.gpus[0].compute - off.gpus[0].compute == (recurrent ? 400 : 188) * kMiB);
        // The CPU runs the expert FFNs of a prompt batch instead: beside the inputs (12) its
        // buffer holds one expert batch (80), with the logits (1) in RAM as before.
        CHECK(on.ram.compute == (1 + 12) * kMiB);
        CHECK(off.ram.compute == (1 + 12 + 80) * kMiB);
        CHECK_FALSE(off.op_offload);
        // The weights stay where they were: op offload moves work, not tensors.
        CHECK(on.gpus[0].weights == off.gpus[0].weights);
        CHECK(on.ram.weights == off.ram.weights);
    }
}

// -ngl 0: every layer and the head in RAM. With op offload GPU 0 still runs the prompt
// batches: it copies in a layer's largest tensor beside the whole graph (300 + 400 + 16 = 716)
// and the head beside the logits (100 + 200 = 300), so 716 MiB. Without, GPU 0 runs nothing and
// has no compute buffer; the CPU's is its whole graph's (300), over the inputs' 12.
TEST_CASE("no op offload: with every layer in RAM GPU 0 allocates no compute buffer") {
    const ModelParts parts = two_moe_layers(false);
    PlacementOptions with;
    with.gpu_layers = 0;
    PlacementOptions without = with;
    without.op_offload = false;
    CHECK(placed(parts, with).gpus[0].compute == 716 * kMiB);
    CHECK(placed(parts, without).gpus[0].compute == 0);
    CHECK(placed(parts, without).ram.compute == (1 + 300) * kMiB);
}

// A build with BLAS (host_blas): a host weight's matrix product stays on BLAS in RAM, and GPU 0
// copies in only the routed experts, which BLAS cannot multiply (placement.cpp, host_work).
// -ngl 0: GPU 0 holds no layer, so no masks, and its buffer is the larger of the whole graph
// (300) and the largest expert with one expert batch (400 + 80 = 480): 480 MiB, against 716
// without BLAS (the layer's largest tensor beside the graph and the masks' copy, above). The host
// keeps the layers' and the head's products: the larger of its inputs (12), the whole graph
// (300) and the inputs with the logits (12 + 200 = 212), beside the logits in RAM (1): 301 MiB.
// With no routed experts there is nothing for GPU 0 to copy in and no buffer is counted there.
TEST_CASE("BLAS: with every layer in RAM GPU 0 copies in only the routed experts") {
    ModelParts parts = two_moe_layers(false);
    PlacementOptions blas;
    blas.gpu_layers = 0;
    blas.host_blas = true;
    const Placement p = placed(parts, blas);
    CHECK(p.gpus[0].compute == 480 * kMiB);
    CHECK(p.ram.compute == (1 + 300) * kMiB);
    for (auto& l : parts.layers) l.largest_expert_tensor = 0;
    CHECK(placed(parts, blas).gpus[0].compute == 0);
    CHECK(placed(parts, blas).ram.compute == (1 + 300) * kMiB);
}

// Where GPU 0 holds the layers and only their experts are in RAM (--cpu-moe), BLAS changes
// nothing: the experts go to GPU 0 either way, beside its own layers' attention and masks
// (400 + 80 + 8 + 16 = 504 MiB, as in the first case), and the host keeps its inputs (12 + 1).
TEST_CASE("BLAS: with the layers on GPU 0 and the experts in RAM the plan is unchanged") {
    const ModelParts parts = two_moe_layers(false);
    PlacementOptions blas;
    blas.cpu_moe_layers = 2;
    blas.host_blas = true;
    const Placement p = placed(parts, blas);
    CHECK(p.gpus[0].compute == 504 * kMiB);
    CHECK(p.ram.compute == (1 + 12) * kMiB);
}
