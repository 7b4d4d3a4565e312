//! Plane against ellipsoid and mesh (MuJoCo 4.0.0's `mjc_PlaneConvex`).
//!
//! The plane is geom 1 (normal = its local +z, infinite); the other geom's support point along
//! the inward plane normal gives the first contact. For a mesh, up to three more contacts come
//! from the hull polygon at that vertex which faces the plane most directly:
//! - the polygon is the one, among those containing the support vertex, whose outward normal
//!   has the smallest dot product with the plane normal (the first such polygon on ties);
//! - with 2 to 4 polygon vertices, the others are taken in polygon order starting after the
//!   support vertex;
//! - with 5 or more, a quadrilateral of maximal area containing the support vertex is found by
//!   advancing its fourth, third and second corners around the polygon while the area grows
//!   (a rotating-calipers search starting from the three vertices after the support vertex),
//!   and its three other corners are taken in polygon order;
//! - a candidate is kept only if its distance to the plane is at most `margin` and it does not
//!   lie above the mesh centre along the plane normal.
//!
//! Every contact has the plane normal, `dist` = signed height of the point above the plane and
//! `pos` = the point moved half that distance towards the plane.

use std::ops::ControlFlow;

use glam::DVec3;

use super::convex::mpr::CcdObj;
use super::convex::ConvexGeom;
use super::PreContact;
use crate::model::{ConvexHull, GeomType};

/// Half the norm of `(a - c) × (b - d)`: the area of the quadrilateral `a b c d`.
#[inline]
fn quad_area(a: DVec3, b: DVec3, c: DVec3, d: DVec3) -> f64 {
    let x = (a - c).cross(b - d);
    (x.x * x.x + x.y * x.y + x.z * x.z).sqrt() * 0.5
}

/// Polygon positions (indices into `pv`) of the three extra corners of the maximal-area
/// quadrilateral through `pv[k]` (MuJoCo's search, `pv.len() >= 5`).
fn max_quad(hull: &ConvexHull, pv: &[u32], k: usize) -> [usize; 3] {
    let n = pv.len();
    let vert = |i: usize| hull.vert[pv[i] as usize];
    let a = vert(k);
    let (mut b, mut c, mut d) = ((k + 1) % n, (k + 2) % n, (k + 3) % n);
    let mut area = quad_area(a, vert(b), vert(c), vert(d));
    // each advance strictly increases the area, which is bounded: at most n steps per corner
    for _ in 0..4 * n {
        let d2 = (d + 1) % n;
        let mut best = quad_area(a, vert(b), vert(c), vert(d2));
        if area >= best {
            break;
        }
        for _ in 0..n {
            let c2 = (c + 1) % n;
            let na = quad_area(a, vert(b), vert(c2), vert(d2));
            if best < na {
                c = c2;
                best = na;
            } else {
                break;
            }
        }
        for _ in 0..n {
            let b2 = (b + 1) % n;
            let na = quad_area(a, vert(b2), vert(c), vert(d2));
            if best < na {
                b = b2;
                best = na;
            } else {
                break;
            }
        }
        d = d2;
        area = best;
    }
    [b, c, d]
}

/// Plane (`plane`, geom 1) against an ellipsoid or a mesh (`g`, geom 2): MuJoCo 4.0.0's
/// `mjc_PlaneConvex`. At most 1 contact for an ellipsoid (or any non-mesh geom), at most 4
/// for a mesh, in MuJoCo's order (the support point first; see the module documentation).
/// `dist <= margin` for every contact. Returns 0 for a mesh without hull.
pub fn plane_convex(
    plane: &ConvexGeom,
    g: &ConvexGeom,
    margin: f64,
    out: &mut [PreContact],
) -> usize {
    if out.is_empty() {
        return 0;
    }
    let normal = plane.mat.z_axis;
    let mut obj = CcdObj::from_geom(g, 0.0);
    if !obj.is_supported()
        || obj.kind == GeomType::HField
        || !obj.is_finite()
        || !plane.pos.is_finite()
        || !plane.mat.is_finite()
    {
        return 0;
    }
    let p = obj.native_support(normal * -1.0);
    let dist = normal.dot(p - plane.pos);
    if dist > margin || dist.is_nan() {
        return 0;
    }
    out[0] = PreContact {
        dist,
        pos: p + normal * (dist * -0.5),
        normal,
        tangent: DVec3::ZERO,
    };

    // mesh: more contacts from the polygon facing the plane
    let hull = match (g.kind, g.hull) {
        (GeomType::Mesh, Some(h)) => h,
        _ => return 1,
    };
    let npoly = hull.poly_normal.len();
    if obj.vertindex < 0 || npoly == 0 || hull.poly_start.len() != npoly + 1 {
        return 1;
    }
    let vi = obj.vertindex as u32;
    let nl = g.mat.transpose_mul_vec3(normal);
    let poly_verts = |p: usize| -> &[u32] {
        let a = hull.poly_start[p] as usize;
        let b = hull.poly_start[p + 1] as usize;
        hull.poly_vert.get(a..b).unwrap_or(&[])
    };
    // the polygons containing the support vertex, in polygon order (from the hull's
    // vertex-to-polygon index): the one facing the plane most
    let mut best: Option<usize> = None;
    let mut min = 1.0;
    hull.polygons_of_vertex(vi as i32, |p| {
        let d = hull.poly_normal.get(p).map_or(f64::NAN, |n| n.dot(nl));
        if min > d {
            best = Some(p);
        }
        min = d.min(min);
        ControlFlow::Continue(())
    });
    let Some(best) = best else {
        return 1;
    };
    let pv = poly_verts(best);
    let n = pv.len();
    if n < 2 || pv.iter().any(|&v| v as usize >= hull.vert.len()) {
        return 1;
    }
    let k = pv.iter().position(|&v| v == vi).unwrap_or(0);
    let mut sel = [0usize; 3];
    let nsel = if n >= 5 {
        sel = max_quad(hull, pv, k);
        3
    } else {
        for (j, s) in sel.iter_mut().enumerate().take(n - 1) {
            *s = (k + 1 + j) % n;
        }
        n - 1
    };

    let mut count = 1;
    for &s in &sel[..nsel] {
        if count >= out.len() {
            break;
        }
        let q = g.mat.mul_vec3(hull.vert[pv[s] as usize]) + g.pos;
        let d = normal.dot(q - plane.pos);
        if d > margin || normal.dot(q - g.pos) > 0.0 {
            continue;
        }
        out[count] = PreContact {
            dist: d,
            pos: q + normal * (d * -0.5),
            normal,
            tangent: DVec3::ZERO,
        };
        count += 1;
    }
    count
}
