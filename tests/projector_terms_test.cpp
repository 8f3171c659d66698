// The vision projector llama-server loads beside a model (server_terms.hpp's projector
// terms), each figure worked by hand from the projector's tensors or a recorded log.

#include <algorithm>
#include <string>
#include <vector>

#include "canitrun/launch_command.hpp"
#include "canitrun/plan_settings.hpp"
#include "canitrun/server_terms.hpp"
#include "catch.hpp"
#include "server_terms_support.hpp"
#include "test_support.hpp"

using namespace canitrun;
using canitrun::test::at_context;
using canitrun::test::plan_of;
using canitrun::test::term;

// Gemma 3 27B's vision projector (data: run.projector, basis "tensors"): SigLIP's tensors as the
// converter writes them. F32: patch embedding 1152 x 3 x 14 x 14 x 4 B = 2,709,504 and its bias
// 4,608; 4,096 positions x 1152 x 4 B = 18,874,368; per layer the biases and norms (q, k, v, o
// biases 4 x 1152; two layer norms 4 x 1152; fc1 bias 4304; fc2 bias 1152 = 14,672 x 4 B =
// 58,688) x 27 = 1,584,576; post-norm 2 x 1152 x 4 = 9,216; soft-embedding norm 4,608: 23,186,880
// B. F16: per layer 4 x 1152^2 + 2 x 1152 x 4304 = 15,224,832 x 2 B = 30,449,664, x 27 =
// 822,140,928; the projection 1152 x 5376 x 2 B = 12,386,304. Total 857,714,112 B, on GPU 0
// (clip_ctx takes the first GPU backend), at load; its compute buffer is in no recorded log and
// is not counted. Without it (--no-mmproj) GPU 0 holds exactly that less; the line says so.
TEST_CASE("server terms: Gemma 3 27B's projector on an RTX 4090, with and without") {
    const Placement with = plan_of("gemma-3-27b", "Q4_K_M", {"rtx-4090"}, at_context(8192));
    const ResidentTerm projector = term(with.gpus[0], "projector");
    CHECK(projector.load == 857'714'112ULL);
    CHECK(projector.most == 857'714'112ULL);
    CHECK(term(with.gpus[0], "projector_compute").most == 0);
    CHECK(term(with.ram, "projector").most == 0);

    PlanSettings text_only = at_context(8192);
    text_only.server.vision = false;
    const Placement without = plan_of("gemma-3-27b", "Q4_K_M", {"rtx-4090"}, text_only);
    CHECK(term(without.gpus[0], "projector").most == 0);
    CHECK(with.gpus[0].total() - without.gpus[0].total() == 857'714'112ULL);
    CHECK(with.ram.total() == without.ram.total());

    const LaunchTarget target{&test::model("gemma-3-27b"), &test::quant("Q4_K_M"), {}};
    const auto has = [](const std::vector<std::string>& args, const std::string& a) {
        return std::find(args.begin(), args.end(), a) != args.end();
    };
    CHECK_FALSE(has(llama_server_args(target, at_context(8192), nullptr, &with), "--no-mmproj"));
    CHECK(has(llama_server_args(target, text_only, nullptr, &without), "--no-mmproj"));

    // --no-mmproj-offload: the same bytes in RAM, none on the GPU.
    PlanSettings on_cpu = at_context(8192);
    on_cpu.server.mmproj_offload = false;
    const Placement cpu = plan_of("gemma-3-27b", "Q4_K_M", {"rtx-4090"}, on_cpu);
    CHECK(term(cpu.gpus[0], "projector").most == 0);
    CHECK(term(cpu.ram, "projector").load == 857'714'112ULL);
    CHECK(cpu.ram.total() - without.ram.total() == 857'714'112ULL);
    CHECK(has(llama_server_args(target, on_cpu, nullptr, &cpu), "--no-mmproj-offload"));
}

// Qwen2.5-VL 7B's projector (basis params_f16): the vision tower's 676,034,560 parameters x 2 B
// = 1,352,069,120 B, and clip's compute buffer from a recorded log (704.79 MiB on ROCm0,
// rocm-007: 704.79 x 1,048,576 = 739,025,879 B): both on the first GPU, the CPU's beside it not
// recorded. On two GPUs the projector stays on the first.
TEST_CASE("server terms: a projector with a recorded compute buffer, on the first of two GPUs") {
    const Placement p =
        plan_of("qwen2.5-vl-7b", "Q4_K_M", {"rtx-3090", "rtx-3090"}, at_context(8192));
    CHECK(term(p.gpus[0], "projector").most == 1'352'069'120ULL);
    CHECK(term(p.gpus[0], "projector_compute").most == 739'025'879ULL);
    CHECK(term(p.gpus[1], "projector").most == 0);
    CHECK(term(p.ram, "projector_host_compute").most == 0);
}

// A model whose data has no projector (text only, or its size not known) has none, and a line
// that loads a file by -m fetches none: Llama 3.1 8B, and Qwen 3.5 27B (an mmproj the data does
// not size: not counted).
TEST_CASE("server terms: no projector where the data has none") {
    for (const char* id : {"llama-3.1-8b", "qwen3.5-27b"}) {
        const Placement p = plan_of(id, "Q4_K_M", {"rtx-4090"}, at_context(8192));
        CHECK(term(p.gpus[0], "projector").most == 0);
        CHECK(term(p.ram, "projector").most == 0);
    }
}
