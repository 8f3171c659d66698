// A GPU described in a --gpu-spec file, checked field by field with every problem named.

#include "canitrun/gpu_description.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>

#include "canitrun/json_bounds.hpp"
#include "canitrun/name_match.hpp"
#include "canitrun/strings.hpp"

namespace canitrun {
namespace {

using nlohmann::json;

constexpr const char* kGpuSpecSchema = "docs/schema/gpu-spec.schema.json";
constexpr double kMaxDescribedGb = 100000;  // as the database's bound on vram_gb
constexpr double kGiBytes = 1073741824.0;
constexpr std::size_t kMaxDescribedName = 80;
constexpr std::size_t kMaxDescribedId = 64;

constexpr std::array<const char*, 11> kDescriptionFields = {"$schema",
                                                            "id",
                                                            "name",
                                                            "vendor",
                                                            "memory_gb",
                                                            "memory_bytes",
                                                            "bandwidth_gbps",
                                                            "fp16_tflops",
                                                            "unified",
                                                            "source",
                                                            "unified_gpu_share_percent"};
constexpr std::array<const char*, 5> kDescribedVendors = {"nvidia", "amd", "intel", "apple",
                                                          "other"};

// The backends llama.cpp builds for a vendor's GPUs.
std::vector<std::string> backends_of_vendor(const std::string& vendor) {
    if (vendor == "nvidia") return {"cuda", "vulkan"};
    if (vendor == "amd") return {"rocm", "vulkan"};
    if (vendor == "intel") return {"sycl", "vulkan"};
    if (vendor == "apple") return {"metal"};
    return {"vulkan"};
}

// "Radeon AI PRO R9700" -> "radeon-ai-pro-r9700": the database's id alphabet.
std::string id_from_described_name(const std::string& name) {
    std::string id;
    for (const char c : to_lower(name)) {
        const bool keep = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.';
        if (keep) {
            id += c;
        } else if (!id.empty() && id.back() != '-') {
            id += '-';
        }
    }
    while (!id.empty() && id.back() == '-') id.pop_back();
    return id.substr(0, kMaxDescribedId);
}

bool valid_described_id(const std::string& id) {
    if (id.empty() || id.size() > kMaxDescribedId || id.front() == '-' || id.front() == '.')
        return false;
    return std::all_of(id.begin(), id.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '-';
    });
}

// Reads the fields of one description, keeping a problem for each that is wrong.
class DescriptionFields {
  public:
    DescriptionFields(const json& doc, std::string file) : doc_(doc), file_(std::move(file)) {}

    void problem(const std::string& what, const std::string& hint) {
        problems_.push_back(Error{ErrorKind::bad_input, file_ + ": " + what, hint});
    }

    // A required string field; nullopt (and a problem) when missing or not a string.
    std::optional<std::string> text(const char* key, bool required, const std::string& hint) {
        if (!doc_.contains(key)) {
            if (required) problem(std::string("field '") + key + "' is missing", hint);
            return std::nullopt;
        }
        if (!doc_[key].is_string() || doc_[key].get<std::string>().empty()) {
            problem(std::string("field '") + key + "' must be a non-empty string", hint);
            return std::nullopt;
        }
        return doc_[key].get<std::string>();
    }

    // A number in (min, max]; nullopt (and a problem) when missing, not a number or outside.
    std::optional<double> number(const char* key, double min, double max, const std::string& unit,
                                 bool required = true) {
        const std::string range = "a number of " + unit + " above " + number_text(min) +
                                  " and at most " + number_text(max);
        if (!doc_.contains(key)) {
            if (required) problem(std::string("field '") + key + "' is missing", "give " + range);
            return std::nullopt;
        }
        const json& v = doc_[key];
        if (!v.is_number() || !(v.get<double>() > min) || v.get<double>() > max) {
            problem(std::string("field '") + key + "' = " + printable_text(v.dump()).substr(0, 40) +
                        " is not " + range,
                    std::string("give ") + key + " as " + range);
            return std::nullopt;
        }
        return v.get<double>();
    }

    bool flag(const char* key) {
        if (!doc_.contains(key)) return false;
        if (!doc_[key].is_boolean()) {
            problem(std::string("field '") + key + "' must be true or false",
                    "write \"unified\": true for memory the CPU and GPU share, else false");
            return false;
        }
        return doc_[key].get<bool>();
    }

    const json& doc() const { return doc_; }
    const std::string& file() const { return file_; }
    std::vector<Error> take() { return std::move(problems_); }

  private:
    static std::string number_text(double x) {
        const auto whole = static_cast<std::uint64_t>(x);
        return static_cast<double>(whole) == x ? std::to_string(whole) : std::to_string(x);
    }

    const json& doc_;
    std::string file_;
    std::vector<Error> problems_;
};

void check_described_fields(DescriptionFields& r) {
    const std::vector<std::string> known(kDescriptionFields.begin(), kDescriptionFields.end());
    for (const auto& [key, value] : r.doc().items()) {
        if (std::find(known.begin(), known.end(), key) != known.end()) continue;
        const auto close = suggest(key, known, 1);
        r.problem("unknown field '" + printable_text(key).substr(0, 40) + "'",
                  close.empty() ? std::string("the fields are listed in ") + kGpuSpecSchema
                                : "did you mean '" + close.front() + "'?");
    }
}

std::optional<std::string> read_described_vendor(DescriptionFields& r) {
    const std::string hint = "give vendor as nvidia, amd, intel, apple or other";
    auto vendor = r.text("vendor", true, hint);
    if (vendor && std::find(kDescribedVendors.begin(), kDescribedVendors.end(), *vendor) ==
                      kDescribedVendors.end()) {
        r.problem(
            "vendor '" + printable_text(*vendor).substr(0, 40) + "' is not one canitrun plans",
            hint);
        return std::nullopt;
    }
    return vendor;
}

// memory_gb (the vendor's GB, read as GiB) or memory_bytes (exact): one of the two.
std::optional<Bytes> read_described_memory(DescriptionFields& r) {
    const bool gb = r.doc().contains("memory_gb");
    const bool bytes = r.doc().contains("memory_bytes");
    if (gb == bytes) {
        r.problem(gb ? "both memory_gb and memory_bytes are given" : "field 'memory_gb' is missing",
                  "give the memory as memory_gb (the vendor's GB, e.g. 24) or memory_bytes");
        return std::nullopt;
    }
    if (gb) {
        const auto value = r.number("memory_gb", 0, kMaxDescribedGb, "GB");
        if (!value) return std::nullopt;
        return static_cast<Bytes>(std::llround(*value * kGiBytes));
    }
    const json& v = r.doc()["memory_bytes"];
    if (!v.is_number_unsigned() || v.get<std::uint64_t>() == 0 ||
        static_cast<double>(v.get<std::uint64_t>()) > kMaxDescribedGb * kGiBytes) {
        r.problem("field 'memory_bytes' must be a whole number of bytes above 0",
                  "give the bytes the driver reports, e.g. 25769803776 for 24 GiB");
        return std::nullopt;
    }
    return v.get<std::uint64_t>();
}

std::optional<std::string> read_described_name(DescriptionFields& r) {
    auto name = r.text("name", true, "give the GPU's name, e.g. \"Radeon AI PRO R9700\"");
    if (!name) return std::nullopt;
    if (printable_text(*name) != *name || name->size() > kMaxDescribedName || trim(*name).empty()) {
        r.problem("field 'name' must be printable text of at most 80 characters",
                  "give the GPU's name as it is sold");
        return std::nullopt;
    }
    return trim(*name);
}

std::optional<std::string> read_described_id(DescriptionFields& r,
                                             const std::optional<std::string>& name) {
    const std::string hint = "give id as lowercase letters, digits, '.' and '-', e.g. my-card";
    if (auto id = r.text("id", false, hint)) {
        if (valid_described_id(*id)) return id;
        r.problem("id '" + printable_text(*id).substr(0, 40) + "' is not a GPU id", hint);
        return std::nullopt;
    }
    if (!name || r.doc().contains("id")) return std::nullopt;
    std::string made = id_from_described_name(*name);
    if (!valid_described_id(made)) {
        r.problem("the name gives no id to name the GPU by", hint);
        return std::nullopt;
    }
    return made;
}

// Unified memory: the share the GPU may use, required as the database requires it.
std::uint64_t read_described_share(DescriptionFields& r, bool unified,
                                   const std::optional<std::string>& vendor) {
    if (vendor == "apple" && !unified) {
        r.problem("an Apple silicon GPU's memory is unified", "set \"unified\": true");
    }
    const bool given = r.doc().contains("unified_gpu_share_percent");
    if (!unified) {
        if (given) {
            r.problem("unified_gpu_share_percent is for unified memory",
                      "leave it out, or set \"unified\": true");
        }
        return 1000;
    }
    if (!given) {
        r.problem("a unified-memory GPU needs unified_gpu_share_percent",
                  "give the share of memory its GPU may use, e.g. 75 for a Mac above 36 GB");
        return 1000;
    }
    const auto share = r.number("unified_gpu_share_percent", 0, 100, "percent");
    return share ? static_cast<std::uint64_t>(std::llround(*share * 10)) : 1000;
}

}  // namespace

std::expected<Gpu, std::vector<Error>> parse_gpu_description(const std::string& text,
                                                             const std::string& file) {
    const auto bounded =
        check_json_bounds(text, file, JsonBounds{.max_bytes = kMaxGpuDescriptionBytes});
    if (!bounded) return std::unexpected(std::vector<Error>{bounded.error()});
    const json doc = json::parse(text, nullptr, false);
    if (doc.is_discarded() || !doc.is_object()) {
        return std::unexpected(std::vector<Error>{
            Error{ErrorKind::bad_input, file + ": not a JSON object describing a GPU",
                  std::string("write it as ") + kGpuSpecSchema + " describes"}});
    }
    DescriptionFields r(doc, file);
    check_described_fields(r);
    Gpu g;
    const auto name = read_described_name(r);
    const auto id = read_described_id(r, name);
    const auto vendor = read_described_vendor(r);
    const auto memory = read_described_memory(r);
    const auto bandwidth = r.number("bandwidth_gbps", 0, 100000, "GB/s");
    const auto fp16 = r.number("fp16_tflops", 0, 10000, "dense FP16 TFLOPS");
    const bool unified = r.flag("unified");
    g.unified_gpu_share_permille = read_described_share(r, unified, vendor);
    const auto source = r.text("source", false, "say where the figures come from, or leave it out");
    auto problems = r.take();
    if (!problems.empty()) return std::unexpected(std::move(problems));
    g.id = *id;
    g.name = *name;
    g.short_name = *name;
    if (normalize_name(*name) != normalize_name(*id)) g.aliases = {*name};
    g.vendor = *vendor;
    g.gpu_class = unified ? GpuClass::unified : GpuClass::consumer;
    g.vram_bytes = *memory;
    g.vram_gb = std::max<std::uint64_t>(1, (*memory + (1ULL << 29)) >> 30);
    g.bandwidth_gbps = *bandwidth;
    g.fp16_tflops = *fp16;
    g.backends = backends_of_vendor(*vendor);
    g.source = "--gpu-spec " + file + (source ? ": " + *source : std::string());
    return g;
}

Result<Database> with_described_gpus(Database db, const std::vector<Gpu>& gpus) {
    for (const Gpu& g : gpus) {
        for (const std::string& name : {g.id, g.name}) {
            const auto taken = db.find_gpu(name);
            if (!taken) continue;
            return fail(
                ErrorKind::bad_input,
                "--gpu-spec describes '" + g.name + "' (id '" + g.id +
                    "'), which the database already names: '" + (*taken)->id + "'",
                "use --gpu " + (*taken)->id + ", or give the described GPU another name and id");
        }
        db.gpus.push_back(g);
    }
    return db;
}

}  // namespace canitrun
