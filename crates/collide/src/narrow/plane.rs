//! Plane against sphere, capsule, cylinder and box (MuJoCo's `mjc_PlaneSphere`,
//! `mjc_PlaneCapsule`, `mjc_PlaneCylinder`, `mjc_PlaneBox`).
//!
//! The plane is geom 1: an infinite plane through `pos` whose normal is its local +z
//! (`mat.z_axis`); its sizes are ignored. Every contact normal is that plane normal (from the
//! plane to the other geom). A contact is reported when `dist <= margin`.

use glam::DVec3;

use super::sphere::normalize_mj;
use super::{PreContact, Shape};

/// Writes `c` into `out[n]` if there is room; returns the new count.
#[inline]
pub(crate) fn emit(out: &mut [PreContact], n: usize, c: PreContact) -> usize {
    match out.get_mut(n) {
        Some(slot) => {
            *slot = c;
            n + 1
        }
        None => n,
    }
}

/// Plane (through `plane_pos` with unit normal `normal`) against a sphere of radius `radius`
/// centred at `centre`: the contact, if the sphere is within `margin` of the plane.
///
/// `dist` is the height of the centre above the plane minus the radius; `pos` lies halfway
/// between the plane and the sphere's lowest point.
#[inline]
pub(crate) fn plane_sphere_raw(
    plane_pos: DVec3,
    normal: DVec3,
    centre: DVec3,
    radius: f64,
    margin: f64,
) -> Option<PreContact> {
    let height = (centre - plane_pos).dot(normal);
    if height > margin + radius {
        return None;
    }
    let dist = height - radius;
    Some(PreContact {
        dist,
        pos: centre + normal * (-dist / 2.0 - radius),
        normal,
        tangent: DVec3::ZERO,
    })
}

/// Plane (`g1`) against sphere (`g2`, radius `size.x`): at most one contact, normal = plane
/// normal, `pos` midway between the plane and the sphere's lowest point.
pub fn plane_sphere(g1: &Shape, g2: &Shape, margin: f64, out: &mut [PreContact]) -> usize {
    match plane_sphere_raw(g1.pos, g1.mat.z_axis, g2.pos, g2.size.x, margin) {
        Some(c) => emit(out, 0, c),
        None => 0,
    }
}

/// Plane (`g1`) against capsule (`g2`, radius `size.x`, half-length `size.y` along local z):
/// the two end spheres are tested separately (the `+z` end first), so at most two contacts.
/// Each contact's `tangent` is the capsule axis (`g2.mat.z_axis`), as in MuJoCo.
pub fn plane_capsule(g1: &Shape, g2: &Shape, margin: f64, out: &mut [PreContact]) -> usize {
    let axis = g2.mat.z_axis;
    let segment = axis * g2.size.y;
    let normal = g1.mat.z_axis;
    let mut n = 0;
    for end in [g2.pos + segment, g2.pos - segment] {
        if let Some(mut c) = plane_sphere_raw(g1.pos, normal, end, g2.size.x, margin) {
            c.tangent = axis;
            n = emit(out, n, c);
        }
    }
    n
}

/// Plane (`g1`) against cylinder (`g2`, radius `size.x`, half-height `size.y` along local z):
/// up to four contacts, all with the plane normal, in MuJoCo's order:
/// 1. the rim point of the cap nearest the plane, lowest along the normal (if it is farther
///    than `margin`, there are no contacts at all);
/// 2. the corresponding rim point of the other cap, if within `margin`;
/// 3. and 4. the two rim points of the near cap at ±120° from point 1, if within `margin`
///    (both share one distance).
///
/// When the disks are parallel to the plane, the rim direction is the cylinder's local x.
pub fn plane_cylinder(g1: &Shape, g2: &Shape, margin: f64, out: &mut [PreContact]) -> usize {
    let normal = g1.mat.z_axis;
    let radius = g2.size.x;
    let half = g2.size.y;

    // cylinder axis pointing towards the plane (against the normal)
    let mut axis = g2.mat.z_axis;
    let mut prjaxis = normal.dot(axis);
    if prjaxis > 0.0 {
        axis = -axis;
        prjaxis = -prjaxis;
    }

    // height of the centre above the plane
    let dist0 = (g2.pos - g1.pos).dot(normal);

    // direction within the disk that goes furthest down: -normal without its axial part
    let mut vec = axis * prjaxis - normal;
    let len_sqr = vec.dot(vec);
    if len_sqr >= crate::math::MINVAL * crate::math::MINVAL {
        vec *= radius / len_sqr.sqrt();
    } else {
        vec = g2.mat.x_axis * radius;
    }
    let prjvec = vec.dot(normal);

    let axis = axis * half;
    let prjaxis = prjaxis * half;

    let contact = |dist: f64, point: DVec3| PreContact {
        dist,
        pos: point + normal * (-dist * 0.5),
        normal,
        tangent: DVec3::ZERO,
    };

    // 1: near cap, lowest rim point
    let d1 = dist0 + prjaxis + prjvec;
    if d1 > margin {
        return 0;
    }
    let mut n = emit(out, 0, contact(d1, g2.pos + vec + axis));

    // 2: far cap, same rim direction
    let d2 = dist0 - prjaxis + prjvec;
    if d2 <= margin {
        n = emit(out, n, contact(d2, g2.pos + vec - axis));
    }

    // 3, 4: near cap, rim points at +-120 degrees
    let d3 = dist0 + prjaxis - prjvec * 0.5;
    if d3 <= margin {
        let (side, _) = normalize_mj(vec.cross(axis));
        let side = side * (radius * 3.0f64.sqrt() / 2.0);
        n = emit(out, n, contact(d3, g2.pos + side + axis + vec * -0.5));
        n = emit(out, n, contact(d3, g2.pos - side + axis + vec * -0.5));
    }
    n
}

/// Plane (`g1`) against box (`g2`, half-sizes `size`): the eight corners are tested in bit
/// order (bit 0 = +x, bit 1 = +y, bit 2 = +z); a corner gives a contact when it is within
/// `margin` of the plane and not on the upper side of the box centre (`normal·offset <= 0`).
/// At most the first four such corners are reported. `pos` is midway between the corner and
/// the plane.
pub fn plane_box(g1: &Shape, g2: &Shape, margin: f64, out: &mut [PreContact]) -> usize {
    let normal = g1.mat.z_axis;
    let dist0 = (g2.pos - g1.pos).dot(normal);
    let s = g2.size;
    // a corner is `mat * (±s)`: the box axes scaled by the half-sizes, signed and summed in
    // the matrix product's order (`c * -x == -(c * x)` exactly), the x-y partial sums once
    let (ax, ay, az) = (
        g2.mat.x_axis * s.x,
        g2.mat.y_axis * s.y,
        g2.mat.z_axis * s.z,
    );
    let xy = [-ax + -ay, ax + -ay, -ax + ay, ax + ay];
    let mut n = 0;
    for i in 0..8usize {
        let corner = xy[i & 3] + if i & 4 != 0 { az } else { -az };
        let ldist = normal.dot(corner);
        if dist0 + ldist > margin || ldist > 0.0 {
            continue;
        }
        let dist = dist0 + ldist;
        n = emit(
            out,
            n,
            PreContact {
                dist,
                pos: (corner + g2.pos) + normal * (-dist / 2.0),
                normal,
                tangent: DVec3::ZERO,
            },
        );
        if n >= 4 {
            break;
        }
    }
    n
}
