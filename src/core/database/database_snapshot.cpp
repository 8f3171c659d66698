// The binary snapshot of a Database. One field list per struct (fields() below) drives both the
// writer and the reader, so the two cannot drift apart; a struct that gains a field must gain it
// here too and bump kSnapshotFormat (the snapshot test compares a round trip with the JSON load).
//
// Layout: the magic "canitrun-db", the format as a varint, then the Database's fields in order.
// Unsigned integers, counts and enums are LEB128 varints; doubles are their 8 IEEE bytes, little
// endian; strings and vectors are a count followed by their elements; an optional is a 0/1 byte
// and then its value.

#include "canitrun/database_snapshot.hpp"

#include <array>
#include <bit>
#include <cstdint>
#include <optional>
#include <type_traits>
#include <vector>

namespace canitrun {
namespace {

constexpr std::string_view kMagic = "canitrun-db";

constexpr std::uint64_t enum_count(LayerKind /*unused*/) {
    return 8;
}  // full .. compressed
constexpr std::uint64_t enum_count(GpuClass /*unused*/) {
    return 4;
}  // consumer .. unified

template <typename Io>
void fields(Io& io, LayerGroup& g) {
    io(g.kind);
    io(g.count);
    io(g.heads);
    io(g.kv_heads);
    io(g.head_dim);
    io(g.v_head_dim);
    io(g.window);
    io(g.conv_kernel);
    io(g.key_heads);
    io(g.value_heads);
    io(g.key_head_dim);
    io(g.value_head_dim);
    io(g.inner_size);
    io(g.state_size);
    io(g.groups);
    io(g.ssm_heads);
    io(g.kv_lora_rank);
    io(g.q_lora_rank);
    io(g.qk_nope_head_dim);
    io(g.qk_rope_head_dim);
    io(g.index_head_dim);
    io(g.index_heads);
    io(g.index_top_k);
    io(g.k_eq_v);
    io(g.compress_ratio);
    io(g.ssm_rms_norm);
}

template <typename Io>
void fields(Io& io, Attention& a) {
    io(a.heads);
    io(a.kv_heads);
    io(a.head_dim);
    io(a.v_head_dim);
    io(a.output_gate);
    io(a.head_dim_explicit);
    io(a.qk_norm);
    io(a.rope_scaling);
}

template <typename Io>
void fields(Io& io, MoE& m) {
    io(m.experts);
    io(m.experts_per_token);
    io(m.shared_experts);
    io(m.expert_intermediate_size);
    io(m.shared_expert_intermediate_size);
    io(m.moe_layers);
    io(m.gated);
    io(m.latent_size);
}

template <typename Io>
void fields(Io& io, NgramEmbedding& n) {
    io(n.layer);
    io(n.ngram_size);
    io(n.heads_per_ngram);
    io(n.width);
    io(n.rows);
    io(n.conv_kernel);
}

template <typename Io>
void fields(Io& io, Architecture& a) {
    io(a.hidden_size);
    io(a.vocab_size);
    io(a.tied_embeddings);
    io(a.layers);
    io(a.attention);
    io(a.intermediate_size);
    io(a.gated_ffn);
    io(a.moe);
    io(a.layer_groups);
    io(a.shared_kv_layers);
    io(a.shared_kv_intermediate_size);
    io(a.per_layer_input_size);
    io(a.attention_residual_block);
    io(a.mtp_layers);
    io(a.output_groups);
    io(a.output_lora_rank);
    io(a.hyper_connections);
    io(a.hash_layers);
    io(a.hyper_connection_rank);
    io(a.ngram_embedding);
    io(a.pattern);
    io(a.layer_order);
    io(a.config_note);
    io(a.linear_name);
    io(a.full_name);
}

template <typename Io>
void fields(Io& io, Benchmark& b) {
    io(b.name);
    io(b.score);
}

template <typename Io>
void fields(Io& io, Sampling& s) {
    io(s.mode);
    io(s.temp);
    io(s.top_p);
    io(s.min_p);
    io(s.presence_penalty);
    io(s.top_k);
    io(s.chat_template_kwargs);
}

template <typename Io>
void fields(Io& io, ProjectorInfo& p) {
    io(p.bytes);
    io(p.basis);
    io(p.compute_bytes);
    io(p.host_compute_bytes);
    io(p.source);
}

template <typename Io>
void fields(Io& io, QuantCheckpoint& c) {
    io(c.quant);
    io(c.repo);
    io(c.format);
    io(c.unconfirmed);
    io(c.source);
}

template <typename Io>
void fields(Io& io, TensorTypeRule& r) {
    io(r.tensor);
    io(r.type);
    io(r.arch);
    io(r.family);
    io(r.model);
}

template <typename Io>
void fields(Io& io, PlainFileRecipe& p) {
    io(p.file_type);
    io(p.recipe);
    io(p.arch);
    io(p.family);
    io(p.model);
    io(p.tensors);
    io(p.imatrix);
    io(p.source);
}

template <typename Io>
void fields(Io& io, RunInfo& r) {
    io(r.gguf_repo);
    io(r.ollama);
    io(r.lmstudio_search);
    io(r.sampling);
    io(r.mmproj);
    fields(io, r.projector);
    io(r.checkpoint_dtype);
    io(r.checkpoint_source);
    io(r.gguf_quants);
    io(r.gguf_quants_source);
    io(r.gguf_quantized_before);
    io(r.gguf_quantized_before_source);
    io(r.gguf_imatrix);
    io(r.gguf_imatrix_source);
    io(r.gguf_plain_recipes);
    io(r.gguf_mtp);
    io(r.gguf_mtp_source);
    io(r.gguf_mtp_embedding);
    io(r.gguf_mtp_embedding_source);
    io(r.gguf_indexer_every_layer);
    io(r.gguf_indexer_every_layer_source);
    io(r.pooling);
    io(r.pooling_source);
    io(r.checkpoints);
}

template <typename Io>
void fields(Io& io, EditorialClaim& c) {
    io(c.text);
    io(c.quant);
    io(c.card_gb);
    io(c.context);
    io(c.fits);
}

template <typename Io>
void fields(Io& io, Editorial& e) {
    io(e.who_for);
    io(e.best_for);
    io(e.not_ideal_for);
    io(e.verdict);
    io(e.source);
    io(e.rule);
    io(e.claims);
}

template <typename Io>
void fields(Io& io, Model& m) {
    io(m.id);
    io(m.name);
    io(m.family);
    io(m.vendor);
    io(m.aliases);
    io(m.hf_repo);
    io(m.source);
    io(m.released);
    io(m.license);
    io(m.commercial_use);
    io(m.modalities);
    io(m.params_total);
    io(m.params_active);
    io(m.params_rounding);
    io(m.params_extra);
    io(m.context_native);
    io(m.context_extended);
    io(m.context_extension);
    io(m.arch);
    io(m.benchmarks);
    io(m.run);
    io(m.notes);
    io(m.editorial);
}

template <typename Io>
void fields(Io& io, Gpu& g) {
    io(g.id);
    io(g.name);
    io(g.short_name);
    io(g.vendor);
    io(g.aliases);
    io(g.variant_names);
    io(g.other_variants);
    io(g.pci_ids);
    io(g.gpu_class);
    io(g.vram_gb);
    io(g.vram_bytes);
    io(g.memory_type);
    io(g.bandwidth_gbps);
    io(g.fp16_tflops);
    io(g.fp8_tflops);
    io(g.fp4_tflops);
    io(g.fp32_tflops);
    io(g.int8_dot_tops);
    io(g.board_power_w);
    io(g.l2_cache_bytes);
    io(g.sm_count);
    io(g.architecture);
    io(g.backends);
    io(g.release_year);
    io(g.unified_gpu_share_permille);
    io(g.devices);
    io(g.source);
}

template <typename Io>
void fields(Io& io, Quant& q) {
    io(q.id);
    io(q.name);
    io(q.aliases);
    io(q.bpw_e4);
    io(q.linear_bpw_e4);
    io(q.quality_rank);
    io(q.recommended);
    io(q.page_table);
    io(q.page_matrix);
    io(q.requires_backend);
    io(q.format);
    io(q.recipe_base);
    io(q.recipe_imatrix);
    io(q.recipe_tensors);
    io(q.recipe_publisher);
    io(q.file_type);
    io(q.derivation);
    io(q.source);
}

template <typename Io>
void fields(Io& io, CardClass& c) {
    io(c.gb);
    io(c.gpu_class);
}

template <typename Io>
void fields(Io& io, DatabaseInfo& i) {
    io(i.version);
    io(i.date);
    io(i.source);
}

template <typename Io, std::size_t N>
void fields(Io& io, std::array<std::uint64_t, N>& a) {
    for (auto& x : a) io(x);
}

template <typename Io>
void fields(Io& io, Database& d) {
    io(d.info);
    io(d.models);
    io(d.gpus);
    io(d.quants);
    io(d.card_classes);
    io(d.device_elements);
    io(d.weight_parts);
}

class Writer {
  public:
    void operator()(std::uint64_t v) { append_varint(out_, v); }
    void operator()(bool b) { out_.push_back(b ? '\1' : '\0'); }
    void operator()(double d) {
        const auto bits = std::bit_cast<std::uint64_t>(d);
        for (int k = 0; k < 8; ++k) out_.push_back(static_cast<char>((bits >> (8 * k)) & 0xff));
    }
    void operator()(std::string& s) {
        (*this)(static_cast<std::uint64_t>(s.size()));
        out_ += s;
    }
    template <typename E>
    requires std::is_enum_v<E>
    void operator()(E& e) { (*this)(static_cast<std::uint64_t>(e)); }
    template <typename T>
    void operator()(std::optional<T>& o) {
        (*this)(o.has_value());
        if (o) (*this)(*o);
    }
    template <typename T>
    void operator()(std::vector<T>& v) {
        (*this)(static_cast<std::uint64_t>(v.size()));
        for (auto& x : v) (*this)(x);
    }
    template <typename T>
    requires std::is_class_v<T>
    void operator()(T& t) { fields(*this, t); }

    std::string take() { return std::move(out_); }

  private:
    std::string out_;
};

// Reads what Writer wrote. On the first problem it records it and every later read yields
// zeros and empty containers, so a corrupt snapshot stops growing anything and the caller sees
// one error.
class Reader {
  public:
    explicit Reader(std::string_view bytes) : in_(bytes) {}

    void operator()(std::uint64_t& v) {
        // Most values are below 128: one byte, read without the loop's checks.
        if (pos_ < in_.size() && error_.empty()) {
            const auto first = static_cast<unsigned char>(in_[pos_]);
            if (first < 0x80) {
                v = first;
                ++pos_;
                return;
            }
        }
        v = 0;
        if (!error_.empty()) return;
        const auto read = read_varint(in_, pos_);
        if (!read) return fail("a number ends early, overflows 64 bits or has a redundant byte");
        v = *read;
    }
    void operator()(bool& b) {
        b = false;
        if (!need(1)) return;
        const char c = in_[pos_++];
        if (c != '\0' && c != '\1') return fail("a flag is neither 0 nor 1");
        b = c == '\1';
    }
    void operator()(double& d) {
        d = 0;
        if (!need(8)) return;
        std::uint64_t bits = 0;
        for (std::size_t k = 0; k < 8; ++k) {
            bits |= static_cast<std::uint64_t>(static_cast<unsigned char>(in_[pos_ + k]))
                    << (8 * k);
        }
        pos_ += 8;
        d = std::bit_cast<double>(bits);
    }
    void operator()(std::string& s) {
        const std::uint64_t n = count();
        // Appended to the emptied string: assign() goes through replace(), which allows for
        // overlap (and libstdc++ 12's resize_and_overwrite sets a wrong length when it grows).
        s.clear();
        s.append(in_.data() + pos_, n);
        pos_ += n;
    }
    template <typename E>
    requires std::is_enum_v<E>
    void operator()(E& e) {
        std::uint64_t v = 0;
        (*this)(v);
        if (v >= enum_count(E{})) {
            fail("an enum value is out of range");
            v = 0;
        }
        e = static_cast<E>(v);
    }
    template <typename T>
    void operator()(std::optional<T>& o) {
        bool present = false;
        (*this)(present);
        o.reset();
        if (present) (*this)(o.emplace());
    }
    template <typename T>
    void operator()(std::vector<T>& v) {
        // Every element takes at least one byte, so a count past the bytes left is corrupt and
        // never becomes a huge allocation.
        const std::uint64_t n = count();
        v.clear();
        v.reserve(n);
        for (std::uint64_t k = 0; k < n && error_.empty(); ++k) (*this)(v.emplace_back());
    }
    template <typename T>
    requires std::is_class_v<T>
    void operator()(T& t) { fields(*this, t); }

    bool at_end() const { return pos_ == in_.size(); }
    const std::string& error() const { return error_; }

  private:
    bool need(std::size_t n) {
        if (!error_.empty()) return false;
        if (in_.size() - pos_ < n) {
            fail("it ends early");
            return false;
        }
        return true;
    }
    std::uint64_t count() {
        std::uint64_t n = 0;
        (*this)(n);
        if (error_.empty() && n > in_.size() - pos_) fail("a count runs past the end");
        return error_.empty() ? n : 0;
    }
    void fail(const char* what) {
        if (error_.empty()) error_ = what;
    }

    std::string_view in_;
    std::size_t pos_ = 0;
    std::string error_;
};

Error snapshot_error(const std::string& problem) {
    return Error{ErrorKind::bad_database, "the database snapshot is unreadable: " + problem,
                 "rebuild canitrun; the snapshot is made from data/ at build time"};
}

}  // namespace

std::string serialize_database(const Database& db) {
    Database copy = db;  // fields() takes non-const references: one list serves both directions
    Writer w;
    std::string magic(kMagic);
    w(magic);
    std::uint64_t format = kSnapshotFormat;
    w(format);
    w(copy);
    return w.take();
}

Result<Database> deserialize_database(std::string_view bytes) {
    Reader r(bytes);
    std::string magic;
    r(magic);
    if (magic != kMagic) return std::unexpected(snapshot_error("it does not start with the magic"));
    std::uint64_t format = 0;
    r(format);
    if (r.error().empty() && format != kSnapshotFormat) {
        return std::unexpected(snapshot_error("format " + std::to_string(format) + ", expected " +
                                              std::to_string(kSnapshotFormat)));
    }
    Database db;
    r(db);
    if (!r.error().empty()) return std::unexpected(snapshot_error(r.error()));
    if (!r.at_end()) return std::unexpected(snapshot_error("bytes follow the database"));
    return db;
}

}  // namespace canitrun
