"""Stubs of the compiled module collide._core (use the classes of `collide` instead)."""

from typing import Any, Literal, final

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "Model",
    "Collider",
    "Contacts",
    "Scene2D",
    "Query",
    "view_html",
    "render_png",
    "_is_analytic",
    "RECORD_F64",
    "__version__",
]

__version__: str
RECORD_F64: int

def _is_analytic(t1: int, t2: int) -> bool: ...

@final
class Model:
    @staticmethod
    def from_xml_path(path: str, package_dirs: list[tuple[str, str]] | None = None) -> Model: ...
    @staticmethod
    def from_xml_string(
        xml: str, assets: dict[str, bytes] | None = None, dir: str | None = None
    ) -> Model: ...
    @staticmethod
    def _from_source(
        xml: str,
        file: str,
        dir: str,
        files: dict[str, bytes],
        urdf: bool = False,
        package_dirs: list[tuple[str, str]] | None = None,
    ) -> Model: ...
    def _source(self) -> tuple[str, str, str, dict[str, bytes], bool, list[tuple[str, str]]]: ...
    def _arrays(self) -> dict[str, Any]: ...

@final
class Collider:
    def __new__(
        cls,
        model: Any,
        nthread: int | None = None,
        mesh_collision: Literal["hull", "exact"] = "hull",
    ) -> Collider: ...
    @property
    def nthread(self) -> int: ...
    @property
    def model(self) -> Any: ...
    @property
    def mesh_collision(self) -> Literal["hull", "exact"]: ...
    def __reduce__(self) -> tuple[Any, tuple[Any, int | None, str]]: ...
    def detect(
        self,
        qpos: Any,
        mocap_pos: Any = None,
        mocap_quat: Any = None,
        body_awake: Any = None,
        out: Contacts | None = None,
        poses: bool = False,
    ) -> Contacts: ...

@final
class Contacts:
    def __new__(
        cls,
        buf: NDArray[np.float64],
        n: int,
        ncon: NDArray[np.int32],
        start: NDArray[np.int64],
        geom_xpos: NDArray[np.float64] | None = None,
        geom_xmat: NDArray[np.float64] | None = None,
    ) -> Contacts: ...
    def __len__(self) -> int: ...
    @property
    def records(self) -> NDArray[np.void]: ...
    @property
    def _buf(self) -> NDArray[np.float64]: ...
    @property
    def ncon(self) -> NDArray[np.int32]: ...
    @property
    def start(self) -> NDArray[np.int64]: ...
    @property
    def nbatch(self) -> int: ...
    @property
    def geom_xpos(self) -> NDArray[np.float64] | None: ...
    @property
    def geom_xmat(self) -> NDArray[np.float64] | None: ...
    @property
    def worldid(self) -> NDArray[np.int32]: ...
    @property
    def geom(self) -> NDArray[np.int32]: ...
    @property
    def dist(self) -> NDArray[np.float64]: ...
    @property
    def pos(self) -> NDArray[np.float64]: ...
    @property
    def frame(self) -> NDArray[np.float64]: ...
    @property
    def normal(self) -> NDArray[np.float64]: ...
    @property
    def friction(self) -> NDArray[np.float64]: ...
    @property
    def solref(self) -> NDArray[np.float64]: ...
    @property
    def solreffriction(self) -> NDArray[np.float64]: ...
    @property
    def solimp(self) -> NDArray[np.float64]: ...
    @property
    def includemargin(self) -> NDArray[np.float64]: ...
    @property
    def dim(self) -> NDArray[np.int32]: ...
    @property
    def exclude(self) -> NDArray[np.int32]: ...
    def world(self, w: int) -> NDArray[np.void]: ...

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

@final
class Query:
    def __new__(cls, model: Model, nthread: int) -> Query: ...
    @property
    def nthread(self) -> int: ...
    def distance(
        self, qpos: NDArray[np.float64], pairs: NDArray[np.int64], distmax: float
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]: ...
    def in_collision(self, qpos: NDArray[np.float64]) -> NDArray[np.bool_]: ...
    def closest_pairs(
        self,
        qpos: NDArray[np.float64],
        set1: NDArray[np.int64],
        set2: NDArray[np.int64],
        distmax: float,
        model_filters: bool = False,
    ) -> tuple[NDArray[np.int64], NDArray[np.float64], NDArray[np.float64]]: ...

def view_html(model: Model, qpos: NDArray[np.float64], title: str) -> str: ...
def render_png(
    model: Model,
    qpos: NDArray[np.float64],
    state: int,
    width: int,
    height: int,
    azimuth: float,
    elevation: float,
    fov: float,
    distance: float | None = None,
    lookat: tuple[float, float, float] | None = None,
) -> bytes: ...
