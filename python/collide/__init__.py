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
    "Collider",
    "Contacts",
    "Error",
    "FileError",
    "InputError",
    "InternalError",
    "Model",
    "ModelError",
    "__version__",
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


def _model_from_source(xml: str, file: str, dir: str, files: dict[str, bytes]) -> Model:
    """Unpickles a :class:`Model` (compiled again from its source, without disk access)."""
    return Model(_core.Model._from_source(xml, file, dir, files))


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
    def from_xml_path(cls, path: str | Any) -> Model:
        """Compiles the MJCF file at ``path``. Raises :class:`FileError` if it cannot be
        read and :class:`ModelError` (naming file, line and element) if it does not compile."""
        try:
            import os

            p = os.fspath(path)
        except TypeError:
            raise InputError(f"path must be str or os.PathLike, got {type(path).__name__}") from None
        if not isinstance(p, str):
            p = os.fsdecode(p)
        return cls(_core.Model.from_xml_path(p))

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
