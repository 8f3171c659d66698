// The prepared layout (llama-quantize's order and each tensor's reading, made once per model)
// and the weights' floor the searches over quantizations skip by, on every database model.
// The order is checked against llama_model_loader's own definition (layer, then the whole
// name), sorted here directly; the floor against the typed tensors themselves.

#include <algorithm>
#include <string>
#include <string_view>

#include "canitrun/llamacpp_engine.hpp"
#include "canitrun/llamacpp_rules.hpp"
#include "canitrun/quantize_rules.hpp"
#include "canitrun/tensor_layout.hpp"
#include "catch.hpp"
#include "test_support.hpp"

using namespace canitrun;

namespace {

// The layer index a tensor name carries, as llama-quantize reads it ("blk.N."), else -1.
int layer_in_name(std::string_view name) {
    if (name.rfind("blk.", 0) != 0) return -1;
    const auto dot = name.find('.', 4);
    if (dot == std::string::npos || dot == 4) return -1;
    const std::string digits(name.substr(4, dot - 4));
    if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return -1;
    return std::stoi(digits);
}

// Each tensor's bytes outside the host inputs, at the file type.
Bytes device_bytes(const PreparedLayout& p, const std::string& quant) {
    const auto bytes = quantize_bytes(p, quant);
    REQUIRE(bytes);
    Bytes sum = 0;
    for (std::size_t i = 0; i < bytes->size(); ++i) {
        if (!llama_host_input_tensor(p.layout.tensors[i].name)) sum += (*bytes)[i];
    }
    return sum;
}

}  // namespace

TEST_CASE("prepared layout: llama-quantize's order (layer, then whole name) for every model") {
    for (const auto& model : test::database().models) {
        CAPTURE(model.id);
        const auto prepared = llamacpp_layout(model);
        REQUIRE(prepared);
        const auto& tensors = (*prepared)->layout.tensors;
        std::vector<std::size_t> expected(tensors.size());
        for (std::size_t i = 0; i < expected.size(); ++i) expected[i] = i;
        std::stable_sort(expected.begin(), expected.end(), [&](std::size_t a, std::size_t b) {
            const int la = layer_in_name(tensors[a].name), lb = layer_in_name(tensors[b].name);
            if (la != lb) return la < lb;
            return tensors[a].name < tensors[b].name;
        });
        CHECK((*prepared)->order == expected);
        for (std::size_t i = 0; i < tensors.size(); ++i) {
            CHECK((*prepared)->host_input[i] == llama_host_input_tensor(tensors[i].name));
            CHECK((*prepared)->routed_expert[i] ==
                  (tensors[i].name.find("_exps.") != std::string::npos));
        }
    }
}

TEST_CASE("weights' floor: never above the typed tensors, equal to them in 16 and 32 bits") {
    const std::vector<std::string> unquantized = {"FP32", "FP16", "BF16"};
    for (const auto& model : test::database().models) {
        CAPTURE(model.id);
        const auto prepared = llamacpp_layout(model);
        REQUIRE(prepared);
        for (const auto& quant : test::database().quants) {
            if (!is_llama_file_type(quant.id)) continue;
            CAPTURE(quant.id);
            const auto floor = device_weights_lower_bound(**prepared, quant.id);
            REQUIRE(floor);
            const Bytes exact = device_bytes(**prepared, quant.id);
            CHECK(*floor <= exact);
            if (std::find(unquantized.begin(), unquantized.end(), quant.id) != unquantized.end())
                CHECK(*floor == exact);
        }
    }
}

TEST_CASE("weights' floor: IQ3_XS counts iq3_xxs, the one type its rules go below iq3_s") {
    // Two layers of a 4096-wide attention with 8 query and 8 KV heads (n_gqa 1): at IQ3_XS,
    // attn_k and attn_q are iq3_xxs (98 bytes per 256 values), attn_v and attn_output iq3_s
    // (110 bytes). The floor counts all four at iq3_xxs.
    TensorLayout layout;
    layout.arch = "llama";
    layout.n_layer = 2;
    for (int il = 0; il < 2; ++il) {
        for (const char* n : {"attn_q", "attn_k", "attn_v", "attn_output"}) {
            TensorInfo t;
            t.name = "blk." + std::to_string(il) + "." + n + ".weight";
            t.ne = {4096, 4096, 1, 1};
            t.n_dims = 2;
            t.layer = il;
            layout.tensors.push_back(t);
        }
    }
    const PreparedLayout p = prepare_layout(layout);
    const Bytes per_tensor_xxs = 4096ULL * 4096 / 256 * 98;
    const Bytes per_tensor_s = 4096ULL * 4096 / 256 * 110;
    const auto floor = device_weights_lower_bound(p, "IQ3_XS");
    REQUIRE(floor);
    CHECK(*floor == 8 * per_tensor_xxs);
    CHECK(device_bytes(p, "IQ3_XS") == 4 * per_tensor_xxs + 4 * per_tensor_s);
    CHECK_FALSE(device_weights_lower_bound(p, "NVFP4"));
}

TEST_CASE("prepared layout: a layer whose names come in another order than the last layer's") {
    // prepare_layout guesses each name from the same place in the previous layer; here layer 1
    // lists its tensors in another order and adds one, so every guess misses.
    TensorLayout layout;
    layout.arch = "llama";
    layout.n_layer = 2;
    const auto add = [&](const std::string& name, std::uint32_t dims, int layer) {
        TensorInfo t;
        t.name = name;
        t.ne = {256, dims == 2 ? 256U : 1U, 1, 1};
        t.n_dims = dims;
        t.layer = layer;
        layout.tensors.push_back(t);
    };
    add("token_embd.weight", 2, -1);      // 0
    add("blk.0.attn_q.weight", 2, 0);     // 1
    add("blk.0.ffn_up.weight", 2, 0);     // 2
    add("blk.1.ffn_up.weight", 2, 1);     // 3
    add("blk.1.attn_q.weight", 2, 1);     // 4
    add("blk.1.attn_norm.weight", 1, 1);  // 5
    const PreparedLayout p = prepare_layout(layout);
    // Layer, then whole name: attn_norm < attn_q < ffn_up within layer 1.
    CHECK(p.order == std::vector<std::size_t>{0, 1, 2, 5, 4, 3});
    using K = PreparedLayout::Kind;
    CHECK(p.kind == std::vector<K>{K::kQuantized, K::kQuantized, K::kQuantized, K::kF32,
                                   K::kQuantized, K::kQuantized});
}

TEST_CASE("prepared layout: layers out of order, and a layer number far past the tensors") {
    // The order is layer, then whole name, whatever order the tensors come in. Layers 0 and 2
    // share a list of names and take one sort; a file naming blk.5000 with four tensors is
    // sorted rather than given a bucket per layer number (prepare_layout's quantize_order).
    for (const int far : {3, 5000}) {
        CAPTURE(far);
        TensorLayout layout;
        layout.arch = "llama";
        layout.n_layer = 3;
        const auto add = [&](const std::string& name, int layer) {
            TensorInfo t;
            t.name = name;
            t.ne = {256, 256, 1, 1};
            t.n_dims = 2;
            t.layer = layer;
            layout.tensors.push_back(t);
        };
        add("blk." + std::to_string(far) + ".attn_q.weight", far);  // 0
        add("blk.2.ffn_up.weight", 2);                              // 1
        add("blk.2.attn_k.weight", 2);                              // 2
        add("token_embd.weight", -1);                               // 3
        add("blk.0.ffn_up.weight", 0);                              // 4
        add("blk.0.attn_k.weight", 0);                              // 5
        add("output.weight", -1);                                   // 6
        const PreparedLayout p = prepare_layout(layout);
        // -1: output < token_embd; 0: attn_k < ffn_up; 2 likewise; then the far layer.
        CHECK(p.order == std::vector<std::size_t>{6, 3, 5, 4, 2, 1, 0});
    }
}

namespace {

// The layout with every repeat forgotten, so each tensor is read from its own name and shape.
TensorLayout without_repeats(TensorLayout layout) {
    for (auto& t : layout.tensors) t.repeats = TensorInfo::kNoRepeat;
    return layout;
}

}  // namespace

TEST_CASE("prepared layout: llama-3.1-8b's layers 1-31 repeat the layer before, tensor by tensor") {
    // llama.cpp's llama layer: attn_norm, attn_q, attn_k, attn_v, attn_output, ffn_norm,
    // ffn_gate, ffn_down, ffn_up (src/models/llama.cpp); every layer alike, so each tensor of
    // layers 1 to 31 repeats the one at its place in the layer before: 31 x 9.
    const auto layout = tensor_layout(test::model("llama-3.1-8b"));
    REQUIRE(layout);
    std::size_t repeats = 0;
    for (std::size_t i = 0; i < layout->tensors.size(); ++i) {
        const TensorInfo& t = layout->tensors[i];
        if (t.repeats == TensorInfo::kNoRepeat) continue;
        ++repeats;
        const TensorInfo& before = layout->tensors[t.repeats];
        CHECK(before.layer == t.layer - 1);
        CHECK(before.name.view().substr(before.name.view().find('.', 4)) ==
              t.name.view().substr(t.name.view().find('.', 4)));
    }
    CHECK(repeats == std::size_t{31} * 9);
}

TEST_CASE("prepared layout: a repeated tensor reads as if read alone, for every model") {
    // What prepare_layout and the rules copy from the tensor a tensor repeats must be what they
    // read from its own name and shape: the same preparation and the same bytes at file types
    // whose rules count (Q4_K_M, Q3_K_M: attn_v, ffn_down), read ffn_gate / ffn_up by layer
    // (IQ3_XS) or the experts' shape (MXFP4).
    for (const auto& model : test::database().models) {
        CAPTURE(model.id);
        const auto layout = tensor_layout(model);
        REQUIRE(layout);
        for (std::size_t i = 0; i < layout->tensors.size(); ++i) {
            const TensorInfo& t = layout->tensors[i];
            if (t.repeats == TensorInfo::kNoRepeat) continue;
            REQUIRE(t.repeats < i);
            const TensorInfo& before = layout->tensors[t.repeats];
            CHECK(before.ne == t.ne);
            CHECK(before.n_dims == t.n_dims);
            CHECK(layer_in_name(t.name) == t.layer);
            const std::string_view a = before.name, b = t.name;
            CHECK(a.substr(a.find('.', 4)) == b.substr(b.find('.', 4)));
        }
        const PreparedLayout p = prepare_layout(*layout);
        const PreparedLayout alone = prepare_layout(without_repeats(*layout));
        CHECK(p.order == alone.order);
        CHECK(p.category == alone.category);
        CHECK(p.kind == alone.kind);
        CHECK(p.routed_expert == alone.routed_expert);
        CHECK(p.host_input == alone.host_input);
        CHECK(p.device_elements == alone.device_elements);
        CHECK(p.n_attention_wv == alone.n_attention_wv);
        CHECK(p.tied == alone.tied);
        for (const char* quant : {"Q4_K_M", "Q3_K_M", "IQ3_XS", "IQ2_XXS", "MXFP4", "Q8_0"}) {
            CAPTURE(quant);
            const auto bytes = quantize_bytes(p, quant);
            const auto bytes_alone = quantize_bytes(alone, quant);
            REQUIRE(bytes.has_value() == bytes_alone.has_value());
            if (bytes) CHECK(*bytes == *bytes_alone);
        }
    }
}

TEST_CASE("the snapshot's device_elements are every database model's layout's") {
    // The snapshot generator works them out with llamacpp_layout so that `fit` rules a model out
    // without a layout; here each is made again from tensor_layout and prepare_layout directly.
    const Database& db = test::database();
    REQUIRE(db.device_elements.size() == db.models.size());
    for (std::size_t i = 0; i < db.models.size(); ++i) {
        CAPTURE(db.models[i].id);
        const auto layout = tensor_layout(db.models[i]);
        REQUIRE(db.device_elements[i].has_value() == layout.has_value());
        if (!layout) continue;
        const PreparedLayout p = prepare_layout(*layout);
        CHECK(*db.device_elements[i] == p.device_elements);
        // Not all zero: each model's layout has quantized weights on the GPUs.
        CHECK((*db.device_elements[i])[PreparedLayout::kQuantized] > 0);
    }
}
