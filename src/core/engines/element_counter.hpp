#pragma once
// The sums of a layout's elements by kind (PreparedLayout::device_elements), counted as a
// layout::Builder lays the tensors out instead of keeping them (layout_device_elements). Each
// tensor is read by prepare_layout's own rules (prepared_layout.cpp): the same reading for the
// same base name and shape facts. A layer's tensor ("blk.<il>.<suffix>") is read by its suffix
// alone, the base name prepare_layout reads from its whole name, and a suffix at the same place
// as in the last layer takes that place's reading: most layers repeat one list, so the names are
// neither written nor looked up. Private to src/core/engines.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "canitrun/quantize_rules.hpp"
#include "canitrun/tensor_layout.hpp"

namespace canitrun {

struct NameClass;  // what the rules read from a name (prepared_layout.cpp)

class ElementCounter {
  public:
    ElementCounter();
    // Any tensor, its name whole.
    void add(const TensorLayout& layout, const TensorInfo& t);
    // The tensor blk.<il>.<suffix>, as Builder::blk lays it out.
    void add_layer(const TensorLayout& layout, int il, std::string_view suffix,
                   const std::array<std::uint64_t, 4>& ne, std::uint32_t n_dims);
    const DeviceElements& sums() const { return sums_; }

  private:
    struct Place {
        std::string suffix;
        std::size_t bits = 0;
        const NameClass* reading = nullptr;
    };
    std::vector<Place> places_;  // by place in the layer: the last reading there
    int layer_ = -1;
    std::size_t place_ = 0;
    DeviceElements sums_{};
};

}  // namespace canitrun
