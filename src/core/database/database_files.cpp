#include "canitrun/database_files.hpp"

#include <filesystem>

#include "canitrun/bounded_file.hpp"

namespace canitrun {

Result<DatabaseFiles> read_database_dir(const std::string& dir) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) {
        const bool exists = fs::exists(dir, ec);
        return fail(ErrorKind::io,
                    "cannot read database folder '" + dir +
                        "': " + (exists ? "not a directory" : "no such folder"),
                    "--data takes a folder shaped like data/ (see data/SCHEMA.md)");
    }
    DatabaseFiles files;
    fs::recursive_directory_iterator it(dir, ec), end;
    for (; !ec && it != end; it.increment(ec)) {
        // Folders are walked; any other *.json entry (a file, a dangling link) must be readable.
        if (it->path().extension() != ".json" || it->is_directory(ec)) continue;
        auto text = read_bounded_file(it->path().string(), kMaxDatabaseFileBytes, "database file");
        if (!text) {
            return fail(text.error().kind, "cannot read '" + it->path().string() + "'",
                        text.error().kind == ErrorKind::io
                            ? "check that the file exists and is readable"
                            : text.error().message);
        }
        files[fs::relative(it->path(), dir, ec).generic_string()] = std::move(*text);
    }
    if (ec)
        return fail(ErrorKind::io, "cannot read database folder '" + dir + "': " + ec.message());
    return files;
}

}  // namespace canitrun
