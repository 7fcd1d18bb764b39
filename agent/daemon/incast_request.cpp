#include "agent/daemon/incast_request.h"

#include "agent/daemon/config.h"
#include "agent/daemon/json_fields.h"
#include "core/json_file.h"
#include "probes/wire/stream_protocol.h"

namespace rh::agent {

namespace {

std::string check_sender(const std::string& s) {
    return is_host_port(s) ? "" : "expected HOST or HOST:PORT (port 1..65535), got \"" + s + "\"";
}

Error bad_request(const std::string& detail) {
    return Error{"request", "POST /api/v1/incast", 0, detail};
}

}  // namespace

Result<IncastRequest> parse_incast_request(std::string_view body, double max_duration_s) {
    // Strict: a key given twice or a number out of range (1e400) is named, not a crash.
    const auto parsed = parse_json_text(std::string(body), "body", "");
    if (!parsed) return bad_request(parsed.error().message());
    const nlohmann::json& doc = *parsed;
    if (!doc.is_object())
        return bad_request("body: expected a JSON object, got " + std::string(doc.type_name()));
    IncastRequest r;
    JsonErrors errors;
    {
        ObjectReader o(doc, "", errors);
        if (!o.has("senders")) o.fail("senders", "missing (the hosts that send to this one)");
        o.string_list("senders", r.senders, 1, kMaxIncastSenders, true, check_sender);
        o.integer("size_bytes", r.size_bytes, 16, 16 << 20);
        if (const std::string why = check_message_size(r.size_bytes); !why.empty())
            o.fail("size_bytes", why);
        o.number("duration_s", r.duration_s, 0.1, max_duration_s, "seconds");
        o.integer("qps_per_sender", r.qps_per_sender, 1, stream::kMaxQps);
        o.integer("queue_depth", r.queue_depth, 1, limits::kMaxQueueDepth);
        o.string("op", r.op);
        if (!stream::parse_op(r.op))
            o.fail("op", "expected \"write\" or \"send\", got \"" + r.op + "\"");
        o.boolean("victim", r.victim);
    }
    if (!errors.empty()) return bad_request(errors.joined());
    return r;
}

}  // namespace rh::agent
