// The flag table (src/cli/flag_table.hpp) is the one definition of a flag: every row reaches
// the --help of each command it names and no other, is refused by every other command (given
// before or after the command's word, with the same line) and by none it names, and is in the
// man page's OPTIONS and the three completion scripts. (The flag_docs ctest checks that those
// files are exactly what `canitrun --generate` makes of the table.)

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include "catch.hpp"
#include "flag_docs.hpp"
#include "flag_table.hpp"
#include "flag_uses.hpp"
#include "run_binary.hpp"
#include "support/sampling.hpp"

using canitrun::cli::Cmd;
using canitrun::cli::command_infos;
using canitrun::cli::CommandInfo;
using canitrun::cli::find_flag;
using canitrun::cli::flag_rows;
using canitrun::cli::FlagRow;
using canitrun::test::has;
using canitrun::test::lines_of;
using canitrun::test::read_file;
using canitrun::test::run_canitrun;
using canitrun::test::run_shell;
using canitrun::test::shell_quote;

namespace {

bool service_command(Cmd c) {
    return c == Cmd::serve || c == Cmd::site || c == Cmd::mcp;
}

// The long options a --help text lists: its option lines ("  -q,--quant QUANT   ...").
std::set<std::string> help_options(const std::string& help) {
    std::set<std::string> out;
    for (const auto& line : lines_of(help)) {
        if (!line.starts_with("  -")) continue;
        std::stringstream names(line.substr(2, line.find(' ', 2) - 2));
        for (std::string name; std::getline(names, name, ',');) {
            if (name.starts_with("--")) out.insert(name);
        }
    }
    return out;
}

// The arguments that run a command up to its flag checks and then fail fast or answer
// quickly: a model the database lacks, a log that is not there.
std::vector<std::string> words_to_reach(Cmd c) {
    switch (c) {
        case Cmd::page:
            return {"no-such-model"};
        case Cmd::gpus:
            return {"gpus", "no-such-model"};
        case Cmd::compare:
            return {"compare", "no-such-model", "no-such-model-2"};
        case Cmd::verify:
            return {"verify", "/no/such.log"};
        default:
            return {command_infos()[static_cast<std::size_t>(c)].name};
    }
}

// A value each row's checks accept.
std::vector<std::string> flag_and_value(const FlagRow& row) {
    std::vector<std::string> out = {row.long_name()};
    if (row.value.empty()) return out;
    if (row.named("--gpu-spec")) {
        out.push_back(CANITRUN_FIXTURES "/gpu-spec/mtt-s80.json");
    } else if (row.range) {
        out.push_back(std::to_string(row.range->first));
    } else if (row.complete == canitrun::cli::Complete::words) {
        out.push_back(row.words.substr(0, row.words.find(' ')));
    } else {
        out.push_back("1");
    }
    return out;
}

// The rows the command line's commands read: not the services' own, not --help / --version
// (CLI11's), not --generate (answered alone).
std::vector<const FlagRow*> command_line_rows() {
    std::vector<const FlagRow*> out;
    for (const FlagRow& row : flag_rows()) {
        if (row.bind != nullptr) out.push_back(&row);
    }
    return out;
}

bool refused_by_value(const FlagRow& row) {
    for (const auto f : canitrun::cli::value_dependent_flags()) {
        if (row.named(f)) return true;
    }
    return false;
}

// Runs every line in one shell (a thousand runs of the binary): each line's exit code and
// first stderr line, in order.
std::vector<std::string> run_each(const std::vector<std::vector<std::string>>& runs) {
    std::string script = "home=$(mktemp -d); export HOME=$home XDG_CACHE_HOME=$home/cache; ";
    for (const auto& args : runs) {
        script += shell_quote(CANITRUN_BINARY);
        for (const auto& a : args) script += " " + shell_quote(a);
        script += " >/dev/null 2>\"$home/err\"; echo \"$? $(head -n 1 \"$home/err\")\"; ";
    }
    script += "rm -rf \"$home\"\n";
    // A file, not `sh -c`: the script is longer than one argument may be.
    const std::filesystem::path file = std::filesystem::temp_directory_path() /
                                       ("canitrun-flag-table-" + std::to_string(getpid()) + ".sh");
    std::ofstream(file) << script;
    const auto o = run_shell("sh " + shell_quote(file.string()));
    std::filesystem::remove(file);
    REQUIRE(o.code == 0);
    auto lines = lines_of(o.out);
    REQUIRE(lines.size() == runs.size());
    return lines;
}

// `word` in `text` as a whole word: "--ctx" but not inside "--ctx-checkpoints".
bool has_word(const std::string& text, const std::string& word) {
    const auto part = [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '-';
    };
    for (std::size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) {
        const std::size_t after = at + word.size();
        if ((at == 0 || !part(text[at - 1])) && (after == text.size() || !part(text[after]))) {
            return true;
        }
    }
    return false;
}

}  // namespace

TEST_CASE("flag table: every name is one row's, every row has a group and help") {
    std::set<std::string> names;
    for (const FlagRow& row : flag_rows()) {
        INFO(row.names);
        CHECK(row.long_name().starts_with("--"));
        CHECK(names.insert(row.long_name()).second);
        if (!row.short_name().empty()) CHECK(names.insert(row.short_name()).second);
        CHECK(!row.help.empty());
        CHECK(!row.group.empty());  // CLI11 hides an option of the empty group
        CHECK(row.commands.bits != 0);
        CHECK(find_flag(row.long_name()) == &row);
    }
    CHECK(find_flag("-c") == find_flag("--ctx"));
    CHECK(find_flag("--no-such-flag") == nullptr);
}

TEST_CASE("flag table: the flags refused by value are rows of the table") {
    // A misspelt name there would never be checked: each must be a row.
    for (const auto name : canitrun::cli::value_dependent_flags()) {
        INFO(name);
        CHECK(find_flag(name) != nullptr);
    }
}

TEST_CASE("flag table: registration wants a target for every row of the command") {
    CLI::App app;
    bool quiet = false;
    // site reads --quiet alone: one target, and then a row without a target is a table error.
    const canitrun::cli::ExtraTarget site[] = {{"--quiet", &quiet}};
    CHECK_NOTHROW(canitrun::cli::register_flags(app, Cmd::site, nullptr, site));
    CLI::App serve;
    CHECK_THROWS_AS(canitrun::cli::register_flags(serve, Cmd::serve, nullptr, site),
                    std::logic_error);
    // A target for a flag the command does not read.
    CLI::App mcp;
    CHECK_THROWS_AS(canitrun::cli::register_flags(mcp, Cmd::mcp, nullptr, site), std::logic_error);
}

TEST_CASE("flag table: a completion's description is the help without parentheses") {
    FlagRow row;
    row.help = "Output format: table (default), json, csv (raw (numbers)), html; and more";
    CHECK(canitrun::cli::flag_summary(row) == "Output format: table, json, csv, html");
    row.help = "Quantization (default: Q4_K_M)";
    CHECK(canitrun::cli::flag_summary(row) == "Quantization");
}

TEST_CASE("flag table: each command's --help lists exactly the rows that name it") {
    for (const CommandInfo& c : command_infos()) {
        INFO(c.name);
        std::vector<std::string> args;
        if (c.cmd != Cmd::page) args.push_back(c.name);
        args.push_back("--help");
        const auto o = run_canitrun(args);
        REQUIRE(o.code == 0);
        std::set<std::string> expected;
        for (const FlagRow& row : flag_rows()) {
            if (row.commands.has(c.cmd)) expected.insert(row.long_name());
        }
        CHECK(help_options(o.out) == expected);
    }
}

TEST_CASE("flag table: a flag is refused exactly where no row names the command") {
    std::vector<std::vector<std::string>> runs;
    struct Expect {
        std::string what;
        std::string refusal;  // empty: no refusal of the flag
    };
    std::vector<Expect> expects;
    for (const FlagRow* row : command_line_rows()) {
        for (const CommandInfo& c : command_infos()) {
            if (service_command(c.cmd)) continue;
            const bool reads = row->commands.has(c.cmd);
            if (reads && refused_by_value(*row)) continue;  // read or refused by value
            const std::string where = canitrun::cli::command_words(c.cmd);
            const std::string refused = row->long_name() + " does not apply to " + where;
            // After the command's word (the model page has none).
            auto after = words_to_reach(c.cmd);
            for (const auto& a : flag_and_value(*row)) after.push_back(a);
            runs.push_back(after);
            expects.push_back({row->long_name() + " after " + where, reads ? "" : refused});
            if (c.cmd == Cmd::page) continue;
            // Before it: the top level's flags are the model page's.
            auto before = flag_and_value(*row);
            for (const auto& a : words_to_reach(c.cmd)) before.push_back(a);
            runs.push_back(before);
            const bool page = row->commands.has(Cmd::page);
            expects.push_back({row->long_name() + " before " + where,
                               !reads ? refused
                               : page ? ""
                                      : row->long_name() + " comes after the command's word"});
        }
    }
    // Sanitized: every 8th of the runs (about 190 of 1,500), spread over rows and commands.
    std::vector<std::vector<std::string>> kept;
    std::vector<Expect> kept_expects;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        if (!canitrun::test::sampled(i, 8)) continue;
        kept.push_back(runs[i]);
        kept_expects.push_back(expects[i]);
    }
    runs = std::move(kept);
    expects = std::move(kept_expects);
    const auto results = run_each(runs);
    for (std::size_t i = 0; i < runs.size(); ++i) {
        INFO(expects[i].what << ": " << results[i]);
        if (expects[i].refusal.empty()) {
            CHECK_FALSE(has(results[i], "does not apply"));
            CHECK_FALSE(has(results[i], "comes after"));
            CHECK_FALSE(has(results[i], "unknown flag"));
            CHECK_FALSE(has(results[i], "was also given"));
            CHECK_FALSE(has(results[i], "takes no operand"));
        } else {
            CHECK(results[i].starts_with("2 canitrun: error: " + expects[i].refusal));
        }
    }
}

TEST_CASE("flag table: every row is in the man page's OPTIONS and the three completions") {
    const std::string man = read_file(CANITRUN_SOURCE_DIR "/docs/canitrun.1");
    const std::string begin = ".\\\" BEGIN GENERATED OPTIONS";
    const std::string end = ".\\\" END GENERATED OPTIONS";
    REQUIRE(has(man, begin));
    REQUIRE(has(man, end));
    const std::string options = man.substr(man.find(begin), man.find(end) - man.find(begin));
    const std::string bash = read_file(CANITRUN_SOURCE_DIR "/completions/canitrun.bash");
    const std::string zsh = read_file(CANITRUN_SOURCE_DIR "/completions/_canitrun");
    const std::string fish = read_file(CANITRUN_SOURCE_DIR "/completions/canitrun.fish");
    for (const FlagRow& row : flag_rows()) {
        const std::string name = row.long_name();
        INFO(name);
        std::string roff;
        for (const char ch : name) roff += ch == '-' ? std::string("\\-") : std::string(1, ch);
        CHECK(has(options, "\\fB" + roff + "\\fR"));
        CHECK(has_word(bash, name));
        CHECK(has_word(zsh, name));
        CHECK(has(fish, "-l " + name.substr(2) + " "));
    }
}

TEST_CASE("flag table: --generate prints each file, and refuses other kinds") {
    for (const char* kind : {"man", "complete-bash", "complete-zsh", "complete-fish"}) {
        const auto o = run_canitrun({"--generate", kind});
        CHECK(o.code == 0);
        CHECK(o.out == *canitrun::cli::generated(kind));
    }
    CHECK(run_canitrun({"--generate=man"}).out == *canitrun::cli::generated("man"));
    const auto bad = run_canitrun({"--generate", "complete-powershell"});
    CHECK(bad.code == 2);
    CHECK(has(bad.err, "--generate makes man, complete-bash, complete-zsh or complete-fish"));
    const auto mixed = run_canitrun({"--json", "--generate", "man"});
    CHECK(mixed.code == 2);
    CHECK(has(mixed.err, "--generate is given alone"));
}

TEST_CASE("flag table: an output flag goes before or after the command's word") {
    const auto before = run_canitrun({"--json", "gpus", "qwen3-8b"});
    const auto after = run_canitrun({"gpus", "qwen3-8b", "--json"});
    REQUIRE(before.code == 0);
    CHECK(before.out.starts_with("{"));
    CHECK(after.out == before.out);
}

TEST_CASE("flag table: a flag the command does not read gets one line, before or after") {
    const auto after = run_canitrun({"gpus", "qwen3-8b", "--gpu", "3090"});
    const auto before = run_canitrun({"--gpu", "3090", "gpus", "qwen3-8b"});
    CHECK(after.code == 2);
    CHECK(after.out.empty());
    CHECK(after.err ==
          "canitrun: error: --gpu does not apply to gpus; leave it out; --gpu is read by the "
          "model page, fit, compare, local, verify\n");
    CHECK(before.code == 2);
    CHECK(before.err == after.err);
    // The services name the flag the same way.
    const auto site = run_canitrun({"site", "--json", "/no/such/folder"});
    CHECK(site.code == 2);
    CHECK(has(site.err, "canitrun: error: --json does not apply to site; leave it out"));
    // A flag no row has keeps CLI11's word for it.
    const auto unknown = run_canitrun({"models", "--no-such-flag"});
    CHECK(unknown.code == 2);
    CHECK(has(unknown.err, "--no-such-flag"));
    CHECK_FALSE(has(unknown.err, "does not apply"));
}
