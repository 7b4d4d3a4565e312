//! MuJoCo's libccd path (`mjDSBL_NATIVECCD`): Minkowski Portal Refinement
//! (`ccdMPRPenetration`) with MuJoCo's libccd support functions (`mjccd_support`), followed by
//! the analytic normal correction `mjc_fixNormal`.
//!
//! - [`mpr_penetration`]: one MPR contact (`mjc_Convex` with `multiccd` off);
//! - [`mpr_convex`]: `mjc_Convex` with `nativeccd` off in full: the MPR contact plus, with
//!   `multiccd`, the contacts found by MuJoCo's ±1e-3 rad pose perturbations (up to 5).
//!
//! This file also holds the support-function machinery shared by the plane–convex and
//! height-field colliders (`CcdObj`): MuJoCo 4.0.0's native support functions
//! (`mjc_*Support`, no margin, used for the plane–convex support point and the height-field
//! bounding box) and its libccd ones (`mjccd_support`, which add half the margin along the
//! direction). Both follow MuJoCo's operation order and vertex choice: meshes with fewer than 10
//! vertices are scanned in full (first maximum in mesh order), larger ones hill-climb on the
//! hull graph (native: seeded from the 27-direction extrema or the warm start; libccd: from the
//! warm start or vertex 0).
//!
//! Note for deduplication: the GJK/EPA solver has its own support functions
//! (`narrow::convex::support`); the ones here are kept separate because the libccd variants
//! differ (sign 0 for boxes and capsules, no extrema seeding, margin in the local frame) and
//! because the MPR results agree with MuJoCo bit for bit with them.

use glam::{DMat3, DVec3};

use super::{CcdOptions, ConvexGeom};
use crate::math::{axis_angle_quat, quat_to_mat};
use crate::model::{ConvexHull, GeomType};
use crate::narrow::PreContact;

/// MuJoCo's `mjMINVAL`.
pub(crate) const MINVAL: f64 = 1e-15;
/// libccd's `CCD_EPS` in double precision (`DBL_EPSILON`).
const CCD_EPS: f64 = f64::EPSILON;
/// Safety cap on portal-refinement iterations (libccd's loop has none; it always ends by the
/// tolerance test in practice).
const MAX_REFINE: usize = 10_000;

// ------------------------------------------------------------------------------------------
// libccd scalar and vector predicates
// ------------------------------------------------------------------------------------------

#[inline]
fn ccd_is_zero(x: f64) -> bool {
    x.abs() < CCD_EPS
}

#[inline]
fn ccd_eq(a: f64, b: f64) -> bool {
    let ab = (a - b).abs();
    if ab < CCD_EPS {
        return true;
    }
    let (a, b) = (a.abs(), b.abs());
    if b > a {
        ab < CCD_EPS * b
    } else {
        ab < CCD_EPS * a
    }
}

#[inline]
fn ccd_vec_eq(a: DVec3, b: DVec3) -> bool {
    ccd_eq(a.x, b.x) && ccd_eq(a.y, b.y) && ccd_eq(a.z, b.z)
}

/// libccd's `ccdVec3Normalize`: scales by `1/|v|` (no guard).
#[inline]
fn ccd_normalize(v: DVec3) -> DVec3 {
    v * (1.0 / v.dot(v).sqrt())
}

/// MuJoCo's `mju_sign`: -1, 0 or 1.
#[inline]
fn mj_sign(x: f64) -> f64 {
    if x > 0.0 {
        1.0
    } else if x < 0.0 {
        -1.0
    } else {
        0.0
    }
}

/// MuJoCo's `mju_normalize3` (falls back to +x below `mjMINVAL`).
#[inline]
fn mj_normalize(v: DVec3) -> DVec3 {
    let norm = v.dot(v).sqrt();
    if norm < MINVAL {
        DVec3::X
    } else {
        v * (1.0 / norm)
    }
}

// ------------------------------------------------------------------------------------------
// support objects
// ------------------------------------------------------------------------------------------

/// A convex object as MuJoCo's `mjCCDObj` sees it: a geom placed by `pos`/`mat` (which may be
/// relative to another frame, as in the height-field collider), or a triangular prism of a
/// height field (`kind == HField`, vertices in `prism`: 0..3 bottom, 3..6 top).
#[derive(Clone, Copy, Debug)]
pub(crate) struct CcdObj<'a> {
    pub(crate) kind: GeomType,
    pub(crate) pos: DVec3,
    pub(crate) mat: DMat3,
    pub(crate) size: DVec3,
    pub(crate) hull: Option<&'a ConvexHull>,
    pub(crate) prism: [DVec3; 6],
    /// Inflation: the libccd support adds half of it along the direction.
    pub(crate) margin: f64,
    /// Hull index of the last support vertex of a mesh (MuJoCo's `vertindex`), -1 if none.
    pub(crate) vertindex: i32,
    /// Hill-climbing warm start (MuJoCo's `meshindex`), -1 if none.
    pub(crate) meshindex: i32,
}

impl<'a> CcdObj<'a> {
    /// A geom in world coordinates.
    pub(crate) fn from_geom(g: &ConvexGeom<'a>, margin: f64) -> Self {
        CcdObj {
            kind: g.kind,
            pos: g.pos,
            mat: g.mat,
            size: g.size,
            hull: g.hull,
            prism: [DVec3::ZERO; 6],
            margin,
            vertindex: -1,
            meshindex: -1,
        }
    }

    /// An (empty) height-field prism.
    pub(crate) fn prism(margin: f64) -> Self {
        CcdObj {
            kind: GeomType::HField,
            pos: DVec3::ZERO,
            mat: DMat3::IDENTITY,
            size: DVec3::ZERO,
            hull: None,
            prism: [DVec3::ZERO; 6],
            margin,
            vertindex: -1,
            meshindex: -1,
        }
    }

    /// Whether the object has the data its support function needs.
    pub(crate) fn is_supported(&self) -> bool {
        match self.kind {
            GeomType::Sphere
            | GeomType::Capsule
            | GeomType::Ellipsoid
            | GeomType::Cylinder
            | GeomType::Box
            | GeomType::HField => true,
            GeomType::Mesh => self.hull.is_some_and(|h| !h.vert.is_empty()),
            GeomType::Plane | GeomType::Sdf => false,
        }
    }

    /// Whether pose and size are finite (NaN or infinite inputs give no contact).
    pub(crate) fn is_finite(&self) -> bool {
        self.pos.is_finite() && self.mat.is_finite() && self.size.is_finite()
    }

    /// Centre used by MPR (`mjc_center`): the frame origin, or the prism's vertex mean.
    pub(crate) fn center(&self) -> DVec3 {
        if self.kind == GeomType::HField {
            let mut s = DVec3::ZERO;
            for v in &self.prism {
                s += *v;
            }
            s * (1.0 / 6.0)
        } else {
            self.pos
        }
    }

    /// The libccd support function (`mjccd_support`): the farthest point along `dir` (unit,
    /// world or parent frame) of the object inflated by `margin / 2`.
    pub(crate) fn ccd_support(&mut self, dir: DVec3) -> DVec3 {
        if self.kind == GeomType::HField {
            let start = if dir.z < 0.0 { 0 } else { 3 };
            let dot = |v: DVec3| v.x * dir.x + v.y * dir.y + v.z * dir.z;
            let d0 = dot(self.prism[start]);
            let d1 = dot(self.prism[start + 1]);
            let mut best = if d1 > d0 { start + 1 } else { start };
            let max = d0.max(d1);
            if dot(self.prism[start + 2]) > max {
                best = start + 2;
            }
            let h = self.margin * 0.5;
            return self.prism[best] + dir * h;
        }
        let ld = self.mat.transpose_mul_vec3(dir);
        let size = self.size;
        let mut res = match self.kind {
            GeomType::Sphere => ld * size.x,
            GeomType::Capsule => {
                let mut r = ld * size.x;
                r.z += mj_sign(ld.z) * size.y;
                r
            }
            GeomType::Ellipsoid => {
                let t = ld * size;
                mj_normalize(t) * size
            }
            GeomType::Cylinder => {
                let n = (ld.x * ld.x + ld.y * ld.y).sqrt();
                let (x, y) = if n > MINVAL {
                    (ld.x / n * size.x, ld.y / n * size.x)
                } else {
                    (0.0, 0.0)
                };
                DVec3::new(x, y, mj_sign(ld.z) * size.y)
            }
            GeomType::Box => DVec3::new(
                mj_sign(ld.x) * size.x,
                mj_sign(ld.y) * size.y,
                mj_sign(ld.z) * size.z,
            ),
            GeomType::Mesh => match self.hull {
                Some(hull) if !hull.vert.is_empty() => {
                    // MuJoCo keeps the hull graph only for meshes with at least 10 vertices;
                    // smaller ones are scanned in full (first maximum in mesh order)
                    let i = if uses_exhaustive_search(hull) {
                        native_exhaustive(hull, ld, -1)
                    } else {
                        ccd_hillclimb(hull, ld, self.meshindex)
                    };
                    self.meshindex = i as i32;
                    self.vertindex = i as i32;
                    hull.vert[i]
                }
                _ => DVec3::ZERO,
            },
            GeomType::Plane | GeomType::HField | GeomType::Sdf => DVec3::ZERO,
        };
        res += ld * self.margin * 0.5;
        self.mat.mul_vec3(res) + self.pos
    }

    /// MuJoCo's native support functions (`mjc_sphereSupport`, …, `mjc_hillclimbSupport`):
    /// the farthest point along `dir` of the bare shape (no margin). For meshes the chosen hull
    /// vertex is left in `vertindex`.
    pub(crate) fn native_support(&mut self, dir: DVec3) -> DVec3 {
        let mat = self.mat;
        let size = self.size;
        match self.kind {
            GeomType::Sphere => dir * size.x + self.pos,
            GeomType::Capsule => {
                let ld = mat.transpose_mul_vec3(dir);
                let mut r = ld * size.x;
                r.z += if ld.z >= 0.0 { size.y } else { -size.y };
                mat.mul_vec3(r) + self.pos
            }
            GeomType::Ellipsoid => {
                let ld = mat.transpose_mul_vec3(dir);
                let t = ld * size;
                let n2 = t.x * t.x + t.y * t.y + t.z * t.z;
                if n2 < MINVAL * MINVAL {
                    mat.x_axis * size.x + self.pos
                } else {
                    let inv = 1.0 / n2.sqrt();
                    let l = DVec3::new(
                        t.x * (inv * size.x),
                        t.y * (inv * size.y),
                        t.z * (inv * size.z),
                    );
                    mat.mul_vec3(l) + self.pos
                }
            }
            GeomType::Cylinder => {
                let ld = mat.transpose_mul_vec3(dir);
                let n = ld.x * ld.x + ld.y * ld.y;
                let (x, y) = if n > MINVAL * MINVAL {
                    let k = size.x / n.sqrt();
                    (ld.x * k, ld.y * k)
                } else {
                    (0.0, 0.0)
                };
                let z = if ld.z >= 0.0 { size.y } else { -size.y };
                mat.mul_vec3(DVec3::new(x, y, z)) + self.pos
            }
            GeomType::Box => {
                let ld = mat.transpose_mul_vec3(dir);
                let s = |x: f64| if x >= 0.0 { 1.0 } else { -1.0 };
                mat.mul_vec3(DVec3::new(
                    s(ld.x) * size.x,
                    s(ld.y) * size.y,
                    s(ld.z) * size.z,
                )) + self.pos
            }
            GeomType::Mesh => match self.hull {
                Some(hull) if !hull.vert.is_empty() => {
                    let ld = mat.transpose_mul_vec3(dir);
                    let i = if uses_exhaustive_search(hull) {
                        native_exhaustive(hull, ld, self.vertindex)
                    } else {
                        let i = native_hillclimb(hull, ld, self.meshindex);
                        self.meshindex = i as i32;
                        i
                    };
                    self.vertindex = i as i32;
                    mat.mul_vec3(hull.vert[i]) + self.pos
                }
                _ => self.pos,
            },
            GeomType::HField => {
                let mut best = 0;
                let mut max = self.prism[0].dot(dir);
                for (i, v) in self.prism.iter().enumerate().skip(1) {
                    let d = v.dot(dir);
                    if d > max {
                        max = d;
                        best = i;
                    }
                }
                self.prism[best]
            }
            GeomType::Plane | GeomType::Sdf => self.pos,
        }
    }
}

/// Whether MuJoCo searches this mesh exhaustively (`mjc_meshSupport`: fewer than
/// `mjMESH_HILLCLIMB_MIN = 10` mesh vertices, repeated vertices included) rather than by hill
/// climbing. For a hull whose mesh vertex count is unknown ([`ConvexHull::mesh_nvert`] 0), one
/// more than the largest mesh index of a hull vertex stands in for it (exact whenever the
/// mesh's last vertex is on the hull).
#[inline]
pub(crate) fn uses_exhaustive_search(hull: &ConvexHull) -> bool {
    let n = hull.vert.len();
    if hull.graph.len() != n {
        return true;
    }
    let nvert = match hull.mesh_nvert {
        0 => hull
            .mesh_index
            .iter()
            .copied()
            .max()
            .map_or(n, |m| m as usize + 1),
        k => k as usize,
    };
    // (the mesh has at least as many vertices as its hull)
    nvert.max(n) < super::HILLCLIMB_MIN
}

/// `(ld0*v0 + ld1*v1) + ld2*v2`, MuJoCo's order.
#[inline]
fn vdot(ld: DVec3, v: DVec3) -> f64 {
    ld.x * v.x + ld.y * v.y + ld.z * v.z
}

/// `mjc_meshSupport`: first maximum over the mesh vertices in mesh order (the hull vertices
/// ordered by mesh index), starting from the warm start `vertindex` if any.
///
/// One pass in hull order gives the same vertex: the scan keeps the warm start when it attains
/// the maximum, else the maximal vertex of smallest mesh index (comparisons are exact).
pub(crate) fn native_exhaustive(hull: &ConvexHull, ld: DVec3, vertindex: i32) -> usize {
    let n = hull.vert.len();
    let idx = &hull.mesh_index;
    let key = |j: usize| if idx.len() == n { idx[j] as usize } else { j };
    let (mut imax, mut max) = (usize::MAX, -(f32::MAX as f64));
    for (j, v) in hull.vert.iter().enumerate() {
        let d = vdot(ld, *v);
        if d > max || (d == max && imax != usize::MAX && key(j) < key(imax)) {
            max = d;
            imax = j;
        }
    }
    if vertindex >= 0 && (vertindex as usize) < n {
        let w = vertindex as usize;
        if imax == usize::MAX || vdot(ld, hull.vert[w]) >= max {
            return w;
        }
    }
    if imax == usize::MAX {
        0
    } else {
        imax
    }
}

/// Index into `hull.extrema` of the direction bucket of `ld` (components beyond ±0.4).
#[inline]
pub(crate) fn extrema_bucket(ld: DVec3) -> usize {
    let b = |x: f64| -> i32 { (x > 0.4) as i32 - (x < -0.4) as i32 };
    (9 * (b(ld.x) + 1) + 3 * (b(ld.y) + 1) + (b(ld.z) + 1)) as usize
}

/// `mjc_hillclimbSupport` (4.0.0): seed from the 27-direction extrema table (or the warm start
/// if that is at least as good), then climb to the best neighbour until no neighbour improves.
#[inline]
pub(crate) fn native_hillclimb(hull: &ConvexHull, ld: DVec3, meshindex: i32) -> usize {
    let (cur, max) = native_seed(hull, ld, meshindex);
    hull.graph.climb(ld, cur, max)
}

/// The start of [`native_hillclimb`] and its dot product (`hull` has vertices).
#[inline]
pub(crate) fn native_seed(hull: &ConvexHull, ld: DVec3, meshindex: i32) -> (usize, f64) {
    let verts = hull.vert.as_slice();
    let seed = (hull.extrema[extrema_bucket(ld)] as usize).min(verts.len() - 1);
    let mut cur = seed;
    let mut max = vdot(ld, verts[seed]);
    if let Some((warm, v)) = usize::try_from(meshindex)
        .ok()
        .and_then(|w| Some((w, verts.get(w)?)))
    {
        let d = vdot(ld, *v);
        if max <= d {
            cur = warm;
            max = d;
        }
    }
    (cur, max)
}

/// The mesh branch of `mjccd_support` for meshes with a hull graph: hill climbing from the warm
/// start (or vertex 0).
fn ccd_hillclimb(hull: &ConvexHull, ld: DVec3, meshindex: i32) -> usize {
    let n = hull.vert.len();
    if hull.graph.len() != n {
        // no graph: exhaustive, first maximum
        let mut best = 0;
        let mut max = -1e10;
        for (i, v) in hull.vert.iter().enumerate() {
            let d = vdot(ld, *v);
            if d > max {
                max = d;
                best = i;
            }
        }
        return best;
    }
    let cur = if meshindex > 0 && (meshindex as usize) < n {
        meshindex as usize
    } else {
        0
    };
    hull.graph.climb(ld, cur, vdot(ld, hull.vert[cur]))
}

// ------------------------------------------------------------------------------------------
// MPR (libccd's mpr.c)
// ------------------------------------------------------------------------------------------

/// A point of the Minkowski difference with the two support points it came from.
#[derive(Clone, Copy, Debug, Default)]
struct Sup {
    v: DVec3,
    v1: DVec3,
    v2: DVec3,
}

fn support(o1: &mut CcdObj, o2: &mut CcdObj, dir: DVec3) -> Sup {
    let v1 = o1.ccd_support(dir);
    let v2 = o2.ccd_support(dir * -1.0);
    Sup { v: v1 - v2, v1, v2 }
}

/// Result of the libccd penetration query.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Penetration {
    /// Penetration depth of the inflated shapes (≥ 0).
    pub(crate) depth: f64,
    /// Unit direction (from object 1 towards object 2 in MuJoCo's use), zero if undefined.
    pub(crate) dir: DVec3,
    /// Contact position (midpoint of the witness points).
    pub(crate) pos: DVec3,
}

enum Portal {
    Outside,
    Touch,
    Segment,
    Built,
}

fn discover_portal(o1: &mut CcdObj, o2: &mut CcdObj, p: &mut [Sup; 4]) -> Portal {
    // vertex 0: centre of the Minkowski difference
    let c1 = o1.center();
    let c2 = o2.center();
    p[0] = Sup {
        v: c1 - c2,
        v1: c1,
        v2: c2,
    };
    if ccd_vec_eq(p[0].v, DVec3::ZERO) {
        p[0].v += DVec3::new(CCD_EPS * 10.0, 0.0, 0.0);
    }

    // vertex 1: support towards the origin
    let mut dir = ccd_normalize(p[0].v * -1.0);
    p[1] = support(o1, o2, dir);
    let dot = p[1].v.dot(dir);
    if ccd_is_zero(dot) || dot < 0.0 {
        return Portal::Outside;
    }

    // vertex 2
    dir = p[0].v.cross(p[1].v);
    if ccd_is_zero(dir.dot(dir)) {
        return if ccd_vec_eq(p[1].v, DVec3::ZERO) {
            Portal::Touch
        } else {
            Portal::Segment
        };
    }
    dir = ccd_normalize(dir);
    p[2] = support(o1, o2, dir);
    let dot = p[2].v.dot(dir);
    if ccd_is_zero(dot) || dot < 0.0 {
        return Portal::Outside;
    }

    // vertex 3 direction
    let va = p[1].v - p[0].v;
    let vb = p[2].v - p[0].v;
    dir = ccd_normalize(va.cross(vb));
    if dir.dot(p[0].v) > 0.0 {
        p.swap(1, 2);
        dir *= -1.0;
    }

    let mut guard = 0;
    loop {
        guard += 1;
        if guard > MAX_REFINE {
            return Portal::Outside;
        }
        p[3] = support(o1, o2, dir);
        let dot = p[3].v.dot(dir);
        if ccd_is_zero(dot) || dot < 0.0 {
            return Portal::Outside;
        }
        let mut cont = false;
        // origin outside (v1, v0, v3): replace v2 by v3
        let dot = p[1].v.cross(p[3].v).dot(p[0].v);
        if dot < 0.0 && !ccd_is_zero(dot) {
            p[2] = p[3];
            cont = true;
        }
        if !cont {
            // origin outside (v3, v0, v2): replace v1 by v3
            let dot = p[3].v.cross(p[2].v).dot(p[0].v);
            if dot < 0.0 && !ccd_is_zero(dot) {
                p[1] = p[3];
                cont = true;
            }
        }
        if cont {
            let va = p[1].v - p[0].v;
            let vb = p[2].v - p[0].v;
            dir = ccd_normalize(va.cross(vb));
        } else {
            return Portal::Built;
        }
    }
}

#[inline]
fn portal_dir(p: &[Sup; 4]) -> DVec3 {
    let v2v1 = p[2].v - p[1].v;
    let v3v1 = p[3].v - p[1].v;
    ccd_normalize(v2v1.cross(v3v1))
}

#[inline]
fn portal_encapsules_origin(p: &[Sup; 4], dir: DVec3) -> bool {
    let dot = dir.dot(p[1].v);
    ccd_is_zero(dot) || dot > 0.0
}

#[inline]
fn portal_reach_tolerance(p: &[Sup; 4], v4: &Sup, dir: DVec3, tol: f64) -> bool {
    let dv1 = p[1].v.dot(dir);
    let dv2 = p[2].v.dot(dir);
    let dv3 = p[3].v.dot(dir);
    let dv4 = v4.v.dot(dir);
    let dot1 = (dv4 - dv1).min(dv4 - dv2).min(dv4 - dv3);
    ccd_eq(dot1, tol) || dot1 < tol
}

#[inline]
fn portal_can_encapsule_origin(v4: &Sup, dir: DVec3) -> bool {
    let dot = v4.v.dot(dir);
    ccd_is_zero(dot) || dot > 0.0
}

fn expand_portal(p: &mut [Sup; 4], v4: Sup) {
    let v4v0 = v4.v.cross(p[0].v);
    if p[1].v.dot(v4v0) > 0.0 {
        if p[2].v.dot(v4v0) > 0.0 {
            p[1] = v4;
        } else {
            p[3] = v4;
        }
    } else if p[3].v.dot(v4v0) > 0.0 {
        p[2] = v4;
    } else {
        p[1] = v4;
    }
}

fn refine_portal(o1: &mut CcdObj, o2: &mut CcdObj, p: &mut [Sup; 4], tol: f64) -> bool {
    for _ in 0..MAX_REFINE {
        let dir = portal_dir(p);
        if portal_encapsules_origin(p, dir) {
            return true;
        }
        let v4 = support(o1, o2, dir);
        if !portal_can_encapsule_origin(&v4, dir) || portal_reach_tolerance(p, &v4, dir, tol) {
            return false;
        }
        expand_portal(p, v4);
    }
    false
}

/// libccd's `__ccdVec3PointSegmentDist2` with the origin as the point.
fn point_segment_dist2(x0: DVec3, b: DVec3) -> (f64, DVec3) {
    let d = b - x0;
    let a = x0;
    let mut t = -a.dot(d);
    t /= d.dot(d);
    if t < 0.0 || ccd_is_zero(t) {
        (x0.dot(x0), x0)
    } else if t > 1.0 || ccd_eq(t, 1.0) {
        (b.dot(b), b)
    } else {
        let w = d * t + x0;
        (w.dot(w), w)
    }
}

/// libccd's `ccdVec3PointTriDist2` with the origin as the point: squared distance and witness.
fn origin_tri_dist2(x0: DVec3, b: DVec3, c: DVec3) -> (f64, DVec3) {
    let d1 = b - x0;
    let d2 = c - x0;
    let a = x0;
    let v = d1.dot(d1);
    let w = d2.dot(d2);
    let p = a.dot(d1);
    let q = a.dot(d2);
    let r = d1.dot(d2);
    let d = w * v - r * r;
    let (s, t) = if ccd_is_zero(d) {
        (-1.0, -1.0)
    } else {
        let s = (q * r - w * p) / d;
        (s, (-s * r - q) / w)
    };
    if (ccd_is_zero(s) || s > 0.0)
        && (ccd_eq(s, 1.0) || s < 1.0)
        && (ccd_is_zero(t) || t > 0.0)
        && (ccd_eq(t, 1.0) || t < 1.0)
        && (ccd_eq(t + s, 1.0) || t + s < 1.0)
    {
        let wit = x0 + d1 * s + d2 * t;
        (wit.dot(wit), wit)
    } else {
        let (mut dist, mut wit) = point_segment_dist2(x0, b);
        let (d2_, w2) = point_segment_dist2(x0, c);
        if d2_ < dist {
            dist = d2_;
            wit = w2;
        }
        let (d3, w3) = point_segment_dist2(b, c);
        if d3 < dist {
            dist = d3;
            wit = w3;
        }
        (dist, wit)
    }
}

/// libccd's `findPos`: barycentric position of the origin in the portal, averaged between the
/// two objects' support points.
fn find_pos(p: &[Sup; 4]) -> DVec3 {
    let dir = portal_dir(p);
    let mut b = [
        p[1].v.cross(p[2].v).dot(p[3].v),
        p[3].v.cross(p[2].v).dot(p[0].v),
        p[0].v.cross(p[1].v).dot(p[3].v),
        p[2].v.cross(p[1].v).dot(p[0].v),
    ];
    let mut sum = b[0] + b[1] + b[2] + b[3];
    if ccd_is_zero(sum) || sum < 0.0 {
        b[0] = 0.0;
        b[1] = p[2].v.cross(p[3].v).dot(dir);
        b[2] = p[3].v.cross(p[1].v).dot(dir);
        b[3] = p[1].v.cross(p[2].v).dot(dir);
        sum = b[1] + b[2] + b[3];
    }
    let inv = 1.0 / sum;
    let mut p1 = DVec3::ZERO;
    let mut p2 = DVec3::ZERO;
    for i in 0..4 {
        p1 += p[i].v1 * b[i];
        p2 += p[i].v2 * b[i];
    }
    p1 *= inv;
    p2 *= inv;
    (p1 + p2) * 0.5
}

fn find_penetr(
    o1: &mut CcdObj,
    o2: &mut CcdObj,
    p: &mut [Sup; 4],
    tol: f64,
    max_iterations: usize,
) -> Penetration {
    let mut iterations = 0usize;
    loop {
        let dir = portal_dir(p);
        let v4 = support(o1, o2, dir);
        if portal_reach_tolerance(p, &v4, dir, tol) || iterations > max_iterations {
            let (d2, wit) = origin_tri_dist2(p[1].v, p[2].v, p[3].v);
            let depth = d2.sqrt();
            let dir = if ccd_is_zero(depth) {
                DVec3::ZERO
            } else {
                ccd_normalize(wit)
            };
            return Penetration {
                depth,
                dir,
                pos: find_pos(p),
            };
        }
        expand_portal(p, v4);
        iterations += 1;
    }
}

/// `ccdMPRPenetration`: `None` when the (inflated) objects do not intersect.
pub(crate) fn mpr(o1: &mut CcdObj, o2: &mut CcdObj, opt: &CcdOptions) -> Option<Penetration> {
    let mut p = [Sup::default(); 4];
    match discover_portal(o1, o2, &mut p) {
        Portal::Outside => None,
        Portal::Touch => Some(Penetration {
            depth: 0.0,
            dir: DVec3::ZERO,
            pos: (p[1].v1 + p[1].v2) * 0.5,
        }),
        Portal::Segment => {
            let pos = (p[1].v1 + p[1].v2) * 0.5;
            let dir = p[1].v;
            Some(Penetration {
                depth: dir.dot(dir).sqrt(),
                dir: ccd_normalize(dir),
                pos,
            })
        }
        Portal::Built => {
            if !refine_portal(o1, o2, &mut p, opt.tolerance) {
                return None;
            }
            Some(find_penetr(o1, o2, &mut p, opt.tolerance, opt.iterations))
        }
    }
}

/// MuJoCo's `mjc_penetration` under libccd for two objects: the contact with
/// `dist = margin - depth`, or `None` (no intersection, or an undefined normal).
pub(crate) fn ccd_penetration(
    o1: &mut CcdObj,
    o2: &mut CcdObj,
    margin: f64,
    opt: &CcdOptions,
) -> Option<PreContact> {
    let pen = mpr(o1, o2, opt)?;
    if ccd_vec_eq(pen.dir, DVec3::ZERO) {
        return None;
    }
    Some(PreContact {
        dist: margin - pen.depth,
        pos: pen.pos,
        normal: pen.dir,
        tangent: DVec3::ZERO,
    })
}

// ------------------------------------------------------------------------------------------
// mjc_fixNormal
// ------------------------------------------------------------------------------------------

/// Normal at the ellipsoid point hit by the ray `pos + x·nrm` from an inside point
/// (MuJoCo's `mjc_ellipsoidInside`, an SQP on the ray projection). `None` if not processed.
fn ellipsoid_inside(nrm: DVec3, pos: DVec3, size: DVec3) -> Option<DVec3> {
    const MAXITER: usize = 30;
    const TOL: f64 = 1e-6;
    let s2inv = DVec3::new(
        1.0 / (size.x * size.x),
        1.0 / (size.y * size.y),
        1.0 / (size.z * size.z),
    );
    let c = pos.x * pos.x * s2inv.x + pos.y * pos.y * s2inv.y + pos.z * pos.z * s2inv.z - 1.0;
    if c > 0.0 {
        return None;
    }
    let mut nrm = mj_normalize(nrm);
    for iter in 0..MAXITER {
        let a = nrm.x * nrm.x * s2inv.x + nrm.y * nrm.y * s2inv.y + nrm.z * nrm.z * s2inv.z;
        let b = pos.x * nrm.x * s2inv.x + pos.y * nrm.y * s2inv.y + pos.z * nrm.z * s2inv.z;
        let det = b * b - a * c;
        if det < MINVAL || a < MINVAL {
            return if iter > 0 { Some(nrm) } else { None };
        }
        let x = (-b + det.sqrt()) / a;
        if x < 0.0 {
            return if iter > 0 { Some(nrm) } else { None };
        }
        let pnt = pos + nrm * x;
        let newnrm = mj_normalize(DVec3::new(
            pnt.x * s2inv.x,
            pnt.y * s2inv.y,
            pnt.z * s2inv.z,
        ));
        let change = (nrm - newnrm).length();
        nrm = newnrm;
        if change < TOL {
            break;
        }
    }
    Some(nrm)
}

/// Normal at the ellipsoid point nearest to an outside point (MuJoCo's
/// `mjc_ellipsoidOutside`, Newton on the Lagrange multiplier of a diagonal QCQP).
fn ellipsoid_outside(pos: DVec3, size: DVec3) -> DVec3 {
    const MAXITER: usize = 30;
    const TOL: f64 = 1e-6;
    let s2 = size * size;
    let ps2 = DVec3::new(
        pos.x * pos.x * s2.x,
        pos.y * pos.y * s2.y,
        pos.z * pos.z * s2.z,
    );
    let mut la = 0.0;
    for _ in 0..MAXITER {
        let r = DVec3::new(1.0 / (s2.x + la), 1.0 / (s2.y + la), 1.0 / (s2.z + la));
        let val = ps2.x * r.x * r.x + ps2.y * r.y * r.y + ps2.z * r.z * r.z - 1.0;
        if val < TOL {
            break;
        }
        let deriv =
            -2.0 * (ps2.x * r.x * r.x * r.x + ps2.y * r.y * r.y * r.y + ps2.z * r.z * r.z * r.z);
        if deriv > -MINVAL {
            break;
        }
        let delta = -val / deriv;
        if delta < TOL {
            break;
        }
        la += delta;
    }
    mj_normalize(DVec3::new(
        pos.x / (s2.x + la),
        pos.y / (s2.y + la),
        pos.z / (s2.z + la),
    ))
}

/// The analytic outward normal of a smooth geom at (or near) world point `pos`, starting from
/// `guess` (world); `None` when the geom type is not processed or the point is on a flat part.
fn analytic_normal(g: &ConvexGeom, pos: DVec3, guess: DVec3) -> Option<DVec3> {
    let mat = g.mat;
    let size = g.size;
    let p = mat.transpose_mul_vec3(pos - g.pos);
    let nrm = mat.transpose_mul_vec3(guess);
    let local = match g.kind {
        GeomType::Sphere => Some(p),
        GeomType::Capsule => {
            let z = if p.z < -size.y {
                p.z + size.y
            } else if p.z > size.y {
                p.z - size.y
            } else {
                0.0
            };
            Some(DVec3::new(p.x, p.y, z))
        }
        GeomType::Ellipsoid => {
            if size.x < MINVAL || size.y < MINVAL || size.z < MINVAL {
                None
            } else {
                let d = p.x * p.x / (size.x * size.x)
                    + p.y * p.y / (size.y * size.y)
                    + p.z * p.z / (size.z * size.z);
                if d <= 1.0 {
                    ellipsoid_inside(nrm, p, size)
                } else {
                    Some(ellipsoid_outside(p, size))
                }
            }
        }
        GeomType::Cylinder => {
            if p.z.abs() > 0.95 * size.y {
                None
            } else {
                let dst1 = (size.y - p.z.abs()).abs();
                let dst2 = (size.x - (p.x * p.x + p.y * p.y).sqrt()).abs();
                if dst1 < 0.25 * dst2 {
                    None
                } else {
                    Some(DVec3::new(p.x, p.y, 0.0))
                }
            }
        }
        _ => None,
    }?;
    Some(mat.mul_vec3(mj_normalize(local)))
}

/// MuJoCo's `mjc_fixNormal`: replaces the contact normal by the analytic normal of a sphere,
/// capsule, ellipsoid or cylinder geom (both processed: the normalized difference). `g1`/`g2`
/// are the world geoms (`None` for a height field or another unprocessed object).
pub(crate) fn fix_normal(con: &mut PreContact, g1: Option<&ConvexGeom>, g2: Option<&ConvexGeom>) {
    let n1 = g1.and_then(|g| analytic_normal(g, con.pos, con.normal));
    let n2 = g2.and_then(|g| analytic_normal(g, con.pos, -con.normal));
    match (n1, n2) {
        (Some(a), Some(b)) => con.normal = mj_normalize(a - b),
        (Some(a), None) => con.normal = a,
        (None, Some(b)) => con.normal = b * -1.0,
        (None, None) => return,
    }
    con.tangent = DVec3::ZERO;
}

// ------------------------------------------------------------------------------------------
// entry point
// ------------------------------------------------------------------------------------------

/// MuJoCo's `geom_rbound` of a convex geom (mesh: norm of the per-axis maximum of the absolute
/// hull coordinates, which equals MuJoCo's value from all mesh vertices).
pub(crate) fn rbound(g: &ConvexGeom) -> f64 {
    let s = g.size;
    match g.kind {
        GeomType::Sphere => s.x,
        GeomType::Capsule => s.x + s.y,
        GeomType::Ellipsoid => s.x.max(s.y).max(s.z),
        GeomType::Cylinder => (s.x * s.x + s.y * s.y).sqrt(),
        GeomType::Box => s.length(),
        GeomType::Mesh => match g.hull {
            Some(h) => {
                let mut m = DVec3::ZERO;
                for v in &h.vert {
                    m = m.max(v.abs());
                }
                m.length()
            }
            None => 0.0,
        },
        GeomType::Plane | GeomType::HField | GeomType::Sdf => 0.0,
    }
}

/// The two objects of a libccd pair, or `None` if a shape has no support function.
fn ccd_objects<'a>(
    g1: &ConvexGeom<'a>,
    g2: &ConvexGeom<'a>,
    margin: f64,
) -> Option<(CcdObj<'a>, CcdObj<'a>)> {
    let o1 = CcdObj::from_geom(g1, margin);
    let o2 = CcdObj::from_geom(g2, margin);
    let ok = |o: &CcdObj| o.is_supported() && o.kind != GeomType::HField && o.is_finite();
    (ok(&o1) && ok(&o2) && margin.is_finite()).then_some((o1, o2))
}

/// Convex–convex penetration through libccd's MPR, MuJoCo's `mjDSBL_NATIVECCD` path of
/// `mjc_Convex` without the multi-contact perturbation (one contact).
///
/// Both shapes are inflated by `margin / 2`; MPR finds the penetration depth of the inflated
/// shapes, and the contact has `dist = margin - depth` (so it is reported only when
/// `dist <= margin`), `normal` = the MPR direction from `g1` towards `g2` (then corrected by
/// `mjc_fixNormal` for spheres, capsules, ellipsoids and cylinders), `pos` = the MPR position.
/// Returns 0 for separated shapes, for an undefined direction (exact touching), for shapes
/// without a support function (plane, height field, mesh without hull) or an empty `out`.
pub fn mpr_penetration(
    g1: &ConvexGeom,
    g2: &ConvexGeom,
    margin: f64,
    opt: &CcdOptions,
    out: &mut [PreContact],
) -> usize {
    if out.is_empty() {
        return 0;
    }
    let Some((mut o1, mut o2)) = ccd_objects(g1, g2, margin) else {
        return 0;
    };
    match ccd_penetration(&mut o1, &mut o2, margin, opt) {
        Some(mut c) => {
            fix_normal(&mut c, Some(g1), Some(g2));
            out[0] = c;
            1
        }
        None => 0,
    }
}

/// MuJoCo's `mju_makeFrame` for a normal alone: the normal (normalized), a tangent from +y
/// (or +z when the normal is within 60° of y) made orthogonal, and their cross product.
fn make_frame(normal: DVec3) -> [DVec3; 3] {
    let x = mj_normalize(normal);
    let y0 = if x.y.abs() < 0.5 { DVec3::Y } else { DVec3::Z };
    let y = mj_normalize(y0 - x * x.dot(y0));
    [x, y, x.cross(y)]
}

/// Rotates the frame (`pos`, `mat`) by `rot` about the point `origin` (MuJoCo's
/// `mju_rotateFrame`).
fn rotate_frame(origin: DVec3, rot: &DMat3, pos: &mut DVec3, mat: &mut DMat3) {
    *mat = *rot * *mat;
    let rel = origin - *pos;
    let moved = rot.mul_vec3(rel) - rel;
    *pos -= moved;
}

/// MuJoCo's `mjc_Convex` with `nativeccd` disabled: the MPR contact of [`mpr_penetration`],
/// then, with [`CcdOptions::multi`] and neither geom a sphere or an ellipsoid, up to four more
/// from MuJoCo's perturbation scheme: both geoms are rotated by ∓1e-3 rad (geom 1 by `R`,
/// geom 2 by `Rᵀ`) about each tangent of the first contact's frame, through the first contact
/// point, and MPR runs again; a new contact farther than `1e-3 · min(rbound)` from all previous
/// ones is kept, with the first contact's `dist`. At most 5 contacts (and `out.len()`).
pub fn mpr_convex(
    g1: &ConvexGeom,
    g2: &ConvexGeom,
    margin: f64,
    opt: &CcdOptions,
    out: &mut [PreContact],
) -> usize {
    if out.is_empty() {
        return 0;
    }
    let Some((mut o1, mut o2)) = ccd_objects(g1, g2, margin) else {
        return 0;
    };
    let Some(mut first) = ccd_penetration(&mut o1, &mut o2, margin, opt) else {
        return 0;
    };
    fix_normal(&mut first, Some(g1), Some(g2));
    out[0] = first;
    let smooth = |k: GeomType| matches!(k, GeomType::Sphere | GeomType::Ellipsoid);
    if !opt.multi || smooth(g1.kind) || smooth(g2.kind) {
        return 1;
    }
    let frame = make_frame(first.normal);
    let tolerance = 1e-3 * rbound(g1).min(rbound(g2));
    let mut n = 1;
    for axis in [frame[1], frame[2]] {
        for angle in [-1e-3, 1e-3] {
            if n >= out.len() {
                return n;
            }
            let rot = quat_to_mat(axis_angle_quat(axis, angle));
            let inv = rot.transpose();
            rotate_frame(first.pos, &rot, &mut o1.pos, &mut o1.mat);
            rotate_frame(first.pos, &inv, &mut o2.pos, &mut o2.mat);
            if let Some(mut c) = ccd_penetration(&mut o1, &mut o2, margin, opt) {
                // MuJoCo fixes the normal with the unperturbed geoms
                fix_normal(&mut c, Some(g1), Some(g2));
                if out[..n]
                    .iter()
                    .all(|p| (p.pos - c.pos).length() > tolerance)
                {
                    c.dist = first.dist;
                    out[n] = c;
                    n += 1;
                }
            }
            (o1.pos, o1.mat) = (g1.pos, g1.mat);
            (o2.pos, o2.mat) = (g2.pos, g2.mat);
        }
    }
    n
}
