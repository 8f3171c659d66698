#pragma once
// A published file's exact byte count against the database's tied flag, shared by
// published_headers_test.cpp (which counts every flag a published file confirms) and
// published_flags_test.cpp (the rule's own cases). A file is its header, then its tensors' data:
// it weighs at least its tensors, and at most its tensors and the largest header it could carry,
// so a file whose bytes fall outside the window of one flag's layout shows the other flag.

#include <cstdint>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "canitrun/gguf_file_size.hpp"
#include "canitrun/llamacpp_parts.hpp"
#include "canitrun/tensor_layout.hpp"
#include "catch.hpp"
#include "test_support.hpp"

namespace canitrun::test {

// Published whole files of plain llama-quantize file types (no recipe) and of the database's model
// itself (no variant), with their size as published: tests/fixtures/published-sizes.json's rows
// with 'bytes' (to the byte) or 'gb' (a model card's table, rounded), and
// tests/fixtures/published-headers.json's 'sizes' (files whose whole-file size canitrun misses by
// more than published_sizes_test allows, kept out of its bounds). A 'gib' row is a load log's
// tensors alone, not a file, and is left out.
inline std::vector<nlohmann::json> file_size_rows() {
    std::vector<nlohmann::json> out;
    const auto add = [&](const nlohmann::json& rows) {
        for (const auto& row : rows) {
            if (!row.contains("bytes") && !row.contains("gb") && !row.contains("mib")) continue;
            if (row.contains("variant")) continue;
            if (!quant(row.at("quant").get<std::string>()).recipe_base.empty()) continue;
            out.push_back(row);
        }
    };
    std::ifstream sizes(CANITRUN_SOURCE_DIR "/tests/fixtures/published-sizes.json");
    REQUIRE(sizes);
    add(nlohmann::json::parse(sizes).at("files"));
    std::ifstream headers(CANITRUN_SOURCE_DIR "/tests/fixtures/published-headers.json");
    REQUIRE(headers);
    add(nlohmann::json::parse(headers).at("sizes"));
    return out;
}

// The rows of file_size_rows() recorded to the byte.
inline std::vector<nlohmann::json> exact_size_rows() {
    std::vector<nlohmann::json> out;
    for (const auto& row : file_size_rows())
        if (row.contains("bytes")) out.push_back(row);
    return out;
}

// A file's size as published: its bytes, give or take half a unit of the last digit shown. A
// model card's "4.68" GB is 4,680,000,000 bytes give or take 5,000,000; a count to the byte is
// exact (half a unit of 0).
struct PublishedFileSize {
    std::uint64_t bytes = 0;
    std::uint64_t half_unit = 0;
};

// The row's size, read from its text without rounding: 'gb' in 10^9 bytes with at most nine
// decimals, 'mib' in whole 2^20 bytes (a tool's bytes / 2^20, rounded to the MiB).
inline PublishedFileSize published_file_size(const nlohmann::json& row) {
    if (row.contains("bytes")) return {row.at("bytes").get<std::uint64_t>(), 0};
    if (row.contains("mib")) {
        const auto text = row.at("mib").get<std::string>();
        REQUIRE(text.find('.') == std::string::npos);
        return {std::stoull(text) << 20, 1ULL << 19};
    }
    const auto text = row.at("gb").get<std::string>();
    const auto dot = text.find('.');
    const std::string whole = text.substr(0, dot);
    const std::string decimals = dot == std::string::npos ? "" : text.substr(dot + 1);
    REQUIRE(decimals.size() <= 9);
    std::uint64_t unit = 1000000000;
    for (std::size_t i = 0; i < decimals.size(); ++i) unit /= 10;
    const std::uint64_t fraction = decimals.empty() ? 0 : std::stoull(decimals);
    return {std::stoull(whole) * 1000000000 + fraction * unit, unit / 2};
}

// The MTP blocks a file of `model` carries past its stack where the published files keep them
// (RunInfo::gguf_mtp): mtp_layers copies of llamacpp_mtp_block at the row's file type, as the
// download counts them (gguf_download_bytes); none where the files leave them out. The block
// holds no head of the stack's, so it is the same with either flag.
inline std::vector<TypedTensor> file_mtp_tensors(const Model& model, const nlohmann::json& row) {
    std::vector<TypedTensor> out;
    if (!model.run.gguf_mtp) return out;
    const auto block = llamacpp_mtp_block(model, quant(row.at("quant").get<std::string>()));
    REQUIRE(block);
    for (std::uint64_t copy = 0; copy < model.arch.mtp_layers; ++copy)
        out.insert(out.end(), block->begin(), block->end());
    return out;
}

// The tensors' bytes of `model` at a size row's file type (with the publisher's importance
// matrix where the row says so), with the tied flag set as given, and its files' MTP blocks.
inline std::uint64_t tensor_bytes_with_tied(Model model, bool tied, const nlohmann::json& row) {
    model.arch.tied_embeddings = tied;
    publish_in_repo(model, row.value("repo", std::string()));
    QuantizeRequest request = quantize_request(quant(row.at("quant").get<std::string>()));
    request.imatrix = row.value("imatrix", false) || request.imatrix.value_or(false);
    const auto bytes = gguf_tensor_bytes(model, request);
    REQUIRE(bytes);
    std::uint64_t total = *bytes;
    for (const auto& t : file_mtp_tensors(model, row)) total += t.bytes;
    return total;
}

// The most a GGUF header can weigh for `model` with `tensors` tensors: everything in the file but
// the tensors' data (ggml/docs/gguf.md).
// - The fixed fields: magic, version, tensor count, metadata count (4 + 4 + 8 + 8 = 24).
// - A tensor info per tensor: its name (a u64 length and at most GGML_MAX_NAME = 64 bytes), its
//   dimension count (u32), at most GGML_MAX_DIMS = 4 dimensions (u64 each), its type (u32) and
//   offset (u64): 8 + 64 + 4 + 32 + 4 + 8 = 120. Each tensor's data starts at a multiple of
//   general.alignment (32, the default the converter keeps), so the header's end and every
//   tensor's data may be followed by at most 31 bytes of padding.
// - The tokenizer, bounded by the file's own vocabulary (the embedding's rows, vocab_size): 1 KiB
//   a token, for its text (a u64 length and its bytes), its type and score (4 + 4) and its share
//   of the BPE merges (each a u64 length and two tokens' text). The densest tokenizers measured
//   weigh about 60 bytes a token (gguf_file_size.cpp: Llama 3's 7,817,421 bytes for 128,256
//   tokens with 280,147 merges, Gemma 4's 15,762,502 for 262,144 with 514,906), a sixteenth of it.
// - Every other key (general.*, the hyperparameters, the chat template, quantize.imatrix.*):
//   16 MiB, where the chat templates measured are tens of KB.
// An untied file heavier than its tied layout's tensors and this header is untied whatever its
// header holds; the bound is checked against every file recorded to the byte, whose headers
// (file less tensors) it must exceed (published_flags_test.cpp).
inline std::uint64_t largest_header_bytes(const Model& model, std::uint64_t tensors) {
    constexpr std::uint64_t fixed = 24;
    constexpr std::uint64_t per_tensor = 120 + 31;
    constexpr std::uint64_t per_token = 1024;
    constexpr std::uint64_t other_keys = 16ULL << 20;
    return fixed + 31 + tensors * per_tensor + model.arch.vocab_size * per_token + other_keys;
}

// The layout's tensor count for `model` with the tied flag set as given: a tied layout has no
// output.weight, so the two counts differ by one and a header's count picks one of them.
inline std::uint64_t tensors_with_tied(Model model, bool tied) {
    model.arch.tied_embeddings = tied;
    const auto layout = tensor_layout(model);
    REQUIRE(layout);
    return layout->tensors.size();
}

// The tensors a file of `model` at a size row's file type holds with the tied flag set as
// given: the layout's and its MTP blocks'.
inline std::uint64_t file_tensors_with_tied(const Model& model, bool tied,
                                            const nlohmann::json& row) {
    return tensors_with_tied(model, tied) + file_mtp_tensors(model, row).size();
}

// Whether a file published as `size` can be `model` at the row's file type with the tied flag set
// as given: some size within its rounding is at least the layout's tensors and at most those and
// the largest header.
inline bool weighs_as_layout(const Model& model, bool tied, const nlohmann::json& row,
                             const PublishedFileSize& size) {
    const auto tensors = tensor_bytes_with_tied(model, tied, row);
    const auto header = largest_header_bytes(model, file_tensors_with_tied(model, tied, row));
    return tensors <= size.bytes + size.half_unit &&
           size.bytes <= tensors + header + size.half_unit;
}

// The weights of `model`'s layout with the tied flag set as given: what a tool that sums a
// file's tensors' elements prints as its parameter count.
inline std::uint64_t layout_elements_with_tied(Model model, bool tied) {
    model.arch.tied_embeddings = tied;
    const auto layout = tensor_layout(model);
    REQUIRE(layout);
    return layout->elements();
}

// The elements of the tensors of `model`'s layout whose name holds `part`: what a converter
// computes and writes into every file (EXAONE 4.0's rope_freqs) where the checkpoint stores none.
inline std::uint64_t layout_elements_named(const Model& model, const std::string& part) {
    const auto layout = tensor_layout(model);
    REQUIRE(layout);
    std::uint64_t out = 0;
    for (const auto& t : layout->tensors)
        if (t.name.find(part) != std::string::npos) out += t.elements();
    return out;
}

// tests/fixtures/published-headers.json's 'parameters': a published file's parameter count as a
// tool prints it (gguf-parser's PARAMETERS, the sum of the file's tensors' elements, to 0.01 B).
inline nlohmann::json parameter_count_rows() {
    std::ifstream in(CANITRUN_SOURCE_DIR "/tests/fixtures/published-headers.json");
    REQUIRE(in);
    return nlohmann::json::parse(in).at("parameters");
}

// Whether a count printed to the nearest `unit` can be the layout's weights with the tied flag
// set as given: within half a unit of them. A checkpoint's count that also holds weights the
// layout leaves out (a vision tower beside the text stack) names them as 'outside_layout', worked
// out by hand in published_flags_test.cpp, and is compared less those; one that lacks a tensor
// the converter computes into every file names its elements as 'converter_generated' (the
// layout's own count of them, published_flags_test.cpp), and is compared with them.
inline bool counts_as_layout(const Model& model, bool tied, const nlohmann::json& row) {
    const auto elements = layout_elements_with_tied(model, tied);
    const auto printed = row.at("parameters").get<std::uint64_t>() -
                         row.value("outside_layout", std::uint64_t{0}) +
                         row.value("converter_generated", std::uint64_t{0});
    const auto half = row.at("unit").get<std::uint64_t>() / 2;
    return elements <= printed + half && printed <= elements + half;
}

// Every published parameter count is the layout's with the database's flag, and where it cannot
// be the layout's with the other one (the head or its absence moves the count by more than a
// unit), it confirms the database's flag.
inline void confirm_by_parameter_counts(std::set<std::string>& confirmed) {
    for (const auto& row : parameter_count_rows()) {
        INFO(row.at("file").get<std::string>()
             << " (" << row.at("model").get<std::string>() << ")");
        const Model& m = model(row.at("model").get<std::string>());
        // a checkpoint that stores a head its config ties counts as the untied layout and
        // shows nothing (Qwen3-0.6B)
        if (row.value("stored_tied_head", false)) {
            CHECK(m.arch.tied_embeddings);
            CHECK(counts_as_layout(m, false, row));
            continue;
        }
        CHECK(counts_as_layout(m, m.arch.tied_embeddings, row));
        if (!counts_as_layout(m, !m.arch.tied_embeddings, row)) confirmed.insert(m.id);
    }
}

// A flag one publisher's files of one model decide: every one of them weighs as the layout with
// that flag (within its rounding), and one at least cannot weigh as the layout with the other.
// Judged a repo at a time because a rounded size decides only as well as canitrun sizes the
// publisher's files: bartowski's Mistral 7B v0.3 card, made with a llama.cpp of May 2024, sits
// 0.1 % under canitrun's untied tensors file after file, so some of its rows fall in the tied
// window alone and others in neither, and the card decides nothing. A publisher's exact files all
// weigh as the database's layout (published_flags_test.cpp), so for them this is the file-by-file
// rule.
struct SizeDecision {
    std::string model;
    std::string repo;
    bool tied = false;
    std::size_t files = 0;
};

inline std::vector<SizeDecision> flags_decided_by_file_sizes() {
    struct Tally {
        bool all_tied = true, all_untied = true, some_not_tied = false, some_not_untied = false;
        std::size_t files = 0;
    };
    std::map<std::pair<std::string, std::string>, Tally> repos;
    for (const auto& row : file_size_rows()) {
        const Model& m = model(row.at("model").get<std::string>());
        const auto size = published_file_size(row);
        const bool tied = weighs_as_layout(m, true, row, size);
        const bool untied = weighs_as_layout(m, false, row, size);
        Tally& t = repos[{m.id, row.value("repo", std::string())}];
        t.all_tied = t.all_tied && tied;
        t.all_untied = t.all_untied && untied;
        t.some_not_tied = t.some_not_tied || !tied;
        t.some_not_untied = t.some_not_untied || !untied;
        ++t.files;
    }
    std::vector<SizeDecision> out;
    for (const auto& [key, t] : repos) {
        if (t.all_tied && t.some_not_untied) out.push_back({key.first, key.second, true, t.files});
        if (t.all_untied && t.some_not_tied) out.push_back({key.first, key.second, false, t.files});
    }
    return out;
}

// Every flag the published files decide is the database's, and confirms it.
inline void confirm_by_file_sizes(std::set<std::string>& confirmed) {
    for (const auto& d : flags_decided_by_file_sizes()) {
        INFO(d.repo << "'s " << d.files << " files of " << d.model);
        CHECK(model(d.model).arch.tied_embeddings == d.tied);
        if (model(d.model).arch.tied_embeddings == d.tied) confirmed.insert(d.model);
    }
}

}  // namespace canitrun::test
