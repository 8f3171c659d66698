#pragma once
// The tensors llama.cpp creates for a database model: llama.cpp's tensor names (LLM_TN:
// token_embd.weight, blk.N.attn_q.weight, blk.N.ffn_down_exps.weight, output.weight, ...) and
// shapes (ne[0] is the row length), as src/models/<arch>.cpp load_arch_tensors builds them at
// the pinned llama.cpp commit 0ad4a86. Pure: no I/O.

#include <array>
#include <compare>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include "canitrun/error.hpp"
#include "canitrun/gguf.hpp"
#include "canitrun/model.hpp"

namespace canitrun {

// A tensor's name, held in the tensor itself: ggml's names are shorter than GGML_MAX_NAME (64
// bytes with the NUL, ggml.h), and gguf.cpp refuses a file with a longer one, as gguf_reader
// does (kGgufMaxTensorName), so a name needs no allocation of its own. One heap string per tensor
// was a fifth of `fit`'s instructions (bench/RESULTS.md, 2026-12-06). A longer name is a bug in
// whatever made it: std::length_error.
class TensorName {
  public:
    static constexpr std::size_t kMaxSize = kGgufMaxTensorName;

    TensorName() = default;
    TensorName(std::string_view s);  // NOLINT(google-explicit-constructor): a name is a string
    TensorName(const char* s) : TensorName(std::string_view(s)) {}         // NOLINT
    TensorName(const std::string& s) : TensorName(std::string_view(s)) {}  // NOLINT
    // "blk.<il>.<suffix>", LLM_TN's name of a layer's tensor, written in place (layouts are
    // built for every model a search looks at; layout_builder.cpp).
    static TensorName of_layer(int il, std::string_view suffix);

    operator std::string_view() const { return {chars_.data(), size_}; }  // NOLINT
    std::string_view view() const { return *this; }
    std::string str() const { return std::string(view()); }
    std::size_t size() const { return size_; }
    std::size_t find(std::string_view part, std::size_t from = 0) const {
        return view().find(part, from);
    }
    bool starts_with(std::string_view prefix) const { return view().starts_with(prefix); }

    friend bool operator==(const TensorName& a, std::string_view b) { return a.view() == b; }
    friend std::strong_ordering operator<=>(const TensorName& a, const TensorName& b) {
        return a.view() <=> b.view();
    }

  private:
    std::array<char, kMaxSize> chars_{};
    std::uint8_t size_ = 0;
};
std::ostream& operator<<(std::ostream& out, const TensorName& name);

struct TensorInfo {
    static constexpr std::uint32_t kNoRepeat = UINT32_MAX;

    TensorName name;
    // The index of an earlier tensor of the same list whose name is this one's but for the
    // layer ("blk.<N>." + the same suffix) and whose shape is this one's, or kNoRepeat: what
    // layout::Builder knows as it lays out a layer that repeats the previous one, so that what is
    // read from a name and a shape (prepare_layout) is copied, not read again. A tensor with one
    // is named "blk.<layer>." + that suffix. Kept where the name and shape are (the padding after
    // the name): a copy of a tensor renamed to another layer keeps it true.
    std::uint32_t repeats = kNoRepeat;
    std::array<std::uint64_t, 4> ne{1, 1, 1, 1};
    std::uint32_t n_dims = 1;
    int layer = -1;  // blk index, -1 for token_embd / output / output_norm

    std::uint64_t elements() const;
};

struct TensorLayout {
    std::string arch;      // llama.cpp's architecture name: "llama", "qwen35moe", "gemma3", ...
    std::string family;    // the database model's family ("qwen3.6") and id, which a recipe's
    std::string model_id;  // per-model rules select
    std::vector<TensorInfo> tensors;
    // hyper-parameters llama-quantize's rules look at
    std::uint64_t n_layer = 0;
    std::uint64_t n_expert = 0;
    std::uint64_t n_gqa = 1;  // n_head / n_head_kv
    bool is_70b = false;      // llama.cpp's LLM_TYPE_70B (80-layer llama / qwen2)
    // The file was made by a llama-quantize older than b8275 (llama.cpp #19770), whose rules
    // differ for two tensors: per_layer_token_embd (Gemma 3n) kept the file type where b8275 gives
    // it the tied output's, and attn_qkv (Phi-3, Qwen 3.5's linear layers) had a branch of its own
    // where b8275 types it as attn_v.
    bool quantized_before_b8275 = false;
    // The model's GGUF files are made with an importance matrix (RunInfo::gguf_imatrix, its
    // publisher's recipe): the rules' imatrix branches apply to its plain file types.
    bool imatrix = false;
    // The plain-named files the model's publisher makes by a recipe of its own
    // (RunInfo::gguf_plain_recipes): a plain file type of one of them is typed by its rules.
    std::vector<PlainFileRecipe> plain_recipes;

    std::uint64_t elements() const;
};

// llama.cpp's architecture for a database model, or an error naming the model when the engine
// does not model it yet.
Result<std::string> llama_arch(const Model& model);

Result<TensorLayout> tensor_layout(const Model& model);

// Whether tensor_layout gives the two models the same layout: they agree on every field it
// reads (the id, the family, the architecture, the native context, the context extension, the
// llama.cpp build the files predate, whether they copy the indexer and the input modalities: a
// DeepSeek V4 that reads images has a second routing bias). A change that makes
// tensor_layout read another field adds it here, as does one that makes a value kept per layout
// (quant_memo.hpp: the typed bytes, the weight parts, the file size) read another. Cheaper than the
// whole model's ==, which compares its prose and benchmarks too.
bool same_layout_inputs(const Model& a, const Model& b);

}  // namespace canitrun
