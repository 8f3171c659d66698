// canitrun-serve: the web server `canitrun serve` runs (http_server.hpp says why it is a binary
// of its own). Its flags are serve's; `canitrun serve --help` prints them.

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <iostream>

#include "flag_table.hpp"
#include "flag_uses.hpp"
#include "http_server.hpp"

int main(int argc, char** argv) {
    canitrun::serve::ServeOptions o;
    CLI::App app{
        "canitrun serve: the model pages, a live calculator and the JSON API (/api/v1/) "
        "over HTTP",
        "canitrun serve"};
    // serve's rows of the flag table (src/cli/flag_rows_engine.cpp), into ServeOptions.
    using canitrun::cli::ExtraTarget;
    const ExtraTarget targets[] = {{"--port", &o.port},
                                   {"--bind", &o.bind},
                                   {"--threads", &o.threads},
                                   {"--quiet", &o.quiet},
                                   {"--allow-remote", &o.allow_remote}};
    canitrun::cli::register_flags(app, canitrun::cli::Cmd::serve, nullptr, targets);
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp&) {
        std::cout << app.help();
        return 0;
    } catch (const CLI::ExtrasError& e) {
        // A flag of another command: the line the other commands print.
        const auto refused =
            canitrun::cli::misplaced_flag(app.remaining(), canitrun::cli::Cmd::serve, false);
        std::cerr << "canitrun: error: "
                  << (refused ? refused->message + "; " + refused->hint
                              : std::string(e.what()) + "; run 'canitrun serve --help' for usage")
                  << "\n";
        return 2;
    } catch (const CLI::ParseError& e) {
        std::cerr << "canitrun: error: " << e.what() << "; run 'canitrun serve --help' for usage\n";
        return 2;
    }
    // Pages are never a terminal: no colour, whatever the environment asks of a terminal.
    unsetenv("CLICOLOR_FORCE");
    return canitrun::serve::serve_http(o, std::cerr);
}
