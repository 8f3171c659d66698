#include "canitrun/placement.hpp"

#include <algorithm>
#include <string_view>

namespace canitrun {
namespace {

// What a context checkpoint and the first GPU's buffer read of the layers as a whole, summed as
// place() walks them (a walk of their own was 3 % of a served answer: place() runs some 300
// times a page).
struct LayerSums {
    Bytes sliding_kv = 0;  // the sliding-window layers' KV cache
    Bytes recurrent = 0;   // every layer's recurrent state (ModelParts::recurrent_state)
};

// One context checkpoint from the sums (checkpoint_bytes says the rule).
Bytes checkpoint_of(const LayerSums& sums, const ServerTerms& server) {
    return checked::add(sums.sliding_kv / std::max<std::uint64_t>(server.kv_streams, 1),
                        sums.recurrent / std::max<std::uint64_t>(server.sequences, 1));
}

void add_overhead(Share& s, std::uint64_t percent) {
    s.overhead = checked::mul_div_floor(checked::add(s.weights, s.kv_cache), percent, 100);
}

// The cumulative memory shares made into where each GPU's offloaded units end (llama.cpp:
// upper_bound over the shares of unit / units): unit u of `units` is on the first GPU d with
// u * all < cumulative[d] * units, that is u < ceil(cumulative[d] * units / all) = ends[d]
// (the last GPU's end is `units`). Worked out once a placement rather than asked once a layer.
void to_unit_ends(std::vector<Bytes>& cumulative, std::uint64_t units) {
    if (cumulative.empty()) return;
    const Bytes all = cumulative.back();
    for (std::size_t d = 0; d + 1 < cumulative.size(); ++d) {
        cumulative[d] = std::min(units, checked::mul_div_ceil(cumulative[d], units, all));
    }
    cumulative.back() = units;  // all * units / all: no division (most placements: one GPU)
}

// The GPU of offloaded unit `unit`: the first whose end is past it. Asked once a layer whose
// experts are in RAM: one GPU (most placements) answers without a walk.
std::size_t device_of(std::uint64_t unit, const std::vector<std::uint64_t>& ends) {
    if (ends.size() == 1) return 0;
    for (std::size_t d = 0; d + 1 < ends.size(); ++d) {
        if (unit < ends[d]) return d;
    }
    return ends.size() - 1;
}

// The llama.cpp rule's buffers: a compute buffer on every device that runs a layer, the
// runtime's memory on every GPU it uses, the logits in RAM, and with tied embeddings the copy
// of token_embd that an offloaded output layer needs (on the CPU the mapped file backs both).
//
// Op offload (ggml-backend.cpp's scheduler, on by default; --no-op-offload turns it off): a
// prompt batch's matrix product over a weight kept in host memory runs on the first GPU, which
// copies that weight into its compute buffer (`HostCopy`).
//
// Measured on an H200 (validation/cuda-h200/: five MoE models with -ot exps=CPU, 20 settings):
// - with dense attention, the copied expert weight and the expert FFN's activations reuse the
//   graph's memory: the buffer is the larger of the graph's own and the copy plus one expert
//   batch (exact to 0.01 MiB on Mixtral 8x7B at 32k and 128k; Qwen3-30B-A3B and gpt-oss-20b
//   keep their graph's size, as this says);
// - beside recurrent layers (Qwen3.5, Qwen3-Next), the copy adds to the graph's buffer: 867 and
//   920 MiB measured against 521 and 305 without it; the sum reads -14 % to +57 %, the closest
//   simple rule found, so it is kept there until the allocator's order is derived.
// A layer wholly in host memory (-ngl below the layer count) keeps the sum: the published logs
// with -ngl 0 to 40 of 41 were read with it (docs/ACCURACY-GPU.md).
//
// The output head in host memory (-ngl at most the layer count) is offloaded the same way: its
// product of a ubatch runs on GPU 0 with the head copied in, beside the logits and the normed
// rows (RuntimeBuffers::logits_batch). That phase comes after every layer's, so the buffer is
// the larger of the two. Exact to 0.02 MiB on the four published logs with the head in RAM:
// Qwen3-8B Q4_K_M (Q6_K head, 486.85 + 296.75 + 8.00 = 791.61 MiB), Qwen3-4B Q6_K (tied:
// token_embd 304.28 + 296.75 + 5.00 = 606.03), Qwen3-14B Q8_0 on ROCm (788.24 + 296.75 + 10.00
// = 1094.99) and Qwen2.5-7B at ubatch 256 (426.36 + 148.50 + 3.50 = 578.36; validation/
// llama-logs/cudab-017, -018, rocm-008, cudab-025), where the rule above read -45 to -64 %.
// (verify plans the first three; cudab-025's build put a layer, not the head, on its GPU.)
struct HostCopy {
    Bytes layer = 0;         // the largest tensor of a layer in host memory
    Bytes expert = 0;        // the largest routed-expert tensor of a layer whose experts are
    Bytes layer_expert = 0;  // the largest routed-expert tensor of a layer in host memory
    bool head = false;       // the output head is in host memory
};

// Of the host's weights, what GPU 0 copies in and what the host multiplies itself. Beside BLAS
// (host_blas), ggml-backend.cpp's ggml_backend_sched_backend_id_from_cur (0ad4a86) offers an op
// to the GPUs only if its weight's first backend (ggml_backend_sched_backend_from_buffer) is the
// last, the CPU; BLAS is before it and takes host buffers and every MUL_MAT of 32 or more on each
// side (ggml-blas.cpp), so the layers' and head's products stay on it, the experts' MUL_MAT_ID
// goes to GPU 0, and the attention between runs on the CPU (expanded from the KV store). Checked
// on cudab-022 (Qwen3-235B-A22B -ngl 0, BLAS): GPU 0 holds 742 MiB, the 630 MiB expert and 112 of
// its activations (expert_batch, measured on a later build: 160, +6.5 %; the whole graph: +31 %).
struct HostWork {
    HostCopy gpu;
    HostCopy host;
};
HostWork host_work(const HostCopy& host, const PlacementOptions& options) {
    if (!options.op_offload) return {HostCopy{}, host};
    if (!options.host_blas) return {host, HostCopy{}};
    return {HostCopy{0, std::max(host.expert, host.layer_expert), 0, false},
            HostCopy{host.layer, 0, 0, host.head}};
}

// One GPU's graph: `mask` is the KQ masks' device copy, where the backend keeps one, and
// `layer_copy` a host layer's tensor copied in (op offload).
//
// On the GPU that holds the output head, the output phase is the logits and the normed rows
// they are the product of (RuntimeBuffers::logits_batch), and nothing else: the masks and the
// layers' activations are dead by then, so it is the larger of that and the layers' phase with
// the masks' copy. The CPU backend's buffer holds a second activation row beside the logits
// (llamacpp_engine.cpp's fit); a GPU's does not. Exact (to 0.01 MiB) on the published logs
// whose output phase sets the buffer: gpt-oss-20b (512 x 4 x (201088 + 2880) = 398.38 MiB,
// validation/llama-logs/cudab-001, -002, -003), Qwen2.5-14B (307.00, cudab-015), TinyLlama on
// Vulkan, Llama 3.1 8B on Metal, and on the H200 (validation/cuda-h200/, run1 and run2: 86
// settings of 13 models) 0.38 % at the median, from 8.4 % with the CPU's output phase: on a
// backend with CUDA's MoE reduction fusion (`fused_sum`, RuntimeBuffers::fused_moe_sum) the
// logits lie above the fused experts' kept outputs (cuda_fusion.cpp, which names its misses).
// It reads low where the layers' phase is larger than modelled: Phi-4 by 10 %.
// A GPU without the head (a split over several, pipeline-parallel) keeps the whole-graph rule:
// its one published log (cudab-012, 4x A6000) reads +51 % there, -63 % by the layers alone.
// So does a GPU that copies in a host layer's tensor, as one beside host experts does (below):
// the planner weighs layers against experts in RAM by one rule (Mistral Nemo with -ngl 40 of
// 41, cudab-013 / -014, reads +31 % / +10 % by it, exact by the output phase).
Bytes gpu_graph(const RuntimeBuffers& b, bool holds_output, Bytes mask, Bytes layer_copy,
                Bytes fused_sum) {
    if (!holds_output || layer_copy > 0) {
        return checked::add(checked::add(b.compute, layer_copy), mask);
    }
    const Bytes layers = checked::add(checked::add(b.attention_phase, layer_copy), mask);
    return std::max(layers, checked::add(b.logits_batch, fused_sum));
}

// The KQ masks on one GPU (0 on a backend that keeps none): `copy` the f32 copy of a build
// before PR #23764, `device` as the layers read them (f16 under flash attention), `f32` their
// f32 size, which the recurrent rule below was fitted with; `cast_source` the f32 copy where it
// is a tensor apart from `device`, the f16 cast flash attention reads (a build before #23764
// with flash attention; without it the layers read the f32 copy itself).
struct GpuMasks {
    Bytes copy = 0;
    Bytes device = 0;
    Bytes f32 = 0;
    Bytes cast_source = 0;
};

// Beside an expert copy the masks live as the layers read them, and the graph is the
// whole-graph rule the H200 runs (80fb11a, no f32 copy) were measured against. A build before
// PR #23764 keeps the f32 masks the cast reads there too (a graph input, alive from the first
// split; `cast_source`): Qwen3-235B-A22B with -ot exps=CPU and flash attention, GPU 0 holds
// the expert copy, its batch and 32 + 64 MiB of masks at 16k (validation/llama-logs/cudax-001:
// 816 + 96 (the older graph's batch) + 32 + 64 = 1008 MiB, llama.cpp's 1024.00, -1.6 %; cudax-002
// 630 + 96 + 16 + 32 = 774, llama.cpp's 774.00). Beside recurrent
// layers the sum keeps the f32 masks' size it was fitted with (reads -14 % to +57 %).
// `recurrent` is every layer's recurrent state (place() sums it as it places the layers).
Bytes first_gpu_compute(const RuntimeBuffers& b, const HostCopy& copy, const GpuMasks& masks,
                        bool holds_output, Bytes recurrent, Bytes fused_sum) {
    Bytes c = gpu_graph(b, holds_output, masks.copy, copy.layer, fused_sum);
    if (copy.head) c = std::max(c, checked::add(b.output_head, b.logits_batch));
    if (copy.expert == 0) return c;
    c = checked::add(checked::add(b.compute, copy.layer), masks.copy);
    const Bytes with_expert = recurrent > 0
                                  ? checked::add(checked::add(b.compute, copy.layer),
                                                 checked::add(masks.f32, copy.expert))
                                  : checked::add(checked::add(copy.expert, b.expert_batch),
                                                 checked::add(masks.device, masks.cast_source));
    return std::max(c, with_expert);
}

// The host's compute buffer beside GPUs. With op offload it holds the graph's inputs (the
// pinned CUDA_Host / Vulkan_Host buffer), whatever layers it holds: their batched products run
// on GPU 0, as the published logs with -ngl 0 to 40 of 41 show (validation/llama-logs/cudab-013,
// -014, -017, -018: 13 to 36 MiB on the host).
//
// Without it (--no-op-offload: llama-context.cpp hands cparams.op_offload to
// ggml_backend_sched_new, and ggml-backend.cpp's ggml_backend_sched_backend_id_from_cur then
// keeps an op whose weight sits in a host buffer on the CPU backend instead of asking the GPUs'
// offload_op), the CPU runs those products and its buffer holds their activations too: a host
// layer's whole graph (the CPU-alone buffer, an upper bound: it runs the host layers only), a
// host expert's batch (expert_batch), the head's logits. Derived from the graph; no recorded
// log runs --no-op-offload, so these are not checked. Beside BLAS the host keeps a layer's and
// the head's products (host_work); `copy` is what the host keeps.
Bytes host_compute(const RuntimeBuffers& b, const HostCopy& copy) {
    Bytes c = b.host_compute;
    if (copy.layer > 0) c = std::max(c, b.compute);
    if (copy.expert > 0) c = std::max(c, checked::add(b.host_compute, b.expert_batch));
    if (copy.head) c = std::max(c, checked::add(b.host_compute, b.logits_batch));
    return c;
}

// The weights of the GPU that holds a tied output head: the layers it holds and token_embd's
// duplicate. On a backend that maps the model file (PlacementOptions::gpu_maps_file, Metal with
// mmap) its buffer is the file's whole byte range from that context's first tensor to its last:
// llama-model.cpp's load_tensors (0ad4a86) asks ml.get_mapping_range for the range and hands it
// to ggml_backend_dev_buffer_from_host_ptr as one buffer, and llama-model-loader.cpp's
// get_mapping_range takes the smallest offset and the largest end of the context's tensors. The
// duplicate is token_embd's own bytes, so the range reaches token_embd; in either order a file
// comes in (convert_hf_to_gguf's: token_embd, per_layer_token_embd after it, the blocks; or
// llama-quantize's: llama-quant.cpp walks weights_map, whose weight_name_comparer puts every
// tensor outside the blocks first) every tensor lies between that and the last block: the host
// inputs (Gemma 4's per-layer table) and any layers left in RAM too (llama.cpp issue #24510:
// -ngl 2 maps the whole 30 GB file). Untied, what lies within depends on where the file put
// token_embd (the published Metal logs show both), so only the tied case is counted.
// Whether the head's GPU maps the whole file's range: a tied head's copy under a mapping backend.
bool maps_whole_file(const ModelParts& parts, bool maps_file) {
    return maps_file && parts.buffers->output_duplicate > 0;
}

Bytes tied_head_weights(const ModelParts& parts, const Share& g, bool maps_file) {
    const Bytes held = checked::add(g.weights, parts.buffers->output_duplicate);
    if (!maps_whole_file(parts, maps_file)) return held;
    return std::max(held, parts.weights());
}

// The llama.cpp rule's buffers: a compute buffer on every device that runs a layer, the
// runtime's memory on every GPU it uses, the logits in RAM, and with tied embeddings the copy
// of token_embd that an offloaded output layer needs (on the CPU the mapped file backs both).
// `host` is what stays in host memory; the first GPU copies in its share of it (host_work).
// Returns whether a GPU's buffer maps the file's whole range (tied_head_weights).
bool add_buffers(Placement& p, const ModelParts& parts, const PlacementOptions& options,
                 bool output_on_gpu, const HostCopy& host, const LayerSums& sums) {
    const RuntimeBuffers& all = *parts.buffers;
    const HostWork work = host_work(host, options);
    const HostCopy& copy = work.gpu;
    bool maps_all = false;
    std::uint64_t mla_layers = p.ram.mla_layers;  // every MLA layer, wherever it is
    for (const auto& g : p.gpus) mla_layers += g.mla_layers;
    RuntimeBuffers own;  // a GPU's buffers where they differ from `all` (own_dsa_leaves)
    for (std::size_t d = 0; d < p.gpus.size(); ++d) {
        Share& g = p.gpus[d];
        const RuntimeBuffers& b = own_dsa_leaves(all, mla_layers - g.mla_layers, own);
        // GPU 0 runs the prompt batches of the host's layers (op offload) even holding none.
        const bool offloads = d == 0 && (copy.layer > 0 || copy.expert > 0 || copy.head);
        if (g.layers == 0 && !g.output && !offloads) continue;
        // Beside BLAS a GPU without layers runs no attention (host_work), so holds no masks.
        const bool mask = (d >= options.gpu_mask_copy.size() || options.gpu_mask_copy[d]) &&
                          (g.layers > 0 || !options.host_blas);
        const Bytes copy_f32 = mask && b.f32_mask_copy ? b.mask_copy : 0;
        const Bytes device = mask ? b.device_mask : 0;
        // device_mask_of: the f16 cast is half the f32 copy; without flash attention they are
        // one tensor
        const GpuMasks masks{copy_f32, device, mask ? b.mask_copy : 0,
                             copy_f32 != device ? copy_f32 : 0};
        const bool holds_output = g.output && output_on_gpu;
        const bool fuses = d < options.gpu_moe_fusion.size() && options.gpu_moe_fusion[d];
        const Bytes fused = fuses ? b.fused_moe_sum : 0;
        g.compute = d == 0 ? first_gpu_compute(b, copy, masks, holds_output, sums.recurrent, fused)
                           : gpu_graph(b, holds_output, masks.copy, 0, fused);
        if (d < options.gpu_runtime.size()) g.runtime = options.gpu_runtime[d];
        if (d < options.gpu_pool.size() && options.gpu_pool[d]) {
            g.runtime = checked::add(g.runtime, b.cuda_pool);
        }
        const bool maps_file =
            options.server.mapped && d < options.gpu_maps_file.size() && options.gpu_maps_file[d];
        if (holds_output) {
            g.weights = tied_head_weights(parts, g, maps_file);
            maps_all = maps_all || maps_whole_file(parts, maps_file);
        }
    }
    // Alone, the CPU backend's whole compute buffer.
    p.ram.compute =
        checked::add(all.output, p.gpus.empty() ? all.compute : host_compute(all, work.host));
    return maps_all;
}

// The name is copied only for a term kept: most are 0, and place() runs some 300 times a page.
void add_term(Share& s, std::string_view name, Bytes load, Bytes most) {
    if (most == 0) return;
    s.resident.push_back(ResidentTerm{std::string(name), load, most});
}

// The largest tensor llama.cpp reads into host memory and the largest into a GPU's: the input
// embedding, the layers in RAM (and the routed experts --n-cpu-moe keeps there) and the head
// where it is, against the GPUs' layers. A layer's largest tensor stands for its share on
// either side (an upper bound where --n-cpu-moe splits a layer).
struct LargestRead {
    Bytes host = 0;
    Bytes gpu = 0;
};
LargestRead largest_reads(const ModelParts& parts, const Placement& p) {
    const std::uint64_t n = parts.layers.size();
    const std::uint64_t first_gpu_unit = n + 1 - std::min(p.gpu_layers, n + 1);
    LargestRead r{parts.input_weights, 0};
    for (std::uint64_t i = 0; i < n; ++i) {
        const LayerPart& layer = parts.layers[i];
        if (i < first_gpu_unit) {
            r.host = std::max(r.host, layer.largest_tensor);
            continue;
        }
        r.gpu = std::max(r.gpu, layer.largest_tensor);
        if (p.experts_in_ram(i)) r.host = std::max(r.host, layer.largest_expert_tensor);
    }
    Bytes& head = p.ram.output ? r.host : r.gpu;
    head = std::max(head, parts.buffers->output_head);
    return r;
}

// What loading holds in RAM beside the weights without mmap (server_terms.hpp): the GPUs'
// contexts load first, each through its staging, then the host's, then the draft model's
// through its own, so the largest of the three.
Bytes load_staging(const ModelParts& parts, const Placement& p, const ServerTerms& server) {
    if (server.mapped) return server.draft_staging;
    const LargestRead r = largest_reads(parts, p);
    const Bytes gpu = r.gpu == 0 ? 0 : server.upload_by_tensor ? r.gpu : server.upload_buffers;
    Bytes host = 0;
    if (server.direct_block > 0 && r.host > 0) {
        const Bytes block = server.direct_block;
        host = checked::mul(checked::add(r.host, 2 * block - 1) / block, block);
    }
    return std::max({gpu, host, server.draft_staging});
}

// The server's terms on their devices (plan/server_terms.hpp says each rule).
void add_server_terms(Placement& p, const ModelParts& parts, const ServerTerms& server,
                      const LayerSums& sums) {
    add_term(p.ram, "prompt_cache", 0, server.prompt_cache);
    add_term(p.ram, "ctx_checkpoints", 0,
             checked::mul(server.checkpoints, checkpoint_of(sums, server)));
    // Read without mmap, a repacked tensor is read into its CPU_REPACK buffer alone: no copy.
    if (p.gpus.empty() && server.mapped) {
        add_term(p.ram, "cpu_repack", server.cpu_repack, server.cpu_repack);
    }
    const Bytes staging = load_staging(parts, p, server);
    add_term(p.ram, "load_staging", staging, staging);
    if (!p.gpus.empty()) {
        add_term(p.ram, "nkvo_attention", server.nkvo_attention, server.nkvo_attention);
    }
    // llama.cpp's layers past the stack go where the output head goes (dev_output)
    Share* head = p.ram.output ? &p.ram : nullptr;
    for (auto& g : p.gpus) head = g.output ? &g : head;
    if (head != nullptr) add_term(*head, "mtp", server.mtp, server.mtp);
    // mtmd's clip_ctx takes the first GPU backend (ggml_backend_init_by_type(GPU)) unless told
    // not to; alone on the CPU its whole graph runs there.
    Share& clip = server.projector_on_gpu && !p.gpus.empty() ? p.gpus.front() : p.ram;
    add_term(clip, "projector", server.projector, server.projector);
    add_term(clip, "projector_compute", server.projector_compute, server.projector_compute);
    if (&clip != &p.ram) {
        add_term(p.ram, "projector_host_compute", server.projector_host_compute,
                 server.projector_host_compute);
    }
    for (const auto& c : server.companions) {
        for (std::size_t d = 0; d < c.gpus.size() && d < p.gpus.size(); ++d) {
            add_term(p.gpus[d], c.name, c.gpus[d], c.gpus[d]);
        }
        add_term(p.ram, c.name, c.ram, c.ram);
    }
}

// One memory (Apple silicon, an APU): the CPU side may also take what a unified GPU's share
// leaves unused (not another host's card over RPC), since the GPU's limit (macOS's wired
// limit, an APU's GTT size) caps what the GPU allocates, not what the host does. What the host
// holds and grows into (llama-server's prompt cache) then fits within the machine's memory.
void add_unified_room(Placement& p, const Hardware& hardware) {
    for (std::size_t d = 0; d < p.gpus.size() && d < hardware.gpus.size(); ++d) {
        const Share& g = p.gpus[d];
        if (hardware.gpus[d].unified && g.capacity > g.most())
            p.ram.capacity = checked::add(p.ram.capacity, g.capacity - g.most());
    }
}

// Each GPU's share with its capacity (memory less the margin), and the cumulative split the
// units go by: the given --tensor-split, else each GPU's memory.
Result<std::vector<Bytes>> set_up_gpus(Placement& p, const Hardware& hardware,
                                       const PlacementOptions& options) {
    const auto& split = options.tensor_split;
    if (!split.empty() && split.size() != hardware.gpus.size()) {
        return fail(ErrorKind::bad_input,
                    "--tensor-split gives " + std::to_string(split.size()) + " proportions for " +
                        std::to_string(hardware.gpus.size()) + " GPUs",
                    "give one proportion per GPU, as in --tensor-split 3,1");
    }
    p.tensor_split = split;
    p.gpus.reserve(hardware.gpus.size());  // a Share moved is a tenth of a placement on 3 GPUs
    std::vector<Bytes> cumulative;
    cumulative.reserve(hardware.gpus.size());  // one allocation, not one per doubling
    for (std::size_t d = 0; d < hardware.gpus.size(); ++d) {
        const Bytes memory = hardware.gpus[d].memory;
        p.gpus.push_back(Share{});
        p.gpus.back().capacity = gpu_capacity(memory, options.margin);
        cumulative.push_back(checked::add(cumulative.empty() ? 0 : cumulative.back(),
                                          split.empty() ? memory : split[d]));
    }
    if (!cumulative.empty() && cumulative.back() == 0) {
        return fail(
            ErrorKind::bad_input,
            split.empty() ? "the GPUs given have no memory" : "--tensor-split gives every GPU 0",
            split.empty() ? "give --vram or a GPU by name" : "give at least one GPU a share");
    }
    return cumulative;
}

// The largest weights the first GPU copies in for a prompt batch (add_buffers): of the layers
// in host memory, their largest tensor; of the layers whose experts are, the largest expert.
HostCopy host_weight_copy(const ModelParts& parts, const Placement& p,
                          std::uint64_t first_gpu_unit) {
    HostCopy copy;
    if (p.gpus.empty()) return copy;
    // Past both the host's layers and the experts in RAM, no layer adds to either.
    const std::uint64_t end =
        std::min<std::uint64_t>(parts.layers.size(), std::max(first_gpu_unit, p.experts_end()));
    for (std::uint64_t i = 0; i < end; ++i) {
        const LayerPart& layer = parts.layers[i];
        if (i < first_gpu_unit) {
            copy.layer = std::max(copy.layer, layer.largest_tensor);
            copy.layer_expert = std::max(copy.layer_expert, layer.largest_expert_tensor);
        } else if (p.experts_in_ram(i)) {
            copy.expert = std::max(copy.expert, layer.largest_expert_tensor);
        }
    }
    return copy;
}

// A layer on GPU share `s` whose routed experts stay in RAM (--n-cpu-moe).
void add_split_layer(Placement& p, const LayerPart& layer, Share& s, Share& cache,
                     LayerSums& sums) {
    ++s.layers;
    if (layer.kind == LayerKind::mla) ++s.mla_layers;
    if (layer.kind == LayerKind::sliding) {
        sums.sliding_kv = checked::add(sums.sliding_kv, layer.kv_cache);
    }
    sums.recurrent = checked::add(sums.recurrent, layer.recurrent_state);
    cache.kv_cache = checked::add(cache.kv_cache, layer.kv_cache);
    cache.recurrent_state = checked::add(cache.recurrent_state, layer.recurrent_state);
    const Bytes active_routed = active_routed_of(layer);
    s.weights = checked::add(s.weights, layer.weights - layer.routed_experts);
    s.read_per_token = checked::add(s.read_per_token, layer.active_weights - active_routed);
    cache.read_per_token = checked::add(cache.read_per_token, layer.kv_cache);
    s.active_weights = checked::add(s.active_weights, layer.active_weights - active_routed);
    p.ram.weights = checked::add(p.ram.weights, layer.routed_experts);
    p.ram.read_per_token = checked::add(p.ram.read_per_token, active_routed);
    p.ram.active_weights = checked::add(p.ram.active_weights, active_routed);
    p.ram.active_experts = checked::add(p.ram.active_experts, active_routed);
    if (layer.routed_experts > 0) ++p.ram.moe_layers;
}

// Layers [from, to) whole on share `s`, their cache on `cache`: their sums (the running sums'
// where kept, else a walk) added to the shares (and the sums) once (place() runs some 300 times
// a page, and adding layer by layer through the shares was most of it). The terms are not
// negative, so a sum overflows exactly when the layer-by-layer adds it stands for would.
void add_whole_layers(const ModelParts& parts, const LayerRuns& runs, std::uint64_t from,
                      std::uint64_t to, Share& s, Share& cache, LayerSums& sums) {
    const LayerRunSums r =
        runs.kept_for(parts.layers.size()) ? runs.between(from, to) : sum_layers(parts, from, to);
    s.layers += to - from;
    sums.sliding_kv = checked::add(sums.sliding_kv, r.sliding_kv);
    sums.recurrent = checked::add(sums.recurrent, r.recurrent_state);
    cache.kv_cache = checked::add(cache.kv_cache, r.kv_cache);
    cache.recurrent_state = checked::add(cache.recurrent_state, r.recurrent_state);
    s.weights = checked::add(s.weights, r.weights);
    s.read_per_token = checked::add(s.read_per_token, r.active_weights);
    cache.read_per_token = checked::add(cache.read_per_token, r.kv_cache);
    s.active_weights = checked::add(s.active_weights, r.active_weights);
    s.active_experts = checked::add(s.active_experts, r.active_experts);
    s.moe_layers += r.moe_layers;
    s.mla_layers += r.mla_layers;
}

// The end of the run of whole layers from GPU layer `i` on its GPU: where the GPU's units end,
// or the next layer whose experts are in RAM (only -ot's chosen set has one after a whole layer).
std::uint64_t whole_run_end(const Placement& p, std::uint64_t i, std::uint64_t first_gpu_unit,
                            const std::vector<std::uint64_t>& ends, std::uint64_t n) {
    const std::uint64_t gpu_end = first_gpu_unit + ends[device_of(i - first_gpu_unit, ends)];
    std::uint64_t end = std::min(n, gpu_end);
    const auto next = std::upper_bound(p.cpu_moe_set.begin(), p.cpu_moe_set.end(), i);
    if (next != p.cpu_moe_set.end()) end = std::min(end, *next);
    return end;
}

}  // namespace

// One context checkpoint of one sequence (llama_state_seq_get_size_ext with
// LLAMA_STATE_SEQ_FLAGS_PARTIAL_ONLY, llama-kv-cache-iswa.cpp / llama-memory-hybrid.cpp
// state_write): the sliding-window layers' K and V of one stream and the recurrent state of
// one sequence. The few bytes of cell metadata per cell (position, sequence count) are left
// out. 0 for a model with neither: llama-server makes no checkpoints for it.
Bytes checkpoint_bytes(const ModelParts& parts, const ServerTerms& server) {
    LayerSums sums;
    for (const auto& l : parts.layers) {
        if (l.kind == LayerKind::sliding)
            sums.sliding_kv = checked::add(sums.sliding_kv, l.kv_cache);
        sums.recurrent = checked::add(sums.recurrent, l.recurrent_state);
    }
    return checkpoint_of(sums, server);
}

Result<Placement> place(const ModelParts& parts, const Hardware& hardware,
                        const PlacementOptions& options) {
    return place(parts, hardware, options, LayerRuns{});
}

Result<Placement> place(const ModelParts& parts, const Hardware& hardware,
                        const PlacementOptions& options, const LayerRuns& runs) {
    return catch_overflow(
        [&]() -> Result<Placement> {
            const std::uint64_t n = parts.layers.size();
            Placement p;
            p.op_offload = options.op_offload;
            p.idle_units = parts.idle_units;
            p.gpu_layers =
                hardware.gpus.empty() ? 0 : std::min(options.gpu_layers.value_or(n + 1), n + 1);
            p.cpu_moe_layers = std::min<std::uint64_t>(options.cpu_moe_layers.value_or(0), n);
            p.cpu_moe_set = options.cpu_moe_set;  // fastest_plan's: the model's layers
            if (!p.cpu_moe_set.empty()) p.cpu_moe_layers = p.cpu_moe_set.size();
            p.ram.capacity = hardware.ram;
            CANITRUN_TRY_ASSIGN(auto ends, set_up_gpus(p, hardware, options));
            to_unit_ends(ends, p.gpu_layers);
            const std::uint64_t first_gpu_unit = n + 1 - p.gpu_layers;
            LayerSums sums;
            const auto share_of = [&](std::uint64_t unit) -> Share& {
                if (unit < first_gpu_unit) return p.ram;
                return p.gpus[device_of(unit - first_gpu_unit, ends)];
            };

            for (std::uint64_t i = 0; i < n;) {
                Share& s = share_of(i);
                // --no-kv-offload: llama_kv_cache and llama_memory_recurrent put each layer's
                // cache on the CPU when offload is off (cparams.offload_kqv).
                Share& cache = options.server.kv_in_ram ? p.ram : s;
                if (p.experts_in_ram(i) && &s != &p.ram) {
                    add_split_layer(p, parts.layers[i], s, cache, sums);
                    ++i;
                    continue;
                }
                // The layers after it on the same share up to the next split one: the host's
                // run ends where the GPUs' units start, one GPU takes every unit after that, and
                // of several a GPU's run ends where its units end or at the next layer of -ot's
                // chosen set (--n-cpu-moe's are before every whole one).
                std::uint64_t end = n;
                if (i < first_gpu_unit) {
                    end = std::min(first_gpu_unit, n);
                } else if (ends.size() > 1 || p.experts_end() > i) {
                    end = whole_run_end(p, i, first_gpu_unit, ends, n);
                }
                add_whole_layers(parts, runs, i, end, s, cache, sums);
                i = end;
            }
            Share& head = share_of(n);
            head.output = true;
            head.weights = checked::add(head.weights, parts.output_weights);
            // A token reads the head's matrix whole: with tied embeddings token_embd itself
            // (llama.cpp's output layer multiplies by it: an offloaded head's copy, the host's own
            // tensor on the CPU), which output_weights, the memory it adds, leaves out.
            const Bytes head_read = checked::add(
                parts.output_weights, parts.buffers ? parts.buffers->output_duplicate : 0);
            head.read_per_token = checked::add(head.read_per_token, head_read);
            head.active_weights = checked::add(head.active_weights, head_read);
            // llama.cpp keeps token_embd on the host; the quick rule puts it with layer 0.
            Share& input = parts.buffers ? p.ram : n == 0 ? head : share_of(0);
            input.weights =
                checked::add(input.weights, parts.input_weights);  // one row read per token
            input.embedding = checked::add(input.embedding, parts.input_weights);
            if (parts.buffers) {
                HostCopy copy = host_weight_copy(parts, p, first_gpu_unit);
                copy.head = &head == &p.ram && !p.gpus.empty();
                const bool maps_all = add_buffers(p, parts, options, &head != &p.ram, copy, sums);
                p.ram.mapped = options.server.mapped ? p.ram.weights : 0;  // not --load-mode
                // on one memory the host's mapped tensors lie in the GPU's mapped range (Share)
                if (maps_all && hardware.unified()) p.ram.mapped_by_gpu = p.ram.mapped;
                add_server_terms(p, parts, options.server, sums);
            }

            for (auto& g : p.gpus) add_overhead(g, parts.overhead_percent);
            add_overhead(p.ram, parts.overhead_percent);
            if (hardware.unified()) add_unified_room(p, hardware);
            // After the unified room: the growth is checked against what the RAM may take.
            if (parts.buffers) cap_growth(p, options.server, checkpoint_of(sums, options.server));
            return p;
        },
        [&] { return overflow_error("the placement", "lower --ctx"); });
}

}  // namespace canitrun
