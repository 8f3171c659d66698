#include "canitrun/verify_devices.hpp"

#include <algorithm>
#include <map>
#include "canitrun/kv_cache.hpp"

#include "canitrun/llama_log.hpp"
#include "canitrun/llamacpp_parts.hpp"
#include "canitrun/llamacpp_rules.hpp"
#include "canitrun/placement.hpp"
#include "canitrun/plan_settings.hpp"
#include "canitrun/quantize_rules.hpp"
#include "canitrun/tensor_layout.hpp"
#include "canitrun/verify.hpp"

#include "log_settings.hpp"

namespace canitrun {
namespace {

// The device a buffer is on: a GPU's mapped model buffer (Metal's "MTL0_Mapped", the model
// file mapped into the GPU's memory) is that GPU's.
std::string device_of(const std::string& buffer) {
    constexpr std::string_view kMapped = "_Mapped";
    if (!is_host_buffer(buffer) && buffer.ends_with(kMapped)) {
        return buffer.substr(0, buffer.size() - kMapped.size());
    }
    return buffer;
}

std::optional<Bytes> on_device(const std::vector<LlamaLogBuffer>& buffers,
                               const std::string& device) {
    std::optional<Bytes> total;
    for (const auto& b : buffers) {
        if (device_of(b.device) == device) total = checked::add(total.value_or(0), b.bytes);
    }
    return total;
}

std::optional<Bytes> on_host(const std::vector<LlamaLogBuffer>& buffers) {
    std::optional<Bytes> total;
    for (const auto& b : buffers) {
        if (is_host_buffer(b.device)) total = checked::add(total.value_or(0), b.bytes);
    }
    return total;
}

Backend backend_of(const std::string& device) {
    if (device.rfind("ROCm", 0) == 0) return Backend::rocm;
    if (device.rfind("Vulkan", 0) == 0) return Backend::vulkan;
    if (device.rfind("MTL", 0) == 0 || device.rfind("Metal", 0) == 0) return Backend::metal;
    return Backend::cuda;  // CUDA, and SYCL, whose buffers the rule treats alike
}

// Whether the log shows any buffer of the device: model, KV, recurrent state or compute.
bool holds_buffers(const LlamaLog& log, const std::string& device) {
    if (on_device(log.model_buffers, device)) return true;
    for (const auto& c : log.contexts) {
        if (on_device(c.kv, device) || on_device(c.recurrent, device) ||
            on_device(c.compute, device)) {
            return true;
        }
    }
    return false;
}

// GPUs the runtime lists but the log shows no buffer on, beside ones that hold the model: the
// run kept its layers off them (a --tensor-split or --device the log does not state), so their
// share of the split is 0 and a note names them.
bool drop_unused_gpus(const LlamaLog& log, const std::vector<std::string>& gpus,
                      PlacementOptions& options, std::vector<std::string>& notes) {
    std::string unused;
    bool any_model = false;
    for (const auto& name : gpus) any_model = any_model || on_device(log.model_buffers, name);
    for (std::size_t d = 0; any_model && d < gpus.size(); ++d) {
        if (holds_buffers(log, gpus[d])) continue;
        options.tensor_split[d] = 0;
        unused += (unused.empty() ? "" : ", ") + gpus[d];
    }
    if (!unused.empty()) {
        notes.push_back("the log shows no buffer on " + unused +
                        ": layers split over the other GPUs only (a --tensor-split or --device "
                        "the log does not state)");
    }
    return !unused.empty();
}

// The devices as llama.cpp split the layers over them: by the free memory the log reports
// (llama.cpp's default --tensor-split), else evenly (and a note says so); none to a GPU the
// log shows no buffer on, and then `unstated` is set: the run gave a split the log does not
// print (split_from_buffers reads it).
Hardware log_hardware(const LlamaLog& log, const std::vector<std::string>& gpus,
                      PlacementOptions& options, std::vector<std::string>& notes, bool& unstated) {
    Hardware h;
    h.ram = Bytes{1} << 50;  // a check, not a fit: every device holds what the log put there
    bool all_free = true;
    for (const auto& name : gpus) {
        GpuDevice d;
        d.name = name;
        d.memory = Bytes{1} << 50;
        std::optional<Bytes> free;
        for (const auto& listed : log.devices) {
            if (listed.device == name) free = listed.free;
        }
        all_free = all_free && free.has_value() && *free > 0;
        options.tensor_split.push_back(free ? *free >> 20 : 1);
        h.gpus.push_back(d);
    }
    if (!all_free) {
        options.tensor_split.assign(gpus.size(), 1);
        if (gpus.size() > 1) {
            notes.push_back("the log gives no free memory for every GPU: layers split evenly");
        }
    }
    const auto given = command_line_tensor_split(log.command_line);
    if (given && given->size() == gpus.size()) {
        options.tensor_split = *given;  // the run's own --tensor-split
    } else {
        unstated = drop_unused_gpus(log, gpus, options, notes);
    }
    for (const auto& name : gpus) {
        if (!name.ends_with("_Split")) continue;
        notes.push_back("--split-mode row puts every matrix over the GPUs (" + name + "): " +
                        std::string(kPlacementDiffers) + ", so the devices' weights differ");
        break;
    }
    return h;
}

// Where the run split the layers by a --tensor-split the log does not print (log_hardware's
// `unstated`), the units each used GPU holds, read from its model buffer, not fitted: llama.cpp
// gives unit il (the offloaded layers, then the head) to the first device whose cumulative
// split exceeds il / units (llama-model.cpp:1511-1529 at 0ad4a86, std::upper_bound), so a split
// of unit counts puts exactly those counts there. Each used GPU in turn, but the last, takes
// the count whose planned weights come nearest its model buffer; the last takes the rest.
// Returns the note that names the counts, or nothing where fewer than two GPUs hold weights.
Result<std::optional<std::string>> split_from_buffers(const LlamaLog& log,
                                                      const std::vector<std::string>& gpus,
                                                      const ModelParts& parts,
                                                      const Hardware& hardware,
                                                      PlacementOptions& options) {
    std::vector<std::size_t> used;
    std::vector<Bytes> logged;
    for (std::size_t d = 0; d < gpus.size() && d < options.tensor_split.size(); ++d) {
        const auto weights = on_device(log.model_buffers, gpus[d]);
        if (options.tensor_split[d] == 0 || !weights) continue;
        used.push_back(d);
        logged.push_back(*weights);
    }
    // Past llama.cpp's most devices (GGML_CUDA_MAX_DEVICES 16, ggml-cuda.h:20 at 0ad4a86) a log
    // is no run's, and the search (a placement per count per GPU) is not worth its time.
    if (used.size() < 2 || gpus.size() > kGgmlMaxDevices) return std::optional<std::string>{};
    CANITRUN_TRY_ASSIGN(const Placement whole, place(parts, hardware, options));
    std::uint64_t left = whole.gpu_layers;
    std::vector<std::uint64_t> split(gpus.size(), 0);
    PlacementOptions trial = options;
    for (std::size_t k = 0; k + 1 < used.size() && left > 0; ++k) {
        std::uint64_t best = 0;
        Bytes best_miss = ~Bytes{0};
        for (std::uint64_t c = 0; c <= left; ++c) {
            split[used[k]] = c;
            split[used.back()] = left - c;
            trial.tensor_split = split;
            CANITRUN_TRY_ASSIGN(const Placement p, place(parts, hardware, trial));
            const Bytes held = p.gpus[used[k]].weights;
            const Bytes miss = held > logged[k] ? held - logged[k] : logged[k] - held;
            if (miss < best_miss) {
                best = c;
                best_miss = miss;
            }
        }
        split[used[k]] = best;
        left -= best;
    }
    split[used.back()] = left;
    options.tensor_split = split;
    std::string counts;
    for (const std::size_t d : used) {
        counts += (counts.empty() ? "" : ", ") + gpus[d] + " " + std::to_string(split[d]);
    }
    return std::optional<std::string>("the split read from the GPUs' model buffers: " + counts +
                                      " of " + std::to_string(whole.gpu_layers) +
                                      " units (the layers, then the output head)");
}

void set_offload(const LlamaLog& log, const Model& model, PlacementOptions& options,
                 DeviceCheck& check) {
    check.gpu_layers = log.gpu_layers;
    if (log.gpu_layers && log.all_layers && *log.gpu_layers < *log.all_layers) {
        options.gpu_layers = log.gpu_layers;
        // llama.cpp before PR #18148 (December 2025) offloaded the last -ngl layers and the
        // output head only past them all (llama-model.cpp: i_gpu_start = n_layer - ngl); since,
        // the head goes first, as canitrun plans.
        if (log.repeating_layers.value_or(0) > 0 && !log.output_layer_offloaded) {
            check.notes.push_back(
                "the output head stayed in RAM while " + std::to_string(*log.repeating_layers) +
                " layers went to the GPU (llama.cpp before PR #18148 offloaded layers first): " +
                std::string(kPlacementDiffers) + ", so the devices' weights and compute differ");
        }
    }
    std::set<std::uint64_t> host;
    for (const auto& [layer, type] : log.expert_overrides) {
        if (is_host_buffer(type)) host.insert(layer);
    }
    if (log.expert_overrides.empty()) {
        if (auto from_command = command_line_experts(log.command_line, model.arch.layers)) {
            host = std::move(from_command->host_layers);
            for (auto& n : from_command->notes) check.notes.push_back(std::move(n));
        }
    }
    check.host_expert_layers = host.size();
    options.op_offload = command_line_op_offload(log.command_line);
    if (!options.op_offload)
        check.notes.push_back(
            "planned as the run gives it, with --no-op-offload: the host's compute for the "
            "products it keeps on the CPU is derived from the graph, not checked on a log");
    if (host.empty()) return;
    options.cpu_moe_layers = check.host_expert_layers;
    std::uint64_t expected = 0;
    bool first_layers = true;
    for (const std::uint64_t layer : host) first_layers = first_layers && layer == expected++;
    if (!first_layers || check.host_expert_layers > model.arch.layers) {
        check.notes.push_back("experts of layers other than the first " +
                              std::to_string(check.host_expert_layers) +
                              " were overridden: planned as the first ones");
    }
}

// Whether the run's build has a BLAS backend beside its GPUs: llama-context.cpp gives the CPU
// backend the first GPU's host buffer type (CUDA_Host, Vulkan_Host), so a context's compute
// buffer named "CPU" beside one of those is another host backend's: ggml-blas.cpp's, whose
// buffer type is the CPU's (validation/llama-logs/cudab-022, cudax-002, cudax-003).
bool log_host_blas(const LlamaLogContext& c) {
    const auto named = [&](auto&& pred) {
        return std::any_of(c.compute.begin(), c.compute.end(),
                           [&](const LlamaLogBuffer& b) { return pred(b.device); });
    };
    return named([](const std::string& d) { return d == "CPU"; }) &&
           named([](const std::string& d) { return d.ends_with("_Host"); });
}

void add_gpu_rows(const LlamaLog& log, const LlamaLogContext& c, const Placement& p,
                  DeviceCheck& check) {
    for (std::size_t d = 0; d < check.gpus.size() && d < p.gpus.size(); ++d) {
        const std::string& name = check.gpus[d];
        const Share& s = p.gpus[d];
        check.rows.push_back({name, "weights", s.weights, on_device(log.model_buffers, name)});
        check.rows.push_back({name, "kv_cache", s.kv_cache, on_device(c.kv, name)});
        const auto rs = on_device(c.recurrent, name);
        if (rs || s.recurrent_state > 0) {
            check.rows.push_back({name, "recurrent_state", s.recurrent_state, rs});
        }
        check.rows.push_back({name, "compute", s.compute, on_device(c.compute, name)});
    }
}

void add_host_rows(const LlamaLog& log, const LlamaLogContext& c, const Placement& p,
                   const RuntimeBuffers& buffers, DeviceCheck& check) {
    const std::string host = "host";
    check.rows.push_back({host, "weights", p.ram.weights, on_host(log.model_buffers)});
    if (p.ram.kv_cache > 0 || on_host(c.kv)) {
        check.rows.push_back({host, "kv_cache", p.ram.kv_cache, on_host(c.kv)});
    }
    check.rows.push_back({host, "output", buffers.output, on_host(c.output)});
    const Bytes compute = p.ram.compute > buffers.output ? p.ram.compute - buffers.output : 0;
    check.rows.push_back({host, "compute", compute, on_host(c.compute)});
    for (const auto& b : log.model_buffers) {
        if (b.device == "CPU_Mapped") {
            check.notes.push_back(
                "CPU_Mapped is the span of the model file mapped for the host's tensors: it "
                "can take in tensors the GPUs hold, so the host's weights read high");
            break;
        }
    }
}

// Gemma 4's per-layer table is an input-layer tensor the pinned build keeps in host memory
// (llama-arch.cpp at 0ad4a86: LLM_TENSOR_PER_LAYER_TOKEN_EMBD is LLM_TENSOR_LAYER_INPUT), where
// the published Metal logs of b8680 show token_embd alone (validation/llama-logs/metal-001,
// -004): their builds held it elsewhere, so the host's row reads high by it there.
void note_per_layer_table(const LlamaLog& log, const Model& model, const Placement& p,
                          DeviceCheck& check) {
    const auto host = on_host(log.model_buffers);
    if (model.arch.per_layer_input_size == 0 || !host || *host >= p.ram.weights) return;
    check.notes.push_back(
        "the log's host buffers hold less than token_embd and per_layer_token_embd: its build "
        "kept the per-layer table out of host memory, where the pinned build keeps it (an "
        "input-layer tensor), so the host's weights read high");
}

// The plan's tensors per type against the log's count of them. A publisher's recipe the data
// does not hold for this model (Unsloth's UD-* files upcast tensors per model) shows there,
// whatever the file type says: the weights rows then measure the data's lack of that recipe,
// not a rule, and a note says so with both counts. The counts cannot plan the weights
// themselves: which tensors hold which type is not in them (metal-002's Qwen3.5-9B
// UD-Q4_K_XL has 10 iq4_xs tensors, a count no class of its 250 quantized tensors has).
void note_file_types(const LlamaLog& log, const Model& model, const Quant& quant,
                     DeviceCheck& check) {
    if (log.type_counts.empty()) return;
    const auto layout = tensor_layout(model);
    if (!layout) return;
    const auto typed = quantize_tensors(*layout, quantize_request(quant));
    if (!typed) return;
    std::map<std::string, std::uint64_t, std::less<>> planned;
    for (const auto& t : *typed) ++planned[std::string(t.type.name)];
    std::map<std::string, std::uint64_t, std::less<>> logged;
    for (const auto& [type, n] : log.type_counts) logged[type] += n;
    check.file_types_match = planned == logged;
    if (*check.file_types_match) return;
    const auto list = [](const auto& counts) {
        std::string out;
        for (const auto& [type, n] : counts) {
            out += (out.empty() ? "" : ", ") + type + " " + std::to_string(n);
        }
        return out;
    };
    check.notes.push_back("the file's tensors per type (" + list(logged) + ") are not " + quant.id +
                          "'s as canitrun types this model (" + list(planned) +
                          "): the file was typed otherwise than canitrun's data types it (a "
                          "publisher's recipe, or another llama-quantize), so its weights rows "
                          "measure that, not a rule");
}

}  // namespace

LlamaCppOptions options_from_log(const LlamaLogContext& c, Backend backend) {
    LlamaCppOptions lo;
    lo.context = c.n_ctx;
    lo.ubatch = c.n_ubatch ? c.n_ubatch : kLlamaDefaultUbatch;
    lo.n_seq = c.n_seq_max ? c.n_seq_max : 1;
    lo.kv_unified = c.kv_unified == "true";
    lo.flash_attn = log_flash_attn(c.flash_attn);
    lo.cache_type_k = c.type_k.empty() ? std::string(kDefaultKvType) : c.type_k;
    lo.cache_type_v = c.type_v.empty() ? lo.cache_type_k : c.type_v;
    lo.backend = backend;
    lo.outputs = c.n_outputs_max;  // 0 in builds before PR #23861: every token
    return lo;
}

// Whether the log's build predates llama.cpp PR #23764 (f16 KQ masks under flash attention,
// merged 2026-05-27): b9174 (2026-05-16) does, b9512 (2026-06-04) does not; the merge's own
// build number is not confirmed, so builds after b9174 are read as the pinned one. A log that
// prints no build is read as older, as every such log in validation/llama-logs/ is.
bool before_f16_mask(std::optional<std::uint64_t> build) {
    return !build || *build <= kLastBuildWithF32Mask;
}

bool before_glu_ops(std::optional<std::uint64_t> build) {
    return build && *build > 1 && *build <= kLastBuildWithoutGlu;
}

std::vector<std::string> log_gpu_devices(const LlamaLog& log) {
    std::vector<std::string> out;
    const auto add = [&](const std::string& buffer) {
        const std::string name = device_of(buffer);
        if (name.empty() || is_host_buffer(name)) return;
        if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
    };
    for (const auto& d : log.devices) add(d.device);
    for (const auto& b : log.model_buffers) add(b.device);
    for (const auto& c : log.contexts) {
        for (const auto* list : {&c.kv, &c.recurrent, &c.compute}) {
            for (const auto& b : *list) add(b.device);
        }
    }
    return out;
}

Result<std::optional<DeviceCheck>> verify_devices(const LlamaLog& log, const LlamaLogContext& c,
                                                  const Model& model, const Quant& quant) {
    DeviceCheck check;
    check.gpus = log_gpu_devices(log);
    if (check.gpus.empty() || c.n_ctx == 0) return std::optional<DeviceCheck>{};
    return catch_overflow(
        [&]() -> Result<std::optional<DeviceCheck>> {
            LlamaCppOptions lo = options_from_log(c, backend_of(check.gpus.front()));
            lo.f32_mask = before_f16_mask(log.build);
            lo.before_glu_ops = before_glu_ops(log.build);
            if (lo.before_glu_ops && model.is_moe()) {
                check.notes.push_back("build " + std::to_string(*log.build) +
                                      " predates ggml's GLU ops (b" +
                                      std::to_string(kLastBuildWithoutGlu) +
                                      " the last known): the experts' activations are planned "
                                      "by that build's graph, silu and its product in place");
            }
            CANITRUN_TRY_ASSIGN(const ModelParts parts, llamacpp_parts(model, quant, lo));
            PlacementOptions options;
            options.gpu_mask_copy.assign(check.gpus.size(), keeps_mask_copy(lo.backend));
            // CUDA's MoE reduction fusion came in August 2026 (llama.cpp PR #25952, its alloc
            // deps PR #27301; their build number not found): after PR #23764 (May) it is
            // planned, unconfirmed for builds between; every log before #23764 predates it.
            options.gpu_moe_fusion.assign(check.gpus.size(),
                                          fuses_moe_reduction(lo.backend) && !lo.f32_mask);
            options.server.mapped = log.mmap.value_or(true);  // llama.cpp's default loads by mmap
            options.gpu_maps_file.assign(check.gpus.size(), maps_file_span(lo.backend));
            // The runtime's own memory per GPU, as every plan counts it (placement_for): no
            // buffer of the log's, so no row of `rows`; check_on_hardware weighs it.
            for (const auto& name : check.gpus) {
                options.gpu_runtime.push_back(runtime_overhead_bytes(backend_of(name)));
                options.gpu_pool.push_back(has_cuda_pool(backend_of(name)));
            }
            bool unstated = false;
            const Hardware hardware = log_hardware(log, check.gpus, options, check.notes, unstated);
            set_offload(log, model, options, check);
            options.host_blas = log_host_blas(c);
            if (options.host_blas) {
                check.notes.push_back(
                    "a CPU compute buffer beside the GPU's host buffer: the build has BLAS, "
                    "which multiplies the host's weights in RAM (planned so)");
            }
            if (unstated) {
                CANITRUN_TRY_ASSIGN(const auto read,
                                    split_from_buffers(log, check.gpus, parts, hardware, options));
                if (read) check.notes.push_back(*read);
            }
            CANITRUN_TRY_ASSIGN(const Placement p, place(parts, hardware, options));
            check.planned = p.gpus;
            add_gpu_rows(log, c, p, check);
            add_host_rows(log, c, p, parts.buffers.value_or(RuntimeBuffers{}), check);
            note_per_layer_table(log, model, p, check);
            note_file_types(log, model, quant, check);
            return std::optional<DeviceCheck>(std::move(check));
        },
        [&] { return fail(ErrorKind::bad_input, "the log's sizes overflow 64-bit byte counts"); });
}

void check_on_hardware(const LlamaLog& log, const std::vector<const Gpu*>& logged,
                       const std::vector<GpuDevice>& hardware, DeviceCheck& check) {
    for (std::size_t d = 0; d < check.gpus.size() && d < check.planned.size(); ++d) {
        const std::string& name = check.gpus[d];
        const Share& s = check.planned[d];
        const Gpu* card = d < logged.size() ? logged[d] : nullptr;
        std::optional<Bytes> free;
        for (const auto& listed : log.devices) {
            if (listed.device == name) free = listed.free;
        }
        // The free memory llama.cpp saw at load (cudaMemGetInfo, after the device's context was
        // made): the card's memory less it is what the driver, the runtime and any other process
        // held then. More free than the card has: the log's card is not the database's.
        if (card != nullptr && free && *free <= card->vram_bytes) {
            check.runtime.push_back({name, "runtime", s.runtime, card->vram_bytes - *free});
        }
        if (d < hardware.size()) {
            check.fit.push_back({name, hardware[d].name, s.most(),
                                 gpu_capacity(hardware[d].memory, kDefaultMargin)});
        }
    }
    const bool differs = std::any_of(check.notes.begin(), check.notes.end(), [](const auto& n) {
        return n.find(kPlacementDiffers) != std::string::npos;
    });
    if (differs && !check.fit.empty()) {
        check.notes.push_back(
            "the verdicts weigh canitrun's placement of the log's settings, not the log's own "
            "(a note above says where they differ)");
    }
    if (!check.runtime.empty()) {
        check.notes.push_back(
            "runtime: llama.cpp's figure is the card's memory (the database's) less the free "
            "memory the log reports at load: the driver, the runtime's context and any other "
            "process on the GPU then");
    }
}

}  // namespace canitrun
