#!/usr/bin/env python3
"""Records MuJoCo 4.0.0's builtin meshes for crates/collide-mjcf/tests/mesh_builtin.rs.

Run with the conformance venv: conformance/.venv/bin/python gen_builtin.py > builtin.json
For each case: MjSpec's uservert/userface (what mjs_makeMesh generates) and, when MuJoCo
compiles the mesh, the compiled mesh_vert/mesh_face/mesh_pos/mesh_quat; else its error.
"""
import json
import mujoco
import numpy as np

CASES = [
    ("sphere", "0"), ("sphere", "1"), ("sphere", "2"), ("sphere", "1.7"),
    ("hemisphere", "0"), ("hemisphere", "1"), ("hemisphere", "3"),
    ("cone", "3 0"), ("cone", "5 1"), ("cone", "7 0.3"),
    ("supersphere", "3 1 1"), ("supersphere", "6 0.3 2.5"), ("supersphere", "5 0 0"),
    ("supertorus", "3 0.5 1 1"), ("supertorus", "6 0.3 0.5 2"), ("supertorus", "8 1 1.5 0.7"),
    ("wedge", "4 4 60 30 0"), ("wedge", "3 5 170 80 0"),
    ("plate", "2 2"), ("plate", "3 2"),
    ("wedge", "3 2 60 30 0.5"), ("wedge", "4 3 90 45 1"),
    ("grid", "3 2 2 0.1 0.2 0.3"), ("grid", "2 3 4 -1 1 0.5 3"), ("grid", "3 2 1 0.1 0.2 0.3 2"),
    ("box", "3 3 3 2 2 2"), ("box", "4 3 2 1 1 1 2"), ("box", "2.9 2 3 0.5 -1 1 3.5"),
    ("cylinder", "5 4 3 0.5 0.5 1"), ("cylinder", "4 4 3 0.5 0.5 1 2"),
    ("ellipsoid", "5 5 4 0.3 0.4 0.5"), ("ellipsoid", "4 3 3 1 1 1 2"),
    ("square", "3 4 1 0.5 0.5 0"), ("disc", "5 4 1 1 0.5 1"), ("disc", "4 4 1 -1 1 1"),
]
# Planar kinds compile in a geom that does not collide (no hull needed).
VISUAL = [("plate", "3 2"), ("grid", "3 2 1 0.1 0.2 0.3 2"), ("square", "3 4 1 0.5 0.5 0"),
          ("disc", "5 4 1 1 0.5 1")]
BAD = [
    ("sphere", "5"), ("sphere", "-1"), ("sphere", "1 2"), ("hemisphere", "11"),
    ("cone", "2 0"), ("cone", "3 1.5"), ("supersphere", "2 1 1"), ("supersphere", "3 -1 1"),
    ("supertorus", "3 0 1 1"), ("supertorus", "3 0.5 0 1"), ("wedge", "0 1 60 30 0"),
    ("wedge", "2 2 181 45 0"), ("wedge", "2 2 60 30 1.5"), ("plate", "0 1"), ("foo", "1"),
    ("wedge", "2 2 60 30 -0.5"), ("plate", "2 2 2"), ("grid", "2 2 2 1 1"),
    ("grid", "2 2 2 1 1 1 4"), ("grid", "2 2 2 1 1 1 2"), ("grid", "0 2 2 1 1 1"),
    ("grid", "1 2 2 1 1 1"), ("box", "1 2 2 1 1 1"), ("cylinder", "2 2 2 1 1 1 1"),
    ("ellipsoid", "2 2"), ("square", "2 2 2 1 1 1"), ("square", "0 2 1 1 1 1"),
    ("disc", "1 3 1 1 1 1"), ("disc", "2 2 1 1 1 1 2"), ("grid", "1e10 2 2 1 1 1"),
]


def xml(kind, params, visual=False):
    geom = '<geom type="mesh" mesh="m" contype="0" conaffinity="0"/>' if visual else \
        '<geom type="mesh" mesh="m"/>'
    body = f'<body><inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/>{geom}</body>' \
        if visual else geom
    return (f'<mujoco><asset><mesh name="m" builtin="{kind}" params="{params}"/></asset>'
            f'<worldbody>{body}</worldbody></mujoco>')


def r(a):
    return [float(x) for x in np.ravel(a)]


out = {"mujoco_version": mujoco.__version__, "cases": [], "bad": [], "visual": []}
for kind, params in CASES:
    spec = mujoco.MjSpec.from_string(xml(kind, params))
    me = spec.meshes[0]
    c = {"kind": kind, "params": params, "uservert": r(me.uservert),
         "userface": [int(x) for x in me.userface]}
    try:
        m = spec.compile()
        c.update(mesh_vert=r(m.mesh_vert), mesh_face=[int(x) for x in np.ravel(m.mesh_face)],
                 mesh_pos=r(m.mesh_pos[0]), mesh_quat=r(m.mesh_quat[0]))
    except Exception as e:  # noqa: BLE001
        c["error"] = str(e).splitlines()[0]
    out["cases"].append(c)
for kind, params in BAD:
    try:
        mujoco.MjModel.from_xml_string(xml(kind, params))
        raise SystemExit(f"{kind} {params} unexpectedly compiled")
    except ValueError as e:
        out["bad"].append({"kind": kind, "params": params, "error": str(e).splitlines()[0]})
for kind, params in VISUAL:
    m = mujoco.MjModel.from_xml_string(xml(kind, params, visual=True))
    out["visual"].append({"kind": kind, "params": params, "mesh_vert": r(m.mesh_vert),
                          "mesh_face": [int(x) for x in np.ravel(m.mesh_face)]})
print(json.dumps(out, separators=(",", ":")))
