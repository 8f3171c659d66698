#include "canitrun/database_files.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

namespace canitrun {

Result<DatabaseFiles> read_database_dir(const std::string& dir) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) {
        return fail(ErrorKind::io, "cannot read database folder '" + dir + "': not a directory",
                    "--data takes a folder shaped like data/ (see data/SCHEMA.md)");
    }
    DatabaseFiles files;
    fs::recursive_directory_iterator it(dir, ec), end;
    for (; !ec && it != end; it.increment(ec)) {
        if (!it->is_regular_file(ec) || it->path().extension() != ".json") continue;
        std::ifstream in(it->path(), std::ios::binary);
        if (!in) {
            return fail(ErrorKind::io, "cannot read '" + it->path().string() + "'",
                        "check the file's permissions");
        }
        std::ostringstream text;
        text << in.rdbuf();
        files[fs::relative(it->path(), dir, ec).generic_string()] = text.str();
    }
    if (ec)
        return fail(ErrorKind::io, "cannot read database folder '" + dir + "': " + ec.message());
    return files;
}

}  // namespace canitrun
