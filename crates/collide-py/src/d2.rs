//! `collide._core.Scene2D`: the 2D module (`collide2d`) from Python. A scene is built from the
//! JSON scene format of `collide 2d` (shapes with world poses, optional queries); queries over
//! index pairs return NumPy arrays. Conventions are collide2d's: normals from A to B,
//! `depth >= 0` iff intersecting, `mtv = depth * normal`.

use collide2d::contact::contact;
use collide2d::distance::distance;
use collide2d::scene::{eval_query, parse_scene, Scene, SceneError};
use numpy::{IntoPyArray, PyArrayDyn, PyArrayMethods, PyUntypedArrayMethods};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::{guard, input, Error};

/// A parsed 2D scene (immutable).
#[pyclass(frozen, name = "Scene2D", module = "collide._core")]
pub struct PyScene2D {
    scene: Scene,
    json: String,
}

fn scene_err(e: SceneError) -> Error {
    input(format!("2D scene: {e}"))
}

fn put<'py>(d: &Bound<'py, PyDict>, k: &str, v: Vec<f64>, cols: usize) -> PyResult<()> {
    let py = d.py();
    let a = v.into_pyarray(py);
    if let Some(n) = numpy::PyUntypedArrayMethods::len(&a).checked_div(cols) {
        d.set_item(k, a.reshape([n, cols])?)
    } else {
        d.set_item(k, a)
    }
}

impl PyScene2D {
    /// `pairs` as a validated list of index pairs.
    fn pairs(&self, pairs: &Bound<'_, PyAny>) -> Result<Vec<(usize, usize)>, Error> {
        let arr = pairs
            .cast::<PyArrayDyn<i64>>()
            .map_err(|_| input("pairs must be an int64 NumPy array of shape (n, 2)"))?;
        let ro = arr.try_readonly().map_err(|_| input("pairs is in use"))?;
        let shape = ro.shape().to_vec();
        if shape.len() != 2 || shape[1] != 2 {
            return Err(input(format!("pairs has shape {shape:?}, expected (n, 2)")));
        }
        let a = ro.as_array();
        let n = self.scene.shapes.len();
        let mut out = Vec::with_capacity(shape[0]);
        for (r, row) in a.outer_iter().enumerate() {
            let (i, j) = (row[0], row[1]);
            for v in [i, j] {
                if v < 0 || v as usize >= n {
                    return Err(input(format!(
                        "pairs[{r}] holds shape index {v}; the scene has {n} shapes"
                    )));
                }
            }
            out.push((i as usize, j as usize));
        }
        Ok(out)
    }
}

#[pymethods]
impl PyScene2D {
    /// Parses a scene in `collide 2d`'s JSON format (`{"shapes":[…],"queries":[…]}`).
    #[new]
    fn new(json: String) -> PyResult<PyScene2D> {
        guard(|| {
            let scene = parse_scene(&json).map_err(scene_err)?;
            Ok(PyScene2D { scene, json })
        })
    }

    /// The JSON text the scene was parsed from (for pickling).
    #[getter]
    fn json(&self) -> String {
        self.json.clone()
    }

    /// Number of shapes.
    #[getter]
    fn nshape(&self) -> usize {
        self.scene.shapes.len()
    }

    /// Number of queries in the JSON.
    #[getter]
    fn nquery(&self) -> usize {
        self.scene.queries.len()
    }

    /// The JSON queries' results, as `collide 2d` prints them (`{"results":[…]}`).
    fn run_queries(&self) -> PyResult<String> {
        guard(|| {
            let results: Vec<serde_json::Value> = self
                .scene
                .queries
                .iter()
                .map(|q| eval_query(&self.scene, q))
                .collect();
            Ok(serde_json::json!({ "results": results }).to_string())
        })
    }

    /// Every intersecting pair (broad phase, then the narrow phase at margin 0), in pair
    /// order: `pairs` (n, 2) int64, `depth` (n,), `normal`, `mtv`, `action_point` (n, 2).
    fn intersecting_pairs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        guard(|| {
            let found = py.detach(|| self.scene.intersecting_pairs());
            let d = PyDict::new(py);
            let pairs: Vec<i64> = found
                .iter()
                .flat_map(|(i, j, _)| [*i as i64, *j as i64])
                .collect();
            let n = found.len();
            d.set_item("pairs", pairs.into_pyarray(py).reshape([n, 2])?)?;
            put(&d, "depth", found.iter().map(|c| c.2.depth).collect(), 0)?;
            put(
                &d,
                "normal",
                found.iter().flat_map(|c| c.2.normal.to_array()).collect(),
                2,
            )?;
            put(
                &d,
                "mtv",
                found.iter().flat_map(|c| c.2.mtv.to_array()).collect(),
                2,
            )?;
            put(
                &d,
                "action_point",
                found
                    .iter()
                    .flat_map(|c| c.2.action_point.to_array())
                    .collect(),
                2,
            )?;
            Ok(d)
        })
    }

    /// Contacts of the given index pairs with a speculative `margin` (>= 0): `intersect`,
    /// `speculative` (bool), `depth` (`-distance` when apart), `normal`, `mtv`, `action_point`.
    #[pyo3(signature = (pairs, margin=0.0))]
    fn contacts<'py>(
        &self,
        py: Python<'py>,
        pairs: &Bound<'py, PyAny>,
        margin: f64,
    ) -> PyResult<Bound<'py, PyDict>> {
        guard(|| {
            if !(margin.is_finite() && margin >= 0.0) {
                return Err(input(format!(
                    "margin must be finite and >= 0, got {margin}"
                )));
            }
            let pairs = self.pairs(pairs)?;
            let sh = &self.scene.shapes;
            type Row = (bool, bool, f64, [f64; 2], [f64; 2], [f64; 2]);
            let res: Vec<Row> = py.detach(|| {
                pairs
                    .iter()
                    .map(|&(i, j)| {
                        let (a, b) = (&sh[i], &sh[j]);
                        match contact(&a.shape, &a.pose, &b.shape, &b.pose, margin) {
                            Some(c) => (
                                c.intersect,
                                c.speculative,
                                c.depth,
                                c.normal.to_array(),
                                c.mtv.to_array(),
                                c.action_point.to_array(),
                            ),
                            None => {
                                let dd = distance(&a.shape, &a.pose, &b.shape, &b.pose);
                                let depth = -dd.distance;
                                (
                                    false,
                                    false,
                                    depth,
                                    dd.normal.to_array(),
                                    (depth * dd.normal).to_array(),
                                    (0.5 * (dd.point_a + dd.point_b)).to_array(),
                                )
                            }
                        }
                    })
                    .collect()
            });
            let d = PyDict::new(py);
            d.set_item(
                "intersect",
                res.iter()
                    .map(|r| r.0)
                    .collect::<Vec<bool>>()
                    .into_pyarray(py),
            )?;
            d.set_item(
                "speculative",
                res.iter()
                    .map(|r| r.1)
                    .collect::<Vec<bool>>()
                    .into_pyarray(py),
            )?;
            put(&d, "depth", res.iter().map(|r| r.2).collect(), 0)?;
            put(&d, "normal", res.iter().flat_map(|r| r.3).collect(), 2)?;
            put(&d, "mtv", res.iter().flat_map(|r| r.4).collect(), 2)?;
            put(
                &d,
                "action_point",
                res.iter().flat_map(|r| r.5).collect(),
                2,
            )?;
            Ok(d)
        })
    }

    /// Signed distances of the given index pairs (negative in penetration): `distance` (n,),
    /// `normal`, `point_a`, `point_b` (n, 2).
    fn distances<'py>(
        &self,
        py: Python<'py>,
        pairs: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyDict>> {
        guard(|| {
            let pairs = self.pairs(pairs)?;
            let sh = &self.scene.shapes;
            let res: Vec<_> = py.detach(|| {
                pairs
                    .iter()
                    .map(|&(i, j)| {
                        let (a, b) = (&sh[i], &sh[j]);
                        distance(&a.shape, &a.pose, &b.shape, &b.pose)
                    })
                    .collect()
            });
            let d = PyDict::new(py);
            put(&d, "distance", res.iter().map(|r| r.distance).collect(), 0)?;
            put(
                &d,
                "normal",
                res.iter().flat_map(|r| r.normal.to_array()).collect(),
                2,
            )?;
            put(
                &d,
                "point_a",
                res.iter().flat_map(|r| r.point_a.to_array()).collect(),
                2,
            )?;
            put(
                &d,
                "point_b",
                res.iter().flat_map(|r| r.point_b.to_array()).collect(),
                2,
            )?;
            Ok(d)
        })
    }
}
