#include "cli_run.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace canitrun::test {
namespace {

std::string quote(const std::string& arg) {
    std::string q = "'";
    for (char c : arg) q += (c == '\'') ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

}  // namespace

Outcome run_cli(const std::vector<std::string>& args, const std::vector<std::string>& environment) {
    static int counter = 0;
    // Per process and call: ctest may run test processes in parallel in one folder.
    const std::string err_path =
        "cli_test_stderr_" + std::to_string(getpid()) + "_" + std::to_string(++counter) + ".txt";
    std::string command;
    for (const auto& e : environment) {
        const auto eq = e.find('=');
        command += e.substr(0, eq + 1) + quote(e.substr(eq + 1)) + " ";
    }
    command += quote(CANITRUN_BINARY);
    for (const auto& a : args) command += " " + quote(a);
    command += " 2>" + err_path;
    Outcome o;
    FILE* pipe = popen(command.c_str(), "r");
    if (pipe == nullptr) throw std::runtime_error("cannot run " + command);
    char buffer[4096];
    std::size_t n = 0;
    while ((n = fread(buffer, 1, sizeof buffer, pipe)) > 0) o.out.append(buffer, n);
    const int status = pclose(pipe);
    o.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    std::ifstream err(err_path);
    std::stringstream ss;
    ss << err.rdbuf();
    o.err = ss.str();
    std::remove(err_path.c_str());
    return o;
}

bool has(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

}  // namespace canitrun::test
