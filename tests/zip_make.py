#!/usr/bin/env python3
"""zip_make.py [--hostile] DIR -- the zips tests/test_zip.c reads (with
--hostile: only the hostile ones, for tests/formats.sh): real ones made by
Info-ZIP's zip, Python's zipfile and jar (each tool that is installed),
and hostile ones, each a good zip with one lie in it.

Real zips go to DIR/real-*.zip, hostile ones to DIR/hostile-*.zip; the
name after the prefix says what it is.  A tool that is missing makes
nothing (the test says so)."""
import io
import os
import random
import shutil
import struct
import subprocess
import sys
import zipfile
import zlib


def tree(top):
    """A tree of every kind of member a zip holds."""
    os.makedirs(os.path.join(top, "d/e"))
    os.makedirs(os.path.join(top, "empty"))
    with open(os.path.join(top, "a.txt"), "w") as f:
        f.write("hello\n")
    with open(os.path.join(top, "d/numbers.txt"), "w") as f:
        f.write("".join("%d\n" % i for i in range(200000)))
    with open(os.path.join(top, "d/e/zero"), "w"):
        pass
    with open(os.path.join(top, "name with spaces"), "w") as f:
        f.write("x" * 1000)
    with open(os.path.join(top, "rand.bin"), "wb") as f:
        f.write(os.urandom(3 << 20))
    os.chmod(os.path.join(top, "d/e"), 0o750)
    os.chmod(os.path.join(top, "a.txt"), 0o600)
    os.chmod(os.path.join(top, "name with spaces"), 0o755)
    os.symlink("a.txt", os.path.join(top, "link"))
    os.symlink("../../a.txt", os.path.join(top, "d/e/up"))
    os.utime(os.path.join(top, "a.txt"), (981173106, 981173106))


def info_zip(out, src):
    if shutil.which("zip") is None:
        return
    subprocess.run(["zip", "-qry", os.path.join(out, "real-zip-ry.zip"),
                    "."], cwd=src, check=True)
    # -X: no extra fields (DOS time only), -0: stored.
    subprocess.run(["zip", "-qryX", os.path.join(out, "real-zip-X.zip"),
                    "."], cwd=src, check=True)
    subprocess.run(["zip", "-qry0", os.path.join(out, "real-zip-0.zip"),
                    "."], cwd=src, check=True)


def jar(out, src):
    if shutil.which("jar") is None:
        return
    subprocess.run(["jar", "cf", os.path.join(out, "real-jar.zip"), "-C",
                    src, "a.txt", "-C", src, "d"], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


class Unseekable(io.RawIOBase):
    """A file Python's zipfile cannot seek: it writes data descriptors."""

    def __init__(self, f):
        self.f = f

    def writable(self):
        return True

    def write(self, b):
        return self.f.write(b)


def python_zips(out):
    p = os.path.join(out, "real-python.zip")
    with zipfile.ZipFile(p, "w") as z:
        z.writestr("plain.txt", "plain\n" * 1000, zipfile.ZIP_DEFLATED)
        z.writestr("stored.txt", "stored\n", zipfile.ZIP_STORED)
        z.writestr("dir/", "")
        z.writestr("caf\u00e9/\u00fcber.txt", "utf8 name\n",
                   zipfile.ZIP_DEFLATED)
        i = zipfile.ZipInfo("dos.txt", (2010, 5, 6, 7, 8, 10))
        i.create_system = 0
        i.external_attr = 0x01      # read-only
        i.compress_type = zipfile.ZIP_DEFLATED
        z.writestr(i, "dos\n")
        i = zipfile.ZipInfo("dosdir/", (2011, 1, 2, 3, 4, 6))
        i.create_system = 0
        i.external_attr = 0x10
        z.writestr(i, "")
        i = zipfile.ZipInfo("sym", (2012, 1, 1, 0, 0, 0))
        i.create_system = 3
        i.external_attr = (0o120777 << 16)
        z.writestr(i, "plain.txt")
        i = zipfile.ZipInfo("nomode", (2013, 1, 1, 0, 0, 0))
        i.create_system = 3
        i.external_attr = 0
        z.writestr(i, "no mode\n")
        with z.open("z64.txt", "w", force_zip64=True) as f:
            f.write(b"zip64 extras\n" * 100)
    with open(os.path.join(out, "real-python-stream.zip"), "wb") as f:
        with zipfile.ZipFile(Unseekable(f), "w",
                             zipfile.ZIP_DEFLATED) as z:
            z.writestr("one.txt", "one\n" * 5000)
            z.writestr("two/", "")
            z.writestr("two/three.txt", "three\n")
    # More than 65535 members: the zip64 end record.
    p = os.path.join(out, "real-python-many.zip")
    with zipfile.ZipFile(p, "w", zipfile.ZIP_STORED) as z:
        for n in range(70000):
            z.writestr("m/%05d" % n, b"%d" % n)
    # Members whose reads are big, then many small ones: the pool's
    # threads keep a big read buffer while the small ones pile up.
    p = os.path.join(out, "real-python-spans.zip")
    rnd = random.Random(21)
    with zipfile.ZipFile(p, "w", zipfile.ZIP_STORED) as z:
        for n in range(16):
            z.writestr("big/%02d" % n, rnd.randbytes(240 << 10))
        for n in range(400):
            z.writestr("small/%03d" % n, rnd.randbytes(8 << 10))
    # Many small deflated members, for the pool.
    p = os.path.join(out, "real-python-pool.zip")
    with zipfile.ZipFile(p, "w", zipfile.ZIP_DEFLATED) as z:
        for n in range(300):
            z.writestr("p/%04d.txt" % n,
                       "".join("%d %d\n" % (n, k) for k in range(4000)))


def members(buf):
    """The (local offset, central record offset) of each member of the zip
    BUF, and where its end record is."""
    eocd = buf.rfind(b"PK\x05\x06")
    n, = struct.unpack_from("<H", buf, eocd + 10)
    cd, = struct.unpack_from("<I", buf, eocd + 16)
    out = []
    at = cd
    for _ in range(n):
        nl, el, cl = struct.unpack_from("<HHH", buf, at + 28)
        off, = struct.unpack_from("<I", buf, at + 42)
        out.append((off, at))
        at += 46 + nl + el + cl
    return out, eocd


def base():
    """A good zip of three deflated members, no extras."""
    f = io.BytesIO()
    with zipfile.ZipFile(f, "w", zipfile.ZIP_DEFLATED) as z:
        for name in ("first.txt", "second.txt", "third.txt"):
            z.writestr(name, (name + "\n") * 2000)
    return bytearray(f.getvalue())


def raw_zip(members):
    """A zip of (name, data, local extra, central extra[, lies]) members,
    stored, written by hand: the two extras may differ, and LIES (a dict)
    may set the mode, the uncompressed size, the CRC or the flags both
    headers give."""
    f = io.BytesIO()
    cd = b""
    for name, data, lx, cx, *rest in members:
        lies = rest[0] if rest else {}
        off = f.tell()
        crc = lies.get("crc", zlib.crc32(data))
        usize = lies.get("usize", len(data))
        mode = lies.get("mode", 0o100644)
        flags = lies.get("flags", 0)
        f.write(struct.pack("<IHHHHHIIIHH", 0x04034b50, 10, flags, 0, 0, 0x21,
                            crc, len(data), usize, len(name), len(lx)))
        f.write(name + lx + data)
        cd += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014b50, 0x031e, 10,
                          flags, 0, 0, 0x21, crc, len(data), usize, len(name),
                          len(cx), 0, 0, 0, mode << 16, off)
        cd += name + cx
    end = f.tell()
    f.write(cd)
    f.write(struct.pack("<IHHHHIIH", 0x06054b50, 0, 0, len(members),
                        len(members), len(cd), end, 0))
    return f.getvalue()


def deflated_zip(members):
    """A zip of (name, data, lies) members, deflated, written by hand:
    LIES (a dict) may set the CRC both headers give."""
    f = io.BytesIO()
    cd = b""
    for name, data, lies in members:
        off = f.tell()
        c = zlib.compressobj(9, zlib.DEFLATED, -15)
        comp = c.compress(data) + c.flush()
        crc = lies.get("crc", zlib.crc32(data))
        f.write(struct.pack("<IHHHHHIIIHH", 0x04034b50, 20, 0, 8, 0, 0x21,
                            crc, len(comp), len(data), len(name), 0))
        f.write(name + comp)
        cd += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014b50, 0x031e, 20, 0,
                          8, 0, 0x21, crc, len(comp), len(data), len(name),
                          0, 0, 0, 0, 0o100644 << 16, off) + name
    end = f.tell()
    f.write(cd)
    f.write(struct.pack("<IHHHHIIH", 0x06054b50, 0, 0, len(members),
                        len(members), len(cd), end, 0))
    return f.getvalue()


def hostile(out):
    def put(name, b):
        with open(os.path.join(out, "hostile-%s.zip" % name), "wb") as f:
            f.write(b)

    # The local header names another file than the directory.
    b = base()
    m, _ = members(b)
    b[m[1][0] + 30:m[1][0] + 30 + 6] = b"SECOND"
    put("name-mismatch", b)
    # The directory says a bigger size than the data holds.
    b = base()
    m, _ = members(b)
    usize, = struct.unpack_from("<I", b, m[0][1] + 24)
    struct.pack_into("<I", b, m[0][1] + 24, usize + 100)
    struct.pack_into("<I", b, m[0][0] + 22, usize + 100)
    put("usize-lies", b)
    # The local header's compressed size differs from the directory's.
    b = base()
    m, _ = members(b)
    csize, = struct.unpack_from("<I", b, m[1][0] + 18)
    struct.pack_into("<I", b, m[1][0] + 18, csize - 1)
    put("csize-mismatch", b)
    # The CRC, the same lie in both headers.
    b = base()
    m, _ = members(b)
    crc, = struct.unpack_from("<I", b, m[2][1] + 16)
    struct.pack_into("<I", b, m[2][1] + 16, crc ^ 1)
    struct.pack_into("<I", b, m[2][0] + 14, crc ^ 1)
    put("crc-lies", b)
    # Two records, one local header: a member read twice.
    b = base()
    m, _ = members(b)
    struct.pack_into("<I", b, m[2][1] + 42, m[1][0])
    put("shared-header", b)
    # A bomb of overlapping members: each record's data runs over the
    # next member's header.
    f = io.BytesIO()
    data = zlib.compressobj(9, zlib.DEFLATED, -15)
    kernel = data.compress(b"\0" * (1 << 20)) + data.flush()
    f.write(struct.pack("<IHHHHHIIIHH", 0x04034b50, 20, 0, 8, 0, 0,
                        zlib.crc32(b"\0" * (1 << 20)), len(kernel),
                        1 << 20, 1, 0) + b"k" + kernel)
    cd = b""
    for n in range(8):
        cd += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014b50, 20, 20, 0, 8,
                          0, 0, zlib.crc32(b"\0" * (1 << 20)),
                          len(kernel) + 31, 1 << 20, 1, 0, 0, 0, 0, 0,
                          0 if n == 0 else n) + b"k"
    end = f.tell()
    f.write(cd)
    f.write(struct.pack("<IHHHHIIH", 0x06054b50, 0, 0, 8, 8, len(cd), end,
                        0))
    put("overlap-bomb", f.getvalue())
    # The directory points past the end record.
    b = base()
    m, eocd = members(b)
    size, = struct.unpack_from("<I", b, eocd + 12)
    struct.pack_into("<I", b, eocd + 12, size + 4096)
    put("cd-past-end", b)
    # More entries in the directory than the end record counts.
    b = base()
    m, eocd = members(b)
    struct.pack_into("<HH", b, eocd + 8, 2, 2)
    put("more-entries", b)
    # zip64: the end records disagree on the count.
    f = io.BytesIO()
    with zipfile.ZipFile(f, "w", zipfile.ZIP_DEFLATED) as z:
        for n in range(3):
            with z.open("z%d" % n, "w", force_zip64=True) as w:
                w.write(b"zip64\n" * 100)
    b = bytearray(f.getvalue())
    m, eocd = members(b)
    z64 = b.rfind(b"PK\x06\x06")
    if z64 < 0:
        # Python writes the zip64 end record only when it must: add
        # one, with the count lying.
        loc = struct.pack("<IIQI", 0x07064b50, 0, eocd, 1)
        cd_size, cd_off = struct.unpack_from("<II", b, eocd + 12)
        rec = struct.pack("<IQHHIIQQQQ", 0x06064b50, 44, 45, 45, 0, 0, 4,
                          4, cd_size, cd_off)
        b = b[:eocd] + rec + loc + b[eocd:]
    else:
        struct.pack_into("<QQ", b, z64 + 24, 4, 4)
    put("zip64-count-lies", b)
    # zip64: a record's extra field gives a compressed size past the end.
    b = bytearray(f.getvalue())
    m, _ = members(b)
    at = m[0][1]
    nl, el = struct.unpack_from("<HH", b, at + 28)
    struct.pack_into("<II", b, at + 20, 0xffffffff, 0xffffffff)
    ex = at + 46 + nl
    if el >= 20:
        struct.pack_into("<HHQQ", b, ex, 1, 16, 100, 1 << 40)
    put("zip64-size-lies", b)
    # An Info-ZIP Unicode path in a local header only: libarchive would
    # take its name.  In the first member's, the zip is libarchive's; in
    # a later one's, that entry is refused.
    upath = struct.pack("<HHB", 0x7075, 5 + 5, 1) + b"\0\0\0\0" + b"other"
    put("local-upath-first", raw_zip([(b"a.txt", b"a\n", upath, b""),
                                      (b"b.txt", b"b\n", b"", b"")]))
    put("local-upath-later", raw_zip([(b"a.txt", b"a\n", b"", b""),
                                      (b"b.txt", b"b\n", upath, b"")]))
    # Info-ZIP's older Unix owners "Ux" (0x7855) in the local headers,
    # empty in the directory's: libarchive takes the owners from it.
    ux_old = struct.pack("<HHHH", 0x7855, 4, 1234, 5678)
    put("unix-owners-Ux", raw_zip([
        (b"suid", b"#!/bin/sh\n", ux_old, struct.pack("<HH", 0x7855, 0),
         {"mode": 0o104755}),
        (b"b.txt", b"b\n", ux_old, b"")]))
    # Stored members whose compressed size (the data's) is more than
    # the size both headers give: a symlink's target buffer is sized by
    # the latter.  One member (streamed) and behind another (pooled).
    link = 0o120777
    over = b"A" * 5000
    put("stored-link-overruns", raw_zip([
        (b"lnk", over, b"", b"", {"usize": 1, "mode": link})]))
    put("stored-link-overruns-later", raw_zip([
        (b"a.txt", b"a\n", b"", b""),
        (b"lnk", over, b"", b"", {"usize": 1, "mode": link})]))
    put("stored-overruns", raw_zip([
        (b"f.txt", over, b"", b"", {"usize": 4000})]))
    # A symlink whose data fails its CRC: the message says so.
    put("link-crc-lies", raw_zip([
        (b"lnk", b"target", b"", b"", {"crc": 5, "mode": link})]))
    # The same, a good member after it: the link fails alone.
    put("link-crc-lies-then-good", raw_zip([
        (b"lnk", b"target", b"", b"", {"crc": 5, "mode": link}),
        (b"good.txt", b"good\n", b"", b"")]))
    # A refused member whose data fails its CRC: refused, and the next
    # member is read (its data is drained, never written).
    put("refused-crc-lies", raw_zip([
        (b"../evil.txt", b"evil\n" * 10, b"", b"", {"crc": 5}),
        (b"good.txt", b"good\n", b"", b"")]))
    # A second end record in the end record's comment, with a directory
    # and a member of its own before it, and a byte after it (its comment
    # does not end the file): libarchive and unzip take the last "PK\5\6"
    # and read "evil.txt"; the real end record gives "good.txt".
    b = raw_zip([(b"good.txt", b"good\n", b"", b"")])
    eocd = len(b) - 22
    at = eocd + 22
    hid = struct.pack("<IHHHHHIIIHH", 0x04034b50, 10, 0, 0, 0, 0x21,
                      zlib.crc32(b"evil\n"), 5, 5, 8, 0) + b"evil.txt"
    hid += b"evil\n"
    cd = struct.pack("<IHHHHHHIIIHHHHHII", 0x02014b50, 0x031e, 10, 0, 0, 0,
                     0x21, zlib.crc32(b"evil\n"), 5, 5, 8, 0, 0, 0, 0,
                     0o100644 << 16, at) + b"evil.txt"
    fake = struct.pack("<IHHHHIIH", 0x06054b50, 0, 0, 1, 1, len(cd),
                       at + len(hid), 0)
    comment = hid + cd + fake + b"X"
    put("end-in-comment", b[:eocd + 20] + struct.pack("<H", len(comment)) +
        comment)
    # The same in a zip libarchive reads (the first local header's
    # Unicode path): in the decoder process too, the refused member is
    # drained and the next one read.
    put("refused-crc-lies-libarchive", raw_zip([
        (b"a.txt", b"a\n", upath, b""),
        (b"../evil.txt", b"evil\n" * 10, b"", b"", {"crc": 5}),
        (b"good.txt", b"good\n", b"", b"")]))
    # An encrypted member (libarchive's zip, which cannot decode it),
    # refused by its name: passed over, the next member read.
    put("refused-encrypted", raw_zip([
        (b"good1.txt", b"good1\n", b"", b""),
        (b"../enc.txt", b"0123456789ab" + b"secret\n", b"", b"",
         {"flags": 1}),
        (b"good2.txt", b"good2\n", b"", b"")]))
    # Refused members of 1 MiB each whose data fails its CRC: what they
    # inflate counts toward --max-ratio as good data does.
    zeros = b"\0" * (1 << 20)
    put("refused-crc-bomb", deflated_zip(
        [(b"../f%d" % n, zeros, {"crc": 5}) for n in range(40)] +
        [(b"good.txt", b"good\n", {})]))


def main():
    out = os.path.abspath(sys.argv[-1])
    if sys.argv[1] == "--hostile":
        hostile(out)
        return
    src = os.path.join(out, "src")
    shutil.rmtree(src, ignore_errors=True)
    tree(src)
    info_zip(out, src)
    jar(out, src)
    python_zips(out)
    hostile(out)


if __name__ == "__main__":
    main()
