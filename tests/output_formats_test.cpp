// One command shape (issue "The house"): every command prints every output format, or refuses
// the one it does not offer in one line. Each command line below runs through the real binary
// in the default table, --json, --format csv, --format markdown and --quiet.

#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "catch.hpp"
#include "refusal.hpp"
#include "run_binary.hpp"
#include "support/gguf_writer.hpp"
#include "support/sampling.hpp"

using canitrun::test::has;
using canitrun::test::lines_of;
using canitrun::test::Outcome;
using canitrun::test::run_cli;

namespace {

std::string fixtures() {
    return CANITRUN_FIXTURES;
}

// One folder per process (ctest runs test binaries side by side), removed at exit.
struct FormatTempDir {
    std::filesystem::path path = std::filesystem::temp_directory_path() /
                                 ("canitrun_output_formats_test_" + std::to_string(::getpid()));
    ~FormatTempDir() {
        std::error_code ec;
        std::filesystem::remove_all(path, ec);
    }
};

std::filesystem::path format_temp_dir() {
    static FormatTempDir dir;
    std::filesystem::create_directories(dir.path);
    return dir.path;
}

std::string small_gguf() {
    std::string path = (format_temp_dir() / "small-llama.gguf").string();
    if (!std::filesystem::exists(path))
        canitrun::test::small_llama_writer().write_sparse_file(path);
    return path;
}

// The fields of one CSV line (RFC 4180 quotes).
std::vector<std::string> csv_fields(const std::string& line) {
    std::vector<std::string> fields(1);
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
            fields.back() += '"';
            ++i;
        } else if (c == '"') {
            quoted = !quoted;
        } else if (c == ',' && !quoted) {
            fields.emplace_back();
        } else {
            fields.back() += c;
        }
    }
    return fields;
}

// A CSV table: a header and rows of as many fields.
std::vector<std::vector<std::string>> csv_table(const std::string& text) {
    std::vector<std::vector<std::string>> rows;
    for (auto line : lines_of(text)) {
        if (!line.empty() && line.back() == '\r') line.pop_back();  // RFC 4180 ends lines CRLF
        rows.push_back(csv_fields(line));
    }
    return rows;
}

std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& more) {
    args.insert(args.end(), more.begin(), more.end());
    return args;
}

struct CommandCase {
    const char* name;
    std::vector<std::string> args;
    bool quiet = true;          // offers --quiet
    bool may_be_empty = false;  // a listing that can hold nothing here (no GPU, no store)
};

// Every command and every kind of model argument.
std::vector<CommandCase> every_command() {
    const std::string log = fixtures() + "/logs/llama-3.1-8b-Q4_K_M-cpu.log";
    const std::string bench = fixtures() + "/llama-bench/llama-3.1-8b-rtx4090-depth.csv";
    const std::string m = "qwen3.5-35b-a3b";
    return {
        {"the model page", {m}},
        {"the model page on a GPU", {m, "--gpu", "RTX 4090"}},
        {"gpus", {"gpus", m}},
        {"fit", {"fit", "--gpu", "RTX 4090"}},
        {"compare", {"compare", m, "gpt-oss-20b"}},
        {"models", {"models"}},
        {"gpu-list", {"gpu-list"}},
        {"quants", {"quants"}},
        {"system", {"system"}, true, true},
        {"local", {"local"}, true, true},
        {"a GGUF file", {small_gguf()}},
        {"a GGUF file on a GPU", {small_gguf(), "--gpu", "RTX 4090"}},
        {"a GGUF file under --engine llama.cpp", {small_gguf(), "--engine", "llama.cpp"}},
        {"gpus on a GGUF file", {"gpus", small_gguf()}},
        {"a config.json folder", {fixtures() + "/hf/qwen3-next"}},
        {"vLLM", {m, "--engine", "vllm", "--gpu", "h100"}},
        {"llama.cpp RPC", {m, "--host", "rtx-4090", "--host", "rtx-3090"}},
        {"exo", {"llama-3.1-8b", "--engine", "exo", "--host", "m3-ultra-256gb"}},
        {"verify on a llama.cpp log", {"verify", log}, false},
        {"verify on llama-bench output", {"verify", bench}, false},
    };
}

// `local` reads the stores under HOME: an empty home keeps the run to this test's data.
// (a function, so that no static with a throwing constructor is built before main: cert-err58)
std::vector<std::string> empty_home() {
    return {"HOME=/nonexistent-canitrun-home",
            "OLLAMA_MODELS=", "HF_HOME=", "LLAMA_CACHE=", "NO_COLOR=1"};
}

}  // namespace

TEST_CASE("every command prints JSON, CSV, Markdown and --quiet, or refuses one in a line") {
    const auto commands = every_command();
    for (std::size_t i = 0; i < commands.size(); ++i) {
        if (!canitrun::test::sampled(i, 3)) continue;
        const CommandCase& c = commands[i];
        INFO("command: " << c.name);
        const Outcome table = run_cli(c.args, empty_home());
        INFO("stderr: " << table.err);
        REQUIRE((table.code == 0 || table.code == 1));
        REQUIRE_FALSE(table.out.empty());

        const Outcome as_json = run_cli(with(c.args, {"--json"}), empty_home());
        CHECK(as_json.code == table.code);
        CHECK(nlohmann::json::accept(as_json.out));

        const Outcome csv = run_cli(with(c.args, {"--format", "csv"}), empty_home());
        CHECK(csv.code == table.code);
        const auto rows = csv_table(csv.out);
        REQUIRE_FALSE(rows.empty());
        for (const auto& row : rows) CHECK(row.size() == rows.front().size());
        CHECK(csv.out.find("│") == std::string::npos);  // no table borders in CSV

        const Outcome md = run_cli(with(c.args, {"--format", "markdown"}), empty_home());
        CHECK(md.code == table.code);
        CHECK_FALSE(md.out.empty());
        // Markdown is the page itself: the same first words, no terminal styling.
        CHECK(md.out.find('\x1b') == std::string::npos);

        const Outcome quiet = run_cli(with(c.args, {"--quiet"}), empty_home());
        if (c.quiet) {
            CHECK(quiet.code == table.code);
            CHECK(quiet.err.empty());
            // Answers, one per line, and never the page: not its first line, no table rules.
            CHECK((c.may_be_empty || !quiet.out.empty()));
            CHECK_FALSE(has(quiet.out, lines_of(table.out).front()));
            CHECK_FALSE(has(quiet.out, "──"));
        } else {
            canitrun::test::check_refusal(quiet, with(c.args, {"--quiet"}),
                                          "--quiet is not available for verify");
        }
    }
}

TEST_CASE("a GGUF file's CSV is one row of its bytes at the context") {
    // small_llama_writer: token_embd 128256 rows x 16 q4_K blocks x 144 bytes, output_norm
    // 4096 f32: 295,518,208 bytes of weights.
    const Outcome o = run_cli({small_gguf(), "--format", "csv"}, empty_home());
    REQUIRE(o.code == 0);
    const auto rows = csv_table(o.out);
    REQUIRE(rows.size() == 2);
    const auto& head = rows[0];
    const auto at = [&](const std::string& column) {
        const auto it = std::find(head.begin(), head.end(), column);
        REQUIRE(it != head.end());
        return rows[1][static_cast<std::size_t>(it - head.begin())];
    };
    CHECK(at("weights_bytes") == std::to_string(128256ULL * 16 * 144 + 4096ULL * 4));
    CHECK(at("context") == "8192");
    CHECK(at("cache_context") == "8192");  // already a multiple of llama.cpp's 256
    CHECK(at("architecture") == "llama");
    CHECK(at("plan").empty());  // no --gpu
    // --chart: the KV chart's points instead, one per context up to the trained window.
    const Outcome chart = run_cli({small_gguf(), "--format", "csv", "--chart"}, empty_home());
    REQUIRE(chart.code == 0);
    CHECK(csv_table(chart.out).front().at(1) == "context");
    CHECK(csv_table(chart.out).size() > 2);
}

TEST_CASE("a GGUF file's --quiet answers as the page does: the plan, the budget, the GPU") {
    CHECK(run_cli({small_gguf(), "--gpu", "RTX 4090", "--quiet"}, empty_home()).out == "native\n");
    CHECK(run_cli({small_gguf(), "--vram", "24", "--quiet"}, empty_home()).out == "fits\n");
    CHECK(run_cli({small_gguf(), "--vram", "0.1", "--quiet"}, empty_home()).out ==
          "does not fit\n");
}

TEST_CASE("verify's CSV holds the log's own figures, one row per term and context") {
    const Outcome o =
        run_cli({"verify", fixtures() + "/logs/llama-3.1-8b-Q4_K_M-cpu.log", "--format", "csv"});
    REQUIRE(o.code == 0);
    const auto rows = csv_table(o.out);
    REQUIRE(rows.size() > 2);
    CHECK(rows[0] == std::vector<std::string>{"n_ctx", "n_ubatch", "type_k", "term",
                                              "estimate_bytes", "llama_cpp_bytes",
                                              "difference_bytes"});
    bool kv = false;
    for (const auto& r : rows) {
        // The log's first context: "KV buffer size = 1024.00 MiB" = 1,073,741,824 bytes.
        if (r[3] == "kv_cache" && !kv) {
            kv = true;
            CHECK(r[5] == "1073741824");
        }
    }
    CHECK(kv);
    // llama-bench: its six rows, the first measured at 11780.406414 t/s (the file's avg_ts).
    const Outcome b = run_cli(
        {"verify", fixtures() + "/llama-bench/llama-3.1-8b-rtx4090-depth.csv", "--format", "csv"});
    REQUIRE(b.code == 0);
    const auto bench = csv_table(b.out);
    REQUIRE(bench.size() == 7);
    CHECK(bench[1][5] == "11780.406414");
}
