#pragma once
// The answer for a model file, whatever it was read from (a local .gguf, a remote header, a
// config.json): the same decisions for every command that shows one (the file page, `gpus`,
// `compare`, `local`, a repo's listing), so they cannot disagree. The CLI only formats these.
//
// A GGUF file is planned by the rule a database model is (ReportOptions::plan): under llama.cpp's
// rule (the default) its own tensors, each at the bytes the file holds, go through the same
// parts, caches, buffers and placement as a database model's layout (file_parts.hpp), so a file
// with a database model's tensors gets that model's answer to the byte (#33); a file whose
// architecture llama.cpp's layout is not modelled for is planned by the quick rule and the
// answer says so (rule_note). Under --engine quick: the exact sum of its tensors as the
// weights, llama.cpp's cache cells and the page's 12 % over them.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "canitrun/database.hpp"
#include "canitrun/estimate.hpp"
#include "canitrun/gguf_model.hpp"
#include "canitrun/hardware_report.hpp"
#include "canitrun/kv_curve.hpp"
#include "canitrun/remote_model.hpp"
#include "canitrun/report.hpp"
#include "canitrun/server_terms.hpp"

namespace canitrun {

// The quantization a GGUF file stands for in the fit rules: its own, which every backend runs.
Quant gguf_file_quant();
// The same for the file `g`, with what its speed is read at (#33, #37): the type it was written
// as (general.file_type) and the database's bits per weight for that type, so a file of a
// database model's tensors decodes at that model's speed; without a type the database knows,
// its largest tensors' type and its own bytes over its parameters.
Quant gguf_file_quant(const Database& db, const GgufModel& g);

// A local GGUF file as a companion model (--draft FILE): its header and tensors read (every part
// of a split model), planned by its own tensors as the file's page plans it. Errors: the file's
// (cannot open, not a GGUF file, a missing part) and gguf_to_model's.
Result<ResidentModel> resident_gguf_file(const Database& db, const std::string& path);

// The settings a file is planned by: options.plan at options.estimate, with the file's tensors
// under llama.cpp's rule, or the quick rule over its bytes (and `note` says why, when llama.cpp's
// rule was asked).
Result<PlanSettings> gguf_plan_settings(const GgufModel& g, const ReportOptions& options,
                                        std::string* note = nullptr);

// A GGUF model at the asked context by the settings' rule. `terms` gains "mmproj" when a
// projector is added.
struct GgufEstimate {
    PlanSettings settings;  // the rule the figures were made by
    std::string rule_note;  // why it is not the rule asked, when it is not
    Estimate estimate;
    Bytes kv = 0;
    Bytes recurrent = 0;  // f32 state of linear-attention / SSM layers, fixed in size
    Bytes mmproj = 0;
    std::uint64_t cache_context = 0;  // llama.cpp's padded context
};
Result<GgufEstimate> estimate_gguf(const GgufModel& g, const ReportOptions& options,
                                   Bytes mmproj = 0);

// The file on options.hardware: its bytes shared out over its layers, the longest context that
// runs natively. No "best quantization": the file has its own, `quant` (gguf_file_quant(db, g)),
// which the answer points at. `label` names the file.
Result<HardwareReport> gguf_on_hardware(const std::string& label, const GgufModel& g,
                                        const Quant& quant, const ReportOptions& options);

// The file's KV chart: its model at each context as estimate_gguf() plans it, and the same
// with every layer full attention.
Result<std::vector<KvCurvePoint>> gguf_kv_curve(const GgufModel& g, const ReportOptions& options);

// Everything the file page shows.
struct GgufReport {
    std::string label;  // the file, or the remote name as the user gave it
    GgufModel gguf;
    ReportOptions options;  // the context, KV type and budget the figures are for
    GgufEstimate at_context;
    std::shared_ptr<const Quant> quant;  // the file's own, which `hardware` points at
    std::optional<HardwareReport> hardware;
    std::vector<KvCurvePoint> curve;
    const Gpu* smallest_gpu = nullptr;  // the smallest database GPU that holds it natively
    std::optional<bool> vram_fits;      // natively in the --vram budget, by the same rule
    bool fits() const;                  // on the hardware, else in the --vram budget, else true
};
Result<GgufReport> build_gguf_report(const Database& db, const std::string& label,
                                     const GgufModel& g, Bytes mmproj,
                                     const ReportOptions& options);

// A model file as the GPU lists and compare see a database model: its ModelReport, which points
// into the model and quantization held beside it (so the whole lives on the heap).
struct FileReport {
    Model model;
    Quant quant;
    ModelReport report;
};
// A GGUF model at its own bytes, the page's rule, its plan on options.hardware when given.
Result<std::unique_ptr<FileReport>> gguf_file_report(const Database& db, const std::string& label,
                                                     const GgufModel& g, Bytes mmproj,
                                                     const ReportOptions& options);
// A config.json model: the model page at the asked quantization.
Result<std::unique_ptr<FileReport>> config_file_report(const Database& db, const Model& model,
                                                       const ReportOptions& options);

// Which tensors a row of a repo's listing was planned by: the header read (that file's own),
// the header's typed as llama-quantize types them at the row's quantization, or none (the
// quick rule over the file's bytes).
enum class RepoTensors { read, typed, quick };

// One row of a GGUF repo's listing: one model's files in the architecture read from one header.
struct RepoListingRow {
    const RepoGguf* files = nullptr;
    RepoTensors tensors = RepoTensors::read;
    Rule rule = Rule::llamacpp;  // the rule the row was planned by
    Bytes gpu_bytes = 0;         // on the GPU, at the context
    Bytes total = 0;             // on the GPU and in RAM, at the context
    const Gpu* smallest_gpu = nullptr;
    std::optional<PlanKind> plan;  // on options.hardware, when given
};
// The quantization whose header a repo's listing reads for the architecture: the recommended
// one's file when the repo has it, else the first model's with a quantization in its name; ""
// when none has one.
std::string listing_header_quant(const std::vector<RepoGguf>& models,
                                 const std::string& recommended);

// The repo's models (projectors left out), each judged as estimate_gguf() and gguf_on_hardware()
// judge a file; `arch` is the header read (of the file `read_quant` names, planned by its own
// tensors; each other file by the header's tensors typed at its quantization, or by the quick
// rule over its bytes where they cannot be: RepoTensors), `label_prefix` ("hf:REPO:") names
// each file.
Result<std::vector<RepoListingRow>> repo_listing(const Database& db, const GgufModel& arch,
                                                 const std::vector<RepoGguf>& models,
                                                 const ReportOptions& options,
                                                 const std::string& label_prefix,
                                                 const std::string& read_quant);

}  // namespace canitrun
