"""Oracle for crates/collide-mjcf/tests/hull_robustness.rs: which awkward meshes MuJoCo 4.0.0
compiles, and the hull it builds for them.

Generates near-flat, sliver, tiny, duplicate-vertex and nearly collinear vertex sets (float
values, deterministic numpy RandomState), compiles each as a one-mesh model with a collidable
mesh geom (`<mesh vertex="...">`, or an OBJ asset for the `obj_` cases) and records into
`crates/collide-mjcf/tests/data/hull_robustness.json` (compact):

- `name`, `vertex` (flattened, exactly representable as float), `obj` (true: OBJ asset);
- `error`: MuJoCo's first error line, or null;
- `hull`: the sorted mesh vertex ids of the hull (`mesh_graph` global ids), `nface`: its
  triangle count.

Run from anywhere: `conformance/.venv/bin/python conformance/hull_robustness_oracle.py`.
"""

import json
import os

import mujoco
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "crates", "collide-mjcf", "tests", "data", "hull_robustness.json")


def f32(a):
    return np.asarray(a, dtype=np.float32).astype(np.float64)


def short32(x):
    """The shortest decimal that reads back (through float64) as the same float32."""
    v = float(np.format_float_scientific(np.float32(x), unique=True))
    assert np.float32(v) == np.float32(x)
    return v


def compile_case(v, obj):
    text = " ".join(repr(float(x)) for x in np.ravel(v))
    if obj:
        body = "".join("v %r %r %r\n" % tuple(float(x) for x in p) for p in v)
        xml = ('<mujoco><asset><mesh name="m" file="m.obj"/></asset>'
               '<worldbody><geom type="mesh" mesh="m"/></worldbody></mujoco>')
        assets = {"m.obj": body.encode()}
    else:
        xml = (f'<mujoco><asset><mesh name="m" vertex="{text}"/></asset>'
               '<worldbody><geom type="mesh" mesh="m"/></worldbody></mujoco>')
        assets = {}
    try:
        m = mujoco.MjModel.from_xml_string(xml, assets)
    except ValueError as e:
        return {"error": str(e).splitlines()[0].replace("Error: ", "")}
    g = m.mesh_graph[m.mesh_graphadr[0]:]
    nv, nf = int(g[0]), int(g[1])
    hull = sorted(int(x) for x in g[2 + nv:2 + 2 * nv])
    return {"error": None, "hull": hull, "nface": nf}


def cases():
    rng = np.random.RandomState(20261127)
    out = []

    def add(name, v, obj=False):
        out.append((name, f32(v), obj))

    for eps in [1e-2, 1e-4, 1e-6, 1e-8, 1e-10, 1e-12, 1e-14]:
        for k in range(3):
            n = rng.randint(5, 40)
            p = rng.uniform(-1, 1, (n, 3))
            p[:, 2] *= eps
            add(f"flat_{eps:g}_{k}", p)
        # a thin plate: box of thickness eps, a tilted one too
        b = np.array([[x, y, z * eps] for x in (-1, 1) for y in (-0.5, 0.5) for z in (0, 1)], float)
        add(f"plate_{eps:g}", b)
        r = np.linalg.qr(rng.normal(size=(3, 3)))[0]
        add(f"plate_tilted_{eps:g}", b @ r.T + 0.3)
    for eps in [1e-2, 1e-4, 1e-6, 1e-8, 1e-10, 1e-12]:
        for k in range(3):
            n = rng.randint(5, 30)
            t = rng.uniform(-1, 1, (n, 1))
            p = np.hstack([t, eps * rng.uniform(-1, 1, (n, 2))])
            add(f"sliver_{eps:g}_{k}", p)
        # a needle: a long thin prism
        s = np.array([[x, eps * np.cos(a), eps * np.sin(a)] for x in (-1, 1) for a in (0, 2.1, 4.2)])
        add(f"needle_{eps:g}", s)
    for scale in [1e-2, 1e-4, 1e-6, 1e-8, 1e-10, 1e-12, 1e-20, 1e-30]:
        for k in range(2):
            n = rng.randint(6, 40)
            add(f"tiny_{scale:g}_{k}", scale * rng.normal(size=(n, 3)) + scale * 10 * k)
        cube = np.array([[x, y, z] for x in (0, 1) for y in (0, 1) for z in (0, 1)], float)
        add(f"tiny_cube_{scale:g}", scale * cube + 5.0 * k)
    for k in range(6):
        n = rng.randint(4, 20)
        p = rng.uniform(-1, 1, (n, 3))
        rep = p[rng.randint(0, n, rng.randint(1, 3 * n))]
        allp = np.vstack([p, rep])[rng.permutation(n + len(rep))]
        add(f"dup_cloud_{k}", allp)
        add(f"obj_dup_cloud_{k}", allp, obj=True)
    cube = np.array([[x, y, z] for x in (0, 1) for y in (0, 1) for z in (0, 1)], float)
    add("dup_cube_each_twice", np.vstack([cube, cube]))
    add("dup_cube_first_thrice", np.vstack([cube[:1], cube[:1], cube]))
    add("dup_only_four", np.array([[0, 0, 0], [0, 0, 0], [1, 0, 0], [0, 1, 0]], float))
    add("dup_tetra_plus_copies", np.vstack([cube[[0, 1, 2, 4]]] * 3))
    add("dup_all_same", np.zeros((6, 3)))
    for eps in [1e-3, 1e-6, 1e-9, 1e-12, 1e-15]:
        # coplanar square plus one point barely off the plane, and collinear plus one barely off
        sq = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0], [0.5, 0.5, eps]], float)
        add(f"apex_{eps:g}", sq)
        ln = np.array([[0, 0, 0], [1, 0, 0], [2, 0, 0], [3, 0, 0], [1.5, eps, 0], [1.5, 0, eps]], float)
        add(f"line_plus_{eps:g}", ln)
        # a cube whose top face is pushed in by eps (nearly coplanar faces merge)
        c = cube.copy()
        c = np.vstack([c, [[0.5, 0.5, 1 + eps]], [[0.5, 1 + eps, 0.5]]])
        add(f"cube_bumps_{eps:g}", c)
    return out


def main():
    rec = []
    for name, v, obj in cases():
        r = compile_case(v, obj)
        rec.append({"name": name, "obj": obj, "vertex": [short32(x) for x in np.ravel(v)], **r})
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        json.dump({"mujoco_version": mujoco.__version__, "cases": rec}, f, separators=(",", ":"))
        f.write("\n")
    nerr = sum(1 for r in rec if r["error"])
    print(f"{len(rec)} cases, {nerr} refused by MuJoCo -> {os.path.relpath(OUT, ROOT)}")


if __name__ == "__main__":
    main()
