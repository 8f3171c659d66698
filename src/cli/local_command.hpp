#pragma once
// `canitrun local`: every model in the local stores (Ollama, the Hugging Face cache, LM Studio,
// llama.cpp's cache) with its size and its plan on this machine or the --gpu hardware, from its
// GGUF header alone.

#include <nlohmann/json_fwd.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "canitrun/database.hpp"
#include "canitrun/local_listing.hpp"
#include "canitrun/local_stores.hpp"
#include "canitrun/report.hpp"

namespace canitrun::cli {

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
