"""collide.ray on a local Ray cluster of 2 CPUs: a batch sharded over two actors comes back
in order and equal to a local call, bit for bit."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

import collide

from .conftest import random_states

ray = pytest.importorskip("ray")


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


def test_batch_over_a_2_cpu_ray_cluster_equals_the_local_result(
    cluster: Any, humanoid: collide.Model
) -> None:
    import collide.ray

    q = random_states(humanoid, 1000, seed=21)
    q.setflags(write=False)
    local = collide.Collider(humanoid, 2).detect(q, poses=True)
    rc = collide.ray.RayCollider(humanoid, num_actors=2, num_cpus=1)
    try:
        # uneven shards: 7 of them over 2 actors
        remote = rc.detect(q, poses=True, nshard=7)
    finally:
        rc.shutdown()
    assert len(local) > 300
    assert np.array_equal(remote.ncon, local.ncon)
    assert np.array_equal(remote.start, local.start)
    for f in collide.CONTACT_DTYPE.names or ():
        assert remote.records[f].tobytes() == local.records[f].tobytes(), f
    assert remote.geom_xpos is not None and local.geom_xpos is not None
    assert remote.geom_xpos.tobytes() == local.geom_xpos.tobytes()
