"""hostile_stdio.py -- a decoder process taken over (PFX_HOSTILE=fds), when
pfextract's standard input is something it could write through.

  socket   stdin and stdout are one socket, as in an inetd or socat
           service: the archive is sent into it, the report read back.
  tty      stdin is a terminal (-f -), which is also the controlling one.
  orphan   stdin is a socket (so a relay reads it, and the decoder process
           is the relay's child), with PFX_HOSTILE=orphan: a decoder that
           unties itself from its parent's death and process group and
           ignores SIGTERM must still not outlive the run.

Asserted: no FORGED byte comes back (written to the socket or to the
terminal, or pushed into the terminal's input, which the terminal echoes),
and with the socket, the run succeeds and DEST holds the archive's tree.
Prints one line per failure and exits 1 if any.
Usage: python3 tests/hostile_stdio.py PFEXTRACT ARCHIVE DEST_PARENT
"""
import os
import pty
import select
import socket
import subprocess
import sys
import time

FAILS = []


def bad(what):
    FAILS.append(what)
    print("hostile_stdio.py: FAIL: " + what, file=sys.stderr)


def by_socket(pfx, archive, dest):
    os.mkdir(dest)
    ours, theirs = socket.socketpair()
    env = dict(os.environ, PFX_HOSTILE="fds")
    p = subprocess.Popen([pfx, "--report=json", "-xf", "-", "-C", dest,
                          "--idle-timeout=5"], stdin=theirs, stdout=theirs,
                         stderr=subprocess.PIPE, env=env)
    theirs.close()
    with open(archive, "rb") as f:
        ours.sendall(f.read())
    ours.shutdown(socket.SHUT_WR)
    ours.settimeout(30)
    got = b""
    while True:
        d = ours.recv(65536)
        if not d:
            break
        got += d
    rc = p.wait(timeout=30)
    err = p.stderr.read()
    if b"FORGED" in got or b"FORGED" in err:
        bad("socket: FORGED came back on the socket or stderr")
    if rc != 0:
        bad("socket: status %d: %s" % (rc, err.decode(errors="replace")))
    if not os.path.exists(os.path.join(dest, "d", "a.txt")):
        bad("socket: DEST lacks the archive's d/a.txt")


def alive(tag):
    """The pids of processes whose environment holds PFX_HOSTILE_RUN=TAG."""
    pids = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/environ" % d, "rb") as f:
                env = f.read().split(b"\0")
        except OSError:
            continue
        if ("PFX_HOSTILE_RUN=" + tag).encode() in env:
            pids.append(int(d))
    return pids


def by_orphan(pfx, archive, dest):
    os.mkdir(dest)
    tag = "orphan-%d" % os.getpid()
    ours, theirs = socket.socketpair()
    env = dict(os.environ, PFX_HOSTILE="orphan", PFX_HOSTILE_RUN=tag)
    p = subprocess.Popen([pfx, "-xf", "-", "-C", dest, "--idle-timeout=2"],
                         stdin=theirs, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, env=env)
    theirs.close()
    # The decoder reads nothing: the run ends (idle) with the archive
    # unread, and the socket closed under this send.
    try:
        with open(archive, "rb") as f:
            ours.sendall(f.read())
        ours.shutdown(socket.SHUT_WR)
    except (BrokenPipeError, ConnectionResetError):
        pass
    err = p.communicate(timeout=30)[1]
    if p.returncode != 2 or b"sent nothing for 2 s" not in err:
        bad("orphan: status %d: %s" % (p.returncode,
                                      err.decode(errors="replace")))
    time.sleep(1)
    left = alive(tag)
    if left:
        bad("orphan: the decoder process outlived the run: %r" % left)
    for pid in left:
        os.kill(pid, 9)


def by_tty(pfx, dest):
    os.mkdir(dest)
    pid, master = pty.fork()
    if pid == 0:
        os.environ["PFX_HOSTILE"] = "fds"
        os.execv(pfx, [pfx, "-xf", "-", "-C", dest, "--idle-timeout=2"])
    got = b""
    end = time.time() + 20
    while time.time() < end:
        r, _, _ = select.select([master], [], [], 0.2)
        if r:
            try:
                d = os.read(master, 4096)
            except OSError:
                break
            if not d:
                break
            got += d
        elif os.waitpid(pid, os.WNOHANG)[0] == pid:
            pid = 0
            break
    if pid:
        try:
            os.kill(pid, 9)
        except ProcessLookupError:
            pass
        os.waitpid(pid, 0)
    # What was pushed into the input is echoed, and so read here too.
    if b"FORGED" in got:
        bad("tty: FORGED reached the terminal: %r" % got[-200:])


def main():
    pfx, archive, top = sys.argv[1:4]
    by_socket(pfx, archive, os.path.join(top, "socket-dest"))
    by_tty(pfx, os.path.join(top, "tty-dest"))
    by_orphan(pfx, archive, os.path.join(top, "orphan-dest"))
    sys.exit(1 if FAILS else 0)


if __name__ == "__main__":
    main()
