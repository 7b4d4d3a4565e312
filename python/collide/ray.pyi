"""Stubs of collide.ray (hand-written; checked with mypy.stubtest)."""

from typing import Any

from . import Contacts, Model

__all__ = ["RayCollider"]

_ACTOR: Any

def _actor_class() -> Any: ...
def _rows(x: Any, name: str, nbatch: int, shared_ndim: int) -> tuple[Any, bool]: ...

class RayCollider:
    model: Model
    actors: list[Any]
    def __init__(self, model: Model, num_actors: int | None = None, num_cpus: int = 1) -> None: ...
    def detect(
        self,
        qpos: Any,
        mocap_pos: Any = None,
        mocap_quat: Any = None,
        body_awake: Any = None,
        poses: bool = False,
        nshard: int | None = None,
    ) -> Contacts: ...
    def shutdown(self) -> None: ...
