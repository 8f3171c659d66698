#include "canitrun/card_class.hpp"
#include "catch.hpp"
#include "test_support.hpp"

using namespace canitrun;

TEST_CASE("card class: the smallest class whose GB holds the total") {
    const std::vector<CardClass> classes = {
        {16, GpuClass::consumer}, {24, GpuClass::consumer}, {48, GpuClass::workstation}};
    CHECK(smallest_card_class(19000000000ULL, classes)->gb == 24);
    CHECK(smallest_card_class(24000000000ULL, classes)->gb == 24);
    CHECK(smallest_card_class(24000000001ULL, classes)->gb == 48);
    CHECK(smallest_card_class(24000000001ULL, classes)->gpu_class == GpuClass::workstation);
    CHECK_FALSE(smallest_card_class(49000000000ULL, classes).has_value());
}

TEST_CASE("card classes of the database are the page's - sorted") {
    const auto& classes = test::database().card_classes;
    REQUIRE(classes.size() >= 3);
    for (std::size_t i = 1; i < classes.size(); ++i) CHECK(classes[i - 1].gb < classes[i].gb);
    // The page calls 24 and 32 GB cards consumer and 48 GB workstation.
    CHECK(smallest_card_class(20 * 1000000000ULL, classes)->gb == 24);
    CHECK(smallest_card_class(30 * 1000000000ULL, classes)->gpu_class == GpuClass::consumer);
    CHECK(smallest_card_class(40 * 1000000000ULL, classes)->gpu_class == GpuClass::workstation);
}
