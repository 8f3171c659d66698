// The man page and the shell completions keep up with the binary: every option and subcommand
// that `--help` lists is documented in docs/canitrun.1 and completed by each shell's script;
// the scripts parse; the bash one completes names from the database (`--names`). The OPTIONS
// section and the scripts are made from the flag table (flag_table_test.cpp, the flag_docs
// ctest); this checks them from the outside, through --help.

#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>

#include "catch.hpp"
#include "flag_table.hpp"
#include "run_binary.hpp"

using canitrun::test::has;
using canitrun::test::lines_of;
using canitrun::test::read_file;
using canitrun::test::run_canitrun;
using canitrun::test::run_shell;
using canitrun::test::shell_quote;

namespace {

constexpr const char* kRootDir = CANITRUN_SOURCE_DIR;
std::string root() {
    return kRootDir;
}
// Every subcommand, from the table run() registers them from.
std::vector<std::string> subcommands() {
    std::vector<std::string> out;
    for (const auto& c : canitrun::cli::command_infos()) {
        if (c.cmd != canitrun::cli::Cmd::page) out.emplace_back(c.name);
    }
    return out;
}

// Every long option the help of the program and of each subcommand prints.
std::set<std::string> options_in_help() {
    std::set<std::string> out;
    std::vector<std::vector<std::string>> helps = {{"--help"}};
    for (const auto& sub : subcommands()) helps.push_back({sub, "--help"});
    const std::regex option("--([a-z][a-z0-9-]*)");
    for (const auto& args : helps) {
        const auto o = run_canitrun(args);
        REQUIRE(o.code == 0);
        for (std::sregex_iterator it(o.out.begin(), o.out.end(), option), end; it != end; ++it) {
            out.insert((*it)[1]);
        }
    }
    return out;
}

// roff writes a hyphen in an option as "\-".
std::string roff(const std::string& text) {
    std::string out;
    for (const char c : text) out += (c == '-') ? std::string("\\-") : std::string(1, c);
    return out;
}

bool shell_has(const char* shell) {
    return run_shell(std::string("command -v ") + shell).code == 0;
}

}  // namespace

TEST_CASE("manual: the man page documents every option and subcommand in --help") {
    const std::set<std::string> options = options_in_help();
    // The ones every version has; the set grows as options are added.
    for (const char* o : {"quant", "ctx", "kv-type", "ram", "vram", "gpu", "json", "data", "names",
                          "version", "help", "family", "vendor", "min-vram"}) {
        CHECK(options.count(o) == 1);
    }
    const std::string man = read_file(root() + "/docs/canitrun.1");
    CHECK(man.rfind(".\\\"", 0) == 0);
    CHECK(has(man, ".TH CANITRUN 1"));
    for (const auto& o : options) {
        INFO("--" << o);
        CHECK(has(man, "\\-\\-" + roff(o)));
    }
    for (const auto& sub : subcommands()) {
        INFO(sub);
        CHECK(has(man, ".B canitrun " + roff(sub)));
    }
    for (const char* section : {".SH NAME", ".SH SYNOPSIS", ".SH OPTIONS", ".SH EXIT STATUS"}) {
        CHECK(has(man, section));
    }
}

TEST_CASE("completions: bash zsh and fish complete every option and subcommand") {
    const std::set<std::string> options = options_in_help();
    const std::string bash = read_file(root() + "/completions/canitrun.bash");
    const std::string zsh = read_file(root() + "/completions/_canitrun");
    const std::string fish = read_file(root() + "/completions/canitrun.fish");
    for (const auto& o : options) {
        INFO("--" << o);
        CHECK(has(bash, "--" + o));
        CHECK(has(zsh, "--" + o));
        CHECK(has(fish, "-l " + o));
    }
    for (const auto& sub : subcommands()) {
        CHECK(has(bash, sub));
        CHECK(has(zsh, "'" + sub + ":"));
        CHECK(has(fish, "-a " + sub));
    }
    CHECK(run_shell("bash -n " + shell_quote(root() + "/completions/canitrun.bash")).code == 0);
    if (shell_has("zsh")) {
        CHECK(run_shell("zsh -n " + shell_quote(root() + "/completions/_canitrun")).code == 0);
    }
    if (shell_has("fish")) {
        CHECK(run_shell("fish -n " + shell_quote(root() + "/completions/canitrun.fish")).code == 0);
    }
}

TEST_CASE("completions: bash completes names from the database") {
    // Drives the completion function as bash does on <TAB>: COMP_WORDS, COMP_CWORD, then
    // COMPREPLY. The program is COMP_WORDS[0], so the built binary answers.
    const auto complete = [](const std::vector<std::string>& words) {
        std::string array;
        for (const auto& w : words) array += " " + shell_quote(w);
        const std::string script = "source " + shell_quote(root() + "/completions/canitrun.bash") +
                                   "; COMP_WORDS=(" + shell_quote(CANITRUN_BINARY) + array +
                                   "); COMP_CWORD=" + std::to_string(words.size()) +
                                   R"(; _canitrun; printf '%s\n' "${COMPREPLY[@]}")";
        const auto o = run_shell("bash -c " + shell_quote(script));
        REQUIRE(o.code == 0);
        return lines_of(o.out);
    };
    const auto models = complete({"qwen3.5-35b-a"});
    CHECK(std::find(models.begin(), models.end(), "qwen3.5-35b-a3b") != models.end());
    for (const auto& m : models) CHECK(m.rfind("qwen3.5-35b-a", 0) == 0);
    const auto gpus = complete({"qwen3.5-35b-a3b", "--gpu", "rtx-509"});
    CHECK(std::find(gpus.begin(), gpus.end(), "rtx-5090") != gpus.end());
    const auto quants = complete({"qwen3.5-35b-a3b", "--quant", "Q4_K"});
    CHECK(std::find(quants.begin(), quants.end(), "Q4_K_M") != quants.end());
    const auto subs = complete({"gpu-"});
    CHECK(subs == std::vector<std::string>{"gpu-list"});
    // --data on the line is followed: the fixture's made-up models complete.
    const auto fixture = complete({"--data", CANITRUN_FIXTURES "/tiny-database", "trill"});
    CHECK(fixture == std::vector<std::string>{"trillion-fp32-test"});
}

TEST_CASE("names: --names prints one id per line and nothing else") {
    const auto names = run_canitrun({"models", "--names"});
    REQUIRE(names.code == 0);
    const auto listing = run_canitrun({"models", "--json"});
    const auto list = nlohmann::json::parse(listing.out);
    const auto ids = lines_of(names.out);
    REQUIRE(ids.size() == list.size());
    for (std::size_t i = 0; i < ids.size(); ++i) CHECK(ids[i] == list[i]["id"].get<std::string>());
    const auto amd = lines_of(run_canitrun({"gpu-list", "--vendor", "amd", "--names"}).out);
    CHECK(!amd.empty());
    const auto amd_json =
        nlohmann::json::parse(run_canitrun({"gpu-list", "--vendor", "amd", "--json"}).out);
    CHECK(amd.size() == amd_json.size());
    // quants.listing's order: FP32 first (data/quants.listing).
    const auto quants = lines_of(run_canitrun({"quants", "--names"}).out);
    REQUIRE(!quants.empty());
    CHECK(quants.front() == "FP32");
    CHECK(std::find(quants.begin(), quants.end(), "Q4_K_M") != quants.end());
}
