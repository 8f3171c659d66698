#include "canitrun/checked.hpp"

namespace canitrun::checked {

void throw_overflow(const char* what) {
    throw OverflowError(what);
}

}  // namespace canitrun::checked
