#pragma once
// A database model as the GGUF file llama.cpp's converter and llama-quantize would make of it:
// the metadata keys the converter writes for its architecture, and every tensor canitrun's
// tensor_layout lists, typed as quantize_rules types it. The accuracy harness writes it to a
// sparse file (tools/accuracy/make_gguf); the tests read it back (the layer-kinds agreement).

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "canitrun/error.hpp"
#include "canitrun/model.hpp"
#include "support/gguf_writer.hpp"

namespace canitrun::test {

// enum llama_ftype (include/llama.h) by quantization id.
const std::map<std::string, std::uint32_t>& ftype_ids();

// Every metadata key, in the order the file has them.
void write_model_metadata(GgufWriter& w, const Model& m, const std::string& arch,
                          std::uint32_t ftype);

// The whole file's header: metadata and tensor infos. `imatrix`: as quantize_tensors takes it
// (nullopt: llama-quantize's default for the quantization).
Result<GgufWriter> model_gguf(const Model& m, const std::string& quant_id,
                              std::optional<bool> imatrix = std::nullopt);

}  // namespace canitrun::test
