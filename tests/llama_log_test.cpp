// llama.cpp logs: the three real logs in tests/fixtures/logs/ (llama.cpp 5b4ebc5 loading
// full-size GGUF files on its CPU backend), a truncated one, lines in another version's
// spelling, and text that is no log at all. Expected figures are the logs' own lines.

#include <fstream>
#include <map>
#include <sstream>

#include "canitrun/llama_log.hpp"
#include "canitrun/verify.hpp"
#include "canitrun/verify_devices.hpp"
#include "catch.hpp"
#include "run_binary.hpp"
#include "test_support.hpp"

using namespace canitrun;

using canitrun::test::mib100;

namespace {

std::string read_log(const std::string& name) {
    return canitrun::test::read_file(std::string(CANITRUN_FIXTURES) + "/logs/" + name);
}

const VerifyRow* row(const VerifyContext& c, const std::string& term) {
    for (const auto& r : c.rows) {
        if (r.term == term) return &r;
    }
    return nullptr;
}

// The per-device check of a published one-context log, read as `quant`.
DeviceCheck devices_of(const std::string& name, const std::string& quant) {
    const auto log = parse_llama_log(read_log(name));
    REQUIRE(log);
    const auto report = verify_llama_log(*log, test::quant(quant));
    REQUIRE(report);
    REQUIRE(report->contexts.size() == 1);
    const auto& d = report->contexts[0].devices;
    REQUIRE(d);
    return *d;
}

VerifyDeviceRow device_row(const std::string& name, const std::string& device,
                           const std::string& term, const std::string& quant = "Q8_0") {
    for (const auto& r : devices_of(name, quant).rows) {
        if (r.device == device && r.term == term) return r;
    }
    FAIL("no " + device + " " + term + " row in " + name);
    return VerifyDeviceRow{};
}

}  // namespace

TEST_CASE("llama log: MiB figures convert to bytes") {
    CHECK(mib_to_bytes("1024.00") == 1073741824ULL);
    // 4685.30 x 1048576 = 4912893132.8; the 8B file's 4,912,898,304 tensor bytes print so.
    CHECK(mib_to_bytes("4685.30") == 4912893133ULL);
    CHECK(mib_to_bytes("62.81") == 65861059ULL);  // 62.81 x 1048576 = 65861058.56
    CHECK(mib_to_bytes("0.49") == 513802ULL);
}

TEST_CASE("llama log: the llama 3.1 8B log") {
    const auto log = parse_llama_log(read_log("llama-3.1-8b-Q4_K_M-cpu.log"));
    REQUIRE(log);
    CHECK(log->arch() == "llama");
    CHECK(log->file_type() == "Q4_K - Medium");
    CHECK(log->params_billions() == Approx(8.03));
    CHECK(log->metadata.at("llama.block_count").value == "32");
    REQUIRE(log->model_buffers.size() == 1);
    CHECK(log->model_buffers[0].device == "CPU_Mapped");
    CHECK(log->model_buffers[0].bytes == mib100(468530));
    REQUIRE(log->contexts.size() == 2);
    const auto& c = log->contexts[0];
    CHECK(c.n_ctx == 8192);
    CHECK(c.n_ubatch == 512);
    CHECK(c.n_batch == 2048);
    CHECK(c.n_seq_max == 1);
    CHECK(c.type_k == "f16");
    CHECK(c.type_v == "f16");
    REQUIRE(c.kv.size() == 1);
    CHECK(c.kv[0].bytes == 1024ULL << 20);
    CHECK(c.output[0].bytes == mib100(49));
    CHECK(c.compute[0].bytes == mib100(26650));
    CHECK(log->contexts[1].n_ctx == 32768);
    CHECK(log->contexts[1].kv[0].bytes == 4096ULL << 20);
}

TEST_CASE("llama log: verify reports every term of the three logs") {
    struct Case {
        const char* file;
        std::uint64_t contexts;
        bool recurrent;
    };
    for (const Case& k : {Case{"llama-3.1-8b-Q4_K_M-cpu.log", 2, false},
                          Case{"gemma-3-27b-Q4_K_M-cpu.log", 2, false},
                          Case{"qwen3.5-35b-a3b-Q4_K_M-cpu.log", 2, true}}) {
        INFO(k.file);
        const auto log = parse_llama_log(read_log(k.file));
        REQUIRE(log);
        const auto report = verify_llama_log(*log, std::nullopt);
        REQUIRE(report);
        REQUIRE(report->contexts.size() == k.contexts);
        for (const auto& c : report->contexts) {
            for (const char* term : {"weights", "kv_cache", "output", "compute"}) {
                INFO(term);
                REQUIRE(row(c, term) != nullptr);
                CHECK(row(c, term)->actual.has_value());
            }
            // KV cache estimated from the log's own metadata equals the KV buffer (two
            // decimals of MiB).
            const VerifyRow* kv = row(c, "kv_cache");
            REQUIRE(kv->estimate);
            CHECK(*kv->estimate / 10486 == *kv->actual / 10486);
            CHECK_FALSE(row(c, "compute")->estimate.has_value());  // no engine profile yet
            CHECK((row(c, "recurrent_state") != nullptr) == k.recurrent);
        }
    }
    // Gemma 3 at 8192: 10 global layers x 8192 cells + 52 sliding layers x 1536 cells, each
    // 2 x 16 x 128 x 2 bytes: 640 + 624 MiB, the two KV buffer lines.
    const auto gemma = parse_llama_log(read_log("gemma-3-27b-Q4_K_M-cpu.log"));
    const auto report = verify_llama_log(*gemma, std::nullopt);
    REQUIRE(report);
    CHECK(row(report->contexts[0], "kv_cache")->estimate == (640ULL + 624) << 20);
    CHECK(row(report->contexts[0], "kv_cache")->actual == (640ULL + 624) << 20);
}

TEST_CASE("llama log: a truncated log reports what it holds") {
    const std::string full = read_log("qwen3.5-35b-a3b-Q4_K_M-cpu.log");
    // Cut in the middle of the tensor list: metadata and print_info only, no buffers.
    const auto cut = full.find("create_tensor: loading tensor blk.3.");
    REQUIRE(cut != std::string::npos);
    const auto log = parse_llama_log(full.substr(0, cut + 10));
    REQUIRE(log);
    CHECK(log->contexts.empty());
    CHECK(log->model_buffers.empty());
    const auto report = verify_llama_log(*log, std::nullopt);
    REQUIRE(report);
    CHECK_FALSE(report->notes.empty());
    // Cut anywhere: never a crash.
    for (std::size_t n = 0; n < full.size(); n += 4999) {
        const auto r = parse_llama_log(full.substr(0, n));
        if (r) CHECK(verify_llama_log(*r, std::nullopt).has_value());
    }
}

TEST_CASE("llama log: another version's spelling") {
    const std::string old_log =
        "print_info: arch             = llama\n"
        "print_info: n_layer          = 32\n"
        "print_info: n_embd           = 4096\n"
        "print_info: n_head           = 32\n"
        "print_info: n_head_kv        = 8\n"
        "print_info: n_embd_head_k    = 128\n"
        "print_info: n_embd_head_v    = 128\n"
        "load_tensors:        CUDA0 model buffer size =  4403.50 MiB\n"
        "load_tensors:   CPU_Mapped model buffer size =   281.81 MiB\n"
        "llama_new_context_with_model: n_ctx      = 4096\n"
        "llama_kv_cache_unified:      CUDA0 KV buffer size =   512.00 MiB\n"
        "llama_new_context_with_model:      CUDA0 compute buffer size =   296.00 MiB\n";
    const auto log = parse_llama_log(old_log);
    REQUIRE(log);
    REQUIRE(log->model_buffers.size() == 2);
    REQUIRE(log->contexts.size() == 1);
    CHECK(log->contexts[0].kv[0].bytes == 512ULL << 20);
    CHECK(log->contexts[0].compute[0].device == "CUDA0");
    const auto report = verify_llama_log(*log, std::nullopt);
    REQUIRE(report);
    // From print_info alone: 32 layers x 4096 x 8 KV heads x (128 + 128) x 2 bytes = 512 MiB.
    CHECK(row(report->contexts[0], "kv_cache")->estimate == 512ULL << 20);
    const VerifyRow* w = row(report->contexts[0], "weights");
    REQUIRE(w);
    CHECK(w->actual == mib100(440350) + mib100(28181));
}

TEST_CASE("llama log: text that is no log is an error") {
    const auto r = parse_llama_log("hello\nworld\n");
    REQUIRE_FALSE(r);
    CHECK(r.error().message.find("llama.cpp log") != std::string::npos);
    CHECK_FALSE(parse_llama_log(""));
}

TEST_CASE("llama log: file types name database quantizations") {
    CHECK(quant_id_from_file_type("Q4_K - Medium") == "Q4_K_M");
    CHECK(quant_id_from_file_type("Q5_K - Small") == "Q5_K_S");
    CHECK(quant_id_from_file_type("Q8_0") == "Q8_0");
    CHECK(quant_id_from_file_type("BF16") == "BF16");
}

// One line of every shape the parser reads (log_lines.cpp matches them by hand), values by eye.
TEST_CASE("llama_log: every line shape, matched without regex") {
    const std::string text =
        "llama_model_loader: loaded meta data with 17 key-value pairs and 292 tensors from x\n"
        "llama_model_loader: - kv   0:                       general.architecture str              "
        "= llama\n"
        "print_info: n_layer          = 32\n"
        "load_tensors:        CUDA0 model buffer size =  4403.50 MiB\n"
        "llama_context: n_ctx         = 4096\n"
        "llama_context: n_ctx_seq     = 4096\n"
        "llama_context:  CUDA_Host  output buffer size =     0.49 MiB\n"
        "llama_kv_cache:      CUDA0 KV buffer size =   512.00 MiB\n"
        "llama_kv_cache: size =  512.00 MiB (  4096 cells,  32 layers,  1/1 seqs), K (q8_0):  "
        "256.00 MiB, V (f16):  256.00 MiB\n"
        "llama_memory_recurrent:  CUDA0 RS buffer size =    16.00 MiB\n"
        "llama_context:      CUDA0 compute buffer size =   296.00 MiB\n";
    auto log = canitrun::parse_llama_log(text);
    REQUIRE(log);
    CHECK(log->tensor_count == 292U);
    CHECK(log->metadata.at("general.architecture").type == "str");
    CHECK(log->metadata.at("general.architecture").value == "llama");
    CHECK(log->print_info.at("n_layer") == "32");
    REQUIRE(log->model_buffers.size() == 1);
    CHECK(log->model_buffers[0].device == "CUDA0");
    CHECK(log->model_buffers[0].bytes == 4403ULL * 1048576 + 1048576 / 2);
    REQUIRE(log->contexts.size() == 1);
    const auto& c = log->contexts[0];
    CHECK(c.n_ctx == 4096);
    CHECK(c.n_ctx_seq == 4096);
    REQUIRE(c.output.size() == 1);
    CHECK(c.output[0].device == "CUDA_Host");
    CHECK(c.kv[0].bytes == 512ULL * 1048576);
    CHECK(c.type_k == "q8_0");
    CHECK(c.type_v == "f16");
    CHECK(c.recurrent[0].bytes == 16ULL * 1048576);
    CHECK(c.compute[0].bytes == 296ULL * 1048576);
}

// Found by fuzz_llama_log (UBSan: a null LayerGroup reference): a log whose metadata names olmo2
// but describes no full-attention layer. The tensor layout now lays out what the header gives.
TEST_CASE("llama log: an olmo2 log without full-attention layers is read, not dereferenced") {
    std::ifstream in(CANITRUN_FIXTURES "/logs/fuzz-olmo2-no-full-attention.log", std::ios::binary);
    const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    REQUIRE_FALSE(text.empty());
    const auto log = parse_llama_log(text);
    REQUIRE(log);
    CHECK(log->arch() == "olmo2");
    (void)verify_llama_log(*log, std::nullopt);
}

// Found by fuzz_llama_log (UBSan: division by zero in the granitehybrid layout): a log whose
// Mamba layers have 0 groups. The layout refuses it as bad input instead of dividing by it.
TEST_CASE("llama log: a granitehybrid log with 0 SSM groups is refused, not divided by") {
    std::ifstream in(CANITRUN_FIXTURES "/logs/fuzz-granitehybrid-zero-ssm-groups.log",
                     std::ios::binary);
    const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    REQUIRE_FALSE(text.empty());
    const auto log = parse_llama_log(text);
    REQUIRE(log);
    CHECK(log->arch() == "granitehybrid");
    (void)verify_llama_log(*log, std::nullopt);
}

// Lines as published logs print them: a prefix before each llama.cpp tag (journald, time
// stamps), 2024's llm_load_* spellings, "KV self size  =" with two spaces, flash_attn = 0.
TEST_CASE("llama log: prefixes, 2024's spellings and every flash attention value") {
    const std::string text =
        "Dec 01 10:00:00 box ollama[812]: llm_load_print_meta: model ftype      = Q4_K - Medium\n"
        "0.00.454.055 I llm_load_print_meta: model size       = 4.07 GiB (4.83 BPW)\n"
        "[t] llm_load_tensors:      CUDA0 buffer size =  4095.05 MiB\n"
        "[t] llm_load_tensors: offloaded 33/33 layers to GPU\n"
        "llama_new_context_with_model: n_ctx      = 4096\n"
        "llama_new_context_with_model: flash_attn = 0\n"
        "llama_kv_cache_init:      CUDA0 KV buffer size =   272.00 MiB\n"
        "llama_new_context_with_model: KV self size  =  272.00 MiB, K (q8_0):  136.00 MiB, "
        "V (q8_0):  136.00 MiB\n"
        "  Device 0: NVIDIA GeForce RTX 3090, compute capability 8.6, VMM: yes\n"
        "llama_model_load_from_file_impl: using device CUDA0 (NVIDIA GeForce RTX 3090) - 23041 "
        "MiB free\n";
    const auto log = parse_llama_log(text);
    REQUIRE(log);
    CHECK(log->file_type() == "Q4_K - Medium");
    // 4.07 GiB = 4.07 x 2^30 = 4,370,129,223.68 bytes, rounded.
    CHECK(log->file_size() == 4370129224ULL);
    REQUIRE(log->model_buffers.size() == 1);
    CHECK(log->model_buffers[0].device == "CUDA0");
    CHECK(log->gpu_layers == 33U);
    CHECK(log->all_layers == 33U);
    REQUIRE(log->contexts.size() == 1);
    CHECK(log->contexts[0].type_k == "q8_0");
    CHECK(log_flash_attn(log->contexts[0].flash_attn) == FlashAttn::off);
    CHECK(log_flash_attn("1") == FlashAttn::on);
    CHECK(log_flash_attn("enabled") == FlashAttn::on);
    CHECK(log_flash_attn("auto") == FlashAttn::automatic);
    REQUIRE(log->devices.size() == 1);
    CHECK(log->devices[0].name == "NVIDIA GeForce RTX 3090");
    CHECK(log->devices[0].free == 23041ULL << 20);
}

// llama_context's parameter lines as 0ad4a86 prints them (llama-context.cpp lines 318-319):
// llama-server with 4 slots caps the outputs at 4 (server_output_limits), and verify plans the
// log's context with that cap; a log without the line (builds before PR #23861) reserves
// every token (0).
TEST_CASE("llama log: n_outputs_max is read, and verify plans the context with it") {
    const std::string text =
        "llama_context: n_seq_max     = 4\n"
        "llama_context: n_ctx         = 8192\n"
        "llama_context: n_outputs_max         = 4\n"
        "llama_context: n_outputs_max_per_seq = 1\n"
        "llama_kv_cache:        CPU KV buffer size =  1024.00 MiB\n";
    const auto log = parse_llama_log(text);
    REQUIRE(log);
    REQUIRE(log->contexts.size() == 1);
    CHECK(log->contexts[0].n_outputs_max == 4);
    CHECK(options_from_log(log->contexts[0], Backend::cuda).outputs == 4);
    LlamaLogContext older;
    older.n_ctx = 8192;
    CHECK(options_from_log(older, Backend::cuda).outputs == 0);
}

// A published two-GPU run (validation/llama-logs/cudax-006): Qwen3-30B-A3B Q4_K_M with every
// layer's experts in RAM (-ot ".ffn_.*_exps.=CPU", read from its command line) over an RTX
// 4090 with 9862 MiB free and an RTX 5090 with 31518 MiB free, 16384 cells, f16 KV.
TEST_CASE("verify per device: two GPUs split by free memory, experts in RAM") {
    const auto log =
        parse_llama_log(read_log("cudax-006-qwen3-30b-a3b-q4km-4090-5090-exps-cpu.log"));
    REQUIRE(log);
    const auto report = verify_llama_log(*log, test::quant("Q4_K_M"));
    REQUIRE(report);
    REQUIRE(report->contexts.size() == 1);
    const auto& d = report->contexts[0].devices;
    REQUIRE(d);
    CHECK(d->gpus == std::vector<std::string>{"CUDA0", "CUDA1"});
    CHECK(d->host_expert_layers == 48);
    const auto find = [&](const std::string& device, const std::string& term) {
        for (const auto& r : d->rows) {
            if (r.device == device && r.term == term) return r;
        }
        FAIL("no row " + device + " " + term);
        return VerifyDeviceRow{};
    };
    // 49 units (48 layers + the output head) by free memory: unit i goes to CUDA0 while
    // i / 49 < 9862 / 41380, so units 0..11 (11.68): 12 layers. A layer's f16 cache: 4 KV heads
    // x 128 x (K + V) x 2 bytes x 16384 cells = 32 MiB, so 384 MiB on CUDA0, 36 x 32 on CUDA1.
    CHECK(find("CUDA0", "kv_cache").estimate == 384ULL << 20);
    CHECK(find("CUDA1", "kv_cache").estimate == 1152ULL << 20);
    CHECK(find("CUDA0", "kv_cache").actual == 384ULL << 20);
    // The host's inputs beside the GPUs: 4 bytes x 512 x (16384 mask cells + 2 x 2048).
    CHECK(find("host", "compute").estimate == 512ULL * 4 * (16384 + 2 * 2048));
    CHECK(find("host", "compute").actual == mib100(3601));
    // Op offload: the first GPU copies in the largest expert tensor kept in RAM, a layer's
    // ffn_down_exps at Q6_K (Q4_K_M's use_more_bits layers): 128 experts x 768 x 2048 values
    // at 210 bytes per 256 = 157.5 MiB, beside one expert batch (512 x 4 x (2048 + 8 x (768 +
    // 2 x 2048)) = 80 MiB) and the f16 masks (512 x 16384 x 2 = 16 MiB): 253.5 MiB, well under
    // the graph's own buffer, which it reuses (placement.cpp). So both GPUs' buffers are the
    // same, as the log's are.
    CHECK(*find("CUDA0", "compute").estimate == *find("CUDA1", "compute").estimate);
    CHECK(*find("CUDA0", "compute").actual == *find("CUDA1", "compute").actual);
}

// The same run as if started with --no-op-offload (its "# settings:" line given the flag):
// verify plans it so. The first GPU no longer copies an expert in (which it did within its
// graph's buffer, above, so its compute stays), and the CPU runs the prompt's expert FFNs:
// the host's buffer grows by one expert batch of the log's build (b5622, before ggml's GLU
// ops: silu, the product and the weighting in place), 512 x 4 x (2048 + 8 x (768 + 2048)) =
// 50,331,648 bytes (the pinned graph's 8 x (768 + 2 x 2048): 83,886,080). A note says the host
// figure is derived, not checked.
TEST_CASE("verify per device: a run with --no-op-offload is planned without the copy") {
    std::string text = read_log("cudax-006-qwen3-30b-a3b-q4km-4090-5090-exps-cpu.log");
    const std::string flag = "-ot \".ffn_.*_exps.=CPU\"";
    const auto at = text.find(flag);
    REQUIRE(at != std::string::npos);
    std::string with_flag = text;
    with_flag.insert(at + flag.size(), " --no-op-offload");
    const auto devices_of = [](const std::string& t) {
        const auto log = parse_llama_log(t);
        REQUIRE(log);
        const auto report = verify_llama_log(*log, test::quant("Q4_K_M"));
        REQUIRE(report);
        REQUIRE(report->contexts.size() == 1);
        REQUIRE(report->contexts[0].devices);
        return *report->contexts[0].devices;
    };
    const auto on = devices_of(text);
    const auto off = devices_of(with_flag);
    const auto estimate = [](const DeviceCheck& d, const std::string& device) {
        for (const auto& r : d.rows) {
            if (r.device == device && r.term == "compute") return r.estimate.value_or(0);
        }
        FAIL("no compute row on " + device);
        return Bytes{0};
    };
    CHECK(estimate(off, "host") - estimate(on, "host") == 50331648ULL);
    CHECK(estimate(off, "CUDA0") == estimate(on, "CUDA0"));
    bool noted = false;
    for (const auto& n : off.notes) noted = noted || n.find("--no-op-offload") != std::string::npos;
    CHECK(noted);
}

// Published runs with every layer and the output head in RAM (validation/llama-logs/cudab-017,
// -018: llama-server b5285, 0/37 layers offloaded on a GTX 1660 Ti, 4096 cells, ubatch 512, no
// flash attention). Op offload runs the head's product of a prompt batch on CUDA0, which copies
// the head in beside the logits and the normed rows (placement.cpp). Qwen3-8B Q4_K_M keeps its
// own head at Q6_K: 151936 x 4096 values x 210 / 256 bytes = 510,504,960; the logits 512 x
// 151936 x 4 = 311,164,928; the normed rows 512 x 4096 x 4 = 8,388,608: 830,058,496 bytes
// (791.60 MiB; the log: 791.61). Qwen3-4B ties its head to token_embd, Q6_K in a Q6_K file:
// 151936 x 2560 x 210 / 256 = 319,065,600, + 311,164,928 + 512 x 2560 x 4 = 635,473,408
// (606.03 MiB; the log: 606.03).
TEST_CASE("verify per device: the output head in RAM is copied to the first GPU") {
    const auto q8b =
        device_row("cudab-017-qwen3-8b-q4km-gtx1660ti-ngl0.log", "CUDA0", "compute", "Q4_K_M");
    CHECK(q8b.estimate == 510504960ULL + 311164928ULL + 8388608ULL);
    CHECK(q8b.actual == mib100(79161));
    const auto q4b =
        device_row("cudab-018-qwen3-4b-q6k-gtx1660ti-ngl0.log", "CUDA0", "compute", "Q6_K");
    CHECK(q4b.estimate == 319065600ULL + 311164928ULL + 5242880ULL);
    CHECK(q4b.actual == mib100(60603));
}

// A published run from a build with BLAS (validation/llama-logs/cudab-022: b5269, Qwen3-235B-A22B
// Q6_K, -ngl 0, two RTX 3090s; a "CPU" compute buffer beside CUDA_Host's). BLAS multiplies the
// host's dense weights in RAM, so CUDA0 copies in only a routed expert (placement.cpp's
// host_work): 128 x 1536 x 4096 values x 210 / 256 bytes = 660,602,880, beside one expert batch
// of that build's graph, before ggml's GLU ops (build_moe_ffn of May 2025: silu, the product
// and the weighting in place), 512 x 4 x (4096 + 8 x (1536 + 4096)) = 100,663,296, and no masks
// (the attention runs on the CPU): 726.00 MiB against the log's 742.00 (-2.2 %; the pinned
// graph's 4096 + 8 x (1536 + 2 x 4096) read 790.00, +6.5 %; the whole graph's rule +31 %).
TEST_CASE("verify per device: a BLAS build copies only the experts to the first GPU") {
    const std::string name = "cudab-022-qwen3-235b-a22b-128k-q6k-2x3090-ngl0.log";
    const auto r = device_row(name, "CUDA0", "compute", "Q6_K");
    CHECK(r.estimate == 660602880ULL + 100663296ULL);
    CHECK(r.actual == mib100(74200));
    bool noted = false;
    for (const auto& n : devices_of(name, "Q6_K").notes) {
        noted = noted || n.find("BLAS") != std::string::npos;
    }
    CHECK(noted);
}

// The same model and build era with the attention on the GPU (validation/llama-logs/cudax-002:
// b5331, -ot exps=CPU, flash attention, 16384 cells, two RTX 3090s): beside the 660,602,880 B
// expert copy and the 100,663,296 B batch of the graph before the GLU ops, GPU 0 keeps the KQ
// masks as the layers read them (f16: 16384 x 512 x 2 B = 16 MiB) and, in a build before llama.cpp
// PR #23764, the f32 masks they are cast from (16384 x 512 x 4 B = 32 MiB), a graph input alive
// from the first split: 774.00 MiB, the log's 774.00 (the pinned graph read 806.00, +4.1 %).
TEST_CASE("verify per device: a build before the GLU ops and the f16 masks, experts in RAM") {
    const std::string name = "cudax-002-qwen3-235b-a22b-128k-q6k-2x3090-ot.log";
    const auto r = device_row(name, "CUDA0", "compute", "Q6_K");
    CHECK(r.estimate == 660602880ULL + 100663296ULL + (16ULL << 20) + (32ULL << 20));
    CHECK(r.actual == 774ULL << 20);
}

// A published Gemma 4 26B-A4B load (validation/llama-logs/cudab-011, llama-server b8836, 262144
// cells, f16 KV) whose metadata line cuts the sliding-window pattern ("[true, true, true, true,
// true, false,..."). print_info lists every layer's n_head_kv and n_embd_k_gqa whole: 2048 =
// 8 heads x n_embd_head_k_swa 256 on the sliding layers, 1024 = 2 x 512 on the global ones, so
// the reader names 25 sliding and 5 global layers. Their caches, by llama-kv-cache-iswa.cpp:
// 5 x 262144 cells x 2 x 512 x (K + V) x 2 bytes = 5120 MiB and 25 x 1536 cells (GGML_PAD(1024
// + 512, 256)) x 8 x 256 x 2 x 2 = 300 MiB: 5420 MiB, the log's two KV buffers together. Read as
// no layer sliding, it was 107520 MiB.
TEST_CASE("llama log: a cut sliding-window pattern is read from print_info's per-layer widths") {
    const auto r = device_row("cudab-011-gemma-4-26b-a4b-udq4kxl-rtxpro6000-256k.log", "CUDA0",
                              "kv_cache", "Q4_K_M");
    CHECK(r.estimate == 5420ULL << 20);
    CHECK(r.actual == 5420ULL << 20);
}

// Which side of -ngl the output head went: llama.cpp before PR #18148 (December 2025) gave the
// GPU the last -ngl layers and the head only past them all, and says so line by line; since,
// the head goes first ("offloading output layer to GPU" before the repeating layers). The
// published ollama run validation/llama-logs/cudab-025 (-ngl 1 of 28 layers, 2025) kept its
// head in RAM, which canitrun's placement cannot say: verify names it, so the corpus leaves the
// log's device rows out rather than compare two placements.
TEST_CASE("llama log: the output head's side of -ngl, and a placement canitrun cannot plan") {
    const auto old = parse_llama_log(
        "llm_load_tensors: offloading 1 repeating layers to GPU\n"
        "llm_load_tensors: offloaded 1/29 layers to GPU\n");
    REQUIRE(old);
    CHECK(old->repeating_layers == 1);
    CHECK_FALSE(old->output_layer_offloaded);
    for (const char* head : {"load_tensors: offloading output layer to GPU\n",
                             "llm_load_tensors: offloading non-repeating layers to GPU\n"}) {
        const auto now = parse_llama_log(std::string(head) +
                                         "load_tensors: offloading 39 repeating layers to GPU\n");
        REQUIRE(now);
        CHECK(now->repeating_layers == 39);
        CHECK(now->output_layer_offloaded);
    }
    const auto log = parse_llama_log(read_log("cudab-025-qwen2.5-7b-q4km-a100-ollama-ngl1.log"));
    REQUIRE(log);
    const auto report = verify_llama_log(*log, test::quant("Q4_K_M"));
    REQUIRE(report);
    REQUIRE(report->contexts.size() == 1);
    const auto& d = report->contexts[0].devices;
    REQUIRE(d);
    bool named = false;
    for (const auto& n : d->notes)
        named = named || n.find("output head stayed in RAM") != std::string::npos;
    CHECK(named);
}

// A GPU that holds the output head ends its graph with the logits and the normed rows they are
// the product of, in f32, and nothing else (placement.cpp). The published gpt-oss-20b run on a
// T4 (validation/llama-logs/cudab-003, b7772, 80128 cells, ubatch 512, flash attention): 512 x
// 4 bytes x (201088 vocab + 2880 n_embd) = 417,726,464 bytes = 398.375 MiB; the log: 398.38.
// Its layers' phase (the f16 masks over 80128 cells and the FFN rows, with the masks' f32 copy)
// is smaller, and the CPU backend's second activation row is not there.
TEST_CASE("verify per device: a GPU's output phase is the logits and the normed rows") {
    const auto r = device_row("cudab-003-gpt-oss-20b-f16-t4-80k.log", "CUDA0", "compute");
    CHECK(r.estimate == 512ULL * 4 * (201088 + 2880));
    CHECK(r.actual == mib100(39838));
}

// The corpus's header and elision lines start "# " and may quote a buffer line; the vision
// projector's buffers (mtmd's clip.cpp, "alloc_compute_meta: MTL0 compute buffer size =
// 101.27 MiB") are its own context's. Neither is the text model's: the published Gemma 4 E4B
// run on an M4 (validation/llama-logs/metal-001) quotes the projector's line in its header
// note and prints it after the model's, yet MTL0's compute buffer is its sched_reserve line
// alone, 517.50 MiB (it read 618.77, both added), and the report names the three projector
// lines it left (its MTL0 and CPU compute buffers and its graph splits).
TEST_CASE("llama log: header notes and the vision projector's buffers are not the model's") {
    const auto r = device_row("metal-001-gemma-4-e4b-q8_0-m4.log", "MTL0", "compute");
    CHECK(r.actual == mib100(51750));
    const auto log = parse_llama_log(read_log("metal-001-gemma-4-e4b-q8_0-m4.log"));
    REQUIRE(log);
    CHECK(log->projector_lines == 3);
    // Read for themselves, as the projector's (verify's server rows): its tensors, "model size:
    // 945.51 MiB", and clip's compute buffers, MTL0 101.27 MiB and CPU 6.77 MiB.
    CHECK(log->projector_model == mib100(94551));
    CHECK(log->projector_compute == mib100(10127));
    CHECK(log->projector_host_compute == mib100(677));
}

// A published four-GPU run (validation/llama-logs/cudab-012, 4x RTX A6000, Qwen3.5-35B-A3B
// Q8_0) whose buffers are all on CUDA2 and CUDA3: the run kept its layers off CUDA0 and CUDA1
// (by a --tensor-split or --device the log does not state), so verify splits them over the two
// and says so; read by free memory over four GPUs, CUDA2's weights read -52 %. A command line
// with -ts gives the split itself: "-ts 0,0,3,1" puts unit i (40 layers and the head, 41 units)
// on CUDA2 while i / 41 < 3 / 4, units 0 to 30, and the other 10 on CUDA3.
TEST_CASE("verify per device: GPUs the log shows no buffer on, and the command line's -ts") {
    const auto weights = [](const std::string& text) {
        const auto log = parse_llama_log(text);
        REQUIRE(log);
        const auto report = verify_llama_log(*log, test::quant("Q8_0"));
        REQUIRE(report);
        REQUIRE(report->contexts.size() == 1);
        const auto& d = report->contexts[0].devices;
        REQUIRE(d);
        std::map<std::string, Bytes> out;
        for (const auto& r : d->rows) {
            if (r.term == "weights" && r.estimate) out[r.device] = *r.estimate;
        }
        bool named = false;
        for (const auto& n : d->notes)
            named = named || n.find("no buffer on CUDA0, CUDA1") != std::string::npos;
        out["named"] = named ? 1 : 0;
        return out;
    };
    const std::string text = read_log("cudab-012-qwen3.5-35b-a3b-q8_0-4xa6000-np4auto.log");
    const auto by_buffers = weights(text);
    CHECK(by_buffers.at("CUDA0") == 0);
    CHECK(by_buffers.at("CUDA1") == 0);
    CHECK(by_buffers.at("named") == 1);
    const auto by_ts = weights(text + "# settings: llama-server -ts 0,0,3,1\n");
    CHECK(by_ts.at("CUDA0") == 0);
    CHECK(by_ts.at("named") == 0);
    // 31 of the 40 equal layers against 9 and the head.
    CHECK(by_ts.at("CUDA2") > 3 * by_ts.at("CUDA3"));
}

// Unsloth's dynamic files print their base file type ("Q4_K - Medium"); only the loaded file's
// name says which recipe made them (validation/llama-logs/rocm-001-*.log loads
// /home/hoge-heer/models/Qwen3.6-35B-A3B-UD-Q4_K_M.gguf).
TEST_CASE("llama.cpp log: the loaded file's name picks a published recipe over its file type") {
    const auto log = parse_llama_log(
        "llama_model_loader: loaded meta data with 53 key-value pairs and 733 tensors from "
        "/home/hoge-heer/models/Qwen3.6-35B-A3B-UD-Q4_K_M.gguf (version GGUF V3 (latest))\n"
        "print_info: file type   = Q4_K - Medium\n");
    REQUIRE(log);
    CHECK(log->tensor_count == 733U);
    CHECK(log->file_name == "Qwen3.6-35B-A3B-UD-Q4_K_M.gguf");
    const Database& db = test::database();
    const Quant* ud = recipe_of_file_name(db, log->file_name, log->file_type());
    REQUIRE(ud != nullptr);
    CHECK(ud->id == "UD-Q4_K_M");
    // the name's level over another base, or no level: the file type decides
    CHECK(recipe_of_file_name(db, "Qwen3.6-35B-A3B-UD-Q4_K_M.gguf", "Q8_0") == nullptr);
    CHECK(recipe_of_file_name(db, "Qwen3.6-35B-A3B-Q4_K_M.gguf", "Q4_K - Medium") == nullptr);
    CHECK(recipe_of_file_name(db, "x-UD-Q9_K_XL.gguf", "Q4_K - Medium") == nullptr);
}
