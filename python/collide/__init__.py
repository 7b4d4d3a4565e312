"""collide: MuJoCo 4.0.0-compatible collision detection, batched over NumPy arrays.

Quick start::

    import numpy as np, collide
    model = collide.Model.from_xml_path("humanoid.xml")
    collider = collide.Collider(model)                # all cores
    qpos = np.tile(model.qpos0, (1000, 1))            # (nbatch, nq), float64
    c = collider.detect(qpos)                         # contacts of all 1000 worlds
    c.worldid, c.geom, c.dist, c.pos, c.frame         # flat over all worlds
    c.ncon, c.start                                   # per world: count and first index

Conventions are MuJoCo's: batch dimension first, float64, quaternions ``(w, x, y, z)``,
matrices row-major ``(…, 9)``, ``frame[:, 0:3]`` the normal from ``geom[:, 0]`` to
``geom[:, 1]``, ``dist`` negative in penetration, geom ids as in ``mujoco.MjModel``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from . import _core
from ._errors import Error, FileError, InputError, InternalError, ModelError

__all__ = [
    "CONTACT_DTYPE",
    "CollisionChecker",
    "Collider",
    "Contacts",
    "Distance",
    "Error",
    "FileError",
    "InputError",
    "InternalError",
    "Model",
    "ModelError",
    "__version__",
    "closest_pairs",
    "geom_distance",
    "in_collision",
    "render",
    "view",
]

__version__: str = _core.__version__

_F64 = np.dtype(np.float64)
_I32 = np.dtype(np.int32)

#: One contact record, MuJoCo's ``mjContact`` field names (plus ``worldid``); the layout the
#: Rust side writes (``crates/collide-py/src/collider.rs``, 248 bytes).
CONTACT_DTYPE = np.dtype(
    {
        "names": [
            "worldid",
            "geom",
            "dim",
            "exclude",
            "dist",
            "pos",
            "frame",
            "friction",
            "solref",
            "solreffriction",
            "solimp",
            "includemargin",
        ],
        "formats": [
            "<i4",
            ("<i4", (2,)),
            "<i4",
            "<i4",
            "<f8",
            ("<f8", (3,)),
            ("<f8", (9,)),
            ("<f8", (5,)),
            ("<f8", (2,)),
            ("<f8", (2,)),
            ("<f8", (5,)),
            "<f8",
        ],
        "offsets": [0, 4, 12, 16, 24, 32, 56, 128, 168, 184, 200, 240],
        "itemsize": 8 * _core.RECORD_F64,
    }
)

# (name, doc) of the sizes and per-element arrays of a Model
_SIZES = (
    "nq",
    "nv",
    "nbody",
    "njnt",
    "ngeom",
    "nmocap",
    "npair",
    "nexclude",
    "nmesh",
    "nhfield",
    "nkey",
    "opt_enableflags",
    "opt_disableflags",
)
_ARRAYS = (
    "body_parentid",
    "body_weldid",
    "body_rootid",
    "body_mocapid",
    "body_jntadr",
    "body_jntnum",
    "body_dofnum",
    "body_geomadr",
    "body_geomnum",
    "body_pos",
    "body_quat",
    "body_ipos",
    "body_iquat",
    "body_mass",
    "body_contype",
    "body_conaffinity",
    "body_margin",
    "jnt_type",
    "jnt_bodyid",
    "jnt_qposadr",
    "jnt_pos",
    "jnt_axis",
    "qpos0",
    "geom_type",
    "geom_bodyid",
    "geom_dataid",
    "geom_size",
    "geom_pos",
    "geom_quat",
    "geom_rbound",
    "geom_aabb",
    "geom_contype",
    "geom_conaffinity",
    "geom_condim",
    "geom_priority",
    "geom_friction",
    "geom_solmix",
    "geom_solref",
    "geom_solimp",
    "geom_margin",
    "geom_gap",
    "pair_geom1",
    "pair_geom2",
    "pair_signature",
    "exclude_signature",
    "key_qpos",
)
_NAMES = {
    "body": "body_names",
    "joint": "jnt_names",
    "jnt": "jnt_names",
    "geom": "geom_names",
    "key": "key_names",
    "mesh": "mesh_names",
    "hfield": "hfield_names",
}


def _model_from_source(
    xml: str,
    file: str,
    dir: str,
    files: dict[str, bytes],
    urdf: bool = False,
    package_dirs: list[tuple[str, str]] | None = None,
) -> Model:
    """Unpickles a :class:`Model` (compiled again from its source, without disk access)."""
    return Model(_core.Model._from_source(xml, file, dir, files, urdf, package_dirs))


class Model:
    """A compiled MJCF model (immutable). Sizes and arrays are read-only and use MuJoCo's
    names, dtypes (``int32`` ids, ``float64`` values) and shapes (quaternions ``(n, 4)`` as
    ``(w, x, y, z)``); ``-1`` marks "none" in id arrays (``body_mocapid``, ``geom_dataid``).
    A model pickles by its source: the XML text plus every file the compiler read."""

    __slots__ = ("_core", "_a")

    def __init__(self, core: _core.Model) -> None:
        if not isinstance(core, _core.Model):
            raise InputError("use Model.from_xml_path or Model.from_xml_string to build a Model")
        self._core = core
        self._a: dict[str, Any] = core._arrays()

    @classmethod
    def from_xml_path(cls, path: str | Any, package_dirs: Mapping[str, Any] | None = None) -> Model:
        """Compiles the MJCF file at ``path``, or the URDF file when its name ends in
        ``.urdf`` (MuJoCo's URDF reading; see docs/urdf.md). ``package_dirs`` maps URDF
        ``package://NAME/...`` names to folders (str or path; unlisted packages are searched
        for in the URDF file's folder tree). Raises :class:`FileError` if the file cannot be
        read and :class:`ModelError` (naming file, line and element) if it does not compile."""
        p = _path(path, "path")
        dirs = None
        if package_dirs is not None:
            if not isinstance(package_dirs, Mapping):
                raise InputError(
                    f"package_dirs must be a mapping of package names to folders, got {type(package_dirs).__name__}"
                )
            dirs = []
            for k, v in package_dirs.items():
                if not isinstance(k, str) or not k:
                    raise InputError(f"package_dirs: key {k!r} is not a package name (non-empty str)")
                dirs.append((k, _path(v, f"package_dirs[{k!r}]")))
        return cls(_core.Model.from_xml_path(p, dirs))

    @classmethod
    def from_xml_string(
        cls, xml: str, assets: Mapping[str, bytes] | None = None, dir: str | None = None
    ) -> Model:
        """Compiles MJCF text. ``assets`` maps file names (as the XML references them) to
        their bytes, as in ``mujoco.MjModel.from_xml_string``; other relative files are read
        from ``dir`` (default: the current directory)."""
        if not isinstance(xml, str):
            raise InputError(f"xml must be str, got {type(xml).__name__}")
        if assets is not None:
            if not isinstance(assets, Mapping):
                raise InputError(f"assets must be a mapping of file names to bytes, got {type(assets).__name__}")
            assets = dict(assets)
        if dir is not None and not isinstance(dir, str):
            raise InputError(f"dir must be str, got {type(dir).__name__}")
        return cls(_core.Model.from_xml_string(xml, assets, dir))

    def name2id(self, kind: str, name: str) -> int:
        """The id of the element of ``kind`` (``"body"``, ``"joint"``, ``"geom"``, ``"key"``,
        ``"mesh"``, ``"hfield"``) named ``name``, or -1 (``mujoco.mj_name2id``)."""
        names = self._names(kind)
        try:
            return names.index(name)
        except ValueError:
            return -1

    def id2name(self, kind: str, id: int) -> str | None:
        """The name of element ``id`` of ``kind``; ``None`` if unnamed (``mujoco.mj_id2name``)."""
        names = self._names(kind)
        if not isinstance(id, (int, np.integer)) or not 0 <= int(id) < len(names):
            raise InputError(f"{kind} id {id!r} out of range 0..{len(names)}")
        return names[int(id)] or None

    def _names(self, kind: str) -> tuple[str, ...]:
        key = _NAMES.get(kind)
        if key is None:
            raise InputError(f"unknown element kind {kind!r}; one of {sorted(set(_NAMES))}")
        names: tuple[str, ...] = self._a[key]
        return names

    @property
    def body_names(self) -> tuple[str, ...]:
        """Body names (``""`` when unnamed), by body id."""
        return self._a["body_names"]  # type: ignore[no-any-return]

    @property
    def jnt_names(self) -> tuple[str, ...]:
        """Joint names, by joint id."""
        return self._a["jnt_names"]  # type: ignore[no-any-return]

    @property
    def geom_names(self) -> tuple[str, ...]:
        """Geom names, by geom id."""
        return self._a["geom_names"]  # type: ignore[no-any-return]

    def __reduce__(self) -> tuple[Any, ...]:
        return (_model_from_source, self._core._source())

    def __repr__(self) -> str:
        a = self._a
        return f"<collide.Model nq={a['nq']} nbody={a['nbody']} ngeom={a['ngeom']}>"


def _make_property(name: str) -> property:
    def get(self: Model) -> Any:
        return self._a[name]

    get.__name__ = name
    return property(get, doc=f"MuJoCo's ``{name}`` (read-only).")


for _n in _SIZES + _ARRAYS:
    setattr(Model, _n, _make_property(_n))
del _n


def _path(x: Any, name: str) -> str:
    """``x`` (str or os.PathLike) as a str path."""
    import os

    try:
        p = os.fspath(x)
    except TypeError:
        raise InputError(f"{name} must be str or os.PathLike, got {type(x).__name__}") from None
    return p if isinstance(p, str) else os.fsdecode(p)


def _f64(x: Any, name: str) -> np.ndarray:
    """``x`` as a C-contiguous float64 array (no copy when it already is one)."""
    if type(x) is np.ndarray and x.dtype == _F64 and x.flags.c_contiguous:
        return x
    if x is None:
        raise InputError(f"{name} is required")
    try:
        a = np.asarray(x)
    except Exception as e:  # ragged lists, objects without an array form
        raise InputError(f"{name} cannot be read as an array: {e}") from None
    if a.dtype.kind not in "fiu":
        raise InputError(f"{name} has dtype {a.dtype}; expected real numbers (float64)")
    return np.ascontiguousarray(a, dtype=_F64)


def _awake(x: Any, name: str = "body_awake") -> np.ndarray:
    if type(x) is np.ndarray and x.dtype == _I32 and x.flags.c_contiguous:
        return x
    try:
        a = np.asarray(x)
    except Exception as e:
        raise InputError(f"body_awake cannot be read as an array: {e}") from None
    if a.dtype.kind not in "iub":
        raise InputError(f"body_awake has dtype {a.dtype}; expected integers (1 awake, 0 asleep, -1 static)")
    if a.size and (a.min() < -1 or a.max() > 1):
        raise InputError("body_awake holds values outside {-1, 0, 1} (1 awake, 0 asleep, -1 static)")
    return np.ascontiguousarray(a, dtype=_I32)


#: Contacts of all worlds of one :meth:`Collider.detect` call, flat: contact ``k`` belongs to
#: world ``worldid[k]``; world ``w``'s contacts are rows ``start[w]`` to
#: ``start[w] + ncon[w]``, in MuJoCo's order. Field arrays (``geom``, ``dist``, ``pos``,
#: ``frame``, ``normal``, ``friction``, ``solref``, ``solreffriction``, ``solimp``,
#: ``includemargin``, ``dim``, ``exclude``, ``worldid``) are views of one structured array
#: (``records``, dtype :data:`CONTACT_DTYPE`), made on first access. Implemented in Rust.
Contacts = _core.Contacts

#: Kinematics and collision detection for one model, on ``nthread`` threads (default: all
#: cores) of the collider's own pool; results are bit-identical for any thread count.
#: ``detect(qpos, mocap_pos=None, mocap_quat=None, body_awake=None, out=None, poses=False)``
#: takes one state ``(nq,)`` or a batch ``(nbatch, nq)``; ``mocap_pos`` ``(nmocap, 3)`` /
#: ``mocap_quat`` ``(nmocap, 4)`` (or with a leading ``nbatch``) move mocap bodies;
#: ``body_awake`` is MuJoCo's ``mjData.body_awake`` (1 awake, 0 asleep, -1 static), applied
#: when the model enables sleeping, as MuJoCo does; ``out`` is an earlier result whose buffers
#: are reused when large enough; ``poses=True`` adds ``geom_xpos``/``geom_xmat``. C-contiguous
#: float64 inputs are not copied, read-only arrays are accepted, the GIL is released while
#: computing. A collider pickles as its model and ``nthread``. Implemented in Rust.
Collider = _core.Collider


def _nthread(n: Any) -> int:
    """``nthread`` as given to a :class:`Distance` or :class:`CollisionChecker`."""
    if n is None:
        import os

        return max(1, min(os.cpu_count() or 1, 1024))
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise InputError(f"nthread must be a positive int or None, got {n!r}")
    if not 1 <= int(n) <= 1024:
        raise InputError(f"nthread must be in 1..=1024, got {n}")
    return int(n)


def _core_model(model: Any) -> _core.Model:
    if not isinstance(model, Model):
        raise InputError(f"model must be a collide.Model, got {type(model).__name__}")
    return model._core


def _qpos(model: Model, qpos: Any) -> tuple[np.ndarray, bool]:
    """``qpos`` as a C-contiguous ``(nbatch, nq)`` float64 array, and whether it was batched."""
    q = _f64(qpos, "qpos")
    nq = model._a["nq"]
    if q.ndim == 1 and q.shape[0] == nq:
        return q.reshape(1, nq), False
    if q.ndim == 2 and q.shape[1] == nq:
        return q, True
    raise InputError(f"qpos has shape {q.shape}, expected ({nq},) or (nbatch, {nq}) for this model (nq = {nq})")


def _ids(x: Any, name: str) -> np.ndarray:
    """Integer ids as a C-contiguous int64 array."""
    try:
        a = np.asarray(x)
    except Exception as e:
        raise InputError(f"{name} cannot be read as an array: {e}") from None
    if a.size == 0:
        return np.zeros(a.shape, dtype=np.int64)
    if a.dtype.kind not in "iu":
        raise InputError(f"{name} has dtype {a.dtype}; expected integer geom ids")
    return np.ascontiguousarray(a, dtype=np.int64)


def _distmax(d: Any) -> float:
    if isinstance(d, bool) or not isinstance(d, (int, float, np.integer, np.floating)):
        raise InputError(f"distmax must be a real number, got {d!r}")
    return float(d)


class _Query:
    """What :class:`Distance` and :class:`CollisionChecker` share: the model and a query
    object running on its own pool of ``nthread`` threads (default: all cores)."""

    __slots__ = ("_model", "_q")

    def __init__(self, model: Model, nthread: int | None = None) -> None:
        self._q = _core.Query(_core_model(model), _nthread(nthread))
        self._model = model

    @property
    def model(self) -> Model:
        """The model queried."""
        return self._model

    @property
    def nthread(self) -> int:
        """Number of worker threads."""
        return self._q.nthread

    def __repr__(self) -> str:
        return f"<collide.{type(self).__name__} nthread={self.nthread} ngeom={self._model._a['ngeom']}>"


class Distance(_Query):
    """Signed distances between geoms (MuJoCo's ``mj_geomDistance``), one state or a batch,
    on ``nthread`` threads (default: all cores) of the object's own pool, with the GIL
    released; results are identical for any thread count. Distances are negative in
    penetration and capped at ``distmax`` (then ``fromto`` is zero); ``fromto`` runs from
    the first geom's point to the second's (world frame). See docs/distance.md."""

    __slots__ = ()

    def geom_distance(self, qpos: Any, pairs: Any, distmax: float) -> tuple[np.ndarray, np.ndarray]:
        """Distances of ``pairs`` (geom ids, ``(npair, 2)``) at ``qpos`` (``(nq,)`` or
        ``(nbatch, nq)``): ``(dist, fromto)`` of shapes ``(npair,)`` and ``(npair, 6)``, or
        ``(nbatch, npair)`` and ``(nbatch, npair, 6)`` for a batch."""
        q, batched = _qpos(self._model, qpos)
        p = _ids(pairs, "pairs")
        if p.size == 0:
            p = p.reshape(0, 2)
        if p.ndim != 2 or p.shape[1] != 2:
            raise InputError(f"pairs has shape {p.shape}, expected (npair, 2)")
        d, f = self._q.distance(q, p, _distmax(distmax))
        return (d, f) if batched else (d[0], f[0])

    def closest_pairs(
        self,
        qpos: Any,
        geoms1: Any,
        geoms2: Any | None = None,
        distmax: float = 1.0,
        model_filters: bool = False,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every pair ``(g1 in geoms1, g2 in geoms2)`` (default ``geoms2``: ``geoms1``) closer
        than ``distmax`` at one state ``qpos`` (``(nq,)``): ``(pairs (k, 2), dist (k,),
        fromto (k, 6))`` in the order of ``geoms1`` then ``geoms2``. Pairs on one body are
        skipped, a pair met twice is reported once (lower id first), visual-only meshes are
        skipped; ``model_filters=True`` keeps only pairs the model collides (contype /
        conaffinity, parent, exclude). The closest is ``pairs[dist.argmin()]``."""
        q, batched = _qpos(self._model, qpos)
        if batched:
            raise InputError(f"closest_pairs takes one state qpos of shape ({self._model._a['nq']},)")
        s1 = _ids(geoms1, "geoms1").reshape(-1)
        s2 = s1 if geoms2 is None else _ids(geoms2, "geoms2").reshape(-1)
        if not isinstance(model_filters, bool):
            raise InputError(f"model_filters must be bool, got {model_filters!r}")
        return self._q.closest_pairs(q[0], s1, s2, _distmax(distmax), model_filters)


class CollisionChecker(_Query):
    """Collision checks for planning: whether a configuration has any contact the model
    would generate (honouring contype/conaffinity, parent and exclude filters, margins),
    stopping at the first. One state or a batch, on ``nthread`` threads (default: all cores)
    of the object's own pool, with the GIL released; deterministic for any thread count."""

    __slots__ = ()

    def in_collision(self, qpos: Any) -> Any:
        """``bool`` for one state ``(nq,)``; a bool array ``(nbatch,)`` for ``(nbatch, nq)``."""
        q, batched = _qpos(self._model, qpos)
        out = self._q.in_collision(q)
        return out if batched else bool(out[0])


def geom_distance(model: Model, qpos: Any, pairs: Any, distmax: float) -> tuple[np.ndarray, np.ndarray]:
    """One-shot :meth:`Distance.geom_distance` on one thread."""
    return Distance(model, 1).geom_distance(qpos, pairs, distmax)


def closest_pairs(
    model: Model,
    qpos: Any,
    geoms1: Any,
    geoms2: Any | None = None,
    distmax: float = 1.0,
    model_filters: bool = False,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One-shot :meth:`Distance.closest_pairs` on one thread."""
    return Distance(model, 1).closest_pairs(qpos, geoms1, geoms2, distmax, model_filters)


def in_collision(model: Model, qpos: Any) -> Any:
    """One-shot :meth:`CollisionChecker.in_collision` on one thread."""
    return CollisionChecker(model, 1).in_collision(qpos)


def view(model: Model, qpos: Any, path: Any | None = None, title: str = "collide") -> str:
    """The viewer's self-contained HTML page (three.js and the scene embedded; no network)
    of ``model``'s collision geoms and contacts at ``qpos`` (``(nq,)`` or ``(nbatch, nq)``,
    a slider steps through the states). Written to ``path`` when given; returned as str."""
    q, _ = _qpos(model, qpos)
    if not isinstance(title, str):
        raise InputError(f"title must be str, got {type(title).__name__}")
    html = _core.view_html(_core_model(model), q, title)
    if path is not None:
        with open(_path(path, "path"), "w", encoding="utf-8") as f:
            f.write(html)
    return html


def render(
    model: Model,
    qpos: Any,
    path: Any | None = None,
    *,
    state: int = 0,
    width: int = 800,
    height: int = 560,
    azimuth: float = 55.0,
    elevation: float = 30.0,
    distance: float | None = None,
    lookat: Any | None = None,
    fov: float = 40.0,
) -> bytes:
    """A PNG picture (CPU rasteriser, no display needed) of state ``state`` of ``qpos``
    (``(nq,)`` or ``(nbatch, nq)``): collision geoms and contacts. Camera angles in degrees
    (azimuth 0 looks along -x; elevation in (-90, 90), positive looking down); ``distance``
    and ``lookat`` default to fitting the state. Written to ``path`` when given; returned."""
    q, _ = _qpos(model, qpos)
    ints = {"state": state, "width": width, "height": height}
    for k, v in ints.items():
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 0:
            raise InputError(f"{k} must be a non-negative int, got {v!r}")
    if not 1 <= width <= 8192 or not 1 <= height <= 8192:
        raise InputError(f"width and height must be in 1..=8192, got {width}x{height}")
    if state >= q.shape[0]:
        raise InputError(f"state {state} is out of range: qpos holds {q.shape[0]} states")
    reals = {"azimuth": azimuth, "elevation": elevation, "fov": fov}
    if distance is not None:
        reals["distance"] = distance
    for k, v in reals.items():
        if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)) or not np.isfinite(v):
            raise InputError(f"{k} must be a finite real number, got {v!r}")
    look = None
    if lookat is not None:
        la = _f64(lookat, "lookat")
        if la.shape != (3,) or not np.isfinite(la).all():
            raise InputError(f"lookat must be 3 finite numbers, got shape {la.shape}")
        look = (float(la[0]), float(la[1]), float(la[2]))
    png = _core.render_png(
        _core_model(model),
        q,
        int(state),
        int(width),
        int(height),
        float(azimuth),
        float(elevation),
        float(fov),
        None if distance is None else float(distance),
        look,
    )
    if path is not None:
        with open(_path(path, "path"), "wb") as f:
            f.write(png)
    return png
