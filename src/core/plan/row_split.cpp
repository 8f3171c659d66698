#include "canitrun/row_split.hpp"

#include <algorithm>
#include <array>
#include <string_view>

#include "canitrun/llamacpp_engine.hpp"
#include "canitrun/plan_settings.hpp"
#include "canitrun/quantize_rules.hpp"

namespace canitrun {
namespace {

constexpr std::uint64_t kMatrixRowPadding = 512;  // ggml-cuda/common.cuh MATRIX_ROW_PADDING

// The weights LLM_TENSOR_INFOS (src/llama-arch.cpp) uses in GGML_OP_MUL_MAT, by the name
// between "blk.N." and ".weight" ("output" for output.weight). A 2-D weight of another op
// (a convolution, a scan, a lookup) stays whole on its layer's GPU.
constexpr std::array<std::string_view, 28> kMatMulWeights = {"output",
                                                             "attn_q",
                                                             "attn_k",
                                                             "attn_v",
                                                             "attn_qkv",
                                                             "attn_output",
                                                             "attn_q_a",
                                                             "attn_q_b",
                                                             "attn_kv_a_mqa",
                                                             "attn_kv_b",
                                                             "attn_k_b",
                                                             "attn_v_b",
                                                             "attn_gate",
                                                             "ffn_gate",
                                                             "ffn_up",
                                                             "ffn_down",
                                                             "ffn_gate_shexp",
                                                             "ffn_up_shexp",
                                                             "ffn_down_shexp",
                                                             "ffn_gate_inp",
                                                             "ffn_gate_inp_shexp",
                                                             "ssm_in",
                                                             "ssm_out",
                                                             "ssm_alpha",
                                                             "ssm_beta",
                                                             "ssm_ba",
                                                             "shortconv.in_proj",
                                                             "shortconv.out_proj"};

bool cut_by_rows(const TensorInfo& t) {
    if (t.n_dims != 2 || t.ne[1] < 2 || t.ne[2] != 1 || t.ne[3] != 1) return false;
    std::string_view name = t.name;
    constexpr std::string_view kWeight = ".weight";
    if (!name.ends_with(kWeight)) return false;
    name.remove_suffix(kWeight.size());
    if (name.starts_with("blk.")) {
        const auto dot = name.find('.', 4);
        if (dot == std::string_view::npos) return false;
        name.remove_prefix(dot + 1);
    }
    return std::find(kMatMulWeights.begin(), kMatMulWeights.end(), name) != kMatMulWeights.end();
}

// get_mmq_y_host: 64 before Volta, 128 from it on (NVIDIA).
std::uint64_t mmq_y(const GpuDevice& g) {
    if (g.gpu == nullptr) return 128;
    const std::string& a = g.gpu->architecture;
    return a == "Pascal" || a == "Maxwell" || a == "Kepler" ? 64 : 128;
}

// Each unit's GPU (the layers, then the output head), from the layer placement.
std::vector<std::size_t> unit_gpus(const Placement& p) {
    std::vector<std::size_t> units;
    std::size_t head = 0;
    for (std::size_t d = 0; d < p.gpus.size(); ++d) {
        units.insert(units.end(), p.gpus[d].layers, d);
        if (p.gpus[d].output) head = d;
    }
    units.push_back(head);
    return units;
}

Result<bool> check_applies(const Hardware& hardware, const Placement& p) {
    if (hardware.gpus.size() < 2) {
        return fail(ErrorKind::bad_input, "--split-mode row cuts matrices over several GPUs",
                    "give two or more GPUs, or leave --split-mode out");
    }
    for (const GpuDevice& g : hardware.gpus) {
        if (backend_for(g) != Backend::cuda || g.unified) {
            return fail(ErrorKind::bad_input,
                        "--split-mode row needs CUDA GPUs (llama.cpp's split buffer is CUDA's), "
                        "and " +
                            g.name + " is not one",
                        "leave --split-mode out (layer)");
        }
    }
    if (p.ram.layers > 0 || p.cpu_moe_layers > 0) {
        return fail(ErrorKind::bad_input,
                    "--split-mode row is planned with every layer on the GPUs",
                    "leave --ngl, --n-cpu-moe and --cpu-moe out");
    }
    return true;
}

}  // namespace

std::vector<float> row_shares(const Hardware& hardware, const std::vector<std::uint64_t>& split) {
    std::vector<float> shares(hardware.gpus.size(), 0.0f);
    float sum = 0.0f;
    for (std::size_t i = 0; i < shares.size(); ++i) {
        shares[i] = sum;
        sum += static_cast<float>(split.empty() ? hardware.gpus[i].memory : split[i]);
    }
    if (sum > 0) {
        for (float& s : shares) s /= sum;
    }
    return shares;
}

std::uint64_t row_rounding(const Hardware& hardware, const std::vector<float>& shares) {
    std::uint64_t rounding = 0;
    for (std::size_t id = 0; id < shares.size(); ++id) {
        if (shares[id] >= (id + 1 < shares.size() ? shares[id + 1] : 1.0f)) continue;
        rounding = std::max(rounding, mmq_y(hardware.gpus[id]));
    }
    return std::max<std::uint64_t>(rounding, 1);
}

RowRange row_range(std::uint64_t rows, const std::vector<float>& shares, std::uint64_t rounding,
                   std::size_t id) {
    // As get_row_split computes it: the row count times a float share, truncated.
    const auto at = [&](std::size_t i) {
        const auto r = static_cast<std::uint64_t>(static_cast<float>(rows) * shares[i]);
        return std::min(r - r % rounding, rows);
    };
    RowRange r;
    r.low = id == 0 ? 0 : at(id);
    r.high = id + 1 == shares.size() ? rows : at(id + 1);
    r.high = std::max(r.high, r.low);
    return r;
}

Result<Placement> row_split_placement(const Model& model, const Quant& quant,
                                      const Hardware& hardware, const PlacementOptions& options,
                                      Placement p) {
    CANITRUN_TRY(check_applies(hardware, p));
    CANITRUN_TRY_ASSIGN(const auto prepared, llamacpp_layout(model));
    CANITRUN_TRY_ASSIGN(const auto typed, llamacpp_tensor_bytes(prepared, quant));
    const auto& tensors = prepared->layout.tensors;
    const std::vector<std::size_t> units = unit_gpus(p);
    const std::uint64_t n = units.size() - 1;
    const std::vector<float> shares = row_shares(hardware, p.tensor_split);
    const std::uint64_t rounding = row_rounding(hardware, shares);
    std::vector<bool> holds_rows(p.gpus.size(), false);
    return catch_overflow(
        [&]() -> Result<Placement> {
            for (std::size_t i = 0; i < tensors.size(); ++i) {
                const TensorInfo& t = tensors[i];
                if (prepared->host_input[i] || prepared->routed_expert[i] || !cut_by_rows(t))
                    continue;
                const std::uint64_t unit =
                    t.layer < 0 ? n
                                : std::min<std::uint64_t>(static_cast<std::uint64_t>(t.layer), n);
                const std::size_t main = units[unit];
                const std::uint64_t rows = t.ne[1];
                if (row_range(rows, shares, rounding, main).rows() == 0) continue;
                const Bytes bytes = (*typed)[i];
                const Bytes row = bytes / rows;
                const std::uint64_t short_by = t.ne[0] % kMatrixRowPadding;
                const Bytes padding =
                    short_by == 0
                        ? 0
                        : checked::mul_div_floor(row, kMatrixRowPadding - short_by, t.ne[0]);
                Share& home = p.gpus[main];
                home.weights = checked::sub(home.weights, bytes);
                for (std::size_t id = 0; id < p.gpus.size(); ++id) {
                    const std::uint64_t held = row_range(rows, shares, rounding, id).rows();
                    if (held == 0) continue;
                    p.gpus[id].weights = checked::add(
                        p.gpus[id].weights, checked::add(checked::mul(held, row), padding));
                    holds_rows[id] = true;
                }
            }
            p.row_split = true;
            // A GPU with rows and no layer still runs CUDA: its context.
            for (std::size_t d = 0; d < p.gpus.size(); ++d) {
                Share& g = p.gpus[d];
                if (!holds_rows[d] || g.layers > 0 || g.output || g.runtime > 0) continue;
                if (d < options.gpu_runtime.size()) g.runtime = options.gpu_runtime[d];
            }
            return p;
        },
        [&] { return overflow_error("the row split of " + model.id, "lower --ctx"); });
}

}  // namespace canitrun
