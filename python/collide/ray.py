"""Scale-out on Ray: :class:`RayCollider` shards a batch of states over Ray actors, each of
which builds the model once (from its pickled source) and runs a :class:`collide.Collider`
on its CPUs. Results come back in order and equal a local ``Collider.detect`` exactly. The
actors' colliders solve every world afresh (``warm_start=False``): a shard's worlds change
actors from call to call, so no world could continue its own history there; the results equal
a local ``Collider(model, warm_start=False)`` at every call, and a local default collider at
its first call.

Ray is an optional dependency (``pip install collide-engine[ray]``); it is imported when a
:class:`RayCollider` is made. Multi-node use::

    # on the head node:    ray start --head --port=6379
    # on each other node:  ray start --address=HEAD_IP:6379
    import ray, collide, collide.ray
    ray.init(address="auto")
    model = collide.Model.from_xml_path("humanoid.xml")
    rc = collide.ray.RayCollider(model, num_actors=8, num_cpus=4)   # 8 actors x 4 threads
    contacts = rc.detect(qpos)        # qpos (nbatch, nq); same result as a local call
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import Collider, Contacts, InputError, Model, _core, _f64

__all__ = ["RayCollider"]

_ACTOR: Any = None


def _actor_class() -> Any:
    global _ACTOR
    if _ACTOR is None:
        import ray

        @ray.remote
        class _Shard:
            """One Ray actor: a model built once and a collider on ``nthread`` threads."""

            def __init__(self, model: Model, nthread: int) -> None:
                # (no warm start: see the module docs)
                self.collider = Collider(model, nthread, warm_start=False)

            def detect(
                self, qpos: np.ndarray, mocap_pos: Any, mocap_quat: Any, body_awake: Any, poses: bool
            ) -> tuple[Any, ...]:
                c = self.collider.detect(qpos, mocap_pos, mocap_quat, body_awake, poses=poses)
                return (c.records, c.ncon, c.geom_xpos, c.geom_xmat)

        _ACTOR = _Shard
    return _ACTOR


def _rows(x: Any, name: str, nbatch: int, shared_ndim: int) -> tuple[Any, bool]:
    """``x`` and whether it has one row per world (else it is shared by all worlds)."""
    if x is None:
        return None, False
    a = np.asarray(x)
    return a, a.ndim == shared_ndim + 1 and a.shape[0] == nbatch


class RayCollider:
    """A batch collider sharded over ``num_actors`` Ray actors of ``num_cpus`` CPUs each
    (each actor runs ``num_cpus`` threads). Requires ``ray.init()`` to have been called (or
    calls it with defaults)."""

    def __init__(self, model: Model, num_actors: int | None = None, num_cpus: int = 1) -> None:
        import ray

        if not isinstance(model, Model):
            raise InputError(f"model must be a collide.Model, got {type(model).__name__}")
        if not isinstance(num_cpus, int) or num_cpus < 1:
            raise InputError(f"num_cpus must be a positive int, got {num_cpus!r}")
        if not ray.is_initialized():
            ray.init()
        if num_actors is None:
            num_actors = max(1, int(ray.cluster_resources().get("CPU", 1)) // num_cpus)
        if not isinstance(num_actors, int) or num_actors < 1:
            raise InputError(f"num_actors must be a positive int, got {num_actors!r}")
        self.model = model
        cls = _actor_class()
        # Ray sets OMP_NUM_THREADS, not our pool size: pass it explicitly
        self.actors = [
            cls.options(num_cpus=num_cpus).remote(model, num_cpus) for _ in range(num_actors)
        ]

    def detect(
        self,
        qpos: Any,
        mocap_pos: Any = None,
        mocap_quat: Any = None,
        body_awake: Any = None,
        poses: bool = False,
        nshard: int | None = None,
    ) -> Contacts:
        """Like :meth:`collide.Collider.detect` on a batch ``(nbatch, nq)``, split into
        ``nshard`` contiguous shards (default: two per actor) spread over the actors."""
        import ray

        q = _f64(qpos, "qpos")
        nq = self.model.nq
        if q.ndim != 2 or q.shape[1] != nq:
            raise InputError(f"qpos has shape {q.shape}, expected (nbatch, {nq})")
        nbatch = q.shape[0]
        if nshard is None:
            nshard = 2 * len(self.actors)
        nshard = max(1, min(int(nshard), max(nbatch, 1)))
        mp, mp_per = _rows(mocap_pos, "mocap_pos", nbatch, 2)
        mq, mq_per = _rows(mocap_quat, "mocap_quat", nbatch, 2)
        aw, aw_per = _rows(body_awake, "body_awake", nbatch, 1)
        bounds = np.linspace(0, nbatch, nshard + 1).astype(np.int64)
        refs = []
        for s in range(nshard):
            lo, hi = int(bounds[s]), int(bounds[s + 1])
            part = lambda a, per: (a[lo:hi] if per else a)  # noqa: E731
            actor = self.actors[s % len(self.actors)]
            refs.append(
                actor.detect.remote(
                    q[lo:hi], part(mp, mp_per), part(mq, mq_per), part(aw, aw_per), poses
                )
            )
        parts = ray.get(refs)
        ncon = np.concatenate([p[1] for p in parts]).astype(np.int32, copy=False)
        total = int(ncon.sum())
        buf = np.empty(total * _core.RECORD_F64, dtype=np.float64)
        from . import CONTACT_DTYPE

        out = buf.view(CONTACT_DTYPE)
        k = 0
        for s, p in enumerate(parts):
            r = p[0]
            n = len(r)
            out[k : k + n] = r
            out["worldid"][k : k + n] += int(bounds[s])
            k += n
        start = np.zeros(nbatch, dtype=np.int64)
        if nbatch > 1:
            np.cumsum(ncon[:-1], out=start[1:])
        xpos = xmat = None
        if poses:
            xpos = np.concatenate([p[2] for p in parts])
            xmat = np.concatenate([p[3] for p in parts])
        return Contacts(buf, total, ncon, start, xpos, xmat)

    def shutdown(self) -> None:
        """Ends the actors."""
        import ray

        for a in self.actors:
            ray.kill(a)
        self.actors = []
