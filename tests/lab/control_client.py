#!/usr/bin/python3
"""A control-port client written from the protocol's description alone (probes/wire/oob_protocol.h,
probes/auth/handshake.h), not from rocehealth's code: what a stranger on the network can send.

usage: control_client.py HOST PORT ACTION [KEYFILE]
  bare CMD       send {"cmd": CMD} with no handshake; print the reply's cmd and error
  auth KEYFILE   prove KEYFILE's key, then ask for inventory; print each step's answer
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

MAGIC, JSON_TYPE, VERSION = 0x52484F42, 10, 5


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


def transcript(role, cn, sn):
    return b"rocehealth fabric auth\0" + struct.pack(">H", VERSION) + role + b"\0" + cn + sn


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
        s.sendall(frame({"cmd": "auth", "nonce": cn.hex()}))
        ch = recv(s)
        say("challenge", ch)
        if ch.get("cmd") != "auth_challenge":
            return
        sn = bytes.fromhex(ch["nonce"])
        mine = hmac.new(key, transcript(b"responder", cn, sn), hashlib.sha256).hexdigest()
        print(f"responder-proof: {'ok' if hmac.compare_digest(mine, ch['proof']) else 'wrong'}")
        proof = hmac.new(key, transcript(b"client", cn, sn), hashlib.sha256).hexdigest()
        s.sendall(frame({"cmd": "auth_proof", "proof": proof}))
        ok = recv(s)
        say("proof", ok)
        if ok.get("cmd") == "auth_ok":
            s.sendall(frame({"cmd": "inventory"}))
            say("inventory", recv(s))


main()
