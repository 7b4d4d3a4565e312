#!/usr/bin/env python3
"""Oracle data for the height-field pair function (MuJoCo 4.0.0 `mjc_ConvexHField`).

Writes crates/collide/tests/data/narrow/hfield.json, read by
crates/collide/tests/narrow_hfield.rs.

Each case is a tiny model: a small height field (`elevation=...`, 2..16 rows and columns,
random sizes) in the world body at a random pose, and one free body holding a sphere, capsule,
ellipsoid, cylinder, box or mesh, placed through qpos above the terrain, touching it, within
the margin, or sunk into it (sometimes over an edge of the field, sometimes large enough to
cover more than 50 prisms). The geoms' margins add up to the wanted detection threshold
(gap 0). Every configuration is run twice: with MuJoCo's default native convex solver
("native": true) and with `<flag nativeccd="disable"/>` (libccd's MPR, "native": false). The
contacts are recorded in MuJoCo's order, with the geom poses as MuJoCo computed them and the
normalized height data as MuJoCo stores it (`hfield_data`, row 0 at -y).

Run: conformance/.venv/bin/python conformance/narrow_hfield.py
Deterministic (numpy RandomState with fixed seeds: 900 configurations, then an independent
batch of 300 named `hf2_*`).

JSON layout: {"mujoco_version", "meshes" (as narrow_mpr.py), "hfields": [{"size": [sx, sy,
elevation, base], "nrow", "ncol", "data" (nrow*ncol, row-major)}], "cases": [{"name",
"native", "margin", "geoms": [hfield geom (with "hfield": index), geom], "contacts"}]}
"""

from __future__ import annotations

import json
import math

import mujoco
import numpy as np

from narrow_mpr import (DATA, MeshBank, axis_angle, contact_records, fl, geom_record, mat_quat,
                        mesh_xml, quat_mat, rand_quat, random_mesh, vec)

OUT = DATA / "hfield.json"
SEED = 20261109
N_CASES = 900
# a second batch from the same distribution with its own seed ("hf2_*" cases): added when the
# first batch no longer told native-mode variants apart (it caught a hill-climbing tie the first
# batch does not exercise)
SEED2 = 777
N_CASES2 = 300
N_POOL = 40
KINDS = ["sphere", "capsule", "ellipsoid", "cylinder", "box", "mesh"]


def model_xml(hf, kind, size, verts, margin, native, hpos, hquat):
    half = margin / 2.0
    nrow, ncol, hsize, elev = hf
    el = " ".join(repr(float(x)) for x in np.ravel(elev))
    hs = " ".join(repr(float(x)) for x in hsize)
    hp = " ".join(repr(float(x)) for x in hpos)
    hq = " ".join(repr(float(x)) for x in hquat)
    asset = f'<hfield name="h" nrow="{nrow}" ncol="{ncol}" size="{hs}" elevation="{el}"/>'
    if kind == "mesh":
        asset += mesh_xml("m", verts)
        geom = f'<geom type="mesh" mesh="m" margin="{half!r}" gap="0"/>'
    else:
        ss = " ".join(repr(float(x)) for x in size if x != 0)
        geom = f'<geom type="{kind}" size="{ss}" margin="{half!r}" gap="0"/>'
    flag = "" if native else '<flag nativeccd="disable"/>'
    return f"""
<mujoco>
  <option gravity="0 0 0">{flag}</option>
  <asset>{asset}</asset>
  <worldbody>
    <geom type="hfield" hfield="h" pos="{hp}" quat="{hq}" margin="{half!r}" gap="0"/>
    <body><freejoint/><inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/>{geom}</body>
  </worldbody>
</mujoco>"""


def hfield_record(m):
    n = m.hfield_nrow[0] * m.hfield_ncol[0]
    return {"size": vec(m.hfield_size[0]), "nrow": int(m.hfield_nrow[0]),
            "ncol": int(m.hfield_ncol[0]),
            "data": [float(x) for x in m.hfield_data[m.hfield_adr[0]:m.hfield_adr[0] + n]]}


def random_hfield(rng):
    nrow = rng.randint(2, 17)
    ncol = rng.randint(2, 17)
    scale = 10.0 ** rng.uniform(-1, 1)
    size = [scale * rng.uniform(0.5, 2), scale * rng.uniform(0.5, 2),
            scale * rng.uniform(0.05, 0.6), scale * rng.uniform(0.05, 0.5)]
    u = rng.rand()
    if u < 0.1:
        elev = np.zeros((nrow, ncol))  # flat
    elif u < 0.3:
        elev = rng.randint(0, 3, size=(nrow, ncol)).astype(float)  # steps with ties
    else:
        x = np.linspace(0, rng.uniform(1, 6), ncol)
        y = np.linspace(0, rng.uniform(1, 6), nrow)
        elev = (np.sin(x[None, :] + rng.uniform(0, 6)) * np.cos(y[:, None])
                + 0.3 * rng.rand(nrow, ncol))
    return nrow, ncol, size, elev


def local_height(hfs, data, x, y):
    """Max terrain height over the cell containing (x, y) (hfield frame)."""
    nrow, ncol = hfs["nrow"], hfs["ncol"]
    sx, sy, sz = hfs["size"][:3]
    c = (x + sx) / (2 * sx) * (ncol - 1)
    r = (y + sy) / (2 * sy) * (nrow - 1)
    c0 = int(np.clip(math.floor(c), 0, ncol - 2))
    r0 = int(np.clip(math.floor(r), 0, nrow - 2))
    d = np.asarray(data).reshape(nrow, ncol)
    return float(d[r0:r0 + 2, c0:c0 + 2].max()) * sz


def extent(m, d, g, u):
    """max over the geom of (x - centre) . u."""
    t = m.geom_type[g]
    R = d.geom_xmat[g].reshape(3, 3)
    lu = R.T @ u
    s = m.geom_size[g]
    if t == mujoco.mjtGeom.mjGEOM_SPHERE:
        return s[0]
    if t == mujoco.mjtGeom.mjGEOM_CAPSULE:
        return s[0] + s[1] * abs(lu[2])
    if t == mujoco.mjtGeom.mjGEOM_ELLIPSOID:
        return float(np.linalg.norm(s * lu))
    if t == mujoco.mjtGeom.mjGEOM_CYLINDER:
        return s[0] * math.hypot(lu[0], lu[1]) + s[1] * abs(lu[2])
    if t == mujoco.mjtGeom.mjGEOM_BOX:
        return float(np.abs(lu) @ s)
    mid = m.geom_dataid[g]
    v = m.mesh_vert[m.mesh_vertadr[mid]:m.mesh_vertadr[mid] + m.mesh_vertnum[mid]]
    return float(np.max(v @ lu))


def run_pair(bank, hbank, name, hf, kind, size, verts, margin, hpos, hquat, gquat, where,
             gap):
    """Both solvers on one configuration; returns two case records."""
    out = []
    for native in (True, False):
        m = mujoco.MjModel.from_xml_string(model_xml(hf, kind, size, verts, margin, native,
                                                     hpos, hquat))
        d = mujoco.MjData(m)
        d.qpos[3:7] = gquat
        mujoco.mj_kinematics(m, d)
        hrec = hfield_record(m)
        R1 = d.geom_xmat[0].reshape(3, 3)
        up = R1[:, 2]
        x, y = where
        sx, sy = hrec["size"][:2]
        top = local_height(hrec, hrec["data"], np.clip(x, -sx, sx), np.clip(y, -sy, sy))
        low = extent(m, d, 1, -up)
        centre = d.geom_xpos[0] + R1 @ np.array([x, y, top + low + gap])
        d.qpos[0:3] = d.qpos[0:3] + (centre - d.geom_xpos[1])
        mujoco.mj_kinematics(m, d)
        mujoco.mj_collision(m, d)
        key = json.dumps(hrec)
        if key not in hbank:
            hbank[key] = len(hbank)
        hrec_g = geom_record(m, d, 0)
        hrec_g["hfield"] = hbank[key]
        mi = -1
        if kind == "mesh":
            mk = " ".join(repr(float(v)) for v in np.ravel(verts))
            mi = bank.add(mk, m, m.geom_dataid[1])
        cons = contact_records(d)
        for c in cons:
            assert c["geom"] == [0, 1], c
        out.append({"name": f"{name}_{'native' if native else 'mpr'}", "native": native,
                    "margin": fl(margin), "geoms": [hrec_g, geom_record(m, d, 1, mi)],
                    "contacts": [{k: c[k] for k in ("dist", "pos", "normal")} for c in cons]})
    return out


def cases(rng, bank, hbank, n=N_CASES, prefix="hf"):
    pool = [random_mesh(rng, 1.0) for _ in range(N_POOL)]
    res = []
    for k in range(n):
        hf = random_hfield(rng)
        nrow, ncol, hsize, _ = hf
        cell = min(2 * hsize[0] / (ncol - 1), 2 * hsize[1] / (nrow - 1))
        kind = KINDS[rng.randint(len(KINDS))]
        big = rng.rand() < 0.1
        scale = cell * (10.0 ** rng.uniform(-0.7, 0.5) if not big else rng.uniform(3, 6))
        s = scale * 10.0 ** rng.uniform(-0.3, 0.2, size=3)
        size = {"sphere": [s[0], 0, 0], "capsule": [s[0], s[1], 0],
                "cylinder": [s[0], s[1], 0]}.get(kind, list(s))
        verts = pool[rng.randint(N_POOL)] * scale if kind == "mesh" else None
        margin = 0.0 if rng.rand() < 0.45 else scale * 10.0 ** rng.uniform(-2.5, -0.3)
        hpos = rng.normal(size=3) * rng.choice([0.0, 1.0])
        hquat = (np.array([1.0, 0, 0, 0]) if rng.rand() < 0.6
                 else axis_angle(rng.normal(size=3), rng.uniform(0, 0.5)))
        v = rng.rand()
        gquat = rand_quat(rng) if v < 0.6 else (
            np.array([1.0, 0, 0, 0]) if v < 0.8 else axis_angle(rng.normal(size=3), 1e-3))
        edge = rng.rand() < 0.15
        fx = rng.uniform(-1.15, 1.15) if edge else rng.uniform(-0.9, 0.9)
        fy = rng.uniform(-1.15, 1.15) if edge else rng.uniform(-0.9, 0.9)
        where = (fx * hsize[0], fy * hsize[1])
        u = rng.rand()
        if u < 0.45:
            gap = -scale * rng.uniform(0.01, 0.6)
        elif u < 0.55:
            gap = -scale * 10.0 ** rng.uniform(-7, -2)
        elif u < 0.8 and margin > 0:
            gap = margin * rng.uniform(0, 1.2)
        else:
            gap = scale * rng.uniform(0.0, 0.3)
        if big:
            gap = -scale * rng.uniform(0.05, 0.3)
        res += run_pair(bank, hbank, f"{prefix}_{k}_{kind}{'_big' if big else ''}", hf, kind, size,
                        verts, margin, hpos, hquat, gquat, where, gap)
    return res


def main():
    rng = np.random.RandomState(SEED)
    bank = MeshBank()
    hbank = {}
    cs = cases(rng, bank, hbank)
    cs += cases(np.random.RandomState(SEED2), bank, hbank, N_CASES2, "hf2")
    hfields = [None] * len(hbank)
    for key, i in hbank.items():
        hfields[i] = json.loads(key)
    doc = {"mujoco_version": mujoco.__version__, "meshes": bank.records, "hfields": hfields,
           "cases": cs}
    OUT.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(doc, separators=(",", ":"))
    OUT.write_text(text + "\n")
    hist = {}
    for c in cs:
        n = len(c["contacts"])
        key = (c["native"], "0" if n == 0 else "1" if n == 1 else "2-9" if n < 10
               else "10-49" if n < 50 else "50")
        hist[key] = hist.get(key, 0) + 1
    print(f"wrote {OUT} ({len(text)} bytes, {len(cs)} cases, {len(bank.records)} meshes, "
          f"{len(hfields)} hfields)")
    for key in sorted(hist):
        print(f"  native={key[0]!s:5} {key[1]:>5} contacts: {hist[key]}")


if __name__ == "__main__":
    main()
