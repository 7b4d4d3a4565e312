"""Times MuJoCo 4.0.0's mj_collision and `collide bench` on the same models and states, in one
run, and prints the ratio per scene and their geometric mean.

MuJoCo is timed from C (`bench/mj_collision_timer.c`, compiled here against the wheel's
libmujoco) so that no Python call overhead is counted; without a C compiler it falls back to
timing `mujoco.mj_collision` from Python (which adds about a microsecond per call). Both sides
precompute the poses of every state (mj_kinematics / collide's kinematics) and time collision
detection alone, one thread, repeated over all states; each side is measured `--repeat` times,
alternating, and the fastest run counts (the least disturbed by other load).

Usage: bash bench/run.sh [--repeat N] [--json OUT] [--exe COLLIDE] [MODEL_NAME ...]
       (names as in conformance/corpus.json; default: the benchmark scene list below)
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import mujoco
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
CONF = ROOT / "conformance"
DEFAULT = [
    "scenes/humanoid_crowd_100",
    "scenes/humanoid_crowd_22",
    "dm_control/humanoid",
    "dm_control/humanoid_CMU",
    "dm_control/dog",
    "dm_control/quadruped",
    "dm_control/manipulator",
    "dm_control/stacker",
    "gymnasium/ant",
    "scenes/box_pile",
    "scenes/dominoes",
    "scenes/sphere_pile",
    "scenes/capsule_heap",
    "scenes/ellipsoid_pile_100",
    "scenes/ellipsoid_cylinder_pile",
    "scenes/mesh_pile_100",
    "scenes/mesh_pile",
    "scenes/mesh_primitives",
    "scenes/primitive_pairs",
    "scenes/hfield_png",
] + [
    # the mesh-heavy scenes of issue #14 (criterion: each at most 0.5x MuJoCo)
    "scenes/mesh_boxes_multiccd",
    "scenes/mesh_puzzle_cube",
    "scenes/mesh_arm",
    "scenes/mesh_hand",
    "scenes/mesh_bin",
    "scenes/mesh_pile_steady",
]
MESH_HEAVY = DEFAULT[-6:]


def build_timer():
    """Compiles the C timer against the wheel's libmujoco; returns its path or None."""
    pkg = Path(mujoco.__file__).resolve().parent
    libs = sorted(pkg.glob("libmujoco.so*"))
    if not libs or not (pkg / "include" / "mujoco" / "mujoco.h").exists():
        return None
    src = ROOT / "bench" / "mj_collision_timer.c"
    exe = ROOT / "target" / "bench" / "mj_collision_timer"
    exe.parent.mkdir(parents=True, exist_ok=True)
    if exe.exists() and exe.stat().st_mtime > src.stat().st_mtime:
        return exe
    cc = os.environ.get("CC", "cc")
    cmd = [cc, "-O2", "-o", str(exe), str(src), f"-I{pkg / 'include'}", f"-L{pkg}",
           f"-l:{libs[0].name}", f"-Wl,-rpath,{pkg}"]
    try:
        subprocess.run(cmd, check=True, capture_output=True)
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"note: cannot build the C timer ({e}); timing mj_collision from Python",
              file=sys.stderr)
        return None
    return exe


def states_txt(m, states):
    lines = [f"{len(states)} {m.nq} {m.nmocap}"]
    for s in states:
        vals = list(s["qpos"])
        if m.nmocap:
            # states of models with mocap bodies carry their poses (see conformance/README.md)
            vals += np.ravel(s["mocap_pos"]).tolist() + np.ravel(s["mocap_quat"]).tolist()
        lines.append(" ".join(repr(float(v)) for v in vals))
    return "\n".join(lines) + "\n"


def time_mujoco_c(timer, path, states_file, min_seconds):
    out = subprocess.run([str(timer), str(path), str(states_file), str(min_seconds)],
                         capture_output=True, text=True, check=True).stdout
    kv = dict(line.split(": ") for line in out.strip().splitlines())
    return float(kv["mujoco_us_per_state"]), int(kv["ngeom"]), float(kv["contacts_per_state"])


def time_mujoco_py(m, states, min_seconds):
    datas = []
    for s in states:
        dd = mujoco.MjData(m)
        dd.qpos[:] = s["qpos"]
        if m.nmocap and "mocap_pos" in s:
            dd.mocap_pos[:] = s["mocap_pos"]
            dd.mocap_quat[:] = s["mocap_quat"]
        mujoco.mj_kinematics(m, dd)
        datas.append(dd)
    ncon = 0
    for dd in datas:
        mujoco.mj_collision(m, dd)
        ncon += dd.ncon
    iters = 1
    while True:
        t = time.perf_counter()
        for _ in range(iters):
            for dd in datas:
                mujoco.mj_collision(m, dd)
        elapsed = time.perf_counter() - t
        if elapsed >= min_seconds:
            break
        iters *= 2
    return elapsed * 1e6 / (iters * len(datas)), m.ngeom, ncon / len(datas)


def time_collide(exe, path, states_path, extra=()):
    """`collide bench` (with `extra` flags, e.g. `--mesh exact`): µs and contacts per state."""
    out = subprocess.run([str(exe), "bench", str(path), "--states", str(states_path), *extra],
                         capture_output=True, text=True, check=True).stdout
    lines = out.strip().splitlines()
    assert lines[-1].startswith("collide_us_per_state:"), out
    contacts = float("nan")
    for line in lines:
        if line.startswith("per state:"):
            # "per state: X body pairs, Y geom pairs, Z contacts, W unsupported pairs"
            contacts = float(line.split(",")[2].split()[0])
    return float(lines[-1].split()[-1]), contacts


def time_both(timer, m, mj_path, txt, states, exe, co_path, co_states, args, extra=()):
    """Times MuJoCo (`mj_path`, states `txt` for the C timer) and `collide bench` (`co_path`,
    `co_states`, flags `extra`) `args.repeat` times, alternating: the fastest µs per state of
    each, MuJoCo's ngeom and contacts per state, and collide's contacts per state."""
    mj, co = [], []
    for _ in range(args.repeat):
        if timer:
            us, ngeom, ncon = time_mujoco_c(timer, mj_path, txt, args.min_seconds)
        else:
            us, ngeom, ncon = time_mujoco_py(m, states, args.min_seconds)
        mj.append(us)
        us, co_con = time_collide(exe, co_path, co_states, extra)
        co.append(us)
    return min(mj), min(co), ngeom, ncon, co_con


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("names", nargs="*", help="corpus model names (default: the scene list)")
    ap.add_argument("--repeat", type=int, default=5, help="runs per side; the fastest counts")
    ap.add_argument("--min-seconds", type=float, default=0.5,
                    help="minimum duration of one MuJoCo run")
    ap.add_argument("--json", type=Path, help="also write the results here")
    ap.add_argument("--exe", type=Path, default=ROOT / "target" / "dist" / "collide",
                    help="the collide binary (default: target/dist/collide, built by run.sh)")
    args = ap.parse_args()
    names = args.names or DEFAULT
    corpus = {e["name"]: e for e in json.loads((CONF / "corpus.json").read_text())["models"]}
    exe = args.exe
    timer = build_timer()
    how = "C (mj_collision_timer)" if timer else "Python"
    print(f"mujoco {mujoco.__version__} timed from {how}; one thread; best of {args.repeat}; "
          f"times per state (µs), mj_collision vs collide bench; load average "
          f"{os.getloadavg()[0]:.2f}")
    print(f"{'scene':<32} {'ngeom':>6} {'mj_con':>7} {'co_con':>7} {'mujoco_us':>10} "
          f"{'collide_us':>10} {'ratio':>6}")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            e = corpus[name]
            path = CONF / e["path"]
            states_path = CONF / "states" / (name.replace("/", "__") + ".json")
            states = json.loads(states_path.read_text())["states"]
            m = mujoco.MjModel.from_xml_path(str(path))
            txt = Path(tmp) / "states.txt"
            txt.write_text(states_txt(m, states))
            mj, co, ngeom, ncon, co_con = time_both(
                timer, m, path, txt, states, exe, path, states_path, args)
            row = {"scene": name, "ngeom": ngeom, "mujoco_contacts": ncon,
                   "collide_contacts": co_con, "mujoco_us": mj, "collide_us": co,
                   "ratio": co / mj}
            rows.append(row)
            print(f"{name:<32} {ngeom:>6} {ncon:>7.1f} {co_con:>7.1f} {row['mujoco_us']:>10.2f} "
                  f"{row['collide_us']:>10.2f} {row['ratio']:>6.2f}", flush=True)
    gm = geomean([r["ratio"] for r in rows])
    worst = max(rows, key=lambda r: r["ratio"])
    print(f"geometric mean ratio (collide / mujoco): {gm:.2f}; slowest: {worst['scene']} "
          f"{worst['ratio']:.2f}")
    mesh = [r for r in rows if r["scene"] in MESH_HEAVY]
    if mesh:
        slow = max(mesh, key=lambda r: r["ratio"])
        print(f"mesh-heavy scenes (issue #14, target <= 0.5 each): {len(mesh)}, geometric mean "
              f"{geomean([r['ratio'] for r in mesh]):.2f}, slowest {slow['scene']} "
              f"{slow['ratio']:.2f}")
    if args.json:
        args.json.write_text(json.dumps({"mujoco_version": mujoco.__version__, "timer": how,
                                         "repeat": args.repeat, "rows": rows,
                                         "mesh_heavy": MESH_HEAVY,
                                         "geomean_ratio": gm}, indent=1) + "\n")


if __name__ == "__main__":
    main()
