// The rows of the flag table for the output, the model and the hardware (flag_table.hpp says
// what a row holds). `man` is roff: \- for a hyphen, .B / .BR / .I for fonts.

#include "flag_rows.hpp"

#include <string>

#include "canitrun/kv_cache.hpp"
#include "canitrun/plan_settings.hpp"

namespace canitrun::cli {
namespace {

const char* const kGroupOutput = "Output";
const char* const kGroupModel = "Model and context";
const char* const kGroupHardware = "Hardware";
// The commands that plan on named hardware.
constexpr Cmds kHardwareCommands = cmds({Cmd::page, Cmd::fit, Cmd::compare, Cmd::local});

}  // namespace

std::string shell_words_of(const std::string& list) {
    std::string out;
    for (const char c : list) {
        if (c != ',') out += c;
    }
    return out;
}

// What is printed, and how.
std::vector<FlagRow> output_rows() {
    using C = Cmd;
    return {
        {.names = "-h,--help",
         .help = "Print the usage and exit",
         .commands = kEveryCommand,
         .group = kGroupOutput,
         .builtin = true},
        {.names = "-V,--version",
         .help = "Print the program's and the database's versions and exit",
         .man =
             R"(Print the program's version, then the database's version and date and how many models, GPUs and
quantizations it holds.)",
         .commands = cmds({C::page}),
         .group = kGroupOutput,
         .builtin = true},
        {.names = "--json",
         .help = "Print one JSON document on stdout and nothing else",
         .man =
             R"(Print exactly one JSON document on stdout and nothing else (every command). The documents
follow the JSON Schemas in
.IR docs/schema/ .)",
         .commands = kCliCommands,
         .bind = [](Options& o) -> Target { return &o.json; },
         .group = kGroupOutput},
        {.names = "--format",
         .value = "FORMAT",
         .help = "Output format: table (default), json, csv (raw numbers), markdown, html (the "
                 "model page)",
         .man =
             R"(.BR table " (default), " json ", " csv " (each command's main table, raw numbers), " markdown
or
.B html
(the model page as one self\-contained HTML document: inline CSS and SVG chart, no scripts,
nothing from the network; database models only).
Colour only on a terminal; NO_COLOR turns it off, CLICOLOR_FORCE on.)",
         .commands = kCliCommands,
         .bind = [](Options& o) -> Target { return &o.format; },
         .complete = Complete::words,
         .words = "table json csv markdown html",
         .group = kGroupOutput},
        {.names = "--quiet",
         .help = "Print less: just the answer (the smallest GPU's id, the plan with --gpu, the "
                 "best quant with --vram, ids for lists); serve: no access log; site: nothing "
                 "when done",
         .man = R"(Print just the answer, as ids a script can pass back: the smallest GPU; with
.B \-\-gpu
the plan; with
.B \-\-vram
the best quantization (for a model file, whether it fits); one id per line for lists
.RB ( system :
each GPU's id, a MIG slice's name, or none).
Every command offers every format
.RB ( \-\-json ,
.B \-\-format csv
and
.BR markdown ,
.BR \-\-quiet );
.B verify
refuses
.BR \-\-quiet ,
its answer being its table.
With
.BR serve :
no access log line per request on stderr; with
.BR site :
nothing printed when done.)",
         .commands = kCliCommands | cmds({C::serve, C::site}),
         .bind = [](Options& o) -> Target { return &o.quiet; },
         .group = kGroupOutput},
    };
}

// Where the database comes from, the page's drawing, and the generated files.
std::vector<FlagRow> view_rows() {
    using C = Cmd;
    return {
        {.names = "--data",
         .value = "DIR",
         .help = "Load the database from this folder instead of the built-in one",
         .man = R"(Load the database from this folder (shaped like the source tree's
.IR data/ )
instead of the built\-in copy.)",
         .commands = kCliCommands,
         .bind = [](Options& o) -> Target { return &o.data_dir; },
         .non_empty = true,
         .complete = Complete::folder,
         .group = kGroupOutput},
        {.names = "--chart",
         .help = "Draw the KV cache chart even when stdout is not a terminal; with --format csv, "
                 "print the chart's points",
         .man =
             R"(Draw the model page's chart of KV cache against context (this model and the same model with
every layer full attention) even when stdout is not a terminal; on a terminal it is drawn
anyway, at the terminal's width. With
.BR "\-\-format csv" ,
print the chart's points instead of the quantization table.)",
         .commands = cmds({C::page}),
         .bind = [](Options& o) -> Target { return &o.chart; },
         .group = kGroupOutput},
        {.names = "--ascii",
         .help = "Plain ASCII in the chart and layer diagram (no Unicode)",
         .man = R"(Draw the chart and the layer diagram in plain ASCII (also when
.B TERM=dumb
or the locale is not UTF\-8).)",
         .commands = cmds({C::page}),
         .bind = [](Options& o) -> Target { return &o.ascii; },
         .group = kGroupOutput},
        {.names = "--generate",
         .value = "KIND",
         .help = "Print the man page's OPTIONS (man) or a shell's completion script "
                 "(complete-bash, complete-zsh, complete-fish), made from the flag table",
         .man = R"(Print what is made from the flag table (src/cli/flag_rows*.cpp):
.B man
(this OPTIONS section),
.BR complete\-bash ", " complete\-zsh " or " complete\-fish
(the completion script). Given alone; tools/flags/regenerate.sh writes them into the tree.)",
         .commands = cmds({C::page}),
         .complete = Complete::words,
         .words = "man complete-bash complete-zsh complete-fish",
         .group = kGroupOutput},
    };
}

// The quantization and context asked about.
std::vector<FlagRow> model_rows() {
    using C = Cmd;
    return {
        {.names = "--quant,-q",
         .value = "QUANT",
         .help = "Quantization (default: the recommended Q4_K_M); see 'canitrun quants'",
         .man = R"(Quantization:
.BR Q4_K_M ", " q8_0 ", " NVFP4 ", ..."
(see
.BR "canitrun quants" ),
or a published recipe over a llama\-quantize type: bartowski's
.BR Q4_K_L ", " Q6_K_L ", " Q3_K_XL ", ..."
(embeddings and output in Q8_0) or Unsloth's
.BR UD\-Q4_K_XL ", ..."
(its upcasts where the data has them for the model's architecture, else its base type).
Default: the recommended one, Q4_K_M. With
.BR verify :
the log's quantization when the log does not name it.)",
         .commands = cmds({C::page, C::gpus, C::compare, C::verify}),
         .bind = [](Options& o) -> Target { return &o.quant; },
         .non_empty = true,
         .complete = Complete::quants,
         .group = kGroupModel},
        {.names = "--ctx,-c",
         .value = "N",
         .help = "Context length in tokens: 8192, 32k, 256K, 1M (default 8k)",
         .man = R"(Context length in tokens:
.BR 262144 ", " 256k ", " 32K ", " 1M
(k = 1024, M = 1048576); at most 2^30 tokens. Default 8k.)",
         .commands = kPlanning,
         .bind = [](Options& o) -> Target { return &o.ctx; },
         .non_empty = true,
         .group = kGroupModel},
        {.names = "--kv-type",
         .value = "TYPE",
         .help = "KV cache element type: " + kv_type_names() + " (default " +
                 std::string(kDefaultKvType) + ")",
         .commands = kPlanning,
         .bind = [](Options& o) -> Target { return &o.kv_type; },
         .non_empty = true,
         .complete = Complete::words,
         .words = shell_words_of(kv_type_names()),
         .group = kGroupModel},
        {.names = "--vram",
         .value = "GB",
         .help = "A VRAM budget in GB: does the recommended quantization fit, and what does?",
         .man =
             R"(A VRAM budget: does the recommended quantization fit, and which is the best that does,
among every quantization llama.cpp runs, as
.B \-\-gpu
chooses (the quick rule: among the page's ten)?)",
         .commands = cmds({C::page}),
         .bind = [](Options& o) -> Target { return &o.vram; },
         .non_empty = true,
         .group = kGroupModel},
        {.names = "--min-quant",
         .value = "QUANT",
         .help = std::string("Lowest quantization a best-quantization choice may pick (default ") +
                 kDefaultMinQuant + "; e.g. IQ1_S to allow every type)",
         .man =
             R"(The lowest quantization a choice among quantizations may pick (the best quantization with
.BR \-\-gpu " or " \-\-vram ,
.BR fit ,
.BR compare ).
Default Q2_K, the lowest that llama\-quantize makes without an importance matrix and lists a
perplexity cost for; IQ1_S allows every type. A quantization named with
.B \-\-quant
is planned whatever its rank.)",
         .commands = cmds({C::page, C::fit, C::compare}),
         .bind = [](Options& o) -> Target { return &o.min_quant; },
         .non_empty = true,
         .complete = Complete::quants,
         .group = kGroupModel},
    };
}

// The speed floor, the users, and models read from elsewhere.
std::vector<FlagRow> serving_rows() {
    using C = Cmd;
    return {
        {.names = "--min-speed",
         .value = "TOKENS_PER_S",
         .help = "Slowest decode, in tokens/s, a best-quantization choice with offload may "
                 "pick (default 5)",
         .man = R"(The slowest decode a best\-quantization choice with offload may pick (with
.BR \-\-gpu " or " compare ):
the best quality that reaches it wins, else the fastest that runs; beside a best quantization
that fits whole, the page names the best quality that reaches it with offload. Default
5 tokens/s, about the pace of silent reading.)",
         .commands = cmds({C::page, C::compare}),
         .bind = [](Options& o) -> Target { return &o.min_speed; },
         .non_empty = true,
         .group = kGroupModel},
        {.names = "--users",
         .value = "N",
         .help = "Users served at once, each with --ctx tokens (llama-server --parallel N -c N x "
                 "ctx; vLLM sequences)",
         .man = R"(N users at once, each with
.B \-\-ctx
tokens: llama.cpp's plan for
.B "\-\-parallel N \-c N\(muctx"
(1 to 256), and with
.B \-\-engine vllm
whether N sequences fit. Without it the page says how many users of the context fit.)",
         .commands = cmds({C::page, C::gpus}),
         .bind = [](Options& o) -> Target { return &o.users; },
         .non_empty = true,
         .group = kGroupModel},
        {.names = "--mmproj",
         .value = "FILE",
         .help = "With a .gguf file: a vision projector GGUF, counted in every plan and "
                 "passed to llama-server",
         .man = R"(With a GGUF file: a vision projector GGUF, which llama\-server loads beside it
(the printed line carries \-\-mmproj FILE as given). Its tensors count on the first GPU in every
plan, the GPU lists and \-\-vram included; clip's compute buffer is not counted.)",
         .commands = cmds({C::page, C::gpus}),
         .bind = [](Options& o) -> Target { return &o.mmproj; },
         .complete = Complete::file,
         .words = "*.gguf",
         .group = kGroupModel},
        {.names = "--offline",
         .help = "Remote models (hf:, ollama:, URLs) from the cache only, no network",
         .man =
             R"(Remote models from the cache alone, without the network (also HF_HUB_OFFLINE=1).)",
         .commands = cmds({C::page, C::gpus, C::compare}),
         .bind = [](Options& o) -> Target { return &o.remote.offline; },
         .group = kGroupModel},
        {.names = "--timeout",
         .value = "S",
         .help = "Remote models: seconds for the whole answer, all requests and retries "
                 "(default 30)",
         .man =
             R"(Remote models: one deadline of S seconds for the whole answer, every request, redirect and
retry together (1 to 3600; default 30); under it, a server that sends nothing for S seconds is
cut off too. 429 and 5xx answers are retried three times with backoff first, never waiting
past the deadline whatever Retry\-After says.)",
         .commands = cmds({C::page, C::gpus, C::compare}),
         .bind = [](Options& o) -> Target { return &o.remote.timeout_s; },
         .range = std::pair{1, 3600},
         .group = kGroupModel},
    };
}

// The GPUs.
std::vector<FlagRow> gpu_rows() {
    using C = Cmd;
    return {
        {.names = "--gpu",
         .value = "GPUS",
         .help = R"(Your GPUs: "RTX 4090", "2x3090", "4090,3090", or auto to detect them)",
         .man =
             R"(Your hardware: a GPU by name or alias ("RTX 4090", 4090, h100), several ("2x3090",
"4090,3090", "4090+3090"), or
.B auto
to detect them. A name two memory variants share plans the one LLM users buy and says so
(4060ti, 5060ti, 9060xt: the 16 GB card; "Ryzen AI Max+ 395": 128 GB); an MI250 or MI250X is
planned as the two 64 GB GCDs ROCm shows. The model is split over the GPUs by whole layers as llama.cpp does, with each
device's share, the offload plan when it does not fit (layers or MoE experts in RAM), the
speed, the best quantization and the longest context, and the fitted llama\-server command.
Exit status 1 when it does not fit on the GPUs whole. With
.BR verify :
the GPU of llama\-bench output; for a llama.cpp log, the cards its plan is weighed on (each
GPU's total with the runtime against the card, and a verdict): one name for every GPU of the
log, or one per GPU in its order (another count is exit status 2). Without it, the cards the
log names.)",
         .commands = kHardwareCommands | cmds({C::verify}),
         .bind = [](Options& o) -> Target { return &o.hw.gpu; },
         .non_empty = true,
         .complete = Complete::gpus,
         .words = "auto",
         .group = kGroupHardware},
        {.names = "--gpu-spec",
         .value = "FILE",
         .help = "A JSON file describing a GPU the database lacks (name, memory, bandwidth, "
                 "FP16 rate, vendor, unified; docs/schema/gpu-spec.schema.json); repeat for "
                 "several. Planned alone, or named by its id in --gpu or --host",
         .man =
             R"(A GPU the database lacks, described in a JSON file: name, vendor (nvidia, amd, intel, apple or
other), memory_gb (the vendor's GB, read as GiB) or memory_bytes, bandwidth_gbps, fp16_tflops,
unified (and then unified_gpu_share_percent), optional id and source; the format is
docs/schema/gpu\-spec.schema.json. Without
.B \-\-gpu
or
.B \-\-host
the plan is on the described GPUs, one of each; with them, name it by its id or name as any
database GPU ("2x my\-card", "4090,my\-card" when the vendors match). Repeat for several files.
Every problem of a file is its own error line; exit status 2. A name the database already
answers is refused: use the database's entry.)",
         .commands = kHardwareCommands | cmds({C::verify}),
         .bind = [](Options& o) -> Target { return &o.hw.gpu_specs; },
         .non_empty = true,
         .repeatable = true,
         .complete = Complete::file,
         .words = "*.json",
         .group = kGroupHardware},
    };
}

// RAM, a unified GPU's share, and where layers go.
std::vector<FlagRow> memory_rows() {
    using C = Cmd;
    return {
        {.names = "--ram",
         .value = "GB",
         .help = "System RAM in GB available for CPU offload (default: detected with --gpu auto "
                 "and by local, else 32)",
         .man = R"(System RAM in whole GB available for CPU offload. Default: detected with
.B \-\-gpu auto
and by
.BR local ,
else 32.)",
         .commands = kPlanning,
         .bind = [](Options& o) -> Target { return &o.hw.ram; },
         .non_empty = true,
         .group = kGroupHardware},
        {.names = "--ram-bandwidth",
         .value = "GBPS",
         .help = "System RAM bandwidth in GB/s for offloaded layers (default 76.8, "
                 "dual-channel DDR5-4800)",
         .man =
             R"(System RAM bandwidth for layers kept in RAM. Default 76.8 (dual\-channel DDR5\-4800).)",
         .commands = kHardwareCommands,
         .bind = [](Options& o) -> Target { return &o.hw.ram_bandwidth; },
         .group = kGroupHardware},
        {.names = "--gpu-memory",
         .value = "GB",
         .help = "GB a unified-memory GPU may use (macOS iogpu.wired_limit_mb, an APU's GTT "
                 "size; default: the platform's share)",
         .man = R"(What a unified\-memory GPU may use: a Mac whose
.B iogpu.wired_limit_mb
was raised, an APU's GTT size. Default: the platform's share (macOS's working set). Refused for
a discrete GPU (use
.BR \-\-margin )
and above the machine's memory.)",
         .commands = kHardwareCommands,
         .bind = [](Options& o) -> Target { return &o.hw.gpu_memory; },
         .non_empty = true,
         .group = kGroupHardware},
        {.names = "--ngl",
         .value = "N",
         .help = "Layers on the GPUs as llama.cpp's -ngl counts them (default: as many as fit)",
         .man = R"(Place as llama.cpp's
.B \-ngl
does: N layers on the GPUs, the output head counting as one.)",
         .commands = cmds({C::page}),
         .bind = [](Options& o) -> Target { return &o.hw.ngl; },
         .group = kGroupHardware},
        {.names = "--n-cpu-moe",
         .value = "N",
         .help = "Keep the routed experts of the first N layers in RAM (llama.cpp --n-cpu-moe)",
         .man = R"(Keep the routed experts of the first N layers in RAM (llama.cpp
.BR \-\-n\-cpu\-moe ).)",
         .commands = cmds({C::page}),
         .bind = [](Options& o) -> Target { return &o.hw.n_cpu_moe; },
         .group = kGroupHardware},
        {.names = "--cpu-moe",
         .help = "Keep every layer's routed experts in RAM (llama.cpp --cpu-moe, -ot exps=CPU)",
         .man = R"(Keep every layer's routed experts in RAM (llama.cpp
.BR \-\-cpu\-moe ,
the same as
.BR "\-ot exps=CPU" ).)",
         .commands = cmds({C::page}),
         .bind = [](Options& o) -> Target { return &o.hw.cpu_moe; },
         .group = kGroupHardware},
    };
}

// The split over GPUs, and several machines.
std::vector<FlagRow> machine_rows() {
    using C = Cmd;
    return {
        {.names = "--tensor-split",
         .value = "A,B,...",
         .help = "Split layers over the GPUs in these proportions, one per GPU (llama.cpp -ts; "
                 "unit counts such as 40,41 place exactly; default: by memory, or the uneven "
                 "split that holds every layer)",
         .man =
             R"(Split the layers over the GPUs in these whole\-number proportions, one per GPU (llama.cpp
.BR \-ts );
unit counts such as 40,41 place exactly that many layers (the output head counting as one).
Without it layers go by memory, and where that overfills a GPU while an uneven split holds
every layer, the plan takes the uneven split and prints it.)",
         .commands = cmds({C::page}),
         .bind = [](Options& o) -> Target { return &o.hw.tensor_split; },
         .non_empty = true,
         .group = kGroupHardware},
        {.names = "--split-mode",
         .value = "MODE",
         .help = "llama.cpp's -sm over several GPUs: layer (default), row (CUDA: each matrix "
                 "cut by rows) or tensor (experimental: each weight and the KV cache cut); row "
                 "carries no speed figure, tensor an estimate from four published runs",
         .man = R"(How llama.cpp splits the model over several GPUs
.RB ( \-sm ):
.B layer
(the default) gives each GPU whole layers;
.B row
(CUDA, every layer on the GPUs) cuts each layer's weight matrices by rows over the GPUs as
llama.cpp's split buffer does, and prints
.BR "\-sm row" ;
no speed figure, since no published run measures it.
.B tensor
(llama.cpp's experimental mode: GPUs of one backend, every layer on them) cuts each weight
and the KV cache over the GPUs as llama.cpp's Meta device does, evenly unless
.B \-\-tensor\-split
is given (by memory where the even cut overfills a GPU), and prints
.BR "\-sm tensor" ;
each GPU holds its slices and the buffers of the partial sums the GPUs reduce. Its decode
and prompt speeds are estimates read from three published llama\-bench pairs on RTX 4090s
and checked on one Vulkan pair (no error band); never chosen by default (checked against
those runs, the estimate ranks tensor against layer right in only two of the four, and
llama.cpp's own \-\-fit does not size it), but shown beside the plan where it decodes faster
by that estimate. Where llama.cpp would not run it at all (the model's architecture, flash
attention off) the error says which; Gated DeltaNet (Qwen3\-Next, Qwen 3.5) and LFM2's
short convolutions are cut as llama.cpp cuts them; MLA, DeepSeek V4's compressed attention
and K and V of different head sizes are not planned under it yet.)",
         .commands = cmds({C::page}),
         .bind = [](Options& o) -> Target { return &o.hw.split_mode; },
         .non_empty = true,
         .complete = Complete::words,
         .words = "layer row tensor",
         .group = kGroupHardware},
        {.names = "--host",
         .value = "GPUS",
         .help = "One machine of several, as its GPUs (and RAM): 8xh100-sxm, 2x3090:ram=128; "
                 "repeat for each machine, the first runs the server (llama.cpp RPC, vLLM)",
         .man = R"(One machine of several, as its GPUs and optionally its RAM:
.BR 8xh100\-sxm ", " 2x3090:ram=128 .
Repeat for each machine; the first runs the server. llama.cpp (the default) splits the layers
over every GPU of every host through its RPC backend (rpc\-server on the others); vLLM uses
tensor parallel inside a host and one pipeline stage per host (with Ray).)",
         .commands = cmds({C::page}),
         .bind = [](Options& o) -> Target { return &o.hosts; },
         .repeatable = true,
         .complete = Complete::gpus,
         .group = kGroupHardware},
        {.names = "--link",
         .value = "GBPS",
         .help = "Network between the --host machines in Gb/s (default 10, 10 Gb Ethernet)",
         .man = R"(The network between the
.B \-\-host
machines in Gb/s (10, 25gbe, 1gbit). Default 10 (10 Gb Ethernet).)",
         .commands = cmds({C::page}),
         .bind = [](Options& o) -> Target { return &o.link; },
         .non_empty = true,
         .group = kGroupHardware},
    };
}

const std::vector<FlagRow>& flag_rows() {
    static const std::vector<FlagRow> rows = [] {
        std::vector<FlagRow> all;
        // In --help's and the man page's order.
        for (std::vector<FlagRow> (*part)() :
             {output_rows, view_rows, model_rows, serving_rows, gpu_rows, memory_rows, machine_rows,
              engine_rows, server_rows, offload_rows, runtime_rows, vision_rows, resident_rows,
              command_rows, service_rows}) {
            for (FlagRow& row : part()) all.push_back(std::move(row));
        }
        return all;
    }();
    return rows;
}

}  // namespace canitrun::cli
