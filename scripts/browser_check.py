#!/usr/bin/env python3
"""Helpers of scripts/test.d/30-browser.sh (standard library only).

  browser_check.py expect CONTACTS.json [A B]   -> per-state contact counts, optionally of pair
                                                  (A, B) (either order) or of geom A alone (B=-1)
  browser_check.py pick CONTACTS.json            -> "K A B": a state with contacts and its first
                                                  contact's geoms (the last state if none)
  browser_check.py dom DOM.html                  -> the <body> data-* attributes as key=value lines
  browser_check.py pixels SHOT.png [X0]          -> number of distinct colours and the share of the
                                                  most common one, in columns X0.. (default all)
"""
import json
import re
import struct
import sys
import zlib


def counts(path, a=None, b=None):
    states = json.load(open(path))["states"]
    out = []
    for s in states:
        n = 0
        for c in s["contacts"]:
            g = (c["geom1"], c["geom2"])
            if a is None:
                n += 1
            elif b is None or b < 0:
                n += a in g
            else:
                n += g in ((a, b), (b, a))
        out.append(n)
    return out


def pick(path):
    states = json.load(open(path))["states"]
    for k in range(len(states) - 1, -1, -1):
        cs = states[k]["contacts"]
        if cs:
            return k, cs[0]["geom1"], cs[0]["geom2"]
    return len(states) - 1, -1, -1


def dom(path):
    text = open(path, encoding="utf-8", errors="replace").read()
    m = re.search(r"<body([^>]*)>", text)
    if not m:
        return {}
    return {k: v for k, v in re.findall(r'data-([a-z-]+)="([^"]*)"', m.group(1))}


def png_pixels(path, x0=0):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        (n,) = struct.unpack(">I", data[pos : pos + 4])
        kind, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or ctype not in (2, 6) or interlace:
                raise ValueError(f"unsupported PNG (depth {depth}, type {ctype})")
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = w * bpp
    prev = bytearray(stride)
    rows = []
    i = 0
    for _ in range(h):
        f, line = raw[i], bytearray(raw[i + 1 : i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pr = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[x] = (line[x] + pr) & 255
        rows.append(bytes(line))
        prev = line
    hist = {}
    for line in rows:
        for x in range(x0 * bpp, stride, bpp):
            px = line[x : x + 3]
            hist[px] = hist.get(px, 0) + 1
    total = sum(hist.values())
    return len(hist), (max(hist.values()) / total if total else 1.0)


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "expect":
        args = [int(x) for x in sys.argv[3:5]]
        print(",".join(map(str, counts(sys.argv[2], *args))))
    elif cmd == "pick":
        print(*pick(sys.argv[2]))
    elif cmd == "dom":
        for k, v in dom(sys.argv[2]).items():
            print(f"{k}={v}")
    elif cmd == "pixels":
        n, top = png_pixels(sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 0)
        print(n, f"{top:.3f}")
    else:
        sys.exit(f"unknown command {cmd}")
