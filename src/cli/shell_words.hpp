#pragma once
// Printed command lines quoted for a POSIX shell, one rule for every line canitrun prints
// (llama-server, rpc-server, ollama, the page's sampling flags), so a line pasted into a shell
// runs with the arguments the plan holds.

#include <string>
#include <vector>

namespace canitrun::cli {

// One argument as a shell reads it back: unchanged when it holds no character the shell
// treats specially, else in single quotes (a quote inside as '\'').
std::string shell_word(const std::string& arg);
// Arguments joined by spaces, each as shell_word quotes it.
std::string shell_join(const std::vector<std::string>& args);

}  // namespace canitrun::cli
