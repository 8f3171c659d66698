// quant_check BIN_DIR MODEL.gguf: checks the tensor types in a GGUF file written by make_gguf
// (canitrun's transcription of llama-quantize's rules) against llama.cpp's own rule code:
// llama_quant_compute_types from libllama (src/llama-ext.h, llama.cpp 0ad4a86), run on the
// model as llama.cpp loads it (no_alloc) for the file's general.file_type, without an
// importance matrix. Prints one JSON line: tensors checked, mismatches, the first few.
// Only for the accuracy harness; built by tools/accuracy/run.sh.

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "ggml-backend.h"
#include "gguf.h"
#include "llama-ext.h"
#include "llama.h"

namespace {

void quiet(ggml_log_level, const char*, void*) {}

int layer_of(const char* name) {
    int layer = -1;
    if (std::sscanf(name, "blk.%d.", &layer) != 1) return -1;
    return layer;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: quant_check BIN_DIR MODEL.gguf\n");
        return 2;
    }
    llama_log_set(quiet, nullptr);
    ggml_backend_load_all_from_path(argv[1]);
    llama_backend_init();

    ggml_context* meta = nullptr;
    gguf_init_params gp{true, &meta};
    gguf_context* gctx = gguf_init_from_file(argv[2], gp);
    if (gctx == nullptr) {
        std::fprintf(stderr, "quant_check: cannot read %s\n", argv[2]);
        return 1;
    }
    const auto ftype =
        static_cast<llama_ftype>(gguf_get_val_u32(gctx, gguf_find_key(gctx, "general.file_type")));

    llama_model_params mp = llama_model_default_params();
    mp.no_alloc = true;
    mp.load_mode = LLAMA_LOAD_MODE_NONE;
    llama_model* model = llama_model_load_from_file(argv[2], mp);
    if (model == nullptr) {
        std::fprintf(stderr, "quant_check: llama.cpp cannot load %s\n", argv[2]);
        return 1;
    }
    llama_model_quantize_params qp = llama_model_quantize_default_params();
    qp.ftype = ftype;
    quantize_state_impl* qs = llama_quant_init(model, &qp);

    // llama-quantize's order: llama_model_loader::weights_map (layer, then name)
    std::vector<ggml_tensor*> all;
    for (ggml_tensor* t = ggml_get_first_tensor(meta); t != nullptr;
         t = ggml_get_next_tensor(meta, t)) {
        all.push_back(t);
    }
    std::stable_sort(all.begin(), all.end(), [](const ggml_tensor* a, const ggml_tensor* b) {
        const int la = layer_of(a->name);
        const int lb = layer_of(b->name);
        if (la != lb) return la < lb;
        return std::string(a->name) < std::string(b->name);
    });
    std::vector<ggml_tensor*> quantizable;
    for (ggml_tensor* t : all) {
        if (llama_quant_tensor_allows_quantization(qs, t)) quantizable.push_back(t);
    }
    std::vector<ggml_type> want(quantizable.size());
    llama_quant_compute_types(qs, ftype, quantizable.data(), want.data(), quantizable.size());

    int mismatches = 0;
    std::string examples;
    for (std::size_t i = 0; i < quantizable.size(); ++i) {
        if (quantizable[i]->type == want[i]) continue;
        if (++mismatches <= 3) {
            examples += std::string(examples.empty() ? "" : ", ") + quantizable[i]->name + " " +
                        ggml_type_name(quantizable[i]->type) + " vs " + ggml_type_name(want[i]);
        }
    }
    std::printf("{\"checked\":%zu,\"mismatches\":%d,\"examples\":\"%s\"}\n", quantizable.size(),
                mismatches, examples.c_str());
    llama_quant_free(qs);
    llama_model_free(model);
    gguf_free(gctx);
    ggml_free(meta);
    llama_backend_free();
    return 0;
}
