#include "cluster_command.hpp"

#include "app.hpp"
#include "request.hpp"

#include <fmt/format.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "canitrun/fit.hpp"
#include "canitrun/parse.hpp"
#include "canitrun/plan_settings.hpp"
#include "canitrun/rpc_plan.hpp"
#include "canitrun/serving.hpp"
#include "canitrun/vllm_layout.hpp"
#include "csv_output.hpp"
#include "engine_command.hpp"
#include "format.hpp"
#include "hardware_json.hpp"
#include "hardware_text.hpp"
#include "shell_words.hpp"
#include "speed_text.hpp"
#include "style.hpp"
#include "table.hpp"

namespace canitrun::cli {
namespace {

using json = nlohmann::json;

std::string link_words(const Cluster& c) {
    return fmt::format("{:g} Gb/s link{}", c.link_gbits,
                       c.link_gbits == kDefaultLinkGbits ? " (10 Gb Ethernet, the default)" : "");
}

// ---- llama.cpp RPC ----

struct RpcView {
    const Model* model = nullptr;
    Cluster cluster;
    RpcAnswer rpc;
    RpcLaunch launch;
};

std::vector<std::string> rpc_labels(const RpcView& v) {
    std::vector<std::string> labels;
    const Hardware& h = v.rpc.devices.hardware;
    for (std::size_t i = 0; i < h.gpus.size(); ++i) {
        labels.push_back(
            fmt::format("host {}  {}", v.rpc.devices.device_host[i] + 1, device_label(h, i)));
    }
    labels.push_back("host 1  System RAM");
    return labels;
}

void write_rpc_text(std::ostream& out, const RpcView& v) {
    const HardwareAnswer& a = v.rpc.answer;
    const std::uint64_t n_seq = std::max<std::uint64_t>(a.settings.n_seq, 1);
    out << heading(out,
                   fmt::format("{} at {}, {} tokens{}: {} hosts over llama.cpp RPC", v.model->name,
                               a.quant->id, format_thousands(sequence_context(a.settings)),
                               n_seq > 1 ? fmt::format(" x {} users", n_seq) : "",
                               v.cluster.hosts.size()))
        << "\n";
    for (std::size_t h = 0; h < v.cluster.hosts.size(); ++h) {
        out << "  " << describe_host(v.cluster, h) << (h == 0 ? ", runs llama-server" : "")
            << ": holds " << format_gb(v.rpc.host_bytes[h]) << "\n";
    }
    out << "\n";
    write_plan(out, a, v.rpc.devices.hardware, rpc_labels(v));
    const RpcTraffic& t = v.rpc.traffic;
    out << fmt::format(
        "\n  Network: {} transfer{} per token ({} bytes) over the {}: {:.1f} ms per token\n",
        t.transfers, t.transfers == 1 ? "" : "s", format_thousands(t.bytes_per_token),
        link_words(v.cluster), t.seconds_per_token * 1e3);
    if (a.plan.kind != PlanKind::none && a.speed.decode_tokens_per_s > 0) {
        write_speed(out, a, v.rpc.devices.hardware);
        out << note_mark(out)
            << "the network's share is an assumption from one measurement (llama.cpp PR #6829, "
               "1 Gb Ethernet): docs/SPEED-BEYOND.md\n";
    }
    if (a.plan.kind == PlanKind::none) return;
    out << "\n  Start it:\n";
    for (std::size_t h : v.launch.server_hosts) {
        out << "    on host " << h + 1 << ": rpc-server " << shell_join(v.launch.rpc_server_args)
            << "\n";
    }
    out << "    on host 1: llama-server " << shell_join(v.launch.llama_server_args) << "\n";
}

json rpc_json(const RpcView& v) {
    json hosts = json::array();
    for (std::size_t h = 0; h < v.cluster.hosts.size(); ++h) {
        hosts.push_back({{"spec", v.cluster.hosts[h].spec},
                         {"hardware", hardware_json(v.cluster.hosts[h].hardware)},
                         {"holds_bytes", v.rpc.host_bytes[h]}});
    }
    json commands = json::array();
    for (std::size_t h : v.launch.server_hosts) {
        commands.push_back(
            {{"host", h + 1}, {"command", "rpc-server " + shell_join(v.launch.rpc_server_args)}});
    }
    commands.push_back(
        {{"host", 1}, {"command", "llama-server " + shell_join(v.launch.llama_server_args)}});
    const RpcTraffic& t = v.rpc.traffic;
    return {{"engine", "llama.cpp-rpc"},
            {"model", v.model->id},
            {"link_gbits", v.cluster.link_gbits},
            {"hosts", hosts},
            {"device_hosts", v.rpc.devices.device_host},
            {"plan", hardware_answer_json(v.rpc.answer, v.rpc.devices.hardware)},
            {"network",
             {{"transfers_per_token", t.transfers},
              {"bytes_per_token", t.bytes_per_token},
              {"seconds_per_token", t.seconds_per_token}}},
            {"fits", v.rpc.answer.plan.kind == PlanKind::native},
            {"commands", commands},
            {"units", "bytes"}};
}

void write_rpc_csv(std::ostream& out, const RpcView& v) {
    CsvWriter csv(out, {"host", "device", "layers", "output", "weights_bytes", "kv_cache_bytes",
                        "total_bytes", "capacity_bytes", "fits"});
    const Placement& p = v.rpc.answer.plan.placement;
    const Hardware& h = v.rpc.devices.hardware;
    for (std::size_t i = 0; i < p.gpus.size(); ++i) {
        const Share& s = p.gpus[i];
        csv.row({std::to_string(v.rpc.devices.device_host[i] + 1), h.gpus[i].name,
                 std::to_string(s.layers), s.output ? "true" : "false", std::to_string(s.weights),
                 std::to_string(s.kv_cache), std::to_string(s.total()), std::to_string(s.capacity),
                 s.fits() ? "true" : "false"});
    }
    csv.row({"1", "System RAM", std::to_string(p.ram.layers), p.ram.output ? "true" : "false",
             std::to_string(p.ram.weights), std::to_string(p.ram.kv_cache),
             std::to_string(p.ram.total()), std::to_string(p.ram.capacity),
             p.ram.fits() ? "true" : "false"});
}

CommandResult rpc_result(const Request& req, const Model& model) {
    const ReportOptions& ro = req.report;
    const Quant& quant = ro.quant ? *ro.quant : *req.db->default_quant(model);
    need(require_loadable(ro.plan, quant));
    std::string note;
    const PlanSettings settings = settings_for_model(model, ro.plan, &note);
    auto v = std::make_shared<RpcView>(RpcView{&model, req.cluster, {}, {}});
    v->rpc = need(answer_rpc(model, quant, v->cluster, settings, ro.placement));
    v->launch = rpc_launch(v->rpc, {&model, &quant, {}});
    const bool fits = v->rpc.answer.plan.kind == PlanKind::native;
    CommandResult r;
    r.what = "llama.cpp RPC";
    r.views = {[v] { return rpc_json(*v); }, [v](std::ostream& csv) { write_rpc_csv(csv, *v); },
               [v, fits] {
                   return std::vector<std::string>{fits ? "fits"
                                                        : plan_kind_name(v->rpc.answer.plan.kind)};
               }};
    r.text = [v, note](std::ostream& out) {
        if (!note.empty()) out << note << "\n\n";
        write_rpc_text(out, *v);
    };
    r.verdict = verdict_of_fit(fits);
    return r;
}

}  // namespace

bool cluster_question(const Request& r) {
    return r.cluster.hosts.size() >= 2 || r.engine_has_own_view();
}

namespace {

// How the hosts' GPU names were read (the variant a shared name plans, an MI250X's two GCDs),
// each once; --gpu's where no host is given (vLLM on one machine).
std::vector<std::string> named_gpu_notes(const Request& r) {
    std::vector<std::string> notes;
    const auto add = [&notes](const Hardware& h) {
        for (const auto& n : h.notes) {
            if (std::find(notes.begin(), notes.end(), n) == notes.end()) notes.push_back(n);
        }
    };
    for (const Host& h : r.cluster.hosts) add(h.hardware);
    if (r.cluster.hosts.empty() && r.report.hardware) add(*r.report.hardware);
    return notes;
}

CommandResult engine_result(const Request& r, const Model& model) {
    if (r.engine == EngineKind::vllm) return vllm_result(r, model);
    if (r.engine == EngineKind::exo) return exo_result(r, model);
    if (r.engine == EngineKind::quick) {
        throw Failure{Error{ErrorKind::bad_input, "--engine quick plans one machine",
                            "use --engine llama.cpp (the default, over RPC) or vllm"}};
    }
    return rpc_result(r, model);
}

}  // namespace

CommandResult cluster_result(const Request& r, const Model& model) {
    CommandResult result = engine_result(r, model);
    const auto notes = named_gpu_notes(r);
    if (!notes.empty() && result.text) {
        result.text = [text = result.text, notes](std::ostream& out) {
            write_hardware_notes(out, notes);
            out << "\n";
            text(out);
        };
    }
    return result;
}

}  // namespace canitrun::cli
