#include "run_binary.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace canitrun::test {

std::string shell_quote(const std::string& arg) {
    std::string q = "'";
    for (const char c : arg) q += (c == '\'') ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

Outcome run_shell(const std::string& command) {
    static int counter = 0;
    const std::string err_path =
        "run_binary_stderr_" + std::to_string(getpid()) + "_" + std::to_string(++counter) + ".txt";
    Outcome o;
    FILE* pipe = popen((command + " 2>" + err_path).c_str(), "r");
    if (pipe == nullptr) throw std::runtime_error("popen failed: " + command);
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

Outcome run_canitrun(const std::vector<std::string>& args,
                     const std::vector<std::string>& environment) {
    std::string command;
    for (const auto& e : environment) {
        const auto eq = e.find('=');
        command += e.substr(0, eq + 1) + shell_quote(e.substr(eq + 1)) + " ";
    }
    command += shell_quote(CANITRUN_BINARY);
    for (const auto& a : args) command += " " + shell_quote(a);
    return run_shell(command);
}

bool has(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

std::string probe_recording(const std::string& name) {
    return "CANITRUN_PROBE_RECORDING=" + std::string(CANITRUN_FIXTURES) + "/probe/" + name;
}

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
}

}  // namespace canitrun::test
