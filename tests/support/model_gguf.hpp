#pragma once
// A database model as the GGUF file llama.cpp's converter and llama-quantize would make of it:
// the metadata keys the converter writes for its architecture, and every tensor canitrun's
// tensor_layout lists, typed as quantize_rules types it. The accuracy harness writes it to a
// sparse file (tools/accuracy/make_gguf); the tests read it back (the layer-kinds agreement).

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "canitrun/error.hpp"
#include "canitrun/gguf.hpp"
#include "canitrun/gguf_model.hpp"
#include "canitrun/model.hpp"
#include "support/gguf_writer.hpp"

namespace canitrun::test {

// enum llama_ftype (include/llama.h) by quantization id.
const std::map<std::string, std::uint32_t>& ftype_ids();

// Every metadata key, in the order the file has them. `mtp`: the file carries the model's MTP
// (nextn) blocks, as the pinned converter writes them unless --no-mtp: block_count counts them
// and nextn_predict_layers names how many (conversion/qwen.py's _QwenMtpMixin, glm.py).
void write_model_metadata(GgufWriter& w, const Model& m, const std::string& arch,
                          std::uint32_t ftype, bool mtp = false);

// The whole file's header: metadata and tensor infos. `imatrix`: as quantize_tensors takes it
// (nullopt: llama-quantize's default for the quantization). `mtp`: with the model's MTP block
// after the stack (llamacpp_mtp_block's tensors, blk.N with N the stack's layer count).
Result<GgufWriter> model_gguf(const Model& m, const std::string& quant_id,
                              std::optional<bool> imatrix = std::nullopt, bool mtp = false);

// A file's header followed by a data section of zeros, without holding the zeros: a full-size
// model's GGUF costs its header's kilobytes.
class SparseGguf final : public ByteSource {
  public:
    explicit SparseGguf(const GgufWriter& w)
        : header_(w.header()), size_(header_.size() + w.data_size()) {}
    std::uint64_t size() const override { return size_; }
    std::string name() const override { return "model.gguf"; }

  protected:
    Result<std::string> do_read(std::uint64_t offset, std::uint64_t length) const override {
        std::string out(length, '\0');
        for (std::uint64_t i = 0; i < length && offset + i < header_.size(); ++i) {
            out[i] = header_[offset + i];
        }
        return out;
    }

  private:
    std::string header_;
    std::uint64_t size_;
};

// The model as llama.cpp's converter would write it, read back by gguf_to_model from the
// file's keys and tensors alone.
inline Result<GgufModel> read_back(const Model& m, const std::string& quant_id = "Q4_K_M") {
    CANITRUN_TRY_ASSIGN(const auto writer, model_gguf(m, quant_id));
    CANITRUN_TRY_ASSIGN(const auto file, read_gguf(SparseGguf(writer)));
    return gguf_to_model({file});
}

}  // namespace canitrun::test
