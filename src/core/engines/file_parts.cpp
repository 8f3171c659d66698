#include "canitrun/file_parts.hpp"

#include "canitrun/llamacpp_rules.hpp"
#include "canitrun/quantize_rules.hpp"
#include "canitrun/tensor_layout.hpp"
#include "weight_parts.hpp"

namespace canitrun {
namespace {

Error file_overflow() {
    return Error{ErrorKind::bad_input, "the file's tensors add up to more than 2^64 bytes",
                 "the file is corrupt"};
}

}  // namespace

bool file_mtp_tensor(const Model& model, const std::string& name) {
    if (model.arch.mtp_layers == 0) return false;
    const int layer = llama_tensor_layer(name);
    return layer >= 0 && static_cast<std::uint64_t>(layer) >= model.arch.layers;
}

Result<LlamaCppOptions::FileTensors> file_tensor_sums(const Model& model,
                                                      const std::vector<FileTensor>& tensors) {
    return catch_overflow(
        [&]() -> Result<LlamaCppOptions::FileTensors> {
            LlamaCppOptions::FileTensors sums;
            for (const auto& t : tensors) {
                if (file_mtp_tensor(model, t.name)) {
                    sums.mtp = checked::add(sums.mtp, t.bytes);
                } else if (llama_host_input_tensor(t.name)) {
                    sums.host_inputs = checked::add(sums.host_inputs, t.bytes);
                    if (t.name == "token_embd.weight") {
                        sums.token_embd = checked::add(sums.token_embd, t.bytes);
                    }
                } else {
                    sums.other = checked::add(sums.other, t.bytes);
                }
            }
            return sums;
        },
        [] { return std::unexpected(file_overflow()); });
}

Result<std::shared_ptr<const FileWeights>> file_weights(const Model& model,
                                                        const std::vector<FileTensor>& tensors) {
    auto w = std::make_shared<FileWeights>();
    CANITRUN_TRY_ASSIGN(w->sums, file_tensor_sums(model, tensors));
    w->tensors = tensors;
    // What llama.cpp loads: the MTP blocks' tensors left out (file_mtp_tensor).
    std::vector<const FileTensor*> loaded;
    for (const auto& t : tensors) {
        if (!file_mtp_tensor(model, t.name)) loaded.push_back(&t);
    }
    CANITRUN_TRY(catch_overflow(
        [&]() -> Result<void> {
            w->parts = weight_parts_of(model, loaded.size(), [&](std::size_t i) {
                const std::string& name = loaded[i]->name;
                return WeightTensor{name, llama_tensor_layer(name), loaded[i]->bytes,
                                    llama_host_input_tensor(name),
                                    llama_routed_expert_tensor(name)};
            });
            return {};
        },
        [] { return std::unexpected(file_overflow()); }));
    return std::shared_ptr<const FileWeights>(std::move(w));
}

Result<std::vector<FileTensor>> retyped_file_tensors(const Model& model,
                                                     const std::vector<FileTensor>& tensors,
                                                     const Quant& quant) {
    // The rules read the architecture's hyper-parameters from its layout; the tensors are the
    // file's own.
    CANITRUN_TRY_ASSIGN(TensorLayout layout, tensor_layout(model));
    layout.tensors.clear();
    for (const auto& t : tensors) {
        TensorInfo info;
        info.name = t.name;
        info.ne = t.ne;
        info.n_dims = t.n_dims;
        info.layer = llama_tensor_layer(t.name);
        layout.tensors.push_back(info);
    }
    CANITRUN_TRY_ASSIGN(const auto typed, quantize_tensors(layout, quantize_request(quant)));
    std::vector<FileTensor> out;
    out.reserve(typed.size());
    for (const auto& t : typed) {
        out.push_back({t.tensor.name.str(), t.bytes, t.type.id, t.tensor.n_dims, t.tensor.ne});
    }
    return out;
}

}  // namespace canitrun
