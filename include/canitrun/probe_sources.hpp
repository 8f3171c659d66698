#pragma once
// The two sources detection reads from: the live machine (runs the tools, reads /proc and
// /sys), and a recording of one (a folder of tool outputs and system files; see
// tests/fixtures/probe/README.md). This is the only part of detection that does I/O.

#include <string>

#include "canitrun/detect.hpp"

namespace canitrun {

// Runs the tools for real. A tool that has not finished within `timeout_ms` (a hung driver makes
// nvidia-smi block forever) is killed and counts as absent; so is one whose output passes the
// probe cap. CANITRUN_PROBE_TIMEOUT_MS overrides the default of 10 s (the tests use it).
class LiveProbeSource : public ProbeSource {
  public:
    LiveProbeSource();
    explicit LiveProbeSource(int timeout_ms) : timeout_ms_(timeout_ms) {}
    std::optional<std::string> run(Probe probe) const override;
    std::optional<std::string> read_file(const std::string& path) const override;
    std::vector<std::string> list_dir(const std::string& path) const override;

  private:
    int timeout_ms_ = 10000;
};

class RecordedProbeSource : public ProbeSource {
  public:
    explicit RecordedProbeSource(std::string root) : root_(std::move(root)) {}
    std::optional<std::string> run(Probe probe) const override;
    std::optional<std::string> read_file(const std::string& path) const override;
    std::vector<std::string> list_dir(const std::string& path) const override;

  private:
    std::string root_;
};

}  // namespace canitrun
