#!/usr/bin/env python3
"""Oracle data for the plane-convex pair function (MuJoCo 4.0.0 `mjc_PlaneConvex`).

Writes crates/collide/tests/data/narrow/plane_convex.json, read by
crates/collide/tests/narrow_plane_convex.rs.

Each case is a tiny model: a plane in the world body (random pose) and one free body holding an
ellipsoid or a mesh; the two geoms' margins add up to the wanted detection threshold (gap 0).
The body is placed through qpos so that its lowest point is at a chosen height above the plane
(penetrating, touching, within the margin, beyond it); meshes are often laid nearly flat on one
of their hull polygons (exactly flat, or tilted by 1e-9 .. 0.1 rad) to exercise the extra
contacts. `mj_kinematics` + `mj_collision` run and MuJoCo's contacts are recorded in order.

Run: conformance/.venv/bin/python conformance/narrow_plane_convex.py
Deterministic (numpy RandomState with a fixed seed).

JSON layout: as narrow_mpr.py ({"mujoco_version", "meshes", "cases"}), each case with
"geoms": [plane, geom] and "contacts".
"""

from __future__ import annotations

import json
import math

import mujoco
import numpy as np

from narrow_mpr import (DATA, MeshBank, axis_angle, contact_records, fl, geom_record, mat_quat,
                        mesh_xml, perturb_mat, quat_mat, rand_quat, random_mesh, rot_between)

OUT = DATA / "plane_convex.json"
SEED = 20261108
N_ELLIPSOID = 600
N_MESH = 1400
N_POOL = 150


def model_xml(kind, size, verts, margin, plane_pos, plane_quat):
    half = margin / 2.0
    pp = " ".join(repr(float(x)) for x in plane_pos)
    pq = " ".join(repr(float(x)) for x in plane_quat)
    if kind == "mesh":
        asset = f"<asset>{mesh_xml('m', verts)}</asset>"
        geom = f'<geom type="mesh" mesh="m" margin="{half!r}" gap="0"/>'
    else:
        asset = ""
        ss = " ".join(repr(float(x)) for x in size)
        geom = f'<geom type="ellipsoid" size="{ss}" margin="{half!r}" gap="0"/>'
    return f"""
<mujoco>
  <option gravity="0 0 0"/>
  {asset}
  <worldbody>
    <geom type="plane" size="1 1 1" pos="{pp}" quat="{pq}" margin="{half!r}" gap="0"/>
    <body><freejoint/><inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/>{geom}</body>
  </worldbody>
</mujoco>"""


def lowest(m, d, g, n):
    """min over the geom of (x - geom centre) . n."""
    R = d.geom_xmat[g].reshape(3, 3)
    ln = R.T @ n
    if m.geom_type[g] == mujoco.mjtGeom.mjGEOM_ELLIPSOID:
        return -float(np.linalg.norm(m.geom_size[g] * ln))
    mid = m.geom_dataid[g]
    v = m.mesh_vert[m.mesh_vertadr[mid]:m.mesh_vertadr[mid] + m.mesh_vertnum[mid]]
    return float(np.min(v @ ln))


def rand_height(rng, scale, margin):
    u = rng.rand()
    if u < 0.4:
        return -scale * 10.0 ** rng.uniform(-3, -0.3)
    if u < 0.5:
        return -scale * 10.0 ** rng.uniform(-9, -3)
    if u < 0.55:
        return 0.0
    if u < 0.8 and margin > 0:
        return margin * rng.uniform(0, 1)
    if u < 0.85 and margin > 0:
        return margin
    return (margin + scale * 1e-3) * rng.uniform(1.0, 1.5)


def run_case(bank, name, kind, size, verts, margin, plane_pos, plane_quat, geom_mat_fn,
             height, rng):
    m = mujoco.MjModel.from_xml_string(model_xml(kind, size, verts, margin, plane_pos,
                                                 plane_quat))
    d = mujoco.MjData(m)
    mujoco.mj_kinematics(m, d)
    n = d.geom_xmat[0].reshape(3, 3)[:, 2].copy()
    # body orientation giving the wanted geom orientation
    Rg_local = quat_mat(m.geom_quat[1])
    Rg = geom_mat_fn(m, n)
    d.qpos[3:7] = mat_quat(Rg @ Rg_local.T)
    d.qpos[0:3] = 0
    mujoco.mj_kinematics(m, d)
    # put the lowest point at `height` above the plane, at a random spot
    t = rng.normal(size=3) * 0.5
    t -= n * (t @ n)
    low = lowest(m, d, 1, n)
    target_centre = d.geom_xpos[0] + t + n * (height - low)
    d.qpos[0:3] = d.qpos[0:3] + (target_centre - d.geom_xpos[1])
    mujoco.mj_kinematics(m, d)
    mujoco.mj_collision(m, d)
    mi = -1
    if kind == "mesh":
        key = " ".join(repr(float(x)) for x in np.ravel(verts))
        mi = bank.add(key, m, m.geom_dataid[1])
    cons = contact_records(d)
    for c in cons:
        assert c["geom"] == [0, 1], c
    return {"name": name, "margin": fl(margin),
            "geoms": [geom_record(m, d, 0), geom_record(m, d, 1, mi)],
            "contacts": [{k: c[k] for k in ("dist", "pos", "normal")} for c in cons]}


def random_plane(rng):
    pos = rng.normal(size=3) * rng.choice([0.0, 1.0])
    u = rng.rand()
    if u < 0.3:
        q = np.array([1.0, 0, 0, 0])
    elif u < 0.45:
        q = axis_angle(rng.normal(size=3), 10.0 ** rng.uniform(-9, -2))
    else:
        q = rand_quat(rng)
    return pos, q


def ellipsoid_cases(rng, bank):
    cases = []
    for k in range(N_ELLIPSOID):
        scale = 10.0 ** rng.uniform(-2, 1.5)
        size = scale * 10.0 ** rng.uniform(-1, 0.3, size=3)
        if rng.rand() < 0.15:
            size[:] = size[0]  # sphere-like
        margin = 0.0 if rng.rand() < 0.45 else scale * 10.0 ** rng.uniform(-3, 0)
        pp, pq = random_plane(rng)
        v = rng.rand()
        if v < 0.2:
            q0 = np.array([1.0, 0, 0, 0])
        elif v < 0.35:
            q0 = axis_angle(rng.normal(size=3), 10.0 ** rng.uniform(-9, -2))
        else:
            q0 = rand_quat(rng)
        R = quat_mat(q0)
        cases.append(run_case(bank, f"ellipsoid_{k}", "ellipsoid", size, None, margin, pp, pq,
                              lambda m, n, R=R: R, rand_height(rng, scale, margin), rng))
    return cases


def mesh_cases(rng, bank):
    cases = []
    pool = []
    for _ in range(N_POOL):
        scale = 10.0 ** rng.uniform(-2, 1.5)
        pool.append((scale, random_mesh(rng, scale)))
    for k in range(N_MESH):
        scale, verts = pool[rng.randint(N_POOL)]
        margin = 0.0 if rng.rand() < 0.45 else scale * 10.0 ** rng.uniform(-3, 0)
        pp, pq = random_plane(rng)
        mode = rng.rand()
        eps = 0.0 if rng.rand() < 0.3 else 10.0 ** rng.uniform(-9, -1)
        spin = rng.uniform(0, 2 * math.pi)
        pick = rng.randint(1 << 30)

        def face_down(m, n, eps=eps, spin=spin, pick=pick):
            # a hull polygon's outward normal onto -n, spun about n, tilted by eps
            pn = np.asarray(m.mesh_polynormal).reshape(-1, 3)
            adr, num = m.mesh_polyadr[0], m.mesh_polynum[0]
            p = pn[adr + pick % num]
            R = rot_between(p, -n)
            R = quat_mat(axis_angle(n, spin)) @ R
            return perturb_mat(np.random.RandomState(pick), R, eps)

        if mode < 0.55:
            fn = face_down
        elif mode < 0.7:
            q0 = np.array([1.0, 0, 0, 0])

            def fn(m, n, q0=q0, eps=eps, pick=pick):
                return perturb_mat(np.random.RandomState(pick), quat_mat(q0), eps)
        else:
            q0 = rand_quat(rng)

            def fn(m, n, q0=q0):
                return quat_mat(q0)
        cases.append(run_case(bank, f"mesh_{k}", "mesh", None, verts, margin, pp, pq, fn,
                              rand_height(rng, scale, margin), rng))
    return cases


def main():
    rng = np.random.RandomState(SEED)
    bank = MeshBank()
    cases = ellipsoid_cases(rng, bank) + mesh_cases(rng, bank)
    doc = {"mujoco_version": mujoco.__version__, "meshes": bank.records, "cases": cases}
    OUT.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(doc, separators=(",", ":"))
    OUT.write_text(text + "\n")
    hist = {}
    for c in cases:
        key = (c["geoms"][1]["type"], len(c["contacts"]))
        hist[key] = hist.get(key, 0) + 1
    print(f"wrote {OUT} ({len(text)} bytes, {len(cases)} cases, {len(bank.records)} meshes)")
    for key in sorted(hist):
        print(f"  {key[0]:9s} {key[1]} contacts: {hist[key]}")


if __name__ == "__main__":
    main()
