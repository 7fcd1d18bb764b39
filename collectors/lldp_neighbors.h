// lldpd's view of who is cabled to each local interface: the output of
// `lldpcli -f json show neighbors` (lldpd 0.9+; src/client/json_writer.c). That writer
// simplifies its tree, so one reader must take both shapes it makes:
//  - a list of one element is the element itself: one interface gives
//    {"lldp": {"interface": {"eth0": {...}}}}, several give {"lldp": {"interface":
//    [{"eth0": {...}}, {"eth1": {...}}]}} (an interface with two neighbours is listed twice);
//  - an object with a string "name" becomes {NAME: rest}: a chassis that sends a SysName is
//    {"chassis": {"tor-r07": {"id": {"type": "mac", "value": "..."}, ...}}}, one that does not
//    is {"chassis": {"id": {...}, ...}};
//  - no neighbour at all is {"lldp": {}}.
// Untrusted bytes (another program's output, any switch's TLVs): fuzzed by
// tests/fuzz/fuzz_json_docs.cpp; recorded shapes in tests/fixtures/lldp/.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace rh {

/// One neighbour of one local interface.
struct LldpNeighbor {
    std::string interface;        ///< local interface ("ens1f0np0")
    std::string via;              ///< protocol: "LLDP", "CDPv2", ...; "" when not given
    std::string chassis_name;     ///< the neighbour's SysName ("r07-tor1"); "" when it sends none
    std::string chassis_id;       ///< chassis ID value ("0c:42:a1:00:00:07")
    std::string chassis_id_type;  ///< its subtype as lldpd names it ("mac", "ip", "local", ...)
    std::string port_id;          ///< the neighbour's port ID ("Ethernet12/1")
    std::string port_id_type;     ///< "ifname", "mac", "local", ...
    std::string port_descr;       ///< its port description; "" when not sent
    bool operator==(const LldpNeighbor&) const = default;
};

/// Neighbours one answer may list.
inline constexpr std::size_t kMaxLldpNeighbors = 4096;

/// Parses `lldpcli -f json show neighbors [details]` output, in the order listed. Errors (op
/// "lldpcli json", cause empty): not JSON, no "lldp" object, and any field read with another
/// type, named by its path ("lldp.interface.ens1f0np0.chassis.id.value: expected a string");
/// more than kMaxLldpNeighbors. Fields not listed above are ignored. Never throws.
Result<std::vector<LldpNeighbor>> parse_lldp_neighbors(std::string_view text);

}  // namespace rh
