#pragma once
// The last layout's values per quantization, kept: the page's context curve, its GPU lists and
// tables, --gpu over many cards and the context searches ask for the same (model, quantization)
// again and again, and typing every tensor is most of a plan's time (bench/RESULTS.md). Keyed
// by the layout llamacpp_layout() keeps for the model, held so its address is not reused.
// Declare one thread_local per use: the planner's threads keep their own.

#include <map>
#include <memory>
#include <string>
#include <utility>

#include "canitrun/error.hpp"
#include "canitrun/quantize_rules.hpp"

namespace canitrun {

template <typename T>
class QuantMemo {
  public:
    // The value for this layout and quantization: make() the first time, then the one kept
    // (until a value for another layout is asked for).
    template <typename Make>
    Result<const T*> get(const std::shared_ptr<const PreparedLayout>& prepared,
                         const std::string& quant_id, Make make) {
        if (prepared_ != prepared) {
            prepared_ = prepared;
            by_quant_.clear();
        }
        auto it = by_quant_.find(quant_id);
        if (it == by_quant_.end()) {
            CANITRUN_TRY_ASSIGN(auto value, make());
            it = by_quant_.emplace(quant_id, std::move(value)).first;
        }
        return &it->second;
    }

  private:
    std::shared_ptr<const PreparedLayout> prepared_;
    std::map<std::string, T, std::less<>> by_quant_;
};

}  // namespace canitrun
