"""Batches: thread-count determinism, one state vs a batch, `out=` reuse, mocap, sleep,
pickling, the GIL, and the 2D module's answers."""

from __future__ import annotations

import pickle
import threading

import numpy as np
import pytest

import collide
import collide.d2

from .conftest import CONF, CORPUS, corpus_path, corpus_states, random_states


def test_contacts_are_bit_identical_on_1_2_3_4_threads(humanoid: collide.Model) -> None:
    q = random_states(humanoid, 401, seed=7)
    ref = collide.Collider(humanoid, 1).detect(q, poses=True)
    assert len(ref) > 100
    for n in (2, 3, 4):
        r = collide.Collider(humanoid, n).detect(q, poses=True)
        assert r.records.tobytes() == ref.records.tobytes(), n
        assert np.array_equal(r.ncon, ref.ncon) and np.array_equal(r.start, ref.start)
        assert r.geom_xpos is not None and ref.geom_xpos is not None
        assert r.geom_xpos.tobytes() == ref.geom_xpos.tobytes()


def test_mesh_robot_contacts_are_bit_identical_on_1_and_4_threads() -> None:
    entry = next(e for e in CORPUS if e["name"] == "scenes/mesh_pile")
    m = collide.Model.from_xml_path(corpus_path(entry))
    q = random_states(m, 64, seed=8)
    a = collide.Collider(m, 1).detect(q)
    b = collide.Collider(m, 4).detect(q)
    assert len(a) > 0 and a.records.tobytes() == b.records.tobytes()


def test_a_batch_equals_its_states_one_by_one(humanoid: collide.Model) -> None:
    q = random_states(humanoid, 30, seed=9)
    c = collide.Collider(humanoid, 2)
    batch = c.detect(q)
    for i in range(len(q)):
        one = c.detect(q[i])
        assert one.nbatch == 1 and np.all(one.worldid == 0)
        mine = batch.world(i)
        assert np.all(mine["worldid"] == i)
        for f in collide.CONTACT_DTYPE.names or ():
            if f != "worldid":
                assert mine[f].tobytes() == one.records[f].tobytes(), f
    assert np.array_equal(batch.start, np.concatenate([[0], np.cumsum(batch.ncon)[:-1]]))
    assert np.array_equal(np.bincount(batch.worldid, minlength=30), batch.ncon)


def test_empty_batch(humanoid: collide.Model) -> None:
    r = collide.Collider(humanoid, 2).detect(np.zeros((0, humanoid.nq)))
    assert len(r) == 0 and r.nbatch == 0


def test_out_buffers_are_reused_when_large_enough(humanoid: collide.Model) -> None:
    c = collide.Collider(humanoid, 2)
    q = random_states(humanoid, 50, seed=10)
    first = c.detect(q)
    expected = first.records.tobytes()
    again = c.detect(q, out=first)
    assert np.shares_memory(again.records, first._buf)
    assert again.ncon is first.ncon
    assert again.records.tobytes() == expected


def test_fields_are_the_records_fields(humanoid: collide.Model) -> None:
    r = collide.Collider(humanoid, 1).detect(random_states(humanoid, 20, seed=11))
    assert r.geom.shape == (len(r), 2) and r.frame.shape == (len(r), 9)
    assert np.array_equal(r.normal, r.frame[:, :3])
    np.testing.assert_allclose(np.linalg.norm(r.normal, axis=1), 1.0, atol=1e-12)
    assert set(np.unique(r.dim)) <= {1, 3, 4, 6}


MOCAP_XML = """<mujoco>
  <worldbody>
    <geom name="floor" type="plane" size="5 5 .1"/>
    <body name="hand" mocap="true" pos="0 0 1"><geom type="sphere" size=".1"/></body>
    <body name="ball" pos="0 0 .5"><freejoint/><geom type="sphere" size=".1"/></body>
  </worldbody>
</mujoco>"""


def test_mocap_bodies_move_per_world() -> None:
    m = collide.Model.from_xml_string(MOCAP_XML)
    c = collide.Collider(m, 2)
    q = np.tile(m.qpos0, (2, 1))  # the ball at z = 0.5
    # world 0: the hand sphere 0.02 into the ball; world 1: far above it (no contact)
    mp = np.array([[[0.0, 0.0, 0.68]], [[0.0, 0.0, 2.0]]])
    r = c.detect(q, mocap_pos=mp)
    assert list(r.ncon) == [1, 0]
    assert tuple(r.geom[0]) == (1, 2)
    assert r.dist[0] == pytest.approx(-0.02, abs=1e-15)
    np.testing.assert_allclose(r.pos[0], [0.0, 0.0, 0.59], atol=1e-15)
    np.testing.assert_allclose(r.normal[0], [0.0, 0.0, -1.0], atol=1e-15)
    # a shared mocap pose for all worlds, and the model pose when none is given
    assert list(c.detect(np.tile(m.qpos0, (3, 1)), mocap_pos=mp[0]).ncon) == [1, 1, 1]
    assert list(c.detect(np.tile(m.qpos0, (3, 1))).ncon) == [0, 0, 0]


SLEEP_XML = """<mujoco>
  <option><flag sleep="enable"/></option>
  <worldbody>
    <geom name="floor" type="plane" size="5 5 .1"/>
    <body name="a" pos="0 0 .09"><freejoint/><geom type="box" size=".1 .1 .1"/></body>
    <body name="b" pos="1 0 .09"><freejoint/><geom type="box" size=".1 .1 .1"/></body>
  </worldbody>
</mujoco>"""


def test_asleep_bodies_skip_static_geometry_like_mujoco() -> None:
    m = collide.Model.from_xml_string(SLEEP_XML)
    c = collide.Collider(m, 2)
    q = np.tile(m.qpos0, (3, 1))
    awake = np.array([[-1, 1, 1], [-1, 0, 1], [-1, 0, 0]], dtype=np.int32)
    r = c.detect(q, body_awake=awake)
    # each box sits 0.01 deep in the floor: 4 contacts per awake box
    assert list(r.ncon) == [8, 4, 0]
    assert set(r.world(1)["geom"][:, 1]) == {2}
    # without the flag in the model, body_awake is ignored (as MuJoCo does)
    m2 = collide.Model.from_xml_string(SLEEP_XML.replace('<flag sleep="enable"/>', ""))
    assert list(collide.Collider(m2, 2).detect(q, body_awake=awake).ncon) == [8, 8, 8]
    # an awake batch after a sleeping one is not affected by it
    assert list(c.detect(q).ncon) == [8, 8, 8]


def _resting_pile() -> tuple[collide.Model, np.ndarray]:
    """A resting mesh pile and its recorded states (consecutive moments: each world moves a
    little from one call to the next, the wrap-around is a jump)."""
    entry = next(e for e in CORPUS if e["name"] == "scenes/mesh_pile_steady")
    return collide.Model.from_xml_path(corpus_path(entry)), corpus_states(entry)["qpos"]


def _trajectory(states: np.ndarray, nworld: int, t: int) -> np.ndarray:
    """World w at call t in state (w + t) % len(states)."""
    return np.stack([states[(w + t) % len(states)] for w in range(nworld)])


def test_worlds_continue_their_own_history_whatever_the_threads() -> None:
    m, states = _resting_pile()
    colliders = [collide.Collider(m, n) for n in (1, 2, 3)]
    assert all(c.warm_start for c in colliders)
    for t in range(6):
        q = _trajectory(states, 5, t)
        out = [c.detect(q).records.tobytes() for c in colliders]
        assert out[0] == out[1] == out[2], t


def test_warm_starts_agree_with_cold_solves_and_reset_forgets_them() -> None:
    m, states = _resting_pile()
    warm = collide.Collider(m, 2)
    cold = collide.Collider(m, 2, warm_start=False)
    assert not cold.warm_start
    differ = 0
    for t in range(6):
        q = _trajectory(states, 4, t)
        a, b = warm.detect(q), cold.detect(q)
        # the same contacts up to rounding (a warm start solves the same problem from the
        # world's previous call)
        assert np.array_equal(a.ncon, b.ncon) and np.array_equal(a.geom, b.geom)
        np.testing.assert_allclose(a.dist, b.dist, rtol=0, atol=1e-12)
        np.testing.assert_allclose(a.frame, b.frame, rtol=0, atol=1e-9)
        np.testing.assert_allclose(a.pos, b.pos, rtol=0, atol=1e-9)
        differ += a.records.tobytes() != b.records.tobytes()
    # the history was used: some warm-started contacts differ from the cold ones in the last bits
    assert differ > 0
    # after a reset every world is solved as a fresh collider would, bit for bit
    warm.reset()
    q = _trajectory(states, 4, 6)
    assert warm.detect(q).records.tobytes() == cold.detect(q).records.tobytes()


def test_model_and_collider_pickle_by_source() -> None:
    entry = next(e for e in CORPUS if e["name"] == "scenes/mesh_pile")
    m = collide.Model.from_xml_path(corpus_path(entry))
    blob = pickle.dumps(collide.Collider(m, 2))
    c = pickle.loads(blob)
    assert c.nthread == 2 and c.warm_start
    assert not pickle.loads(pickle.dumps(collide.Collider(m, 1, warm_start=False))).warm_start
    q = random_states(m, 8, seed=12)
    assert c.detect(q).records.tobytes() == collide.Collider(m, 2).detect(q).records.tobytes()
    # the source holds the mesh files: the copy compiles without the disk
    src = m._core._source()
    assert any(k.endswith((".stl", ".obj", ".msh")) for k in src[3])


def test_from_xml_string_assets_serve_files_by_name() -> None:
    path = CONF / "corpus/scenes/mesh_pile.xml"
    xml = path.read_text()
    on_disk = collide.Model.from_xml_path(path)
    files = on_disk._core._source()[3]
    assets = {k.split("/")[-1]: v for k, v in files.items()}
    m = collide.Model.from_xml_string(xml, assets=assets, dir="/nonexistent")
    np.testing.assert_array_equal(m.geom_size, on_disk.geom_size)


def test_model_arrays_are_read_only(humanoid: collide.Model) -> None:
    with pytest.raises(ValueError):
        humanoid.geom_size[0, 0] = 1.0
    assert humanoid.geom_type.dtype == np.int32 and humanoid.geom_size.shape == (humanoid.ngeom, 3)
    assert humanoid.id2name("geom", 0) == "floor"


def test_concurrent_calls_from_python_threads(humanoid: collide.Model) -> None:
    c = collide.Collider(humanoid, 2)
    q = random_states(humanoid, 200, seed=13)
    ref = c.detect(q).records.tobytes()
    results: list[bytes] = []

    def work() -> None:
        for _ in range(5):
            results.append(c.detect(q).records.tobytes())

    ts = [threading.Thread(target=work) for _ in range(3)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert len(results) == 15 and all(r == ref for r in results)


def test_2d_circles_hand_worked() -> None:
    s = collide.d2.Scene(
        {
            "shapes": [
                {"type": "circle", "radius": 1.0, "pos": [0.0, 0.0]},
                {"type": "circle", "radius": 1.0, "pos": [1.5, 0.0]},
                {"type": "box", "half": [0.5, 0.5], "pos": [0.0, 3.0]},
            ],
            "queries": [{"op": "distance", "a": 0, "b": 2}],
        }
    )
    c = s.contacts([[0, 1], [0, 2]])
    assert list(c["intersect"]) == [True, False]
    np.testing.assert_allclose(c["depth"], [0.5, -1.5], atol=1e-12)
    np.testing.assert_allclose(c["normal"], [[1.0, 0.0], [0.0, 1.0]], atol=1e-12)
    np.testing.assert_allclose(c["mtv"][0], [0.5, 0.0], atol=1e-12)
    d = s.distances([[0, 2]])
    np.testing.assert_allclose(d["distance"], [1.5], atol=1e-12)
    np.testing.assert_allclose(d["point_b"], [[0.0, 2.5]], atol=1e-12)
    assert s.run()[0]["distance"] == pytest.approx(1.5, abs=1e-12)
    p = s.intersecting_pairs()
    assert p["pairs"].tolist() == [[0, 1]]
    np.testing.assert_allclose(p["depth"], [0.5], atol=1e-12)
    assert pickle.loads(pickle.dumps(s)).nshape == 3
