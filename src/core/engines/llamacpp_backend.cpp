#include "canitrun/llamacpp_engine.hpp"

#include "canitrun/kv_cache.hpp"
#include "canitrun/name_match.hpp"

// The backends llama.cpp runs on, as the planner tells them apart: their names on the command
// line, and what each runtime holds beside llama.cpp's own buffers (the CUDA context and pool,
// the KQ masks' device copy). The buffers themselves: llamacpp_engine.cpp.
namespace canitrun {

Result<FlashAttn> parse_flash_attn(const std::string& text) {
    const std::string t = to_lower(text);
    if (t == "on" || t == "1" || t == "true") return FlashAttn::on;
    if (t == "off" || t == "0" || t == "false") return FlashAttn::off;
    if (t == "auto") return FlashAttn::automatic;
    return fail(ErrorKind::bad_input, "bad --flash-attn value '" + text + "'",
                "use on, off or auto");
}

Result<Backend> parse_backend(const std::string& text) {
    const std::string t = to_lower(text);
    if (t == "cpu") return Backend::cpu;
    if (t == "cuda") return Backend::cuda;
    if (t == "rocm" || t == "hip") return Backend::rocm;
    if (t == "metal") return Backend::metal;
    if (t == "vulkan") return Backend::vulkan;
    return fail(ErrorKind::bad_input, "unknown backend '" + text + "'",
                "use cpu, cuda, rocm, metal or vulkan");
}

const char* backend_name(Backend backend) {
    switch (backend) {
        case Backend::cpu:
            return "cpu";
        case Backend::cuda:
            return "cuda";
        case Backend::rocm:
            return "rocm";
        case Backend::metal:
            return "metal";
        case Backend::vulkan:
            return "vulkan";
    }
    return "?";
}

Result<GgmlType> parse_cache_type(const std::string& text) {
    const KvType* kv = find_kv_type(text);
    if (kv == nullptr || !is_llamacpp_kv_type(*kv)) {
        return fail(ErrorKind::bad_input, "llama.cpp has no KV cache type '" + text + "'",
                    "use one of: " + llamacpp_kv_type_names());
    }
    return *find_ggml_type(kv->id);
}

Bytes runtime_overhead_bytes(Backend backend) {
    // What the GPU runtime itself holds beside llama.cpp's buffers, which its logs do not
    // show: the CUDA / HIP context with its loaded kernels, the cuBLAS / rocBLAS handle and
    // workspace, and ggml-cuda's memory pool. Measured on an H200 (CUDA 13.0;
    // validation/cuda-h200/, 117 rows of 13 models): the bare context 527 MiB, 597-605 MiB once a
    // context has run, and after decoding 609-663 MiB for dense models with flash attention, which
    // 672 MiB covers (cuda_pool_bytes adds the rest where the pool grows). Smaller GPUs' contexts
    // are no larger (it grows with the SM count), so the H200 figure is the safe side. ROCm by the
    // same rule, from llama.cpp's exit table (validation/runtime-term.json, each row with its
    // source): fitted on three Linux machines with discrete cards, 4x / 3x MI50 (builds 8296,
    // 8478 and a fork, 512-4096 cells: 253-491 MiB, 34 MiB of it there before the load), an RX
    // 6700 XT (131072 cells with an f16 cache: 347 MiB; its per-process VRAM 217 MiB beyond the
    // buffers) and an RX 7900 XT (4096 cells: 242 MiB); the largest, 491, rounded up to a whole
    // 16 MiB is 496 (cuda_pool_bytes adds the same 96 MiB for experts, recurrent layers or flash
    // attention off). Not held: the MI50s and the RX 6700 XT with a quantized cache at 64000 and
    // 63500-66000 cells (1320-5024 MiB: before PR #23907 the legacy pool kept flash attention's
    // f16 copies of the cache, which the pinned build reserves in the attention node); Windows
    // reads ~0.8 GB at peak and WSL2 ~783 MiB at start-up (noted, not fitted). Vulkan by the same
    // rule, on two Linux machines with discrete cards: inferswarm02 (build 10917), an RTX 3060 Ti
    // with the same 339 MiB in use at every load, 416-475 MiB beyond it after the run (its exit
    // table less its load line), and an RX 580 beside it (RADV) 13 MiB; and an RTX 3090
    // whose per-process VRAM (nvidia-smi) rose 152 MiB beyond the buffers at its peak (build
    // 9849). The largest, 475, rounded up to a whole 16 MiB is 480; the Strix Halo APU's 33 runs
    // (-79 to +64 MiB after the load) are inside it. Not held: the 3090's own exit tables (the
    // desktop's card, NVIDIA's budget moving with it: 268 MiB in the per-process run, 412 for a
    // dense 8B, 731 for Qwen3 30B A3B, the only MoE read, so a routed-expert model's Vulkan term is
    // not measured) and the RX 6700 XT that drives a desktop (RADV's budget counts every process).
    // No Intel card, the one canitrun plans under Vulkan, has a reading yet (Windows: ~0.4 GB).
    // Metal and the CPU backend have no separate context (Metal's exit tables leave 0 beside the
    // buffers).
    switch (backend) {
        case Backend::cpu:
        case Backend::metal:
            return 0;
        case Backend::cuda:
            return 672 * kMiB;
        case Backend::rocm:
            return 496 * kMiB;
        case Backend::vulkan:
            return 480 * kMiB;
    }
    return 0;
}

bool has_cuda_pool(Backend backend) {
    return backend == Backend::cuda || backend == Backend::rocm;
}

// Measured on the same H200 runs: with routed experts, recurrent layers (Mamba-2, Gated
// DeltaNet) or flash attention off, 704-761 MiB after decoding (the temporaries of the expert
// gathers, the scans and softmax), which 672 + 96 MiB covers.
Bytes cuda_pool_bytes(const Model& model, const LlamaCppOptions& options) {
    bool recurrent = false;
    for (const auto& group : model.arch.layer_groups) recurrent |= is_recurrent(group.kind);
    return model.is_moe() || recurrent || options.flash_attn == FlashAttn::off ? 96 * kMiB : 0;
}

bool maps_file_span(Backend backend) {
    // A device whose caps.buffer_from_host_ptr is set takes a mapped file range as its weights'
    // buffer (llama-model.cpp load_tensors at 0ad4a86): Metal's is (ggml-metal.cpp, the device
    // props); CUDA, ROCm and SYCL have none, and Vulkan's props say false (ggml-vulkan.cpp). The
    // CPU's own mapped buffer is the host's (CPU_Mapped), which the planner counts apart.
    return backend == Backend::metal;
}

bool keeps_mask_copy(Backend backend) {
    // In builds before llama.cpp PR #23764 (LlamaCppOptions::f32_mask) CUDA and Vulkan keep a
    // device copy of the f32 KQ masks beside the f16 cast flash attention reads. Which backends
    // do is read from the published logs, all of such builds (docs/ACCURACY-GPU.md): with it
    // CUDA's median error falls from 19 to 14 % and Vulkan's from 12 to 3 % (Qwen 3.6 at 34k
    // and 67k cells: -21 % to within 0.2 %); Metal, whose buffers share the host's memory, and
    // ROCm show none. The pinned build has no such copy: llama-graph.cpp's
    // build_attn_inp_kq_mask (0ad4a86) makes the masks f16 under flash attention and the
    // layers read the one device copy attention_phase_bytes counts; on the H200 (80fb11a,
    // validation/cuda-h200/) Llama 3.1 8B at 131072 cells keeps 258.50 MiB, its logits phase,
    // where the f32 copy would make it 500. Without flash attention the copy is still counted
    // (llamacpp_parts.cpp says why).
    return backend == Backend::cuda || backend == Backend::vulkan;
}

bool fuses_moe_reduction(Backend backend) {
    // ggml-hip's CMakeLists.txt (line 63 at 0ad4a86) compiles ../ggml-cuda/*.cu: ROCm runs the
    // same ggml_backend_cuda_graph_optimize. Metal, Vulkan and the CPU have no such fusion.
    return backend == Backend::cuda || backend == Backend::rocm;
}

}  // namespace canitrun
