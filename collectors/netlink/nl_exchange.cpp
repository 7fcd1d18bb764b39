#include "collectors/netlink/nl_exchange.h"

#include <sys/socket.h>
#include <sys/time.h>

#include <cstdlib>

#include <linux/netlink.h>
#include <netlink/errno.h>
#include <netlink/netlink.h>

namespace rh::nl {

Error nl_lib_error(const std::string& op, const std::string& subject, int nl_err) {
    return Error{op, subject, 0, nl_geterror(nl_err < 0 ? -nl_err : nl_err)};
}

Result<std::vector<Bytes>> exchange(nl_sock* sock, nl_msg* msg, const std::string& op,
                                    const std::string& subject) {
    // A kernel always answers; the timeout only guards against a wedged socket.
    timeval tv{5, 0};
    setsockopt(nl_socket_get_fd(sock), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    nlmsg_hdr(msg)->nlmsg_flags |= NLM_F_ACK;
    if (int e = nl_send_auto(sock, msg); e < 0) return nl_lib_error(op + " send", subject, e);
    const std::uint32_t seq = nlmsg_hdr(msg)->nlmsg_seq;

    std::vector<Bytes> replies;
    for (;;) {
        sockaddr_nl peer{};
        unsigned char* raw = nullptr;
        const int n = nl_recv(sock, &peer, &raw, nullptr);
        std::unique_ptr<unsigned char, decltype(&std::free)> buf(raw, &std::free);
        if (n <= 0) return nl_lib_error(op + " recv", subject, n == 0 ? NLE_FAILURE : n);
        auto* hdr = reinterpret_cast<nlmsghdr*>(buf.get());
        int left = n;
        for (; nlmsg_ok(hdr, left); hdr = nlmsg_next(hdr, &left)) {
            if (hdr->nlmsg_seq != seq) continue;  // stale answer to an earlier request
            if (hdr->nlmsg_type == NLMSG_DONE) return replies;
            if (hdr->nlmsg_type == NLMSG_ERROR) {
                if (hdr->nlmsg_len < NLMSG_LENGTH(sizeof(nlmsgerr)))
                    return Error{op, subject, 0, "truncated netlink error reply"};
                const auto* err = static_cast<const nlmsgerr*>(nlmsg_data(hdr));
                if (err->error == 0) return replies;  // the ACK
                return Error{op, subject, -err->error, {}};
            }
            const auto* p = static_cast<const std::uint8_t*>(nlmsg_data(hdr));
            replies.emplace_back(p, p + nlmsg_datalen(hdr));
        }
    }
}

}  // namespace rh::nl
