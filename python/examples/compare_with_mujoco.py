"""Loads a corpus robot, detects the contacts of a batch of random joint configurations with
collide on all cores, and compares them with MuJoCo 4.0.0 state by state.

    python python/examples/compare_with_mujoco.py [MODEL.xml] [NSTATES]

(needs `pip install mujoco==4.0.0`; default model: dm_control's humanoid from the corpus).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import mujoco
import numpy as np

import collide

ROOT = Path(__file__).resolve().parents[2]
path = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "conformance/corpus/dm_control/suite/humanoid.xml"
nstate = int(sys.argv[2]) if len(sys.argv) > 2 else 2000

model = collide.Model.from_xml_path(path)
print(model, "geoms:", model.geom_names[:5], "...")

# random joint configurations: hinges and slides uniform in [-1, 1] around qpos0
rng = np.random.default_rng(0)
qpos = np.tile(model.qpos0, (nstate, 1))
for j, jtype in enumerate(model.jnt_type):
    if jtype >= 2:  # slide or hinge
        qpos[:, model.jnt_qposadr[j]] += rng.uniform(-1.0, 1.0, nstate)

collider = collide.Collider(model)  # all cores
t = time.perf_counter()
contacts = collider.detect(qpos)
dt = time.perf_counter() - t
print(f"collide: {len(contacts)} contacts in {nstate} states, {dt * 1e6 / nstate:.2f} us/state "
      f"on {collider.nthread} threads")

# MuJoCo, state by state: the same pairs, the same distances
m = mujoco.MjModel.from_xml_path(str(path))
d = mujoco.MjData(m)
worst = 0.0
for i in range(nstate):
    d.qpos[:] = qpos[i]
    mujoco.mj_kinematics(m, d)
    mujoco.mj_collision(m, d)
    ours = contacts.world(i)
    theirs = d.contact
    assert sorted(map(tuple, ours["geom"])) == sorted(map(tuple, theirs.geom)), f"state {i}"
    if d.ncon:
        a = ours["dist"][np.lexsort(ours["geom"].T[::-1])]
        b = theirs.dist[np.lexsort(theirs.geom.T[::-1])]
        worst = max(worst, float(np.abs(a - b).max()))
print(f"MuJoCo agrees on every pair of all {nstate} states; largest |dist| difference {worst:.1e}")
