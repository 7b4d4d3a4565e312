#!/usr/bin/env python3
"""Oracle data for the libccd MPR convex path (MuJoCo 4.0.0, `nativeccd` disabled).

Writes crates/collide/tests/data/narrow/mpr.json, read by crates/collide/tests/narrow_mpr.rs.

Each case is a tiny model with two free bodies, one geom each (ellipsoid, cylinder, box, mesh,
and capsule/sphere against those), with `<flag nativeccd="disable" multiccd="disable"/>` so
`mjc_Convex` runs libccd's MPR once and reports at most one contact; the geoms' margins add up
to the wanted detection threshold (gap 0). A second set keeps multiccd enabled (the default:
MuJoCo then adds contacts found by perturbing the two poses), mostly cylinder, box and mesh
pairs with aligned frames (face-to-face contacts), and records all of MuJoCo's contacts. The bodies are placed through qpos, then `mj_kinematics` +
`mj_collision` run and MuJoCo's contacts are recorded in order, with the geom poses as MuJoCo
computed them.

This file also holds the helpers shared by narrow_plane_convex.py and narrow_hfield.py
(mesh export, random rotations, case records).

Run: conformance/.venv/bin/python conformance/narrow_mpr.py
Deterministic (numpy RandomState with a fixed seed).

JSON layout:
  {"mujoco_version", "meshes": [MESH], "cases": [{"name", "multiccd": bool, "margin",
     "geoms": [GEOM, GEOM], "contacts": [{"dist", "pos", "normal"}]}]}
  GEOM = {"type", "pos", "mat" (row-major 9), "size", "mesh": index into meshes or -1,
          "rbound"}
  MESH = the convex hull as MuJoCo stores it, in hull (graph-local) indices:
    {"vert": [[x,y,z]], "mesh_index", "adj_start", "adj", "face", "poly_start", "poly_vert",
     "poly_normal", "extrema", "nvert" (mesh vertex count)}
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import mujoco
import numpy as np

HERE = Path(__file__).resolve().parent
DATA = HERE.parent / "crates/collide/tests/data/narrow"
OUT = DATA / "mpr.json"
SEED = 20261107

TYPE_NAMES = ["plane", "hfield", "sphere", "capsule", "ellipsoid", "cylinder", "box", "mesh"]


# ----------------------------------------------------------------------------------------
# shared helpers
# ----------------------------------------------------------------------------------------

def fl(x) -> float:
    return float(x)


def vec(v) -> list:
    return [float(x) for x in v]


def rand_quat(rng):
    q = rng.normal(size=4)
    return q / np.linalg.norm(q)


def quat_mul(a, b):
    r = np.zeros(4)
    mujoco.mju_mulQuat(r, np.asarray(a, float), np.asarray(b, float))
    return r


def quat_mat(q):
    m = np.zeros(9)
    mujoco.mju_quat2Mat(m, np.asarray(q, float) / np.linalg.norm(q))
    return m.reshape(3, 3)


def mat_quat(mat):
    q = np.zeros(4)
    mujoco.mju_mat2Quat(q, np.asarray(mat, float).reshape(9))
    return q / np.linalg.norm(q)


def axis_angle(axis, angle):
    axis = np.asarray(axis, float)
    axis = axis / np.linalg.norm(axis)
    return np.concatenate([[math.cos(angle / 2)], axis * math.sin(angle / 2)])


def rot_between(a, b):
    """Rotation matrix taking unit vector a onto unit vector b."""
    a = np.asarray(a, float) / np.linalg.norm(a)
    b = np.asarray(b, float) / np.linalg.norm(b)
    c = np.cross(a, b)
    s = np.linalg.norm(c)
    d = float(a @ b)
    if s < 1e-12:
        if d > 0:
            return np.eye(3)
        # 180 degrees about any axis perpendicular to a
        p = np.cross(a, [1.0, 0, 0])
        if np.linalg.norm(p) < 1e-6:
            p = np.cross(a, [0, 1.0, 0])
        return quat_mat(axis_angle(p, math.pi))
    return quat_mat(axis_angle(c, math.atan2(s, d)))


def perturb_mat(rng, mat, eps):
    if eps == 0:
        return mat
    return quat_mat(axis_angle(rng.normal(size=3), eps)) @ mat


def mesh_record(m, meshid):
    """The convex hull of mesh `meshid` as MuJoCo stores it, in graph-local indices."""
    vadr = m.mesh_vertadr[meshid]
    nvert = m.mesh_vertnum[meshid]
    verts = m.mesh_vert[vadr:vadr + nvert].astype(float)
    gadr = m.mesh_graphadr[meshid]
    assert gadr >= 0, "mesh without hull graph"
    g = m.mesh_graph[gadr:]
    nv, nf = int(g[0]), int(g[1])
    edgeadr = g[2:2 + nv]
    gid = g[2 + nv:2 + 2 * nv]
    loc = g[2 + 2 * nv:2 + 3 * nv + 3 * nf]
    faces = g[2 + 3 * nv + 3 * nf:2 + 3 * nv + 6 * nf]
    inv = {int(gg): i for i, gg in enumerate(gid)}
    adj_start, adj = [], []
    for i in range(nv):
        adj_start.append(len(adj))
        j = int(edgeadr[i])
        while loc[j] >= 0:
            adj.append(int(loc[j]))
            j += 1
    adj_start.append(len(adj))
    face = [[inv[int(faces[3 * k + t])] for t in range(3)] for k in range(nf)]
    padr = m.mesh_polyadr[meshid]
    pnum = m.mesh_polynum[meshid]
    poly_start, poly_vert, poly_normal = [], [], []
    pn = np.asarray(m.mesh_polynormal).reshape(-1, 3)
    for p in range(pnum):
        a = padr + p
        va = m.mesh_polyvertadr[a]
        n = m.mesh_polyvertnum[a]
        poly_start.append(len(poly_vert))
        poly_vert.extend(inv[int(v)] for v in m.mesh_polyvert[va:va + n])
        poly_normal.append(vec(pn[a]))
    poly_start.append(len(poly_vert))
    ext = np.asarray(m.mesh_extrema).reshape(-1, 27)[meshid]
    return {
        "vert": [vec(verts[int(gg)]) for gg in gid],
        "mesh_index": [int(gg) for gg in gid],
        "adj_start": adj_start,
        "adj": adj,
        "face": face,
        "poly_start": poly_start,
        "poly_vert": poly_vert,
        "poly_normal": poly_normal,
        "extrema": [int(e) for e in ext],
        "nvert": int(nvert),
    }


class MeshBank:
    """Collects mesh records, deduplicated by the vertex text of the asset."""

    def __init__(self):
        self.records = []
        self.index = {}

    def add(self, key, m, meshid):
        if key not in self.index:
            self.index[key] = len(self.records)
            self.records.append(mesh_record(m, meshid))
        return self.index[key]


def geom_record(m, d, g, mesh_index=-1):
    return {
        "type": TYPE_NAMES[m.geom_type[g]],
        "pos": vec(d.geom_xpos[g]),
        "mat": vec(d.geom_xmat[g]),
        "size": vec(m.geom_size[g]),
        "mesh": mesh_index,
        "rbound": fl(m.geom_rbound[g]),
    }


def contact_records(d):
    out = []
    for i in range(d.ncon):
        c = d.contact[i]
        out.append({
            "geom": [int(c.geom[0]), int(c.geom[1])],
            "dist": fl(c.dist),
            "pos": vec(c.pos),
            "normal": vec(c.frame[0:3]),
        })
    return out


def mesh_xml(name, verts):
    txt = " ".join(repr(float(x)) for x in np.ravel(verts))
    return f'<mesh name="{name}" vertex="{txt}"/>'


# random convex meshes -------------------------------------------------------------------

def mesh_cloud(rng, scale):
    n = rng.randint(4, 40)
    p = rng.normal(size=(n, 3))
    p /= np.linalg.norm(p, axis=1, keepdims=True)
    p *= rng.uniform(0.3, 1.0, size=(n, 1)) ** rng.choice([0.0, 0.3])
    return p * scale * rng.uniform(0.4, 1.6, size=3)


def mesh_ngon_prism(rng, scale, centre_vertex=False):
    n = rng.randint(3, 13)
    r = scale * rng.uniform(0.4, 1.2)
    h = scale * rng.uniform(0.1, 1.0)
    top = rng.choice([1.0, rng.uniform(0.3, 1.0)])
    twist = rng.choice([0.0, rng.uniform(0, 0.5)])
    ang = np.arange(n) * 2 * math.pi / n + rng.uniform(0, 1)
    bot = [[r * math.cos(a), r * math.sin(a), -h] for a in ang]
    tp = [[top * r * math.cos(a + twist), top * r * math.sin(a + twist), h] for a in ang]
    v = bot + tp
    if centre_vertex:
        v.append([0.0, 0.0, -h])
    return np.array(v)


def mesh_box(rng, scale):
    s = scale * rng.uniform(0.2, 1.0, size=3)
    return np.array([[x, y, z] for x in (-s[0], s[0]) for y in (-s[1], s[1])
                     for z in (-s[2], s[2])])


def random_mesh(rng, scale):
    u = rng.rand()
    if u < 0.35:
        return mesh_cloud(rng, scale)
    if u < 0.75:
        return mesh_ngon_prism(rng, scale, centre_vertex=rng.rand() < 0.2)
    return mesh_box(rng, scale)


# ----------------------------------------------------------------------------------------
# MPR cases
# ----------------------------------------------------------------------------------------

N_CASES = 1500
N_MULTI = 600
N_POOL = 60

PAIRS = [
    ("ellipsoid", "ellipsoid"), ("ellipsoid", "cylinder"), ("ellipsoid", "box"),
    ("ellipsoid", "mesh"), ("cylinder", "cylinder"), ("cylinder", "box"),
    ("cylinder", "mesh"), ("box", "mesh"), ("mesh", "mesh"), ("sphere", "ellipsoid"),
    ("sphere", "mesh"), ("capsule", "ellipsoid"), ("capsule", "cylinder"),
    ("capsule", "mesh"),
]


def rand_size(rng, kind, scale):
    s = scale * 10.0 ** rng.uniform(-0.6, 0.3, size=3)
    if kind == "sphere":
        return [s[0], 0, 0]
    if kind in ("capsule", "cylinder"):
        return [s[0], s[1], 0]
    return list(s)


def mpr_model(kinds, sizes, meshes, margin, multiccd):
    half = margin / 2.0
    assets = "".join(mesh_xml(f"m{i}", v) for i, v in enumerate(meshes) if v is not None)
    bodies = []
    for i, (k, s) in enumerate(zip(kinds, sizes)):
        if k == "mesh":
            geom = f'<geom type="mesh" mesh="m{i}" margin="{half!r}" gap="0"/>'
        else:
            ss = " ".join(repr(float(x)) for x in s if x != 0)
            geom = f'<geom type="{k}" size="{ss}" margin="{half!r}" gap="0"/>'
        bodies.append(f'<body><freejoint/><inertial pos="0 0 0" mass="1" '
                      f'diaginertia="1 1 1"/>{geom}</body>')
    flag = 'nativeccd="disable"' + ('' if multiccd else ' multiccd="disable"')
    return f"""
<mujoco>
  <option gravity="0 0 0"><flag {flag}/></option>
  <asset>{assets}</asset>
  <worldbody>{''.join(bodies)}</worldbody>
</mujoco>"""


def run_mpr_case(bank, name, kinds, sizes, meshes, margin, quats, offset_dir, gap,
                 multiccd, rng):
    """Places geom 2 along `offset_dir` from geom 1 so that the support-function gap is `gap`."""
    m = mujoco.MjModel.from_xml_string(mpr_model(kinds, sizes, meshes, margin, multiccd))
    d = mujoco.MjData(m)
    assert abs(m.geom_margin[0] + m.geom_margin[1] - margin) <= 1e-15 * max(1, margin)
    # orientation: geom frames = body frames times the compiled geom frames
    d.qpos[3:7] = quats[0]
    d.qpos[10:14] = quats[1]
    mujoco.mj_kinematics(m, d)
    # touch the two geoms at their support points along offset_dir, then move geom 2 by gap
    u = np.asarray(offset_dir, float)
    u /= np.linalg.norm(u)
    d.qpos[0:3] = rng.normal(size=3) * 0.1
    mujoco.mj_kinematics(m, d)
    s1 = support_point(m, d, 0, u)
    s2 = support_point(m, d, 1, -u)
    d.qpos[7:10] = d.qpos[7:10] + (s1 - s2) + u * gap
    mujoco.mj_kinematics(m, d)
    mujoco.mj_collision(m, d)
    geoms = []
    for g in range(2):
        mi = -1
        if kinds[g] == "mesh":
            key = " ".join(repr(float(x)) for x in np.ravel(meshes[g]))
            mi = bank.add(key, m, m.geom_dataid[g])
        geoms.append(geom_record(m, d, g, mi))
    cons = contact_records(d)
    for c in cons:
        assert c["geom"] == [0, 1], c
    return {"name": name, "multiccd": multiccd, "margin": fl(margin), "geoms": geoms,
            "contacts": [{k: c[k] for k in ("dist", "pos", "normal")} for c in cons]}


def support_point(m, d, g, u):
    """The geom's farthest point along world direction u."""
    t = m.geom_type[g]
    R = d.geom_xmat[g].reshape(3, 3)
    c = d.geom_xpos[g]
    lu = R.T @ u
    s = m.geom_size[g]
    if t == mujoco.mjtGeom.mjGEOM_SPHERE:
        return c + s[0] * u
    if t == mujoco.mjtGeom.mjGEOM_CAPSULE:
        return c + R @ np.array([0, 0, s[1] if lu[2] >= 0 else -s[1]]) + s[0] * u
    if t == mujoco.mjtGeom.mjGEOM_ELLIPSOID:
        w = s * s * lu / np.linalg.norm(s * lu)
        return c + R @ w
    if t == mujoco.mjtGeom.mjGEOM_CYLINDER:
        h = math.hypot(lu[0], lu[1])
        xy = s[0] * lu[:2] / h if h > 1e-12 else np.zeros(2)
        return c + R @ np.array([xy[0], xy[1], s[1] if lu[2] >= 0 else -s[1]])
    if t == mujoco.mjtGeom.mjGEOM_BOX:
        return c + R @ (np.where(lu >= 0, 1.0, -1.0) * s)
    mid = m.geom_dataid[g]
    v = m.mesh_vert[m.mesh_vertadr[mid]:m.mesh_vertadr[mid] + m.mesh_vertnum[mid]]
    return c + R @ v[int(np.argmax(v @ lu))].astype(float)


MULTI_PAIRS = [
    ("cylinder", "cylinder"), ("cylinder", "box"), ("cylinder", "mesh"), ("box", "mesh"),
    ("mesh", "mesh"), ("capsule", "cylinder"), ("capsule", "mesh"), ("ellipsoid", "box"),
]


def mpr_cases(rng, bank, n, multiccd):
    cases = []
    pool = []
    for _ in range(N_POOL):
        sc = 10.0 ** rng.uniform(-1.5, 1.0)
        pool.append((sc, random_mesh(rng, sc)))
    for k in range(n):
        pairs = MULTI_PAIRS if multiccd else PAIRS
        kinds = pairs[rng.randint(len(pairs))]
        meshes = [pool[rng.randint(N_POOL)] if kk == "mesh" else None for kk in kinds]
        scale = next((mm[0] for mm in meshes if mm is not None), 10.0 ** rng.uniform(-1.5, 1.0))
        meshes = [mm[1] if mm is not None else None for mm in meshes]
        sizes = [rand_size(rng, kk, scale) for kk in kinds]
        u = rng.rand()
        margin = 0.0 if u < 0.5 else scale * 10.0 ** rng.uniform(-3, -0.5)
        quats = [rand_quat(rng), rand_quat(rng)]
        direction = rng.normal(size=3)
        if rng.rand() < (0.5 if multiccd else 0.15):
            quats[1] = quats[0].copy()  # aligned frames: flat face-to-face contacts
            if multiccd and rng.rand() < 0.5:
                direction = quat_mat(quats[0])[:, rng.randint(3)]
        v = rng.rand()
        if v < 0.45:
            gap = -scale * 10.0 ** rng.uniform(-3, -0.3)   # penetrating
        elif v < 0.6:
            gap = -scale * 10.0 ** rng.uniform(-8, -3)     # shallow
        elif v < 0.85 and margin > 0:
            gap = margin * rng.uniform(0.0, 1.0)           # within the margin
        else:
            gap = (margin + scale * 1e-3) * rng.uniform(1.0, 2.0)  # separated
        cases.append(run_mpr_case(bank, f"{'multi' if multiccd else 'mpr'}_{k}_{kinds[0]}_"
                                  f"{kinds[1]}", kinds, sizes, meshes, margin, quats,
                                  direction, gap, multiccd, rng))
    return cases


def main():
    rng = np.random.RandomState(SEED)
    bank = MeshBank()
    cases = mpr_cases(rng, bank, N_CASES, False) + mpr_cases(rng, bank, N_MULTI, True)
    doc = {"mujoco_version": mujoco.__version__, "meshes": bank.records, "cases": cases}
    OUT.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(doc, separators=(",", ":"))
    OUT.write_text(text + "\n")
    hist = {}
    for c in cases:
        key = (c["multiccd"], len(c["contacts"]))
        hist[key] = hist.get(key, 0) + 1
    print(f"wrote {OUT} ({len(text)} bytes, {len(cases)} cases, {len(bank.records)} meshes)")
    for key in sorted(hist):
        print(f"  multiccd={key[0]!s:5} {key[1]} contacts: {hist[key]}")


if __name__ == "__main__":
    main()
