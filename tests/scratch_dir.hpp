#pragma once
// A test's own folder under the system's temporary one, named for the test and the process (so
// parallel ctest runs never share it), removed with everything in it when the test ends.

#include <unistd.h>

#include <filesystem>
#include <string>
#include <system_error>

namespace canitrun::test {

struct ScratchDir {
    explicit ScratchDir(const std::string& name)
        : path(std::filesystem::temp_directory_path() / (name + std::to_string(::getpid()))) {
        std::filesystem::create_directories(path);
    }
    ~ScratchDir() {
        std::error_code ec;
        std::filesystem::remove_all(path, ec);
    }
    ScratchDir(const ScratchDir&) = delete;
    ScratchDir& operator=(const ScratchDir&) = delete;

    std::filesystem::path path;
};

}  // namespace canitrun::test
