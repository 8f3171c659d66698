#pragma once
// What a llama.cpp server holds beside the model's weights, KV cache and compute buffers, each
// a named term on the device where the runtime puts it (placement.hpp's ResidentTerm), at
// llama-server's defaults. Terms that grow while the server runs start at 0 and reach their
// most; the verdict counts the most, the headline the load.
//
// - prompt_cache (RAM, grows): llama-server's host prompt cache. common_params::cache_ram_mib
//   = 8192 (common/common.h: "-1 = no limit, 0 - disable"); tools/server/server-context.cpp
//   load_model makes server_prompt_cache(cache_ram_mib, n_ctx); its update() evicts the
//   oldest states while the size is past the limit and raises the token limit to what fits
//   the size (ggml-org/llama.cpp PR #16391). At most --cache-ram.
// - ctx_checkpoints (RAM, grows): a copy per checkpoint of the sliding-window layers' cache of
//   one sequence and of its recurrent state (server-context.cpp: the checkpoint's data is
//   llama_state_seq_get_data_ext(..., LLAMA_STATE_SEQ_FLAGS_PARTIAL_ONLY), a host vector),
//   made only for SWA (without --swa-full), recurrent and hybrid models; at most
//   common_params::n_ctx_checkpoints per slot: 32 in the pinned builds' common/common.h (5b4ebc5
//   and 0ad4a86, line 629; a mainline common.h read earlier for this work had 8). create_checkpoint
//   (server-context.cpp) lets the list reach that many: it erases checkpoints closer than
//   checkpoint_min_step (8192 tokens) to an earlier one only once the list is full, then
//   appends, so a slot holds 31 or 32 at its peak, and the term counts 32.
// - cpu_repack (RAM, at load): cpu_repack.hpp; only on a machine without a GPU. The same rule
//   for each companion (draft, --also) in its own RAM figure: llama.cpp builds a draft's and a
//   router child's buffer types as the main model's (make_cpu_buft_list), and the draft takes
//   the main line's --no-repack (common_base_params_to_speculative copies no_extra_bufts), an
//   --also model its preset section's (companion_settings carries it).
// - draft:<model> (GPUs and RAM, at load): -md's model, loaded with every layer on the GPUs
//   (common_params_speculative::n_gpu_layers -1: the default, all), split like the main model
//   by the devices' memory (llama.cpp splits by free memory, after the main model: on
//   several unequal GPUs this is an approximation), with its own context of the main's
//   context and sequences (server-context.cpp's draft context of n_ctx_seq cells per slot, as
//   remembered from late-2025 builds, not re-read; one compute buffer counted, not one per
//   slot) in the same process (no second CUDA context). KV types f16 (-ctkd / -ctvd). A local
//   GGUF file (--draft FILE, -md FILE) by its own tensors, as a file argument is planned. Read
//   under the main line's --load-mode: common_base_params_to_speculative (common/speculative.cpp
//   at 0ad4a86) copies the main model's common_params whole and changes only the model, the
//   devices, -ngld, -otd, the threads and the cache types, and common_model_params_to_llama
//   passes its load_mode on. It loads after the main model (server-context.cpp load_model:
//   common_init_from_params, then common_speculative_init_from_params), so its load_staging
//   comes after the main model's is freed: RAM's load_staging term is the larger of the two.
// - also:<model> (GPUs and RAM, at load): another model resident at once (llama-server's
//   router keeps each in a child process: its own runtime memory on each GPU it uses), with
//   the sequences and context Ollama gives it under the printed line's OLLAMA_NUM_PARALLEL
//   (launch_command.hpp's ollama_model_settings: --users' sequences, each of the main model's
//   context per sequence capped at its window; one for an encoder and for the architectures
//   Ollama serves one at a time), with its vision projector where its line would load one
//   (loads_projector, the main model's rule). An embedding or reranking model's section carries
//   `embeddings = true` or `reranking = true` (llama_server_args, llama_serve), and its output
//   buffer is the one its first batch makes (llamacpp_output_bytes). Its own prompt cache and
//   checkpoints are not counted: the printed router's preset turns them off for it
//   (launch_command.hpp, llama_router_launch: cache-ram = 0, ctx-checkpoints = 0). Read under
//   the main line's --load-mode (a router's child runs with the router's own arguments laid
//   over its preset: server-models.cpp load_models, preset.merge(base_preset)), its load_staging
//   in its RAM figure: children may load at once, so the stagings add up.
// - mtp (the device of the output head, at load): with --mtp, the model's multi-token-
//   prediction layers (llamacpp_mtp_weight_bytes) and one full-attention layer's KV cache each
//   at the context in f16 (the draft's cache types, draft_settings), as llama.cpp drafts with them
//   (--spec-type draft-mtp, a draft context on the target model's own MTP layers), and that
//   context's compute buffer, the graph of the one MTP block over the ubatch and the context's
//   cells (llamacpp_mtp_compute_bytes: its attention, its FFN; the CPU harness's MTP rows meet
//   it within 4 MiB, one CUDA log for Qwen 3.8 27B reads 32 MiB above). The pinned 0ad4a86 has
//   that path: common/arg.cpp's
//   --spec-type takes draft-mtp (common/speculative.cpp line 37), server-context.cpp load_model
//   (lines 1019-1150) then calls common_speculative_init_from_params, which makes a context of
//   LLAMA_CONTEXT_TYPE_MTP on the target model itself with the target's n_ctx ("creating MTP
//   draft context against the target model", speculative.cpp lines 2532-2588), and
//   common_speculative_impl_draft_mtp drafts with it (lines 1330-1450; one head for qwen35 and
//   qwen35moe, a chain of heads for step35, the target's KV shared for gemma4). Its --mtp is a
//   download option only (llama-download: fetch the MTP head). The compute figure is one
//   architecture's, from a log of a later build. Only where the files carry the layers
//   (mtp_loadable); the command refuses --mtp otherwise.
// - projector, projector_compute (GPU 0, at load), projector_host_compute (RAM, at load): the
//   vision projector (mmproj) of a multimodal model whose line loads it by its repo (-hf loads
//   the repo's mmproj: llama.cpp's --mmproj-auto, on by default; tests/fixtures/runtime-flags/
//   llama-cpp.json). tools/mtmd/clip.cpp's clip_ctx takes the first GPU backend
//   (ggml_backend_init_by_type(GGML_BACKEND_DEVICE_TYPE_GPU)) unless use_gpu is off
//   (llama-server's --no-mmproj-offload), then the CPU; the projector's tensors go in that
//   backend's buffer, and its scheduler (that backend and the CPU) reserves a compute buffer on
//   each (alloc_compute_meta). The recorded logs show it: "CLIP using CUDA0 backend" with the
//   layers on other GPUs (validation/llama-logs/cudab-012). The weights are the data's
//   run.projector (how they were known said there); the compute buffers a recorded log's where
//   the data has one, else not counted. Alone on the CPU, the device's compute buffer is
//   counted in RAM (the whole graph runs there). --no-mmproj: none, and the line carries it.
// - --no-kv-offload moves each layer's KV cache and recurrent state to RAM (placement.cpp), and
//   the attention with it: src/llama-graph.cpp's build_attn_mha pins the attention's output
//   (cont_2d of KQV) to the CPU backend when cparams.offload_kqv is off, and the scheduler runs
//   every node between the KV store and it there (ggml-org/llama.cpp PR #5049, "run all KQV ops
//   on the CPU with no KV offload"). nkvo_attention (RAM, at load, only beside a GPU): the CPU
//   compute buffer's share for it, one layer's at a time (the allocator reuses it layer after
//   layer), the widest attention layer's per ubatch token: f32 copies of Q (heads x head_dim),
//   K and V (kv_heads x (head_dim + v_head_dim)) from the GPU, the attention's output (heads x
//   v_head_dim; without flash attention also its contiguous copy and the KQ scores, heads x the
//   layer's cells), and with flash attention the f16 casts of the KQ masks (2 B x the full and
//   sliding layers' cells). The sum of a layer's tensors, not the allocator's peak (which may
//   free a copy before the next is made): an upper bound, not checked against a log (none of
//   validation/llama-logs runs -nkvo). Flash attention auto counts as on (the CPU runs it).
//   The GPU's compute buffer is left as with the cache offloaded (no longer holding the
//   attention, it may be smaller). MLA and compressed-attention layers are not counted.
// - load_staging (RAM, at load): what loading the weights holds beside them under --load-mode
//   (llama.cpp 0ad4a86, common/arg.cpp's -lm / --load-mode, default auto). auto, mmap and
//   mmap+mlock map the file (llama-model-loader.cpp line 559: use_mmap; auto turns it off where
//   a device has no mmap support, llama-model.cpp load_tensors lines 1444-1453: a CUDA or HIP
//   device the driver calls integrated, ggml-cuda.cu line 5111, and a Vulkan integrated GPU,
//   ggml-vulkan.cpp line 15014; canitrun takes a unified-memory GPU off Metal for one): no
//   staging, and the RAM's weights are the mapped file. none and mlock read the file into
//   allocated buffers, and dio as well with O_DIRECT (llama-mmap.cpp lines 184-210, Linux only;
//   its alignment is the file's st_blksize, taken as 4096 B). load_all_data
//   (llama-model-loader.cpp lines 1493-1761) then stages each GPU context's tensors: on a
//   device with async uploads, pinned host buffers and events (CUDA and HIP, ggml-cuda.cu
//   5106-5112; Vulkan) through n_buffers = 4 pinned buffers of 1 MiB, or with direct I/O of
//   64 MiB + 2 x the alignment each (lines 1509-1520), freed when that context is loaded;
//   elsewhere (Metal: host_buffer false, ggml-metal.cpp line 697) through a host vector of
//   each tensor's size in turn, the largest GPU tensor at most (line 1738). Host buffers are
//   read into in place, except with direct I/O: llama_file::read_raw reads each through an
//   aligned copy of the tensor and its alignment padding (read_aligned_chunk, llama-mmap.cpp
//   lines 321-341), counted as the tensor plus one block, rounded up to the block. The GPUs'
//   contexts load before the host's (llama-model.cpp lines 1857-1862), so the larger of the two
//   is the term. It is freed before the context's KV cache and compute buffers are made; counted
//   at load and in the verdict, it bounds the process's peak from above. Without mmap there is
//   no CPU_REPACK copy: a repacked tensor is read into its CPU_REPACK buffer alone. Not checked
//   against a log: no recorded log runs without mmap, and llama.cpp logs neither the upload
//   buffers nor the aligned copies. Searched (2026-12-05, the issues and pages corpora):
//   "load_all_data pinned", "cudaMallocHost" at load, "--no-mmap" RAM use and "direct io"
//   loading; found load times (ggml-org/llama.cpp PRs #14396, #18012, #18166) and pinned
//   weight buffers (PR #28223: -ot to CUDA_Host; ik_llama.cpp PR #1517), no figure of staging.
//   Searched again (2026-12-05, issues and pages): peak RSS while loading with --no-mmap,
//   maximum resident set size at load, the loader's pinned upload buffers; found whole-process
//   peaks of a fork (VmRSS, no buffer named) and pinned weights (ik_llama.cpp PR #2444), still
//   no figure of staging.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "canitrun/cpu_repack.hpp"
#include "canitrun/file_parts.hpp"
#include "canitrun/hardware.hpp"
#include "canitrun/llamacpp_engine.hpp"
#include "canitrun/placement.hpp"

namespace canitrun {

struct PlanSettings;

inline constexpr Bytes kDefaultCacheRam = 8192ULL << 20;     // --cache-ram 8192 (MiB)
inline constexpr std::uint64_t kDefaultCtxCheckpoints = 32;  // --ctx-checkpoints 32

// llama.cpp's --load-mode (include/llama.h's enum llama_load_mode, common/arg.cpp's spellings:
// auto, none, mmap, mlock, mmap+mlock, dio).
enum class LoadMode { automatic, none, mmap, mlock, mmap_mlock, direct_io };
const char* load_mode_name(LoadMode mode);
Result<LoadMode> parse_load_mode(std::string_view text);

// A companion read from a local GGUF file (--draft FILE): the model and tensors no database
// holds, owned here so a ResidentModel's pointers into it live as long as any copy of it.
struct ResidentFile {
    std::string path;         // as given: the line's -md
    Model model;              // read from the file's header
    Quant quant;              // gguf_file_quant(): the file's own types
    Bytes weights_bytes = 0;  // every tensor's: the quick rule's weights (no llama.cpp layout)
    std::shared_ptr<const FileWeights> weights;  // what the llama.cpp rule plans it by
};

struct ResidentModel {
    const Model* model = nullptr;
    const Quant* quant = nullptr;
    std::shared_ptr<const ResidentFile> file;  // set for a file: model and quant point into it

    bool operator==(const ResidentModel&) const = default;
};

struct Placement;

struct ServerSettings {
    Bytes cache_ram = kDefaultCacheRam;  // 0: no prompt cache
    std::uint64_t ctx_checkpoints = kDefaultCtxCheckpoints;
    // Given on the command line: kept as given. Not given, the plan may lower them where the
    // growth would outgrow RAM after a load that fits (placement.hpp's cap_growth).
    bool cache_ram_given = false;
    bool ctx_checkpoints_given = false;
    bool kv_offload = true;              // false: --no-kv-offload
    bool repack = true;                  // false: --no-repack
    bool op_offload = true;              // false: --no-op-offload (placement.cpp)
    bool host_blas = false;              // --blas-build: a build with BLAS (placement.cpp)
    CpuIsa cpu = CpuIsa::avx2;           // the CPU's kernels, for CPU_REPACK (an assumption)
    bool mtp = false;                    // --mtp: draft with the model's own MTP layers
    std::optional<ResidentModel> draft;  // --draft
    std::vector<ResidentModel> also;     // --also
    bool vision = true;                  // false: --no-mmproj (no projector loaded)
    bool mmproj_offload = true;          // false: --no-mmproj-offload (projector on the CPU)
    // --mmproj PATH with a model file: the projector llama-server is given (-m FILE --mmproj
    // PATH) and its tensors' bytes, read from it; a database model's is its repo's (run.mmproj).
    std::string mmproj_file;
    Bytes mmproj_file_bytes = 0;
    // --load-mode: how llama.cpp reads the weights at load (load_staging above)
    LoadMode load_mode = LoadMode::automatic;

    bool operator==(const ServerSettings&) const = default;
};

// The MTP draft context's own buffers at llama.cpp's options (the mtp term less the MTP layers'
// weights, which the target model holds): each MTP layer's KV cache, one full-attention (or
// MLA) layer's at the options' context and cache types, and the compute buffer of the block's
// graph (llamacpp_mtp_compute_bytes). The plan asks it
// with the draft's cache types (draft_settings); verify with the MTP context's as its log
// prints them.
struct MtpContextBytes {
    Bytes kv = 0;
    Bytes compute = 0;
};
Result<MtpContextBytes> mtp_context_bytes(const Model& model, const LlamaCppOptions& options);

// Whether --mtp can load the model's MTP layers: a model file's own nextn blocks
// (FileWeights' sums.mtp), else a database model's published files (RunInfo::gguf_mtp: GLM's
// carry them; DeepSeek V3's converter drops them, Qwen 3.5's files predate their keeping). An
// error saying why not, for the command to refuse --mtp with; the mtp term is 0 where not.
Result<bool> mtp_loadable(const Model& model, const FileWeights* file);

// Whether llama-server loads the model's vision projector under the settings (the llama.cpp
// rule): the data sizes one, the line loads the model by its repo (-hf, which fetches the
// repo's mmproj) and --no-mmproj is not given; or a model file's line carries --mmproj PATH.
bool loads_projector(const Model& model, const Quant& quant, const ServerSettings& server);

// placement_for's options for the model at the quantization on the hardware, with the
// server's terms of the settings (the llama.cpp rule; the quick rule has none).
Result<PlacementOptions> server_placement_for(const Model& model, const Quant& quant,
                                              const Hardware& hardware,
                                              const PlanSettings& settings,
                                              PlacementOptions user = {});

// What grows after load in RAM under the settings (the llama.cpp rule; nothing under the
// quick rule): the prompt cache at its most and the checkpoints at their most, the same terms
// the placement adds.
struct ServerGrowth {
    Bytes prompt_cache = 0;
    Bytes checkpoints = 0;               // all of them
    std::uint64_t checkpoint_count = 0;  // per sequence x sequences; 0 when none are made
    Bytes total() const { return checked::add(prompt_cache, checkpoints); }
};
Result<ServerGrowth> server_growth(const Model& model, const Quant& quant,
                                   const PlanSettings& settings);

// The settings the plan's line runs with: `server` with the growth settings the placement
// lowered (Placement::capped_checkpoints, capped_cache_ram), as the printed command carries them.
ServerSettings planned_server(ServerSettings server, const Placement* placement);

// The draft model's settings: the main model's context and sequences (one draft context per
// slot of n_ctx_seq cells is the same cells), f16 KV, nothing of the server's own.
PlanSettings draft_settings(const PlanSettings& main);

// The settings a companion model is planned and launched by: `settings`' context, sequences
// and cache types (draft_settings' or ollama_model_settings'), its own weights (a file's
// tensors), and of the server's only what the main line sets for every model it starts: the KV
// cache's and the products' offload, --no-repack and the CPU's kernels, --load-mode and the
// projector's flags; no prompt cache,
// checkpoints, draft, MTP or --also of its own, and no margin.
PlanSettings companion_settings(const ResidentModel& model, const PlanSettings& settings);

// A companion model placed on its own: planned by the same rule with `settings`, every layer on
// the GPUs (all in RAM without one), no margin; `own_process`: with the runtime's own memory on
// each GPU it uses.
Result<Placement> companion_placement(const ResidentModel& model, const Hardware& hardware,
                                      const PlanSettings& settings, bool own_process);

// A companion model's bytes per device: planned by the same rule with `settings`, every
// layer on the GPUs (all in RAM without one), no margin; `own_process`: with the runtime's
// own memory on each GPU it uses.
Result<Companion> place_companion(const std::string& name, const ResidentModel& model,
                                  const Hardware& hardware, const PlanSettings& settings,
                                  bool own_process);

}  // namespace canitrun
