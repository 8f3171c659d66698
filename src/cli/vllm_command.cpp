// --engine vllm: the layout choose_vllm_layout picks over the hosts (or the one machine of
// --gpu / --vram), as text, JSON, CSV or one line.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "app.hpp"
#include "canitrun/parse.hpp"
#include "canitrun/serving.hpp"
#include "canitrun/vllm_layout.hpp"
#include "cluster_command.hpp"
#include "csv_output.hpp"
#include "engine_command.hpp"
#include "format.hpp"
#include "hardware_text.hpp"
#include "json_output.hpp"
#include "request.hpp"
#include "style.hpp"
#include "table.hpp"

namespace canitrun::cli {
namespace {

using json = nlohmann::json;

struct VllmView {
    const Model* model = nullptr;
    const Quant* quant = nullptr;
    Cluster cluster;
    VllmLayout layout;
    std::uint64_t users = 0;  // --users; 0 when not asked
    ServingSpeed speed;       // at --users, else at the most sequences that fit
    bool fits() const { return vllm_serves(layout, users); }
};

// --gpu or --vram as the one host vLLM runs on.
Cluster one_machine(const Request& r) {
    const Options& o = *r.flags;
    Cluster c;
    Host h;
    if (r.report.vram_budget) {
        GpuDevice d;
        d.name = article_for(o.vram) + " " + o.vram + " GB budget";
        d.memory = *r.report.vram_budget;
        h.spec = "--vram " + o.vram;
        h.hardware.gpus.push_back(d);
    } else if (r.report.hardware) {
        h.spec = o.hw.gpu;
        h.hardware = *r.report.hardware;
        h.hardware.ram = 0;  // vLLM keeps nothing in system RAM: none is planned
    } else {
        throw Failure{Error{ErrorKind::bad_input, "--engine vllm needs a GPU to size its KV pool",
                            "add --gpu NAME, --vram GB or --host GPUS"}};
    }
    c.hosts.push_back(h);
    return c;
}

// The KV pool's pages, the longest context (at most the model's window) and the sequences.
void write_vllm_pool(std::ostream& out, const VllmLayout& l) {
    const VllmEstimate& e = l.estimate;
    out << fmt::format("\n  KV pool {} per GPU in {}-token pages of {}\n", format_gb(e.kv_pool),
                       l.options.block_size, format_mib(e.page_bytes));
    out << "  Longest context for 1 sequence: " << format_thousands(e.longest_context) << " tokens";
    if (e.longest_context < e.max_context_one_seq) {
        out << (l.yarn_factor > 0 ? " (the window YaRN reaches" : " (the model's window")
            << "; the KV pool would hold " << format_thousands(e.max_context_one_seq) << ")";
    }
    out << "\n";
    out << "  Sequences at " << format_thousands(l.options.context)
        << " tokens: " << e.max_sequences << " (--max-num-seqs " << l.options.max_num_seqs << ")\n";
}

// The context the plan runs at, where it is not the one asked or the model's native one.
void write_vllm_window(std::ostream& out, const VllmView& v) {
    const VllmLayout& l = v.layout;
    if (l.context_capped) {
        out << "  --max-model-len is the model's window, " << format_thousands(l.options.context)
            << " tokens (asked " << format_thousands(l.asked_context) << ")";
        // A card that documents a longer window by another route (Qwen 2507's config_1m.json
        // with Dual Chunk Attention): named, as the plan does not take it.
        if (v.model->context_extension != "YaRN" &&
            v.model->context_extended > v.model->context_native)
            out << "; the card's " << v.model->context_extension << " reaches "
                << format_thousands(v.model->context_extended) << ", not planned here";
        out << "\n";
    }
    if (l.yarn_factor > 0) {
        out << "  Past the native " << format_thousands(v.model->context_native)
            << "-token window: YaRN at factor " << l.yarn_factor
            << " through --hf-overrides (vLLM's context extension), and quality may drop\n";
    }
}

void write_vllm_text(std::ostream& out, const VllmView& v) {
    const VllmLayout& l = v.layout;
    const VllmEstimate& e = l.estimate;
    const std::uint64_t gpus = e.tensor_parallel * e.pipeline_parallel;
    out << heading(out,
                   fmt::format("{} at {}, {} tokens: vLLM, tensor parallel {} x pipeline "
                               "parallel {} ({} GPU{})",
                               v.model->name, v.quant->id, format_thousands(l.options.context),
                               e.tensor_parallel, e.pipeline_parallel, gpus, gpus == 1 ? "" : "s"))
        << "\n";
    const Tone tone = v.fits() ? Tone::good : Tone::bad;
    const std::string verdict =
        l.fits ? fmt::format(
                     "Fits: {} of weights over {} GPU{}, --gpu-memory-utilization {} of "
                     "each.",
                     format_gb(e.weights_total), gpus, gpus == 1 ? "" : "s",
                     format_fraction(l.options.gpu_memory_utilization_pct))
               : fmt::format(
                     "Does not fit: {} of weights; over {} GPU{} each holds {} with its "
                     "reserves, against {} ({} x {}).",
                     format_gb(e.weights_total), gpus, gpus == 1 ? "" : "s",
                     format_gb(e.estimate.total() - e.estimate.term(TermKind::kv_cache)),
                     format_gb(e.budget), format_fraction(l.options.gpu_memory_utilization_pct),
                     format_gib(e.stages.at(e.limiting_stage).gpu_memory));
    out << "  " << paint(out, tone, verdict) << "\n";
    write_vllm_window(out, v);
    Table t({"Stage", "Host", "Layers", "Weights", "Activations", "Runtime", "KV pool", "Budget"},
            {false, true, true, true, true, true, true, true});
    for (std::size_t s = 0; s < e.stages.size(); ++s) {
        const VllmStage& st = e.stages[s];
        t.add_row({std::to_string(s), std::to_string(l.stage_hosts.at(s) + 1),
                   std::to_string(st.layers), format_gb(st.weights), format_gb(st.activations),
                   format_gb(st.runtime), format_gb(st.kv_pool), format_gb(st.budget)});
    }
    out << "\n  Each GPU of a stage holds (tensor parallel " << e.tensor_parallel << "):\n";
    t.write(out, "  ");
    write_vllm_pool(out, l);
    if (v.users > 0) {
        out << "  " << v.users << " users of " << format_thousands(l.options.context)
            << " tokens: " << (v.fits() ? "served" : "not served") << "\n";
    }
    if (v.fits() && v.speed.per_user_tokens_per_s > 0) {
        out << "  At " << v.speed.users << (v.speed.users == 1 ? " sequence" : " sequences")
            << ", caches full: about " << format_rate(v.speed.per_user_tokens_per_s) << " each, "
            << format_rate(v.speed.total_tokens_per_s) << " in all"
            << (v.speed.compute_bound ? " (compute-bound)" : "")
            << " (batched estimate, no measured band)\n";
    }
    if (!l.skipped.empty()) {
        std::string sizes;
        for (const VllmSkip& s : l.skipped) {
            sizes += (sizes.empty() ? "" : ", ") + std::to_string(s.tensor_parallel);
        }
        out << "  Not possible in vLLM: tensor parallel " << sizes << "; for "
            << l.skipped.front().tensor_parallel << ": " << l.skipped.front().why << "\n";
    }
    if (!l.fits) return;
    if (v.model->is_moe() && gpus > 1) {
        const std::uint64_t experts = v.model->arch.moe->experts;
        out << "  Expert parallel (--enable-expert-parallel) gives each GPU " << experts / gpus
            << (experts % gpus ? " or " + std::to_string(experts / gpus + 1) : "")
            << " whole experts of " << experts
            << " instead of a slice of every one: the same bytes per GPU\n";
    }
    out << "\n  Start it:\n";
    for (const std::string& line : vllm_launch_lines(*v.model, *v.quant, l)) {
        out << "    " << line << "\n";
    }
}

json vllm_json(const VllmView& v) {
    const VllmLayout& l = v.layout;
    const VllmEstimate& e = l.estimate;
    json stages = json::array();
    for (std::size_t s = 0; s < e.stages.size(); ++s) {
        const VllmStage& st = e.stages[s];
        stages.push_back({{"host", l.stage_hosts.at(s) + 1},
                          {"first_layer", st.first_layer},
                          {"layers", st.layers},
                          {"gpu_memory_bytes", st.gpu_memory},
                          {"budget_bytes", st.budget},
                          {"weights_bytes", st.weights},
                          {"activations_bytes", st.activations},
                          {"runtime_bytes", st.runtime},
                          {"kv_pool_bytes", st.kv_pool},
                          {"page_bytes", st.page_bytes},
                          {"per_sequence_fixed_bytes", st.per_sequence_fixed},
                          {"blocks", st.blocks}});
    }
    json hosts = json::array();
    for (const Host& h : v.cluster.hosts) hosts.push_back(h.spec);
    json skipped = json::array();
    for (const VllmSkip& s : l.skipped) {
        skipped.push_back({{"tensor_parallel", s.tensor_parallel}, {"why", s.why}});
    }
    const VllmStage& lim = e.stages.at(e.limiting_stage);
    return {{"engine", "vllm"},
            {"model", v.model->id},
            {"quant", v.quant->id},
            {"context", l.options.context},
            {"context_capped", l.context_capped},
            {"hosts", hosts},
            {"link_gbits", v.cluster.link_gbits},
            {"tensor_parallel", e.tensor_parallel},
            {"pipeline_parallel", e.pipeline_parallel},
            {"gpu_memory_bytes", lim.gpu_memory},
            {"gpu_memory_utilization_percent", l.options.gpu_memory_utilization_pct},
            {"max_num_batched_tokens", l.options.max_num_batched_tokens},
            {"max_num_seqs", l.options.max_num_seqs},
            {"weights_total_bytes", e.weights_total},
            {"budget_bytes", e.budget},
            {"kv_pool_bytes", e.kv_pool},
            {"block_size", l.options.block_size},
            {"page_bytes", e.page_bytes},
            {"per_sequence_fixed_bytes", e.per_sequence_fixed},
            {"max_context_one_sequence", e.max_context_one_seq},
            {"longest_context_one_sequence", e.longest_context},
            {"max_sequences_at_context", e.max_sequences},
            {"users", v.users > 0 ? json(v.users) : json(nullptr)},
            {"speed", v.speed.per_user_tokens_per_s > 0
                          ? json{{"users", v.speed.users},
                                 {"per_user_tokens_per_s", v.speed.per_user_tokens_per_s},
                                 {"total_tokens_per_s", v.speed.total_tokens_per_s},
                                 {"compute_bound", v.speed.compute_bound}}
                          : json(nullptr)},
            {"stages", stages},
            {"skipped_tensor_parallel", skipped},
            {"estimate", {{"terms", estimate_json(e.estimate)}}},
            {"commands", l.fits ? json(vllm_launch_lines(*v.model, *v.quant, l)) : json::array()},
            {"fits", v.fits()},
            {"units", "bytes"}};
}

void write_vllm_csv(std::ostream& out, const VllmView& v) {
    CsvWriter csv(out, {"stage", "host", "tensor_parallel", "layers", "weights_bytes",
                        "activations_bytes", "runtime_bytes", "kv_pool_bytes", "budget_bytes"});
    const VllmEstimate& e = v.layout.estimate;
    for (std::size_t s = 0; s < e.stages.size(); ++s) {
        const VllmStage& st = e.stages[s];
        csv.row({std::to_string(s), std::to_string(v.layout.stage_hosts.at(s) + 1),
                 std::to_string(e.tensor_parallel), std::to_string(st.layers),
                 std::to_string(st.weights), std::to_string(st.activations),
                 std::to_string(st.runtime), std::to_string(st.kv_pool),
                 std::to_string(st.budget)});
    }
}

}  // namespace

CommandResult vllm_result(const Request& req, const Model& model) {
    auto view = std::make_shared<VllmView>();
    VllmView& v = *view;
    v.model = &model;
    v.quant =
        req.report.quant != nullptr ? req.report.quant : need(vllm_default_quant(*req.db, model));
    v.cluster = req.cluster.hosts.empty() ? one_machine(req) : req.cluster;
    v.users = req.users.value_or(0);
    VllmOptions base;
    base.context = req.context.value_or(default_context(model));
    base.gpu_memory_utilization_pct = req.vllm_utilization_pct;
    v.layout = need(choose_vllm_layout(model, *v.quant, v.cluster, base));
    if (v.fits()) {
        std::vector<GpuDevice> devices;
        for (std::size_t h : v.layout.stage_hosts) {
            devices.push_back(v.cluster.hosts[h].hardware.gpus.front());
        }
        const std::uint64_t n = v.users > 0 ? v.users : v.layout.estimate.max_sequences;
        v.speed = vllm_batched_decode(model, v.layout.estimate, devices, n);
    }
    CommandResult r;
    r.what = "vLLM";
    r.views = {[view] { return vllm_json(*view); },
               [view](std::ostream& csv) { write_vllm_csv(csv, *view); },
               [view] {
                   const VllmEstimate& e = view->layout.estimate;
                   return std::vector<std::string>{
                       view->fits()
                           ? fmt::format("TP {} x PP {}", e.tensor_parallel, e.pipeline_parallel)
                           : std::string("does not fit")};
               }};
    r.text = [view](std::ostream& out) { write_vllm_text(out, *view); };
    r.verdict = verdict_of_fit(v.fits());
    return r;
}

}  // namespace canitrun::cli
