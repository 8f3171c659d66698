#pragma once
// The build-time generators' output: rewritten only when its text changes, so an unchanged
// input rebuilds nothing downstream.

#include <fstream>
#include <sstream>
#include <string>

namespace canitrun::snapshot {

// False when the file cannot be written.
inline bool write_if_changed(const std::string& path, const std::string& text) {
    std::ifstream previous(path, std::ios::binary);
    std::ostringstream old;
    old << previous.rdbuf();
    if (previous && old.str() == text) return true;
    previous.close();
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    return static_cast<bool>(out);
}

}  // namespace canitrun::snapshot
