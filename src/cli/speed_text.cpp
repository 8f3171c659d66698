#include "speed_text.hpp"

#include <fmt/format.h>

#include <cmath>
#include <string>
#include <vector>

#include "format.hpp"
#include "hardware_text.hpp"
#include "json_sink.hpp"
#include "style.hpp"

namespace canitrun::cli {
namespace {

// Which of the CPU's figures a CPU-only prompt rate lacks, named one by one: a virtual machine
// often shows cores and flags but neither cpufreq's maximum nor an "@ x GHz" model name.
std::string unknown_cpu_figures(const CpuCompute& cpu) {
    std::vector<std::string> missing;
    if (cpu.cores == 0) missing.emplace_back("cores");
    if (cpu.vector_bytes == 0) missing.emplace_back("vector width");
    if (cpu.ghz <= 0) missing.emplace_back("clock");
    std::string list;
    for (std::size_t i = 0; i < missing.size(); ++i) {
        list += (i == 0 ? "" : i + 1 == missing.size() ? " and " : ", ") + missing[i];
    }
    return "the CPU's " + list + (missing.size() > 1 ? " are" : " is") +
           " not known: --gpu auto reads /proc/cpuinfo and cpu0's cpufreq maximum";
}

// The published runs of this setup, one line per source, backend and build; tests at a depth
// ("pp2048 @ d32768") are left to --json, as is anything past three lines.
void write_measured(std::ostream& out, const HardwareAnswer& a) {
    struct Group {
        const Measurement* first = nullptr;
        std::string tests;
    };
    std::vector<Group> groups;
    std::size_t more = 0;
    for (const Measurement* m : a.measured) {
        if (m->test.find('@') != std::string::npos) {
            ++more;
            continue;
        }
        Group* g = nullptr;
        for (auto& candidate : groups) {
            const Measurement& f = *candidate.first;
            if (f.source == m->source && f.backend == m->backend && f.build == m->build)
                g = &candidate;
        }
        if (g == nullptr) {
            groups.push_back({m, ""});
            g = &groups.back();
        }
        g->tests += fmt::format("{}{} {}", g->tests.empty() ? "" : ", ", m->test,
                                format_rate(m->tokens_per_second));
    }
    for (std::size_t i = 0; i < groups.size(); ++i) {
        if (i >= 3) {
            more += 1;
            continue;
        }
        const Measurement& f = *groups[i].first;
        out << note_mark(out) << "measured: " << groups[i].tests << " (" << f.backend
            << (f.build.empty() ? "" : ", build " + f.build) << "): " << f.source << "\n";
    }
    if (more > 0) out << note_mark(out) << "(" << more << " more published runs in --json)\n";
}

// What a CPU-only plan's prompt rate rests on: the detected CPU's int8 rate and the share of it
// the published CPU runs reached (SpeedModel::cpu_prefill_efficiency).
void write_cpu_prefill_note(std::ostream& out, const CpuCompute& cpu, const SpeedModel& m) {
    out << note_mark(out) << "the prompt at "
        << fmt::format("{:.1f}", m.cpu_prefill_efficiency * 100) << " % of "
        << (cpu.name.empty() ? std::string("the CPU") : cpu.name) << "'s int8 rate (" << cpu.cores
        << " cores x " << cpu.vector_bytes << "-byte vectors x 2 x " << fmt::format("{:g}", cpu.ghz)
        << " GHz = " << fmt::format("{:.2f}", cpu_int8_tops(cpu)) << " TOPS), the median share of "
        << kCpuPrefillRuns << " published llama-bench CPU runs (fewer than " << kMinBandRuns
        << "): no measured band\n";
}

}  // namespace

// A band is a fold error (docs/SPEED.md): past 100 % it reads as a factor either way.
std::string band_text(double band) {
    if (band >= 1) return fmt::format("within {:.1f}x", 1 + band);
    return fmt::format("± {:.0f} %", std::ceil(band * 100));
}

std::string rate_with_band(double tokens_per_s, const std::optional<double>& band, bool say_none) {
    std::string out = format_rate(tokens_per_s);
    if (band)
        out += " (" + band_text(*band) + ")";
    else if (say_none)
        out += " (no measured band)";
    return out;
}

void write_speed(std::ostream& out, const HardwareAnswer& a, const Hardware& h) {
    const Speed& s = a.speed;
    const SpeedModel& m = fitted_speed_model();
    const SpeedClassCoefficients& c = m.of(s.device_class);
    const bool measured = c.decode_rows >= kMinBandRuns || c.prefill_rows >= kMinBandRuns;
    // A band earned on one machine does not cover a network between several (rpc_plan.hpp).
    const bool network = measured && !s.offloaded && !s.decode_band && !s.prefill_band;
    const bool say_none = !s.offloaded && !network;
    // With several sequences this line is one stream by itself; the users' line follows it.
    out << (a.settings.n_seq > 1 ? "\n  Speed of one sequence alone: about " : "\n  Speed: about ")
        << rate_with_band(s.decode_tokens_per_s, s.decode_band, say_none) << " generating";
    // The cache read grows with every token: say so where it costs more than 5 %.
    if (s.decode_at_context && *s.decode_at_context < 0.95 * s.decode_tokens_per_s) {
        out << " (" << format_rate(*s.decode_at_context) << " with all "
            << format_thousands(sequence_context(a.settings)) << " tokens in the cache)";
    }
    const bool cpu_only = h.gpus.empty();
    if (s.prefill_tokens_per_s) {
        out << ", " << rate_with_band(*s.prefill_tokens_per_s, s.prefill_band, say_none || cpu_only)
            << " reading the prompt";
    } else if (cpu_only) {
        // Prompt reading is compute-bound: it needs the CPU's int8 rate (cpu_prefill_seconds).
        out << "; reading the prompt is not estimated ("
            << (cpu_int8_tops(h.cpu) > 0 ? "no published CPU run of 16-bit float weights"
                                         : unknown_cpu_figures(h.cpu))
            << ")";
    } else if (s.prefill_on_cpu) {
        out << "; reading the prompt is not estimated: with --no-op-offload the CPU runs it over "
               "the weights in RAM (no CPU throughput figure)";
    }
    out << "\n";
    if (cpu_only) {
        // No GPU: nothing crosses PCIe, the whole model is read from RAM.
        out << note_mark(out) << "the whole model runs from RAM: its read at "
            << fmt::format("{:.0f} % of {:g} GB/s", m.ram_bandwidth_efficiency * 100,
                           h.ram_bandwidth_gbps)
            << " (--ram-bandwidth) is an assumption no published run checks: no error band\n";
        if (s.prefill_tokens_per_s) write_cpu_prefill_note(out, h.cpu, m);
    } else if (s.tensor_parallel) {
        out << "    --split-mode tensor: each GPU reads its slices at once, and every layer adds "
            << "two reductions of " << fmt::format("{:.0f}", m.meta_reduce_s * 1e6)
            << " us a generated token and " << fmt::format("{:.1f}", m.meta_prefill_reduce_s * 1e6)
            << " us a prompt token, read from " << tensor_decode_note() << ": no error band\n";
    } else if (s.offloaded) {
        out << note_mark(out) << "part of the model runs from RAM: its read at "
            << fmt::format("{:.0f} % of {:g} GB/s", m.ram_bandwidth_efficiency * 100,
                           h.ram_bandwidth_gbps)
            << " (--ram-bandwidth) and PCIe at " << fmt::format("{:g}", m.pcie_gbps)
            << " GB/s are assumptions no published run checks: no error band\n";
    } else if (network) {
        out << note_mark(out) << "fitted on " << c.decode_rows + c.prefill_rows
            << " published llama-bench runs of " << speed_class_words(s.device_class)
            << " on one machine; the network between hosts is not in them: no error band\n";
    } else if (measured) {
        out << note_mark(out) << c.decode_rows + c.prefill_rows << " published llama-bench runs of "
            << speed_class_words(s.device_class)
            << "; 80 % of them fell within the band when their source was left out of the fit "
               "(docs/SPEED.md)\n";
    } else {
        out << note_mark(out) << c.decode_rows + c.prefill_rows << " published llama-bench runs of "
            << speed_class_words(s.device_class) << ", fewer than " << kMinBandRuns
            << " a regime: no measured band (docs/SPEED.md)\n";
    }
    write_measured(out, a);
}

void write_speed_json(JsonSink& w, const HardwareAnswer& a, const Hardware& h) {
    const Speed& s = a.speed;
    const SpeedModel& m = fitted_speed_model();
    w.begin_object();
    // 0 in the core means a device's bandwidth is unknown: null here, not a rate.
    w.key("decode_tokens_per_s");
    if (s.decode_tokens_per_s > 0) {
        w.value(s.decode_tokens_per_s);
    } else {
        w.null();
    }
    w.field("decode_at_context_tokens_per_s", s.decode_at_context);
    w.field("prefill_tokens_per_s", s.prefill_tokens_per_s);
    w.field("decode_error", s.decode_band);
    w.field("prefill_error", s.prefill_band);
    w.field("device_class", speed_class_name(s.device_class));
    w.key("measured");
    w.begin_array();
    for (const Measurement* r : a.measured) {
        w.begin_object();
        w.field("backend", r->backend);
        w.field("build", r->build);
        w.field("source", r->source);
        w.field("test", r->test);
        w.field("tokens_per_s", r->tokens_per_second);
        w.end_object();
    }
    w.end_array();
    w.key("assumptions");
    w.begin_object();
    w.field("model", m.source);
    w.field("offloaded", s.offloaded);
    w.field("ram_bandwidth_gbps", h.ram_bandwidth_gbps);
    w.field("ram_bandwidth_efficiency", m.ram_bandwidth_efficiency);
    w.field("pcie_gbps", m.pcie_gbps);
    // A CPU-only plan's prompt rate: what it was read from (cpu_prefill_seconds).
    if (s.cpu_only && s.prefill_tokens_per_s) {
        w.field("cpu_int8_tops", cpu_int8_tops(h.cpu));
        w.field("cpu_prefill_efficiency", m.cpu_prefill_efficiency);
    }
    w.field("ubatch", s.ubatch);
    w.end_object();
    w.end_object();
}

}  // namespace canitrun::cli
