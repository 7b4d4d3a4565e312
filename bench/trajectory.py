"""Trajectories: collision detection along simulated motion, where consecutive calls see
nearby poses (the case the warm starts serve), compared with MuJoCo 4.0.0 and timed side by
side.

For each scene, MuJoCo steps the model (`mj_step`, the model's own timestep and integrator)
from each recorded state of the corpus for `--steps` steps; the poses after every step are a
world's trajectory. Then:

- conformance: one `collide.Collider` (warm starts on, `--threads` threads) detects all the
  worlds step after step, and every world-step's contacts are compared with MuJoCo's at the
  same poses (a fresh `mj_collision`) with the corpus criteria
  (`python/tests/test_conformance.compare_state`: analytic pairs exact, convex pairs within
  their tolerances);
- speed, one world: the worlds' trajectories one after the other through `collide bench` with
  and without warm starts, and MuJoCo's `mj_collision` from C on the same states
  (`bench/mj_collision_timer.c`), one thread, the fastest of `--repeat` alternating runs;
- speed, batched: the same states through `collide bench --worlds W` (W the number of
  recorded states; world w at call i in state w + i, cycling over 16 calls, so each world steps
  through consecutive poses as a batched simulation would), one thread, warm against cold.

Usage (the Python package's virtualenv, which has collide and mujoco; `collide` built with
`cargo build --profile dist -p collide-cli`):
    target/py-venv/bin/python bench/trajectory.py [--steps N] [--repeat R] [--json OUT] [NAME ...]
"""
from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import mujoco
import numpy as np

import collide

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))
sys.path.insert(0, str(ROOT / "bench"))
from mujoco_vs_collide import build_timer, states_txt, time_mujoco_c  # noqa: E402
from tests import test_conformance as tc  # noqa: E402

CONF = ROOT / "conformance"
# scenes whose recorded states come from a simulation (the random-configuration scenes
# `mesh_arm` and `mesh_hand` have no motion to follow)
DEFAULT = [
    "scenes/box_pile",
    "scenes/sphere_pile",
    "scenes/capsule_heap",
    "scenes/primitive_pairs",
    "scenes/ellipsoid_pile_100",
    "scenes/ellipsoid_cylinder_pile",
    "scenes/mesh_pile",
    "scenes/mesh_pile_100",
    "scenes/mesh_primitives",
    "scenes/mesh_boxes_multiccd",
    "scenes/mesh_puzzle_cube",
    "scenes/mesh_bin",
    "scenes/mesh_pile_steady",
]


def trajectories(m: mujoco.MjModel, states: list[dict], steps: int) -> np.ndarray:
    """(nworld, steps, nq): world w stepped from recorded state w."""
    out = np.empty((len(states), steps, m.nq))
    d = mujoco.MjData(m)
    for w, s in enumerate(states):
        mujoco.mj_resetData(m, d)
        d.qpos[:] = s["qpos"]
        if m.nmocap and "mocap_pos" in s:
            d.mocap_pos[:] = s["mocap_pos"]
            d.mocap_quat[:] = s["mocap_quat"]
        for t in range(steps):
            mujoco.mj_step(m, d)
            out[w, t] = d.qpos
    return out


def conformance(path: Path, mjm: mujoco.MjModel, traj: np.ndarray, threads: int) -> dict:
    model = collide.Model.from_xml_path(path)
    collider = collide.Collider(model, threads)
    conv = tc.ConvexReport()
    errors: list[str] = []
    nworld, steps, _ = traj.shape
    for t in range(steps):
        res = collider.detect(traj[:, t])
        for w in range(nworld):
            theirs = tc.mujoco_contacts(mjm, traj[w, t], None, None)
            errors += tc.compare_state(model, w * steps + t, res.world(w), theirs, conv)
    return {"analytic_errors": len(errors), "first_errors": errors[:3],
            "convex_pairs": conv.pairs, "convex_found": conv.found,
            "convex_count_equal": conv.count_equal, "convex_extra": conv.extra,
            "max_dist_err": conv.max_dist_err, "max_normal_err": conv.max_normal_err,
            "max_pos_err": conv.max_pos_err, "passed": not errors and conv.passed()}


def collide_bench(exe: Path, path: Path, states: Path, *extra: str) -> tuple[float, str]:
    env = dict(os.environ, RAYON_NUM_THREADS="1")
    out = subprocess.run([str(exe), "bench", str(path), "--states", str(states), *extra],
                         capture_output=True, text=True, check=True, env=env).stdout
    us = float(out.strip().splitlines()[-1].split()[-1])
    cache = next((line for line in out.splitlines()
                  if line.startswith(("touching cache", "separation cache", "per world-state"))), "")
    return us, cache


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("names", nargs="*")
    ap.add_argument("--steps", type=int, default=50, help="simulation steps per world")
    ap.add_argument("--repeat", type=int, default=3, help="alternating runs; the fastest counts")
    ap.add_argument("--threads", type=int, default=2, help="threads of the conformance check")
    ap.add_argument("--min-seconds", type=float, default=0.3)
    ap.add_argument("--json", type=Path)
    ap.add_argument("--keep", type=Path,
                    help="also write each scene's trajectory states here (NAME with / as __, "
                         "as `STATES_DIR=DIR bash bench/instructions.sh` reads them)")
    ap.add_argument("--exe", type=Path, default=ROOT / "target" / "dist" / "collide")
    args = ap.parse_args()
    corpus = {e["name"]: e for e in json.loads((CONF / "corpus.json").read_text())["models"]}
    timer = build_timer()
    if timer is None:
        sys.exit("needs a C compiler for bench/mj_collision_timer.c")
    print(f"mujoco {mujoco.__version__}; {args.steps} steps per world from each recorded state; "
          f"one thread; best of {args.repeat}; load average {os.getloadavg()[0]:.2f}")
    print(f"{'scene':<32} {'states':>6} {'conform':>8} {'mj_us':>8} {'warm_us':>8} "
          f"{'cold_us':>8} {'warm/mj':>7} {'cold/mj':>7} {'batch w/c':>9}")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.names or DEFAULT:
            path = CONF / corpus[name]["path"]
            rec = json.loads((CONF / "states" / (name.replace("/", "__") + ".json")).read_text())
            mjm = mujoco.MjModel.from_xml_path(str(path))
            traj = trajectories(mjm, rec["states"], args.steps)
            conf = conformance(path, mjm, traj, args.threads)
            flat = [{"qpos": q.tolist()} for q in traj.reshape(-1, mjm.nq)]
            sj = Path(tmp) / "states.json"
            sj.write_text(json.dumps({"states": flat}))
            if args.keep:
                args.keep.mkdir(parents=True, exist_ok=True)
                (args.keep / (name.replace("/", "__") + ".json")).write_text(sj.read_text())
            st = Path(tmp) / "states.txt"
            st.write_text(states_txt(mjm, flat))
            mj, warm, cold, bwarm, bcold = [], [], [], [], []
            for _ in range(args.repeat):
                mj.append(time_mujoco_c(timer, path, st, args.min_seconds)[0])
                us, wline = collide_bench(args.exe, path, sj)
                warm.append(us)
                cold.append(collide_bench(args.exe, path, sj, "--no-warm-start")[0])
                # `--worlds W`: world w at call i in state w + i (of the first 16 shifts), so
                # each world steps through consecutive poses of a trajectory
                us, bline = collide_bench(args.exe, path, sj, "--worlds", str(len(traj)))
                bwarm.append(us)
                bcold.append(collide_bench(args.exe, path, sj, "--worlds", str(len(traj)),
                                           "--no-warm-start")[0])
            row = {"scene": name, "states": len(flat), "conformance": conf,
                   "mujoco_us": min(mj), "warm_us": min(warm), "cold_us": min(cold),
                   "batch_warm_us": min(bwarm), "batch_cold_us": min(bcold),
                   "warm_line": wline, "batch_line": bline}
            rows.append(row)
            print(f"{name:<32} {len(flat):>6} {'ok' if conf['passed'] else 'FAIL':>8} "
                  f"{row['mujoco_us']:>8.2f} {row['warm_us']:>8.2f} {row['cold_us']:>8.2f} "
                  f"{row['warm_us'] / row['mujoco_us']:>7.2f} "
                  f"{row['cold_us'] / row['mujoco_us']:>7.2f} "
                  f"{row['batch_warm_us'] / row['batch_cold_us']:>9.2f}", flush=True)
            if not conf["passed"]:
                print(f"  conformance: {conf}")
    gm = lambda xs: math.exp(sum(math.log(x) for x in xs) / len(xs))  # noqa: E731
    print(f"geometric mean collide / MuJoCo: warm {gm([r['warm_us'] / r['mujoco_us'] for r in rows]):.2f}, "
          f"cold {gm([r['cold_us'] / r['mujoco_us'] for r in rows]):.2f}")
    if args.json:
        args.json.write_text(json.dumps({"steps": args.steps, "rows": rows}, indent=1) + "\n")


if __name__ == "__main__":
    main()
