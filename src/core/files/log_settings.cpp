#include "log_settings.hpp"

#include <charconv>
#include <cmath>
#include <regex>

#include "canitrun/llama_log.hpp"

namespace canitrun {
namespace {

// A pattern longer than this is not read: std::regex compiles recursively.
constexpr std::size_t kMaxPatternBytes = 256;

// The command line's words, with '...' and "..." quoting and shell line continuations.
std::vector<std::string> words(std::string_view line) {
    std::vector<std::string> out;
    std::string word;
    bool in_word = false;
    char quote = 0;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        // A backslash ends a word only as a shell line continuation ("\ "); in a word it is
        // part of an -ot pattern (blk\.1[4-9]\.ffn).
        const bool continuation = c == '\\' && (i + 1 == line.size() || line[i + 1] == ' ');
        if (quote != 0) {
            if (c == quote) {
                quote = 0;
            } else {
                word += c;
            }
        } else if (c == '"' || c == '\'') {
            quote = c;
            in_word = true;
        } else if (c == ' ' || c == '\t' || continuation) {
            if (in_word) out.push_back(word);
            word.clear();
            in_word = false;
        } else {
            word += c;
            in_word = true;
        }
    }
    if (in_word) out.push_back(word);
    return out;
}

std::optional<std::uint64_t> number(const std::string& s) {
    std::uint64_t v = 0;
    const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
    if (r.ec != std::errc() || r.ptr != s.data() + s.size()) return std::nullopt;
    return v;
}

struct Override {
    std::regex pattern;
    bool host = false;
};

// "-ot a=CPU,b=CUDA0" (llama.cpp takes a comma-separated list, and the first match wins).
void add_overrides(const std::string& value, std::vector<Override>& out,
                   CommandLineExperts& experts) {
    std::size_t begin = 0;
    while (begin <= value.size()) {
        std::size_t end = value.find(',', begin);
        if (end == std::string::npos) end = value.size();
        const std::string item = value.substr(begin, end - begin);
        begin = end + 1;
        const auto eq = item.rfind('=');
        if (eq == std::string::npos || eq == 0 || eq > kMaxPatternBytes) {
            if (!item.empty()) experts.notes.push_back("-ot '" + item + "' not read");
            continue;
        }
        const std::string type = item.substr(eq + 1);
        if (!is_host_buffer(type) && !experts.gpu_targets) {
            experts.gpu_targets = true;
            experts.notes.push_back("-ot puts tensors on a chosen GPU (" + type +
                                    "): " + std::string(kPlacementDiffers) +
                                    ", so the devices' weights differ");
        }
        try {
            out.push_back({std::regex(item.substr(0, eq)), is_host_buffer(type)});
        } catch (const std::regex_error&) {
            experts.notes.push_back("-ot pattern '" + item.substr(0, eq) + "' not read");
        }
    }
}

}  // namespace

std::optional<CommandLineExperts> command_line_experts(std::string_view command_line,
                                                       std::uint64_t layers) {
    const std::vector<std::string> w = words(command_line);
    CommandLineExperts experts;
    std::vector<Override> overrides;
    std::optional<std::uint64_t> n_cpu_moe;
    bool seen = false;
    for (std::size_t i = 0; i < w.size(); ++i) {
        const std::string& flag = w[i];
        const bool has_value = i + 1 < w.size();
        if ((flag == "-ot" || flag == "--override-tensor") && has_value) {
            add_overrides(w[++i], overrides, experts);
            seen = true;
        } else if ((flag == "--n-cpu-moe" || flag == "-ncmoe") && has_value) {
            n_cpu_moe = number(w[++i]);
            seen = true;
        } else if (flag == "--cpu-moe" || flag == "-cmoe") {
            n_cpu_moe = layers;
            seen = true;
        }
    }
    if (!seen) return std::nullopt;
    // llama.cpp's -ot overrides come before --n-cpu-moe's (common/arg.cpp appends those last).
    static constexpr const char* kExperts[] = {"ffn_up_exps", "ffn_gate_exps", "ffn_down_exps"};
    for (std::uint64_t layer = 0; layer < layers; ++layer) {
        const std::string name = "blk." + std::to_string(layer) + "." + kExperts[0] + ".weight";
        bool decided = false;
        for (const auto& o : overrides) {
            if (std::regex_search(name, o.pattern)) {
                if (o.host) experts.host_layers.insert(layer);
                decided = true;
                break;
            }
        }
        if (!decided && n_cpu_moe && layer < *n_cpu_moe) experts.host_layers.insert(layer);
    }
    return experts;
}

std::optional<std::vector<std::uint64_t>> command_line_tensor_split(std::string_view command_line) {
    const auto w = words(command_line);
    for (std::size_t i = 0; i + 1 < w.size(); ++i) {
        if (w[i] != "-ts" && w[i] != "--tensor-split") continue;
        std::vector<std::uint64_t> out;
        std::string item;
        const std::string value = w[i + 1] + ",";
        for (const char c : value) {
            if (c != ',' && c != '/') {
                item += c;
                continue;
            }
            double v = 0;
            const auto r = std::from_chars(item.data(), item.data() + item.size(), v);
            if (r.ec != std::errc() || r.ptr != item.data() + item.size() || !(v >= 0) || v > 1e9) {
                return std::nullopt;
            }
            out.push_back(static_cast<std::uint64_t>(std::llround(v * 1e6)));
            item.clear();
        }
        return out;
    }
    return std::nullopt;
}

bool command_line_op_offload(std::string_view command_line) {
    bool on = true;
    for (const auto& w : words(command_line)) {
        if (w == "--no-op-offload") on = false;
        if (w == "--op-offload") on = true;
    }
    return on;
}

}  // namespace canitrun
