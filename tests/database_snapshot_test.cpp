// The binary database snapshot: the embedded one is exactly what data/ parses to, a round trip
// keeps every field, and corrupt bytes of any kind are refused with an error, never a crash.

#include <array>
#include <cmath>
#include <optional>
#include <string>
#include "catch.hpp"

#include "canitrun/database_files.hpp"
#include "canitrun/database_snapshot.hpp"
#include "canitrun/embedded_snapshot.hpp"
#include "test_support.hpp"

namespace canitrun {
namespace {

Database tiny_database() {
    auto files = read_database_dir(std::string(CANITRUN_FIXTURES) + "/tiny-database");
    REQUIRE(files);
    auto db = parse_database(*files);
    REQUIRE(db);
    return *db;
}

// A database whose every field holds something other than its default, so a field the snapshot
// forgot would come back different.
Database every_field_set() {
    LayerGroup g{
        LayerKind::mla, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20};
    g.ssm_rms_norm = true;
    Model m;
    m.id = "id";
    m.name = "name";
    m.family = "family";
    m.vendor = "vendor";
    m.aliases = {"a1", "a2"};
    m.hf_repo = "org/repo";
    m.source = "source";
    m.released = "2026-01-02";
    m.license = "apache-2.0";
    m.commercial_use = true;
    m.modalities = {"text", "image"};
    m.params_total = 123456789012;
    m.params_active = 3000000000;
    m.params_rounding = 100000000;
    m.params_extra = 42;
    m.context_native = 262144;
    m.context_extended = 1010000;
    m.context_extension = "YaRN";
    m.arch.hidden_size = 2048;
    m.arch.vocab_size = 248320;
    m.arch.tied_embeddings = true;
    m.arch.layers = 2;
    m.arch.attention = Attention{16, 2, 256, 128, true, true};
    m.arch.attention.rope_scaling = "llama3";
    m.arch.intermediate_size = 512;
    m.arch.gated_ffn = false;
    m.arch.moe = MoE{256, 8, 1, 512, 512, 40, false};
    m.arch.layer_groups = {g, LayerGroup{}};
    m.arch.pattern = "pattern";
    m.arch.linear_name = "Gated DeltaNet";
    m.arch.full_name = "Gated Attention";
    m.benchmarks = {{"MMLU", 85.25}, {"GPQA", -0.0}};
    m.run.gguf_repo = "unsloth/x";
    m.run.ollama = "x:35b";
    m.run.lmstudio_search = "x";
    m.run.sampling = {Sampling{"thinking", 0.6, 0.95, 0.0, 1.5, 20, "{\"x\":1}"}, Sampling{}};
    m.run.mmproj = "mmproj.gguf";
    m.run.projector = {857714112, "tensors", 260149658, 26141000, "src"};
    m.run.checkpoints = {QuantCheckpoint{"AWQ", "o/n-AWQ", "awq", "why", "src"}};
    m.notes = "notes\nwith a newline and \xff";
    Gpu gpu;
    gpu.id = "id";
    gpu.name = "name";
    gpu.short_name = "short";
    gpu.vendor = "nvidia";
    gpu.aliases = {"alias"};
    gpu.gpu_class = GpuClass::unified;
    gpu.vram_gb = 32;
    gpu.vram_bytes = 34359738368;
    gpu.memory_type = "GDDR7";
    gpu.bandwidth_gbps = 1792.5;
    gpu.fp16_tflops = 104.8;
    gpu.fp8_tflops = 209.5;
    gpu.fp4_tflops = 419;
    gpu.fp32_tflops = 52.4;
    gpu.int8_dot_tops = 209.6;
    gpu.board_power_w = 575;
    gpu.l2_cache_bytes = 96ULL << 20;
    gpu.sm_count = 170;
    gpu.architecture = "Blackwell";
    gpu.backends = {"cuda", "vulkan"};
    gpu.release_year = 2025;
    gpu.unified_gpu_share_permille = 666;
    gpu.source = "source";
    Quant q;
    q.id = "Q4_K_M";
    q.name = "name";
    q.aliases = {"q4km"};
    q.bpw_e4 = 48730;
    q.linear_bpw_e4 = 47500;
    q.quality_rank = 7;
    q.recommended = true;
    q.page_table = true;
    q.page_matrix = true;
    q.requires_backend = "cuda";
    q.format = "gguf";
    q.recipe_base = "Q4_K_M";
    q.recipe_imatrix = true;
    q.recipe_tensors = {{"token_embd.weight", "q8_0", "", "", ""},
                        {"ssm_out.weight", "q8_0", "qwen35moe", "qwen3.6", "qwen3.6-35b-a3b"}};
    q.recipe_publisher = "bartowski";
    q.derivation = "blocks";
    q.source = "ggml-common.h";
    Database db;
    db.info = DatabaseInfo{"2026.12.01", "2026-12-01", "source"};
    db.models = {m, Model{}};
    db.gpus = {gpu};
    db.quants = {q};
    db.card_classes = {CardClass{24, GpuClass::consumer}, CardClass{96, GpuClass::workstation}};
    db.device_elements = {std::array<std::uint64_t, 5>{1, 2, 3, 4, 5}, std::nullopt};
    db.weight_parts = {std::string("\x01x\x00", 3), ""};
    return db;
}

TEST_CASE("The embedded snapshot reads back as exactly the database data/ parses to") {
    // ... and the figures the generator works out from the models (device_elements, which
    // prepared_layout_test checks model by model), which JSON does not hold.
    auto snapshot = load_embedded_database();
    REQUIRE(snapshot);
    CHECK(snapshot->device_elements.size() == snapshot->models.size());
    snapshot->device_elements.clear();
    // ... and the weight terms (kept_parts_test checks them model by model).
    CHECK(snapshot->weight_parts.size() == snapshot->models.size());
    snapshot->weight_parts.clear();
    const auto embedded = parse_database(embedded_database_files());
    REQUIRE(embedded);
    CHECK(embedded->device_elements.empty());
    CHECK(embedded->weight_parts.empty());
    CHECK(*snapshot == *embedded);
    auto on_disk = read_database_dir(CANITRUN_DATA_DIR);
    REQUIRE(on_disk);
    const auto parsed = parse_database(*on_disk);
    REQUIRE(parsed);
    CHECK(*snapshot == *parsed);
}

TEST_CASE("A snapshot round trip keeps every field of every struct") {
    const Database db = every_field_set();
    const auto back = deserialize_database(serialize_database(db));
    REQUIRE(back);
    CHECK(*back == db);
    CHECK(std::signbit(back->models[0].benchmarks[1].score));
    const Database tiny = tiny_database();
    CHECK(deserialize_database(serialize_database(tiny)).value() == tiny);
}

TEST_CASE("Changing a deep field such as a GPU share or a layer dim changes the snapshot") {
    const Database db = every_field_set();
    Database other = db;
    other.gpus[0].unified_gpu_share_permille = 667;
    CHECK(serialize_database(other) != serialize_database(db));
    other = db;
    other.models[0].arch.layer_groups[0].qk_rope_head_dim = 21;
    CHECK(serialize_database(other) != serialize_database(db));
}

TEST_CASE("Every truncation of a snapshot is refused") {
    const std::string bytes = serialize_database(tiny_database());
    REQUIRE(bytes.size() > 100);
    for (std::size_t n = 0; n < bytes.size(); ++n) {
        const auto r = deserialize_database(std::string_view(bytes).substr(0, n));
        REQUIRE_FALSE(r);
        CHECK(r.error().kind == ErrorKind::bad_database);
    }
}

TEST_CASE("Snapshots with another magic or format or trailing bytes are refused") {
    const std::string bytes = serialize_database(tiny_database());
    std::string wrong_magic = bytes;
    wrong_magic[1] = 'X';
    const auto r1 = deserialize_database(wrong_magic);
    REQUIRE_FALSE(r1);
    CHECK_THAT(r1.error().message, Catch::Contains("magic"));

    // The format follows the 11-character magic and its length byte.
    std::string other_format = bytes;
    REQUIRE(static_cast<unsigned char>(other_format[12]) == kSnapshotFormat);
    other_format[12] = static_cast<char>(kSnapshotFormat + 1);
    const auto r2 = deserialize_database(other_format);
    REQUIRE_FALSE(r2);
    CHECK_THAT(r2.error().message,
               Catch::Contains("format " + std::to_string(kSnapshotFormat + 1) + ", expected " +
                               std::to_string(kSnapshotFormat)));

    const auto r3 = deserialize_database(bytes + "x");
    REQUIRE_FALSE(r3);
    CHECK_THAT(r3.error().message, Catch::Contains("bytes follow"));
}

TEST_CASE("A snapshot count past the end is refused before anything is allocated") {
    // magic, the format (under 128: one byte), three empty info strings, then a model count of
    // 2^63.
    std::string bytes = std::string("\x0b") + "canitrun-db" + static_cast<char>(kSnapshotFormat) +
                        std::string(3, '\0');
    bytes += "\x80\x80\x80\x80\x80\x80\x80\x80\x80\x01";
    const auto r = deserialize_database(bytes);
    REQUIRE_FALSE(r);
    CHECK_THAT(r.error().message, Catch::Contains("count runs past the end"));
    // An eleven-byte varint is refused as well.
    const auto r2 =
        deserialize_database(std::string("\x0b") + "canitrun-db" + std::string(11, '\x80'));
    REQUIRE_FALSE(r2);
}

TEST_CASE("Every single-byte change to a snapshot is read or refused, never a crash") {
    const std::string bytes = serialize_database(tiny_database());
    std::size_t refused = 0;
    for (std::size_t i = 0; i < bytes.size(); ++i) {
        for (const unsigned flip : {0x01U, 0x80U, 0xffU}) {
            std::string changed = bytes;
            changed[i] = static_cast<char>(
                static_cast<unsigned>(static_cast<unsigned char>(changed[i])) ^ flip);
            if (!deserialize_database(changed)) ++refused;
        }
    }
    // Flipping a byte inside a string's text still reads; most other changes must not.
    CHECK(refused > 0);
}

}  // namespace
}  // namespace canitrun
