#include <sys/ioctl.h>
#include <unistd.h>

#include <iostream>

#include "app.hpp"

int main(int argc, char** argv) {
    const bool terminal = isatty(STDOUT_FILENO) == 1;
    winsize size{};
    const std::size_t columns =
        terminal && ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 ? size.ws_col : 0;
    return canitrun::cli::run(argc, argv, std::cout, std::cerr, terminal, columns);
}
