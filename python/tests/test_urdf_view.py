"""URDF models from Python (`Model.from_xml_path("robot.urdf", package_dirs=...)`, pickling
by source with the meshes) and the viewer (`collide.view` to HTML, `collide.render` to PNG)."""

from __future__ import annotations

import base64
import json
import pickle
import re
import shutil
import struct
import subprocess
import zlib
from pathlib import Path

import numpy as np
import pytest

import collide

from .conftest import CONF, CORPUS, HUMANOID, corpus_path, random_states
from .test_conformance import cli_binary

ERD = CONF / "corpus/urdf/example-robot-data/robots"
UR5 = ERD / "ur_description/urdf/ur5_robot.urdf"


def cli_contacts(path: Path, q: np.ndarray, tmp: Path) -> list[list[tuple[int, int, float]]]:
    (tmp / "s.json").write_text(json.dumps({"states": [{"qpos": r.tolist()} for r in q]}))
    out = subprocess.run(
        [str(cli_binary()), "contacts", str(path), "--states", str(tmp / "s.json")],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return [[(c["geom1"], c["geom2"], c["dist"]) for c in s["contacts"]] for s in json.loads(out)["states"]]


def our_contacts(m: collide.Model, q: np.ndarray) -> list[list[tuple[int, int, float]]]:
    res = collide.Collider(m, 1).detect(q)
    return [[(int(r["geom"][0]), int(r["geom"][1]), float(r["dist"])) for r in res.world(i)] for i in range(len(q))]


@pytest.mark.parametrize(
    "name", ["urdf/erd/ur5_robot", "urdf/erd/panda_collision", "urdf/franka_panda/panda", "urdf/r2d2"]
)
def test_urdf_loads_like_the_cli_and_pickles_with_its_meshes(name: str, tmp_path: Path) -> None:
    entry = next(e for e in CORPUS if e["name"] == name)
    path = corpus_path(entry)
    m = collide.Model.from_xml_path(path)
    assert (m.ngeom, m.nbody) == (entry["ngeom"], entry["nbody"])
    q = random_states(m, 12, seed=1)
    want = cli_contacts(path, q, tmp_path)
    assert our_contacts(m, q) == want
    # pickled by source: the URDF text and every mesh read, recompiled without the disk
    blob = pickle.dumps(m)
    if entry["has_mesh"]:
        assert len(blob) > len(path.read_bytes()) + 1000
    m2 = pickle.loads(blob)
    assert our_contacts(m2, q) == want
    np.testing.assert_array_equal(m2.geom_size, m.geom_size)


def test_package_dirs_maps_package_urls(tmp_path: Path) -> None:
    # the UR5 URDF moved away from its package tree: package:// no longer resolves by the
    # folder-tree search, only through package_dirs
    text = UR5.read_text()
    assert "package://example-robot-data/robots/ur_description/" in text
    moved = tmp_path / "ur5.urdf"
    moved.write_text(text)
    with pytest.raises(collide.ModelError):
        collide.Model.from_xml_path(moved)
    m = collide.Model.from_xml_path(moved, package_dirs={"example-robot-data": CONF / "corpus/urdf/example-robot-data"})
    ref = collide.Model.from_xml_path(UR5)
    np.testing.assert_array_equal(m.geom_aabb, ref.geom_aabb)
    q = random_states(m, 8, seed=3)
    assert our_contacts(m, q) == our_contacts(ref, q)
    # the pickle carries the meshes: it loads after the package folder is gone
    copy = tmp_path / "pkg"
    shutil.copytree(ERD / "ur_description", copy / "robots/ur_description")
    m3 = collide.Model.from_xml_path(moved, package_dirs={"example-robot-data": str(copy)})
    blob = pickle.dumps(m3)
    shutil.rmtree(copy)
    assert our_contacts(pickle.loads(blob), q) == our_contacts(ref, q)


def test_bad_package_dirs_raise_input_error() -> None:
    with pytest.raises(collide.InputError, match="package_dirs"):
        collide.Model.from_xml_path(UR5, package_dirs=[("a", "b")])  # type: ignore[arg-type]
    with pytest.raises(collide.InputError, match="package name"):
        collide.Model.from_xml_path(UR5, package_dirs={"": "x"})
    with pytest.raises(collide.InputError, match="package_dirs"):
        collide.Model.from_xml_path(UR5, package_dirs={"a": 3})
    with pytest.raises(collide.InputError, match="URDF files only"):
        collide.Model.from_xml_path(HUMANOID, package_dirs={"a": "b"})


def png_pixels(png: bytes) -> np.ndarray:
    """RGB pixels of an 8-bit RGB, non-interlaced PNG (what the rasteriser writes)."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, w = 8, b"", 0
    while pos < len(png):
        n, kind = struct.unpack(">I4s", png[pos : pos + 8])
        body = png[pos + 8 : pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, color = struct.unpack(">IIBB", body[:10])
            assert (depth, color) == (8, 2)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = 3 * w + 1
    rows = []
    prev = bytearray(3 * w)
    for y in range(h):
        f, line = raw[y * stride], bytearray(raw[y * stride + 1 : (y + 1) * stride])
        for i in range(len(line)):
            a = line[i - 3] if i >= 3 else 0
            b = prev[i]
            c = prev[i - 3] if i >= 3 else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return np.frombuffer(b"".join(rows), dtype=np.uint8).reshape(h, w, 3)


def test_render_writes_a_png_of_the_scene(humanoid: collide.Model, tmp_path: Path) -> None:
    q = random_states(humanoid, 3, seed=5)
    out = tmp_path / "h.png"
    png = collide.render(humanoid, q, out, state=2, width=160, height=120)
    assert out.read_bytes() == png
    px = png_pixels(png)
    assert px.shape == (120, 160, 3)
    # not blank: many colours (shaded bodies, the checkerboard floor)
    assert len(np.unique(px.reshape(-1, 3), axis=0)) > 20
    # the CLI renders the same state to the same picture
    (tmp_path / "s.json").write_text(json.dumps({"states": [{"qpos": r.tolist()} for r in q]}))
    subprocess.run(
        [str(cli_binary()), "render", str(HUMANOID), "--states", str(tmp_path / "s.json"), "--state", "2",
         "--width", "160", "--height", "120", "-o", str(tmp_path / "cli.png")],
        check=True,
        capture_output=True,
    )
    np.testing.assert_array_equal(png_pixels((tmp_path / "cli.png").read_bytes()), px)
    # another state is another picture
    assert collide.render(humanoid, q, state=0, width=160, height=120) != png


def test_view_writes_a_self_contained_page_with_the_states(humanoid: collide.Model, tmp_path: Path) -> None:
    q = random_states(humanoid, 4, seed=7)
    out = tmp_path / "v.html"
    html = collide.view(humanoid, q, out, title="humanoid <4>")
    assert out.read_text(encoding="utf-8") == html
    assert "<title>humanoid &lt;4&gt; - collide viewer</title>" in html
    assert not re.search(r"""(src|href)=["']https?://""", html)  # nothing fetched
    # the embedded scene: the 4 states' poses and contacts
    m = re.search(r'<script type="application/json" id="scene-data">(.*?)</script>', html, re.S)
    assert m is not None
    data = json.loads(m.group(1))
    assert data["nstate"] == 4
    res = collide.Collider(humanoid, 1).detect(q, poses=True)
    np.testing.assert_array_equal(np.diff(data["cstart"]), res.ncon)
    ids = data["geoms"]["id"]
    assert data["geoms"]["name"] == [humanoid.geom_names[g] for g in ids]
    poses = np.frombuffer(base64.b64decode(data["poses"]), dtype="<f4").reshape(4, len(ids), 7)
    assert res.geom_xpos is not None
    np.testing.assert_allclose(poses[:, :, :3], res.geom_xpos[:, ids], rtol=0, atol=1e-6)
    cdist = np.frombuffer(base64.b64decode(data["cdata"]), dtype="<f4").reshape(-1, 7)[:, 0]
    np.testing.assert_allclose(cdist, res.dist, rtol=0, atol=1e-6)
    # one state: a page of one state
    one = collide.view(humanoid, q[0])
    m1 = re.search(r'id="scene-data">(.*?)</script>', one, re.S)
    assert m1 is not None and json.loads(m1.group(1))["nstate"] == 1


def test_bad_viewer_input_raises_input_error(humanoid: collide.Model) -> None:
    q = humanoid.qpos0
    for kw, match in [
        ({"width": 0}, "width"),
        ({"height": 9000}, "height"),
        ({"state": 1}, "out of range"),
        ({"elevation": float("nan")}, "elevation"),
        ({"lookat": [0, 0]}, "lookat"),
        ({"fov": "40"}, "fov"),
    ]:
        with pytest.raises(collide.InputError, match=match):
            collide.render(humanoid, q, **kw)  # type: ignore[arg-type]
    with pytest.raises(collide.InputError):
        collide.render(humanoid, q, elevation=90.0)
    with pytest.raises(collide.InputError, match="no state"):
        collide.view(humanoid, np.zeros((0, humanoid.nq)))
    with pytest.raises(collide.InputError, match="shape"):
        collide.view(humanoid, np.zeros(3))
    with pytest.raises(collide.InputError, match="finite"):
        collide.view(humanoid, np.full(humanoid.nq, np.nan))
