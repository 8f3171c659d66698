// The GGUF header reader on files written by the test-side writer: every value type, every
// ggml type, v2 and v3, and corrupt variants that must be refused with a clear error.

#include <unistd.h>

#include <filesystem>

#include "canitrun/gguf.hpp"
#include "canitrun/gguf_files.hpp"
#include "canitrun/gguf_model.hpp"
#include "catch.hpp"
#include "run_binary.hpp"
#include "support/gguf_writer.hpp"

using namespace canitrun;
using canitrun::test::GgufWriter;

using canitrun::test::has;

namespace {

Result<GgufFile> read_bytes(const std::string& bytes) {
    return read_gguf(MemorySource(bytes, "test.gguf"));
}

// Block layouts by hand from the structs in ggml/src/ggml-common.h (llama.cpp 5b4ebc5) and the
// ids of enum ggml_type in ggml/include/ggml.h: {id, values per block, bytes per block}.
struct Layout {
    std::uint32_t id;
    std::uint64_t block;
    std::uint64_t bytes;
};
const Layout kLayouts[] = {
    {0, 1, 4},                         // f32
    {1, 1, 2},                         // f16
    {2, 32, 2 + 16},                   // q4_0: half d + 32 nibbles
    {3, 32, 2 + 2 + 16},               // q4_1: d, m
    {6, 32, 2 + 4 + 16},               // q5_0: d, qh[4], qs[16]
    {7, 32, 2 + 2 + 4 + 16},           // q5_1
    {8, 32, 2 + 32},                   // q8_0
    {9, 32, 2 + 2 + 32},               // q8_1
    {10, 256, 16 + 64 + 2 + 2},        // q2_K: scales[16], qs[64], d, dmin
    {11, 256, 32 + 64 + 12 + 2},       // q3_K: hmask[32], qs[64], scales[12], d
    {12, 256, 2 + 2 + 12 + 128},       // q4_K
    {13, 256, 2 + 2 + 12 + 32 + 128},  // q5_K: + qh[32]
    {14, 256, 128 + 64 + 16 + 2},      // q6_K: ql[128], qh[64], scales[16], d
    {15, 256, 4 + 256 + 2 * 16},       // q8_K: float d, qs[256], int16 bsums[16]
    {16, 256, 2 + 2 * 32},             // iq2_xxs: d, uint16 qs[32]
    {17, 256, 2 + 2 * 32 + 8},         // iq2_xs: + scales[8]
    {18, 256, 2 + 3 * 256 / 8},        // iq3_xxs
    {19, 256, 2 + 32 + 2 * 8},         // iq1_s: d, qs[32], uint16 qh[8]
    {20, 32, 2 + 16},                  // iq4_nl
    {21, 256, 2 + 64 + 8 + 32 + 4},    // iq3_s: d, qs[64], qh[8], signs[32], scales[4]
    {22, 256, 2 + 64 + 8 + 8},         // iq2_s: d, qs[64], qh[8], scales[8]
    {23, 256, 2 + 2 + 4 + 128},        // iq4_xs: d, scales_h, scales_l[4], qs[128]
    {24, 1, 1},                        // i8
    {25, 1, 2},                        // i16
    {26, 1, 4},                        // i32
    {27, 1, 8},                        // i64
    {28, 1, 8},                        // f64
    {29, 256, 32 + 16 + 8},            // iq1_m: qs[32], qh[16], scales[8]
    {30, 1, 2},                        // bf16
    {34, 256, 48 + 4 + 2},             // tq1_0: qs[(256 - 4*256/64)/5 = 48], qh[4], d
    {35, 256, 64 + 2},                 // tq2_0: qs[64], d
    {39, 32, 1 + 16},                  // mxfp4: e8m0 scale, qs[16]
    {40, 64, 4 + 32},                  // nvfp4: 4 e4m3 scales, qs[32]
    {41, 128, 2 + 16},                 // q1_0: d, qs[128/8]
    {42, 64, 2 + 16},                  // q2_0: d, qs[64/4]
};

}  // namespace

TEST_CASE("gguf: every metadata value type reads back") {
    GgufWriter w;
    w.u8("a.u8", 200);
    w.i8("a.i8", -5);
    w.u16("a.u16", 60000);
    w.i16("a.i16", -300);
    w.u32("a.u32", 4000000000U);
    w.i32("a.i32", -70000);
    w.f32("a.f32", 0.5F);
    w.boolean("a.bool", true);
    w.str("a.str", "hello");
    w.u64("a.u64", 1ULL << 40);
    w.i64("a.i64", -(1LL << 40));
    w.f64("a.f64", 0.25);
    w.u32_array("a.arr_u32", {1, 2, 3});
    w.i32_array("a.arr_i32", {-1, 0, 7});
    w.f32_array("a.arr_f32", {1.5F});
    w.bool_array("a.arr_bool", {true, false});
    w.str_array("a.arr_str", {"x", "yz"});
    const auto f = read_bytes(w.bytes());
    REQUIRE(f);
    CHECK(f->version == 3);
    CHECK(f->metadata.size() == 17);
    CHECK(f->get_uint("a.u8") == 200U);
    CHECK(f->find("a.i8")->i == -5);
    CHECK(f->get_uint("a.u16") == 60000U);
    CHECK(f->find("a.i16")->i == -300);
    CHECK(f->get_uint("a.u32") == 4000000000ULL);
    CHECK(f->find("a.i32")->i == -70000);
    CHECK(f->find("a.f32")->f == 0.5);
    CHECK(f->get_uint("a.bool") == 1U);
    CHECK(f->get_string("a.str") == "hello");
    CHECK(f->get_uint("a.u64") == (1ULL << 40));
    CHECK(f->find("a.i64")->i == -(1LL << 40));
    CHECK(f->find("a.f64")->f == 0.25);
    CHECK(f->find("a.arr_u32")->uints == std::vector<std::uint64_t>{1, 2, 3});
    CHECK(f->find("a.arr_i32")->ints == std::vector<std::int64_t>{-1, 0, 7});
    CHECK(f->find("a.arr_i32")->uint_at(2) == 7U);
    CHECK_FALSE(f->find("a.arr_i32")->uint_at(0).has_value());  // negative
    CHECK(f->find("a.arr_f32")->floats == std::vector<double>{1.5});
    CHECK(f->find("a.arr_bool")->uints == std::vector<std::uint64_t>{1, 0});
    CHECK(f->find("a.arr_str")->strings == std::vector<std::string>{"x", "yz"});
    CHECK(f->find("a.arr_str")->length == 2);
}

TEST_CASE("gguf: long string arrays are counted not stored") {
    GgufWriter w;
    std::vector<std::string> tokens(kGgufMaxStoredStrings + 1, "tok");
    w.str_array("tokenizer.ggml.tokens", tokens);
    w.u32("after", 9);
    const auto f = read_bytes(w.bytes());
    REQUIRE(f);
    CHECK(f->find("tokenizer.ggml.tokens")->length == kGgufMaxStoredStrings + 1);
    CHECK_FALSE(f->find("tokenizer.ggml.tokens")->stored);
    CHECK(f->get_uint("after") == 9U);  // the reader stayed in step
}

TEST_CASE("gguf: weights are the exact sum of tensor sizes for every ggml type") {
    for (std::uint32_t version : {2U, 3U}) {
        GgufWriter w(version);
        w.str("general.architecture", "llama");
        std::uint64_t expected = 0;
        for (const auto& l : kLayouts) {
            // 4 blocks per row, 3 rows: 12 blocks.
            w.tensor("t" + std::to_string(l.id), {4 * l.block, 3}, l.id);
            expected += 12 * l.bytes;
        }
        const auto f = read_bytes(w.bytes());
        REQUIRE(f);
        CHECK(f->version == version);
        CHECK(f->tensors.size() == std::size(kLayouts));
        CHECK(f->tensor_bytes() == expected);
        for (std::size_t k = 0; k < std::size(kLayouts); ++k) {
            CHECK(f->tensors[k].type == kLayouts[k].id);
            CHECK(f->tensors[k].bytes == 12 * kLayouts[k].bytes);
            CHECK(f->tensors[k].offset % 32 == 0);
        }
        // Sum of the table's bytes per block: 4+2+18+20+22+24+34+36+84+110+144+176+210+292+66+74
        // +98+50+18+110+82+136+1+2+4+8+8+56+2+54+66+17+36+18+18 = 2100; x 12 blocks.
        CHECK(expected == 12ULL * 2100);
    }
}

TEST_CASE("gguf: the data section starts at the alignment the file asks for") {
    GgufWriter w;
    w.alignment(64);
    w.tensor("a", {32}, 0);  // 128 bytes
    w.tensor("b", {10}, 0);  // 40 bytes, at 128
    const auto f = read_bytes(w.bytes());
    REQUIRE(f);
    CHECK(f->alignment == 64);
    CHECK(f->data_offset % 64 == 0);
    CHECK(f->tensors[1].offset == 128);
    CHECK(f->tensor_bytes() == 168);
}

TEST_CASE("gguf: corrupt files are refused with a clear error") {
    GgufWriter good;
    good.str("general.architecture", "llama");
    good.str("general.name", "some model");
    good.tensor("w", {256, 4}, 12);
    const std::string bytes = good.bytes();
    REQUIRE(read_bytes(bytes));

    SECTION("bad magic") {
        GgufWriter w = good;
        w.magic("GGML");
        const auto r = read_bytes(w.bytes());
        REQUIRE_FALSE(r);
        CHECK(has(r.error().message, "bad magic"));
    }
    SECTION("version 1 and 99") {
        for (std::uint32_t v : {1U, 99U}) {
            GgufWriter w(v);
            const auto r = read_bytes(w.bytes());
            REQUIRE_FALSE(r);
            CHECK(has(r.error().message, "unsupported GGUF version " + std::to_string(v)));
            CHECK_FALSE(r.error().hint.empty());
        }
    }
    SECTION("huge kv count") {
        GgufWriter w = good;
        w.kv_count_override(1ULL << 60);
        const auto r = read_bytes(w.bytes());
        REQUIRE_FALSE(r);
        CHECK(has(r.error().message, "metadata count"));
    }
    SECTION("huge tensor count") {
        std::string bad = bytes;
        bad.replace(8, 8, GgufWriter::le64(1ULL << 40));  // after magic and version
        const auto r = read_bytes(bad);
        REQUIRE_FALSE(r);
        CHECK(has(r.error().message, "tensor count"));
    }
    SECTION("huge string length") {
        GgufWriter w;
        w.raw("k", 8, GgufWriter::le64(1ULL << 62) + "abc");
        const auto r = read_bytes(w.bytes());
        REQUIRE_FALSE(r);
        CHECK(has(r.error().message, "exceeds 1 MiB"));
    }
    SECTION("huge array length") {
        GgufWriter w;
        w.raw("k", 9, GgufWriter::le32(4) + GgufWriter::le64(1ULL << 61));
        const auto r = read_bytes(w.bytes());
        REQUIRE_FALSE(r);
        CHECK(has(r.error().message, "array length"));
    }
    SECTION("tensor offset past the end") {
        GgufWriter w;
        w.tensor_at("w", {256, 4}, 12, 1ULL << 40);
        const auto r = read_gguf(MemorySource(w.header(), "x.gguf"));
        REQUIRE_FALSE(r);
        CHECK(has(r.error().message, "truncated file"));
        CHECK(has(r.error().message, "'w'"));
    }
    SECTION("data section cut short") {
        const auto r = read_bytes(bytes.substr(0, bytes.size() - 1));
        REQUIRE_FALSE(r);
        CHECK(has(r.error().message, "truncated file"));
    }
    SECTION("truncated in the middle of a string, and at every other byte of the header") {
        const std::string header = good.header();
        const auto cut = header.find("some mo");
        REQUIRE(cut != std::string::npos);
        const auto r = read_bytes(header.substr(0, cut + 3));
        REQUIRE_FALSE(r);
        CHECK(has(r.error().message, "truncated file"));
        for (std::size_t n = 0; n + 32 < header.size(); ++n) {
            REQUIRE_FALSE(read_bytes(header.substr(0, n)));
        }
    }
    SECTION("unknown ggml type id") {
        GgufWriter w;
        w.tensor("w", {256}, 31);  // removed from ggml
        const auto r = read_bytes(w.bytes());
        REQUIRE_FALSE(r);
        CHECK(has(r.error().message, "unknown ggml type id 31"));
    }
    SECTION("dims overflow and too many dims") {
        GgufWriter w;
        w.tensor("w", {1ULL << 32, 1ULL << 32}, 0);
        const auto r = read_bytes(w.header());
        REQUIRE_FALSE(r);
        CHECK(has(r.error().message, "overflows"));
        GgufWriter w5;
        w5.tensor("w", {1, 1, 1, 1, 1}, 0);
        const auto r5 = read_bytes(w5.bytes());
        REQUIRE_FALSE(r5);
        CHECK(has(r5.error().message, "5 dimensions"));
    }
    SECTION("rows that are not whole blocks") {
        GgufWriter w;
        w.tensor("w", {100}, 12);  // q4_K needs multiples of 256
        const auto r = read_bytes(w.header() + std::string(256, '\0'));
        REQUIRE_FALSE(r);
        CHECK(has(r.error().message, "not a multiple"));
    }
    SECTION("nested arrays and unknown value types") {
        GgufWriter w;
        w.raw("k", 9, GgufWriter::le32(9) + GgufWriter::le64(1));
        REQUIRE_FALSE(read_bytes(w.bytes()));
        GgufWriter w2;
        w2.raw("k", 13, "");
        const auto r = read_bytes(w2.bytes());
        REQUIRE_FALSE(r);
        CHECK(has(r.error().message, "unknown type 13"));
    }
}

// Found by fuzz_gguf: each was an uncaught exception or a header past the end of the file.
TEST_CASE("gguf: fuzzer findings are clear errors") {
    {
        // No tensors: the header is padded to the 32-byte alignment; cut inside that padding.
        GgufWriter w;
        w.str("general.architecture", "llama");
        const std::string header = w.header();
        REQUIRE(header.size() % 32 == 0);
        const auto r = read_bytes(header.substr(0, header.size() - 1));
        REQUIRE_FALSE(r);
        CHECK(r.error().message.find("truncated") != std::string::npos);
    }
    {
        // An f64 row of 2^61 values is 2^64 bytes: one row overflows.
        GgufWriter w;
        w.tensor_at("huge", {1ULL << 61}, 28, 0);
        const auto r = read_bytes(w.header());
        REQUIRE_FALSE(r);
        CHECK(r.error().message.find("larger than 2^64 bytes") != std::string::npos);
    }
}

TEST_CASE("gguf: a sparse file's header is read without touching its data") {
    const auto dir = std::filesystem::temp_directory_path() /
                     ("canitrun_gguf_reader_test_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const std::string path = (dir / "big.gguf").string();
    GgufWriter w;
    w.str("general.architecture", "llama");
    // 100 tensors of 1 GB each (f16, 2^29 values x 2 bytes): a 100 GiB file.
    for (int k = 0; k < 100; ++k) w.tensor("t" + std::to_string(k), {1ULL << 15, 1ULL << 14}, 1);
    w.write_sparse_file(path);
    auto src = open_file_source(path);
    REQUIRE(src);
    CHECK((*src)->size() > 100ULL * (1ULL << 30));
    const auto f = read_gguf(**src);
    REQUIRE(f);
    CHECK(f->tensor_bytes() == 100ULL << 30);
    CHECK((*src)->bytes_read() < 64 * 1024 + 1);  // one 64 KiB window at most
    std::filesystem::remove_all(dir);
}

TEST_CASE("gguf: split file names") {
    const auto s = parse_split_name("dir/model-Q4_K_M-00002-of-00003.gguf");
    REQUIRE(s);
    CHECK(s->prefix == "dir/model-Q4_K_M");
    CHECK(s->number == 2);
    CHECK(s->count == 3);
    CHECK(split_part_path(s->prefix, 1, 3) == "dir/model-Q4_K_M-00001-of-00003.gguf");
    CHECK_FALSE(parse_split_name("model.gguf"));
    CHECK_FALSE(parse_split_name("model-00004-of-00003.gguf"));
}

TEST_CASE("gguf: flipped header bytes give a result or an error and never a crash") {
    GgufWriter w;
    w.str("general.architecture", "qwen35moe");
    w.u32("qwen35moe.block_count", 8);
    w.u32("qwen35moe.attention.head_count", 4);
    w.u32_array("qwen35moe.attention.head_count_kv", {0, 0, 0, 2, 0, 0, 0, 2});
    w.u32("qwen35moe.ssm.conv_kernel", 4);
    w.tensor("token_embd.weight", {64, 10}, 0);
    w.tensor("blk.0.w", {256, 2}, 12);
    const std::string good = w.bytes();
    std::size_t ok = 0;
    for (std::size_t at = 0; at < w.header().size(); ++at) {
        for (unsigned mask : {0x01U, 0x80U, 0xFFU}) {
            std::string bad = good;
            bad[at] = static_cast<char>(static_cast<unsigned char>(bad[at]) ^ mask);
            const auto f = read_bytes(bad);
            if (!f) {
                CHECK_FALSE(f.error().message.empty());
                continue;
            }
            ++ok;
            const auto m = gguf_to_model({*f});
            if (m) CHECK(m->weights_bytes == f->tensor_bytes());
        }
    }
    CHECK(ok > 0);  // flips in names and values still parse
}
