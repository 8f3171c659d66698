#include "ask.hpp"

#include <sstream>

#include "app.hpp"

namespace canitrun::cli {

Asked ask(const std::vector<std::string>& args) {
    std::vector<const char*> argv;
    argv.reserve(args.size() + 1);
    argv.push_back("canitrun");
    for (const std::string& a : args) argv.push_back(a.c_str());
    std::ostringstream out;
    std::ostringstream err;
    // Not a terminal and no width: the bytes a pipe gets, as `canitrun ... > file` writes them.
    Asked asked;
    asked.code = run(static_cast<int>(argv.size()), argv.data(), out, err, false, 0);
    asked.out = std::move(out).str();
    asked.err = std::move(err).str();
    return asked;
}

}  // namespace canitrun::cli
