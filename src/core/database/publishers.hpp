#pragma once
// The GGUF publishers whose plain llama-quantize files are made with an importance matrix, or
// by a recipe of their own under a plain name (data/publishers.json), and the one rule that
// gives a model's gguf_repo its publisher's recipe (RunInfo::gguf_imatrix,
// RunInfo::gguf_plain_recipes). Internal to the loader.

#include <string>
#include <vector>

#include "canitrun/model.hpp"
#include "canitrun/quant.hpp"
#include "json_fields.hpp"

namespace canitrun::detail {

struct Publisher {
    std::string name;  // the Hub organisation, as a gguf_repo's owner ("bartowski")
    bool imatrix = false;
    std::string source;  // what says so (required)
    // its plain-named files made by one of its recipes (`plain_files`), each with its scope and
    // source; the recipe's rules are filled in by apply_publishers
    std::vector<PlainFileRecipe> plain_files;
};

Publisher parse_publisher(const Fields& f);

// Each model whose gguf_repo belongs to a listed publisher takes that publisher's imatrix and
// source, and its plain-named recipes (the scope is checked where the file is typed, which knows
// the architecture); the others keep none. Throws DatabaseError on a publisher listed twice, or
// a plain file whose recipe is not one of the publisher's recipes over that file type.
void apply_publishers(std::vector<Publisher> publishers, const std::vector<Quant>& quants,
                      std::vector<Model>& models);

}  // namespace canitrun::detail
