#include "json_sink.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <stdexcept>

namespace canitrun::cli {

// ---- JsonTree ----

nlohmann::json& JsonTree::place(nlohmann::json v) {
    if (open_.empty()) {
        root_ = std::move(v);
        return root_;
    }
    nlohmann::json& top = *open_.back();
    if (top.is_object()) {
        nlohmann::json& slot = top[key_];
        slot = std::move(v);
        return slot;
    }
    // The open array grows only while no value inside it is open, so a pointer to its last
    // element stays good until that element is closed.
    top.push_back(std::move(v));
    return top.back();
}

void JsonTree::begin_object() {
    open_.push_back(&place(nlohmann::json::object()));
}
void JsonTree::end_object() {
    open_.pop_back();
}
void JsonTree::begin_array() {
    open_.push_back(&place(nlohmann::json::array()));
}
void JsonTree::end_array() {
    open_.pop_back();
}
void JsonTree::key(std::string_view name) {
    key_.assign(name);
}
void JsonTree::null() {
    place(nullptr);
}
void JsonTree::boolean(bool v) {
    place(v);
}
void JsonTree::integer(std::int64_t v) {
    place(v);
}
void JsonTree::unsigned_integer(std::uint64_t v) {
    place(v);
}
void JsonTree::floating(double v) {
    place(v);
}
void JsonTree::string(std::string_view v) {
    place(std::string(v));
}

// ---- JsonText ----

namespace {

// The length of the valid UTF-8 sequence that starts at s[i] (a byte of 0x80 or more), or 0:
// RFC 3629's well-formed sequences, the ones nlohmann's decoder accepts (no overlong forms, no
// surrogates, nothing past U+10FFFF).
std::size_t utf8_sequence(std::string_view s, std::size_t i) {
    const auto byte = [&](std::size_t k) {
        return i + k < s.size() ? static_cast<unsigned char>(s[i + k]) : 0u;
    };
    const unsigned c = byte(0);
    const auto cont = [&](std::size_t k, unsigned lo = 0x80, unsigned hi = 0xBF) {
        const unsigned b = byte(k);
        return b >= lo && b <= hi;
    };
    if (c >= 0xC2 && c <= 0xDF) return cont(1) ? 2 : 0;
    if (c == 0xE0) return cont(1, 0xA0) && cont(2) ? 3 : 0;
    if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF) return cont(1) && cont(2) ? 3 : 0;
    if (c == 0xED) return cont(1, 0x80, 0x9F) && cont(2) ? 3 : 0;
    if (c == 0xF0) return cont(1, 0x90) && cont(2) && cont(3) ? 4 : 0;
    if (c >= 0xF1 && c <= 0xF3) return cont(1) && cont(2) && cont(3) ? 4 : 0;
    if (c == 0xF4) return cont(1, 0x80, 0x8F) && cont(2) && cont(3) ? 4 : 0;
    return 0;
}

// The bytes written as they are without a look at their neighbours: printable ASCII but '"'
// and '\\'. A table, since every byte of the document passes through here.
constexpr std::array<bool, 256> kPlain = [] {
    std::array<bool, 256> t{};
    for (unsigned c = 0x20; c < 0x80; ++c) t[c] = c != '"' && c != '\\';
    return t;
}();

bool plain(unsigned char c) {
    return kPlain[c];
}

// A line break and the indent of `levels`, in one append (most of the document's overhead).
void new_line(std::string& to, std::size_t levels) {
    constexpr std::string_view kSpaces =
        "\n                                                                ";
    if (2 * levels < kSpaces.size()) {
        to.append(kSpaces.data(), 2 * levels + 1);
    } else {
        to += '\n';
        to.append(2 * levels, ' ');
    }
}

}  // namespace

// nlohmann's dump_escaped without ensure_ascii: '"', '\\' and the control characters escaped
// (\b \t \n \f \r, else \u00xx in lower case), every other valid UTF-8 byte as it is.
void JsonText::escaped(std::string& to, std::string_view s) {
    std::size_t i = 0;
    while (i < s.size()) {
        std::size_t run = i;
        while (run < s.size() && plain(static_cast<unsigned char>(s[run]))) ++run;
        to.append(s.data() + i, run - i);
        i = run;
        if (i == s.size()) break;
        const auto c = static_cast<unsigned char>(s[i]);
        if (c >= 0x80) {
            const std::size_t n = utf8_sequence(s, i);
            if (n == 0) {
                invalid_utf8_ = true;
                return;
            }
            to.append(s.data() + i, n);
            i += n;
            continue;
        }
        switch (c) {
            case '"':
                to += "\\\"";
                break;
            case '\\':
                to += "\\\\";
                break;
            case '\b':
                to += "\\b";
                break;
            case '\t':
                to += "\\t";
                break;
            case '\n':
                to += "\\n";
                break;
            case '\f':
                to += "\\f";
                break;
            case '\r':
                to += "\\r";
                break;
            default: {
                constexpr std::string_view hex = "0123456789abcdef";
                to += "\\u00";
                to += hex[c >> 4u];
                to += hex[c & 0xFu];
            }
        }
        ++i;
    }
}

// An array's element starts on a line of its own after a comma; an object's member is placed
// when the object closes; the root needs nothing.
void JsonText::before_value() {
    if (open_.empty() || open_.back().object) return;
    Frame& array = open_.back();
    if (array.elements++ > 0) out_ += ',';
    new_line(out_, open_.size());
}

void JsonText::begin_object() {
    before_value();
    open_.push_back(Frame{true, true, members_.size(), 0});
    out_ += '{';
}

// Each member was written where the code gave it, with its name; the text nlohmann prints has
// the members by name, so an object written out of that order is put in order here, each
// member's text copied once. Objects written in order (the many small ones) are left as they
// are.
void JsonText::end_object() {
    const Frame f = open_.back();
    open_.pop_back();
    const std::size_t count = members_.size() - f.first_member;
    if (count == 0) {
        out_ += '}';
        return;
    }
    members_.back().end = out_.size();
    if (!f.in_order) put_in_order(f.first_member);
    new_line(out_, open_.size());
    out_ += '}';
    keys_.resize(members_[f.first_member].key_at);
    members_.resize(f.first_member);
}

void JsonText::put_in_order(std::size_t first) {
    const std::size_t count = members_.size() - first;
    const auto name = [&](std::size_t m) {
        return std::string_view(keys_).substr(members_[m].key_at, members_[m].key_size);
    };
    order_.resize(count);
    for (std::size_t i = 0; i < count; ++i) order_[i] = first + i;
    std::sort(order_.begin(), order_.end(),
              [&](std::size_t a, std::size_t b) { return name(a) < name(b); });
    for (std::size_t i = 1; i < count; ++i) {
        if (name(order_[i - 1]) == name(order_[i])) {
            throw std::logic_error("a JSON object names '" + std::string(name(order_[i])) +
                                   "' twice");
        }
    }
    const std::size_t start = members_[first].begin;
    scratch_.assign(out_, start);
    out_.resize(start);
    for (std::size_t i = 0; i < count; ++i) {
        const Member& m = members_[order_[i]];
        if (i > 0) out_ += ',';
        out_.append(scratch_, m.begin - start, m.end - m.begin);
    }
}

void JsonText::begin_array() {
    before_value();
    open_.push_back(Frame{false, true, 0, 0});
    out_ += '[';
}

void JsonText::end_array() {
    const Frame f = open_.back();
    open_.pop_back();
    if (f.elements > 0) new_line(out_, open_.size());
    out_ += ']';
}

// A member's text: its line, indent, name and (written next) value; the comma before it is
// not its own, so members can change places.
void JsonText::key(std::string_view name) {
    if (open_.empty() || !open_.back().object) {
        throw std::logic_error("a JSON key outside an object");
    }
    Frame& f = open_.back();
    if (members_.size() > f.first_member) {
        Member& last = members_.back();
        last.end = out_.size();
        if (std::string_view(keys_).substr(last.key_at, last.key_size) >= name) f.in_order = false;
        out_ += ',';
    }
    members_.push_back(Member{keys_.size(), name.size(), out_.size(), 0});
    keys_.append(name);
    new_line(out_, open_.size());
    out_ += '"';
    escaped(out_, name);
    out_ += "\": ";
}

void JsonText::null() {
    before_value();
    out_ += "null";
}

void JsonText::boolean(bool v) {
    before_value();
    out_ += v ? "true" : "false";
}

void JsonText::integer(std::int64_t v) {
    before_value();
    std::array<char, 24> buf{};
    const auto end = std::to_chars(buf.data(), buf.data() + buf.size(), v).ptr;
    out_.append(buf.data(), end);
}

void JsonText::unsigned_integer(std::uint64_t v) {
    before_value();
    std::array<char, 24> buf{};
    const auto end = std::to_chars(buf.data(), buf.data() + buf.size(), v).ptr;
    out_.append(buf.data(), end);
}

// nlohmann's dump_float: null for NaN and infinity, else its Grisu2 shortest round trip.
void JsonText::floating(double v) {
    before_value();
    if (!std::isfinite(v)) {
        out_ += "null";
        return;
    }
    std::array<char, 64> buf{};
    const char* end = nlohmann::detail::to_chars(buf.data(), buf.data() + buf.size(), v);
    out_.append(buf.data(), static_cast<std::size_t>(end - buf.data()));
}

void JsonText::string(std::string_view v) {
    before_value();
    out_ += '"';
    escaped(out_, v);
    out_ += '"';
}

std::optional<std::string> JsonText::take() {
    if (invalid_utf8_) return std::nullopt;
    return std::move(out_);
}

}  // namespace canitrun::cli
