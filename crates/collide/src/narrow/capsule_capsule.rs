//! Capsule against capsule (MuJoCo 4.0.0's `mjc_CapsuleCapsule`).
//!
//! MuJoCo 4.0.0 reduces the pair to the closest points of the two core segments, then runs
//! sphere–sphere on each pair of points. Non-parallel segments give one pair; parallel ones
//! (`|d1 × d2|² <= 1e-8 |d1|² |d2|²`, i.e. an angle below about 1e-4 rad, whatever the lengths)
//! give two, one per end of segment 1, so a capsule lying along another gets a line contact.
//! This differs from the 3.x source (determinant test against `MINVAL`, different pairing and
//! order). The 4.0.0 source is not in the reference material: the algorithm was established
//! from the 4.0.0 library (probing `mj_collision`, and reading its machine code for the exact
//! arithmetic), and is checked bit for bit by `tests/narrow_primitive.rs`.

use glam::DVec3;

use super::plane::emit;
use super::sphere::sphere_sphere_raw;
use super::{PreContact, Shape};
use crate::math::MINVAL;

/// Relative squared sine below which two segments count as parallel.
const PARALLEL_SIN2: f64 = 1e-8;

/// Clamps to `[0, 1]` (constant bounds: never panics).
#[inline]
fn unit_clamp(x: f64) -> f64 {
    x.clamp(0.0, 1.0)
}

/// Closest points of segments `a0 + t (a1 - a0)` and `b0 + s (b1 - b0)`, as `(t, s)` pairs in
/// `[0, 1]²`. One pair in general; for parallel segments two pairs, one for each end of
/// segment `a` (`t = 0` first), each an end point against its clamped projection on the other
/// segment (when an end of `a` projects outside `b`, the nearer end of `b` is used instead,
/// projected back on `a`). Degenerate (point-like) segments are handled.
fn segment_params(a0: DVec3, a1: DVec3, b0: DVec3, b1: DVec3) -> ([(f64, f64); 2], usize) {
    let d1 = a1 - a0;
    let d2 = b1 - b0;
    let a = d1.dot(d1);
    let e = d2.dot(d2);
    if a <= MINVAL && e <= MINVAL {
        return ([(0.0, 0.0); 2], 1);
    }
    let r = a0 - b0;
    let f = r.dot(d2);
    if a <= MINVAL {
        return ([(0.0, unit_clamp(f / e)); 2], 1);
    }
    let c = d1.dot(r);
    // projections of b's ends on segment a
    let t_b0 = -c / a;
    if e <= MINVAL {
        return ([(unit_clamp(t_b0), 0.0); 2], 1);
    }
    let b = d1.dot(d2);
    let t_b1 = (b - c) / a;
    // an end of b, paired with its clamped projection on a
    let b_end = |s: f64| {
        if s < 0.0 {
            Some((unit_clamp(t_b0), 0.0))
        } else if s > 1.0 {
            Some((unit_clamp(t_b1), 1.0))
        } else {
            None
        }
    };

    let normal = d1.cross(d2);
    let n2 = normal.dot(normal);
    if n2 > a * PARALLEL_SIN2 * e {
        // lines' closest point on a (Lagrange identity form), clamped; then s from t
        let t = unit_clamp(normal.dot(d2.cross(r)) / n2);
        let s = (b * t + f) / e;
        let pair = b_end(s).unwrap_or((t, s));
        return ([pair; 2], 1);
    }

    // parallel: both ends of a, projected on b
    let s0 = f / e;
    let s1 = (f + b) / e;
    let p0 = b_end(s0).unwrap_or((0.0, s0));
    let p1 = b_end(s1).unwrap_or((1.0, s1));
    ([p0, p1], 2)
}

/// Capsule (`g1`) against capsule (`g2`), each of radius `size.x` and half-length `size.y`
/// along local z. The normal points from `g1` to `g2`; contacts have `dist <= margin`.
///
/// One contact for non-parallel axes (the closest points of the two core segments). For
/// parallel axes (sine of the angle at most 1e-4), two candidate contacts in this order: from
/// `g1`'s `-z` end, then from its `+z` end, each end paired with its clamped projection on
/// `g2` (or `g2`'s nearer end projected back when the end overhangs); each is kept if within
/// `margin`. Both can coincide (segments that do not overlap along the axis), as in MuJoCo.
/// Coincident closest points take the normal `z1 × z2`, or +x.
pub fn capsule_capsule(g1: &Shape, g2: &Shape, margin: f64, out: &mut [PreContact]) -> usize {
    let (z1, z2) = (g1.mat.z_axis, g2.mat.z_axis);
    let half1 = z1 * g1.size.y;
    let half2 = z2 * g2.size.y;
    let a0 = g1.pos - half1;
    let a1 = half1 + g1.pos;
    let b0 = g2.pos - half2;
    let b1 = half2 + g2.pos;
    let (params, count) = segment_params(a0, a1, b0, b1);
    let (da, db) = (a1 - a0, b1 - b0);

    let mut n = 0;
    for &(t, s) in params.iter().take(count) {
        let pa = da * t + a0;
        let pb = db * s + b0;
        if let Some(c) = sphere_sphere_raw(pa, z1, g1.size.x, pb, z2, g2.size.x, margin) {
            n = emit(out, n, c);
        }
    }
    n
}
