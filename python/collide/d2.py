"""The 2D module (the robot-fish pool and beyond): shapes, scenes and queries.

A :class:`Scene` is built from the JSON scene format of ``collide 2d`` (a ``dict`` or its
text): shapes (``circle``, ``box``, ``polygon``, ``segment``, ``capsule``, ``border``,
``compound``, ``fish``) with their world poses, and optional JSON queries. Queries over index
pairs return NumPy arrays. Conventions: SI units, angles counter-clockwise in radians, normals
from A to B, ``depth >= 0`` iff the shapes intersect, ``mtv = depth * normal``.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from . import _core
from ._errors import InputError

__all__ = ["Scene"]


def _pairs(pairs: Any) -> np.ndarray:
    try:
        a = np.asarray(pairs)
    except Exception as e:
        raise InputError(f"pairs cannot be read as an array: {e}") from None
    if a.size == 0:
        a = a.reshape(0, 2)
    if a.dtype.kind not in "iu":
        raise InputError(f"pairs has dtype {a.dtype}; expected integer shape indices")
    if a.ndim == 1 and a.shape == (2,):
        a = a.reshape(1, 2)
    return np.ascontiguousarray(a, dtype=np.int64)


class Scene:
    """A parsed 2D scene (immutable; pickles by its JSON)."""

    __slots__ = ("_core",)

    def __init__(self, scene: str | dict[str, Any]) -> None:
        if isinstance(scene, dict):
            try:
                text = json.dumps(scene, allow_nan=False)
            except (TypeError, ValueError) as e:
                raise InputError(f"2D scene: {e}") from None
        elif isinstance(scene, str):
            text = scene
        else:
            raise InputError(f"scene must be a dict or JSON text, got {type(scene).__name__}")
        self._core = _core.Scene2D(text)

    @property
    def nshape(self) -> int:
        """Number of shapes."""
        return int(self._core.nshape)

    @property
    def nquery(self) -> int:
        """Number of JSON queries."""
        return int(self._core.nquery)

    def run(self) -> list[dict[str, Any]]:
        """The results of the scene's JSON queries, in order (as ``collide 2d`` prints them)."""
        results: list[dict[str, Any]] = json.loads(self._core.run_queries())["results"]
        return results

    def intersecting_pairs(self) -> dict[str, np.ndarray]:
        """Every intersecting pair (broad then narrow phase, margin 0), in pair order:
        ``pairs`` (n, 2), ``depth`` (n,), ``normal``, ``mtv``, ``action_point`` (n, 2)."""
        return dict(self._core.intersecting_pairs())

    def contacts(self, pairs: Any, margin: float = 0.0) -> dict[str, np.ndarray]:
        """Contacts of index ``pairs`` (n, 2) with a speculative ``margin`` (>= 0):
        ``intersect``, ``speculative`` (bool), ``depth`` (``-distance`` when apart),
        ``normal``, ``mtv``, ``action_point``."""
        try:
            m = float(margin)
        except (TypeError, ValueError):
            raise InputError(f"margin must be a number, got {margin!r}") from None
        return dict(self._core.contacts(_pairs(pairs), m))

    def distances(self, pairs: Any) -> dict[str, np.ndarray]:
        """Signed distances of index ``pairs`` (negative in penetration): ``distance`` (n,),
        ``normal``, ``point_a``, ``point_b`` (n, 2)."""
        return dict(self._core.distances(_pairs(pairs)))

    def __reduce__(self) -> tuple[Any, ...]:
        return (Scene, (self._core.json,))

    def __repr__(self) -> str:
        return f"<collide.d2.Scene {self.nshape} shapes>"
