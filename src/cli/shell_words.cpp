#include "shell_words.hpp"

namespace canitrun::cli {

std::string shell_word(const std::string& arg) {
    // POSIX 2.2: these are special to the shell unquoted; '=' and ',' are not, so
    // "OLLAMA_CONTEXT_LENGTH=8192" and "-ts 30,18" stay as they are.
    const bool plain =
        !arg.empty() && arg.find_first_of(" \t\n'\"$\\*?{}[]()&;|<>`#~!") == std::string::npos;
    if (plain) return arg;
    std::string out = "'";
    for (const char c : arg) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

std::string shell_join(const std::vector<std::string>& args) {
    std::string out;
    for (const auto& a : args) out += (out.empty() ? "" : " ") + shell_word(a);
    return out;
}

}  // namespace canitrun::cli
