//! Capsule–box contact (MuJoCo's `mjc_CapsuleBox`, after Kolev 2016).
//!
//! Works on the capsule's segment in the box frame:
//! 1. find the segment point closest to the box, trying the two segment ends against the box
//!    faces (an end whose clamp touches more than one axis is left to the edges) and the
//!    segment against each of the 12 edges (closest points of two bounded lines);
//! 2. depending on the closest feature (box corner, edge interior, face) and on how the segment
//!    is oriented relative to it, pick a "second" segment point: the farthest point along the
//!    segment that still lies over the box, so that a capsule lying on the box gets two
//!    supporting contacts;
//! 3. collide a sphere of the capsule's radius at each chosen point with the box
//!    (`sphere_box_contact`), keeping those within the margin.
//!
//! MuJoCo's decisions (strict or tolerant comparisons, the absolute `MINVAL` thresholds on
//! squared distances and on the edge-test determinant, which sign bits are compared) are kept
//! as they are, because the contact count and the contact points depend on them.

use glam::DVec3;

use super::sphere_box::{sphere_box_contact, to_local};
use super::{PreContact, Shape};
use crate::math::MINVAL;

/// What the closest-feature search found.
#[derive(Clone, Copy)]
enum Closest {
    /// No candidate: both ends in edge/corner regions and every edge test skipped by the
    /// absolute determinant threshold (parallel edges, or a capsule and box below ~1e-4).
    Nothing,
    /// A segment end; `face` is the box axis its clamp touched, `None` if the end is inside.
    End { face: Option<usize> },
    /// The segment against the edge along axis `edge`; `corner` holds the octant bits of the
    /// edge's lower end (or of its upper end when the box side was clamped there), `box_pos`
    /// the edge parameter in [-1, 1], `box_clamp` which end of the edge clamped it
    /// (0 lower, 1 none, 2 upper; MuJoCo's `s1`, not reset by a later re-solve).
    Edge {
        edge: usize,
        corner: u32,
        box_pos: f64,
        box_clamp: u8,
    },
}

/// Capsule (geom 1, radius `size.x`, half-length `size.y` along its local z) against box
/// (geom 2, half-sizes `size`), world frame.
///
/// Returns up to two contacts, in MuJoCo's order: the segment point closest to the box first,
/// then the second support point when the capsule lies along a face or an edge. Each contact
/// is a sphere–box contact of the capsule radius ([`super::sphere_box::sphere_box`]
/// conventions): `dist <= margin`, `normal` from the capsule into the box, `pos` the midpoint.
pub fn capsule_box(cap: &Shape, bx: &Shape, margin: f64, out: &mut [PreContact]) -> usize {
    let half = bx.size;
    let radius = cap.size.x;
    let half_len = cap.size.y;

    // capsule centre and axis in the box frame
    let center = to_local(&bx.mat, cap.pos - bx.pos);
    let axis = to_local(&bx.mat, cap.mat.z_axis);
    let half_axis = axis * half_len;

    // octant of the axis direction (the opposite octant is the same line)
    let axis_bits = (half_axis.x > 0.0) as u32
        | (((half_axis.y > 0.0) as u32) << 1)
        | (((half_axis.z > 0.0) as u32) << 2);

    let (seg, closest) = closest_feature(center, half_axis, half, half_len);
    let second = match closest {
        Closest::Nothing => return 0,
        Closest::End { face } => face.map(|f| second_from_face(center, half_axis, half, seg, f)),
        Closest::Edge {
            edge,
            corner,
            box_pos,
            box_clamp,
        } => {
            if box_clamp == 1 {
                second_from_edge(axis, half_axis, half, axis_bits, seg, edge, corner, box_pos)
            } else {
                second_from_corner(axis, half_axis, half, axis_bits ^ corner, seg)
            }
        }
    };

    let mut n = 0;
    let mut emit = |t: f64, out: &mut [PreContact]| {
        // round trip through the world frame, as MuJoCo hands world points to its sphere test
        let local = center + half_axis * t;
        let world = bx.mat * local + bx.pos;
        if let Some(con) = sphere_box_contact(world, radius, bx, margin) {
            if let Some(slot) = out.get_mut(n) {
                *slot = con;
                n += 1;
            }
        }
    };
    emit(seg, out);
    if let Some(offset) = second {
        emit(offset + seg, out);
    }
    n
}

/// Sets `best` to `cand` when `cand` is smaller (a NaN candidate never wins).
#[inline]
fn lower(best: &mut f64, cand: f64) {
    if cand < *best {
        *best = cand;
    }
}

/// `num / den` for `den >= 0`, `+inf` when `den == 0` (such a bound never wins in [`lower`]).
#[inline]
fn ratio(num: f64, den: f64) -> f64 {
    if den > 0.0 {
        num / den
    } else {
        f64::INFINITY
    }
}

/// Searches the segment `center ± half_axis` for its point closest to the box.
/// Returns the segment parameter in [-1, 1] and the feature.
fn closest_feature(center: DVec3, half_axis: DVec3, half: DVec3, half_len: f64) -> (f64, Closest) {
    // The 3.x source starts from `margin + 2 (radius + half_len + Σ half)` and compares squared
    // distances against it, which loses contacts of large geoms; MuJoCo 4.0.0 reports them.
    // Starting from +inf matches 4.0.0 (any start >= (margin + radius)^2 gives the same
    // contacts: without a candidate below it, no sphere test could succeed).
    let mut best = f64::INFINITY;
    let mut seg = 0.0;
    let mut found = Closest::Nothing;

    // segment ends against the faces
    for end in [-1.0, 1.0] {
        let p = center + half_axis * end;
        let mut q = p;
        let mut clamps = 0;
        let mut face = None;
        for k in 0..3 {
            if p[k] < -half[k] {
                q[k] = -half[k];
                clamps += 1;
                face = Some(k);
            } else if p[k] > half[k] {
                q[k] = half[k];
                clamps += 1;
                face = Some(k);
            }
        }
        if clamps > 1 {
            continue;
        }
        let d = q - p;
        let d2 = d.dot(d);
        if d2 < best {
            best = d2;
            seg = end;
            found = Closest::End { face };
        }
    }

    // segment against the 12 edges: edge `j` through the corners with octant bits `lo` (bit j
    // clear) and `lo | 1 << j`
    let mc = half_len * half_len;
    for j in 0..3 {
        let sj = half[j];
        let ma = sj * sj;
        let mb = -sj * half_axis[j];
        let det = ma * mc - mb * mb;
        // (anti)parallel edge, or a configuration too small for MuJoCo's absolute threshold
        if det.abs() < MINVAL {
            continue;
        }
        let inv_det = 1.0 / det;
        for lo in 0..8u32 {
            if lo & (1 << j) != 0 {
                continue;
            }
            let mut mid = DVec3::new(
                if lo & 1 != 0 { half.x } else { -half.x },
                if lo & 2 != 0 { half.y } else { -half.y },
                if lo & 4 != 0 { half.z } else { -half.z },
            );
            mid[j] = 0.0;
            let dif = mid - center;
            // stationarity of |dif + x1 sj e_j - x2 half_axis|^2 in (x1, x2)
            let u = -sj * dif[j];
            let v = half_axis.dot(dif);
            let mut x1 = (mc * u - mb * v) * inv_det; // along the edge
            let mut x2 = (ma * v - mb * u) * inv_det; // along the segment
            let mut s1 = 1u8;
            if x1 > 1.0 {
                x1 = 1.0;
                s1 = 2;
                x2 = (v - mb) * (1.0 / mc);
            } else if x1 < -1.0 {
                x1 = -1.0;
                s1 = 0;
                x2 = (v + mb) * (1.0 / mc);
            }
            let mut resolve = |x2c: f64, rhs: f64| {
                x1 = rhs * (1.0 / ma);
                if x1 > 1.0 {
                    x1 = 1.0;
                    s1 = 2;
                } else if x1 < -1.0 {
                    x1 = -1.0;
                    s1 = 0;
                }
                x2c
            };
            if x2 > 1.0 {
                x2 = resolve(1.0, u - mb);
            } else if x2 < -1.0 {
                x2 = resolve(-1.0, u + mb);
            }
            let mut d = dif + half_axis * -x2;
            d[j] += sj * x1;
            let d2 = d.dot(d);
            // the MINVAL slack keeps a numerically parallel edge from beating a face
            if d2 < best - MINVAL {
                best = d2;
                seg = x2;
                let corner = if s1 == 2 { lo | 1 << j } else { lo };
                found = Closest::Edge {
                    edge: j,
                    corner,
                    box_pos: x1,
                    box_clamp: s1,
                };
            }
        }
    }
    (seg, found)
}

/// Closest feature is a box corner; `flip` has a bit set on each axis where the segment
/// direction points away from the corner's octant. Returns the offset of the second point.
fn second_from_corner(
    axis: DVec3,
    half_axis: DVec3,
    half: DVec3,
    flip: u32,
    seg: f64,
) -> Option<f64> {
    // single differing axis: the segment runs into the box along one face normal direction;
    // two differing axes: the same with the opposite direction along the segment
    let (single, dir, toward_end, other_end) = match flip {
        1 | 2 | 4 => (flip, 1.0, 1.0 - seg, 1.0 + seg),
        3 | 5 | 6 => (7 - flip, -1.0, 1.0 + seg, 1.0 - seg),
        _ => return None, // pointing at or away from the corner
    };
    let ax = match single {
        1 => 0,
        2 => 1,
        _ => 2,
    };
    let (ax1, ax2) = ((ax + 1) % 3, (ax + 2) % 3);
    if axis[ax] * axis[ax] > 0.5 {
        // mostly along the edge through the corner: stop at the edge's other corner
        let mut t = toward_end;
        lower(&mut t, ratio(2.0 * half[ax], half_axis[ax].abs()));
        Some(t * dir)
    } else {
        // mostly across a face: stop where the segment leaves the face
        let mut t = other_end;
        lower(&mut t, ratio(2.0 * half[ax1], half_axis[ax1].abs()));
        lower(&mut t, ratio(2.0 * half[ax2], half_axis[ax2].abs()));
        Some(-t * dir)
    }
}

/// Closest feature is the interior of the edge along `edge` (corner bits `corner`).
/// Returns the offset of the second point, if the segment crosses the edge (an X, not a T).
#[allow(clippy::too_many_arguments)]
fn second_from_edge(
    axis: DVec3,
    half_axis: DVec3,
    half: DVec3,
    axis_bits: u32,
    seg: f64,
    edge: usize,
    corner: u32,
    box_pos: f64,
) -> Option<f64> {
    let flip = (axis_bits ^ corner) & (7 - (1 << edge));
    if flip != 1 && flip != 2 && flip != 4 {
        return None;
    }
    let ax = edge;
    // `near`: the face the segment is flatter against; `far`: the other face at the edge
    let (mut near, far_default) = ((ax + 1) % 3, (ax + 2) % 3);
    if axis[near].abs() > axis[far_default].abs() {
        near = far_default;
    }
    let far = 3 - ax - near;
    let toward = flip & (1 << far) != 0;
    let (dir, mut t) = if toward {
        (1.0, 1.0 - seg)
    } else {
        (-1.0, 1.0 + seg)
    };
    lower(&mut t, ratio(2.0 * half[far], half_axis[far].abs()));
    // remaining room along the edge, in the direction the segment travels
    let room = if ((axis_bits >> ax) & 1 != 0) == toward {
        1.0 - box_pos
    } else {
        1.0 + box_pos
    };
    lower(&mut t, ratio(half[ax] * room, half_axis[ax].abs()));
    Some(t * dir)
}

/// Closest feature is a segment end (`seg` = ±1) just over face axis `face`. Returns the offset
/// of the farthest point toward the other end that stays within the box's other two slabs.
fn second_from_face(center: DVec3, half_axis: DVec3, half: DVec3, seg: f64, face: usize) -> f64 {
    let dir = if seg < 0.0 { 1.0 } else { -1.0 };
    let end = center + half_axis * -dir;
    let mut t = 2.0;
    for i in 0..3 {
        if i == face || half_axis[i] == 0.0 {
            continue;
        }
        for bound in [half[i], -half[i]] {
            let e = (bound - end[i]) / half_axis[i] * dir;
            if e > 0.0 {
                lower(&mut t, e);
            }
        }
    }
    t * dir
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::DMat3;

    #[test]
    fn lying_on_top_gives_two_contacts() {
        let bx = Shape {
            pos: DVec3::ZERO,
            mat: DMat3::IDENTITY,
            size: DVec3::new(1.0, 1.0, 1.0),
        };
        // axis along world x
        let cap = Shape {
            pos: DVec3::new(0.0, 0.0, 1.25),
            mat: DMat3::from_cols(DVec3::Z, DVec3::Y, -DVec3::X),
            size: DVec3::new(0.25, 0.5, 0.0),
        };
        let mut out = [PreContact::default(); 8];
        let n = capsule_box(&cap, &bx, 0.0, &mut out);
        assert_eq!(n, 2);
        for c in &out[..n] {
            assert_eq!(c.dist, 0.0);
            assert_eq!(c.normal, DVec3::new(0.0, 0.0, -1.0));
        }
        let mut xs = [out[0].pos.x, out[1].pos.x];
        xs.sort_by(f64::total_cmp);
        assert_eq!(xs, [-0.5, 0.5]);
    }

    #[test]
    fn short_buffer_is_respected() {
        let bx = Shape {
            pos: DVec3::ZERO,
            mat: DMat3::IDENTITY,
            size: DVec3::ONE,
        };
        let cap = Shape {
            pos: DVec3::new(0.0, 0.0, 1.2),
            mat: DMat3::from_cols(DVec3::Z, DVec3::Y, -DVec3::X),
            size: DVec3::new(0.25, 0.5, 0.0),
        };
        let mut one = [PreContact::default(); 1];
        assert_eq!(capsule_box(&cap, &bx, 0.0, &mut one), 1);
        assert_eq!(capsule_box(&cap, &bx, 0.0, &mut []), 0);
    }
}
