#!/usr/bin/env python3
"""Oracle data for the analytic primitive pair functions of `collide::narrow`.

For each pair type (plane-sphere, plane-capsule, plane-cylinder, plane-box, sphere-sphere,
sphere-capsule, sphere-cylinder, capsule-capsule) this builds a two-geom MJCF model per case,
runs MuJoCo 4.0.0's `mj_kinematics` + `mj_collision`, and records the two geoms' world poses,
sizes, the detection threshold and MuJoCo's contacts in order.

Setup per case: geom 1 sits in the world body (placed by its `pos`/`quat` in the XML), geom 2
in a free-joint body placed through `qpos`. The world body always pairs with every body in
MuJoCo's broad phase, and each body holds a single geom, so the only filter between the pair
and the collider is the bounding-sphere test (`mj_filterSphere`); cases it would reject are
dropped (the collider is never called for them). Each geom gets `margin = threshold/2` and
`gap = 0`, so MuJoCo calls the collider with exactly `threshold`.

Run (from the repository root):
    conformance/.venv/bin/python conformance/narrow_primitive.py
Writes crates/collide/tests/data/narrow/primitive.json (deterministic). For a larger one-off
check: `--random 3000 --seed 7 --out /tmp/big.json`, then run the Rust test with
`COLLIDE_PRIMITIVE_ORACLE=/tmp/big.json`.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import mujoco
import numpy as np

HERE = Path(__file__).resolve().parent
OUT = HERE.parent / "crates/collide/tests/data/narrow/primitive.json"

SEED = 20240611
NRANDOM = 240  # random cases per pair type

TYPE_ID = {"plane": 0, "sphere": 2, "capsule": 3, "cylinder": 5, "box": 6}
PAIRS = [
    ("plane", "sphere"),
    ("plane", "capsule"),
    ("plane", "cylinder"),
    ("plane", "box"),
    ("sphere", "sphere"),
    ("sphere", "capsule"),
    ("sphere", "cylinder"),
    ("capsule", "capsule"),
]


def fmt(values) -> str:
    return " ".join(repr(float(v)) for v in values)


def size_attr(kind: str, size) -> str:
    if kind == "plane":
        return "0 0 1"  # infinite plane: rbound 0
    if kind == "sphere":
        return fmt(size[:1])
    if kind in ("capsule", "cylinder"):
        return fmt(size[:2])
    return fmt(size[:3])


def run_case(case: dict) -> dict | None:
    """Runs MuJoCo on one case; returns the record, or None if the broad phase filters it."""
    half = case["margin"] / 2.0
    g1 = case["geom1"]
    g2 = case["geom2"]
    xml = f"""<mujoco>
  <worldbody>
    <geom name="g1" type="{g1['type']}" size="{size_attr(g1['type'], g1['size'])}"
          pos="{fmt(g1['pos'])}" quat="{fmt(g1['quat'])}" margin="{half!r}" gap="0"/>
    <body name="b2">
      <freejoint/>
      <inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/>
      <geom name="g2" type="{g2['type']}" size="{size_attr(g2['type'], g2['size'])}"
            margin="{half!r}" gap="0"/>
    </body>
  </worldbody>
</mujoco>"""
    m = mujoco.MjModel.from_xml_string(xml)
    d = mujoco.MjData(m)
    d.qpos[0:3] = g2["pos"]
    d.qpos[3:7] = g2["quat"]
    mujoco.mj_kinematics(m, d)
    mujoco.mj_collision(m, d)

    threshold = float(m.geom_margin[0] + m.geom_margin[1] + m.geom_gap[0] + m.geom_gap[1])
    assert threshold == case["margin"], (threshold, case["margin"])

    # mj_filterSphere, replicated: a rejected pair never reaches the collider
    p1, p2 = d.geom_xpos[0], d.geom_xpos[1]
    rb1, rb2 = m.geom_rbound[0], m.geom_rbound[1]
    if g1["type"] == "plane":
        assert rb1 == 0.0
        n = d.geom_xmat[0].reshape(3, 3)[:, 2]
        filtered = float(np.dot(n, p2 - p1)) > rb2 + threshold
    else:
        filtered = float(np.linalg.norm(p1 - p2)) > rb1 + rb2 + threshold
    if filtered:
        assert d.ncon == 0
        return None

    contacts = []
    for c in d.contact[: d.ncon]:
        assert tuple(c.geom) == (0, 1), f"geom order {tuple(c.geom)}"
        rec = {
            "dist": float(c.dist),
            "pos": [float(x) for x in c.pos],
            "normal": [float(x) for x in c.frame[0:3]],
        }
        if g2["type"] == "capsule" and g1["type"] == "plane":
            rec["tangent"] = [float(x) for x in c.frame[3:6]]
        contacts.append(rec)

    return {
        "pair": f"{g1['type']}_{g2['type']}",
        "label": case["label"],
        "type1": TYPE_ID[g1["type"]],
        "type2": TYPE_ID[g2["type"]],
        "pos1": [float(x) for x in d.geom_xpos[0]],
        "mat1": [float(x) for x in d.geom_xmat[0]],
        "size1": [float(x) for x in m.geom_size[0]],
        "pos2": [float(x) for x in d.geom_xpos[1]],
        "mat2": [float(x) for x in d.geom_xmat[1]],
        "size2": [float(x) for x in m.geom_size[1]],
        "margin": threshold,
        "contacts": contacts,
    }


# ----------------------------------------------------------------------------------------
# case generation
# ----------------------------------------------------------------------------------------

def geom(kind, size, pos, quat=(1.0, 0.0, 0.0, 0.0)):
    size = list(size) + [0.0] * (3 - len(size))
    return {"type": kind, "size": size, "pos": list(pos), "quat": list(quat)}


def case(label, g1, g2, margin=0.0):
    return {"label": label, "geom1": g1, "geom2": g2, "margin": float(margin)}


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


def axis_angle(axis, angle):
    axis = np.asarray(axis, float)
    axis = axis / np.linalg.norm(axis)
    return np.concatenate([[math.cos(angle / 2)], math.sin(angle / 2) * axis])


def quat_z(q):
    """World direction of the local z axis of unit quaternion q (w, x, y, z)."""
    w, x, y, z = q
    return np.array([2 * (x * z + w * y), 2 * (y * z - w * x), 1 - 2 * (x * x + y * y)])


def rand_unit(rng):
    v = rng.normal(size=3)
    return v / np.linalg.norm(v)


def rand_size(rng, kind, scale):
    r = scale * 10 ** rng.uniform(-1.0, 0.3)
    if kind == "sphere":
        return [r]
    if kind in ("capsule", "cylinder"):
        return [r, scale * 10 ** rng.uniform(-1.2, 0.5)]
    if kind == "box":
        return list(scale * 10 ** rng.uniform(-1.0, 0.3, size=3))
    return [0.0, 0.0, 1.0]


def rbound(kind, size):
    if kind == "sphere":
        return size[0]
    if kind == "capsule":
        return size[0] + size[1]
    if kind == "cylinder":
        return math.hypot(size[0], size[1])
    if kind == "box":
        return math.sqrt(sum(s * s for s in size[:3]))
    return 0.0


def random_case(rng, kind1, kind2):
    scale = 10 ** rng.uniform(-3, 3)
    margin = 0.0 if rng.random() < 0.4 else scale * 10 ** rng.uniform(-3, 0)
    origin = rng.normal(size=3) * scale * rng.uniform(0, 10)
    q1 = rand_quat(rng)
    size2 = rand_size(rng, kind2, scale)
    rb2 = rbound(kind2, size2)
    style = rng.random()
    q2 = rand_quat(rng)
    if kind1 == "plane":
        n = quat_z(q1)
        if style < 0.1:
            height = -rng.uniform(0.5, 5) * rb2  # deep
        else:
            height = rng.uniform(-1.0, 1.1) * rb2 + rng.uniform(0, 1.3) * margin
        # special orientations of geom 2 relative to the plane
        if kind2 != "sphere" and rng.random() < 0.25:
            sub = rng.random()
            if sub < 0.4:  # geom 2 axis along the normal (up or down)
                q2 = quat_mul(q1, axis_angle([0, 0, 1], rng.uniform(0, 2 * math.pi)))
                if rng.random() < 0.5:
                    q2 = quat_mul(q2, axis_angle([1, 0, 0], math.pi))
            elif sub < 0.8:  # geom 2 axis parallel to the plane
                q2 = quat_mul(q1, axis_angle([1, 0, 0], math.pi / 2))
                q2 = quat_mul(axis_angle(n, rng.uniform(0, 2 * math.pi)), q2)
            else:  # nearly aligned
                q2 = quat_mul(q1, axis_angle(rand_unit(rng), 10 ** rng.uniform(-12, -3)))
        tangential = rng.normal(size=3) * scale * rng.uniform(0, 5)
        tangential -= n * np.dot(n, tangential)
        pos2 = origin + tangential + n * height
        g1 = geom("plane", [], origin, q1)
    else:
        size1 = rand_size(rng, kind1, scale)
        rb1 = rbound(kind1, size1)
        if kind1 == "capsule" and rng.random() < 0.3:
            sub = rng.random()
            if sub < 0.35:
                q2 = q1.copy()  # parallel
            elif sub < 0.6:
                q2 = quat_mul(q1, axis_angle([1, 0, 0], math.pi))  # anti-parallel
            else:
                q2 = quat_mul(q1, axis_angle(rand_unit(rng), 10 ** rng.uniform(-12, -2)))
        reach = rb1 + rb2 + margin
        if style < 0.15:
            offset = rand_unit(rng) * rng.uniform(0, 0.3) * min(rb1, rb2)  # deep
        else:
            offset = rand_unit(rng) * rng.uniform(0, 1.05) * reach
        pos2 = origin + offset
        g1 = geom(kind1, size1, origin, q1)
    g2 = geom(kind2, size2, pos2, q2)
    return case("random", g1, g2, margin)


def special_cases(kind1, kind2):
    """Hand-made degenerate and boundary cases (exactly representable where it matters)."""
    out = []
    I = (1.0, 0.0, 0.0, 0.0)
    flip = (0.0, 1.0, 0.0, 0.0)  # half turn about x: local z -> -z
    tilt = tuple(axis_angle([1, 2, 3], 0.7))
    tilt2 = tuple(axis_angle([-2, 1, 0.5], 1.9))
    side = tuple(axis_angle([1, 0, 0], math.pi / 2))  # local z -> -y (approximately)
    pair = (kind1, kind2)
    if pair == ("plane", "sphere"):
        P = geom("plane", [], [0, 0, 0])
        out += [
            case("resting", P, geom("sphere", [0.5], [1, 2, 0.5])),
            case("at margin", P, geom("sphere", [0.5], [1, 2, 0.75]), 0.25),
            case("beyond margin", P, geom("sphere", [0.5], [1, 2, 0.75 + 2**-40]), 0.25),
            case("beyond zero margin", P, geom("sphere", [0.5], [1, 2, 0.5 + 2**-40])),
            case("centre on plane", P, geom("sphere", [0.5], [3, -1, 0])),
            case("centre below", P, geom("sphere", [0.5], [0, 0, -3.0])),
            case("tilted plane", geom("plane", [], [1, -2, 3], tilt),
                 geom("sphere", [0.3], [1.1, -2.2, 3.1], tilt2), 0.01),
            case("tilted plane deep", geom("plane", [], [1, -2, 3], tilt),
                 geom("sphere", [0.3], [-5, 4, -2]), 0.5),
            case("large scale", P, geom("sphere", [700.0], [1e3, -2e3, 650.0]), 10.0),
            case("tiny scale", P, geom("sphere", [1e-3], [1e-3, 0, 9e-4])),
        ]
    elif pair == ("plane", "capsule"):
        P = geom("plane", [], [0, 0, 0])
        out += [
            case("lying", P, geom("capsule", [0.25, 1.0], [0, 0, 0.25], side)),
            case("lying exact", P, geom("capsule", [0.25, 1.0], [0, 0, 0.25], (0.5, 0.5, 0.5, 0.5))),
            case("upright", P, geom("capsule", [0.25, 1.0], [1, 1, 1.25])),
            case("upright flipped", P, geom("capsule", [0.25, 1.0], [1, 1, 1.25], flip)),
            case("upright both ends", P, geom("capsule", [0.25, 1.0], [1, 1, 1.25]), 2.5),
            case("upright at margin", P, geom("capsule", [0.25, 1.0], [0, 0, 1.5]), 0.25),
            case("upright beyond margin", P, geom("capsule", [0.25, 1.0], [0, 0, 1.5 + 2**-40]), 0.25),
            case("upright deep", P, geom("capsule", [0.25, 1.0], [0, 0, -3.0])),
            case("tilted", geom("plane", [], [0, 0, 1], tilt),
                 geom("capsule", [0.1, 0.5], [0.2, 0.1, 1.2], tilt2), 0.05),
        ]
    elif pair == ("plane", "cylinder"):
        P = geom("plane", [], [0, 0, 0])
        out += [
            case("standing", P, geom("cylinder", [0.5, 1.0], [0, 0, 1.0])),
            case("standing flipped", P, geom("cylinder", [0.5, 1.0], [2, 1, 1.0], flip)),
            case("standing spun", P, geom("cylinder", [0.5, 1.0], [0, 0, 0.9],
                                          tuple(axis_angle([0, 0, 1], 0.3)))),
            case("standing at margin", P, geom("cylinder", [0.5, 1.0], [0, 0, 1.25]), 0.25),
            case("standing beyond margin", P, geom("cylinder", [0.5, 1.0], [0, 0, 1.25 + 2**-40]), 0.25),
            case("standing both caps", P, geom("cylinder", [0.5, 1.0], [0, 0, 1.0]), 2.5),
            case("standing deep", P, geom("cylinder", [0.5, 1.0], [0, 0, -5.0])),
            case("lying", P, geom("cylinder", [0.5, 1.0], [0, 0, 0.5], side)),
            case("lying exact", P, geom("cylinder", [0.5, 1.0], [0, 0, 0.5], (0.5, 0.5, 0.5, 0.5))),
            case("lying deep", P, geom("cylinder", [0.5, 1.0], [0, 0, 0.2], (0.5, 0.5, 0.5, 0.5)), 0.1),
            case("tilted", P, geom("cylinder", [0.5, 1.0], [0, 0, 0.9], tilt)),
            case("tilted plane, aligned cylinder", geom("plane", [], [1, 2, 3], tilt),
                 geom("cylinder", [0.5, 1.0], [1, 2, 3], tilt), 0.1),
            case("large scale", P, geom("cylinder", [300.0, 200.0], [0, 0, 150.0], tilt2), 5.0),
        ]
    elif pair == ("plane", "box"):
        P = geom("plane", [], [0, 0, 0])
        out += [
            case("face down", P, geom("box", [0.5, 0.25, 1.0], [0, 0, 1.0])),
            case("face down margin", P, geom("box", [0.5, 0.25, 1.0], [0, 0, 1.25]), 0.25),
            case("face down beyond", P, geom("box", [0.5, 0.25, 1.0], [0, 0, 1.25 + 2**-40]), 0.25),
            case("face down deep", P, geom("box", [0.5, 0.25, 1.0], [0, 0, -4.0])),
            case("face down all corners in margin", P, geom("box", [0.5, 0.25, 1.0], [0, 0, 1.0]), 3.0),
            case("flipped", P, geom("box", [0.5, 0.25, 1.0], [0, 0, 0.5], flip)),
            case("edge down", P, geom("box", [0.5, 0.5, 0.5], [0, 0, 0.7],
                                      tuple(axis_angle([1, 0, 0], math.pi / 4)))),
            case("corner down", P, geom("box", [0.5, 0.5, 0.5], [0, 0, 0.8], tilt)),
            case("tilted plane", geom("plane", [], [1, 1, 1], tilt),
                 geom("box", [0.1, 0.2, 0.3], [1.1, 1.0, 1.2], tilt2), 0.1),
            case("large scale", P, geom("box", [100.0, 300.0, 50.0], [10, 0, 40.0], tilt2), 20.0),
        ]
    elif pair == ("sphere", "sphere"):
        out += [
            case("coincident, crossed axes", geom("sphere", [0.5], [1, 2, 3], tilt),
                 geom("sphere", [0.25], [1, 2, 3], tilt2)),
            case("coincident, same axes", geom("sphere", [0.5], [1, 2, 3]),
                 geom("sphere", [0.25], [1, 2, 3])),
            case("coincident, opposite axes", geom("sphere", [0.5], [1, 2, 3]),
                 geom("sphere", [0.25], [1, 2, 3], flip)),
            case("coincident, rotated", geom("sphere", [0.5], [0, 0, 0], tilt),
                 geom("sphere", [0.5], [0, 0, 0], tilt)),
            case("touching", geom("sphere", [0.5], [0, 0, 0]), geom("sphere", [0.25], [0.75, 0, 0])),
            case("at margin", geom("sphere", [0.5], [0, 0, 0]), geom("sphere", [0.25], [1.0, 0, 0]), 0.25),
            case("beyond margin", geom("sphere", [0.5], [0, 0, 0]),
                 geom("sphere", [0.25], [1.0 + 2**-40, 0, 0]), 0.25),
            case("nearly coincident", geom("sphere", [0.5], [0, 0, 0]),
                 geom("sphere", [0.25], [1e-13, -2e-13, 0])),
            case("deep", geom("sphere", [2.0], [5, 5, 5]), geom("sphere", [0.5], [5.1, 4.9, 5.3])),
            case("large scale", geom("sphere", [500.0], [1e3, 0, 0]),
                 geom("sphere", [400.0], [1e3, 850.0, 300.0]), 50.0),
        ]
    elif pair == ("sphere", "capsule"):
        C = lambda pos, q=I: geom("capsule", [0.25, 1.0], pos, q)
        out += [
            case("centre on axis", geom("sphere", [0.5], [0, 0, 0.5]), C([0, 0, 0])),
            case("centre on axis, tilted", geom("sphere", [0.5], [0.3, 0.2, 0.1], tilt2),
                 C([0.3, 0.2, 0.1], tilt)),
            case("centre at end point", geom("sphere", [0.5], [0, 0, 1.0]), C([0, 0, 0])),
            case("beyond end on axis", geom("sphere", [0.5], [0, 0, 1.5]), C([0, 0, 0])),
            case("beside", geom("sphere", [0.5], [0.75, 0, 0.3]), C([0, 0, 0])),
            case("at margin", geom("sphere", [0.5], [1.0, 0, 0.3]), C([0, 0, 0]), 0.25),
            case("beyond margin", geom("sphere", [0.5], [1.0 + 2**-40, 0, 0.3]), C([0, 0, 0]), 0.25),
            case("tip at margin", geom("sphere", [0.5], [0, 0, 2.0]), C([0, 0, 0]), 0.25),
            case("large scale", geom("sphere", [200.0], [0, 500, 0]),
                 geom("capsule", [150.0, 400.0], [10, 200, 300], tilt), 10.0),
        ]
    elif pair == ("sphere", "cylinder"):
        Y = lambda pos, q=I: geom("cylinder", [0.5, 1.0], pos, q)
        out += [
            case("side", geom("sphere", [0.25], [0.7, 0, 0.3]), Y([0, 0, 0])),
            case("side at margin", geom("sphere", [0.25], [1.0, 0, 0.3]), Y([0, 0, 0]), 0.25),
            case("side beyond", geom("sphere", [0.25], [1.0 + 2**-40, 0, 0.3]), Y([0, 0, 0]), 0.25),
            case("top cap", geom("sphere", [0.25], [0.1, 0.2, 1.2]), Y([0, 0, 0])),
            case("top cap at margin", geom("sphere", [0.25], [0.1, 0.2, 1.5]), Y([0, 0, 0]), 0.25),
            case("bottom cap", geom("sphere", [0.25], [0.1, 0.2, -1.2]), Y([0, 0, 0])),
            case("on axis above", geom("sphere", [0.25], [0, 0, 1.1]), Y([0, 0, 0])),
            case("on axis below", geom("sphere", [0.25], [0, 0, -1.1], tilt), Y([0, 0, 0])),
            case("rim corner", geom("sphere", [0.25], [0.6, 0.1, 1.1]), Y([0, 0, 0])),
            case("rim corner tilted", geom("sphere", [0.25], [0.5, 0.3, 1.0], tilt2), Y([0, 0, 0], tilt), 0.1),
            case("centre at centre", geom("sphere", [0.25], [0, 0, 0], tilt), Y([0, 0, 0])),
            case("centre at centre, same axes", geom("sphere", [0.25], [1, 2, 3]), Y([1, 2, 3])),
            case("inside near cap", geom("sphere", [0.25], [0.1, 0, 0.9]), Y([0, 0, 0])),
            case("inside near side", geom("sphere", [0.25], [0.45, 0, 0.1]), Y([0, 0, 0])),
            case("inside tie", geom("sphere", [0.25], [0.25, 0, 0.75]), Y([0, 0, 0])),
            case("inside near bottom, tilted", geom("sphere", [0.25], [0.1, -0.1, -0.8]),
                 Y([0, 0, 0], tilt)),
            case("on side surface at cap height", geom("sphere", [0.25], [0.5, 0, 1.0]), Y([0, 0, 0])),
            case("large scale", geom("sphere", [80.0], [0, 0, 300]),
                 geom("cylinder", [100.0, 250.0], [20, 10, 0], tilt), 5.0),
        ]
    elif pair == ("capsule", "capsule"):
        C1 = lambda pos, q=I: geom("capsule", [0.25, 1.0], pos, q)
        C2 = lambda pos, q=I: geom("capsule", [0.5, 0.5], pos, q)
        out += [
            case("parallel side by side", C1([0, 0, 0]), C2([0.75, 0, 0.2])),
            case("parallel at margin", C1([0, 0, 0]), C2([1.0, 0, 0.25]), 0.25),
            case("parallel beyond margin", C1([0, 0, 0]), C2([1.0 + 2**-40, 0, 0.25]), 0.25),
            case("parallel offset", C1([0, 0, 0]), C2([0.5, 0, 1.25])),
            case("parallel offset far", C1([0, 0, 0]), C2([0.5, 0, 1.6]), 0.1),
            case("anti-parallel", C1([0, 0, 0]), C2([0.6, 0.1, -0.3], flip)),
            case("coaxial overlap", C1([0, 0, 0]), C2([0, 0, 0.5])),
            case("coaxial end to end", C1([0, 0, 0]), C2([0, 0, 2.25])),
            case("coincident", C1([1, 2, 3]), C2([1, 2, 3])),
            case("coincident anti-parallel", C1([1, 2, 3]), C2([1, 2, 3], flip)),
            case("parallel tilted", C1([0, 0, 0], tilt), C2([0.3, -0.2, 0.1], tilt)),
            case("parallel tilted large", geom("capsule", [25.0, 100.0], [0, 0, 0], tilt),
                 geom("capsule", [50.0, 50.0], [30.0, -20.0, 10.0], tilt)),
            case("crossing", C1([0, 0, 0]), C2([0, 0, 0], side)),
            case("crossing exact", C1([0, 0, 0]), C2([0, 0, 0], (0.5, 0.5, 0.5, 0.5))),
            case("crossing offset", C1([0, 0, 0]), C2([0.6, 0, 0.3], (0.5, 0.5, 0.5, 0.5))),
            case("crossing at margin", C1([0, 0, 0]), C2([0, 1.0, 0.25], (0.5, 0.5, 0.5, 0.5)), 0.25),
            case("crossing beyond margin", C1([0, 0, 0]),
                 C2([0, 1.0 + 2**-40, 0.25], (0.5, 0.5, 0.5, 0.5)), 0.25),
            case("T end to side", C1([0, 0, 0]), C2([1.5, 0, 0.3], (0.5, 0.5, 0.5, 0.5))),
            case("nearly parallel", C1([0, 0, 0]),
                 C2([0.7, 0, 0.1], tuple(axis_angle([1, 1, 0], 1e-9)))),
            case("nearly parallel 1e-7", C1([0, 0, 0]),
                 C2([0.7, 0.2, -0.4], tuple(axis_angle([0, 1, 0], 1e-7)))),
            case("skew", C1([0, 0, 0], tilt), C2([0.4, 0.3, 0.2], tilt2), 0.05),
            # MuJoCo 4.0.0 counts axes as parallel when |z1 x z2| <= 1e-4
            case("parallel threshold, inside", C1([0, 0, 0]),
                 C2([0.7, 0.05, 0.2], tuple(axis_angle([1, 0, 0], 5e-5))), 0.05),
            case("parallel threshold, outside", C1([0, 0, 0]),
                 C2([0.7, 0.05, 0.2], tuple(axis_angle([1, 0, 0], 2e-4))), 0.05),
            case("parallel, one end beyond margin", C1([0, 0, 0]),
                 C2([0.75, 0, 0.2], tuple(axis_angle([0, 1, 0], 5e-5))), 0.0),
            case("parallel, g2 longer", C2([0, 0, 0], tilt), C1([0.3, 0.2, -0.1], tilt)),
            case("point-like capsule 1", geom("capsule", [0.25, 1e-9], [0, 0, 0], tilt),
                 C2([0.3, 0.4, 0.2], tilt2)),
            case("point-like capsule 2", C1([0, 0, 0], tilt2),
                 geom("capsule", [0.5, 1e-9], [0.3, -0.4, 0.9], tilt)),
            case("both point-like", geom("capsule", [0.25, 1e-9], [0, 0, 0], tilt),
                 geom("capsule", [0.5, 1e-9], [0.3, -0.4, 0.2], tilt2)),
            case("both point-like, coincident", geom("capsule", [0.25, 1e-9], [1, 2, 3], tilt),
                 geom("capsule", [0.5, 1e-9], [1, 2, 3], tilt2)),
            case("tiny crossing", geom("capsule", [5e-4, 1e-3], [0, 0, 0]),
                 geom("capsule", [5e-4, 1e-3], [6e-4, 0, 3e-4], tuple(axis_angle([1, 0, 0], 1e-2)))),
        ]
    return out


def main():
    import argparse
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--random", type=int, default=NRANDOM, help="random cases per pair type")
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    records = []
    summary = []
    for kind1, kind2 in PAIRS:
        cases = special_cases(kind1, kind2)
        cases += [random_case(rng, kind1, kind2) for _ in range(args.random)]
        kept = dropped = ncon = 0
        counts = {}
        for c in cases:
            rec = run_case(c)
            if rec is None:
                dropped += 1
                continue
            kept += 1
            k = len(rec["contacts"])
            counts[k] = counts.get(k, 0) + 1
            ncon += k
            records.append(rec)
        summary.append((f"{kind1}_{kind2}", kept, dropped, ncon, dict(sorted(counts.items()))))
    out = args.out
    out.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps({"mujoco_version": mujoco.__version__, "cases": records},
                      separators=(",", ":"))
    out.write_text(text + "\n")
    for name, kept, dropped, ncon, counts in summary:
        print(f"{name:18} cases {kept:4} (filtered {dropped:3})  contacts {ncon:4}  by count {counts}")
    print(f"wrote {out} ({len(text) / 1e6:.2f} MB)")


if __name__ == "__main__":
    main()
