//! Sphere against sphere, capsule and cylinder (MuJoCo's `mjc_SphereSphere`,
//! `mjc_SphereCapsule`, `mjc_SphereCylinder`).
//!
//! The sphere is geom 1; the normal points from the sphere to geom 2. A contact is reported
//! when `dist <= margin`; each function returns at most one contact.

use glam::DVec3;

use super::plane::{emit, plane_sphere_raw};
use super::{PreContact, Shape};
use crate::math::MINVAL;

/// MuJoCo's `mju_normalize3`: `(v/|v|, |v|)`, or `(+x, |v|)` when `|v| < MINVAL`.
#[inline]
pub(crate) fn normalize_mj(v: DVec3) -> (DVec3, f64) {
    let norm = v.dot(v).sqrt();
    if norm < MINVAL {
        (DVec3::X, norm)
    } else {
        (v * (1.0 / norm), norm)
    }
}

/// MuJoCo's `mju_clip`: `lo` below `lo`, else `hi` above `hi` (never panics, unlike
/// `f64::clamp`).
#[inline]
pub(crate) fn clip(x: f64, lo: f64, hi: f64) -> f64 {
    if x < lo {
        lo
    } else if x > hi {
        hi
    } else {
        x
    }
}

/// Two spheres (centre, radius), with the geoms' local z axes `z1`, `z2` to orient the normal
/// when the centres coincide (`z1 × z2`, or +x when those are parallel too).
///
/// `dist = |c2 - c1| - r1 - r2`, the normal is the unit `c2 - c1`, and `pos` lies on the
/// centre line at `r1 + dist/2` from `c1`. `None` when the spheres are farther than `margin`
/// apart (tested on squared centre distances, as MuJoCo does).
#[inline]
#[allow(clippy::too_many_arguments)]
pub(crate) fn sphere_sphere_raw(
    c1: DVec3,
    z1: DVec3,
    r1: f64,
    c2: DVec3,
    z2: DVec3,
    r2: f64,
    margin: f64,
) -> Option<PreContact> {
    let dif = c1 - c2;
    let dist_sqr = dif.dot(dif);
    let reach = margin + r1 + r2;
    if dist_sqr > reach * reach {
        return None;
    }
    let dist = dist_sqr.sqrt() - r1 - r2;
    let (mut normal, len) = normalize_mj(c2 - c1);
    if len < MINVAL {
        normal = normalize_mj(z1.cross(z2)).0;
    }
    Some(PreContact {
        dist,
        pos: normal * (r1 + dist / 2.0) + c1,
        normal,
        tangent: DVec3::ZERO,
    })
}

/// Sphere (`g1`, radius `size.x`) against sphere (`g2`): at most one contact. Coincident
/// centres take the normal `z1 × z2` (normalised), or +x if the z axes are parallel.
pub fn sphere_sphere(g1: &Shape, g2: &Shape, margin: f64, out: &mut [PreContact]) -> usize {
    let c = sphere_sphere_raw(
        g1.pos,
        g1.mat.z_axis,
        g1.size.x,
        g2.pos,
        g2.mat.z_axis,
        g2.size.x,
        margin,
    );
    match c {
        Some(c) => emit(out, 0, c),
        None => 0,
    }
}

/// Sphere (`g1`) against capsule (`g2`, radius `size.x`, half-length `size.y` along local z):
/// the sphere centre is projected onto the capsule segment (clamped to its ends), then it is
/// a sphere–sphere test against that point. At most one contact.
pub fn sphere_capsule(g1: &Shape, g2: &Shape, margin: f64, out: &mut [PreContact]) -> usize {
    let axis = g2.mat.z_axis;
    let half = g2.size.y;
    let x = clip(axis.dot(g1.pos - g2.pos), -half, half);
    let nearest = axis * x + g2.pos;
    let c = sphere_sphere_raw(
        g1.pos,
        g1.mat.z_axis,
        g1.size.x,
        nearest,
        g2.mat.z_axis,
        g2.size.x,
        margin,
    );
    match c {
        Some(c) => emit(out, 0, c),
        None => 0,
    }
}

/// Sphere (`g1`) against cylinder (`g2`, radius `size.x`, half-height `size.y` along local
/// z): at most one contact. With `x` the sphere centre's axial coordinate and `ρ` its distance
/// from the axis:
/// - side (`|x| < h`, `ρ >= r`): sphere against the sphere of radius `r` at the axis point;
/// - cap (`ρ < r`, `|x| >= h`): sphere against the cap plane, normal = minus the cap's
///   outward normal;
/// - centre inside (`|x| < h`, `ρ < r`): the nearer of those two (side on a tie);
/// - otherwise: sphere against the nearest rim point.
pub fn sphere_cylinder(g1: &Shape, g2: &Shape, margin: f64, out: &mut [PreContact]) -> usize {
    let radius = g2.size.x;
    let half = g2.size.y;
    let axis = g2.mat.z_axis;

    // axial and radial parts of the sphere centre relative to the cylinder
    let vec = g1.pos - g2.pos;
    let x = axis.dot(vec);
    let a_proj = axis * x;
    let p_proj = vec - a_proj;
    let p_proj_sqr = p_proj.dot(p_proj);

    let mut side = x.abs() < half;
    let mut cap = p_proj_sqr < radius * radius;
    if side && cap {
        // centre inside: keep the shallower exit
        let dist_cap = half - x.abs();
        let dist_radius = radius - p_proj_sqr.sqrt();
        if dist_cap < dist_radius {
            side = false;
        } else {
            cap = false;
        }
    }

    let c = if side {
        sphere_sphere_raw(
            g1.pos,
            g1.mat.z_axis,
            g1.size.x,
            a_proj + g2.pos,
            axis,
            radius,
            margin,
        )
    } else if cap {
        let (cap_pos, cap_normal) = if x > 0.0 {
            (g2.pos + axis * half, axis)
        } else {
            (g2.pos + axis * -half, -axis)
        };
        plane_sphere_raw(cap_pos, cap_normal, g1.pos, g1.size.x, margin).map(|mut c| {
            c.normal = -c.normal;
            c
        })
    } else {
        // rim: p_proj_sqr >= radius^2, which is positive for any valid cylinder; a zero
        // radius (and centre on the axis) would divide 0 by 0, so drop the radial part then
        let radial = if p_proj_sqr > 0.0 {
            p_proj * (radius / p_proj_sqr.sqrt())
        } else {
            DVec3::ZERO
        };
        let rim = axis * (if x > 0.0 { half } else { -half }) + radial;
        sphere_sphere_raw(
            g1.pos,
            g1.mat.z_axis,
            g1.size.x,
            rim + g2.pos,
            axis,
            0.0,
            margin,
        )
    };
    match c {
        Some(c) => emit(out, 0, c),
        None => 0,
    }
}
