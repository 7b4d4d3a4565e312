//! `collide._core.Collider`: forward kinematics and collision detection of a batch of states,
//! in parallel on the collider's own rayon pool with the GIL released, output as one flat
//! buffer of contact records (viewed in Python as a structured array with MuJoCo's fields).
//!
//! Determinism: the worlds are cut into one contiguous chunk per worker and each world is
//! computed start to finish by one worker with the sequential pipeline; a world's contacts
//! depend on nothing else (the collider's caches are exact and the sleep state is set per
//! world), so the output is bit-identical for any thread count.

use std::sync::{Arc, Mutex};

use collide::glam::{DQuat, DVec3};
use collide::math::{mat_to_rowmajor, quat_wxyz};
use collide::model::enable;
use collide::{forward_kinematics, Collider, Contact, KinematicsError, Model, Poses};
use numpy::{IntoPyArray, PyArray1, PyArrayDyn, PyArrayMethods, PyUntypedArrayMethods};
use pyo3::prelude::*;
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
fn run_world(
    w: &mut Worker,
    m: &Model,
    mocap_body: &[usize],
    inp: &Inputs,
    i: usize,
    list: &mut Vec<Contact>,
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
    w.collider.detect(&w.poses, list);
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
fn split_lengths<'a, T>(mut v: &'a mut [T], lens: impl Iterator<Item = usize>) -> Vec<&'a mut [T]> {
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
}

#[pymethods]
impl PyCollider {
    /// A collider for `model` running on `nthread` threads (`None`: all cores).
    #[new]
    #[pyo3(signature = (model, nthread=None))]
    fn new(model: &Bound<'_, PyModel>, nthread: Option<i64>) -> PyResult<PyCollider> {
        guard(|| {
            let n = match nthread {
                None => std::thread::available_parallelism().map_or(1, |n| n.get()),
                Some(n) if (1..=1024).contains(&n) => n as usize,
                Some(n) => return Err(input(format!("nthread must be in 1..=1024, got {n}"))),
            };
            let model = model.get().model.clone();
            // SAFETY: the colliders borrow the model inside `model`'s `Arc` allocation, which
            // does not move and outlives them: `inner` is declared before `model`, so it is
            // dropped first, and the `Arc` is never replaced.
            let m: &'static Model = unsafe { &*Arc::as_ptr(&model) };
            let workers = (0..n)
                .map(|_| {
                    Ok(Worker {
                        collider: Collider::new(m).map_err(|e| input(e.to_string()))?,
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
                    pool,
                }),
                mocap_body: mocap_bodies(&model),
                model,
                nthread: n,
            })
        })
    }

    /// Number of worker threads.
    #[getter]
    fn nthread(&self) -> usize {
        self.nthread
    }

    /// Detects the contacts of every state. Arrays must be C-contiguous: `qpos` float64
    /// `(nq,)` or `(nbatch, nq)`; `mocap_pos` float64 `(nmocap, 3)` or `(nbatch, nmocap, 3)`;
    /// `mocap_quat` likewise with 4; `body_awake` int32 `(nbody,)` or `(nbatch, nbody)`.
    /// Returns `(records, ncontact, ncon, start, geom_xpos, geom_xmat)`.
    #[allow(clippy::too_many_arguments, clippy::type_complexity)]
    #[pyo3(signature = (qpos, mocap_pos=None, mocap_quat=None, body_awake=None, out=None, out_ncon=None, out_start=None, poses=false))]
    fn detect<'py>(
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
    ) -> PyResult<(
        Bound<'py, PyAny>,
        usize,
        Bound<'py, PyAny>,
        Bound<'py, PyAny>,
        Option<Bound<'py, PyAny>>,
        Option<Bound<'py, PyAny>>,
    )> {
        guard(|| {
            self.detect_impl(
                py, qpos, mocap_pos, mocap_quat, body_awake, out, out_ncon, out_start, poses,
            )
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
            s => return Err(input(format!(
                "qpos has shape {}, expected ({nq},) or (nbatch, {nq}) for this model (nq = {nq})",
                shape_str(s)
            ))),
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
        let mut xpos = if poses {
            vec![0.0; nbatch * ng * 3]
        } else {
            Vec::new()
        };
        let mut xmat = if poses {
            vec![0.0; nbatch * ng * 9]
        } else {
            Vec::new()
        };

        // the output buffers (the caller's if given and large enough)
        let mut out_rw = match out {
            Some(o) => Some(
                o.cast::<PyArray1<f64>>()
                    .map_err(|_| {
                        input("out must be a 1-D float64 NumPy array (a Contacts buffer)")
                    })?
                    .try_readwrite()
                    .map_err(|_| input("out is read-only or in use (is it one of the inputs?)"))?,
            ),
            None => None,
        };
        let mut ncon_rw = match out_ncon {
            Some(o) => {
                let a = o
                    .cast::<PyArray1<i32>>()
                    .map_err(|_| input("out ncon must be a 1-D int32 NumPy array"))?
                    .try_readwrite()
                    .map_err(|_| input("out ncon is read-only or in use"))?;
                (a.len() == nbatch).then_some(a)
            }
            None => None,
        };
        let mut start_rw = match out_start {
            Some(o) => {
                let a = o
                    .cast::<PyArray1<i64>>()
                    .map_err(|_| input("out start must be a 1-D int64 NumPy array"))?
                    .try_readwrite()
                    .map_err(|_| input("out start is read-only or in use"))?;
                (a.len() == nbatch).then_some(a)
            }
            None => None,
        };
        if let Some(o) = &out_rw {
            if !o.is_c_contiguous() {
                return Err(input("out must be C-contiguous"));
            }
        }

        let nthread = self.nthread;
        let mocap_body = &self.mocap_body;
        let want_poses = poses;
        let out_slice: Option<&mut [f64]> = match out_rw.as_mut() {
            Some(o) => Some(
                o.as_slice_mut()
                    .map_err(|_| input("out must be C-contiguous"))?,
            ),
            None => None,
        };
        let ncon_slice: Option<&mut [i32]> = match ncon_rw.as_mut() {
            Some(o) => o.as_slice_mut().ok(),
            None => None,
        };
        let start_slice: Option<&mut [i64]> = match start_rw.as_mut() {
            Some(o) => o.as_slice_mut().ok(),
            None => None,
        };
        let (xp, xm) = (&mut xpos, &mut xmat);
        let result = py.detach(move || -> Result<(Option<Vec<f64>>, usize, Option<Vec<i32>>, Option<Vec<i64>>), String> {
            let mut guard_inner = self.inner.lock().map_err(|_| "collider poisoned by an earlier internal error".to_string())?;
            let inner = &mut *guard_inner;
            if inner.lists.len() < nbatch {
                inner.lists.resize_with(nbatch, Vec::new);
            }
            let nwork = inner.workers.len().min(nbatch).max(1);
            let chunk = nbatch.div_ceil(nwork).max(1);
            let nchunks = nbatch.div_ceil(chunk);
            let lens = (0..nchunks).map(|c| chunk.min(nbatch - c * chunk));
            let lists = split_lengths(&mut inner.lists[..nbatch], lens.clone());
            let xps: Vec<Option<&mut [f64]>> = if want_poses {
                split_lengths(&mut xp[..], lens.clone().map(|l| l * ng * 3)).into_iter().map(Some).collect()
            } else {
                (0..nchunks).map(|_| None).collect()
            };
            let xms: Vec<Option<&mut [f64]>> = if want_poses {
                split_lengths(&mut xm[..], lens.clone().map(|l| l * ng * 9)).into_iter().map(Some).collect()
            } else {
                (0..nchunks).map(|_| None).collect()
            };
            let tasks: Vec<_> = inner
                .workers
                .iter_mut()
                .zip(lists)
                .zip(xps.into_iter().zip(xms))
                .enumerate()
                .collect();
            let inputs = &inputs;
            let run = |(c, ((w, lists), (mut xp, mut xm))): (usize, ((&mut Worker, &mut [Vec<Contact>]), (Option<&mut [f64]>, Option<&mut [f64]>)))| -> Result<(), (usize, String)> {
                for (k, list) in lists.iter_mut().enumerate() {
                    let i = c * chunk + k;
                    let xpk = xp.as_deref_mut().map(|s| &mut s[k * ng * 3..(k + 1) * ng * 3]);
                    let xmk = xm.as_deref_mut().map(|s| &mut s[k * ng * 9..(k + 1) * ng * 9]);
                    run_world(w, m, mocap_body, inputs, i, list, xpk, xmk).map_err(|e| (i, e))?;
                }
                Ok(())
            };
            let inline = inner.pool.is_none() || nbatch < INLINE_BELOW || nthread == 1;
            let errors: Vec<Result<(), (usize, String)>> = match (&inner.pool, inline) {
                (Some(pool), false) => pool.install(|| tasks.into_par_iter().map(run).collect()),
                _ => tasks.into_iter().map(run).collect(),
            };
            // the first failing world, whatever the thread count
            if let Some((_, msg)) = errors.into_iter().filter_map(Result::err).min_by_key(|e| e.0) {
                return Err(msg);
            }

            // per-world counts and offsets
            let lists = &inner.lists[..nbatch];
            let total: usize = lists.iter().map(Vec::len).sum();
            let mut ncon_new = None;
            let ncon: &mut [i32] = match ncon_slice {
                Some(s) => s,
                None => ncon_new.insert(vec![0i32; nbatch]),
            };
            let mut start_new = None;
            let start: &mut [i64] = match start_slice {
                Some(s) => s,
                None => start_new.insert(vec![0i64; nbatch]),
            };
            let mut acc = 0usize;
            for (i, l) in lists.iter().enumerate() {
                ncon[i] = l.len() as i32;
                start[i] = acc as i64;
                acc += l.len();
            }
            let need = total * RECORD_F64;
            let mut fresh = None;
            let buf: &mut [f64] = match out_slice {
                Some(s) if s.len() >= need => s,
                _ => fresh.insert(vec![0.0; need]),
            };
            let counts = (0..nchunks).map(|c| {
                lists[c * chunk..(c * chunk + chunk).min(nbatch)].iter().map(Vec::len).sum::<usize>() * RECORD_F64
            });
            let pieces = split_lengths(&mut buf[..need], counts);
            let fill = |(c, piece): (usize, &mut [f64])| {
                let mut r = piece.chunks_exact_mut(RECORD_F64);
                for (k, l) in lists[c * chunk..(c * chunk + chunk).min(nbatch)].iter().enumerate() {
                    for ct in l {
                        if let Some(rec) = r.next() {
                            write_record(rec, c * chunk + k, ct);
                        }
                    }
                }
            };
            match (&inner.pool, inline || total < 1024) {
                (Some(pool), false) => pool.install(|| pieces.into_par_iter().enumerate().for_each(fill)),
                _ => pieces.into_iter().enumerate().for_each(fill),
            }
            Ok((fresh, total, ncon_new, start_new))
        });
        let (fresh, total, ncon_new, start_new) = result.map_err(Error::Input)?;
        drop(q);
        drop(mp);
        drop(mq);
        drop(aw);
        let buf_obj = match fresh {
            Some(v) => v.into_pyarray(py).into_any(),
            None => out
                .map(|o| o.clone())
                .ok_or_else(|| Error::Internal("no output buffer".into()))?,
        };
        drop(out_rw);
        drop(ncon_rw);
        drop(start_rw);
        let ncon_obj = match ncon_new {
            Some(v) => v.into_pyarray(py).into_any(),
            None => out_ncon
                .map(|o| o.clone())
                .ok_or_else(|| Error::Internal("no ncon buffer".into()))?,
        };
        let start_obj = match start_new {
            Some(v) => v.into_pyarray(py).into_any(),
            None => out_start
                .map(|o| o.clone())
                .ok_or_else(|| Error::Internal("no start buffer".into()))?,
        };
        let (xpos_obj, xmat_obj) = if poses {
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
                Some(xpos.into_pyarray(py).reshape(shape_p)?.into_any()),
                Some(xmat.into_pyarray(py).reshape(shape_m)?.into_any()),
            )
        } else {
            (None, None)
        };
        Ok((buf_obj, total, ncon_obj, start_obj, xpos_obj, xmat_obj))
    }
}
