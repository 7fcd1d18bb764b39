// Recordings: samples as JSON lines, one self-describing sample per line (schema version, host,
// series, labels, unit, value, source). Written by `rocehealth record`, read by
// `rocehealth diagnose --replay`. Field reference: store/README.md.
#pragma once

#include <istream>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.h"
#include "core/sample.h"

namespace rh {

/// Version written in every line's "schema" field; readers reject other versions.
inline constexpr int kSampleSchema = 1;

nlohmann::json to_json_line(const Sample& s);

/// Parses one line's JSON into a Sample. Error names the offending field and says what is
/// wrong (missing, wrong type, unknown kind, negative counter, unsupported schema).
Result<Sample> sample_from_json(const nlohmann::json& j);

/// Writes `s` as one line (no pretty printing) followed by '\n'.
void write_sample(std::ostream& out, const Sample& s);

struct Recording {
    std::vector<Sample> samples;     ///< in file order
    std::vector<std::string> notes;  ///< e.g. a truncated last line that was skipped
};

/// Reads a whole recording. Blank lines are skipped. Error: "<name>:<line>: <what>" for the
/// first bad line. Exception: a last line without a newline that does not parse (a recorder
/// killed mid-write) is skipped with a note, so the rest of the evidence is still used.
Result<Recording> read_samples(std::istream& in, const std::string& name);

/// Same, from a file. Error when it cannot be opened (names the path).
Result<Recording> read_samples_file(const std::string& path);

/// Whether `path` may be appended to as a recording (`record --append`): it does not exist, is
/// empty, or its first line reads as a sample. Error (naming the path and why) otherwise, so
/// samples never land at the end of some other file.
Status check_appendable_recording(const std::string& path);

}  // namespace rh
