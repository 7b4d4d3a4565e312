"""A small seeded run of the random-scene fuzzer (`conformance/scene_fuzz.py`): random MJCF
scenes combining MuJoCo's collision features, compared with MuJoCo 4.0.0 at qpos0 and random
configurations with the corpus's criteria (`test_conformance.compare_state`)."""

from __future__ import annotations

import importlib.util
import sys
from typing import Any

import pytest

from .conftest import CONF

pytest.importorskip("mujoco")


def scene_fuzz() -> Any:
    spec = importlib.util.spec_from_file_location("scene_fuzz", CONF / "scene_fuzz.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["scene_fuzz"] = module
    spec.loader.exec_module(module)
    return module


def test_random_scenes_match_mujoco() -> None:
    sf = scene_fuzz()
    tally, failures = sf.run(seed=0, count=30, nstates=4, progress=False)
    # the run compares something: most scenes load in both, and many pairs touch
    assert tally.loaded >= 25, vars(tally)
    assert sum(tally.contacts.values()) >= 1000, vars(tally)
    assert len(tally.pairs) >= 20, tally.pairs
    assert not failures, sf.summary(tally, failures)


def test_minimisation_keeps_only_what_the_failure_needs(monkeypatch: pytest.MonkeyPatch) -> None:
    # a stand-in comparison that "fails" while one chosen geom is in the scene: the minimised
    # scene keeps that geom and nothing else (no other geom, pair, exclude or option)
    sf = scene_fuzz()
    s = sf.scene_for(0, 16, sf.mesh_radii())
    geoms = [g["attrs"]["name"] for g in sf.all_geoms(s)]
    assert len(geoms) >= 4, geoms
    target = geoms[len(geoms) // 2]

    def fake_check(t: Any, nstates: int, seed: int, tally: Any = None, named: Any = None) -> Any:
        names = {g["attrs"]["name"] for g in sf.all_geoms(t)}
        return ([("stand-in", "", 0)] if target in names else []), []

    monkeypatch.setattr(sf, "check", fake_check)
    small = sf.minimise(s, "stand-in", {}, 0)
    assert [g["attrs"]["name"] for g in sf.all_geoms(small)] == [target]
    assert not small["pairs"] and not small["excludes"] and not small["option"] and not small["flag"]
    assert len(sf.render(small)) < len(sf.render(s))
