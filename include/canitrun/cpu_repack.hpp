#pragma once
// llama.cpp's CPU_REPACK buffer: on a CPU whose instructions have an interleaved kernel for a
// weight's type, the CPU backend's extra buffer type takes the matrix-product weights of that
// type (2-D MUL_MAT, 3-D MUL_MAT_ID experts; a 3-D MUL_MAT such as MLA's attn_k_b is not:
// extra_buffer_type::supports_op, repack.cpp lines 5191-5225) and stores them repacked, in memory
// it allocates, the same size as the file's (get_alloc_size is ggml_nbytes). The rule is
// ggml_repack_get_optimal_repack_type (ggml/src/ggml-cpu/repack.cpp, read at 0ad4a86, lines
// 4925-5141; i8mm implies dotprod on every ARM core that has it):
//   Q4_0:   AVX2 (or SVE 256 with i8mm) and rows % 8; NEON with i8mm or dotprod and rows % 4
//   Q4_K:   AVX2, or NEON with i8mm or dotprod, and rows % 8
//   Q2_K:   AVX-512 and rows % 8
//   Q5_K, Q6_K: NEON with i8mm or dotprod and rows % 8 (no x86 kernel)
//   IQ4_NL, MXFP4: AVX2 and rows % 8; NEON with dotprod and rows % 4
//   Q8_0, Q1_0: NEON with i8mm or dotprod and rows % 4 (no x86 kernel)
// SVE, s390x (VXE) and RISC-V kernels are not planned (no CpuIsa for them).
// (rows: ne[1], the tensor's output rows). llama_model's make_cpu_buft_list puts the extra
// buffer types after a GPU's host buffer type (CUDA_Host, ...), which takes every weight
// first: with a GPU the weights in RAM are not repacked (--no-host would allow it; not
// planned). --no-repack (use_extra_bufts = false) turns it off.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "canitrun/checked.hpp"
#include "canitrun/error.hpp"
#include "canitrun/file_parts.hpp"
#include "canitrun/model.hpp"
#include "canitrun/quant.hpp"

namespace canitrun {

enum class CpuIsa { none, avx2, avx512, arm_dotprod, arm_i8mm };

Result<CpuIsa> parse_cpu_isa(const std::string& text);  // none, avx2, avx512, arm-dotprod, arm-i8mm
const char* cpu_isa_name(CpuIsa isa);

// Whether a weight of this ggml type (its name, as llama.cpp prints it) with `rows` output rows
// is repacked on the CPU.
bool repacks(CpuIsa isa, std::string_view type_name, std::uint64_t rows);

// The bytes of the model's weights at the quantization that the CPU repacks when every layer
// and the output head are on it (token_embd is read by rows, never repacked).
Result<Bytes> llamacpp_repack_bytes(const Model& model, const Quant& quant, CpuIsa isa);

// The same over a model file's own tensors, at the types the file holds.
Bytes file_repack_bytes(const std::vector<FileTensor>& tensors, CpuIsa isa);

}  // namespace canitrun
