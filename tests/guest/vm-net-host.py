#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The host side of guest/plans/vm-devices.sh's networking checks, run by
# tests/guest/test-vm-devices.sh next to the guest:
#   1. a listener on 127.0.0.1 (the guest reaches it as 10.0.2.2:PORT
#      through slirp): sends "host-TOKEN", reads the guest's one line;
#   2. a free loopback port for QEMU's hostfwd (as for ssh): once the
#      guest's console says it listens, connects and sends "fwd-TOKEN".
#
#   vm-net-host.py --token T --console FILE --timeout SECONDS
#
# Prints "LISTEN_PORT FORWARD_PORT" at once, then "guest_reply=LINE" and
# "forward_sent=1" as each exchange ends (in either order), and exits when
# both have or the time is up.
import argparse
import socket
import sys
import threading
import time

MARK = b"# vm-devices: listening on tcp"


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def report(line):
    with REPORT_LOCK:
        print(line, flush=True)


REPORT_LOCK = threading.Lock()


def serve(listener, token, deadline):
    listener.settimeout(max(1.0, deadline - time.monotonic()))
    try:
        conn, _ = listener.accept()
    except OSError as e:
        report("guest_reply=<no connection: %s>" % e)
        return
    with conn:
        conn.settimeout(60)
        conn.sendall(b"host-%s\n" % token.encode())
        line = conn.makefile("rb").readline().decode(errors="replace").strip()
        report("guest_reply=%s" % line)


def forward(port, token, console, deadline):
    # Wait for the guest's line on the console (it grows line by line).
    while time.monotonic() < deadline:
        try:
            with open(console, "rb") as f:
                if any(l.startswith(MARK) for l in f):
                    break
        except FileNotFoundError:
            pass
        time.sleep(0.1)
    else:
        return
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=60) as s:
            s.sendall(b"fwd-%s\n" % token.encode())
        report("forward_sent=1")
    except OSError as e:
        print("vm-net-host: forward to %d: %s" % (port, e), file=sys.stderr)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--token", required=True)
    ap.add_argument("--console", required=True)
    ap.add_argument("--timeout", type=float, default=300)
    a = ap.parse_args()
    deadline = time.monotonic() + a.timeout
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    fport = free_port()
    print(listener.getsockname()[1], fport, flush=True)
    threads = [threading.Thread(target=serve, args=(listener, a.token, deadline)),
               threading.Thread(target=forward, args=(fport, a.token, a.console, deadline))]
    for t in threads:
        t.daemon = True
        t.start()
    for t in threads:
        t.join(max(0.0, deadline - time.monotonic()))


if __name__ == "__main__":
    main()
