#!/usr/bin/env python3
"""Configurations checked per second: collide's `in_collision_batch` against MuJoCo's
mj_kinematics + mj_collision in C (bench/mj_check_timer.c, one mjData per thread), in one run,
on the same random configurations, on 2 threads.

Scenes: the 7-DoF arm over a cluttered table (conformance/corpus/scenes/arm_table_clutter.xml,
joints uniform in their ranges) and the dm_control humanoid's self-collision (joints uniform
in their ranges, the root lifted 1 m so that only self-contacts remain).

Run: bash bench/planning.sh   (sets up conformance/.venv and builds the example)
"""

import os
import subprocess
import sys
from pathlib import Path

import mujoco
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
THREADS = int(os.environ.get("THREADS", "2"))
NSTATE = 20000


def build_timer():
    pkg = Path(mujoco.__file__).resolve().parent
    libs = sorted(pkg.glob("libmujoco.so*"))
    src = ROOT / "bench" / "mj_check_timer.c"
    exe = ROOT / "target" / "bench" / "mj_check_timer"
    exe.parent.mkdir(parents=True, exist_ok=True)
    cc = os.environ.get("CC", "cc")
    subprocess.run([cc, "-O2", "-o", str(exe), str(src), f"-I{pkg / 'include'}", f"-L{pkg}",
                    f"-l:{libs[0].name}", f"-Wl,-rpath,{pkg}", "-lpthread"], check=True)
    return exe


def states(path, lift_root):
    m = mujoco.MjModel.from_xml_path(str(path))
    rng = np.random.RandomState(15)
    out = np.tile(m.qpos0, (NSTATE, 1))
    for j in range(m.njnt):
        a = m.jnt_qposadr[j]
        t = int(m.jnt_type[j])
        if t == int(mujoco.mjtJoint.mjJNT_FREE):
            out[:, a + 2] += lift_root
        elif t in (int(mujoco.mjtJoint.mjJNT_HINGE), int(mujoco.mjtJoint.mjJNT_SLIDE)):
            lo, hi = m.jnt_range[j] if m.jnt_limited[j] else (-np.pi, np.pi)
            out[:, a] = rng.uniform(lo, hi, NSTATE)
    txt = ROOT / "target" / "bench" / (path.stem + "_configs.txt")
    with open(txt, "w") as f:
        f.write(f"{NSTATE} {m.nq} 0\n")
        np.savetxt(f, out, fmt="%.17g")
    return txt


def value(text, key):
    for line in text.splitlines():
        if line.startswith(key):
            return float(line.split()[1])
    raise SystemExit(f"no {key} in {text}")


def main():
    timer = build_timer()
    subprocess.run(["cargo", "build", "--release", "-q", "-p", "collide-cli", "--example",
                    "check_rate"], check=True, cwd=ROOT)
    rate = ROOT / "target" / "release" / "examples" / "check_rate"
    scenes = [("arm over cluttered table", ROOT / "conformance/corpus/scenes/arm_table_clutter.xml", 0.0),
              ("humanoid self-collision", ROOT / "conformance/corpus/dm_control/suite/humanoid.xml", 1.0)]
    print(f"| scene | colliding | collide configs/s | MuJoCo configs/s | ratio |  ({THREADS} threads)")
    print("|---|---|---|---|---|")
    for name, path, lift in scenes:
        txt = states(path, lift)
        c = subprocess.run([str(rate), str(path), str(txt), str(THREADS), "2"], check=True,
                           capture_output=True, text=True).stdout
        mj = subprocess.run([str(timer), str(path), str(txt), str(THREADS), "2"], check=True,
                            capture_output=True, text=True).stdout
        cr, mr = value(c, "collide_configs_per_s"), value(mj, "mujoco_configs_per_s")
        cf, mf = value(c, "colliding_fraction"), value(mj, "colliding_fraction")
        print(f"| {name} | {cf:.1%} (MuJoCo {mf:.1%}) | {cr:,.0f} | {mr:,.0f} | {cr / mr:.1f}x |")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
