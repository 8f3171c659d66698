#include "canitrun/hf_files.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "canitrun/bounded_file.hpp"
#include "canitrun/gguf_files.hpp"
#include "canitrun/hf_config.hpp"

namespace canitrun {
namespace {

namespace fs = std::filesystem;

Result<std::string> slurp(const fs::path& p, std::uint64_t max_bytes) {
    return read_bounded_file(p.string(), max_bytes, "Hugging Face config");
}

// Parameters from every *.safetensors file's header: reads 8 bytes plus the JSON of each.
Result<std::optional<std::uint64_t>> params_from_safetensors_files(const fs::path& dir) {
    std::vector<fs::path> files;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
        if (e.path().extension() == ".safetensors") files.push_back(e.path());
    }
    if (files.empty()) return std::optional<std::uint64_t>();
    std::sort(files.begin(), files.end());
    std::uint64_t total = 0;
    for (const auto& f : files) {
        CANITRUN_TRY_ASSIGN(auto src, open_file_source(f.string()));
        CANITRUN_TRY_ASSIGN(auto first, src->read(0, std::min<std::uint64_t>(8, src->size())));
        auto len = safetensors_header_length(first, src->size());
        if (!len)
            return fail(ErrorKind::bad_input, f.string() + ": " + len.error().message,
                        len.error().hint);
        CANITRUN_TRY_ASSIGN(auto header, src->read(8, *len));
        auto n = params_from_safetensors_header(header);
        if (!n) return fail(ErrorKind::bad_input, f.string() + ": " + n.error().message);
        total = checked::add(total, *n);
    }
    return std::optional<std::uint64_t>(total);
}

}  // namespace

Result<HfModel> read_hf_model(const std::string& path) {
    fs::path config = path;
    std::error_code ec;
    if (fs::is_directory(config, ec)) config /= "config.json";
    if (!fs::exists(config, ec)) {
        return fail(ErrorKind::io, "no config.json at " + config.string(),
                    "point canitrun at a Hugging Face model folder or its config.json");
    }
    CANITRUN_TRY_ASSIGN(auto text, slurp(config, 16ULL << 20));
    const fs::path dir = config.parent_path().empty() ? fs::path(".") : config.parent_path();
    std::string name = fs::absolute(dir, ec).filename().string();
    if (name.empty() || name == ".") name = "model";
    CANITRUN_TRY_ASSIGN(auto model, parse_hf_config(text, name));
    HfModel out{std::move(model), "config.json (architecture formula)"};

    CANITRUN_TRY_ASSIGN(auto exact, params_from_safetensors_files(dir));
    if (exact) {
        out.model.params_total = *exact;
        out.params_source = "safetensors headers";
    } else if (fs::exists(dir / "model.safetensors.index.json", ec)) {
        CANITRUN_TRY_ASSIGN(auto index, slurp(dir / "model.safetensors.index.json", 64ULL << 20));
        if (const auto p = params_from_safetensors_index(index, hf_torch_dtype(text))) {
            out.model.params_total = *p;
            out.params_source = "model.safetensors.index.json (total_size / dtype bytes)";
        }
    }
    if (out.model.params_active > out.model.params_total || !out.model.is_moe()) {
        out.model.params_active = out.model.params_total;
    }
    return out;
}

}  // namespace canitrun
