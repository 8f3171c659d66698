// Odd but real inputs through the real binary (issue "Hardening"): files that are not files,
// logs with huge lines, contexts past a model's window, names that are also file names,
// output flags that conflict, and bytes that are not text. Each must end in bounded time with
// the bad-input contract: exit 2, nothing on stdout, one `canitrun: error: ...` line.

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "catch.hpp"
#include "refusal.hpp"
#include "run_binary.hpp"

namespace fs = std::filesystem;
using canitrun::test::has;
using canitrun::test::Outcome;
using canitrun::test::run_shell;
using canitrun::test::shell_quote;

namespace {

constexpr const char* kLlamaLog = CANITRUN_FIXTURES "/logs/llama-3.1-8b-Q4_K_M-cpu.log";

// The binary under `timeout`: a hang becomes exit 124 instead of a stuck test run.
Outcome run_bounded(const std::vector<std::string>& args, const std::string& prefix = "") {
    std::string command = prefix + "timeout -k 2 20 " + shell_quote(CANITRUN_BINARY);
    for (const auto& a : args) command += " " + shell_quote(a);
    return run_shell(command);
}

void check_refused(const std::vector<std::string>& args, const std::string& message,
                   const std::string& prefix = "") {
    canitrun::test::check_refusal(run_bounded(args, prefix), args, message);
}

class TempDir {
  public:
    TempDir() {
        static int counter = 0;
        dir_ = fs::temp_directory_path() /
               ("canitrun-untrusted-" + std::to_string(getpid()) + "-" + std::to_string(++counter));
        fs::remove_all(dir_);
        fs::create_directories(dir_);
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(dir_, ec);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    std::string path(const std::string& name) const { return (dir_ / name).string(); }

  private:
    fs::path dir_;
};

std::string fixture_log() {
    std::ifstream in(kLlamaLog, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

TEST_CASE("untrusted input: a device or a named pipe is refused, never read or waited on") {
    check_refused({"verify", "/dev/zero"}, "/dev/zero is a device, not a file");
    const TempDir t;
    const std::string fifo = t.path("p.gguf");
    REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
    check_refused({fifo}, "p.gguf is a named pipe, not a file");
    check_refused({"verify", fifo}, "is a named pipe");
    check_refused({"gpus", fifo}, "is a named pipe");
    check_refused({"verify", t.path("")}, "is a directory, not a file");
}

TEST_CASE("untrusted input: a log line of 1 MiB is skipped with a note, the rest still read") {
    const TempDir t;
    const std::string path = t.path("long.log");
    // The long line carries "buffer size", so it passes the cheap pre-filter and would reach
    // the regexes; before the cap it overflowed the stack (std::regex recurses per character).
    std::ofstream(path, std::ios::binary)
        << fixture_log() << "print_info: x = " << std::string(1 << 20, 'a') << " buffer size\n";
    const Outcome o = run_bounded({"verify", path});
    INFO(o.err);
    REQUIRE(o.code == 0);
    // named by its number: the line after the fixture's last
    CHECK(has(o.out, "not read (longer than 4096 bytes: skipped unread)"));
    // The fixture's KV line: "CPU KV buffer size = 4096.00 MiB" (llama.cpp's own figure).
    CHECK(has(o.out, "4096.00 MiB"));
}

TEST_CASE("untrusted input: a log past the size cap is refused before it is read") {
    const TempDir t;
    const std::string path = t.path("huge.log");
    std::ofstream(path, std::ios::binary) << "x";
    fs::resize_file(path, (64ULL << 20) + 1);  // a hole: one byte over 64 MiB, no disk used
    check_refused({"verify", path}, "is larger than 64 MiB, too large for a llama.cpp log");
}

TEST_CASE("untrusted input: contexts past the window are refused, past native warned") {
    // qwen3.5-35b-a3b: native 262,144 tokens (the reference page's 256k), extended to
    // 1,010,000 with YaRN (its data entry, from the model card). 1M = 1,048,576 is past both.
    check_refused({"qwen3.5-35b-a3b", "--ctx", "1M"},
                  "context 1M is past qwen3.5-35b-a3b's window of 262,144 tokens (1,010,000 "
                  "with YaRN)");
    check_refused({"gpus", "qwen3.5-35b-a3b", "--ctx", "1M"}, "is past");
    // 1,000,000 is within YaRN: answered, with a note, and no "growth" row (there is no growth
    // from a context past the full window; before, the difference wrapped to 18446744058.6 GB).
    const Outcome o = run_bounded({"qwen3.5-35b-a3b", "--ctx", "1000000"});
    REQUIRE(o.code == 0);
    CHECK(has(o.out, "is past the native 256k window; it runs only with YaRN"));
    CHECK_FALSE(has(o.out, "KV growth from"));
    CHECK_FALSE(has(o.out, "18446744"));
    // Below the window the growth row is there: 8k to 256k.
    CHECK(has(run_bounded({"qwen3.5-35b-a3b"}).out, "KV growth from 8k"));
}

TEST_CASE("untrusted input: a file named like a model does not shadow the model") {
    const TempDir t;
    std::ofstream(t.path("llama-3.1-8b")) << "not a model";
    const Outcome o = run_bounded({"llama-3.1-8b"}, "env -C " + shell_quote(t.path("")) + " ");
    INFO(o.err);
    CHECK(o.code == 0);
    CHECK(has(o.out, "Llama 3.1 8B"));
    // A name the database does not know is still read as a file, with the file's error.
    std::ofstream(t.path("mystery")) << "not a model";
    check_refused({"mystery"}, "bad magic", "env -C " + shell_quote(t.path("")) + " ");
}

TEST_CASE("untrusted input: output flags that conflict or cannot apply are refused") {
    const std::string m = "qwen3.5-35b-a3b";
    check_refused({m, "--json", "--quiet"}, "--json and --quiet ask for two outputs");
    check_refused({m, "--json", "--format", "csv"}, "--json and --format csv ask for two outputs");
    check_refused({m, "--quiet", "--format", "markdown"}, "--quiet and --format markdown");
    check_refused({"models", "--names", "--json"}, "--names prints ids only");
    // vLLM and several hosts print every data format (cluster_cli_test.cpp), not the HTML page
    check_refused({m, "--engine", "vllm", "--gpu", "h100", "--format", "html"},
                  "--format html is not available for vLLM");
    check_refused({m, "--host", "rtx-4090", "--host", "rtx-3090", "--format", "html"},
                  "--format html is not available for llama.cpp RPC");
    // A view a command does not offer (output_formats_test.cpp covers the rest).
    check_refused({"verify", kLlamaLog, "--quiet"}, "--quiet is not available for verify");
    check_refused({m, "--mmproj", "/nonexistent.gguf"},
                  "--mmproj adds a vision projector to a .gguf model file");
    // --json alone and --json with --format json agree: both are fine.
    CHECK(run_bounded({m, "--json", "--format", "json"}).code == 0);
}

TEST_CASE("untrusted input: messages that name the real problem") {
    check_refused({"qwen3.5-35b-a3b", "--gpu", "99999999999999999999x4090"},
                  "'99999999999999999999x4090' asks for 99999999999999999999 GPUs");
    check_refused({"qwen3.5-35b-a3b", "--gpu", "100x4090"}, "asks for 100 GPUs");
    check_refused({"--data", "/nonexistent", "qwen3.5-35b-a3b"},
                  "cannot read database folder '/nonexistent': no such folder");
    // A raw 0xFF byte is not echoed: stderr stays valid UTF-8; a real UTF-8 name is kept.
    const Outcome o = run_bounded({"qwen\xff"});
    CHECK(o.code == 2);
    CHECK(o.err.find('\xff') == std::string::npos);
    CHECK(has(o.err, "unknown model 'qwen?'"));
    CHECK(has(run_bounded({"qwén"}).err, "unknown model 'qwén'"));
}

#if !defined(__SANITIZE_ADDRESS__) && !defined(__has_feature)
#define CANITRUN_NO_ASAN 1
#elif defined(__has_feature)
#if !__has_feature(address_sanitizer)
#define CANITRUN_NO_ASAN 1
#endif
#endif

#ifdef CANITRUN_NO_ASAN
TEST_CASE("untrusted input: the largest inputs run in a 256 MiB address space") {
    // ulimit -v counts address space, so this proves every read is bounded: a log at the 64 MiB
    // cap, a 1 MiB line, a file past the cap, and the full model page. (Not under ASan, whose
    // shadow memory alone reserves terabytes of address space.)
    const TempDir t;
    const std::string big = t.path("big.log");
    {
        std::ofstream out(big, std::ios::binary);
        const std::string log = fixture_log();
        out << log;
        const std::string filler = "llama_model_loader: - tensor chatter that no pattern reads\n";
        for (std::uint64_t n = log.size(); n + filler.size() <= (64ULL << 20); n += filler.size())
            out << filler;
    }
    REQUIRE(fs::file_size(big) <= (64ULL << 20));
    const std::string limit = "ulimit -v 262144 && ";
    const Outcome o = run_bounded({"verify", big}, limit);
    INFO(o.err);
    CHECK(o.code == 0);
    CHECK(has(o.out, "4096.00 MiB"));
    CHECK(run_bounded({"qwen3.5-35b-a3b"}, limit).code == 0);
    check_refused({"verify", "/dev/zero"}, "is a device", limit);
}
#endif

// A hung driver makes nvidia-smi block forever. A stand-in that sleeps 30 s (and its child,
// which would keep the pipe open) is killed after the probe timeout: `system` answers in time,
// with no GPU from it.
TEST_CASE("untrusted input: a tool that hangs is killed after the probe timeout") {
    TempDir dir;
    const std::string fake = dir.path("nvidia-smi");
    {
        std::ofstream out(fake);
        out << "#!/bin/sh\nsleep 30 &\nsleep 30\n";
    }
    chmod(fake.c_str(), 0755);
    const auto start = std::chrono::steady_clock::now();
    const Outcome o =
        run_bounded({"system", "--json"}, "PATH=" + shell_quote(dir.path("")) +
                                              ":\"$PATH\" CANITRUN_PROBE_TIMEOUT_MS=300 ");
    const auto seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start);
    CHECK(o.code == 0);
    CHECK(seconds.count() < 10);
    CHECK(has(o.out, "\"gpus\""));
}

// The newer probes run the same way: xpu-smi that hangs is killed at the timeout, vulkaninfo
// that never stops printing is cut off at the probe cap (1 MiB), and neither invents a GPU.
TEST_CASE("untrusted input: xpu-smi that hangs and vulkaninfo that floods are cut off") {
    TempDir dir;
    for (const auto& [tool, body] :
         {std::pair<std::string, std::string>{"xpu-smi", "sleep 30 &\nsleep 30\n"},
          {"vulkaninfo", "yes 'GPU0:'\n"}}) {
        const std::string fake = dir.path(tool);
        std::ofstream(fake) << "#!/bin/sh\n" << body;
        chmod(fake.c_str(), 0755);
    }
    const auto start = std::chrono::steady_clock::now();
    const Outcome o =
        run_bounded({"system", "--json"}, "PATH=" + shell_quote(dir.path("")) +
                                              ":\"$PATH\" CANITRUN_PROBE_TIMEOUT_MS=300 ");
    const auto seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start);
    CHECK(o.code == 0);
    CHECK(seconds.count() < 10);
    CHECK_FALSE(has(o.out, "xpu-smi\""));
    CHECK_FALSE(has(o.out, "vulkaninfo --summary"));
}

// Every flag takes effect or is refused: each of these used to be accepted and ignored.
TEST_CASE("untrusted input: a flag the command does not read is refused") {
    const std::string log = kLlamaLog;
    check_refused({"models", "--quant", "Q8_0"}, "--quant does not apply to models");
    check_refused({"gpu-list", "--gpu", "4090"}, "--gpu does not apply to gpu-list");
    check_refused({"system", "--ctx", "32k"}, "--ctx does not apply to system");
    check_refused({"gpus", "qwen3.5-35b-a3b", "--vram", "16"}, "--vram does not apply to gpus");
    check_refused({"gpus", "qwen3.5-35b-a3b", "--gpu", "3090"}, "--gpu does not apply to gpus");
    check_refused({"fit", "--gpu", "4090", "--quant", "Q8_0"}, "--quant does not apply to fit");
    check_refused({"fit", "--gpu", "4090", "--ngl", "10"}, "--ngl does not apply to fit");
    check_refused({"compare", "qwen3.5-35b-a3b", "llama-3.1-8b", "--gpu-memory-utilization", "0.8"},
                  "--gpu-memory-utilization does not apply to compare");
    check_refused({"verify", log, "--ctx", "32k"}, "--ctx does not apply to verify");
    check_refused({"verify", log, "--gpu", "4090"}, "the log shows no GPU buffer");
    check_refused({"verify", log, "--chart"}, "--chart does not apply to verify");
    check_refused({"qwen3.5-35b-a3b", "--offline"}, "--offline does not apply to the model page");
    check_refused({"qwen3.5-35b-a3b", "--ram-bandwidth", "50"},
                  "--ram-bandwidth does not apply to the model page");
    check_refused({"qwen3.5-35b-a3b", "--gpu-memory-utilization", "0.8"},
                  "--gpu-memory-utilization does not apply to the model page");
}
