//! `collide._core`: the compiled half of the Python package `collide` (distribution
//! `collide-engine`). The pure-Python layer in `python/collide/` wraps these classes; users
//! import `collide`, not this module.
//!
//! Conventions: every entry point runs inside [`guard`], so a Rust panic becomes a
//! `collide.InternalError` instead of crossing into Python; every rejected input raises one of
//! the `collide.Error` family (defined in `collide/_errors.py`); heavy work runs with the GIL
//! released (`Python::detach`) on the collider's own rayon pool.

#[cfg(target_endian = "big")]
compile_error!("the contact record layout of collide-py assumes a little-endian target");

mod collider;
mod d2;
mod errors;
mod model;
mod query;

use pyo3::prelude::*;

pub use errors::guard;

/// Whether MuJoCo collides geom types `t1` and `t2` with an analytic collider (as opposed to
/// its general convex solver); the differential tests pick their tolerances by it.
#[pyfunction]
fn _is_analytic(t1: u8, t2: u8) -> PyResult<bool> {
    guard(|| {
        let ty = |t: u8| {
            model::geom_type_from(t).ok_or_else(|| errors::input(format!("bad geom type {t}")))
        };
        Ok(collide::collider::is_analytic(ty(t1)?, ty(t2)?))
    })
}

/// The module `collide._core`.
#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let missing = collide::missing_cpu_features();
    if !missing.is_empty() {
        return Err(pyo3::exceptions::PyImportError::new_err(
            collide::cpu_error_message(&missing),
        ));
    }
    m.add_class::<model::PyModel>()?;
    m.add_class::<collider::PyCollider>()?;
    m.add_class::<collider::Contacts>()?;
    m.add_class::<d2::PyScene2D>()?;
    m.add_class::<query::PyQuery>()?;
    m.add_function(wrap_pyfunction!(query::view_html, m)?)?;
    m.add_function(wrap_pyfunction!(query::render_png, m)?)?;
    m.add_function(wrap_pyfunction!(_is_analytic, m)?)?;
    m.add("RECORD_F64", collider::RECORD_F64)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
