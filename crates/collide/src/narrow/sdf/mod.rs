//! MuJoCo 4.0.0's `sdf` geoms: shapes given by a signed distance field instead of a surface.
//!
//! - [`plugins`]: the five SDF plugins of MuJoCo's `libsdf_plugin` (torus, bowl, nut, bolt,
//!   gear) with their `config` keys and defaults.
//! - [`gradient_descent`]: `mjc_SDF`, a primitive or SDF geom against an SDF geom (Halton start
//!   points, gradient descent on `A + B + |max(A, B)|`, contacts on the mid-surface).
//! - [`mesh_sdf`]: `mjc_MeshSDF`, a mesh geom against an SDF geom (a walk over the mesh's face
//!   tree [`face_bvh`], Frank–Wolfe on each triangle).
//!
//! Sign and direction conventions are the narrow phase's: `dist < 0` in penetration, normals
//! from geom 1 to geom 2, geom 2 being the SDF geom (`sdf` is the last geom type).

pub mod face_bvh;
pub mod gradient_descent;
pub mod mesh_sdf;
pub mod plugins;

pub use face_bvh::FaceBvh;
pub use gradient_descent::{sdf_pair, Field, SdfGeom};
pub use mesh_sdf::{mesh_sdf_pair, MeshGeom};
pub use plugins::{SdfPlugin, SdfPluginError};
