//! `collide._core.Query`: distance queries (`mj_geomDistance`), closest pairs and collision
//! checks of one model, batched over `(nbatch, nq)` configurations on the query's own rayon
//! pool with the GIL released; and the viewer's page and pictures (`view_html`, `render_png`).
//!
//! The pure-Python layer (`collide.Distance`, `collide.CollisionChecker`, `collide.view`,
//! `collide.render`) converts and checks the arguments' types and shapes; this side checks
//! values (ids, finiteness, lengths) again and raises `collide.InputError` on any of them.

use std::sync::Arc;

use collide::distance::{self, DistanceError, GeomDistance, PairDistance, PairFilter};
use collide::glam::DVec3;
use collide::{forward_kinematics, CollisionChecker, Model, Poses};
use numpy::{
    IntoPyArray, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods,
};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::errors::{guard, input, Error};
use crate::model::PyModel;

/// A distance error as a `collide.InputError`.
fn derr(e: DistanceError) -> Error {
    input(e.to_string())
}

/// Distance queries and collision checks on one model, on `nthread` threads.
#[pyclass(frozen, name = "Query", module = "collide._core")]
pub struct PyQuery {
    model: Arc<Model>,
    pool: Option<rayon::ThreadPool>,
    nthread: usize,
}

impl PyQuery {
    /// Runs `f` on the pool (or the calling thread), with the GIL released.
    fn run<T: Send>(
        &self,
        py: Python<'_>,
        f: impl FnOnce(&Model) -> Result<T, DistanceError> + Send,
    ) -> Result<T, Error> {
        let m: &Model = &self.model;
        let pool = self.pool.as_ref();
        py.detach(move || match pool {
            Some(p) => p.install(|| f(m)),
            None => f(m),
        })
        .map_err(derr)
    }

    /// Poses of configuration `q` (one state).
    fn poses(m: &Model, q: &[f64]) -> Result<Poses, DistanceError> {
        let mut poses = Poses::new(m);
        forward_kinematics(m, q, None, &mut poses)
            .map_err(|source| DistanceError::Kinematics { state: 0, source })?;
        Ok(poses)
    }
}

/// Geom id pairs from an `(npair, 2)` int64 array (negative ids rejected).
fn id_pairs(a: &PyReadonlyArray2<'_, i64>) -> Result<Vec<[usize; 2]>, Error> {
    let v = a.as_array();
    let mut out = Vec::with_capacity(v.nrows());
    for (i, row) in v.rows().into_iter().enumerate() {
        let id = |k: usize| {
            usize::try_from(row[k])
                .map_err(|_| input(format!("pairs[{i}, {k}] = {} is not a geom id", row[k])))
        };
        out.push([id(0)?, id(1)?]);
    }
    Ok(out)
}

/// Geom ids from an int64 array (negative ids rejected).
fn ids(a: &PyReadonlyArray1<'_, i64>, name: &str) -> Result<Vec<usize>, Error> {
    a.as_array()
        .iter()
        .enumerate()
        .map(|(i, &g)| {
            usize::try_from(g).map_err(|_| input(format!("{name}[{i}] = {g} is not a geom id")))
        })
        .collect()
}

fn f64_rows<'a>(a: &'a PyReadonlyArray2<'_, f64>, nq: usize) -> Result<(&'a [f64], usize), Error> {
    let s = a.shape();
    if s[1] != nq {
        return Err(input(format!(
            "qpos has shape ({}, {}), expected (nbatch, {nq})",
            s[0], s[1]
        )));
    }
    let q = a
        .as_slice()
        .map_err(|_| input("qpos must be C-contiguous"))?;
    Ok((q, s[0]))
}

#[pymethods]
impl PyQuery {
    /// Queries on `model` (a `collide._core.Model`) on `nthread` threads (1 to 1024).
    #[new]
    fn new(model: &Bound<'_, PyModel>, nthread: usize) -> PyResult<PyQuery> {
        guard(|| {
            if !(1..=1024).contains(&nthread) {
                return Err(input(format!("nthread must be in 1..=1024, got {nthread}")));
            }
            let pool = if nthread > 1 {
                Some(
                    rayon::ThreadPoolBuilder::new()
                        .num_threads(nthread)
                        .thread_name(|i| format!("collide-q{i}"))
                        .build()
                        .map_err(|e| Error::Internal(format!("cannot start threads: {e}")))?,
                )
            } else {
                None
            };
            Ok(PyQuery {
                model: model.get().model.clone(),
                pool,
                nthread,
            })
        })
    }

    /// Number of worker threads.
    #[getter]
    fn nthread(&self) -> usize {
        self.nthread
    }

    /// Distances of `pairs` (`(npair, 2)` int64) at every row of `qpos` (`(nbatch, nq)`),
    /// capped at `distmax`: `(dist (nbatch, npair), fromto (nbatch, npair, 6))`.
    fn distance<'py>(
        &self,
        py: Python<'py>,
        qpos: PyReadonlyArray2<'py, f64>,
        pairs: PyReadonlyArray2<'py, i64>,
        distmax: f64,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>)> {
        guard(|| {
            let nq = self.model.nq();
            let (q, nbatch) = f64_rows(&qpos, nq)?;
            if pairs.shape()[1] != 2 {
                return Err(input(format!(
                    "pairs has shape ({}, {}), expected (npair, 2)",
                    pairs.shape()[0],
                    pairs.shape()[1]
                )));
            }
            let p = id_pairs(&pairs)?;
            let np = p.len();
            let (dist, fromto) = self.run(py, |m| {
                let mut dist = vec![0.0; nbatch * np];
                let mut fromto = vec![0.0; nbatch * np * 6];
                if nq == 0 {
                    // no degrees of freedom: one pose, the same for every row
                    let poses = Self::poses(m, &[])?;
                    let view = poses.view();
                    let mut query = GeomDistance::new(m);
                    let mut row = Vec::with_capacity(np);
                    for pr in &p {
                        row.push(query.distance(&view, pr[0], pr[1], distmax)?);
                    }
                    for s in 0..nbatch {
                        for (i, r) in row.iter().enumerate() {
                            dist[s * np + i] = r.dist;
                            fromto[(s * np + i) * 6..(s * np + i) * 6 + 6]
                                .copy_from_slice(&r.fromto);
                        }
                    }
                } else {
                    distance::distance_batch(m, q, &p, distmax, &mut dist, &mut fromto)?;
                }
                Ok((dist, fromto))
            })?;
            let d = dist.into_pyarray(py).reshape([nbatch, np])?.into_any();
            let f = fromto.into_pyarray(py).reshape([nbatch, np, 6])?.into_any();
            Ok((d, f))
        })
    }

    /// Collision flags of every row of `qpos` (`(nbatch, nq)`): a bool array `(nbatch,)`.
    fn in_collision<'py>(
        &self,
        py: Python<'py>,
        qpos: PyReadonlyArray2<'py, f64>,
    ) -> PyResult<Bound<'py, PyAny>> {
        guard(|| {
            let nq = self.model.nq();
            let (q, nbatch) = f64_rows(&qpos, nq)?;
            let out = self.run(py, |m| {
                let mut out = vec![false; nbatch];
                if nq == 0 {
                    let hit = if nbatch > 0 {
                        CollisionChecker::new(m).in_collision(&[])?
                    } else {
                        false
                    };
                    out.fill(hit);
                } else {
                    distance::in_collision_batch(m, q, &mut out)?;
                }
                Ok(out)
            })?;
            Ok(out.into_pyarray(py).into_any())
        })
    }

    /// Pairs of `set1` × `set2` closer than `distmax` at one configuration `qpos` (`(nq,)`),
    /// in the library's order: `(pairs (k, 2) int64, dist (k,), fromto (k, 6))`.
    #[pyo3(signature = (qpos, set1, set2, distmax, model_filters=false))]
    #[allow(clippy::type_complexity)]
    fn closest_pairs<'py>(
        &self,
        py: Python<'py>,
        qpos: PyReadonlyArray1<'py, f64>,
        set1: PyReadonlyArray1<'py, i64>,
        set2: PyReadonlyArray1<'py, i64>,
        distmax: f64,
        model_filters: bool,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyAny>, Bound<'py, PyAny>)> {
        guard(|| {
            let nq = self.model.nq();
            let q = qpos
                .as_slice()
                .map_err(|_| input("qpos must be C-contiguous"))?;
            if q.len() != nq {
                return Err(input(format!(
                    "qpos has shape ({},), expected ({nq},)",
                    q.len()
                )));
            }
            let (s1, s2) = (ids(&set1, "geoms1")?, ids(&set2, "geoms2")?);
            let filter = if model_filters {
                PairFilter::ModelFilters
            } else {
                PairFilter::AllPairs
            };
            let found: Vec<PairDistance> = self.run(py, |m| {
                let poses = Self::poses(m, q)?;
                let mut out = Vec::new();
                GeomDistance::new(m).closest_pairs(
                    &poses.view(),
                    &s1,
                    &s2,
                    distmax,
                    filter,
                    &mut out,
                )?;
                Ok(out)
            })?;
            let k = found.len();
            let pairs: Vec<i64> = found
                .iter()
                .flat_map(|p| [p.geom1 as i64, p.geom2 as i64])
                .collect();
            let dist: Vec<f64> = found.iter().map(|p| p.distance.dist).collect();
            let fromto: Vec<f64> = found.iter().flat_map(|p| p.distance.fromto).collect();
            Ok((
                pairs.into_pyarray(py).reshape([k, 2])?.into_any(),
                dist.into_pyarray(py).into_any(),
                fromto.into_pyarray(py).reshape([k, 6])?.into_any(),
            ))
        })
    }
}

/// The scene of `model` at every row of `qpos` (`(nbatch, nq)`, at least one row).
fn scene(m: &Model, qpos: &PyReadonlyArray2<'_, f64>) -> Result<collide_view::Scene, Error> {
    let (q, nbatch) = f64_rows(qpos, m.nq())?;
    if nbatch == 0 {
        return Err(input("qpos holds no state"));
    }
    let nq = m.nq();
    let mut all = Vec::with_capacity(nbatch);
    for s in 0..nbatch {
        let mut poses = Poses::new(m);
        forward_kinematics(m, &q[s * nq..(s + 1) * nq], None, &mut poses)
            .map_err(|e| input(format!("state {s}: {e}")))?;
        all.push(poses);
    }
    collide_view::Scene::build(m, &all).map_err(|e| input(e.to_string()))
}

/// The viewer's self-contained HTML page of `model` at the rows of `qpos` (`(nbatch, nq)`).
#[pyfunction]
pub fn view_html(
    py: Python<'_>,
    model: &Bound<'_, PyModel>,
    qpos: PyReadonlyArray2<'_, f64>,
    title: String,
) -> PyResult<String> {
    guard(|| {
        let m = model.get().model.clone();
        let sc = scene(&m, &qpos)?;
        Ok(py.detach(move || collide_view::to_html(&sc, &title)))
    })
}

/// A PNG picture of state `state` of `model` at the rows of `qpos` (`(nbatch, nq)`).
#[pyfunction]
#[pyo3(signature = (model, qpos, state, width, height, azimuth, elevation, fov, distance=None, lookat=None))]
#[allow(clippy::too_many_arguments)]
pub fn render_png<'py>(
    py: Python<'py>,
    model: &Bound<'py, PyModel>,
    qpos: PyReadonlyArray2<'py, f64>,
    state: usize,
    width: u32,
    height: u32,
    azimuth: f64,
    elevation: f64,
    fov: f64,
    distance: Option<f64>,
    lookat: Option<[f64; 3]>,
) -> PyResult<Bound<'py, PyBytes>> {
    guard(|| {
        let m = model.get().model.clone();
        let sc = scene(&m, &qpos)?;
        let opts = collide_view::RenderOptions {
            state,
            width,
            height,
            azimuth,
            elevation,
            distance,
            lookat: lookat.map(DVec3::from_array),
            fov,
        };
        let png = py
            .detach(move || collide_view::render_png(&sc, &opts))
            .map_err(|e| input(e.to_string()))?;
        Ok(PyBytes::new(py, &png))
    })
}
