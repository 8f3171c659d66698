#include "canitrun/probe_sources.hpp"

#include "canitrun/bounded_file.hpp"

#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
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

LiveProbeSource::LiveProbeSource() {
    if (const char* env = std::getenv("CANITRUN_PROBE_TIMEOUT_MS")) {
        char* end = nullptr;
        const long ms = std::strtol(env, &end, 10);
        if (end != env && *end == '\0' && ms > 0 && ms <= 3600000)
            timeout_ms_ = static_cast<int>(ms);
    }
}

namespace {

// Reads the child's output until it closes, passes the cap or the deadline passes; true when it
// closed in time.
bool read_until(int fd, std::string& out, std::chrono::steady_clock::time_point deadline) {
    std::array<char, 4096> buffer{};
    while (out.size() <= kMaxProbeBytes) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) return false;
        pollfd p{fd, POLLIN, 0};
        const int ready = poll(&p, 1, static_cast<int>(left.count()));
        if (ready < 0 && errno == EINTR) continue;
        if (ready <= 0) return false;
        const ssize_t n = ::read(fd, buffer.data(), buffer.size());
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return n == 0;
        out.append(buffer.data(), static_cast<std::size_t>(n));
    }
    return false;  // past the cap: not what we asked for
}

// The probe's process group while it runs: it is a group of its own (so a timeout kills the
// shell and the tool together), which a Ctrl-C at the terminal does not reach. On SIGINT,
// SIGTERM or SIGHUP the handler kills it, then lets the signal end canitrun as it would have.
volatile std::sig_atomic_t g_probe_group = 0;
constexpr std::array<int, 3> kStopSignals = {SIGINT, SIGTERM, SIGHUP};

extern "C" void stop_probe(int sig) {
    if (g_probe_group > 0) kill(-static_cast<pid_t>(g_probe_group), SIGKILL);
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    sigaction(sig, &dfl, nullptr);
    raise(sig);
}

// Installs stop_probe for the probe's lifetime (a signal already ignored stays ignored) and
// restores what was there.
class ProbeGuard {
  public:
    ProbeGuard() {
        for (std::size_t k = 0; k < kStopSignals.size(); ++k) {
            sigaction(kStopSignals[k], nullptr, &old_[k]);
            if (old_[k].sa_handler == SIG_IGN) continue;
            struct sigaction on {};
            on.sa_handler = stop_probe;
            sigemptyset(&on.sa_mask);
            sigaction(kStopSignals[k], &on, nullptr);
        }
    }
    ~ProbeGuard() {
        g_probe_group = 0;
        for (std::size_t k = 0; k < kStopSignals.size(); ++k) {
            sigaction(kStopSignals[k], &old_[k], nullptr);
        }
    }
    ProbeGuard(const ProbeGuard&) = delete;
    ProbeGuard& operator=(const ProbeGuard&) = delete;

  private:
    std::array<struct sigaction, kStopSignals.size()> old_{};
};

}  // namespace

std::optional<std::string> LiveProbeSource::run(Probe probe) const {
    // stderr is dropped: a missing tool is an expected answer, not an error to show.
    const std::string command = std::string(probe_command(probe)) + " 2>/dev/null";
    int fds[2];
    if (pipe(fds) != 0) return std::nullopt;
    const ProbeGuard guard;
    const pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return std::nullopt;
    }
    if (pid == 0) {
        // The child: its own process group, so a timeout kills the shell and the tool together.
        setpgid(0, 0);
        dup2(fds[1], STDOUT_FILENO);
        close(fds[0]);
        close(fds[1]);
        execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
        _exit(127);
    }
    setpgid(pid, pid);
    g_probe_group = pid;
    close(fds[1]);
    std::string out;
    const bool done = read_until(
        fds[0], out, std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms_));
    close(fds[0]);
    if (!done) kill(-pid, SIGKILL);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (!done || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return std::nullopt;
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
