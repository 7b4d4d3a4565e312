//! `collide2d`: 2D collision detection for the robot-fish water-polo pool and beyond Box2D.
//!
//! Conventions (all modules): SI metres and radians in `f64`; the contact normal is a unit
//! vector from shape A to shape B; `depth >= 0` iff the shapes intersect (touching counts) and
//! `separation = -depth`; the minimum translation vector is `mtv = depth * normal` (moving B by
//! `+mtv`, or A by `-mtv`, brings the pair to touching); the action point is the midpoint of the
//! deepest witness points. The library does no I/O.
//!
//! - [`shape`]: shapes, poses, the pool border and the articulated fish;
//! - [`bounding`]: bounding circles, AABBs, k-DOPs and the fish's bounding-volume tree;
//! - [`contact`]: the narrow phase (SAT with clipping, Voronoi regions, capsules, compounds);
//! - [`distance`]: signed distance and closest points (GJK);
//! - [`containment`]: shapes inside the pool border;
//! - [`broad`]: the pool scene's broad phase;
//! - [`ccd`]: pseudo-continuous detection, time of impact, conservative advancement;
//! - [`scene`]: the JSON scene and query format of `collide 2d`;
//! - [`render`]: PNG and SVG pictures of a scene with its contacts.

pub mod bounding;
pub mod broad;
pub mod ccd;
pub mod contact;
pub mod containment;
pub mod distance;
pub mod render;
pub mod scene;
pub mod shape;

pub use shape::{Border, ConvexPolygon, Fish, FishDims, Pose, Shape, ShapeError};
