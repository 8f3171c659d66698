#pragma once
// One JSON document written once, to either of two places: JsonTree builds the nlohmann tree
// (for a command that adds to the document or takes a part of it), JsonText writes the bytes
// nlohmann's dump(2) would write for that tree, keys in byte order, without building it. A
// served model answer spent a third of its time building the tree (a map node and a key
// string per member) and walking it again to print (bench/RESULTS.md).

#include <concepts>
#include <cstdint>
#include <cstring>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace canitrun::cli {

class JsonSink {
  public:
    virtual ~JsonSink() = default;
    JsonSink() = default;
    JsonSink(const JsonSink&) = delete;
    JsonSink& operator=(const JsonSink&) = delete;

    virtual void begin_object() = 0;
    virtual void end_object() = 0;
    virtual void begin_array() = 0;
    virtual void end_array() = 0;
    // The name of the next value, inside an object.
    virtual void key(std::string_view name) = 0;
    virtual void null() = 0;
    virtual void boolean(bool v) = 0;
    virtual void integer(std::int64_t v) = 0;
    virtual void unsigned_integer(std::uint64_t v) = 0;
    virtual void floating(double v) = 0;  // a float arrives as its double, as nlohmann holds it
    virtual void string(std::string_view v) = 0;

    // A value of any type nlohmann::json is built from in src/cli's documents: the same JSON
    // type (signed integers, unsigned, floating point, strings), nullopt as null, a vector as
    // an array.
    template <typename T>
    void value(const T& v) {
        if constexpr (std::is_same_v<T, bool>) {
            boolean(v);
        } else if constexpr (std::is_same_v<T, std::nullptr_t>) {
            null();
        } else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
            integer(static_cast<std::int64_t>(v));
        } else if constexpr (std::is_integral_v<T>) {
            unsigned_integer(static_cast<std::uint64_t>(v));
        } else if constexpr (std::is_floating_point_v<T>) {
            floating(static_cast<double>(v));
        } else if constexpr (std::is_convertible_v<const T&, std::string_view>) {
            string(std::string_view(v));
        } else if constexpr (requires {
                                 v.has_value();
                                 *v;
                             }) {
            if (v) {
                value(*v);
            } else {
                null();
            }
        } else {
            begin_array();
            for (const auto& e : v) value(e);
            end_array();
        }
    }
    template <typename T>
    void field(std::string_view name, const T& v) {
        key(name);
        value(v);
    }
};

// Builds the nlohmann tree.
class JsonTree final : public JsonSink {
  public:
    void begin_object() override;
    void end_object() override;
    void begin_array() override;
    void end_array() override;
    void key(std::string_view name) override;
    void null() override;
    void boolean(bool v) override;
    void integer(std::int64_t v) override;
    void unsigned_integer(std::uint64_t v) override;
    void floating(double v) override;
    void string(std::string_view v) override;
    nlohmann::json take() { return std::move(root_); }

  private:
    // The new value's place: the root, the open object's member named by key(), or the end
    // of the open array.
    nlohmann::json& place(nlohmann::json v);
    nlohmann::json root_;
    std::vector<nlohmann::json*> open_;
    std::string key_;
};

// Writes the text of dump(2): two spaces a level, each object's members in the byte order of
// their names (nlohmann's std::map), arrays in order, strings escaped as nlohmann escapes them.
class JsonText final : public JsonSink {
  public:
    JsonText() { out_.grow(std::size_t{1} << 17); }  // a model page's document is ~74 KB
    void begin_object() override;
    void end_object() override;
    void begin_array() override;
    void end_array() override;
    void key(std::string_view name) override;
    void null() override;
    void boolean(bool v) override;
    void integer(std::int64_t v) override;
    void unsigned_integer(std::uint64_t v) override;
    void floating(double v) override;
    void string(std::string_view v) override;
    // The document; nullopt when a string was not valid UTF-8, where nlohmann's dump throws:
    // the caller then builds the tree and dumps it, so that case fails as it always did.
    std::optional<std::string> take();

  private:
    struct Frame {
        bool object = false;
        bool in_order = true;          // its members so far came in the order of their names
        std::size_t first_member = 0;  // its members in members_ (objects)
        std::size_t elements = 0;      // values written so far (arrays)
        std::size_t first_key = 0;     // its escaped members' names in keys_ (objects)
    };
    struct Member {
        std::size_t key_at = 0;  // the name: in out_ (in_text), else in keys_
        std::size_t key_size = 0;
        std::size_t begin = 0;  // its text in out_: from the line break to the value's end
        std::size_t end = 0;
        // A name written as it is stays where it was written: text before the member's value
        // is not moved while the member's object is open (put_in_order moves an object's own
        // members' text when it closes). Only a name that needed escaping is copied to keys_.
        bool in_text = false;
    };
    std::string_view name_of(const Member& m) const {
        return m.in_text ? out_.view(m.key_at, m.key_size)
                         : std::string_view(keys_).substr(m.key_at, m.key_size);
    }
    // The text written so far: a string whose bytes past size() are room not yet written, so
    // that a piece goes in with one check of the room and a copy (the per-piece bookkeeping
    // of std::string::append was most of the document's time).
    class Buffer {
      public:
        std::size_t size() const { return size_; }
        // n bytes at the end, for the caller to write
        char* room(std::size_t n) {
            if (n > text_.size() - size_) grow(size_ + n);
            char* p = text_.data() + size_;
            size_ += n;
            return p;
        }
        void put(std::string_view s) {
            if (!s.empty()) std::memcpy(room(s.size()), s.data(), s.size());
        }
        void put(char c) { *room(1) = c; }
        std::string_view view(std::size_t at, std::size_t n) const {
            return std::string_view(text_).substr(at, n);
        }
        void truncate(std::size_t n) { size_ = n; }
        void grow(std::size_t need);
        std::string take();

      private:
        std::string text_;
        std::size_t size_ = 0;
    };
    void before_value();
    void new_line(std::size_t levels);
    void put_in_order(std::size_t first);
    void escaped(std::string_view s);
    Buffer out_;
    std::string keys_;
    std::string scratch_;
    std::vector<Frame> open_;
    std::vector<Member> members_;
    std::vector<std::size_t> order_;
    bool invalid_utf8_ = false;
};

// The tree of the document `write` makes: model_report_json(r) is tree_of(write_model_report, r).
template <typename Write, typename... Args>
nlohmann::json tree_of(Write write, const Args&... args) {
    JsonTree t;
    write(t, args...);
    return t.take();
}

}  // namespace canitrun::cli
