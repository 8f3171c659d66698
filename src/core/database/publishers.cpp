// A publisher's recipe for its plain files, given to every model whose GGUF repo it owns.

#include "publishers.hpp"

#include <algorithm>

#include "canitrun/strings.hpp"

namespace canitrun::detail {

namespace {

// {"quant": "Q4_K_M", "recipe": "UD-Q4_K_M", "arch": "qwen35moe", "family": "qwen3.5",
//  "source": "..."}: the scope is required, as a recipe rule's is (a plain name is a
// publisher's per-model choice), and so is what shows the file is the recipe.
PlainFileRecipe parse_plain_file(const Fields& f) {
    PlainFileRecipe p;
    p.file_type = f.text("quant");
    p.recipe = f.text("recipe");
    p.arch = f.text("arch");
    p.family = f.text_or("family", "");
    p.model = f.text_or("model", "");
    p.source = f.text("source");
    return p;
}

// The recipe a plain file names, checked: one of the publisher's, over that very file type.
void resolve(const Publisher& publisher, const std::vector<Quant>& quants, PlainFileRecipe& p) {
    const auto q = std::find_if(quants.begin(), quants.end(),
                                [&](const Quant& x) { return x.id == p.recipe; });
    const std::string where = "publishers.json: " + publisher.name + "'s plain file " +
                              p.file_type + " (recipe " + p.recipe + ")";
    if (q == quants.end()) throw DatabaseError(where + ": no such quantization");
    if (to_lower(q->recipe_publisher) != to_lower(publisher.name) || q->recipe_base != p.file_type)
        throw DatabaseError(where + ": not a recipe of " + publisher.name + " over " + p.file_type);
    p.tensors = q->recipe_tensors;
    p.imatrix = q->recipe_imatrix;
}

}  // namespace

Publisher parse_publisher(const Fields& f) {
    Publisher p;
    p.name = f.text("name");
    p.imatrix = f.flag_or("imatrix", false);
    p.source = f.text("source");
    if (f.has("plain_files")) {
        const auto& list = f.at("plain_files");
        if (!list.is_array() || list.empty())
            f.error("field 'plain_files' must be a non-empty array");
        for (std::size_t i = 0; i < list.size(); ++i) {
            p.plain_files.push_back(parse_plain_file(
                Fields(list[i], f.where() + ".plain_files[" + std::to_string(i) + "]")));
        }
    }
    return p;
}

void apply_publishers(std::vector<Publisher> publishers, const std::vector<Quant>& quants,
                      std::vector<Model>& models) {
    for (std::size_t i = 0; i < publishers.size(); ++i) {
        for (std::size_t k = 0; k < i; ++k) {
            if (to_lower(publishers[k].name) == to_lower(publishers[i].name)) {
                throw DatabaseError("publishers.json: publisher '" + publishers[i].name +
                                    "' is listed twice");
            }
        }
        for (auto& plain : publishers[i].plain_files) resolve(publishers[i], quants, plain);
    }
    for (auto& m : models) {
        const auto slash = m.run.gguf_repo.find('/');
        if (slash == std::string::npos) continue;
        // Hub organisation names are case-insensitive ("Qwen" and "qwen" are one owner)
        const std::string owner = to_lower(m.run.gguf_repo.substr(0, slash));
        const auto it = std::find_if(publishers.begin(), publishers.end(),
                                     [&](const Publisher& p) { return to_lower(p.name) == owner; });
        if (it == publishers.end()) continue;
        m.run.gguf_imatrix = it->imatrix;
        m.run.gguf_imatrix_source = it->source;
        m.run.gguf_plain_recipes = it->plain_files;
    }
}

}  // namespace canitrun::detail
