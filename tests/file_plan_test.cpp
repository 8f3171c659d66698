// Same bytes, same answer (#33): a GGUF file whose tensors are a database model's at a
// quantization (the file llama.cpp's converter and llama-quantize would write of it,
// tests/support/model_gguf) is planned as that model is, by llama.cpp's allocation of its own
// tensors: the page, --gpu, gpus, compare and local give the file the database model's bytes.

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "canitrun/file_parts.hpp"
#include "canitrun/file_report.hpp"
#include "canitrun/report.hpp"
#include "canitrun/speed.hpp"
#include "catch.hpp"
#include "run_binary.hpp"
#include "scratch_dir.hpp"
#include "support/model_gguf.hpp"
#include "test_support.hpp"

using canitrun::test::has;
using canitrun::test::Outcome;
using canitrun::test::run_cli;
using nlohmann::json;
namespace fs = std::filesystem;

namespace canitrun {
namespace {

// Llama 3.1 8B at 8k context, f16 cache: 32 layers x 8 KV heads x 128 dims x (K + V) x 2 bytes
// x 8192 cells = 1,073,741,824 bytes (1 GiB), the model.
constexpr Bytes kLlama8bKvAt8k = 32ULL * 8 * 128 * 2 * 2 * 8192;

const Model& llama_8b() {
    return **test::database().find_model("llama-3.1-8b");
}

ReportOptions options_at(const Quant* quant) {
    ReportOptions ro;
    ro.quant = quant;
    ro.estimate.context = 8192;
    ro.plan.estimate = ro.estimate;
    return ro;
}

// One folder per process, with llama.cpp's cache folder of a temporary home in it.
const test::ScratchDir& temp_dir() {
    static const test::ScratchDir dir("canitrun_file_plan_test_");
    static const bool cache = fs::create_directories(dir.path / ".cache/llama.cpp");
    (void)cache;
    return dir;
}

// The file of llama-3.1-8b at Q4_K_M, as a sparse file (its header and a data section of
// zeros), once: in llama.cpp's cache of the temporary home too, for `local`.
std::string llama_8b_file() {
    static const std::string path = [] {
        const fs::path p = temp_dir().path / ".cache/llama.cpp/llama-3.1-8b-Q4_K_M.gguf";
        auto writer = test::model_gguf(llama_8b(), "Q4_K_M");
        REQUIRE(writer);
        writer->write_sparse_file(p.string());
        return p.string();
    }();
    return path;
}

json json_of(const std::vector<std::string>& args, const std::vector<std::string>& env = {}) {
    const Outcome o = run_cli(args, env);
    std::string line;
    for (const auto& a : args) line += a + " ";
    INFO(line);
    INFO(o.err);
    REQUIRE(o.code == 0);
    return json::parse(o.out);
}

}  // namespace

TEST_CASE("file plan: a file with a database model's tensors gets its bytes") {
    const Database& db = test::database();
    const Quant* q4 = *db.find_quant("Q4_K_M");
    const auto g = test::read_back(llama_8b(), "Q4_K_M");
    REQUIRE(g);
    const ReportOptions ro = options_at(q4);
    const auto file = build_gguf_report(db, "llama.gguf", *g, 0, ro);
    REQUIRE(file);
    const auto model = build_model_report(db, llama_8b(), ro);
    REQUIRE(model);
    const Estimate& fe = file->at_context.estimate;
    CHECK(file->at_context.settings.rule == Rule::llamacpp);
    CHECK(file->at_context.rule_note.empty());
    CHECK(fe.term(TermKind::kv_cache) == kLlama8bKvAt8k);
    // The file's tensors are the layout's at Q4_K_M: every term the same, so both totals.
    CHECK(fe.on(Device::gpu) == model->selected.on(Device::gpu));
    CHECK(fe.on(Device::cpu) == model->selected.on(Device::cpu));
    for (const auto& t : model->selected.terms) {
        INFO(term_name(t.kind));
        CHECK(fe.term(t.kind) == t.bytes);
    }
    // token_embd stays on the host: 128256 rows x 4096 at Q4_K_M's token_embd type (q4_K, 144
    // bytes per 256 weights) = 128256 x 16 x 144 = 295,501,824 bytes.
    CHECK(fe.term(TermKind::token_embd) == 128256ULL * 16 * 144);
    CHECK(file->smallest_gpu == model->smallest_gpu);
}

// A repo's listing reads one header (here Q4_K_M's) and plans each other file by the header's
// tensors typed as llama-quantize types them at its quantization: the Q8_0 row is the Q8_0
// file's own tensors, so it is the database model at Q8_0. A file whose quantization the
// database does not know ("custom") keeps the quick rule over the file's bytes, and says so.
TEST_CASE("file plan: a repo's other files are the header's tensors typed at their quantization") {
    const Database& db = test::database();
    const auto g = test::read_back(llama_8b(), "Q4_K_M");
    const auto g8 = test::read_back(llama_8b(), "Q8_0");
    REQUIRE(g);
    REQUIRE(g8);
    const Quant* q8 = *db.find_quant("Q8_0");
    const auto typed = retyped_file_tensors(g->model, g->tensors, *q8);
    REQUIRE(typed);
    REQUIRE(typed->size() == g8->tensors.size());
    Bytes sum = 0;
    for (const auto& t : *typed) sum += t.bytes;
    CHECK(sum == g8->weights_bytes);

    const std::vector<RepoGguf> files = {{"Q4_K_M", {"m-Q4_K_M.gguf"}, 4'920'000'000, false},
                                         {"Q8_0", {"m-Q8_0.gguf"}, 8'540'000'000, false},
                                         {"custom", {"m-custom.gguf"}, 5'000'000'000, false}};
    const ReportOptions ro = options_at(nullptr);
    const auto rows = repo_listing(db, *g, files, ro, "hf:org/repo:", "Q4_K_M");
    REQUIRE(rows);
    REQUIRE(rows->size() == 3);
    for (const std::string id : {"Q4_K_M", "Q8_0"}) {
        const auto model = build_model_report(db, llama_8b(), options_at(*db.find_quant(id)));
        REQUIRE(model);
        const RepoListingRow& row = (*rows)[id == "Q4_K_M" ? 0 : 1];
        INFO(id);
        CHECK(row.rule == Rule::llamacpp);
        CHECK(row.tensors == (id == "Q4_K_M" ? RepoTensors::read : RepoTensors::typed));
        CHECK(row.gpu_bytes == model->selected.on(Device::gpu));
        CHECK(row.total == model->selected.total());
    }
    CHECK((*rows)[2].rule == Rule::quick);
    CHECK((*rows)[2].tensors == RepoTensors::quick);
    // 5e9 + 1 GiB of KV, + 12 %, rounded down.
    const Bytes base = 5'000'000'000 + kLlama8bKvAt8k;
    CHECK((*rows)[2].total == base + base * 12 / 100);
}

TEST_CASE("file plan: the quick rule is kept for --engine quick only") {
    const Database& db = test::database();
    const auto g = test::read_back(llama_8b(), "Q4_K_M");
    REQUIRE(g);
    ReportOptions ro = options_at(nullptr);
    ro.plan = quick_settings(ro.estimate);
    const auto fe = estimate_gguf(*g, ro);
    REQUIRE(fe);
    CHECK(fe->settings.rule == Rule::quick);
    // weights + KV + 12 % of both, rounded down: the page's rule over the file's own bytes.
    const Bytes base = g->weights_bytes + kLlama8bKvAt8k;
    CHECK(fe->estimate.total() == base + base * 12 / 100);
    (void)db;
}

TEST_CASE("file plan: a file the llama.cpp layout does not model says so") {
    auto g = test::read_back(llama_8b(), "Q4_K_M");
    REQUIRE(g);
    g->model.family = "not-an-architecture";
    const auto fe = estimate_gguf(*g, options_at(nullptr));
    REQUIRE(fe);
    CHECK(fe->settings.rule == Rule::quick);
    CHECK(has(fe->rule_note, "not modelled"));
}

// A file with an MTP block (#37): GLM-4.5's GGUFs carry blk.92.* and blk.92.nextn.* beside the
// 92 stack layers (nextn_predict_layers = 1), which the pinned llama.cpp skips unless it drafts
// with them (TENSOR_SKIP: "model has unused tensor ... -- ignoring"). Here Llama 3.1 8B's file
// with a copy of its layer 0 as blk.32 and a 2h x h nextn.eh_proj (h = 4,096; f16: 2 B each,
// 67,108,864 B): the plan is the plain file's to the byte, the appended bytes are the file's MTP
// weights, and the download and parameter count (the file's) keep them.
TEST_CASE("file plan: a file's MTP block is skipped as llama.cpp skips it") {
    const Database& db = test::database();
    const auto plain = test::read_back(llama_8b(), "Q4_K_M");
    REQUIRE(plain);
    GgufModel g = *plain;
    g.model.arch.mtp_layers = 1;
    Bytes appended = 0;
    for (const auto& t : plain->tensors) {
        if (t.name.rfind("blk.0.", 0) != 0) continue;
        FileTensor c = t;
        c.name = "blk.32." + t.name.substr(6);
        appended += c.bytes;
        g.tensors.push_back(c);
    }
    g.tensors.push_back(
        {"blk.32.nextn.eh_proj.weight", 2ULL * 8192 * 4096, 1, 2, {8192, 4096, 1, 1}});
    appended += 2ULL * 8192 * 4096;
    CHECK(appended > 2ULL * 8192 * 4096);  // layer 0's tensors were copied

    const auto w = file_weights(g.model, g.tensors);
    const auto w0 = file_weights(plain->model, plain->tensors);
    REQUIRE(w);
    REQUIRE(w0);
    CHECK((*w)->sums.mtp == appended);
    CHECK((*w)->sums.other == (*w0)->sums.other);
    CHECK((*w)->parts.output_weights == (*w0)->parts.output_weights);
    CHECK((*w)->parts.layers.size() == (*w0)->parts.layers.size());

    const ReportOptions ro = options_at(*db.find_quant("Q4_K_M"));
    const auto with_mtp = build_gguf_report(db, "m.gguf", g, 0, ro);
    const auto without = build_gguf_report(db, "m.gguf", *plain, 0, ro);
    REQUIRE(with_mtp);
    REQUIRE(without);
    CHECK(with_mtp->at_context.estimate.on(Device::gpu) ==
          without->at_context.estimate.on(Device::gpu));
    CHECK(with_mtp->at_context.estimate.on(Device::cpu) ==
          without->at_context.estimate.on(Device::cpu));
    // Without the fix the copied layer and eh_proj were the output head's, on the GPU.
    CHECK(file_mtp_tensor(g.model, "blk.32.attn_q.weight"));
    CHECK_FALSE(file_mtp_tensor(g.model, "blk.31.attn_q.weight"));
    CHECK_FALSE(file_mtp_tensor(plain->model, "blk.32.attn_q.weight"));
}

// A file's speed is read at the type it was written as (#33, #37): general.file_type 15 is
// LLAMA_FTYPE_MOSTLY_Q4_K_M (llama.h at 5b4ebc5), so the file's quantization is a k-quant at the
// database's Q4_K_M bits per weight, as the database model's is; without the key, its largest
// tensors' type and its own bits per weight.
TEST_CASE("file plan: a file's speed family is the type it was written as") {
    const Database& db = test::database();
    auto g = test::read_back(llama_8b(), "Q4_K_M");
    REQUIRE(g);
    CHECK(g->file_type == "Q4_K_M");
    const Quant q = gguf_file_quant(db, *g);
    CHECK(q.id == "GGUF file");
    CHECK(q.file_type == "Q4_K_M");
    CHECK(q.bpw_e4 == (*db.find_quant("Q4_K_M"))->bpw_e4);
    CHECK(quant_family(q) == QuantFamily::k_quant);
    // The generic file quantization has no family of its own: "GGUF file" reads as legacy.
    CHECK(quant_family(gguf_file_quant()) == QuantFamily::legacy);

    g->file_type = "IQ4_XS";
    const Quant iq = gguf_file_quant(db, *g);
    CHECK(quant_family(iq) == QuantFamily::i_quant);
    CHECK(iq.bpw_e4 == (*db.find_quant("IQ4_XS"))->bpw_e4);

    // No general.file_type: Q4_K_M's tensors are mostly q4_K (every 2-D weight but the
    // use_more_bits half of attn_v / ffn_down and the output, which are q6_K), and the bits
    // per weight are the file's: its bytes x 8 x 10^4 over its parameters, rounded up.
    g->file_type.clear();
    REQUIRE_FALSE(g->mix.empty());
    CHECK(g->mix.front().type == "q4_K");
    const Quant mixed = gguf_file_quant(db, *g);
    CHECK(mixed.file_type == "Q4_K");
    CHECK(quant_family(mixed) == QuantFamily::k_quant);
    CHECK(mixed.bpw_e4 ==
          (g->weights_bytes * 80000 + g->model.params_total - 1) / g->model.params_total);
}

TEST_CASE("file plan cli: page, --gpu, gpus, compare and local give the file the model's bytes") {
    const std::string path = llama_8b_file();
    const std::vector<std::string> db_model = {"llama-3.1-8b", "--quant", "Q4_K_M"};

    // The page.
    const json page = json_of({"llama-3.1-8b", "--quant", "Q4_K_M", "--json"});
    const json file_page = json_of({path, "--json"});
    CHECK(file_page["rule"] == "llama.cpp");
    CHECK(file_page["kv_cache_bytes"] == kLlama8bKvAt8k);
    CHECK(file_page["gpu_bytes"] == page["estimate"]["gpu_bytes"]);
    CHECK(file_page["host_bytes"] == page["estimate"]["host_bytes"]);
    const Outcome text = run_cli({path});
    CHECK(has(text.out, "llama.cpp 0ad4a86's allocation of the file's own tensors"));

    // --gpu: the same plan on the same GPU.
    const json on_gpu =
        json_of({"llama-3.1-8b", "--quant", "Q4_K_M", "--gpu", "RTX 4090", "--json"});
    const json file_on_gpu = json_of({path, "--gpu", "RTX 4090", "--json"});
    const json& a = on_gpu["hardware"]["selected"];
    const json& b = file_on_gpu["hardware"]["selected"];
    CHECK(a["plan"] == b["plan"]);
    CHECK(a["gpus"] == b["gpus"]);
    CHECK(a["ram"] == b["ram"]);
    CHECK(a["gpu_total_bytes"] == b["gpu_total_bytes"]);
    CHECK(on_gpu["hardware"]["max_context"] == file_on_gpu["hardware"]["max_context"]);
    CHECK(on_gpu["hardware"]["serving"]["max_users"] ==
          file_on_gpu["hardware"]["serving"]["max_users"]);

    // gpus.
    const json gpus = json_of({"gpus", "llama-3.1-8b", "--quant", "Q4_K_M", "--json"});
    const json file_gpus = json_of({"gpus", path, "--json"});
    CHECK(gpus["total_bytes"] == file_gpus["total_bytes"]);
    CHECK(gpus["smallest_gpu"] == file_gpus["smallest_gpu"]);
    CHECK(gpus["gpus"] == file_gpus["gpus"]);

    // compare: both columns by llama.cpp's rule, the same bytes.
    const json both = json_of({"compare", "llama-3.1-8b", path, "--quant", "Q4_K_M", "--json"});
    const json& m = both["models"][0];
    const json& f = both["models"][1];
    CHECK(m["rule"] == "llama.cpp");
    CHECK(f["rule"] == "llama.cpp");
    CHECK(m["gpu_bytes"] == f["gpu_bytes"]);
    CHECK(m["host_bytes"] == f["host_bytes"]);
    CHECK(m["kv_full_context_bytes"] == f["kv_full_context_bytes"]);
    CHECK(m["smallest_gpu"] == f["smallest_gpu"]);
    const Outcome compared = run_cli({"compare", "llama-3.1-8b", path, "--quant", "Q4_K_M"});
    CHECK(has(compared.out, "llama.cpp rule"));

    // local: the file in llama.cpp's cache of a home folder.
    const std::vector<std::string> env = {
        "HOME=" + temp_dir().path.string(), "OLLAMA_MODELS=", "HF_HOME=", "LLAMA_CACHE=",
        "CANITRUN_PROBE_RECORDING=" + std::string(CANITRUN_FIXTURES) + "/probe/no-gpu"};
    const json local = json_of({"local", "--json"}, env);
    REQUIRE(local["models"].size() == 1);
    CHECK(local["models"][0]["error"] == nullptr);
    CHECK(local["models"][0]["rule"] == "llama.cpp");
    CHECK(local["models"][0]["gpu_bytes"] == page["estimate"]["gpu_bytes"]);
    CHECK(local["models"][0]["total_bytes"] == page["estimate"]["total_bytes"]);
    CHECK(local["models"][0]["smallest_gpu"] == page["smallest_gpu"]["id"]);
}

// The same bytes decode at the same speed (#33): the file of llama-3.1-8b's Q4_K_M tensors on an
// RTX 4090 at the database model's predicted rates, where it said 152.4 t/s against 143.4 and
// read prompts at 8,569 t/s against 7,583 (its "GGUF file" quantization had no k-quant family
// and no weight count to dequantize).
TEST_CASE("file plan cli: a file decodes at its database model's speed") {
    const json on_gpu =
        json_of({"llama-3.1-8b", "--quant", "Q4_K_M", "--gpu", "RTX 4090", "--json"});
    const json file_on_gpu = json_of({llama_8b_file(), "--gpu", "RTX 4090", "--json"});
    const json& a = on_gpu["hardware"]["selected"]["speed"];
    const json& b = file_on_gpu["hardware"]["selected"]["speed"];
    REQUIRE(a["decode_tokens_per_s"].get<double>() > 0);
    CHECK(a["decode_tokens_per_s"] == b["decode_tokens_per_s"]);
    CHECK(a["decode_at_context_tokens_per_s"] == b["decode_at_context_tokens_per_s"]);
    // Prefill's matrix work is 2 FLOPs per active parameter: the file's are its tensors' count,
    // 8,030,261,248, the database's the Hub's 8.03B, 0.003 % apart, and so are the rates.
    const double pa = a["prefill_tokens_per_s"].get<double>();
    const double pb = b["prefill_tokens_per_s"].get<double>();
    CHECK(std::abs(pa - pb) <= pa * 1e-4);
}

}  // namespace canitrun
