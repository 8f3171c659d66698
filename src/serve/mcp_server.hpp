#pragma once
// `canitrun mcp`: a Model Context Protocol server on stdin/stdout (JSON-RPC 2.0, one message a
// line, as the spec's stdio transport sends them). Its tools are the CLI's questions and each
// result's text is the document `canitrun ... --json` prints for the same arguments: the
// tools map their arguments to the /api/v1 routes (api_routes.hpp), so MCP, HTTP and the CLI
// share one path.

#include <iosfwd>
#include <optional>
#include <string>

#include "api_routes.hpp"

namespace canitrun::serve {

inline constexpr std::size_t kMaxMcpMessageBytes = 1 << 20;

// The reply to one message (a line), or nothing for a notification.
std::optional<std::string> mcp_reply(const std::string& line, const ApiPolicy& policy);

// Reads messages until end of input; returns the exit code (0).
int run_mcp(std::istream& in, std::ostream& out, const ApiPolicy& policy);

}  // namespace canitrun::serve
