#pragma once
// `canitrun verify`: a llama.cpp log's real buffer sizes beside canitrun's estimate of the same
// model at the same settings, term by term. An estimate term is looked up by name, so a term
// with no estimate yet (compute, output) shows as missing until an engine profile supplies it.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "canitrun/database.hpp"
#include "canitrun/estimate.hpp"
#include "canitrun/llama_log.hpp"
#include "canitrun/llamacpp_engine.hpp"
#include "canitrun/model.hpp"
#include "canitrun/quant.hpp"
#include "canitrun/verify_devices.hpp"

namespace canitrun {

struct VerifyRow {
    std::string term;  // "weights", "kv_cache", "recurrent_state", "output", "compute"
    std::optional<Bytes> estimate;
    std::optional<Bytes> actual;
};

struct VerifyContext {
    std::uint64_t n_ctx = 0;
    std::uint64_t n_ubatch = 0;
    std::string type_k;
    Estimate estimate;  // the terms canitrun estimates at this context
    std::vector<VerifyRow> rows;
    // Per device, where the log has GPU buffers and the model and quantization are known.
    std::optional<DeviceCheck> devices;
};

struct VerifyReport {
    std::string arch;
    std::string file_type;
    Model model;                // rebuilt from the log's metadata / print_info lines
    std::string weights_basis;  // how the weights estimate was made
    std::vector<VerifyContext> contexts;
    std::vector<std::string> notes;  // what was missing from the log
    // What the server holds beside the model, where the log prints it (verify_server.hpp).
    std::vector<VerifyRow> server;
};

// `quant`: the database quantization matching the log's file type, when there is one; the
// weights estimate is then the quick rule (params x bpw), else the log's own file size.
// `given`: the model the run loaded, for an excerpt without the metadata lines (verify
// --model); null: rebuilt from the log's metadata.
Result<VerifyReport> verify_llama_log(const LlamaLog& log, const std::optional<Quant>& quant,
                                      const Model* given = nullptr);

// The log's flash_attn line as the rule's setting: "enabled" / "1" on, "disabled" / "0" off,
// anything else (auto) automatic.
FlashAttn log_flash_attn(const std::string& printed);

// "Q4_K - Medium" -> "Q4_K_M", "Q8_0" -> "Q8_0", "BF16" -> "BF16".
std::string quant_id_from_file_type(const std::string& file_type);
// The database's quantization of a log's file type; null when it has none.
const Quant* quant_of_file_type(const Database& db, const std::string& file_type);
// The published recipe a loaded file's name says it follows ("...-UD-Q4_K_M.gguf": Unsloth's
// UD-Q4_K_M), where the database has it over the log's file type; null otherwise.
const Quant* recipe_of_file_name(const Database& db, const std::string& file_name,
                                 const std::string& file_type);

}  // namespace canitrun
