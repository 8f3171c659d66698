#include "service_command.hpp"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string_view>
#include <vector>

#include "canitrun/embedded_snapshot.hpp"
#include "flag_table.hpp"
#include "flag_uses.hpp"
#include "mcp_server.hpp"
#include "static_site.hpp"
#include "usage_error.hpp"

namespace canitrun::serve {
namespace {

constexpr int kExitBadInput = 2;

// serve: the server binary installed beside this one (bin/canitrun-serve), run in this
// process's place with the same arguments.
int exec_server(int argc, char** argv, std::ostream& err) {
    std::error_code ec;
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
    const std::filesystem::path server = self.parent_path() / "canitrun-serve";
    std::vector<char*> args = {const_cast<char*>(server.c_str())};
    for (int i = 2; i < argc; ++i) args.push_back(argv[i]);
    args.push_back(nullptr);
    err << std::flush;
    execv(server.c_str(), args.data());
    err << "canitrun: error: serve runs " << server.string() << ", which could not be started ("
        << std::strerror(errno) << "); install canitrun-serve beside canitrun\n";
    return kExitBadInput;
}

// Parses a service's flags; nullopt to go on, else the exit code (help, or a bad flag).
std::optional<int> parse(CLI::App& app, cli::Cmd command, int argc, char** argv, std::ostream& out,
                         std::ostream& err) {
    std::vector<std::string> args;
    for (int i = argc - 1; i >= 2; --i) args.emplace_back(argv[i]);  // CLI11 wants them reversed
    try {
        app.parse(args);
    } catch (const CLI::CallForHelp&) {
        out << app.help();
        return 0;
    } catch (const CLI::ParseError& e) {
        // canitrun's words for every refusal, as the other commands print them.
        const Error refused = cli::usage_error(e, app, command);
        err << "canitrun: error: " << refused.message << "; " << refused.hint << "\n";
        return kExitBadInput;
    }
    return std::nullopt;
}

int mcp_command(int argc, char** argv, std::istream& in, std::ostream& out, std::ostream& err) {
    CLI::App app{
        "canitrun mcp: a Model Context Protocol server on stdin/stdout (JSON-RPC 2.0); "
        "its tools answer with the CLI's JSON documents",
        "canitrun mcp"};
    bool allow_remote = false;
    const cli::ExtraTarget targets[] = {{"--allow-remote", &allow_remote}};
    cli::register_flags(app, cli::Cmd::mcp, nullptr, targets);
    if (const auto code = parse(app, cli::Cmd::mcp, argc, argv, out, err)) return *code;
    const auto db = embedded_database();
    if (!db) {
        err << "canitrun: error: " << db.error().message << "\n";
        return kExitBadInput;
    }
    return run_mcp(in, out, ApiPolicy{*db, allow_remote});
}

int site_command(int argc, char** argv, std::ostream& out, std::ostream& err) {
    CLI::App app{
        "canitrun site: write the model pages, a page per GPU, the index and the JSON "
        "documents as static files, for any static web host",
        "canitrun site"};
    std::string dir;
    bool quiet = false;
    app.add_option("dir", dir, "The folder to write (created; files in it are replaced)")
        ->required();
    const cli::ExtraTarget targets[] = {{"--quiet", &quiet}};
    cli::register_flags(app, cli::Cmd::site, nullptr, targets);
    if (const auto code = parse(app, cli::Cmd::site, argc, argv, out, err)) return *code;
    return write_site(dir, quiet ? nullptr : &out, err);
}

}  // namespace

std::optional<int> run_service_command(int argc, char** argv, std::istream& in, std::ostream& out,
                                       std::ostream& err) {
    if (argc < 2) return std::nullopt;
    const std::string_view command = argv[1];
    if (command == "serve") return exec_server(argc, argv, err);
    if (command == "mcp") return mcp_command(argc, argv, in, out, err);
    if (command == "site") return site_command(argc, argv, out, err);
    return std::nullopt;
}

}  // namespace canitrun::serve
