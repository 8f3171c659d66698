// Hostile local inputs and outputs through the binary (issue #39): stdout that cannot take the
// answer (a full disk, a closed descriptor, a pipe whose reader is gone), names with terminal
// escapes, config.json with impossible numbers, and the empty flag values once accepted.

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "catch.hpp"
#include "refusal.hpp"
#include "run_binary.hpp"
#include "scratch_dir.hpp"
#include "support/gguf_writer.hpp"

using canitrun::test::has;
using canitrun::test::lines_of;
using canitrun::test::Outcome;
using canitrun::test::run_shell;
using canitrun::test::shell_quote;
namespace fs = std::filesystem;

namespace {

std::string binary() {
    return shell_quote(CANITRUN_BINARY);
}

}  // namespace

TEST_CASE("hostile output: a write to a full disk is exit 4 with one line") {
    const Outcome o = run_shell(binary() + " llama-3.1-8b > /dev/full");
    INFO(o.err);
    CHECK(o.code == 4);
    const auto lines = lines_of(o.err);
    REQUIRE(lines.size() == 1);
    CHECK(lines[0].rfind("canitrun: error: cannot write the answer to stdout: ", 0) == 0);
    CHECK(has(lines[0], "No space left on device"));
}

TEST_CASE("hostile output: a closed stdout is exit 4 with one line") {
    const Outcome o = run_shell(binary() + " llama-3.1-8b --json >&-");
    INFO(o.err);
    CHECK(o.code == 4);
    REQUIRE(lines_of(o.err).size() == 1);
    CHECK(has(o.err, "Bad file descriptor"));
}

TEST_CASE("hostile output: a pipe whose reader has gone, SIGPIPE ignored, is not exit 0") {
    // The reader (true) is gone before canitrun starts; with SIGPIPE ignored the write fails
    // with EPIPE: quiet, as `| head` users expect, but exit 4. The code comes back on stdout.
    const Outcome o = run_shell("( ( trap '' PIPE; sleep 0.3; " + binary() +
                                " llama-3.1-8b; echo $? >&3 ) | true ) 3>&1");
    INFO(o.err);
    CHECK(o.out == "4\n");
    CHECK(o.err.empty());
}

namespace {

// A folder `name` under the test's scratch folder holding one config.json with `text`; the
// scratch folder takes it away when the test ends.
std::string config_folder(const canitrun::test::ScratchDir& scratch, const std::string& name,
                          const std::string& text) {
    const fs::path dir = scratch.path / name;
    fs::create_directories(dir);
    std::ofstream(dir / "config.json", std::ios::binary | std::ios::trunc) << text;
    return dir.string();
}

// A Llama-shaped config.json with one field replaced by `field: value`.
std::string llama_config(const std::string& field, const std::string& value) {
    std::string text = R"({"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32,
        "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 128256,
        "intermediate_size": 14336, "max_position_embeddings": 8192})";
    const auto at = text.find("\"" + field + "\": ");
    const auto end = text.find_first_of(",}", at);
    return text.substr(0, at) + "\"" + field + "\": " + value + text.substr(end);
}

}  // namespace

TEST_CASE("hostile config.json: impossible numbers are refused by name") {
    const canitrun::test::ScratchDir scratch("canitrun-hostile-config-");
    // The unchanged config is answered: each refusal below is its one field's.
    REQUIRE(canitrun::test::run_cli(
                {config_folder(scratch, "good", llama_config("vocab_size", "128256"))})
                .code == 0);
    const std::vector<std::pair<std::string, std::string>> cases = {
        {llama_config("num_hidden_layers", "47.5"), "num_hidden_layers 47.5 is not a whole number"},
        {llama_config("vocab_size", "18446744073709551616"), "vocab_size 1.8446744073709552e+19"},
        {llama_config("num_attention_heads", "-4"), "num_attention_heads -4 is negative"},
        {llama_config("num_attention_heads", "0"), "num_attention_heads is missing or 0"},
        {llama_config("vocab_size", "0"), "vocab_size is missing or 0"},
    };
    int n = 0;
    for (const auto& [text, message] : cases) {
        const std::vector<std::string> args = {
            config_folder(scratch, "n" + std::to_string(++n), text)};
        canitrun::test::check_refusal(canitrun::test::run_cli(args), args, message);
    }
}

TEST_CASE("hostile JSON: depth and the number of values are bounded before parsing") {
    const canitrun::test::ScratchDir scratch("canitrun-hostile-json-");
    const std::string deep = std::string(100000, '[') + std::string(100000, ']');
    std::string wide = "[";
    for (int i = 0; i < (1 << 20) + 1; ++i) wide += "[],";
    wide += "[]]";
    const std::vector<std::pair<std::string, std::string>> cases = {
        {deep, "config.json nests deeper than 64 levels"},
        {wide, "config.json holds more than 1048576 values"},
    };
    int n = 0;
    for (const auto& [text, message] : cases) {
        const std::vector<std::string> args = {
            config_folder(scratch, "j" + std::to_string(++n), text)};
        canitrun::test::check_refusal(canitrun::test::run_cli(args), args, message);
    }
    // A --data file: the same bounds.
    const fs::path data =
        fs::temp_directory_path() / ("canitrun-hostile-data-" + std::to_string(::getpid()));
    fs::create_directories(data);
    fs::copy(CANITRUN_DATA_DIR, data,
             fs::copy_options::recursive | fs::copy_options::overwrite_existing);
    std::ofstream(data / "quants.json", std::ios::binary | std::ios::trunc) << deep;
    const std::vector<std::string> args = {"llama-3.1-8b", "--data", data.string()};
    canitrun::test::check_refusal(canitrun::test::run_cli(args), args,
                                  "quants.json nests deeper than 64 levels");
    fs::remove_all(data);
}

namespace {

// The small Llama with `arrays` bool arrays of 65,536 elements: each is 65,536 bytes in the file
// and 65,536 x 8 = 524,288 bytes held (the reader keeps numbers as 64-bit values).
canitrun::test::GgufWriter heavy_llama(int arrays) {
    canitrun::test::GgufWriter w = canitrun::test::small_llama_writer("Heavy");
    const std::vector<bool> bits(65536, true);
    for (int i = 0; i < arrays; ++i) w.bool_array("heavy." + std::to_string(i), bits);
    return w;
}

}  // namespace

TEST_CASE("hostile GGUF: what a header holds in memory is capped, split parts together") {
    const fs::path dir =
        fs::temp_directory_path() / ("canitrun-hostile-gguf-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    // 100 arrays hold 52,428,800 bytes, under 64 MiB (67,108,864): answered.
    heavy_llama(100).write_sparse_file((dir / "ok.gguf").string());
    const Outcome ok = canitrun::test::run_cli({(dir / "ok.gguf").string()});
    INFO(ok.err);
    CHECK(ok.code == 0);
    // 130 hold 68,157,440: refused.
    heavy_llama(130).write_sparse_file((dir / "heavy.gguf").string());
    const std::vector<std::string> heavy = {(dir / "heavy.gguf").string()};
    canitrun::test::check_refusal(canitrun::test::run_cli(heavy), heavy,
                                  "would hold more than 64 MiB in memory");
    // Two parts of 70 each (36,700,160 bytes each, either one alone answered): 73,400,320
    // together, refused.
    for (int part = 1; part <= 2; ++part) {
        canitrun::test::GgufWriter w = heavy_llama(70);
        w.u16("split.no", static_cast<std::uint16_t>(part - 1));
        w.u16("split.count", 2);
        w.write_sparse_file(
            (dir / ("Heavy-0000" + std::to_string(part) + "-of-00002.gguf")).string());
    }
    const std::vector<std::string> split = {(dir / "Heavy-00001-of-00002.gguf").string()};
    canitrun::test::check_refusal(canitrun::test::run_cli(split), split,
                                  "would hold more than 64 MiB in memory");
    fs::remove_all(dir);
}

namespace {

constexpr const char* kEsc = "\x1b";

}  // namespace

TEST_CASE("hostile names: terminal escapes from a file, --data or nvidia-smi print as ?") {
    const fs::path dir =
        fs::temp_directory_path() / ("canitrun-hostile-names-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    // general.name with a colour and a window-title sequence (OSC ... BEL), and a C1 CSI.
    canitrun::test::small_llama_writer(
        "\x1b[31mEvil\x1b]0;pwned\x07 \xc2\x9b"
        "2J")
        .write_sparse_file((dir / "evil.gguf").string());
    const Outcome gguf = canitrun::test::run_cli({(dir / "evil.gguf").string()});
    INFO(gguf.err);
    REQUIRE(gguf.code == 0);
    CHECK_FALSE(has(gguf.out, kEsc));
    CHECK_FALSE(has(gguf.out, "\xc2\x9b"));
    INFO(gguf.out);
    CHECK(has(gguf.out, "?[31mEvil?]0;pwned? ??2J"));  // each byte of the C1 CSI: ?
    // A --data model's name.
    fs::copy(CANITRUN_DATA_DIR, dir / "data", fs::copy_options::recursive);
    {
        std::ifstream in(dir / "data/models/llama.json");
        std::stringstream text;
        text << in.rdbuf();
        std::string s = text.str();
        const std::string name = R"("name": "Llama 3.1 8B")";
        REQUIRE(s.find(name) != std::string::npos);
        s.replace(s.find(name), name.size(), R"("name": "Llama \u001b[2J8B")");
        std::ofstream(dir / "data/models/llama.json", std::ios::trunc) << s;
    }
    const Outcome data =
        canitrun::test::run_cli({"llama-3.1-8b", "--data", (dir / "data").string()});
    INFO(data.err);
    REQUIRE(data.code == 0);
    CHECK_FALSE(has(data.out, kEsc));
    CHECK(has(data.out, "Llama ?[2J8B"));
    // nvidia-smi naming its GPU with an escape.
    const fs::path smi = dir / "nvidia-smi";
    std::ofstream(smi) << "#!/bin/sh\nprintf '0, \\033[31mNVIDIA GeForce RTX 4090, 24564, "
                          "24000\\n'\n";
    fs::permissions(smi, fs::perms::owner_all);
    const Outcome sys =
        run_shell("PATH=" + shell_quote(dir.string()) + ":\"$PATH\" " + binary() + " system");
    INFO(sys.err);
    REQUIRE(sys.code == 0);
    CHECK_FALSE(has(sys.out, kEsc));
    CHECK(has(sys.out, "?[31mNVIDIA GeForce RTX 4090"));
    fs::remove_all(dir);
}

TEST_CASE("hostile detection: Ctrl-C while nvidia-smi runs leaves no nvidia-smi behind") {
    const fs::path dir =
        fs::temp_directory_path() / ("canitrun-hostile-sigint-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const fs::path smi = dir / "nvidia-smi";
    std::ofstream(smi) << "#!/bin/sh\necho $$ > " << shell_quote((dir / "pid").string())
                       << "\nexec sleep 30\n";
    fs::permissions(smi, fs::perms::owner_all);
    // env --default-signal: a shell without job control starts background jobs with SIGINT
    // ignored; a terminal's Ctrl-C reaches a canitrun that has it.
    const Outcome o = run_shell(
        "PATH=" + shell_quote(dir.string()) + ":\"$PATH\" CANITRUN_PROBE_TIMEOUT_MS=20000 " +
        "env --default-signal=INT " + binary() + " system >/dev/null & p=$!; i=0; while [ ! -s " +
        shell_quote((dir / "pid").string()) +
        " ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i+1)); done; kill -INT $p; wait $p; "
        "echo \"exit $?\"; sleep 0.3; q=$(cat " +
        shell_quote((dir / "pid").string()) +
        "); if [ -d /proc/$q ] && ! grep -q '^State:.*Z' /proc/$q/status; then echo alive; "
        "else echo gone; fi");  // a zombie waiting for init to reap it is gone
    INFO(o.err);
    INFO(o.out);
    CHECK(has(o.out, "exit 130"));  // ended by the SIGINT, as without a probe
    CHECK(has(o.out, "gone"));
    fs::remove_all(dir);
}

TEST_CASE("hostile flags: empty values and a list of 65 GPUs are refused in words that fit") {
    using canitrun::test::check_refusal;
    using canitrun::test::run_cli;
    const std::vector<std::string> split = {"qwen3.5-35b-a3b", "--gpu", "2x4090", "--tensor-split",
                                            ""};
    check_refusal(run_cli(split), split, "--tensor-split needs a value, not an empty string");
    const std::vector<std::string> since = {"models", "--since", ""};
    check_refusal(run_cli(since), since, "--since needs a value, not an empty string");
    // 65 names of one GPU each: the list asks for 65, one past the 64 allowed.
    std::string gpus = "4090";
    for (int i = 1; i < 65; ++i) gpus += ",4090";
    const std::vector<std::string> many = {"qwen3.5-35b-a3b", "--gpu", gpus};
    check_refusal(run_cli(many), many, "asks for more than 64 GPUs");
    // 64 are answered.
    CHECK(run_cli({"qwen3.5-35b-a3b", "--gpu", gpus.substr(5)}).code <= 1);
}
