#include <unistd.h>

#include <iostream>

#include "app.hpp"

int main(int argc, char** argv) {
    return canitrun::cli::run(argc, argv, std::cout, std::cerr, isatty(STDOUT_FILENO) == 1);
}
