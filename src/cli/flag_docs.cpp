#include "flag_docs.hpp"

#include <vector>

namespace canitrun::cli {
namespace {

// roff: a hyphen is \-, a backslash \e, and a line may not start with a control character.
std::string roff_escaped(std::string_view text) {
    std::string out;
    for (const char c : text) {
        if (c == '-') {
            out += "\\-";
        } else if (c == '\\') {
            out += "\\e";
        } else {
            out += c;
        }
    }
    if (out.starts_with(".") || out.starts_with("'")) out = "\\&" + out;
    return out;
}

// "\fB\-c\fR, \fB\-\-ctx\fR \fIN\fR": the short name first, as the man page has always had it.
std::string man_flag_heading(const FlagRow& row) {
    std::string out;
    if (!row.short_name().empty()) out += "\\fB" + roff_escaped(row.short_name()) + "\\fR, ";
    out += "\\fB" + roff_escaped(row.long_name()) + "\\fR";
    if (!row.value.empty()) out += " \\fI" + roff_escaped(row.value) + "\\fR";
    return out;
}

// The commands that read a row, for rows that not every command reads.
std::string man_readers(const FlagRow& row) {
    std::vector<std::string> names;
    bool every = true;
    for (const CommandInfo& c : command_infos()) {
        if (row.commands.has(c.cmd)) {
            names.push_back(c.cmd == Cmd::page ? "the model page" : std::string(c.name));
        } else if (c.cmd != Cmd::serve && c.cmd != Cmd::site && c.cmd != Cmd::mcp) {
            every = false;
        }
    }
    if (every) return {};
    std::string out = ".I \"(read by ";
    for (std::size_t i = 0; i < names.size(); ++i) {
        out += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + roff_escaped(names[i]);
    }
    return out + ")\"\n";
}

}  // namespace

std::string flag_summary(const FlagRow& row) {
    std::string out;
    int depth = 0;
    for (const char c : row.help) {
        if (c == ';' && depth == 0) break;
        // "table (default), json": the space before a parenthesis goes with it.
        if (c == '(' && depth++ == 0 && !out.empty() && out.back() == ' ') out.pop_back();
        if (depth == 0) out += c;
        if (c == ')' && depth > 0) --depth;
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out;
}

std::vector<const FlagRow*> rows_of(Cmd c) {
    std::vector<const FlagRow*> out;
    for (const FlagRow& row : flag_rows()) {
        if (row.commands.has(c)) out.push_back(&row);
    }
    return out;
}

std::string generated_note(const std::string& shell) {
    return "# Made by `canitrun --generate complete-" + shell +
           "` from the flag table (src/cli/flag_rows*.cpp);\n"
           "# do not edit: tools/flags/regenerate.sh BUILD_DIR writes it again.\n";
}

std::string subcommand_words() {
    std::string out;
    for (const CommandInfo& c : command_infos()) {
        if (c.cmd != Cmd::page) out += (out.empty() ? "" : " ") + std::string(c.name);
    }
    return out;
}

std::string man_options() {
    std::string out =
        ".SH OPTIONS\n"
        "A command refuses an option it does not read (exit status 2); each option below that\n"
        "not every command reads names those that do.\n";
    std::string group;
    for (const FlagRow& row : flag_rows()) {
        if (row.group != group) {
            group = row.group;
            out += ".SS \"" + roff_escaped(group) + "\"\n";
        }
        out += ".TP\n" + man_flag_heading(row) + "\n";
        out += row.man.empty() ? roff_escaped(row.help) + ".\n" : row.man + "\n";
        out += man_readers(row);
    }
    return out;
}

Result<std::string> generated(std::string_view kind) {
    if (kind == "man") return man_options();
    if (kind == "complete-bash") return bash_completion();
    if (kind == "complete-zsh") return zsh_completion();
    if (kind == "complete-fish") return fish_completion();
    return fail(ErrorKind::bad_input,
                "--generate makes man, complete-bash, complete-zsh or "
                "complete-fish, not '" +
                    std::string(kind) + "'",
                "e.g. canitrun --generate man");
}

}  // namespace canitrun::cli
