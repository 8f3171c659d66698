#include "canitrun/llama_bench.hpp"

#include "canitrun/strings.hpp"

#include "canitrun/bounded_file.hpp"
#include "canitrun/json_bounds.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>

#include "canitrun/llama_log.hpp"
#include "canitrun/speed_check.hpp"

// The formats, from llama.cpp's tools/llama-bench/llama-bench.cpp (examples/llama-bench/ before
// mid 2025): the markdown printer writes `| %*s |` cells under a header of display names
// (ngl, fa, mmap, ...) and a `| ---: |` rule, then `build: <commit> (<number>)`; csv, json and
// jsonl write the field names of test::get_fields(). No regex anywhere: std::regex recurses
// once per character and a long line overflows the stack.

namespace canitrun {
namespace {

using Fields = std::map<std::string, std::string, std::less<>>;

constexpr std::string_view kPlusMinus = "\xC2\xB1";  // "±" in UTF-8

// The longest model, backend, device or build text kept from a table: llama-bench's model
// description is cut to 127 bytes. Blank cells, device lines and the build line are copied
// into every row after them, so unbounded ones would let a small text grow a huge result.
constexpr std::size_t kMaxNameBytes = 128;

// The text one line at a time, without copying; `too_long` flags a line over the cap.
class Lines {
  public:
    explicit Lines(std::string_view text) : text_(text) {}
    bool next(std::string_view& line, bool& too_long) {
        if (pos_ >= text_.size()) return false;
        auto end = text_.find('\n', pos_);
        if (end == std::string_view::npos) end = text_.size();
        line = text_.substr(pos_, end - pos_);
        offset_ = pos_;
        pos_ = end + 1;
        too_long = line.size() > kMaxBenchLineBytes;
        return true;
    }
    std::size_t offset() const { return offset_; }  // where the last line began

  private:
    std::string_view text_;
    std::size_t pos_ = 0;
    std::size_t offset_ = 0;
};

// Calls `fn` with each line, trimmed; lines over the cap are counted in `out` instead.
template <typename F>
void each_line(std::string_view text, LlamaBenchOutput& out, F&& fn) {
    Lines lines(text);
    std::string_view line;
    bool too_long = false;
    while (lines.next(line, too_long)) {
        if (too_long) {
            ++out.skipped_lines;
        } else {
            fn(trim_view(line));
        }
    }
}

// A result row, or one more line that could not be read.
void add_row(LlamaBenchOutput& out, std::optional<LlamaBenchRow> row) {
    if (row) {
        out.rows.push_back(std::move(*row));
    } else {
        ++out.skipped_lines;
    }
}

template <typename T>
std::optional<T> to_number(std::string_view s) {
    T v{};
    const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || r.ec != std::errc() || r.ptr != s.data() + s.size()) return std::nullopt;
    return v;
}

// A rate or a deviation: finite and not negative, or nothing.
std::optional<double> to_rate(std::string_view s) {
    const auto v = to_number<double>(s);
    if (!v || !std::isfinite(*v) || *v < 0) return std::nullopt;
    return *v + 0.0;  // -0 -> 0
}

// "4.58", as llama-bench's %.2f prints: short enough that decimal_to_bytes cannot overflow
// into a wrong number (it returns 0 on overflow, caught below).
bool is_decimal(std::string_view s) {
    const auto dot = s.find('.');
    const auto whole = s.substr(0, dot);
    const auto frac = dot == std::string_view::npos ? std::string_view{} : s.substr(dot + 1);
    const auto digits = [](std::string_view d) {
        return d.find_first_not_of("0123456789") == std::string_view::npos;
    };
    if (whole.empty() || whole.size() > 15 || !digits(whole) || !digits(frac)) return false;
    return dot == std::string_view::npos || (!frac.empty() && frac.size() <= 6);
}

// "4.58 GiB" -> bytes (unit "GiB"/"MiB" -> 2^30/2^20), "8.03 B" -> count (unit "B"/"M").
std::optional<std::uint64_t> scaled_cell(std::string_view cell, std::string_view unit_a,
                                         std::uint64_t a, std::string_view unit_b,
                                         std::uint64_t b) {
    const auto space = cell.rfind(' ');
    if (space == std::string_view::npos) return std::nullopt;
    const auto number = trim_view(cell.substr(0, space));
    const auto unit = cell.substr(space + 1);
    if (!is_decimal(number) || (unit != unit_a && unit != unit_b)) return std::nullopt;
    const std::uint64_t v = decimal_to_bytes(std::string(number), unit == unit_a ? a : b);
    if (v == 0 && number.find_first_of("123456789") != std::string_view::npos) return std::nullopt;
    return v;
}

// "pp512", "tg128", "pp512+tg128", each with " @ d4096" when run at a depth ("pp 512" before
// mid 2024): read by parse_bench_test, the one reader of test names.
bool read_test(std::string_view cell, LlamaBenchRow& row) {
    const auto test = parse_bench_test(cell);
    if (!test) return false;
    row.n_prompt = test->n_prompt;
    row.n_gen = test->n_gen;
    row.n_depth = test->depth;
    return true;
}

// The name llama-bench's markdown printer gives a test today.
std::string test_name(const LlamaBenchRow& row) {
    std::string name;
    if (row.n_prompt > 0) name = "pp" + std::to_string(row.n_prompt);
    if (row.n_prompt > 0 && row.n_gen > 0) name += "+";
    if (row.n_gen > 0) name += "tg" + std::to_string(row.n_gen);
    if (row.n_depth > 0) name += " @ d" + std::to_string(row.n_depth);
    return name;
}

// "5981.04 ± 24.41" (also "+/-", for tables retyped by hand); a lone number has no deviation.
bool read_rate(std::string_view cell, LlamaBenchRow& row) {
    const std::size_t pm = cell.find(kPlusMinus);
    const std::size_t sep = pm != std::string_view::npos ? pm : cell.find("+/-");
    const std::size_t sep_len = pm != std::string_view::npos ? kPlusMinus.size() : 3;
    const auto mean = to_rate(trim_view(cell.substr(0, sep)));
    if (!mean) return false;
    row.tokens_per_second = *mean;
    row.stddev.reset();
    if (sep == std::string_view::npos) return true;
    row.stddev = to_rate(trim_view(cell.substr(sep + sep_len)));
    return row.stddev.has_value();
}

// flash_attn: 0/1 (a bool before late 2025), -1 for auto since; "on"/"off"/"auto" as typed.
bool read_flash_attn(std::string_view v, std::optional<bool>& out) {
    const bool on = v == "1" || v == "true" || v == "on";
    const bool off = v == "0" || v == "false" || v == "off";
    if (!on && !off && v != "-1" && v != "auto") return false;
    out = on || off ? std::optional<bool>(on) : std::nullopt;
    return true;
}

template <typename T>
bool read_int(std::string_view v, std::optional<T>& out) {
    out = to_number<T>(v);
    return out.has_value();
}

// "| a | b |" -> {"a", "b"}; the line starts with '|' once trimmed.
std::vector<std::string_view> split_cells(std::string_view line) {
    line = trim_view(line);
    line.remove_prefix(1);
    if (line.ends_with('|')) line.remove_suffix(1);
    std::vector<std::string_view> cells;
    for (std::size_t pos = 0;;) {
        const auto bar = line.find('|', pos);
        cells.push_back(trim_view(
            line.substr(pos, bar == std::string_view::npos ? std::string_view::npos : bar - pos)));
        if (bar == std::string_view::npos) break;
        pos = bar + 1;
    }
    return cells;
}

bool is_table_header(std::string_view line) {
    if (!trim_view(line).starts_with('|')) return false;
    const auto cells = split_cells(line);
    const auto has = [&](std::string_view name) { return std::ranges::count(cells, name) > 0; };
    return has("model") && has("test") && has("t/s");
}

bool is_rule(const std::vector<std::string_view>& cells) {
    return std::ranges::all_of(cells, [](std::string_view c) {
        return !c.empty() && c.find_first_not_of("-:") == std::string_view::npos;
    });
}

// One table: its column names, and the previous row's values, which blank cells repeat (a
// llama-bench variant printed repeated values blank: llama.cpp PR #10140).
struct MdTable {
    std::vector<std::string> columns;
    std::vector<std::string> previous;
};

// The row's cells under the table's columns. An `ot` cell (a tensor-override regex) may hold
// '|' itself: then the cells left of it are read from the left and the rest from the right.
bool align_cells(const MdTable& table, const std::vector<std::string_view>& cells,
                 std::vector<std::string>& out) {
    const std::size_t n = table.columns.size();
    std::size_t ot = n;
    for (std::size_t i = 0; i < n; ++i) {
        if (table.columns[i] == "ot") ot = i;
    }
    if (cells.size() != n && (ot == n || cells.size() < n)) return false;
    out.clear();
    for (std::size_t i = 0; i < n; ++i) {
        const std::size_t from = i <= ot ? i : cells.size() - (n - i);
        out.emplace_back(cells[from]);
    }
    return true;
}

bool set_md_cell(LlamaBenchRow& row, std::string_view column, std::string_view v) {
    const bool text =
        column == "model" || column == "backend" || column == "type_k" || column == "type_v";
    if (text && v.size() > kMaxNameBytes) return false;
    if (column == "model") row.model = v;
    if (column == "backend") row.backend = v;
    if (column == "type_k") row.type_k = v;
    if (column == "type_v") row.type_v = v;
    if (column == "size")
        return (row.size = scaled_cell(v, "GiB", 1ULL << 30, "MiB", 1ULL << 20)).has_value();
    if (column == "params")
        return (row.params = scaled_cell(v, "B", 1000000000, "M", 1000000)).has_value();
    if (column == "ngl") return read_int(v, row.ngl);
    if (column == "fa") return read_flash_attn(v, row.flash_attn);
    if (column == "n_ubatch") return read_int(v, row.n_ubatch);
    if (column == "n_batch") return read_int(v, row.n_batch);
    if (column == "test") return read_test(v, row);
    if (column == "t/s") return read_rate(v, row);
    return true;  // threads, dev, sm, mmap, ...: not kept
}

// A table row, or nothing when a cell does not read as llama-bench prints it.
std::optional<LlamaBenchRow> md_row(MdTable& table, const std::vector<std::string_view>& cells) {
    std::vector<std::string> values;
    if (!align_cells(table, cells, values)) return std::nullopt;
    bool any = false;
    for (std::size_t i = 0; i < values.size(); ++i) {
        any = any || !values[i].empty();
        if (values[i].empty() && i < table.previous.size()) values[i] = table.previous[i];
    }
    if (!any) return std::nullopt;
    LlamaBenchRow row;
    for (std::size_t i = 0; i < values.size(); ++i) {
        if (!set_md_cell(row, table.columns[i], values[i])) return std::nullopt;
    }
    if (row.model.empty()) return std::nullopt;
    row.test = test_name(row);
    table.previous = std::move(values);
    return row;
}

// "  Device 0: NVIDIA GeForce RTX 4090, compute capability 8.9, VMM: yes" (CUDA) or
// "  Device 0: AMD Radeon Graphics, gfx1151 (0x1151), VMM: no, Wave Size: 32" (ROCm): the
// name, which is what json's gpu_info holds for these backends.
std::optional<std::string_view> device_name(std::string_view line) {
    line = trim_view(line);
    if (!line.starts_with("Device ")) return std::nullopt;
    const auto colon = line.find(": ");
    const auto comma = line.find(", ");
    if (colon == std::string_view::npos || comma == std::string_view::npos || comma <= colon + 2 ||
        comma - colon - 2 > kMaxNameBytes || line.find("VMM:") == std::string_view::npos) {
        return std::nullopt;
    }
    return line.substr(colon + 2, comma - colon - 2);
}

LlamaBenchOutput parse_markdown(std::string_view text) {
    LlamaBenchOutput out;
    out.format = "markdown";
    std::optional<MdTable> table;
    std::string gpus;  // as json's gpu_info joins them
    std::size_t n_gpus = 0;
    std::size_t unstamped = 0;
    each_line(text, out, [&](std::string_view t) {
        if (t.starts_with("ggml_cuda_init: found ")) {  // a new run's devices
            gpus.clear();
            n_gpus = 0;
        }
        const auto name = device_name(t);
        if (name && n_gpus++ < kGgmlMaxDevices) gpus.append(gpus.empty() ? "" : ", ").append(*name);
        if (t.starts_with("build: ") && t.size() <= 7 + kMaxNameBytes) {  // after its rows
            for (; unstamped < out.rows.size(); ++unstamped) {
                out.rows[unstamped].build = trim_view(t.substr(7));
            }
        }
        if (!t.starts_with('|')) return;
        const auto cells = split_cells(t);
        if (is_table_header(t)) {
            table.emplace();
            table->columns.assign(cells.begin(), cells.end());
        } else if (table && !is_rule(cells)) {
            auto row = md_row(*table, cells);
            if (row) row->gpu_info = gpus;
            add_row(out, std::move(row));
        }
    });
    return out;
}

std::optional<std::string_view> field(const Fields& f, std::string_view name) {
    const auto it = f.find(name);
    if (it == f.end()) return std::nullopt;
    return std::string_view(it->second);
}

// Before the backend registry (late 2024) json/csv had one flag per backend instead of
// `backends`; test::get_backend() named the first one set, in this order.
std::string backend_from_flags(const Fields& f) {
    // clang-format off
    static constexpr std::array<std::pair<std::string_view, std::string_view>, 8> kFlags{{
        {"cuda", "CUDA"}, {"vulkan", "Vulkan"}, {"kompute", "Kompute"}, {"metal", "Metal"},
        {"sycl", "SYCL"}, {"opencl", "OpenCL"}, {"gpu_blas", "GPU BLAS"}, {"blas", "BLAS"}}};
    // clang-format on
    bool any = false;
    for (const auto& [name, backend] : kFlags) {
        const auto v = field(f, name);
        if (v && *v == "1") return std::string(backend);
        any = any || v.has_value();
    }
    return any ? "CPU" : "";
}

// One result from its fields (json/jsonl/csv share the names and, through json_fields, the
// text). Optional fields that do not read are left out; the test and the rate must read.
std::optional<LlamaBenchRow> fields_row(const Fields& f) {
    LlamaBenchRow row;
    const auto n_prompt = field(f, "n_prompt").and_then(to_number<std::uint64_t>);
    const auto n_gen = field(f, "n_gen").and_then(to_number<std::uint64_t>);
    const auto depth = field(f, "n_depth");  // since mid 2025
    const auto n_depth = depth ? to_number<std::uint64_t>(*depth) : std::optional<std::uint64_t>(0);
    const auto avg = field(f, "avg_ts").and_then(to_rate);
    if (!n_prompt || !n_gen || !n_depth || !avg || !bench_test(*n_prompt, *n_gen, *n_depth)) {
        return std::nullopt;  // the counts pass the rule the table's test names pass
    }
    row.n_prompt = *n_prompt;
    row.n_gen = *n_gen;
    row.n_depth = *n_depth;
    row.n_ubatch = field(f, "n_ubatch").and_then(to_number<std::uint64_t>);
    row.n_batch = field(f, "n_batch").and_then(to_number<std::uint64_t>);
    row.tokens_per_second = *avg;
    row.stddev = field(f, "stddev_ts").and_then(to_rate);
    row.model = field(f, "model_type").value_or("");
    row.size = field(f, "model_size").and_then(to_number<std::uint64_t>);
    row.params = field(f, "model_n_params").and_then(to_number<std::uint64_t>);
    const auto backends = field(f, "backends");
    row.backend = backends ? std::string(*backends) : backend_from_flags(f);
    row.ngl = field(f, "n_gpu_layers").and_then(to_number<int>);
    if (const auto fa = field(f, "flash_attn"); fa && !read_flash_attn(*fa, row.flash_attn)) {
        row.flash_attn.reset();
    }
    row.type_k = field(f, "type_k").value_or("");
    row.type_v = field(f, "type_v").value_or("");
    row.gpu_info = field(f, "gpu_info").value_or("");
    const auto commit = field(f, "build_commit").value_or("");
    const auto number = field(f, "build_number");
    row.build = std::string(commit);
    if (!commit.empty() && number) row.build += " (" + std::string(*number) + ")";
    row.test = test_name(row);
    return row;
}

// A json object's scalar members as csv would print them: strings as they are, bools 1/0,
// numbers in their shortest exact form. Arrays (samples_ns, samples_ts) are dropped. Every
// value's type is checked before it is read: a wrong-typed get<> throws.
Fields json_fields(const nlohmann::json& object) {
    Fields f;
    for (auto it = object.begin(); it != object.end(); ++it) {
        const auto& value = it.value();
        std::string text;
        if (value.is_string()) {
            text = value.get_ref<const std::string&>();
        } else if (value.is_boolean()) {
            text = value.get<bool>() ? "1" : "0";
        } else if (value.is_number_unsigned()) {
            text = std::to_string(value.get<std::uint64_t>());
        } else if (value.is_number_integer()) {
            text = std::to_string(value.get<std::int64_t>());
        } else if (value.is_number_float()) {
            std::array<char, 64> buf{};
            const auto r = std::to_chars(buf.data(), buf.data() + buf.size(), value.get<double>());
            text.assign(buf.data(), r.ptr);
        } else {
            continue;
        }
        f.emplace(it.key(), std::move(text));
    }
    return f;
}

void add_json_result(const nlohmann::json& value, LlamaBenchOutput& out) {
    add_row(out, value.is_object() ? fields_row(json_fields(value)) : std::nullopt);
}

// Only the lines that can belong to llama-bench's json: stderr lines (progress, device
// lines) that landed inside the array when both streams were captured are dropped.
std::string json_lines_only(std::string_view text, std::uint64_t& dropped) {
    std::string kept;
    Lines lines(text);
    std::string_view line;
    bool too_long = false;
    while (lines.next(line, too_long)) {
        const auto t = trim_view(line);
        if (t.empty() || std::string_view("[]{},\"").find(t.front()) != std::string_view::npos) {
            kept.append(line).push_back('\n');
        } else {
            ++dropped;
        }
    }
    return kept;
}

// `-o json`: "[", one object per test, "]". From the opening line to the last "]" line, so
// stderr after it does not matter.
Result<LlamaBenchOutput> parse_json(std::string_view text, std::size_t begin) {
    LlamaBenchOutput out;
    out.format = "json";
    std::size_t end = text.rfind("\n]");
    end = end == std::string_view::npos || end < begin ? text.rfind(']') : end + 1;
    if (end == std::string_view::npos || end < begin) end = text.size() - 1;
    const auto range = text.substr(begin, end + 1 - begin);
    CANITRUN_TRY(check_json_bounds(range, "this llama-bench JSON output",
                                   JsonBounds{.max_bytes = kMaxLogFileBytes}));
    auto doc = nlohmann::json::parse(range.begin(), range.end(), nullptr, false);
    if (doc.is_discarded()) {
        const std::string kept = json_lines_only(range, out.skipped_lines);
        doc = nlohmann::json::parse(kept, nullptr, false);
    }
    if (doc.is_discarded() || !doc.is_array()) {
        return fail(ErrorKind::bad_input, "this llama-bench JSON output does not parse",
                    "give the whole output of llama-bench -o json, from [ to ]");
    }
    for (const auto& value : doc) add_json_result(value, out);
    return out;
}

// `-o jsonl`: one object per line; other lines (stderr) are passed over.
LlamaBenchOutput parse_jsonl(std::string_view text) {
    LlamaBenchOutput out;
    out.format = "jsonl";
    each_line(text, out, [&](std::string_view t) {
        if (t.starts_with('{') && check_json_bounds(t, "a llama-bench JSON line")) {
            add_json_result(nlohmann::json::parse(t.begin(), t.end(), nullptr, false), out);
        }
    });
    return out;
}

// One csv record as llama-bench writes it: each field in double quotes, "" for a quote in
// it (unquoted fields, as in the header, are taken as they are).
std::optional<std::vector<std::string>> csv_record(std::string_view line) {
    std::vector<std::string> fields(1);
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
            fields.back() += '"';
            ++i;
        } else if (c == '"') {
            quoted = !quoted;
        } else if (c == ',' && !quoted) {
            fields.emplace_back();
        } else {
            fields.back() += c;
        }
    }
    if (quoted) return std::nullopt;
    return fields;
}

bool is_csv_header(std::string_view t) {
    return t.find(',') != std::string_view::npos &&
           t.find_first_of("\"{|") == std::string_view::npos &&
           t.find("avg_ts") != std::string_view::npos &&
           t.find("n_prompt") != std::string_view::npos;
}

// `-o csv`: a header of field names, then one record per test.
LlamaBenchOutput parse_csv(std::string_view text) {
    LlamaBenchOutput out;
    out.format = "csv";
    std::vector<std::string> header;
    each_line(text, out, [&](std::string_view t) {
        if (is_csv_header(t)) {
            header = csv_record(t).value_or(std::vector<std::string>{});
        } else if (!header.empty() && t.starts_with('"')) {
            const auto record = csv_record(t);
            std::optional<LlamaBenchRow> row;
            if (record && record->size() == header.size()) {
                Fields f;
                for (std::size_t i = 0; i < header.size(); ++i) f.emplace(header[i], (*record)[i]);
                row = fields_row(f);
            }
            add_row(out, std::move(row));
        }
    });
    return out;
}

enum class Format { markdown, csv, json_array, jsonl, none };

// The format a line can only come from: a table header, a csv header, a json array's "[" or a
// jsonl object.
Format format_of(std::string_view t) {
    if (is_table_header(t)) return Format::markdown;
    if (is_csv_header(t)) return Format::csv;
    const auto rest = t.starts_with('[') ? trim_view(t.substr(1)) : std::string_view("x");
    if (rest.empty() || rest.front() == '{' || rest.front() == ']') return Format::json_array;
    return t.starts_with('{') && t.ends_with('}') ? Format::jsonl : Format::none;
}

Result<LlamaBenchOutput> no_rows(const LlamaBenchOutput& out) {
    if (out.format == "markdown" && out.skipped_lines == 0) {
        return fail(ErrorKind::bad_input, "the llama-bench table has a header but no result rows",
                    "llama-bench prints a row as each test ends; the run may have failed first");
    }
    return fail(ErrorKind::bad_input,
                "no llama-bench result in this " + out.format + " output could be read (" +
                    std::to_string(out.skipped_lines) + " lines skipped)",
                "each result needs its test (pp512, tg128) and its t/s as llama-bench prints them");
}

}  // namespace

// Each format seen is tried once, in the order its first line appears: a stray "{...}" line
// before a table does not hide the table.
Result<LlamaBenchOutput> parse_llama_bench(std::string_view text) {
    Lines lines(text);
    std::string_view line;
    bool too_long = false;
    std::array<bool, 4> tried{};
    std::optional<Result<LlamaBenchOutput>> first;  // the first format's answer, for its error
    while (lines.next(line, too_long)) {
        const Format f = too_long ? Format::none : format_of(trim_view(line));
        if (f == Format::none || tried.at(static_cast<std::size_t>(f))) continue;
        tried.at(static_cast<std::size_t>(f)) = true;
        auto parsed = f == Format::markdown     ? parse_markdown(text)
                      : f == Format::csv        ? parse_csv(text)
                      : f == Format::json_array ? parse_json(text, lines.offset())
                                                : parse_jsonl(text);
        if (parsed && !parsed->rows.empty()) return parsed;
        if (!first) first = std::move(parsed);
    }
    if (!first) {
        return fail(ErrorKind::bad_input, "no llama-bench results in this text",
                    "give llama-bench's output: its markdown table (the default), or what "
                    "-o json, -o jsonl or -o csv prints");
    }
    if (first->has_value()) return no_rows(**first);
    return std::move(*first);
}

}  // namespace canitrun
