#include "canitrun/vllm_layout.hpp"

#include <algorithm>

#include "canitrun/name_match.hpp"
#include "canitrun/token_text.hpp"

// vLLM's own guidance (docs/serving/parallelism_scaling.md): "Set tensor_parallel_size to the
// number of GPUs per node and pipeline_parallel_size to the number of nodes"; tensor parallel
// needs the fast links inside a node, so it never spans hosts here. The search tries the first
// host alone at the smallest tensor parallel size vLLM accepts that holds the model (leaving
// the other GPUs free); then the first k hosts as k pipeline stages, each stage as many GPUs as
// the narrowest of those hosts has (less where the heads do not divide).

namespace canitrun {
namespace {

Result<bool> check_vllm_devices(const Cluster& cluster) {
    if (cluster.hosts.empty()) {
        return fail(ErrorKind::bad_input, "--engine vllm needs a GPU to size its KV pool",
                    "add --gpu NAME or --host GPUS");
    }
    for (std::size_t h = 0; h < cluster.hosts.size(); ++h) {
        const auto& gpus = cluster.hosts[h].hardware.gpus;
        if (gpus.empty()) {
            return fail(ErrorKind::bad_input, describe_host(cluster, h) + " has no GPU for vLLM",
                        "give each host its GPUs, e.g. --host 8xh100-sxm");
        }
        for (const GpuDevice& d : gpus) {
            if (d.gpu == nullptr) continue;  // a --vram budget, taken as a CUDA GPU
            const std::string vendor = d.gpu ? d.gpu->vendor : "";
            if (vendor != "nvidia" && vendor != "amd") {
                return fail(ErrorKind::bad_input,
                            "vLLM runs on NVIDIA (CUDA) and AMD (ROCm) GPUs, not on " + d.name,
                            "use --engine llama.cpp (the default) for this hardware");
            }
        }
    }
    return true;
}

Bytes smallest_memory(const Hardware& h) {
    Bytes m = UINT64_MAX;
    for (const GpuDevice& d : h.gpus) m = std::min(m, d.memory);
    return m;
}

// vLLM's own test of a device, in EngineArgs._set_default_args (vllm/engine/arg_utils.py):
// `"a100" not in current_platform.get_device_name().lower()`, beside 70 GiB of memory. The name
// it reads is CUDA's; GpuDevice::name is that name for a detected GPU (nvidia-smi prints it)
// and the database's for a named one, which says "A100" exactly for the A100s
// (data_consistency_test.cpp holds that), so matching the name is vLLM's rule, not a guess.
bool vllm_names_a100(const Cluster& c) {
    for (const Host& h : c.hosts) {
        for (const GpuDevice& d : h.hardware.gpus) {
            if (to_lower(d.name).find("a100") != std::string::npos) return true;
        }
    }
    return false;
}

// Which host each of `pp` stages of `tp` GPUs lands on; empty when the hosts cannot hold them.
std::vector<std::size_t> stage_hosts(const Cluster& c, std::uint64_t tp, std::uint64_t pp) {
    std::vector<std::size_t> hosts;
    for (std::size_t h = 0; h < c.hosts.size() && hosts.size() < pp; ++h) {
        const std::uint64_t fit = c.hosts[h].hardware.gpus.size() / tp;
        for (std::uint64_t k = 0; k < fit && hosts.size() < pp; ++k) hosts.push_back(h);
    }
    if (hosts.size() < pp) hosts.clear();
    return hosts;
}

}  // namespace

Result<VllmLayout> choose_vllm_layout(const Model& model, const Quant& quant,
                                      const Cluster& cluster, const VllmOptions& base) {
    CANITRUN_TRY(check_vllm_devices(cluster));
    Bytes smallest = UINT64_MAX;
    std::uint64_t widest = 0;
    for (const Host& h : cluster.hosts) {
        smallest = std::min(smallest, smallest_memory(h.hardware));
        widest = std::max<std::uint64_t>(widest, h.hardware.gpus.size());
    }
    VllmLayout layout;
    layout.options = vllm_serve_defaults(smallest, vllm_names_a100(cluster));
    layout.options.gpu_memory_utilization_pct = base.gpu_memory_utilization_pct;
    layout.options.block_size = base.block_size;
    layout.asked_context = base.context;
    layout.options.context = base.context;
    if (model.context_native != 0 && base.context > model.context_native) {
        const bool yarn = model.context_extension == "YaRN" &&
                          (model.context_extended == 0 || base.context <= model.context_extended);
        if (yarn) {
            // vLLM takes a --max-model-len past the config's window when --hf-overrides gives
            // the rope scaling that reaches it (docs/features/context_extension.md;
            // tests/fixtures/runtime-flags/vllm.json, rope_scaling).
            layout.yarn_factor = (base.context + model.context_native - 1) / model.context_native;
        } else {
            // vLLM refuses a --max-model-len past the config's window; the plan takes the window.
            layout.options.context = model.context_native;
            layout.context_capped = true;
        }
    }
    for (std::uint64_t tp = 1; tp <= widest; ++tp) {
        auto allowed = check_tensor_parallel(model, tp);
        if (!allowed) layout.skipped.push_back({tp, allowed.error().message});
    }
    const auto skipped = [&](std::uint64_t tp) {
        return std::ranges::any_of(layout.skipped,
                                   [&](const VllmSkip& s) { return s.tensor_parallel == tp; });
    };
    // One host at the smallest tensor parallel size that holds the model; then the first k
    // hosts as k stages, each as wide as the narrowest of them allows.
    bool tried = false;
    const auto attempt = [&](std::uint64_t tp, std::uint64_t pp) -> Result<bool> {
        if (skipped(tp) || pp > model.arch.layers) return false;
        std::vector<std::size_t> hosts = stage_hosts(cluster, tp, pp);
        if (hosts.empty()) return false;
        VllmOptions o = layout.options;
        o.tensor_parallel = tp;
        o.pipeline_parallel = pp;
        o.stage_gpu_memory.clear();
        for (std::size_t h : hosts) {
            o.stage_gpu_memory.push_back(smallest_memory(cluster.hosts[h].hardware));
        }
        CANITRUN_TRY_ASSIGN(auto e, estimate_vllm(model, quant, o));
        layout.estimate = std::move(e);
        layout.stage_hosts = std::move(hosts);
        layout.options.tensor_parallel = tp;
        layout.options.pipeline_parallel = pp;
        layout.options.stage_gpu_memory = o.stage_gpu_memory;
        tried = true;
        layout.fits = layout.estimate.fits();
        return layout.fits;
    };
    for (std::uint64_t tp = 1; tp <= cluster.hosts[0].hardware.gpus.size(); ++tp) {
        CANITRUN_TRY_ASSIGN(auto done, attempt(tp, 1));
        if (done) return layout;
    }
    std::uint64_t narrowest = cluster.hosts[0].hardware.gpus.size();
    for (std::size_t k = 2; k <= cluster.hosts.size(); ++k) {
        narrowest = std::min<std::uint64_t>(narrowest, cluster.hosts[k - 1].hardware.gpus.size());
        std::uint64_t tp = narrowest;
        while (tp > 1 && skipped(tp)) --tp;
        CANITRUN_TRY_ASSIGN(auto done, attempt(tp, k));
        if (done) return layout;
    }
    if (!tried) {
        return fail(ErrorKind::bad_input,
                    "no tensor parallel size vLLM accepts for " + model.name + " fits these hosts",
                    layout.skipped.empty() ? "" : layout.skipped.front().why);
    }
    return layout;
}

const QuantCheckpoint* vllm_checkpoint(const Model& model, const Quant& quant) {
    for (const QuantCheckpoint& c : model.run.checkpoints) {
        if (to_lower(c.quant) == to_lower(quant.id)) return &c;
    }
    return nullptr;
}

namespace {

// The repo `vllm serve` names and the flag it needs, or, for a format vLLM cannot make with no
// checkpoint recorded, the one line that says so in place of a command that would not run.
struct VllmSource {
    std::string repo;
    std::string flag;
    std::vector<std::string> notes;
    bool runnable = true;
};

VllmSource vllm_source(const Model& model, const Quant& quant) {
    VllmSource src;
    src.repo = model.hf_repo.empty() ? model.id : model.hf_repo;
    const std::string q = to_lower(quant.id);
    // The checkpoint's own dtype needs no flag (vLLM reads its quantization_config); FP8 is the
    // one format vLLM makes on the fly.
    if (to_lower(model.run.checkpoint_dtype) == q) return src;
    if (q == "fp8") {
        src.flag = " --quantization fp8";
        return src;
    }
    if (q != "awq" && q != "gptq" && q != "nvfp4") return src;
    // AWQ, GPTQ and NVFP4 need a checkpoint that carries them. Its config.json declares the
    // method, which vLLM reads: no --quantization, since "awq" would force the slower AWQ
    // kernel over awq_marlin and "gptq" refuses a compressed-tensors w4a16 checkpoint.
    if (const QuantCheckpoint* c = vllm_checkpoint(model, quant)) {
        src.repo = c->repo;
        if (!c->unconfirmed.empty()) {
            src.notes.push_back("# " + c->repo + " is unconfirmed: " + c->unconfirmed);
        }
        return src;
    }
    src.runnable = false;
    src.notes.push_back("# No " + quant.id + " checkpoint of " + model.name +
                        " is recorded, and vLLM quantizes on the fly only to FP8: use --quant "
                        "FP8, or quantize " +
                        src.repo + " to " + quant.id + " (llm-compressor) and serve that folder");
    return src;
}

}  // namespace

std::vector<std::string> vllm_launch_lines(const Model& model, const Quant& quant,
                                           const VllmLayout& layout) {
    const VllmOptions& o = layout.options;
    VllmSource src = vllm_source(model, quant);
    std::vector<std::string> lines = std::move(src.notes);
    if (!src.runnable) return lines;
    std::string serve = "vllm serve " + src.repo + src.flag;
    if (o.tensor_parallel > 1)
        serve += " --tensor-parallel-size " + std::to_string(o.tensor_parallel);
    if (o.pipeline_parallel > 1) {
        serve += " --pipeline-parallel-size " + std::to_string(o.pipeline_parallel);
    }
    if (layout.yarn_factor > 0) {
        serve += R"( --hf-overrides '{"rope_parameters":{"rope_type":"yarn","factor":)" +
                 std::to_string(layout.yarn_factor) + R"(.0,"original_max_position_embeddings":)" +
                 std::to_string(model.context_native) + "}}'";
    }
    serve += " --max-model-len " + std::to_string(o.context);
    if (o.gpu_memory_utilization_pct != 90) {
        serve += " --gpu-memory-utilization " + format_fraction(o.gpu_memory_utilization_pct);
    }
    std::size_t hosts = 1;
    for (std::size_t h : layout.stage_hosts) hosts = std::max(hosts, h + 1);
    if (hosts == 1) {
        lines.push_back(serve);
        return lines;
    }
    lines.push_back("# host 1 (the Ray head): ray start --head --port=6379");
    for (std::size_t h = 1; h < hosts; ++h) {
        lines.push_back("# host " + std::to_string(h + 1) + ": ray start --address=HOST1_IP:6379");
    }
    lines.push_back("# then on host 1:");
    lines.push_back(serve + " --distributed-executor-backend ray");
    return lines;
}

bool vllm_serves(const VllmLayout& layout, std::uint64_t users) {
    return layout.fits && layout.estimate.max_sequences >= std::max<std::uint64_t>(users, 1);
}

}  // namespace canitrun
