#include "support/hub_process.hpp"

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>

#include "catch.hpp"
#include "run_binary.hpp"

namespace canitrun::test {

namespace fs = std::filesystem;

fs::path fresh_temp_dir(const std::string& what) {
    fs::path dir = fs::temp_directory_path() /
                   ("canitrun-" + what + "-" + std::to_string(::getpid()) + "-" +
                    std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()));
    fs::create_directories(dir);
    return dir;
}

bool have_python() {
    if (std::string(CANITRUN_PYTHON3_PATH).empty()) {
        WARN("python3 not found: the remote tests need it for tests/support/hub_server.py");
        return false;
    }
    return true;
}

HubProcess::HubProcess(fs::path root, const std::vector<std::string>& server_args)
    : root_(std::move(root)) {
    if (!have_python()) return;
    std::string cmd = "exec " + std::string(CANITRUN_PYTHON3_PATH) + " " + CANITRUN_SOURCE_DIR +
                      "/tests/support/hub_server.py " + shell_quote(root_.string());
    for (const auto& a : server_args) cmd += " " + shell_quote(a);
    pipe_ = ::popen((cmd + " 2>/dev/null").c_str(), "r");
    // The server's first line: "PORT PID OTHER PLAIN".
    char line[128] = {};
    if (pipe_ != nullptr && std::fgets(line, sizeof line, pipe_) != nullptr) {
        char* at = line;
        port_ = static_cast<int>(std::strtol(at, &at, 10));
        pid_ = static_cast<int>(std::strtol(at, &at, 10));
        other_port_ = static_cast<int>(std::strtol(at, &at, 10));
        plain_port_ = static_cast<int>(std::strtol(at, &at, 10));
    }
}

HubProcess::~HubProcess() {
    if (pid_ > 0) ::kill(pid_, SIGTERM);
    if (pipe_ != nullptr) ::pclose(pipe_);
    std::error_code ec;
    fs::remove_all(root_, ec);
}

nlohmann::json HubProcess::stats(const std::string& base) const {
    const Outcome o = run_shell(std::string(CANITRUN_PYTHON3_PATH) +
                                " -c \"import urllib.request;print(urllib.request.urlopen('" +
                                base + "/__stats').read().decode())\"");
    return nlohmann::json::parse(o.out);
}

nlohmann::json HubProcess::stats() const {
    return stats("http://127.0.0.1:" + std::to_string(plain_port_));
}

}  // namespace canitrun::test
