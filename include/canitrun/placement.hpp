#pragma once
// Where each piece of a model goes on real hardware, as llama.cpp places it:
// - Layers are split over the GPUs in proportion to their memory (llama.cpp's default
//   --tensor-split, --split-mode layer) or to a given --tensor-split, whole layers only: layer i
//   of the n + 1 units (the n repeating layers and the output head) goes to the first GPU whose
//   cumulative share exceeds i / (n + 1) (llama_model::load_tensors). Each GPU carries the KV
//   cache of its own layers. A split of unit counts ("40,41") places exactly those counts.
// - -ngl N keeps the last N units on the GPUs and the first ones in system RAM (llama.cpp
//   offloads from the end of the stack; the output head counts as the last unit).
// - --n-cpu-moe N keeps the routed experts of the first N layers in RAM; everything else of
//   those layers (attention, shared experts, router, KV cache) stays on the GPU.
// - The input embedding goes wherever layer 0 goes.
// - Every device, RAM included, carries the quick rule's overhead (12 %) on its own share.
// A placement fits when every GPU's share fits its memory and RAM's share fits the RAM.

#include <algorithm>
#include <compare>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "canitrun/hardware.hpp"
#include "canitrun/layer_runs.hpp"
#include "canitrun/model_parts.hpp"

namespace canitrun {

// A GPU's capacity in a placement: its memory less the margin kept free (nothing below zero).
inline Bytes gpu_capacity(Bytes memory, Bytes margin) {
    return memory > margin ? memory - margin : 0;
}

// A term a server holds beside the model's own parts on one device: llama-server's prompt
// cache and context checkpoints, a draft model, another resident model, repacked weights
// (plan/server_terms fills them in; the rule of each is there). `load` is held once the model
// is loaded; `most` is the most it reaches while serving (>= load): a term with most > load
// grows after load. A share's headline (total) counts the load; its verdict (fits) the most.
struct ResidentTerm {
    std::string name;
    Bytes load = 0;
    Bytes most = 0;
    bool grows() const { return most > load; }
};

// Another model in memory beside the planned one (a draft model, a model of --also): its
// bytes on each GPU (one entry per Hardware::gpus, or none) and in RAM, placed on its own.
struct Companion {
    std::string name;
    std::vector<Bytes> gpus;
    Bytes ram = 0;
    friend auto operator<=>(const Companion&, const Companion&) = default;
};

// What a server holds beside the model's parts, and where (the llama.cpp rule only).
struct ServerTerms {
    Bytes prompt_cache = 0;         // llama-server's host prompt cache, grows up to this
    std::uint64_t checkpoints = 0;  // context checkpoints at most: per sequence x sequences
    std::uint64_t kv_streams = 1;   // the KV cache's streams (a checkpoint is one stream's)
    std::uint64_t sequences = 1;    // the recurrent state's sequences (one per checkpoint)
    bool kv_in_ram = false;         // --no-kv-offload: KV cache and recurrent state in RAM
    Bytes nkvo_attention = 0;       // and the attention run on the CPU: its compute buffer
    Bytes cpu_repack = 0;           // CPU_REPACK's copy, on a machine without a GPU
    Bytes mtp = 0;                  // the MTP layers and their KV, with the output head
    // The vision projector (mmproj): its weights and clip's compute buffer on the first GPU, or
    // in RAM (projector_on_gpu false, or no GPU), and clip's CPU compute buffer beside a GPU.
    Bytes projector = 0;
    Bytes projector_compute = 0;
    Bytes projector_host_compute = 0;
    bool projector_on_gpu = true;
    std::vector<Companion> companions;
    // How llama.cpp reads the weights at load (--load-mode; server_terms.hpp has the rule):
    // `mapped` (mmap: the RAM's weights are the mapped file), else read into allocated memory:
    // a GPU's tensors through `upload_buffers` bytes of pinned host buffers, or on a backend
    // without them (`upload_by_tensor`: Metal) through a host copy of each tensor in turn, and
    // with direct I/O (`direct_block`: O_DIRECT's alignment, else 0) each tensor in host memory
    // through an aligned copy of it. The most of these alive at once is RAM's load_staging.
    bool mapped = true;
    Bytes upload_buffers = 0;
    bool upload_by_tensor = false;
    Bytes direct_block = 0;
    // The draft model's own staging (it loads after the main model, in the same process): RAM's
    // load_staging is the larger of the two, and the draft's companion holds none.
    Bytes draft_staging = 0;
    // --ctx-checkpoints and --cache-ram as the user gave them: never lowered (cap_growth).
    bool checkpoints_given = false;
    bool prompt_cache_given = false;
    friend auto operator<=>(const ServerTerms&, const ServerTerms&) = default;
};

struct PlacementOptions {
    std::optional<std::uint64_t> gpu_layers;      // -ngl; nullopt: all layers and the output head
    std::optional<std::uint64_t> cpu_moe_layers;  // --n-cpu-moe (0 given is 0, not "choose")
    // -ot "blk\.(...)\.ffn_.*_exps\.=CPU": the layers whose routed experts stay in RAM,
    // ascending; non-empty, it replaces --n-cpu-moe's first layers (fastest_plan's chosen set).
    std::vector<std::uint64_t> cpu_moe_set;
    // --tensor-split: one proportion per GPU; empty: in proportion to each GPU's memory.
    std::vector<std::uint64_t> tensor_split;
    // The llama.cpp rule: memory kept free on every GPU (llama.cpp's fitting target), and the
    // runtime's own memory per GPU (the CUDA context), one entry per Hardware::gpus or none.
    Bytes margin = 0;
    std::vector<Bytes> gpu_runtime;
    // Per GPU, whether its backend keeps the KQ masks' copy in its compute buffer
    // (keeps_mask_copy); none given: every GPU does.
    std::vector<bool> gpu_mask_copy;
    // Per GPU, whether its backend adds ggml-cuda's pool to the runtime (has_cuda_pool); none
    // given: no GPU does.
    std::vector<bool> gpu_pool;
    // Per GPU, whether its backend's graph optimizer keeps the MoE reduction's inputs alive
    // (fuses_moe_reduction, in a build since llama.cpp PR #27301); none given: no GPU does.
    std::vector<bool> gpu_moe_fusion;
    // Per GPU, whether its backend maps the model file's byte range as one buffer under mmap
    // (maps_file_span: Metal), which then holds the host tensors lying within it (placement.cpp);
    // none given: no GPU does.
    std::vector<bool> gpu_maps_file;
    // llama.cpp's op offload (on by default; --no-op-offload turns it off): a prompt batch's
    // products over weights in host memory run on the first GPU, which copies them in
    // (placement.cpp). Off, they run on the CPU.
    bool op_offload = true;
    // The build has a BLAS backend (GGML_BLAS): host weights' matrix products stay in RAM on it,
    // and only what it cannot run goes to the first GPU (placement.cpp). Release builds have none.
    bool host_blas = false;
    ServerTerms server;
    // Ordered whole, so that a memo keyed on the options (plan_views.cpp) cannot miss a field
    // added later.
    friend auto operator<=>(const PlacementOptions&, const PlacementOptions&) = default;
};

struct Share {
    std::uint64_t layers = 0;  // repeating layers held (or whose experts are held, for RAM)
    bool output = false;       // holds the output head
    Bytes capacity = 0;
    Bytes weights = 0;
    Bytes kv_cache = 0;
    Bytes recurrent_state = 0;
    Bytes compute = 0;         // the llama.cpp rule's buffers: compute graph (and logits in RAM)
    Bytes runtime = 0;         // the GPU runtime's own memory
    Bytes overhead = 0;        // the quick rule's percentage
    Bytes read_per_token = 0;  // bytes one decoded token reads here (active weights + KV)
    // For the speed model: the active weights alone (no KV), the routed experts' share of them,
    // and the layers here with routed experts.
    Bytes active_weights = 0;
    Bytes active_experts = 0;
    Bytes embedding = 0;  // the input embedding held here: a row lookup, never read whole
    // Of `weights`: what llama.cpp maps from the model file (its default mmap) rather than
    // allocates: the llama.cpp rule's weights in RAM. Page cache: the OS can drop it and read
    // it back from disk (at disk speed); --load-mode none makes it allocated memory.
    Bytes mapped = 0;
    // Of `mapped`: pages a GPU's buffer wraps on the same memory, counted there, so total()
    // leaves them out here. Metal maps a tied model's whole file range (placement.cpp's
    // tied_head_weights) with newBufferWithBytesNoCopy on the mapping, shared storage
    // (ggml-metal-device.m, 0ad4a86), and the host's CPU_Mapped tensors lie in that range.
    Bytes mapped_by_gpu = 0;
    std::uint64_t moe_layers = 0;
    std::uint64_t mla_layers = 0;        // of `layers`, the MLA ones (DSA's leaves are per layer)
    std::vector<ResidentTerm> resident;  // held beside the model (ServerTerms)

    Bytes total() const;          // held once loaded: the headline
    Bytes resident_load() const;  // the resident terms' load, which total() includes
    Bytes most() const;           // with every resident term at its most: the verdict
    Bytes grows_by() const;       // most() - total()
    bool fits() const { return most() <= capacity; }
    bool loads() const { return total() <= capacity; }  // holds the load, before any growth
};

struct Placement {
    std::uint64_t gpu_layers = 0;  // as llama.cpp counts -ngl (n layers + 1 for the output head)
    std::uint64_t cpu_moe_layers = 0;        // how many layers' experts are in RAM
    std::vector<std::uint64_t> cpu_moe_set;  // which: PlacementOptions::cpu_moe_set, as placed
    // The --tensor-split placed by: given, or found by plan_placement where the default split
    // overfills a GPU and an uneven one holds every layer; empty: the default, by memory.
    std::vector<std::uint64_t> tensor_split;
    bool split_found = false;  // tensor_split is plan_placement's, not the user's
    // tensor_split (or --n-cpu-moe) is fastest_plan's: faster by the speed model than the
    // planner's own, which also fits
    bool split_faster = false;
    // Each layer's matrices cut by rows over the GPUs: llama.cpp's -sm row (plan/row_split).
    bool row_split = false;
    // Each weight and the KV cache cut over the GPUs: llama.cpp's -sm tensor (plan/tensor_split).
    bool tensor_parallel = false;
    bool op_offload = true;  // PlacementOptions::op_offload, as placed
    // What cap_growth lowered to fit the RAM: checkpoints per sequence (--ctx-checkpoints) and
    // the prompt cache (--cache-ram, whole MiB), with what they were; empty where kept.
    std::optional<std::uint64_t> capped_checkpoints;
    std::optional<Bytes> capped_cache_ram;
    std::uint64_t asked_checkpoints = 0;  // per sequence, before the cap
    Bytes asked_cache_ram = 0;
    Bytes checkpoint_bytes = 0;  // one checkpoint of one sequence
    std::vector<Share> gpus;     // one per Hardware::gpus, same order
    Share ram;
    // ModelParts::idle_units, as placed: llama.cpp's units past the stack that hold nothing,
    // after the last layer and before the output head, so on the head's device.
    std::uint64_t idle_units = 0;

    bool fits() const;
    Bytes gpu_total() const;
    // What the GPUs may hold in all: each share's capacity (its memory less the margin kept
    // free, gpu_capacity), the figure a plan's GPU total is measured against.
    Bytes gpu_usable() const;
    // Every layer's routed experts in RAM: llama.cpp's --cpu-moe (-ot exps=CPU).
    bool all_experts_in_ram() const;
    // Whether layer `i`'s routed experts are in RAM: the chosen set's, else the first
    // cpu_moe_layers (--n-cpu-moe).
    bool experts_in_ram(std::uint64_t i) const {
        if (cpu_moe_set.empty()) return i < cpu_moe_layers;
        return std::binary_search(cpu_moe_set.begin(), cpu_moe_set.end(), i);
    }
    // One past the last layer whose experts are in RAM.
    std::uint64_t experts_end() const {
        return cpu_moe_set.empty() ? cpu_moe_layers : cpu_moe_set.back() + 1;
    }
};

// One context checkpoint of one sequence (the rule is in placement.cpp): the sliding-window
// layers' cache of one stream and the recurrent state of one sequence; 0 for a model with
// neither (llama-server makes no checkpoints for it).
Bytes checkpoint_bytes(const ModelParts& parts, const ServerTerms& server);

Result<Placement> place(const ModelParts& parts, const Hardware& hardware,
                        const PlacementOptions& options);
// The same with the parts' running sums (layer_runs.hpp), made once for a search that places
// the same parts many times; the same placement as above.
Result<Placement> place(const ModelParts& parts, const Hardware& hardware,
                        const PlacementOptions& options, const LayerRuns& runs);

// llama-server's growth settings chosen for the plan where the user gave none: a placement whose
// RAM holds its load but not the growth at its most keeps the most checkpoints per sequence
// that fit (0 allowed), and only where none fits, the largest prompt cache in whole MiB that
// does (0: off). One checkpoint of `one` bytes; a term the user gave (ServerTerms'
// checkpoints_given, prompt_cache_given) is kept. Closed-form: the room over the term's size.
// Nothing changes where lowering what may be lowered would not make the RAM fit.
void cap_growth(Placement& p, const ServerTerms& server, Bytes one);

struct Plan;  // below

// One set of parts with the placements kept for the searches over them on a lone discrete GPU
// of other memories. place() reads such a GPU only through its capacity (its memory less the
// margin; the split by memory gives every unit to it), so a placement made on one is another's
// with that capacity. A page plans one model's parts on some 200 boards of a few dozen
// memories, and placing each anew was most of its time. The memo owns its parts, so a kept
// placement can only be read back for the parts it was made of, for as long as they live.
class PlacementMemo {
  public:
    explicit PlacementMemo(ModelParts parts) : parts_(std::move(parts)) {}
    const ModelParts& parts() const { return parts_; }

    // The placements of one RAM and options, by their -ngl and --n-cpu-moe. Each is made once
    // and kept where it is, so a search can hold on to the ones it found.
    class Slot {
      public:
        Slot() = default;
        Slot(Bytes ram, PlacementOptions options)
            : ram_(ram), options_(std::move(options)), lone_(true) {}
        // place(parts, hardware, options): kept, with a GPU's capacity set for `hardware` when
        // the slot is one of a memo's (a lone discrete GPU). `parts`: the memo's, or, for a
        // slot of no memo, the same parts on every call.
        Result<const Placement*> place(const ModelParts& parts, const Hardware& hardware,
                                       const PlacementOptions& options);
        // Whether the slot is the one of this RAM and options (-ngl and --n-cpu-moe not given).
        bool holds(const Hardware& hardware, const PlacementOptions& options) const;

      private:
        struct Kept {
            std::optional<std::uint64_t> gpu_layers;
            std::optional<std::uint64_t> cpu_moe_layers;
            Placement placement;
        };
        Bytes ram_ = 0;
        PlacementOptions options_;  // without -ngl and --n-cpu-moe
        bool lone_ = false;
        std::deque<Kept> kept_;
    };

  private:
    // The slot of this RAM and options on `hardware`; nullptr where it is not a lone discrete
    // GPU or the options give -ngl or --n-cpu-moe. Private, so that only the memo's own
    // searches place with it, and only its own parts.
    Slot* slot(const Hardware& hardware, const PlacementOptions& options);
    friend Result<std::optional<Placement>> native_placement(PlacementMemo& memo,
                                                             const Hardware& hardware,
                                                             PlacementOptions options);
    friend Result<Plan> plan_placement(PlacementMemo& memo, const Hardware& hardware,
                                       const PlacementOptions& options);

    ModelParts parts_;
    std::deque<Slot> slots_;
};

// The device a placement that does not fit is over: the first GPU over its capacity (they are
// what a plan fills first), else the RAM. Empty when it fits.
struct Overflow {
    std::optional<std::size_t> gpu;  // empty: the system RAM
    Bytes need = 0;
    Bytes capacity = 0;
};
std::optional<Overflow> first_overflow(const Placement& placement);

// How far a placement is from its verdict: the bytes the tightest device (a GPU or the RAM) has
// left under its capacity, at its most (Share::most), negative where it is over; fits() holds
// where it is not negative (exactly, for byte counts below 2^53). What a search over a growing term
// (the longest context) aims its next probe by; never a verdict.
double placement_room(const Placement& placement);

// The units options' -ngl puts on the GPUs (every layer and the output head without it), with
// its --n-cpu-moe, by a --tensor-split of unit counts that fits every GPU and the RAM, where
// one exists: each GPU but the last takes the most units that fit it. An even split puts the
// first layers, whose experts --n-cpu-moe keeps in RAM, on GPU 0 and leaves it nearly empty;
// this split fills it.
Result<std::optional<Placement>> fitting_split(const ModelParts& parts, const Hardware& hardware,
                                               PlacementOptions options);

// Every layer and the output head on the GPUs by a --tensor-split of unit counts that fits
// every GPU, where one exists (options' margin and runtime memory apply; its -ngl, --n-cpu-moe
// and split are replaced).
Result<std::optional<Placement>> uneven_split(const ModelParts& parts, const Hardware& hardware,
                                              PlacementOptions options);

// Every layer and the output head on the GPUs (with no GPU: all in RAM) as plan_placement
// chooses it: by the options' split, by memory, else by uneven_split on several discrete GPUs.
// Empty when none fits. The one native rule the searches (best quantization, longest context,
// fit) share with plan_placement.
Result<std::optional<Placement>> native_placement(const ModelParts& parts, const Hardware& hardware,
                                                  PlacementOptions options);
// The same for the memo's parts, the placement from the memo where it can.
Result<std::optional<Placement>> native_placement(PlacementMemo& memo, const Hardware& hardware,
                                                  PlacementOptions options);

// native_placement's verdict with the placement it was made on: the plan where `fits`, else the
// nearest miss (the uneven split's where one was tried, else the default), whose room
// (placement_room) tells a search how far it is over.
struct NativeTry {
    Placement placement;
    bool fits = false;
};
Result<NativeTry> try_native(const ModelParts& parts, const Hardware& hardware,
                             PlacementOptions options);

enum class PlanKind {
    native,          // everything on the GPUs
    expert_offload,  // routed experts of the first N layers in RAM (MoE models)
    layer_offload,   // the first layers in RAM
    cpu_only,        // no GPU: everything in system RAM
    none,            // nothing fits; the placement shows the all-GPU shortfall
};

struct Plan {
    PlanKind kind = PlanKind::none;
    Placement placement;
};

// The placement a user should run: all on the GPUs if it fits; else, on several GPUs, all on
// them with an uneven --tensor-split if one holds every layer; else, for an MoE model, the
// fewest layers' experts in RAM; else the most layers on the GPUs. Explicit options are placed
// as given.
Result<Plan> plan_placement(const ModelParts& parts, const Hardware& hardware,
                            const PlacementOptions& options = {});
// The same for the memo's parts, the searches' placements from the memo where they can.
Result<Plan> plan_placement(PlacementMemo& memo, const Hardware& hardware,
                            const PlacementOptions& options);

const char* plan_kind_name(PlanKind kind);

}  // namespace canitrun
