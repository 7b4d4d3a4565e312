"""Random-scene differential fuzzer: seeded random MJCF scenes that combine MuJoCo's collision
features (every colliding geom type with random and degenerate sizes, `fromto`, frames,
defaults and `childclass`, nested bodies with free/ball/hinge/slide joints, contype/conaffinity
bitmasks, margin/gap, condim, priority, solmix, friction/solref/solimp, `<contact><pair>` with
overrides and `<exclude>`, options and flags: `filterparent`, `nativeccd`, `multiccd`,
`ccd_iterations`, `ccd_tolerance`, `override` with `o_margin`/`o_solref`/`o_solimp`/
`o_friction`, `contact` disabled, `multiccd` off), compared with MuJoCo 4.0.0 at qpos0 and random
configurations (the corpus's `harness.random_qpos`) with the criteria of
`python/tests/test_conformance.py` (its `compare_state`, imported).

Geoms are placed close together, and each scene adds a few exact cases (box resting on a
plane, face on face, coincident centres, parallel capsules, ...), so most pairs touch or
nearly touch.

A scene MuJoCo refuses must be refused by collide too; a scene MuJoCo loads must load in
collide (an error there is a failure, a Rust panic or Python crash is one too).

Scenes with meshes also run under `mesh_collision="exact"` (collide's own triangle path, which
MuJoCo has no counterpart for): no crash, every number finite, unit normals, and every pair
without a mesh the same as with hulls.

Convex pairs (GJK/EPA, MPR, meshes, height fields) are judged pair by pair with the corpus's
per-pair tolerances: MuJoCo's pair found (unless it touches within 1e-6 of the threshold), no
extra pair, deepest dist within 1e-6, its normal within 1e-3 rad, its position within 1e-6.
Contact counts of convex pairs are reported as the corpus's "equal counts" fraction (the
corpus asks for 90%), not as failures.

Run with the Python package's virtualenv (scripts/test.d/20-python.sh makes it):
    target/py-venv/bin/python conformance/scene_fuzz.py --seed 1 --count 1000 --keep target/scene-fuzz
`--start I --count 1` reruns scene I alone (scenes are seeded by index).
`--keep DIR` writes each failing scene, minimised, as DIR/<seed>-<scene>-<kind>.xml with the
failing configuration as its keyframe (and the mesh files it references).
"""
from __future__ import annotations

import argparse
import copy
import re
import shutil
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any, Callable
from xml.sax.saxutils import quoteattr

import numpy as np

import collide
import mujoco

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))
sys.path.insert(0, str(ROOT / "conformance"))
from harness import random_qpos  # noqa: E402  (the corpus's random configurations)
from tests import test_conformance as tc  # noqa: E402

ASSETS = ROOT / "conformance" / "corpus" / "scenes" / "assets"
MESH_FILES = ["tetra.stl", "icosahedron.stl", "lshape.stl", "bevel_box.obj", "hex_prism.msh",
              "torus.obj"]
TYPE_NAMES = ["plane", "hfield", "sphere", "capsule", "ellipsoid", "cylinder", "box", "mesh"]
MESH_LIKE = (7, 8)  # geom types mesh and sdf: what `mesh_collision="exact"` may change

Scene = dict[str, Any]


# ---------------------------------------------------------------------------------------------
# generator
# ---------------------------------------------------------------------------------------------

def fmt(*xs: float) -> str:
    return " ".join(f"{x:.6g}" for x in xs)


class Gen:
    """Builds one random scene from a seeded numpy generator."""

    def __init__(self, rng: np.random.Generator, mesh_radius: dict[str, float]) -> None:
        self.rng = rng
        self.mesh_radius = mesh_radius
        self.n = Counter[str]()
        self.scene: Scene = {"option": {}, "flag": {}, "defaults": [], "meshes": [],
                             "hfields": [], "world": [], "bodies": [], "pairs": [],
                             "excludes": []}

    def name(self, prefix: str) -> str:
        self.n[prefix] += 1
        return f"{prefix}{self.n[prefix] - 1}"

    def chance(self, p: float) -> bool:
        return bool(self.rng.random() < p)

    def pick(self, xs: list[Any], p: list[float] | None = None) -> Any:
        if p is not None:
            p = list(np.asarray(p) / np.sum(p))
        return xs[int(self.rng.choice(len(xs), p=p))]

    def size(self) -> float:
        base = self.pick([0.02, 0.05, 0.1, 0.2])
        s = float(base * self.rng.uniform(0.5, 1.5))
        if self.chance(0.1):
            s *= float(self.rng.uniform(0.005, 0.05))  # thin / very flat
        return s

    def vec(self, r: float) -> list[float]:
        return [float(x) for x in self.rng.uniform(-r, r, 3)]

    def orientation(self, attrs: dict[str, str], p: float = 0.5) -> None:
        if not self.chance(p):
            return
        kind = self.pick(["euler", "quat", "axisangle", "zaxis", "xyaxes", "axis90"])
        if kind == "euler":
            attrs["euler"] = fmt(*self.rng.uniform(-180, 180, 3))
        elif kind == "quat":
            attrs["quat"] = fmt(*self.rng.normal(size=4))
        elif kind == "axisangle":
            attrs["axisangle"] = fmt(*self.rng.normal(size=3), self.rng.uniform(-180, 180))
        elif kind == "zaxis":
            attrs["zaxis"] = fmt(*self.rng.normal(size=3))
        elif kind == "xyaxes":
            attrs["xyaxes"] = fmt(*self.rng.normal(size=6))
        else:  # exact quarter turns: aligned faces and edges
            attrs["euler"] = fmt(*(90 * self.rng.integers(-2, 3, 3)))

    def contact_attrs(self, attrs: dict[str, str]) -> None:
        if self.chance(0.25):
            attrs["contype"] = str(self.pick([0, 1, 2, 3, 5], [1, 4, 2, 2, 1]))
        if self.chance(0.25):
            attrs["conaffinity"] = str(self.pick([0, 1, 2, 3, 4], [1, 4, 2, 2, 1]))
        if self.chance(0.3):
            attrs["margin"] = fmt(self.pick([0.001, 0.01, 0.05, 0.2]))
        if self.chance(0.15):
            attrs["gap"] = fmt(self.pick([0.0, 0.005, 0.02]))
        if self.chance(0.3):
            attrs["condim"] = str(self.pick([1, 3, 4, 6]))
        if self.chance(0.2):
            attrs["priority"] = str(self.pick([-1, 0, 1, 2]))
        if self.chance(0.2):
            attrs["solmix"] = fmt(self.pick([0.0, 0.3, 1.0, 5.0]))
        if self.chance(0.2):
            attrs["friction"] = fmt(*self.rng.uniform(0, 2, 3))
        if self.chance(0.15):
            attrs["solref"] = fmt(self.rng.uniform(0.005, 0.05), self.rng.uniform(0.5, 2))
        if self.chance(0.15):
            a = np.sort(self.rng.uniform(0.5, 0.99, 2))
            attrs["solimp"] = fmt(a[0], a[1], self.rng.uniform(0.0005, 0.01))

    def mesh(self) -> str:
        """A new mesh asset: a corpus file or a generated point cloud (sometimes flat)."""
        name = self.name("m")
        m: dict[str, str] = {"name": name}
        if self.chance(0.35):
            f = self.pick(MESH_FILES)
            m["file"] = f
            s = self.size() / self.mesh_radius[f]
            m["scale"] = fmt(s, s, s) if self.chance(0.7) else fmt(*(s * self.rng.uniform(0.3, 1.5, 3)))
        else:
            n = int(self.rng.integers(4, 24))
            shape = self.pick(["ball", "box", "flat", "needle"], [4, 3, 1, 1])
            r = self.size()
            pts = self.rng.normal(size=(n, 3))
            if shape == "ball":
                pts = r * pts / np.linalg.norm(pts, axis=1, keepdims=True)
            elif shape == "box":
                pts = r * np.sign(pts) * self.rng.uniform(0.3, 1, 3)
            elif shape == "flat":
                pts = r * pts * [1, 1, self.pick([0.0, 1e-3, 0.02])]
            else:
                pts = r * pts * [1, 0.05, 0.05]
            if self.chance(0.3):  # integer-ish coordinates: coplanar faces, duplicate points
                pts = np.round(pts / r * 2) * r / 2
            m["vertex"] = " ".join(fmt(*p) for p in pts)
        self.scene["meshes"].append(m)
        return name

    def hfield(self) -> str:
        name = self.name("h")
        nrow, ncol = int(self.rng.integers(2, 7)), int(self.rng.integers(2, 7))
        data = self.rng.uniform(0, 1, nrow * ncol)
        if self.chance(0.3):
            data = np.round(data * 2) / 2  # flat cells and ridges
        rx, ry = self.rng.uniform(0.1, 0.5, 2)
        self.scene["hfields"].append({
            "name": name, "nrow": str(nrow), "ncol": str(ncol),
            "size": fmt(rx, ry, self.rng.uniform(0.01, 0.2), self.rng.uniform(0.01, 0.1)),
            "elevation": fmt(*data)})
        return name

    def geom(self, static: bool, gtype: str | None = None, pos: list[float] | None = None) -> dict[str, Any]:
        weights = {"sphere": 3, "capsule": 3, "ellipsoid": 2, "cylinder": 2, "box": 3,
                   "mesh": 3, "plane": 1.5 if static else 0.1, "hfield": 1 if static else 0.1}
        if gtype is None:
            gtype = self.pick(list(weights), list(weights.values()))
        a: dict[str, str] = {"name": self.name("g"), "type": gtype}
        a["pos"] = fmt(*(pos if pos is not None else self.vec(0.12)))
        if gtype == "sphere":
            a["size"] = fmt(self.size())
        elif gtype in ("capsule", "cylinder"):
            if self.chance(0.25):
                p = np.array([float(x) for x in a.pop("pos").split()])
                a["fromto"] = fmt(*p, *(p + self.vec(0.2)))
                a["size"] = fmt(self.size())
            else:
                a["size"] = fmt(self.size(), self.size())
        elif gtype in ("ellipsoid", "box"):
            if self.chance(0.15):
                p = np.array([float(x) for x in a.pop("pos").split()])
                a["fromto"] = fmt(*p, *(p + self.vec(0.2)))
                a["size"] = fmt(self.size(), self.size())
            else:
                a["size"] = fmt(self.size(), self.size(), self.size())
        elif gtype == "plane":
            a["size"] = self.pick(["0 0 1", fmt(self.size() * 3, self.size() * 3, 0.1)])
        elif gtype == "mesh":
            a["mesh"] = self.mesh() if (self.chance(0.6) or not self.scene["meshes"]) else \
                self.pick(self.scene["meshes"])["name"]
        elif gtype == "hfield":
            a["hfield"] = self.hfield()
        if "fromto" not in a:
            self.orientation(a)
        self.contact_attrs(a)
        if self.scene["defaults"] and self.chance(0.3):
            a["class"] = self.pick(self.scene["defaults"])["class"]
        return {"attrs": a, "frame": self.frame() if self.chance(0.1) else None}

    def frame(self) -> dict[str, str]:
        f = {"pos": fmt(*self.vec(0.05))}
        self.orientation(f, 0.7)
        return f

    def body(self, depth: int, pos: list[float] | None = None) -> dict[str, Any]:
        a: dict[str, str] = {"name": self.name("b")}
        a["pos"] = fmt(*(pos if pos is not None else (
            [*self.rng.uniform(-0.25, 0.25, 2), self.rng.uniform(0.0, 0.4)] if depth == 0
            else self.vec(0.15))))
        self.orientation(a, 0.3)
        if self.scene["defaults"] and self.chance(0.2):
            a["childclass"] = self.pick(self.scene["defaults"])["class"]
        joints = []
        if depth == 0 and self.chance(0.5):
            joints.append({"type": "free"})
        elif self.chance(0.85):
            for _ in range(int(self.rng.integers(1, 3))):
                t = self.pick(["hinge", "slide", "ball"], [4, 2, 1])
                j: dict[str, str] = {"type": t}
                if t != "ball":
                    j["axis"] = fmt(*self.rng.normal(size=3)) if self.chance(0.5) else \
                        self.pick(["1 0 0", "0 1 0", "0 0 1"])
                if self.chance(0.3):
                    j["pos"] = fmt(*self.vec(0.1))
                if t == "slide":
                    j["range"] = fmt(-0.1, 0.1)
                    j["limited"] = "true"
                joints.append(j)
                if t == "ball":
                    break
        for j in joints:
            j["name"] = self.name("j")
        geoms = [self.geom(False) for _ in range(int(self.rng.integers(1, 3)))]
        children = [self.body(depth + 1) for _ in range(int(self.rng.integers(0, 2)))] \
            if depth < 2 and self.chance(0.4) else []
        return {"attrs": a, "joints": joints, "geoms": geoms, "children": children,
                "frame": self.frame() if depth > 0 and self.chance(0.1) else None}

    def free_body(self, geom: dict[str, Any], pos: list[float], joint: bool = True) -> dict[str, Any]:
        """A body holding `geom` at its origin: exact placements."""
        a = {"name": self.name("b"), "pos": fmt(*pos)}
        joints = [{"type": "free", "name": self.name("j")}] if joint else []
        return {"attrs": a, "joints": joints, "geoms": [geom], "children": [], "frame": None}

    def exact_case(self) -> None:
        """A placement where faces, edges or centres coincide."""
        s = self.scene
        kind = self.pick(["box_on_plane", "face_on_face", "coincident", "parallel_capsules",
                          "cylinder_on_plane", "sphere_on_plane", "edge_on_edge"])
        x, y = self.rng.uniform(-0.3, 0.3, 2)
        if kind in ("box_on_plane", "cylinder_on_plane", "sphere_on_plane"):
            if not any(g["attrs"]["type"] == "plane" for g in s["world"]):
                s["world"].append({"attrs": {"name": self.name("g"), "type": "plane",
                                             "size": "0 0 1"}, "frame": None})
            t = kind.split("_")[0]
            g = self.geom(False, t, [0, 0, 0])
            g["attrs"].pop("euler", None)
            for k in ("quat", "axisangle", "zaxis", "xyaxes", "fromto"):
                g["attrs"].pop(k, None)
            sz = [float(v) for v in g["attrs"]["size"].split()]
            if t == "sphere":
                h = sz[0]
            elif t == "cylinder":
                h = sz[1] if len(sz) > 1 else sz[0]
                g["attrs"]["size"] = fmt(sz[0], h)
            else:
                h = sz[2] if len(sz) > 2 else sz[0]
                g["attrs"]["size"] = fmt(sz[0], sz[1] if len(sz) > 1 else sz[0], h)
            g["attrs"]["pos"] = "0 0 0"
            if self.chance(0.5):
                g["attrs"]["euler"] = fmt(0, 0, self.rng.uniform(-180, 180))
            s["bodies"].append(self.free_body(g, [x, y, h - self.pick([0.0, 0.0, 1e-3, -1e-3])]))
        elif kind in ("face_on_face", "edge_on_edge"):
            g1 = self.geom(False, "box", [0, 0, 0])
            g2 = self.geom(False, "box", [0, 0, 0])
            for g in (g1, g2):
                for k in ("euler", "quat", "axisangle", "zaxis", "xyaxes", "fromto"):
                    g["attrs"].pop(k, None)
                g["attrs"]["size"] = fmt(self.size(), self.size(), self.size())
            if self.chance(0.4):
                g2["attrs"]["size"] = g1["attrs"]["size"]
            h1 = float(g1["attrs"]["size"].split()[2])
            h2 = float(g2["attrs"]["size"].split()[2])
            z = 0.2
            s["bodies"].append(self.free_body(g1, [x, y, z], joint=self.chance(0.5)))
            top = [x, y, z + h1 + h2 - self.pick([0.0, 1e-4, -1e-4])]
            if kind == "edge_on_edge":
                w1, w2 = float(g1["attrs"]["size"].split()[0]), float(g2["attrs"]["size"].split()[0])
                top[0] += w1 + w2
                g2["attrs"]["euler"] = self.pick(["45 0 0", "0 0 45", "0 45 0"])
            s["bodies"].append(self.free_body(g2, top))
        elif kind == "coincident":
            p = [x, y, float(self.rng.uniform(0, 0.3))]
            s["bodies"].append(self.free_body(self.geom(False, None, [0, 0, 0]), p))
            s["bodies"].append(self.free_body(self.geom(False, None, [0, 0, 0]), p))
        else:  # parallel capsules (or cylinders), touching or overlapping
            t = self.pick(["capsule", "cylinder"], [3, 1])
            r1, r2, hl = self.size(), self.size(), self.size()
            g1 = {"attrs": {"name": self.name("g"), "type": t, "size": fmt(r1, hl),
                            "pos": "0 0 0", "euler": "0 90 0"}, "frame": None}
            g2 = {"attrs": {"name": self.name("g"), "type": t,
                            "size": fmt(r2, self.pick([hl, self.size()])),
                            "pos": "0 0 0", "euler": "0 90 0"}, "frame": None}
            d = (r1 + r2) * self.pick([1.0, 0.9, 0.5, 0.0])
            s["bodies"].append(self.free_body(g1, [x, y, 0.3]))
            s["bodies"].append(self.free_body(g2, [x + self.pick([0, 0.01, hl]), y, 0.3 + d]))

    def build(self) -> Scene:
        s = self.scene
        rng = self.rng
        for _ in range(int(rng.integers(0, 3))):
            d: dict[str, str] = {}
            self.contact_attrs(d)
            s["defaults"].append({"class": self.name("c"), "geom": d})
        if self.chance(0.8):
            s["world"].append({"attrs": {"name": self.name("g"), "type": "plane",
                                         "size": self.pick(["0 0 1", "1 1 0.1"])}, "frame": None})
        for _ in range(int(rng.integers(0, 3))):
            s["world"].append(self.geom(True))
        for _ in range(int(rng.integers(1, 5))):
            s["bodies"].append(self.body(0))
        for _ in range(int(rng.integers(0, 3))):
            self.exact_case()
        # options and flags
        if self.chance(0.3):
            s["flag"]["filterparent"] = "disable"
        if self.chance(0.3):
            s["flag"]["nativeccd"] = "disable"
        if self.chance(0.3):
            s["flag"]["multiccd"] = "disable"  # on by default in 4.0.0
        if self.chance(0.05):
            s["flag"]["contact"] = "disable"
        if self.chance(0.1):
            s["flag"]["override"] = "enable"
            s["option"]["o_margin"] = fmt(self.pick([0.0, 0.01, 0.1]))
            if self.chance(0.5):
                s["option"]["o_solref"] = fmt(0.03, 1.2)
                s["option"]["o_solimp"] = fmt(0.8, 0.9, 0.002, 0.5, 2)
                s["option"]["o_friction"] = fmt(0.7, 0.7, 0.01, 0.002, 0.002)
        if self.chance(0.2):
            s["option"]["ccd_iterations"] = str(self.pick([1, 5, 20, 100]))
        if self.chance(0.2):
            s["option"]["ccd_tolerance"] = fmt(self.pick([1e-2, 1e-4, 1e-8]))
        # explicit pairs and excludes
        geoms = [g["attrs"]["name"] for g in all_geoms(s)]
        bodies = ["world"] + [b["attrs"]["name"] for b in all_bodies(s)]
        for _ in range(int(rng.integers(0, 3)) if len(geoms) > 1 else 0):
            g1, g2 = rng.choice(len(geoms), 2, replace=False)
            p = {"geom1": geoms[g1], "geom2": geoms[g2]}
            if self.chance(0.4):
                p["condim"] = str(self.pick([1, 3, 4, 6]))
            if self.chance(0.4):
                p["margin"] = fmt(self.pick([0.0, 0.01, 0.05]))
            if self.chance(0.2):
                p["gap"] = fmt(self.pick([0.0, 0.005]))
            if self.chance(0.3):
                p["friction"] = fmt(*rng.uniform(0.1, 1, 5))
            if self.chance(0.2):
                p["solref"] = fmt(0.01, 0.8)
            if self.chance(0.2):
                p["solreffriction"] = fmt(0.02, 1)
            if self.chance(0.2):
                p["solimp"] = fmt(0.85, 0.97, 0.002, 0.4, 3)
            s["pairs"].append(p)
        for _ in range(int(rng.integers(0, 2)) if len(bodies) > 2 else 0):
            b1, b2 = rng.choice(len(bodies), 2, replace=False)
            s["excludes"].append({"body1": bodies[b1], "body2": bodies[b2]})
        return s


def walk_bodies(bodies: list[dict[str, Any]]):  # type: ignore[no-untyped-def]
    for b in bodies:
        yield b
        yield from walk_bodies(b["children"])


def all_bodies(s: Scene) -> list[dict[str, Any]]:
    return list(walk_bodies(s["bodies"]))


def all_geoms(s: Scene) -> list[dict[str, Any]]:
    return s["world"] + [g for b in all_bodies(s) for g in b["geoms"]]


# ---------------------------------------------------------------------------------------------
# MJCF text
# ---------------------------------------------------------------------------------------------

def tag(name: str, attrs: dict[str, str], body: str = "", ind: str = "") -> str:
    a = "".join(f" {k}={quoteattr(v)}" for k, v in attrs.items())
    return f"{ind}<{name}{a}/>\n" if not body else f"{ind}<{name}{a}>\n{body}{ind}</{name}>\n"


def in_frame(item: dict[str, Any], text: str, ind: str) -> str:
    if item.get("frame") is None:
        return text
    inner = "".join("  " + line + "\n" for line in text.splitlines())
    return tag("frame", item["frame"], inner, ind)


def render_body(b: dict[str, Any], ind: str) -> str:
    inner = "".join(tag("joint", j, ind=ind + "  ") for j in b["joints"])
    inner += "".join(in_frame(g, tag("geom", g["attrs"], ind=ind + "  "), ind + "  ") for g in b["geoms"])
    inner += "".join(render_body(c, ind + "  ") for c in b["children"])
    return in_frame(b, tag("body", b["attrs"], inner, ind), ind)


def render(s: Scene, comment: str = "", key: np.ndarray | None = None) -> str:
    out = f"<mujoco model=\"scene_fuzz\">\n"
    if comment:
        out += "<!--\n" + comment.replace("--", "- -") + "\n-->\n"
    opt = "".join(tag("flag", s["flag"], ind="    ")) if s["flag"] else ""
    out += tag("option", s["option"], opt, "  ")
    if s["defaults"]:
        out += tag("default", {}, "".join(
            tag("default", {"class": d["class"]}, tag("geom", d["geom"], ind="      "), "    ")
            for d in s["defaults"]), "  ")
    assets = "".join(tag("mesh", m, ind="    ") for m in s["meshes"])
    assets += "".join(tag("hfield", h, ind="    ") for h in s["hfields"])
    if assets:
        out += tag("asset", {}, assets, "  ")
    world = "".join(in_frame(g, tag("geom", g["attrs"], ind="    "), "    ") for g in s["world"])
    world += "".join(render_body(b, "    ") for b in s["bodies"])
    out += tag("worldbody", {}, world or "    <!-- empty -->\n", "  ")
    contact = "".join(tag("pair", p, ind="    ") for p in s["pairs"])
    contact += "".join(tag("exclude", e, ind="    ") for e in s["excludes"])
    if contact:
        out += tag("contact", {}, contact, "  ")
    if key is not None and len(key):
        out += tag("keyframe", {}, tag("key", {"qpos": " ".join(repr(float(x)) for x in key)}, ind="    "), "  ")
    return out + "</mujoco>\n"


def mesh_assets(s: Scene) -> dict[str, bytes]:
    return {m["file"]: (ASSETS / m["file"]).read_bytes() for m in s["meshes"] if "file" in m}


# ---------------------------------------------------------------------------------------------
# comparison
# ---------------------------------------------------------------------------------------------

class Tally:
    """Figures of a run: per pair kind (`box-capsule`) pairs and contacts compared, and
    failures by kind."""

    def __init__(self) -> None:
        self.scenes = self.loaded = self.both_refuse = self.semantic = self.states = 0
        self.mujoco_fatal: list[str] = []
        self.pairs = Counter[str]()
        self.contacts = Counter[str]()
        self.mismatch_pairs = Counter[str]()
        self.failures = Counter[str]()
        self.convex_found = self.convex_count_equal = 0


def pair_kind(gt: np.ndarray, k: tuple[int, int]) -> str:
    return "-".join(sorted((TYPE_NAMES[int(gt[k[0]])], TYPE_NAMES[int(gt[k[1]])]),
                           key=TYPE_NAMES.index))


ERROR_KINDS = [("analytic pair order", "analytic-order"), ("missing", "analytic-missing"),
               ("extra pair", "analytic-extra"), ("contacts vs", "analytic-count"),
               ("dist err", "analytic-value"), ("parameters differ", "analytic-params")]


def classify(err: str) -> str:
    return next(k for s, k in ERROR_KINDS if s in err)


def to_named(mjm: Any, q: np.ndarray) -> dict[str, list[float]]:
    """qpos by joint name (survives minimisation, which removes joints)."""
    out = {}
    for j in range(mjm.njnt):
        a = int(mjm.jnt_qposadr[j])
        n = {0: 7, 1: 4}.get(int(mjm.jnt_type[j]), 1)
        out[mujoco.mj_id2name(mjm, mujoco.mjtObj.mjOBJ_JOINT, j)] = [float(x) for x in q[a:a + n]]
    return out


def from_named(mjm: Any, named: dict[str, list[float]]) -> np.ndarray:
    q = mjm.qpos0.copy()
    for j in range(mjm.njnt):
        v = named.get(mujoco.mj_id2name(mjm, mujoco.mjtObj.mjOBJ_JOINT, j))
        if v is not None:
            a = int(mjm.jnt_qposadr[j])
            q[a:a + len(v)] = v
    return q


Failure = tuple[str, str, int]  # kind, message, state

# MuJoCo's refusals that do not bear on collision, which collide deliberately does not repeat
# (README, "MJCF coverage": massless moving bodies): counted, not failures.
SEMANTIC_REFUSALS = ["mass and inertia of moving bodies must be larger than mjMINVAL",
                     "inertia must have positive eigenvalues"]


def solver_tag(s: Scene) -> str:
    """`~mpr`, `~tol`, `~iter`, `~nomulti` for the convex solver settings a scene changes from
    MuJoCo's defaults (`nativeccd` off, `ccd_tolerance`, `ccd_iterations`, `multiccd` off), so
    that convex failures under default settings stand apart."""
    tags = [("mpr", s["flag"].get("nativeccd") == "disable"),
            ("tol", "ccd_tolerance" in s["option"]), ("iter", "ccd_iterations" in s["option"]),
            ("nomulti", s["flag"].get("multiccd") == "disable")]
    return "".join(f"~{t}" for t, on in tags if on)


def check(s: Scene, nstates: int, seed: int, tally: Tally | None = None,
          named_states: list[dict[str, list[float]]] | None = None) -> tuple[list[Failure], list[Any]]:
    """Compares one scene; failures (kind, message, state index) and the states by joint name."""
    xml = render(s)
    assets = mesh_assets(s)
    try:
        mjm = mujoco.MjModel.from_xml_string(xml, assets)
    except Exception as e:
        try:
            collide.Model.from_xml_string(xml, assets)
        except BaseException as e2:  # noqa: BLE001  (a panic is a failure)
            if type(e2).__name__ == "PanicException":
                return [("panic", str(e2), 0)], []
            if tally:
                tally.both_refuse += 1
            return [], []
        if any(r in str(e) for r in SEMANTIC_REFUSALS):
            if tally:
                tally.semantic += 1
            return [], []
        return [("accepts-what-mujoco-refuses", " ".join(str(e).split())[:200], 0)], []
    try:
        model = collide.Model.from_xml_string(xml, assets)
    except BaseException as e:  # noqa: BLE001
        kind = "panic" if type(e).__name__ == "PanicException" else "refuses-what-mujoco-loads"
        return [(kind, " ".join(str(e).split())[:300], 0)], []
    if (model.ngeom, model.nq, model.nbody) != (mjm.ngeom, mjm.nq, mjm.nbody):
        return [("model-size", f"ngeom/nq/nbody {(model.ngeom, model.nq, model.nbody)} vs "
                 f"MuJoCo's {(mjm.ngeom, mjm.nq, mjm.nbody)}", 0)], []
    if named_states is None:
        rng = np.random.default_rng(seed)
        qs = [mjm.qpos0.copy()] + [random_qpos(mjm, rng) for _ in range(nstates)]
        named_states = [to_named(mjm, q) for q in qs]
    else:
        qs = [from_named(mjm, n) for n in named_states]
    return compare(mjm, model, qs, tally, solver_tag(s)), named_states


def compare(mjm: Any, model: collide.Model, qs: list[np.ndarray], tally: Tally | None,
            tag: str = "") -> list[Failure]:
    """Failures of collide's contacts against MuJoCo's at configurations `qs` (one collider
    over the batch, as `Collider.detect` runs it); `tag` ([`solver_tag`]) goes into the kinds
    of convex failures."""
    try:
        res = collide.Collider(model).detect(np.array(qs))
    except BaseException as e:  # noqa: BLE001
        return [("panic" if type(e).__name__ == "PanicException" else "detect-error", str(e), 0)]
    gt = model.geom_type
    gm, gg = model.geom_margin, model.geom_gap
    analytic = lambda k: collide._core._is_analytic(int(gt[k[0]]), int(gt[k[1]]))  # noqa: E731
    fails: list[Failure] = []
    if tally:
        tally.loaded += 1
        tally.states += len(qs)
    for i, q in enumerate(qs):
        try:
            theirs = tc.mujoco_contacts(mjm, q, None, None)
        except mujoco.FatalError as e:  # MuJoCo's own failure: recorded, not collide's
            if tally:
                tally.mujoco_fatal.append(str(e))
            return fails
        ours = res.world(i)
        key = lambda r: (int(r["geom"][0]), int(r["geom"][1]))  # noqa: E731
        if tally:
            for k in {c["geom"] for c in theirs}:
                tally.pairs[pair_kind(gt, k)] += 1
            for c in theirs:
                tally.contacts[pair_kind(gt, c["geom"])] += 1
        # analytic pairs: the corpus's state comparison, on the whole state (order matters)
        conv = tc.ConvexReport()
        for e in tc.compare_state(model, i, [r for r in ours if analytic(key(r))],
                                  [c for c in theirs if analytic(c["geom"])], conv):
            m = re.search(r"\((\d+), (\d+)\)", e)
            kind = classify(e)
            if m and kind != "analytic-order":
                kind += ":" + pair_kind(gt, (int(m.group(1)), int(m.group(2))))
            fails.append((kind, e, i))
        # convex pairs, one by one
        keys = {c["geom"] for c in theirs if not analytic(c["geom"])} | \
            {key(r) for r in ours if not analytic(key(r))}
        for k in sorted(keys):
            conv = tc.ConvexReport()
            tc.compare_state(model, i, [r for r in ours if key(r) == k],
                             [c for c in theirs if c["geom"] == k], conv)
            pk = pair_kind(gt, k)
            what = []
            if conv.pairs and not conv.found and not conv.missing_touching:
                what.append("missing")
            if conv.extra:
                what.append("extra")
            if conv.max_dist_err > 1e-6:
                what.append(f"dist err {conv.max_dist_err:.1e}")
            if conv.max_normal_err > 1e-3:
                what.append(f"normal err {conv.max_normal_err:.1e}")
            if conv.max_pos_err > tc.CONVEX_POS_TOL:
                what.append(f"pos err {conv.max_pos_err:.1e}")
            if tally and conv.found:
                tally.convex_found += 1
                tally.convex_count_equal += conv.count_equal
            if what:
                thr = gm[k[0]] + gm[k[1]] + gg[k[0]] + gg[k[1]]
                mjd = min((c["dist"] for c in theirs if c["geom"] == k), default=None)
                usd = min((float(r["dist"]) for r in ours if key(r) == k), default=None)
                fails.append((f"convex{tag}-{what[0].split()[0]}:{pk}",
                              f"state {i}: pair {k} ({pk}): {', '.join(what)}; MuJoCo dist {mjd}, "
                              f"ours {usd}, threshold {thr}", i))
    fails += check_exact(model, qs, res)
    if tally:
        for kind, _, _ in fails:
            tally.mismatch_pairs[kind.split(":")[-1]] += 1
    return fails


def check_exact(model: collide.Model, qs: list[np.ndarray], hull: Any) -> list[Failure]:
    """The exact mesh path (`mesh_collision="exact"`) on a scene with meshes: no crash, every
    number finite, unit normals, and pairs without a mesh or sdf geom exactly the hull path's
    contacts (the option changes mesh pairs only)."""
    gt = model.geom_type
    if not any(int(t) in MESH_LIKE for t in gt):
        return []
    try:
        ex = collide.Collider(model, mesh_collision="exact").detect(np.array(qs))
    except BaseException as e:  # noqa: BLE001
        kind = "panic" if type(e).__name__ == "PanicException" else "exact-error"
        return [(kind, str(e), 0)]
    fails: list[Failure] = []
    meshy = lambda r: int(gt[r["geom"][0]]) in MESH_LIKE or int(gt[r["geom"][1]]) in MESH_LIKE  # noqa: E731
    for i in range(len(qs)):
        ours = ex.world(i)
        for r in ours:
            if not (np.isfinite(r["dist"]) and np.isfinite(r["pos"]).all()
                    and np.isfinite(r["frame"]).all()):
                fails.append(("exact-nonfinite", f"state {i}: pair {tuple(r['geom'])}", i))
            elif abs(np.linalg.norm(r["frame"][:3]) - 1.0) > 1e-9:
                fails.append(("exact-normal", f"state {i}: pair {tuple(r['geom'])}", i))
        plain = [r.tobytes() for r in ours if not meshy(r)]
        if plain != [r.tobytes() for r in hull.world(i) if not meshy(r)]:
            fails.append(("exact-changed-non-mesh-pairs", f"state {i}", i))
    return fails


def replay(path: Path) -> list[Failure]:
    """Failures of one MJCF file (a kept scene) at its first keyframe, or qpos0."""
    mjm = mujoco.MjModel.from_xml_path(str(path))
    model = collide.Model.from_xml_path(str(path))
    return compare(mjm, model, [mjm.key_qpos[0].copy() if mjm.nkey else mjm.qpos0.copy()], None)


# ---------------------------------------------------------------------------------------------
# minimisation
# ---------------------------------------------------------------------------------------------

def reductions(s: Scene):  # type: ignore[no-untyped-def]
    """Smaller variants of `s`, biggest cuts first."""
    def without(path: Callable[[Scene], list[Any]], i: int) -> Scene:
        t = copy.deepcopy(s)
        del path(t)[i]
        return t

    lists: list[Callable[[Scene], list[Any]]] = [lambda t: t["bodies"], lambda t: t["world"],
                                                  lambda t: t["pairs"], lambda t: t["excludes"]]
    for b in range(len(all_bodies(s))):
        lists.append(lambda t, b=b: all_bodies(t)[b]["children"])
        lists.append(lambda t, b=b: all_bodies(t)[b]["geoms"])
        lists.append(lambda t, b=b: all_bodies(t)[b]["joints"])
    for path in lists:
        for i in range(len(path(s)) - 1, -1, -1):
            yield without(path, i)
    for key in ("option", "flag"):
        for k in list(s[key]):
            t = copy.deepcopy(s)
            del t[key][k]
            yield t
    for g in range(len(all_geoms(s))):
        for k in list(all_geoms(s)[g]["attrs"]):
            if k not in ("name", "type", "size", "mesh", "hfield", "fromto", "pos"):
                t = copy.deepcopy(s)
                del all_geoms(t)[g]["attrs"][k]
                yield t
        if all_geoms(s)[g]["frame"] is not None:
            t = copy.deepcopy(s)
            all_geoms(t)[g]["frame"] = None
            yield t
    for i in range(len(s["defaults"])):
        t = copy.deepcopy(s)
        t["defaults"][i]["geom"] = {}
        if s["defaults"][i]["geom"]:
            yield t


def prune(s: Scene) -> Scene:
    """Drops pairs/excludes naming removed geoms or bodies, and unused assets and classes."""
    geoms = {g["attrs"]["name"] for g in all_geoms(s)}
    bodies = {"world"} | {b["attrs"]["name"] for b in all_bodies(s)}
    s["pairs"] = [p for p in s["pairs"] if p["geom1"] in geoms and p["geom2"] in geoms]
    s["excludes"] = [e for e in s["excludes"] if e["body1"] in bodies and e["body2"] in bodies]
    used = {g["attrs"].get("mesh") for g in all_geoms(s)} | {g["attrs"].get("hfield") for g in all_geoms(s)}
    s["meshes"] = [m for m in s["meshes"] if m["name"] in used]
    s["hfields"] = [h for h in s["hfields"] if h["name"] in used]
    return s


def minimise(s: Scene, kind: str, named: dict[str, list[float]], seed: int) -> Scene:
    """The smallest scene found (greedy, one cut at a time) failing with the same kind at the
    failing configuration."""
    def fails(t: Scene) -> bool:
        try:
            f, _ = check(t, 0, seed, None, [named])
        except Exception:  # noqa: BLE001
            return False
        return any(k == kind for k, _, _ in f)

    progress = True
    while progress:
        progress = False
        for t in reductions(s):
            t = prune(t)
            if fails(t):
                s, progress = t, True
                break
    return s


# ---------------------------------------------------------------------------------------------
# CLI
# ---------------------------------------------------------------------------------------------

def mesh_radii() -> dict[str, float]:
    out = {}
    for f in MESH_FILES:
        m = mujoco.MjModel.from_xml_string(
            f'<mujoco><asset><mesh name="m" file="{f}"/></asset></mujoco>',
            {f: (ASSETS / f).read_bytes()})
        out[f] = float(np.abs(m.mesh_vert).max())
    return out


def scene_for(seed: int, index: int, radii: dict[str, float]) -> Scene:
    return Gen(np.random.default_rng([seed, index]), radii).build()


def run(seed: int, count: int, nstates: int = 4, keep: Path | None = None,
        progress: bool = True, start: int = 0) -> tuple[Tally, list[tuple[int, Failure]]]:
    """Compares scenes `start .. start + count` of `seed` (each scene is seeded by its index, so
    any range reproduces the same scenes)."""
    assert mujoco.__version__ == "4.0.0", mujoco.__version__
    radii = mesh_radii()
    tally = Tally()
    failures: list[tuple[int, Failure]] = []
    t0 = time.time()
    for i in range(start, start + count):
        s = scene_for(seed, i, radii)
        tally.scenes += 1
        try:
            fails, named = check(s, nstates, seed * 1_000_003 + i, tally)
        except Exception as e:  # noqa: BLE001  (a Python crash of the comparison)
            fails, named = [("python-crash", f"{type(e).__name__}: {e}", 0)], []
        for kind in sorted({f[0] for f in fails}):
            tally.failures[kind] += 1
            f = next(f for f in fails if f[0] == kind)
            failures.append((i, f))
            if keep is not None:
                keep.mkdir(parents=True, exist_ok=True)
                st = named[f[2]] if named else {}
                small = minimise(s, kind, st, seed) if named else s
                mjm = None
                try:
                    mjm = mujoco.MjModel.from_xml_string(render(small), mesh_assets(small))
                except Exception:  # noqa: BLE001
                    pass
                q = from_named(mjm, st) if mjm is not None else None
                out = keep / f"{seed}-{i}-{kind.replace(':', '-')}.xml"
                note = (f"scene_fuzz --seed {seed}: scene {i}, {kind}\n{f[1]}\n"
                        "the failing configuration is the keyframe")
                out.write_text(render(small, note, q))
                for name in mesh_assets(small):
                    shutil.copy(ASSETS / name, keep / name)
        if progress:
            print(f"\rscene {i + 1}/{start + count}  states {tally.states}  pairs {sum(tally.pairs.values())}  "
                  f"contacts {sum(tally.contacts.values())}  failing scenes {len({j for j, _ in failures})}  "
                  f"{time.time() - t0:.0f} s", end="", file=sys.stderr, flush=True)
    if progress:
        print(file=sys.stderr)
    return tally, failures


def summary(t: Tally, failures: list[tuple[int, Failure]]) -> str:
    lines = [f"{t.scenes} scenes ({t.loaded} compared, {t.both_refuse} refused by both, "
             f"{t.semantic} refused by MuJoCo only for massless or singular bodies), "
             f"{t.states} states, {sum(t.pairs.values())} MuJoCo contact pairs, "
             f"{sum(t.contacts.values())} MuJoCo contacts; convex pairs with equal counts "
             f"{t.convex_count_equal}/{t.convex_found}"]
    lines.append(f"  {'pair kind':<20} {'pairs':>7} {'contacts':>9} {'mismatches':>10}")
    for k in sorted(set(t.pairs) | set(t.mismatch_pairs), key=lambda k: -t.pairs[k]):
        lines.append(f"  {k:<20} {t.pairs[k]:>7} {t.contacts[k]:>9} {t.mismatch_pairs[k]:>10}")
    if t.mujoco_fatal:
        lines.append(f"MuJoCo itself failed in {len(t.mujoco_fatal)} scenes (not compared further): "
                     + "; ".join(sorted(set(t.mujoco_fatal))))
    lines.append(f"failures by kind ({len(failures)} in {len({i for i, _ in failures})} scenes):"
                 + ("" if failures else " none"))
    for k, n in sorted(t.failures.items()):
        lines.append(f"  {k}: {n}")
    for i, (kind, msg, _) in failures[:30]:
        lines.append(f"  scene {i}: {kind}: {msg[:200]}")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--count", type=int, default=100, help="scenes")
    ap.add_argument("--start", type=int, default=0, help="first scene index (e.g. to rerun one "
                    "failing scene: --start N --count 1)")
    ap.add_argument("--states", type=int, default=4, help="random configurations besides qpos0")
    ap.add_argument("--keep", type=Path, help="write failing scenes, minimised, here")
    ap.add_argument("--show", type=int, help="print scene N's MJCF and exit")
    ap.add_argument("--replay", type=Path, nargs="+", help="compare these MJCF files at their "
                    "first keyframe (kept scenes) instead")
    args = ap.parse_args()
    if args.replay:
        bad = 0
        for f in args.replay:
            fails = replay(f)
            bad += bool(fails)
            print(f"{f}: {'ok' if not fails else fails[0][0] + ': ' + fails[0][1]}")
        sys.exit(1 if bad else 0)
    if args.show is not None:
        print(render(scene_for(args.seed, args.show, mesh_radii())))
        return
    tally, failures = run(args.seed, args.count, args.states, args.keep,
                               start=args.start)
    print(summary(tally, failures))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
