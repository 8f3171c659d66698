// The rows of the flag table for the engines, the subcommands' own flags and the services
// (flag_table.hpp says what a row holds). `man` is roff.

#include <string>
#include <utility>
#include <vector>

#include "flag_rows.hpp"

#include "canitrun/kv_cache.hpp"

namespace canitrun::cli {
namespace {

const char* const kGroupEngine = "Engine";
const char* const kGroupCommand = "fit, verify and the lists";
const char* const kGroupService = "serve, site and mcp";

// The KV cache's types, K and V (split from engine_rows for its length).
std::vector<FlagRow> cache_type_rows() {
    return {
        {.names = "--cache-type-k",
         .value = "TYPE",
         .help = "llama.cpp: K cache type: " + llamacpp_kv_type_names() + " (default " +
                 std::string(kDefaultKvType) + ")",
         .commands = kPlanning,
         .bind = [](Options& o) -> Target { return &o.engine.cache_type_k; },
         .complete = Complete::words,
         .words = shell_words_of(llamacpp_kv_type_names()),
         .group = kGroupEngine},
        {.names = "--cache-type-v",
         .value = "TYPE",
         .help = "llama.cpp: V cache type, as --cache-type-k (default " +
                 std::string(kDefaultKvType) + ")",
         .commands = kPlanning,
         .bind = [](Options& o) -> Target { return &o.engine.cache_type_v; },
         .complete = Complete::words,
         .words = shell_words_of(llamacpp_kv_type_names()),
         .group = kGroupEngine},
    };
}

}  // namespace

// The memory rule and llama.cpp's batch, attention and cache settings.
std::vector<FlagRow> engine_rows() {
    std::vector<FlagRow> rows = {
        {.names = "--engine",
         .value = "ENGINE",
         .help = "Memory rule: llama.cpp (what llama.cpp allocates, the default), quick (the "
                 "reference page's 12 % rule), vllm, exo (with --host)",
         .man = R"(.B llama.cpp
(the default: what llama.cpp allocates, weights per tensor, KV, recurrent state, compute and
output buffers, runtime),
.B quick
(the reference page's 12 % rule),
.B vllm
(vLLM's budget: the longest context and most sequences that fit, with tensor and pipeline
parallel over
.B \-\-gpu
or
.BR \-\-host )
or
.B exo
(exo's memory\-weighted pipeline over the
.B \-\-host
machines).)",
         .commands = kPlanning,
         .bind = [](Options& o) -> Target { return &o.engine.engine; },
         .complete = Complete::words,
         .words = "llama.cpp quick vllm exo",
         .group = kGroupEngine},
        {.names = "--ubatch",
         .value = "N",
         .help = "llama.cpp: micro-batch size n_ubatch (default 512)",
         .commands = kPlanning,
         .bind = [](Options& o) -> Target { return &o.engine.ubatch; },
         .group = kGroupEngine},
        {.names = "--parallel",
         .value = "N",
         .help = "llama.cpp: sequences served at once (default 1)",
         .commands = kPlanning,
         .bind = [](Options& o) -> Target { return &o.engine.parallel; },
         .group = kGroupEngine},
        {.names = "--flash-attn",
         .value = "MODE",
         .help = "llama.cpp: flash attention on, off, auto (default auto)",
         .commands = kPlanning,
         .bind = [](Options& o) -> Target { return &o.engine.flash_attn; },
         .complete = Complete::words,
         .words = "on off auto",
         .group = kGroupEngine},
        {.names = "--reserve-outputs",
         .value = "WHICH",
         .help = "llama.cpp: outputs the compute buffer is reserved for: server (llama-server's, "
                 "default) or all (every ubatch token)",
         .man = R"(The outputs llama.cpp reserves each ubatch's compute graph for.
.B server
(the default): llama\-server's, one a slot and one more a slot for each drafted token
(n_parallel x (1 + draft tokens); every token for an embedding or reranking model), which the
printed line runs.
.BR all :
every token of the ubatch, the library's own default, which llama\-bench, llama\-completion
and builds before llama.cpp PR #23861 (June 2026) reserve: the logits of a whole ubatch, often
the largest part of the compute buffer.)",
         .commands = kPlanning,
         .bind = [](Options& o) -> Target { return &o.engine.reserve_outputs; },
         .complete = Complete::words,
         .words = "server all",
         .group = kGroupEngine},
    };
    for (FlagRow& row : cache_type_rows()) rows.push_back(std::move(row));
    return rows;
}

// llama.cpp's backend and margin, and what llama-server holds beside the model.
std::vector<FlagRow> server_rows() {
    using C = Cmd;
    return {
        {.names = "--backend",
         .value = "BACKEND",
         .help = "llama.cpp: cpu, cuda, rocm, metal, vulkan",
         .man = R"(llama.cpp backend:
.BR cpu ", " cuda ", " rocm ", " metal ", " vulkan .)",
         .commands = cmds({C::page}),
         .bind = [](Options& o) -> Target { return &o.engine.backend; },
         .complete = Complete::words,
         .words = "cpu cuda rocm metal vulkan",
         .group = kGroupEngine},
        {.names = "--margin",
         .value = "MIB",
         .help = "llama.cpp: MiB kept free on every GPU, llama.cpp's fitting target (default "
                 "1024)",
         .man =
             R"(MiB kept free on every GPU by the llama.cpp rule (llama.cpp's own fitting target): a GPU's
usable memory is its capacity less this. Default 1024; 0 plans to the last byte.)",
         .commands = kPlanning,
         .bind = [](Options& o) -> Target { return &o.engine.margin; },
         .group = kGroupEngine},
        {.names = "--cache-ram",
         .value = "MIB",
         .help = "llama-server: MiB its prompt cache in RAM may grow to, 0 off (default 8192)",
         .man =
             R"(MiB llama\-server's prompt cache in host RAM may grow to after load; 0 turns it off. The
verdict counts it at its most, the load figure does not. Default 8192.)",
         .commands = kPlanning,
         .bind = [](Options& o) -> Target { return &o.engine.cache_ram; },
         .group = kGroupEngine},
        {.names = "--ctx-checkpoints",
         .value = "N",
         .help = "llama-server: context checkpoints per sequence, SWA and hybrid models "
                 "(default 32)",
         .man =
             R"(Context checkpoints per sequence llama\-server keeps in RAM for sliding\-window, recurrent and
hybrid models: each a copy of the sliding layers' cache and the recurrent state of one
sequence; they grow after load. Default 32, as in llama.cpp's common.h.)",
         .commands = kPlanning,
         .bind = [](Options& o) -> Target { return &o.engine.ctx_checkpoints; },
         .group = kGroupEngine},
    };
}

// Where llama.cpp runs what: the KV cache, and the prompt's products over weights in RAM.
std::vector<FlagRow> offload_rows() {
    return {
        {.names = "--no-kv-offload",
         .help = "llama.cpp: KV cache and recurrent state in system RAM (-nkvo)",
         .man = R"(The KV cache and recurrent state in system RAM (llama.cpp
.BR \-nkvo ),
and the attention with them: the CPU's compute buffer for one attention layer is counted in RAM
(an upper bound derived from llama.cpp's graph; no recorded log checks it).)",
         .commands = kPlanning,
         .bind = [](Options& o) -> Target { return &o.engine.no_kv_offload; },
         .group = kGroupEngine},
        {.names = "--no-op-offload",
         .help = "llama.cpp: prompt batches over weights in RAM run on the CPU, not GPU 0",
         .man = R"(No op offload (llama.cpp
.BR \-\-no\-op\-offload ):
the prompt batches' products over weights kept in RAM (layers below
.BR \-ngl ,
experts of
.BR \-\-n\-cpu\-moe ,
the output head) run on the CPU instead of being copied to the first GPU. The first GPU's
compute buffer no longer holds the copied weight; reading the prompt is then not estimated (the
data holds no CPU throughput figure). The line carries
.BR \-\-no\-op\-offload .)",
         .commands = kPlanning,
         .bind = [](Options& o) -> Target { return &o.engine.no_op_offload; },
         .group = kGroupEngine},
        {.names = "--blas-build",
         .help = "llama.cpp: plan for a build with a BLAS backend (GGML_BLAS): products over "
                 "weights in RAM stay on the CPU",
         .man = R"(Plan for a llama.cpp built with a BLAS backend (cmake
.BR \-DGGML_BLAS=ON :
OpenBLAS, BLIS, MKL, Accelerate; the release binaries have none). BLAS then takes the
prompt batches' products over the weights kept in RAM (layers below
.BR \-ngl ,
the output head) before op offload can send them to the first GPU, and the attention between
them runs on the CPU; only the routed experts' products (which BLAS cannot run) are copied to
the first GPU. So the first GPU's compute buffer holds the largest expert tensor with one expert
batch instead of a layer's largest tensor beside its whole graph, and the CPU's compute buffer
holds the layers' and the head's activations. BLAS is chosen when llama.cpp is built, not by a
flag of llama\-server: the printed line is unchanged, and the page (JSON: llama_cpp_build)
says the plan assumes such a build. The prompt's speed is still estimated as a release build
runs it.
.B verify
sets it by itself where a log shows one (a CPU compute buffer beside CUDA_Host's).)",
         .commands = kPlanning,
         .bind = [](Options& o) -> Target { return &o.engine.blas_build; },
         .group = kGroupEngine},
    };
}

// What else llama.cpp's runtime holds or reads: the CPU's repacked copy, the MTP draft, the load.
std::vector<FlagRow> runtime_rows() {
    return {
        {.names = "--no-repack",
         .help = "llama.cpp: no second, repacked copy of Q4_0/Q4_K/IQ4_NL/MXFP4 weights on the CPU",
         .man =
             R"(No CPU_REPACK copy: on a machine without a GPU llama.cpp keeps a second, repacked copy in RAM of
the Q4_0, Q4_K, IQ4_NL and MXFP4 matrices (AVX2 assumed; Q2_K with AVX\-512; an ARM CPU would
add Q5_K, Q6_K and Q8_0).)",
         .commands = kPlanning,
         .bind = [](Options& o) -> Target { return &o.engine.no_repack; },
         .group = kGroupEngine},
        {.names = "--mtp",
         .help = "llama.cpp: draft with the model's own MTP layers (llama-server's draft-mtp)",
         .man = R"(The model's own multi\-token\-prediction layers as its draft (llama\-server
.BR "\-\-spec\-type draft\-mtp" ):
their weights, KV cache and the MTP context's compute buffer, on the device of the output head.)",
         .commands = kPlanning,
         .bind = [](Options& o) -> Target { return &o.engine.mtp; },
         .group = kGroupEngine},
        {.names = "--load-mode",
         .value = "MODE",
         .help = "llama.cpp: how the weights are read at load: auto, none, mmap, mlock, "
                 "mmap+mlock, dio (default auto)",
         .man = R"(How llama.cpp reads the weights at load (its
.BR \-\-load\-mode ):
auto (mmap, except on an integrated GPU off Metal), mmap and mmap+mlock map the file, so the
weights in RAM are the file's pages; none and mlock read them into allocated memory, and dio
with direct I/O. Without mmap the RAM holds a load_staging term while loading: the pinned
upload buffers (4 x 1 MiB; 4 x 64 MiB with dio) or, on Metal, a copy of the largest GPU
tensor; with dio also an aligned copy of the largest tensor in RAM; and no CPU_REPACK copy.
The line carries
.BR \-\-load\-mode .)",
         .commands = kPlanning,
         .bind = [](Options& o) -> Target { return &o.engine.load_mode; },
         .complete = Complete::words,
         .words = "auto none mmap mlock mmap+mlock dio",
         .group = kGroupEngine},
    };
}

// A multimodal model's vision projector, which llama-server loads beside it.
std::vector<FlagRow> vision_rows() {
    return {
        {.names = "--no-mmproj",
         .help = "llama-server: text only, no vision projector (default: loaded where -hf "
                 "fetches one)",
         .man = R"(Text only: no vision projector. A multimodal model's line loads it by
.BR \-hf ,
which fetches the repo's mmproj; the plan counts its weights (and its compute buffer where a
recorded log gives it) on the first GPU. With this flag neither, and the line carries
.BR \-\-no\-mmproj .)",
         .commands = kPlanning,
         .bind = [](Options& o) -> Target { return &o.engine.no_mmproj; },
         .group = kGroupEngine},
        {.names = "--no-mmproj-offload",
         .help = "llama-server: the vision projector on the CPU, in system RAM",
         .man =
             R"(The vision projector and its compute buffer in system RAM instead of on the first GPU
(llama\-server
.BR \-\-no\-mmproj\-offload ).)",
         .commands = kPlanning,
         .bind = [](Options& o) -> Target { return &o.engine.no_mmproj_offload; },
         .group = kGroupEngine},
    };
}

// Other models in memory, and vLLM's share.
std::vector<FlagRow> resident_rows() {
    using C = Cmd;
    return {
        {.names = "--draft",
         .value = "MODEL[:QUANT]|FILE",
         .help = "llama.cpp: a draft model for speculative decoding, MODEL, MODEL:QUANT or a "
                 "local .gguf file",
         .man =
             R"(A draft model for speculative decoding: its weights, its own context's KV cache and compute
buffers, every layer on the GPUs, in the same process. A local .gguf file (any name ending in
.gguf, or any existing file) is read and planned by its own tensors, and the line loads it
with \-md FILE.)",
         .commands = kPlanning,
         .bind = [](Options& o) -> Target { return &o.engine.draft; },
         .non_empty = true,
         .complete = Complete::models,
         .group = kGroupEngine},
        {.names = "--also",
         .value = "MODEL[:QUANT]",
         .help = "llama-server: another model resident at once (embedding, reranker), "
                 "MODEL or MODEL:QUANT; repeatable",
         .man =
             R"(Another model resident at once (an embedding model, a reranker); repeatable. Planned by the same
rule in a process of its own, at the main model's context per sequence capped at its window,
with the sequences Ollama gives it under the printed OLLAMA_NUM_PARALLEL (\-\-users; one for an
embedding encoder and for the architectures Ollama serves one at a time). The page adds
llama\-server's router: a preset file with a section per model, each as planned, and the line
that starts them all at once
.RB ( "\-\-models\-preset" ", " "\-\-models\-max" ).)",
         .commands = kPlanning,
         .bind = [](Options& o) -> Target { return &o.engine.also; },
         .non_empty = true,
         .repeatable = true,
         .complete = Complete::models,
         .group = kGroupEngine},
        {.names = "--gpu-memory-utilization",
         .value = "X",
         .help = "vllm: share of GPU memory vLLM may use (default 0.9)",
         .man = R"(vLLM's budget share (with
.BR "\-\-engine vllm" ).
Default 0.9.)",
         .commands = cmds({C::page}),
         .bind = [](Options& o) -> Target { return &o.engine.gpu_memory_utilization; },
         .group = kGroupEngine},
    };
}

// The own flags of fit, verify and the lists.
std::vector<FlagRow> command_rows() {
    using C = Cmd;
    return {
        {.names = "--sort",
         .value = "ORDER",
         .help = "Order: params (largest first, default), speed, context, name",
         .man = R"(.BR params " (largest first, default), " speed ", " context " or " name .)",
         .commands = cmds({C::fit}),
         .bind = [](Options& o) -> Target { return &o.sort; },
         .complete = Complete::words,
         .words = "params speed context name",
         .group = kGroupCommand},
        {.names = "--model",
         .value = "ID",
         .help = "The log's model, a database id, for an excerpt without the metadata lines "
                 "(the file type from the log, else --quant)",
         .commands = cmds({C::verify}),
         .bind = [](Options& o) -> Target { return &o.verify_model; },
         .non_empty = true,
         .complete = Complete::models,
         .group = kGroupCommand},
        {.names = "--family",
         .value = "F",
         .help = "Only models whose family contains this (e.g. qwen)",
         .commands = cmds({C::models}),
         .bind = [](Options& o) -> Target { return &o.family; },
         .group = kGroupCommand},
        {.names = "--vendor",
         .value = "V",
         .help = "Only this vendor (a substring: alibaba, meta for models; nvidia, amd, intel, "
                 "apple for GPUs)",
         .commands = cmds({C::models, C::gpu_list}),
         .bind = [](Options& o) -> Target { return &o.vendor; },
         .group = kGroupCommand},
        {.names = "--since",
         .value = "DATE",
         .help = "Only models released on or after: 2026-06, 2026-06-15",
         .man = R"(Only models released on or after
.I DATE
(a month, 2026\-06, or a day, 2026\-06\-15); entries without a release date are left out.)",
         .commands = cmds({C::models}),
         .bind = [](Options& o) -> Target { return &o.since; },
         .non_empty = true,
         .group = kGroupCommand},
        {.names = "--min-vram",
         .value = "GB",
         .help = "Only GPUs with at least this many GB",
         .commands = cmds({C::gpu_list}),
         .bind = [](Options& o) -> Target { return &o.min_vram; },
         .group = kGroupCommand},
        {.names = "--names",
         .help = "Print only the ids, one per line (the shell completions use it)",
         .commands = cmds({C::models, C::gpu_list, C::quants}),
         .bind = [](Options& o) -> Target { return &o.names; },
         .group = kGroupCommand},
    };
}

// serve's, site's and mcp's own flags.
std::vector<FlagRow> service_rows() {
    using C = Cmd;
    return {
        {.names = "--port",
         .value = "PORT",
         .help = "TCP port (default 8080; 0: any free port, printed)",
         .commands = cmds({C::serve}),
         .range = std::pair{0, 65535},
         .group = kGroupService},
        {.names = "--bind",
         .value = "ADDRESS",
         .help = "Address to listen on (default 127.0.0.1, this machine only; any other prints a "
                 "warning)",
         .commands = cmds({C::serve}),
         .group = kGroupService},
        {.names = "--threads",
         .value = "N",
         .help = "Worker threads answering requests (default 4)",
         .commands = cmds({C::serve}),
         .range = std::pair{1, 64},
         .group = kGroupService},
        {.names = "--allow-remote",
         .help = "Answer remote models (hf:, ollama:, URLs), which fetch from the network",
         .man = R"(Answer remote models (hf:, ollama:, URLs), which fetch from the network: the
server's pages and API, and the MCP tools (read_model_file and the others).)",
         .commands = cmds({C::serve, C::mcp}),
         .group = kGroupService},
    };
}

}  // namespace canitrun::cli
