#!/usr/bin/env python3
"""Median convex distance query: collide vs coal (C++), on the pairs of the coal fixture
(crates/collide/tests/data/distance/coal.json: spheres, capsules, ellipsoids, cylinders, boxes
and meshes, separated and overlapping), one thread, in one run.

coal is timed from C++ (bench/coal_distance_timer.cpp, compiled against the headers and
libcoal of the `coal` wheel's cmeel prefix, Eigen from `cmeel-eigen`) with `ComputeDistance`
functors, the cached guess and each GJK variant (plain, Nesterov, Polyak); collide by the
`distance_rate` example (`GeomDistance::distance`, MuJoCo's semantics and default tolerance
1e-6, like coal's default GJK tolerance), cold (MuJoCo's start) and warm-started
(`set_warm_start`, the counterpart of coal's cached guess), and in the planner mode
(`DistanceMode::Fast`, warm-started, relative gap 1e-10). Both: per pair, REPS repeats; median over pairs.

Run: bash bench/coal_bench.sh
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import cmeel

ROOT = Path(__file__).resolve().parent.parent
TYPES = ["sphere", "capsule", "ellipsoid", "cylinder", "box", "mesh"]


def pairs_txt():
    data = json.loads((ROOT / "crates/collide/tests/data/distance/coal.json").read_text())
    lines = [str(len(data["meshes"]))]
    for m in data["meshes"]:
        lines.append(f"{len(m)} " + " ".join(repr(x) for p in m for x in p))
    lines.append(str(len(data["cases"])))
    for c in data["cases"]:
        for k in ("1", "2"):
            vals = [TYPES.index(c["t" + k])] + c["s" + k] + c["p" + k] + c["q" + k]
            lines.append(" ".join(repr(v) for v in vals))
    out = ROOT / "target" / "bench" / "coal_pairs.txt"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines) + "\n")
    return out, len(data["cases"])


def value(text, key):
    for line in text.splitlines():
        if line.startswith(key):
            return float(line.split()[1])
    raise SystemExit(f"no {key} in {text}")


def main():
    prefix = Path(cmeel.__file__).resolve().parent.parent / "cmeel.prefix"
    exe = ROOT / "target" / "bench" / "coal_distance_timer"
    txt, n = pairs_txt()
    subprocess.run(["g++", "-O3", "-march=native", "-std=c++17", "-DNDEBUG", "-o", str(exe),
                    str(ROOT / "bench" / "coal_distance_timer.cpp"), f"-I{prefix}/include",
                    f"-I{prefix}/include/eigen3", f"-L{prefix}/lib", "-lcoal",
                    f"-Wl,-rpath,{prefix}/lib"], check=True)
    subprocess.run(["cargo", "build", "--release", "-q", "-p", "collide-cli", "--example",
                    "distance_rate"], check=True, cwd=ROOT)
    coal = subprocess.run([str(exe), str(txt)], check=True, capture_output=True, text=True).stdout
    rate = str(ROOT / "target/release/examples/distance_rate")
    ours = subprocess.run([rate, str(txt)], check=True, capture_output=True, text=True).stdout
    warm = subprocess.run([rate, str(txt)], check=True, capture_output=True, text=True,
                          env=dict(os.environ, WARM="1")).stdout
    fast = subprocess.run([rate, str(txt)], check=True, capture_output=True, text=True,
                          env=dict(os.environ, FAST="1")).stdout
    c = {v: value(coal, f"coal_{v}_median_ns") for v in ("default", "nesterov", "polyak")}
    best = min(c.values())
    print(f"{n} pairs; median ns per query (one thread)")
    print("| | median ns | ratio to coal's fastest |")
    print("|---|---|---|")
    for v, t in c.items():
        print(f"| coal, {v} GJK, cached guess | {t:.0f} | {t / best:.2f} |")
    for label, out in (("MuJoCo mode, cold start (MuJoCo's)", ours),
                       ("MuJoCo mode, warm start", warm), ("fast mode", fast)):
        mine = value(out, "collide_median_ns")
        g = value(out, "collide_gjk_median_ns")
        print(f"| collide, {label}, all pairs | {mine:.0f} | {mine / best:.2f} |")
        print(f"| collide, {label}, pairs through GJK/EPA | {g:.0f} | {g / best:.2f} |")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
