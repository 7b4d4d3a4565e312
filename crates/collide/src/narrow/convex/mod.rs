//! The general convex narrow phase (MuJoCo's `mjc_Convex` family): support functions for every
//! convex geom type, GJK/EPA with multi-contact (MuJoCo's native `mjc_ccd`, the default) and
//! MPR (libccd's, when the `nativeccd` flag is off).
//!
//! Conventions are those of [`crate::narrow`]: world coordinates, geom 1 has the lower type,
//! normal from geom 1 to geom 2, `pos` the midpoint, `dist` the signed distance, contacts
//! reported when `dist <= margin`.

use glam::{DMat3, DVec3};

use crate::model::{ConvexHull, GeomType, HField};
use crate::narrow::PreContact;

/// A convex geom as the convex colliders see it.
#[derive(Clone, Copy, Debug)]
pub struct ConvexGeom<'a> {
    /// Geom type.
    pub kind: GeomType,
    /// Centre of the geom frame.
    pub pos: DVec3,
    /// Orientation of the geom frame (columns are the local axes).
    pub mat: DMat3,
    /// MuJoCo size parameters.
    pub size: DVec3,
    /// Hull of a mesh geom, in the geom frame.
    pub hull: Option<&'a ConvexHull>,
    /// Height-field data of an hfield geom.
    pub hfield: Option<&'a HField>,
}

/// Solver settings from the model's options.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CcdOptions {
    /// Maximum iterations (`option/@ccd_iterations`).
    pub iterations: usize,
    /// Convergence tolerance (`option/@ccd_tolerance`).
    pub tolerance: f64,
    /// Native GJK/EPA (flag `nativeccd`, on by default) rather than libccd's MPR.
    pub native: bool,
    /// Multiple contacts per pair (flag `multiccd`, on by default in 4.0.0).
    pub multi: bool,
}

/// Convex–convex pair (`mjc_Convex`). Placeholder until the GJK/EPA collider lands: reports no
/// contact; the driver keeps counting such pairs as unsupported.
pub fn convex_pair(
    _g1: &ConvexGeom,
    _g2: &ConvexGeom,
    _margin: f64,
    _opt: &CcdOptions,
    _out: &mut [PreContact],
) -> usize {
    0
}
