"""Shared fixtures: the repository's corpus (conformance/corpus.json) and states."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
CONF = ROOT / "conformance"
CORPUS: list[dict[str, Any]] = json.loads((CONF / "corpus.json").read_text())["models"]
HUMANOID = CONF / "corpus/dm_control/suite/humanoid.xml"


def corpus_path(entry: dict[str, Any]) -> Path:
    return CONF / entry["path"]


def corpus_states(entry: dict[str, Any]) -> dict[str, np.ndarray]:
    """The recorded states of a corpus model: qpos (n, nq), and mocap and body_awake arrays if
    any."""
    name = Path(entry["fixture"]).name
    states = json.loads((CONF / "states" / name).read_text())["states"]
    out = {"qpos": np.array([s["qpos"] for s in states], dtype=np.float64)}
    if "mocap_pos" in states[0]:
        out["mocap_pos"] = np.array([s["mocap_pos"] for s in states], dtype=np.float64)
        out["mocap_quat"] = np.array([s["mocap_quat"] for s in states], dtype=np.float64)
    if "body_awake" in states[0]:
        out["body_awake"] = np.array([s["body_awake"] for s in states], dtype=np.int32)
    return out


def random_states(model: Any, n: int, seed: int = 0) -> np.ndarray:
    """`n` random joint configurations: hinge/slide joints uniform in [-1, 1] around qpos0,
    free joints jittered around qpos0, ball joints random unit quaternions."""
    rng = np.random.default_rng(seed)
    q = np.tile(np.asarray(model.qpos0), (n, 1))
    for j, t in enumerate(model.jnt_type):
        a = int(model.jnt_qposadr[j])
        if t == 0:  # free
            q[:, a : a + 3] += rng.uniform(-0.2, 0.2, (n, 3))
            quat = rng.normal(size=(n, 4))
            q[:, a + 3 : a + 7] = quat / np.linalg.norm(quat, axis=1, keepdims=True)
        elif t == 1:  # ball
            quat = rng.normal(size=(n, 4))
            q[:, a : a + 4] = quat / np.linalg.norm(quat, axis=1, keepdims=True)
        else:
            q[:, a] += rng.uniform(-1.0, 1.0, n)
    return q


@pytest.fixture(scope="session")
def humanoid() -> Any:
    import collide

    return collide.Model.from_xml_path(HUMANOID)


def resolve_package(urdf: Path, rest: str) -> Path | None:
    """`package://NAME/REST` by collide's folder-tree rule (docs/urdf.md): the URDF folder and
    each ancestor F, first F/NAME/REST, else F/REST when F is named NAME."""
    pkg, _, sub = rest.partition("/")
    for f in [urdf.parent, *urdf.parent.parents]:
        if (f / pkg / sub).is_file():
            return f / pkg / sub
        if f.name == pkg and (f / sub).is_file():
            return f / sub
    return None


def mujoco_path(path: Path, tmp: Path) -> Path:
    """The file to give MuJoCo for a corpus model: MuJoCo reads URDF `package://` literally,
    so such a URDF is copied to `tmp` with those paths resolved (absolute)."""
    if path.suffix.lower() != ".urdf":
        return path
    text = path.read_text()
    if "package://" not in text or 'strippath="true"' in text:
        return path  # (strippath: MuJoCo keeps only the file names)
    import re

    def sub(mo: "re.Match[str]") -> str:
        r = resolve_package(path.resolve(), mo.group(1))
        return str(r) if r else mo.group(0)

    out = tmp / path.name
    out.write_text(re.sub(r"package://([^\"'\s]+)", sub, text))
    return out
