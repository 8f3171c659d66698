// cuda_probe LABEL MODEL.gguf CONFIG...: the CUDA counterpart of llama_probe, run by
// tools/accuracy/cuda.sh on a machine with an NVIDIA GPU. Loads a GGUF file with llama.cpp built
// with GGML_CUDA (all layers on the first GPU, n_gpu_layers 999, default load mode: mmap), for
// real (no no_alloc: the weights are the file's zeros), and for each CONFIG
// "n_ctx:n_ubatch:n_seq:fa:type_k:type_v[:fill]" creates a context, decodes one ubatch of
// n_ubatch positions (with ":fill", ubatches until the context is full) and 3 single positions
// (CUDA graphs), then frees it. Prints one JSON line for the model and two per CONFIG, flushed as
// it goes (the context's line before the decodes, a "decode" line after them), with:
//   - llama.cpp's buffers, in bytes: llama_get_memory_breakdown() per buffer type (model,
//     context = KV + recurrent state, compute), and the sizes llama.cpp logs per buffer name
//     (model / KV / RS / output / compute buffer size lines, MiB x 2^20 as logged);
//   - the GPU's used memory (cudaMemGetInfo total - free, through ggml_backend_dev_memory) at each
//     stage, and nvidia-smi's memory.used (MiB) at a few: before this process touches CUDA, once
//     it made its CUDA context, after the load, after each setting's decodes; the compute apps'
//     used_memory with the context and after the first setting's decodes (-1: not asked).
// The files make_gguf writes have no vocabulary (tokenizer "no_vocab"); llama.cpp then adds
// ARCH.vocab_size dummy tokens, and the decodes feed token 1. Without them (no vocab_size key) the
// decodes feed zero input embeddings (llama_batch.embd) instead.
// Only for the accuracy harness: not part of canitrun. Environment: CUDA_PROBE_NO_SMI (skip
// nvidia-smi), CUDA_PROBE_NO_DECODE (contexts only), CUDA_PROBE_LOG (echo llama.cpp's whole log
// to stderr; without it only warnings, errors and the buffer lines), CUDA_PROBE_BACKEND_DIR
// (load ggml backends from that folder: builds with GGML_BACKEND_DL), CUDA_PROBE_LOAD_MODE (none,
// mmap or direct instead of llama.cpp's default, auto = mmap on CUDA; the GPU's buffers are the
// same, the load's speed and the host buffer of token_embd are not), CUDA_PROBE_CPU_DRYRUN (no
// GPU: run on the CPU backend, a check of this program alone).

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "ggml-backend.h"
#include "llama-ext.h"
#include "llama.h"

namespace {

std::string g_log;
const auto g_start = std::chrono::steady_clock::now();

double now_s() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - g_start).count();
}

void on_log(ggml_log_level level, const char* text, void*) {
    g_log += text;
    if (std::getenv("CUDA_PROBE_LOG") ||
        (level == GGML_LOG_LEVEL_WARN || level == GGML_LOG_LEVEL_ERROR)) {
        std::fputs(text, stderr);
    }
}

// Echo the lines of a log that say where the memory went (when the whole log is not echoed).
void echo_buffer_lines(const std::string& log) {
    if (std::getenv("CUDA_PROBE_LOG")) return;
    std::istringstream in(log);
    std::string line;
    static const char* keys[] = {"buffer size",    "kv_cache: size", "recurrent: size", "offloaded",
                                 "load_mode",      "graph splits",   "flash_attn",      "n_ctx_seq",
                                 "ggml_cuda_init", "Device "};
    while (std::getline(in, line)) {
        for (const char* k : keys) {
            if (line.find(k) != std::string::npos) {
                std::fprintf(stderr, "  | %s\n", line.c_str());
                break;
            }
        }
    }
}

long long bytes(double mib) {
    return static_cast<long long>(mib * 1048576.0 + 0.5);
}

// Per buffer name, the sum of "<name> <marker> X MiB" over the log's lines: the name is the last
// word before the marker ("load_tensors:        CUDA0 model buffer size =   4403.49 MiB").
std::map<std::string, long long> named_mib(const std::string& log, const std::string& marker) {
    std::map<std::string, long long> out;
    std::istringstream in(log);
    std::string line;
    while (std::getline(in, line)) {
        const std::size_t m = line.find(marker);
        if (m == std::string::npos) continue;
        std::size_t end = m;
        while (end > 0 && line[end - 1] == ' ') --end;
        std::size_t begin = end;
        while (begin > 0 && line[begin - 1] != ' ' && line[begin - 1] != ':') --begin;
        const std::string name = line.substr(begin, end - begin);
        const std::size_t eq = line.find('=', m);
        if (eq == std::string::npos) continue;
        out[name.empty() ? "?" : name] += bytes(std::atof(line.c_str() + eq + 1));
    }
    return out;
}

// Sum of the numbers after "size = " on the lines holding `marker` (llama_kv_cache: size = ...).
long long sum_size(const std::string& log, const std::string& marker) {
    double total = 0;
    std::istringstream in(log);
    std::string line;
    while (std::getline(in, line)) {
        const std::size_t m = line.find(marker);
        if (m == std::string::npos) continue;
        const std::size_t s = line.find("size = ", m);
        if (s != std::string::npos) total += std::atof(line.c_str() + s + 7);
    }
    return bytes(total);
}

std::string json_map(const std::map<std::string, long long>& m) {
    std::string s = "{";
    for (const auto& [k, v] : m) {
        if (s.size() > 1) s += ",";
        s += "\"" + k + "\":" + std::to_string(v);
    }
    return s + "}";
}

std::string json_breakdown(const llama_context* ctx) {
    std::string s = "{";
    for (const auto& [buft, mb] : llama_get_memory_breakdown(ctx)) {
        if (s.size() > 1) s += ",";
        s += "\"" + std::string(ggml_backend_buft_name(buft)) +
             "\":{\"model\":" + std::to_string(mb.model) +
             ",\"context\":" + std::to_string(mb.context) +
             ",\"compute\":" + std::to_string(mb.compute) + "}";
    }
    return s + "}";
}

// nvidia-smi, MiB: the GPU's memory.used and the sum of the compute apps' used_memory
// (-1: not asked or not available).
struct Smi {
    long long used = -1;
    long long apps = -1;
};

long long read_sum(const char* cmd, bool* any) {
    FILE* p = popen(cmd, "r");
    if (!p) return -1;
    long long total = 0;
    char buf[256];
    *any = false;
    while (std::fgets(buf, sizeof buf, p)) {
        char* end = nullptr;
        const long long v = std::strtoll(buf, &end, 10);
        if (end != buf) {
            total += v;
            *any = true;
        }
    }
    const int rc = pclose(p);
    return rc == 0 ? total : -1;
}

// (two nvidia-smi runs with the apps, one without: each takes a moment, more under gVisor)
Smi smi(bool apps_too = false) {
    Smi s;
    if (std::getenv("CUDA_PROBE_NO_SMI")) return s;
    bool any = false;
    const long long used = read_sum(
        "nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -i 0 2>/dev/null", &any);
    if (any) s.used = used;
    if (!apps_too) return s;
    const long long apps = read_sum(
        "nvidia-smi --query-compute-apps=used_memory --format=csv,noheader,nounits 2>/dev/null",
        &any);
    s.apps = apps < 0 ? -1 : (any ? apps : 0);
    return s;
}

std::string json_smi(const Smi& s) {
    return "{\"used_mib\":" + std::to_string(s.used) + ",\"apps_mib\":" + std::to_string(s.apps) +
           "}";
}

ggml_backend_dev_t g_gpu = nullptr;

// The GPU's used memory in bytes, as cudaMemGetInfo sees it (total - free, every process).
long long gpu_used() {
    size_t free = 0, total = 0;
    ggml_backend_dev_memory(g_gpu, &free, &total);
    return static_cast<long long>(total) - static_cast<long long>(free);
}

long long gpu_total() {
    size_t free = 0, total = 0;
    ggml_backend_dev_memory(g_gpu, &free, &total);
    return static_cast<long long>(total);
}

ggml_type cache_type(const std::string& s) {
    if (s == "q8_0") return GGML_TYPE_Q8_0;
    if (s == "q4_0") return GGML_TYPE_Q4_0;
    if (s == "f32") return GGML_TYPE_F32;
    if (s == "bf16") return GGML_TYPE_BF16;
    return GGML_TYPE_F16;
}

// Decodes n positions of sequence 0 from position pos: token 1, or zero input embeddings when
// the batch has no token array.
bool decode(llama_context* ctx, llama_batch& b, int n, int pos) {
    b.n_tokens = n;
    for (int i = 0; i < n; ++i) {
        if (b.token) b.token[i] = 1;
        b.pos[i] = pos + i;
        b.n_seq_id[i] = 1;
        b.seq_id[i][0] = 0;
        b.logits[i] = i == n - 1;
    }
    const int rc = llama_decode(ctx, b);
    llama_synchronize(ctx);
    if (rc != 0) std::fprintf(stderr, "cuda_probe: llama_decode returned %d\n", rc);
    return rc == 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 4) {
        std::fprintf(
            stderr, "usage: cuda_probe LABEL MODEL.gguf n_ctx:n_ubatch:n_seq:fa:tk:tv[:fill]...\n");
        return 2;
    }
    const std::string label = argv[1];
    const Smi smi_start = smi();  // before this process makes a CUDA context
    llama_log_set(on_log, nullptr);
    // a build with GGML_BACKEND_DL (the prebuilt libraries) loads its backends from a folder
    if (const char* dir = std::getenv("CUDA_PROBE_BACKEND_DIR"))
        ggml_backend_load_all_from_path(dir);
    llama_backend_init();
    for (size_t i = 0; i < ggml_backend_dev_count(); ++i) {
        ggml_backend_dev_t d = ggml_backend_dev_get(i);
        if (ggml_backend_dev_type(d) == GGML_BACKEND_DEVICE_TYPE_GPU) {
            g_gpu = d;
            break;
        }
    }
    // CUDA_PROBE_CPU_DRYRUN: no GPU, a check of this program on the CPU backend (the "GPU"
    // figures are then the host's memory)
    for (size_t i = 0;
         g_gpu == nullptr && std::getenv("CUDA_PROBE_CPU_DRYRUN") && i < ggml_backend_dev_count();
         ++i) {
        ggml_backend_dev_t d = ggml_backend_dev_get(i);
        if (ggml_backend_dev_type(d) == GGML_BACKEND_DEVICE_TYPE_CPU) g_gpu = d;
    }
    if (g_gpu == nullptr) {
        std::printf("{\"label\":\"%s\",\"kind\":\"model\",\"error\":\"no GPU device\"}\n",
                    label.c_str());
        std::fprintf(stderr, "%s", g_log.c_str());
        return 3;
    }
    echo_buffer_lines(g_log);               // ggml_cuda_init's device line (VMM or not)
    const long long used_ctx = gpu_used();  // makes the CUDA context
    const Smi smi_ctx = smi(true);
    std::fprintf(stderr, "[%7.1fs] %s: GPU %s (%s), used %.0f MiB with the CUDA context\n", now_s(),
                 label.c_str(), ggml_backend_dev_name(g_gpu), ggml_backend_dev_description(g_gpu),
                 used_ctx / 1048576.0);

    llama_model_params mp = llama_model_default_params();
    mp.n_gpu_layers = 999;
    // CUDA_PROBE_OT=REGEX: the tensors whose names match stay in RAM (llama-server's
    // `-ot REGEX=CPU`; "exps" is --cpu-moe), the setup where GPU 0's compute buffer differs
    // most from a plan with every weight on the GPU.
    static std::string ot_pattern;
    static llama_model_tensor_buft_override ot[2] = {};
    if (const char* p = std::getenv("CUDA_PROBE_OT")) {
        ot_pattern = p;
        for (size_t i = 0; i < ggml_backend_dev_count(); ++i) {
            ggml_backend_dev_t d = ggml_backend_dev_get(i);
            if (ggml_backend_dev_type(d) == GGML_BACKEND_DEVICE_TYPE_CPU)
                ot[0] = {ot_pattern.c_str(), ggml_backend_dev_buffer_type(d)};
        }
        ot[1] = {nullptr, nullptr};
        if (ot[0].pattern != nullptr) mp.tensor_buft_overrides = ot;
    }
    if (const char* m = std::getenv("CUDA_PROBE_LOAD_MODE")) {
        if (std::strcmp(m, "none") == 0) mp.load_mode = LLAMA_LOAD_MODE_NONE;
        if (std::strcmp(m, "mmap") == 0) mp.load_mode = LLAMA_LOAD_MODE_MMAP;
        if (std::strcmp(m, "direct") == 0) mp.load_mode = LLAMA_LOAD_MODE_DIRECT_IO;
    }
    g_log.clear();
    const double t_load = now_s();
    llama_model* model = llama_model_load_from_file(argv[2], mp);
    const double load_s = now_s() - t_load;
    if (model == nullptr) {
        std::printf("{\"label\":\"%s\",\"kind\":\"model\",\"error\":\"load failed\"}\n",
                    label.c_str());
        std::fprintf(stderr, "%s", g_log.c_str());
        return 1;
    }
    const std::string model_log = g_log;
    echo_buffer_lines(model_log);
    const long long used_model = gpu_used();
    const Smi smi_model = smi();
    std::printf(
        "{\"label\":\"%s\",\"kind\":\"model\",\"gpu\":\"%s\",\"gpu_total\":%lld,"
        "\"n_params\":%lld,\"model_bytes\":%lld,"
        "\"load_s\":%.2f,\"model_buffers\":%s,\"smi_start\":%s,\"smi_ctx\":%s,"
        "\"smi_model\":%s,\"used_ctx\":%lld,\"used_model\":%lld}\n",
        label.c_str(), ggml_backend_dev_description(g_gpu), gpu_total(),
        static_cast<long long>(llama_model_n_params(model)),
        static_cast<long long>(llama_model_size(model)), load_s,
        json_map(named_mib(model_log, "model buffer size =")).c_str(), json_smi(smi_start).c_str(),
        json_smi(smi_ctx).c_str(), json_smi(smi_model).c_str(), used_ctx, used_model);
    std::fflush(stdout);
    std::fprintf(stderr, "[%7.1fs] %s: loaded in %.1f s, used %.0f MiB\n", now_s(), label.c_str(),
                 load_s, used_model / 1048576.0);

    const int n_embd = llama_model_n_embd_inp(model);
    for (int i = 3; i < argc; ++i) {
        unsigned n_ctx = 0, n_ubatch = 0, n_seq = 0;
        char fa[8] = {0}, tk[8] = {0}, tv[8] = {0}, extra[8] = {0};
        const int got = std::sscanf(argv[i], "%u:%u:%u:%7[^:]:%7[^:]:%7[^:]:%7s", &n_ctx, &n_ubatch,
                                    &n_seq, fa, tk, tv, extra);
        if (got != 6 && got != 7) {
            std::fprintf(stderr, "cuda_probe: bad config %s\n", argv[i]);
            return 2;
        }
        const bool fill = got == 7 && std::strcmp(extra, "fill") == 0;
        llama_context_params cp = llama_context_default_params();
        cp.n_ctx = n_ctx;
        cp.n_batch = n_ubatch > 2048 ? n_ubatch : 2048;
        cp.n_ubatch = n_ubatch;
        cp.n_seq_max = n_seq;
        cp.flash_attn_type = std::strcmp(fa, "on") == 0 ? LLAMA_FLASH_ATTN_TYPE_ENABLED
                                                        : LLAMA_FLASH_ATTN_TYPE_DISABLED;
        cp.type_k = cache_type(tk);
        cp.type_v = cache_type(tv);
        cp.swa_full = false;  // llama.cpp's tools (common.h) and node-llama-cpp default
        g_log.clear();
        const long long used_before = gpu_used();
        const double t_ctx = now_s();
        llama_context* ctx = llama_init_from_model(model, cp);
        const double ctx_s = now_s() - t_ctx;
        const std::string log = g_log;
        echo_buffer_lines(log);
        if (ctx == nullptr) {
            std::printf(
                "{\"label\":\"%s\",\"kind\":\"context\",\"config\":\"%s\","
                "\"error\":\"context creation failed\",\"used\":%lld}\n",
                label.c_str(), argv[i], gpu_used());
            std::fflush(stdout);
            continue;
        }
        const long long used_context = gpu_used();
        // the context's line first: a crash while decoding keeps it
        std::printf(
            "{\"label\":\"%s\",\"kind\":\"context\",\"config\":\"%s\",\"n_ctx\":%u,"
            "\"kv_buffers\":%s,\"rs_buffers\":%s,\"output_buffers\":%s,\"compute_buffers\":%s,"
            "\"kv_cache_bytes\":%lld,\"recurrent_state_bytes\":%lld,\"breakdown_context\":%s,"
            "\"ctx_s\":%.2f,\"used_model\":%lld,\"used_before\":%lld,\"used_context\":%lld}\n",
            label.c_str(), argv[i], n_ctx, json_map(named_mib(log, "KV buffer size =")).c_str(),
            json_map(named_mib(log, "RS buffer size =")).c_str(),
            json_map(named_mib(log, "output buffer size =")).c_str(),
            json_map(named_mib(log, "compute buffer size =")).c_str(),
            sum_size(log, "llama_kv_cache: size ="),
            sum_size(log, "llama_memory_recurrent: size ="), json_breakdown(ctx).c_str(), ctx_s,
            used_model, used_before, used_context);
        std::fflush(stdout);
        std::fprintf(stderr, "[%7.1fs] %s %s: context %.0f MiB\n", now_s(), label.c_str(), argv[i],
                     (used_context - used_before) / 1048576.0);
        if (std::getenv("CUDA_PROBE_NO_DECODE")) {
            llama_free(ctx);
            continue;
        }

        // decode: one ubatch (or ubatches up to the end of the context), then 3 single positions
        bool decode_ok = true;
        int n_past = 0;
        const double t_dec = now_s();
        {
            const int n_ctx_real = static_cast<int>(llama_n_ctx(ctx)) / static_cast<int>(n_seq);
            const int chunk = static_cast<int>(n_ubatch);
            const bool tokens = llama_vocab_n_tokens(llama_model_get_vocab(model)) > 1;
            llama_batch b = llama_batch_init(chunk, tokens ? 0 : n_embd, 1);
            if (!tokens) std::fill(b.embd, b.embd + static_cast<std::size_t>(chunk) * n_embd, 0.0f);
            do {
                const int n = std::max(1, std::min(chunk, n_ctx_real - 3 - n_past));
                decode_ok = decode(ctx, b, n, n_past);
                n_past += n;
            } while (decode_ok && fill && n_past + 3 < n_ctx_real);
            for (int k = 0; decode_ok && k < 3 && n_past < n_ctx_real; ++k) {
                decode_ok = decode(ctx, b, 1, n_past);
                ++n_past;
            }
            llama_batch_free(b);
        }
        const double decode_s = now_s() - t_dec;
        const long long used_decode = gpu_used();
        const Smi smi_decode = smi(i == 3);
        const std::string breakdown_decode = json_breakdown(ctx);
        llama_free(ctx);
        const long long used_freed = gpu_used();
        std::printf(
            "{\"label\":\"%s\",\"kind\":\"decode\",\"config\":\"%s\",\"breakdown_decode\":%s,"
            "\"decode_ok\":%s,\"decoded\":%d,\"decode_s\":%.2f,\"used_decode\":%lld,"
            "\"used_freed\":%lld,\"smi_decode\":%s}\n",
            label.c_str(), argv[i], breakdown_decode.c_str(), decode_ok ? "true" : "false", n_past,
            decode_s, used_decode, used_freed, json_smi(smi_decode).c_str());
        std::fflush(stdout);
        std::fprintf(stderr,
                     "[%7.1fs] %s %s: after %d positions %.0f MiB over the context (%.1f s), "
                     "after llama_free %+.0f MiB against before the context\n",
                     now_s(), label.c_str(), argv[i], n_past,
                     (used_decode - used_context) / 1048576.0, decode_s,
                     (used_freed - used_before) / 1048576.0);
    }
    llama_model_free(model);
    llama_backend_free();
    return 0;
}
