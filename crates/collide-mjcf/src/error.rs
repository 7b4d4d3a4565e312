//! Load and compile errors: every error names the file, the line and the element.

use std::fmt;

/// Where in the input an error was found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    /// File name (as given, or `<string>` for in-memory XML).
    pub file: String,
    /// 1-based line, 0 when unknown (e.g. a missing file).
    pub line: u32,
    /// Element name, e.g. `geom`, possibly with its `name` attribute.
    pub element: String,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line > 0 {
            write!(f, "{}:{}: <{}>", self.file, self.line, self.element)
        } else {
            write!(f, "{}: <{}>", self.file, self.element)
        }
    }
}

/// An MJCF load or compile error.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{location}: {message}")]
pub struct MjcfError {
    /// Where it happened.
    pub location: Location,
    /// What is wrong.
    pub message: String,
}

impl MjcfError {
    /// An error at `location`.
    pub fn new(location: Location, message: impl Into<String>) -> MjcfError {
        MjcfError {
            location,
            message: message.into(),
        }
    }
}

/// Result alias of this crate.
pub type Result<T> = std::result::Result<T, MjcfError>;
