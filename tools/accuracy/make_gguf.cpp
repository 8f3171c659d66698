// make_gguf MODEL QUANT OUT.gguf [no-imatrix|mtp]: a full-size GGUF file of a database model, with
// the tensor names, shapes and types llama.cpp and llama-quantize give it (canitrun's tensor_layout
// and quantize_rules) and the metadata keys llama.cpp's converter writes for the architecture;
// tensor data is a hole (zeros); "mtp": with the model's MTP block after the stack, as the pinned
// converter keeps it. Only for the accuracy harness: it is not part of canitrun.

#include <cstdio>
#include <optional>
#include <string>

#include "canitrun/database.hpp"
#include "support/model_gguf.hpp"

using namespace canitrun;

int main(int argc, char** argv) {
    if (argc != 4 && argc != 5) {
        std::fprintf(stderr, "usage: make_gguf MODEL QUANT OUT.gguf [no-imatrix|mtp]\n");
        return 2;
    }
    const auto db = parse_database(embedded_database_files());
    if (!db) {
        std::fprintf(stderr, "make_gguf: %s\n", db.error().message.c_str());
        return 2;
    }
    const auto model = db->find_model(argv[1]);
    const auto quant = db->find_quant(argv[2]);
    if (!model || !quant || !test::ftype_ids().contains((*quant)->id)) {
        std::fprintf(stderr, "make_gguf: unknown model or GGUF quantization\n");
        return 2;
    }
    // "no-imatrix": the types llama-quantize picks without an importance matrix, as
    // llama_quant_compute_types (tools/accuracy/quant_check.cpp) does
    const bool no_imatrix = argc == 5 && std::string(argv[4]) == "no-imatrix";
    const bool mtp = argc == 5 && std::string(argv[4]) == "mtp";
    // the rules of the pinned llama.cpp, whichever build made the recorded repo's files
    // (run.gguf_quantized_before): quant_check compares them with the pinned build's own
    Model current = **model;
    current.run.gguf_quantized_before = 0;
    // llama-quantize's own mix, not a publisher's recipe under the plain name
    current.run.gguf_plain_recipes.clear();
    const auto w = test::model_gguf(current, (*quant)->id,
                                    no_imatrix ? std::optional<bool>(false) : std::nullopt, mtp);
    if (!w) {
        std::fprintf(stderr, "make_gguf: %s\n", w.error().message.c_str());
        return 2;
    }
    try {
        w->write_sparse_file(argv[3]);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "make_gguf: %s\n", e.what());
        return 1;
    }
    std::printf("%s\n", argv[3]);
    return 0;
}
