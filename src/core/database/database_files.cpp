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
        // Folders are walked; any other *.json entry (a file, a dangling link) must be readable.
        if (it->path().extension() != ".json" || it->is_directory(ec)) continue;
        std::ifstream in(it->path(), std::ios::binary);
        std::ostringstream text;
        if (in) text << in.rdbuf();
        if (!in || in.bad()) {
            return fail(ErrorKind::io, "cannot read '" + it->path().string() + "'",
                        "check that the file exists and is readable");
        }
        files[fs::relative(it->path(), dir, ec).generic_string()] = text.str();
    }
    if (ec)
        return fail(ErrorKind::io, "cannot read database folder '" + dir + "': " + ec.message());
    return files;
}

}  // namespace canitrun
