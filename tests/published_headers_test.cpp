// The database's layouts against the headers of published GGUF files, as the published llama.cpp
// load logs of validation/llama-logs/ print them ("loaded meta data with K key-value pairs and
// T tensors", "- type q4_K: N tensors"): the tensor count shows whether a model keeps its own
// output head (a tied model has no output.weight), and a plain llama-quantize file's type
// counts show llama-quantize's per-layer rules. tests/fixtures/published-headers.json adds the
// headers quoted elsewhere (issue threads' load logs), one row a file, each with its source;
// tests/fixtures/published-sizes.json's files published to the byte weigh in on the tied flag.

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "canitrun/gguf_model.hpp"
#include "canitrun/llama_log.hpp"
#include "canitrun/llamacpp_parts.hpp"
#include "canitrun/quantize_rules.hpp"
#include "canitrun/tensor_layout.hpp"
#include "catch.hpp"
#include "published_flags.hpp"
#include "test_support.hpp"

using namespace canitrun;
using canitrun::test::tensors_with_tied;

namespace {

struct PublishedHeader {
    std::string log;
    std::string model_id;
    std::string file_type;    // the header's '# file_type:' line
    std::string llama_ftype;  // as llama.cpp prints it: "Q4_K - Medium"
    std::uint64_t tensors = 0;
    std::map<std::string, std::uint64_t> types;  // "q4_K" -> tensors of that type
    // made with an importance matrix, as the log's metadata says (quantize.imatrix.file, read
    // by gguf_to_model as for a file): not its model's gguf_repo publisher's recipe
    bool imatrix = false;
};

std::string header_field(const std::string& text, const std::string& key) {
    const std::string tag = "# " + key + ": ";
    const auto at = text.find(tag);
    if (at == std::string::npos) return "";
    const auto end = text.find('\n', at);
    return text.substr(at + tag.size(), end - at - tag.size());
}

// "llama_model_loader: - type q4_K:  290 tensors"
std::map<std::string, std::uint64_t> type_counts(const std::string& text) {
    std::map<std::string, std::uint64_t> out;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        const auto at = line.find("- type ");
        if (at == std::string::npos || line.find(" tensors") == std::string::npos) {
            if (!out.empty()) break;  // a log of two loads lists the types twice
            continue;
        }
        std::istringstream fields(line.substr(at + 7));
        std::string type;
        std::uint64_t n = 0;
        fields >> type >> n;
        if (!type.empty() && type.back() == ':') type.pop_back();
        if (n > 0) out[type] += n;
    }
    return out;
}

// The rules' tensors per type, as a header's "- type" lines count them.
std::map<std::string, std::uint64_t> counted_types(const std::vector<TypedTensor>& tensors) {
    std::map<std::string, std::uint64_t> out;
    for (const auto& t : tensors) out[std::string(t.type.name)] += 1;
    return out;
}

std::vector<PublishedHeader> read_published_headers() {
    std::vector<PublishedHeader> out;
    const std::filesystem::path dir = CANITRUN_SOURCE_DIR "/validation/llama-logs";
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
        if (entry.path().extension() != ".log") continue;
        std::ifstream in(entry.path());
        const std::string text((std::istreambuf_iterator<char>(in)), {});
        const std::string id = header_field(text, "model_id");
        if (!test::database().find_model(id)) continue;
        const auto log = parse_llama_log(text);
        if (!log || !log->tensor_count) continue;
        const auto file = gguf_to_model({llama_log_metadata(*log)});
        out.push_back({entry.path().filename().string(), id, header_field(text, "file_type"),
                       log->file_type(), *log->tensor_count, type_counts(text),
                       file && file->model.run.gguf_imatrix});
    }
    return out;
}

// Read once: parsing the logs is most of these cases' time.
const std::vector<PublishedHeader>& published_headers() {
    static const std::vector<PublishedHeader> headers = read_published_headers();
    return headers;
}

// Files whose tensors are not the database's model as the pinned llama.cpp converts it, each with
// the reason: neither their tensor count nor their types are checked.
const std::map<std::string, std::string>& known_differences() {
    static const std::map<std::string, std::string> reasons = {
        {"cudax-013-ik-deepseek-r1-0528-5090-2x3090-ot.log",
         "ik_llama.cpp's types; its converter keeps attn_kv_b beside attn_k_b / attn_v_b"},
        {"cudax-014-ik-deepseek-v3-0324-iq2kr4-4gpu-ngl27-ts.log",
         "ik_llama.cpp's types; its converter keeps attn_kv_b beside attn_k_b / attn_v_b"},
        {"cudax-016-ik-deepseek-v3-0324-q4km-2x6000ada-128k.log",
         "an older converter: attn_kv_b unsplit (61 tensors fewer); a custom 'Q4_K_M-V2' mix"},
        {"cudax-017-ik-deepseek-r1-q2k-15x3090-160k.log",
         "ik_llama.cpp's converter (attn_kv_b kept) and its IQ4_NL fallback for Q2_K rows"},
        {"cudax-019-ik-deepseek-r1-0528-iq3kr4-2x4090-60k.log",
         "ik_llama.cpp's types; its converter keeps attn_kv_b (1147 tensors)"},
        {"cudax-024-ik-deepseek-r1-0528-iq2kr4-4090d-exps-cpu.log",
         "ik_llama.cpp's types; its converter keeps attn_kv_b (1147 tensors)"},
    };
    return reasons;
}

// Files whose tensors are the layout's (their count is checked, and shows the tied flag) but
// whose types are not a plain llama-quantize file's, each with the reason.
const std::map<std::string, std::string>& type_differences() {
    static const std::map<std::string, std::string> reasons = {
        {"cudax-005-deepseek-v3-0324-ud-q2kxl-4gpu-ot.log", "Unsloth's upcasts"},
        {"cudax-012-ik-kimi-k2-iq3xxs-2x3090-cpu-experts.log", "Unsloth's upcasts"},
        {"metal-006-mistral-small-3.1-24b-q4km-m3pro.log",
         "Mungert's own per-layer mix under a Q4_K_M name (q5_K tensors Q4_K_M never writes)"},
        {"cudab-017-qwen3-8b-q4km-gtx1660ti-ngl0.log",
         "one tensor more in q6_K than the pinned rules give; the build that wrote it is not "
         "recorded"},
        // Unsloth's Gemma 4 E files hold the KV-sharing layers' k / v too, as the layout does
        // since cb60d78c (720 / 601 tensors), but keep inp_gate / proj in f32 (E2B: token_embd
        // q4_K, the per-layer table q5_K) where the pinned rules quantize them
        {"metal-001-gemma-4-e4b-q8_0-m4.log", "Unsloth's types (f32 inp_gate / proj)"},
        {"metal-004-gemma-4-e2b-q4km-m4.log",
         "Unsloth's types (f32 inp_gate / proj, token_embd q4_K, per_layer_token_embd q5_K)"},
    };
    return reasons;
}

bool unsloth_dynamic(const PublishedHeader& h) {
    return h.file_type.find("UD-") != std::string::npos;
}

}  // namespace

// A tied model has no output.weight: every published file of a model shows whether it keeps its
// own head (qwen3-4b's 398 tensors against qwen3-8b's 399 with the same 36 layers).
TEST_CASE("published headers: every model's tensor count is its published files'") {
    int checked = 0;
    for (const auto& h : published_headers()) {
        if (known_differences().count(h.log) == 1) continue;
        INFO(h.log << " (" << h.model_id << ")");
        const auto layout = tensor_layout(test::model(h.model_id));
        REQUIRE(layout);
        CHECK(layout->tensors.size() == h.tensors);
        ++checked;
    }
    CHECK(checked >= 40);
}

// A plain llama-quantize file (not Unsloth's dynamic upcasts, not ik_llama.cpp's types, not a
// custom mix) holds exactly the types canitrun's transcription of the rules gives its tensors.
TEST_CASE("published headers: a plain llama-quantize file's types are the rules' types") {
    const std::map<std::string, std::string> quant_of = {{"Q4_K - Medium", "Q4_K_M"},
                                                         {"Q5_K - Medium", "Q5_K_M"},
                                                         {"Q6_K", "Q6_K"},
                                                         {"Q8_0", "Q8_0"},
                                                         {"Q4_0", "Q4_0"},
                                                         {"F16", "FP16"},
                                                         {"BF16", "BF16"},
                                                         {"Q2_K - Medium", "Q2_K"},
                                                         {"Q3_K - Medium", "Q3_K_M"}};
    int checked = 0;
    for (const auto& h : published_headers()) {
        const auto quant = quant_of.find(h.llama_ftype);
        if (quant == quant_of.end() || unsloth_dynamic(h)) continue;
        if (known_differences().count(h.log) == 1 || type_differences().count(h.log) == 1) continue;
        INFO(h.log << " (" << h.model_id << " " << quant->second << ")");
        auto layout = tensor_layout(test::model(h.model_id));
        REQUIRE(layout);
        // typed as the log's file was made, not as its model's gguf_repo publisher makes its
        // files: vulkan-007's Q4_0 of Llama 3.1 8B has no quantize.imatrix.file, and no q4_1
        // (225 q4_0), where bartowski's, with one, guard 32 / 8 = 4 ffn_down in q4_1
        layout->imatrix = h.imatrix;
        // held here: a range-for over .value() of a temporary would read it after its end
        const auto tensors = quantize_tensors(*layout, quant->second);
        REQUIRE(tensors);
        CHECK(counted_types(*tensors) == h.types);
        ++checked;
    }
    CHECK(checked >= 25);
}

namespace {

// "UD-Q4_K_XL (log: ...)" or "Q4_K - Medium (file UD-Q4_K_M)": the Unsloth Dynamic level.
std::string unsloth_level(const std::string& file_type) {
    const auto at = file_type.find("UD-");
    if (at == std::string::npos) return "";
    auto end = at + 3;
    while (end < file_type.size() &&
           (std::isalnum(static_cast<unsigned char>(file_type[end])) || file_type[end] == '_'))
        ++end;
    return file_type.substr(at, end - at);
}

// Tensors typed otherwise than the header says: half the differences of the type counts.
std::uint64_t moved(const std::map<std::string, std::uint64_t>& a,
                    const std::map<std::string, std::uint64_t>& b) {
    std::uint64_t over = 0;
    for (const auto& [type, n] : a) {
        const auto other = b.find(type);
        const std::uint64_t m = other == b.end() ? 0 : other->second;
        if (n > m) over += n - m;
    }
    return over;
}

}  // namespace

// The Unsloth Dynamic recipes' per-model rules (data/quants.json) are read from these headers:
// each file holds the types they give, but for the tensors its counts do not place (a few
// routed experts upcast in layers no count names; the derivations say which), so its type
// counts differ from the rules' by at most those tensors, listed here from the derivations.
TEST_CASE("published headers: an Unsloth Dynamic file's types are its recipe's rules") {
    const std::map<std::string, std::uint64_t> unplaced = {
        {"cudab-007-gemma-4-26b-a4b-iq4nl-t4-np2-32k.log", 0},
        // 2 ffn_down_exps in q8_0, 1 ffn_gate_up_exps in q5_K
        {"cudab-011-gemma-4-26b-a4b-udq4kxl-rtxpro6000-256k.log", 3},
        // 2 gate/up experts in q5_K, 1 ffn_down_exps in q6_K
        {"cudab-008-qwen3.5-35b-a3b-udq4kxl-rtxpro6000-64k.log", 3},
        // 2 gate/up experts in q8_0
        {"cudab-009-qwen3.6-35b-a3b-udq6kxl-rtxpro6000-256k.log", 2},
        // 7 more f16 tensors of a class the counts do not name
        {"cudab-010-qwen3.6-27b-udq8kxl-rtxpro6000-256k.log", 7},
        // 3 ffn_down_exps in q6_K (the same file in every one of these logs)
        {"rocm-001-qwen3.6-35b-a3b-q4km-np1.log", 3},
        {"vulkan-002-qwen3.6-35b-a3b-q4km-64k-kvq8.log", 3},
    };
    std::size_t checked = 0;
    for (const auto& h : published_headers()) {
        const auto limit = unplaced.find(h.log);
        if (limit == unplaced.end()) continue;
        INFO(h.log << " (" << h.model_id << ")");
        const std::string level = unsloth_level(h.file_type);
        REQUIRE(!level.empty());
        const auto layout = tensor_layout(test::model(h.model_id));
        REQUIRE(layout);
        const auto tensors = quantize_tensors(*layout, quantize_request(test::quant(level)));
        REQUIRE(tensors);
        CHECK(moved(counted_types(*tensors), h.types) <= limit->second);
        ++checked;
    }
    CHECK(checked == unplaced.size());
}

namespace {

// tests/fixtures/published-headers.json: headers of published files quoted outside the logs of
// validation/llama-logs/ (tensor counts, and type counts where the quote gives them).
nlohmann::json headers_fixture() {
    std::ifstream in(CANITRUN_SOURCE_DIR "/tests/fixtures/published-headers.json");
    REQUIRE(in);
    return nlohmann::json::parse(in);
}

nlohmann::json fixture_headers() {
    return headers_fixture().at("files");
}

// Published checkpoints' safetensors indexes (model.safetensors.index.json in public mirrors of
// the Hub repos): lm_head.weight is listed exactly when the model keeps its own output head.
nlohmann::json fixture_checkpoints() {
    return headers_fixture().at("checkpoints");
}

// Models whose flag llama.cpp's source for their architecture decides, each with that source at
// a commit: its graph, or its tensor loader where it requires output.weight or has none (a file
// that loads has no choice). First of all where no count can show the flag.
nlohmann::json fixture_architectures() {
    return headers_fixture().at("architectures");
}

// The layout's tensors whose names hold `part` (with the model's own tied flag; the parts rows
// name are a layer's, which the flag does not change): a row's 'missing_named' tensors, so that
// the tensors a file lacks are the layout's own count of them and not a figure the row chose.
std::uint64_t layout_tensors_named(const Model& model, const std::string& part) {
    const auto layout = tensor_layout(model);
    REQUIRE(layout);
    return static_cast<std::uint64_t>(
        std::count_if(layout->tensors.begin(), layout->tensors.end(),
                      [&](const auto& t) { return t.name.find(part) != std::string::npos; }));
}

// The multi-token-prediction layers' tensors a file holds beside the stack, where the row says
// it has them ('mtp'): the layout leaves them out (llama.cpp loads them only to draft with), the
// converter writes them as blk.<layers>.* (llamacpp_mtp_block: the stack's last layer copied
// and the nextn tensors), once for each of architecture.mtp_layers. Their count does not depend
// on the tied flag, nor on the type, so any quantization gives it.
std::uint64_t mtp_tensors(const Model& model, const nlohmann::json& row) {
    if (!row.value("mtp", false)) return 0;
    const auto block = llamacpp_mtp_block(model, test::quant("Q8_0"));
    REQUIRE(block);
    return block->size() * model.arch.mtp_layers;
}

}  // namespace

TEST_CASE("published headers: every fixture row names its file, its source and a model") {
    const auto rows = fixture_headers();
    REQUIRE(rows.size() >= 10);
    for (const auto& row : rows) {
        INFO(row.dump());
        CHECK(test::database().find_model(row.at("model").get<std::string>()));
        CHECK(!row.at("file").get<std::string>().empty());
        CHECK(row.at("source").get<std::string>().starts_with("https://"));
        CHECK(!row.at("read_from").get<std::string>().empty());
        CHECK(row.at("tensors").get<std::uint64_t>() > 0);
        CHECK(row.contains("differs") == (row.contains("differs_by") || row.contains("missing")));
        if (row.contains("quant")) CHECK(row.contains("types"));
        if (row.contains("mtp")) {
            CHECK(row.at("mtp").is_boolean());
            CHECK(test::model(row.at("model").get<std::string>()).arch.mtp_layers > 0);
        }
    }
    for (const auto& row : fixture_checkpoints()) {
        INFO(row.dump());
        CHECK(test::database().find_model(row.at("model").get<std::string>()));
        CHECK(row.at("file").get<std::string>() == "model.safetensors.index.json");
        CHECK(row.at("source").get<std::string>().starts_with("https://github.com/"));
        CHECK(row.at("mirrors").get<std::string>().starts_with("https://huggingface.co/"));
        CHECK(row.at("lm_head").is_boolean());
        CHECK(!row.at("read_from").get<std::string>().empty());
    }
    for (const auto& row : fixture_architectures()) {
        INFO(row.dump());
        CHECK(test::database().find_model(row.at("model").get<std::string>()));
        CHECK(row.at("source").get<std::string>().starts_with(
            "https://github.com/ggml-org/llama.cpp/blob/"));
        CHECK(row.at("output_head").is_boolean());
        CHECK(!row.at("read_from").get<std::string>().empty());
    }
}

// Every tied/untied flag a published header shows: the header's tensor count is the layout's
// with the database's flag and not with the other one. The logs' files (all but their known
// differences), the fixture's rows and its checkpoints count together; a row whose file is not
// the database's model as converted (Ollama's converter keeping a checkpoint's lm_head) must
// differ by exactly what its reason says; one that lacks a named part of the layout
// ('missing_named': an older converter's missing indexer) still confirms the flag when what it
// lacks is exactly the layout's own count of tensors of that name. A file that also holds the
// model's MTP layers ('mtp')
// confirms the flag by its count less the MTP block's tensors, which the flag does not change. A
// checkpoint's index lists lm_head.weight exactly when the model is untied, and where its entries
// map one to one onto GGUF tensors, their count is the layout's with the flag and not without.
// Where llama.cpp's source for the architecture leaves a file no choice (its graph reads no head,
// its loader requires one or has none), the source shows it, whatever the count: the only way
// for the encoders and phimoe, whose layouts are the same either way. A file published to the
// byte or on a model card to two decimals (published_flags.hpp) weighs its tensors and at most the
// largest header it could carry, give or take its rounding: a publisher's files of a model that all
// weigh as one flag's layout, one at least lighter than the untied layout's tensors alone (no
// head) or heavier than the tied layout's tensors and that header (a head), show that flag
// (confirm_by_file_sizes). A published parameter count (a tool's sum of a file's or a
// checkpoint's elements) that is the layout's with the flag and not without it shows the flag too
// (confirm_by_parameter_counts).
TEST_CASE("published headers: each header's tensor count confirms the database's tied flag") {
    std::set<std::string> confirmed;
    for (const auto& row : fixture_checkpoints()) {
        INFO(row.dump());
        const Model& m = test::model(row.at("model").get<std::string>());
        CHECK(row.at("lm_head").get<bool>() == !m.arch.tied_embeddings);
        if (row.contains("tensors")) {
            const auto tensors = row.at("tensors").get<std::uint64_t>();
            CHECK(tensors_with_tied(m, m.arch.tied_embeddings) == tensors);
            CHECK(tensors_with_tied(m, !m.arch.tied_embeddings) != tensors);
        }
        if (row.at("lm_head").get<bool>() == !m.arch.tied_embeddings) confirmed.insert(m.id);
    }
    // The row's architecture is the one the layout builds, which the source speaks of.
    for (const auto& row : fixture_architectures()) {
        INFO(row.dump());
        const Model& m = test::model(row.at("model").get<std::string>());
        const auto layout = tensor_layout(m);
        REQUIRE(layout);
        CHECK(layout->arch == row.at("arch").get<std::string>());
        CHECK(row.at("output_head").get<bool>() == !m.arch.tied_embeddings);
        if (row.at("output_head").get<bool>() == !m.arch.tied_embeddings) confirmed.insert(m.id);
    }
    test::confirm_by_file_sizes(confirmed);
    test::confirm_by_parameter_counts(confirmed);
    for (const auto& h : published_headers()) {
        if (known_differences().count(h.log) == 1) continue;
        INFO(h.log << " (" << h.model_id << ")");
        const Model& m = test::model(h.model_id);
        CHECK(tensors_with_tied(m, !m.arch.tied_embeddings) != h.tensors);
        if (tensors_with_tied(m, m.arch.tied_embeddings) == h.tensors) confirmed.insert(m.id);
    }
    for (const auto& row : fixture_headers()) {
        INFO(row.at("file").get<std::string>()
             << " (" << row.at("model").get<std::string>() << ")");
        const Model& m = test::model(row.at("model").get<std::string>());
        const auto tensors = row.at("tensors").get<std::uint64_t>();
        const auto more = row.value("differs_by", std::uint64_t{0}) + mtp_tensors(m, row);
        const auto fewer = row.value("missing", std::uint64_t{0});
        CHECK(tensors_with_tied(m, m.arch.tied_embeddings) + more == tensors + fewer);
        // A file that lacks a named part of the layout (an older converter's missing indexer)
        // still shows the flag, as long as what it lacks is exactly the layout's count of them.
        const bool named = row.contains("missing_named");
        if (named) {
            CHECK(fewer > 0);
            CHECK(layout_tensors_named(m, row.at("missing_named").get<std::string>()) == fewer);
        }
        if (!row.contains("differs_by") && (fewer == 0 || named)) {
            CHECK(tensors_with_tied(m, !m.arch.tied_embeddings) + more != tensors + fewer);
            confirmed.insert(m.id);
        }
    }
    // 29 models from the logs (5 of them files whose types alone differ), 100 from the fixture's
    // files (10 of them with their MTP layers: glm-4.5, glm-4.5-air, glm-4.6, qwen3.8-27b,
    // glm-5.3, glm-4.7, glm-5, glm-5.1, glm-5.2, nemotron-3.5-lightning-30b-a3b; glm-4.7-flash's,
    // qwen3.8-flash-next's, deepseek-v4-flash-0731's and deepseek-v4-flash-vision-exp's without; 13
    // from Thireus' one-tensor-a-shard BF16 splits, one from Ollama's converter test;
    // glm-4-9b-0414, granite-4.0-h-micro, ernie-4.5-21b-a3b, falcon-h1-1.5b and exaone-4.0-1.2b
    // from aifoundry-org/hf-hackathon's porting recipes, the last two with their ssm_norm and
    // rope_freqs, glm-5.2 from kmbandy/llama.cpp's notes on unsloth's file; deepseek-r1-distill-
    // qwen-1.5b's 339 and qwen3-vl-8b's 399 tensors; deepseek-v3.2 from Thireus' split without
    // its 305 indexer tensors, qwen3-30b-a3b-instruct-2507 from a GGUF inspection of ByteShape's
    // file, qwen3-vl-2b's 310 from a porting recipe, qwen3-vl-4b's 398 from a ComfyUI-QwenVL log),
    // 3 from its checkpoints
    // (devstral-small-24b, qwen3.8-2.4t-a95b, mimo-v2.6-flash-rl) and 25 from llama.cpp's source
    // for their architecture: the BERT graph reads no head (bge-m3, nomic-embed-text-v1.5),
    // command-r's loader has none (command-r-35b), the phimoe, olmo2 and deepseek2 (at 00342301)
    // loaders require one (phi-3.5-moe; olmo-2-7b / 13b / 32b, olmo-3-7b / 32b, olmo-3.1-32b;
    // deepseek-v2-lite, deepseek-v2.5, mistral-large-3-675b), and so do 0ad4a86's deepseek4,
    // hy_v4, kimi-k3, kimi-linear, mimo2, minimax-m2, minimax-m3, step35 and muse-glimmer loaders
    // (deepseek-v4-flash / pro / pro-0813, hy4-preview, kimi-k3, kimi-linear-48b-a3b,
    // mimo-v2-flash, mimo-v2.6-pro-rl, minimax-m2, minimax-m3, step-3.5-flash,
    // muse-glimmer-30b), and 28 more from files' byte counts (published_flags_test.cpp):
    // granite-4.1-3b (Unsloth's 13 plain files), granite-4.0-micro, granite-4.0-1b,
    // granite-4.0-350m, granite-4.0-h-1b, granite-4.0-h-350m, lfm2-350m, lfm2-700m, lfm2-2.6b,
    // lfm2-8b-a1b, spark-x2.5-4b (their publishers' Q4_K_M files) and qwen3-embedding-0.6b
    // (Qwen's Q8_0), each lighter than the untied layout's tensors, and mistral-small-3.2-24b,
    // llama-4-scout-17b-16e (Unsloth's Q4_K_M, Q3_K_S), nemotron-nano-9b-v2 and seed-oss-36b
    // (bartowski's Q4_K_M), ministral-3-8b and ministral-3-14b (mistralai's Q4_K_M), falcon-h1-7b
    // (TII's Q4_K_M), falcon3-10b (bartowski's Q4_K_M) and qwen3-vl-32b (Qwen's Q4_K_M and Q8_0),
    // each heavier than the tied layout's tensors and the largest header, and granite-4.1-30b
    // (IBM's and Unsloth's Q4_K_M), lighter than the untied layout's tensors, and nemotron-h-8b and
    // nemotron-h-47b (bartowski's Q4_K_M of NVIDIA's Reasoning-128K releases, which their cards
    // say are based on the base models) and exaone-4.5-33b (LG's Q4_K_M with its MTP block) and
    // qwen2.5-vl-72b (Unsloth's Q4_K_M), magistral-small-1.2-24b (Mistral's four files, and LM
    // Studio's Q4_K_M, 13,670 MiB as a project's notes report it) and falcon-h1-34b (TII's eleven
    // plain files), heavier than the tied ones and the largest header;
    // bartowski's model cards (sizes to 0.01 GB) decide 20 flags the headers, checkpoints and
    // counts show too: gemma-2-2b / 9b / 27b, llama-3.2-1b / 3b and qwen3-4b tied, llama-3.1-8b /
    // 70b, olmo-2-13b, phi-3.5-mini, phi-4-14b, phi-4-reasoning-14b, qwen2.5-14b / 32b / 72b,
    // qwen2.5-coder-7b and qwen3-8b / 14b / 30b-a3b / 32b untied;
    // qwen3-0.6b's, gemma-4-12b's, gemma-3n-e2b's and gemma-3n-e4b's (ggml-org's Q8_0),
    // lfm2-1.2b's, ministral-3-3b's, falcon-h1-1.5b's and qwen3-vl-2b / 4b / 8b's (Qwen's) files
    // confirm flags the headers show too; and 13 from published parameter counts, each the layout's
    // with the flag and not without (published_flags.hpp): qwen2.5-72b (gguf-parser's 72.71 B for
    // bartowski's Q4_K_M, and keras-hub's 72,706,203,648), magistral-small-24b (keras-hub's
    // 23,572,403,200), the Hub's safetensors counts of granite-4.2-30b, granite-4.2-3b,
    // granite-4.2-8b, ministral-8b, minicpm5-2b and phi-3-medium-4k (unsloth's upload), each with
    // its head, and of granite-3.3-8b and qwen3-reranker-0.6b, without one, and llama.cpp's
    // n_params for unsloth's nemotron-3-nano-30b-a3b and unsloth's Phi-4-reasoning-plus Q8_0
    // (phi-4-reasoning-14b), and the Hub's count of llama-4-maverick-17b-128e less its vision tower
    // (published_flags_test.cpp), and 4 more: jamba-1.5-large (the Hub's 398,555,145,696),
    // mimo-v2.6-distill-qwen-9b (the Hub's count less its vision tower), exaone-4.0-32b (LG's
    // index total with the converter's rope_freqs) and falcon-h1-0.5b (transformers' count in a
    // paper whose 1.5B and 7B counts are those models' untied layouts too); the rows for
    // qwen2.5-7b, deepseek-r1-distill-qwen-7b, falcon-h1-1.5b and falcon-h1-7b confirm flags the
    // headers and sizes show too, as do the Hub's counts of falcon-h1-34b's checkpoint and of
    // magistral-small-1.2-24b's GGUF files (33,642,516,224 and 23,572,403,200, the untied layouts):
    // 202 (61 tied, 141 untied)
    CHECK(confirmed.size() >= 202);
}

// A fixture row's type counts, where the quote gives them for a plain llama-quantize file, are
// the rules' types for the model at that quantization.
TEST_CASE("published headers: a fixture file's type counts are the rules' types") {
    int checked = 0;
    for (const auto& row : fixture_headers()) {
        if (!row.contains("quant")) continue;
        INFO(row.at("file").get<std::string>()
             << " (" << row.at("model").get<std::string>() << ")");
        const auto layout = tensor_layout(test::model(row.at("model").get<std::string>()));
        REQUIRE(layout);
        const auto tensors = quantize_tensors(*layout, row.at("quant").get<std::string>());
        REQUIRE(tensors);
        CHECK(counted_types(*tensors) ==
              row.at("types").get<std::map<std::string, std::uint64_t>>());
        ++checked;
    }
    // gemma-3-4b, gemma-4-26b-a4b, qwen2.5-0.5b, gemma-2-9b, llama-3.2-3b, gemma-3n-e4b,
    // deepseek-r1-distill-qwen-7b (F16 and Q4_K_M), llama-3.3-70b (Q3_K_M),
    // deepseek-r1-distill-qwen-32b, deepseek-r1-distill-llama-8b; smollm3-3b, gemma-3-1b,
    // gemma-2-2b, qwen2.5-1.5b, llama-3.1-70b, phi-3-mini-4k and phi-3.5-mini (Q4_K_M),
    // glm-z1-9b-0414 (Q5_K_M), llama-2-7b (Q4_0, Q8_0), mistral-7b-v0.3 and phi-3.5-mini (Q8_0),
    // qwen2.5-vl-32b (BF16), phi-3-mini-4k (F16); qwen2.5-3b (Q4_K_M), jamba-1.5-mini (Q8_0),
    // qwen3-coder-480b-a35b and devstral-small-2-24b (BF16), qwen3.5-2b (Q8_0), gemma-4-12b and
    // ministral-3-3b (Q4_K_M), deepseek-r1-distill-qwen-1.5b and lfm2-1.2b (Q6_K)
    CHECK(checked >= 34);
}

// Files made before llama.cpp b8275 (run.gguf_quantized_before) type a tied model's
// per_layer_token_embd as the file type, later ones as the tied output, and attn_qkv by a branch
// of its own, later as attn_v (quantize_rules.cpp). A k-quant fixture file of such a model whose
// type counts are the rules' (the case above) must also differ from what the later rules give,
// so the file decides between the two: gemma-3n-E4B's Q4_K_M of June 2025 keeps
// per_layer_token_embd at q4_K (282 q4_K, 35 q6_K), not q6_K; Phi-3-mini-4k's and Phi-3.5-mini's
// Q4_K_M files keep 32 attn_qkv in q5_K. F16, BF16 and Q8_0 files type these tensors alike
// before and after, so they cannot decide.
TEST_CASE("published headers: a file made before b8275 keeps the earlier rules' types") {
    int checked = 0;
    for (const auto& row : fixture_headers()) {
        if (!row.contains("quant")) continue;
        const auto quant = row.at("quant").get<std::string>();
        if (quant == "FP16" || quant == "BF16" || quant == "Q8_0") continue;
        Model later = test::model(row.at("model").get<std::string>());
        if (later.run.gguf_quantized_before == 0) continue;
        INFO(row.at("file").get<std::string>());
        later.run.gguf_quantized_before = 0;
        const auto layout = tensor_layout(later);
        REQUIRE(layout);
        const auto tensors = quantize_tensors(*layout, quant);
        REQUIRE(tensors);
        CHECK(counted_types(*tensors) !=
              row.at("types").get<std::map<std::string, std::uint64_t>>());
        ++checked;
    }
    // gemma-3n-e4b, phi-3-mini-4k and phi-3.5-mini Q4_K_M
    CHECK(checked >= 3);
}

// GLM-4.5-Air has no per-head q/k norms (config.json use_qk_norm false), GLM-4.5 has them.
// Worked by hand from ggml-org/llama.cpp PR #14939's GLM-4.5-Air header (803 tensors,
// glm4moe.block_count 47: 46 layers and the nextn layer). A layer holds attn_norm, q / k / v
// with their biases, attn_output and post_attention_norm (9); the first FFN is dense (3), the
// other 45 routed with a shared expert (gate_inp, exp_probs_b, three experts, three shared: 8):
// 46 x 9 + 3 + 45 x 8 + token_embd, output_norm, output = 780. The nextn layer is a routed
// layer (9 + 8) and eh_proj, embed_tokens, enorm, hnorm, shared_head_head, shared_head_norm
// (6): 23. 780 + 23 = 803; with q/k norms the stack alone would hold 780 + 2 x 46 = 872.
// GLM-4.5's header (ik_llama.cpp issue #809: 1761) names its nextn layer's 25 tensors, the
// 23 and its attn_q_norm / attn_k_norm.
TEST_CASE("published headers: GLM-4.5-Air's layers hold no q/k norms, GLM-4.5's do") {
    const auto air = tensor_layout(test::model("glm-4.5-air"));
    REQUIRE(air);
    CHECK(air->tensors.size() == 46 * 9 + 3 + 45 * 8 + 3);
    const auto mtp_air = llamacpp_mtp_block(test::model("glm-4.5-air"), test::quant("Q8_0"));
    REQUIRE(mtp_air);
    CHECK(mtp_air->size() == 9 + 8 + 6);
    CHECK(air->tensors.size() + mtp_air->size() == 803);
    CHECK(std::ranges::none_of(air->tensors, [](const TensorInfo& t) {
        return t.name.view().ends_with("attn_q_norm.weight") ||
               t.name.view().ends_with("attn_k_norm.weight");
    }));
    const auto full = tensor_layout(test::model("glm-4.5"));
    REQUIRE(full);
    // 92 layers of 9 + 2 norms, 3 dense FFNs, 89 routed ones, token_embd, output_norm, output
    CHECK(full->tensors.size() == 92 * 11 + 3 * 3 + 89 * 8 + 3);
    const auto mtp_full = llamacpp_mtp_block(test::model("glm-4.5"), test::quant("Q8_0"));
    REQUIRE(mtp_full);
    CHECK(mtp_full->size() == 25);
    CHECK(full->tensors.size() + mtp_full->size() == 1761);
}

// GLM-4.6 is GLM-4.5's architecture (92 layers with q/k norms: 1736 tensors), but its published
// files' nextn layer leaves embed_tokens and shared_head_head out (run.gguf_mtp_embedding false;
// ggml-org/llama.cpp PR #16359): 25 - 2 = 23, so ubergarm's IQ5_K holds 1736 + 23 = 1759
// (ikawrakow/ik_llama.cpp discussion #816), where the nextn layer with both gives 1761.
TEST_CASE("published headers: GLM-4.6's nextn layer has no embedding or head of its own") {
    const Model& m = test::model("glm-4.6");
    const auto layout = tensor_layout(m);
    REQUIRE(layout);
    CHECK(layout->tensors.size() == 92 * 11 + 3 * 3 + 89 * 8 + 3);
    const auto mtp = llamacpp_mtp_block(m, test::quant("Q8_0"));
    REQUIRE(mtp);
    CHECK(mtp->size() == 25 - 2);
    CHECK(layout->tensors.size() + mtp->size() == 1759);
    Model with_head = m;
    with_head.run.gguf_mtp_embedding = true;
    CHECK(llamacpp_mtp_block(with_head, test::quant("Q8_0"))->size() == 25);
}
