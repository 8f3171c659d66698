// llama.cpp's RPC backend over several hosts: the planner's split over every device (RPC
// devices first, src/llama.cpp) and the activations that cross the network, derived by hand.

#include "canitrun/rpc_plan.hpp"
#include "catch.hpp"
#include "test_support.hpp"

using namespace canitrun;

namespace {

Cluster rpc_hosts(std::initializer_list<const char*> specs) {
    Cluster c;
    for (const char* s : specs) {
        c.hosts.push_back(parse_host(test::database(), s, 64ULL * 1000 * 1000 * 1000).value());
    }
    return c;
}

PlanSettings llamacpp_at(std::uint64_t context) {
    PlanSettings s;
    s.estimate.context = context;
    return s;
}

}  // namespace

TEST_CASE("rpc: a 405B Q4_K_M over two 256 GB Macs splits in half and fits") {
    const Model& m = test::model("llama-3.1-405b");
    const auto r = answer_rpc(m, test::quant("Q4_K_M"),
                              rpc_hosts({"m3-ultra-256gb", "m3-ultra-256gb"}), llamacpp_at(8192))
                       .value();
    CHECK(r.answer.plan.kind == PlanKind::native);
    // host 2 is the RPC device, so it comes first; host 1's own GPU last
    CHECK(r.devices.device_host == std::vector<std::size_t>{1, 0});
    // 126 layers + the output head = 127 units over two equal devices: unit i goes to the
    // first device while i / 127 < 1 / 2, so units 0..63 (64 layers), then 62 layers + head
    const Placement& p = r.answer.plan.placement;
    CHECK(p.gpus[0].layers == 64);
    CHECK(p.gpus[1].layers == 62);
    CHECK(p.gpus[1].output);
    // the embedding goes out to host 2, its last activation comes back: 2 x 16384 x 4 bytes
    CHECK(r.traffic.transfers == 2);
    CHECK(r.traffic.bytes_per_token == 2ULL * 16384 * 4);
    // at 10 Gb/s: 131072 x 8 / 1e10 s, plus 2 x 3.0 ms
    CHECK(r.traffic.seconds_per_token == Approx(131072.0 * 8 / 1e10 + 2 * 0.003));
    const RpcLaunch l = rpc_launch(r, {&m, &test::quant("Q4_K_M"), {}});
    CHECK(l.server_hosts == std::vector<std::size_t>{1});
    CHECK(l.rpc_server_args == std::vector<std::string>{"--host", "0.0.0.0", "--port", "50052"});
    const auto& a = l.llama_server_args;
    REQUIRE(a.size() >= 2);
    CHECK(a[a.size() - 2] == "--rpc");
    CHECK(a.back() == "HOST2_IP:50052");
    CHECK(std::find(a.begin(), a.end(), "-ngl") != a.end());
}

TEST_CASE("rpc: a 70B over three mixed machines, one of them CPU only") {
    const Model& m = test::model("llama-3.1-70b");
    const auto r =
        answer_rpc(m, test::quant("Q4_K_M"), rpc_hosts({"rtx-4090", "2x3090", "rtx-3090:ram=64"}),
                   llamacpp_at(8192))
            .value();
    REQUIRE(r.devices.hardware.gpus.size() == 4);
    CHECK(r.devices.device_host == std::vector<std::size_t>{1, 1, 2, 0});
    const auto r3 = answer_rpc(m, test::quant("Q4_K_M"),
                               rpc_hosts({"rtx-4090", "2x3090", "rtx-3090"}), llamacpp_at(8192))
                        .value();
    CHECK(r3.devices.device_host == std::vector<std::size_t>{1, 1, 2, 0});
    // Four 24 GiB devices; the 70B at Q4_K_M (about 42.5 GB) fits on two. The split search
    // (split_search.hpp) takes the fewest GPUs, one hand-over fewer per GPU left out, and puts
    // the most units on the fastest card: the 4090 (device 3, on host 0, the server; 1008 GB/s
    // against the 3090s' 936) holds the head and more layers than the one 3090 beside it.
    // (llama.cpp's default split by memory would use all four: 21, 20, 20, 19 + head.)
    const Placement& p = r3.answer.plan.placement;
    std::size_t used = 0;
    for (const Share& g : p.gpus) used += g.layers > 0 ? 1 : 0;
    CHECK(used == 2);
    CHECK(p.gpus[3].output);
    CHECK(p.gpus[3].layers + p.gpus[0].layers + p.gpus[1].layers + p.gpus[2].layers == 80);
    CHECK(p.gpus[3].layers > 40);
    CHECK(r3.answer.plan.kind == PlanKind::native);
    // host 1 -> the other host (embedding), and back: two transfers of 8192 x 4 bytes
    CHECK(r3.traffic.transfers == 2);
    CHECK(r3.traffic.bytes_per_token == 2ULL * 8192 * 4);
}

TEST_CASE("rpc: a host without a GPU serves its RAM as one device") {
    const Model& m = test::model("llama-3.1-70b");
    const auto r = answer_rpc(m, test::quant("Q4_K_M"), rpc_hosts({"rtx-4090", "rtx-3090"}),
                              llamacpp_at(8192));
    REQUIRE(r.has_value());
    Cluster c = rpc_hosts({"rtx-4090"});
    Host cpu;
    cpu.spec = "cpu";
    cpu.hardware.ram = 128ULL * 1000 * 1000 * 1000;
    c.hosts.push_back(cpu);
    const RpcDevices d = rpc_devices(c);
    REQUIRE(d.hardware.gpus.size() == 2);
    CHECK(d.hardware.gpus[0].name == "CPU of host 2");
    CHECK(d.hardware.gpus[0].memory == 128ULL * 1000 * 1000 * 1000);
    CHECK(d.device_host == std::vector<std::size_t>{1, 0});
}

TEST_CASE("rpc: the network slows decode by its time per token") {
    const Model& m = test::model("llama-3.1-70b");
    const Cluster one = rpc_hosts({"2x3090"});
    const auto local = answer_rpc(m, test::quant("Q4_K_M"), one, llamacpp_at(8192)).value();
    CHECK(local.traffic.transfers == 0);
    Cluster slow = rpc_hosts({"rtx-3090", "rtx-3090"});
    slow.link_gbits = 1;
    const auto remote = answer_rpc(m, test::quant("Q4_K_M"), slow, llamacpp_at(8192)).value();
    CHECK(remote.traffic.transfers == 2);
    const double local_s = 1.0 / local.answer.speed.decode_tokens_per_s;
    const double remote_s = 1.0 / remote.answer.speed.decode_tokens_per_s;
    CHECK(remote_s - local_s == Approx(2 * 8192 * 4 * 8 / 1e9 + 2 * 0.003).epsilon(0.001));
}

// A host's RAM by the rule --gpu follows (default_ram): a Mac keeps the CPU's share of its
// unified memory (64 GiB less the 75 % its GPU may use: 16 GiB), a PC 32 GB, :ram= what it says.
TEST_CASE("cluster: a host's RAM default is the --gpu rule, a Mac's unified memory counted once") {
    const auto mac = parse_host(test::database(), "m4-max-64gb", std::nullopt).value();
    CHECK(mac.hardware.ram == (64ULL << 30) - (64ULL << 30) * 750 / 1000);
    const auto pc = parse_host(test::database(), "rtx-4090", std::nullopt).value();
    CHECK(pc.hardware.ram == 32ULL * 1000 * 1000 * 1000);
    const auto given = parse_host(test::database(), "2x3090:ram=128", std::nullopt).value();
    CHECK(given.hardware.ram == 128ULL * 1000 * 1000 * 1000);
}

// A Mac serving with another host's RTX 4090 over RPC: only the Mac's own GPU lends its RAM
// what its share leaves (the card's free memory is the other host's, not RAM). By hand: the
// Mac's GPU may use 75 % of 64 GiB, 48 GiB, 47 GiB usable after the 1 GiB margin; its RAM is
// the other 16 GiB. So RAM's capacity plus what the Mac's GPU holds is 16 + 47 = 63 GiB,
// whatever the split; lending the 4090's free memory too pushed it past the Mac's 64 GiB.
TEST_CASE("rpc: a Mac's unused GPU share is lent to its own RAM, another host's card is not") {
    Cluster c;
    c.hosts.push_back(parse_host(test::database(), "m4-max-64gb", std::nullopt).value());
    c.hosts.push_back(parse_host(test::database(), "rtx-4090", std::nullopt).value());
    const auto r =
        answer_rpc(test::model("llama-3.1-8b"), test::quant("Q4_K_M"), c, llamacpp_at(8192))
            .value();
    REQUIRE(r.devices.device_host == std::vector<std::size_t>{1, 0});
    CHECK_FALSE(r.devices.hardware.gpus[0].unified);  // the remote card
    CHECK(r.devices.hardware.gpus[1].unified);        // the server's own Mac
    const Placement& p = r.answer.plan.placement;
    REQUIRE(p.fits());
    CHECK(p.ram.capacity + p.gpus[1].most() == 63ULL << 30);
}
