//! Capsule against capsule (MuJoCo's `mjc_CapsuleCapsule`).

use super::plane::emit;
use super::sphere::{clip, sphere_sphere_raw};
use super::{PreContact, Shape};
use crate::math::MINVAL;

/// Capsule (`g1`) against capsule (`g2`), each of radius `size.x` and half-length `size.y`
/// along local z. The normal points from `g1` to `g2`; contacts with `dist <= margin`.
///
/// Segment points are `pos + t·size.y·z` with `t ∈ [-1, 1]`. When the 2×2 normal-equation
/// determinant is at least `MINVAL` (MuJoCo's test, not scale invariant), the closest points
/// are found with one clamp-and-resolve pass and tested as two spheres: one contact.
/// Otherwise the axes count as parallel and up to two contacts come from the end points, in
/// this order: `g1`'s +end, `g1`'s −end (each against its clamped projection on `g2`), then
/// `g2`'s +end and −end against `g1`, stopping once two contacts are found.
pub fn capsule_capsule(g1: &Shape, g2: &Shape, margin: f64, out: &mut [PreContact]) -> usize {
    let (z1, z2) = (g1.mat.z_axis, g2.mat.z_axis);
    let axis1 = z1 * g1.size.y;
    let axis2 = z2 * g2.size.y;
    let dif = g1.pos - g2.pos;

    // normal equations of min |(p1 + x1 a1) - (p2 + x2 a2)|^2
    let ma = axis1.dot(axis1);
    let mb = -axis1.dot(axis2);
    let mc = axis2.dot(axis2);
    let u = -axis1.dot(dif);
    let v = axis2.dot(dif);
    let det = ma * mc - mb * mb;

    let test = |x1: f64, x2: f64| {
        sphere_sphere_raw(
            axis1 * x1 + g1.pos,
            z1,
            g1.size.x,
            axis2 * x2 + g2.pos,
            z2,
            g2.size.x,
            margin,
        )
    };
    // clamped `num / den`; a degenerate (zero-length) segment makes the parameter irrelevant
    let param = |num: f64, den: f64| {
        if den == 0.0 {
            0.0
        } else {
            clip(num / den, -1.0, 1.0)
        }
    };

    if det.abs() >= MINVAL {
        let mut x1 = (mc * u - mb * v) / det;
        let mut x2 = (ma * v - mb * u) / det;
        if x1 > 1.0 {
            x1 = 1.0;
            x2 = (v - mb) / mc;
        } else if x1 < -1.0 {
            x1 = -1.0;
            x2 = (v + mb) / mc;
        }
        if x2 > 1.0 {
            x2 = 1.0;
            x1 = clip((u - mb) / ma, -1.0, 1.0);
        } else if x2 < -1.0 {
            x2 = -1.0;
            x1 = clip((u + mb) / ma, -1.0, 1.0);
        }
        return match test(x1, x2) {
            Some(c) => emit(out, 0, c),
            None => 0,
        };
    }

    // parallel axes: end points of g1 first, then end points of g2
    let candidates: [(f64, f64); 4] = [
        (1.0, param(v - mb, mc)),
        (-1.0, param(v + mb, mc)),
        (param(u - mb, ma), 1.0),
        (param(u + mb, ma), -1.0),
    ];
    let mut n = 0;
    let mut found = 0;
    for (k, &(x1, x2)) in candidates.iter().enumerate() {
        // MuJoCo stops after the g1 ends, or after the first g2 end, once it has two
        if k >= 2 && found >= 2 {
            break;
        }
        if let Some(c) = test(x1, x2) {
            found += 1;
            n = emit(out, n, c);
        }
    }
    n
}
