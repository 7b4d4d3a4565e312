"""collide from Python against MuJoCo 4.0.0, side by side in one run (bench/python.sh).

For each robot (dm_control humanoid; the mesh robot arm of scenes/robot_arm_hfield), 10,000
random joint configurations (hinge and slide joints uniform in [-1, 1] rad/m around qpos0,
free bodies at qpos0), on 1 and 2 threads, best of REPEATS:
- collide: `collide.Collider(model, n).detect(qpos)` (kinematics + collision + the flat
  contact arrays), from Python;
- MuJoCo C: `mj_kinematics` + `mj_collision` per state, one mjData per thread
  (bench/mj_batch_timer.c, compiled against the wheel's libmujoco): MuJoCo's limit;
- MuJoCo batch: `mujoco.batch.Batch(model, nsim, nthread).forward(stage=mjSTAGE_POS)` with
  qpos set through `bind("qpos")`: what a MuJoCo user would write (it computes the whole
  position stage, not only collisions).
Also the fixed cost of a one-state call: `Collider.detect(q)` from Python vs the same
kinematics + detection called from Rust (crates/collide-cli/examples/one_state.rs).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

import collide

ROOT = Path(__file__).resolve().parents[1]
TARGET = ROOT / "target" / "bench"
ROBOTS = [
    ("humanoid", ROOT / "conformance/corpus/dm_control/suite/humanoid.xml"),
    ("mesh arm", ROOT / "conformance/corpus/scenes/robot_arm_hfield.xml"),
]


def random_states(m: collide.Model, n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    q = np.tile(np.asarray(m.qpos0), (n, 1))
    for j, t in enumerate(m.jnt_type):
        a = int(m.jnt_qposadr[j])
        if t == 1:  # ball
            quat = rng.normal(size=(n, 4))
            q[:, a : a + 4] = quat / np.linalg.norm(quat, axis=1, keepdims=True)
        elif t >= 2:  # slide, hinge
            q[:, a] += rng.uniform(-1.0, 1.0, n)
    return q


def build_timer() -> Path:
    import mujoco

    pkg = Path(mujoco.__file__).resolve().parent
    lib = sorted(pkg.glob("libmujoco.so*"))[0]
    src = ROOT / "bench" / "mj_batch_timer.c"
    exe = TARGET / "mj_batch_timer"
    TARGET.mkdir(parents=True, exist_ok=True)
    if not exe.exists() or exe.stat().st_mtime < src.stat().st_mtime:
        cc = os.environ.get("CC", "cc")
        subprocess.run(
            [cc, "-O2", "-o", str(exe), str(src), f"-I{pkg / 'include'}", f"-L{pkg}",
             f"-l:{lib.name}", f"-Wl,-rpath,{pkg}", "-lpthread"],
            check=True,
        )
    return exe


def time_collide(m: collide.Model, q: np.ndarray, nthread: int, repeats: int) -> tuple[float, int]:
    # every timed call follows a call on other random states: each world's history (its
    # separating directions and warm starts) is then as unrelated to its next state as it is
    # for a stream of random configurations, not the same state again
    other = random_states(m, len(q), seed=99)
    c = collide.Collider(m, nthread)
    r = c.detect(q)  # warm-up (and the contact count)
    best = np.inf
    for _ in range(repeats):
        c.detect(other)
        t = time.perf_counter()
        c.detect(q)
        best = min(best, time.perf_counter() - t)
    return best, len(r)


def time_mujoco_c(timer: Path, path: Path, qfile: Path, n: int, nthread: int, repeats: int) -> tuple[float, int]:
    out = subprocess.run(
        [str(timer), str(path), str(qfile), str(n), str(nthread), str(repeats)],
        check=True, capture_output=True, text=True,
    ).stdout
    kv = dict(line.split(": ") for line in out.strip().splitlines())
    return float(kv["seconds"]), int(kv["ncon"])


def time_mujoco_batch(path: Path, q: np.ndarray, nthread: int, repeats: int) -> float | None:
    import mujoco

    try:
        from mujoco.batch import Batch
    except ImportError:
        return None
    m = mujoco.MjModel.from_xml_path(str(path))
    b = Batch(m, len(q), nthread)
    qpos = b.bind("qpos")
    best = np.inf
    for _ in range(repeats):
        qpos[:] = q
        t = time.perf_counter()
        b.forward(stage=mujoco.mjtStage.mjSTAGE_POS)
        best = min(best, time.perf_counter() - t)
    return best


def one_state(m: collide.Model, path: Path, q: np.ndarray, qfile: Path, repeats: int) -> tuple[float, float]:
    """Per-call time of a one-state `detect` from Python and of the same kinematics +
    detection from Rust; the two alternate three times (best of all), so that a disturbance
    of the shared machine hits both."""
    exe = ROOT / "target" / "dist" / "examples" / "one_state"
    c = collide.Collider(m, 1)
    rows = [np.ascontiguousarray(x) for x in q]
    py = rust = np.inf
    for _ in range(3):
        out = subprocess.run(
            [str(exe), str(path), str(qfile), str(len(q)), str(repeats)],
            check=True, capture_output=True, text=True,
        ).stdout
        kv = dict(line.split(": ") for line in out.strip().splitlines())
        rust = min(rust, float(kv["rust_us_per_call"]))
        for _ in range(repeats):
            t = time.perf_counter()
            for x in rows:
                c.detect(x)
            py = min(py, (time.perf_counter() - t) * 1e6 / len(q))
    return py, rust


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--states", type=int, default=10_000)
    ap.add_argument("--repeats", type=int, default=5)
    a = ap.parse_args()
    timer = build_timer()
    print(f"{a.states} random states per robot, best of {a.repeats}; times in ms per batch "
          f"(us per state); ratio = collide / MuJoCo")
    print(f"{'robot':10} {'threads':>7} {'collide':>16} {'MuJoCo C kin+coll':>18} {'ratio':>6} "
          f"{'mujoco.batch POS':>17} {'ratio':>6}  contacts")
    for name, path in ROBOTS:
        m = collide.Model.from_xml_path(path)
        q = random_states(m, a.states, seed=1)
        qfile = TARGET / f"qpos_{name.replace(' ', '_')}.bin"
        TARGET.mkdir(parents=True, exist_ok=True)
        q.tofile(qfile)
        for n in (1, 2):
            tc, nc = time_collide(m, q, n, a.repeats)
            tm, nm = time_mujoco_c(timer, path, qfile, a.states, n, a.repeats)
            tb = time_mujoco_batch(path, q, n, max(2, a.repeats // 2))
            us = lambda t: f"{t * 1e3:7.2f} ({t * 1e6 / a.states:5.2f})"  # noqa: E731
            batch = f"{us(tb):>17} {tc / tb:6.2f}" if tb else f"{'n/a':>17} {'':>6}"
            print(f"{name:10} {n:7d} {us(tc):>16} {us(tm):>18} {tc / tm:6.2f} {batch}  {nc} vs {nm}")
            sys.stdout.flush()
        py, rust = one_state(m, path, q[:1000], qfile_one(q[:1000], name), a.repeats)
        print(f"{name:10} one-state call: Python {py:.3f} us, Rust {rust:.3f} us, overhead {py - rust:.3f} us")


def qfile_one(q: np.ndarray, name: str) -> Path:
    p = TARGET / f"qpos_one_{name.replace(' ', '_')}.bin"
    q.tofile(p)
    return p


if __name__ == "__main__":
    main()
