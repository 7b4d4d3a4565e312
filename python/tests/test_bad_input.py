"""Every kind of bad input is a `collide.Error` exception (never a crash or a panic), with a
message that names the argument, shape, file, line or element."""

from __future__ import annotations

import numpy as np
import pytest

import collide
import collide.d2

from .conftest import HUMANOID

MOCAP_XML = """<mujoco>
  <worldbody>
    <geom name="floor" type="plane" size="5 5 .1"/>
    <body name="hand" mocap="true" pos="0 0 1"><geom type="sphere" size=".1"/></body>
    <body name="ball" pos="0 0 .5"><freejoint/><geom type="sphere" size=".1"/></body>
  </worldbody>
</mujoco>"""


@pytest.fixture(scope="module")
def collider(humanoid: collide.Model) -> collide.Collider:
    return collide.Collider(humanoid, nthread=2)


@pytest.fixture(scope="module")
def mocap() -> collide.Collider:
    return collide.Collider(collide.Model.from_xml_string(MOCAP_XML), nthread=2)


def q0(c: collide.Collider, n: int | None = None) -> np.ndarray:
    q = np.array(c.model.qpos0)
    return q if n is None else np.tile(q, (n, 1))


def test_qpos_with_the_wrong_nq_names_nq(collider: collide.Collider) -> None:
    with pytest.raises(collide.InputError, match=r"qpos has shape \(27,\).*nq = 28"):
        collider.detect(np.zeros(27))


def test_batched_qpos_with_the_wrong_nq(collider: collide.Collider) -> None:
    with pytest.raises(collide.InputError, match=r"\(5, 29\)"):
        collider.detect(np.zeros((5, 29)))


def test_qpos_with_three_dimensions(collider: collide.Collider) -> None:
    with pytest.raises(collide.InputError, match="shape"):
        collider.detect(np.zeros((2, 3, 28)))


def test_scalar_qpos(collider: collide.Collider) -> None:
    with pytest.raises(collide.InputError):
        collider.detect(1.0)


def test_nan_in_qpos_names_world_and_index(collider: collide.Collider) -> None:
    q = q0(collider, 10)
    q[7, 12] = np.nan
    with pytest.raises(collide.InputError, match=r"qpos\[7, 12\] is not finite"):
        collider.detect(q)


def test_inf_in_single_qpos(collider: collide.Collider) -> None:
    q = q0(collider)
    q[3] = -np.inf
    with pytest.raises(collide.InputError, match=r"qpos\[3\] is not finite"):
        collider.detect(q)


def test_first_bad_world_is_reported_whatever_the_threads(humanoid: collide.Model) -> None:
    q = np.tile(np.asarray(humanoid.qpos0), (64, 1))
    q[50, 0] = np.nan
    q[9, 1] = np.nan
    for n in (1, 2, 3):
        with pytest.raises(collide.InputError, match=r"qpos\[9, 1\]"):
            collide.Collider(humanoid, n).detect(q)


def test_string_dtype(collider: collide.Collider) -> None:
    with pytest.raises(collide.InputError, match="dtype"):
        collider.detect(np.array(["a"] * 28))


def test_complex_dtype(collider: collide.Collider) -> None:
    with pytest.raises(collide.InputError, match="dtype"):
        collider.detect(np.zeros(28, dtype=complex))


def test_object_dtype(collider: collide.Collider) -> None:
    with pytest.raises(collide.InputError, match="dtype"):
        collider.detect(np.array([object()] * 28))


def test_ragged_list(collider: collide.Collider) -> None:
    with pytest.raises(collide.InputError):
        collider.detect([[0.0] * 28, [0.0] * 27])


def test_none_qpos(collider: collide.Collider) -> None:
    with pytest.raises(collide.InputError, match="qpos"):
        collider.detect(None)


def test_non_contiguous_qpos_is_copied_and_gives_the_same_contacts(
    collider: collide.Collider,
) -> None:
    from .conftest import random_states

    q = random_states(collider.model, 20, seed=1)
    wide = np.zeros((20, 56))
    wide[:, ::2] = q
    view = wide[:, ::2]
    assert not view.flags.c_contiguous
    a, b = collider.detect(view), collider.detect(q)
    assert a.records.tobytes() == b.records.tobytes()


def test_fortran_order_qpos_is_accepted(collider: collide.Collider) -> None:
    from .conftest import random_states

    q = random_states(collider.model, 20, seed=2)
    a, b = collider.detect(np.asfortranarray(q)), collider.detect(q)
    assert a.records.tobytes() == b.records.tobytes()


def test_read_only_qpos_is_accepted_without_copy(collider: collide.Collider) -> None:
    q = q0(collider, 4)
    q.setflags(write=False)
    assert collider.detect(q).nbatch == 4


def test_float32_and_int_qpos_are_converted(collider: collide.Collider) -> None:
    q = q0(collider)
    a = collider.detect(q.astype(np.float32))
    b = collider.detect(q.astype(np.float32).astype(np.float64))
    assert a.records.tobytes() == b.records.tobytes()
    assert collider.detect(np.zeros(28, dtype=np.int64)).nbatch == 1


def test_mocap_pos_with_the_wrong_shape(mocap: collide.Collider) -> None:
    with pytest.raises(collide.InputError, match=r"mocap_pos has shape \(2, 3\), expected \(1, 3\)"):
        mocap.detect(q0(mocap), mocap_pos=np.zeros((2, 3)))


def test_batched_mocap_with_the_wrong_batch(mocap: collide.Collider) -> None:
    with pytest.raises(collide.InputError, match="mocap_quat"):
        mocap.detect(q0(mocap, 4), mocap_quat=np.tile([1.0, 0, 0, 0], (5, 1, 1)))


def test_nan_in_mocap_quat_names_world(mocap: collide.Collider) -> None:
    mq = np.tile([1.0, 0, 0, 0], (4, 1, 1))
    mq[2, 0, 3] = np.nan
    with pytest.raises(collide.InputError, match=r"mocap_quat\[2, 0, 3\] is not finite"):
        mocap.detect(q0(mocap, 4), mocap_quat=mq)


def test_body_awake_out_of_range(collider: collide.Collider) -> None:
    with pytest.raises(collide.InputError, match="body_awake"):
        collider.detect(q0(collider), body_awake=np.full(17, 2))


def test_body_awake_float_dtype(collider: collide.Collider) -> None:
    with pytest.raises(collide.InputError, match="dtype"):
        collider.detect(q0(collider), body_awake=np.ones(17))


def test_body_awake_wrong_shape(collider: collide.Collider) -> None:
    with pytest.raises(collide.InputError, match=r"body_awake has shape \(16,\)"):
        collider.detect(q0(collider), body_awake=np.ones(16, dtype=np.int32))


@pytest.mark.parametrize("n", [0, -3, 1.5, "2", True])
def test_bad_nthread(humanoid: collide.Model, n: object) -> None:
    with pytest.raises(collide.InputError, match="nthread"):
        collide.Collider(humanoid, n)  # type: ignore[arg-type]


@pytest.mark.parametrize("w", ["yes", 1, None])
def test_warm_start_must_be_a_bool(humanoid: collide.Model, w: object) -> None:
    with pytest.raises(TypeError):
        collide.Collider(humanoid, 1, warm_start=w)  # type: ignore[arg-type]


def test_collider_of_something_else() -> None:
    with pytest.raises(collide.InputError, match="collide.Model"):
        collide.Collider(str(HUMANOID))  # type: ignore[arg-type]


def test_out_of_the_wrong_type(collider: collide.Collider) -> None:
    with pytest.raises(collide.InputError, match="out"):
        collider.detect(q0(collider), out=np.zeros(100))  # type: ignore[arg-type]


def test_out_that_is_read_only(collider: collide.Collider) -> None:
    prev = collider.detect(q0(collider, 2))
    prev._buf.setflags(write=False)
    with pytest.raises(collide.InputError, match="read-only"):
        collider.detect(q0(collider, 2), out=prev)


def test_missing_file_is_a_file_error() -> None:
    with pytest.raises(collide.FileError) as e:
        collide.Model.from_xml_path("/no/such/model.xml")
    assert isinstance(e.value, OSError) and e.value.filename == "/no/such/model.xml"


def test_directory_as_model_path(tmp_path: object) -> None:
    with pytest.raises(collide.FileError):
        collide.Model.from_xml_path(str(tmp_path))


def test_malformed_xml_names_the_line() -> None:
    with pytest.raises(collide.ModelError) as e:
        collide.Model.from_xml_string("<mujoco>\n<worldbody>\n<geom size='1'>\n</mujoco>")
    assert isinstance(e.value, ValueError)
    assert "<string>" in str(e.value)


def test_nan_attribute_names_file_line_and_element() -> None:
    xml = '<mujoco>\n  <worldbody>\n    <geom name="g" size="nan"/>\n  </worldbody>\n</mujoco>'
    with pytest.raises(collide.ModelError, match="'nan' is not a finite number") as e:
        collide.Model.from_xml_string(xml)
    assert (e.value.file, e.value.line) == ("<string>", 3)
    assert "geom" in e.value.element


def test_missing_mesh_file_names_the_element(tmp_path: object) -> None:
    xml = '<mujoco><asset><mesh name="m" file="absent.stl"/></asset><worldbody><geom type="mesh" mesh="m"/></worldbody></mujoco>'
    with pytest.raises(collide.ModelError, match="absent.stl"):
        collide.Model.from_xml_string(xml, dir=str(tmp_path))


def test_assets_with_non_bytes_values() -> None:
    with pytest.raises(collide.InputError, match="bytes"):
        collide.Model.from_xml_string("<mujoco/>", assets={"a.stl": "text"})  # type: ignore[dict-item]


def test_xml_that_is_not_a_string() -> None:
    with pytest.raises(collide.InputError, match="xml must be str"):
        collide.Model.from_xml_string(b"<mujoco/>")  # type: ignore[arg-type]


def test_unknown_name_kind(humanoid: collide.Model) -> None:
    with pytest.raises(collide.InputError, match="unknown element kind"):
        humanoid.name2id("actuator", "x")


def test_bad_2d_scene_json() -> None:
    with pytest.raises(collide.InputError, match="line 1"):
        collide.d2.Scene('{"shapes": [')


def test_bad_2d_shape_names_the_field() -> None:
    with pytest.raises(collide.InputError, match=r"shapes\[0\].radius"):
        collide.d2.Scene({"shapes": [{"type": "circle"}]})


def test_2d_pair_index_out_of_range() -> None:
    s = collide.d2.Scene({"shapes": [{"type": "circle", "radius": 1}]})
    with pytest.raises(collide.InputError, match="shape index 3"):
        s.distances([[0, 3]])


def test_2d_negative_margin() -> None:
    s = collide.d2.Scene({"shapes": [{"type": "circle", "radius": 1}] * 2})
    with pytest.raises(collide.InputError, match="margin"):
        s.contacts([[0, 1]], margin=-1.0)


def test_every_error_is_a_collide_error() -> None:
    for cls in (collide.ModelError, collide.InputError, collide.FileError, collide.InternalError):
        assert issubclass(cls, collide.Error)
    assert issubclass(collide.ModelError, ValueError)
    assert issubclass(collide.InputError, ValueError)
    assert issubclass(collide.FileError, OSError)
