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
    // The error shows what was typed, not only the item that went wrong.
    CHECK(typo.error().message == "unknown GPU 'RTX 4099' in '2xRTX 4099'");
    CHECK(parse_gpu_spec(test::database(), "RTX 4099").error().message == "unknown GPU 'RTX 4099'");
}

// NVIDIA sells the RTX 4060 Ti and 5060 Ti with 8 GB or 16 GB of GDDR; LLM users buy the 16 GB
// card, so the bare name plans it and says how to name the other.
TEST_CASE("gpu spec: a name two memory variants share takes the 16 GB card and says so") {
    for (const char* typed : {"4060ti", "RTX 4060 Ti", "5060 ti", "geforce rtx 5060 ti"}) {
        const auto s = select_gpus(test::database(), typed);
        REQUIRE(s);
        REQUIRE(s->gpus.size() == 1);
        CHECK(s->gpus[0]->vram_bytes == 16ULL << 30);
        REQUIRE(s->notes.size() == 1);
        CHECK(s->notes[0].find(std::string("'") + typed + "' names 2 cards") == 0);
        CHECK(s->notes[0].find("-8gb for the RTX") != std::string::npos);
    }
    // The 8 GB card by its own name, and a named variant, carry no note.
    const auto eight = select_gpus(test::database(), "4060 ti 8gb");
    REQUIRE(eight);
    CHECK(eight->gpus[0]->id == "rtx-4060-ti-8gb");
    CHECK(eight->notes.empty());
    CHECK(select_gpus(test::database(), "rtx-5060-ti-16gb")->notes.empty());
    // The RX 9060 XT (8 or 16 GB) and the Arc A770 (8 or 16 GB) too.
    CHECK(select_gpus(test::database(), "9060xt")->gpus[0]->id == "rx-9060-xt-16gb");
    CHECK(select_gpus(test::database(), "a770")->gpus[0]->id == "arc-a770-16gb");
}

TEST_CASE("gpu spec: a '+' the database spells in a name is not a separator") {
    const auto ryzen = select_gpus(test::database(), "Ryzen AI Max+ 395");
    REQUIRE(ryzen);
    REQUIRE(ryzen->gpus.size() == 1);
    CHECK(ryzen->gpus[0]->id == "ryzen-ai-max-395-128gb");
    REQUIRE(ryzen->notes.size() == 1);
    CHECK(ryzen->notes[0].find("ryzen-ai-max-395-64gb") != std::string::npos);
    CHECK(ryzen->notes[0].find("ryzen-ai-max-395-32gb") != std::string::npos);
    CHECK(parse_gpu_spec(test::database(), "ryzen ai max+ 395 64gb").value()[0]->id ==
          "ryzen-ai-max-395-64gb");
    CHECK(parse_gpu_spec(test::database(), "Ryzen AI Max+395").value()[0]->id ==
          "ryzen-ai-max-395-128gb");
    // Elsewhere '+' lists GPUs, as a comma does.
    const auto two = parse_gpu_spec(test::database(), "4090+3090");
    REQUIRE(two);
    REQUIRE(two->size() == 2);
    CHECK((*two)[1]->id == "rtx-3090");
    CHECK(parse_gpu_spec(test::database(), "2x3090 + 4090")->size() == 3);
}

// AMD: an MI250X is one OAM module with two GCDs and 128 GB of HBM2e, 64 GB each; ROCm lists
// each GCD as a GPU.
TEST_CASE("gpu spec: an MI250X is two 64 GB devices, and the plan says so") {
    const auto s = select_gpus(test::database(), "MI250X");
    REQUIRE(s);
    REQUIRE(s->gpus.size() == 1);
    const auto devices = devices_for(s->gpus);
    REQUIRE(devices.size() == 2);
    for (const auto& d : devices) CHECK(d.memory == 64ULL << 30);
    REQUIRE(s->notes.size() == 1);
    CHECK(s->notes[0].find("2 devices of 64 GB each") != std::string::npos);
    CHECK(devices_for(parse_gpu_spec(test::database(), "2x mi250").value()).size() == 4);
}

TEST_CASE("a database GPU as a device has its real capacity") {
    const GpuDevice d = device_for(test::gpu("rtx-3090"));
    CHECK(d.memory == 24ULL << 30);  // 24 GiB, not the marketed 24 GB
    CHECK(d.bandwidth_gbps == 936);
    CHECK(describe_gpus({d, d}) == "2x NVIDIA RTX 3090");
}
