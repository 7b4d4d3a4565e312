#!/usr/bin/env python3
"""Oracle data for the general convex collider (`mjc_Convex`, native GJK/EPA + multiccd) of
MuJoCo 4.0.0.

Writes crates/collide/tests/data/narrow/convex.json, read by
crates/collide/tests/narrow_convex.rs.

Every geom-type pair that MuJoCo 4.0.0 sends to `mjc_Convex` is covered: sphere-ellipsoid,
sphere-mesh, capsule-ellipsoid, capsule-cylinder, capsule-mesh, ellipsoid with ellipsoid,
cylinder, box and mesh, cylinder with cylinder, box and mesh, box-mesh and mesh-mesh.

Each case is a tiny model with two free bodies holding one geom each (the lower geom type
first, as MuJoCo orders a pair); each geom's margin is half the detection threshold (gap 0).
The bodies are placed through qpos, then `mj_kinematics` + `mj_collision` run and MuJoCo's
contacts are recorded in order, with the geom poses as MuJoCo computed them (`geom_xpos`,
`geom_xmat`, which include the mesh frame).

Meshes are small convex point sets defined inline; MuJoCo's compiled data for each (the
float vertices, the hull graph `mesh_graph`, the merged polygons `mesh_poly*` and the 27
`mesh_extrema`) is recorded once under "meshes", so the Rust test builds its `ConvexHull`
from MuJoCo's own hull.

Three kinds of configurations:
  - "random": random orientations, geom 2 moved along a random direction until MuJoCo's
    signed distance (`mj_geomDistance`) reaches a random target near contact;
  - "aligned": a flat feature of geom 2 (box or mesh face, cylinder cap or side, capsule side)
    turned against a flat feature of geom 1 with a small tilt, then placed the same way;
    these exercise the multi-contact paths;
  - "deep": random orientations, penetrating by 0.4 to 1.6 times the smaller shape's size
    (sphere centres and capsule segments inside the other shape: the full GJK + EPA path).

Run: conformance/.venv/bin/python conformance/narrow_convex.py
(`... narrow_convex.py scenes` writes crates/collide/tests/data/narrow/convex_scenes.json instead:
the colliding convex primitive pairs of three corpus scenes, see `scene_cases`; `... mesh_wall`
writes convex_mesh_wall.json: meshes straddling a thin wall, see `mesh_wall_cases`; `... urdf`
writes convex_urdf.json: convex pairs of URDF corpus models, see `urdf_cases`.)
Deterministic (numpy RandomState with a fixed seed). For a fresh validation set:
CONVEX_SEED=<n> CONVEX_OUT=/tmp/convex.json ...; then CONVEX_DATA=/tmp/convex.json for the test.

JSON layout:
  {"mujoco_version",
   "meshes": {name: {"vert": [[x,y,z]] (m.mesh_vert), "graph": [...] (m.mesh_graph of the
              mesh), "polyvert": [[v...]] (mesh vertex ids per polygon), "polynormal":
              [[x,y,z]], "extrema": [27 ints]}},
   "cases": [{"name", "pair", "kind", "type1", "type2", "mesh1", "mesh2" (name or null),
              "pos1", "mat1" (row-major 9), "size1", "pos2", "mat2", "size2", "margin",
              "maxcon" (mj_maxContact), "qpos" (to rebuild the case in MuJoCo),
              "contacts": [{"dist", "pos", "normal"}]}]}
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import mujoco
import numpy as np

HERE = Path(__file__).resolve().parent
OUT = Path(os.environ.get("CONVEX_OUT", HERE.parent / "crates/collide/tests/data/narrow/convex.json"))
SEED = int(os.environ.get("CONVEX_SEED", "20250917"))
N_RANDOM = 140
N_ALIGNED = 140
N_DEEP = 40

TYPES = {
    "sphere": 2,
    "capsule": 3,
    "ellipsoid": 4,
    "cylinder": 5,
    "box": 6,
    "mesh": 7,
}

PAIRS = [
    ("sphere", "ellipsoid"),
    ("sphere", "mesh"),
    ("capsule", "ellipsoid"),
    ("capsule", "cylinder"),
    ("capsule", "mesh"),
    ("ellipsoid", "ellipsoid"),
    ("ellipsoid", "cylinder"),
    ("ellipsoid", "box"),
    ("ellipsoid", "mesh"),
    ("cylinder", "cylinder"),
    ("cylinder", "box"),
    ("cylinder", "mesh"),
    ("box", "mesh"),
    ("mesh", "mesh"),
]


def _prism(n, r, h, phase=0.0):
    pts = []
    for z in (-h, h):
        for k in range(n):
            a = phase + 2 * math.pi * k / n
            pts.append([r * math.cos(a), r * math.sin(a), z])
    return pts


def _icosahedron(r):
    p = (1 + math.sqrt(5)) / 2
    pts = []
    for a in (-1, 1):
        for b in (-p, p):
            pts += [[0, a, b], [a, b, 0], [b, 0, a]]
    s = r / math.sqrt(1 + p * p)
    return [[s * x for x in v] for v in pts]


def _blob(rng, n, axes):
    pts = []
    for _ in range(n):
        v = rng.normal(size=3)
        v /= np.linalg.norm(v)
        pts.append(list(v * axes))
    return pts


def make_meshes():
    rng = np.random.RandomState(7)
    meshes = {
        "tet": [[0.0, 0.0, 0.0], [0.25, 0.02, 0.01], [0.05, 0.22, -0.03], [0.08, 0.07, 0.2]],
        "hexa": [[x, y, z] for x in (-0.2, 0.2) for y in (-0.12, 0.12) for z in (-0.08, 0.08)],
        "skewhexa": [[-0.15, -0.1, -0.1], [0.2, -0.12, -0.1], [0.22, 0.14, -0.1],
                     [-0.12, 0.1, -0.1], [-0.1, -0.06, 0.12], [0.14, -0.08, 0.12],
                     [0.16, 0.1, 0.12], [-0.08, 0.07, 0.12]],
        "oct": [[0.2, 0, 0], [-0.2, 0, 0], [0, 0.15, 0], [0, -0.15, 0], [0, 0, 0.25],
                [0, 0, -0.25]],
        "prism3": _prism(3, 0.18, 0.1, 0.3),
        "prism5": _prism(5, 0.15, 0.12, 0.1),
        "hexprism": _prism(6, 0.2, 0.06),
        "ico": _icosahedron(0.18),
        "blob": _blob(rng, 28, np.array([0.22, 0.15, 0.12])),
    }
    return meshes


MESHES = make_meshes()


def fnum(x) -> float:
    return float(x)


def vec(v):
    return [fnum(x) for x in v]


def geom_xml(kind, size, mesh, margin_half, name):
    if kind == "mesh":
        return f'<geom name="{name}" type="mesh" mesh="{mesh}" margin="{margin_half!r}" gap="0"/>'
    s = " ".join(repr(float(v)) for v in size)
    return f'<geom name="{name}" type="{kind}" size="{s}" margin="{margin_half!r}" gap="0"/>'


def model_xml(k1, s1, m1, k2, s2, m2, margin):
    half = margin / 2.0
    assets = ""
    for name in sorted({m for m in (m1, m2) if m}):
        verts = " ".join(repr(float(x)) for v in MESHES[name] for x in v)
        assets += f'<mesh name="{name}" vertex="{verts}"/>'
    return f"""
<mujoco>
  <option gravity="0 0 0"/>
  <asset>{assets}</asset>
  <worldbody>
    <body name="a"><freejoint/><inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/>
      {geom_xml(k1, s1, m1, half, "g1")}
    </body>
    <body name="b"><freejoint/><inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/>
      {geom_xml(k2, s2, m2, half, "g2")}
    </body>
  </worldbody>
</mujoco>"""


MESH_DATA = {}


def record_mesh(m, name):
    mid = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_MESH, name)
    va, vn = m.mesh_vertadr[mid], m.mesh_vertnum[mid]
    vert = [vec(v) for v in m.mesh_vert[va:va + vn]]
    ga = m.mesh_graphadr[mid]
    nv, nf = int(m.mesh_graph[ga]), int(m.mesh_graph[ga + 1])
    glen = 2 + 2 * nv + (nv + 3 * nf) + 3 * nf
    graph = [int(x) for x in m.mesh_graph[ga:ga + glen]]
    pa, pn = m.mesh_polyadr[mid], m.mesh_polynum[mid]
    polys, normals = [], []
    for p in range(pa, pa + pn):
        a, n = m.mesh_polyvertadr[p], m.mesh_polyvertnum[p]
        polys.append([int(x) for x in m.mesh_polyvert[a:a + n]])
        normals.append(vec(m.mesh_polynormal[p]))
    extrema = [int(x) for x in m.mesh_extrema[mid]]
    rec = {"vert": vert, "graph": graph, "polyvert": polys, "polynormal": normals,
           "extrema": extrema}
    if name in MESH_DATA:
        assert MESH_DATA[name] == rec, name
    else:
        MESH_DATA[name] = rec


class Scene:
    """One compiled two-geom model; poses are set through qpos."""

    def __init__(self, k1, s1, m1, k2, s2, m2, margin):
        self.m = mujoco.MjModel.from_xml_string(model_xml(k1, s1, m1, k2, s2, m2, margin))
        self.d = mujoco.MjData(self.m)
        assert self.m.geom_type[0] == TYPES[k1] and self.m.geom_type[1] == TYPES[k2]
        for name in (m1, m2):
            if name:
                record_mesh(self.m, name)
        self.ft = np.zeros(6)

    def place(self, p1, q1, p2, q2):
        d = self.d
        d.qpos[0:3] = p1
        d.qpos[3:7] = np.asarray(q1, float) / np.linalg.norm(q1)
        d.qpos[7:10] = p2
        d.qpos[10:14] = np.asarray(q2, float) / np.linalg.norm(q2)
        mujoco.mj_kinematics(self.m, d)

    def distance(self):
        return mujoco.mj_geomDistance(self.m, self.d, 0, 1, 10.0, self.ft)

    def collide(self):
        mujoco.mj_collision(self.m, self.d)
        out = []
        for i in range(self.d.ncon):
            c = self.d.contact[i]
            assert c.geom[0] == 0 and c.geom[1] == 1, c.geom
            out.append({"dist": fnum(c.dist), "pos": vec(c.pos), "normal": vec(c.frame[0:3])})
        return out


# ----------------------------------------------------------------------------------------
# random helpers
# ----------------------------------------------------------------------------------------

def rand_quat(rng):
    q = rng.normal(size=4)
    return q / np.linalg.norm(q)


def quat_mul(a, b):
    w1, x1, y1, z1 = a
    w2, x2, y2, z2 = b
    return np.array([
        w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2,
        w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
        w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2,
        w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2,
    ])


def quat_mat(q):
    m = np.zeros(9)
    mujoco.mju_quat2Mat(m, np.asarray(q, float) / np.linalg.norm(q))
    return m.reshape(3, 3)


def axis_angle(axis, angle):
    axis = np.asarray(axis, float)
    axis = axis / np.linalg.norm(axis)
    return np.concatenate([[math.cos(angle / 2)], axis * math.sin(angle / 2)])


def vec_to_vec_quat(a, b):
    """Quaternion rotating unit vector a onto unit vector b."""
    a = np.asarray(a, float) / np.linalg.norm(a)
    b = np.asarray(b, float) / np.linalg.norm(b)
    c = np.cross(a, b)
    s = np.linalg.norm(c)
    d = float(a @ b)
    if s < 1e-12:
        if d > 0:
            return np.array([1.0, 0, 0, 0])
        perp = np.cross(a, [1.0, 0, 0])
        if np.linalg.norm(perp) < 1e-6:
            perp = np.cross(a, [0, 1.0, 0])
        return axis_angle(perp, math.pi)
    return axis_angle(c, math.atan2(s, d))


def rand_size(rng, kind):
    if kind == "sphere":
        return [rng.uniform(0.04, 0.25), 0, 0]
    if kind == "capsule":
        return [rng.uniform(0.03, 0.15), rng.uniform(0.05, 0.3), 0]
    if kind == "ellipsoid":
        return list(rng.uniform(0.05, 0.3, size=3))
    if kind == "cylinder":
        return [rng.uniform(0.04, 0.25), rng.uniform(0.04, 0.25), 0]
    if kind == "box":
        return list(rng.uniform(0.04, 0.25, size=3))
    return [0, 0, 0]


def char_size(kind, size, mesh):
    if kind == "mesh":
        pts = np.asarray(MESHES[mesh])
        return 0.5 * float(np.min(pts.max(0) - pts.min(0)))
    if kind in ("sphere",):
        return size[0]
    if kind in ("capsule", "cylinder"):
        return min(size[0], size[1])
    return min(size)


def rand_margin(rng):
    u = rng.rand()
    if u < 0.5:
        return 0.0
    return 10.0 ** rng.uniform(-3.3, -1.4)


def rand_target(rng, smin, margin, deep=False):
    if deep:
        return -smin * rng.uniform(0.4, 1.6)
    u = rng.rand()
    if u < 0.45:
        return -smin * rng.uniform(0, 0.35)
    if u < 0.65:
        return -smin * 10.0 ** rng.uniform(-7, -1.5)
    if u < 0.85 and margin > 0:
        return margin * rng.uniform(0, 1.0)
    return (margin + 1e-4) * rng.uniform(0.2, 1.6)


def flat_feature(rng, kind, mesh):
    """A local outward normal of a flat (or straight) feature of the geom, or None."""
    if kind == "box":
        e = np.zeros(3)
        e[rng.randint(3)] = rng.choice([-1.0, 1.0])
        return e
    if kind == "cylinder":
        if rng.rand() < 0.6:
            return np.array([0, 0, rng.choice([-1.0, 1.0])])
        a = rng.uniform(0, 2 * math.pi)
        return np.array([math.cos(a), math.sin(a), 0.0])
    if kind == "capsule":
        a = rng.uniform(0, 2 * math.pi)
        return np.array([math.cos(a), math.sin(a), 0.0])
    if kind == "mesh":
        rec = MESH_DATA[mesh]
        n = rec["polynormal"][rng.randint(len(rec["polynormal"]))]
        return np.asarray(n, float)
    return None


def place_at_distance(scene, p1, q1, q2, direction, lateral, target):
    """Moves geom 2 (its body) along `direction` from p1 + lateral until MuJoCo's signed
    distance equals `target`; returns False if it cannot."""
    base = np.asarray(p1, float) + lateral

    def f(s):
        scene.place(p1, q1, base + s * direction, q2)
        return scene.distance() - target

    lo, hi = 0.0, 2.0
    flo = f(lo)
    if flo > 0:
        return False
    if f(hi) < 0:
        return False
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if f(mid) < 0:
            lo = mid
        else:
            hi = mid
    f(0.5 * (lo + hi))
    return True


def make_case(rng, k1, k2, kind, idx):
    s1, s2 = rand_size(rng, k1), rand_size(rng, k2)
    m1 = list(MESHES)[rng.randint(len(MESHES))] if k1 == "mesh" else None
    m2 = list(MESHES)[rng.randint(len(MESHES))] if k2 == "mesh" else None
    margin = rand_margin(rng)
    scene = Scene(k1, s1, m1, k2, s2, m2, margin)
    # body frame = geom frame for primitives; for meshes MuJoCo's geom frame is the mesh's
    # principal frame, offset from the body: use the compiled geom pose to orient features
    gq1 = scene.m.geom_quat[0].copy()
    gq2 = scene.m.geom_quat[1].copy()
    smin = min(char_size(k1, s1, m1), char_size(k2, s2, m2))
    for _ in range(50):
        q1 = rand_quat(rng)
        p1 = rng.normal(size=3) * 0.3
        if kind in ("random", "deep"):
            q2 = rand_quat(rng)
            direction = rng.normal(size=3)
            direction /= np.linalg.norm(direction)
            lateral = np.zeros(3)
        else:
            n1 = flat_feature(rng, k1, m1)
            n2 = flat_feature(rng, k2, m2)
            if n1 is None or n2 is None:
                return None
            # world normal of geom 1's feature
            r1 = quat_mat(quat_mul(q1, gq1))
            w = r1 @ n1
            # orient geom 2 so that its feature normal is -w, with a small tilt and spin
            tilt = rng.choice([0.0, 10.0 ** rng.uniform(-6, -2), rng.uniform(0, math.radians(8))])
            axis = np.cross(w, rng.normal(size=3))
            target_n = quat_mat(axis_angle(axis, tilt)) @ (-w)
            spin = axis_angle(w, rng.uniform(0, 2 * math.pi))
            # geom rotation R2g = spin * rot(n2 -> target_n); body quat = R2g * gq2^-1
            qg = quat_mul(spin, vec_to_vec_quat(n2, quat_mat(spin).T @ target_n))
            q2 = quat_mul(qg, gq2 * np.array([1, -1, -1, -1]))
            direction = w
            t1, t2 = np.cross(w, [1.0, 0, 0]), None
            if np.linalg.norm(t1) < 1e-3:
                t1 = np.cross(w, [0, 1.0, 0])
            t1 /= np.linalg.norm(t1)
            t2 = np.cross(w, t1)
            lateral = (t1 * rng.normal() + t2 * rng.normal()) * smin * rng.choice([0.0, 0.5, 1.5])
        target = rand_target(rng, smin, margin, deep=kind == "deep")
        if place_at_distance(scene, p1, q1, q2, direction, lateral, target):
            break
    else:
        return None
    contacts = scene.collide()
    m, d = scene.m, scene.d
    return {
        "name": f"{k1}_{k2}_{kind}_{idx}",
        "pair": f"{k1}-{k2}",
        "kind": kind,
        "type1": k1,
        "type2": k2,
        "mesh1": m1,
        "mesh2": m2,
        "pos1": vec(d.geom_xpos[0]),
        "mat1": vec(d.geom_xmat[0]),
        "size1": vec(m.geom_size[0]),
        "pos2": vec(d.geom_xpos[1]),
        "mat2": vec(d.geom_xmat[1]),
        "size2": vec(m.geom_size[1]),
        "margin": fnum(m.geom_margin[0] + m.geom_margin[1]),
        "maxcon": int(mujoco.mj_maxContact(m, 0, 1, -1)),
        "qpos": vec(d.qpos),
        "contacts": contacts,
    }


def main():
    rng = np.random.RandomState(SEED)
    # compile every mesh once so that "aligned" cases can use polygon normals
    for name in MESHES:
        Scene("mesh", [0, 0, 0], name, "mesh", [0, 0, 0], name, 0.0)
    cases = []
    for k1, k2 in PAIRS:
        for kind, n in (("random", N_RANDOM), ("aligned", N_ALIGNED), ("deep", N_DEEP)):
            made = 0
            tries = 0
            while made < n and tries < 4 * n:
                tries += 1
                case = make_case(rng, k1, k2, kind, made)
                if case is None:
                    continue
                cases.append(case)
                made += 1
        counts = {}
        for c in cases:
            if c["pair"] == f"{k1}-{k2}":
                counts[len(c["contacts"])] = counts.get(len(c["contacts"]), 0) + 1
        print(f"{k1}-{k2}: contact counts {dict(sorted(counts.items()))}")
    doc = {"mujoco_version": mujoco.__version__, "meshes": MESH_DATA, "cases": cases}
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(doc, separators=(",", ":")))
    print(f"wrote {len(cases)} cases to {OUT}")


SCENES = ["scenes/ellipsoid_cylinder_pile", "scenes/cylinders_on_boxes", "scenes/primitive_pairs"]
SCENES_OUT = HERE.parent / "crates/collide/tests/data/narrow/convex_scenes.json"
CONVEX_SCENE_TYPES = {"sphere", "capsule", "ellipsoid", "cylinder", "box"}


def scene_cases():
    """The colliding primitive pairs of SCENES that MuJoCo sends to `mjc_Convex`, per recorded
    state, with MuJoCo's own geom poses and contacts (conformance/fixtures). Scene geometry
    exercises what random pairs rarely do: mirror-symmetric stacks (near-tied EPA faces),
    deep ellipsoid overlaps (EPA stopped by the iteration budget) and cylinders resting flat
    on boxes (16-gon cap clipping)."""
    names = {v: k for k, v in TYPES.items()}
    cases = []
    for scene in SCENES:
        fx = json.loads((HERE / "fixtures" / (scene.replace("/", "__") + ".json")).read_text())
        m = mujoco.MjModel.from_xml_path(str(HERE / fx["model"]))
        for si, st in enumerate(fx["states"]):
            pairs = {}
            for c in st["contacts"]:
                pairs.setdefault((c["geom1"], c["geom2"]), []).append(c)
            for (g1, g2), cons in sorted(pairs.items()):
                k1, k2 = names.get(int(m.geom_type[g1])), names.get(int(m.geom_type[g2]))
                if k1 not in CONVEX_SCENE_TYPES or k2 not in CONVEX_SCENE_TYPES:
                    continue
                if not ({k1, k2} & {"ellipsoid", "cylinder"}) or {k1, k2} == {"sphere", "cylinder"}:
                    continue  # analytic in MuJoCo
                margin = max(m.geom_margin[g1], m.geom_margin[g2]) + max(m.geom_gap[g1], m.geom_gap[g2])
                cases.append({
                    "name": f"{scene.split('/')[1]}_s{si}_{g1}_{g2}",
                    "pair": f"{k1}-{k2}", "kind": "scene", "type1": k1, "type2": k2,
                    "mesh1": None, "mesh2": None,
                    "pos1": vec(st["geom_xpos"][g1]), "mat1": vec(st["geom_xmat"][g1]),
                    "size1": vec(m.geom_size[g1]),
                    "pos2": vec(st["geom_xpos"][g2]), "mat2": vec(st["geom_xmat"][g2]),
                    "size2": vec(m.geom_size[g2]),
                    "margin": fnum(margin), "maxcon": int(mujoco.mj_maxContact(m, g1, g2, -1)),
                    "qpos": [],
                    "contacts": [{"dist": fnum(c["dist"]), "pos": vec(c["pos"]),
                                  "normal": vec(c["normal"])} for c in cons],
                })
    doc = {"mujoco_version": mujoco.__version__, "meshes": {}, "cases": cases}
    SCENES_OUT.write_text(json.dumps(doc, separators=(",", ":")))
    print(f"wrote {len(cases)} scene cases to {SCENES_OUT}")


MESH_WALL_OUT = HERE.parent / "crates/collide/tests/data/narrow/convex_mesh_wall.json"
MESH_WALL_PAIRS = [(2, 61), (2, 75), (2, 98)]


def mesh_wall_cases():
    """Meshes straddling a thin static box wall (scenes/mesh_pile_100, state 0, the wall pairs
    listed in MESH_WALL_PAIRS): face–face multi-contact whose deepest clipped point lies beyond
    the wall's far face. MuJoCo's geom poses, hulls and contacts."""
    names = {v: k for k, v in TYPES.items()}
    scene = "scenes/mesh_pile_100"
    fx = json.loads((HERE / "fixtures" / (scene.replace("/", "__") + ".json")).read_text())
    m = mujoco.MjModel.from_xml_path(str(HERE / fx["model"]))
    st = fx["states"][0]
    cases = []
    for g1, g2 in MESH_WALL_PAIRS:
        cons = [c for c in st["contacts"] if (c["geom1"], c["geom2"]) == (g1, g2)]
        meshes = []
        for g in (g1, g2):
            mid = int(m.geom_dataid[g])
            name = mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_MESH, mid) if mid >= 0 else None
            if name:
                record_mesh(m, name)
            meshes.append(name)
        k1, k2 = names[int(m.geom_type[g1])], names[int(m.geom_type[g2])]
        margin = max(m.geom_margin[g1], m.geom_margin[g2]) + max(m.geom_gap[g1], m.geom_gap[g2])
        cases.append({
            "name": f"mesh_pile_100_s0_{g1}_{g2}",
            "pair": f"{k1}-{k2}", "kind": "scene", "type1": k1, "type2": k2,
            "mesh1": meshes[0], "mesh2": meshes[1],
            "pos1": vec(st["geom_xpos"][g1]), "mat1": vec(st["geom_xmat"][g1]),
            "size1": vec(m.geom_size[g1]),
            "pos2": vec(st["geom_xpos"][g2]), "mat2": vec(st["geom_xmat"][g2]),
            "size2": vec(m.geom_size[g2]),
            "margin": fnum(margin), "maxcon": int(mujoco.mj_maxContact(m, g1, g2, -1)),
            "qpos": [],
            "contacts": [{"dist": fnum(c["dist"]), "pos": vec(c["pos"]),
                          "normal": vec(c["normal"])} for c in cons],
        })
    doc = {"mujoco_version": mujoco.__version__, "meshes": MESH_DATA, "cases": cases}
    MESH_WALL_OUT.write_text(json.dumps(doc, separators=(",", ":")))
    print(f"wrote {len(cases)} mesh-wall cases to {MESH_WALL_OUT}")


URDF_OUT = HERE.parent / "crates/collide/tests/data/narrow/convex_urdf.json"
# (model, state, geom1, geom2): convex pairs of URDF corpus models pinned by regression tests
URDF_PAIRS = [
    ("urdf/r2d2", 5, 0, 12),
    ("urdf/laikago/laikago_toes_zup", 7, 0, 15),
]


def urdf_cases():
    """Convex pairs of URDF corpus models (URDF_PAIRS): MuJoCo's geom poses as recorded in the
    fixture, its compiled hulls and its contacts for that pair. Mesh names are prefixed with the
    model name (two models may hold meshes of the same name)."""
    import harness

    names = {v: k for k, v in TYPES.items()}
    cases = []
    for model, state, g1, g2 in URDF_PAIRS:
        fx = json.loads((HERE / "fixtures" / (model.replace("/", "__") + ".json")).read_text())
        m = harness.load(HERE / fx["model"])
        st = fx["states"][state]
        cons = [c for c in st["contacts"] if (c["geom1"], c["geom2"]) == (g1, g2)]
        meshes = []
        for g in (g1, g2):
            mid = int(m.geom_dataid[g])
            name = mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_MESH, mid) if mid >= 0 else None
            key = None
            if name:
                key = f"{model}:{name}"
                record_mesh(m, name)
                MESH_DATA[key] = MESH_DATA.pop(name)
            meshes.append(key)
        k1, k2 = names[int(m.geom_type[g1])], names[int(m.geom_type[g2])]
        margin = max(m.geom_margin[g1], m.geom_margin[g2]) + max(m.geom_gap[g1], m.geom_gap[g2])
        cases.append({
            "name": f"{model}_s{state}_{g1}_{g2}",
            "pair": f"{k1}-{k2}", "kind": "urdf", "type1": k1, "type2": k2,
            "mesh1": meshes[0], "mesh2": meshes[1],
            "pos1": vec(st["geom_xpos"][g1]), "mat1": vec(st["geom_xmat"][g1]),
            "size1": vec(m.geom_size[g1]),
            "pos2": vec(st["geom_xpos"][g2]), "mat2": vec(st["geom_xmat"][g2]),
            "size2": vec(m.geom_size[g2]),
            "margin": fnum(margin), "maxcon": int(mujoco.mj_maxContact(m, g1, g2, -1)),
            "qpos": [],
            "contacts": [{"dist": fnum(c["dist"]), "pos": vec(c["pos"]),
                          "normal": vec(c["normal"])} for c in cons],
        })
    doc = {"mujoco_version": mujoco.__version__, "meshes": MESH_DATA, "cases": cases}
    URDF_OUT.write_text(json.dumps(doc, separators=(",", ":")))
    print(f"wrote {len(cases)} URDF cases to {URDF_OUT}")


if __name__ == "__main__":
    import sys

    if sys.argv[1:] == ["scenes"]:
        scene_cases()
    elif sys.argv[1:] == ["mesh_wall"]:
        mesh_wall_cases()
    elif sys.argv[1:] == ["urdf"]:
        urdf_cases()
    else:
        main()
