//! Sphere–box contact (MuJoCo's `mjc_SphereBox` / `mjraw_SphereBox`).
//!
//! The sphere centre is taken into the box frame and clamped onto the box. Outside the box the
//! contact joins the clamped point and the sphere point facing it; with the centre inside (or
//! on the surface, to within [`MINVAL`]), the nearest face decides the normal and the depth.
//! Reported when `dist <= margin`; at most one contact.

use glam::{DMat3, DVec3};

use super::{PreContact, Shape};
use crate::math::MINVAL;

/// Sphere (geom 1, radius `size.x`) against box (geom 2, half-sizes `size`), world frame.
///
/// Writes at most one contact into `out` and returns the count. `dist` is the signed surface
/// distance (reported when `dist <= margin`), `pos` the midpoint between the surfaces and
/// `normal` points from the sphere into the box. With the centre inside the box the normal is
/// the inward normal of the nearest face (ties go to the first of -x, +x, -y, +y, -z, +z) and
/// `dist = -(face distance + radius)`.
pub fn sphere_box(sphere: &Shape, bx: &Shape, margin: f64, out: &mut [PreContact]) -> usize {
    let Some(slot) = out.first_mut() else {
        return 0;
    };
    match sphere_box_contact(sphere.pos, sphere.size.x, bx, margin) {
        Some(con) => {
            *slot = con;
            1
        }
        None => 0,
    }
}

/// `mat^T v`, each component a column dot product (MuJoCo's `mju_mulMatTVec3` order).
#[inline]
pub(crate) fn to_local(mat: &DMat3, v: DVec3) -> DVec3 {
    DVec3::new(mat.x_axis.dot(v), mat.y_axis.dot(v), mat.z_axis.dot(v))
}

/// The contact of a sphere (world centre, radius) with a box, if within `margin`.
///
/// Shared with the capsule–box collider, which reduces to one or two sphere tests.
pub(crate) fn sphere_box_contact(
    center_world: DVec3,
    radius: f64,
    bx: &Shape,
    margin: f64,
) -> Option<PreContact> {
    let half = bx.size;
    let center = to_local(&bx.mat, center_world - bx.pos);

    // nearest box point; a non-positive half-size leaves its coordinate free (as MuJoCo does)
    let mut clamped = center;
    for k in 0..3 {
        let lim = half[k];
        if lim > 0.0 {
            if clamped[k] < -lim {
                clamped[k] = -lim;
            } else if clamped[k] > lim {
                clamped[k] = lim;
            }
        }
    }
    let gap = clamped - center;
    let len = (gap.x * gap.x + gap.y * gap.y + gap.z * gap.z).sqrt();
    // written as "not within" so that NaN input is rejected too
    let within = len - radius <= margin;
    if !within {
        return None;
    }

    let (pos_local, normal_local, dist) = if len <= MINVAL {
        // centre inside (or on) the box: push out through the nearest face
        let mut closest = 2.0 * (half.x + half.y + half.z);
        let mut face = 0usize;
        for (i, (k, side)) in [
            (0, -1.0),
            (0, 1.0),
            (1, -1.0),
            (1, 1.0),
            (2, -1.0),
            (2, 1.0),
        ]
        .into_iter()
        .enumerate()
        {
            let d = (side * half[k] - center[k]).abs();
            if closest > d {
                closest = d;
                face = i;
            }
        }
        let mut n = DVec3::ZERO;
        // inward normal of the chosen face
        n[face / 2] = if face % 2 == 1 { -1.0 } else { 1.0 };
        let pos = center + n * ((radius - closest) / 2.0);
        (pos, n, -closest - radius)
    } else {
        let n = gap * (1.0 / len);
        let deepest = center + n * radius;
        let pos = clamped * 0.5 + deepest * 0.5;
        (pos, n, len - radius)
    };

    Some(PreContact {
        dist,
        pos: bx.mat * pos_local + bx.pos,
        normal: bx.mat * normal_local,
        tangent: DVec3::ZERO,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit_box() -> Shape {
        Shape {
            pos: DVec3::ZERO,
            mat: DMat3::IDENTITY,
            size: DVec3::new(1.0, 2.0, 3.0),
        }
    }

    #[test]
    fn outside_face() {
        let s = Shape {
            pos: DVec3::new(0.0, 0.0, 3.75),
            mat: DMat3::IDENTITY,
            size: DVec3::new(0.5, 0.0, 0.0),
        };
        assert!(sphere_box_contact(s.pos, 0.5, &unit_box(), 0.0).is_none());
        assert!(sphere_box_contact(s.pos, 0.5, &unit_box(), 0.24).is_none());
        let c = sphere_box_contact(s.pos, 0.5, &unit_box(), 0.25).expect("contact at the margin");
        assert_eq!(c.dist, 0.25);
        assert_eq!(c.normal, DVec3::new(0.0, 0.0, -1.0));
        assert_eq!(c.pos, DVec3::new(0.0, 0.0, 3.125));
    }

    #[test]
    fn nan_input_gives_no_contact() {
        let c = sphere_box_contact(DVec3::splat(f64::NAN), 0.5, &unit_box(), 0.0);
        assert!(c.is_none());
    }
}
