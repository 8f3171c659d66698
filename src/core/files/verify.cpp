#include "canitrun/verify.hpp"

#include "canitrun/verify_server.hpp"

#include "canitrun/llamacpp_engine.hpp"
#include "canitrun/tensor_layout.hpp"
#include "canitrun/verify_devices.hpp"

#include <cctype>
#include <cmath>

#include "canitrun/gguf_model.hpp"
#include "canitrun/kv_cache.hpp"
#include "canitrun/name_match.hpp"
#include "canitrun/strings.hpp"

namespace canitrun {
namespace {

std::optional<Bytes> sum(const std::vector<LlamaLogBuffer>& buffers) {
    if (buffers.empty()) return std::nullopt;
    Bytes total = 0;
    for (const auto& b : buffers) total = checked::add(total, b.bytes);
    return total;
}

std::optional<Bytes> find_term(const Estimate& e, TermKind kind) {
    for (const auto& t : e.terms) {
        if (t.kind == kind) return t.bytes;
    }
    return std::nullopt;
}

const char* const kFileSizeBasis = "the log's file size line";

// A log names no tensors, so whether the output head is tied to the embedding is read from the
// tensor count: the layout (tied or not) whose count is nearer the log's.
Model verify_model_tying(const Model& model, const std::optional<std::uint64_t>& tensor_count) {
    if (!model.arch.tied_embeddings || !tensor_count) return model;
    Model untied = model;
    untied.arch.tied_embeddings = false;
    const auto tied_layout = tensor_layout(model);
    const auto untied_layout = tensor_layout(untied);
    const auto distance = [&](const TensorLayout& l) {
        const std::uint64_t n = l.tensors.size();
        return n > *tensor_count ? n - *tensor_count : *tensor_count - n;
    };
    if (tied_layout && untied_layout && distance(*untied_layout) < distance(*tied_layout)) {
        return untied;
    }
    return model;
}

// What every context compares its weights against.
struct VerifyWeights {
    std::optional<Bytes> weights;       // the estimate
    std::optional<Bytes> file_size;     // the log's file size line
    std::optional<Bytes> model_buffer;  // the log's model buffers, summed
};

// The weights estimate: the quick rule when the quantization is known, else the log's file size.
VerifyWeights estimate_verify_weights(const LlamaLog& log, const std::optional<Quant>& quant,
                                      VerifyReport& report) {
    VerifyWeights w;
    const auto params = log.params_billions();
    w.file_size = log.file_size();
    if (quant && (params || report.model.params_total > 0)) {
        const auto n = params ? static_cast<std::uint64_t>(std::llround(*params * 1e9))
                              : report.model.params_total;
        w.weights = weight_bytes(n, *quant);
        report.weights_basis =
            "quick rule: the log's model params x " + quant->id + "'s bits per weight";
    } else if (w.file_size) {
        w.weights = *w.file_size;
        report.weights_basis = kFileSizeBasis;
    } else {
        report.notes.push_back("no model params or file size in the log: weights not estimated");
    }
    w.model_buffer = sum(log.model_buffers);
    if (!w.model_buffer) report.notes.push_back("no model buffer line in the log");
    return w;
}

// The KV cache and recurrent state of the model at the context's size and cache type.
void add_verify_cache_terms(const Model& model, const LlamaLogContext& c, VerifyContext& vc,
                            VerifyReport& report) {
    const auto type = parse_kv_type(vc.type_k);
    if (type) {
        const Model cache = llama_cache_model(model, c.n_ctx, vc.n_ubatch);
        vc.estimate.terms.push_back(
            {TermKind::kv_cache, kv_cache_bytes(cache, c.n_ctx, *type), Device::gpu});
    } else {
        report.notes.push_back("KV type " + vc.type_k + " unknown to canitrun");
    }
    // One recurrent state per sequence (llama-memory-recurrent.cpp: mem_size = n_seq_max).
    vc.estimate.terms.push_back(
        {TermKind::recurrent_state,
         checked::mul(recurrent_state_bytes(model), c.n_seq_max ? c.n_seq_max : 1), Device::gpu});
}

// The llama.cpp profile: per-tensor weights at llama-quantize's types, compute and output
// buffers, at the log's own settings (CPU backend, as the logs' buffers are). An engine error
// is noted once, for the first context.
void add_verify_llamacpp_terms(const Model& model, const Quant& quant, const LlamaLogContext& c,
                               VerifyContext& vc, VerifyReport& report) {
    LlamaCppOptions lo = options_from_log(c, Backend::cpu);
    lo.ubatch = vc.n_ubatch;
    lo.cache_type_k = vc.type_k;
    lo.cache_type_v = c.type_v.empty() ? vc.type_k : c.type_v;
    auto engine = estimate_llamacpp(model, quant, lo);
    if (engine) {
        const Bytes tensors =
            checked::add(engine->term(TermKind::weights), engine->term(TermKind::token_embd));
        vc.estimate.terms.push_back({TermKind::weights_llama_cpp, tensors, Device::cpu});
        vc.estimate.terms.push_back(
            {TermKind::output, engine->term(TermKind::output), Device::cpu});
        vc.estimate.terms.push_back(
            {TermKind::compute, engine->term(TermKind::compute), Device::cpu});
    } else if (report.contexts.empty()) {
        report.notes.push_back("llama.cpp engine: " + engine.error().message);
    }
}

// Each estimate term beside the log's own buffer for it.
void add_verify_rows(const LlamaLogContext& c, const std::optional<Bytes>& model_buffer,
                     VerifyContext& vc) {
    vc.rows.push_back({"weights", find_term(vc.estimate, TermKind::weights), model_buffer});
    if (const auto exact = find_term(vc.estimate, TermKind::weights_llama_cpp)) {
        vc.rows.push_back({"weights_llama_cpp", exact, model_buffer});
    }
    if (const auto fs = find_term(vc.estimate, TermKind::file_size)) {
        // The log's own size of the file (2 decimals of GiB) against the model buffer.
        vc.rows.push_back({"weights_file_size", fs, model_buffer});
    }
    if (c.n_ctx > 0) {
        vc.rows.push_back({"kv_cache", find_term(vc.estimate, TermKind::kv_cache), sum(c.kv)});
        const auto rs = find_term(vc.estimate, TermKind::recurrent_state);
        const auto rs_actual = sum(c.recurrent);
        if (rs_actual || (rs && *rs > 0)) {
            vc.rows.push_back({"recurrent_state", rs, rs_actual});
        }
        vc.rows.push_back({"output", find_term(vc.estimate, TermKind::output), sum(c.output)});
        vc.rows.push_back({"compute", find_term(vc.estimate, TermKind::compute), sum(c.compute)});
    }
}

// Why a context is not planned per device (verify_context), where the report would otherwise
// be silent: the log lacks what the plan needs.
std::string no_devices_reason(const LlamaLog& log, const LlamaLogContext& c, bool have_model) {
    if (!have_model) return "the log gives no model architecture";
    if (c.n_ctx == 0) return "the log gives no n_ctx for this context";
    const std::string file_type = log.file_type();
    if (file_type.empty()) {
        return "the log prints no file type (print_info's \"file type\" line): give --quant";
    }
    return "the file type \"" + file_type + "\" is no quantization canitrun's data holds";
}

// One context of the log against the estimate at its settings. `have_model`: the log's
// metadata made a model (report.model), so its cache and the engine profile can be estimated.
VerifyContext verify_context(const LlamaLog& log, const LlamaLogContext& c, const VerifyWeights& w,
                             bool have_model, const std::optional<Quant>& quant,
                             VerifyReport& report) {
    VerifyContext vc;
    vc.n_ctx = c.n_ctx;
    vc.n_ubatch = c.n_ubatch ? c.n_ubatch : kLlamaDefaultUbatch;
    vc.type_k = c.type_k.empty() ? std::string(kDefaultKvType) : c.type_k;
    if (w.weights) vc.estimate.terms.push_back({TermKind::weights, *w.weights, Device::gpu});
    if (w.file_size && report.weights_basis != kFileSizeBasis) {
        vc.estimate.terms.push_back({TermKind::file_size, *w.file_size, Device::gpu});
    }
    if (have_model && c.n_ctx > 0) add_verify_cache_terms(report.model, c, vc, report);
    if (have_model && quant && c.n_ctx > 0) {
        add_verify_llamacpp_terms(report.model, *quant, c, vc, report);
        if (auto devices = verify_devices(log, c, report.model, *quant)) {
            vc.devices = std::move(*devices);
        } else if (report.contexts.empty()) {
            report.notes.push_back("per device: " + devices.error().message);
        }
    } else if (report.contexts.empty()) {
        report.notes.push_back("per device: not planned: " + no_devices_reason(log, c, have_model));
    }
    add_verify_rows(c, w.model_buffer, vc);
    return vc;
}

}  // namespace

FlashAttn log_flash_attn(const std::string& printed) {
    // Builds before mid 2025 print 0 / 1; later ones enabled / disabled / auto.
    if (printed == "enabled" || printed == "1" || printed == "true" || printed == "on") {
        return FlashAttn::on;
    }
    if (printed == "disabled" || printed == "0" || printed == "false" || printed == "off") {
        return FlashAttn::off;
    }
    return FlashAttn::automatic;
}

std::string quant_id_from_file_type(const std::string& file_type) {
    // llama.cpp names Q2_K's file type "Q2_K - Medium" (LLAMA_FTYPE_MOSTLY_Q2_K).
    if (file_type.rfind("Q2_K - Medium", 0) == 0) return "Q2_K";
    std::string id = file_type;
    const auto replace = [&](const std::string& from, const std::string& to) {
        if (const auto at = id.find(from); at != std::string::npos) id.replace(at, from.size(), to);
    };
    replace(" - Medium", "_M");
    replace(" - Small", "_S");
    replace(" - Large", "_L");
    replace(" - Extra small", "_XS");
    replace("all F32", "F32");
    if (const auto sp = id.find(' '); sp != std::string::npos) id.resize(sp);
    return id;
}

namespace {

// A repo alias's or id's last part ("Qwen3.6-27B" of "Qwen/Qwen3.6-27B").
std::string after_slash(const std::string& name) {
    const auto slash = name.rfind('/');
    return slash == std::string::npos ? name : name.substr(slash + 1);
}

// The name a file gives itself names the database model: its id, an alias, or the last part
// of its Hub repo or a repo alias, in any capitalisation or punctuation.
bool names_model(const Model& m, const std::string& name) {
    const std::string key = normalize_name(name);
    if (key.empty() || name.ends_with("...")) return false;  // llama.cpp cut the value
    if (normalized_equals(m.id, key) || normalized_equals(after_slash(m.hf_repo), key)) return true;
    for (const auto& a : m.aliases) {
        if (normalized_equals(after_slash(a), key)) return true;
    }
    return false;
}

std::string metadata_text(const LlamaLog& log, const std::string& key) {
    const auto it = log.metadata.find(key);
    return it == log.metadata.end() ? std::string() : it->second.value;
}

}  // namespace

const Model* database_model_of_log(const Database& db, const LlamaLog& log) {
    const std::string arch = log.arch();
    if (arch.empty()) return nullptr;
    const auto runs_as_logged = [&](const Model& m) {
        const auto a = llama_arch(m);
        return a && *a == arch;
    };
    if (!log.file_repo.empty()) {
        for (const Model& m : db.models) {
            if (to_lower(m.run.gguf_repo) == to_lower(log.file_repo) && runs_as_logged(m)) {
                return &m;
            }
        }
    }
    const std::string name = metadata_text(log, "general.name");
    const std::string basename = metadata_text(log, "general.basename");
    const std::string size = metadata_text(log, "general.size_label");
    std::string sized = basename;
    if (!basename.empty() && !size.empty()) sized.append("-").append(size);
    for (const std::string& n : {name, sized, basename}) {
        for (const Model& m : db.models) {
            if (names_model(m, n) && runs_as_logged(m)) return &m;
        }
    }
    return nullptr;
}

Model as_database_model(const Model& logged, const Model& known) {
    Model named = logged;
    named.family = known.family;
    named.id = known.id;
    const auto own = llama_arch(logged);
    const auto as_known = llama_arch(named);
    return own && as_known && *own == *as_known ? named : logged;
}

Result<VerifyReport> verify_llama_log(const LlamaLog& log, const std::optional<Quant>& quant,
                                      const Model* given, const Model* known) {
    VerifyReport report;
    report.arch = log.arch();
    report.file_type = log.file_type();
    auto model = gguf_to_model({llama_log_metadata(log)});
    if (given != nullptr) {
        report.model = *given;
        // The file's own importance matrix where the log printed its whole metadata (the
        // type counts follow the last key): a logged file need not be its gguf_repo
        // publisher's, and is typed as it was made.
        if (model && !log.type_counts.empty()) {
            report.model.run.gguf_imatrix = model->model.run.gguf_imatrix;
            report.model.run.gguf_imatrix_source = model->model.run.gguf_imatrix_source;
        }
        if (!model) model = GgufModel{};  // the model is known; only its origin differs
        if (report.arch.empty()) report.arch = given->id;
    } else if (model) {
        report.model = verify_model_tying(model->model, log.tensor_count);
        if (known != nullptr) {
            report.model = as_database_model(report.model, *known);
            if (report.model.id == known->id) {
                report.notes.push_back("the log's file is the database's " + known->id +
                                       ": a recipe's rules for its family (" + known->family +
                                       ") and id hold");
            }
        }
    } else {
        report.notes.push_back("no model architecture in the log (" + model.error().message +
                               "): KV cache and recurrent state not estimated");
    }
    // Whatever it cannot read, it names: every memory line left unread, by number and reason.
    for (const auto& u : log.unread_lines) {
        report.notes.push_back("line " + std::to_string(u.line) + " not read (" + u.reason + ")" +
                               (u.text.empty() ? "" : ": " + u.text));
    }
    if (log.projector_lines > 0) {
        report.notes.push_back(
            std::to_string(log.projector_lines) +
            " line(s) of the vision projector's own buffers (clip's "
            "alloc_compute_meta): not the text model's, read as the projector's rows");
    }
    CANITRUN_TRY(catch_overflow(
        [&]() -> Result<void> {
            const VerifyWeights weights = estimate_verify_weights(log, quant, report);
            std::vector<LlamaLogContext> contexts = log.contexts;
            if (contexts.empty()) {
                report.notes.push_back("the log creates no context: only the weights are compared");
                contexts.emplace_back();
            }
            for (const auto& c : contexts) {
                VerifyContext vc =
                    verify_context(log, c, weights, model.has_value(), quant, report);
                report.contexts.push_back(std::move(vc));
            }
            return {};
        },
        [&] { return fail(ErrorKind::bad_input, "the log's sizes overflow 64-bit byte counts"); }));
    report.server = verify_server_terms(log, model || given ? &report.model : nullptr, quant);
    return report;
}

const Quant* quant_of_file_type(const Database& db, const std::string& file_type) {
    const auto q = db.find_quant(quant_id_from_file_type(file_type));
    return q ? *q : nullptr;
}

const Quant* recipe_of_file_name(const Database& db, const std::string& file_name,
                                 const std::string& file_type) {
    const auto at = file_name.find("UD-");
    if (at == std::string::npos) return nullptr;
    auto end = at + 3;
    while (end < file_name.size() &&
           (std::isalnum(static_cast<unsigned char>(file_name[end])) || file_name[end] == '_'))
        ++end;
    const auto q = db.find_quant(file_name.substr(at, end - at));
    if (!q || (*q)->recipe_base != quant_id_from_file_type(file_type)) return nullptr;
    return *q;
}

const Quant* quant_of_log(const Database& db, const LlamaLog& log) {
    const std::string file_type = log.file_type();
    if (const Quant* recipe = recipe_of_file_name(db, log.file_name, file_type)) return recipe;
    return file_type.empty() ? nullptr : quant_of_file_type(db, file_type);
}

}  // namespace canitrun
