#include <sys/ioctl.h>
#include <unistd.h>

#include <iostream>
#include <sstream>

#include "app.hpp"
#include "service_command.hpp"

int main(int argc, char** argv) {
    // serve, site and mcp run until they are done or stopped, writing as they go.
    if (const auto code =
            canitrun::serve::run_service_command(argc, argv, std::cin, std::cout, std::cerr)) {
        return *code;
    }
    const bool terminal = isatty(STDOUT_FILENO) == 1;
    winsize size{};
    const std::size_t columns =
        terminal && ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 ? size.ws_col : 0;
    // The answer is built whole, then written with every write checked: a full disk or a
    // closed stdout is exit 4 with one line, never exit 0 with the answer lost.
    std::ostringstream out;
    const int code = canitrun::cli::run(argc, argv, out, std::cerr, terminal, columns);
    return canitrun::cli::write_answer(STDOUT_FILENO, out.view(), std::cerr, code);
}
