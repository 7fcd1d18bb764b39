// Progress of `rocehealth accept --spec` on stderr. On a terminal (tty): one line
// "\r  [stage] host  NN%" rewritten in place and a line per stage's verdict. Otherwise (log: a CI
// job, a file) a timestamped line per stage start and end and per host or pair, so a log shows
// where a long run is: "2026-12-03T11:20:05Z accept: [bandwidth] bandwidth-g1-g2". Off with --json.
#pragma once

#include <string>

namespace rh::accept {

enum class ProgressMode { off, tty, log };

class Progress {
  public:
    explicit Progress(ProgressMode mode) : mode_(mode) {}
    /// Shows `stage`, what it works on (`what`: a host or pair) and `percent` of the stage; tty
    /// also shows `detail` (", 12 s"). log prints a line when `what` changes within the stage.
    void update(const std::string& stage, const std::string& what, double percent,
                const std::string& detail = "");
    /// A stage begins, with its time limit in seconds (log: a line).
    void stage_started(const std::string& stage, double limit_s);
    /// A stage ended with `verdict` after `duration_s` (tty: "  stage: verdict"; log: a line).
    void stage_ended(const std::string& stage, const std::string& verdict, double duration_s);
    /// Ends the tty line (a newline) if anything was shown.
    void finish();
    bool enabled() const { return mode_ != ProgressMode::off; }

  private:
    void log_line(const std::string& text);
    ProgressMode mode_;
    bool shown_ = false;
    std::string last_stage_, last_what_;  ///< log: the item printed last
};

}  // namespace rh::accept
