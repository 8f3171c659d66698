#include "static_site.hpp"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <ostream>

#include "api_answer.hpp"
#include "ask.hpp"
#include "embedded_assets.hpp"
#include "web_pages.hpp"

namespace canitrun::serve {
namespace {

namespace fs = std::filesystem;

struct WriteError {
    std::string message;
};

void write_file(const fs::path& path, std::string_view bytes) {
    std::error_code ec;
    fs::create_directories(path.parent_path(), ec);
    std::ofstream file(path, std::ios::binary | std::ios::trunc);
    file.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    file.close();
    if (!file) throw WriteError{"cannot write " + path.string()};
}

// A document the CLI prints; a failure here is a bug (every question is one the database
// answers), reported as such.
std::string document(const std::vector<std::string>& argv) {
    cli::Asked asked = cli::ask(argv);
    if (asked.code > 1) throw WriteError{"canitrun " + argv.front() + ": " + asked.err};
    return std::move(asked.out);
}

// The ids a list document holds, in its order.
std::vector<std::string> ids_of(const std::string& list) {
    std::vector<std::string> ids;
    for (const auto& entry : nlohmann::json::parse(list)) ids.push_back(entry.at("id"));
    return ids;
}

// Pages written for a static host link by file name, relative to where they are.
std::string static_page(std::string html) {
    constexpr std::string_view live = "data-mode=\"live\"";
    if (const std::size_t at = html.find(live); at != std::string::npos) {
        html.replace(at, live.size(), "data-mode=\"static\"");
    }
    return html;
}

std::string gpu_page(const std::string& id, const std::string& table) {
    return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
           "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
           "<title>What runs on " +
           html_escape(id) +
           " - canitrun</title>\n<link rel=\"icon\" href=\"data:,\">\n<link rel=\"stylesheet\" "
           "href=\"../assets/site.css\">\n"
           "</head><body><main>\n<p><a href=\"../index.html\">canitrun</a></p>\n"
           "<h1>canitrun fit --gpu " +
           html_escape(id) + "</h1>\n<pre class=\"cli\">" + html_escape(table) +
           "</pre>\n</main></body></html>\n";
}

std::size_t write_all(const fs::path& root) {
    std::size_t files = 0;
    const auto put = [&](const fs::path& rel, std::string_view bytes) {
        write_file(root / rel, bytes);
        ++files;
    };
    for (const Asset& a : embedded_assets()) {
        const fs::path rel = fs::path(std::string(a.path.substr(1)));
        put(rel, a.path == "/index.html" ? static_page(std::string(a.bytes)) : a.bytes);
    }
    const std::string models = document({"models", "--json"});
    const std::string gpus = document({"gpu-list", "--json"});
    put("api/v1/models.json", models);
    put("api/v1/gpu-list.json", gpus);
    put("api/v1/quants.json", document({"quants", "--json"}));
    for (const std::string& id : ids_of(models)) {
        put("api/v1/models/" + id + ".json", document({id, "--json"}));
        put("models/" + id + ".html",
            with_calculator(document({id, "--format", "html"}), id, PageMode::static_site));
    }
    for (const std::string& id : ids_of(gpus)) {
        put("gpus/" + id + ".html", gpu_page(id, document({"fit", "--gpu", id})));
    }
    return files;
}

}  // namespace

int write_site(const std::string& dir, std::ostream* out, std::ostream& err) {
    try {
        const std::size_t files = write_all(fs::path(dir));
        if (out != nullptr) *out << "canitrun: wrote " << files << " files into " << dir << "\n";
        return 0;
    } catch (const WriteError& e) {
        err << "canitrun: error: " << e.message << "\n";
        return 2;
    }
}

}  // namespace canitrun::serve
