#include "ask.hpp"

#include <sstream>

#include "app.hpp"

namespace canitrun::cli {

Asked ask(const std::vector<std::string>& args) {
    std::vector<const char*> argv;
    argv.reserve(args.size() + 1);
    argv.push_back("canitrun");
    for (const std::string& a : args) argv.push_back(a.c_str());
    // Room for a model page's JSON (~74 KB) from the start (Output in app_options.hpp says why).
    std::string room;
    room.reserve(std::size_t{1} << 17);
    std::ostringstream out(std::move(room));
    std::ostringstream err;
    // Not a terminal and no width: the bytes a pipe gets, as `canitrun ... > file` writes them.
    Asked asked;
    asked.code = run(static_cast<int>(argv.size()), argv.data(), out, err, false, 0);
    asked.out = std::move(out).str();
    asked.err = std::move(err).str();
    return asked;
}

}  // namespace canitrun::cli
