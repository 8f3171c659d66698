// validation/llama-bench.json is data like data/: every published measurement carries its source
// and the row it was copied from, its number appears in that row, and every database id it names
// exists. (The speed model is checked against these rows by tools, not here.)

#include <algorithm>
#include <fstream>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "canitrun/measurements.hpp"
#include "canitrun/placement.hpp"
#include "canitrun/speed.hpp"
#include "catch.hpp"
#include "test_support.hpp"

using nlohmann::json;

namespace {

json bench_rows() {
    std::ifstream in(CANITRUN_SOURCE_DIR "/validation/llama-bench.json");
    REQUIRE(in);
    return json::parse(in);
}

// "361.24" for 361.24, as a llama-bench table prints the mean; "2893.858642" as its JSON and
// JSONL records print avg_ts, with six decimals.
bool quoted(const std::string& quote, double value) {
    for (int decimals = 0; decimals <= 6; ++decimals) {
        std::ostringstream s;
        s << std::fixed << std::setprecision(decimals) << value;
        if (quote.find(s.str()) != std::string::npos) return true;
    }
    return false;
}

}  // namespace

TEST_CASE("validation: every llama-bench row has a source, its quote and known ids") {
    const json rows = bench_rows();
    REQUIRE(rows.size() >= 300);
    const auto& db = canitrun::test::database();
    std::set<std::string> models, gpus;
    for (const auto& m : db.models) models.insert(m.id);
    for (const auto& g : db.gpus) gpus.insert(g.id);
    std::set<std::string> backends;
    for (const auto& r : rows) {
        INFO(r.dump());
        REQUIRE(r.at("source").is_string());
        CHECK(r.at("source").get<std::string>().rfind("https://", 0) == 0);
        const std::string quote = r.at("quote").get<std::string>();
        const double tps = r.at("tokens_per_second").get<double>();
        CHECK(tps > 0);
        CHECK(quoted(quote, tps));
        CHECK_FALSE(r.at("test").get<std::string>().empty());
        for (const char* key : {"model_id", "nearest_model_id"}) {
            if (r.contains(key) && r.at(key).is_string()) CHECK(models.contains(r.at(key)));
        }
        if (r.at("gpu_id").is_string()) CHECK(gpus.contains(r.at("gpu_id")));
        backends.insert(r.at("backend").get<std::string>());
    }
    // Every backend the speed model distinguishes is covered.
    for (const char* b : {"CUDA", "ROCm", "Metal", "Vulkan"}) CHECK(backends.contains(b));
}

TEST_CASE(
    "validation: the rows the binary carries are the file's, as parse_measurements reads it") {
    std::ifstream in(CANITRUN_SOURCE_DIR "/validation/llama-bench.json");
    REQUIRE(in);
    std::ostringstream text;
    text << in.rdbuf();
    const auto parsed = canitrun::parse_measurements(text.str());
    REQUIRE(parsed);
    const auto& embedded = canitrun::embedded_measurements();
    REQUIRE(embedded.size() == bench_rows().size());
    CHECK(embedded == *parsed);
}

// SpeedModel::cpu_prefill_efficiency is the median over the CPU pp512 rows of the share of the
// row's CPU's int8 rate (its `cpu`: cores, vector bytes, clock, each sourced) the run reached,
// read with the speed model's own FLOPs (cpu_prefill_seconds at a share of 1).
TEST_CASE("validation: the CPU prompt share is the median of the published CPU runs") {
    using namespace canitrun;
    SpeedModel whole = fitted_speed_model();
    whole.cpu_prefill_efficiency = 1;
    std::vector<double> shares;
    for (const auto& r : bench_rows()) {
        if (r.at("backend") != "CPU") continue;
        INFO(r.dump());
        const auto& cpu = r.at("cpu");
        CHECK(cpu.at("source").get<std::string>().rfind("https://", 0) == 0);
        if (r.at("test") != "pp512") continue;
        Hardware h;
        h.ram = Bytes{1} << 40;
        h.cpu = {.cores = cpu.at("cores").get<std::uint64_t>(),
                 .vector_bytes = cpu.at("vector_bytes").get<std::uint64_t>(),
                 .ghz = cpu.at("ghz").get<double>(),
                 .name = {}};
        const auto id = r.at("model_id").get<std::string>();
        const auto quant = r.at("quant").get<std::string>();
        const auto p = place(test::parts_of(id, quant, 4096), h, {});
        REQUIRE(p);
        const SpeedWork w = speed_work(test::model(id), test::quant(quant), *p, 4096, {0, 512});
        const auto seconds = cpu_prefill_seconds(w, h, whole);
        REQUIRE(seconds);
        shares.push_back(r.at("tokens_per_second").get<double>() * *seconds);
    }
    REQUIRE(shares.size() == kCpuPrefillRuns);
    std::sort(shares.begin(), shares.end());
    CHECK(fitted_speed_model().cpu_prefill_efficiency ==
          Approx(shares[shares.size() / 2]).margin(0.0005));
}
