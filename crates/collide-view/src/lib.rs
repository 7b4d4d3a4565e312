//! `collide-view`: look at a collide scene and its contacts.
//!
//! - [`scene`]: exports a [`Model`](collide::Model) and a list of world poses into a [`Scene`]:
//!   one triangle mesh per distinct collision shape (primitives tessellated, mesh geoms as their
//!   convex hulls, height fields as grids), each geom's pose per state, and the contacts the
//!   library's [`Collider`](collide::Collider) finds in each state.
//! - [`html`]: one self-contained HTML page (three.js embedded) with a slider over the states,
//!   contact points and normals, names on hover and a filter by geom or pair.
//! - [`raster`]: a CPU rasteriser (z-buffer, Gouraud shading) writing PNG pictures without a GPU
//!   or a display.
//! - [`report`]: a text table of the contacts per geom pair.
//!
//! Conventions: world frame z up, lengths in model units, contact normals `frame[0]` pointing from
//! `geom[0]` to `geom[1]`, `dist < 0` for penetration (MuJoCo's).

#![warn(missing_docs)]

pub mod html;
pub mod raster;
pub mod report;
pub mod scene;
mod tess;

pub use html::to_html;
pub use raster::{render, render_png, Image, RenderOptions};
pub use scene::{Scene, Shape};

/// Errors of the viewer: each names the state, geom or option at fault.
#[derive(Debug, thiserror::Error)]
pub enum ViewError {
    /// The scene has no states to show.
    #[error("the scene has no states")]
    NoStates,
    /// A state index past the end.
    #[error("state {index} does not exist (the scene has {count} states)")]
    StateIndex {
        /// Requested state.
        index: usize,
        /// Number of states.
        count: usize,
    },
    /// Poses computed for another model.
    #[error("state {state}: poses hold {got} geoms, the model has {want}")]
    PoseCount {
        /// State index.
        state: usize,
        /// Geoms in the poses.
        got: usize,
        /// Geoms in the model.
        want: usize,
    },
    /// A geom pose with a NaN or infinite entry.
    #[error("state {state}: geom {geom} ('{name}') has a non-finite pose")]
    NonFinitePose {
        /// State index.
        state: usize,
        /// Geom index.
        geom: usize,
        /// Geom name (may be empty).
        name: String,
    },
    /// The collider rejected the model.
    #[error("collider: {0}")]
    Collider(#[from] collide::ColliderError),
    /// A bad picture size or camera option.
    #[error("render option {name}: {msg}")]
    Option {
        /// Option name (`width`, `azimuth`, …).
        name: &'static str,
        /// What is wrong with it.
        msg: String,
    },
    /// PNG encoding failed.
    #[error("png encoding: {0}")]
    Png(String),
}
