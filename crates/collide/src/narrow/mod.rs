//! Narrow phase: one function per geom-type pair, dispatched through a table indexed by the
//! two [`GeomType`]s (MuJoCo's `mjCOLLISIONFUNC`).
//!
//! Conventions shared by every pair function:
//! - shapes come in world coordinates ([`Shape`]: centre, rotation, size), geom 1 first, and
//!   `type(geom1) <= type(geom2)`;
//! - `margin` is the detection threshold (MuJoCo's `margin + gap`): a contact is reported when
//!   its signed distance `dist <= margin` (MuJoCo's analytic colliders use `<=`, see each file);
//! - `dist` is the signed surface distance, negative in penetration; it is never inflated by the
//!   margin;
//! - `normal` is a unit vector pointing from geom 1 to geom 2; `pos` is the midpoint between the
//!   two surfaces;
//! - results are written into the caller's buffer (at least [`MAX_PAIR_CONTACTS`] long) and the
//!   count is returned; nothing allocates.

use glam::{DMat3, DVec3};

use crate::model::GeomType;

pub mod box_box;
pub mod capsule_box;
pub mod capsule_capsule;
pub mod convex;
pub mod hfield;
pub mod mesh_exact;
pub mod plane;
pub mod plane_convex;
pub mod sdf;
pub mod sphere;
pub mod sphere_box;

/// Largest number of contacts any pair function returns (height field against a convex geom;
/// MuJoCo's `mjMAXCONPAIR`).
pub const MAX_PAIR_CONTACTS: usize = 50;

/// A geom placed in the world, as the narrow phase sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Shape {
    /// Centre of the geom frame.
    pub pos: DVec3,
    /// Orientation of the geom frame (columns are the local axes in world coordinates).
    pub mat: DMat3,
    /// MuJoCo size parameters of the geom (see [`GeomType`]).
    pub size: DVec3,
}

/// One contact as a pair function reports it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PreContact {
    /// Signed distance between the surfaces (negative = penetration).
    pub dist: f64,
    /// Midpoint between the two surfaces.
    pub pos: DVec3,
    /// Unit normal from geom 1 to geom 2.
    pub normal: DVec3,
    /// First tangent of the contact frame, or zero to let the frame builder choose
    /// (only plane–capsule sets it, to the capsule axis).
    pub tangent: DVec3,
}

/// A pair function: `(geom1, geom2, margin, out) -> number of contacts`.
pub type PairFn = fn(&Shape, &Shape, f64, &mut [PreContact]) -> usize;

/// What the narrow phase does with a geom-type pair.
#[derive(Clone, Copy, Debug)]
pub enum Dispatch {
    /// The two types never collide (plane–plane, plane–hfield, hfield–hfield).
    Never,
    /// An analytic pair function.
    Analytic(PairFn),
    /// The general convex collider ([`convex::convex_pair`]: GJK/EPA with multi-contact, or
    /// MPR when `nativeccd` is off).
    Convex,
    /// Plane against an ellipsoid, a mesh, or an sdf geom's mesh (its convex hull, as MuJoCo
    /// does) ([`plane_convex::plane_convex`]).
    PlaneConvex,
    /// Height field against a convex geom ([`hfield::hfield_convex`]).
    HFieldConvex,
    /// A primitive or SDF geom against an SDF geom ([`sdf::sdf_pair`], MuJoCo's `mjc_SDF`).
    Sdf,
    /// A mesh geom against an SDF geom ([`sdf::mesh_sdf_pair`], MuJoCo's `mjc_MeshSDF`).
    MeshSdf,
    /// Height field against an SDF geom, which MuJoCo 4.0.0 dispatches to a function that
    /// warns "HField vs SDF collision not yet supported!" and returns no contacts: no
    /// contacts here either, and the pair is reported as unsupported (the warning).
    Unsupported,
}

/// The dispatch entry for `(t1, t2)` with `t1 <= t2`.
pub fn dispatch(t1: GeomType, t2: GeomType) -> Dispatch {
    use GeomType::*;
    match (t1, t2) {
        (Plane, Plane) | (Plane, HField) | (HField, HField) => Dispatch::Never,
        (Plane, Sphere) => Dispatch::Analytic(plane::plane_sphere),
        (Plane, Capsule) => Dispatch::Analytic(plane::plane_capsule),
        (Plane, Cylinder) => Dispatch::Analytic(plane::plane_cylinder),
        (Plane, Box) => Dispatch::Analytic(plane::plane_box),
        (Sphere, Sphere) => Dispatch::Analytic(sphere::sphere_sphere),
        (Sphere, Capsule) => Dispatch::Analytic(sphere::sphere_capsule),
        (Sphere, Cylinder) => Dispatch::Analytic(sphere::sphere_cylinder),
        (Sphere, Box) => Dispatch::Analytic(sphere_box::sphere_box),
        (Capsule, Capsule) => Dispatch::Analytic(capsule_capsule::capsule_capsule),
        (Capsule, Box) => Dispatch::Analytic(capsule_box::capsule_box),
        (Box, Box) => Dispatch::Analytic(box_box::box_box),
        (Plane, Ellipsoid) | (Plane, Mesh) | (Plane, Sdf) => Dispatch::PlaneConvex,
        (HField, Sdf) => Dispatch::Unsupported,
        (Mesh, Sdf) => Dispatch::MeshSdf,
        (_, Sdf) => Dispatch::Sdf,
        (HField, _) => Dispatch::HFieldConvex,
        _ => Dispatch::Convex,
    }
}
