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
// --model); null: rebuilt from the log's metadata. `known`: the database model the log's file
// is a copy of (database_model_of_log); the model rebuilt from the metadata then takes its
// family and id (as_database_model), so a recipe's rules for that family or model hold in the
// log's plan as they do in a plan of the database model.
Result<VerifyReport> verify_llama_log(const LlamaLog& log, const std::optional<Quant>& quant,
                                      const Model* given = nullptr, const Model* known = nullptr);

// The database model whose file the log loaded: the one whose gguf_repo is the Hub repo of the
// file's path (LlamaLog::file_repo), else one the file's general.name, general.basename with
// its general.size_label, or general.basename names (an id, an alias, a repo's last part).
// Only a model llama.cpp runs as the log's architecture counts; null when none does.
const Model* database_model_of_log(const Database& db, const LlamaLog& log);

// A model read from a file or log under a database model's family and id, the two a recipe's
// scoped rules look at (TensorLayout::family, model_id, from the Model's own fields for a
// database model); unchanged where the database's family would make it another architecture.
Model as_database_model(const Model& logged, const Model& known);

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
// The quantization a log's file was made with: its name's recipe (recipe_of_file_name), else its
// file type's; null when the log names neither or the database has no such quantization.
const Quant* quant_of_log(const Database& db, const LlamaLog& log);

}  // namespace canitrun
