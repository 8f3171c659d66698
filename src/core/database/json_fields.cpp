#include "json_fields.hpp"

#include <cmath>

#include "canitrun/strings.hpp"

namespace canitrun::detail {

Fields::Fields(const nlohmann::json& object, std::string where)
    : object_(object), where_(std::move(where)) {
    if (!object_.is_object()) error("is not a JSON object");
}

void Fields::error(const std::string& what) const {
    throw DatabaseError(where_ + ": " + what);
}

bool Fields::has(const char* key) const {
    return object_.contains(key) && !object_.at(key).is_null();
}

const nlohmann::json& Fields::at(const char* key) const {
    if (!has(key)) error(std::string("missing field '") + key + "'");
    return object_.at(key);
}

Fields Fields::child(const char* key) const {
    return {at(key), where_ + "." + key};
}

std::string Fields::text(const char* key) const {
    const auto& v = at(key);
    if (!v.is_string()) error(std::string("field '") + key + "' must be a string");
    auto s = printable_text(v.get<std::string>());  // every name and text is printed
    if (s.empty()) error(std::string("field '") + key + "' is empty");
    return s;
}

std::string Fields::text_or(const char* key, const std::string& fallback) const {
    if (!has(key)) return fallback;
    const auto& v = at(key);
    if (!v.is_string()) error(std::string("field '") + key + "' must be a string");
    return v.get<std::string>().empty() ? fallback : printable_text(v.get<std::string>());
}

std::uint64_t Fields::count(const char* key, std::uint64_t min, std::uint64_t max) const {
    const auto& v = at(key);
    const std::string name = std::string("field '") + key + "'";
    std::uint64_t n = 0;
    if (v.is_number_unsigned()) {
        n = v.get<std::uint64_t>();
    } else if (v.is_number_integer()) {
        error(name + " = " + v.dump() + " must not be negative");
    } else if (v.is_number_float()) {
        // JSON writers print big integers such as 35000000000 as 3.5e10: accept whole values.
        const double d = v.get<double>();
        if (!std::isfinite(d) || d < 0 || std::trunc(d) != d || d >= 9.2e18) {
            error(name + " = " + v.dump() + " must be a whole, non-negative number");
        }
        n = static_cast<std::uint64_t>(d);
    } else {
        error(name + " must be a whole number");
    }
    if (n < min || n > max) {
        error(name + " = " + v.dump() + " is outside " + std::to_string(min) + ".." +
              std::to_string(max));
    }
    return n;
}

std::uint64_t Fields::count_or(const char* key, std::uint64_t fallback, std::uint64_t max) const {
    return has(key) ? count(key, 0, max) : fallback;
}

double Fields::number(const char* key, double min, double max) const {
    const auto& v = at(key);
    if (!v.is_number()) error(std::string("field '") + key + "' must be a number");
    const double d = v.get<double>();
    if (!std::isfinite(d) || d < min || d > max) {
        error(std::string("field '") + key + "' = " + v.dump() + " is outside the sensible range");
    }
    return d;
}

double Fields::number_or(const char* key, double fallback, double max) const {
    return has(key) ? number(key, 0, max) : fallback;
}

bool Fields::flag_or(const char* key, bool fallback) const {
    if (!has(key)) return fallback;
    const auto& v = at(key);
    if (!v.is_boolean()) error(std::string("field '") + key + "' must be true or false");
    return v.get<bool>();
}

std::vector<std::string> Fields::texts_or_empty(const char* key) const {
    std::vector<std::string> out;
    if (!has(key)) return out;
    const auto& v = at(key);
    if (!v.is_array()) error(std::string("field '") + key + "' must be an array of strings");
    for (const auto& item : v) {
        if (!item.is_string())
            error(std::string("field '") + key + "' must be an array of strings");
        out.push_back(printable_text(item.get<std::string>()));
    }
    return out;
}

}  // namespace canitrun::detail
