#pragma once
// tests/support/hub_server.py as a child process on loopback: started on a folder of files the
// test wrote, stopped (and the folder removed) when the object goes. Its three listeners: the
// endpoint ("main", http or https), "other" on 127.0.0.2 (another host name) and "plain" on
// 127.0.0.1 without TLS (another origin).

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace canitrun::test {

class HubProcess {
  public:
    // `server_args`: after the root, e.g. {"--tls", CERT, KEY}.
    explicit HubProcess(std::filesystem::path root,
                        const std::vector<std::string>& server_args = {});
    ~HubProcess();
    HubProcess(const HubProcess&) = delete;
    HubProcess& operator=(const HubProcess&) = delete;

    bool up() const { return port_ > 0 && other_port_ > 0; }
    int port() const { return port_; }
    int other_port() const { return other_port_; }
    const std::filesystem::path& root() const { return root_; }
    // GET /__stats over plain http from `base` (the main listener unless it speaks TLS).
    nlohmann::json stats(const std::string& base) const;
    nlohmann::json stats() const;

  private:
    std::filesystem::path root_;
    std::FILE* pipe_ = nullptr;
    int port_ = 0;
    int pid_ = 0;
    int other_port_ = 0;
    int plain_port_ = 0;
};

// A fresh folder under the temporary directory, named for this process and `what`.
std::filesystem::path fresh_temp_dir(const std::string& what);

// Whether python3 (for the server) was found at configure time; warns when not.
bool have_python();

}  // namespace canitrun::test
