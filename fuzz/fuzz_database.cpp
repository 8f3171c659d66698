// Fuzzes parse_database: the first byte picks which file of a small valid database the rest
// replaces (a models file, a GPUs file, quants.json, card_classes.json or database.json). A
// database that loads is then used: every model gets a full report, so fuzzed dimensions reach
// the estimator's checked arithmetic. Must never crash, leak, or trip UBSan; errors are values.

#include <cstddef>
#include <cstdint>
#include <string>

#include "canitrun/database.hpp"
#include "canitrun/hardware.hpp"
#include "canitrun/param_count.hpp"
#include "canitrun/report.hpp"

namespace {

const char* const kModels = R"([{"id": "m", "name": "M", "family": "f", "vendor": "v",
  "source": "fuzz", "params": {"total": 1000000000}, "context": {"native": 4096},
  "architecture": {"hidden_size": 1024, "vocab_size": 32000, "layers": 2,
    "attention": {"heads": 16, "kv_heads": 4, "head_dim": 64}, "ffn": {"intermediate_size": 4096},
    "layer_groups": [{"kind": "full", "count": 2}]}}])";
const char* const kGpus = R"([{"id": "g", "name": "G", "vendor": "nvidia", "class": "consumer",
  "vram_gb": 24, "vram_bytes": 25769803776, "bandwidth_gbps": 1000, "backends": ["cuda"],
  "source": "fuzz"}])";
const char* const kQuants = R"([{"id": "Q4_K_M", "bits_per_weight": 4.873, "quality_rank": 1,
  "recommended": true, "page_table": true, "page_matrix": true, "derivation": "d",
  "source": "fuzz"}])";
const char* const kCardClasses = R"([{"gb": 24, "class": "consumer"}])";
const char* const kInfo = R"({"version": "1", "date": "2026-01-01", "source": "fuzz"})";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    canitrun::DatabaseFiles files = {{"models/fuzz.json", kModels},
                                     {"gpus/fuzz.json", kGpus},
                                     {"quants.json", kQuants},
                                     {"card_classes.json", kCardClasses},
                                     {"database.json", kInfo}};
    const char* const targets[] = {"models/fuzz.json", "gpus/fuzz.json", "quants.json",
                                   "card_classes.json", "database.json"};
    files[targets[data[0] % 5]] = std::string(reinterpret_cast<const char*>(data + 1), size - 1);
    const auto db = canitrun::parse_database(files);
    if (!db) return 0;
    for (const auto& model : db->models) {
        (void)canitrun::count_params(model);  // the loader refused counts past 64 bits
        canitrun::ReportOptions options;
        options.vram_budget = 24000000000ULL;
        if (!db->gpus.empty()) {
            canitrun::Hardware hardware;
            hardware.gpus.push_back(canitrun::device_for(db->gpus.front()));
            hardware.ram = 32000000000ULL;
            options.hardware = hardware;
        }
        (void)canitrun::build_model_report(*db, model, options);
    }
    return 0;
}
