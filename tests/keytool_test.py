#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""tfo-keytool against cookies computed independently of our C code.

siphash-linux: the vectors of issue 7 (cookies Linux 5.2+ issued), and a
SipHash-2-4 written here from the paper for random keys and addresses.
aes128: AES by openssl(1), with the key bytes derived here from the key
text (four 32-bit words, each little-endian, as Linux stores them).

usage: keytool_test.py PATH/TO/tfo-keytool
"""
import ipaddress
import os
import random
import re
import shutil
import struct
import subprocess
import sys

KEYTOOL = sys.argv[1] if len(sys.argv) > 1 else "tfo-keytool"
failures = 0
checks = 0


def check(cond, what):
    global failures, checks
    checks += 1
    if not cond:
        failures += 1
        print("FAIL:", what)


def run(*args, stdin=None):
    p = subprocess.run([KEYTOOL, *args], input=stdin, capture_output=True,
                       text=True, timeout=10)
    return p.returncode, p.stdout, p.stderr


# ---- independent references -------------------------------------------

M64 = (1 << 64) - 1


def rotl(x, b):
    return ((x << b) | (x >> (64 - b))) & M64


def siphash24(key16, msg):
    k0, k1 = struct.unpack("<QQ", key16)
    v0 = k0 ^ 0x736F6D6570736575
    v1 = k1 ^ 0x646F72616E646F6D
    v2 = k0 ^ 0x6C7967656E657261
    v3 = k1 ^ 0x7465646279746573

    def rnd():
        nonlocal v0, v1, v2, v3
        v0 = (v0 + v1) & M64; v1 = rotl(v1, 13); v1 ^= v0; v0 = rotl(v0, 32)
        v2 = (v2 + v3) & M64; v3 = rotl(v3, 16); v3 ^= v2
        v0 = (v0 + v3) & M64; v3 = rotl(v3, 21); v3 ^= v0
        v2 = (v2 + v1) & M64; v1 = rotl(v1, 17); v1 ^= v2; v2 = rotl(v2, 32)

    n = len(msg) - len(msg) % 8
    for i in range(0, n, 8):
        m = struct.unpack("<Q", msg[i:i + 8])[0]
        v3 ^= m
        rnd(); rnd()
        v0 ^= m
    b = (len(msg) & 0xFF) << 56
    for i, byte in enumerate(msg[n:]):
        b |= byte << (8 * i)
    v3 ^= b
    rnd(); rnd()
    v0 ^= b
    v2 ^= 0xFF
    for _ in range(4):
        rnd()
    return v0 ^ v1 ^ v2 ^ v3


def key_bytes(text):
    """Linux: sscanf %x into u32 words, key[i] = cpu_to_le32(word)."""
    words = [int(g, 16) for g in text.split(",")[0].strip().split("-")]
    return struct.pack("<4I", *words)


def aes_openssl(key16, block16):
    p = subprocess.run(["openssl", "enc", "-aes-128-ecb", "-nopad", "-K",
                        key16.hex()], input=block16, capture_output=True,
                       timeout=10)
    assert p.returncode == 0 and len(p.stdout) == 16, p.stderr
    return p.stdout


def ref_cookie(algo, key_text, client, server):
    k = key_bytes(key_text)
    c = ipaddress.ip_address(client).packed
    s = ipaddress.ip_address(server).packed
    if algo == "siphash-linux":
        return struct.pack("<Q", siphash24(k, c + s)).hex()
    if len(c) == 4:
        return aes_openssl(k, c + s + bytes(8))[:8].hex()
    mid = aes_openssl(k, c)
    return aes_openssl(k, bytes(a ^ b for a, b in zip(mid, s)))[:8].hex()


def cookie(algo, key_text, client, server):
    rc, out, err = run("cookie", "--key", key_text, "--client", client,
                       "--server", server, "--algo", algo)
    check(rc == 0, f"cookie exit {rc}: {err}")
    return out.strip()


# ---- the tests ------------------------------------------------------------

ISSUE_VECTORS = [
    ("a1a1a1a1-b2b2b2b2-c3c3c3c3-d4d4d4d4", "192.0.2.1", "192.168.0.1",
     "3021b9d889017eeb"),
    ("a1a1a1a1-b2b2b2b2-c3c3c3c3-d4d4d4d4", "fd3d:fa7b:d17d::1",
     "fd3d:a0b:17d6::1", "c1d1e9742a47a9bc"),
    ("a0bf63f7-ed803d81-cd641d30-cebc4a90", "10.248.0.2", "192.168.0.2",
     "00abaaabe8e954c2"),
    ("00000000-00000000-00000000-00000000", "10.248.0.2", "192.168.0.2",
     "93b7aa4f550f8a1a"),
]


def test_issue_vectors():
    for key, c, s, want in ISSUE_VECTORS:
        # the Python reference must agree with Linux first
        check(ref_cookie("siphash-linux", key, c, s) == want,
              f"reference siphash {key} {c} {s}")
        got = cookie("siphash-linux", key, c, s)
        check(got == want, f"siphash-linux {key} {c} {s}: {got} != {want}")


def rand_addr(rng, v6):
    if v6:
        return str(ipaddress.IPv6Address(rng.getrandbits(128)))
    return str(ipaddress.IPv4Address(rng.getrandbits(32)))


def test_random(rng):
    have_openssl = shutil.which("openssl") is not None
    check(have_openssl, "openssl(1) is needed for the aes128 references")
    for i in range(24):
        key = "-".join(f"{rng.getrandbits(32):08x}" for _ in range(4))
        v6 = i % 2 == 1
        c, s = rand_addr(rng, v6), rand_addr(rng, v6)
        for algo in ("siphash-linux", "aes128"):
            if algo == "aes128" and not have_openssl:
                continue
            want = ref_cookie(algo, key, c, s)
            got = cookie(algo, key, c, s)
            check(re.fullmatch(r"[0-9a-f]{16}", got) is not None,
                  f"format {got!r}")
            check(got == want, f"{algo} {key} {c} {s}: {got} != {want}")
    # aes128 is the default algorithm
    key, c, s = ISSUE_VECTORS[0][:3]
    rc, out, _ = run("cookie", "--key", key, "--client", c, "--server", s)
    check(rc == 0 and out.strip() == ref_cookie("aes128", key, c, s),
          "default algo is aes128")


def test_gen_fingerprint_check():
    rc, out, _ = run("gen")
    key = out.strip()
    check(rc == 0 and re.fullmatch(r"[0-9a-f]{8}(-[0-9a-f]{8}){3}", key),
          f"gen: {out!r}")
    rc, out2, _ = run("gen")
    check(out2.strip() != key, "two gens differ")
    rc, out, _ = run("gen", "--backup")
    two = out.strip()
    check(rc == 0 and re.fullmatch(r"[0-9a-f]{8}(-[0-9a-f]{8}){3},"
                                   r"[0-9a-f]{8}(-[0-9a-f]{8}){3}", two),
          f"gen --backup: {out!r}")
    rc, out, _ = run("fingerprint", "--key", two)
    lines = out.split()
    check(rc == 0 and len(lines) == 2 and
          all(re.fullmatch(r"[0-9a-f]{16}", x) for x in lines),
          f"fingerprint of two keys: {out!r}")
    rc, p1, _ = run("fingerprint", "--key", two.split(",")[0])
    check(p1.strip() == lines[0], "primary fingerprint")
    # stdin and file give the same
    rc, out, _ = run("fingerprint", "--key", "-", stdin=two + "\n")
    check(out.split() == lines, "fingerprint from stdin")
    path = f"/tmp/tfo_keytool_test_{os.getpid()}"
    with open(path, "w") as f:
        f.write(two + "\n")
    try:
        rc, out, _ = run("fingerprint", "--key-file", path)
        check(out.split() == lines, "fingerprint from a file")
        # check: primary, backup, bad
        backup = two.split(",")[1]
        ck = ref_cookie("siphash-linux", backup, "198.51.100.1", "192.0.2.1")
        rc, out, _ = run("check", "--key-file", path, "--algo",
                         "siphash-linux", "--client", "198.51.100.1",
                         "--server", "192.0.2.1", "--cookie", ck)
        check(rc == 0 and out.strip() == "backup", f"check backup: {out!r}")
        ck = ref_cookie("siphash-linux", two, "198.51.100.1", "192.0.2.1")
        rc, out, _ = run("check", "--key-file", path, "--algo",
                         "siphash-linux", "--client", "198.51.100.1",
                         "--server", "192.0.2.1", "--cookie", ck)
        check(rc == 0 and out.strip() == "primary", f"check primary: {out!r}")
        rc, out, _ = run("check", "--key-file", path, "--client",
                         "198.51.100.1", "--server", "192.0.2.1",
                         "--cookie", "0011223344556677")
        check(rc == 1 and out.strip() == "bad", f"check bad: {out!r}")
    finally:
        os.unlink(path)
    # the key never appears in the fingerprint output
    for g in two.replace(",", "-").split("-"):
        check(g not in "".join(lines), "fingerprint shows no key group")


def test_errors_and_help():
    rc, out, _ = run("--help")
    check(rc == 0, "--help exits 0")
    for word in ("gen", "cookie", "check", "fingerprint", "--key-file",
                 "aes128", "siphash-linux", "--backup"):
        check(word in out, f"--help mentions {word}")
    cases = [
        (("bogus",), 2, "unknown command"),
        (("cookie", "--key", "1-2-3", "--client", "1.1.1.1", "--server",
          "2.2.2.2"), 1, "tcp_fastopen_key format"),
        (("cookie", "--key", "1-2-3-4", "--client", "1.1.1.1", "--server",
          "::1"), 1, "IPv4 or both IPv6"),
        (("cookie", "--key", "1-2-3-4", "--client", "1.1.1", "--server",
          "2.2.2.2"), 1, "not an IPv4 or IPv6 address"),
        (("cookie", "--key", "1-2-3-4", "--server", "2.2.2.2"), 1,
         "--client ADDR is required"),
        (("cookie", "--key", "1-2-3-4", "--client", "1.1.1.1", "--server",
          "2.2.2.2", "--algo", "md5"), 2, "neither aes128 nor siphash-linux"),
        (("cookie", "--client", "1.1.1.1", "--server", "2.2.2.2"), 1,
         "exactly one of --key and --key-file"),
        (("gen", "--client", "1.1.1.1"), 2, "does not apply"),
        (("fingerprint", "--key-file", "/nonexistent/key"), 1,
         "No such file"),
        (("check", "--key", "1-2-3-4", "--client", "1.1.1.1", "--server",
          "2.2.2.2", "--cookie", "abc"), 1, "16 hex digits"),
        ((), 2, "usage"),
    ]
    for args, want_rc, msg in cases:
        rc, out, err = run(*args)
        check(rc == want_rc, f"{args}: exit {rc}, want {want_rc}")
        check(msg in err, f"{args}: stderr {err!r} lacks {msg!r}")


def main():
    rng = random.Random(7)
    test_issue_vectors()
    test_random(rng)
    test_gen_fingerprint_check()
    test_errors_and_help()
    print(f"keytool: {checks} checks, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
