// One netlink request/reply exchange on a libnl socket, handing back each reply's payload
// bytes (after the nlmsghdr) for the pure parsers in collectors/netlink/nl_raw.h. Internal to
// collectors/ (libnl headers are private to rh_collectors).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <netlink/msg.h>
#include <netlink/socket.h>

#include "collectors/netlink/nl_raw.h"
#include "core/result.h"

namespace rh::nl {

struct MsgDeleter {
    void operator()(nl_msg* m) const { nlmsg_free(m); }
};
using Msg = std::unique_ptr<nl_msg, MsgDeleter>;

/// Sends `msg` (NLM_F_REQUEST|NLM_F_ACK are added) and collects the payload (bytes after the
/// nlmsghdr) of every reply with its sequence number, until the ACK or NLMSG_DONE. A netlink
/// error reply becomes an Error with its errno. `op`/`subject` name it in errors.
Result<std::vector<Bytes>> exchange(nl_sock* sock, nl_msg* msg, const std::string& op,
                                    const std::string& subject);

/// Error for a libnl (negative NLE_*) return code.
Error nl_lib_error(const std::string& op, const std::string& subject, int nl_err);

}  // namespace rh::nl
