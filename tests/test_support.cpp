#include "test_support.hpp"

#include <algorithm>
#include <stdexcept>

#include "canitrun/embedded_snapshot.hpp"

namespace canitrun::test {

// The built-in database as the CLI loads it: the binary snapshot. Reading it is far cheaper
// than parsing and validating data/'s JSON, which under ASan took most of a second in each of
// the suite's ~390 processes; "The embedded snapshot reads back as exactly the database data/
// parses to" checks that the two are the same.
const Database& database() {
    static const Database db = [] {
        auto parsed = load_embedded_database();
        if (!parsed) throw std::runtime_error(parsed.error().message);
        return *parsed;
    }();
    return db;
}

const Model& model(const std::string& id) {
    return *database().find_model(id).value();
}
void publish_in_repo(Model& m, const std::string& repo) {
    if (repo != m.run.gguf_repo) m.run.gguf_plain_recipes.clear();
}
Model model_in_repo(const std::string& id, const std::string& repo) {
    Model m = model(id);
    publish_in_repo(m, repo);
    return m;
}
const Quant& quant(const std::string& id) {
    return *database().find_quant(id).value();
}
const Gpu& gpu(const std::string& id) {
    return *database().find_gpu(id).value();
}

Model model_with(std::vector<LayerGroup> groups, std::uint64_t kv_heads, std::uint64_t head_dim) {
    Model m;
    m.id = "synthetic";
    m.arch.attention = Attention{16, kv_heads, head_dim, 0, false};
    for (const auto& g : groups) m.arch.layers += g.count;
    m.arch.layer_groups = std::move(groups);
    m.params_total = m.params_active = 1000000000;
    m.context_native = 131072;
    return m;
}

Hardware hardware_of(const std::vector<std::string>& gpu_ids, std::uint64_t ram_gb) {
    Hardware h;
    for (const auto& id : gpu_ids) h.gpus.push_back(device_for(gpu(id)));
    h.ram = ram_gb * 1000000000ULL;
    return h;
}

ModelParts parts_of(const std::string& model_id, const std::string& quant_id,
                    std::uint64_t context) {
    EstimateOptions o;
    o.context = context;
    auto p = model_parts(model(model_id), quant(quant_id), o);
    if (!p) throw std::runtime_error(p.error().message);
    return *p;
}

PlanSettings settings_at_8k(const Model& m) {
    PlanSettings s;
    s.estimate.context = std::min<std::uint64_t>(8192, m.context_native);
    return settings_for_model(m, s);
}

SpeedModel zeroed_speed_model() {
    SpeedModel m;
    for (auto& c : m.classes) {
        c = SpeedClassCoefficients{};
        for (double* v : {&c.bandwidth, &c.compute, &c.compute_float, &c.attention}) *v = 0;
    }
    m.moe_layer_s = m.gpu_hop_s = m.weight_reread = 0;
    return m;
}

}  // namespace canitrun::test
