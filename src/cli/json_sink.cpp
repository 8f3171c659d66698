#include "json_sink.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstring>
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

// a < b in byte order, as std::string_view compares them (char_traits<char> compares bytes as
// unsigned char), the first byte alone deciding where it differs: most neighbouring names do.
bool name_before(std::string_view a, std::string_view b) {
    if (!a.empty() && !b.empty() && a.front() != b.front()) {
        return static_cast<unsigned char>(a.front()) < static_cast<unsigned char>(b.front());
    }
    return a < b;
}

bool all_plain(std::string_view s) {
    for (const char c : s) {
        if (!plain(static_cast<unsigned char>(c))) return false;
    }
    return true;
}

// A comma, a line break and the indents of 31 levels: the text before a member or an element.
constexpr std::string_view kLine =
    ",\n                                                              ";
constexpr std::size_t kLineLevels = (kLine.size() - 2) / 2;

// A line break and the indent of `levels`, after a comma or not; empty where the levels are
// more than kLine holds, whose text the caller then writes with new_line.
std::string_view line_of(bool comma, std::size_t levels) {
    if (levels > kLineLevels) return {};
    return kLine.substr(comma ? 0 : 1, (comma ? 2 : 1) + 2 * levels);
}

}  // namespace

// ---- JsonText::Buffer ----

void JsonText::Buffer::grow(std::size_t need) {
    // The bytes past size_ are written before they are read (room()), so they need no value.
    text_.resize_and_overwrite(std::max(need, 2 * text_.size()),
                               [](char*, std::size_t n) { return n; });
}

std::string JsonText::Buffer::take() {
    text_.resize(size_);
    size_ = 0;
    return std::move(text_);
}

// A line break and the indent of `levels`, however deep.
void JsonText::new_line(std::size_t levels) {
    if (levels <= kLineLevels) {
        out_.put(line_of(false, levels));
    } else {
        out_.put('\n');
        std::memset(out_.room(2 * levels), ' ', 2 * levels);
    }
}

// nlohmann's dump_escaped without ensure_ascii: '"', '\\' and the control characters escaped
// (\b \t \n \f \r, else \u00xx in lower case), every other valid UTF-8 byte as it is.
void JsonText::escaped(std::string_view s) {
    std::size_t i = 0;
    while (i < s.size()) {
        std::size_t run = i;
        while (run < s.size() && plain(static_cast<unsigned char>(s[run]))) ++run;
        out_.put(s.substr(i, run - i));
        i = run;
        if (i == s.size()) break;
        const auto c = static_cast<unsigned char>(s[i]);
        if (c >= 0x80) {
            const std::size_t n = utf8_sequence(s, i);
            if (n == 0) {
                invalid_utf8_ = true;
                return;
            }
            out_.put(s.substr(i, n));
            i += n;
            continue;
        }
        switch (c) {
            case '"':
                out_.put("\\\"");
                break;
            case '\\':
                out_.put("\\\\");
                break;
            case '\b':
                out_.put("\\b");
                break;
            case '\t':
                out_.put("\\t");
                break;
            case '\n':
                out_.put("\\n");
                break;
            case '\f':
                out_.put("\\f");
                break;
            case '\r':
                out_.put("\\r");
                break;
            default: {
                constexpr std::string_view hex = "0123456789abcdef";
                out_.put("\\u00");
                out_.put(hex[c >> 4u]);
                out_.put(hex[c & 0xFu]);
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
    const bool comma = array.elements++ > 0;
    const std::string_view line = line_of(comma, open_.size());
    if (!line.empty()) return out_.put(line);
    if (comma) out_.put(',');
    new_line(open_.size());
}

void JsonText::begin_object() {
    before_value();
    open_.push_back(Frame{true, true, members_.size(), 0, keys_.size()});
    out_.put('{');
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
        out_.put('}');
        return;
    }
    members_.back().end = out_.size();
    if (!f.in_order) put_in_order(f.first_member);
    new_line(open_.size());
    out_.put('}');
    keys_.resize(f.first_key);
    members_.resize(f.first_member);
}

void JsonText::put_in_order(std::size_t first) {
    const std::size_t count = members_.size() - first;
    const auto name = [&](std::size_t m) { return name_of(members_[m]); };
    order_.resize(count);
    for (std::size_t i = 0; i < count; ++i) order_[i] = first + i;
    std::sort(order_.begin(), order_.end(),
              [&](std::size_t a, std::size_t b) { return name_before(name(a), name(b)); });
    for (std::size_t i = 1; i < count; ++i) {
        if (name(order_[i - 1]) == name(order_[i])) {
            throw std::logic_error("a JSON object names '" + std::string(name(order_[i])) +
                                   "' twice");
        }
    }
    const std::size_t start = members_[first].begin;
    scratch_.assign(out_.view(start, out_.size() - start));
    out_.truncate(start);
    for (std::size_t i = 0; i < count; ++i) {
        const Member& m = members_[order_[i]];
        if (i > 0) out_.put(',');
        out_.put(std::string_view(scratch_).substr(m.begin - start, m.end - m.begin));
    }
}

void JsonText::begin_array() {
    before_value();
    open_.push_back(Frame{false, true, 0, 0});
    out_.put('[');
}

void JsonText::end_array() {
    const Frame f = open_.back();
    open_.pop_back();
    if (f.elements > 0) new_line(open_.size());
    out_.put(']');
}

// A member's text: its line, indent, name and (written next) value; the comma before it is
// not its own, so members can change places.
void JsonText::key(std::string_view name) {
    if (open_.empty() || !open_.back().object) {
        throw std::logic_error("a JSON key outside an object");
    }
    Frame& f = open_.back();
    const bool comma = members_.size() > f.first_member;
    if (comma) {
        Member& last = members_.back();
        last.end = out_.size();
        // Once out of order, the object is sorted when it closes: no more names to compare.
        if (f.in_order && !name_before(name_of(last), name)) f.in_order = false;
    }
    // The member's text starts after the comma.
    const std::size_t begin = out_.size() + (comma ? 1 : 0);
    const std::string_view line = line_of(comma, open_.size());
    if (!line.empty() && all_plain(name)) {
        // The name where it is written, after the line and its quote.
        members_.push_back(Member{out_.size() + line.size() + 1, name.size(), begin, 0, true});
        // The line, the name and its colon with one check of the room (most keys are these).
        char* p = out_.room(line.size() + name.size() + 4);
        std::memcpy(p, line.data(), line.size());
        p += line.size();
        *p++ = '"';
        if (!name.empty()) std::memcpy(p, name.data(), name.size());
        p += name.size();
        *p++ = '"';
        *p++ = ':';
        *p = ' ';
        return;
    }
    members_.push_back(Member{keys_.size(), name.size(), begin, 0, false});
    keys_.append(name);
    if (comma) out_.put(',');
    new_line(open_.size());
    out_.put('"');
    escaped(name);
    out_.put("\": ");
}

void JsonText::null() {
    before_value();
    out_.put("null");
}

void JsonText::boolean(bool v) {
    before_value();
    out_.put(v ? std::string_view("true") : std::string_view("false"));
}

void JsonText::integer(std::int64_t v) {
    before_value();
    std::array<char, 24> buf{};
    const auto end = std::to_chars(buf.data(), buf.data() + buf.size(), v).ptr;
    out_.put(std::string_view(buf.data(), end));
}

void JsonText::unsigned_integer(std::uint64_t v) {
    before_value();
    std::array<char, 24> buf{};
    const auto end = std::to_chars(buf.data(), buf.data() + buf.size(), v).ptr;
    out_.put(std::string_view(buf.data(), end));
}

// nlohmann's dump_float: null for NaN and infinity, else its Grisu2 shortest round trip.
void JsonText::floating(double v) {
    before_value();
    if (!std::isfinite(v)) {
        out_.put("null");
        return;
    }
    std::array<char, 64> buf{};
    const char* end = nlohmann::detail::to_chars(buf.data(), buf.data() + buf.size(), v);
    out_.put(std::string_view(buf.data(), end));
}

void JsonText::string(std::string_view v) {
    before_value();
    if (all_plain(v)) {
        char* p = out_.room(v.size() + 2);
        *p = '"';
        if (!v.empty()) std::memcpy(p + 1, v.data(), v.size());
        p[v.size() + 1] = '"';
        return;
    }
    out_.put('"');
    escaped(v);
    out_.put('"');
}

std::optional<std::string> JsonText::take() {
    if (invalid_utf8_) return std::nullopt;
    return out_.take();
}

}  // namespace canitrun::cli
