#pragma once
// The flag table's rows, in two files by group (flag_table.hpp is the table; these only fill
// it): output, model and hardware flags here; engine, command and service flags in
// flag_rows_engine.cpp.

#include <string>
#include <vector>

#include "flag_table.hpp"

namespace canitrun::cli {

// The command sets most rows use.
inline constexpr Cmds kCliCommands =
    cmds({Cmd::page, Cmd::gpus, Cmd::models, Cmd::gpu_list, Cmd::quants, Cmd::system, Cmd::fit,
          Cmd::compare, Cmd::local, Cmd::verify});
inline constexpr Cmds kEveryCommand = kCliCommands | cmds({Cmd::serve, Cmd::site, Cmd::mcp});
// The commands that plan a model with llama.cpp's rule (or the quick one).
inline constexpr Cmds kPlanning = cmds({Cmd::page, Cmd::gpus, Cmd::fit, Cmd::compare, Cmd::local});

// flag_rows.cpp
// "f16, bf16, f32" as the shells' word list "f16 bf16 f32".
std::string shell_words_of(const std::string& list);

std::vector<FlagRow> output_rows();
std::vector<FlagRow> view_rows();
std::vector<FlagRow> model_rows();
std::vector<FlagRow> serving_rows();
std::vector<FlagRow> gpu_rows();
std::vector<FlagRow> memory_rows();
std::vector<FlagRow> machine_rows();
// flag_rows_engine.cpp
std::vector<FlagRow> engine_rows();
std::vector<FlagRow> server_rows();
std::vector<FlagRow> offload_rows();
std::vector<FlagRow> runtime_rows();
std::vector<FlagRow> vision_rows();
std::vector<FlagRow> resident_rows();
std::vector<FlagRow> command_rows();
std::vector<FlagRow> service_rows();

}  // namespace canitrun::cli
