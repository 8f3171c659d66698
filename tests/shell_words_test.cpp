#include "shell_words.hpp"

#include "catch.hpp"
#include "run_binary.hpp"

using namespace canitrun::cli;

TEST_CASE("shell words: plain arguments stay as they are") {
    CHECK(shell_word("-ngl") == "-ngl");
    CHECK(shell_word("OLLAMA_CONTEXT_LENGTH=8192") == "OLLAMA_CONTEXT_LENGTH=8192");
    CHECK(shell_word("30,18") == "30,18");
    CHECK(shell_word("unsloth/Qwen3.5-35B-A3B-GGUF:Q4_K_M") ==
          "unsloth/Qwen3.5-35B-A3B-GGUF:Q4_K_M");
}

TEST_CASE("shell words: what the shell would read otherwise is single-quoted") {
    // POSIX 2.2.2: inside single quotes every character is literal; a quote itself must leave
    // them: ' then \' then '.
    CHECK(shell_word("blk\\.(1|2)\\.ffn_.*_exps=CPU") == "'blk\\.(1|2)\\.ffn_.*_exps=CPU'");
    CHECK(shell_word("{\"enable_thinking\": false}") == "'{\"enable_thinking\": false}'");
    CHECK(shell_word("it's") == "'it'\\''s'");
    CHECK(shell_word("") == "''");
    CHECK(shell_join({"-ot", "exps=CPU", "a b"}) == "-ot exps=CPU 'a b'");
}

TEST_CASE("shell words: the page's llama-server lines are quoted as --gpu's are") {
    // The page's sampling line carries chat-template kwargs as JSON: one argument, in quotes,
    // the same rule the --gpu answer's fitted line uses.
    const canitrun::test::Outcome o = canitrun::test::run_cli({"qwen3.5-35b-a3b"});
    REQUIRE(o.code == 0);
    CHECK(o.out.find("--chat-template-kwargs '{") != std::string::npos);
}
