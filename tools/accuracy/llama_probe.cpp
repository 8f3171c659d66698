// llama_probe BIN_DIR MODEL.gguf [--repack] CONFIG...: loads a GGUF file with llama.cpp (the
// prebuilt libllama of node-llama-cpp, CPU backend, no_alloc: memory is simulated, no data is
// read) and, for each CONFIG "n_ctx:n_ubatch:n_seq:fa:type_k:type_v" (fa on|off, types
// f16|q8_0|q4_0), creates a context and prints one JSON line with the buffer sizes llama.cpp
// logs, in bytes (MiB x 2^20 as logged). --repack loads the model as llama-server does by
// default (use_extra_bufts: the CPU backend's CPU_REPACK buffer type takes the weights it has a
// kernel for) and adds that buffer's bytes; without it every weight stays in the plain CPU
// buffer. --mtp loads the file's MTP (nextn) layers (load_mtp, as llama-server's
// --spec-type draft-mtp does) and, after each context, makes the MTP draft context llama-server
// makes on the same model (common/speculative.cpp at 0ad4a86, common_speculative_init_result:
// ctx_type MTP, the target's n_ctx, n_rs_seq 0, ctx_other the target; its cache types are the
// draft's, f16 by default, and its outputs n_parallel: common_base_params_to_speculative), and
// adds that context's buffers and the MTP layers' weights (the model's size with them less
// without them). Only for the accuracy harness; built by tools/accuracy/run.sh.

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "ggml-backend.h"
#include "llama-ext.h"
#include "llama.h"

namespace {

std::string g_log;

void on_log(ggml_log_level, const char* text, void*) {
    g_log += text;
}

// Sum of the numbers after `marker` ... "= X MiB" on every log line containing `marker`.
double sum_mib(const std::string& log, const char* marker, const char* after) {
    double total = 0;
    std::size_t pos = 0;
    while ((pos = log.find(marker, pos)) != std::string::npos) {
        const std::size_t eol = log.find('\n', pos);
        const std::string line = log.substr(pos, eol - pos);
        const std::size_t a = line.find(after);
        if (a != std::string::npos) total += std::atof(line.c_str() + a + std::strlen(after));
        pos = eol == std::string::npos ? log.size() : eol;
    }
    return total;
}

// The CPU_REPACK buffer's bytes. With no_alloc the model's buffers are dummies of size 0 (the
// log prints 0.00 MiB); llama_get_memory_breakdown sizes each buffer type's tensors as
// ggml_backend_alloc_ctx_tensors_from_buft_size would allocate them.
long long repack_bytes(const llama_context* ctx) {
    long long total = 0;
    for (const auto& [buft, mb] : llama_get_memory_breakdown(ctx)) {
        if (std::strcmp(ggml_backend_buft_name(buft), "CPU_REPACK") == 0) {
            total += static_cast<long long>(mb.model);
        }
    }
    return total;
}

// The instruction sets of the CPU backend variant ggml loaded (the best one this CPU runs), as
// ggml_backend_get_features names them: which of them repack.cpp's kernels test.
std::string cpu_features() {
    std::string out;
    ggml_backend_reg_t reg = ggml_backend_reg_by_name("CPU");
    if (reg == nullptr) return out;
    auto get = reinterpret_cast<ggml_backend_get_features_t>(
        ggml_backend_reg_get_proc_address(reg, "ggml_backend_get_features"));
    if (get == nullptr) return out;
    for (const ggml_backend_feature* f = get(reg); f->name != nullptr; ++f) {
        if (std::strcmp(f->value, "1") != 0) continue;
        out += out.empty() ? "" : " ";
        out += f->name;
    }
    return out;
}

long long bytes(double mib) {
    return static_cast<long long>(mib * 1048576.0 + 0.5);
}

// The bytes of the tensors a model load left out, as its log names them.
long long skipped_bytes(const std::string& log) {
    long long total = 0;
    std::size_t pos = 0;
    while ((pos = log.find("model has unused tensor", pos)) != std::string::npos) {
        const std::size_t size = log.find("(size = ", pos);
        if (size == std::string::npos) break;
        total += std::atoll(log.c_str() + size + 8);
        pos = size;
    }
    return total;
}

// The buffers one context logged, in bytes, as JSON fields named with `prefix`.
std::string buffer_fields(const std::string& log, const char* prefix) {
    char out[512];
    std::snprintf(out, sizeof out,
                  "\"%skv_cache_bytes\":%lld,\"%soutput_bytes\":%lld,\"%scompute_bytes\":%lld",
                  prefix, bytes(sum_mib(log, "llama_kv_cache: size =", "size = ")), prefix,
                  bytes(sum_mib(log, "output buffer size", "= ")), prefix,
                  bytes(sum_mib(log, "compute buffer size =", "= ")));
    return out;
}

// The MTP draft context llama-server makes on the target model (see the top), its buffers as
// JSON fields ("mtp_..."), or an "mtp_error" field.
std::string mtp_context_fields(llama_model* model, llama_context* target,
                               const llama_context_params& target_params) {
    llama_context_params cp = target_params;
    cp.ctx_type = LLAMA_CONTEXT_TYPE_MTP;
    cp.n_ctx = llama_n_ctx(target);
    cp.n_rs_seq = 0;
    cp.ctx_other = target;
    cp.type_k = GGML_TYPE_F16;
    cp.type_v = GGML_TYPE_F16;
    cp.n_outputs_max = target_params.n_seq_max;
    cp.n_outputs_max_per_seq = 1;
    g_log.clear();
    llama_context* mtp = llama_init_from_model(model, cp);
    const std::string log = g_log;
    if (mtp == nullptr) return "\"mtp_error\":\"MTP context creation failed\"";
    llama_free(mtp);
    if (std::getenv("LLAMA_PROBE_LOG")) std::fprintf(stderr, "%s", log.c_str());
    return buffer_fields(log, "mtp_");
}

ggml_type cache_type(const std::string& s) {
    if (s == "q8_0") return GGML_TYPE_Q8_0;
    if (s == "q4_0") return GGML_TYPE_Q4_0;
    if (s == "f32") return GGML_TYPE_F32;
    return GGML_TYPE_F16;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 4) {
        std::fprintf(stderr,
                     "usage: llama_probe BIN_DIR MODEL.gguf [--repack|--mtp] "
                     "n_ctx:n_ubatch:n_seq:fa:tk:tv...\n");
        return 2;
    }
    const bool repack = std::strcmp(argv[3], "--repack") == 0;
    const bool mtp = std::strcmp(argv[3], "--mtp") == 0;
    const int first_config = repack || mtp ? 4 : 3;
    llama_log_set(on_log, nullptr);
    ggml_backend_load_all_from_path(argv[1]);
    llama_backend_init();

    llama_model_params mp = llama_model_default_params();
    mp.n_gpu_layers = 0;
    mp.no_alloc = true;
    mp.load_mode = LLAMA_LOAD_MODE_NONE;  // no_alloc refuses mmap'd buffers
    mp.use_extra_bufts = repack;
    // The MTP layers' weights: the tensors a plain load skips ("model has unused tensor ...
    // (size = N bytes) -- ignoring", llama-model-loader.cpp) less those a load with them skips
    // (llama_model_size is the file's every tensor either way).
    long long mtp_weights = 0;
    if (mtp) {
        g_log.clear();
        llama_model* plain = llama_model_load_from_file(argv[2], mp);
        if (plain == nullptr) {
            std::fprintf(stderr, "llama_probe: cannot load %s\n", argv[2]);
            return 1;
        }
        mtp_weights = skipped_bytes(g_log);
        llama_model_free(plain);
        mp.load_mtp = true;
    }
    g_log.clear();
    llama_model* model = llama_model_load_from_file(argv[2], mp);
    if (model == nullptr) {
        std::fprintf(stderr, "%s", g_log.c_str());
        std::fprintf(stderr, "llama_probe: cannot load %s\n", argv[2]);
        return 1;
    }
    const std::string model_log = g_log;
    const long long model_bytes = static_cast<long long>(llama_model_size(model));
    if (mtp) mtp_weights -= skipped_bytes(model_log);
    const long long n_params = static_cast<long long>(llama_model_n_params(model));

    const std::string features = cpu_features();
    for (int i = first_config; i < argc; ++i) {
        unsigned n_ctx = 0, n_ubatch = 0, n_seq = 0;
        char fa[8] = {0}, tk[8] = {0}, tv[8] = {0};
        if (std::sscanf(argv[i], "%u:%u:%u:%7[^:]:%7[^:]:%7s", &n_ctx, &n_ubatch, &n_seq, fa, tk,
                        tv) != 6) {
            std::fprintf(stderr, "llama_probe: bad config %s\n", argv[i]);
            return 2;
        }
        llama_context_params cp = llama_context_default_params();
        cp.n_ctx = n_ctx;
        cp.n_batch = n_ubatch > 2048 ? n_ubatch : 2048;
        cp.n_ubatch = n_ubatch;
        cp.n_seq_max = n_seq;
        cp.n_threads = 1;
        cp.n_threads_batch = 1;
        cp.flash_attn_type = std::strcmp(fa, "on") == 0 ? LLAMA_FLASH_ATTN_TYPE_ENABLED
                                                        : LLAMA_FLASH_ATTN_TYPE_DISABLED;
        cp.type_k = cache_type(tk);
        cp.type_v = cache_type(tv);
        cp.swa_full = false;  // llama.cpp's tools (common.h) and node-llama-cpp default
        // LLAMA_PROBE_OUTPUTS=server reserves the graph as llama-server does without a draft
        // (server_output_limits at 0ad4a86: n_parallel x (1 + 0) outputs, n_parallel = n_seq),
        // which canitrun plans; =N reserves N (at least n_seq: output_reserve asserts it);
        // unset, the library's default (n_batch outputs: llama-bench's, llama-completion's).
        if (const char* outputs = std::getenv("LLAMA_PROBE_OUTPUTS")) {
            cp.n_outputs_max = std::strcmp(outputs, "server") == 0
                                   ? n_seq
                                   : static_cast<uint32_t>(std::strtoul(outputs, nullptr, 10));
        }
        g_log.clear();
        llama_context* ctx = llama_init_from_model(model, cp);
        const std::string log = g_log;
        if (ctx == nullptr) {
            std::printf("{\"config\":\"%s\",\"error\":\"context creation failed\"}\n", argv[i]);
            continue;
        }
        const long long repacked = repack_bytes(ctx);
        std::string extra;
        if (mtp) {
            extra = ",\"mtp_weights_bytes\":" + std::to_string(mtp_weights) + "," +
                    mtp_context_fields(model, ctx, cp);
        }
        llama_free(ctx);
        std::printf(
            "{\"config\":\"%s\",\"n_params\":%lld,\"model_bytes\":%lld,%s,"
            "\"recurrent_state_bytes\":%lld,\"repack_bytes\":%lld,\"cpu_features\":\"%s\"%s}\n",
            argv[i], n_params, model_bytes, buffer_fields(log, "").c_str(),
            // recurrent layers' state, and DeepSeek V4's compressor state buffers
            bytes(sum_mib(log, "llama_memory_recurrent: size =", "size = ") +
                  sum_mib(log, "state buffer size =", "= ")),
            repacked, features.c_str(), extra.c_str());
        if (std::getenv("LLAMA_PROBE_LOG")) std::fprintf(stderr, "%s", log.c_str());
    }
    if (std::getenv("LLAMA_PROBE_LOG")) std::fprintf(stderr, "%s", model_log.c_str());
    llama_model_free(model);
    llama_backend_free();
    return 0;
}
