#include "usage_error.hpp"

#include <regex>
#include <string>
#include <vector>

#include "canitrun/name_match.hpp"
#include "flag_uses.hpp"

namespace canitrun::cli {
namespace {

// Where a refusal happened: the command, how it was reached, and its help line.
struct Where {
    Cmd cmd = Cmd::page;
    bool before_command = false;  // a subcommand follows words CLI11 left over at the top
    std::string help;             // "canitrun gpus --help"
};

Error bad(std::string message, std::string hint) {
    return Error{ErrorKind::bad_input, std::move(message), std::move(hint)};
}

// "the model page" / "gpus" as the subject of a sentence, with the help line for the hint.
std::string see_help(const Where& w) {
    return "'" + w.help + "' lists what " + command_words(w.cmd) + " takes";
}

// CLI11 names the option first: "--ctx: 1 required N missing", "--port: Value ...".
std::string option_named(const std::string& what) {
    const std::size_t end = what.find_first_of(": ");
    return what.substr(0, end);
}

// A flag no command has (a flag of another command is misplaced_flag's): the nearest of this
// command's flags, as the names' did-you-mean does.
Error unknown_flag(const std::string& extra, const Where& w) {
    const std::string name = extra.substr(0, extra.find('='));
    std::vector<std::string> flags;
    for (const FlagRow& row : flag_rows()) {
        if (row.commands.has(w.cmd)) flags.push_back(row.long_name());
    }
    const std::vector<std::string> near =
        name.starts_with("--") ? suggest(name, flags, 1) : std::vector<std::string>{};
    return bad("unknown flag '" + name + "'",
               near.empty() ? see_help(w) : "did you mean " + near.front() + "?");
}

// Operands past the ones a command takes ("canitrun gpus a b": b).
Error extra_operands(const std::vector<std::string>& extras, const Where& w) {
    std::string words;
    for (const std::string& e : extras) words += (words.empty() ? "'" : " '") + e + "'";
    const std::string subject = command_words(w.cmd);
    switch (command_info(w.cmd).operand) {
        case Operand::model:
            return bad(subject + " takes one model, and was also given " + words,
                       "to set models side by side: canitrun compare MODEL MODEL");
        case Operand::file:
            return bad(subject + " reads one file, and was also given " + words,
                       "give one per run");
        case Operand::folder:
            return bad(subject + " writes into one folder, and was also given " + words,
                       "give one folder");
        case Operand::models:
        case Operand::none:
            break;
    }
    return bad(subject + " takes no operand, and was given " + words, see_help(w));
}

Error extras_error(const std::vector<std::string>& top, const std::vector<std::string>& sub,
                   const Where& w) {
    // A flag of the table given where this command has no place for it.
    if (auto before = misplaced_flag(top, w.cmd, w.before_command)) return *before;
    if (auto after = misplaced_flag(sub, w.cmd, false)) return *after;
    std::vector<std::string> all = top;
    all.insert(all.end(), sub.begin(), sub.end());
    for (const std::string& e : all) {
        if (e.size() > 1 && e.starts_with("-")) return unknown_flag(e, w);
    }
    return extra_operands(all, w);
}

// The operand a command requires, missing ("canitrun gpus").
Error missing_operand(const Where& w) {
    const std::string c = command_words(w.cmd);
    switch (command_info(w.cmd).operand) {
        case Operand::model:
            return bad(c + " needs a model",
                       "e.g. canitrun " + c + " qwen3.5-35b-a3b; 'canitrun models' lists them");
        case Operand::models:
            return bad(c + " needs two or more models",
                       "e.g. canitrun " + c + " qwen3.5-35b-a3b gpt-oss-20b");
        case Operand::file:
            return bad(c + " needs a file", "e.g. canitrun " + c + " llama-server.log");
        case Operand::folder:
            return bad(c + " needs a folder to write into", "e.g. canitrun " + c + " ./site");
        case Operand::none:
            break;
    }
    return bad(c + " is missing something it requires", see_help(w));
}

// "--ctx: 1 required N missing", "--gpu: At Most 1 required but received 2".
Error argument_mismatch(const std::string& what, const Where& w) {
    const std::string flag = option_named(what);
    const FlagRow* row = find_flag(flag);
    static const std::regex at_most(R"(At Most 1 required but received (\d+))");
    std::smatch m;
    if (std::regex_search(what, m, at_most)) {
        // A list of GPUs is one value ("4090,3090"); --host is the flag given once per machine.
        const bool gpus = row != nullptr && row->value == "GPUS";
        return bad(
            flag + " is given " + m[1].str() + " times, and takes one value",
            gpus ? "give it once, with every GPU in it: " + flag + " 4090,3090" : "give it once");
    }
    if (what.find("missing") != std::string::npos) {
        const std::string value = row != nullptr && !row->value.empty() ? row->value : "VALUE";
        return bad(flag + " needs a value", "write " + flag + " " + value + "; " + see_help(w));
    }
    return bad(flag + " has the wrong number of values", see_help(w));
}

// A check's refusal: CLI::Range's "Value abc not in range 0 to 65535", else the project's own
// validators' words (non_empty_value), which read after the flag's name.
Error validation_error(const std::string& what, const Where& w) {
    const std::string flag = option_named(what);
    static const std::regex range(R"(Value (.*) not in range (-?\d+) to (-?\d+))");
    std::smatch m;
    if (std::regex_search(what, m, range)) {
        return bad(flag + " takes a whole number from " + m[2].str() + " to " + m[3].str() +
                       ", not '" + m[1].str() + "'",
                   see_help(w));
    }
    const std::size_t colon = what.find(": ");
    const std::string reason = colon == std::string::npos ? what : what.substr(colon + 2);
    return bad(flag + " " + reason, "give one, or leave out " + flag);
}

// "Could not convert: --json = abc", "--json: too many inputs for a flag": a switch given a
// value it cannot read.
Error conversion_error(const std::string& what, const Where& w) {
    static const std::regex convert(R"(Could not convert: (\S+) = (.*))");
    std::smatch m;
    if (std::regex_search(what, m, convert)) {
        const FlagRow* row = find_flag(m[1].str());
        if (row != nullptr && row->value.empty()) {
            return bad(m[1].str() + " is a switch, and takes no value ('" + m[2].str() + "')",
                       "give " + m[1].str() + " alone");
        }
        return bad(m[1].str() + " cannot read '" + m[2].str() + "'", see_help(w));
    }
    const std::string flag = option_named(what);
    return bad(flag + " is a switch, and takes no value", "give " + flag + " alone");
}

// "A requires B" and "A excludes B" as CLI11 words them: A is the flag given, B the other.
Error pair_error(const std::string& what, const std::string& verb, const Where& w) {
    const std::size_t at = what.find(" " + verb + " ");
    if (at == std::string::npos) return bad(what, see_help(w));
    const std::string a = what.substr(0, at);
    const std::string b = what.substr(at + verb.size() + 2);
    if (verb == "requires") return bad(a + " needs " + b, "give " + b + " too, or leave out " + a);
    return bad(a + " and " + b + " cannot be given together", "give one of them");
}

Error translate(const CLI::ParseError& e, const std::vector<std::string>& top,
                const std::vector<std::string>& sub, const Where& w) {
    const std::string what = e.what();
    if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr) return extras_error(top, sub, w);
    if (dynamic_cast<const CLI::RequiredError*>(&e) != nullptr) return missing_operand(w);
    if (dynamic_cast<const CLI::ArgumentMismatch*>(&e) != nullptr) {
        return argument_mismatch(what, w);
    }
    if (dynamic_cast<const CLI::ValidationError*>(&e) != nullptr) return validation_error(what, w);
    if (dynamic_cast<const CLI::ConversionError*>(&e) != nullptr) return conversion_error(what, w);
    if (dynamic_cast<const CLI::RequiresError*>(&e) != nullptr) {
        return pair_error(what, "requires", w);
    }
    if (dynamic_cast<const CLI::ExcludesError*>(&e) != nullptr) {
        return pair_error(what, "excludes", w);
    }
    return bad(what, "run '" + w.help + "' for usage");
}

}  // namespace

Error usage_error(const CLI::ParseError& e, const CLI::App& app) {
    const auto subs = app.get_subcommands();
    const CLI::App* sub = subs.empty() ? nullptr : subs.front();
    Where w;
    w.cmd = parsed_command(sub);
    w.before_command = sub != nullptr;
    w.help = sub != nullptr ? "canitrun " + sub->get_name() + " --help" : "canitrun --help";
    return translate(e, app.remaining(),
                     sub != nullptr ? sub->remaining() : std::vector<std::string>{}, w);
}

Error usage_error(const CLI::ParseError& e, const CLI::App& app, Cmd service) {
    Where w;
    w.cmd = service;
    w.help = "canitrun " + std::string(command_info(service).name) + " --help";
    return translate(e, {}, app.remaining(), w);
}

}  // namespace canitrun::cli
