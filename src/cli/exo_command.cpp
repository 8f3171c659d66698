// --engine exo: exo's memory-weighted pipeline over the --host machines (exo_plan.hpp), as
// text, JSON, CSV or one line.
#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "app.hpp"
#include "canitrun/exo_plan.hpp"
#include "canitrun/kv_cache.hpp"
#include "canitrun/mlx_speed.hpp"
#include "canitrun/parse.hpp"
#include "canitrun/speed.hpp"
#include "cluster_command.hpp"
#include "csv_output.hpp"
#include "engine_command.hpp"
#include "format.hpp"
#include "hardware_text.hpp"
#include "request.hpp"
#include "style.hpp"
#include "table.hpp"

namespace canitrun::cli {
namespace {

using json = nlohmann::json;

struct ExoView {
    const Model* model = nullptr;
    Quant quant;  // the --quant asked for, else MLX's 4-bit (what mlx-community publishes)
    bool asked_quant = false;
    Cluster cluster;
    EstimateOptions options;
    std::vector<MlxShare> mlx;  // the published runs' shares the plan was timed by
    ExoPlan plan;
};

// A machine whose chip has a single published run has no band of its own: say so, with the
// run's source and its note where it marks the figure unconfirmed.
void write_single_runs(std::ostream& out, const ExoView& v) {
    std::vector<int> said;
    for (const ExoNode& n : v.plan.nodes) {
        const Hardware& h = v.cluster.hosts[n.host].hardware;
        if (n.mlx_runs != 1 || h.gpus.empty()) continue;
        const int chip = apple_chip(h.gpus.front());
        if (std::find(said.begin(), said.end(), chip) != said.end()) continue;
        said.push_back(chip);
        const auto run = std::find_if(v.mlx.begin(), v.mlx.end(),
                                      [chip](const MlxShare& s) { return s.chip == chip; });
        if (run == v.mlx.end() || run->run == nullptr) continue;
        out << "    host " << n.host + 1 << "'s chip has one published MLX run, so its band is "
            << "that run's share alone: " << run->run->source
            << (run->run->note.starts_with("unconfirmed") ? " (unconfirmed)" : "") << "\n";
    }
}

// Decode from MLX's published runs on each machine's chip (validation/mlx.json), or none.
void write_exo_speed(std::ostream& out, const ExoView& v) {
    const ExoPlan& p = v.plan;
    if (!p.fits) return;
    if (p.unmeasured_node) {
        const ExoNode& n = p.nodes[*p.unmeasured_node];
        const Hardware& h = v.cluster.hosts[n.host].hardware;
        out << "  Speed: not estimated: no published MLX run on host " << n.host + 1 << "'s "
            << (h.gpus.empty() ? std::string("CPU") : describe_gpus(h.gpus))
            << " (validation/mlx.json); exo runs MLX, and llama.cpp's speed model is not MLX's\n";
        return;
    }
    out << "  Speed: about " << format_rate(p.decode_tokens_per_s) << " generating ("
        << format_rate(p.decode_low) << " to " << format_rate(p.decode_high)
        << ": the lowest and highest share of bandwidth MLX reached in the published runs on "
           "each machine's chip, validation/mlx.json"
        << (p.transfers > 0 ? ", with the dearest and cheapest hop" : "")
        << "); the slowest machine is host " << p.nodes[p.slowest_node].host + 1
        << fmt::format(" ({:.1f} ms per token)\n", p.nodes[p.slowest_node].seconds_per_token * 1e3);
    write_single_runs(out, v);
}

void write_exo_text(std::ostream& out, const ExoView& v) {
    const ExoPlan& p = v.plan;
    out << heading(out, fmt::format("{} at {}, {} tokens: exo over {} machine{}", v.model->name,
                                    v.quant.id, format_thousands(v.options.context),
                                    v.cluster.hosts.size(), v.cluster.hosts.size() == 1 ? "" : "s"))
        << "\n";
    const std::string verdict =
        p.fits ? "Fits: every machine holds its share of the layers."
               : "Does not fit: a machine's share of the layers is more than its memory.";
    out << "  " << paint(out, p.fits ? Tone::good : Tone::bad, verdict) << "\n\n";
    Table t({"Host", "GPUs", "Layers", "Weights", "KV cache", "Overhead", "Total", "Memory", ""},
            {false, false, true, true, true, true, true, true, false});
    for (const ExoNode& n : p.nodes) {
        const Hardware& h = v.cluster.hosts[n.host].hardware;
        t.add_row({std::to_string(n.host + 1), h.gpus.empty() ? "CPU" : describe_gpus(h.gpus),
                   fmt::format("{}-{}", n.first_layer, n.first_layer + n.layers - 1),
                   format_gb(n.weights), format_gb(n.kv_cache), format_gb(n.overhead),
                   format_gb(n.total()), format_gb(n.memory), n.fits() ? "" : "over"});
    }
    t.write(out, "  ");
    out << "\n  Layers in proportion to each machine's memory, as exo's "
           "allocate_layers_proportionally splits them; weights at "
        << (v.asked_quant
                ? v.quant.id + "'s rate (exo loads MLX weights)"
                : "MLX 4-bit's rate (4.5 bits per weight: a 16-bit scale and bias per 64)")
        << ", 12 % overhead per machine (exo's own is unmeasured)\n";
    if (p.transfers == 0) {
        out << "  Network: none: one machine holds every layer\n";
    } else {
        out << fmt::format(
            "  Network: {} hop{} per token round the ring ({} bytes each) over the {:g} Gb/s "
            "link: {:.1f} ms per token ({:.1f} to {:.1f})\n",
            p.transfers, p.transfers == 1 ? "" : "s", format_thousands(p.bytes_per_transfer),
            v.cluster.link_gbits, p.link_seconds_per_token * 1e3, p.link_seconds_fastest * 1e3,
            p.link_seconds_slowest * 1e3);
        out << fmt::format(
            "    a hop costs about {:.2f} ms besides its bytes ({:.2f} to {:.2f}): exo's own, "
            "fitted on {} published runs of one model standalone and pipelined over two Macs "
            "on Thunderbolt 5 ({}); other links and ring sizes are not measured\n",
            p.hop.middle * 1e3, p.hop.low * 1e3, p.hop.high * 1e3, p.hop.runs, kExoHopSource);
    }
    write_exo_speed(out, v);
    if (!p.fits) return;
    out << "\n  Start it:\n    on every host: uv run exo   (or the exo app)\n"
        << "    then on host 1: open http://localhost:" << kExoApiPort
        << " and launch the model (or POST /instance)\n";
}

json exo_json(const ExoView& v) {
    json nodes = json::array();
    for (const ExoNode& n : v.plan.nodes) {
        nodes.push_back(
            {{"host", n.host + 1},
             {"memory_bytes", n.memory},
             {"first_layer", n.first_layer},
             {"layers", n.layers},
             {"weights_bytes", n.weights},
             {"kv_cache_bytes", n.kv_cache},
             {"overhead_bytes", n.overhead},
             {"total_bytes", n.total()},
             {"fits", n.fits()},
             {"seconds_per_token", n.mlx_runs > 0 ? json(n.seconds_per_token) : json(nullptr)},
             {"mlx_runs", n.mlx_runs}});
    }
    json hosts = json::array();
    for (const Host& h : v.cluster.hosts) hosts.push_back(h.spec);
    const ExoPlan& p = v.plan;
    return {
        {"engine", "exo"},
        {"model", v.model->id},
        {"quant", v.quant.id},
        {"context", v.options.context},
        {"hosts", hosts},
        {"link_gbits", v.cluster.link_gbits},
        {"nodes", nodes},
        {"network",
         {{"transfers_per_token", p.transfers},
          {"bytes_per_transfer", p.bytes_per_transfer},
          {"seconds_per_token", p.link_seconds_per_token},
          {"seconds_per_token_band", json::array({p.link_seconds_fastest, p.link_seconds_slowest})},
          {"hop_seconds", p.hop.middle},
          {"hop_seconds_band", json::array({p.hop.low, p.hop.high})},
          {"hop_source", kExoHopSource}}},
        {"decode_tokens_per_s",
         p.decode_tokens_per_s > 0 ? json(p.decode_tokens_per_s) : json(nullptr)},
        {"decode_band_tokens_per_s",
         p.decode_tokens_per_s > 0 ? json::array({p.decode_low, p.decode_high}) : json(nullptr)},
        {"speed_source", "validation/mlx.json (published MLX runs)"},
        {"fits", p.fits},
        {"units", "bytes"}};
}

void write_exo_csv(std::ostream& out, const ExoView& v) {
    CsvWriter csv(out, {"host", "first_layer", "layers", "weights_bytes", "kv_cache_bytes",
                        "overhead_bytes", "total_bytes", "memory_bytes", "fits"});
    for (const ExoNode& n : v.plan.nodes) {
        csv.row({std::to_string(n.host + 1), std::to_string(n.first_layer),
                 std::to_string(n.layers), std::to_string(n.weights), std::to_string(n.kv_cache),
                 std::to_string(n.overhead), std::to_string(n.total()), std::to_string(n.memory),
                 n.fits() ? "true" : "false"});
    }
}

}  // namespace

CommandResult exo_result(const Request& req, const Model& model) {
    const Cluster& hosts = req.cluster;
    if (hosts.hosts.empty()) {
        throw Failure{Error{ErrorKind::bad_input, "--engine exo plans machines",
                            "name each with --host, e.g. --host m3-ultra-256gb --host "
                            "m3-ultra-256gb"}};
    }
    if (req.users) {
        throw Failure{Error{ErrorKind::bad_input, "--users is not modelled for exo",
                            "leave it out, or use --engine llama.cpp or vllm"}};
    }
    auto v = std::make_shared<ExoView>();
    v->model = &model;
    v->asked_quant = req.report.quant != nullptr;
    v->quant = v->asked_quant ? *req.report.quant : mlx_quant(4);
    v->cluster = hosts;
    v->options.context = req.context.value_or(default_context(model));
    v->options.kv_type = req.report.estimate.kv_type;
    v->mlx = need(mlx_shares(*req.db, embedded_mlx_runs()));
    v->plan = need(plan_exo(model, v->quant, v->cluster, v->options, v->mlx));
    CommandResult r;
    r.what = "exo";
    r.views = {[v] { return exo_json(*v); }, [v](std::ostream& csv) { write_exo_csv(csv, *v); },
               [v] { return std::vector<std::string>{v->plan.fits ? "fits" : "does not fit"}; }};
    r.text = [v](std::ostream& out) { write_exo_text(out, *v); };
    r.verdict = verdict_of_fit(v->plan.fits);
    return r;
}

}  // namespace canitrun::cli
