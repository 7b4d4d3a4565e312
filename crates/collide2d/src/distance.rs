//! Signed distance and closest points.
//!
//! Conventions: `distance > 0` is the gap between separated shapes (exact, computed by GJK on
//! the shapes' cores minus their radii); `distance < 0` is minus the penetration depth (the SAT
//! minimum-translation depth, identical to [`crate::contact::Contact::depth`]); `normal` is a
//! unit vector from A to B in every case (never zero, with the deterministic fallbacks listed in
//! [`crate::contact`]); `point_b - point_a = distance * normal`, where `point_a` and `point_b`
//! lie on the surfaces of A and B (the closest points when separated, the deepest witness
//! points when overlapping). Moving B by `-distance * normal` brings the pair to touching.
//!
//! Compounds and fish: the minimum over part pairs (their deepest pair). Borders: each outline
//! edge is a one-sided segment facing the pool (as in [`crate::contact::contact`]).

// Index loops mirror the math (parallel arrays of parts, poses and volumes); negated
// comparisons are deliberate: they treat NaN as "reject".
#![allow(clippy::needless_range_loop, clippy::neg_cmp_op_on_partial_ord)]

use crate::contact::{deepest, Raw};
use crate::shape::{Pose, Shape};
use glam::DVec2;

/// Signed distance between two shapes, with closest (or deepest) points.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Distance {
    /// Signed distance: positive gap, or minus the penetration depth when overlapping;
    /// `f64::INFINITY` when there is no pair to measure (border–border, empty compound).
    pub distance: f64,
    /// Unit normal from A to B.
    pub normal: DVec2,
    /// Point on A's surface.
    pub point_a: DVec2,
    /// Point on B's surface (`point_b - point_a = distance * normal`).
    pub point_b: DVec2,
}

/// Signed distance between A at `pa` and B at `pb`: GJK for separated convex pairs, SAT (the
/// minimum translation) on overlap; for compounds and fish the minimum over parts.
pub fn distance(a: &Shape, pa: &Pose, b: &Shape, pb: &Pose) -> Distance {
    match deepest(a, pa, b, pb) {
        Some((raw, _, _)) => from_raw(&raw),
        None => Distance {
            distance: f64::INFINITY,
            normal: DVec2::X,
            point_a: pa.pos,
            point_b: pb.pos,
        },
    }
}

/// [`distance`] with the part ids `(part_a, part_b)` of the closest (deepest) pair.
pub fn distance_with_parts(
    a: &Shape,
    pa: &Pose,
    b: &Shape,
    pb: &Pose,
) -> (Distance, Option<usize>, Option<usize>) {
    match deepest(a, pa, b, pb) {
        Some((raw, ia, ib)) => (from_raw(&raw), ia, ib),
        None => (distance(a, pa, b, pb), None, None),
    }
}

fn from_raw(raw: &Raw) -> Distance {
    Distance {
        distance: raw.sep,
        normal: raw.normal,
        point_a: raw.wa,
        point_b: raw.wb,
    }
}
