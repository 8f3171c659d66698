// Parsing and validating the JSON database. Every entry is checked for missing or absurd fields
// as it is read, so the estimator can trust what it gets: layer counts add up, dimensions are
// positive, contexts and sizes are within bounds no real model or GPU exceeds.

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

#include "canitrun/bounded_file.hpp"
#include "canitrun/database.hpp"
#include "canitrun/json_bounds.hpp"
#include "canitrun/layer_kinds.hpp"
#include "canitrun/limits.hpp"
#include "canitrun/name_match.hpp"
#include "canitrun/param_count.hpp"
#include "canitrun/parse.hpp"
#include "json_fields.hpp"

namespace canitrun {
namespace {

using detail::DatabaseError;
using detail::Fields;
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

LayerKind parse_layer_kind(const Fields& f) {
    const std::string kind = f.text("kind");
    if (const auto k = layer_kind_of_name(kind)) return *k;
    f.error("unknown layer kind '" + kind + "' (expected one of " + layer_kind_names() + ")");
}

LayerGroup parse_layer_group(const Fields& f) {
    LayerGroup g;
    g.kind = parse_layer_kind(f);
    g.count = f.count("count", 1, kMaxLayers);
    if (g.kind == LayerKind::full || g.kind == LayerKind::sliding) {
        g.heads = f.count_or("heads", 0, kMaxDim);  // on an ssm group, "heads" are Mamba's
    }
    g.kv_heads = f.count_or("kv_heads", 0, kMaxDim);
    g.head_dim = f.count_or("head_dim", 0, kMaxDim);
    g.v_head_dim = f.count_or("v_head_dim", 0, kMaxDim);
    switch (g.kind) {
        case LayerKind::full:
            g.k_eq_v = f.flag_or("k_eq_v", false);
            // MiniMax Sparse Attention's indexer (MiniMax-M3)
            g.index_head_dim = f.count_or("index_head_dim", 0, kMaxDim);
            g.index_heads = f.count_or("index_heads", 0, kMaxDim);
            g.index_top_k = f.count_or("index_topk", 0, kMaxContext);
            if (f.has("parallel_ssm")) {
                // Falcon-H1: a Mamba-2 mixer beside the attention in every layer of the group
                const Fields s = f.child("parallel_ssm");
                g.conv_kernel = s.count("conv_kernel", 1, 64);
                g.inner_size = s.count("inner_size", 1, kMaxDim);
                g.state_size = s.count("state_size", 1, kMaxDim);
                g.groups = s.count("groups", 1, kMaxDim);
                g.ssm_heads = s.count("heads", 1, kMaxDim);
                if (s.count("head_dim", 1, kMaxDim) * g.ssm_heads != g.inner_size) {
                    s.error("inner_size must be heads x head_dim");
                }
            }
            break;
        case LayerKind::sliding:
            g.window = f.count("window", 1, kMaxContext);
            break;
        case LayerKind::linear:
            g.conv_kernel = f.count("conv_kernel", 1, 64);
            g.key_heads = f.count("key_heads", 1, kMaxDim);
            g.value_heads = f.count("value_heads", 1, kMaxDim);
            g.key_head_dim = f.count("key_head_dim", 1, kMaxDim);
            g.value_head_dim = f.count("value_head_dim", 1, kMaxDim);
            break;
        case LayerKind::ssm:
            g.conv_kernel = f.count("conv_kernel", 1, 64);
            g.inner_size = f.count("inner_size", 1, kMaxDim);
            g.state_size = f.count("state_size", 1, kMaxDim);
            g.groups = f.count_or("groups", 0, kMaxDim);
            g.ssm_heads = f.count_or("heads", 0, kMaxDim);
            break;
        case LayerKind::mla:
            g.kv_lora_rank = f.count("kv_lora_rank", 1, kMaxDim);
            g.q_lora_rank = f.count_or("q_lora_rank", 0, kMaxDim);
            g.qk_nope_head_dim = f.count("qk_nope_head_dim", 1, kMaxDim);
            g.qk_rope_head_dim = f.count("qk_rope_head_dim", 1, kMaxDim);
            g.v_head_dim = f.count("v_head_dim", 1, kMaxDim);
            g.index_head_dim = f.count_or("index_head_dim", 0, kMaxDim);
            g.index_heads = f.count_or("index_heads", 0, kMaxDim);
            g.index_top_k = f.count_or("index_topk", 0, kMaxContext);
            break;
        case LayerKind::conv:
            g.conv_kernel = f.count("conv_kernel", 1, 64);
            break;
        case LayerKind::ffn:
            break;
        case LayerKind::compressed:
            // DeepSeek V4: the raw window, the compression, q's LoRA and the ratio-4 indexer
            g.window = f.count("window", 1, kMaxContext);
            g.compress_ratio = f.count_or("compress_ratio", 0, kMaxContext);
            if (g.compress_ratio != 0 && g.compress_ratio != 4 && g.compress_ratio != 128) {
                f.error("compress_ratio must be 0, 4 or 128 (llama.cpp's deepseek4 runs no other)");
            }
            if (g.head_dim == 0) f.error("a compressed group states its head_dim");
            g.q_lora_rank = f.count("q_lora_rank", 1, kMaxDim);
            g.index_head_dim = f.count_or("index_head_dim", 0, kMaxDim);
            g.index_heads = f.count_or("index_heads", 0, kMaxDim);
            g.index_top_k = f.count_or("index_topk", 0, kMaxContext);
            break;
    }
    return g;
}

// The kind a layer_order character stands for: a letter's, or a digit's group's.
std::optional<LayerKind> order_letter_kind(const Architecture& a, char c) {
    if (c >= '0' && c <= '9') {
        const auto g = static_cast<std::size_t>(c - '0');
        if (g < a.layer_groups.size()) return a.layer_groups[g].kind;
        return std::nullopt;
    }
    return layer_kind_of_letter(c);
}

// layer_order names every layer's kind, as many of each as its groups hold (two groups of one
// kind fill in turn, the first group first).
void check_layer_order(const Fields& f, const Architecture& a) {
    if (a.layer_order.empty()) {
        // FFN-only blocks sit where the config's pattern puts them, not at a period
        if (ffn_layer_count(a) != a.layers) f.error("FFN-only layers need a layer_order");
        return;
    }
    if (a.layer_order.size() != a.layers) {
        f.error("layer_order has " + std::to_string(a.layer_order.size()) +
                " letters, but layers = " + std::to_string(a.layers));
    }
    for (const char c : a.layer_order) {
        const bool digit = c >= '0' && c <= '9';
        if (digit && static_cast<std::size_t>(c - '0') >= a.layer_groups.size()) {
            f.error(std::string("layer_order has '") + c + "', which names no layer group");
        } else if (!digit && !layer_kind_of_letter(c)) {
            f.error(std::string("layer_order has '") + c + "', which names no layer kind");
        }
    }
    for (const auto& g : a.layer_groups) {
        std::uint64_t n = 0;
        for (const char c : a.layer_order) n += order_letter_kind(a, c) == g.kind ? 1U : 0U;
        std::uint64_t in_kind = 0;
        for (const auto& other : a.layer_groups) in_kind += other.kind == g.kind ? other.count : 0;
        if (n != in_kind) {
            f.error("layer_order gives " + std::to_string(n) + " " + layer_kind_name(g.kind) +
                    " layers, but its groups of that kind have " + std::to_string(in_kind));
        }
    }
    if (a.layer_order.size() == a.layers && stated_group_order(a).empty()) {
        f.error("layer_order names a group more often than it has layers");
    }
}

Architecture parse_architecture(const Fields& f) {
    Architecture a;
    a.hidden_size = f.count("hidden_size", 1, kMaxDim);
    a.vocab_size = f.count("vocab_size", 1, kMaxVocab);
    a.tied_embeddings = f.flag_or("tied_embeddings", false);
    a.layers = f.count("layers", 1, kMaxLayers);
    const Fields att = f.child("attention");
    a.attention.heads = att.count("heads", 1, kMaxDim);
    a.attention.kv_heads = att.count("kv_heads", 1, a.attention.heads);
    a.attention.head_dim = att.count("head_dim", 1, kMaxDim);
    a.attention.v_head_dim = att.count_or("v_head_dim", 0, kMaxDim);
    a.attention.output_gate = att.flag_or("output_gate", false);
    a.attention.head_dim_explicit = att.flag_or("head_dim_explicit", false);
    if (f.has("ffn")) {
        const Fields ffn = f.child("ffn");
        a.intermediate_size = ffn.count_or("intermediate_size", 0, kMaxDim);
        a.gated_ffn = ffn.flag_or("gated", true);
        a.shared_kv_intermediate_size = ffn.count_or("shared_kv_intermediate_size", 0, kMaxDim);
    }
    if (f.has("moe")) {
        const Fields m = f.child("moe");
        MoE moe;
        moe.experts = m.count("experts", 1, kMaxExperts);
        moe.experts_per_token = m.count("experts_per_token", 1, moe.experts);
        moe.shared_experts = m.count_or("shared_experts", 0, 1000);
        moe.expert_intermediate_size = m.count("expert_intermediate_size", 1, kMaxDim);
        moe.shared_expert_intermediate_size =
            m.count_or("shared_expert_intermediate_size", 0, kMaxDim);
        moe.moe_layers = m.count("moe_layers", 1, a.layers);
        moe.gated = m.flag_or("gated", true);
        a.moe = moe;
    }
    if (!a.moe && a.intermediate_size == 0) f.error("a dense model needs ffn.intermediate_size");
    const json& groups = f.at("layer_groups");
    if (!groups.is_array() || groups.empty()) f.error("layer_groups must be a non-empty array");
    std::uint64_t sum = 0;
    for (std::size_t i = 0; i < groups.size(); ++i) {
        LayerGroup g = parse_layer_group(
            Fields(groups[i], f.where() + ".layer_groups[" + std::to_string(i) + "]"));
        sum += g.count;
        if (g.kind == LayerKind::conv) g.inner_size = a.hidden_size;  // a channel per dimension
        a.layer_groups.push_back(g);
    }
    if (sum != a.layers) {
        f.error("layer_groups count " + std::to_string(sum) +
                " layers, but layers = " + std::to_string(a.layers));
    }
    // The FFNs live in the FFN-only blocks where a model has them (Nemotron-H).
    const std::uint64_t ffn_layers = ffn_layer_count(a);
    if (a.moe && a.moe->moe_layers > ffn_layers) {
        f.error("moe_layers is " + std::to_string(a.moe->moe_layers) + ", but only " +
                std::to_string(ffn_layers) + " layers hold an FFN");
    }
    if (a.moe && a.moe->moe_layers < ffn_layers && a.intermediate_size == 0) {
        f.error("dense layers beside the MoE layers need ffn.intermediate_size");
    }
    a.layer_order = f.text_or("layer_order", "");
    check_layer_order(f, a);
    a.shared_kv_layers = f.count_or("shared_kv_layers", 0, a.layers - 1);
    a.mtp_layers = f.count_or("mtp_layers", 0, 8);
    a.per_layer_input_size = f.count_or("per_layer_input_size", 0, kMaxDim);
    // DeepSeek V4 (config.json's o_groups, o_lora_rank, hc_mult, num_hash_layers)
    a.output_groups = f.count_or("output_groups", 0, kMaxDim);
    a.output_lora_rank = f.count_or("output_lora_rank", 0, kMaxDim);
    a.hyper_connections = f.count_or("hyper_connections", 0, 64);
    a.hash_layers = f.count_or("hash_layers", 0, kMaxLayers);
    a.pattern = f.text_or("pattern", "");
    a.config_note = f.text_or("config_note", "");
    a.linear_name = f.text_or("linear_name", "");
    a.full_name = f.text_or("full_name", "");
    return a;
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
            } else if (path == "database.json") {
                db.info = parse_info(text);
            } else {
                throw DatabaseError(
                    path +
                    ": not a database file (expected quants.json, "
                    "card_classes.json, database.json, models/*.json or gpus/*.json)");
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
