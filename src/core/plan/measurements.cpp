#include "canitrun/measurements.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <functional>
#include <map>
#include <optional>
#include <string_view>

#include "canitrun/llamacpp_engine.hpp"
#include "canitrun/plan_settings.hpp"
#include "canitrun/speed.hpp"

namespace canitrun {
namespace {
bool built_before(const Measurement& m, unsigned build, std::string_view day);
}  // namespace

Result<BenchRun> bench_run_for(const Database& db, const Measurement& m) {
    if (m.model_id.empty()) return fail(ErrorKind::bad_input, "model not in the database");
    if (m.gpu_id.empty()) return fail(ErrorKind::bad_input, "GPU not in the database");
    if (m.backend == "CPU") return fail(ErrorKind::bad_input, "a CPU run");
    if (m.n_gpus == 0 || m.n_gpus > 64) return fail(ErrorKind::bad_input, "odd GPU count");
    CANITRUN_TRY_ASSIGN(auto model, db.find_model(m.model_id));
    if (!bench_all_on_gpus(m.ngl, *model))
        return fail(ErrorKind::bad_input,
                    "layers kept in RAM (-ngl " + std::to_string(m.ngl) + ")");
    CANITRUN_TRY_ASSIGN(auto quant, db.find_quant(m.quant));
    CANITRUN_TRY_ASSIGN(auto gpu, db.find_gpu(m.gpu_id));
    CANITRUN_TRY_ASSIGN(auto test, parse_bench_test(m.test));
    BenchRun run;
    run.model = model;
    run.quant = quant;
    run.gpus.assign(m.n_gpus, gpu);
    run.test = test;
    run.ubatch = m.ubatch;
    run.older_build = !m.date.empty() && m.date < "2025";
    // MMQ became CUDA's default prompt path in b3216 (llama.cpp#8075; fp16_gemm_prompt).
    run.cublas_quantized = m.backend == "CUDA" && built_before(m, 3216, "2024-06");
    // From llama.cpp#19165 (ggml-org/ggml a1bbd3e2, 2026-01-29) to #21472 (197e255a, merged
    // 2026-04-08) ggml_cuda_graph_update_required walked every node of each token's graph
    // through a std::unordered_set on the CPU, "~500us per token" on Qwen3.5 (#21472). b8651 was
    // released 2026-04-03 (gominimal/pkgs#40), before #21472 was opened (2026-04-05): a later
    // number is taken as fixed (no run lies between b8651 and b8820). #19165's own number is not
    // known: b7700 (January 2026) is taken as before it, a run naming no number by its day.
    run.graph_node_check = m.backend == "CUDA" && !built_before(m, 7701, "2026-01-29") &&
                           built_before(m, 8652, "2026-04-05");
    // llama.cpp#22254 (IMbackK, opened 2026-04-22: "HIP: flip GGML_HIP_GRAPHS to on") turned
    // HIP graphs on by default; before it ggml/CMakeLists.txt had option(GGML_HIP_GRAPHS "ggml:
    // use HIP graph, experimental, slow" OFF) since #11362 (January 2025). Its own number is not
    // known: no ROCm run lies between b8180 (before) and b9187 (2026-05, after), so b9000 stands
    // for it; a run naming no number is judged by its day.
    run.hip_no_graphs = m.backend == "ROCm" && built_before(m, 9000, "2026-04-22");
    run.file_bytes = m.file_gib * 1073741824.0;
    return run;
}

namespace {

// The build number a llama-bench row names: "707cbafca (7700)" or "b8233"; none for a bare hash.
std::optional<unsigned> build_number(std::string_view build) {
    std::string_view digits;
    if (const auto open = build.rfind('('); open != std::string_view::npos && build.ends_with(')'))
        digits = build.substr(open + 1, build.size() - open - 2);
    else if (build.starts_with('b'))
        digits = build.substr(1);
    unsigned n = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
    if (digits.empty() || ec != std::errc{} || end != digits.data() + digits.size())
        return std::nullopt;
    return n;
}

// Whether a run's llama.cpp predates build `build`: by its build number where it names one, else
// by its date against `day` ("2026-03" or "2026-04-05": the first month or day the build's change
// could have been in), to the precision both give: a run of that month alone is taken as built
// after, as is a run naming neither.
bool built_before(const Measurement& m, unsigned build, std::string_view day) {
    if (const auto n = build_number(m.build)) return *n < build;
    return !m.date.empty() && m.date < day.substr(0, std::min(day.size(), m.date.size()));
}

// A linear-attention (Gated DeltaNet) model ran its recurrence as a graph of small ops until
// llama.cpp b8233 (c5a778891, llama.cpp#19504: the fused GATED_DELTA_NET op, CPU and CUDA; the
// chunked fused prompt path followed in #20340): #19504's master qwen3next Q2_K graph held
// "6242 (with bs=1)" nodes, #20091 calls the path "the decomposed 23-op graph". The model
// describes the fused op that llama.cpp runs today: llama.cpp#18683's 3x RTX 3090 qwen3next
// Q2_K at b7700 (67.1 t/s decode) read 1.8x too fast in sample. A row with neither a build
// number nor a date is taken as fused.
bool decomposed_delta_net(const Measurement& m, const Model& model) {
    if (count_layers(model, LayerKind::linear) == 0) return false;
    return built_before(m, 8233, "2026-03");
}

// An Xe2 (Battlemage) GPU decoded a MoE model's K-quant weights on Vulkan through the float
// mat-vec path until llama.cpp b9452 (#23056): "Xe2 wins on MMVQ even for small k, so we take
// the NVIDIA override for K quants on Xe2 as well" (on Intel BMG under Mesa the MMVQ switch
// alone gave +57 % tg128 on a Q3_K file, +78 % on Q6_K). A MoE model's products are the small-k
// ones (experts 512-1856 wide, hidden 2048-2816). kyuz0's b9039 runs on an Arc Pro B70 (Mesa
// ANV) decode qwen3.6-35b-a3b Q4_K at 38.97 t/s, its SYCL 72.23, Wesley-Jakob-Gilbert's b9739
// qwen3-30b-a3b Q4_K 62.37: fitted, they read at 0.45-0.63x their prediction (#34).
bool xe2_moe_kquant_before_mmvq(const Measurement& m, const Model& model, const GpuDevice& d) {
    if (!m.test.starts_with("tg") || m.backend != "Vulkan" || !model.is_moe()) return false;
    if (d.gpu == nullptr || d.gpu->architecture != "Battlemage") return false;
    if (!m.quant.starts_with('Q') || m.quant.find("_K") == std::string::npos) return false;
    return built_before(m, 9452, "2026-06");
}

// A decode deep in a cache that ran without flash attention, a path canitrun never plans (its
// commands turn flash attention on). Without it llama.cpp multiplies KQ and KQV as mat-vecs
// that broadcast each KV head over its query heads (llama-graph.cpp build_attn_mha), and CUDA's
// mul_mat_vec_f gives every query head its own blocks, each reading its KV head's rows again
// (mmvf.cu at 054d8b0f2: channel_x = channel_dst / channel_ratio): the cache is read once per
// query head, not once per KV head as the flash-attention kernels read it. An absorbed MLA model
// reads its one latent head 20 times (GLM-4.7-Flash), and the values are copied transposed
// first (ggml_cont, "note: avoid this branch"). jiegec/kb's RTX 4090 runs (llama-bench's
// default fa off until b9437, #23714) decode glm-4.7-flash 32768 deep at 19 t/s, a seventh of
// the prediction, where flash-attention runs of the same model on an M2 Ultra and a DGX Spark
// read within 2.6x and 1.1x (#34). At depth 0 the cache is empty and the paths agree.
bool deep_decode_without_flash_attn(const Measurement& m) {
    if (!m.test.starts_with("tg") || m.flash_attn != false) return false;
    const auto test = parse_bench_test(m.test);
    return test && test->depth > 0;
}

}  // namespace

// llama.cpp before 2024 lacked today's MoE and prefill kernels. The model predicts the backend
// canitrun plans a device with (backend_for: CUDA, ROCm, Metal, Vulkan for Intel), on every
// device: the same card's other backend can differ by 15x (an Arc Pro B70 reads gemma-4-31b
// 16384 tokens deep at 180 t/s on SYCL, 12 on Vulkan; its SYCL decodes BF16 at a fifth of
// Vulkan's rate: kyuz0/intel-b70-ai-toolboxes), so one fit over both would describe neither.
// Prompt sweeps at micro-batches under kMinBandUbatch are a regime of their own (speed.hpp).
std::string fit_exclusion(const Measurement& m, const Model& model, const Hardware& hardware) {
    if (m.outlier) return "flagged as an outlier in its note (kept in the data, not fitted)";
    if (!m.date.empty() && m.date < "2024") return "llama.cpp built before 2024";
    if (!in_band_regime(m.test.starts_with("pp"), m.ubatch))
        return "a prompt in micro-batches under 128 tokens (a sweep's; kept, not fitted)";
    if (hardware.gpus.empty()) return "a CPU run";
    // FP32 weights multiply a prompt through cuBLAS's SGEMM on the shaders (ggml-cuda.cu at
    // 0ad4a86: an F32 product calls cublasSgemm), not the FP16 tensor path the float multiplier
    // describes, at an FP32 rate data/gpus gives for few GPUs. Fitted, the one such run (a 1B
    // model on an RTX 4090, llama.cpp#24216) was all NVIDIA's float prompts knew once
    // XiongjieDai's were left out (#34): kept, not fitted.
    if (m.test.starts_with("pp") && (m.quant == "F32" || m.quant == "FP32"))
        return "FP32 weights' prompt (cuBLAS SGEMM on the shaders; kept, not fitted)";
    const GpuDevice& d = hardware.gpus.front();
    // An RDNA3.5 APU's (gfx1151: the Ryzen AI Max) prompt on ROCm before December 2025 ran a
    // path llama.cpp no longer takes there: ggml_cuda_should_use_mmq sent RDNA3's products of 64
    // tokens or more to hipBLAS on weights converted to FP16 until llama.cpp#17576 moved them
    // to MMQ on WMMA (followed by #18666's RDNA3.5 selection), and rocBLAS's gfx1151 kernels
    // ran far below its gfx1100 ones (ROCm/legacy-rocm-build#4748; llama.cpp#13565, b5392:
    // llama-2-7b Q4_0 pp512 348.6 t/s on HIP, 881.4 on Vulkan). Fitted, its seven runs (read at
    // 1.8-4.2x their measure in sample) set the group's prompt terms whenever kyuz0's 2026 runs
    // were left out (#34): kept, not fitted.
    if (m.test.starts_with("pp") && m.backend == "ROCm" && !m.date.empty() && m.date < "2025-12" &&
        d.gpu != nullptr && d.gpu->architecture == "RDNA3.5")
        return "an RDNA3.5 prompt on ROCm before llama.cpp#17576 (hipBLAS; kept, not fitted)";
    if (decomposed_delta_net(m, model))
        return "a Gated DeltaNet model before llama.cpp b8233 (GATED_DELTA_NET; kept, not fitted)";
    if (deep_decode_without_flash_attn(m))
        return "a decode deep in a cache without flash attention (never planned; kept, not fitted)";
    if (xe2_moe_kquant_before_mmvq(m, model, d))
        return "an Xe2 MoE K-quant decode on Vulkan before llama.cpp b9452 (no MMVQ; kept, not "
               "fitted)";
    const auto lower = [](std::string s) {
        for (auto& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        return s;
    };
    if (lower(m.backend) != lower(backend_name(backend_for(d)))) {
        return "run on a backend other than the one canitrun plans the device with";
    }
    return {};
}

namespace {

// Whether the GPUs are one card, some number of times: mixed cards have no measurement.
bool one_card(const std::vector<const Gpu*>& gpus) {
    if (gpus.empty()) return false;
    for (const Gpu* g : gpus) {
        if (g == nullptr || g->id != gpus.front()->id) return false;
    }
    return true;
}

// measurements_for's rule for one row, the GPUs being one card.
bool measured(const Measurement& m, const std::string& model_id, const std::string& quant_id,
              const std::vector<const Gpu*>& gpus) {
    return m.exact_model && !m.outlier && m.model_id == model_id && m.quant == quant_id &&
           m.gpu_id == gpus.front()->id && m.n_gpus == gpus.size();
}

}  // namespace

std::vector<const Measurement*> measurements_for(const std::vector<Measurement>& all,
                                                 const std::string& model_id,
                                                 const std::string& quant_id,
                                                 const std::vector<const Gpu*>& gpus) {
    std::vector<const Measurement*> out;
    if (!one_card(gpus)) return out;
    for (const Measurement& m : all) {
        if (measured(m, model_id, quant_id, gpus)) out.push_back(&m);
    }
    return out;
}

std::vector<const Measurement*> embedded_measurements_for(const std::string& model_id,
                                                          const std::string& quant_id,
                                                          const std::vector<const Gpu*>& gpus) {
    // Each model's rows, in their order: the answer lists them as measurements_for does.
    static const auto by_model = [] {
        std::map<std::string, std::vector<const Measurement*>, std::less<>> rows;
        for (const Measurement& m : embedded_measurements()) rows[m.model_id].push_back(&m);
        return rows;
    }();
    std::vector<const Measurement*> out;
    const auto rows = by_model.find(model_id);
    if (!one_card(gpus) || rows == by_model.end()) return out;
    for (const Measurement* m : rows->second) {
        if (measured(*m, model_id, quant_id, gpus)) out.push_back(m);
    }
    return out;
}

}  // namespace canitrun
