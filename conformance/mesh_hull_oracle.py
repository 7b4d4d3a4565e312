"""Oracle for crates/collide-mjcf/tests/mesh_hull.rs: MuJoCo 4.0.0's collision hull of meshes.

For every case, a one-mesh model with a collidable mesh geom is compiled by the pinned
`mujoco==4.0.0` and its hull data is written to
`crates/collide-mjcf/tests/data/hull/<case>.json`:

- `source`: where the vertices come from: `{"file": <path relative to the repository root>}` or
  `{"vertex": [...], "face": [...] | null}` (inline, values exactly representable as float);
- `settings`: `scale`, `refpos`, `refquat`, `maxhullvert` (-1 = unlimited);
- `mesh_pos`, `mesh_quat`, `vert` (`mesh_vert` flattened: the compiled vertices as float);
- `graph` (`mesh_graph` for the mesh, `[nv, nf, edgeadr[nv], globalid[nv], edges[nv+3nf],
  faces[3nf]]`), `polyvert` (per polygon, its mesh vertex ids), `polynormal` (flattened),
  `extrema` (27 hull-local ids);
- `error`: MuJoCo's message when the model does not compile (then nothing else is recorded).

Run from anywhere: `conformance/.venv/bin/python conformance/mesh_hull_oracle.py`.
Deterministic (numpy RandomState with fixed seeds).

`--all-dog DIR` instead records every dog bone (162 meshes, 11 MB, not committed) into DIR; compare
with `HULL_DATA_DIR=DIR cargo test -p collide-mjcf --release --test integration mesh_hull:: -- --nocapture`.

`--qhull-input CASE` prints a recorded case's vertices as qhull reads them (the file values as
float, before refpos/refquat/scale) in qhull's input format. The stand-alone qhull_r 8.0.2
(`pip install cmeel-qhull` in a scratch venv; binary under `cmeel.prefix/bin`) reproduces MuJoCo's
hull: `qhull Qt Fv` lists the facets in MuJoCo's order with each facet's vertices as
`facet->vertices` (MuJoCo's triangle swaps the first two when the facet is `toporient`), and
`qhull Qt T3` traces its facet merges and vertex renames, the reference for the merge emulation
in `crates/collide-mjcf/src/mesh_hull.rs`. Values recovered from compiled vertices can be one
float ulp off the file's (seen on URDF STL meshes), which changes qhull's run: for a file mesh,
compare against the vertices the loader decoded.
"""

import json
import math
import os
import sys

import mujoco
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "crates", "collide-mjcf", "tests", "data", "hull")
DOG = "conformance/corpus/dm_control/suite/dog_assets"
SCENE = "conformance/corpus/scenes/assets"


def f32(a):
    return np.asarray(a, dtype=np.float32).astype(np.float64)


def num(x):
    return repr(float(x))


def short32(x):
    """Shortest decimal that reads back (through float64) as the same float32."""
    x = np.float32(x)
    s = np.format_float_positional(x, unique=True, trim="-")
    assert np.float32(float(s)) == x
    v = float(s)
    return int(v) if v == int(v) and abs(v) < 2**53 and "." not in s else v


def fmt(a):
    return " ".join(num(x) for x in np.ravel(a))


def compile_case(source, settings):
    attrs = [settings["attrs"]] if settings.get("attrs") else []
    if settings.get("scale") is not None:
        attrs.append(f'scale="{fmt(settings["scale"])}"')
    if settings.get("refpos") is not None:
        attrs.append(f'refpos="{fmt(settings["refpos"])}"')
    if settings.get("refquat") is not None:
        attrs.append(f'refquat="{fmt(settings["refquat"])}"')
    if settings.get("maxhullvert", -1) != -1:
        attrs.append(f'maxhullvert="{settings["maxhullvert"]}"')
    assets = {}
    if "file" in source:
        fname = os.path.basename(source["file"])
        assets[fname] = open(os.path.join(ROOT, source["file"]), "rb").read()
        spec = f'file="{fname}"'
    else:
        spec = f'vertex="{fmt(source["vertex"])}"'
        if source.get("face") is not None:
            spec += f' face="{" ".join(str(int(i)) for i in np.ravel(source["face"]))}"'
    body = '<geom type="mesh" mesh="m"/>'
    if not settings.get("static"):
        body = f"<body><freejoint/>{body}</body>"
    xml = f'<mujoco><asset><mesh name="m" {spec} {" ".join(attrs)}/></asset><worldbody>{body}</worldbody></mujoco>'

    return mujoco.MjModel.from_xml_string(xml, assets)


def record(name, cls, source, settings, note=""):
    full = {"scale": [1, 1, 1], "refpos": [0, 0, 0], "refquat": [1, 0, 0, 0], "maxhullvert": -1}
    full.update({k: v for k, v in settings.items() if v is not None and k not in ("attrs", "static")})
    src = dict(source)
    if "vertex" in src:
        src["vertex"] = [float(x) for x in np.ravel(f32(src["vertex"]))]
        if src.get("face") is not None:
            src["face"] = [int(i) for i in np.ravel(src["face"])]
    out = {
        "name": name,
        "class": cls,
        "note": note,
        "source": src,
        "settings": {
            "scale": [float(x) for x in full["scale"]],
            "refpos": [float(x) for x in full["refpos"]],
            "refquat": [float(x) for x in full["refquat"]],
            "maxhullvert": int(full["maxhullvert"]),
        },
        "error": None,
    }
    try:
        m = compile_case(src, settings)
    except ValueError as e:
        out["error"] = str(e)
        write(name, out)
        return
    adr, n = m.mesh_vertadr[0], m.mesh_vertnum[0]
    out["mesh_pos"] = [float(x) for x in m.mesh_pos[0]]
    out["mesh_quat"] = [float(x) for x in m.mesh_quat[0]]
    out["vert"] = [short32(x) for x in np.ravel(m.mesh_vert[adr : adr + n])]
    g = m.mesh_graphadr[0]
    assert g >= 0, name
    nv, nf = int(m.mesh_graph[g]), int(m.mesh_graph[g + 1])
    out["graph"] = [int(x) for x in m.mesh_graph[g : g + 2 + 3 * nv + 6 * nf]]
    pa, pn = m.mesh_polyadr[0], m.mesh_polynum[0]
    polys = []
    for p in range(pa, pa + pn):
        va, vn = m.mesh_polyvertadr[p], m.mesh_polyvertnum[p]
        polys.append([int(x) for x in m.mesh_polyvert[va : va + vn]])
    out["polyvert"] = polys
    out["polynormal"] = [float(x) for x in np.ravel(m.mesh_polynormal[3 * pa : 3 * (pa + pn)])]
    out["extrema"] = [int(x) for x in np.ravel(m.mesh_extrema[0])]
    write(name, out)


def write(name, out):
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, name + ".json"), "w") as fh:
        json.dump(out, fh, separators=(",", ":"))
        fh.write("\n")
    status = out["error"] or f'nv={out["graph"][0]} nf={out["graph"][1]} npoly={len(out["polyvert"])}'
    print(f"{name}: {status}")


# ------------------------------------------------------------------------------- shapes
def rot(rng):
    q = rng.normal(size=4)
    q /= np.linalg.norm(q)
    w, x, y, z = q
    return np.array(
        [
            [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
            [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
            [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
        ]
    )


def box_corners(h=(0.1, 0.15, 0.2)):
    return np.array([(sx * h[0], sy * h[1], sz * h[2]) for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)])


def box_grid(n=3, h=(0.1, 0.15, 0.2)):
    pts = []
    ticks = np.linspace(-1, 1, n)
    for i in ticks:
        for j in ticks:
            for k in ticks:
                if max(abs(i), abs(j), abs(k)) == 1:
                    pts.append((i * h[0], j * h[1], k * h[2]))
    return np.array(pts)


def prism(k, r=0.1, h=0.2, centers=False):
    pts = []
    for z in (-h / 2, h / 2):
        for i in range(k):
            a = 2 * math.pi * i / k
            pts.append((r * math.cos(a), r * math.sin(a), z))
    if centers:
        pts += [(0, 0, -h / 2), (0, 0, h / 2)]
    return np.array(pts)


def sphere_pts(rng, n, r=0.1):
    p = rng.normal(size=(n, 3))
    return r * p / np.linalg.norm(p, axis=1, keepdims=True)


def icosphere(levels):
    t = (1 + 5**0.5) / 2
    v = [(-1, t, 0), (1, t, 0), (-1, -t, 0), (1, -t, 0), (0, -1, t), (0, 1, t), (0, -1, -t), (0, 1, -t),
         (t, 0, -1), (t, 0, 1), (-t, 0, -1), (-t, 0, 1)]
    v = [np.array(p) / np.linalg.norm(p) for p in v]
    f = [(0, 11, 5), (0, 5, 1), (0, 1, 7), (0, 7, 10), (0, 10, 11), (1, 5, 9), (5, 11, 4), (11, 10, 2),
         (10, 7, 6), (7, 1, 8), (3, 9, 4), (3, 4, 2), (3, 2, 6), (3, 6, 8), (3, 8, 9), (4, 9, 5),
         (2, 4, 11), (6, 2, 10), (8, 6, 7), (9, 8, 1)]
    for _ in range(levels):
        cache = {}

        def mid(a, b):
            key = (min(a, b), max(a, b))
            if key not in cache:
                m = v[a] + v[b]
                v.append(m / np.linalg.norm(m))
                cache[key] = len(v) - 1
            return cache[key]

        nf = []
        for a, b, c in f:
            ab, bc, ca = mid(a, b), mid(b, c), mid(c, a)
            nf += [(a, ab, ca), (b, bc, ab), (c, ca, bc), (ab, bc, ca)]
        f = nf
    return 0.1 * np.array(v)


def main():
    # -------- scene meshes (as the corpus uses them)
    scene = [
        ("scene_tetra", "tetra.stl", {"scale": [0.18, 0.15, 0.2], "refpos": [0.1, 0.1, 0.1], "refquat": [1, 0.2, 0, 0.1]}),
        ("scene_ico", "icosahedron.stl", {"scale": [0.09, 0.09, 0.09]}),
        ("scene_bevel", "bevel_box.obj", {"scale": [0.1, 0.08, 0.1]}),
        ("scene_geo", "geodesic.obj", {"scale": [0.11, 0.08, 0.06]}),
        ("scene_hex", "hex_prism.msh", {"scale": [0.09, 0.09, 0.12], "refquat": [0.9, 0, 0.3, 0]}),
        ("scene_lshape", "lshape.stl", {"scale": [0.08, 0.08, 0.1], "refpos": [1, 1, 0.3]}),
        ("scene_bevel_plain", "bevel_box.obj", {}),
        ("scene_hex_plain", "hex_prism.msh", {}),
    ]
    for name, f, s in scene:
        record(name, "scene", {"file": f"{SCENE}/{f}"}, s)
    record("scene_wedge", "scene", {"vertex": [0, 0, 0, .2, 0, 0, 0, .15, 0, 0, 0, .1, .2, 0, .1, 0, .15, .1],
                                    "face": [0, 2, 1, 3, 4, 5, 0, 1, 4, 0, 4, 3, 0, 3, 5, 0, 5, 2, 1, 2, 5, 1, 5, 4]}, {})
    record("scene_cloud", "scene", {"vertex": [.1, 0, 0, -.08, .02, .01, 0, .09, -.02, .01, -.1, .03, 0, 0, .11, .02, .01, -.09,
                                               .06, .06, .05, -.05, -.06, .05, -.06, .05, -.05, .05, -.05, -.06, .07, -.02, .07,
                                               -.03, .07, .06]}, {})

    # -------- dog bones (a spread of sizes)
    for b in ["Carpal_Sesamoid_L", "Tarsus_L_I", "Patella_L", "Carpal_III_L", "Tarsus_central_L",
              "Phalanx_media_digiti_IV_L", "Carpal_accessory_L", "Phalanges_B_L_1", "Phalanx_distalis_digiti_V_L",
              "Metatarsi_L_4", "Ca_11", "Tibia_L", "Ulna_R", "Ca_2", "C_2"]:
        f = None
        for line in open(os.path.join(ROOT, "conformance/corpus/dm_control/suite/dog.xml")):
            if f'<mesh name="{b}"' in line:
                f = line.split('file="')[1].split('"')[0]
        assert f, b
        record("dog_" + b, "dog", {"file": f"{DOG}/{f}"}, {})
    record("dog_Tibia_L_maxhull16", "maxhullvert", {"file": f"{DOG}/{f}"}, {"maxhullvert": 16})

    rng = np.random.RandomState(20240611)
    # -------- random clouds
    for n in (10, 50, 200, 1000):
        record(f"gauss_{n}", "random", {"vertex": 0.1 * rng.normal(size=(n, 3))}, {})
    record("uniform_300", "random", {"vertex": rng.uniform(-0.1, 0.1, size=(300, 3))}, {})
    record("sphere_100", "random", {"vertex": sphere_pts(rng, 100)}, {})
    record("sphere_400", "random", {"vertex": sphere_pts(rng, 400)}, {})
    p = 0.1 * rng.normal(size=(40, 3))
    record("duplicates", "random", {"vertex": np.concatenate([p, p[::-1], p[:7]])}, {},
           "every point twice or three times (inline vertices are not merged)")
    p = 0.1 * rng.normal(size=(50, 3))
    record("gauss_50_mirrored", "random", {"vertex": p}, {"scale": [1, -2, 0.5]}, "negative scale determinant")
    record("gauss_50_refquat", "random", {"vertex": p}, {"refquat": [0.3, -0.5, 0.2, 0.8], "refpos": [0.1, 0, -0.2], "scale": [3, 1, 2]})
    p = 10 * rng.normal(size=(100, 3)) + np.array([1000, -500, 200])
    record("far_offset", "random", {"vertex": p}, {}, "cloud far from the origin")

    # -------- coplanar-face-rich shapes
    record("box8", "polyhedron", {"vertex": box_corners()}, {})
    record("box_grid3", "polyhedron", {"vertex": box_grid(3)}, {}, "26 points on the faces of a box")
    record("box_grid5", "polyhedron", {"vertex": box_grid(5)}, {}, "98 points on the faces of a box")
    r = rot(rng)
    record("box_grid3_rotated", "polyhedron", {"vertex": box_grid(3) @ r.T}, {}, "rotated: float rounding breaks coplanarity")
    record("box8_rotated", "polyhedron", {"vertex": box_corners() @ r.T}, {})
    record("box_grid3_mirrored", "polyhedron", {"vertex": box_grid(3)}, {"scale": [1, 1, -1]}, "negative scale")
    record("box_grid3_refquat", "polyhedron", {"vertex": box_grid(3)}, {"refquat": [0.9, 0.1, 0.3, -0.2], "scale": [2, 1, 0.5]})
    record("hex_prism", "polyhedron", {"vertex": prism(6)}, {})
    record("cylinder16_centers", "polyhedron", {"vertex": prism(16, centers=True)}, {}, "cap centres are not hull vertices")
    record("cylinder64", "polyhedron", {"vertex": prism(64)}, {})
    record("cylinder720", "polyhedron", {"vertex": prism(720)}, {}, "side faces 0.0087 rad apart: merged by the 0.01 angle bins")
    record("cone32", "polyhedron", {"vertex": np.concatenate([prism(32)[:32], [[0, 0, 0.3]]])}, {})
    record("octahedron", "polyhedron", {"vertex": [[.1, 0, 0], [-.1, 0, 0], [0, .1, 0], [0, -.1, 0], [0, 0, .1], [0, 0, -.1]]}, {})
    record("icosphere2", "polyhedron", {"vertex": icosphere(2)}, {})
    record("icosphere3", "polyhedron", {"vertex": icosphere(3)}, {})
    d = rng.uniform(-1, 1, size=(600, 2))
    d = d[np.hypot(d[:, 0], d[:, 1]) < 1][:200]
    p = np.column_stack([d, 0.02 * (1 - d[:, 0] ** 2 - d[:, 1] ** 2)])
    p = 0.1 * np.concatenate([p, [[0, 0, -0.5]]])
    record("shallow_cap", "polyhedron", {"vertex": p}, {}, "a nearly flat paraboloid cap: faces within 0.04 rad")
    b = box_grid(5)
    jitter = b.copy()
    mask = np.isclose(np.abs(b[:, 2]), 0.2)
    jitter[mask, 2] += 1e-6 * rng.normal(size=mask.sum())
    record("box_grid5_jitter", "polyhedron", {"vertex": jitter}, {}, "z faces jittered by 1e-6")

    # -------- maxhullvert
    p = 0.1 * rng.normal(size=(200, 3))
    for k in (4, 5, 8, 20, 60):
        record(f"gauss_200_maxhull{k}", "maxhullvert", {"vertex": p}, {"maxhullvert": k})
    record("sphere_400_maxhull12", "maxhullvert", {"vertex": sphere_pts(rng, 400)}, {"maxhullvert": 12})
    record("box_grid5_maxhull6", "maxhullvert", {"vertex": box_grid(5)}, {"maxhullvert": 6})

    # -------- tiny: polygon normals below mjEPS become (1, 0, 0); a face below mjMINVAL is dropped
    tiny = [[9.984011839492268e-9, 0, 0], [7.478957009254827e-9, 0, 0], [0, -7.696193904394022e-9, 0], [0, 0, 2.498897629266139e-6]]
    record("tiny_tetra", "degenerate", {"vertex": tiny}, {"attrs": 'inertia="shell"', "static": True},
           "static geom, shell inertia: a 3e-15 triangle and a dropped 1e-17 one")
    t = [[0.6195756793022156, 0.0, 0.9405602812767029], [0, 0, 0], [0, 0.9454848766326904, 0], [809761898496.0, -994451652608.0, 235702108160.0]]
    record("needle_tetra", "degenerate", {"vertex": t}, {"attrs": 'inertia="shell"', "static": True},
           "extreme aspect ratio: qhull keeps a facet whose winding disagrees with its plane")

    # -------- facet merges with varied vertex orders (own seed: the cases above stay as they are)
    rng2 = np.random.RandomState(20261122)
    for k in range(3):
        record(f"box8_perm{k}", "merged", {"vertex": box_corners()[rng2.permutation(8)]}, {})
    wedge = np.array([[0, 0, 0], [.2, 0, 0], [0, .15, 0], [0, 0, .1], [.2, 0, .1], [0, .15, .1]])
    for k in range(2):
        record(f"wedge_perm{k}", "merged", {"vertex": wedge[rng2.permutation(6)]}, {})
    record("prism8_perm", "merged", {"vertex": prism(8)[rng2.permutation(16)]}, {})
    record("box_grid3_perm", "merged", {"vertex": box_grid(3)[rng2.permutation(26)]}, {})
    cyl = prism(24)
    record("cylinder24_perm", "merged", {"vertex": cyl[rng2.permutation(len(cyl))]}, {})

    # -------- degenerate
    record("err_coplanar", "error", {"vertex": [[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0], [.3, .6, 0]]}, {})
    record("err_collinear", "error", {"vertex": [[0, 0, 0], [1, 1, 1], [2, 2, 2], [3, 3, 3]]}, {})
    record("err_colocated", "error", {"vertex": [[.5, .5, .5]] * 5}, {})
    record("err_three", "error", {"vertex": [[0, 0, 0], [1, 0, 0], [0, 1, 0]]}, {})


def all_dog(out):
    global OUT
    OUT = out
    for f in sorted(os.listdir(os.path.join(ROOT, DOG))):
        if f.endswith(".stl"):
            record("all_" + f[:-4], "dog", {"file": f"{DOG}/{f}"}, {})


def qhull_input(case):
    """The points qhull sees for a recorded case, in qhull's input format."""
    j = json.load(open(os.path.join(OUT, case + ".json")))
    if j["error"]:
        sys.exit(f"{case}: MuJoCo does not compile it")
    if "vertex" in j["source"]:
        pts = np.asarray(j["source"]["vertex"], dtype=np.float64).reshape(-1, 3)
    else:
        st = j["settings"]
        if st["scale"] != [1, 1, 1] or st["refpos"] != [0, 0, 0] or st["refquat"] != [1, 0, 0, 0]:
            sys.exit(f"{case}: a file mesh with scale/refpos/refquat (only plain file meshes)")
        # back to the file frame: pos + quat * vert, rounded to float as the file states it
        rot = np.zeros(9)
        mujoco.mju_quat2Mat(rot, np.asarray(j["mesh_quat"]))
        vert = np.asarray(j["vert"], dtype=np.float64).reshape(-1, 3)
        pts = f32(np.asarray(j["mesh_pos"]) + vert @ rot.reshape(3, 3).T)
    print(3)
    print(len(pts))
    for p in pts:
        print(" ".join(repr(float(x)) for x in p))


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--all-dog":
        sys.exit(all_dog(sys.argv[2]))
    if len(sys.argv) == 3 and sys.argv[1] == "--qhull-input":
        sys.exit(qhull_input(sys.argv[2]))
    sys.exit(main())
