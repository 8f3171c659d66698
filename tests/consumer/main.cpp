// Uses the installed canitrun library: the built-in database (its snapshot, and the JSON it was
// made from, which must agree) and one estimate. Exits 0 when the
// answer is the reference page's: Qwen 3.5 35B-A3B at Q4_K_M, 8k context, 24,065,604,819 bytes
// (derived by hand in tests/reference_page_test.cpp).

#include <canitrun/database.hpp>
#include <canitrun/embedded_snapshot.hpp>
#include <canitrun/estimate.hpp>
#include <cstdio>

int main() {
    auto db = canitrun::load_embedded_database();
    const auto json = canitrun::parse_database(canitrun::embedded_database_files());
    if (!db || !json) {
        std::fprintf(stderr, "consumer: %s\n", (db ? json : db).error().message.c_str());
        return 1;
    }
    // The snapshot adds what its generator works out from the models (one entry per model);
    // the JSON has none. The rest must agree.
    if (db->device_elements.size() != db->models.size()) return 1;
    if (db->weight_parts.size() != db->models.size()) return 1;
    db->device_elements.clear();
    db->weight_parts.clear();
    if (!(*db == *json)) return 1;
    const auto model = db->find_model("qwen3.5-35b-a3b");
    const auto quant = db->find_quant("Q4_K_M");
    if (!model || !quant) return 1;
    const auto e = canitrun::estimate(**model, **quant, canitrun::EstimateOptions{});
    if (!e) return 1;
    std::printf("consumer: %s at %s, 8k context: %llu bytes\n", (*model)->id.c_str(),
                (*quant)->id.c_str(), static_cast<unsigned long long>(e->total()));
    return e->total() == 24065604819ULL ? 0 : 1;
}
