#include "canitrun/gguf_file_size.hpp"

#include <algorithm>
#include <array>
#include <string_view>
#include <vector>

#include "canitrun/llamacpp_engine.hpp"
#include "canitrun/llamacpp_parts.hpp"
#include "quant_memo.hpp"

// The layout of a GGUF file: ggml/docs/gguf.md (ggml-org/ggml) and gguf_write_to_buf in
// ggml/src/gguf.cpp: the header (magic, version, tensor count, metadata count), the metadata
// key-value pairs, one tensor info per tensor (name as a u64 length and its bytes, u32 n_dims,
// n_dims u64 extents, u32 type, u64 offset), padding to the alignment, then each tensor's data
// at an offset that is a multiple of the alignment.

namespace canitrun {
namespace {

constexpr Bytes kAlignment = 32;        // GGUF_DEFAULT_ALIGNMENT
constexpr Bytes kFixedHeader = 24;      // magic u32, version u32, tensor_count u64, kv_count u64
constexpr Bytes kPerTokenAtLeast = 12;  // tokenizer.ggml.tokens: u64 length; token_type: i32

// The tokenizer as GGUF stores it (ggml/docs/gguf.md: a key is a u64 length and its bytes, then a
// u32 value type; an array a u32 element type, a u64 count and its elements; a string a u64
// length and its bytes): tokenizer.ggml.tokens (a string per token), tokenizer.ggml.scores (an
// f32 per token, SentencePiece vocabularies), tokenizer.ggml.token_type (an i32 per token) and
// tokenizer.ggml.merges (a string per BPE merge). The strings' lengths are not in the data, so
// these are the four entries' bytes, key to last element, as measured in llama.cpp's own vocab
// files (models/ggml-vocab-NAME.gguf in ggml-org/llama.cpp; measured at 80fb11a), for the
// families whose published GGUF headers list the same counts (validation/llama-logs/: tokens
// arr[str,N], merges arr[str,M]). Qwen 3.5's is worked out instead (llama.cpp's
// ggml-vocab-qwen35.gguf holds Qwen2's vocabulary), from its merges.txt, by the rule that gives
// the measured qwen2 file to the byte: a byte-level BPE's tokens are the 256 byte symbols (418
// bytes of UTF-8) and one token per merge (its line without the space), then the added tokens
// and the converter's "[PAD<id>]" tokens; merges are stored as merges.txt's lines.
struct MeasuredTokenizer {
    std::string_view file;
    std::array<std::string_view, 3> families;
    std::uint64_t tokens;
    Bytes bytes;
};

constexpr std::array<MeasuredTokenizer, 8> kTokenizers = {{
    // tokens 2,099,538 + token_type 513,073 + merges 5,204,810 (128,256 tokens, 280,147 merges)
    {"ggml-vocab-llama-bpe.gguf", {"llama3.1", "llama3.2", "llama3.3"}, 128256, 7817421},
    // Qwen3's: ggml-vocab-qwen2.gguf's first 151,643 tokens (1,369,483 bytes of strings; the file
    // has Qwen1.5's three added tokens, then "[PAD151646]" on) and Qwen3's 26 added tokens,
    // <|endoftext|> at 151,643 to </think> at 151,668 (340 bytes; tokenizer_config.json's
    // added_tokens_decoder, a stored copy of a Qwen3 repo's, file id 14308273653), merges as
    // measured. tokens 2,583,220 (45 + 151,669 x 8 + 1,369,483 + 340) + token_type 606,725
    // (49 + 151,669 x 4) + merges 2,731,593. Qwen3-Embedding-0.6B's file stops at 151,669
    // tokens (its config's vocab_size); Qwen3's 151,936 rows add the converter's padding.
    {"ggml-vocab-qwen2.gguf and Qwen3's added tokens", {"qwen3", "", ""}, 151669, 5921538},
    // tokens 2,588,241 + token_type 607,793 + merges 2,731,593 (151,936 tokens, 151,387 merges)
    {"ggml-vocab-qwen2.gguf", {"qwen2.5", "", ""}, 151936, 5927627},
    // tokens 4,413,492 + scores 1,048,621 + token_type 1,048,625 + merges 9,251,764
    // (262,144 tokens, 514,906 merges)
    {"ggml-vocab-gemma-4.gguf", {"gemma4", "", ""}, 262144, 15762502},
    // tokens 468,153 + scores 128,301 + token_type 128,305 (32,064 tokens, SentencePiece)
    {"ggml-vocab-phi-3.gguf", {"phi3", "phi3.5", ""}, 32064, 724759},
    // Qwen/Qwen3.5-0.8B's merges.txt: 3,353,259 bytes (its Git LFS pointer in a copy of the
    // repo, github.com/Parswanadh/bdh-jarvis-labs at 0b04584d, Qwen3.5-0.8B/merges.txt: sha256
    // a9d356d7...). With "#version: 0.2" and 247,587 lines (the logs' merges count), the merges'
    // strings are 3,105,658 bytes. tokens 4,843,635 (45 of key; 248,070 x 8 of lengths; 418 of
    // byte symbols; 3,105,658 - 247,587 spaces of merged tokens; 340 of the 26 added tokens,
    // <|endoftext|> at 248,044 to </think>, taken as Qwen3's set, unconfirmed; the 201 ids below
    // 248,044 that no merge makes, at 1 byte each, the least) + token_type 992,329 (49 + 248,070
    // x 4) + merges 5,086,399 (45 + 247,587 x 8 + 3,105,658). Qwen 3.6's logs list the same
    // counts; Qwen 3.8's tokenizer is not confirmed, so it is left out.
    {"Qwen3.5-0.8B merges.txt, worked out", {"qwen3.5", "qwen3.6", ""}, 248070, 10922363},
    // Granite 4.0 / 4.1's: OpenAI's cl100k_base with Granite's special tokens from id 100,256 (load
    // logs: tokenizer.ggml.pre "dbrx", tokens arr[str,100352], merges arr[str,100000], merges
    // beginning "Ġ Ġ", "ĠĠ ĠĠ", "i n", "Ġ t"; granite-4.0-h in ollama/ollama#12692, granite-4.1-8b
    // in validation/llama-logs/rocm-009). cl100k_base's 100,256 ranks (npm js-tiktoken 1.0.21,
    // dist/ranks/cl100k_base.js) in GPT-2's byte-to-unicode form are 717,050 bytes; the 100,000 of
    // two bytes or more are 716,632 bytes, and each is one merge, its two halves and a space (the
    // rule gives ggml-vocab-gpt-2.gguf's tokens and merges to the byte from the same package's gpt2
    // ranks). tokens 1,519,143 (45 + 100,256 x 8 + 717,050) + token_type 401,073 (49 + 100,256 x 4)
    // + merges 1,616,677 (45 + 100,000 x 8 + 716,632 + 100,000). Granite's 96 tokens from 100,256
    // (its padding, end-of-text and unknown tokens among them, the logs' ids 100,256, 100,257 and
    // 100,269) are counted as the converter's padding tokens: their names were not found, so each
    // may be a few bytes off.
    {"cl100k_base ranks, worked out", {"granite4", "granite4.1", ""}, 100256, 3536893},
    // LFM2's (tokens arr[str,65536]; no copy of its vocabulary or merges is in the stored
    // sources): fitted on one published header, the file less its tensors. LiquidAI's
    // LFM2-350M-Q4_K_M.gguf is 229,309,376 bytes (published-sizes.json), 1,588,352 more than
    // this file's size with the least tokenizer (65,536 x 12 = 786,432), so the tokenizer and the
    // keys counted nowhere else (general.*, the lfm2.* hyperparameters, the chat template) come
    // to 2,374,784. Checked on LiquidAI's other Q4_K_M files: 700M and 1.2B to the byte,
    // 2.6B 1,152 and 8B-A1B 1,696 bytes heavier (the names and keys that differ).
    {"LFM2-350M-Q4_K_M.gguf's header, fitted", {"lfm2", "", ""}, 65536, 2374784},
}};

std::uint64_t decimal_digits(std::uint64_t n) {
    std::uint64_t d = 1;
    for (; n >= 10; n /= 10) ++d;
    return d;
}

// The converter pads the token list to the embedding's rows with "[PAD<id>]" tokens (get_vocab_base
// in convert_hf_to_gguf.py): a u64 length, the string, and an i32 type each.
Bytes padding_tokens(std::uint64_t from, std::uint64_t to) {
    Bytes sum = 0;
    for (std::uint64_t id = from; id < to; ++id) {
        sum = checked::add(sum, 8 + 5 + decimal_digits(id) + 4);  // "[PAD" + digits + "]"
    }
    return sum;
}

// The tokenizer's bytes: measured where the model's family and vocabulary are one of
// kTokenizers (plus the converter's padding tokens), else the least they can be (an 8-byte
// length and a 4-byte type per token, the strings and merges left out).
Bytes tokenizer_bytes(const Model& model) {
    const std::uint64_t vocab = model.arch.vocab_size;
    for (const auto& t : kTokenizers) {
        const bool family = std::find(t.families.begin(), t.families.end(),
                                      std::string_view(model.family)) != t.families.end();
        if (!model.family.empty() && family && vocab >= t.tokens && vocab - t.tokens <= 1024) {
            return checked::add(t.bytes, padding_tokens(t.tokens, vocab));
        }
    }
    return checked::mul(vocab, kPerTokenAtLeast);
}

Bytes aligned(Bytes n) {
    return checked::mul((checked::add(n, kAlignment - 1)) / kAlignment, kAlignment);
}

Bytes tensor_info_bytes(const TensorInfo& t) {
    const Bytes name = checked::add(8, t.name.size());
    return checked::add(checked::add(name, 4 + 4 + 8), checked::mul(8, t.n_dims));
}

Result<std::vector<Bytes>> typed(const Model& model, const QuantizeRequest& request) {
    CANITRUN_TRY_ASSIGN(const auto prepared, llamacpp_layout(model));
    return quantize_bytes(*prepared, request);
}

// The header (the tokenizer and one tensor info per tensor) aligned, then each tensor's data;
// `mtp` the MTP block's tensors, written model.arch.mtp_layers times where the file has them.
Result<Bytes> file_bytes(const Model& model, const PreparedLayout& prepared,
                         const std::vector<Bytes>& bytes,
                         const std::vector<TypedTensor>& mtp = {}) {
    return catch_overflow(
        [&]() -> Result<Bytes> {
            Bytes header = checked::add(kFixedHeader, tokenizer_bytes(model));
            Bytes data = 0;
            for (std::size_t i = 0; i < bytes.size(); ++i) {
                header = checked::add(header, tensor_info_bytes(prepared.layout.tensors[i]));
                data = checked::add(data, aligned(bytes[i]));
            }
            for (std::uint64_t copy = 0; copy < model.arch.mtp_layers && !mtp.empty(); ++copy) {
                for (const auto& t : mtp) {
                    header = checked::add(header, tensor_info_bytes(t.tensor));
                    data = checked::add(data, aligned(t.bytes));
                }
            }
            return checked::add(aligned(header), data);
        },
        [&] { return overflow_error("the file size of " + model.id); });
}

}  // namespace

Result<Bytes> gguf_tensor_bytes(const Model& model, const QuantizeRequest& request) {
    CANITRUN_TRY_ASSIGN(const auto bytes, typed(model, request));
    return catch_overflow(
        [&]() -> Result<Bytes> {
            Bytes sum = 0;
            for (const Bytes b : bytes) sum = checked::add(sum, b);
            return sum;
        },
        [&] { return overflow_error("the tensors of " + model.id); });
}

Result<Bytes> gguf_file_bytes(const Model& model, const QuantizeRequest& request) {
    CANITRUN_TRY_ASSIGN(const auto prepared, llamacpp_layout(model));
    CANITRUN_TRY_ASSIGN(const auto bytes, quantize_bytes(*prepared, request));
    return file_bytes(model, *prepared, bytes);
}

Result<std::optional<Bytes>> gguf_download_bytes(const Model& model, const Quant& quant) {
    if (!is_llama_file_type(quant)) return std::optional<Bytes>();
    CANITRUN_TRY_ASSIGN(const auto prepared, llamacpp_layout(model));
    // The MTP blocks, where the published files carry them (RunInfo::gguf_mtp): the converter
    // writes them as blocks past the stack, typed by the same rules. Such a file is sized
    // whole each time; the memo below is keyed by the layout, which does not say whether the
    // files carry the blocks.
    if (model.run.gguf_mtp) {
        CANITRUN_TRY_ASSIGN(const auto bytes, llamacpp_tensor_bytes(prepared, quant));
        CANITRUN_TRY_ASSIGN(const auto mtp, llamacpp_mtp_block(model, quant));
        CANITRUN_TRY_ASSIGN(const Bytes file, file_bytes(model, *prepared, *bytes, mtp));
        return std::optional<Bytes>(file);
    }
    // Kept per quantization (quant_memo.hpp): a model page asks for it some ten times, and each
    // walks every tensor.
    thread_local QuantMemo<Bytes> memo;
    CANITRUN_TRY_ASSIGN(const Bytes* file, memo.get(prepared, quant.id, [&]() -> Result<Bytes> {
        CANITRUN_TRY_ASSIGN(const auto bytes, llamacpp_tensor_bytes(prepared, quant));
        return file_bytes(model, *prepared, *bytes, {});
    }));
    return std::optional<Bytes>(*file);
}

}  // namespace canitrun
