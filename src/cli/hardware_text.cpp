#include "hardware_text.hpp"

#include "canitrun/launch_command.hpp"

#include <fmt/format.h>

#include "canitrun/fit.hpp"
#include "canitrun/llamacpp_rules.hpp"
#include "canitrun/tensor_split.hpp"
#include "format.hpp"
#include "launch_lines.hpp"
#include "page_facts.hpp"
#include "shell_words.hpp"
#include "speed_text.hpp"
#include "style.hpp"
#include "table.hpp"

namespace canitrun::cli {
namespace {

std::string memory_label(const Hardware& h) {
    std::string gpus = h.gpus.empty() ? "no GPU" : describe_gpus(h.gpus);
    if (h.unified()) {
        // one memory: what the GPU may use, and what is left to the CPU side
        return gpus + " (unified memory: " + format_gb(h.gpu_memory()) + " for the GPU, " +
               format_gb(h.ram) + " for the CPU)";
    }
    return gpus + " + " + format_gb(h.ram) + " RAM";
}

void add_share_row(Table& t, const std::string& label, const Share& s,
                   std::uint64_t expert_layers = 0) {
    std::string layers = std::to_string(s.layers);
    if (s.output) layers += "+out";
    if (expert_layers > 0) layers = fmt::format("experts of {}", expert_layers);
    // Buffers: the quick rule's overhead, or llama.cpp's compute buffer, runtime and recurrent
    // state.
    // and what the server holds beside the model once loaded (write_resident lists it).
    const Bytes buffers =
        checked::add(checked::add(s.overhead, s.compute),
                     checked::add(checked::add(s.runtime, s.recurrent_state), s.resident_load()));
    t.add_row({label, layers, format_gb(s.weights), format_gb(s.kv_cache), format_gb(buffers),
               format_gb(s.total()), format_gb(s.capacity), s.fits() ? "" : "over"});
}

// A plan whose every device holds its load but not what grows after it (llama-server's prompt
// cache and checkpoints): the device, and the flags that bound the growth.
std::optional<std::string> over_once_grown(const Placement& p) {
    bool load_fits = p.ram.loads();
    for (const auto& g : p.gpus) load_fits = load_fits && g.loads();
    const auto over = first_overflow(p);
    if (!load_fits || !over) return std::nullopt;
    return fmt::format(
        "Fits at load, but not what llama-server holds after it: {} would reach {} of {}{} with "
        "its prompt cache and context checkpoints at their most; lower --cache-ram or "
        "--ctx-checkpoints.",
        over->gpu ? fmt::format("GPU {}", *over->gpu) : std::string("system RAM"),
        format_gb(over->need), format_gb(over->capacity), over->gpu ? " usable" : "");
}

// The growth settings cap_growth lowered for a plan, as the flags its line carries: the serving
// line's plan (more slots, more checkpoints) can need them where the page's own line does not.
std::string capped_flags(const Placement& p) {
    std::string s;
    if (p.capped_checkpoints) s += fmt::format(" --ctx-checkpoints {}", *p.capped_checkpoints);
    if (p.capped_cache_ram) s += fmt::format(" --cache-ram {}", *p.capped_cache_ram >> 20);
    return s;
}

}  // namespace

std::string growth_cap_sentence(const Placement& p) {
    const std::string ram = format_gb(p.ram.capacity);
    std::string s;
    if (p.capped_checkpoints) {
        s = fmt::format(
            "{} context checkpoints of {} would outgrow {} of RAM: the line keeps {} "
            "(--ctx-checkpoints {})",
            p.asked_checkpoints, format_gb(p.checkpoint_bytes), ram, *p.capped_checkpoints,
            *p.capped_checkpoints);
    }
    if (p.capped_cache_ram) {
        s += fmt::format(
            "{}{} prompt cache of {} would outgrow {} of RAM: the line keeps {} "
            "(--cache-ram {})",
            s.empty() ? "" : "; ", s.empty() ? "A" : "a", format_gb(p.asked_cache_ram), ram,
            format_gb(*p.capped_cache_ram), *p.capped_cache_ram >> 20);
    }
    return s.empty() ? s : s + ".";
}

namespace {

// The planner's own placement where the user's flags made the plan fail (core's
// answer_for): its flags, as the printed command would carry them, and its speed.
std::string alternative_clause(const PlacementAlternative& alt, const Hardware& h) {
    const Placement& p = alt.plan.placement;
    const std::string speed =
        alt.decode_tokens_per_s > 0
            ? fmt::format(", about {} generating", format_rate(alt.decode_tokens_per_s))
            : "";
    return fmt::format(
        ". The plan's own placement fits: {} ({} on the GPU{}, {} in RAM{}); use it in place of "
        "the placement flags given.",
        shell_join(placement_args(&h, &p)), format_gb(p.gpu_total()), h.gpus.size() > 1 ? "s" : "",
        format_gb(p.ram.total()), speed);
}

// What the plan's GPU total is measured against: the GPUs' usable memory as the core set it
// (Placement::gpu_usable), and where a margin is kept, the memory it comes out of, so the figure
// is not read as the card's (the table's Usable column is the same capacity, per device).
std::string gpu_room(const Placement& p, const Hardware& h, Bytes margin) {
    const Bytes usable = p.gpu_usable();
    if (usable == h.gpu_memory()) return format_gb(usable);
    return fmt::format("{} usable ({} less {} kept free{})", format_gb(usable),
                       format_gb(h.gpu_memory()), format_margin(margin),
                       h.gpus.size() > 1 ? " on each GPU" : "");
}

// The sentence of a plan that fits whole: which split, and why when it is not the default.
std::string native_sentence(const Placement& p, const Hardware& h, Bytes margin) {
    if (p.split_found) {
        return fmt::format(
            "Fits on the GPUs with an uneven split, {} of {}: llama.cpp's default split "
            "by memory overfills a GPU, --tensor-split {} holds every layer.",
            format_gb(p.gpu_total()), gpu_room(p, h, margin), tensor_split_text(p.tensor_split));
    }
    if (p.split_faster) {
        return fmt::format(
            "Fits on the GPUs: {} of {}; --tensor-split {} runs faster by the speed "
            "model than llama.cpp's default split by memory{}.",
            format_gb(p.gpu_total()), gpu_room(p, h, margin), tensor_split_text(p.tensor_split),
            p.gpus.size() == 2 && (p.gpus[0].layers == 0 || p.gpus[1].layers == 0)
                ? " (one GPU alone: no hand-over between cards)"
                : "");
    }
    return fmt::format("Fits on the GPU{}: {} of {}.", h.gpus.size() > 1 ? "s" : "",
                       format_gb(p.gpu_total()), gpu_room(p, h, margin));
}

// Which layers' routed experts stay in RAM, by the flag that puts them there.
std::string expert_offload_sentence(const Placement& p, const Hardware& h) {
    if (p.all_experts_in_ram()) {
        return fmt::format(
            "Does not fit the GPU memory whole; runs with every layer's routed experts in "
            "system RAM (llama.cpp --cpu-moe): {} on the GPU{}, {} in RAM.",
            format_gb(p.gpu_total()), h.gpus.size() > 1 ? "s" : "", format_gb(p.ram.total()));
    }
    if (!p.cpu_moe_set.empty()) {
        return fmt::format(
            "Does not fit the GPU memory whole; runs with the routed experts of {} "
            "layers in system RAM, chosen on each GPU to free what it cannot hold "
            "(llama.cpp -ot, the layers its pattern names): {} on the GPUs, {} in RAM.",
            p.cpu_moe_layers, format_gb(p.gpu_total()), format_gb(p.ram.total()));
    }
    return fmt::format(
        "Does not fit the GPU memory whole; runs with the routed experts of the first {} "
        "layers in system RAM (llama.cpp --n-cpu-moe {}): {} on the GPU{}, {} in RAM.",
        p.cpu_moe_layers, p.cpu_moe_layers, format_gb(p.gpu_total()), h.gpus.size() > 1 ? "s" : "",
        format_gb(p.ram.total()));
}

std::string plan_sentence(const HardwareAnswer& a, const Hardware& h) {
    const Placement& p = a.plan.placement;
    const std::uint64_t layers = p.gpus.empty() ? 0 : p.gpu_layers;
    switch (a.plan.kind) {
        case PlanKind::native:
            return native_sentence(p, h, a.settings.margin);
        case PlanKind::expert_offload:
            return expert_offload_sentence(p, h);
        case PlanKind::layer_offload:
            return fmt::format(
                "Does not fit the GPU memory whole; runs with the first {} layer{} in system RAM "
                "(llama.cpp -ngl {}): {} on the GPU{}, {} in RAM.",
                p.ram.layers, p.ram.layers == 1 ? "" : "s", layers, format_gb(p.gpu_total()),
                h.gpus.size() > 1 ? "s" : "", format_gb(p.ram.total()));
        case PlanKind::cpu_only:
            return fmt::format("No GPU: runs on the CPU from system RAM, {} of {}.",
                               format_gb(p.ram.total()), format_gb(h.ram));
        case PlanKind::none:
            break;
    }
    for (const auto& d : h.gpus) {
        // a format the device cannot load: that, not memory, is why (NVFP4 off CUDA)
        if (d.gpu != nullptr && !gpu_runs_quant(*d.gpu, *a.quant)) {
            const std::string& need = a.quant->requires_backend;
            return fmt::format(
                "Does not run: {} files load only on {} GPUs, and the {} is not one.", a.quant->id,
                need == "cuda" ? "NVIDIA (CUDA)" : need, d.gpu->short_name);
        }
    }
    if (const auto grown = over_once_grown(p)) return *grown;
    if (h.unified()) {
        return fmt::format("Does not fit: needs {}, and the GPU's share of unified memory is {}.",
                           format_gb(p.gpu_total()), gpu_room(p, h, a.settings.margin));
    }
    // Over only because of where the layers were put (a --n-cpu-moe or --ngl given): the
    // device that is over, with the flags that move its load. Over in all: the total.
    const Bytes need = checked::add(p.gpu_total(), p.ram.total());
    Bytes room = p.ram.capacity;
    for (const auto& g : p.gpus) room = checked::add(room, g.capacity);
    const auto over = need <= room ? first_overflow(p) : std::nullopt;
    if (over && over->gpu) {
        const std::size_t d = *over->gpu;
        const std::string device =
            fmt::format("Does not fit: GPU {} ({}) needs {} of its {} usable{}", d,
                        d < h.gpus.size() ? h.gpus[d].name : std::string("?"),
                        format_gb(over->need), format_gb(over->capacity),
                        p.row_split         ? " under --split-mode row"
                        : p.tensor_parallel ? " under --split-mode tensor"
                                            : "");
        if (a.alternative) return device + alternative_clause(*a.alternative, h);
        return device +
               "; keep more in system RAM (--n-cpu-moe, --ngl), or leave them out for the plan "
               "to choose.";
    }
    if (over && a.alternative) {
        return fmt::format("Does not fit: system RAM needs {} of the {} given (--ram){}",
                           format_gb(over->need), format_gb(over->capacity),
                           alternative_clause(*a.alternative, h));
    }
    if (over) {
        return fmt::format(
            "Does not fit: system RAM needs {} of the {} given (--ram); a smaller quantization or "
            "context, or more RAM, would.",
            format_gb(over->need), format_gb(over->capacity));
    }
    return fmt::format(
        "Does not fit, not even with layers in the {} of system RAM given (--ram): it needs "
        "about {}, the GPUs and RAM hold {}.",
        format_gb(h.ram), format_gb(need), format_gb(room));
}

std::string resident_label(const std::string& name) {
    if (name == "prompt_cache") return "prompt cache";
    if (name == "ctx_checkpoints") return "context checkpoints";
    if (name == "cpu_repack") return "repacked weights (CPU_REPACK)";
    if (name == "nkvo_attention") return "attention on the CPU (-nkvo)";
    if (name == "load_staging") return "staging while loading (--load-mode, freed once loaded)";
    if (name == kMetaReduceTerm) return "partial sums reduced between GPUs (-sm tensor)";
    if (name == "projector") return "vision projector (mmproj)";
    if (name == "projector_compute") return "the projector's compute buffer";
    if (name == "projector_host_compute") return "the projector's CPU compute buffer";
    if (name.starts_with("draft:")) return "draft model " + name.substr(6);
    if (name.starts_with("also:")) return name.substr(5) + " (--also)";
    return name;
}

// What the server holds beside the model on each device: at load, and what grows after load
// (llama-server's prompt cache and checkpoints) with the most the device then holds.
void write_resident(std::ostream& out, const Placement& p, const Hardware& h) {
    std::string held, grows;
    bool any_growth = false;
    const auto each = [&](const Share& s, const std::string& where) {
        for (const auto& r : s.resident) {
            std::string& line = r.grows() ? grows : held;
            line += fmt::format("{}{} {}{} {}", line.empty() ? "" : "; ", resident_label(r.name),
                                r.grows() ? "up to " : "", format_gb(r.most), where);
        }
        any_growth = any_growth || s.grows_by() > 0;
    };
    for (std::size_t i = 0; i < p.gpus.size(); ++i) each(p.gpus[i], "on " + device_label(h, i));
    each(p.ram, "in RAM");
    if (!held.empty()) out << "  Held beside the model: " << held << ".\n";
    if (const std::string capped = growth_cap_sentence(p); !capped.empty()) {
        out << "  Growth lowered to fit: " << capped << "\n";
    }
    if (!any_growth) return;
    out << "  Grows after load (llama-server): " << grows << ". At most ";
    std::string most;
    bool over = false;  // a growing share past its memory at its most
    const auto at_most = [&](const Share& s, const std::string& where) {
        if (s.grows_by() == 0) return;
        most += fmt::format("{}{} {} of {}", most.empty() ? "" : ", ", where, format_gb(s.most()),
                            format_gb(s.capacity));  // the Usable column's figure
        over = over || !s.fits();
    };
    for (std::size_t i = 0; i < p.gpus.size(); ++i) at_most(p.gpus[i], device_label(h, i));
    at_most(p.ram, "RAM");
    // Where the plan fails on another device (a GPU over at load), the growth is not why.
    out << most
        << (over       ? ": more than the memory holds."
            : p.fits() ? ": the plan holds at those."
                       : ": within that memory; what does not fit is named above.")
        << "\n";
}

// Speculative decoding with a draft model: an assumption, said as one.
void write_speculative(std::ostream& out, const HardwareAnswer& a) {
    if (!a.speculative || !a.settings.server.draft) return;
    const SpeculativeSpeed& s = *a.speculative;
    out << fmt::format(
        "  With the draft {}: about {} generating (the draft alone {}; assumed: {:.0f} % of "
        "drafted tokens accepted, up to {} drafted a step; no measured band)\n",
        a.settings.server.draft->model->id, format_rate(s.tokens_per_s),
        format_rate(s.draft_tokens_per_s), s.acceptance * 100, s.draft_max);
}

}  // namespace

void write_hardware_notes(std::ostream& out, const std::vector<std::string>& notes) {
    for (const auto& note : notes) out << "  Note: " << note << ".\n";
}

void write_plan(std::ostream& out, const HardwareAnswer& a, const Hardware& h,
                const std::vector<std::string>& labels) {
    const Placement& p = a.plan.placement;
    const Tone tone = a.plan.kind == PlanKind::native ? Tone::good
                      : a.plan.kind == PlanKind::none ? Tone::bad
                                                      : Tone::warn;
    out << "  " << paint(out, tone, plan_sentence(a, h)) << "\n";
    write_hardware_notes(out, h.notes);
    Table t({"Device", "Layers", "Weights", "KV cache", "Buffers", "Total", "Usable", ""},
            {false, true, true, true, true, true, true, false});
    for (std::size_t i = 0; i < p.gpus.size(); ++i) {
        add_share_row(t, i < labels.size() ? labels[i] : device_label(h, i), p.gpus[i]);
    }
    if (p.ram.total() > 0 || h.gpus.empty()) {
        add_share_row(t, labels.size() > p.gpus.size() ? labels[p.gpus.size()] : "System RAM",
                      p.ram, p.cpu_moe_layers);
    }
    out << "\n";
    t.write(out, "  ");
    if (p.ram.mapped > 0 && p.ram.layers + p.cpu_moe_layers > 0) {
        out << "  " << format_gb(p.ram.mapped)
            << " of the RAM's weights is the model file mapped into memory (llama.cpp's default "
               "mmap): page cache, read back from disk at disk speed if memory runs short; "
               "--load-mode none loads it into allocated memory instead.\n";
    }
    if (p.ram.mapped_by_gpu > 0) {
        out << "  " << format_gb(p.ram.mapped_by_gpu)
            << " of the RAM's weights lies in the GPU's mapped range of the file (one memory, the "
               "same pages): counted once, in the GPU's total.\n";
    }
    write_resident(out, p, h);
}

std::string device_label(const Hardware& h, std::size_t i) {
    const GpuDevice& d = h.gpus[i];
    return fmt::format("GPU {}  {}", i, d.gpu != nullptr ? d.gpu->short_name : d.name);
}

std::string format_rate(double tokens_per_s) {
    if (tokens_per_s >= 10) return fmt::format("{:.0f} tokens/s", tokens_per_s);
    return fmt::format("{:.1f} tokens/s", tokens_per_s);
}

std::string fitted_llama_command(const Model& model, const HardwareAnswer& answer,
                                 const Hardware& hardware, const std::vector<std::string>& load) {
    return fitted_llama_command(model, answer, hardware, answer.plan.placement, load);
}

std::string fitted_llama_command(const Model& model, const HardwareAnswer& answer,
                                 const Hardware& hardware, const Placement& placement,
                                 const std::vector<std::string>& load) {
    const LaunchTarget target{&model, answer.quant, load};
    return "llama-server " +
           shell_join(llama_server_args(target, answer.settings, &hardware, &placement));
}

// Several users: what the asked sequences decode at, and how many users of this context fit.
void write_serving(std::ostream& out, const HardwareReport& r) {
    const std::uint64_t n_seq = r.selected.settings.n_seq;
    if (r.users_speed && r.users_speed->per_user_tokens_per_s > 0) {
        out << "  " << n_seq << " users at once, caches full: about "
            << format_rate(r.users_speed->per_user_tokens_per_s) << " each, "
            << format_rate(r.users_speed->total_tokens_per_s) << " in all"
            << (r.users_speed->compute_bound ? " (compute-bound)" : "")
            << " (batched estimate, no measured band)\n";
    }
    if (n_seq > 1 && r.max_context) {
        out << "  Longest context for each of " << n_seq << " users without offload: "
            << format_thousands(llama_sequence_context(*r.max_context, n_seq) / kContextStep *
                                kContextStep)
            << " tokens\n";
    }
    if (!r.serving) return;
    const ServingCapacity& c = r.serving.value();
    const std::string each = format_thousands(c.per_user_context) + " tokens each";
    if (c.max_users == 0) {
        out << "  Serving: not one user of " << each << " without offload\n";
        return;
    }
    out << "  Serving: up to " << c.max_users << (c.max_users == 1 ? " user" : " users") << " of "
        << each << " without offload (--parallel " << c.max_users << " -c "
        << c.max_users * c.per_user_context << capped_flags(c.answer.plan.placement) << ")";
    if (c.max_users == kLlamaMaxSequences) out << ", llama.cpp's most";
    if (c.speed.per_user_tokens_per_s > 0) {
        out << ": about " << format_rate(c.speed.per_user_tokens_per_s) << " each, "
            << format_rate(c.speed.total_tokens_per_s) << " in all";
    }
    out << "\n";
}

// --split-mode tensor beside the plan where its decode estimate is faster (the core's
// tensor_split_option): its figure, what that rests on, and the line that runs it.
void write_tensor_option(std::ostream& out, const Model& model, const HardwareAnswer& a,
                         const Hardware& h, const std::vector<std::string>& load) {
    if (!a.tensor_option) return;
    const Placement& p = a.tensor_option->plan.placement;
    out << "  Faster by estimate, not chosen: --split-mode tensor, about "
        << format_rate(a.tensor_option->decode_tokens_per_s) << " generating ("
        << format_gb(p.gpu_total()) << " on the GPUs); the estimate rests on "
        << tensor_decode_note() << "; checked against those 4 runs it ranks tensor against layer "
        << "right in only 2 (docs/METHOD.md), so it does not choose the split. To try it: "
        << fitted_llama_command(model, a, h, p, load) << "\n";
}

void write_hardware_section(std::ostream& out, const Model& model, const Quant& quant,
                            const EstimateOptions& options, const HardwareReport& r) {
    const Hardware& h = r.hardware;
    const HardwareAnswer& a = r.selected;
    const std::uint64_t n_seq = std::max<std::uint64_t>(a.settings.n_seq, 1);
    const std::string tokens =
        n_seq > 1 ? fmt::format("{} sequences of {} tokens", n_seq,
                                format_thousands(llama_sequence_context(options.context, n_seq)))
                  : format_thousands(options.context) + " tokens";
    out << "\n"
        << heading(out, "On " + memory_label(h) + ": " + quant.id + " at " + tokens) << "\n";
    write_plan(out, a, h);

    if (a.plan.kind != PlanKind::none && a.speed.decode_tokens_per_s > 0) {
        write_speed(out, a, h);
        write_speculative(out, a);
    } else if (a.plan.kind != PlanKind::none && a.settings.split_mode != SplitMode::layer) {
        out << "\n  Speed: not estimated (no published run measures --split-mode "
            << split_mode_name(a.settings.split_mode) << ")\n";
    } else if (a.plan.kind != PlanKind::none) {
        out << "\n  Speed: unknown (no bandwidth on record for this device)\n";
    }

    write_tensor_option(out, model, a, h, r.model_load);

    if (r.best) {
        out << "  Best quantization that "
            << (r.best->plan.kind == PlanKind::native ? "fits" : "runs") << " at " << tokens << ": "
            << r.best->quant->id << " (" << plan_kind_name(r.best->plan.kind) << ", "
            << (r.best->speed.decode_tokens_per_s > 0
                    ? format_rate(r.best->speed.decode_tokens_per_s)
                    : std::string("speed unknown"))
            << ")";
        const auto& f = r.fastest;
        if (r.best->plan.kind != PlanKind::native &&
            r.best->speed.decode_tokens_per_s < r.best->settings.min_decode_tokens_per_s) {
            out << ": the fastest that runs, as none reaches "
                << format_rate(r.best->settings.min_decode_tokens_per_s) << " (--min-speed)";
        } else if (f && f->quant != r.best->quant && f->speed.decode_tokens_per_s > 0) {
            out << "; fastest " << f->quant->id << " (" << format_rate(f->speed.decode_tokens_per_s)
                << ")";
        }
        if (const auto& o = r.with_offload) {
            out << "; with offload " << o->quant->id << " (" << plan_kind_name(o->plan.kind) << ", "
                << (o->speed.decode_tokens_per_s > 0 ? format_rate(o->speed.decode_tokens_per_s)
                                                     : std::string("speed unknown"))
                << ")";
        }
        out << "\n";
    }
    // With several sequences write_serving gives the longest context of each.
    if (r.max_context && n_seq == 1) {
        out << "  Longest context for " << quant.id
            << " without offload: " << format_thousands(*r.max_context) << " tokens"
            << (*r.max_context > model.context_native
                    ? " (past the native window: needs " + model.context_extension + ")"
                    : "")
            << "\n";
    } else if (!r.max_context) {
        out << "  " << quant.id << " does not fit without offload at any context.\n";
    }
    write_serving(out, r);
    if (a.settings.split_mode != SplitMode::layer) {
        out << "  Serving: not planned for --split-mode " << split_mode_name(a.settings.split_mode)
            << " (users are planned under -sm layer)\n";
    }
    if (a.plan.kind != PlanKind::none && quant.format == "gguf") {
        out << "  llama.cpp: " << fitted_llama_command(model, a, h, r.model_load) << "\n";
        const std::string build = llama_build_note(a.settings);
        if (!build.empty()) out << "  " << build << "\n";
    }
    // Not llama-server's default reservation: the answer says so where its figures are (the
    // page's rule line says the default's).
    if (a.settings.rule == Rule::llamacpp && a.settings.outputs == OutputReserve::all) {
        out << "  " << outputs_sentence(model, a.settings) << "\n";
    }
}

void write_system(std::ostream& out, const DetectedSystem& system, const Hardware& hardware) {
    if (system.gpus.empty()) {
        out << "No GPU found.\n";
    } else {
        Table t({"#", "GPU", "Memory", "Usable", "Bandwidth", "Database entry", "Found by"},
                {true, false, true, true, true, false, false});
        for (std::size_t i = 0; i < system.gpus.size(); ++i) {
            const DetectedGpu& d = system.gpus[i];
            const GpuDevice& dev = hardware.gpus[i];
            // 0: the probe gives no size (vulkaninfo --summary); the database entry's is usable
            t.add_row({std::to_string(i), d.name, d.memory > 0 ? format_gb(d.memory) : "unknown",
                       format_gb(dev.memory) + (d.free ? " free" : ""),
                       dev.bandwidth_gbps > 0 ? fmt::format("{:.0f} GB/s", dev.bandwidth_gbps)
                                              : "unknown",
                       dev.gpu != nullptr ? dev.gpu->id : "none", d.via});
        }
        t.write(out, "");
    }
    out << "System RAM: " << (system.ram ? format_gb(*system.ram) : std::string("unknown")) << "\n";
    for (const auto& note : system.notes) out << "  (" << note << ")\n";
    if (system.gpus.empty()) {
        out << "Models run on the CPU from RAM: try 'canitrun fit --gpu auto'.\n";
    }
}

void write_model_fits(std::ostream& out, const Hardware& hardware, const EstimateOptions& options,
                      const std::vector<ModelFit>& fits) {
    out << fits.size() << " models run on " << memory_label(hardware)
        << (hardware.gpus.empty() ? ", on the CPU from RAM," : " without offload") << " at "
        << format_thousands(options.context) << " tokens:\n";
    write_hardware_notes(out, hardware.notes);
    out << "\n";
    Table t({"Model", "Params", "Best quant", "Total", "Longest context", "Speed"},
            {false, true, false, true, true, true});
    for (const auto& f : fits) {
        const auto& a = f.answer;
        t.add_row({f.model->id, format_params(f.model->params_total), a.quant->id,
                   format_gb(a.plan.placement.gpus.empty() ? a.plan.placement.ram.total()
                                                           : a.plan.placement.gpu_total()),
                   format_thousands(f.max_context),
                   a.speed.decode_tokens_per_s > 0 ? format_rate(a.speed.decode_tokens_per_s)
                                                   : "unknown"});
    }
    t.write(out, "");
}

}  // namespace canitrun::cli
