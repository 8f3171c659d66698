#pragma once
// Reading a model's "architecture" object: its layer groups, their order and the attention
// geometry, each checked against the bounds no real model exceeds (database_parse.cpp reads the
// rest of the entry).

#include "canitrun/model.hpp"
#include "json_fields.hpp"

namespace canitrun::detail {

Architecture parse_architecture(const Fields& f);

}  // namespace canitrun::detail
