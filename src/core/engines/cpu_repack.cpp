#include "canitrun/cpu_repack.hpp"

#include "canitrun/ggml_type.hpp"
#include "canitrun/llamacpp_engine.hpp"
#include "canitrun/llamacpp_rules.hpp"
#include "canitrun/quantize_rules.hpp"

namespace canitrun {

Result<CpuIsa> parse_cpu_isa(const std::string& text) {
    if (text == "none") return CpuIsa::none;
    if (text == "avx2") return CpuIsa::avx2;
    if (text == "avx512") return CpuIsa::avx512;
    if (text == "arm-dotprod") return CpuIsa::arm_dotprod;
    if (text == "arm-i8mm") return CpuIsa::arm_i8mm;
    return fail(ErrorKind::bad_input, "unknown CPU instruction set '" + text + "'",
                "use avx2, avx512, arm-dotprod, arm-i8mm or none");
}

const char* cpu_isa_name(CpuIsa isa) {
    switch (isa) {
        case CpuIsa::avx2:
            return "avx2";
        case CpuIsa::avx512:
            return "avx512";
        case CpuIsa::arm_dotprod:
            return "arm-dotprod";
        case CpuIsa::arm_i8mm:
            return "arm-i8mm";
        case CpuIsa::none:
            break;
    }
    return "none";
}

bool repacks(CpuIsa isa, std::string_view type_name, std::uint64_t rows) {
    const bool x86 = isa == CpuIsa::avx2 || isa == CpuIsa::avx512;           // AVX-512 has AVX2
    const bool arm = isa == CpuIsa::arm_dotprod || isa == CpuIsa::arm_i8mm;  // i8mm: dotprod too
    // One line per branch of ggml_repack_get_optimal_repack_type (cpu_repack.hpp).
    if (type_name == "q4_0" || type_name == "iq4_nl" || type_name == "mxfp4") {
        return (x86 && rows % 8 == 0) || (arm && rows % 4 == 0);
    }
    if (type_name == "q4_K") return (x86 || arm) && rows % 8 == 0;
    if (type_name == "q2_K") return isa == CpuIsa::avx512 && rows % 8 == 0;
    if (type_name == "q5_K" || type_name == "q6_K") return arm && rows % 8 == 0;
    if (type_name == "q8_0" || type_name == "q1_0") return arm && rows % 4 == 0;
    return false;
}

namespace {

// Whether one tensor is repacked: the repack buffer type's supports_op takes a MUL_MAT whose
// weight is 2-D and a MUL_MAT_ID (routed experts) whose weight is 3-D. token_embd is a row
// lookup (GET_ROWS); MLA's 3-D attn_k_b / attn_v_b are MUL_MATs of 3 dimensions, so they stay
// in the plain CPU buffer (measured: docs/ACCURACY.md, CPU_REPACK).
bool tensor_repacks(CpuIsa isa, std::string_view name, std::uint64_t n_dims,
                    std::string_view type_name, std::uint64_t rows) {
    const bool product =
        n_dims == 2 ? name != "token_embd.weight" : n_dims == 3 && llama_routed_expert_tensor(name);
    return product && repacks(isa, type_name, rows);
}

}  // namespace

Result<Bytes> llamacpp_repack_bytes(const Model& model, const Quant& quant, CpuIsa isa) {
    if (isa == CpuIsa::none) return Bytes{0};
    CANITRUN_TRY_ASSIGN(const auto prepared, llamacpp_layout(model));
    CANITRUN_TRY_ASSIGN(const auto typed, quantize_tensors(prepared->layout, quant.id));
    Bytes sum = 0;
    for (const auto& t : typed) {
        if (tensor_repacks(isa, t.tensor.name, t.tensor.n_dims, t.type.name, t.tensor.ne[1])) {
            sum = checked::add(sum, t.bytes);
        }
    }
    return sum;
}

Bytes file_repack_bytes(const std::vector<FileTensor>& tensors, CpuIsa isa) {
    Bytes sum = 0;
    if (isa == CpuIsa::none) return sum;
    for (const auto& t : tensors) {
        const auto type = find_ggml_type(t.type);
        if (type && tensor_repacks(isa, t.name, t.n_dims, type->name, t.ne[1])) {
            sum = checked::add(sum, t.bytes);
        }
    }
    return sum;
}

}  // namespace canitrun
