//! `collide._core.Model`: a compiled MJCF model with the source it was compiled from (the XML
//! text and every file the compiler read), so that it pickles by source.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use collide::{GeomType, Model};
use collide_mjcf::FileReader;
use numpy::{IntoPyArray, PyArrayMethods};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};

use crate::errors::{guard, input, Error};

/// MuJoCo's geom type number back to the enum.
pub fn geom_type_from(t: u8) -> Option<GeomType> {
    GeomType::ALL.get(t as usize).copied()
}

/// Serves files from an in-memory map first (MuJoCo's `assets`: file name → bytes), then from
/// disk; records every file read from disk so that the model's source is complete.
struct AssetReader<'a> {
    assets: &'a BTreeMap<String, Vec<u8>>,
    dir: &'a Path,
    read_from_disk: Mutex<BTreeMap<String, Vec<u8>>>,
    disk: bool,
}

impl AssetReader<'_> {
    fn lookup(&self, path: &Path) -> Option<&Vec<u8>> {
        let full = path.to_string_lossy();
        if let Some(b) = self.assets.get(full.as_ref()) {
            return Some(b);
        }
        if let Ok(rel) = path.strip_prefix(self.dir) {
            if let Some(b) = self.assets.get(rel.to_string_lossy().as_ref()) {
                return Some(b);
            }
        }
        let name = path.file_name()?.to_string_lossy();
        self.assets.get(name.as_ref())
    }
}

impl FileReader for AssetReader<'_> {
    fn read(&self, path: &Path) -> Result<Vec<u8>, String> {
        if let Some(b) = self.lookup(path) {
            return Ok(b.clone());
        }
        if !self.disk {
            return Err(format!("{} is not among the model's files", path.display()));
        }
        let bytes =
            std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        if let Ok(mut rec) = self.read_from_disk.lock() {
            rec.insert(path.to_string_lossy().into_owned(), bytes.clone());
        }
        Ok(bytes)
    }
}

/// Where a model came from: enough to compile it again anywhere.
#[derive(Clone, Debug)]
pub struct Source {
    /// The main MJCF text.
    pub xml: String,
    /// The name errors give the main file (its path, or `<string>`).
    pub file: String,
    /// The directory relative references resolve against.
    pub dir: String,
    /// Every other file: the caller's assets and what the compiler read from disk.
    pub files: BTreeMap<String, Vec<u8>>,
    /// Whether the main text is URDF (else MJCF).
    pub urdf: bool,
    /// URDF `package://NAME` folders: (NAME, DIR).
    pub package_dirs: Vec<(String, String)>,
}

fn compile(src: &Source, disk: bool) -> Result<(Model, BTreeMap<String, Vec<u8>>), Error> {
    let dir = PathBuf::from(&src.dir);
    let reader = AssetReader {
        assets: &src.files,
        dir: &dir,
        read_from_disk: Mutex::new(BTreeMap::new()),
        disk,
    };
    let model = if src.urdf {
        let opts = collide_mjcf::LoadOptions {
            package_dirs: src
                .package_dirs
                .iter()
                .map(|(k, v)| (k.clone(), PathBuf::from(v)))
                .collect(),
        };
        collide_mjcf::urdf::load_urdf_named(&src.xml, &src.file, &dir, &reader, &opts)
    } else {
        collide_mjcf::compiler::compile(&src.xml, &src.file, &dir, &reader)
    }
    .map_err(Error::Model)?;
    let read = reader.read_from_disk.into_inner().unwrap_or_default();
    Ok((model, read))
}

/// A compiled model (immutable). Built by `from_xml_path`, `from_xml_string` or unpickling.
#[pyclass(frozen, name = "Model", module = "collide._core")]
pub struct PyModel {
    /// The compiled model, shared with the colliders built on it.
    pub model: Arc<Model>,
    /// The source, for pickling.
    pub source: Source,
}

fn checked_source(
    xml: String,
    file: String,
    dir: String,
    assets: Option<&Bound<'_, PyDict>>,
) -> Result<Source, Error> {
    let mut files = BTreeMap::new();
    if let Some(a) = assets {
        for (k, v) in a.iter() {
            let k: String = k
                .extract()
                .map_err(|_| input("assets: keys must be str (file names)"))?;
            let v: Vec<u8> = v
                .cast::<PyBytes>()
                .map(|b| b.as_bytes().to_vec())
                .map_err(|_| input(format!("assets[{k:?}]: value must be bytes")))?;
            files.insert(k, v);
        }
    }
    Ok(Source {
        xml,
        file,
        dir,
        files,
        urdf: false,
        package_dirs: Vec::new(),
    })
}

impl PyModel {
    fn build(py: Python<'_>, mut source: Source, disk: bool) -> Result<PyModel, Error> {
        let src = source.clone();
        let (model, read) = py.detach(move || compile(&src, disk))?;
        source.files.extend(read);
        Ok(PyModel {
            model: Arc::new(model),
            source,
        })
    }
}

#[pymethods]
impl PyModel {
    /// Compiles the MJCF or URDF (name ending in `.urdf`) file at `path` (relative references
    /// resolve against its directory); `package_dirs` maps URDF `package://NAME` to folders.
    #[staticmethod]
    #[pyo3(signature = (path, package_dirs=None))]
    fn from_xml_path(
        py: Python<'_>,
        path: PathBuf,
        package_dirs: Option<Vec<(String, String)>>,
    ) -> PyResult<PyModel> {
        guard(|| {
            let shown = path.display().to_string();
            let bytes = std::fs::read(&path).map_err(|e| Error::File {
                path: shown.clone(),
                message: format!("cannot read {shown}: {e}"),
            })?;
            let xml = String::from_utf8(bytes).map_err(|_| {
                Error::Model(collide_mjcf::MjcfError::new(
                    collide_mjcf::Location {
                        file: shown.clone(),
                        line: 0,
                        element: "mujoco".into(),
                    },
                    "file is not UTF-8",
                ))
            })?;
            let dir = path
                .parent()
                .map(|p| p.to_path_buf())
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned();
            let mut src = checked_source(xml, shown, dir, None)?;
            src.urdf = collide_mjcf::is_urdf(&path);
            if let Some(p) = package_dirs {
                if !src.urdf && !p.is_empty() {
                    return Err(input("package_dirs applies to URDF files only"));
                }
                src.package_dirs = p;
            }
            PyModel::build(py, src, true)
        })
    }

    /// Compiles MJCF text; `assets` maps file names to bytes (MuJoCo's convention), other
    /// relative references resolve against `dir` (default: the current directory).
    #[staticmethod]
    #[pyo3(signature = (xml, assets=None, dir=None))]
    fn from_xml_string(
        py: Python<'_>,
        xml: String,
        assets: Option<Bound<'_, PyDict>>,
        dir: Option<String>,
    ) -> PyResult<PyModel> {
        guard(|| {
            let src = checked_source(
                xml,
                "<string>".into(),
                dir.unwrap_or_else(|| ".".into()),
                assets.as_ref(),
            )?;
            PyModel::build(py, src, true)
        })
    }

    /// Rebuilds a model from `_source()` (used by unpickling; no disk access).
    #[staticmethod]
    #[pyo3(signature = (xml, file, dir, files, urdf=false, package_dirs=None))]
    fn _from_source(
        py: Python<'_>,
        xml: String,
        file: String,
        dir: String,
        files: Bound<'_, PyDict>,
        urdf: bool,
        package_dirs: Option<Vec<(String, String)>>,
    ) -> PyResult<PyModel> {
        guard(|| {
            let mut src = checked_source(xml, file, dir, Some(&files))?;
            src.urdf = urdf;
            src.package_dirs = package_dirs.unwrap_or_default();
            PyModel::build(py, src, false)
        })
    }

    /// `(xml, file, dir, files, urdf, package_dirs)`: what `_from_source` needs.
    #[allow(clippy::type_complexity)]
    fn _source<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<(
        String,
        String,
        String,
        Bound<'py, PyDict>,
        bool,
        Vec<(String, String)>,
    )> {
        guard(|| {
            let d = PyDict::new(py);
            for (k, v) in &self.source.files {
                d.set_item(k, PyBytes::new(py, v))?;
            }
            Ok((
                self.source.xml.clone(),
                self.source.file.clone(),
                self.source.dir.clone(),
                d,
                self.source.urdf,
                self.source.package_dirs.clone(),
            ))
        })
    }

    /// Sizes, per-element arrays (read-only NumPy arrays, MuJoCo's names and dtypes) and names.
    fn _arrays<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        guard(|| model_arrays(py, &self.model).map_err(Error::from))
    }
}

fn ro<'py, T: numpy::Element>(
    d: &Bound<'py, PyDict>,
    name: &str,
    v: Vec<T>,
    cols: usize,
) -> PyResult<()> {
    let py = d.py();
    let a = v.into_pyarray(py);
    let obj = if let Some(n) = numpy::PyUntypedArrayMethods::len(&a).checked_div(cols) {
        a.reshape([n, cols])?.into_any()
    } else {
        a.into_any()
    };
    obj.call_method1("setflags", (false,))?;
    d.set_item(name, obj)
}

fn v3(v: &[glam::DVec3]) -> Vec<f64> {
    v.iter().flat_map(|x| x.to_array()).collect()
}

fn q4(v: &[glam::DQuat]) -> Vec<f64> {
    v.iter()
        .flat_map(|q| collide::math::quat_to_wxyz(*q))
        .collect()
}

fn i32s(v: impl Iterator<Item = usize>) -> Vec<i32> {
    v.map(|x| x as i32).collect()
}

fn opt_i32s(v: &[Option<usize>]) -> Vec<i32> {
    v.iter().map(|x| x.map_or(-1, |x| x as i32)).collect()
}

fn model_arrays<'py>(py: Python<'py>, m: &Model) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for (k, v) in [
        ("nq", m.nq()),
        ("nv", m.nv()),
        ("nbody", m.nbody()),
        ("njnt", m.njnt()),
        ("ngeom", m.ngeom()),
        ("nmocap", m.nmocap()),
        ("npair", m.npair()),
        ("nexclude", m.exclude_signature.len()),
        ("nmesh", m.mesh.len()),
        ("nhfield", m.hfield.len()),
        ("nkey", m.key_name.len()),
    ] {
        d.set_item(k, v)?;
    }
    d.set_item("opt_enableflags", m.opt.enableflags)?;
    d.set_item("opt_disableflags", m.opt.disableflags)?;
    // bodies
    ro(
        &d,
        "body_parentid",
        i32s(m.body_parentid.iter().copied()),
        0,
    )?;
    ro(&d, "body_weldid", i32s(m.body_weldid.iter().copied()), 0)?;
    ro(&d, "body_rootid", i32s(m.body_rootid.iter().copied()), 0)?;
    ro(&d, "body_mocapid", opt_i32s(&m.body_mocapid), 0)?;
    ro(&d, "body_jntadr", i32s(m.body_jntadr.iter().copied()), 0)?;
    ro(&d, "body_jntnum", i32s(m.body_jntnum.iter().copied()), 0)?;
    ro(&d, "body_dofnum", i32s(m.body_dofnum.iter().copied()), 0)?;
    ro(&d, "body_geomadr", i32s(m.body_geomadr.iter().copied()), 0)?;
    ro(&d, "body_geomnum", i32s(m.body_geomnum.iter().copied()), 0)?;
    ro(&d, "body_pos", v3(&m.body_pos), 3)?;
    ro(&d, "body_quat", q4(&m.body_quat), 4)?;
    ro(&d, "body_ipos", v3(&m.body_ipos), 3)?;
    ro(&d, "body_iquat", q4(&m.body_iquat), 4)?;
    ro(&d, "body_mass", m.body_mass.clone(), 0)?;
    ro(&d, "body_contype", m.body_contype.clone(), 0)?;
    ro(&d, "body_conaffinity", m.body_conaffinity.clone(), 0)?;
    ro(&d, "body_margin", m.body_margin.clone(), 0)?;
    // joints
    ro(
        &d,
        "jnt_type",
        i32s(m.jnt_type.iter().map(|&t| t as usize)),
        0,
    )?;
    ro(&d, "jnt_bodyid", i32s(m.jnt_bodyid.iter().copied()), 0)?;
    ro(&d, "jnt_qposadr", i32s(m.jnt_qposadr.iter().copied()), 0)?;
    ro(&d, "jnt_pos", v3(&m.jnt_pos), 3)?;
    ro(&d, "jnt_axis", v3(&m.jnt_axis), 3)?;
    ro(&d, "qpos0", m.qpos0.clone(), 0)?;
    // geoms
    ro(
        &d,
        "geom_type",
        i32s(m.geom_type.iter().map(|&t| t as usize)),
        0,
    )?;
    ro(&d, "geom_bodyid", i32s(m.geom_bodyid.iter().copied()), 0)?;
    ro(&d, "geom_dataid", opt_i32s(&m.geom_dataid), 0)?;
    ro(&d, "geom_size", v3(&m.geom_size), 3)?;
    ro(&d, "geom_pos", v3(&m.geom_pos), 3)?;
    ro(&d, "geom_quat", q4(&m.geom_quat), 4)?;
    ro(&d, "geom_rbound", m.geom_rbound.clone(), 0)?;
    ro(&d, "geom_aabb", m.geom_aabb.concat(), 6)?;
    ro(&d, "geom_contype", m.geom_contype.clone(), 0)?;
    ro(&d, "geom_conaffinity", m.geom_conaffinity.clone(), 0)?;
    ro(
        &d,
        "geom_condim",
        m.geom_condim.iter().map(|&x| x as i32).collect(),
        0,
    )?;
    ro(&d, "geom_priority", m.geom_priority.clone(), 0)?;
    ro(&d, "geom_friction", v3(&m.geom_friction), 3)?;
    ro(&d, "geom_solmix", m.geom_solmix.clone(), 0)?;
    ro(&d, "geom_solref", m.geom_solref.concat(), 2)?;
    ro(&d, "geom_solimp", m.geom_solimp.concat(), 5)?;
    ro(&d, "geom_margin", m.geom_margin.clone(), 0)?;
    ro(&d, "geom_gap", m.geom_gap.clone(), 0)?;
    // explicit pairs and excludes
    ro(&d, "pair_geom1", i32s(m.pair_geom1.iter().copied()), 0)?;
    ro(&d, "pair_geom2", i32s(m.pair_geom2.iter().copied()), 0)?;
    ro(&d, "pair_signature", m.pair_signature.clone(), 0)?;
    ro(&d, "exclude_signature", m.exclude_signature.clone(), 0)?;
    // keyframes
    ro(&d, "key_qpos", m.key_qpos.concat(), m.nq().max(1))?;
    // names
    for (k, names) in [
        ("body_names", &m.body_name),
        ("jnt_names", &m.jnt_name),
        ("geom_names", &m.geom_name),
        ("key_names", &m.key_name),
        (
            "mesh_names",
            &m.mesh.iter().map(|x| x.name.clone()).collect(),
        ),
        (
            "hfield_names",
            &m.hfield.iter().map(|x| x.name.clone()).collect(),
        ),
    ] {
        d.set_item(k, PyList::new(py, names.iter())?.to_tuple())?;
    }
    Ok(d)
}
