"""Times MuJoCo 4.0.0's mj_collision and `collide bench` on the same models and states, in one
run, and prints the ratio per scene.

Usage: bash bench/run.sh [MODEL_NAME ...]   (names as in conformance/corpus.json)
"""
import json
import subprocess
import sys
import time
from pathlib import Path

import mujoco

ROOT = Path(__file__).resolve().parent.parent
CONF = ROOT / "conformance"
DEFAULT = [
    "scenes/humanoid_crowd_100",
    "scenes/humanoid_crowd_22",
    "dm_control/humanoid",
    "scenes/capsule_heap",
    "scenes/sphere_pile",
    "scenes/box_pile",
    "scenes/dominoes",
]


def time_mujoco(path, states, min_seconds=1.0):
    m = mujoco.MjModel.from_xml_path(str(path))
    d = mujoco.MjData(m)
    datas = []
    for s in states:
        dd = mujoco.MjData(m)
        dd.qpos[:] = s["qpos"]
        if m.nmocap and "mocap_pos" in s:
            dd.mocap_pos[:] = s["mocap_pos"]
            dd.mocap_quat[:] = s["mocap_quat"]
        mujoco.mj_kinematics(m, dd)
        datas.append(dd)
    ncon = sum(mujoco.mj_collision(m, dd) or dd.ncon for dd in datas) / len(datas)
    iters, elapsed = 1, 0.0
    while True:
        t = time.perf_counter()
        for _ in range(iters):
            for dd in datas:
                mujoco.mj_collision(m, dd)
        elapsed = time.perf_counter() - t
        if elapsed >= min_seconds:
            break
        iters *= 2
    return elapsed * 1e6 / (iters * len(datas)), m.ngeom, ncon


def time_collide(exe, path, states_path):
    out = subprocess.run([str(exe), "bench", str(path), "--states", str(states_path)],
                         capture_output=True, text=True, check=True).stdout
    last = out.strip().splitlines()[-1]
    assert last.startswith("collide_us_per_state:"), out
    return float(last.split()[-1])


def main():
    names = sys.argv[1:] or DEFAULT
    corpus = {e["name"]: e for e in json.loads((CONF / "corpus.json").read_text())["models"]}
    exe = ROOT / "target" / "release" / "collide"
    print(f"mujoco {mujoco.__version__}; one thread; times per state (µs), mj_collision vs collide bench")
    print(f"{'scene':<32} {'ngeom':>6} {'contacts':>8} {'mujoco_us':>10} {'collide_us':>10} {'ratio':>6}")
    ratios = []
    for name in names:
        e = corpus[name]
        path = CONF / e["path"]
        states_path = CONF / "states" / (name.replace("/", "__") + ".json")
        states = json.loads(states_path.read_text())["states"]
        mj_us, ngeom, ncon = time_mujoco(path, states)
        co_us = time_collide(exe, path, states_path)
        ratios.append(co_us / mj_us)
        print(f"{name:<32} {ngeom:>6} {ncon:>8.0f} {mj_us:>10.1f} {co_us:>10.1f} {co_us / mj_us:>6.2f}")
    gm = 1.0
    for r in ratios:
        gm *= r
    print(f"geometric mean ratio (collide / mujoco): {gm ** (1 / len(ratios)):.2f}")


if __name__ == "__main__":
    main()
