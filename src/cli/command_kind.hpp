#pragma once
// The commands of the command line, as the flag table and the resolver name them.

namespace canitrun::cli {

enum class Command { model, gpus, fit, compare, local, verify, lists, system };

}  // namespace canitrun::cli
