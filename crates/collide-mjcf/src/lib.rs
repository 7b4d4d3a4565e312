//! MJCF (MuJoCo XML) loader and compiler producing a [`collide::Model`].
//!
//! Covers the collision-relevant subset of MJCF: `include`, `compiler`, `option`, nested
//! `default` classes, `body`/`frame`/`replicate`/`attach`, joints, every geom type (`sdf` from a
//! mesh or MuJoCo's sdf plugins), meshes (STL, OBJ, MSH, inline), height fields (PNG, binary,
//! inline), `contact` pairs and excludes, and keyframes. Documents are first checked against
//! MuJoCo 4.0.0's own schema (unknown elements and attributes are refused, as MuJoCo refuses
//! them); elements irrelevant to collision are then skipped. Every error names the file, line
//! and element ([`MjcfError`]); no input makes the loader panic.

use std::path::Path;

mod compile_math;
pub mod compiler;
pub mod defaults;
pub mod error;
pub mod geom;
pub mod hfield_file;
pub mod mesh_builtin;
pub mod mesh_compile;
pub mod mesh_file;
pub mod mesh_hull;
pub mod orientation;
mod schema;
pub mod sdf_mesh;
pub mod sdf_octree;
pub mod urdf;
pub mod xml;

pub use error::{Location, MjcfError, Result};
pub use urdf::LoadOptions;
pub use xml::{FileReader, FsReader};

/// Loads and compiles a model file from disk: URDF when the name ends in `.urdf` (any case),
/// else MJCF.
pub fn load_file(path: impl AsRef<Path>) -> Result<collide::Model> {
    load_file_with(path.as_ref(), &FsReader)
}

/// [`load_file`] with options (URDF `package://` folders).
pub fn load_file_opts(path: impl AsRef<Path>, opts: &LoadOptions) -> Result<collide::Model> {
    load_file_with_opts(path.as_ref(), &FsReader, opts)
}

/// Whether `path` names a URDF file (extension `.urdf`, any case).
pub fn is_urdf(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("urdf"))
}

/// Loads and compiles a model file through `reader` (for in-memory file systems).
pub fn load_file_with(path: &Path, reader: &dyn FileReader) -> Result<collide::Model> {
    load_file_with_opts(path, reader, &LoadOptions::default())
}

/// Loads and compiles a model file through `reader`, with options.
pub fn load_file_with_opts(
    path: &Path,
    reader: &dyn FileReader,
    opts: &LoadOptions,
) -> Result<collide::Model> {
    if is_urdf(path) {
        return urdf::load_urdf(path, reader, opts);
    }
    let file = path.display().to_string();
    let bytes = reader.read(path).map_err(|e| {
        MjcfError::new(
            Location {
                file: file.clone(),
                line: 0,
                element: "mujoco".into(),
            },
            e,
        )
    })?;
    let text = String::from_utf8(bytes).map_err(|_| {
        MjcfError::new(
            Location {
                file: file.clone(),
                line: 0,
                element: "mujoco".into(),
            },
            "file is not UTF-8",
        )
    })?;
    compiler::compile(&text, &file, &xml::parent_dir(path), reader)
}

/// Compiles MJCF text; relative file references resolve against `dir`.
pub fn load_str(text: &str, dir: impl AsRef<Path>) -> Result<collide::Model> {
    compiler::compile(text, "<string>", dir.as_ref(), &FsReader)
}
