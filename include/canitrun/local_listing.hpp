#pragma once
// `canitrun local`'s answers: every model in the local stores (local_stores.hpp), read from its
// GGUF header and planned as the file page plans a file (gguf_file_report: llama.cpp's
// allocation of the file's own tensors, or the quick rule where it says why), so a model in a
// store and the same file named on the command line get the same bytes.

#include <optional>
#include <string>
#include <vector>

#include "canitrun/database.hpp"
#include "canitrun/local_stores.hpp"
#include "canitrun/report.hpp"

namespace canitrun {

struct LocalEntry {
    LocalModel where;
    std::string architecture;  // empty when the header could not be read
    Bytes weights = 0;
    Bytes total = 0;             // the file at the context, on the GPU and in RAM
    Bytes gpu = 0;               // of which on the GPU
    Rule rule = Rule::llamacpp;  // the rule it was planned by
    std::string rule_note;       // why not llama.cpp's, when that was asked
    const Gpu* smallest = nullptr;
    std::optional<PlanKind> plan;  // on options.hardware, when given
    std::string error;             // why the header could not be read or planned
};

// One entry per model scan_local_stores finds, in its order; a file that cannot be read or
// planned is an entry with its error, not a failure of the whole listing.
std::vector<LocalEntry> local_listing(const Database& db, const StoreRoots& roots,
                                      const ReportOptions& options);

}  // namespace canitrun
