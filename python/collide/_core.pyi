"""Stubs of the compiled module collide._core (use the classes of `collide` instead)."""

from typing import Any, final

import numpy as np
from numpy.typing import NDArray

__all__ = ["Model", "Collider", "Scene2D", "_is_analytic", "RECORD_F64", "__version__"]

__version__: str
RECORD_F64: int

def _is_analytic(t1: int, t2: int) -> bool: ...

@final
class Model:
    @staticmethod
    def from_xml_path(path: str) -> Model: ...
    @staticmethod
    def from_xml_string(
        xml: str, assets: dict[str, bytes] | None = None, dir: str | None = None
    ) -> Model: ...
    @staticmethod
    def _from_source(xml: str, file: str, dir: str, files: dict[str, bytes]) -> Model: ...
    def _source(self) -> tuple[str, str, str, dict[str, bytes]]: ...
    def _arrays(self) -> dict[str, Any]: ...

@final
class Collider:
    def __new__(cls, model: Model, nthread: int | None = None) -> Collider: ...
    @property
    def nthread(self) -> int: ...
    def detect(
        self,
        qpos: NDArray[np.float64],
        mocap_pos: NDArray[np.float64] | None = None,
        mocap_quat: NDArray[np.float64] | None = None,
        body_awake: NDArray[np.int32] | None = None,
        out: NDArray[np.float64] | None = None,
        out_ncon: NDArray[np.int32] | None = None,
        out_start: NDArray[np.int64] | None = None,
        poses: bool = False,
    ) -> tuple[
        NDArray[np.float64],
        int,
        NDArray[np.int32],
        NDArray[np.int64],
        NDArray[np.float64] | None,
        NDArray[np.float64] | None,
    ]: ...

@final
class Scene2D:
    def __new__(cls, json: str) -> Scene2D: ...
    @property
    def json(self) -> str: ...
    @property
    def nshape(self) -> int: ...
    @property
    def nquery(self) -> int: ...
    def run_queries(self) -> str: ...
    def intersecting_pairs(self) -> dict[str, NDArray[Any]]: ...
    def contacts(self, pairs: NDArray[np.int64], margin: float = 0.0) -> dict[str, NDArray[Any]]: ...
    def distances(self, pairs: NDArray[np.int64]) -> dict[str, NDArray[Any]]: ...
