// The built-in database: the snapshot the build embedded, read back.

#include "canitrun/embedded_snapshot.hpp"

#include "canitrun/database_snapshot.hpp"

namespace canitrun {

Result<Database> load_embedded_database() {
    return deserialize_database(embedded_database_snapshot());
}

}  // namespace canitrun
