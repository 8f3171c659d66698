// Parsing and validating the JSON database. Every entry is checked for missing or absurd fields
// as it is read, so the estimator can trust what it gets: layer counts add up, dimensions are
// positive, contexts and sizes are within bounds no real model or GPU exceeds.

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

#include "architecture_parse.hpp"
#include "canitrun/bounded_file.hpp"
#include "canitrun/database.hpp"
#include "canitrun/json_bounds.hpp"
#include "canitrun/layer_kinds.hpp"
#include "canitrun/limits.hpp"
#include "canitrun/name_match.hpp"
#include "canitrun/param_count.hpp"
#include "canitrun/parse.hpp"
#include "json_fields.hpp"
#include "publishers.hpp"

namespace canitrun {
namespace {

using detail::DatabaseError;
using detail::Fields;
using detail::parse_architecture;
using nlohmann::json;

constexpr std::uint64_t kMaxVramGb = 100000;
// A projector's bytes or buffers past 64 GiB are a typo (the largest published are a few GB).
constexpr std::uint64_t kMaxProjectorBytes = 64ULL << 30;

std::string entry_name(const std::string& file, std::size_t index, const json& entry) {
    std::string name = file + " entry " + std::to_string(index + 1);
    if (entry.is_object() && entry.contains("id") && entry["id"].is_string()) {
        name += " ('" + entry["id"].get<std::string>() + "')";
    }
    return name;
}

// Optional per-field citations: "sources": {"fp16_tflops": "https://..."}. Each key names a field
// the entry has (dotted paths by their first part), each value is a non-empty URL or citation.
void check_sources(const Fields& f) {
    if (!f.has("sources")) return;
    const json& sources = f.at("sources");
    if (!sources.is_object()) f.error("field 'sources' must map field names to URLs");
    for (const auto& [field, cite] : sources.items()) {
        const std::string top = field.substr(0, field.find('.'));
        if (top == "sources" || !f.has(top.c_str())) {
            f.error("'sources' cites field '" + field + "', which the entry does not have");
        }
        if (!cite.is_string() || cite.get<std::string>().empty()) {
            f.error("'sources." + field + "' must be a non-empty URL or citation");
        }
    }
}

void check_id(const Fields& f, const std::string& id) {
    for (char c : id) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '-';
        if (!ok) f.error("id '" + id + "' may hold only a-z, 0-9, '.' and '-'");
    }
}

// run.projector: the mmproj's bytes with how they were known and a source; clip's compute
// buffers (from a log) optional.
ProjectorInfo parse_projector(const Fields& f) {
    ProjectorInfo p;
    p.bytes = f.count("bytes", 1, kMaxProjectorBytes);
    p.basis = f.text("basis");
    if (p.basis != "file" && p.basis != "tensors" && p.basis != "params_f16") {
        f.error("basis must be file, tensors or params_f16");
    }
    p.compute_bytes = f.count_or("compute_bytes", 0, kMaxProjectorBytes);
    p.host_compute_bytes = f.count_or("host_compute_bytes", 0, kMaxProjectorBytes);
    p.source = f.text("source");
    return p;
}

// run.checkpoints: the formats vLLM does not make on the fly, one entry per quantization, each
// with the quant_method its config declares and a source; `unconfirmed` carries the reason.
std::vector<QuantCheckpoint> parse_checkpoints(const Fields& f) {
    const json& list = f.at("checkpoints");
    if (!list.is_array()) f.error("run.checkpoints must be an array");
    std::vector<QuantCheckpoint> out;
    for (std::size_t i = 0; i < list.size(); ++i) {
        const Fields c(list[i], f.where() + ".checkpoints[" + std::to_string(i) + "]");
        QuantCheckpoint q;
        q.quant = c.text("quant");
        if (q.quant != "AWQ" && q.quant != "GPTQ" && q.quant != "NVFP4") {
            c.error("quant must be AWQ, GPTQ or NVFP4 (the formats vLLM does not make itself)");
        }
        for (const QuantCheckpoint& seen : out) {
            if (seen.quant == q.quant) c.error("a second " + q.quant + " checkpoint");
        }
        q.repo = c.text("repo");
        if (q.repo.find('/') == std::string::npos || q.repo.find(' ') != std::string::npos) {
            c.error("repo must be a Hugging Face owner/name");
        }
        q.format = c.text("format");
        if (q.format != "awq" && q.format != "gptq" && q.format != "compressed-tensors" &&
            q.format != "modelopt") {
            c.error("format must be awq, gptq, compressed-tensors or modelopt");
        }
        q.unconfirmed = c.text_or("unconfirmed", "");
        q.source = c.text("source");
        out.push_back(std::move(q));
    }
    return out;
}

// What the published GGUF files hold beyond the converter's rule for the architecture: the MTP
// block (gguf_mtp), its own embedding and head (gguf_mtp_embedding), and an indexer copied into
// the layers that share another's (gguf_indexer_every_layer), each with what shows it.
void parse_gguf_contents(const Fields& f, RunInfo& r) {
    if (f.has("gguf_mtp")) {
        r.gguf_mtp = f.flag_or("gguf_mtp", false);
        r.gguf_mtp_source = f.text_or("gguf_mtp_source", "");
        if (r.gguf_mtp_source.empty()) {
            f.error(
                "run.gguf_mtp needs run.gguf_mtp_source (what shows the files carry them or not)");
        }
    }
    if (f.has("gguf_mtp_embedding")) {
        r.gguf_mtp_embedding = f.flag_or("gguf_mtp_embedding", true);
        r.gguf_mtp_embedding_source = f.text_or("gguf_mtp_embedding_source", "");
        if (r.gguf_mtp_embedding_source.empty()) {
            f.error("run.gguf_mtp_embedding needs run.gguf_mtp_embedding_source");
        }
        if (!r.gguf_mtp) {
            f.error("run.gguf_mtp_embedding needs run.gguf_mtp true (the files' MTP block)");
        }
    }
    if (f.has("gguf_indexer_every_layer")) {
        r.gguf_indexer_every_layer = f.flag_or("gguf_indexer_every_layer", false);
        r.gguf_indexer_every_layer_source = f.text_or("gguf_indexer_every_layer_source", "");
        if (r.gguf_indexer_every_layer_source.empty()) {
            f.error("run.gguf_indexer_every_layer needs run.gguf_indexer_every_layer_source");
        }
    }
}

RunInfo parse_run(const Fields& f) {
    RunInfo r;
    r.gguf_repo = f.text_or("gguf_repo", "");
    r.ollama = f.text_or("ollama", "");
    r.lmstudio_search = f.text_or("lmstudio_search", "");
    r.mmproj = f.text_or("mmproj", "");
    if (f.has("projector")) {
        if (r.mmproj.empty()) f.error("run.projector needs run.mmproj (the file it sizes)");
        r.projector = parse_projector(f.child("projector"));
    }
    r.checkpoint_dtype = f.text_or("checkpoint_dtype", "");
    r.checkpoint_source = f.text_or("checkpoint_source", "");
    if (f.has("gguf_quants")) {
        const json& list = f.at("gguf_quants");
        if (!list.is_array() || list.empty()) f.error("run.gguf_quants must be a list of names");
        for (const auto& q : list) {
            if (!q.is_string()) f.error("run.gguf_quants must be a list of names");
            r.gguf_quants.push_back(q.get<std::string>());
        }
        r.gguf_quants_source = f.text_or("gguf_quants_source", "");
        if (r.gguf_quants_source.empty()) {
            f.error("run.gguf_quants needs run.gguf_quants_source (the repo's file listing)");
        }
    }
    if (f.has("gguf_quantized_before")) {
        const std::string b = f.text_or("gguf_quantized_before", "");
        const bool build = b.size() > 1 && b.size() <= 7 && b[0] == 'b' &&
                           b.find_first_not_of("0123456789", 1) == std::string::npos;
        r.gguf_quantized_before = build ? std::stoull(b.substr(1)) : 0;
        if (r.gguf_quantized_before == 0) {
            f.error("run.gguf_quantized_before must be a llama.cpp build: \"b8275\"");
        }
        r.gguf_quantized_before_source = f.text_or("gguf_quantized_before_source", "");
        if (r.gguf_quantized_before_source.empty()) {
            f.error("run.gguf_quantized_before needs run.gguf_quantized_before_source");
        }
    }
    parse_gguf_contents(f, r);
    if (f.has("pooling")) {
        r.pooling = f.text("pooling");
        if (r.pooling != "mean" && r.pooling != "cls" && r.pooling != "last" &&
            r.pooling != "rank") {
            f.error("run.pooling must be mean, cls, last or rank (llama.h's pooling types)");
        }
        r.pooling_source = f.text_or("pooling_source", "");
        if (r.pooling_source.empty()) f.error("run.pooling needs run.pooling_source");
    }
    if (f.has("checkpoints")) r.checkpoints = parse_checkpoints(f);
    if (!r.checkpoint_dtype.empty() && r.checkpoint_source.empty()) {
        f.error("run.checkpoint_dtype needs run.checkpoint_source (the config that says so)");
    }
    if (f.has("sampling")) {
        const json& list = f.at("sampling");
        if (!list.is_array()) f.error("run.sampling must be an array");
        for (std::size_t i = 0; i < list.size(); ++i) {
            const Fields s(list[i], f.where() + ".sampling[" + std::to_string(i) + "]");
            Sampling out;
            out.mode = s.text_or("mode", "default");
            if (s.has("temp")) out.temp = s.number("temp", 0, 10);
            if (s.has("top_p")) out.top_p = s.number("top_p", 0, 1);
            if (s.has("min_p")) out.min_p = s.number("min_p", 0, 1);
            if (s.has("presence_penalty"))
                out.presence_penalty = s.number("presence_penalty", -10, 10);
            if (s.has("top_k")) out.top_k = s.count("top_k", 0, 100000);
            out.chat_template_kwargs = s.text_or("chat_template_kwargs", "");
            r.sampling.push_back(out);
        }
    }
    return r;
}

// A claim's text must be the editorial's own words, so a page can find the sentence to mark.
EditorialClaim parse_claim(const Fields& f, const Editorial& e) {
    EditorialClaim c;
    c.text = f.text("text");
    c.quant = f.text("quant");
    c.card_gb = f.count("card_gb", 1, 1024);
    c.context = f.count_or("context", 0, kMaxContext);
    if (!f.has("fits") || !f.at("fits").is_boolean()) f.error("field 'fits' must be true or false");
    c.fits = f.flag_or("fits", false);
    bool found =
        e.who_for.find(c.text) != std::string::npos || e.verdict.find(c.text) != std::string::npos;
    for (const auto* list : {&e.best_for, &e.not_ideal_for}) {
        for (const auto& item : *list) found = found || item.find(c.text) != std::string::npos;
    }
    if (!found) f.error("claim text '" + c.text + "' is not in the editorial");
    return c;
}

Editorial parse_editorial(const Fields& f) {
    Editorial e;
    e.who_for = f.text_or("who_for", "");
    e.best_for = f.texts_or_empty("best_for");
    e.not_ideal_for = f.texts_or_empty("not_ideal_for");
    e.verdict = f.text_or("verdict", "");
    e.source = f.text("source");
    e.rule = f.text_or("rule", "");
    if (!e.rule.empty() && e.rule != "quick" && e.rule != "llama.cpp") {
        f.error("field 'rule' must be quick or llama.cpp, not '" + e.rule + "'");
    }
    if (e.who_for.empty() && e.best_for.empty() && e.not_ideal_for.empty() && e.verdict.empty()) {
        f.error("editorial has a source but no text");
    }
    if (f.has("claims")) {
        const json& claims = f.at("claims");
        if (!claims.is_array()) f.error("claims must be an array");
        for (std::size_t i = 0; i < claims.size(); ++i) {
            e.claims.push_back(parse_claim(
                Fields(claims[i], f.where() + ".claims[" + std::to_string(i) + "]"), e));
        }
    }
    return e;
}

Model parse_model(const Fields& f) {
    Model m;
    m.id = f.text("id");
    check_id(f, m.id);
    m.name = f.text("name");
    m.family = f.text("family");
    m.vendor = f.text("vendor");
    m.aliases = f.texts_or_empty("aliases");
    m.hf_repo = f.text_or("hf_repo", "");
    m.source = f.text("source");
    check_sources(f);
    m.released = f.text_or("released", "");
    if (f.has("license")) {
        const Fields lic = f.child("license");
        m.license = lic.text("name");
        m.commercial_use = lic.flag_or("commercial_use", false);
    }
    m.modalities = f.texts_or_empty("modalities");
    const Fields p = f.child("params");
    m.params_total = p.count("total", 1, kMaxParams);
    m.params_active = p.count_or("active", m.params_total, m.params_total);
    if (m.params_active == 0) p.error("field 'active' must be positive");
    m.params_rounding = p.count_or("rounding", 1, kMaxParams);
    if (p.has("extra")) {
        const json& extra = p.at("extra");
        if (!extra.is_object()) p.error("field 'extra' must be an object of counts");
        const Fields e(extra, p.where() + ".extra");
        for (auto it = extra.begin(); it != extra.end(); ++it) {
            m.params_extra += e.count(it.key().c_str(), 0, kMaxParams);
        }
    }
    const Fields ctx = f.child("context");
    m.context_native = ctx.count("native", 1, kMaxContext);
    m.context_extended = ctx.count_or("extended", 0, kMaxContext);
    m.context_extension = ctx.text_or("extension", "");
    m.arch = parse_architecture(f.child("architecture"));
    const bool countable = overflow_or(
        [&] {
            (void)count_params(m);
            return true;
        },
        false);
    if (!countable) {
        f.error(
            "the architecture's parameter count does not fit in 64 bits: a dimension is absurd");
    }
    if (f.has("benchmarks")) {
        const json& list = f.at("benchmarks");
        if (!list.is_array()) f.error("benchmarks must be an array");
        for (std::size_t i = 0; i < list.size(); ++i) {
            const Fields b(list[i], f.where() + ".benchmarks[" + std::to_string(i) + "]");
            m.benchmarks.push_back({b.text("name"), b.number("score", -1e6, 1e6)});
        }
    }
    if (f.has("run")) m.run = parse_run(f.child("run"));
    // The download and --mtp follow the files: a model with MTP layers says whether they are in
    // them (RunInfo::gguf_mtp).
    if (m.arch.mtp_layers > 0 && m.run.gguf_mtp_source.empty()) {
        f.error("architecture.mtp_layers needs run.gguf_mtp (whether the GGUF files carry them)");
    }
    if (m.arch.mtp_layers == 0 && !m.run.gguf_mtp_source.empty()) {
        f.error("run.gguf_mtp needs architecture.mtp_layers (the layers it speaks of)");
    }
    // Copies of an indexer need layers without one of their own beside layers with one.
    const auto indexer = [&](bool own) {
        return std::any_of(m.arch.layer_groups.begin(), m.arch.layer_groups.end(),
                           [&](const LayerGroup& g) {
                               return g.kind == LayerKind::mla && (g.index_head_dim > 0) == own;
                           });
    };
    if (m.run.gguf_indexer_every_layer && !(indexer(true) && indexer(false))) {
        f.error("run.gguf_indexer_every_layer needs mla layers with an indexer and without one");
    }
    m.notes = f.text_or("notes", "");
    if (f.has("editorial")) m.editorial = parse_editorial(f.child("editorial"));
    return m;
}

GpuClass parse_gpu_class(const Fields& f) {
    const std::string c = f.text("class");
    if (c == "consumer") return GpuClass::consumer;
    if (c == "workstation") return GpuClass::workstation;
    if (c == "datacenter") return GpuClass::datacenter;
    if (c == "unified") return GpuClass::unified;
    f.error("unknown class '" + c + "' (expected consumer, workstation, datacenter or unified)");
}

// "pci_ids": ["0x56a0"]: four hex digits after "0x", as sysfs writes a device id.
std::vector<std::uint64_t> parse_pci_ids(const Fields& f) {
    std::vector<std::uint64_t> ids;
    for (const auto& text : f.texts_or_empty("pci_ids")) {
        const bool hex = text.size() == 6 && text.compare(0, 2, "0x") == 0 &&
                         std::all_of(text.begin() + 2, text.end(), [](char c) {
                             return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
                         });
        if (!hex) f.error("PCI id '" + text + "' is not 0x and four lower-case hex digits");
        ids.push_back(std::stoull(text.substr(2), nullptr, 16));
    }
    return ids;
}

Gpu parse_gpu(const Fields& f) {
    Gpu g;
    g.id = f.text("id");
    check_id(f, g.id);
    g.name = f.text("name");
    g.short_name = f.text_or("short_name", g.name);
    g.vendor = f.text("vendor");
    g.aliases = f.texts_or_empty("aliases");
    g.variant_names = f.texts_or_empty("variant_names");
    g.other_variants = f.texts_or_empty("other_variants");
    if (g.variant_names.empty() != g.other_variants.empty()) {
        f.error(
            "'variant_names' and 'other_variants' go together: the names the variants share "
            "and the ids of the variants this entry is chosen over");
    }
    g.pci_ids = parse_pci_ids(f);
    g.gpu_class = parse_gpu_class(f);
    g.vram_gb = f.count("vram_gb", 1, kMaxVramGb);
    g.vram_bytes = f.count("vram_bytes", 1, kMaxVramGb * (1ULL << 30));
    g.memory_type = f.text_or("memory_type", "");
    g.bandwidth_gbps = f.number("bandwidth_gbps", 1, 100000);
    // Dense TFLOPS of one device: the largest today (B300) is 2250 FP16 / 13500 FP4, so a figure
    // in GFLOPS by mistake (364247 for a 364.2 TFLOPS card) is refused rather than believed.
    g.fp16_tflops = f.number_or("fp16_tflops", 0, 10000);
    g.fp8_tflops = f.number_or("fp8_tflops", 0, 20000);
    g.fp4_tflops = f.number_or("fp4_tflops", 0, 40000);
    g.fp32_tflops = f.number_or("fp32_tflops", 0, 10000);
    g.int8_dot_tops = f.number_or("int8_dot_tops", 0, 10000);
    g.board_power_w = f.number_or("board_power_w", 0, 5000);
    g.l2_cache_bytes = f.count_or("l2_cache_mib", 0, 1024) << 20;  // 128 MiB today (GB202)
    g.sm_count = f.count_or("sm_count", 0, 1024);
    g.architecture = f.text_or("architecture", "");
    g.backends = f.texts_or_empty("backends");
    if (g.backends.empty()) f.error("field 'backends' must list at least one backend");
    g.release_year = f.count_or("release_year", 0, 2100);
    g.unified_gpu_share_permille = static_cast<std::uint64_t>(
        std::llround(f.number_or("unified_gpu_share_percent", 100, 100) * 10));
    if (g.gpu_class == GpuClass::unified && !f.has("unified_gpu_share_percent")) {
        f.error("a unified-memory entry needs unified_gpu_share_percent");
    }
    g.devices = f.count_or("devices", 1, 8);
    if (g.devices == 0) f.error("field 'devices' must be at least 1");
    g.source = f.text("source");
    check_sources(f);
    return g;
}

// "recipe": {"base": "Q4_K_M", "imatrix": true, "tensors": [{"tensor": "token_embd.weight",
// "type": "q8_0"}]}; the rules check the base and the types when they type a model. A rule with
// "arch" (and "family") holds for those models only, and cites the published file it is read
// from in "source".
void parse_recipe(const Fields& f, Quant& q) {
    q.recipe_base = f.text("base");
    q.recipe_imatrix = f.flag_or("imatrix", false);
    q.recipe_publisher = f.text("publisher");
    if (!f.has("tensors")) return;
    const auto& tensors = f.at("tensors");
    if (!tensors.is_array() || tensors.empty())
        f.error("field 'tensors' must be a non-empty array");
    for (std::size_t i = 0; i < tensors.size(); ++i) {
        const Fields t(tensors[i], f.where() + ".tensors[" + std::to_string(i) + "]");
        TensorTypeRule rule{t.text("tensor"), t.text("type"), t.text_or("arch", ""),
                            t.text_or("family", ""), t.text_or("model", "")};
        // a per-model choice is read from a published file: it names that file
        if (!rule.arch.empty()) (void)t.text("source");
        if (rule.arch.empty() && !(rule.family.empty() && rule.model.empty()))
            t.error("a rule with 'family' or 'model' needs 'arch'");
        q.recipe_tensors.push_back(std::move(rule));
    }
}

Quant parse_quant(const Fields& f) {
    Quant q;
    q.id = f.text("id");
    q.name = f.text_or("name", q.id);
    q.aliases = f.texts_or_empty("aliases");
    const double bpw = f.number("bits_per_weight", 1, 64);
    q.bpw_e4 = static_cast<std::uint64_t>(std::llround(bpw * kBpwScale));
    if (f.has("linear_bits_per_weight")) {
        const double linear = f.number("linear_bits_per_weight", 1, 64);
        q.linear_bpw_e4 = static_cast<std::uint64_t>(std::llround(linear * kBpwScale));
    }
    q.quality_rank = f.count("quality_rank", 1, 1000);
    q.recommended = f.flag_or("recommended", false);
    q.page_table = f.flag_or("page_table", false);
    q.page_matrix = f.flag_or("page_matrix", false);
    q.requires_backend = f.text_or("requires_backend", "");
    q.format = f.text_or("format", "");
    if (f.has("recipe")) parse_recipe(f.child("recipe"), q);
    q.derivation = f.text("derivation");
    q.source = f.text("source");
    return q;
}

CardClass parse_card_class(const Fields& f) {
    return CardClass{f.count("gb", 1, kMaxVramGb), parse_gpu_class(f)};
}

template <typename Entry>
std::vector<std::string> names_of(const Entry& e) {
    std::vector<std::string> names = e.aliases;
    names.insert(names.begin(), e.id);
    return names;
}

// A GPU also answers the names its memory variants share.
std::vector<std::string> names_of(const Gpu& g) {
    std::vector<std::string> names = g.aliases;
    names.insert(names.begin(), g.id);
    names.insert(names.end(), g.variant_names.begin(), g.variant_names.end());
    return names;
}

// Ids and aliases must name one entry only, however they are capitalised or punctuated.
template <typename Entry>
void check_unique_names(const std::vector<Entry>& entries, const std::string& what) {
    std::map<std::string, std::string> owner;
    for (const auto& e : entries) {
        const std::vector<std::string> names = names_of(e);
        std::vector<std::string> seen_here;
        for (const auto& n : names) {
            const std::string key = normalize_name(n);
            if (std::find(seen_here.begin(), seen_here.end(), key) != seen_here.end()) continue;
            seen_here.push_back(key);
            auto [it, inserted] = owner.emplace(key, e.id);
            if (!inserted) {
                std::string message = what;
                message += " name '" + n + "' of '" + e.id;
                message += "' is already used by '" + it->second + "'";
                throw DatabaseError(message);
            }
        }
    }
}

// Each of other_variants is another GPU's id.
void check_other_variants(const std::vector<Gpu>& gpus) {
    for (const auto& g : gpus) {
        for (const auto& other : g.other_variants) {
            const bool known = std::any_of(gpus.begin(), gpus.end(), [&](const Gpu& o) {
                return o.id == other && o.id != g.id;
            });
            if (!known) {
                throw DatabaseError("GPU '" + g.id + "' lists other variant '" + other +
                                    "', which is not another GPU's id");
            }
        }
    }
}

// Size, depth and number of values, before the parser allocates (json_bounds.hpp).
void check_bounds(const std::string& file, const std::string& text) {
    const auto ok = check_json_bounds(text, file, JsonBounds{.max_bytes = kMaxDatabaseFileBytes});
    if (!ok) throw DatabaseError(ok.error().message);
}

template <typename Entry, typename ParseFn>
void parse_array(const std::string& file, const std::string& text, std::vector<Entry>& out,
                 ParseFn parse_one) {
    check_bounds(file, text);
    const json doc = json::parse(text);
    if (!doc.is_array()) throw DatabaseError(file + ": expected a JSON array of entries");
    for (std::size_t i = 0; i < doc.size(); ++i) {
        out.push_back(parse_one(Fields(doc[i], entry_name(file, i, doc[i]))));
    }
}

DatabaseInfo parse_info(const std::string& text) {
    check_bounds("database.json", text);
    const json doc = json::parse(text);
    const Fields f(doc, "database.json");
    DatabaseInfo info{f.text("version"), f.text("date"), f.text("source")};
    const std::string& d = info.date;
    const bool iso =
        d.size() == 10 && d[4] == '-' && d[7] == '-' &&
        std::all_of(d.begin(), d.end(), [](char c) { return c == '-' || (c >= '0' && c <= '9'); });
    if (!iso) f.error("field 'date' = '" + d + "' must be a date written YYYY-MM-DD");
    return info;
}

}  // namespace

Result<Database> parse_database(const DatabaseFiles& files) {
    Database db;
    std::vector<detail::Publisher> publishers;  // optional: none, every file as llama-quantize's
    std::string current = "database";
    try {
        for (const auto& [path, text] : files) {
            current = path;
            if (path.starts_with("models/")) {
                parse_array(path, text, db.models, parse_model);
            } else if (path.starts_with("gpus/")) {
                parse_array(path, text, db.gpus, parse_gpu);
            } else if (path == "quants.json") {
                parse_array(path, text, db.quants, parse_quant);
            } else if (path == "card_classes.json") {
                parse_array(path, text, db.card_classes, parse_card_class);
            } else if (path == "publishers.json") {
                parse_array(path, text, publishers, detail::parse_publisher);
            } else if (path == "database.json") {
                db.info = parse_info(text);
            } else {
                throw DatabaseError(
                    path +
                    ": not a database file (expected quants.json, "
                    "card_classes.json, publishers.json, database.json, models/*.json or "
                    "gpus/*.json)");
            }
        }
        if (db.models.empty()) throw DatabaseError("no models (models/*.json)");
        if (db.gpus.empty()) throw DatabaseError("no GPUs (gpus/*.json)");
        if (db.quants.empty()) throw DatabaseError("no quantizations (quants.json)");
        if (db.card_classes.empty()) throw DatabaseError("no card classes (card_classes.json)");
        check_unique_names(db.models, "model");
        check_unique_names(db.gpus, "GPU");
        check_other_variants(db.gpus);
        check_unique_names(db.quants, "quantization");
        detail::apply_publishers(std::move(publishers), db.quants, db.models);
        if (std::count_if(db.quants.begin(), db.quants.end(),
                          [](const Quant& q) { return q.recommended; }) != 1) {
            throw DatabaseError("quants.json: exactly one quantization must be recommended");
        }
    } catch (const json::exception& e) {
        return fail(ErrorKind::bad_database, "malformed JSON in " + current + ": " + e.what(),
                    "fix the file or point --data at a valid database");
    } catch (const DatabaseError& e) {
        return fail(ErrorKind::bad_database, std::string("bad database entry: ") + e.what(),
                    "fix the entry (see data/SCHEMA.md)");
    }
    std::stable_sort(db.card_classes.begin(), db.card_classes.end(),
                     [](const CardClass& a, const CardClass& b) { return a.gb < b.gb; });
    return db;
}

}  // namespace canitrun
