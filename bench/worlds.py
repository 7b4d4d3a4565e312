"""Batched worlds: `collide bench --worlds N` on one model with 1 and with 2 rayon threads
(RAYON_NUM_THREADS), alternating, best of `--repeat`; prints the speed-up.

Usage: python3 bench/worlds.py [--model NAME] [--worlds N] [--repeat R] [--json OUT]
"""
import argparse
import json
import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CONF = ROOT / "conformance"


def run(exe, path, states, worlds, threads):
    env = dict(os.environ, RAYON_NUM_THREADS=str(threads))
    out = subprocess.run([str(exe), "bench", str(path), "--states", str(states),
                          "--worlds", str(worlds)],
                         capture_output=True, text=True, check=True, env=env).stdout
    kv = {}
    for line in out.splitlines():
        if line.startswith("worlds:"):
            parts = line.split()
            kv["threads"] = int(parts[parts.index("threads:") + 1])
            kv["contacts"] = float(parts[-1])
        elif ":" in line:
            k, v = line.split(":", 1)
            kv[k.strip()] = v.strip()
    return float(kv["collide_us_per_state"]), kv["threads"], kv["contacts"]


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default="dm_control/humanoid")
    ap.add_argument("--worlds", type=int, default=1024)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    corpus = {e["name"]: e for e in json.loads((CONF / "corpus.json").read_text())["models"]}
    path = CONF / corpus[args.model]["path"]
    states = CONF / "states" / (args.model.replace("/", "__") + ".json")
    exe = ROOT / "target" / "dist" / "collide"  # built by bench/run.sh and bench/all.sh
    best = {}
    for _ in range(args.repeat):
        for t in (1, 2):
            us, threads, contacts = run(exe, path, states, args.worlds, t)
            assert threads == t, f"asked for {t} threads, got {threads}"
            best[t] = min(best.get(t, us), us)
    speedup = best[1] / best[2]
    print(f"{args.model}: {args.worlds} worlds, {contacts:.1f} contacts per world, best of "
          f"{args.repeat}; load average {os.getloadavg()[0]:.2f}")
    print(f"1 thread : {best[1]:.3f} µs per world ({1e6 / best[1]:.0f} world-states/s)")
    print(f"2 threads: {best[2]:.3f} µs per world ({1e6 / best[2]:.0f} world-states/s)")
    print(f"speed-up : {speedup:.2f}x")
    if args.json:
        args.json.write_text(json.dumps({"model": args.model, "worlds": args.worlds,
                                         "contacts_per_world": contacts,
                                         "us_1thread": best[1], "us_2threads": best[2],
                                         "speedup": speedup, "repeat": args.repeat}) + "\n")


if __name__ == "__main__":
    main()
