#include "canitrun/llama_log.hpp"

#include "canitrun/strings.hpp"

#include "log_lines.hpp"

#include <charconv>
#include <sstream>

namespace canitrun {
namespace {

std::optional<std::uint64_t> to_uint(const std::string& s) {
    std::uint64_t v = 0;
    const std::string t = trim(s);
    const auto r = std::from_chars(t.data(), t.data() + t.size(), v);
    if (r.ec != std::errc() || r.ptr != t.data() + t.size()) return std::nullopt;
    return v;
}

std::optional<std::int64_t> to_int(const std::string& s) {
    std::int64_t v = 0;
    const std::string t = trim(s);
    const auto r = std::from_chars(t.data(), t.data() + t.size(), v);
    if (r.ec != std::errc() || r.ptr != t.data() + t.size()) return std::nullopt;
    return v;
}

// "[1, 2, 3]" -> {1, 2, 3}; nullopt when cut ("...") or not numbers.
std::optional<std::vector<std::int64_t>> int_list(const std::string& s) {
    const std::string t = trim(s);
    if (t.size() < 2 || t.front() != '[' || t.back() != ']') return std::nullopt;
    std::vector<std::int64_t> out;
    std::stringstream ss(t.substr(1, t.size() - 2));
    std::string item;
    while (std::getline(ss, item, ',')) {
        const auto v = to_int(item);
        if (!v) return std::nullopt;
        out.push_back(*v);
    }
    return out;
}

// A context parameter line. A log without "constructing" lines: a second n_ctx starts the next
// context.
template <typename Current>
void set_context_param(LlamaLog& log, LlamaLogContext*& ctx, const Current& current,
                       const log_lines::Pair& param) {
    const std::string_view key = param.key;
    LlamaLogContext* c = &current();
    if (key == "n_ctx" && c->n_ctx != 0) {
        log.contexts.emplace_back();
        ctx = c = &log.contexts.back();
    }
    const std::uint64_t v = to_uint(std::string(param.value)).value_or(0);
    if (key == "n_ctx") c->n_ctx = v;
    if (key == "n_ctx_seq") c->n_ctx_seq = v;
    if (key == "n_batch") c->n_batch = v;
    if (key == "n_ubatch") c->n_ubatch = v;
    if (key == "n_seq_max") c->n_seq_max = v;
    if (key == "n_outputs_max") c->n_outputs_max = v;
    if (key == "flash_attn") c->flash_attn = std::string(param.value);
    if (key == "kv_unified") c->kv_unified = std::string(param.value);
}

// Most of a log is per-tensor and per-layer chatter: a line with none of these phrases is
// skipped before its shape is matched.
bool llama_log_line_worth_a_look(const std::string& line) {
    static const char* const kWorthALook[] = {"print_info:",   "- kv ",
                                              "buffer size",   "context",
                                              "size ",         "loaded meta data",
                                              "_meta:",        "offloaded ",
                                              "Device ",       "using device",
                                              "overridden to", "prompt cache",
                                              "offloading ",   "llama_init_from_model:",
                                              "build",         "- type "};
    bool worth = false;
    for (const char* w : kWorthALook) worth = worth || line.find(w) != std::string::npos;
    return worth;
}

// llama.cpp's lines before it printed one per buffer (January 2024 and earlier).
constexpr const char* kBeforeBuffers =
    "llama.cpp's format before its per-buffer lines (early 2024), which verify does not read";

// Why a line about memory (a buffer size, a figure in MiB) that no rule read is left unread;
// nullptr for any other line.
const char* unread_memory_line(const std::string& line) {
    if (line.find("buffer size") == std::string::npos && line.find("MiB") == std::string::npos) {
        return nullptr;
    }
    // The shapes the published logs of validation/llama-logs/ print, each with why it is left.
    static const std::pair<const char*, const char*> kKnown[] = {
        {"VRAM used", kBeforeBuffers},
        {"system memory used", kBeforeBuffers},
        {"compute buffer total size", kBeforeBuffers},
        {"VRAM scratch buffer", kBeforeBuffers},
        {"VRAM kv self", kBeforeBuffers},
        {"ggml_gallocr_reserve_n", "ggml-alloc's trace of a compute buffer's growth, not read"},
        {"metadata size", "the projector's metadata (clip), held in no device buffer"},
        {"ggml ctx size", "the tensors' metadata (ggml ctx), held in no device buffer"},
        {"_params_fit_impl:", "the --fit step's projection (llama_params_fit), not an allocation"},
        {"KV self size", "the cache's total over its devices, read from each device's line"},
        {"memory_recurrent: size", "the state's total over its devices, read from each device's"},
        {"kv_cache: size", "the cache's total over its devices, read from each device's line"},
        {"VRAM", "a device's whole memory, not an allocation"},
        {"memory breakdown [MiB]", "the memory breakdown table's header row"},
        {"level=INFO", "Ollama's own server line, not llama.cpp's"},
        {"failed to allocate", "a failed allocation, which llama.cpp retries in another buffer"},
        {"input buffer size", "a host input buffer (SYCL), a term canitrun's plan has not"},
    };
    for (const auto& [needle, why] : kKnown) {
        if (line.find(needle) != std::string::npos) return why;
    }
    return "a memory line of a shape verify does not read";
}

// The lines about devices and where tensors went: the device list, the free memory at load,
// "offloaded N/M layers", expert overrides. False when the line is none of them.
bool read_llama_log_device_line(LlamaLog& log, std::string_view v) {
    namespace ll = log_lines;
    constexpr std::string_view kMmap = "this can take a while... (mmap = ";
    const auto device = [&](const std::string& name) -> LlamaLogDevice& {
        for (auto& d : log.devices) {
            if (d.device == name) return d;
        }
        log.devices.push_back({name, "", std::nullopt});
        return log.devices.back();
    };
    if (const auto free = ll::device_free(v)) {
        device(std::string(free->key)).free = mib_to_bytes(std::string(free->value));
    } else if (const auto listed = ll::cuda_device(v)) {
        // ggml_cuda_init lists CUDA (and HIP) devices by index; the backend names them CUDAn
        // (ROCmn under HIP builds, whose "using device" line then names it again).
        const std::string name = "CUDA" + std::string(listed->key);
        if (log.devices.empty() || log.devices.back().device.rfind("CUDA", 0) == 0) {
            device(name).name = std::string(listed->value);
        }
    } else if (const auto layers = ll::offloaded(v)) {
        log.gpu_layers = to_uint(std::string(layers->key));
        log.all_layers = to_uint(std::string(layers->value));
    } else if (const auto repeating = ll::repeating_offloaded(v)) {
        log.repeating_layers = to_uint(std::string(*repeating));
    } else if (ll::output_offloaded(v)) {
        log.output_layer_offloaded = true;
    } else if (const auto at = v.find(kMmap); at != std::string_view::npos) {
        log.mmap = v.substr(at + kMmap.size()).starts_with("true");
    } else if (const auto over = ll::expert_override(v)) {
        if (const auto layer = to_uint(std::string(over->key))) {
            log.expert_overrides[*layer] = std::string(over->value);
        }
    } else {
        return false;
    }
    return true;
}

// llama-server's lines about its prompt cache and context checkpoints (LlamaLogServer). False
// when the line is neither.
bool read_llama_log_server_line(LlamaLog& log, std::string_view v) {
    constexpr std::string_view kLimit = "prompt cache is enabled, size limit: ";
    constexpr std::string_view kCheckpoint = "created context checkpoint ";
    if (const auto at = v.find(kLimit); at != std::string_view::npos) {
        const std::string rest(v.substr(at + kLimit.size()));
        log.server.prompt_cache_unlimited = rest.starts_with("no limit");
        if (!log.server.prompt_cache_unlimited) {
            log.server.prompt_cache_limit = mib_to_bytes(rest.substr(0, rest.find(' ')));
        }
        return true;
    }
    if (v.find("prompt cache is disabled") != std::string_view::npos) {
        log.server.prompt_cache_limit = Bytes{0};
        return true;
    }
    const auto at = v.find(kCheckpoint);
    if (at == std::string_view::npos) return false;
    const std::string rest(v.substr(at + kCheckpoint.size()));  // "2 of 8 (... size = X MiB)"
    const auto of = rest.find(" of ");
    const auto size = rest.find("size = ");
    if (of == std::string::npos || size == std::string::npos) return false;
    const std::string limit = rest.substr(of + 4, rest.find(' ', of + 4) - (of + 4));
    log.server.checkpoints_per_slot = to_uint(limit).value_or(log.server.checkpoints_per_slot);
    const std::string mib = rest.substr(size + 7, rest.find(' ', size + 7) - (size + 7));
    log.server.checkpoint_largest = std::max(log.server.checkpoint_largest, mib_to_bytes(mib));
    return true;
}

// One line into the log (the context it speaks of: `current()`, made on first use); false when
// the line has none of the shapes read.
template <typename Current>
bool read_llama_log_line(LlamaLog& log, LlamaLogContext*& ctx, const Current& current,
                         std::string_view v) {
    namespace ll = log_lines;
    if (read_llama_log_device_line(log, v)) return true;
    if (const auto build = !log.build ? ll::build_number(v) : std::nullopt) {
        const auto n = to_uint(std::string(*build));
        if (n && *n > 1) log.build = n;
        return true;
    }
    if (const auto count = ll::tensor_count(v)) {
        log.tensor_count = to_uint(std::string(*count));
        log.type_counts.clear();  // a file loaded again counts anew
        if (const auto name = ll::loaded_file_name(v)) log.file_name = std::string(*name);
        if (auto repo = ll::loaded_file_repo(v)) log.file_repo = std::move(*repo);
    } else if (v.find("constructing llama_context") != std::string_view::npos) {
        log.contexts.emplace_back();
        ctx = &log.contexts.back();
    } else if (const auto kv = v.find("llama_model_loader: - kv") != std::string_view::npos
                                   ? ll::kv(v)
                                   : std::nullopt) {
        log.metadata[std::string(kv->key)] =
            LlamaLogKv{std::string(kv->type), trim(std::string(kv->value))};
    } else if (const auto typed = ll::type_count(v)) {
        const auto n = to_uint(std::string(typed->value));
        if (n) log.type_counts.emplace_back(std::string(typed->key), *n);
    } else if (const auto info = ll::print_info(v)) {
        log.print_info[trim(std::string(info->key))] = trim(std::string(info->value));
    } else if (const auto model = ll::buffer(v, "model buffer size", false)) {
        log.model_buffers.push_back(
            {std::string(model->key), mib_to_bytes(std::string(model->value))});
    } else if (const auto old_model = ll::old_model_buffer(v)) {
        log.model_buffers.push_back(
            {std::string(old_model->key), mib_to_bytes(std::string(old_model->value))});
    } else if (v.find("Flash Attention was auto, set to ") != std::string_view::npos) {
        current().flash_attn = v.ends_with("enabled") ? "enabled" : "disabled";
    } else if (const auto param = ll::context_param(v)) {
        set_context_param(log, ctx, current, *param);
    } else if (const auto output = ll::buffer(v, "output buffer size", true)) {
        current().output.push_back(
            {std::string(output->key), mib_to_bytes(std::string(output->value))});
    } else if (const auto kv_buffer = ll::buffer(v, "KV buffer size", false)) {
        current().kv.push_back(
            {std::string(kv_buffer->key), mib_to_bytes(std::string(kv_buffer->value))});
    } else if (const auto types = v.find("RS buffer") == std::string_view::npos &&
                                          (v.find("llama_kv_cache") != std::string_view::npos ||
                                           v.find("KV self size") != std::string_view::npos)
                                      ? ll::kv_types(v)
                                      : std::nullopt) {
        current().type_k = std::string(types->key);
        current().type_v = std::string(types->value);
    } else if (const auto rs = ll::buffer(v, "RS buffer size", false)) {
        current().recurrent.push_back({std::string(rs->key), mib_to_bytes(std::string(rs->value))});
    } else if (const auto compute = !v.starts_with('~')
                                        ? ll::buffer(v, "compute buffer size", false)
                                        : std::nullopt) {
        current().compute.push_back(
            {std::string(compute->key), mib_to_bytes(std::string(compute->value))});
    } else {
        return false;
    }
    return true;
}

// One of clip's compute buffer lines ("alloc_compute_meta:      CUDA0 compute buffer size =
// 248.10 MiB"): the CPU's, or its device's.
void read_projector_buffer(LlamaLog& log, const std::string& line) {
    constexpr std::string_view kSize = " compute buffer size =";
    const auto colon = line.find("alloc_compute_meta:");
    const auto size = line.find(kSize);
    if (size == std::string::npos || size < colon) return;
    const std::string device = trim(line.substr(colon + 19, size - colon - 19));
    const std::string rest = trim(line.substr(size + kSize.size()));
    const Bytes b = mib_to_bytes(rest.substr(0, rest.find(' ')));
    if (device.empty() || b == 0) return;
    auto& slot = device == "CPU" ? log.projector_host_compute : log.projector_compute;
    slot = checked::add(slot.value_or(0), b);
}

}  // namespace

Bytes mib_to_bytes(const std::string& mib) {
    return decimal_to_bytes(mib, 1ULL << 20);
}

Bytes decimal_to_bytes(const std::string& number, std::uint64_t unit) {
    // Integer hundredths (or finer) so "4685.30" is exact: digits x unit / 10^decimals, rounded.
    const std::string t = trim(number);
    const auto dot = t.find('.');
    const std::string whole = t.substr(0, dot);
    std::string frac = dot == std::string::npos ? "" : t.substr(dot + 1);
    if (frac.size() > 6) frac.resize(6);
    std::uint64_t scale = 1;
    for (std::size_t k = 0; k < frac.size(); ++k) scale *= 10;
    // A size past 64 bits is not one any log prints: 0, as for no size.
    return overflow_or(
        [&] {
            const std::uint64_t units =
                checked::add(checked::mul(to_uint(whole).value_or(0), scale),
                             frac.empty() ? 0 : to_uint(frac).value_or(0));
            const Bytes q = checked::mul_div_floor(units, unit, scale);
            const auto r = static_cast<std::uint64_t>(static_cast<checked::Wide>(units % scale) *
                                                      unit % scale);
            return checked::add(q, 2 * r >= scale ? 1 : 0);
        },
        Bytes{0});
}

std::string LlamaLog::arch() const {
    if (const auto it = print_info.find("arch"); it != print_info.end()) return it->second;
    if (const auto it = metadata.find("general.architecture"); it != metadata.end()) {
        return it->second.value;
    }
    return "";
}

std::string LlamaLog::file_type() const {
    // "model ftype" in 2024's llm_load_print_meta lines
    for (const char* key : {"file type", "model ftype"}) {
        if (const auto it = print_info.find(key); it != print_info.end()) return it->second;
    }
    return "";
}

std::optional<double> LlamaLog::params_billions() const {
    const auto it = print_info.find("model params");
    if (it == print_info.end()) return std::nullopt;
    std::istringstream in(it->second);
    double v = 0;
    std::string unit;
    if (!(in >> v >> unit)) return std::nullopt;
    if (unit == "M") return v / 1000;
    if (unit == "T") return v * 1000;
    if (unit == "K") return v / 1e6;
    return v;
}

std::optional<Bytes> LlamaLog::file_size() const {
    auto it = print_info.find("file size");
    if (it == print_info.end()) it = print_info.find("model size");  // 2024's spelling
    if (it == print_info.end()) return std::nullopt;
    std::istringstream in(it->second);
    std::string number, unit;
    if (!(in >> number >> unit)) return std::nullopt;
    if (unit == "GiB") return decimal_to_bytes(number, 1ULL << 30);
    if (unit == "MiB") return decimal_to_bytes(number, 1ULL << 20);
    return std::nullopt;
}

bool is_host_buffer(const std::string& buffer_type) {
    // The CPU's own (CPU, CPU_Mapped, CPU_REPACK) and the GPU backends' pinned host memory.
    return buffer_type.rfind("CPU", 0) == 0 || buffer_type.find("_Host") != std::string::npos;
}

namespace {

// The line that starts a draft's lines (LlamaLogDraft): a draft model's, or the MTP context's;
// nullopt for any other line.
std::optional<bool> draft_starts(const std::string& line) {
    if (line.find("loading draft model '") != std::string::npos) return false;
    if (line.find("creating MTP draft context") != std::string::npos) return true;
    return std::nullopt;
}

}  // namespace

Result<LlamaLog> parse_llama_log(const std::string& text) {
    LlamaLog log;
    // The lines of a draft go to a log of their own (`into`), whose buffers and contexts become
    // log.draft; the server's and the projector's lines stay the main log's.
    LlamaLog drafted;
    LlamaLog* into = &log;
    LlamaLogContext* ctx = nullptr;
    const auto current = [&]() -> LlamaLogContext& {
        if (ctx == nullptr) {
            into->contexts.emplace_back();
            ctx = &into->contexts.back();
        }
        return *ctx;
    };
    std::string line;
    std::uint64_t number = 0;
    // Lines are cut out of the text one at a time; a long one is never copied.
    for (std::size_t begin = 0; begin < text.size();) {
        std::size_t end = text.find('\n', begin);
        if (end == std::string::npos) end = text.size();
        const std::size_t length = end - begin;
        const std::size_t start = begin;
        begin = end + 1;
        ++number;
        if (length > kMaxLogLineBytes) {
            ++log.skipped_long_lines;
            log.unread_lines.push_back(
                {number,
                 "longer than " + std::to_string(kMaxLogLineBytes) + " bytes: skipped unread", ""});
            continue;
        }
        line.assign(text, start, length);
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.starts_with("# settings:")) {
            log.command_line = line.substr(11);
            continue;
        }
        // The header and elision notes of validation/llama-logs/ ("# note: ...", "# ...
        // elided 31 lines"), which may quote a buffer line: no llama.cpp line starts so.
        if (line.starts_with("# ")) continue;
        if (line.find("alloc_compute_meta:") != std::string::npos) {
            ++log.projector_lines;
            read_projector_buffer(log, line);
            continue;
        }
        if (const auto at = line.find("load_hparams: model size:"); at != std::string::npos) {
            const std::string rest = trim(line.substr(at + 25));
            if (const Bytes b = mib_to_bytes(rest.substr(0, rest.find(' '))); b > 0) {
                log.projector_model = b;
            }
            continue;
        }
        if (const auto mtp = draft_starts(line)) {
            log.draft = LlamaLogDraft{*mtp, {}, {}, nullptr};
            into = &drafted;
            ctx = nullptr;
            ++log.recognized_lines;
            continue;
        }
        if (llama_log_line_worth_a_look(line) &&
            (read_llama_log_server_line(log, log_lines::without_prefix(line)) ||
             read_llama_log_line(*into, ctx, current, log_lines::without_prefix(line)))) {
            ++log.recognized_lines;
        } else if (const char* why = unread_memory_line(line)) {
            const std::string_view v = log_lines::without_prefix(line);
            log.unread_lines.push_back(
                {number, why, std::string(v.substr(0, std::min(v.size(), kUnreadTextBytes)))});
        }
    }
    if (log.draft) {
        log.draft->model_buffers = drafted.model_buffers;
        log.draft->contexts = drafted.contexts;
        log.draft->own = std::make_shared<const LlamaLog>(std::move(drafted));
    }
    if (log.recognized_lines == 0) {
        return fail(ErrorKind::bad_input, "nothing in this file looks like a llama.cpp log",
                    "give the output of llama-cli / llama-server (stderr) from model load on");
    }
    return log;
}

namespace {

// The sliding layers when the metadata line cuts attention.sliding_window_pattern ("[true,
// true, true, true, true, false,..."): print_info lists every layer's n_head_kv and
// n_embd_k_gqa whole, and a layer's n_embd_k_gqa is its n_head_kv times its key width,
// n_embd_head_k_swa on a sliding layer and n_embd_head_k on the others (Gemma 4's print_info:
// 2048 = 8 x 256 sliding, 1024 = 2 x 512 global). Where the two widths differ, the lists name
// the sliding layers; nullopt where they do not, or the log says no layer slides.
std::optional<std::vector<std::int64_t>> sliding_layers_of(const LlamaLog& log) {
    const auto info = [&](const char* key) -> std::string {
        const auto it = log.print_info.find(key);
        return it == log.print_info.end() ? std::string() : it->second;
    };
    const auto swa_k = to_uint(info("n_embd_head_k_swa"));
    const auto k = to_uint(info("n_embd_head_k"));
    const auto widths = int_list(info("n_embd_k_gqa"));
    auto heads = int_list(info("n_head_kv"));  // one per layer, or one for all (Gemma 4 E4B)
    if (const auto all = to_int(info("n_head_kv")); all && widths) {
        heads = std::vector<std::int64_t>(widths->size(), *all);
    }
    if (info("is_swa_any") != "1" || !swa_k || !k || *swa_k == *k || !heads || !widths ||
        heads->size() != widths->size()) {
        return std::nullopt;
    }
    std::vector<std::int64_t> sliding;
    for (std::size_t il = 0; il < heads->size(); ++il) {
        const auto h = static_cast<std::uint64_t>(std::max<std::int64_t>((*heads)[il], 0));
        const auto w = static_cast<std::uint64_t>(std::max<std::int64_t>((*widths)[il], 0));
        if (w != h * *swa_k && w != h * *k) return std::nullopt;
        sliding.push_back(w == h * *swa_k ? 1 : 0);
    }
    return sliding;
}

}  // namespace

GgufFile llama_log_metadata(const LlamaLog& log) {
    GgufFile f;
    const auto put_uint = [&](const std::string& key, std::uint64_t v) {
        GgufValue value;
        value.type = GgufType::u64;
        value.u = v;
        f.metadata.push_back({key, value});
    };
    const auto put_list = [&](const std::string& key, const std::vector<std::int64_t>& list) {
        GgufValue value;
        value.type = GgufType::array;
        value.element_type = GgufType::i64;
        value.length = list.size();
        value.stored = true;
        value.ints = list;
        f.metadata.push_back({key, value});
    };
    for (const auto& [key, kv] : log.metadata) {
        if (kv.type == "str") {
            GgufValue value;
            value.type = GgufType::string;
            value.s = kv.value;
            f.metadata.push_back({key, value});
        } else if (kv.type.rfind("arr[", 0) == 0) {
            if (const auto list = int_list(kv.value)) put_list(key, *list);
        } else if (kv.type == "bool") {
            put_uint(key, kv.value == "true" ? 1 : 0);
        } else if (const auto v = to_uint(kv.value)) {
            put_uint(key, *v);
        }
    }
    // print_info names the same facts; fill what the metadata lines lack or cut.
    const std::string arch = log.arch();
    if (!f.find("general.architecture") && !arch.empty()) {
        GgufValue value;
        value.type = GgufType::string;
        value.s = arch;
        f.metadata.push_back({"general.architecture", value});
    }
    static const std::pair<const char*, const char*> kInfo[] = {
        {"n_layer", "block_count"},
        {"n_embd", "embedding_length"},
        {"n_head", "attention.head_count"},
        {"n_head_kv", "attention.head_count_kv"},
        {"n_embd_head_k", "attention.key_length"},
        {"n_embd_head_v", "attention.value_length"},
        {"n_swa", "attention.sliding_window"},
        {"n_ctx_train", "context_length"},
        {"n_ff", "feed_forward_length"},
        {"n_expert", "expert_count"},
        {"n_expert_used", "expert_used_count"},
        {"n_rot", "rope.dimension_count"},
        {"ssm_d_conv", "ssm.conv_kernel"},
        {"ssm_d_inner", "ssm.inner_size"},
        {"ssm_d_state", "ssm.state_size"},
        {"ssm_dt_rank", "ssm.time_step_rank"},
        {"ssm_n_group", "ssm.group_count"},
        {"n_lora_q", "attention.q_lora_rank"},
        {"n_lora_kv", "attention.kv_lora_rank"},
        {"n_vocab", "vocab_size"},
    };
    for (const auto& [info_key, gguf_key] : kInfo) {
        const std::string key = arch + "." + gguf_key;
        const auto it = log.print_info.find(info_key);
        if (it == log.print_info.end() || f.find(key) != nullptr) continue;
        if (const auto v = to_uint(it->second)) {
            put_uint(key, *v);
        } else if (const auto list = int_list(it->second)) {
            put_list(key, *list);
        }
    }
    const std::string pattern = arch + ".attention.sliding_window_pattern";
    if (f.find(pattern) == nullptr) {
        if (const auto sliding = sliding_layers_of(log)) put_list(pattern, *sliding);
    }
    return f;
}

}  // namespace canitrun
