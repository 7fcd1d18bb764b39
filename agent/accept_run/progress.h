// The progress line of `rocehealth accept --spec` on a terminal: "\r  [stage] host  NN%" on
// stderr, rewritten in place; silent when disabled (--json or stderr not a TTY).
#pragma once

#include <string>

namespace rh::accept {

class Progress {
  public:
    explicit Progress(bool enabled) : enabled_(enabled) {}
    /// Shows `stage`, what it works on (`what`: a host or pair) and `percent` of the stage.
    void update(const std::string& stage, const std::string& what, double percent);
    /// Ends the line (a newline) if anything was shown.
    void finish();
    bool enabled() const { return enabled_; }

  private:
    bool enabled_;
    bool shown_ = false;
};

}  // namespace rh::accept
