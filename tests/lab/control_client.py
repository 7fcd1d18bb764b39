#!/usr/bin/python3
"""A control-port client written from the protocol's description alone (probes/wire/oob_protocol.h,
probes/auth/handshake.h), not from rocehealth's code: what a stranger on the network can send.

usage: control_client.py HOST PORT ACTION [KEYFILE]
  bare CMD       send {"cmd": CMD} with no handshake; print the reply's cmd and error
  auth KEYFILE   prove KEYFILE's key (binding the address dialled), then ask for inventory in a
                 MAC'd frame and check the reply's MAC; print each step's answer
  old            a protocol-4 hello (before the handshake existed); print what comes back
Each printed line is "step: cmd: error text" (error "-" when none); exit 0 unless the socket
failed in a way the test did not expect."""
import hashlib
import hmac
import json
import os
import socket
import struct
import sys

MAGIC, JSON_TYPE, VERSION = 0x52484F42, 10, 6


def frame(obj, version=VERSION):
    body = json.dumps(obj).encode()
    return struct.pack(">IHHI", MAGIC, version, JSON_TYPE, 12 + len(body)) + body


def recv_exact(s, n):
    b = b""
    while len(b) < n:
        c = s.recv(n - len(b))
        if not c:
            return None
        b += c
    return b


def recv(s):
    try:
        return recv_frame(s)
    except OSError:  # reset: the responder closed with our bytes unread
        return {"cmd": "closed"}


def recv_frame(s):
    h = recv_exact(s, 12)
    if h is None:
        return {"cmd": "closed"}
    _, _, typ, length = struct.unpack(">IHHI", h)
    body = recv_exact(s, length - 12)
    if body is None:
        return {"cmd": "closed"}
    if typ != JSON_TYPE:
        return {"cmd": "fixed-frame", "error": body[212:].split(b"\0")[0].decode()}
    return json.loads(body)


def say(step, reply):
    print(f"{step}: {reply.get('cmd')}: {reply.get('error', '-')}", flush=True)


def transcript(role, to, cn, sn):
    return (b"rocehealth fabric auth\0" + struct.pack(">H", VERSION) + role + b"\0" + to + b"\0" +
            cn + sn)


def hkdf(ikm, salt, info):
    """RFC 5869 HKDF-SHA256, 32 bytes."""
    prk = hmac.new(salt, ikm, hashlib.sha256).digest()
    return hmac.new(prk, info + b"\x01", hashlib.sha256).digest()


def frame_keys(key, to, cn, sn):
    """(client to responder, responder to client)."""
    def info(direction):
        return b"rocehealth frame key\0" + struct.pack(">H", VERSION) + to + b"\0" + direction
    return (hkdf(key, cn + sn, info(b"client to responder")),
            hkdf(key, cn + sn, info(b"responder to client")))


def frame_mac(k, seq, f):
    return hmac.new(k, struct.pack(">Q", seq) + f, hashlib.sha256).digest()


def dialled(s):
    """The address the socket is connected to, as the auth request carries it."""
    host, port = s.getpeername()[:2]
    if host.startswith("::ffff:") and "." in host:
        host = host[7:]
    return (f"[{host}]:{port}" if ":" in host else f"{host}:{port}").encode()


def main():
    host, port, action = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    s = socket.create_connection((host, port), timeout=10)
    if action == "bare":
        s.sendall(frame({"cmd": sys.argv[4]}))
        say(sys.argv[4], recv(s))
    elif action == "old":
        s.sendall(frame({"cmd": "hello"}, version=4))
        say("old", recv(s))
    elif action == "auth":
        key = open(sys.argv[4], "rb").read()
        cn = os.urandom(32)
        to = dialled(s)
        s.sendall(frame({"cmd": "auth", "nonce": cn.hex(), "to": to.decode()}))
        ch = recv(s)
        say("challenge", ch)
        if ch.get("cmd") != "auth_challenge":
            return
        sn = bytes.fromhex(ch["nonce"])
        mine = hmac.new(key, transcript(b"responder", to, cn, sn), hashlib.sha256).hexdigest()
        print(f"responder-proof: {'ok' if hmac.compare_digest(mine, ch['proof']) else 'wrong'}")
        proof = hmac.new(key, transcript(b"client", to, cn, sn), hashlib.sha256).hexdigest()
        s.sendall(frame({"cmd": "auth_proof", "proof": proof}))
        ok = recv(s)
        say("proof", ok)
        if ok.get("cmd") == "auth_ok":
            # Every frame from here on: its bytes, then HMAC(direction key, seq | bytes).
            up, down = frame_keys(key, to, cn, sn)
            f = frame({"cmd": "inventory"})
            s.sendall(f + frame_mac(up, 0, f))
            h = recv_exact(s, 12)
            if h is None:
                say("inventory", {"cmd": "closed"})
                return
            body = recv_exact(s, struct.unpack(">IHHI", h)[3] - 12)
            trailer = recv_exact(s, 32)
            say("inventory", json.loads(body))
            good = trailer is not None and hmac.compare_digest(trailer,
                                                               frame_mac(down, 0, h + body))
            print(f"reply-mac: {'ok' if good else 'wrong'}")

main()
