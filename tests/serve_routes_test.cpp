// The server's request parser and routes without a socket: what a target may name, and the
// argv each endpoint stands for (written out by hand here), so a parameter mapped to the wrong
// flag or a request that reaches past the routes fails in the unit tests before the loopback
// tests (tests/serve/) run.

#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "answer_cache.hpp"
#include "api_routes.hpp"
#include "ask.hpp"
#include "canitrun/embedded_snapshot.hpp"
#include "catch.hpp"
#include "mcp_server.hpp"
#include "request_target.hpp"

using canitrun::serve::ApiPolicy;
using canitrun::serve::parse_target;
using Argv = std::vector<std::string>;

namespace {

ApiPolicy policy(bool allow_remote = false) {
    return ApiPolicy{canitrun::embedded_database().value(), allow_remote};
}

// The argv for a raw target, or the refusal's status as {"<status>"}.
Argv routed(const std::string& raw, bool allow_remote = false) {
    const auto target = parse_target(raw);
    if (!target) return {std::to_string(target.error().status)};
    const auto argv = canitrun::serve::api_argv(*target, policy(allow_remote));
    if (!argv) return {std::to_string(argv.error().status)};
    return *argv;
}

}  // namespace

TEST_CASE("serve: a target is decoded into a path and parameters") {
    const auto t =
        parse_target("/api/v1/models/llama-3.1-8b?quant=Q4_K_M&gpu=RTX+4090&ctx=%33%32k");
    REQUIRE(t.has_value());
    CHECK(t->path == "/api/v1/models/llama-3.1-8b");
    REQUIRE(t->params.size() == 3);
    CHECK(t->params[0].key == "quant");
    CHECK(t->params[0].value == "Q4_K_M");
    CHECK(t->params[1].value == "RTX 4090");                     // '+' is a space in a query
    CHECK(t->params[2].value == "32k");                          // %33 %32 are '3' '2'
    CHECK(parse_target("/?&&a=1&").value().params.size() == 1);  // empty pairs skipped
}

TEST_CASE("serve: targets that could reach past the routes are refused") {
    for (const char* bad : {"", "api", "/a/../b", "/..", "/a/./b", "/%2e%2e/x", "/a%2fb", "/a%2Fb",
                            "/a%5cb", "/a\\b", "/a%00b", "/a//b", "/a%zz", "/a%4", "/\xff",
                            "/a?q=%C3%28", "/a?q=\x01", "/a?=1", "/a?x=1&x=2"}) {
        INFO(bad);
        const auto t = parse_target(bad);
        REQUIRE_FALSE(t.has_value());
        CHECK(t.error().status == 400);
    }
    std::string many = "/a?";
    for (int i = 0; i < 33; ++i) many += "p" + std::to_string(i) + "=1&";  // one past 32
    CHECK(parse_target(many).error().status == 400);
    CHECK(parse_target("/a?v=" + std::string(257, 'x')).error().status == 400);
    CHECK(parse_target("/a?v=" + std::string(256, 'x')).has_value());
    CHECK(parse_target("/" + std::string(4096, 'a')).error().status == 414);
}

// serve warns when --bind reaches past this machine: every address of 127.0.0.0/8 and ::1
// (and ::ffff:127.0.0.1, the same in IPv6's mapped form) are loopback; the wildcards, a LAN
// address and a host name are not.
TEST_CASE("serve: --bind warns unless the address is loopback") {
    using canitrun::serve::loopback_bind;
    for (const char* a : {"127.0.0.1", "127.0.0.2", "127.255.255.254", "::1", "localhost",
                          "::ffff:127.0.0.1", "0:0:0:0:0:0:0:1"}) {
        CHECK(loopback_bind(a));
    }
    for (const char* a : {"0.0.0.0", "::", "192.168.1.10", "128.0.0.1", "::2", "::ffff:10.0.0.1",
                          "example.org", "", "127.0.0.1 ", "localhost."}) {
        CHECK_FALSE(loopback_bind(a));
    }
}

TEST_CASE("serve: each endpoint is the argv of the same question") {
    CHECK(routed("/api/v1/models/llama-3.1-8b?gpu=RTX+4090&quant=Q8_0") ==
          Argv{"llama-3.1-8b", "--quant=Q8_0", "--gpu=RTX 4090", "--json"});
    CHECK(routed("/api/v1/models/llama-3.1-8b?kv_type=q8_0&flash_attn=on&parallel=2") ==
          Argv{"llama-3.1-8b", "--kv-type=q8_0", "--parallel=2", "--flash-attn=on", "--json"});
    CHECK(routed("/api/v1/gpus/gpt-oss-20b?ctx=32k") ==
          Argv{"gpus", "gpt-oss-20b", "--ctx=32k", "--json"});
    CHECK(routed("/api/v1/fit?gpu=2x3090&sort=speed") ==
          Argv{"fit", "--gpu=2x3090", "--sort=speed", "--json"});
    CHECK(routed("/api/v1/compare?models=llama-3.1-8b,gpt-oss-20b&ctx=8k") ==
          Argv{"compare", "llama-3.1-8b", "gpt-oss-20b", "--ctx=8k", "--json"});
    CHECK(routed("/api/v1/models?family=qwen") == Argv{"models", "--family=qwen", "--json"});
    CHECK(routed("/api/v1/gpu-list?min_vram=24") == Argv{"gpu-list", "--min-vram=24", "--json"});
    CHECK(routed("/api/v1/quants") == Argv{"quants", "--json"});
    // A value that looks like a flag stays a value: one --flag=value token.
    CHECK(routed("/api/v1/models/llama-3.1-8b?quant=--data=/etc") ==
          Argv{"llama-3.1-8b", "--quant=--data=/etc", "--json"});
}

TEST_CASE("serve: refused questions and their statuses") {
    CHECK(routed("/api/v1/nothing") == Argv{"404"});
    CHECK(routed("/api/v1/models/no-such-model") == Argv{"404"});
    CHECK(routed("/api/v1/models/--data") == Argv{"404"});
    CHECK(routed("/api/v1/models/model.gguf") == Argv{"404"});  // a file is never read
    CHECK(routed("/api/v1/models/llama-3.1-8b?data=/etc") == Argv{"400"});
    CHECK(routed("/api/v1/models/llama-3.1-8b?gpu=auto") == Argv{"400"});
    CHECK(routed("/api/v1/fit") == Argv{"400"});  // fit needs gpu=
    CHECK(routed("/api/v1/compare?models=llama-3.1-8b") == Argv{"400"});
    CHECK(routed("/api/v1/compare?models=a,b,c,d,e,f,g,h,i") == Argv{"400"});
    CHECK(routed("/api/v1/models/hf:org/repo") == Argv{"403"});
    CHECK(routed("/api/v1/models/hf:org/repo", true) == Argv{"hf:org/repo", "--json"});
}

TEST_CASE("serve: a kept answer is the one asked afresh") {
    const Argv argv = {"llama-3.1-8b", "--ctx=12345", "--json"};
    const auto fresh = canitrun::cli::ask(argv);
    const auto first = canitrun::serve::cached_ask(argv);
    const auto kept = canitrun::serve::cached_ask(argv);
    CHECK(fresh.code == 0);
    CHECK(first.out == fresh.out);
    CHECK(kept.out == fresh.out);
    CHECK(kept.code == fresh.code);
}

// run() keeps one CLI11 app per thread and resets it before each parse (app.cpp's Parser):
// each question, asked after the others on one thread, gets what a thread of its own (a fresh
// app) gives. The list mixes commands, refusals, a parse error, help and a flag set in one
// question and left out of the next, which a reset that forgot anything would carry over.
TEST_CASE("serve: the thread's reused parser answers as a fresh one") {
    const std::vector<Argv> questions = {
        {"llama-3.1-8b", "--ctx=8k", "--gpu=RTX 4090", "--json"},
        {"llama-3.1-8b", "--json"},
        {"gpus", "llama-3.1-8b", "--quant=Q8_0", "--json"},
        {"llama-3.1-8b", "--ctx=abc", "--json"},
        {"llama-3.1-8b", "--no-such-flag"},
        {"llama-3.1-8b", "--json", "--quiet"},
        {"models", "--family=qwen", "--json"},
        {"models", "--json"},
        {"gpus", "--help"},
        {"llama-3.1-8b", "--vram=8", "--quiet"},
        {"llama-3.1-8b", "--quiet"},
        {"compare", "llama-3.1-8b", "gpt-oss-20b", "--kv-type=q8_0", "--json"},
        {"llama-3.1-8b", "--json"},
    };
    std::vector<canitrun::cli::Asked> fresh(questions.size());
    for (std::size_t i = 0; i < questions.size(); ++i) {
        std::thread([&, i] { fresh[i] = canitrun::cli::ask(questions[i]); }).join();
    }
    for (std::size_t i = 0; i < questions.size(); ++i) {
        const auto again = canitrun::cli::ask(questions[i]);
        INFO(questions[i][1]);
        CHECK(again.code == fresh[i].code);
        CHECK(again.out == fresh[i].out);
        CHECK(again.err == fresh[i].err);
    }
    CHECK(fresh[1].out != fresh[0].out);  // the --gpu of the first is not carried over
    CHECK(fresh[3].code == 2);
    CHECK(fresh[4].code == 2);
}

TEST_CASE("mcp: a notification has no reply, a request has its id back") {
    CHECK_FALSE(canitrun::serve::mcp_reply(
                    R"({"jsonrpc":"2.0","method":"notifications/initialized"})", policy())
                    .has_value());
    const auto reply =
        canitrun::serve::mcp_reply(R"({"jsonrpc":"2.0","id":"a7","method":"ping"})", policy());
    REQUIRE(reply.has_value());
    const auto doc = nlohmann::json::parse(*reply);
    CHECK(doc["id"] == "a7");
    CHECK(doc["result"] == nlohmann::json::object());
    const auto bad = nlohmann::json::parse(*canitrun::serve::mcp_reply("[1,2]", policy()));
    CHECK(bad["error"]["code"] == -32600);
}
