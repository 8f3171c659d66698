#pragma once
// `canitrun site DIR`: the server's pages and documents as static files, so any static host or
// CDN can serve them with no canitrun process behind it:
//   index.html, assets/             the index (search over the JSON lists) and its scripts
//   models/ID.html                  each model's page, the calculator on its default answer
//   gpus/ID.html                    each GPU's page: every model that runs on it (fit)
//   api/v1/models.json, gpu-list.json, quants.json, models/ID.json   the CLI's documents
// Each document is cli::ask()'s stdout, as the server's are.

#include <iosfwd>
#include <string>

namespace canitrun::serve {

// Writes the site into `dir`; a line of totals on `out` unless null. Returns the exit code (2
// when a file cannot be written, with one line on `err`).
int write_site(const std::string& dir, std::ostream* out, std::ostream& err);

}  // namespace canitrun::serve
