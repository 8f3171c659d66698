#pragma once
// `canitrun local`: every model in the local stores (Ollama, the Hugging Face cache, LM Studio,
// llama.cpp's cache) with its size and its plan on this machine or the --gpu hardware, from its
// GGUF header alone.

#include <nlohmann/json_fwd.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "canitrun/database.hpp"
#include "canitrun/local_stores.hpp"
#include "canitrun/report.hpp"

namespace canitrun::cli {

struct LocalEntry {
    LocalModel where;
    std::string architecture;  // empty when the header could not be read
    Bytes weights = 0;
    Bytes total = 0;  // the file's estimate at the context (page's rule, own weights)
    const Gpu* smallest = nullptr;
    std::string plan;   // on the hardware: native, expert_offload, ...; "" without one
    std::string error;  // why the header could not be read
};

struct LocalListing {
    StoreRoots roots;
    std::string hardware;  // what the plans are for
    std::vector<LocalEntry> models;
};

LocalListing build_local_listing(const Database& db, const StoreRoots& roots,
                                 const ReportOptions& options);

void write_local(std::ostream& out, const LocalListing& l);
nlohmann::json local_json(const LocalListing& l);
void write_local_csv(std::ostream& out, const LocalListing& l);

}  // namespace canitrun::cli
