#pragma once
// A hardware answer's speed as text and JSON: the estimate with its error band, what it assumes,
// and the published measurements of the same run beside it.

#include <ostream>
#include <string>

#include "canitrun/hardware_questions.hpp"

namespace canitrun::cli {

// "± 12 %", or "within 2.6x" past 100 %
std::string band_text(double band);

// "167 tokens/s (± 12 %)"; without a band "167 tokens/s (no measured band)" where `say_none`.
std::string rate_with_band(double tokens_per_s, const std::optional<double>& band, bool say_none);

// The "Speed:" lines of the hardware section.
void write_speed(std::ostream& out, const HardwareAnswer& a, const Hardware& h);

class JsonSink;

// The answer's speed as JSON (hardware_json's "speed"), written into a sink (json_sink.hpp).
void write_speed_json(JsonSink& w, const HardwareAnswer& a, const Hardware& h);

}  // namespace canitrun::cli
