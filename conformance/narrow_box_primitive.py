#!/usr/bin/env python3
"""Oracle data for the sphere-box and capsule-box pair functions (MuJoCo 4.0.0).

Writes crates/collide/tests/data/narrow/box_primitive.json, read by
crates/collide/tests/narrow_box_primitive.rs.

Each case is a tiny model with two free bodies (a sphere or capsule, then a box), each holding
one geom; the geoms' margins add up to the wanted detection threshold (gap 0). The bodies are
placed through qpos, then `mj_kinematics` + `mj_collision` run and MuJoCo's contacts are
recorded in order. The geom poses are recorded as MuJoCo computed them (`geom_xpos`,
`geom_xmat`), so the Rust side sees exactly the same input.

Run: conformance/.venv/bin/python conformance/narrow_box_primitive.py
Deterministic (numpy RandomState with a fixed seed).

JSON layout:
  {"mujoco_version", "cases": [{"name", "type": "sphere"|"capsule",
     "pos1", "mat1" (row-major 9), "size1", "pos2", "mat2", "size2", "margin",
     "contacts": [{"dist", "pos", "normal"}]}]}
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import mujoco
import numpy as np

HERE = Path(__file__).resolve().parent
OUT = HERE.parent / "crates/collide/tests/data/narrow/box_primitive.json"
SEED = 20240611
N_SPHERE = 500
N_CAPSULE = 800

TYPE_NAMES = {mujoco.mjtGeom.mjGEOM_SPHERE: "sphere", mujoco.mjtGeom.mjGEOM_CAPSULE: "capsule"}


def fnum(x: float) -> float:
    """A Python float (repr round-trips)."""
    return float(x)


def model_xml(kind: str, size1, size2, margin: float) -> str:
    half = margin / 2.0
    s1 = " ".join(repr(float(v)) for v in size1)
    s2 = " ".join(repr(float(v)) for v in size2)
    return f"""
<mujoco>
  <option gravity="0 0 0"/>
  <worldbody>
    <body name="a"><freejoint/><inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/>
      <geom name="g1" type="{kind}" size="{s1}" margin="{half!r}" gap="0"/>
    </body>
    <body name="b"><freejoint/><inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/>
      <geom name="g2" type="box" size="{s2}" margin="{half!r}" gap="0"/>
    </body>
  </worldbody>
</mujoco>"""


def run_case(name, kind, size1, size2, margin, pos1, quat1, pos2, quat2):
    """Runs MuJoCo on one configuration; returns the JSON record."""
    m = mujoco.MjModel.from_xml_string(model_xml(kind, size1, size2, margin))
    d = mujoco.MjData(m)
    assert m.geom_margin[0] + m.geom_margin[1] == margin, (m.geom_margin, margin)
    q1 = np.asarray(quat1, float)
    q2 = np.asarray(quat2, float)
    d.qpos[0:3] = pos1
    d.qpos[3:7] = q1 / np.linalg.norm(q1)
    d.qpos[7:10] = pos2
    d.qpos[10:14] = q2 / np.linalg.norm(q2)
    mujoco.mj_kinematics(m, d)
    mujoco.mj_collision(m, d)
    contacts = []
    for i in range(d.ncon):
        c = d.contact[i]
        assert c.geom[0] == 0 and c.geom[1] == 1, (name, c.geom)
        contacts.append({
            "dist": fnum(c.dist),
            "pos": [fnum(v) for v in c.pos],
            "normal": [fnum(v) for v in c.frame[0:3]],
        })
    return {
        "name": name,
        "type": kind,
        "pos1": [fnum(v) for v in d.geom_xpos[0]],
        "mat1": [fnum(v) for v in d.geom_xmat[0]],
        "size1": [fnum(v) for v in m.geom_size[0]],
        "pos2": [fnum(v) for v in d.geom_xpos[1]],
        "mat2": [fnum(v) for v in d.geom_xmat[1]],
        "size2": [fnum(v) for v in m.geom_size[1]],
        "margin": fnum(m.geom_margin[0] + m.geom_margin[1]),
        "contacts": contacts,
    }


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


def z_to(vec):
    """Quaternion rotating +z onto vec."""
    q = np.zeros(4)
    v = np.asarray(vec, float)
    mujoco.mju_quatZ2Vec(q, v / np.linalg.norm(v))
    return q


def axis_aligned_quat(rng):
    """One of the 24 rotations mapping axes to axes (as quaternions with 'nice' entries)."""
    h = math.sqrt(0.5)
    base = [
        [1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1],
        [h, h, 0, 0], [h, 0, h, 0], [h, 0, 0, h], [h, -h, 0, 0], [h, 0, -h, 0], [h, 0, 0, -h],
        [0, h, h, 0], [0, h, 0, h], [0, 0, h, h], [0, h, -h, 0], [0, h, 0, -h], [0, 0, h, -h],
        [.5, .5, .5, .5], [.5, -.5, .5, .5], [.5, .5, -.5, .5], [.5, .5, .5, -.5],
        [.5, -.5, -.5, .5], [.5, -.5, .5, -.5], [.5, .5, -.5, -.5], [.5, -.5, -.5, -.5],
    ]
    return np.array(base[rng.randint(len(base))], float)


def perturb(rng, q, eps):
    return quat_mul(q, axis_angle(rng.normal(size=3), eps))


def rand_scale(rng):
    u = rng.rand()
    if u < 0.04:
        return 10.0 ** rng.uniform(-4.5, -3.5)  # tiny: MuJoCo's absolute thresholds kick in
    if u < 0.08:
        return 10.0 ** rng.uniform(2.5, 3.5)
    return 10.0 ** rng.uniform(-2, 2)


def rand_margin(rng, scale):
    u = rng.rand()
    if u < 0.45:
        return 0.0
    return scale * 10.0 ** rng.uniform(-3, 0)


def rand_box_rot(rng):
    u = rng.rand()
    if u < 0.15:
        return axis_aligned_quat(rng)
    if u < 0.25:
        return perturb(rng, axis_aligned_quat(rng), 10.0 ** rng.uniform(-12, -3))
    return rand_quat(rng)


def surface_feature(rng, size):
    """A random point on the box surface (local) and a direction in its normal cone."""
    kind = rng.randint(3)  # 0 face, 1 edge, 2 corner
    signs = rng.choice([-1.0, 1.0], size=3)
    p = rng.uniform(-1, 1, size=3) * size
    n = np.zeros(3)
    axes = rng.permutation(3)
    fixed = axes[: kind + 1]
    for a in fixed:
        p[a] = signs[a] * size[a]
        n[a] = signs[a] * rng.uniform(0.05, 1.0)
    if kind == 0:
        n[fixed[0]] = signs[fixed[0]]
    n /= np.linalg.norm(n)
    return p, n


def rand_depth(rng, radius, margin):
    u = rng.rand()
    if u < 0.3:
        return -radius * rng.uniform(0, 1.0)
    if u < 0.5:
        return -radius * 10.0 ** rng.uniform(-8, -1)
    if u < 0.8 and margin > 0:
        return margin * rng.uniform(0, 1.0)
    if u < 0.9:
        return (margin + radius * 1e-3) * rng.uniform(1.0, 1.5)
    return 0.0


# ----------------------------------------------------------------------------------------
# sphere-box
# ----------------------------------------------------------------------------------------

def sphere_cases(rng):
    cases = []
    for k in range(N_SPHERE):
        scale = rand_scale(rng)
        size2 = scale * 10.0 ** rng.uniform(-1.2, 1.2, size=3)
        radius = scale * 10.0 ** rng.uniform(-1.5, 1.0)
        margin = rand_margin(rng, scale)
        qb = rand_box_rot(rng)
        rb = quat_mat(qb)
        pb = rng.normal(size=3) * scale * rng.choice([0.0, 1.0, 10.0])
        mode = rng.rand()
        if mode < 0.2:
            # centre inside the box (deep), or anywhere near it
            local = rng.uniform(-1.0, 1.0, size=3) * size2 * rng.choice([1.0, 1.0 + (radius + margin) / size2.max()])
        else:
            p, n = surface_feature(rng, size2)
            local = p + n * (radius + rand_depth(rng, radius, margin))
        ps = pb + rb @ local
        cases.append(run_case(f"sphere_random_{k}", "sphere", [radius, 0, 0], size2, margin,
                              ps, rand_quat(rng), pb, qb))
    return cases


def sphere_handmade():
    cases = []
    ident = [1, 0, 0, 0]
    size2 = [0.5, 0.25, 1.0]
    r = 0.25

    def add(name, local, margin=0.0, qb=ident, pb=(0, 0, 0), size=size2, radius=r):
        rb = quat_mat(qb)
        ps = np.asarray(pb, float) + rb @ np.asarray(local, float)
        cases.append(run_case("sphere_" + name, "sphere", [radius, 0, 0], size, margin, ps, ident,
                              pb, qb))

    # resting exactly on each face
    for a in range(3):
        for s in (-1, 1):
            local = [0.0, 0.0, 0.0]
            local[a] = s * (size2[a] + r)
            add(f"rest_face_{a}_{s}", local)
            local[a] = s * (size2[a] + r + 0.125)
            add(f"at_margin_face_{a}_{s}", local, margin=0.125)
            add(f"beyond_margin_face_{a}_{s}", local, margin=0.0625)
            local[a] = s * (size2[a] + r + 0.125 + 2.0 ** -40)
            add(f"just_beyond_margin_face_{a}_{s}", local, margin=0.125)
    # centre inside, nearest face each way, and ties
    add("centre_at_box_centre", [0, 0, 0])
    add("centre_inside_near_x+", [0.4, 0.0, 0.0])
    add("centre_inside_near_y-", [0.1, -0.2, 0.3])
    add("centre_inside_near_z+", [0.0, 0.0, 0.9])
    add("centre_inside_tie_xy", [0.25, 0.0, 0.0], size=[0.5, 0.25, 1.0])
    add("centre_inside_tie_all", [0.0, 0.0, 0.0], size=[0.5, 0.5, 0.5])
    add("centre_inside_corner_tie", [0.4, 0.4, 0.4], size=[0.5, 0.5, 0.5])
    # centre on the surface: face, edge, corner
    add("centre_on_face", [0.5, 0.1, 0.2])
    add("centre_on_edge", [0.5, 0.25, 0.2])
    add("centre_on_corner", [0.5, 0.25, 1.0])
    add("centre_on_corner_neg", [-0.5, -0.25, -1.0])
    # just outside surface features
    add("near_edge", [0.5 + 0.1, 0.25 + 0.1, 0.0])
    add("near_corner", [0.6, 0.35, 1.1])
    add("touch_corner_margin", [0.5 + 0.125, 0.25 + 0.125, 1.0 + 0.125], margin=0.5)
    add("centre_1e-20_outside", [0.5 + 1e-20, 0.0, 0.0])
    add("centre_1e-16_outside", [0.5 + 1e-16, 0.0, 0.0])
    add("centre_1e-14_outside", [0.5 + 1e-14, 0.0, 0.0])
    add("centre_just_inside", [0.5 - 1e-14, 0.0, 0.0])
    # deep penetration, rotated box, large offsets
    q = axis_angle([1, 2, 3], 0.7)
    add("rotated_deep", [0.1, 0.05, -0.2], qb=q, pb=(3, -2, 1))
    add("rotated_face", [0.0, 0.0, 1.25], qb=q, pb=(3, -2, 1))
    add("big_sphere_small_box", [0.0, 0.0, 1.5], radius=10.0)
    add("big_sphere_contains_box", [0.1, 0.0, 0.0], radius=10.0)
    add("tiny_everything", [6e-5, 0, 0], size=[5e-5, 5e-5, 5e-5], radius=1e-5)
    add("far_away_huge", [0, 0, 2000.25], size=[1000, 1000, 2000], radius=0.25, pb=(1e3, 0, 0))
    return cases


# ----------------------------------------------------------------------------------------
# capsule-box
# ----------------------------------------------------------------------------------------

def rand_capsule_axis(rng, rb, n_local):
    """Capsule axis (world): random, or grazing (perpendicular to the local normal), or along
    a box axis, with small perturbations."""
    u = rng.rand()
    if u < 0.35:
        return rng.normal(size=3)
    if u < 0.6:
        t = rng.normal(size=3)
        t -= n_local * (t @ n_local)
        t += n_local * rng.choice([0.0, 10.0 ** rng.uniform(-10, -1), rng.uniform(-0.8, 0.8)])
        return rb @ t
    e = np.zeros(3)
    e[rng.randint(3)] = rng.choice([-1.0, 1.0])
    if rng.rand() < 0.5:
        e += rng.normal(size=3) * 10.0 ** rng.uniform(-10, -2)
    return rb @ e


def capsule_cases(rng):
    cases = []
    for k in range(N_CAPSULE):
        scale = rand_scale(rng)
        size2 = scale * 10.0 ** rng.uniform(-1.2, 1.2, size=3)
        radius = scale * 10.0 ** rng.uniform(-1.5, 0.5)
        half = scale * 10.0 ** rng.uniform(-1.2, 1.2)
        margin = rand_margin(rng, scale)
        qb = rand_box_rot(rng)
        rb = quat_mat(qb)
        pb = rng.normal(size=3) * scale * rng.choice([0.0, 1.0, 10.0])
        mode = rng.rand()
        if mode < 0.15:
            local = rng.uniform(-1.0, 1.0, size=3) * (size2 + radius + half)
            axis = rng.normal(size=3)
        else:
            p, n = surface_feature(rng, size2)
            axis = rand_capsule_axis(rng, rb, n)
            a_local = rb.T @ (axis / np.linalg.norm(axis))
            t = rng.choice([-1.0, 1.0, rng.uniform(-1, 1)])
            local = p + n * (radius + rand_depth(rng, radius, margin)) - t * half * a_local
        qc = z_to(axis)
        if rng.rand() < 0.5:
            qc = quat_mul(qc, axis_angle([0, 0, 1], rng.uniform(0, 2 * math.pi)))
        pc = pb + rb @ local
        cases.append(run_case(f"capsule_random_{k}", "capsule", [radius, half, 0], size2, margin,
                              pc, qc, pb, qb))
    return cases


def capsule_handmade():
    cases = []
    ident = np.array([1.0, 0, 0, 0])
    size2 = [0.5, 0.25, 1.0]
    h = math.sqrt(0.5)
    # capsule quats: axis along local x, y, z of the world
    along = {
        "x": np.array([h, 0, h, 0]),
        "y": np.array([h, -h, 0, 0]),
        "z": ident,
        "-x": np.array([h, 0, -h, 0]),
    }

    def add(name, local, qc, margin=0.0, qb=ident, pb=(0, 0, 0), size=size2, radius=0.125,
            half=0.5):
        rb = quat_mat(qb)
        pc = np.asarray(pb, float) + rb @ np.asarray(local, float)
        qc = quat_mul(qb, qc)  # capsule quat given relative to the box
        cases.append(run_case("capsule_" + name, "capsule", [radius, half, 0], size, margin, pc,
                              qc, pb, qb))

    q45 = axis_angle([1, 1, 0], 0.3)
    for qname, qb in (("aligned", ident), ("rotated", axis_angle([1, -2, 0.5], 1.1))):
        # parallel to a face: resting, penetrating, at the margin
        add(f"{qname}_parallel_top_rest", [0.0, 0.0, 1.125], along["x"], qb=qb)
        add(f"{qname}_parallel_top_pen", [0.1, 0.05, 1.05], along["x"], qb=qb)
        add(f"{qname}_parallel_top_margin", [0.0, 0.0, 1.25], along["y"], margin=0.125, qb=qb)
        add(f"{qname}_parallel_top_overhang", [0.6, 0.0, 1.1], along["x"], qb=qb)
        add(f"{qname}_parallel_top_overhang_neg", [-0.6, 0.1, 1.1], along["-x"], qb=qb)
        add(f"{qname}_parallel_side_y", [0.0, 0.3, 0.2], along["z"], qb=qb)
        add(f"{qname}_parallel_side_long", [0.0, 0.3, 0.0], along["z"], qb=qb, half=3.0)
        # through the box
        add(f"{qname}_through_z", [0.1, 0.05, 0.0], along["z"], qb=qb, half=3.0)
        add(f"{qname}_through_x", [0.0, 0.0, 0.3], along["x"], qb=qb, half=3.0)
        add(f"{qname}_through_oblique", [0.0, 0.0, 0.0], q45, qb=qb, half=3.0)
        add(f"{qname}_inside", [0.0, 0.0, 0.0], q45, qb=qb, half=0.1, radius=0.01)
        # axis along a box edge
        add(f"{qname}_along_edge_z", [0.5 + 0.08, 0.25 + 0.08, 0.0], along["z"], qb=qb)
        add(f"{qname}_along_edge_z_pen", [0.55, 0.3, 0.9], along["z"], qb=qb)
        add(f"{qname}_along_edge_x", [0.0, 0.25 + 0.05, 1.0 + 0.05], along["x"], qb=qb)
        add(f"{qname}_on_edge_x", [0.0, 0.25, 1.0], along["x"], qb=qb)
        # end on a face, pointing out (T) and slanted
        add(f"{qname}_end_on_top", [0.1, 0.0, 1.0 + 0.5 + 0.1], along["z"], qb=qb)
        add(f"{qname}_slanted_top", [0.0, 0.0, 1.25], axis_angle([0, 1, 0], 1.3), qb=qb)
        add(f"{qname}_slanted_top2", [0.2, 0.1, 1.2], axis_angle([1, 1, 0], 1.2), qb=qb)
        # crossing an edge
        add(f"{qname}_cross_edge", [0.55, 0.0, 1.05], axis_angle([1, 0, 0], 1.2), qb=qb)
        add(f"{qname}_cross_edge2", [0.55, 0.0, 1.05], axis_angle([1, 0.2, 0], 1.5), qb=qb)
        # near a corner
        add(f"{qname}_corner", [0.6, 0.35, 1.1], axis_angle([1, -1, 0], 1.0), qb=qb)
        add(f"{qname}_corner_pointing", [0.7, 0.45, 1.2], z_to([1, 1, 1]), qb=qb, half=0.2)
        add(f"{qname}_deep", [0.1, 0.0, 0.5], axis_angle([0, 1, 0], 0.4), qb=qb, radius=0.5)
        add(f"{qname}_far", [0.0, 0.0, 5.0], along["x"], qb=qb)
        add(f"{qname}_far_margin", [0.0, 0.0, 1.0 + 0.125 + 0.5], along["x"], qb=qb, margin=0.5)
        # segment on the line of an edge (colinear), inside and overhanging the edge
        add(f"{qname}_colinear_edge", [0.5, 0.25, 0.0], along["z"], qb=qb)
        add(f"{qname}_colinear_edge_long", [0.5, 0.25, 0.3], along["z"], qb=qb, half=3.0)
        add(f"{qname}_colinear_edge_out", [0.5, 0.25, 1.6], along["z"], qb=qb)
        # segment ends exactly on a face, an edge, a corner
        add(f"{qname}_end_on_face", [0.0, 0.0, 1.5], along["z"], qb=qb)
        add(f"{qname}_end_on_edge", [0.5, 0.0, 1.5], along["z"], qb=qb)
        add(f"{qname}_end_on_corner", [0.5, 0.25, 1.5], along["z"], qb=qb)
        add(f"{qname}_end_on_corner_diag", list(np.array([0.5, 0.25, 1.0]) * 1.0
                                                 + 0.5 * np.array([1, 1, 1]) / math.sqrt(3)),
            z_to([1, 1, 1]), qb=qb)
        # centred, along each box axis (symmetric ties)
        for ax in ("x", "y", "z"):
            add(f"{qname}_centred_{ax}", [0.0, 0.0, 0.0], along[ax], qb=qb)
            add(f"{qname}_centred_long_{ax}", [0.0, 0.0, 0.0], along[ax], qb=qb, half=5.0)
        # in a face plane, across the face
        add(f"{qname}_in_face_plane", [0.0, 0.0, 1.0],
            quat_mul(axis_angle([0, 0, 1], 0.4), along["x"]), qb=qb, half=2.0)
        # grazing: nearly parallel to the top face
        for k, eps in enumerate((1e-14, 1e-9, 1e-5, 1e-2)):
            add(f"{qname}_grazing_{k}", [0.1, 0.05, 1.1], quat_mul(along["x"],
                                                                axis_angle([0, 1, 0], eps)), qb=qb)
            add(f"{qname}_grazing_edge_{k}", [0.55, 0.0, 1.05],
                quat_mul(along["y"], axis_angle([1, 1, 0], eps)), qb=qb)
    # exactly at the margin, exact arithmetic
    add("margin_exact_top", [0.0, 0.0, 1.0 + 0.125 + 0.25], along["x"], margin=0.25)
    add("margin_exact_top_beyond", [0.0, 0.0, 1.0 + 0.125 + 0.25 + 2.0 ** -40], along["x"],
        margin=0.25)
    add("margin_exact_end", [0.0, 0.0, 1.0 + 0.5 + 0.125 + 0.25], along["z"], margin=0.25)
    # tiny and huge
    add("tiny_parallel", [0.0, 0.0, 1.1e-4], along["x"], size=[1e-4, 1e-4, 1e-4], radius=1e-5,
        half=5e-5)
    add("tiny_slanted", [0.0, 0.0, 1.1e-4], axis_angle([0, 1, 0], 1.2), size=[1e-4, 1e-4, 1e-4],
        radius=1e-5, half=5e-5)
    add("huge_parallel", [0.0, 0.0, 1000.0 + 99.0], along["x"], size=[500, 250, 1000], radius=100,
        half=400)
    # thin capsule / flat box
    add("needle", [0.0, 0.0, 1.0], axis_angle([1, 0, 0], 0.01), radius=1e-3, half=2.0)
    add("flat_box", [0.0, 0.0, 0.02], axis_angle([0, 1, 0.3], 1.4), size=[2, 2, 0.01])
    return cases


def main():
    rng = np.random.RandomState(SEED)
    cases = sphere_handmade() + capsule_handmade() + sphere_cases(rng) + capsule_cases(rng)
    doc = {"mujoco_version": mujoco.__version__, "cases": cases}
    OUT.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(doc, separators=(",", ":"))
    OUT.write_text(text + "\n")
    hist = {}
    for c in cases:
        key = (c["type"], len(c["contacts"]))
        hist[key] = hist.get(key, 0) + 1
    print(f"wrote {OUT} ({len(text)} bytes, {len(cases)} cases)")
    for key in sorted(hist):
        print(f"  {key[0]:8s} {key[1]} contacts: {hist[key]}")


if __name__ == "__main__":
    main()
