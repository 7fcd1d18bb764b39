#include "core/sample_json.h"

#include <cerrno>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace rh {

const char* to_string(SampleKind k) {
    switch (k) {
        case SampleKind::counter:
            return "counter";
        case SampleKind::gauge:
            return "gauge";
        case SampleKind::inventory:
            return "inventory";
    }
    return "unknown";
}

nlohmann::json to_json_line(const Sample& s) {
    nlohmann::json j = {{"schema", kSampleSchema},   {"t_s", s.t_s},
                        {"wall_ms", s.wall_ms},      {"host", s.host},
                        {"kind", to_string(s.kind)}, {"series", s.series}};
    if (!s.labels.empty()) j["labels"] = s.labels;
    if (!s.unit.empty()) j["unit"] = s.unit;
    switch (s.kind) {
        case SampleKind::counter:
            j["value"] = s.count ? nlohmann::json(*s.count) : nlohmann::json(nullptr);
            if (s.width_bits != 64) j["width_bits"] = s.width_bits;
            if (s.saturates) j["saturates"] = true;
            break;
        case SampleKind::gauge:
            j["value"] = s.value ? nlohmann::json(*s.value) : nlohmann::json(nullptr);
            break;
        case SampleKind::inventory:
            j["value"] = s.inventory;
            break;
    }
    if (!s.error.empty()) j["error"] = s.error;
    if (!s.source.empty()) j["source"] = s.source;
    if (!s.raw.empty()) j["raw"] = s.raw;
    return j;
}

namespace {

Error field_error(const std::string& field, const std::string& what) {
    return Error{"parse sample", "field \"" + field + "\"", 0, what};
}

/// Optional string field; Error when present with another type.
Result<std::string> opt_string(const nlohmann::json& j, const char* key, bool required = false) {
    const auto it = j.find(key);
    if (it == j.end() || it->is_null()) {
        if (required) return field_error(key, "missing");
        return std::string{};
    }
    if (!it->is_string()) return field_error(key, "expected a string, got " + it->dump());
    return it->get<std::string>();
}

/// A whole number >= 0, whether the JSON holds it signed (built in code) or unsigned (parsed).
bool is_whole_nonnegative(const nlohmann::json& v) {
    return v.is_number_unsigned() || (v.is_number_integer() && v.get<std::int64_t>() >= 0);
}

}  // namespace

Result<Sample> sample_from_json(const nlohmann::json& j) {
    if (!j.is_object()) return Error{"parse sample", "line", 0, "expected a JSON object"};
    const auto schema = j.find("schema");
    if (schema == j.end()) return field_error("schema", "missing");
    if (!schema->is_number_integer() || schema->get<std::int64_t>() != kSampleSchema)
        return field_error("schema", "unsupported version " + schema->dump() +
                                         " (this build reads " + std::to_string(kSampleSchema) +
                                         ")");
    Sample s;
    const auto t = j.find("t_s");
    if (t == j.end() || !t->is_number() || !std::isfinite(t->get<double>()))
        return field_error("t_s", t == j.end() ? "missing" : "expected a number, got " + t->dump());
    s.t_s = t->get<double>();
    if (const auto w = j.find("wall_ms"); w != j.end()) {
        if (!w->is_number_integer()) return field_error("wall_ms", "expected an integer");
        s.wall_ms = w->get<std::int64_t>();
    }
    auto host = opt_string(j, "host", true);
    if (!host) return host.error();
    s.host = *host;
    auto series = opt_string(j, "series", true);
    if (!series) return series.error();
    s.series = *series;
    if (s.series.empty()) return field_error("series", "empty");
    auto kind = opt_string(j, "kind", true);
    if (!kind) return kind.error();
    if (*kind == "counter") {
        s.kind = SampleKind::counter;
    } else if (*kind == "gauge") {
        s.kind = SampleKind::gauge;
    } else if (*kind == "inventory") {
        s.kind = SampleKind::inventory;
    } else {
        return field_error("kind", "unknown kind \"" + *kind + "\" (counter, gauge, inventory)");
    }
    if (const auto l = j.find("labels"); l != j.end() && !l->is_null()) {
        if (!l->is_object()) return field_error("labels", "expected an object");
        for (const auto& [k, v] : l->items()) {
            if (!v.is_string()) return field_error("labels." + k, "expected a string");
            s.labels[k] = v.get<std::string>();
        }
    }
    for (auto [key, dst] : {std::pair{"unit", &s.unit}, std::pair{"error", &s.error},
                            std::pair{"source", &s.source}, std::pair{"raw", &s.raw}}) {
        auto v = opt_string(j, key);
        if (!v) return v.error();
        *dst = *v;
    }
    const auto v = j.find("value");
    if (v == j.end()) return field_error("value", "missing (null for a missing measurement)");
    switch (s.kind) {
        case SampleKind::counter:
            if (!v->is_null()) {
                if (!is_whole_nonnegative(*v))
                    return field_error("value",
                                       "a counter must be a whole number >= 0, got " + v->dump());
                s.count = v->get<std::uint64_t>();
            }
            if (const auto w = j.find("width_bits"); w != j.end()) {
                if (!is_whole_nonnegative(*w) || w->get<std::uint64_t>() < 1 ||
                    w->get<std::uint64_t>() > 64)
                    return field_error("width_bits", "expected 1..64, got " + w->dump());
                s.width_bits = w->get<unsigned>();
            }
            if (const auto sat = j.find("saturates"); sat != j.end()) {
                if (!sat->is_boolean()) return field_error("saturates", "expected true/false");
                s.saturates = sat->get<bool>();
            }
            break;
        case SampleKind::gauge:
            if (!v->is_null()) {
                if (!v->is_number() || !std::isfinite(v->get<double>()))
                    return field_error("value",
                                       "a gauge must be a finite number, got " + v->dump());
                s.value = v->get<double>();
            }
            break;
        case SampleKind::inventory:
            if (!v->is_object()) return field_error("value", "an inventory must be an object");
            s.inventory = *v;
            break;
    }
    return s;
}

void write_sample(std::ostream& out, const Sample& s) {
    out << to_json_line(s).dump() << '\n';
}

Result<Recording> read_samples(std::istream& in, const std::string& name) {
    Recording rec;
    std::string line;
    std::size_t line_no = 0;
    while (std::getline(in, line)) {
        ++line_no;
        const bool last_unterminated = in.eof();  // getline hit EOF before a '\n'
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        auto where = name + ":" + std::to_string(line_no) + ": ";
        nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
        if (j.is_discarded()) {
            if (last_unterminated) {
                rec.notes.push_back(where +
                                    "skipped a truncated last line (recorder stopped "
                                    "mid-write)");
                break;
            }
            return Error{"read recording", name + ":" + std::to_string(line_no), 0,
                         "not valid JSON"};
        }
        auto s = sample_from_json(j);
        if (!s)
            return Error{"read recording", name + ":" + std::to_string(line_no), 0,
                         s.error().subject + ": " + s.error().detail};
        rec.samples.push_back(std::move(*s));
    }
    if (in.bad()) return Error{"read", name, EIO, "read error"};
    return rec;
}

Status check_appendable_recording(const std::string& path) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) return ok_status();
    if (!std::filesystem::is_regular_file(path, ec))
        return Error{"append to", path, 0, "not a regular file"};
    std::ifstream in(path);
    if (!in) return Error{"open", path, errno, {}};
    std::string first;
    while (std::getline(in, first) && first.find_first_not_of(" \t\r") == std::string::npos) {
    }
    if (first.find_first_not_of(" \t\r") == std::string::npos) return ok_status();  // empty
    auto j = nlohmann::json::parse(first, nullptr, false);
    if (j.is_discarded())
        return Error{"append to", path, 0,
                     "not a rocehealth recording (its first line is not JSON)"};
    if (auto s = sample_from_json(j); !s)
        return Error{"append to", path, 0,
                     "not a rocehealth recording (its first line is not a sample: " +
                         s.error().subject + ": " + s.error().detail + ")"};
    // A recorder stopped mid-write leaves a partial last line; samples appended after it would
    // join it into one bad line in the middle, which no reader skips.
    std::ifstream tail(path, std::ios::binary | std::ios::ate);
    char last = '\n';
    if (tail && tail.tellg() > 0) {
        tail.seekg(-1, std::ios::end);
        tail.get(last);
    }
    if (last != '\n')
        return Error{"append to", path, 0,
                     "its last line is incomplete (a recorder stopped mid-write); append to a "
                     "copy without that line, or record to a new file"};
    return ok_status();
}

Result<Recording> read_samples_file(const std::string& path) {
    // A device (/dev/zero) would be read without end; regular files and pipes (<(cmd)) are fine.
    std::error_code ec;
    const auto st = std::filesystem::status(path, ec);
    if (!ec && std::filesystem::is_directory(st)) return Error{"open", path, EISDIR, {}};
    if (!ec && (std::filesystem::is_character_file(st) || std::filesystem::is_block_file(st)))
        return Error{"open", path, 0, "a device, not a recording"};
    std::ifstream in(path);
    if (!in) return errno_error("open", path);
    return read_samples(in, path);
}

}  // namespace rh
