// canitrun-serve: the web server `canitrun serve` runs (http_server.hpp says why it is a binary
// of its own). Its flags are serve's; `canitrun serve --help` prints them.

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <iostream>

#include "http_server.hpp"

int main(int argc, char** argv) {
    canitrun::serve::ServeOptions o;
    CLI::App app{
        "canitrun serve: the model pages, a live calculator and the JSON API (/api/v1/) "
        "over HTTP",
        "canitrun serve"};
    app.add_option("--port", o.port, "TCP port (default 8080; 0: any free port, printed)")
        ->check(CLI::Range(0, 65535));
    app.add_option("--bind", o.bind,
                   "Address to listen on (default 127.0.0.1, this machine only; any other "
                   "prints a warning)");
    app.add_option("--threads", o.threads, "Worker threads answering requests (default 4)")
        ->check(CLI::Range(1, 64));
    app.add_flag("--quiet", o.quiet, "No access log line per request on stderr");
    app.add_flag("--allow-remote", o.allow_remote,
                 "Answer remote models (hf:, ollama:, URLs), which fetch from the network");
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp&) {
        std::cout << app.help();
        return 0;
    } catch (const CLI::ParseError& e) {
        std::cerr << "canitrun: error: " << e.what() << "; run 'canitrun serve --help' for usage\n";
        return 2;
    }
    // Pages are never a terminal: no colour, whatever the environment asks of a terminal.
    unsetenv("CLICOLOR_FORCE");
    return canitrun::serve::serve_http(o, std::cerr);
}
