#include <malloc.h>
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
    // One question and the process ends: memory freed is kept for the next allocation rather
    // than handed back to the kernel. glibc's defaults serve a block of 128 KiB or more by mmap
    // and unmap it when freed, so each `fit` thread's larger buffers were mapped, page-faulted
    // in and unmapped again and again (and every mmap / munmap stops the other thread's page
    // faults); with these, fewer page faults and system calls (bench/RESULTS.md, seventeenth).
    // Not for serve, site and mcp above, which run on and should give memory back.
    mallopt(M_MMAP_THRESHOLD, 32 << 20);  // glibc's largest: blocks past it are rare
    mallopt(M_TRIM_THRESHOLD, 256 << 20);
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
