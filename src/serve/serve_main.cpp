// canitrun-serve: the web server `canitrun serve` runs (http_server.hpp says why it is a binary
// of its own). Its flags are serve's; `canitrun serve --help` prints them.

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <iostream>

#include "flag_table.hpp"
#include "flag_uses.hpp"
#include "http_server.hpp"
#include "usage_error.hpp"

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
    } catch (const CLI::ParseError& e) {
        // canitrun's words for every refusal, as the other commands print them.
        const canitrun::Error refused =
            canitrun::cli::usage_error(e, app, canitrun::cli::Cmd::serve);
        std::cerr << "canitrun: error: " << refused.message << "; " << refused.hint << "\n";
        return 2;
    }
    // Pages are never a terminal: no colour, whatever the environment asks of a terminal.
    unsetenv("CLICOLOR_FORCE");
    return canitrun::serve::serve_http(o, std::cerr);
}
