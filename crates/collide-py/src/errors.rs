//! Errors crossing into Python: [`Error`] values become the exception classes of
//! `collide/_errors.py` (`ModelError(Error, ValueError)`, `InputError(Error, ValueError)`,
//! `FileError(Error, OSError)`, `InternalError(Error, RuntimeError)`); a panic becomes an
//! `InternalError` (see [`guard`]).

use std::panic::{catch_unwind, AssertUnwindSafe};

use pyo3::prelude::*;
use pyo3::types::PyDict;

/// An error of the Rust side, converted to a Python exception once the GIL is held.
#[derive(Debug)]
pub enum Error {
    /// A model that does not compile: where, and what.
    Model(collide_mjcf::MjcfError),
    /// An argument of the wrong shape, type or value.
    Input(String),
    /// A file that cannot be read.
    File {
        /// The path as given.
        path: String,
        /// The reason.
        message: String,
    },
    /// A bug: a panic or a broken invariant.
    Internal(String),
    /// An exception raised by Python itself (kept as is).
    Py(PyErr),
}

impl From<PyErr> for Error {
    fn from(e: PyErr) -> Error {
        Error::Py(e)
    }
}

impl Error {
    /// A NumPy borrow conflict (an array in use by another call).
    pub fn from_borrow(e: numpy::BorrowError) -> Error {
        Error::Input(format!("array in use: {e}"))
    }
}

/// An [`Error::Input`].
pub fn input(msg: impl Into<String>) -> Error {
    Error::Input(msg.into())
}

fn raise<'py>(py: Python<'py>, class: &str, args: impl pyo3::call::PyCallArgs<'py>) -> PyErr {
    let made = (|| -> PyResult<PyErr> {
        let cls = py.import("collide._errors")?.getattr(class)?;
        Ok(PyErr::from_value(cls.call1(args)?))
    })();
    made.unwrap_or_else(|e| e)
}

impl Error {
    /// The Python exception.
    pub fn into_py(self, py: Python<'_>) -> PyErr {
        match self {
            Error::Model(e) => {
                let err = raise(py, "ModelError", (e.to_string(),));
                let attrs = PyDict::new(py);
                let _ = attrs.set_item("file", &e.location.file);
                let _ = attrs.set_item("line", e.location.line);
                let _ = attrs.set_item("element", &e.location.element);
                let _ = attrs.set_item("reason", &e.message);
                let value = err.value(py);
                for (k, v) in attrs.iter() {
                    if let Ok(k) = k.extract::<String>() {
                        let _ = value.setattr(k.as_str(), v);
                    }
                }
                err
            }
            Error::Input(m) => raise(py, "InputError", (m,)),
            Error::File { path, message } => {
                // OSError(errno, strerror, filename): `filename` names the file
                raise(py, "FileError", (2, message, path))
            }
            Error::Internal(m) => raise(py, "InternalError", (m,)),
            Error::Py(e) => e,
        }
    }
}

/// Runs `f`, converting its error and any panic into a Python exception. Every entry point of
/// the module goes through here; a panic is a bug, reported as `collide.InternalError`.
pub fn guard<T>(f: impl FnOnce() -> Result<T, Error>) -> PyResult<T> {
    let r = match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(payload) => {
            let msg = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            Err(Error::Internal(format!(
                "internal error (a bug in collide): {msg}"
            )))
        }
    };
    r.map_err(|e| Python::attach(|py| e.into_py(py)))
}
