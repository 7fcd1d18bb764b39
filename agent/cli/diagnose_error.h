// What `diagnose --json` prints on an exit 2 before (or instead of) a diagnosis: the messages the
// run wrote to stderr, copied as they pass (StderrCopy), turned into one JSON document
// (diagnose_error_json), so a script reading stdout always gets JSON.
#pragma once

#include <streambuf>
#include <string>

#include <nlohmann/json.hpp>

namespace rh::cli {

/// A streambuf that passes everything written to it on to `to` and keeps a copy (the first
/// 64 KiB): installed as std::cerr's buffer for one run.
class StderrCopy : public std::streambuf {
  public:
    explicit StderrCopy(std::streambuf* to) : to_(to) {}
    const std::string& text() const { return text_; }

  protected:
    int overflow(int c) override;
    std::streamsize xsputn(const char* s, std::streamsize n) override;
    int sync() override { return to_->pubsync(); }

  private:
    static constexpr std::size_t kKeep = 65536;
    std::streambuf* to_;
    std::string text_;
};

/// {"schema": 1, "verdict": "error", "error": the first "rocehealth diagnose: ..." line of
/// `messages` that is not a note (without the prefix; "could not run (no message)" when there is
/// none), "notes": the notes, "messages": every non-empty line}.
nlohmann::json diagnose_error_json(const std::string& messages);

}  // namespace rh::cli
