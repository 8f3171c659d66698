#include "model_command.hpp"

#include <nlohmann/json.hpp>

#include "app.hpp"
#include "canitrun/hardware.hpp"
#include "csv_output.hpp"
#include "html_report.hpp"
#include "json_output.hpp"
#include "json_sink.hpp"
#include "text_report.hpp"

namespace canitrun::cli {

std::string quiet_answer(const ModelReport& r) {
    if (r.hardware) return plan_kind_name(r.hardware->selected.plan.kind);
    if (r.vram) return r.vram->best ? r.vram->best->quant->id : "none";
    return r.smallest_gpu != nullptr ? r.smallest_gpu->id : "none";
}

CommandResult model_page_result(const std::shared_ptr<const ModelReport>& report, bool chart_csv,
                                const std::string& footer) {
    CommandResult r;
    r.what = "the model page";
    JsonView json;
    json.write = [report](JsonSink& w) { write_model_report(w, *report); };
    r.views = {std::move(json),
               [report, chart_csv](std::ostream& csv) {
                   if (chart_csv) {
                       write_kv_curve_csv(csv, *report);
                   } else if (report->hardware) {
                       write_placement_csv(csv, *report);
                   } else {
                       write_model_csv(csv, *report);
                   }
               },
               [report] { return std::vector<std::string>{quiet_answer(*report)}; }};
    r.text = [report](std::ostream& out) { write_text_report(out, *report); };
    r.html = [report, footer](std::ostream& out) { write_html_report(out, *report, footer); };
    r.verdict = verdict_of(report->hardware);
    return r;
}

}  // namespace canitrun::cli
