#pragma once
// The two sources detection reads from: the live machine (runs the tools, reads /proc and
// /sys), and a recording of one (a folder of tool outputs and system files; see
// tests/fixtures/probe/README.md). This is the only part of detection that does I/O.

#include <string>

#include "canitrun/detect.hpp"

namespace canitrun {

class LiveProbeSource : public ProbeSource {
  public:
    std::optional<std::string> run(Probe probe) const override;
    std::optional<std::string> read_file(const std::string& path) const override;
    std::vector<std::string> list_dir(const std::string& path) const override;
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
