#pragma once
// The static database: models, GPUs, quantizations and card classes, parsed from JSON text.
// Parsing takes text (file name -> contents) so tests and the embedded copy feed it directly;
// reading a folder from disk is in database_files.hpp.
// A field added to a struct here also goes into fields() in
// src/core/database/database_snapshot.cpp.

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "canitrun/card_class.hpp"
#include "canitrun/error.hpp"
#include "canitrun/gpu.hpp"
#include "canitrun/model.hpp"
#include "canitrun/quant.hpp"

namespace canitrun {

// data/database.json: which release of the data this is. Optional in a `--data` folder.
struct DatabaseInfo {
    std::string version;  // e.g. "2026.11.29"; empty when the folder has no database.json
    std::string date;     // ISO date of the data's last change, e.g. "2026-11-29"
    std::string source;

    bool operator==(const DatabaseInfo&) const = default;
};

struct Database {
    DatabaseInfo info;
    std::vector<Model> models;
    std::vector<Gpu> gpus;
    std::vector<Quant> quants;  // in the file's order (the page's table order)
    std::vector<CardClass> card_classes;
    // Worked out from the models, not data: by model (index-aligned with `models`), the elements
    // of the tensors llama.cpp's GPUs hold with every layer, by PreparedLayout::Kind
    // (PreparedLayout::device_elements). The snapshot generator computes them from each
    // model's layout so that `fit` rules out a model that fits at no quantization without
    // building its layout (bench/RESULTS.md, twentieth session). Empty when read from JSON; an
    // entry is empty where the model has no llama.cpp layout.
    std::vector<std::optional<std::array<std::uint64_t, 5>>> device_elements;
    // Worked out the same way: by model, its llama.cpp weight terms at each quantization the
    // generator could type (llamacpp_weight_parts, written by keep_weight_parts in
    // kept_parts.hpp), so that `fit` plans a model that passes the floor without building and
    // typing its layout (bench/RESULTS.md, twenty-first session). One string a model, read only
    // at the quantization asked. Empty when read from JSON; an entry is empty where none is kept.
    std::vector<std::string> weight_parts;

    Result<const Model*> find_model(const std::string& name) const;
    Result<const Gpu*> find_gpu(const std::string& name) const;
    Result<const Quant*> find_quant(const std::string& name) const;
    const Quant* recommended_quant() const;
    // The quantization a question about `model` gets when it names none: the recommended one,
    // unless the model's GGUF repo publishes only some types and not it (then the first of
    // those the database knows).
    const Quant* default_quant(const Model& model) const;

    bool operator==(const Database&) const = default;
};

// When `typed` is a name several memory variants share (Gpu::variant_names) and it chose `gpu`:
// the sentence that says which variant the plan takes and how to name the others.
std::optional<std::string> variant_note(const Database& db, const Gpu& gpu,
                                        const std::string& typed);

// Files are keyed by their path relative to the data folder ("quants.json", "gpus/amd.json").
using DatabaseFiles = std::map<std::string, std::string>;

Result<Database> parse_database(const DatabaseFiles& files);

// The copy embedded in the binary at build time.
const DatabaseFiles& embedded_database_files();

}  // namespace canitrun
