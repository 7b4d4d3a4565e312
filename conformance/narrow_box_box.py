#!/usr/bin/env python3
"""Box-box narrow-phase oracle: MuJoCo 4.0.0 contacts for random and degenerate box pairs.

Run with the conformance virtualenv (mujoco==4.0.0, numpy):

    conformance/.venv/bin/python conformance/narrow_box_box.py

Writes crates/collide/tests/data/narrow/box_box.json, read by
crates/collide/tests/narrow_box_box.rs. Deterministic (seeded).

Each case is a tiny MJCF with two box geoms, each in its own free-joint body (two mocap or
static bodies would be filtered out as a dof-less pair). The poses are set through `qpos`,
then `mj_kinematics` + `mj_collision`; the inputs recorded are the poses MuJoCo actually
used (`geom_xpos`, `geom_xmat` row-major), `geom_size`, and the threshold `margin` that
`mj_collision` passes to `mjc_BoxBox`. Every case runs twice (see `run_case`): through the
ordinary pipeline with per-geom margins (margin1 + margin2 = threshold) and through an
explicit `<pair>` that bypasses the broadphase; the pair run's contacts are recorded, in
MuJoCo's order: `dist`, `pos`, `normal` = `frame[0:3]`. geom 0 (body 1) is always
`contact.geom[0]` for two boxes, which the script checks.

Case kinds (the `kind` field): random, slab/needle aspect extremes, stacks (aligned and
slightly tilted, twisted, offset, both orders), edge-edge, vertex-face, contained and
concentric, exactly touching, large/small scales, and MuJoCo's own test configurations
(`engine_collision_box_test.cc`).
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

import mujoco
import numpy as np

HERE = Path(__file__).resolve().parent
OUT = HERE.parent / "crates/collide/tests/data/narrow/box_box.json"

SEED = 20240613
rng = np.random.default_rng(SEED)


# ------------------------------------------------------------------------------ rotations

def quat_mul(a, b):
    w1, x1, y1, z1 = a
    w2, x2, y2, z2 = b
    return np.array([
        w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2,
        w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
        w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2,
        w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2,
    ])


def axis_angle(axis, angle):
    axis = np.asarray(axis, float)
    axis = axis / np.linalg.norm(axis)
    s, c = math.sin(angle / 2), math.cos(angle / 2)
    return np.array([c, *(s * axis)])


def rand_quat():
    q = rng.normal(size=4)
    return q / np.linalg.norm(q)


def quat2mat(q):
    m = np.zeros(9)
    mujoco.mju_quat2Mat(m, np.asarray(q, float))
    return m.reshape(3, 3)


def mat2quat(m):
    q = np.zeros(4)
    mujoco.mju_mat2Quat(q, np.asarray(m, float).reshape(9))
    return q


def rand_unit():
    v = rng.normal(size=3)
    return v / np.linalg.norm(v)


IDENT = np.array([1.0, 0, 0, 0])

# 24 proper rotations of the cube (as quaternions)
def cube_symmetries():
    out = []
    for perm in [(0, 1, 2), (1, 2, 0), (2, 0, 1), (1, 0, 2), (0, 2, 1), (2, 1, 0)]:
        for signs in [(1, 1, 1), (1, 1, -1), (1, -1, 1), (1, -1, -1),
                      (-1, 1, 1), (-1, 1, -1), (-1, -1, 1), (-1, -1, -1)]:
            m = np.zeros((3, 3))
            for r in range(3):
                m[r, perm[r]] = signs[r]
            if np.linalg.det(m) > 0:
                out.append(mat2quat(m))
    return out


CUBE_SYM = cube_symmetries()


# ------------------------------------------------------------------------------ SAT helper

def sat_sep(p1, r1, s1, p2, r2, s2):
    """Max separation over the 15 SAT axes (exact geometry, for placing boxes)."""
    d = p2 - p1
    axes = [r1[:, i] for i in range(3)] + [r2[:, j] for j in range(3)]
    for i in range(3):
        for j in range(3):
            c = np.cross(r1[:, i], r2[:, j])
            n = np.linalg.norm(c)
            if n > 1e-6:
                axes.append(c / n)
    best = -np.inf
    for a in axes:
        ra = np.sum(s1 * np.abs(r1.T @ a))
        rb = np.sum(s2 * np.abs(r2.T @ a))
        best = max(best, abs(d @ a) - ra - rb)
    return best


def place(p1, q1, s1, q2, s2, u, target):
    """Centre of box 2 at p1 + t u with SAT separation `target` (bisection on t >= 0)."""
    r1, r2 = quat2mat(q1), quat2mat(q2)
    u = np.asarray(u, float) / np.linalg.norm(u)
    hi = 2 * (np.linalg.norm(s1) + np.linalg.norm(s2)) + abs(target) + 1e-9
    if sat_sep(p1, r1, s1, p1 + 0.0 * u, r2, s2) >= target:
        return p1.copy()
    lo = 0.0
    for _ in range(80):
        mid = 0.5 * (lo + hi)
        if sat_sep(p1, r1, s1, p1 + mid * u, r2, s2) < target:
            lo = mid
        else:
            hi = mid
    return p1 + 0.5 * (lo + hi) * u


# ------------------------------------------------------------------------------ oracle

# Two runs per case. "pipeline": per-geom margins (margin1 + margin2 = threshold), the normal
# mj_collision path (broadphase, bounding spheres). "pair": the same poses with collisions only
# through an explicit <pair margin=threshold>, which skips the broadphase, and with the
# bounding radii inflated so that the bounding-sphere filter passes: the pair run's contacts
# are exactly mjc_BoxBox's answer, and they are what is recorded. The rare cases where the
# pipeline culls an exactly-touching pair earlier are counted and flagged (`pipeline_ncon`).
XML = """<mujoco>
  <worldbody>
    <body><freejoint/><inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/>
      <geom name="a" type="box" size="{s1}" margin="{m1}" {mask}/></body>
    <body><freejoint/><inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/>
      <geom name="b" type="box" size="{s2}" margin="{m2}" {mask}/></body>
  </worldbody>
  {pair}
</mujoco>"""

STATS = {"pipeline_differs": 0}


def fmt(v):
    return " ".join(repr(float(x)) for x in v)


def collide(xml, p1, q1, p2, q2, inflate_rbound=False):
    m = mujoco.MjModel.from_xml_string(xml)
    if inflate_rbound:
        # disarm the bounding-sphere filter (it compares squared distances and can cull
        # exactly-touching pairs by one rounding); rbound is used by nothing else here
        m.geom_rbound[:] = 2 * m.geom_rbound + 1
    d = mujoco.MjData(m)
    d.qpos[0:3] = p1
    d.qpos[3:7] = q1
    d.qpos[7:10] = p2
    d.qpos[10:14] = q2
    mujoco.mj_kinematics(m, d)
    mujoco.mj_collision(m, d)
    contacts = []
    for i in range(d.ncon):
        c = d.contact[i]
        assert tuple(c.geom) == (0, 1), tuple(c.geom)
        contacts.append({
            "dist": float(c.dist),
            "pos": [float(x) for x in c.pos],
            "normal": [float(x) for x in c.frame[0:3]],
        })
    return m, d, contacts


def run_case(kind, s1, p1, q1, s2, p2, q2, margin):
    s1 = np.asarray(s1, float)
    s2 = np.asarray(s2, float)
    m_half = margin / 2.0
    assert m_half + m_half == margin
    xml = XML.format(s1=fmt(s1), s2=fmt(s2), m1=repr(m_half), m2=repr(m_half), mask="",
                     pair="")
    m, d, pipeline = collide(xml, p1, q1, p2, q2)
    thr = float(m.geom_margin[0] + m.geom_margin[1] + m.geom_gap[0] + m.geom_gap[1])
    xml = XML.format(s1=fmt(s1), s2=fmt(s2), m1="0", m2="0", mask='contype="0" conaffinity="0"',
                     pair=f'<contact><pair geom1="a" geom2="b" margin="{thr!r}"/></contact>')
    mp, dp, contacts = collide(xml, p1, q1, p2, q2, inflate_rbound=True)
    assert mp.pair_margin[0] + mp.pair_gap[0] == thr
    for f in ("geom_xpos", "geom_xmat"):
        assert np.array_equal(getattr(d, f), getattr(dp, f))
    case = {
        "kind": kind,
        "pos1": [float(x) for x in d.geom_xpos[0]],
        "mat1": [float(x) for x in d.geom_xmat[0]],
        "size1": [float(x) for x in m.geom_size[0]],
        "pos2": [float(x) for x in d.geom_xpos[1]],
        "mat2": [float(x) for x in d.geom_xmat[1]],
        "size2": [float(x) for x in m.geom_size[1]],
        "margin": thr,
        "contacts": contacts,
    }
    if pipeline != contacts:
        STATS["pipeline_differs"] += 1
        case["pipeline_ncon"] = len(pipeline)
        print(f"  {kind}: pipeline {len(pipeline)} contacts, explicit pair {len(contacts)}")
    return case


CASES = []


def add(kind, s1, p1, q1, s2, p2, q2, margin=0.0):
    CASES.append(run_case(kind, s1, np.asarray(p1, float), q1, s2, np.asarray(p2, float), q2,
                          margin))


def loguni(lo, hi, size=None):
    return np.exp(rng.uniform(math.log(lo), math.log(hi), size))


def rand_target(L, margin):
    """Signed separation target: deep, shallow, touching, in-margin or beyond."""
    r = rng.uniform()
    if r < 0.25:
        return -rng.uniform(0, 1.0) * L
    if r < 0.5:
        return -loguni(1e-9, 1e-1) * L
    if r < 0.6:
        return 0.0
    if r < 0.8 and margin > 0:
        return rng.uniform(0, 1.2) * margin
    return loguni(1e-9, 1e-1) * L + margin


def rand_margin(scale):
    return 0.0 if rng.uniform() < 0.5 else float(loguni(1e-4, 0.2) * scale)


# ------------------------------------------------------------------------------ case kinds

def gen_random(n):
    for _ in range(n):
        scale = loguni(1e-2, 1e2)
        s1 = loguni(0.1, 1.0, 3) * scale
        s2 = loguni(0.1, 1.0, 3) * scale * loguni(0.2, 5)
        q1, q2 = rand_quat(), rand_quat()
        p1 = rng.uniform(-1, 1, 3) * scale
        margin = rand_margin(scale)
        L = min(s1.min(), s2.min()) * 2
        p2 = place(p1, q1, s1, q2, s2, rand_unit(), rand_target(L, margin))
        add("random", s1, p1, q1, s2, p2, q2, margin)


def gen_aspect(n):
    shapes = ["slab", "needle"]
    for k in range(n):
        scale = loguni(1e-1, 1e1)

        def one(kind):
            thin = loguni(1e-4, 1e-2)
            s = loguni(0.3, 1.0, 3) * scale
            if kind == "slab":
                s[rng.integers(3)] *= thin
            else:
                keep = rng.integers(3)
                for i in range(3):
                    if i != keep:
                        s[i] *= thin
            return s

        k1 = shapes[rng.integers(2)] if rng.uniform() < 0.7 else "cube"
        k2 = shapes[rng.integers(2)]
        s1 = one(k1) if k1 != "cube" else loguni(0.3, 1.0, 3) * scale
        s2 = one(k2)
        if rng.uniform() < 0.5:
            s1, s2 = s2, s1
        q1, q2 = rand_quat(), rand_quat()
        if rng.uniform() < 0.4:  # near-aligned thin plates
            q2 = quat_mul(q1, axis_angle(rand_unit(), loguni(1e-9, 1e-2)))
        p1 = rng.uniform(-1, 1, 3) * scale
        margin = rand_margin(scale * 1e-2)
        L = min(s1.min(), s2.min()) * 2
        p2 = place(p1, q1, s1, q2, s2, rand_unit(), rand_target(L, margin))
        add("aspect", s1, p1, q1, s2, p2, q2, margin)


def stack_pose(s1, p1, q0, s2, axis, sign, tilt_q, yaw, offset, gap):
    """Box 2 on face (axis, sign) of box 1; box 1 rotated by q0, box 2 by q0*perm*yaw*tilt."""
    # box 2's own axis along the stacking direction: rotate it so its local z points there
    perm = {0: axis_angle([0, 1, 0], math.pi / 2), 1: axis_angle([1, 0, 0], -math.pi / 2),
            2: IDENT}[axis]
    if sign < 0:
        perm = quat_mul(perm, axis_angle([1, 0, 0], math.pi))
    q2 = quat_mul(q0, quat_mul(perm, quat_mul(axis_angle([0, 0, 1], yaw), tilt_q)))
    r0 = quat2mat(q0)
    e = np.zeros(3)
    e[axis] = sign
    local = e * (s1[axis] + s2[2] + gap)
    other = [i for i in range(3) if i != axis]
    local[other[0]] += offset[0]
    local[other[1]] += offset[1]
    p2 = p1 + r0 @ local
    return q2, p2


def gen_stacks(n):
    for k in range(n):
        scale = 10.0 ** rng.integers(-2, 3) * (1 if rng.uniform() < 0.5 else rng.uniform(0.5, 2))
        if rng.uniform() < 0.4:
            s1 = np.full(3, 0.05) * scale
            s2 = s1.copy()
        else:
            s1 = loguni(0.2, 1.0, 3) * scale
            s2 = loguni(0.2, 1.0, 3) * scale
        r = rng.uniform()
        if r < 0.4:
            q0 = IDENT
        elif r < 0.6:
            q0 = axis_angle([0, 0, 1], rng.uniform(0, 2 * math.pi))
        else:
            q0 = rand_quat()
        axis = int(rng.integers(3)) if rng.uniform() < 0.5 else 2
        sign = 1 if rng.uniform() < 0.7 else -1
        r = rng.uniform()
        if r < 0.3:
            tilt = IDENT
        else:
            tilt = axis_angle(rand_unit(), loguni(1e-12, 3e-2))
        r = rng.uniform()
        yaw = 0.0 if r < 0.5 else (math.pi / 2 if r < 0.6 else (math.pi / 4 if r < 0.7 else
                                                                rng.uniform(0, 2 * math.pi)))
        r = rng.uniform()
        if r < 0.4:
            offset = (0.0, 0.0)
        else:
            other = [i for i in range(3) if i != axis]
            offset = rng.uniform(-1, 1, 2) * np.array([s1[other[0]], s1[other[1]]]) * 1.3
        r = rng.uniform()
        gaps = [0.0, 1e-12, -1e-12, 1e-9, -1e-9, 1e-6, -1e-6, -1e-4, -1e-3, -1e-2, -0.1]
        gap = gaps[rng.integers(len(gaps))] * scale
        margin = 0.0 if rng.uniform() < 0.6 else float(loguni(1e-4, 1e-2) * scale)
        if margin > 0 and rng.uniform() < 0.5:
            gap = rng.uniform(0, 1.5) * margin
        p1 = np.zeros(3) if rng.uniform() < 0.5 else rng.uniform(-1, 1, 3) * scale
        q2, p2 = stack_pose(s1, p1, q0, s2, axis, sign, tilt, yaw, offset, gap)
        if rng.uniform() < 0.3:  # box 1 on top of box 2
            add("stack", s2, p2, q2, s1, p1, q0, margin)
        else:
            add("stack", s1, p1, q0, s2, p2, q2, margin)


def gen_edge_edge(n):
    for k in range(n):
        scale = loguni(0.1, 10)
        s1 = loguni(0.3, 1.0, 3) * scale
        s2 = loguni(0.3, 1.0, 3) * scale
        q1 = IDENT if rng.uniform() < 0.5 else rand_quat()
        # box 2: an edge pointing down (45 deg about x), crossing box 1's top edge
        q2 = quat_mul(q1, quat_mul(axis_angle([0, 0, 1], rng.uniform(0, math.pi)),
                                   axis_angle([1, 0, 0], math.pi / 4 + rng.normal() * 0.05)))
        # box 1 also edge-up: rotate its top face about y
        if rng.uniform() < 0.6:
            q1 = quat_mul(q1, axis_angle([0, 1, 0], math.pi / 4 + rng.normal() * 0.05))
        p1 = rng.uniform(-1, 1, 3) * scale
        margin = rand_margin(scale * 0.1)
        L = min(s1.min(), s2.min())
        r1 = quat2mat(q1)
        u = r1 @ np.array([0, 0, 1.0]) + 0.1 * rand_unit()
        p2 = place(p1, q1, s1, q2, s2, u, rand_target(L, margin))
        add("edge_edge", s1, p1, q1, s2, p2, q2, margin)


def gen_vertex_face(n):
    diag_to_z = axis_angle(np.cross([1, 1, 1], [0, 0, -1]),
                           math.acos(-1 / math.sqrt(3)))
    for k in range(n):
        scale = loguni(0.1, 10)
        s1 = loguni(0.3, 1.0, 3) * scale
        s2 = loguni(0.3, 1.0, 3) * scale
        q1 = IDENT if rng.uniform() < 0.5 else rand_quat()
        q2 = quat_mul(q1, quat_mul(axis_angle([0, 0, 1], rng.uniform(0, 2 * math.pi)),
                                   quat_mul(axis_angle(rand_unit(), rng.normal() * 0.02),
                                            diag_to_z)))
        p1 = rng.uniform(-1, 1, 3) * scale
        margin = rand_margin(scale * 0.1)
        L = min(s1.min(), s2.min())
        r1 = quat2mat(q1)
        u = r1 @ np.array([rng.normal() * 0.2, rng.normal() * 0.2, 1.0])
        if rng.uniform() < 0.5:
            # corner of box 1 into face of box 2
            add("vertex_face", s2, p1, q2, s1, place(p1, q2, s2, q1, s1, -u,
                                                     rand_target(L, margin)), q1, margin)
        else:
            p2 = place(p1, q1, s1, q2, s2, u, rand_target(L, margin))
            add("vertex_face", s1, p1, q1, s2, p2, q2, margin)


def gen_contained(n):
    for k in range(n):
        scale = loguni(0.1, 10)
        r = rng.uniform()
        s1 = loguni(0.5, 1.0, 3) * scale
        q1 = IDENT if rng.uniform() < 0.4 else rand_quat()
        p1 = rng.uniform(-1, 1, 3) * scale
        margin = 0.0 if rng.uniform() < 0.6 else float(loguni(1e-3, 0.1) * scale)
        if r < 0.3:  # concentric identical
            s2 = s1.copy()
            sym = CUBE_SYM[rng.integers(len(CUBE_SYM))] if rng.uniform() < 0.5 else rand_quat()
            q2 = quat_mul(q1, sym) if rng.uniform() < 0.7 else q1
            p2 = p1.copy()
        elif r < 0.5:  # concentric, different
            s2 = loguni(0.1, 1.0, 3) * scale
            q2 = rand_quat() if rng.uniform() < 0.5 else q1
            p2 = p1.copy()
        else:  # small box inside, off-centre
            s2 = s1.min() * loguni(0.05, 0.3, 3)
            q2 = rand_quat() if rng.uniform() < 0.5 else q1
            p2 = p1 + quat2mat(q1) @ (rng.uniform(-0.7, 0.7, 3) * s1)
        if rng.uniform() < 0.5:
            add("contained", s1, p1, q1, s2, p2, q2, margin)
        else:
            add("contained", s2, p2, q2, s1, p1, q1, margin)


def gen_touching(n):
    # dyadic sizes and positions: the separation is exactly representable
    for k in range(n):
        s1 = np.array([rng.integers(1, 9) for _ in range(3)], float) / 8
        s2 = np.array([rng.integers(1, 9) for _ in range(3)], float) / 8
        axis = int(rng.integers(3))
        sign = 1 if rng.uniform() < 0.5 else -1
        q2 = IDENT if rng.uniform() < 0.6 else CUBE_SYM[rng.integers(len(CUBE_SYM))]
        r2 = quat2mat(q2)
        ext2 = np.abs(r2) @ s2  # world half-extents of box 2
        p1 = np.array([rng.integers(-4, 5) for _ in range(3)], float) / 4
        p2 = p1.copy()
        p2[axis] += sign * (s1[axis] + ext2[axis])
        other = [i for i in range(3) if i != axis]
        for o in other:
            p2[o] += rng.integers(-8, 9) / 8 * (s1[o] + ext2[o])
        margin = [0.0, 0.0, 0.125, 1e-3][rng.integers(4)]
        add("touching", s1, p1, IDENT, s2, p2, q2, margin)


def gen_scales(n):
    for k in range(n):
        scale = [1e-3, 1e-2, 1e2, 1e3][k % 4]
        s1 = loguni(0.2, 1.0, 3) * scale
        s2 = loguni(0.2, 1.0, 3) * scale
        q1 = rand_quat()
        q2 = rand_quat() if rng.uniform() < 0.5 else quat_mul(
            q1, axis_angle(rand_unit(), loguni(1e-10, 1e-2)))
        p1 = rng.uniform(-10, 10, 3) * scale
        margin = rand_margin(scale)
        L = min(s1.min(), s2.min())
        p2 = place(p1, q1, s1, q2, s2, rand_unit(), rand_target(L, margin))
        add("scale", s1, p1, q1, s2, p2, q2, margin)


def gen_mujoco_tests():
    """Configurations of MuJoCo's engine_collision_box_test.cc."""
    z = np.zeros(3)
    # BoxBoxContactDistance
    add("mjtest", [1, 1, 1], z, IDENT, [1, 1, 1], [0, 0, 1.5], IDENT)
    # NearAlignedManifoldIsExact
    ax = np.array([1, 0.5, 3.0])
    for dec in range(-9, -1):
        add("mjtest", [.05] * 3, z, IDENT, [.05] * 3, [0, 0, 0.1 - 1e-5],
            axis_angle(ax, 10.0 ** dec))
    # ConcentricAndContainedBoxes
    add("mjtest", [1, 1, 1], z, IDENT, [1, 1, 1], z, IDENT)
    for axis in range(3):
        for sgn in (-1.0, 1.0):
            for off in (0.5, 0.79, 0.8, 0.81, 1.2, 1.3):
                p2 = np.zeros(3)
                p2[axis] = sgn * off
                add("mjtest", [1, 1, 1], z, IDENT, [.2, .2, .2], p2, IDENT, 0.05)
    # CanonicalFaceAndEdgeAlignments
    q45 = axis_angle([0, 1, 0], math.pi / 4)
    add("mjtest", [.1] * 3, z, IDENT, [.1] * 3, [0, 0, 0.1 + 0.1 * math.sqrt(2) - 0.005], q45)
    q90 = axis_angle([0, 0, 1], math.pi / 2)
    add("mjtest", [.1] * 3, z, IDENT, [.1] * 3, [0, 0, 0.2 - 0.002], q90)
    # ThinBoxNoSpuriousDeepContact (keyframe), and pushed in
    s = [0.047, 0.032, 0.00035]
    p1 = [2.8218257713084481e-05, -0.013292121195706197, 0.029256072037790268]
    q1 = [0.84130787082244052, 0.54054898504499482, 0.0015299333749655413,
          0.0023495878161510389]
    p2 = [-5.3521944872628108e-05, 0.01427117523229726, 0.029254416229696868]
    q2 = [0.8413227886432264, -0.54053283716888822, 0.00024615852936852315,
          -0.00039580009650069315]
    add("mjtest", s, p1, q1, s, p2, q2, 2e-5)
    n = CASES[-1]["contacts"][0]["normal"] if CASES[-1]["contacts"] else [0, 0, 1]
    add("mjtest", s, p1, q1, s, np.asarray(p2) - 1e-4 * np.asarray(n), q2, 2e-5)
    # ThinBoxShallowPenetration, ThinBoxTunneledPenetration, EdgeContactAtDepthBound,
    # ShallowOverlapSurvivesRounding (box 1 at the origin)
    configs = [
        ([0.00044359468518251132, 0.0019427705390657074, 0.00056716790015765711],
         [0.00062288175555326323, 0.0010906336314477707, 0.00030803275652456415], 0.0,
         [-0.0011513383735175778, -0.0013813387665010076, -0.00043818094448460645],
         [0.28720146798163904, -0.083561810000907483, -0.51853459717827233, 0.80103346511099693],
         [0.51588977358544519, 0.63445106644895233, 0.50962161111201376, -0.26761053656263345]),
        ([0.10375412296887962, 0.0014208822825842824, 0.029838770510023913],
         [0.0047738704827163959, 0.0007140947854610601, 0.0045937794963772805], 1e-5,
         [0.027189909560778446, 0.003935055006556199, -0.0055232476077228749],
         [-0.18064681165220281, -0.38732117424997786, 0.11417869384387985, 0.89683457966874658],
         [-0.29829616465597159, 0.84519552206173276, 0.23968520782082428, -0.37311516826607399]),
        ([0.034760484829104925, 0.00071213467312592935, 0.0059314873303977222],
         [0.013576183806600434, 0.0082162263322061238, 0.0011680617239575811], 1e-4,
         [0.0044392420645136049, -0.0041767483250730571, 0.00078140511512282684],
         [0.58664366826657666, 0.39991671184222333, 0.24085697266687636, -0.66174296278070577],
         [-0.35168496783547554, 0.48328103093900215, 0.12063144050164629, -0.79259395915916098]),
        ([0.018352361395955086, 0.038452208042144775, 0.047704100608825684],
         [0.026817722246050835, 0.0014398059574887156, 0.0082265362143516541], 0.0,
         [-0.026325162500143051, 0.030753342434763908, 0.02338058315217495],
         [-0.90091776847839355, -0.42279955744743347, 0.097014322876930237, -0.013262901455163956],
         [0.23919239640235901, 0.056073460727930069, 0.91227829456329346, 0.32770577073097229]),
        ([0.044790275394916534, 0.0057221869938075542, 0.0049537895247340202],
         [0.026496950536966324, 0.019804427400231361, 0.0057344711385667324], 0.0,
         [0.0094044031575322151, 0.020275400951504707, -0.017358051612973213],
         [0.040385473519563675, 0.75189536809921265, -0.55430221557617188, 0.35464280843734741],
         [-0.6716417670249939, 0.085770353674888611, 0.69683432579040527, -0.23656430840492249]),
        ([0.076610468327999115, 0.21989625692367554, 0.0005179486470296979],
         [0.02934698574244976, 0.00031350101926364005, 0.1565844863653183], 0.0,
         [0.1099575087428093, 0.067433357238769531, -0.27263233065605164],
         [-0.59937000274658203, 0.082370907068252563, -0.38643673062324524, 0.6961590051651001],
         [0.051869582384824753, -0.75536203384399414, 0.60438132286071777, 0.24791309237480164]),
    ]
    for s1, s2, margin, p2, q1, q2 in configs:
        add("mjtest", s1, z, q1, s2, p2, q2, margin)


def gen_cube_symmetries(n):
    # 24 cube symmetries with small perturbations, face-on (fuzz-test style)
    for k in range(n):
        s = np.full(3, 0.1)
        sym = CUBE_SYM[k % 24]
        q2 = quat_mul(sym, axis_angle(rand_unit(), loguni(1e-12, 1e-3)))
        u = np.zeros(3)
        u[k % 3] = 1 if (k // 3) % 2 == 0 else -1
        p2 = u * (0.2 + rng.choice([0.0, -1e-6, -1e-3, 1e-6])) + rng.normal(size=3) * 1e-3
        add("cube_sym", s, np.zeros(3), IDENT, s, p2, q2, 0.0 if k % 2 else 1e-3)


def gen_degenerate():
    """Hand-made degenerate poses: exact symmetries, gaps exactly at the margin, huge margins."""
    z = np.zeros(3)
    # identical concentric cubes under each exact cube symmetry
    for k, sym in enumerate(CUBE_SYM):
        add("degenerate", [0.5, 0.5, 0.5], z, IDENT, [0.5, 0.5, 0.5], z, sym)
    # gap exactly equal to the margin (dyadic: dist == margin is reported)
    for margin in (0.25, 0.125, 0.0):
        add("degenerate", [0.5, 0.5, 0.5], z, IDENT, [0.25, 0.5, 0.125],
            [0.25, -0.5, 0.625 + margin], IDENT, margin)
        add("degenerate", [0.5, 0.25, 0.5], z, IDENT, [0.5, 0.5, 0.5],
            [1.0 + margin, 0.75, 1.0], IDENT, margin)  # edge to edge, diagonal
        add("degenerate", [0.5, 0.5, 0.5], z, IDENT, [0.5, 0.5, 0.5],
            [1.0 + margin, 1.0, 1.0 + margin], IDENT, margin)  # corner to corner
    # margins larger than the boxes
    for k in range(6):
        q2 = rand_quat()
        p2 = place(z, IDENT, np.full(3, 0.1), q2, np.full(3, 0.05), rand_unit(),
                   rng.uniform(0, 0.5))
        add("degenerate", [0.1] * 3, z, IDENT, [0.05] * 3, p2, q2, 0.6)
    # 45-degree edge resting exactly on a face, and crossing edges at 90 degrees
    h = 0.5 * math.sqrt(2)
    add("degenerate", [.5] * 3, z, IDENT, [.5] * 3, [0, 0, 0.5 + h],
        axis_angle([1, 0, 0], math.pi / 4))
    add("degenerate", [.5] * 3, z, axis_angle([0, 1, 0], math.pi / 4), [.5] * 3,
        [0, 0, 2 * h], axis_angle([1, 0, 0], math.pi / 4))
    add("degenerate", [.5] * 3, z, axis_angle([0, 1, 0], math.pi / 4), [.5] * 3,
        [0.1, 0.2, 2 * h - 1e-3], axis_angle([1, 0, 0], math.pi / 4), 1e-2)
    # same size, same pose except a shift along one face diagonal
    for d in ([0.5, 0.5, 0.0], [1.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]):
        add("degenerate", [.5] * 3, z, IDENT, [.5] * 3, d, IDENT)


def main():
    global rng
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=OUT, help="output JSON (default: test data)")
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--times", type=int, default=1,
                    help="multiply the random case counts (stress runs; keep 1 for the test data)")
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    n = args.times
    gen_mujoco_tests()
    gen_degenerate()
    gen_random(300 * n)
    gen_aspect(120 * n)
    gen_stacks(250 * n)
    gen_edge_edge(60 * n)
    gen_vertex_face(50 * n)
    gen_contained(60 * n)
    gen_touching(40 * n)
    gen_scales(40 * n)
    gen_cube_symmetries(48 * n)
    out = args.out
    out.parent.mkdir(parents=True, exist_ok=True)
    doc = {"mujoco_version": mujoco.__version__, "cases": CASES}
    out.write_text(json.dumps(doc, separators=(",", ":")) + "\n")
    ncon = [len(c["contacts"]) for c in CASES]
    hist = {k: ncon.count(k) for k in sorted(set(ncon))}
    print(f"{len(CASES)} cases, contacts per case {hist}, {out.stat().st_size} bytes -> {out}")
    print(f"pipeline (broadphase, bounding spheres) differs from the explicit pair in {STATS['pipeline_differs']} cases")


if __name__ == "__main__":
    main()
