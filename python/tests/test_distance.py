"""Distances and collision checks from Python (collide.Distance, collide.CollisionChecker):
against MuJoCo 4.0.0's `mj_geomDistance` run live, against the CLI's `collide distance` and
`collide check`, batch against the per-state loop, thread counts, and bad inputs.

Tolerances (issue #15): 1e-9 on dist and fromto for pairs MuJoCo computes with an analytic
collider, 1e-6 for pairs that go through a convex solver (GJK/EPA: meshes, box-box, and the
general convex pairs). A convex pair whose distance agrees but whose witness points differ
counts as a tie when our segment is as long as the distance (parallel faces, symmetric shapes).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import collide
from collide import _core

from .conftest import CORPUS, corpus_path, random_states
from .test_conformance import cli_binary

mujoco = pytest.importorskip("mujoco")

# primitives of every kind, meshes, a height field, a URDF with meshes
MODELS = [
    "dm_control/humanoid",
    "scenes/primitive_pairs",
    "scenes/ellipsoid_cylinder_pile",
    "scenes/mesh_primitives",
    "scenes/hfield_png",
    "urdf/kuka_iiwa/model",
]
MESH, BOX = 7, 6


def entry_of(name: str) -> dict[str, Any]:
    return next(e for e in CORPUS if e["name"] == name)


def usable_geoms(m: collide.Model) -> np.ndarray:
    """Geoms with a collision shape (visual-only meshes have no hull in collide)."""
    paired = set(m.pair_geom1.tolist()) | set(m.pair_geom2.tolist())
    ok = [
        g
        for g in range(m.ngeom)
        if m.geom_type[g] != MESH or g in paired or m.geom_contype[g] or m.geom_conaffinity[g]
    ]
    return np.array(ok, dtype=np.int64)


def random_pairs(m: collide.Model, n: int, rng: np.random.Generator, xpos: np.ndarray) -> np.ndarray:
    """`n` pairs of distinct usable geoms, half of them among the 6 nearest to the first."""
    ok = usable_geoms(m)
    out = np.empty((n, 2), dtype=np.int64)
    for k in range(n):
        g1 = int(rng.choice(ok))
        others = ok[ok != g1]
        if k % 2:
            near = np.argsort(np.linalg.norm(xpos[others] - xpos[g1], axis=1))[:6]
            g2 = int(rng.choice(others[near]))
        else:
            g2 = int(rng.choice(others))
        out[k] = (g1, g2)
    return out


def is_convex(m: collide.Model, g1: int, g2: int) -> bool:
    a, b = sorted((int(m.geom_type[g1]), int(m.geom_type[g2])))
    return b == MESH or (a == BOX and b == BOX) or not _core._is_analytic(a, b)


@pytest.mark.parametrize("name", MODELS)
def test_geom_distance_matches_mj_geomDistance(name: str) -> None:
    path = corpus_path(entry_of(name))
    model = collide.Model.from_xml_path(path)
    mjm = mujoco.MjModel.from_xml_path(str(path))
    d = mujoco.MjData(mjm)
    rng = np.random.default_rng(15)
    nstate, npair = 10, 60
    q = random_states(model, nstate, seed=15)
    dist_obj = collide.Distance(model, nthread=2)
    ncase = nties = 0
    worst = [0.0, 0.0]
    failures = []
    for s in range(nstate):
        d.qpos[:] = q[s]
        mujoco.mj_kinematics(mjm, d)
        pairs = random_pairs(model, npair, rng, np.array(d.geom_xpos))
        distmax = float(rng.choice([0.02, 0.3, 2.0, 100.0]))
        dist, fromto = dist_obj.geom_distance(q[s], pairs, distmax)
        assert dist.shape == (npair,) and fromto.shape == (npair, 6)
        for k, (g1, g2) in enumerate(pairs):
            ft = np.zeros(6)
            want = mujoco.mj_geomDistance(mjm, d, int(g1), int(g2), distmax, ft)
            cv = is_convex(model, int(g1), int(g2))
            tol = 1e-6 if cv else 1e-9
            derr = abs(dist[k] - want)
            ferr = float(np.abs(fromto[k] - ft).max())
            worst[cv] = max(worst[cv], derr)
            ncase += 1
            seg = float(np.linalg.norm(fromto[k][3:] - fromto[k][:3]))
            if derr <= tol and ferr > tol and abs(seg - abs(dist[k])) <= tol:
                nties += 1
                continue
            if not (derr <= tol and ferr <= tol):
                failures.append(
                    f"state {s} geoms {g1} {g2} types {model.geom_type[g1]} {model.geom_type[g2]} "
                    f"distmax {distmax}: {dist[k]} {fromto[k]} vs MuJoCo {want} {ft}"
                )
    assert ncase == nstate * npair
    assert nties <= ncase // 10, f"{nties} ties of {ncase}"
    assert not failures, "\n".join(failures[:10])
    assert worst[0] <= 1e-9 and worst[1] <= 1e-6


def test_geom_distance_of_two_spheres_by_hand() -> None:
    xml = """<mujoco><worldbody>
      <geom name="a" type="sphere" size="0.5" pos="0 0 0"/>
      <body><freejoint/><geom name="b" type="sphere" size="0.25" pos="0 0 0"/></body>
    </worldbody></mujoco>"""
    m = collide.Model.from_xml_string(xml)
    q = np.array([[2.0, 0, 0, 1, 0, 0, 0], [0.5, 0, 0, 1, 0, 0, 0], [0, 3.0, 0, 1, 0, 0, 0]])
    dist, fromto = collide.geom_distance(m, q, [[0, 1], [1, 0]], 2.0)
    # separated by 2 - 0.75 = 1.25; penetrating by 0.25; beyond distmax: capped, fromto zero
    np.testing.assert_allclose(dist, [[1.25, 1.25], [-0.25, -0.25], [2.0, 2.0]], rtol=0, atol=1e-15)
    np.testing.assert_allclose(fromto[0, 0], [0.5, 0, 0, 1.75, 0, 0], rtol=0, atol=1e-15)
    np.testing.assert_allclose(fromto[0, 1], [1.75, 0, 0, 0.5, 0, 0], rtol=0, atol=1e-15)
    np.testing.assert_allclose(fromto[1, 0], [0.5, 0, 0, 0.25, 0, 0], rtol=0, atol=1e-15)
    assert not fromto[2].any()
    assert collide.in_collision(m, q[1]) is True
    np.testing.assert_array_equal(collide.in_collision(m, q), [False, True, False])


def test_batch_equals_the_per_state_loop_for_any_thread_count(humanoid: collide.Model) -> None:
    q = random_states(humanoid, 37, seed=4)
    rng = np.random.default_rng(4)
    pairs = rng.choice(humanoid.ngeom, size=(25, 2))
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    d1, f1 = collide.Distance(humanoid, nthread=1).geom_distance(q, pairs, 0.5)
    d3, f3 = collide.Distance(humanoid, nthread=3).geom_distance(q, pairs, 0.5)
    assert d1.shape == (37, len(pairs)) and f1.shape == (37, len(pairs), 6)
    np.testing.assert_array_equal(d1, d3)
    np.testing.assert_array_equal(f1, f3)
    for s in range(len(q)):
        ds, fs = collide.geom_distance(humanoid, q[s], pairs, 0.5)
        np.testing.assert_array_equal(ds, d1[s])
        np.testing.assert_array_equal(fs, f1[s])
    c1 = collide.CollisionChecker(humanoid, nthread=1).in_collision(q)
    c2 = collide.CollisionChecker(humanoid, nthread=2).in_collision(q)
    assert c1.dtype == np.bool_ and c1.shape == (37,)
    np.testing.assert_array_equal(c1, c2)
    assert [collide.in_collision(humanoid, q[s]) for s in range(len(q))] == c1.tolist()
    assert 0 < c1.sum() < len(q)  # random humanoid poses: some self-collide, some do not


def test_in_collision_agrees_with_the_collider_contacts() -> None:
    path = corpus_path(entry_of("scenes/arm_table_clutter"))
    m = collide.Model.from_xml_path(path)
    q = random_states(m, 64, seed=8)
    flags = collide.CollisionChecker(m, 2).in_collision(q)
    # a state collides iff the collider finds a contact (dist below the contact margin)
    ncon = collide.Collider(m, 2).detect(q).ncon
    np.testing.assert_array_equal(flags, ncon > 0)
    assert flags.any() and not flags.all()


def run_cli(*args: str) -> Any:
    out = subprocess.run([str(cli_binary()), *args], check=True, capture_output=True, text=True).stdout
    return json.loads(out)


@pytest.mark.parametrize("name", ["dm_control/humanoid", "scenes/mesh_primitives"])
def test_distance_and_check_equal_the_cli(name: str, tmp_path: Path) -> None:
    path = corpus_path(entry_of(name))
    m = collide.Model.from_xml_path(path)
    q = random_states(m, 6, seed=2)
    ok = usable_geoms(m)
    rng = np.random.default_rng(2)
    pairs = np.array([rng.choice(ok, 2, replace=False) for _ in range(30)], dtype=np.int64)
    (tmp_path / "states.json").write_text(json.dumps({"states": [{"qpos": r.tolist()} for r in q]}))
    (tmp_path / "pairs.json").write_text(json.dumps(pairs.tolist()))
    cli = run_cli(
        "distance",
        str(path),
        "--states",
        str(tmp_path / "states.json"),
        "--pairs",
        str(tmp_path / "pairs.json"),
        "--distmax",
        "0.7",
    )["states"]
    dist, fromto = collide.Distance(m, 2).geom_distance(q, pairs, 0.7)
    assert len(cli) == len(q)
    for s, st in enumerate(cli):
        assert [(x["geom1"], x["geom2"]) for x in st["distances"]] == [tuple(p) for p in pairs.tolist()]
        assert [x["dist"] for x in st["distances"]] == dist[s].tolist()
        assert [x["fromto"] for x in st["distances"]] == fromto[s].tolist()
    check = run_cli("check", str(path), "--states", str(tmp_path / "states.json"))
    flags = collide.CollisionChecker(m).in_collision(q)
    assert [st["in_collision"] for st in check["states"]] == flags.tolist()


def test_closest_pairs_are_the_brute_force_minimum(humanoid: collide.Model) -> None:
    q = random_states(humanoid, 1, seed=6)[0]
    left = [g for g in range(humanoid.ngeom) if humanoid.geom_names[g].startswith("left_")]
    right = [g for g in range(humanoid.ngeom) if humanoid.geom_names[g].startswith("right_")]
    assert left and right
    pairs, dist, fromto = collide.closest_pairs(humanoid, q, left, right, distmax=10.0)
    body = humanoid.geom_bodyid
    every = [[a, b] for a in left for b in right if body[a] != body[b]]
    brute, bft = collide.geom_distance(humanoid, q, every, 10.0)
    assert (brute < 10.0).all()  # one humanoid: every pair is within 10
    np.testing.assert_array_equal(pairs, every)
    np.testing.assert_array_equal(dist, brute)
    np.testing.assert_array_equal(fromto, bft)
    # a tight distmax keeps only the pairs closer than it, in the same order
    cut = float(np.sort(dist)[3])
    p2, d2, _ = collide.Distance(humanoid).closest_pairs(q, left, right, cut)
    np.testing.assert_array_equal(p2, pairs[dist < cut])
    np.testing.assert_array_equal(d2, dist[dist < cut])
    # model_filters: only pairs the model collides (the humanoid's contype/conaffinity)
    p3, _, _ = collide.closest_pairs(humanoid, q, left, right, 10.0, model_filters=True)
    assert len(p3) <= len(pairs)
    # geoms2 defaults to geoms1: each unordered pair once, lower id first, none on one body
    p4, _, _ = collide.closest_pairs(humanoid, q, range(humanoid.ngeom), distmax=10.0)
    assert (p4[:, 0] < p4[:, 1]).all()
    assert len({tuple(p) for p in p4.tolist()}) == len(p4)
    assert (humanoid.geom_bodyid[p4[:, 0]] != humanoid.geom_bodyid[p4[:, 1]]).all()


def test_nq0_model_distances_and_checks_repeat_per_row() -> None:
    xml = """<mujoco><worldbody>
      <geom type="box" size="1 1 1"/>
      <body pos="0 0 2.5"><geom type="sphere" size="0.25"/></body>
    </worldbody></mujoco>"""
    m = collide.Model.from_xml_string(xml)
    assert m.nq == 0
    dist, fromto = collide.geom_distance(m, np.zeros((3, 0)), [[0, 1]], 5.0)
    np.testing.assert_allclose(dist, [[1.25]] * 3, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(collide.in_collision(m, np.zeros((2, 0))), [False, False])
    assert collide.in_collision(m, np.zeros(0)) is False


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda m: collide.geom_distance(m, m.qpos0, [[0, 999]], 1.0), "out of range"),
        (lambda m: collide.geom_distance(m, m.qpos0, [[0, -1]], 1.0), "not a geom id"),
        (lambda m: collide.geom_distance(m, m.qpos0, [[0, 1, 2]], 1.0), "shape"),
        (lambda m: collide.geom_distance(m, m.qpos0, [[0.0, 1.0]], 1.0), "dtype"),
        (lambda m: collide.geom_distance(m, m.qpos0, [[0, 1]], float("nan")), "finite"),
        (lambda m: collide.geom_distance(m, m.qpos0, [[0, 1]], "1"), "real number"),  # type: ignore[arg-type]
        (lambda m: collide.geom_distance(m, m.qpos0[:-1], [[0, 1]], 1.0), "shape"),
        (lambda m: collide.geom_distance(m, np.full(m.nq, np.nan), [[0, 1]], 1.0), "finite"),
        (lambda m: collide.geom_distance(m, [["a"] * m.nq], [[0, 1]], 1.0), "dtype"),
        (lambda m: collide.geom_distance("model", m.qpos0, [[0, 1]], 1.0), "collide.Model"),  # type: ignore[arg-type]
        (lambda m: collide.Distance(m, nthread=0), "nthread"),
        (lambda m: collide.Distance(m, nthread=True), "nthread"),
        (lambda m: collide.CollisionChecker(m, nthread=2.0), "nthread"),  # type: ignore[arg-type]
        (lambda m: collide.in_collision(m, np.zeros((2, m.nq + 1))), "shape"),
        (lambda m: collide.in_collision(m, np.tile(np.r_[m.qpos0[:-1], np.inf], (3, 1))), "state 0"),
        (lambda m: collide.closest_pairs(m, np.tile(m.qpos0, (2, 1)), [0, 1]), "one state"),
        (lambda m: collide.closest_pairs(m, m.qpos0, [0, 999]), "out of range"),
        (lambda m: collide.closest_pairs(m, m.qpos0, [0, 1], model_filters=1), "bool"),  # type: ignore[arg-type]
    ],
)
def test_bad_distance_input_raises_input_error(humanoid: collide.Model, call: Any, match: str) -> None:
    with pytest.raises(collide.InputError, match=match):
        call(humanoid)
