#include "canitrun/local_listing.hpp"

#include "canitrun/file_report.hpp"
#include "canitrun/gguf_files.hpp"

namespace canitrun {
namespace {

Result<LocalEntry> planned_entry(const Database& db, const LocalModel& m,
                                 const ReportOptions& options) {
    LocalEntry e;
    e.where = m;
    CANITRUN_TRY_ASSIGN(const auto parts, read_gguf_parts(m.path));
    CANITRUN_TRY_ASSIGN(const GgufModel g, gguf_to_model(parts));
    CANITRUN_TRY_ASSIGN(const auto file, gguf_file_report(db, m.path, g, 0, options));
    const ModelReport& r = file->report;
    e.architecture = g.architecture;
    e.weights = g.weights_bytes;
    e.total = r.selected.total();
    e.gpu = r.selected.on(Device::gpu);
    e.rule = r.rule;
    e.rule_note = r.rule_note;
    e.smallest = r.smallest_gpu;
    if (r.hardware) e.plan = r.hardware->selected.plan.kind;
    return e;
}

}  // namespace

std::vector<LocalEntry> local_listing(const Database& db, const StoreRoots& roots,
                                      const ReportOptions& options) {
    std::vector<LocalEntry> out;
    for (const auto& m : scan_local_stores(roots)) {
        auto e = catch_overflow([&] { return planned_entry(db, m, options); },
                                [&] {
                                    return fail(ErrorKind::bad_input,
                                                "sizes in the file overflow 64 bits",
                                                "the file is corrupt");
                                });
        if (e) {
            out.push_back(std::move(*e));
            continue;
        }
        LocalEntry failed;
        failed.where = m;
        failed.error = e.error().message;
        out.push_back(std::move(failed));
    }
    return out;
}

}  // namespace canitrun
