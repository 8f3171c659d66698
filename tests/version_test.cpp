// --version prints the program's version, then the database's version and date from
// data/database.json and how many entries it holds.

#include <fstream>
#include <nlohmann/json.hpp>

#include "catch.hpp"
#include "run_binary.hpp"
#include "test_support.hpp"

using canitrun::test::lines_of;
using canitrun::test::run_canitrun;

TEST_CASE("version: --version prints the program and database versions") {
    std::ifstream in(CANITRUN_DATA_DIR "/database.json");
    const auto info = nlohmann::json::parse(in);
    const auto o = run_canitrun({"--version"});
    REQUIRE(o.code == 0);
    CHECK(o.err.empty());
    const auto lines = lines_of(o.out);
    REQUIRE(lines.size() == 2);
    CHECK(lines[0] == "canitrun " CANITRUN_VERSION_STRING);
    const auto& db = canitrun::test::database();
    CHECK(lines[1] == "database " + info["version"].get<std::string>() + " (" +
                          info["date"].get<std::string>() +
                          "): " + std::to_string(db.models.size()) + " models, " +
                          std::to_string(db.gpus.size()) + " GPUs, " +
                          std::to_string(db.quants.size()) + " quantizations");
}

TEST_CASE("database: database.json is read into Database::info") {
    const auto& info = canitrun::test::database().info;
    CHECK(!info.version.empty());
    CHECK(info.date.size() == 10);
    CHECK(!info.source.empty());
}

// As people type them: `canitrun version` and -V are --version; `canitrun help [COMMAND]` is
// --help (of the command), not a model named "help".
TEST_CASE("version: version, -V and help are what they say, not model names") {
    const auto long_form = run_canitrun({"--version"});
    CHECK(run_canitrun({"version"}).out == long_form.out);
    CHECK(run_canitrun({"-V"}).out == long_form.out);
    const auto help = run_canitrun({"help"});
    CHECK(help.code == 0);
    CHECK(help.out == run_canitrun({"--help"}).out);
    CHECK(run_canitrun({"help", "gpus"}).out == run_canitrun({"gpus", "--help"}).out);
    const auto bad = run_canitrun({"help", "nope"});
    CHECK(bad.code == 2);
    CHECK(bad.out.empty());
    CHECK(bad.err ==
          "canitrun: error: no command 'nope'; run 'canitrun --help' for the commands\n");
}
