// libFuzzer harness: the JSON documents an operator hands rocehealth — the rules file, the agent
// config, the acceptance spec and the agent's POST /api/v1/incast body — the one another
// program hands the agent: `lldpcli -f json show neighbors` (collectors/lldp_neighbors.h), and
// the one a peer's responder sends in its inventory reply (core/inventory/inventory_from_json.h,
// read by accept's inventory stage), and a `rules test` scenario's expected.json
// (agent/replay/rules_test.h). The first input byte chooses the decoder, the rest is the document;
// every decoder must return a value or an Error, never crash, hang or throw.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "agent/accept_run/spec.h"
#include "agent/daemon/config.h"
#include "agent/daemon/incast_request.h"
#include "agent/daemon/incast_senders.h"
#include "agent/replay/rules_test.h"
#include "collectors/lldp_neighbors.h"
#include "core/inventory/inventory_from_json.h"
#include "core/json_file.h"
#include "rules/engine/rule_spec.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 1) return 0;
    const unsigned which = data[0] % 7;
    const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
    if (which == 3) {  // the HTTP body is parsed straight from bytes
        // ... and its senders checked against a fleet and an allow-list (incast_senders.h).
        if (auto r = rh::agent::parse_incast_request(text, 300)) {
            const rh::agent::SenderFleet fleet{{"g2", "10.0.0.3:18520", "[fd00::1]"},
                                               {"10.0.9.0/24", "fd00::/64", "g7"}};
            for (const std::string& sender : r->senders)
                (void)rh::agent::sender_refusal(sender, fleet);
        }
        (void)rh::agent::check_allowed_sender(text);
        return 0;
    }
    if (which == 4) {  // lldpcli's output, from bytes: every neighbour has its interface
        if (auto n = rh::parse_lldp_neighbors(text)) {
            if (n->size() > rh::kMaxLldpNeighbors) std::abort();
        } else if (n.error().subject.empty()) {
            std::abort();  // an error must name where
        }
        return 0;
    }
    auto doc = rh::parse_json_text(text, "fuzz.json", "parse");
    if (!doc) return 0;
    switch (which) {
        case 0:
            (void)rh::parse_rules(*doc, "fuzz.json");
            break;
        case 1:
            (void)rh::agent::parse_agent_config(*doc, "fuzz.json");
            break;
        case 2:
            (void)rh::accept::spec_from_json(*doc);
            break;
        case 5:  // every error names at least one field or the document's shape
            if (auto s = rh::snapshot_from_json(*doc); !s && s.error().detail.empty()) std::abort();
            break;
        case 6:  // an error names the file and its problems
            if (auto e = rh::expected_from_json(*doc, "fuzz.json"); !e && e.error().detail.empty())
                std::abort();
            break;
    }
    return 0;
}
