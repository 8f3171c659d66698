// Every kind of refusal CLI11 makes of a command line (usage_error.hpp), through the real binary:
// one `canitrun: error: ...` line in canitrun's words, with the fix, never CLI11's own text
// ("The following arguments were not expected: c b" listed the extras backwards; "At Most 1
// required but received 2"; "Could not convert"; "model is required"). The expected lines are
// written by hand from the command line given.

#include <string>
#include <vector>

#include "catch.hpp"
#include "refusal.hpp"
#include "run_binary.hpp"

using canitrun::test::check_refusal;
using canitrun::test::has;
using canitrun::test::Outcome;
using canitrun::test::run_canitrun;

namespace {

// The whole line, as a user reads it, and none of CLI11's phrases in it.
void check_line(const std::vector<std::string>& args, const std::string& line) {
    const Outcome o = run_canitrun(args);
    check_refusal(o, args, line);
    CHECK(o.err == "canitrun: error: " + line + "\n");
    for (const char* cli11 : {"The following", "At Most", "Could not convert", "is required",
                              "for usage", "Value ", "required"}) {
        CHECK_FALSE(has(o.err, cli11));
    }
}

}  // namespace

TEST_CASE("usage errors: operands past the ones a command takes, in the order given") {
    check_line({"gpus", "llama-3.1-8b", "b", "c"},
               "gpus takes one model, and was also given 'b' 'c'; to set models side by side: "
               "canitrun compare MODEL MODEL");
    check_line({"models", "x", "y"},
               "models takes no operand, and was given 'x' 'y'; 'canitrun models --help' lists "
               "what models takes");
    check_line({"verify", "a.log", "b.log"},
               "verify reads one file, and was also given 'b.log'; give one per run");
    check_line({"site", "out", "more"},
               "site writes into one folder, and was also given 'more'; give one folder");
}

TEST_CASE("usage errors: an unknown flag gets the nearest of the command's flags") {
    // --cxt is two letters swapped from --ctx: edit distance 2, within suggest()'s bound.
    check_line({"llama-3.1-8b", "--cxt", "8k"}, "unknown flag '--cxt'; did you mean --ctx?");
    check_line({"llama-3.1-8b", "--bogus"},
               "unknown flag '--bogus'; 'canitrun --help' lists what the model page takes");
    check_line({"mcp", "--bogus"},
               "unknown flag '--bogus'; 'canitrun mcp --help' lists what mcp takes");
}

TEST_CASE("usage errors: a missing operand or value") {
    check_line({"gpus"},
               "gpus needs a model; e.g. canitrun gpus qwen3.5-35b-a3b; 'canitrun models' lists "
               "them");
    check_line({"compare"},
               "compare needs two or more models; e.g. canitrun compare qwen3.5-35b-a3b "
               "gpt-oss-20b");
    check_line({"verify"}, "verify needs a file; e.g. canitrun verify llama-server.log");
    check_line({"llama-3.1-8b", "--ctx"},
               "--ctx needs a value; write --ctx N; 'canitrun --help' lists what the model page "
               "takes");
    check_line({"fit", "--sort"},
               "--sort needs a value; write --sort ORDER; 'canitrun fit --help' lists what fit "
               "takes");
}

TEST_CASE("usage errors: a flag given twice or a value a check refuses") {
    check_line({"llama-3.1-8b", "--gpu", "4090", "--gpu", "3090"},
               "--gpu is given 2 times, and takes one value; give it once, with every GPU in it: "
               "--gpu 4090,3090");
    check_line({"llama-3.1-8b", "--quant", "Q4_K_M", "--quant", "Q8_0"},
               "--quant is given 2 times, and takes one value; give it once");
    check_line({"llama-3.1-8b", "--quant", ""},
               "--quant needs a value, not an empty string; give one, or leave out --quant");
    // --timeout's bounds are the flag table's (1 to 3600 seconds).
    check_line({"hf:org/repo", "--timeout", "0"},
               "--timeout takes a whole number from 1 to 3600, not '0'; 'canitrun --help' lists "
               "what the model page takes");
    check_line({"llama-3.1-8b", "--json=abc"},
               "--json is a switch, and takes no value ('abc'); give --json alone");
}
