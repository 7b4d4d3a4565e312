#!/usr/bin/env python3
"""Oracle data for `collide::distance` (MuJoCo 4.0.0's `mj_geomDistance`).

Writes crates/collide/tests/data/distance/geom_distance.bin, read by
crates/collide/tests/distance_mujoco.rs.

For every corpus model (but the 100-humanoid crowd), 10 states (3 when nq > 100, to keep the
file small): up to half of them recorded states from
conformance/states/ and random ones (hinge and slide joints uniform in their range or
qpos0 ± 1 rad/0.5 m, free joints moved by ±0.3 m and turned at random, ball joints turned at
random). Per state, random geom pairs (distinct geoms, visual-only meshes left out; half of them among the 6 geoms nearest
to the first one, to get close and penetrating pairs) and a random `distmax` (15 % in
[0, 0.05], 60 % log-uniform in [0.05, 5], 25 % equal to 100), then `mj_kinematics` and
`mj_geomDistance(m, d, g1, g2, distmax, fromto)`.

Binary layout (little-endian):
  b"CDST", u32 version (1), u32 nmodel, then per model:
    u16 path length, the path (UTF-8, relative to conformance/), u32 nq, u32 nstate,
    f64 qpos[nstate * nq], u32 ncase, then per case:
      u16 state, u16 geom1, u16 geom2, u16 (0), f64 distmax, f64 dist, f64 fromto[6].

With `--sdf`, the models with `sdf` geoms (left out above) instead, into geom_distance_sdf.bin
(same layout), half of the pairs with an sdf geom first: `mj_geomDistance` runs `mjc_SDF` there,
which ignores the margin, so MuJoCo reports only penetrations.

Run: conformance/.venv/bin/python conformance/geom_distance.py [--sdf]   (deterministic: fixed seed)
"""

import json
import os
import struct
import sys

import mujoco
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "crates", "collide", "tests", "data", "distance",
                   "geom_distance.bin")
SKIP = {"scenes/humanoid_crowd_100"}
NSTATE = 10
NCASE = 166


def random_quat(rng):
    q = rng.normal(size=4)
    return q / np.linalg.norm(q)


def random_state(m, rng):
    q = m.qpos0.copy()
    for j in range(m.njnt):
        a = m.jnt_qposadr[j]
        t = m.jnt_type[j]
        if t == mujoco.mjtJoint.mjJNT_FREE:
            q[a:a + 3] += rng.uniform(-0.3, 0.3, 3)
            q[a + 3:a + 7] = random_quat(rng)
        elif t == mujoco.mjtJoint.mjJNT_BALL:
            q[a:a + 4] = random_quat(rng)
        else:
            if m.jnt_limited[j]:
                lo, hi = m.jnt_range[j]
                q[a] = rng.uniform(lo, hi)
            else:
                q[a] += rng.uniform(-1, 1) * (1.0 if t == mujoco.mjtJoint.mjJNT_HINGE else 0.5)
    return q


def main():
    sdf_mode = "--sdf" in sys.argv[1:]
    out = OUT.replace(".bin", "_sdf.bin") if sdf_mode else OUT
    rng = np.random.RandomState(18 if sdf_mode else 15)
    corpus = json.load(open(os.path.join(HERE, "corpus.json")))
    blob = bytearray(b"CDST" + struct.pack("<II", 1, 0))
    nmodel = 0
    ncase_total = 0
    for entry in corpus["models"]:
        if entry["name"] in SKIP or entry["path"].endswith(".urdf"):  # URDF: MJCF-only oracle
            continue
        m = mujoco.MjModel.from_xml_path(os.path.join(HERE, entry["path"]))
        d = mujoco.MjData(m)
        sdf_geoms = [g for g in range(m.ngeom) if m.geom_type[g] == mujoco.mjtGeom.mjGEOM_SDF]
        if m.ngeom < 2 or bool(sdf_geoms) != sdf_mode:
            continue
        recorded = []
        sp = os.path.join(HERE, "states", os.path.basename(entry["fixture"]))
        if os.path.exists(sp):
            recorded = [np.array(s["qpos"]) for s in json.load(open(sp))["states"]][:5]
        nstate = NSTATE if m.nq <= 100 else 3
        recorded = recorded[:nstate // 2]
        states = recorded + [random_state(m, rng) for _ in range(nstate - len(recorded))]
        # visual-only meshes have no collision hull in collide (the compiler builds hulls only
        # for meshes that collide): they are left out
        paired = set(m.pair_geom1) | set(m.pair_geom2)
        usable = [g for g in range(m.ngeom)
                  if m.geom_type[g] != mujoco.mjtGeom.mjGEOM_MESH or g in paired
                  or m.geom_contype[g] or m.geom_conaffinity[g]]
        cases = []
        for c in range(NCASE):
            s = c % len(states)
            d.qpos[:] = states[s]
            mujoco.mj_kinematics(m, d)
            g1 = int(rng.choice(sdf_geoms if sdf_mode and c % 2 == 0 else usable))
            others = np.array([g for g in usable if g != g1])
            if rng.uniform() < 0.5:
                dd = np.linalg.norm(d.geom_xpos[others] - d.geom_xpos[g1], axis=1)
                g2 = int(rng.choice(others[np.argsort(dd)[:6]]))
            else:
                g2 = int(rng.choice(others))
            u = rng.uniform()
            if u < 0.15:
                distmax = rng.uniform(0, 0.05)
            elif u < 0.75:
                distmax = float(np.exp(rng.uniform(np.log(0.05), np.log(5))))
            else:
                distmax = 100.0
            fromto = np.zeros(6)
            dist = mujoco.mj_geomDistance(m, d, int(g1), g2, distmax, fromto)
            cases.append((s, int(g1), g2, distmax, dist, fromto.copy()))
        path = entry["path"].encode()
        blob += struct.pack("<H", len(path)) + path
        blob += struct.pack("<II", m.nq, len(states))
        for q in states:
            blob += np.asarray(q, dtype="<f8").tobytes()
        blob += struct.pack("<I", len(cases))
        for s, g1, g2, distmax, dist, fromto in cases:
            blob += struct.pack("<HHHHdd", s, g1, g2, 0, distmax, dist)
            blob += np.asarray(fromto, dtype="<f8").tobytes()
        nmodel += 1
        ncase_total += len(cases)
    struct.pack_into("<I", blob, 8, nmodel)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "wb") as f:
        f.write(blob)
    print(f"{out}: {nmodel} models, {ncase_total} cases, {len(blob)} bytes", file=sys.stderr)


if __name__ == "__main__":
    main()
