//! `collide._core.Collider`: forward kinematics and collision detection of a batch of states,
//! in parallel on the collider's own rayon pool with the GIL released, output as one flat
//! buffer of contact records (viewed in Python as a structured array with MuJoCo's fields).
//!
//! Determinism: the worlds are cut into one contiguous chunk per worker and each world is
//! computed start to finish by one worker with the sequential pipeline, from that world index's
//! own memory of its earlier calls (a `WorldCache` swapped into the worker's collider; the sleep
//! state is set per world); a world's contacts depend on nothing else, so the output is
//! bit-identical for any thread count.

use std::sync::{Arc, Mutex};

use collide::glam::{DQuat, DVec3};
use collide::math::{mat_to_rowmajor, quat_wxyz};
use collide::model::enable;
use collide::{
    forward_kinematics, Collider, ColliderOptions, Contact, KinematicsError, MeshCollision, Model,
    Poses, WorldCache, WorldCaches,
};
use numpy::{IntoPyArray, PyArray1, PyArrayDyn, PyArrayMethods, PyUntypedArrayMethods};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use rayon::prelude::*;

use crate::errors::{guard, input, Error};
use crate::model::PyModel;

/// `float64` slots per contact record. Layout (little-endian, byte offsets): `worldid` i4 @0,
/// `geom` 2×i4 @4, `dim` i4 @12, `exclude` i4 @16, padding @20, `dist` @24, `pos` 3×f8 @32,
/// `frame` 9×f8 @56 (rows: normal from geom 0 to geom 1, tangent 1, tangent 2), `friction` 5×f8
/// @128, `solref` 2×f8 @168, `solreffriction` 2×f8 @184, `solimp` 5×f8 @200, `includemargin`
/// f8 @240; 248 bytes. `collide/_contacts.py` declares the same dtype.
pub const RECORD_F64: usize = 31;

/// Batches smaller than this run on the calling thread (a hop to the pool costs more than a
/// few states); the result is the same either way.
const INLINE_BELOW: usize = 4;

fn pack(a: i32, b: i32) -> f64 {
    f64::from_bits(u64::from(a as u32) | (u64::from(b as u32) << 32))
}

fn write_record(r: &mut [f64], world: usize, c: &Contact) {
    r[0] = pack(world as i32, c.geom[0] as i32);
    r[1] = pack(c.geom[1] as i32, c.dim as i32);
    r[2] = pack(i32::from(c.exclude), 0);
    r[3] = c.dist;
    r[4..7].copy_from_slice(&c.pos.to_array());
    for (k, row) in c.frame.iter().enumerate() {
        r[7 + 3 * k..10 + 3 * k].copy_from_slice(&row.to_array());
    }
    r[16..21].copy_from_slice(&c.friction);
    r[21..23].copy_from_slice(&c.solref);
    r[23..25].copy_from_slice(&c.solreffriction);
    r[25..30].copy_from_slice(&c.solimp);
    r[30] = c.includemargin;
}

/// One worker's state, alone on its cache lines.
#[repr(align(128))]
struct Worker {
    collider: Collider<'static>,
    poses: Poses,
    mpos: Vec<DVec3>,
    mquat: Vec<DQuat>,
    asleep: Vec<bool>,
    /// Whether the collider may hold sleep flags from an earlier world.
    slept: bool,
}

struct Inner {
    workers: Vec<Worker>,
    /// Contacts of each world of the last call (reused).
    lists: Vec<Vec<Contact>>,
    /// What each world index kept of its earlier calls.
    worlds: WorldCaches,
    pool: Option<rayon::ThreadPool>,
}

/// Borrowed inputs of one call, validated.
struct Inputs<'a> {
    nbatch: usize,
    nq: usize,
    qpos: &'a [f64],
    /// Mocap positions and whether they are per world (else shared by all worlds).
    mocap_pos: Option<(&'a [f64], bool)>,
    mocap_quat: Option<(&'a [f64], bool)>,
    awake: Option<(&'a [i32], bool)>,
    sleep: bool,
}

/// The model's mocap bodies in mocap order.
fn mocap_bodies(m: &Model) -> Vec<usize> {
    let mut v = vec![0; m.nmocap()];
    for (b, id) in m.body_mocapid.iter().enumerate() {
        if let Some(k) = id {
            if let Some(slot) = v.get_mut(*k) {
                *slot = b;
            }
        }
    }
    v
}

fn kin_message(e: KinematicsError, world: usize, batched: bool) -> String {
    let at = |what: &str, i: usize, width: usize| {
        let (row, col) = (i / width.max(1), i % width.max(1));
        match (batched, width) {
            (true, 1) => format!("{what}[{world}, {i}]"),
            (true, _) => format!("{what}[{world}, {row}, {col}]"),
            (false, 1) => format!("{what}[{i}]"),
            (false, _) => format!("{what}[{row}, {col}]"),
        }
    };
    match e {
        KinematicsError::NotFinite { what, mut index } => {
            if what == "mocap_quat" {
                // the kinematics checks glam's (x, y, z, w) order; the input is (w, x, y, z)
                index = index - index % 4 + (index % 4 + 1) % 4;
            }
            let width = match what {
                "mocap_pos" => 3,
                "mocap_quat" => 4,
                _ => 1,
            };
            format!("{} is not finite", at(what, index, width))
        }
        other => other.to_string(),
    }
}

/// Kinematics and detection of world `i` by worker `w`.
#[allow(clippy::too_many_arguments)]
fn run_world(
    w: &mut Worker,
    m: &Model,
    mocap_body: &[usize],
    inp: &Inputs,
    i: usize,
    list: &mut Vec<Contact>,
    cache: &mut WorldCache,
    xpos: Option<&mut [f64]>,
    xmat: Option<&mut [f64]>,
) -> Result<(), String> {
    let nm = m.nmocap();
    let q = &inp.qpos[i * inp.nq..(i + 1) * inp.nq];
    let batched = inp.nbatch > 1;
    let mocap = if nm > 0 && (inp.mocap_pos.is_some() || inp.mocap_quat.is_some()) {
        for (k, &b) in mocap_body.iter().enumerate() {
            w.mpos[k] = match inp.mocap_pos {
                Some((p, per)) => {
                    let o = if per { i * nm * 3 } else { 0 } + 3 * k;
                    DVec3::new(p[o], p[o + 1], p[o + 2])
                }
                None => m.body_pos[b],
            };
            w.mquat[k] = match inp.mocap_quat {
                Some((p, per)) => {
                    let o = if per { i * nm * 4 } else { 0 } + 4 * k;
                    quat_wxyz(p[o], p[o + 1], p[o + 2], p[o + 3])
                }
                None => m.body_quat[b],
            };
        }
        Some((&w.mpos[..], &w.mquat[..]))
    } else {
        None
    };
    forward_kinematics(m, q, mocap, &mut w.poses).map_err(|e| kin_message(e, i, batched))?;
    if inp.sleep {
        match inp.awake {
            Some((a, per)) => {
                let nb = m.nbody();
                let a = if per { &a[i * nb..(i + 1) * nb] } else { a };
                for (s, &v) in w.asleep.iter_mut().zip(a) {
                    *s = v == 0;
                }
                w.collider.set_asleep(&w.asleep);
                w.slept = true;
            }
            None if w.slept => {
                w.collider.set_asleep(&[]);
                w.slept = false;
            }
            None => {}
        }
    }
    w.collider.detect_view_in(&w.poses.view(), list, cache);
    if let Some(xpos) = xpos {
        for (dst, p) in xpos.chunks_exact_mut(3).zip(&w.poses.geom_xpos) {
            dst.copy_from_slice(&p.to_array());
        }
    }
    if let Some(xmat) = xmat {
        for (dst, r) in xmat.chunks_exact_mut(9).zip(&w.poses.geom_xmat) {
            dst.copy_from_slice(&mat_to_rowmajor(r));
        }
    }
    Ok(())
}

/// Splits `v` into consecutive pieces of the given lengths.
fn split_lengths<T>(mut v: &mut [T], lens: impl Iterator<Item = usize>) -> Vec<&mut [T]> {
    let mut out = Vec::new();
    for n in lens {
        let (a, b) = std::mem::take(&mut v).split_at_mut(n);
        out.push(a);
        v = b;
    }
    out
}

/// A compiled model's collider: one pipeline per worker thread and its own thread pool.
#[pyclass(frozen, name = "Collider", module = "collide._core")]
pub struct PyCollider {
    // dropped before `model`, whose heap allocation its colliders borrow
    inner: Mutex<Inner>,
    model: Arc<Model>,
    mocap_body: Vec<usize>,
    nthread: usize,
    /// The Python `collide.Model` (for `model` and pickling).
    model_obj: Py<PyAny>,
    /// `nthread` as given (for pickling).
    nthread_arg: Option<i64>,
    /// How meshes collide (`"hull"` or `"exact"`).
    mesh_collision: MeshCollision,
    /// Whether touching box and mesh pairs start from their previous call.
    warm_start: bool,
}

/// `"hull"` or `"exact"` as a [`MeshCollision`].
fn mesh_collision_arg(s: &str) -> Result<MeshCollision, Error> {
    match s {
        "hull" => Ok(MeshCollision::Hull),
        "exact" => Ok(MeshCollision::Exact),
        _ => Err(input(format!(
            "mesh_collision must be \"hull\" or \"exact\", got {s:?}"
        ))),
    }
}

fn mesh_collision_name(m: MeshCollision) -> &'static str {
    match m {
        MeshCollision::Hull => "hull",
        MeshCollision::Exact => "exact",
    }
}

/// Calls `collide.<name>(x, label)` (the pure-Python converters `_f64` and `_awake`, which
/// turn any array-like into a C-contiguous array or raise `collide.InputError`).
fn convert<'py>(
    py: Python<'py>,
    cell: &'static PyOnceLock<Py<PyAny>>,
    name: &str,
    x: &Bound<'py, PyAny>,
    label: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let f = cell.get_or_try_init(py, || -> PyResult<Py<PyAny>> {
        Ok(py.import("collide")?.getattr(name)?.unbind())
    })?;
    f.bind(py).call1((x, label))
}

static TO_F64: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
static TO_AWAKE: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
static CONTACT_DTYPE: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
static NDARRAY: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// `x` itself when it is a C-contiguous float64 array (no copy), else converted.
fn as_f64<'py>(py: Python<'py>, x: &Bound<'py, PyAny>, label: &str) -> PyResult<Bound<'py, PyAny>> {
    if let Ok(a) = x.cast::<PyArrayDyn<f64>>() {
        if a.is_c_contiguous() {
            return Ok(x.clone());
        }
    }
    convert(py, &TO_F64, "_f64", x, label)
}

/// A model and its collider settings from the Python `collide.Model` object.
fn core_model<'py>(model: &Bound<'py, PyAny>) -> Result<Bound<'py, PyModel>, Error> {
    let bad = || {
        input(format!(
            "model must be a collide.Model, got {}",
            model
                .get_type()
                .name()
                .map(|n| n.to_string())
                .unwrap_or_default()
        ))
    };
    let core = model.getattr("_core").map_err(|_| bad())?;
    core.cast::<PyModel>().cloned().map_err(|_| bad())
}

#[pymethods]
impl PyCollider {
    /// A collider for `model` (a `collide.Model`) on `nthread` threads (`None`: all cores);
    /// `mesh_collision` is `"hull"` (meshes as convex hulls, like MuJoCo) or `"exact"`
    /// (meshes and mesh-backed sdf geoms by their triangles, prepared once and shared by the
    /// threads; a convex mesh against a convex shape by the convex solver). With `warm_start`
    /// (default), world `i` of a call continues world `i` of the previous call (touching box
    /// and mesh pairs start from their previous solve); `reset()` forgets every world's history.
    #[new]
    #[pyo3(signature = (model, nthread=None, mesh_collision="hull", warm_start=true))]
    fn new(
        model: &Bound<'_, PyAny>,
        nthread: Option<&Bound<'_, PyAny>>,
        mesh_collision: &str,
        warm_start: bool,
    ) -> PyResult<PyCollider> {
        guard(|| {
            let mesh_collision = mesh_collision_arg(mesh_collision)?;
            let core = core_model(model)?;
            let nthread_arg = match nthread {
                None => None,
                Some(v) => {
                    let bad = || input(format!("nthread must be a positive int or None, got {v}"));
                    if v.is_instance_of::<pyo3::types::PyBool>() {
                        return Err(bad());
                    }
                    Some(v.extract::<i64>().map_err(|_| bad())?)
                }
            };
            let n = match nthread_arg {
                None => std::thread::available_parallelism().map_or(1, |n| n.get()),
                Some(n) if (1..=1024).contains(&n) => n as usize,
                Some(n) => return Err(input(format!("nthread must be in 1..=1024, got {n}"))),
            };
            let arc = core.get().model.clone();
            // SAFETY: the colliders borrow the model inside `arc`'s allocation, which does not
            // move and outlives them: `inner` is declared before `model`, so it is dropped
            // first, and the `Arc` is never replaced.
            let m: &'static Model = unsafe { &*Arc::as_ptr(&arc) };
            // (each world index keeps its own history, whichever worker detects it)
            let options = ColliderOptions {
                mesh_collision,
                warm_start,
            };
            let first = Collider::with_options(m, options).map_err(|e| input(e.to_string()))?;
            let mut colliders = Vec::with_capacity(n);
            for _ in 1..n {
                colliders.push(first.another().map_err(|e| input(e.to_string()))?);
            }
            colliders.insert(0, first);
            // (every world index brings its own tables: the workers' would never be used)
            for c in &mut colliders {
                c.release_caches();
            }
            let workers = colliders
                .into_iter()
                .map(|collider| {
                    Ok(Worker {
                        collider,
                        poses: Poses::new(m),
                        mpos: vec![DVec3::ZERO; m.nmocap()],
                        mquat: vec![DQuat::IDENTITY; m.nmocap()],
                        asleep: vec![false; m.nbody()],
                        slept: false,
                    })
                })
                .collect::<Result<Vec<_>, Error>>()?;
            let pool = if n > 1 {
                Some(
                    rayon::ThreadPoolBuilder::new()
                        .num_threads(n)
                        .thread_name(|i| format!("collide-{i}"))
                        .build()
                        .map_err(|e| Error::Internal(format!("cannot start threads: {e}")))?,
                )
            } else {
                None
            };
            Ok(PyCollider {
                inner: Mutex::new(Inner {
                    workers,
                    lists: Vec::new(),
                    worlds: WorldCaches::new(),
                    pool,
                }),
                mocap_body: mocap_bodies(&arc),
                model: arc,
                nthread: n,
                model_obj: model.clone().unbind(),
                nthread_arg,
                mesh_collision,
                warm_start,
            })
        })
    }

    /// Number of worker threads.
    #[getter]
    fn nthread(&self) -> usize {
        self.nthread
    }

    /// The model (a `collide.Model`).
    #[getter]
    fn model(&self, py: Python<'_>) -> Py<PyAny> {
        self.model_obj.clone_ref(py)
    }

    /// How meshes collide: `"hull"` or `"exact"`.
    #[getter]
    fn mesh_collision(&self) -> &'static str {
        mesh_collision_name(self.mesh_collision)
    }

    /// Whether touching box and mesh pairs start from their previous call (per world index).
    #[getter]
    fn warm_start(&self) -> bool {
        self.warm_start
    }

    /// Forgets what every world kept of earlier calls: the next call detects each world as a
    /// fresh collider would.
    fn reset(&self, py: Python<'_>) -> PyResult<()> {
        guard(|| {
            py.detach(|| {
                let mut locked = self.inner.lock().map_err(|_| {
                    Error::Internal("collider poisoned by an earlier internal error".into())
                })?;
                locked.worlds.clear();
                Ok(())
            })
        })
    }

    /// Pickles as the model (by its source), `nthread`, `mesh_collision` and `warm_start` (not
    /// the worlds' history).
    #[allow(clippy::type_complexity)]
    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(
        Bound<'py, PyAny>,
        (Py<PyAny>, Option<i64>, &'static str, bool),
    )> {
        let me = slf.get();
        Ok((
            slf.get_type().into_any(),
            (
                me.model_obj.clone_ref(slf.py()),
                me.nthread_arg,
                mesh_collision_name(me.mesh_collision),
                me.warm_start,
            ),
        ))
    }

    fn __repr__(&self) -> String {
        format!(
            "<collide.Collider nthread={} nq={} ngeom={}>",
            self.nthread,
            self.model.nq(),
            self.model.ngeom()
        )
    }

    /// Contacts of one state (`qpos` of shape `(nq,)`) or a batch `(nbatch, nq)`; see the
    /// stubs for the full contract. Returns a `Contacts`.
    #[pyo3(signature = (qpos, mocap_pos=None, mocap_quat=None, body_awake=None, out=None, poses=false))]
    #[allow(clippy::too_many_arguments)]
    fn detect<'py>(
        &self,
        py: Python<'py>,
        qpos: &Bound<'py, PyAny>,
        mocap_pos: Option<&Bound<'py, PyAny>>,
        mocap_quat: Option<&Bound<'py, PyAny>>,
        body_awake: Option<&Bound<'py, PyAny>>,
        out: Option<&Bound<'py, PyAny>>,
        poses: bool,
    ) -> PyResult<Contacts> {
        guard(|| {
            let q = as_f64(py, qpos, "qpos")?;
            let mp = mocap_pos.map(|x| as_f64(py, x, "mocap_pos")).transpose()?;
            let mq = mocap_quat
                .map(|x| as_f64(py, x, "mocap_quat"))
                .transpose()?;
            let aw = body_awake
                .map(|x| convert(py, &TO_AWAKE, "_awake", x, "body_awake"))
                .transpose()?;
            let prev = match out {
                Some(o) => Some(
                    o.cast::<Contacts>()
                        .map_err(|_| input("out must be a collide.Contacts from an earlier call"))?
                        .get(),
                ),
                None => None,
            };
            let (ob, on, os) = match prev {
                Some(c) => (
                    Some(c.buf.bind(py).clone()),
                    Some(c.ncon.bind(py).clone()),
                    Some(c.start.bind(py).clone()),
                ),
                None => (None, None, None),
            };
            let (buf, n, ncon, start, xp, xm) = self.detect_impl(
                py,
                &q,
                mp.as_ref(),
                mq.as_ref(),
                aw.as_ref(),
                ob.as_ref(),
                on.as_ref(),
                os.as_ref(),
                poses,
            )?;
            Ok(Contacts {
                buf: buf.unbind(),
                n,
                ncon: ncon.unbind(),
                start: start.unbind(),
                geom_xpos: xp.map(Bound::unbind),
                geom_xmat: xm.map(Bound::unbind),
                records: PyOnceLock::new(),
            })
        })
    }
}

/// Contacts of all worlds of one `Collider.detect` call, flat (see `collide.Contacts`).
#[pyclass(frozen, name = "Contacts", module = "collide._core")]
pub struct Contacts {
    buf: Py<PyAny>,
    n: usize,
    ncon: Py<PyAny>,
    start: Py<PyAny>,
    geom_xpos: Option<Py<PyAny>>,
    geom_xmat: Option<Py<PyAny>>,
    records: PyOnceLock<Py<PyAny>>,
}

impl Contacts {
    fn records_of<'py>(&self, py: Python<'py>) -> PyResult<&Bound<'py, PyAny>> {
        let r = self
            .records
            .get_or_try_init(py, || -> PyResult<Py<PyAny>> {
                let dtype = CONTACT_DTYPE.get_or_try_init(py, || -> PyResult<Py<PyAny>> {
                    Ok(py.import("collide")?.getattr("CONTACT_DTYPE")?.unbind())
                })?;
                let ndarray = NDARRAY.get_or_try_init(py, || -> PyResult<Py<PyAny>> {
                    Ok(py.import("numpy")?.getattr("ndarray")?.unbind())
                })?;
                Ok(ndarray
                    .bind(py)
                    .call1(((self.n,), dtype.bind(py), self.buf.bind(py)))?
                    .unbind())
            })?;
        Ok(r.bind(py))
    }

    fn field<'py>(&self, py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyAny>> {
        self.records_of(py)?.get_item(name)
    }
}

#[pymethods]
impl Contacts {
    /// Wraps a contact buffer (float64, `RECORD_F64` values per contact) with its per-world
    /// counts and offsets (used by `collide.ray` to assemble shards).
    #[new]
    #[pyo3(signature = (buf, n, ncon, start, geom_xpos=None, geom_xmat=None))]
    fn new(
        buf: Bound<'_, PyAny>,
        n: usize,
        ncon: Bound<'_, PyAny>,
        start: Bound<'_, PyAny>,
        geom_xpos: Option<Bound<'_, PyAny>>,
        geom_xmat: Option<Bound<'_, PyAny>>,
    ) -> PyResult<Contacts> {
        guard(|| {
            let b = buf
                .cast::<PyArray1<f64>>()
                .map_err(|_| input("buf must be a 1-D float64 array"))?;
            if b.len() < n * RECORD_F64 || !b.is_c_contiguous() {
                return Err(input("buf is too short for n contacts or not contiguous"));
            }
            ncon.cast::<PyArray1<i32>>()
                .map_err(|_| input("ncon must be a 1-D int32 array"))?;
            start
                .cast::<PyArray1<i64>>()
                .map_err(|_| input("start must be a 1-D int64 array"))?;
            Ok(Contacts {
                buf: buf.unbind(),
                n,
                ncon: ncon.unbind(),
                start: start.unbind(),
                geom_xpos: geom_xpos.map(Bound::unbind),
                geom_xmat: geom_xmat.map(Bound::unbind),
                records: PyOnceLock::new(),
            })
        })
    }

    fn __len__(&self) -> usize {
        self.n
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        let nb = self.ncon.bind(py).len().unwrap_or(0);
        format!("<collide.Contacts {} contacts in {nb} worlds>", self.n)
    }

    /// The contacts as one structured array (dtype `collide.CONTACT_DTYPE`).
    #[getter]
    fn records<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.records_of(py).cloned()
    }

    /// The float64 buffer behind `records` (reused by `out=`).
    #[getter]
    fn _buf(&self, py: Python<'_>) -> Py<PyAny> {
        self.buf.clone_ref(py)
    }

    /// (nbatch,) int32: contacts per world.
    #[getter]
    fn ncon(&self, py: Python<'_>) -> Py<PyAny> {
        self.ncon.clone_ref(py)
    }

    /// (nbatch,) int64: index of each world's first contact.
    #[getter]
    fn start(&self, py: Python<'_>) -> Py<PyAny> {
        self.start.clone_ref(py)
    }

    /// Number of worlds.
    #[getter]
    fn nbatch(&self, py: Python<'_>) -> usize {
        self.ncon.bind(py).len().unwrap_or(0)
    }

    /// Geom positions `(…, ngeom, 3)` when `detect(poses=True)`, else None.
    #[getter]
    fn geom_xpos(&self, py: Python<'_>) -> Option<Py<PyAny>> {
        self.geom_xpos.as_ref().map(|x| x.clone_ref(py))
    }

    /// Geom orientations `(…, ngeom, 9)`, row-major, when `detect(poses=True)`, else None.
    #[getter]
    fn geom_xmat(&self, py: Python<'_>) -> Option<Py<PyAny>> {
        self.geom_xmat.as_ref().map(|x| x.clone_ref(py))
    }

    /// (n,) int32: the world of each contact.
    #[getter]
    fn worldid<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.field(py, "worldid")
    }

    /// (n, 2) int32: geom ids (`geom[:, 0]` has the lower geom type).
    #[getter]
    fn geom<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.field(py, "geom")
    }

    /// (n,) float64: signed distance (negative in penetration).
    #[getter]
    fn dist<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.field(py, "dist")
    }

    /// (n, 3) float64: midpoint between the surfaces.
    #[getter]
    fn pos<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.field(py, "pos")
    }

    /// (n, 9) float64: contact frame rows (normal, tangent 1, tangent 2).
    #[getter]
    fn frame<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.field(py, "frame")
    }

    /// (n, 3) float64: the normal, from `geom[:, 0]` to `geom[:, 1]`.
    #[getter]
    fn normal<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let f = self.field(py, "frame")?;
        let cols = pyo3::types::PySlice::new(py, 0, 3, 1);
        let all = pyo3::types::PySlice::full(py);
        f.get_item((all, cols))
    }

    /// (n, 5) float64: slide, slide, spin, roll, roll.
    #[getter]
    fn friction<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.field(py, "friction")
    }

    /// (n, 2) float64.
    #[getter]
    fn solref<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.field(py, "solref")
    }

    /// (n, 2) float64.
    #[getter]
    fn solreffriction<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.field(py, "solreffriction")
    }

    /// (n, 5) float64.
    #[getter]
    fn solimp<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.field(py, "solimp")
    }

    /// (n,) float64: the active part of the margin.
    #[getter]
    fn includemargin<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.field(py, "includemargin")
    }

    /// (n,) int32: contact dimensionality (1, 3, 4 or 6).
    #[getter]
    fn dim<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.field(py, "dim")
    }

    /// (n,) int32: 1 for contacts in the gap (reported, inactive).
    #[getter]
    fn exclude<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.field(py, "exclude")
    }

    /// The records of world `w`.
    fn world<'py>(&self, py: Python<'py>, w: i64) -> PyResult<Bound<'py, PyAny>> {
        guard(|| {
            let nb = self.ncon.bind(py).len()? as i64;
            if !(0..nb).contains(&w) {
                return Err(input(format!("world {w} out of range 0..{nb}")));
            }
            let s: i64 = self.start.bind(py).get_item(w)?.extract()?;
            let c: i64 = self.ncon.bind(py).get_item(w)?.extract()?;
            let slice = pyo3::types::PySlice::new(py, s as isize, (s + c) as isize, 1);
            Ok(self.records_of(py)?.get_item(slice)?)
        })
    }
}

fn f64_array<'py>(
    a: &Bound<'py, PyAny>,
    name: &str,
) -> Result<numpy::PyReadonlyArrayDyn<'py, f64>, Error> {
    let arr = a
        .cast::<PyArrayDyn<f64>>()
        .map_err(|_| input(format!("{name} must be a float64 NumPy array")))?;
    let ro = arr
        .try_readonly()
        .map_err(|_| input(format!("{name} is being written by another call")))?;
    if !ro.is_c_contiguous() {
        return Err(input(format!("{name} must be C-contiguous")));
    }
    Ok(ro)
}

fn slice<'a>(a: &'a numpy::PyReadonlyArrayDyn<'_, f64>, name: &str) -> Result<&'a [f64], Error> {
    a.as_slice()
        .map_err(|_| input(format!("{name} must be C-contiguous")))
}

fn shape_str(s: &[usize]) -> String {
    let inner: Vec<String> = s.iter().map(|x| x.to_string()).collect();
    if inner.len() == 1 {
        format!("({},)", inner[0])
    } else {
        format!("({})", inner.join(", "))
    }
}

/// Checks that `shape` is `row` (shared) or `(nbatch, *row)` (per world, allowed only when
/// the call is batched); returns whether it is per world.
fn batched_shape(
    name: &str,
    shape: &[usize],
    row: &[usize],
    nbatch: usize,
    batched: bool,
) -> Result<bool, Error> {
    if shape == row {
        return Ok(false);
    }
    if batched && shape.len() == row.len() + 1 && shape[0] == nbatch && &shape[1..] == row {
        return Ok(true);
    }
    let want = if batched {
        let mut b = vec![nbatch];
        b.extend_from_slice(row);
        format!("{} or {}", shape_str(row), shape_str(&b))
    } else {
        shape_str(row)
    };
    Err(input(format!(
        "{name} has shape {}, expected {want}",
        shape_str(shape)
    )))
}

impl PyCollider {
    #[allow(clippy::too_many_arguments, clippy::type_complexity)]
    fn detect_impl<'py>(
        &self,
        py: Python<'py>,
        qpos: &Bound<'py, PyAny>,
        mocap_pos: Option<&Bound<'py, PyAny>>,
        mocap_quat: Option<&Bound<'py, PyAny>>,
        body_awake: Option<&Bound<'py, PyAny>>,
        out: Option<&Bound<'py, PyAny>>,
        out_ncon: Option<&Bound<'py, PyAny>>,
        out_start: Option<&Bound<'py, PyAny>>,
        poses: bool,
    ) -> Result<
        (
            Bound<'py, PyAny>,
            usize,
            Bound<'py, PyAny>,
            Bound<'py, PyAny>,
            Option<Bound<'py, PyAny>>,
            Option<Bound<'py, PyAny>>,
        ),
        Error,
    > {
        let m: &Model = &self.model;
        let nq = m.nq();
        let q = f64_array(qpos, "qpos")?;
        let (nbatch, batched) = match q.shape() {
            [n] if *n == nq => (1, false),
            [b, n] if *n == nq => (*b, true),
            s => {
                return Err(input(format!(
                "qpos has shape {}, expected ({nq},) or (nbatch, {nq}) for this model (nq = {nq})",
                shape_str(s)
            )))
            }
        };
        let nm = m.nmocap();
        let mp = mocap_pos.map(|a| f64_array(a, "mocap_pos")).transpose()?;
        let mq = mocap_quat.map(|a| f64_array(a, "mocap_quat")).transpose()?;
        let mp_per = match &mp {
            Some(a) => Some(batched_shape(
                "mocap_pos",
                a.shape(),
                &[nm, 3],
                nbatch,
                batched,
            )?),
            None => None,
        };
        let mq_per = match &mq {
            Some(a) => Some(batched_shape(
                "mocap_quat",
                a.shape(),
                &[nm, 4],
                nbatch,
                batched,
            )?),
            None => None,
        };
        let aw = match body_awake {
            Some(a) => {
                let arr = a
                    .cast::<PyArrayDyn<i32>>()
                    .map_err(|_| input("body_awake must be an int32 NumPy array"))?;
                let ro = arr
                    .try_readonly()
                    .map_err(|_| input("body_awake is being written by another call"))?;
                if !ro.is_c_contiguous() {
                    return Err(input("body_awake must be C-contiguous"));
                }
                Some(ro)
            }
            None => None,
        };
        let aw_per = match &aw {
            Some(a) => {
                let per = batched_shape("body_awake", a.shape(), &[m.nbody()], nbatch, batched)?;
                let s = a
                    .as_slice()
                    .map_err(|_| input("body_awake must be C-contiguous"))?;
                if let Some((i, v)) = s.iter().enumerate().find(|(_, v)| !(-1..=1).contains(*v)) {
                    return Err(input(format!(
                        "body_awake holds {v} at flat index {i}; MuJoCo's values are 1 (awake), 0 (asleep), -1 (static)"
                    )));
                }
                Some(per)
            }
            None => None,
        };
        let qs = slice(&q, "qpos")?;
        let inputs = Inputs {
            nbatch,
            nq,
            qpos: qs,
            mocap_pos: match (&mp, mp_per) {
                (Some(a), Some(per)) => Some((slice(a, "mocap_pos")?, per)),
                _ => None,
            },
            mocap_quat: match (&mq, mq_per) {
                (Some(a), Some(per)) => Some((slice(a, "mocap_quat")?, per)),
                _ => None,
            },
            awake: match (&aw, aw_per) {
                (Some(a), Some(per)) => Some((
                    a.as_slice()
                        .map_err(|_| input("body_awake must be C-contiguous"))?,
                    per,
                )),
                _ => None,
            },
            sleep: m.opt.enableflags & enable::SLEEP != 0,
        };

        let ng = m.ngeom();
        // the caller's buffers when given (ncon/start: when of the right length), else new
        // NumPy arrays made here, while the GIL is held, and written with it released
        let mut out_rw = match out {
            Some(o) => {
                let a = o
                    .cast::<PyArray1<f64>>()
                    .map_err(|_| {
                        input("out must be a 1-D float64 NumPy array (a Contacts buffer)")
                    })?
                    .try_readwrite()
                    .map_err(|_| input("out is read-only or in use (is it one of the inputs?)"))?;
                if !a.is_c_contiguous() {
                    return Err(input("out must be C-contiguous"));
                }
                Some(a)
            }
            None => None,
        };
        let ncon_arr: Bound<'py, PyArray1<i32>> = match out_ncon {
            Some(o) => match o.cast::<PyArray1<i32>>() {
                Ok(a) if a.len() == nbatch => a.clone(),
                Ok(_) => PyArray1::zeros(py, nbatch, false),
                Err(_) => return Err(input("out ncon must be a 1-D int32 NumPy array")),
            },
            None => PyArray1::zeros(py, nbatch, false),
        };
        let start_arr: Bound<'py, PyArray1<i64>> = match out_start {
            Some(o) => match o.cast::<PyArray1<i64>>() {
                Ok(a) if a.len() == nbatch => a.clone(),
                Ok(_) => PyArray1::zeros(py, nbatch, false),
                Err(_) => return Err(input("out start must be a 1-D int64 NumPy array")),
            },
            None => PyArray1::zeros(py, nbatch, false),
        };
        let mut ncon_rw = ncon_arr
            .try_readwrite()
            .map_err(|_| input("out ncon is read-only or in use"))?;
        let mut start_rw = start_arr
            .try_readwrite()
            .map_err(|_| input("out start is read-only or in use"))?;
        let pose_arrs = if poses {
            let p = PyArray1::<f64>::zeros(py, nbatch * ng * 3, false);
            let x = PyArray1::<f64>::zeros(py, nbatch * ng * 9, false);
            Some((p, x))
        } else {
            None
        };
        let mut pose_rw = match &pose_arrs {
            Some((p, x)) => Some((
                p.try_readwrite().map_err(Error::from_borrow)?,
                x.try_readwrite().map_err(Error::from_borrow)?,
            )),
            None => None,
        };

        let nthread = self.nthread;
        let mocap_body = &self.mocap_body;
        let out_slice: Option<&mut [f64]> = match out_rw.as_mut() {
            Some(o) => Some(
                o.as_slice_mut()
                    .map_err(|_| input("out must be C-contiguous"))?,
            ),
            None => None,
        };
        let ncon: &mut [i32] = ncon_rw
            .as_slice_mut()
            .map_err(|_| input("out ncon must be C-contiguous"))?;
        let start: &mut [i64] = start_rw
            .as_slice_mut()
            .map_err(|_| input("out start must be C-contiguous"))?;
        let (xp, xm): (&mut [f64], &mut [f64]) = match pose_rw.as_mut() {
            Some((p, x)) => (
                p.as_slice_mut()
                    .map_err(|_| Error::Internal("pose buffer".into()))?,
                x.as_slice_mut()
                    .map_err(|_| Error::Internal("pose buffer".into()))?,
            ),
            None => (&mut [], &mut []),
        };
        let result = py.detach(move || -> Result<(Option<Vec<f64>>, usize), String> {
            let mut locked = self
                .inner
                .lock()
                .map_err(|_| "collider poisoned by an earlier internal error".to_string())?;
            let Inner {
                workers,
                lists,
                worlds,
                pool,
            } = &mut *locked;
            if lists.len() < nbatch {
                lists.resize_with(nbatch, Vec::new);
            }
            let lists = &mut lists[..nbatch];
            let caches = match workers.first() {
                Some(w) => worlds.prepare(&w.collider, nbatch),
                None => return Err("collider has no worker".to_string()),
            };
            let inputs = &inputs;
            let inline = pool.is_none() || nbatch < INLINE_BELOW || nthread == 1;
            // the worlds cut into one contiguous chunk per worker (one chunk when inline)
            let nwork = if inline {
                1
            } else {
                workers.len().min(nbatch).max(1)
            };
            let chunk = nbatch.div_ceil(nwork).max(1);
            let pose_of = |s: &mut [f64], k: usize, w: usize| -> Option<std::ops::Range<usize>> {
                (!s.is_empty()).then(|| k * w..(k + 1) * w)
            };
            type Task<'t> = (
                usize,
                (
                    (
                        &'t mut Worker,
                        (&'t mut [Vec<Contact>], &'t mut [WorldCache]),
                    ),
                    (&'t mut [f64], &'t mut [f64]),
                ),
            );
            let run = |(c, ((w, (ls, cs)), (ps, ms))): Task<'_>| -> Result<(), (usize, String)> {
                for (k, (list, cache)) in ls.iter_mut().zip(cs.iter_mut()).enumerate() {
                    let i = c * chunk + k;
                    let rp = pose_of(ps, k, ng * 3);
                    let rm = pose_of(ms, k, ng * 9);
                    run_world(
                        w,
                        m,
                        mocap_body,
                        inputs,
                        i,
                        list,
                        cache,
                        rp.map(|r| &mut ps[r]),
                        rm.map(|r| &mut ms[r]),
                    )
                    .map_err(|e| (i, e))?;
                }
                Ok(())
            };
            if inline {
                if let Some(w) = workers.first_mut() {
                    run((0, ((w, (&mut *lists, &mut *caches)), (&mut *xp, &mut *xm))))
                        .map_err(|(_, e)| e)?;
                }
            } else {
                let nchunks = nbatch.div_ceil(chunk);
                let lens = (0..nchunks).map(|c| chunk.min(nbatch - c * chunk));
                let lchunks = split_lengths(lists, lens.clone());
                let cchunks = split_lengths(caches, lens.clone());
                let pchunks = if xp.is_empty() {
                    (0..nchunks).map(|_| Default::default()).collect()
                } else {
                    split_lengths(xp, lens.clone().map(|l| l * ng * 3))
                };
                let mchunks = if xm.is_empty() {
                    (0..nchunks).map(|_| Default::default()).collect()
                } else {
                    split_lengths(xm, lens.map(|l| l * ng * 9))
                };
                let tasks: Vec<_> = workers
                    .iter_mut()
                    .zip(lchunks.into_iter().zip(cchunks))
                    .zip(pchunks.into_iter().zip(mchunks))
                    .enumerate()
                    .collect();
                let results: Vec<Result<(), (usize, String)>> = match pool {
                    Some(pool) => pool.install(|| tasks.into_par_iter().map(run).collect()),
                    None => tasks.into_iter().map(run).collect(),
                };
                // the first failing world, whatever the thread count
                if let Some((_, msg)) = results
                    .into_iter()
                    .filter_map(Result::err)
                    .min_by_key(|e| e.0)
                {
                    return Err(msg);
                }
            }

            // per-world counts and offsets
            let mut acc = 0usize;
            for (i, l) in lists.iter().enumerate() {
                ncon[i] = l.len() as i32;
                start[i] = acc as i64;
                acc += l.len();
            }
            let total = acc;
            let need = total * RECORD_F64;
            let mut fresh = None;
            let buf: &mut [f64] = match out_slice {
                Some(s) if s.len() >= need => &mut s[..need],
                _ => fresh.insert(vec![0.0; need]),
            };
            let lists = &*lists;
            let fill = |(c, piece): (usize, &mut [f64])| {
                let mut r = piece.chunks_exact_mut(RECORD_F64);
                let first = c * chunk;
                for (k, l) in lists[first..(first + chunk).min(nbatch)].iter().enumerate() {
                    for ct in l {
                        if let Some(rec) = r.next() {
                            write_record(rec, first + k, ct);
                        }
                    }
                }
            };
            match pool {
                Some(pool) if !inline && total >= 1024 => {
                    let nchunks = nbatch.div_ceil(chunk);
                    let counts = (0..nchunks).map(|c| {
                        lists[c * chunk..(c * chunk + chunk).min(nbatch)]
                            .iter()
                            .map(Vec::len)
                            .sum::<usize>()
                            * RECORD_F64
                    });
                    let pieces = split_lengths(buf, counts);
                    pool.install(|| pieces.into_par_iter().enumerate().for_each(fill))
                }
                _ => {
                    // one piece: every world in order
                    let mut r = buf.chunks_exact_mut(RECORD_F64);
                    for (i, l) in lists.iter().enumerate() {
                        for ct in l {
                            if let Some(rec) = r.next() {
                                write_record(rec, i, ct);
                            }
                        }
                    }
                }
            }
            Ok((fresh, total))
        });
        let (fresh, total) = result.map_err(Error::Input)?;
        drop(q);
        drop(mp);
        drop(mq);
        drop(aw);
        drop(out_rw);
        drop(ncon_rw);
        drop(start_rw);
        drop(pose_rw);
        let buf_obj = match fresh {
            // small outputs are copied into a NumPy-owned array (cheaper than wrapping the Vec)
            Some(v) if v.len() <= 1 << 16 => PyArray1::from_slice(py, &v).into_any(),
            Some(v) => v.into_pyarray(py).into_any(),
            None => out
                .cloned()
                .ok_or_else(|| Error::Internal("no output buffer".into()))?,
        };
        let (xpos_obj, xmat_obj) = match pose_arrs {
            Some((p, x)) => {
                let shape_p: Vec<usize> = if batched {
                    vec![nbatch, ng, 3]
                } else {
                    vec![ng, 3]
                };
                let shape_m: Vec<usize> = if batched {
                    vec![nbatch, ng, 9]
                } else {
                    vec![ng, 9]
                };
                (
                    Some(p.reshape(shape_p)?.into_any()),
                    Some(x.reshape(shape_m)?.into_any()),
                )
            }
            None => (None, None),
        };
        Ok((
            buf_obj,
            total,
            ncon_arr.into_any(),
            start_arr.into_any(),
            xpos_obj,
            xmat_obj,
        ))
    }
}
