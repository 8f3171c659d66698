#include "canitrun/verify_server.hpp"

#include "canitrun/cpu_repack.hpp"
#include "canitrun/llamacpp_parts.hpp"
#include "canitrun/server_terms.hpp"
#include "canitrun/verify.hpp"
#include "canitrun/verify_devices.hpp"

namespace canitrun {
namespace {

std::optional<Bytes> repack_buffer(const LlamaLog& log) {
    std::optional<Bytes> sum;
    for (const auto& b : log.model_buffers) {
        if (b.device == "CPU_REPACK") sum = checked::add(sum.value_or(0), b.bytes);
    }
    return sum;
}

// One checkpoint at the log's first context (placement.hpp's checkpoint_bytes).
std::optional<Bytes> one_checkpoint(const LlamaLog& log, const Model& model, const Quant& quant) {
    if (log.contexts.empty() || log.contexts.front().n_ctx == 0) return std::nullopt;
    const LlamaCppOptions o = options_from_log(log.contexts.front(), Backend::cpu);
    const auto parts = llamacpp_parts(model, quant, o);
    if (!parts) return std::nullopt;
    ServerTerms terms;
    terms.kv_streams = o.kv_unified ? 1 : o.n_seq;
    terms.sequences = o.n_seq;
    return checkpoint_bytes(*parts, terms);
}

// The buffers of a draft (LlamaLogDraft) as the log gives them, each summed over its devices:
// a draft model's weights, then its context's (or the MTP context's) output, KV cache with any
// recurrent state, and compute buffers; canitrun's figures are set beside them by
// estimate_draft_rows, which needs the database to name a draft model.
void draft_rows(const LlamaLogDraft& draft, std::vector<VerifyRow>& rows) {
    const std::string prefix = draft.mtp ? "mtp_" : "draft_";
    const auto sum = [](const std::vector<LlamaLogBuffer>& buffers, Bytes to) {
        for (const auto& b : buffers) to = checked::add(to, b.bytes);
        return to;
    };
    const auto row = [&](const char* term, Bytes bytes) {
        if (bytes > 0) rows.push_back({prefix + term, std::nullopt, bytes});
    };
    row("weights", sum(draft.model_buffers, 0));
    Bytes output = 0, kv = 0, compute = 0;
    for (const auto& c : draft.contexts) {
        output = sum(c.output, output);
        kv = sum(c.recurrent, sum(c.kv, kv));
        compute = sum(c.compute, compute);
    }
    row("output", output);
    row("kv", kv);
    row("compute", compute);
}

// The row named `term` in `rows`, or null.
VerifyRow* row_named(std::vector<VerifyRow>& rows, const std::string& term) {
    for (auto& r : rows) {
        if (r.term == term) return &r;
    }
    return nullptr;
}

std::optional<Bytes> estimate_of(const VerifyContext& c, const std::string& term) {
    for (const auto& r : c.rows) {
        if (r.term == term) return r.estimate;
    }
    return std::nullopt;
}

// The MTP context's KV and compute (mtp_context_bytes) at its first context's settings.
void estimate_mtp_rows(const LlamaLogDraft& draft, const Model& main,
                       std::vector<VerifyRow>& rows) {
    if (draft.contexts.empty() || draft.contexts.front().n_ctx == 0 || main.arch.mtp_layers == 0) {
        return;
    }
    const auto bytes =
        mtp_context_bytes(main, options_from_log(draft.contexts.front(), Backend::cpu));
    if (!bytes) return;
    if (VerifyRow* r = row_named(rows, "mtp_kv")) r->estimate = bytes->kv;
    if (VerifyRow* r = row_named(rows, "mtp_compute")) r->estimate = bytes->compute;
}

// A draft model's rows from its own log's verification (verify_llama_log).
void estimate_draft_model_rows(const Database& db, const LlamaLog& own,
                               std::vector<VerifyRow>& rows) {
    const Model* known = database_model_of_log(db, own);
    const Quant* quant = quant_of_log(db, own);
    const auto report =
        verify_llama_log(own, quant ? std::optional<Quant>(*quant) : std::nullopt, nullptr, known);
    if (!report || report->contexts.empty()) return;
    const VerifyContext& c = report->contexts.front();
    const auto set = [&](const char* term, std::optional<Bytes> estimate) {
        if (VerifyRow* r = row_named(rows, term); r && estimate) r->estimate = estimate;
    };
    const auto weights = estimate_of(c, "weights_llama_cpp");
    set("draft_weights", weights ? weights : estimate_of(c, "weights"));
    const auto kv = estimate_of(c, "kv_cache");
    if (kv) set("draft_kv", checked::add(*kv, estimate_of(c, "recurrent_state").value_or(0)));
    set("draft_output", estimate_of(c, "output"));
    set("draft_compute", estimate_of(c, "compute"));
}

}  // namespace

void estimate_draft_rows(const Database& db, const LlamaLog& log, const Model* main,
                         std::vector<VerifyRow>& rows) {
    if (!log.draft) return;
    // A log's sizes past 64-bit byte counts leave the rows without figures, as a draft that
    // cannot be planned does.
    (void)catch_overflow(
        [&]() -> Result<bool> {
            if (log.draft->mtp) {
                if (main != nullptr) estimate_mtp_rows(*log.draft, *main, rows);
            } else if (log.draft->own) {
                estimate_draft_model_rows(db, *log.draft->own, rows);
            }
            return true;
        },
        [] { return overflow_error("a draft's figures"); });
}

std::vector<VerifyRow> verify_server_terms(const LlamaLog& log, const Model* model,
                                           const std::optional<Quant>& quant) {
    std::vector<VerifyRow> rows;
    const LlamaLogServer& s = log.server;
    if (s.prompt_cache_limit) {
        rows.push_back({"prompt_cache_limit", kDefaultCacheRam, s.prompt_cache_limit});
    }
    const bool planned = model != nullptr && quant.has_value();
    if (s.checkpoint_largest > 0) {
        rows.push_back({"ctx_checkpoint",
                        planned ? one_checkpoint(log, *model, *quant) : std::nullopt,
                        s.checkpoint_largest});
    }
    if (const auto repack = repack_buffer(log)) {
        std::optional<Bytes> estimate;
        if (planned) {
            if (auto b = llamacpp_repack_bytes(*model, *quant, CpuIsa::avx2)) estimate = *b;
        }
        rows.push_back({"cpu_repack", estimate, repack});
    }
    // The vision projector: the data's figures beside what clip printed (a database model's
    // run.projector; none for a model read from the log's metadata).
    const ProjectorInfo* p = model != nullptr ? &model->run.projector : nullptr;
    const auto known = [](const ProjectorInfo* info, Bytes ProjectorInfo::*field) {
        return info != nullptr && info->*field > 0 ? std::optional<Bytes>(info->*field)
                                                   : std::nullopt;
    };
    if (log.projector_model) {
        rows.push_back({"projector", known(p, &ProjectorInfo::bytes), log.projector_model});
    }
    if (log.projector_compute) {
        rows.push_back(
            {"projector_compute", known(p, &ProjectorInfo::compute_bytes), log.projector_compute});
    }
    if (log.projector_host_compute) {
        rows.push_back({"projector_host_compute", known(p, &ProjectorInfo::host_compute_bytes),
                        log.projector_host_compute});
    }
    if (log.draft) draft_rows(*log.draft, rows);
    return rows;
}

}  // namespace canitrun
