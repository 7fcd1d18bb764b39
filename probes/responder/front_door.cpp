#include "probes/responder/front_door.h"

#include <poll.h>
#include <sys/socket.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <list>
#include <thread>
#include <vector>

#include "probes/auth/handshake.h"
#include "probes/responder/refusal_log.h"

namespace rh {

// Named, not anonymous: FrontDoor::Impl holds these types (-Wsubobject-linkage).
namespace front_door_internal {

using Clock = std::chrono::steady_clock;
constexpr int kSlice_ms = 200;       // how often the loop looks at the stop flag and deadlines
constexpr int kInlineSend_ms = 200;  // inline answers go to a new socket: its buffer is empty
constexpr int kAcceptsPerPoll = 64;  // a flood cannot keep the loop from its lobby

void log_line(const std::string& peer, const std::string& what) {
    std::fprintf(stderr, "rocehealth responder: %s: %s\n", peer.c_str(), what.c_str());
}

/// Best-effort fixed error frame (the client may be gone).
void send_error_frame(const tcp::Socket& s, const std::string& text) {
    oob::Message m;
    m.type = oob::Type::error;
    m.text = text;
    (void)tcp::send_msg(s, m, tcp::deadline_in(kInlineSend_ms));
}

void send_json_error(const tcp::Socket& s, const std::string& text) {
    (void)tcp::send_json(s, {{"cmd", "error"}, {"error", text}}, tcp::deadline_in(kInlineSend_ms));
}

/// A connection that has not proven the fabric key, read by the accept loop without a thread.
struct LobbyEntry {
    tcp::Socket s;
    std::string group;
    Clock::time_point deadline;
    bool hello_done = false;
    std::vector<std::byte> buf = std::vector<std::byte>(oob::kHeaderSize);
    std::size_t have = 0;
};

enum class Step { more, frame, closed };

/// Why a lobby connection ended: the log line, its kind (lines are rate-limited per address and
/// kind, refusal_log.h) and whether the peer is told.
struct Ending {
    std::string why;  ///< empty: the peer closed between frames, nothing to log
    std::string kind;
    bool tell = false;
};

/// Reads what has arrived without blocking. `frame`: e.buf holds one whole frame. `closed`: the
/// peer left or sent what cannot go on (`end`). The length in a header is checked before any of
/// the body is read.
Step read_step(LobbyEntry& e, Ending& end) {
    for (;;) {
        const ssize_t n =
            ::recv(e.s.fd(), e.buf.data() + e.have, e.buf.size() - e.have, MSG_DONTWAIT);
        if (n == 0) {
            if (e.have)
                end = {"bad handshake: recv " + e.s.peer() + ": peer closed the connection after " +
                           std::to_string(e.have) + " of " + std::to_string(e.buf.size()) +
                           " bytes",
                       "truncated"};
            return Step::closed;
        }
        if (n < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) return Step::more;
            end = {"bad handshake: recv " + e.s.peer() + ": " + std::strerror(errno), "recv"};
            return Step::closed;
        }
        e.have += static_cast<std::size_t>(n);
        if (e.have < e.buf.size()) continue;
        if (e.buf.size() == oob::kHeaderSize) {
            auto len = oob::frame_length(e.buf);
            if (!len) {  // garbage or another version: closed unanswered, as before
                Error err = len.error();
                err.subject = e.s.peer();
                // Kinds apart: an old probe client and an old control client are both named.
                const bool version = err.detail.rfind("unsupported version", 0) == 0;
                const bool json = err.detail.find("json frame") != std::string::npos;
                end = {"bad handshake: " + err.message(), !version ? "header"
                                                          : json   ? "version json"
                                                                   : "version"};
                // A peer of another version learns it too: a fixed error frame, which every
                // version reads.
                if (version)
                    send_error_frame(e.s, "unsupported version: responder speaks " +
                                              std::to_string(oob::kVersion) + " / json " +
                                              std::to_string(oob::kJsonVersion) +
                                              ": run one rocehealth version on both ends");
                return Step::closed;
            }
            if (*len > kPreauthFrameBytes) {
                end = {"frame of " + std::to_string(*len) +
                           " bytes refused: " + std::to_string(kPreauthFrameBytes) +
                           " at most before the fabric key is proven",
                       "oversize", true};
                return Step::closed;
            }
            e.buf.resize(*len);
            continue;
        }
        return Step::frame;
    }
}

/// One connection's place in a pool, left when it ends.
struct Place {
    Admission& adm;
    Pool pool;
    std::string group;
    Place(Admission& a, Pool p, std::string g) : adm(a), pool(p), group(std::move(g)) {}
    Place(const Place&) = delete;
    Place& operator=(const Place&) = delete;
    ~Place() { adm.leave(pool, group); }
};

struct Session {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> finished;
};

}  // namespace front_door_internal

using namespace front_door_internal;

struct FrontDoor::Impl {
    FrontDoorOptions o;
    FrontDoorHandlers h;
    Admission adm;
    auth::FailureLimiter failures;
    RefusalLog refusals;
    std::list<LobbyEntry> lobby;  // in accept order: the front is the oldest
    std::list<Session> sessions;
    const std::atomic<bool>* stop = nullptr;

    Impl(FrontDoorOptions opts, FrontDoorHandlers handlers)
        : o(opts), h(std::move(handlers)), adm(opts.limits) {}

    /// A line about a refused or closed pre-auth connection, at most one per address per 10 s.
    void refused(const std::string& peer, const std::string& group, const std::string& kind,
                 const std::string& what) {
        if (refusals.note(group, kind, Clock::now()))
            log_line(peer, what + " (more such from this address within 10 s are only counted)");
    }

    template <typename Body>
    void spawn(Body body, const std::string& peer) {
        auto finished = std::make_shared<std::atomic<bool>>(false);
        sessions.push_back({std::thread([body = std::move(body), peer, finished]() mutable {
                                try {
                                    body();
                                } catch (const std::exception& e) {
                                    log_line(peer, std::string("session aborted: ") + e.what());
                                }
                                finished->store(true);
                            }),
                            finished});
    }

    void reap(bool all) {
        for (auto it = sessions.begin(); it != sessions.end();) {
            if (all || it->finished->load()) {
                it->thread.join();
                it = sessions.erase(it);
            } else {
                ++it;
            }
        }
    }

    void accept_new(const tcp::Socket& listener) {
        for (int i = 0; i < kAcceptsPerPoll; ++i) {
            std::string peer;
            auto a = tcp::accept(listener, 0, peer);
            if (!a) {  // out of descriptors, say: the listener stays readable, so pause
                std::fprintf(stderr, "rocehealth responder: %s\n", a.error().message().c_str());
                std::this_thread::sleep_for(std::chrono::milliseconds(kSlice_ms));
                return;
            }
            if (!*a) return;
            tcp::Socket s = std::move(**a);
            s.set_max_frame(kPreauthFrameBytes);
            const std::string group = address_group(auth::address_of_peer(peer));
            Refusal r = adm.enter(Pool::lobby, group);
            if (r == Refusal::pool_full && !lobby.empty()) {
                // The oldest waiter makes room: a client that sends at once is never locked out
                // by connections that sit idle.
                LobbyEntry& old = lobby.front();
                refused(old.s.peer(), old.group, "evicted",
                        "closed: oldest of " + std::to_string(o.limits.lobby) +
                            " connections waiting without the fabric key, for a newer one");
                adm.leave(Pool::lobby, old.group);
                lobby.pop_front();
                r = adm.enter(Pool::lobby, group);
            }
            if (r != Refusal::none) {
                const std::string text = adm.refusal_text(r, Pool::lobby);
                send_error_frame(s, text);
                refused(peer, group, "cap", text);
                continue;
            }
            LobbyEntry e;
            e.s = std::move(s);
            e.group = group;
            e.deadline = Clock::now() + std::chrono::milliseconds(o.first_frame_ms);
            lobby.push_back(std::move(e));
        }
    }

    /// The lobby entry is readable. False when it leaves the lobby (closed or handed on).
    bool on_readable(LobbyEntry& e) {
        Ending end;
        const Step st = read_step(e, end);
        if (st == Step::more) return true;
        if (st == Step::closed) {
            if (!end.why.empty()) {
                if (end.tell) send_error_frame(e.s, end.why);
                refused(e.s.peer(), e.group, end.kind, end.why);
            }
            adm.leave(Pool::lobby, e.group);
            return false;
        }
        auto f = tcp::decode_frame(e.buf);
        e.buf.assign(oob::kHeaderSize, std::byte{0});
        e.have = 0;
        if (!f) {
            send_error_frame(e.s, f.error().detail);
            refused(e.s.peer(), e.group, "decode", "bad handshake: " + f.error().message());
            adm.leave(Pool::lobby, e.group);
            return false;
        }
        const Next next = dispatch(e, std::move(*f));
        if (next == Next::stay) return true;
        if (next == Next::close) adm.leave(Pool::lobby, e.group);
        return false;
    }

    /// What became of a lobby entry after its frame: it waits for another (after a hello), it is
    /// answered or refused and closes, or a session took it (with its place, moved to a pool).
    enum class Next { stay, close, handed };

    Next dispatch(LobbyEntry& e, tcp::Received f) {
        const std::string peer = e.s.peer();
        if (f.json) {
            const std::string cmd = (*f.json)["cmd"].get<std::string>();
            if (cmd == "hello") {
                if (e.hello_done) {
                    send_json_error(e.s, "one hello before auth: prove the fabric key");
                    refused(peer, e.group, "hello",
                            "closed: a second hello without the fabric key");
                    return Next::close;
                }
                e.hello_done = true;  // the deadline stays where it was
                return tcp::send_json(e.s, h.hello(), tcp::deadline_in(kInlineSend_ms))
                           ? Next::stay
                           : Next::close;
            }
            if (cmd == "auth") return start_auth(e, std::move(*f.json));
            const std::string why = auth::process_key() ? auth::kNotProven : auth::kNoKeyHere;
            send_json_error(e.s, why);
            refused(peer, e.group, "command", "'" + cmd + "' refused: " + why);
            return Next::close;
        }
        switch (f.fixed->type) {
            case oob::Type::query:
                h.query(e.s);
                return Next::close;
            case oob::Type::probe_request:
                return start_probe(e, *f.fixed);
            default:
                send_error_frame(e.s, "expected query, probe_request, hello or auth");
                refused(peer, e.group, "type",
                        std::string("bad handshake: unexpected first message ") +
                            oob::to_string(f.fixed->type));
                return Next::close;
        }
    }

    /// Moves the entry's place to `to`; false (refused by name, the place still in the lobby)
    /// when `to` is full or the address has its share of it.
    bool move_place(LobbyEntry& e, Pool to, bool json) {
        const Refusal r = adm.move(Pool::lobby, to, e.group);
        if (r == Refusal::none) return true;
        const std::string text = adm.refusal_text(r, to);
        json ? send_json_error(e.s, text) : send_error_frame(e.s, text);
        refused(e.s.peer(), e.group, "busy", text);
        return false;
    }

    Next start_probe(LobbyEntry& e, const oob::Message& req) {
        if (!move_place(e, Pool::probe, false)) return Next::close;
        const std::string peer = e.s.peer();
        spawn(
            [this, s = std::move(e.s), req, group = e.group]() mutable {
                Place place(adm, Pool::probe, group);
                h.probe(s, req, false);
            },
            peer);
        return Next::handed;
    }

    Next start_auth(LobbyEntry& e, nlohmann::json cmd) {
        const std::string peer = e.s.peer();
        // Latency probes stay open to an address that failed (a host mid key rotation keeps its
        // mesh); only its control connections wait out the block.
        if (bool first = false;
            failures.blocked(auth::address_of_peer(peer), Clock::now(), first)) {
            if (first)
                log_line(peer, "control connections refused for " +
                                   std::to_string(auth::FailureLimiter::kWindow.count()) +
                                   " s: " + std::to_string(auth::FailureLimiter::kMaxFailures) +
                                   " failed fabric-key proofs from this address");
            send_json_error(e.s, auth::kTooManyFailures);
            return Next::close;
        }
        if (!move_place(e, Pool::auth, true)) return Next::close;
        spawn([this, s = std::move(e.s), cmd = std::move(cmd), group = e.group,
               peer]() mutable { serve_keyed(s, cmd, group, peer); },
              peer);
        return Next::handed;
    }

    /// Session thread: the handshake (auth pool), then one keyed session (keyed pool).
    void serve_keyed(tcp::Socket& s, const nlohmann::json& cmd, const std::string& group,
                     const std::string& peer) {
        Place place(adm, Pool::auth, group);
        const auto key = auth::process_key();
        const auto host_key = auth::process_host_key();
        if (auto v = auth::verify_client(s, cmd, key.get(), tcp::deadline_in(o.handshake_ms),
                                         host_key.get());
            !v) {
            log_line(peer, "control connection refused: " + v.error().detail);
            // Only a wrong proof is a guess at the key: a client that found our proof wrong (a
            // rotation half done) or dialled another address must not lock its host out.
            if (key && v.error().err_no == EACCES)
                failures.failed(auth::address_of_peer(peer), Clock::now());
            return;
        }
        if (const Refusal r = adm.move(Pool::auth, Pool::keyed, group); r != Refusal::none) {
            send_json_error(s, adm.refusal_text(r, Pool::keyed));
            log_line(peer, "refused after the key was proven: " + adm.refusal_text(r, Pool::keyed));
            return;
        }
        place.pool = Pool::keyed;  // left when the session ends
        s.set_max_frame(0);        // the protocol's own limit from now on
        auto next = tcp::recv_any(s, tcp::deadline_in(o.handshake_ms), *stop);
        if (!next) {
            if (!tcp::closed_between_messages(next.error()))
                log_line(peer, "no command after the key was proven: " + next.error().message());
            return;
        }
        if (next->json) return h.control(s, *next->json);
        if (next->fixed->type == oob::Type::probe_request) return h.probe(s, *next->fixed, true);
        send_error_frame(s, "expected a command or probe_request after auth");
        log_line(peer, std::string("a ") + oob::to_string(next->fixed->type) +
                           " frame after the key was proven");
    }

    void expire(Clock::time_point now) {
        for (auto it = lobby.begin(); it != lobby.end();) {
            if (now < it->deadline) {
                ++it;
                continue;
            }
            refused(it->s.peer(), it->group, "idle",
                    it->hello_done
                        ? "closed: no auth within " + std::to_string(o.first_frame_ms) +
                              " ms of the connection (after its hello)"
                        : "closed: no message within " + std::to_string(o.first_frame_ms) + " ms");
            adm.leave(Pool::lobby, it->group);
            it = lobby.erase(it);
        }
    }

    void run(const tcp::Socket& listener, const std::atomic<bool>& stop_flag) {
        stop = &stop_flag;
        std::vector<pollfd> fds;
        while (!stop->load()) {
            reap(false);
            if (h.between) h.between();
            fds.assign(1, pollfd{listener.fd(), POLLIN, 0});
            for (const auto& e : lobby) fds.push_back(pollfd{e.s.fd(), POLLIN, 0});
            if (::poll(fds.data(), fds.size(), kSlice_ms) < 0 && errno != EINTR) {
                std::fprintf(stderr, "rocehealth responder: poll: %s\n", std::strerror(errno));
                std::this_thread::sleep_for(std::chrono::milliseconds(kSlice_ms));
                continue;
            }
            std::size_t i = 1;
            for (auto it = lobby.begin(); it != lobby.end(); ++i) {
                if (fds[i].revents != 0 && !on_readable(*it))
                    it = lobby.erase(it);
                else
                    ++it;
            }
            if (fds[0].revents & POLLIN) accept_new(listener);
            const auto now = Clock::now();
            expire(now);
            if (auto line = refusals.summary(now))
                std::fprintf(stderr, "rocehealth responder: %s\n", line->c_str());
        }
        if (auto line = refusals.flush(Clock::now()))
            std::fprintf(stderr, "rocehealth responder: %s\n", line->c_str());
        for (auto& e : lobby) adm.leave(Pool::lobby, e.group);
        lobby.clear();
        reap(true);
    }
};

FrontDoor::FrontDoor(FrontDoorOptions o, FrontDoorHandlers h)
    : impl_(std::make_unique<Impl>(o, std::move(h))) {}

FrontDoor::~FrontDoor() {
    impl_->reap(true);
}

void FrontDoor::run(const tcp::Socket& listener, const std::atomic<bool>& stop) {
    impl_->run(listener, stop);
}

const Admission& FrontDoor::admission() const {
    return impl_->adm;
}

}  // namespace rh
