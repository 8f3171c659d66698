#include "canitrun/file_parts.hpp"

#include "canitrun/llamacpp_rules.hpp"
#include "weight_parts.hpp"

namespace canitrun {
namespace {

Error file_overflow() {
    return Error{ErrorKind::bad_input, "the file's tensors add up to more than 2^64 bytes",
                 "the file is corrupt"};
}

}  // namespace

Result<LlamaCppOptions::FileTensors> file_tensor_sums(const std::vector<FileTensor>& tensors) {
    return catch_overflow(
        [&]() -> Result<LlamaCppOptions::FileTensors> {
            LlamaCppOptions::FileTensors sums;
            for (const auto& t : tensors) {
                if (llama_host_input_tensor(t.name)) {
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
    CANITRUN_TRY_ASSIGN(w->sums, file_tensor_sums(tensors));
    w->tensors = tensors;
    CANITRUN_TRY(catch_overflow(
        [&]() -> Result<void> {
            w->parts = weight_parts_of(model, tensors.size(), [&](std::size_t i) {
                const std::string& name = tensors[i].name;
                return WeightTensor{&name, llama_tensor_layer(name), tensors[i].bytes,
                                    llama_host_input_tensor(name),
                                    llama_routed_expert_tensor(name)};
            });
            return {};
        },
        [] { return std::unexpected(file_overflow()); }));
    return std::shared_ptr<const FileWeights>(std::move(w));
}

}  // namespace canitrun
