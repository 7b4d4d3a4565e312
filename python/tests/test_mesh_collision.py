"""`Collider(model, mesh_collision="exact")`: meshes collide by their triangles (a sphere in a
torus's hole touches nothing; against the inner wall it touches at the wall), the option is
checked, kept by pickling, and the same on any thread count."""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest

import collide

BIG, SMALL, NU, NV = 0.2, 0.05, 48, 24


def torus_xml() -> str:
    vert, face = [], []
    for i in range(NU):
        u = 2 * math.pi * i / NU
        for j in range(NV):
            v = 2 * math.pi * j / NV
            rr = BIG + SMALL * math.cos(v)
            vert += [rr * math.cos(u), rr * math.sin(u), SMALL * math.sin(v)]
    for i in range(NU):
        for j in range(NV):
            a, b = i * NV + j, i * NV + (j + 1) % NV
            c, d = ((i + 1) % NU) * NV + (j + 1) % NV, ((i + 1) % NU) * NV + j
            face += [a, d, c, a, c, b]  # outward: (d - a) x (c - a) points away from the tube
    vs = " ".join(f"{x:.12g}" for x in vert)
    fs = " ".join(map(str, face))
    return f"""<mujoco>
  <asset><mesh name="torus" vertex="{vs}" face="{fs}"/></asset>
  <worldbody>
    <geom type="mesh" mesh="torus"/>
    <body><freejoint/><geom type="sphere" size="0.05"/></body>
  </worldbody>
</mujoco>"""


@pytest.fixture(scope="module")
def torus() -> collide.Model:
    return collide.Model.from_xml_string(torus_xml())


def states(xs: list[float]) -> np.ndarray:
    return np.array([[x, 0, 0, 1, 0, 0, 0] for x in xs], dtype=np.float64)


def test_sphere_in_the_hole_touches_the_hull_but_not_the_triangles(torus: collide.Model) -> None:
    # exactly on the axis (GJK starts from coincident centres) and 1 cm off it
    q = states([0.0, 0.01])
    hull = collide.Collider(torus, 1).detect(q)
    exact = collide.Collider(torus, 1, mesh_collision="exact").detect(q)
    assert list(hull.ncon) == [1, 1] and len(exact) == 0
    assert np.allclose(hull.dist, -0.1, atol=1e-8)


def test_sphere_against_the_inner_wall_by_its_depth(torus: collide.Model) -> None:
    # the hole's radius is 0.15; the sphere's far side at x + 0.05
    xs = [0.09, 0.11, 0.12]
    c = collide.Collider(torus, 1, mesh_collision="exact")
    assert c.mesh_collision == "exact"
    res = c.detect(states(xs))
    sag = (BIG - SMALL) * (1 - math.cos(math.pi / NU)) + SMALL * (1 - math.cos(math.pi / NV))
    assert res.ncon[0] == 0
    for k, x in enumerate(xs[1:], start=1):
        assert res.ncon[k] >= 1
        r = res.records[res.start[k]:res.start[k] + res.ncon[k]]
        want = (BIG - SMALL) - (x + 0.05)
        assert abs(r["dist"].min() - want) <= sag + 1e-9, (x, r["dist"])


@pytest.mark.parametrize("geom", ['type="cylinder" size="0.05 0.1"',
                                  'type="ellipsoid" size="0.05 0.05 0.1"'])
def test_cylinder_and_ellipsoid_in_the_hole_by_the_triangles(geom: str) -> None:
    # an upright cylinder (radius 0.05) or ellipsoid (0.05 across) in the hole: nothing until
    # its side reaches the inner wall at x = 0.1, then the wall's depth
    model = collide.Model.from_xml_string(
        torus_xml().replace('type="sphere" size="0.05"', geom))
    xs = [0.0, 0.09, 0.11, 0.12]
    hull = collide.Collider(model, 1).detect(states(xs))
    res = collide.Collider(model, 1, mesh_collision="exact").detect(states(xs))
    assert hull.ncon[0] >= 1  # the hull fills the hole
    sag = (BIG - SMALL) * (1 - math.cos(math.pi / NU)) + SMALL * (1 - math.cos(math.pi / NV))
    assert list(res.ncon[:2]) == [0, 0]
    for k, x in enumerate(xs[2:], start=2):
        r = res.records[res.start[k]:res.start[k] + res.ncon[k]]
        want = (BIG - SMALL) - (x + 0.05)
        assert res.ncon[k] >= 1 and abs(r["dist"].min() - want) <= sag + 1e-9, (x, r["dist"])


def test_exact_contacts_are_the_same_on_1_and_3_threads_and_survive_pickling(
    torus: collide.Model,
) -> None:
    q = states(list(np.linspace(0.0, 0.14, 15)))
    a = collide.Collider(torus, 1, mesh_collision="exact").detect(q)
    b = collide.Collider(torus, 3, mesh_collision="exact").detect(q)
    assert len(a) > 0 and a.records.tobytes() == b.records.tobytes()
    c = pickle.loads(pickle.dumps(collide.Collider(torus, 2, mesh_collision="exact")))
    assert c.mesh_collision == "exact"
    assert c.detect(q).records.tobytes() == a.records.tobytes()
    assert collide.Collider(torus).mesh_collision == "hull"


def test_bad_mesh_collision_is_an_input_error(torus: collide.Model) -> None:
    with pytest.raises(collide.InputError, match="mesh_collision"):
        collide.Collider(torus, 1, mesh_collision="sdf")  # type: ignore[arg-type]


def test_mesh_backed_sdf_geom_collides_by_its_triangles_when_exact(torus: collide.Model) -> None:
    # the same torus as MuJoCo's mesh-backed sdf geom: "exact" collides it as the mesh geom,
    # "hull" runs MuJoCo's sdf path on its octree (other contacts)
    sdf = collide.Model.from_xml_string(
        torus_xml().replace('<geom type="mesh" mesh="torus"/>', '<geom type="sdf" mesh="torus"/>')
    )
    q = states([0.11, 0.12, 0.13])
    want = collide.Collider(torus, 1, mesh_collision="exact").detect(q)
    got = collide.Collider(sdf, 1, mesh_collision="exact").detect(q)
    assert len(want) > 0 and got.records.tobytes() == want.records.tobytes()
    assert collide.Collider(sdf, 1).detect(q).records.tobytes() != want.records.tobytes()
