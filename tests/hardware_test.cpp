#include "canitrun/hardware.hpp"

#include "catch.hpp"
#include "test_support.hpp"

using namespace canitrun;

TEST_CASE("gpu spec: a count prefix repeats the card") {
    const auto gpus = parse_gpu_spec(test::database(), "2x3090");
    REQUIRE(gpus);
    REQUIRE(gpus->size() == 2);
    CHECK((*gpus)[0]->id == "rtx-3090");
    CHECK((*gpus)[1]->id == "rtx-3090");
    CHECK(parse_gpu_spec(test::database(), "2 x RTX 3090")->size() == 2);
}

TEST_CASE("gpu spec: mixed cards keep the order given") {
    const auto gpus = parse_gpu_spec(test::database(), "4090, 2x3090");
    REQUIRE(gpus);
    REQUIRE(gpus->size() == 3);
    CHECK((*gpus)[0]->id == "rtx-4090");
    CHECK((*gpus)[2]->id == "rtx-3090");
}

TEST_CASE("gpu spec: names that begin with digits are not counts") {
    const auto gpus = parse_gpu_spec(test::database(), "7900 XTX");
    REQUIRE(gpus);
    REQUIRE(gpus->size() == 1);
    CHECK((*gpus)[0]->vendor == "amd");
}

TEST_CASE("gpu spec: bad specs are refused with a hint") {
    CHECK(parse_gpu_spec(test::database(), "0x3090").error().kind == ErrorKind::bad_input);
    CHECK(parse_gpu_spec(test::database(), "99x3090").error().kind == ErrorKind::bad_input);
    CHECK(parse_gpu_spec(test::database(), "3090,,4090").error().kind == ErrorKind::bad_input);
    const auto typo = parse_gpu_spec(test::database(), "2xRTX 4099");
    REQUIRE_FALSE(typo);
    CHECK(typo.error().message == "unknown GPU 'RTX 4099'");
}

TEST_CASE("a database GPU as a device has its real capacity") {
    const GpuDevice d = device_for(test::gpu("rtx-3090"));
    CHECK(d.memory == 24ULL << 30);  // 24 GiB, not the marketed 24 GB
    CHECK(d.bandwidth_gbps == 936);
    CHECK(describe_gpus({d, d}) == "2x NVIDIA RTX 3090");
}
