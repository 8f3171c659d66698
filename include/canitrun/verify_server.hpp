#pragma once
// `verify` on what a server holds beside the model (server_terms.hpp), where the log prints it:
// the prompt cache's limit, the largest context checkpoint, the CPU_REPACK buffer, the draft.

#include <optional>
#include <vector>

#include "canitrun/database.hpp"
#include "canitrun/llama_log.hpp"
#include "canitrun/model.hpp"
#include "canitrun/quant.hpp"
#include "canitrun/verify.hpp"

namespace canitrun {

// Rows beside canitrun's figure for each term the log shows:
// - "prompt_cache_limit": the limit llama-server printed at load, beside the default canitrun
//   plans with (--cache-ram 8192);
// - "ctx_checkpoint": the largest checkpoint the log made, beside one checkpoint at the log's
//   first context (its largest: the whole sliding-window cache of a sequence and its recurrent
//   state; a checkpoint of a short prompt holds fewer cells);
// - "cpu_repack": the CPU_REPACK model buffer, beside llamacpp_repack_bytes (AVX2 assumed).
// The last two need the model and its quantization.
// - a draft's buffers (LlamaLogDraft), read with no figure beside them: "draft_weights",
//   "draft_output", "draft_kv" (with any recurrent state) and "draft_compute" for a draft
//   model, "mtp_output", "mtp_kv" and "mtp_compute" for the MTP context
//   (estimate_draft_rows sets canitrun's figures beside them where it can).
std::vector<VerifyRow> verify_server_terms(const LlamaLog& log, const Model* model,
                                           const std::optional<Quant>& quant);

// canitrun's figures beside a draft's rows in `rows` (verify_server_terms'), where the draft can
// be planned, by the rules --draft and --mtp plan with:
// - an MTP context: "mtp_kv" and "mtp_compute" by mtp_context_bytes on `main` (the log's model,
//   with its MTP layer count) at the MTP context's own settings as its lines print them;
// - a draft model: resolved from its own metadata lines as the main model is
//   (database_model_of_log, its file type's quantization) and verified as a log of its own
//   (verify_llama_log): "draft_weights" (llama.cpp's tensors at the file type, else the rule's),
//   "draft_kv" (with any recurrent state), "draft_output" and "draft_compute" from its first
//   context. Rows it cannot plan keep no figure.
void estimate_draft_rows(const Database& db, const LlamaLog& log, const Model* main,
                         std::vector<VerifyRow>& rows);

}  // namespace canitrun
