// The built-in database: the snapshot the build embedded, read back.

#include "canitrun/embedded_snapshot.hpp"

#include "canitrun/database_snapshot.hpp"

namespace canitrun {

Result<Database> load_embedded_database() {
    return deserialize_database(embedded_database_snapshot());
}

Result<const Database*> embedded_database() {
    // Never destroyed, on purpose (see the header); reachable from here, so leak checkers
    // do not count it.
    static const auto* const loaded = new Result<Database>(load_embedded_database());
    if (!*loaded) return std::unexpected(loaded->error());
    return &**loaded;
}

}  // namespace canitrun
