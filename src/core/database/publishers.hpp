#pragma once
// The GGUF publishers whose plain llama-quantize files are made with an importance matrix
// (data/publishers.json), and the one rule that gives a model's gguf_repo its publisher's
// recipe (RunInfo::gguf_imatrix). Internal to the loader.

#include <string>
#include <vector>

#include "canitrun/model.hpp"
#include "json_fields.hpp"

namespace canitrun::detail {

struct Publisher {
    std::string name;  // the Hub organisation, as a gguf_repo's owner ("bartowski")
    bool imatrix = false;
    std::string source;  // what says so (required)
};

Publisher parse_publisher(const Fields& f);

// Each model whose gguf_repo belongs to a listed publisher takes that publisher's imatrix and
// source; the others keep none. Throws DatabaseError on a publisher listed twice.
void apply_publishers(const std::vector<Publisher>& publishers, std::vector<Model>& models);

}  // namespace canitrun::detail
