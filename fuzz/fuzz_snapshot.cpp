// Fuzzes the binary database snapshot reader: any bytes are a database or one clear error.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "canitrun/database_snapshot.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    const auto db = canitrun::deserialize_database(bytes);
    if (!db && db.error().message.empty()) std::abort();
    // What reads back must write out to the same bytes: the format has one spelling per value.
    if (db && canitrun::serialize_database(*db) != bytes) std::abort();
    return 0;
}
