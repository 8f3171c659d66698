// The GGUF file's size beyond its tensors: the header, the tensor infos and the tokenizer's
// arrays (src/core/engines/gguf_file_size.cpp), against a published file's exact byte count and
// the converter's padding tokens counted by hand.

#include "canitrun/gguf_file_size.hpp"
#include "catch.hpp"
#include "test_support.hpp"

using namespace canitrun;

namespace {

Bytes metadata_bytes(const Model& m, const std::string& quant) {
    const QuantizeRequest r = quantize_request(test::quant(quant));
    const auto file = gguf_file_bytes(m, r);
    const auto tensors = gguf_tensor_bytes(m, r);
    REQUIRE(file);
    REQUIRE(tensors);
    REQUIRE(*file > *tensors);
    return *file - *tensors;
}

}  // namespace

// Qwen's own Qwen3-0.6B-Q8_0.gguf (https://huggingface.co/Qwen/Qwen3-0.6B-GGUF, revision
// 23749fefcc72300e3a2ad315e1317431b06b590a, SHA-256 9465e63a22add5354d9bb4b99e90117043c71240
// 07664907259bd16d043bb031) is 639,446,688 bytes, as public download manifests pin it. The file
// size leaves out only general.*, the hyperparameters and the chat template: a few KB, never
// more than 16 KiB here, and never a byte too many.
TEST_CASE("gguf file size: Qwen3-0.6B-Q8_0.gguf within 16 KiB under its 639,446,688 bytes") {
    const QuantizeRequest r = quantize_request(test::quant("Q8_0"));
    const auto file = gguf_file_bytes(test::model("qwen3-0.6b"), r);
    REQUIRE(file);
    CHECK(*file <= 639446688);
    CHECK(*file >= 639446688 - 16384);
}

// Qwen2.5-7B's embedding has 152,064 rows where the tokenizer has 151,936 entries in llama.cpp's
// qwen2 vocab file: the converter adds "[PAD151936]" .. "[PAD152063]", 128 tokens of 11
// characters, each an 8-byte length, the string and a 4-byte type: 128 x 23 = 2,944 bytes. The
// measured qwen2 tokenizer is 5,927,627 bytes. With 2,048 more rows (154,112, past the 1,024
// padding tokens a measured tokenizer is stretched to) the vocabulary is taken as unmeasured, at
// 12 bytes a token: 1,849,344. Alignment moves the header and the two vocabulary-sized tensors
// by at most 31 bytes each.
TEST_CASE("gguf file size: the measured tokenizer and the converter's padding tokens") {
    const Model& qwen = test::model("qwen2.5-7b");
    Model unknown = qwen;
    unknown.arch.vocab_size = 152064 + 2048;
    const Bytes measured = metadata_bytes(qwen, "Q4_K_M");
    const Bytes floor = metadata_bytes(unknown, "Q4_K_M");
    const std::int64_t expected = 5927627 + 2944 - 1849344;
    const std::int64_t got = static_cast<std::int64_t>(measured) - static_cast<std::int64_t>(floor);
    CHECK(got >= expected - 93);
    CHECK(got <= expected + 93);
}

// Qwen 3.5's tokenizer, worked out from Qwen3.5-0.8B's merges.txt (src/core/engines/
// gguf_file_size.cpp): 10,922,363 bytes for 248,070 tokens, and the converter pads to the
// embedding's 248,320 rows with "[PAD248070]" .. "[PAD248319]", 250 tokens of 11 characters:
// 250 x 23 = 5,750 bytes. Against 2,048 more rows, taken as unmeasured at 12 bytes a token
// (250,368 x 12 = 3,004,416): 10,922,363 + 5,750 - 3,004,416 = 7,923,697, give or take the
// alignment of the header and the two vocabulary-sized tensors (31 bytes each).
TEST_CASE("gguf file size: Qwen 3.5's tokenizer as merges.txt gives it") {
    const Model& qwen = test::model("qwen3.5-9b");
    Model unknown = qwen;
    unknown.arch.vocab_size = 248320 + 2048;
    const std::int64_t expected = 10922363 + 5750 - 3004416;
    const std::int64_t got = static_cast<std::int64_t>(metadata_bytes(qwen, "Q8_0")) -
                             static_cast<std::int64_t>(metadata_bytes(unknown, "Q8_0"));
    CHECK(got >= expected - 93);
    CHECK(got <= expected + 93);
}

// A published Qwen 3.5 9B file with its exact byte count (tests/fixtures/published-sizes.json:
// khtsly/Mini-Coder-GGUF, Qwen3.5-9B.Q8_0.gguf, 9,527,501,312 bytes). With the tokenizer
// worked out, what the file size leaves out is general.*, the hyperparameters and the chat
// template, as for Qwen3-0.6B above: under 16 KiB, and never a byte too many (at the 12-byte
// floor it was 7.96 MB short).
TEST_CASE("gguf file size: Qwen3.5-9B Q8_0 within 16 KiB under its 9,527,501,312 bytes") {
    const auto file =
        gguf_file_bytes(test::model("qwen3.5-9b"), quantize_request(test::quant("Q8_0")));
    REQUIRE(file);
    CHECK(*file <= 9527501312);
    CHECK(*file >= 9527501312 - 16384);
}

// Granite 4's tokenizer, worked out from cl100k_base's ranks (src/core/engines/gguf_file_size.cpp):
// 3,536,893 bytes for 100,256 tokens, and Granite's 96 tokens from 100,256 to the embedding's
// 100,352 rows counted as the converter's "[PAD100256]" .. "[PAD100351]", 11 characters each:
// 96 x 23 = 2,208 bytes. Against 2,048 more rows, taken as unmeasured at 12 bytes a token
// (102,400 x 12 = 1,228,800): 3,536,893 + 2,208 - 1,228,800 = 2,310,301, give or take the
// alignment of the header and the two vocabulary-sized tensors (31 bytes each).
TEST_CASE("gguf file size: Granite 4's tokenizer as cl100k_base's ranks give it") {
    const Model& granite = test::model("granite-4.0-h-350m");
    Model unknown = granite;
    unknown.arch.vocab_size = 100352 + 2048;
    const std::int64_t expected = 3536893 + 2208 - 1228800;
    const std::int64_t got = static_cast<std::int64_t>(metadata_bytes(granite, "Q4_K_M")) -
                             static_cast<std::int64_t>(metadata_bytes(unknown, "Q4_K_M"));
    CHECK(got >= expected - 93);
    CHECK(got <= expected + 93);
}

// Two small published files with their exact byte counts (tests/fixtures/published-sizes.json):
// IBM's granite-4.0-h-350m-Q4_K_M.gguf, 222,662,560 bytes, and Qwen's
// Qwen3-Embedding-0.6B-Q8_0.gguf, 639,150,592 bytes (151,669 tokens: Qwen3's tokenizer with no
// padding). With their tokenizers worked out, what the file size leaves out is general.*, the
// hyperparameters and the chat template: under 16 KiB, never a byte too many (at the 12-byte
// floor they were 2.34 MB and 4.11 MB short).
TEST_CASE("gguf file size: Granite 4 350M and Qwen3-Embedding 0.6B within 16 KiB under theirs") {
    const auto granite =
        gguf_file_bytes(test::model("granite-4.0-h-350m"), quantize_request(test::quant("Q4_K_M")));
    const auto embedding =
        gguf_file_bytes(test::model("qwen3-embedding-0.6b"), quantize_request(test::quant("Q8_0")));
    REQUIRE(granite);
    REQUIRE(embedding);
    CHECK(*granite <= 222662560);
    CHECK(*granite >= 222662560 - 16384);
    CHECK(*embedding <= 639150592);
    CHECK(*embedding >= 639150592 - 16384);
}

// LFM2's tokenizer is fitted on one header, LFM2-350M-Q4_K_M.gguf's (gguf_file_size.cpp).
// LiquidAI's 2.6B and 8B-A1B Q4_K_M files, which the fit did not use, weigh 1,563,668,704 and
// 5,044,779,712 bytes (tests/fixtures/published-sizes.json): each within 16 KiB over canitrun's
// size, where the least tokenizer left them 1.59 MB over.
TEST_CASE("gguf file size: LFM2's fitted tokenizer on the 2.6B and 8B-A1B files") {
    const QuantizeRequest r = quantize_request(test::quant("Q4_K_M"));
    const auto dense = gguf_file_bytes(test::model("lfm2-2.6b"), r);
    const auto moe = gguf_file_bytes(test::model("lfm2-8b-a1b"), r);
    REQUIRE(dense);
    REQUIRE(moe);
    CHECK(*dense <= 1563668704);
    CHECK(*dense >= 1563668704 - 16384);
    CHECK(*moe <= 5044779712);
    CHECK(*moe >= 5044779712 - 16384);
}

// Gemma 4 12B at llama-quantize's Q4_K_M, by hand from the config (data/models/gemma.json): 48
// layers of width 3840, FFN 15360, vocab 262,144, tied. 40 sliding layers: attn_q / attn_output
// 3840 x 4096, attn_k / attn_v 3840 x 2048; 8 global layers: attn_q / attn_output 3840 x 8192,
// attn_k 3840 x 512 and no attn_v (K = V). use_more_bits puts 20 of the 40 attn_v and 24 of the
// 48 ffn_down in q6_K, and the tied token_embd (1,006,632,960) too: 2,579,496,960 weights x 210
// / 256 = 2,115,993,600 B; the other 9,327,083,520 in q4_K x 144 / 256 = 5,246,484,480 B; 770,096
// f32 (per layer attn / ffn / post norms 4 x 3840, q / k norms 2 x 256 or 2 x 512, the output
// scale; output_norm, rope_freqs 256) = 3,080,384 B. Sum 7,365,558,464 B = 6.860 GiB: a
// published load log of ggml-org's file prints "type f32: 338 / q4_K: 284 / q6_K: 45",
// "file size = 6.86 GiB"
// (https://github.com/hoivb612/llama.cpp/blob/a599fe51aa5d83f180da8948cb40614ae9ad3c9c/__readme_MTP__.txt),
// and the file as a public integration log weighs it is 7,381,382,048 bytes (both in
// tests/fixtures/published-sizes.json): the file size, header added, never over it. Unsloth's
// Q4_K_M of the same model ("6.62 GiB", q6_K 44) keeps token_embd in q4_K, 259,522,560 B less.
TEST_CASE("gguf file size: Gemma 4 12B Q4_K_M tensors by hand, under the published file") {
    const QuantizeRequest r = quantize_request(test::quant("Q4_K_M"));
    const Model& gemma = test::model("gemma-4-12b");
    CHECK(gguf_tensor_bytes(gemma, r).value() == 7365558464);
    const auto file = gguf_file_bytes(gemma, r);
    REQUIRE(file);
    CHECK(*file <= 7381382048);
    CHECK(*file > 7365558464);
}

// Qwen 3.5 9B by hand from its config (data/models/qwen3.5.json): width 4096, FFN 12288, vocab
// 248,320, untied; 24 Gated DeltaNet layers (attn_qkv 4096 x 8192, attn_gate and ssm_out
// 4096 x 4096, ssm_alpha and ssm_beta 4096 x 32) and 8 full-attention layers (attn_q 4096 x 8192
// with its gate, attn_k / attn_v 4096 x 1024, attn_output 4096 x 4096); gate / up / down
// 4096 x 12288 in all 32. That is 8,952,741,888 quantized weights in 250 tensors, and 1,061,376
// f32 in 177 (per GDN layer two norms 2 x 4096, ssm_conv1d 4 x 8192, ssm_a and ssm_dt 32 each,
// ssm_norm 128; per attention layer two norms and q / k norms 2 x 256; output_norm 4096):
// 4,245,504 B. At Q8_0 (34 B per 32): 9,512,288,256 + 4,245,504 = 9,516,533,760 B. At Q4_K_M
// (llama-quantize's rules): q4_K (144 B per 256) but for output, 4 of the 8 attn_v and 16 of the
// 32 ffn_down in q6_K (210 B, use_more_bits), the 24 attn_qkv in q5_K (176 B) and the 48
// ssm_alpha / ssm_beta in q8_0: 5,618,141,184 B. Two published files of one repo with their
// exact byte counts lie the same 10,967,552 B of metadata over these (khtsly/Mini-Coder-GGUF's
// Q8_0, 9,527,501,312, and Q4_K_M, 5,629,108,736: tests/fixtures/published-sizes.json), and
// Unsloth's own Q8_0 of the model 736 B more (9,527,502,048). Unsloth's UD-Q4_K_XL of the same
// revision (5,966,095,584 B) thus holds 5,955,127,296 B of tensors, 337 MB over Q4_K_M's; no
// recipe that types a tensor name alike in every layer gives its load log's counts (f16 48,
// q8_0 24, q4_K 77, q5_K 67, q6_K 24, iq4_xs 10), so the data records only the part the counts
// fix: the 48 f16 are ssm_alpha / ssm_beta (next test).
TEST_CASE("gguf file size: Qwen 3.5 9B Q8_0 and Q4_K_M tensors by hand") {
    const Model& qwen = test::model("qwen3.5-9b");
    CHECK(gguf_tensor_bytes(qwen, quantize_request(test::quant("Q8_0"))).value() == 9516533760);
    CHECK(gguf_tensor_bytes(qwen, quantize_request(test::quant("Q4_K_M"))).value() == 5618141184);
}

// Unsloth's plain-named Qwen3.5-35B-A3B-Q4_K_M.gguf is its UD-Q4_K_M mix
// (data/publishers.json), whose Qwen 3.5 rules keep the 30 linear layers' ssm_alpha and ssm_beta
// (2048 x 32 weights each) in q8_0, 34 B a 32, where the other rules give q4_K, 144 B a 256:
// 2 x 30 x 65,536 x (34 / 32 - 144 / 256) = 3,932,160 x 0.5 = 1,966,080 B. The model's own
// request for Q4_K_M is that mix, as its repo's file is; another publisher's file of the name is
// llama-quantize's own, which holds them in q4_K.
TEST_CASE("gguf file size: Unsloth's Qwen 3.5 MoE Q4_K_M is its UD-Q4_K_M mix") {
    const Model& qwen = test::model("qwen3.5-35b-a3b");
    REQUIRE(qwen.run.gguf_plain_recipes.size() == 1);
    Model plain = qwen;
    plain.run.gguf_plain_recipes.clear();
    QuantizeRequest mix = quantize_request(test::quant("UD-Q4_K_M"));
    std::erase_if(mix.tensor_types, [](const TensorTypeRule& r) {
        return r.family == "qwen3.5" && r.tensor.starts_with("ssm_");
    });
    REQUIRE(mix.tensor_types.size() + 2 == test::quant("UD-Q4_K_M").recipe_tensors.size());
    const auto published = gguf_tensor_bytes(qwen, quantize_request(test::quant("Q4_K_M")));
    const auto without = gguf_tensor_bytes(plain, mix);
    REQUIRE(published);
    REQUIRE(without);
    CHECK(*published - *without == 1966080);
    // the recipe by name and the plain name in the repo are one file
    CHECK(*published == gguf_tensor_bytes(plain, quantize_request(test::quant("UD-Q4_K_M"))));
    CHECK(*gguf_tensor_bytes(plain, quantize_request(test::quant("Q4_K_M"))) < *without);
}

// Unsloth's UD-Q4_K_XL of the same model as far as the data types it: Q4_K_M's tensors with the
// 48 ssm_alpha / ssm_beta (4096 x 32 each) in f16. llama-quantize's rules (from b8275, attn_qkv
// taking the attn_v branch) give no branch to ssm_alpha / ssm_beta, so at Q4_K_M they are q4_K:
// 2 - 144/256 = 1.4375 B a weight more, 48 x 131,072 x 1.4375 = 9,043,968 B, and
// 5,618,141,184 + 9,043,968 = 5,627,185,152 B. (That Q4_K_M total is also the reading above,
// attn_qkv in q5_K and ssm_alpha / ssm_beta in q8_0: llama-quantize's 12 attn_qkv in q6_K
// (use_more_bits over the 32 attn_v and attn_qkv), 12 x 2 x 16,777,216 x 66/256 B, equal that
// reading's 24 x 2 x 16,777,216 x 32/256 + 48 x 131,072 x 0.5 B.) The file holds
// 5,955,127,296 B of tensors (above): its other 328 MB, 202 tensors typed apart layer by layer,
// are not placed.
TEST_CASE("gguf file size: Qwen 3.5 9B UD-Q4_K_XL tensors by hand, ssm_alpha / ssm_beta in f16") {
    const Model& qwen = test::model("qwen3.5-9b");
    CHECK(gguf_tensor_bytes(qwen, quantize_request(test::quant("UD-Q4_K_XL"))).value() ==
          5627185152);
}
