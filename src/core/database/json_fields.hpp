#pragma once
// Typed, bounded access to the fields of one database entry. A bad field throws
// DatabaseError naming the entry and the field; parse_database() turns it into an Error.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

namespace canitrun::detail {

struct DatabaseError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

class Fields {
  public:
    Fields(const nlohmann::json& object, std::string where);

    const std::string& where() const { return where_; }
    bool has(const char* key) const;
    const nlohmann::json& at(const char* key) const;
    Fields child(const char* key) const;

    std::string text(const char* key) const;  // required, non-empty
    std::string text_or(const char* key, const std::string& fallback) const;
    std::uint64_t count(const char* key, std::uint64_t min, std::uint64_t max) const;
    std::uint64_t count_or(const char* key, std::uint64_t fallback, std::uint64_t max) const;
    double number(const char* key, double min, double max) const;
    double number_or(const char* key, double fallback, double max) const;
    bool flag_or(const char* key, bool fallback) const;
    std::vector<std::string> texts_or_empty(const char* key) const;

    [[noreturn]] void error(const std::string& what) const;

  private:
    const nlohmann::json& object_;
    std::string where_;
};

}  // namespace canitrun::detail
