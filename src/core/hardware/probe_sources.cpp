#include "canitrun/probe_sources.hpp"

#include "canitrun/bounded_file.hpp"

#include <sys/wait.h>
#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace canitrun {
namespace {

// Tool outputs and system files are small; anything larger is not what we asked for.
constexpr std::size_t kMaxProbeBytes = kMaxProbeFileBytes;

std::optional<std::string> slurp(const std::string& path) {
    auto text = read_bounded_file(path, kMaxProbeBytes, "system file");
    if (!text) return std::nullopt;
    return std::move(*text);
}

std::vector<std::string> entries(const std::string& dir) {
    std::vector<std::string> names;
    std::error_code ec;
    for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        names.push_back(it->path().filename().string());
    }
    std::sort(names.begin(), names.end());
    return names;
}

}  // namespace

std::optional<std::string> LiveProbeSource::run(Probe probe) const {
    // stderr is dropped: a missing tool is an expected answer, not an error to show.
    const std::string command = std::string(probe_command(probe)) + " 2>/dev/null";
    FILE* pipe = popen(command.c_str(), "r");
    if (pipe == nullptr) return std::nullopt;
    std::string out;
    std::array<char, 4096> buffer{};
    while (out.size() < kMaxProbeBytes) {
        const std::size_t n = std::fread(buffer.data(), 1, buffer.size(), pipe);
        if (n == 0) break;
        out.append(buffer.data(), n);
    }
    const int status = pclose(pipe);
    if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return std::nullopt;
    return out;
}

std::optional<std::string> LiveProbeSource::read_file(const std::string& path) const {
    return slurp(path);
}

std::vector<std::string> LiveProbeSource::list_dir(const std::string& path) const {
    return entries(path);
}

std::optional<std::string> RecordedProbeSource::run(Probe probe) const {
    return slurp(root_ + "/" + probe_file_name(probe));
}

std::optional<std::string> RecordedProbeSource::read_file(const std::string& path) const {
    return slurp(root_ + path);
}

std::vector<std::string> RecordedProbeSource::list_dir(const std::string& path) const {
    return entries(root_ + path);
}

}  // namespace canitrun
