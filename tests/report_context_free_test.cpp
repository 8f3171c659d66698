// build_model_report keeps the parts of the page that do not depend on the context asked (the
// quantization x context grid and the KV curve) for the next question on the same thread
// (canitrun serve asks thousands). What is kept must be what a fresh computation gives, and it
// must never answer for other data: the key is the model, the quantizations, the card classes
// and the settings, by value.

#include <thread>

#include "canitrun/report.hpp"
#include "catch.hpp"
#include "test_support.hpp"

using namespace canitrun;
using canitrun::test::database;

namespace {

ModelReport report_at(const Database& db, std::uint64_t context) {
    ReportOptions o;
    o.estimate.context = context;
    o.context_explicit = true;
    return build_model_report(db, *db.find_model("qwen3.5-35b-a3b").value(), o).value();
}

// The report as a thread that has kept nothing computes it.
ModelReport fresh_report_at(const Database& db, std::uint64_t context) {
    std::optional<ModelReport> r;
    std::thread([&] { r = report_at(db, context); }).join();
    return *r;
}

void check_same_grid_and_curve(const ModelReport& a, const ModelReport& b) {
    REQUIRE(a.matrix.size() == b.matrix.size());
    for (std::size_t i = 0; i < a.matrix.size(); ++i) {
        CHECK(a.matrix[i].quant == b.matrix[i].quant);
        REQUIRE(a.matrix[i].cells.size() == b.matrix[i].cells.size());
        for (std::size_t c = 0; c < a.matrix[i].cells.size(); ++c) {
            CHECK(a.matrix[i].cells[c].total == b.matrix[i].cells[c].total);
            CHECK(a.matrix[i].cells[c].card == b.matrix[i].cells[c].card);
        }
    }
    REQUIRE(a.kv_curve.size() == b.kv_curve.size());
    for (std::size_t i = 0; i < a.kv_curve.size(); ++i) {
        CHECK(a.kv_curve[i].context == b.kv_curve[i].context);
        CHECK(a.kv_curve[i].this_model_total_bytes == b.kv_curve[i].this_model_total_bytes);
        CHECK(a.kv_curve[i].all_attention_total_bytes == b.kv_curve[i].all_attention_total_bytes);
    }
}

const MatrixRow& grid_row(const ModelReport& r, const std::string& quant) {
    for (const auto& row : r.matrix) {
        if (row.quant->id == quant) return row;
    }
    FAIL("no grid row " << quant);
    throw;
}

}  // namespace

TEST_CASE("report: the grid and the KV curve kept from another context are a fresh computation's") {
    const Database& db = database();
    report_at(db, 4096);  // kept on this thread
    const ModelReport kept = report_at(db, 12345);
    const ModelReport fresh = fresh_report_at(db, 12345);
    check_same_grid_and_curve(kept, fresh);
    // The part that depends on the context is not kept: the asked context's own estimate.
    CHECK(kept.selected.total() == fresh.selected.total());
    CHECK(kept.selected.total() != report_at(db, 4096).selected.total());
}

TEST_CASE("report: the grid kept for one database never answers for another with other data") {
    // The same models and quantizations with one card class, of 1,000 GB: every cell of the
    // grid (Q8_0 at 8k needs some 38 GB) is a 1,000 GB card, which no class of the database is.
    Database other = database();
    REQUIRE(!other.card_classes.empty());
    other.card_classes = {other.card_classes.back()};
    other.card_classes.front().gb = 1000;
    const ModelReport mine = report_at(database(), 8192);
    const ModelReport theirs = report_at(other, 8192);
    const auto& mine_cell = grid_row(mine, "Q8_0").cells.front();
    const auto& their_cell = grid_row(theirs, "Q8_0").cells.front();
    REQUIRE(mine_cell.card.has_value());
    CHECK(mine_cell.card->gb < 1000);
    REQUIRE(their_cell.card.has_value());
    CHECK(their_cell.card->gb == 1000);
    check_same_grid_and_curve(theirs, fresh_report_at(other, 8192));
}
