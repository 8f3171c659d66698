// A publisher's recipe for its plain files, given to every model whose GGUF repo it owns.

#include "publishers.hpp"

#include <algorithm>

#include "canitrun/strings.hpp"

namespace canitrun::detail {

Publisher parse_publisher(const Fields& f) {
    Publisher p;
    p.name = f.text("name");
    p.imatrix = f.flag_or("imatrix", false);
    p.source = f.text("source");
    return p;
}

void apply_publishers(const std::vector<Publisher>& publishers, std::vector<Model>& models) {
    for (std::size_t i = 0; i < publishers.size(); ++i) {
        for (std::size_t k = 0; k < i; ++k) {
            if (to_lower(publishers[k].name) == to_lower(publishers[i].name)) {
                throw DatabaseError("publishers.json: publisher '" + publishers[i].name +
                                    "' is listed twice");
            }
        }
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
    }
}

}  // namespace canitrun::detail
