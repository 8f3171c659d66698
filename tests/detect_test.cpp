#include "canitrun/detect.hpp"

#include "canitrun/probe_sources.hpp"
#include "catch.hpp"
#include "test_support.hpp"

using namespace canitrun;

namespace {

DetectedSystem recorded(const std::string& name) {
    return detect_system(RecordedProbeSource(std::string(CANITRUN_FIXTURES) + "/probe/" + name),
                         test::database());
}

}  // namespace

TEST_CASE("detect: two RTX 3090 from nvidia-smi and RAM from meminfo") {
    const DetectedSystem s = recorded("nvidia-2x3090");
    REQUIRE(s.gpus.size() == 2);
    CHECK(s.gpus[0].name == "NVIDIA GeForce RTX 3090");
    CHECK(s.gpus[0].memory == 24576ULL << 20);  // 24576 MiB
    REQUIRE(s.ram);
    CHECK(*s.ram == 65756956ULL * 1024);
    const Hardware h = hardware_from(s, test::database());
    REQUIRE(h.gpus.size() == 2);
    REQUIRE(h.gpus[1].gpu != nullptr);
    CHECK(h.gpus[1].gpu->id == "rtx-3090");
    CHECK(h.gpus[1].bandwidth_gbps == 936);
    CHECK(h.gpus[1].memory == 24576ULL << 20);  // the detected size is the truth
}

TEST_CASE("detect: MIG instances replace their parent with its slices") {
    const DetectedSystem s = recorded("nvidia-a100-mig");
    REQUIRE(s.gpus.size() == 3);
    CHECK(s.gpus[0].name == "NVIDIA A100-SXM4-80GB MIG 3g.40gb");
    CHECK(s.gpus[0].memory == 40000000000ULL);
    CHECK(s.gpus[2].memory == 10000000000ULL);
    // A CUDA process sees one MIG instance: the plan takes the largest slice alone and says so.
    const Hardware h = hardware_from(s, test::database());
    REQUIRE(h.gpus.size() == 1);
    CHECK(h.gpus[0].memory == 40000000000ULL);
    REQUIRE(h.gpus[0].gpu != nullptr);
    CHECK(h.gpus[0].gpu->id == "a100-80gb-sxm");
    // A 40 GB slice of the 81920 MiB card gets that share of its 2039 GB/s.
    CHECK(h.gpus[0].bandwidth_gbps ==
          Approx(h.gpus[0].gpu->bandwidth_gbps * 40e9 / (81920.0 * 1048576)));
    REQUIRE(h.notes.size() == 1);
    CHECK(h.notes[0].find("largest of 3 MIG slices") != std::string::npos);
    // `system` still lists every slice.
    CHECK(device_from(s.gpus[2], test::database()).memory == 10000000000ULL);
}

TEST_CASE("detect: an H200 matches its database entry") {
    const Hardware h = hardware_from(recorded("nvidia-h200"), test::database());
    REQUIRE(h.gpus.size() == 1);
    REQUIRE(h.gpus[0].gpu != nullptr);
    CHECK(h.gpus[0].gpu->id == "h200-sxm");  // "NVIDIA H200" is the SXM part; the NVL says so
    CHECK(h.gpus[0].memory == 143771ULL << 20);
}

TEST_CASE("detect: AMD from sysfs named by rocm-smi - connectors and render nodes skipped") {
    const DetectedSystem s = recorded("amd-7900xtx");
    REQUIRE(s.gpus.size() == 1);
    CHECK(s.gpus[0].name == "Radeon RX 7900 XTX");
    CHECK(s.gpus[0].memory == 25753026560ULL);
    CHECK_FALSE(s.gpus[0].integrated);
    const Hardware h = hardware_from(s, test::database());
    REQUIRE(h.gpus[0].gpu != nullptr);
    CHECK(h.gpus[0].gpu->id == "rx-7900-xtx");  // not the 20 GB 7900 XT
}

TEST_CASE("detect: an integrated AMD GPU uses its shared GTT memory") {
    const DetectedSystem s = recorded("amd-apu");
    REQUIRE(s.gpus.size() == 1);
    CHECK(s.gpus[0].integrated);
    CHECK(s.gpus[0].memory == 16106127360ULL);  // GTT, not the 512 MiB carve-out
    CHECK(s.gpus[0].name == "AMD GPU (PCI device 0x15bf)");
    const Hardware h = hardware_from(s, test::database());
    CHECK(h.gpus[0].gpu == nullptr);
    CHECK(h.unified());
    // The GTT is system RAM: counted once, so the CPU keeps MemTotal less it.
    REQUIRE(s.ram);
    CHECK(h.ram == *s.ram - 16106127360ULL);
}

TEST_CASE("detect: Apple silicon from sysctl with the GPU's share of unified memory") {
    const DetectedSystem s = recorded("apple-m2-max");
    REQUIRE(s.gpus.size() == 1);
    CHECK(s.gpus[0].memory == 64ULL << 30);
    CHECK(s.ram == std::optional<Bytes>(64ULL << 30));
    const Hardware h = hardware_from(s, test::database());
    REQUIRE(h.gpus[0].gpu != nullptr);
    CHECK(h.gpus[0].gpu->id == "m2-max-64gb");
    CHECK(h.gpus[0].memory == (64ULL << 30) * 750 / 1000);  // 75 % for 64 GB, per the entry
    // Unified memory counted once: the CPU keeps the other 25 %, as when the Mac is named.
    CHECK(h.ram == (64ULL << 30) - (64ULL << 30) * 750 / 1000);
    Hardware named;
    named.gpus = devices_for(*h.gpus[0].gpu);
    CHECK(h.ram == unified_host_memory(named));
}

TEST_CASE("detect: no GPU leaves notes and RAM only") {
    const DetectedSystem s = recorded("no-gpu");
    CHECK(s.gpus.empty());
    CHECK(s.ram == std::optional<Bytes>(16384000ULL * 1024));
    CHECK_FALSE(s.notes.empty());
}

// nvidia-smi names both RTX 4060 Ti cards "NVIDIA GeForce RTX 4060 Ti"; the memory tells them
// apart (8 GB: 8188 MiB, 16 GB: 16380 MiB as the driver reports them).
TEST_CASE("detect: a name two memory variants share matches by memory") {
    const auto gpus = parse_nvidia_smi_query(
        "0, NVIDIA GeForce RTX 4060 Ti, 8188\n1, NVIDIA GeForce RTX 4060 Ti, 16380\n");
    REQUIRE(gpus);
    REQUIRE(gpus->size() == 2);
    const Gpu* eight = match_gpu(test::database(), (*gpus)[0]);
    const Gpu* sixteen = match_gpu(test::database(), (*gpus)[1]);
    REQUIRE(eight != nullptr);
    REQUIRE(sixteen != nullptr);
    CHECK(eight->id == "rtx-4060-ti-8gb");
    CHECK(sixteen->id == "rtx-4060-ti-16gb");
}

// xpu-smi's dump (intel/xpumanager, ial/cmn/cmd_discovery.cpp: "Memory Physical Size" in MiB
// with two decimals, "Memory Free Size" in bytes). An A770 reports 16288 MiB (xpumanager#145);
// 13,260,292,096 bytes free is that card's 3642 MiB in use.
TEST_CASE("detect: an Intel Arc A770 from xpu-smi, with its free memory") {
    const DetectedSystem s = recorded("intel-arc-a770");
    REQUIRE(s.gpus.size() == 1);
    CHECK(s.gpus[0].name == "Intel(R) Arc(TM) A770 Graphics");
    CHECK(s.gpus[0].vendor == "intel");
    CHECK(s.gpus[0].memory == 16288ULL << 20);
    CHECK(s.gpus[0].free == std::optional<Bytes>((16288ULL - 3642) << 20));
    const Hardware h = hardware_from(s, test::database());
    REQUIRE(h.gpus[0].gpu != nullptr);
    CHECK(h.gpus[0].gpu->id == "arc-a770-16gb");  // not the 8 GB card of the same name
    CHECK(h.gpus[0].memory == (16288ULL - 3642) << 20);
    CHECK(parse_xpu_smi_dump("0, Intel(R) Arc(TM) A770 Graphics, 16288.50 MiB\n")->at(0).memory ==
          (16288ULL << 20) + (1ULL << 19));
    CHECK_FALSE(parse_xpu_smi_dump("0, Intel(R) Arc(TM) A770 Graphics, N/A\n"));
}

// The xe driver's tile0/physical_vram_size_bytes: a B580's 12 GiB, and PCI id 0xe20b, which
// pci.ids names "Battlemage G21 [Arc B580]": the card gets the B580's entry (456 GB/s). The
// integrated GPU beside it (0xa780, RPL-S in pci.ids; no VRAM file, no entry) is noted.
TEST_CASE("detect: an Intel card under xe named by its PCI id - an integrated one noted") {
    const DetectedSystem s = recorded("intel-arc-b580-xe");
    REQUIRE(s.gpus.size() == 1);
    CHECK(s.gpus[0].name == "Intel Arc B580");
    CHECK(s.gpus[0].pci_id == std::optional<std::uint64_t>(0xe20b));
    CHECK(s.gpus[0].memory == 12ULL << 30);
    CHECK(s.gpus[0].via == "sysfs (xe), named by PCI id 0xe20b");
    const Hardware h = hardware_from(s, test::database());
    REQUIRE(h.gpus.size() == 1);
    REQUIRE(h.gpus[0].gpu != nullptr);
    CHECK(h.gpus[0].gpu->id == "arc-b580");
    CHECK(h.gpus[0].bandwidth_gbps == 456);
    CHECK(h.gpus[0].memory == 12ULL << 30);  // the detected size
    bool noted = false;
    for (const auto& n : s.notes) noted = noted || n.find("PCI device 0xa780") != std::string::npos;
    CHECK(noted);
}

// Under i915 sysfs gives no VRAM size: the A380's id (0x56a5) names one entry, whose 6 GiB the
// plan takes, and a note says so; the A770's (0x56a0) names the 8 GB and the 16 GB cards, and
// with no memory to tell them apart the card is only noted, both ids named.
TEST_CASE("detect: Intel cards under i915 - one id names one card, one names two") {
    const DetectedSystem s = recorded("intel-arc-i915");
    REQUIRE(s.gpus.size() == 1);
    CHECK(s.gpus[0].name == "Intel Arc A380");
    CHECK(s.gpus[0].memory == 0);
    CHECK(s.gpus[0].via == "sysfs (i915), named by PCI id 0x56a5, memory from the database");
    const Hardware h = hardware_from(s, test::database());
    REQUIRE(h.gpus.size() == 1);
    REQUIRE(h.gpus[0].gpu != nullptr);
    CHECK(h.gpus[0].gpu->id == "arc-a380");
    CHECK(h.gpus[0].memory == 6ULL << 30);
    bool a380 = false;
    bool a770 = false;
    for (const auto& n : s.notes) {
        a380 = a380 || n.find(
                           "Intel Arc A380 (PCI id 0x56a5): the i915 driver reports no VRAM "
                           "size; planned with the memory of the database entry arc-a380") !=
                           std::string::npos;
        a770 = a770 || n.find(
                           "PCI id 0x56a0 names arc-a770-8gb or arc-a770-16gb: name the card with "
                           "--gpu") != std::string::npos;
    }
    CHECK(a380);
    CHECK(a770);
}

// A device with a PCI id is matched by the id alone: the A770's 0x56a0 is the 8 GB or the 16 GB
// card by the memory detected (xpu-smi's 16288 MiB for the 16 GB card, xpumanager#145), neither
// without a memory, and an id no entry holds matches nothing, whatever the name says.
TEST_CASE("detect: a PCI id names its card, the memory picking among cards that share it") {
    const Database& db = test::database();
    DetectedGpu d;
    d.vendor = "intel";
    d.pci_id = 0x56a0;
    d.memory = 16288ULL << 20;
    REQUIRE(match_gpu(db, d) != nullptr);
    CHECK(match_gpu(db, d)->id == "arc-a770-16gb");
    d.memory = 8ULL << 30;
    REQUIRE(match_gpu(db, d) != nullptr);
    CHECK(match_gpu(db, d)->id == "arc-a770-8gb");
    d.memory = 0;
    CHECK(match_gpu(db, d) == nullptr);
    d.memory = 2ULL << 30;  // far from both: another card
    CHECK(match_gpu(db, d) == nullptr);
    d.pci_id = 0xa780;
    d.name = "Intel Arc B580";
    d.memory = 12ULL << 30;
    CHECK(match_gpu(db, d) == nullptr);
}

// vulkaninfo --summary names devices without memory: the RTX 3060 gets its database entry's
// 12 GiB; llvmpipe (a CPU device) is no GPU.
TEST_CASE("detect: a Vulkan-only device is planned with its database entry's memory") {
    const DetectedSystem s = recorded("vulkan-only");
    REQUIRE(s.gpus.size() == 1);
    CHECK(s.gpus[0].name == "NVIDIA GeForce RTX 3060");
    CHECK(s.gpus[0].memory == 0);
    const Hardware h = hardware_from(s, test::database());
    REQUIRE(h.gpus.size() == 1);
    REQUIRE(h.gpus[0].gpu != nullptr);
    CHECK(h.gpus[0].gpu->id == "rtx-3060");
    CHECK(h.gpus[0].memory == 12ULL << 30);
    // One the database does not know is left out with a note pointing at --gpu-spec.
    DetectedSystem odd;
    odd.gpus = {DetectedGpu{"Turnip Adreno (TM) 750", "0x5143", 0, std::nullopt, false,
                            "vulkaninfo --summary", "", 0, std::nullopt}};
    const Hardware none = hardware_from(odd, test::database());
    CHECK(none.gpus.empty());
    REQUIRE(none.notes.size() == 1);
    CHECK(none.notes[0].find("--gpu-spec") != std::string::npos);
    // A vendor another probe found is that probe's; integrated devices are noted.
    const auto devices = parse_vulkaninfo_summary(
        "GPU0:\n\tvendorID = 0x1002\n\tdeviceType = PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU\n"
        "\tdeviceName = AMD Radeon 780M (RADV PHOENIX)\nGPU1:\n\tvendorID = 0x10005\n"
        "\tdeviceType = PHYSICAL_DEVICE_TYPE_CPU\n\tdeviceName = llvmpipe\n");
    REQUIRE(devices.size() == 1);
    CHECK(devices[0].vendor == "amd");
    CHECK_FALSE(devices[0].discrete);
}

// A Jetson AGX Orin 64GB: the device tree names it, /proc/meminfo gives the unified memory
// (64,349,184 kB, tegrastats' 62841MB), tegrastats what is in use (18993 MB, from a published
// tegrastats line): free 43,848 MiB, under the entry's 90 % share.
TEST_CASE("detect: a Jetson from its device tree, unified memory and tegrastats") {
    const DetectedSystem s = recorded("jetson-agx-orin-64gb");
    REQUIRE(s.gpus.size() == 1);
    CHECK(s.gpus[0].name == "NVIDIA Jetson AGX Orin Developer Kit");
    CHECK(s.gpus[0].integrated);
    CHECK(s.gpus[0].memory == 64349184ULL * 1024);
    CHECK(s.gpus[0].free == std::optional<Bytes>((62841ULL - 18993) << 20));
    const Hardware h = hardware_from(s, test::database());
    REQUIRE(h.gpus[0].gpu != nullptr);
    CHECK(h.gpus[0].gpu->id == "jetson-agx-orin-64gb");
    CHECK(h.gpus[0].memory == (62841ULL - 18993) << 20);
    CHECK(h.unified());
    CHECK(parse_tegrastats_ram("RAM 2230/7620MB (lfb 1x4MB) SWAP 0/3810MB") ==
          std::optional<std::pair<Bytes, Bytes>>({2230ULL << 20, 7620ULL << 20}));
    CHECK_FALSE(parse_tegrastats_ram("RAM 9/8MB"));
}

// amdgpu's mem_info_vram_used (1 MiB here, as the same machine's rocm-smi recording says): a
// plan gets what is free.
TEST_CASE("detect: AMD free memory from mem_info_vram_used") {
    const DetectedSystem s = recorded("amd-7900xtx");
    REQUIRE(s.gpus.size() == 1);
    CHECK(s.gpus[0].free == std::optional<Bytes>(25753026560ULL - 1048576));
    CHECK(hardware_from(s, test::database()).gpus[0].memory == 25753026560ULL - 1048576);
}

TEST_CASE("nvidia-smi output that is not a GPU list is refused") {
    CHECK_FALSE(parse_nvidia_smi_query("0, NVIDIA GeForce RTX 4090, [N/A]\n"));
    CHECK_FALSE(parse_nvidia_smi_query("No devices were found\n"));
    CHECK(parse_nvidia_smi_query("\n")->empty());
}

TEST_CASE("meminfo without MemTotal gives no RAM figure") {
    CHECK_FALSE(parse_meminfo_total("MemFree: 12 kB\n"));
    CHECK(parse_meminfo_total("MemTotal: 1024 kB\n") == std::optional<Bytes>(1048576));
}

// nvidia-smi's memory.free (the fourth field of the query): a plan on this machine gets what is
// free, as llama.cpp's own fitting does. 20,480 of 24,564 MiB free -> 21,474,836,480 bytes
// usable; a three-field line (older recordings) or "[N/A]" keeps the total.
TEST_CASE("detect: nvidia-smi's free memory is what a plan on this machine gets") {
    const auto gpus = parse_nvidia_smi_query(
        "0, NVIDIA GeForce RTX 4090, 24564, 20480\n1, NVIDIA GeForce RTX 4090, 24564, [N/A]\n"
        "2, NVIDIA GeForce RTX 4090, 24564\n");
    REQUIRE(gpus);
    REQUIRE(gpus->size() == 3);
    CHECK((*gpus)[0].memory == 24564ULL * 1048576);
    REQUIRE((*gpus)[0].free);
    CHECK(*(*gpus)[0].free == 20480ULL * 1048576);
    CHECK_FALSE((*gpus)[1].free);
    CHECK_FALSE((*gpus)[2].free);
    DetectedSystem s;
    s.gpus = *gpus;
    const Hardware h = hardware_from(s, test::database());
    CHECK(h.gpus[0].memory == 21474836480ULL);
    CHECK(h.gpus[1].memory == 24564ULL * 1048576);
    // More "free" than the card has is not a figure to trust.
    const auto odd = parse_nvidia_smi_query("0, NVIDIA GeForce RTX 4090, 24564, 99999\n");
    REQUIRE(odd);
    CHECK_FALSE((*odd)[0].free);
}

// /proc/cpuinfo as the kernel writes it: x86 names each logical CPU's physical core ("core
// id"), so the recording's 4 processors are 2 cores (the i5-4278U's, chipversus.com); ARM writes
// no core id and each processor is a core. The vector width is the widest the flags name, the
// clock cpufreq's cpuinfo_max_freq in kHz, else the GHz an Intel model name carries.
TEST_CASE("detect: the CPU's cores, vector width and clock from /proc/cpuinfo") {
    const DetectedSystem s = recorded("cpu-i5-4278u");
    CHECK(s.cpu.cores == 2);
    CHECK(s.cpu.vector_bytes == 32);
    CHECK(s.cpu.ghz == 3.1);
    CHECK(s.cpu.name == "Intel(R) Core(TM) i5-4278U CPU @ 2.60GHz");
    CHECK(hardware_from(s, test::database()).cpu.cores == 2);
    // 2 x 32 x 2 x 3.1 / 1000
    CHECK(cpu_int8_tops(s.cpu) == Approx(0.3968));
    const std::string x86 =
        "processor : 0\nmodel name : Xeon @ 2.10GHz\nphysical id : 0\ncore id : 0\n"
        "flags : fma avx2 avx512f\n\nprocessor : 1\nphysical id : 1\ncore id : 0\n";
    const CpuCompute two_sockets = parse_cpuinfo(x86, std::nullopt);
    CHECK(two_sockets.cores == 2);
    CHECK(two_sockets.vector_bytes == 64);
    CHECK(two_sockets.ghz == 2.1);
    const std::string arm =
        "processor : 0\nFeatures : fp asimd asimddp\n\nprocessor : 1\n\n"
        "processor : 2\n\nprocessor : 3\n";
    const CpuCompute pi = parse_cpuinfo(arm, std::string("2400000\n"));
    CHECK(pi.cores == 4);
    CHECK(pi.vector_bytes == 16);
    CHECK(pi.ghz == 2.4);
    CHECK(parse_cpuinfo("processor : 0\nflags : sse2\n", std::nullopt).vector_bytes == 0);
}

// --gpu auto on machines one llama.cpp process cannot drive whole, as the recordings combine
// them: the two RTX 3090 of nvidia-2x3090 beside the RX 7900 XTX of amd-7900xtx (CUDA and ROCm
// are two builds) is refused, as the named list is (cli_hardware_test.cpp), rather than split
// over all three. Beside amd-apu's integrated Radeon (a desktop's iGPU, which CUDA does not see
// and which shares the RAM) the cards are planned alone and the Radeon is named in a note. One
// vendor's cards, MIG slices and a Mac alone pass.
TEST_CASE("detect: --gpu auto refuses the mixes --gpu refuses by name, and leaves an iGPU out") {
    DetectedSystem mix = recorded("nvidia-2x3090");
    const DetectedSystem amd = recorded("amd-7900xtx");
    REQUIRE(amd.gpus.size() == 1);
    mix.gpus.push_back(amd.gpus[0]);
    const auto mixed = detected_one_machine(mix, test::database());
    REQUIRE_FALSE(mixed);
    CHECK(mixed.error().kind == ErrorKind::bad_input);
    CHECK(mixed.error().message.find("mixes NVIDIA and AMD cards") != std::string::npos);
    CHECK(mixed.error().hint.find("--host 'rtx-3090,rtx-3090' --host 'rx-7900-xtx'") !=
          std::string::npos);

    DetectedSystem apu = recorded("nvidia-2x3090");
    const DetectedSystem radeon = recorded("amd-apu");
    REQUIRE(radeon.gpus.size() == 1);
    REQUIRE(radeon.gpus[0].integrated);
    apu.gpus.push_back(radeon.gpus[0]);
    CHECK(detected_one_machine(apu, test::database()).value_or(false));
    const Hardware cards = hardware_from(apu, test::database());
    REQUIRE(cards.gpus.size() == 2);
    CHECK_FALSE(cards.gpus[0].unified);
    CHECK_FALSE(cards.gpus[1].unified);
    CHECK(cards.ram == *apu.ram);  // no unified share taken from the RAM
    REQUIRE(cards.notes.size() == 1);
    CHECK(cards.notes[0].starts_with(radeon.gpus[0].name + " left out: an integrated GPU"));

    CHECK(detected_one_machine(recorded("nvidia-2x3090"), test::database()).value_or(false));
    CHECK(detected_one_machine(recorded("nvidia-a100-mig"), test::database()).value_or(false));
    CHECK(detected_one_machine(recorded("apple-m2-max"), test::database()).value_or(false));
}
