#include "core/recording/sample_json.h"

#include <cerrno>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/inventory/inventory.h"
#include "core/inventory/inventory_from_json.h"
#include "core/json/json_reader.h"

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
            j["value"] = s.inventory
                             ? snapshot_json_tree(*s.inventory, InventoryJson::without_counters)
                             : nlohmann::json(nullptr);
            break;
    }
    if (!s.error.empty()) j["error"] = s.error;
    if (!s.source.empty()) j["source"] = s.source;
    if (!s.raw.empty()) j["raw"] = s.raw;
    return j;
}

namespace {

/// A whole number >= 0, whether the JSON holds it signed (built in code) or unsigned (parsed).
bool is_whole_nonnegative(const nlohmann::json& v) {
    return v.is_number_unsigned() || (v.is_number_integer() && v.get<std::int64_t>() >= 0);
}

/// The sample's value by kind (`value` is required: null for a missing measurement).
void read_value(const JsonReader& r, Sample& s) {
    if (!r.json().contains("value")) {
        r.error_at("value", "missing (null for a missing measurement)");
        return;
    }
    r.allow("value");
    const nlohmann::json& v = r.json().at("value");
    switch (s.kind) {
        case SampleKind::counter:
            if (!v.is_null()) {
                if (is_whole_nonnegative(v))
                    s.count = v.get<std::uint64_t>();
                else
                    r.error_at("value", "a counter must be a whole number >= 0, got " + v.dump());
            }
            if (r.has("width_bits"))
                if (const auto w = r.member("width_bits").uint_in(1, 64))
                    s.width_bits = static_cast<unsigned>(*w);
            s.saturates = r.opt_bool("saturates", false);
            break;
        case SampleKind::gauge:
            if (!v.is_null()) {
                if (v.is_number() && std::isfinite(v.get<double>()))
                    s.value = v.get<double>();
                else
                    r.error_at("value", "a gauge must be a finite number, got " + v.dump());
            }
            break;
        case SampleKind::inventory:
            // Decoded here, at the edge: the store and the rules keep the typed facts. Facts
            // that do not decode leave the sample without them, `error` saying why (the
            // inventory checks report it for the host; the rest of the recording is read).
            if (!v.is_object()) {
                r.error_at("value", "an inventory must be an object");
            } else if (auto snap = snapshot_from_json(v)) {
                s.inventory = std::make_shared<const Snapshot>(std::move(*snap));
            } else {
                s.error = snap.error().message();
            }
            break;
    }
}

}  // namespace

Result<Sample> sample_from_json(const nlohmann::json& j) {
    if (!j.is_object()) return Error{"parse sample", "line", 0, "expected a JSON object"};
    JsonErrors errors;
    const JsonReader r(j, "", errors);
    // The schema first: a line of another version is refused for that alone, not for the
    // fields it may name differently.
    const auto schema = j.find("schema");
    if (schema == j.end()) return Error{"parse sample", "field \"schema\"", 0, "missing"};
    if (!schema->is_number_integer() || schema->get<std::int64_t>() != kSampleSchema)
        return Error{"parse sample", "field \"schema\"", 0,
                     "unsupported version " + schema->dump() + " (this build reads " +
                         std::to_string(kSampleSchema) + ")"};
    Sample s;
    if (!r.has("t_s")) r.error_at("t_s", "missing");
    s.t_s = r.opt_number_in("t_s", -1e300, 1e300, "seconds").value_or(0);
    s.wall_ms = r.opt_int("wall_ms").value_or(s.wall_ms);
    s.host = r.req_string("host");
    s.series = r.req_string("series");
    if (s.series.empty() && r.has("series") && j.at("series").is_string())
        r.error_at("series", "empty");
    const std::string kind = r.req_string("kind");
    if (kind == "counter") {
        s.kind = SampleKind::counter;
    } else if (kind == "gauge") {
        s.kind = SampleKind::gauge;
    } else if (kind == "inventory") {
        s.kind = SampleKind::inventory;
    } else if (r.has("kind") && j.at("kind").is_string()) {
        r.error_at("kind", "unknown kind \"" + kind + "\" (counter, gauge, inventory)");
    }
    for (const auto& [label, value] : r.opt_string_map("labels")) s.labels[label] = value;
    s.unit = r.opt_string("unit");
    s.error = r.opt_string("error");
    s.source = r.opt_string("source");
    s.raw = r.opt_string("raw");
    if (errors.empty()) read_value(r, s);  // a value is read by its kind, once the kind is known
    if (!errors.empty()) {
        const JsonError& first = errors[0];
        return Error{"parse sample", "field \"" + first.path + "\"", 0, first.message};
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
