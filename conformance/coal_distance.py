#!/usr/bin/env python3
"""Oracle data for `collide::distance` on random convex pairs, from coal (formerly hpp-fcl).

Writes crates/collide/tests/data/distance/coal.json, read by crates/collide/tests/distance_coal.rs,
and (with `bench`) target/bench/coal_pairs.txt, the pairs bench/coal_distance_timer.cpp and
`cargo bench --bench distance` time.

Shapes: spheres, capsules, boxes, ellipsoids, cylinders and meshes (convex hulls of 12 random
points), in MuJoCo's size conventions (half sizes; coal's Box, Capsule and Cylinder take full
lengths). Every type pair, random orientations, geom 2 placed along a random direction at a
random distance of its bounding radius (about one pair in five overlaps). coal runs with tight
tolerances (GJK 1e-12, EPA 1e-9, 1000 iterations) so that its answer is the reference.

JSON: {"coal_version", "meshes": [[x,y,z]...]..., "cases": [{"t1","s1","q1","p1","t2",...,
"dist", "p": [6 nearest points],
"mujoco": mj_geomDistance on the same pair}]}. Types are MuJoCo's names; `s` the MuJoCo size (a mesh's
first entry is the mesh index); `p` position, `q` quaternion (w,x,y,z) of each geom.

Run: conformance/.venv/bin/python conformance/coal_distance.py [bench]   (needs `pip install coal`)
"""

import json
import os
import sys

import coal
import mujoco
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "crates", "collide", "tests", "data", "distance", "coal.json")
TYPES = ["sphere", "capsule", "ellipsoid", "cylinder", "box", "mesh"]
NMESH = 4


def quat(rng):
    q = rng.normal(size=4)
    return q / np.linalg.norm(q)


def rotation(q):
    w, x, y, z = q
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
        [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
        [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
    ])


def size_of(t, rng):
    if t == "sphere":
        return [rng.uniform(0.05, 0.3), 0, 0]
    if t in ("capsule", "cylinder"):
        return [rng.uniform(0.05, 0.2), rng.uniform(0.05, 0.3), 0]
    if t in ("ellipsoid", "box"):
        return list(rng.uniform(0.05, 0.3, 3))
    return [int(rng.randint(NMESH)), 0, 0]


def coal_shape(t, s, meshes):
    if t == "sphere":
        return coal.Sphere(s[0])
    if t == "capsule":
        return coal.Capsule(s[0], 2 * s[1])
    if t == "cylinder":
        return coal.Cylinder(s[0], 2 * s[1])
    if t == "ellipsoid":
        return coal.Ellipsoid(*s)
    if t == "box":
        return coal.Box(*(2 * np.array(s)))
    pts = coal.StdVec_Vec3s()
    for p in meshes[int(s[0])]:
        pts.append(np.array(p))
    return coal.Convex.convexHull(pts, False, None)


def rbound(t, s, meshes):
    if t == "sphere":
        return s[0]
    if t in ("capsule", "cylinder"):
        return s[0] + s[1]
    if t in ("ellipsoid", "box"):
        return float(np.linalg.norm(s)) if t == "box" else max(s)
    return float(np.max(np.linalg.norm(np.array(meshes[int(s[0])]), axis=1)))


def request():
    req = coal.DistanceRequest()
    req.gjk_tolerance = 1e-12
    req.gjk_max_iterations = 1000
    # (at 1e-12 coal's EPA fails on some curved pairs, returning -DBL_MAX)
    req.epa_tolerance = 1e-9
    req.epa_max_iterations = 1000
    req.enable_signed_distance = True
    return req


def transform(p, q):
    T = coal.Transform3s()
    T.setTranslation(np.array(p))
    T.setRotation(rotation(q))
    return T


def mujoco_distance(c, meshes):
    """MuJoCo 4.0.0's mj_geomDistance on the same pair (solver at 1e-10, 1000 iterations)."""
    def geom(t, s):
        if t == "mesh":
            return f'<geom type="mesh" mesh="m{int(s[0])}"/>'
        return f'<geom type="{t}" size="{s[0]} {s[1]} {s[2]}"/>'
    assets = "".join(f'<mesh name="m{i}" vertex="{" ".join(str(x) for p in m for x in p)}"/>'
                     for i, m in enumerate(meshes))
    xml = (f'<mujoco><option ccd_tolerance="1e-10" ccd_iterations="1000"/><asset>{assets}'
           f'</asset><worldbody><body><freejoint/>{geom(c["t1"], c["s1"])}</body><body>'
           f'<freejoint/>{geom(c["t2"], c["s2"])}</body></worldbody></mujoco>')
    m = mujoco.MjModel.from_xml_string(xml)
    d = mujoco.MjData(m)
    d.qpos[:] = c["p1"] + c["q1"] + c["p2"] + c["q2"]
    mujoco.mj_kinematics(m, d)
    return mujoco.mj_geomDistance(m, d, 0, 1, 10.0, np.zeros(6))


def main():
    rng = np.random.RandomState(15)
    meshes = [[list(v) for v in rng.uniform(-0.15, 0.15, (12, 3))] for _ in range(NMESH)]
    cases = []
    req = request()
    for rep in range(12):
        for i, t1 in enumerate(TYPES):
            for t2 in TYPES[i:]:
                s1, s2 = size_of(t1, rng), size_of(t2, rng)
                q1, q2 = quat(rng), quat(rng)
                p1 = list(rng.uniform(-1, 1, 3))
                d = rng.normal(size=3)
                d /= np.linalg.norm(d)
                reach = rbound(t1, s1, meshes) + rbound(t2, s2, meshes)
                p2 = list(np.array(p1) + d * reach * rng.uniform(0.3, 1.5))
                res = coal.DistanceResult()
                dist = coal.distance(coal_shape(t1, s1, meshes), transform(p1, q1),
                                     coal_shape(t2, s2, meshes), transform(p2, q2), req, res)
                if dist < -1e300:
                    continue  # coal's EPA failed
                cases.append({"t1": t1, "s1": s1, "p1": p1, "q1": list(q1),
                              "t2": t2, "s2": s2, "p2": p2, "q2": list(q2), "dist": dist,
                              "p": list(res.getNearestPoint1()) + list(res.getNearestPoint2())})
                cases[-1]["mujoco"] = mujoco_distance(cases[-1], meshes)
    data = {"coal_version": coal.__version__, "meshes": meshes, "cases": cases}
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        json.dump(data, f, separators=(",", ":"))
    pen = sum(c["dist"] < 0 for c in cases)
    differ = sum(abs(c["dist"] - c["mujoco"]) > 1e-6 for c in cases)
    print(f"{OUT}: {len(cases)} cases ({pen} overlapping; MuJoCo and coal differ on {differ})",
          file=sys.stderr)


if __name__ == "__main__":
    main()
