//! Ellipsoids and cylinders against a triangle mesh, by the triangles (the smooth shapes of
//! [`super::primitive_mesh`]; spheres, capsules and boxes run as cores in `mod.rs`).
//!
//! These shapes have no finite set of vertices and edges to test feature by feature, so each
//! candidate triangle is met with the shape itself, in the mesh frame:
//! - **apart** (lean GJK between the shape and the triangle, to a relative gap of 1e-10): the
//!   triangle feature nearest the shape decides, and its distance and normal are made exact (a
//!   face by the shape's support point along its normal, an edge by its cone's best direction
//!   as below, a vertex by its nearest point on the shape); kept when the normal lies in that
//!   feature's normal cone and the shape is in front of the face;
//! - **overlapping**, three kinds of penetration, each kept only inside its feature's cone:
//!   - *face*: the shape's deepest point behind the face plane (its support point along the
//!     inward normal; on a cylinder's flat cap or straight side, the point of that flat set
//!     nearest the triangle, so flat contacts spread over the triangles they rest on), if it
//!     projects into the triangle: with the shape's centre in front of the plane, its depth
//!     below the plane (as a sphere's in `mod.rs`); else, if it lies inside the mesh, its
//!     depth to the nearest mesh surface;
//!   - *vertex*: a triangle vertex inside the shape, pushed out through the shallowest
//!     boundary of the shape whose normal lies in the vertex's cone (a cylinder's two caps and
//!     its side; an ellipsoid's nearest boundary point, by bisection on the Lagrange
//!     multiplier), made no deeper than the best directions of the triangle's two edges at the
//!     vertex (the rim of its cone) allow; one candidate per vertex, the least deep over the
//!     triangles around it;
//!   - *edge*: the direction in the edge's cone (between its two face normals, or the half
//!     circle beyond a boundary edge or a fin) along which the shape's extreme point lies least
//!     deep below the edge (sampled at [`ARC_SAMPLES`] directions, then refined by golden
//!     section), kept when it lies strictly inside the cone (at a face normal the faces
//!     decide), the extreme point lies beside the edge's interior, the edge point inside the
//!     shape and the extreme point inside the mesh (up to the grazing angle of `mod.rs`).
//!
//! Limits: an ellipsoid vertex depth uses the globally nearest boundary point only (a mesh
//! vertex beyond the ellipsoid's centre whose cone points away from that point reports no
//! vertex contact); the edge search can miss a second local optimum narrower than one sample
//! step; in deep penetration, a cone test at a face normal can flip with rounding, and with it
//! the deepest feature. A shape wholly inside the mesh (no surface feature near) reports the
//! deepest of its centre and axis extremes, as the cores do.

use glam::{DMat3, DVec3};

use super::{
    closest_on_triangle, closest_segments, deepest_inside, inside_cand, reduce, Cand, Feature,
    MeshScratch, TriMesh, END_EPS, GRAZE,
};
use crate::model::GeomType;
use crate::narrow::convex::lean_gjk::{gjk, Local, Outcome};
use crate::narrow::{PreContact, Shape};

/// Directions sampled on an edge's normal cone before the golden-section refinement.
const ARC_SAMPLES: usize = 12;

/// Golden-section steps (the bracket shrinks by 0.618 per step: 1e-13 of a sample step).
const GOLDEN_STEPS: usize = 64;

/// A flat support set (cylinder cap or side) is taken when the direction is within this
/// (relative) of the flat set's normal plane.
const FLAT_TIE: f64 = 1e-9;

/// An arc's best direction closer than this fraction of the arc to its ends is a face normal.
const ARC_END: f64 = 1e-9;

/// Bisection steps for the nearest boundary point of an ellipsoid (the bracket is the
/// smallest squared semi-axis: 2^-100 of it is below rounding).
const BISECT_STEPS: usize = 100;

/// An ellipsoid or cylinder in the mesh frame.
#[derive(Clone, Copy, Debug)]
struct Smooth {
    kind: SmoothKind,
    /// Centre.
    c: DVec3,
    /// Axes (columns) in the mesh frame.
    rot: DMat3,
}

#[derive(Clone, Copy, Debug)]
enum SmoothKind {
    /// Semi-axes.
    Ellipsoid(DVec3),
    /// Radius, half-height (axis along local z).
    Cylinder(f64, f64),
}

/// What a flat support set (a cylinder's cap or side) is to be nearest to: a point, or a
/// segment (an edge).
#[derive(Clone, Copy, Debug)]
enum Hint {
    Point(DVec3),
    Segment(DVec3, DVec3),
}

/// The point of the disc of radius `r` about the origin of the xy plane nearest the segment
/// `pq` projected on that plane; where the projection crosses the disc, the crossing point
/// nearest the segment's midpoint.
fn disc_nearest(r: f64, p: DVec3, q: DVec3) -> (f64, f64) {
    let (px, py, dx, dy) = (p.x, p.y, q.x - p.x, q.y - p.y);
    let a = dx * dx + dy * dy;
    // |p + t d|² = r²: a t² + 2 b t + c = 0
    let (b, c) = (px * dx + py * dy, px * px + py * py - r * r);
    let t = if a > 0.0 {
        let disc = b * b - a * c;
        if disc >= 0.0 {
            let w = disc.sqrt();
            let (t0, t1) = ((-b - w) / a, (-b + w) / a);
            let (lo, hi) = (t0.max(0.0), t1.min(1.0));
            if lo <= hi {
                0.5f64.clamp(lo, hi)
            } else {
                (-b / a).clamp(0.0, 1.0)
            }
        } else {
            (-b / a).clamp(0.0, 1.0)
        }
    } else {
        0.0
    };
    let (x, y) = (px + dx * t, py + dy * t);
    let l = x.hypot(y);
    if l > r {
        (x * r / l, y * r / l)
    } else {
        (x, y)
    }
}

/// A boundary point of the shape: depth of the query point below it, the point, and the
/// shape's outward unit normal there (mesh frame).
type Boundary = (f64, DVec3, DVec3);

impl Smooth {
    fn local(&self, p: DVec3) -> DVec3 {
        self.rot.transpose() * (p - self.c)
    }

    fn world(&self, x: DVec3) -> DVec3 {
        self.rot * x + self.c
    }

    fn lean(&self) -> Local<'static> {
        match self.kind {
            SmoothKind::Ellipsoid(s) => Local::Ellipsoid(s),
            SmoothKind::Cylinder(r, h) => Local::Cylinder(r, h),
        }
    }

    /// Radius of a ball about the centre holding the shape.
    fn reach(&self) -> f64 {
        match self.kind {
            SmoothKind::Ellipsoid(s) => s.max_element(),
            SmoothKind::Cylinder(r, h) => r.hypot(h),
        }
    }

    /// The centre and the extremes along the local axes (mesh frame).
    fn probes(&self) -> [DVec3; 7] {
        let e = match self.kind {
            SmoothKind::Ellipsoid(s) => s,
            SmoothKind::Cylinder(r, h) => DVec3::new(r, r, h),
        };
        let mut p = [self.c; 7];
        for k in 0..3 {
            let a = self.rot.col(k) * e[k];
            p[1 + 2 * k] = self.c + a;
            p[2 + 2 * k] = self.c - a;
        }
        p
    }

    /// The point of the shape farthest along `d` (mesh frame). Where that is a flat set (a
    /// cylinder's cap or side), the point of the set nearest `hint`.
    fn support(&self, d: DVec3, hint: Hint) -> DVec3 {
        let ld = self.rot.transpose() * d;
        let x = match self.kind {
            SmoothKind::Ellipsoid(s) => {
                let t = ld * s;
                let n = t.length();
                if n > 0.0 {
                    t * s / n
                } else {
                    DVec3::ZERO
                }
            }
            SmoothKind::Cylinder(r, h) => {
                let dn = ld.length();
                let dxy = ld.x.hypot(ld.y);
                let z = if ld.z >= 0.0 { h } else { -h };
                if dxy <= FLAT_TIE * dn {
                    let (x, y) = match hint {
                        Hint::Point(p) => disc_nearest(r, self.local(p), self.local(p)),
                        Hint::Segment(p, q) => disc_nearest(r, self.local(p), self.local(q)),
                    };
                    DVec3::new(x, y, z)
                } else {
                    let k = r / dxy;
                    let (x, y) = (ld.x * k, ld.y * k);
                    let z = if ld.z.abs() > FLAT_TIE * dn {
                        z
                    } else {
                        match hint {
                            Hint::Point(p) => self.local(p).z.clamp(-h, h),
                            Hint::Segment(p, q) => {
                                let (a, b) = (DVec3::new(x, y, -h), DVec3::new(x, y, h));
                                closest_segments(a, b, self.local(p), self.local(q))
                                    .map_or(z, |(on_side, ..)| on_side.z)
                            }
                        }
                    };
                    DVec3::new(x, y, z)
                }
            }
        };
        self.world(x)
    }

    /// Whether `p` (mesh frame) is inside the shape or within `tol` of it.
    fn contains(&self, p: DVec3, tol: f64) -> bool {
        let x = self.local(p);
        match self.kind {
            SmoothKind::Ellipsoid(s) => (x / (s + DVec3::splat(tol))).length_squared() <= 1.0,
            SmoothKind::Cylinder(r, h) => x.z.abs() <= h + tol && x.x.hypot(x.y) <= r + tol,
        }
    }

    /// The nearest point of the shape to `p` outside it (mesh frame), and its distance.
    fn nearest_boundary(&self, p: DVec3) -> (DVec3, f64) {
        let x = self.local(p);
        let q = match self.kind {
            SmoothKind::Ellipsoid(s) => ellipsoid_nearest(s, x),
            SmoothKind::Cylinder(r, h) => {
                let rho = x.x.hypot(x.y);
                let k = if rho > r { r / rho } else { 1.0 };
                DVec3::new(x.x * k, x.y * k, x.z.clamp(-h, h))
            }
        };
        (self.world(q), q.distance(x))
    }

    /// The boundary points through which `p` (inside the shape, mesh frame) may leave it, the
    /// shallowest first: a cylinder's side and two caps; an ellipsoid's nearest boundary point.
    /// Returns how many of `out` were written.
    fn exits(&self, p: DVec3, out: &mut [Boundary; 3]) -> usize {
        let x = self.local(p);
        match self.kind {
            SmoothKind::Cylinder(r, h) => {
                let rho = x.x.hypot(x.y);
                let radial = if rho > 0.0 {
                    DVec3::new(x.x / rho, x.y / rho, 0.0)
                } else {
                    DVec3::X
                };
                let side = radial * r + DVec3::new(0.0, 0.0, x.z);
                let top = DVec3::new(x.x, x.y, h);
                let bottom = DVec3::new(x.x, x.y, -h);
                *out = [
                    (r - rho, self.world(side), self.rot * radial),
                    (h - x.z, self.world(top), self.rot.z_axis),
                    (h + x.z, self.world(bottom), -self.rot.z_axis),
                ];
                out.sort_by(|a, b| a.0.total_cmp(&b.0));
                3
            }
            SmoothKind::Ellipsoid(s) => {
                let q = ellipsoid_nearest(s, x);
                let m = q / (s * s);
                out[0] = (q.distance(x), self.world(q), (self.rot * m).normalize());
                1
            }
        }
    }
}

/// The nearest boundary point of the ellipsoid with semi-axes `s` to `x` (local frame): the
/// point `s_i² x_i / (s_i² + t)` for the root `t` of `Σ (s_i x_i / (s_i² + t))² = 1` above
/// `-min s_i²` (negative inside, positive outside), by bisection. Inside, a coordinate on the
/// shortest axis of exactly zero (the medial surface) is moved off by a hair so that the root
/// exists.
fn ellipsoid_nearest(s: DVec3, x: DVec3) -> DVec3 {
    let k = s.min_position();
    let s2 = s * s;
    let f = |x: DVec3, t: f64| -> f64 { (s * x / (s2 + DVec3::splat(t))).length_squared() - 1.0 };
    let mut x = x;
    // f decreases in t on (-s2[k], ∞)
    let f0 = f(x, 0.0);
    let (mut lo, mut hi) = if f0 > 0.0 {
        // outside: f(t) <= 0 once t >= max s_i · |x|
        (0.0, s.max_element() * x.length())
    } else if f0 < 0.0 {
        let nudge = 1e-12 * s[k];
        if x[k].abs() < nudge {
            x[k] = if x[k] < 0.0 { -nudge } else { nudge };
        }
        (-s2[k], 0.0)
    } else {
        return x;
    };
    for _ in 0..BISECT_STEPS {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if f(x, mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let t = 0.5 * (lo + hi);
    s2 * x / (s2 + DVec3::splat(t))
}

/// An ellipsoid or cylinder (`prim`, of type `kind`) against `mesh` (placed by `mesh_shape`):
/// the candidates of every triangle near the shape, reduced as [`super::primitive_mesh`] does.
/// Normals from the primitive to the mesh.
pub(super) fn smooth_mesh(
    kind: GeomType,
    prim: &Shape,
    mesh_shape: &Shape,
    mesh: &TriMesh,
    margin: f64,
    scratch: &mut MeshScratch,
    out: &mut [PreContact],
) -> usize {
    let rt = mesh_shape.mat.transpose();
    let shape = Smooth {
        kind: match kind {
            GeomType::Ellipsoid => SmoothKind::Ellipsoid(prim.size),
            GeomType::Cylinder => SmoothKind::Cylinder(prim.size.x, prim.size.y),
            _ => return 0,
        },
        c: rt * (prim.pos - mesh_shape.pos),
        rot: rt * prim.mat,
    };
    let reach = margin.max(0.0);
    // the shape's box in the mesh frame: support extents along the frame axes
    let ext = DVec3::new(
        (shape.support(DVec3::X, Hint::Point(shape.c)) - shape.c).x,
        (shape.support(DVec3::Y, Hint::Point(shape.c)) - shape.c).y,
        (shape.support(DVec3::Z, Hint::Point(shape.c)) - shape.c).z,
    );
    let grow = ext + DVec3::splat(reach);
    scratch.tris.clear();
    mesh.query_box(
        shape.c - grow,
        shape.c + grow,
        &mut scratch.stack,
        &mut scratch.tris,
    );
    scratch.cand.clear();
    scratch.smooth_verts.clear();
    let lean = shape.lean();
    let big = shape.reach();
    for &t in &scratch.tris {
        let t = t as usize;
        let [a, b, c] = mesh.corners(t);
        let mid = (a + b + c) / 3.0;
        let rad = mid
            .distance_squared(a)
            .max(mid.distance_squared(b))
            .max(mid.distance_squared(c))
            .sqrt();
        if shape.c.distance(mid) > big + rad + reach {
            continue;
        }
        let n = mesh.normal[t];
        // wholly in front of the plane beyond the margin
        let s = shape.support(-n, Hint::Point(mid));
        if (s - a).dot(n) > reach {
            continue;
        }
        let tri = [shape.local(a), shape.local(b), shape.local(c)];
        let guess = -(tri[0] + tri[1] + tri[2]) / 3.0;
        match gjk(
            &lean,
            &Local::Hull(&tri),
            &DMat3::IDENTITY,
            DVec3::ZERO,
            Some(guess),
            reach,
        ) {
            Outcome::Beyond => {}
            Outcome::Separated {
                dist, a: on_shape, ..
            } => {
                if dist <= margin {
                    let p = shape.world(on_shape);
                    apart(mesh, t, &shape, p, margin, &mut scratch.cand);
                }
            }
            Outcome::Overlap => {
                overlapping(
                    mesh,
                    t,
                    &shape,
                    s,
                    margin,
                    &mut scratch.cand,
                    &mut scratch.smooth_verts,
                    &mut scratch.stack,
                );
            }
        }
    }
    best_per_vertex(&mut scratch.smooth_verts, &mut scratch.cand);
    if scratch.cand.is_empty() {
        // no surface feature near: the shape may lie wholly inside the mesh
        let probes = shape.probes();
        if let Some(c) = deepest_inside(mesh, probes.into_iter(), 0.0, &mut scratch.stack) {
            scratch.cand.push(c);
        }
    }
    reduce(scratch, mesh_shape.pos, &mesh_shape.mat, true, out)
}

/// The candidate of triangle `t` apart from the shape (within the margin), GJK's closest
/// point of the shape being `p`: the triangle feature nearest `p` decides, and the distance and
/// normal are made exact for it (a face by the support point along its normal, an edge by its
/// cone's best direction, a vertex by its nearest point on the shape), kept when the normal
/// lies in that feature's cone.
fn apart(mesh: &TriMesh, t: usize, shape: &Smooth, p: DVec3, margin: f64, cand: &mut Vec<Cand>) {
    let corners = mesh.corners(t);
    let [a, b, c] = corners;
    let (q, feat) = closest_on_triangle(p, a, b, c);
    let n = mesh.normal[t];
    let d = p - q;
    let l = d.length();
    let u = if l > 0.0 { d / l } else { n };
    let found = match feat {
        Feature::Face if (p - a).dot(n) < 0.0 => None,
        Feature::Face => {
            let s = shape.support(-n, Hint::Point(q));
            let depth = (s - a).dot(n);
            Some((depth, s - n * depth, s, n))
        }
        Feature::Edge(k) => mesh.edge_cone(t, k, u).and_then(|_| {
            let (u, dist, _) = arc_best(mesh, t, k, shape)?;
            let normal = mesh.edge_cone(t, k, u)?;
            let (e0, e1) = (corners[k], corners[(k + 1) % 3]);
            let s = shape.support(-u, Hint::Segment(e0, e1));
            let ev = e1 - e0;
            let x = e0 + ev * ((s - e0).dot(ev) / ev.length_squared()).clamp(0.0, 1.0);
            Some((dist, x, s, normal))
        }),
        Feature::Vertex(k) => {
            let v = corners[k];
            let (on_shape, _) = shape.nearest_boundary(v);
            let dv = on_shape - v;
            let lv = dv.length();
            let u = if lv > 0.0 { dv / lv } else { u };
            mesh.vertex_cone(mesh.tri[t][k] as usize, u)
                .map(|normal| (lv, v, on_shape, normal))
        }
    };
    if let Some((dist, on_mesh, on_shape, normal)) = found {
        if dist <= margin {
            cand.push(Cand {
                dist,
                pos: (on_mesh + on_shape) * 0.5,
                normal,
            });
        }
    }
}

/// The penetration candidates of triangle `t`, which the shape overlaps: its face (by `s`,
/// the shape's support point along the inward normal) and its edges crossing the shape go to
/// `cand`; its vertices inside the shape go to `verts` (by vertex id, combined over the
/// triangles around each vertex by [`best_per_vertex`]).
#[allow(clippy::too_many_arguments)]
fn overlapping(
    mesh: &TriMesh,
    t: usize,
    shape: &Smooth,
    s: DVec3,
    margin: f64,
    cand: &mut Vec<Cand>,
    verts: &mut Vec<(u32, u32, Cand)>,
    stack: &mut Vec<u32>,
) {
    let corners = mesh.corners(t);
    let [a, b, c] = corners;
    let n = mesh.normal[t];
    // the face: the deepest point behind it, over the triangle; with the shape's centre in
    // front, its depth below the plane (as a sphere's), else its depth in the mesh
    let depth = (s - a).dot(n);
    let (on_face, feat) = closest_on_triangle(s, a, b, c);
    if depth < 0.0 && feat == Feature::Face {
        if (shape.c - a).dot(n) >= 0.0 {
            if depth <= margin {
                cand.push(Cand {
                    dist: depth,
                    pos: s - n * (depth * 0.5),
                    normal: n,
                });
            }
        } else {
            let outside = mesh.closed && mesh.sdf.classify(s, 0.0) == Some(false);
            if !outside {
                // this triangle bounds the nearest surface's distance
                let near = mesh.nearest_below(s, s.distance_squared(on_face), stack);
                if near.4 {
                    cand.extend(inside_cand(mesh, s, near, 0.0, margin));
                }
            }
        }
    }
    // each edge's best direction in its cone, and the edges crossing the shape
    let arcs: [Option<(DVec3, f64, bool)>; 3] =
        std::array::from_fn(|k| arc_best(mesh, t, k, shape));
    for (k, arc) in arcs.iter().enumerate() {
        // at a face normal, the faces' own tests decide
        if let Some((u, dist, true)) = *arc {
            if let Some(c) = edge_contact(mesh, t, k, shape, u, dist, margin, stack) {
                cand.push(c);
            }
        }
    }
    // vertices inside the shape: the least deep way out within the vertex's cone, through the
    // shape's boundary (an exit whose normal lies in the cone) or along the cone's rim (the
    // best directions of the two edges of this triangle at the vertex)
    let mut exits = [(0.0, DVec3::ZERO, DVec3::ZERO); 3];
    for (k, &v) in corners.iter().enumerate() {
        if !shape.contains(v, 0.0) {
            continue;
        }
        let id = mesh.tri[t][k];
        let ne = shape.exits(v, &mut exits);
        let best = exits[..ne].iter().find_map(|&(depth, q, m)| {
            mesh.vertex_cone(id as usize, -m).map(|normal| Cand {
                dist: -depth,
                pos: (v + q) * 0.5,
                normal,
            })
        });
        // an exit in the cone, made no deeper than the cone's rim allows
        let Some(mut best) = best else { continue };
        for (u, dist, _) in [arcs[k], arcs[(k + 2) % 3]].into_iter().flatten() {
            if dist <= best.dist {
                continue;
            }
            if let Some(normal) = mesh.vertex_cone(id as usize, u) {
                let q = shape.support(-u, Hint::Point(v));
                best = Cand {
                    dist,
                    pos: (v + q) * 0.5,
                    normal,
                };
            }
        }
        if best.dist <= margin {
            let c = best;
            verts.push((id, verts.len() as u32, c));
        }
    }
}

/// Of the vertex candidates `verts` (vertex id, push order, candidate; one per triangle around
/// the vertex), each vertex's least deep, appended to `cand` in vertex order (ties to the earliest).
fn best_per_vertex(verts: &mut [(u32, u32, Cand)], cand: &mut Vec<Cand>) {
    // by vertex, then push order: distinct keys, so an unstable sort (which, unlike a stable
    // one, needs no buffer) is deterministic
    verts.sort_unstable_by_key(|&(id, order, _)| (id, order));
    for group in verts.chunk_by(|a, b| a.0 == b.0) {
        let mut best = group[0].2;
        for &(.., c) in &group[1..] {
            if c.dist > best.dist {
                best = c;
            }
        }
        cand.push(best);
    }
}

/// Edge `k` of triangle `t` against the shape: the direction `u` of the edge's cone (between
/// its two face normals, or the half circle beyond a boundary edge) along which the shape is
/// least deep below the edge line, with that separation `(shape's extreme point along -u −
/// the line)·u` (negative: penetration), and whether `u` lies strictly inside the arc (not at a
/// face normal). `None` for a flat or concave edge (empty cone or the faces' own normal).
fn arc_best(mesh: &TriMesh, t: usize, k: usize, shape: &Smooth) -> Option<(DVec3, f64, bool)> {
    let corners = mesh.corners(t);
    let (e0, e1) = (corners[k], corners[(k + 1) % 3]);
    let n1 = mesh.normal[t];
    // the cone as an arc from w0 towards w1 of angle `span`
    let half = (n1, (e1 - e0).cross(n1).normalize(), std::f64::consts::PI);
    let (w0, w1, span) = match mesh.neighbour[t][k] {
        None => half,
        // a fin (two faces back to back): the half circle beyond the edge, as a boundary edge
        Some(n2) if n1.dot(n2) <= -1.0 + 1e-9 => half,
        Some(n2) => {
            if n1.dot(n2) >= 1.0 - 1e-9 {
                return None;
            }
            mesh.edge_cone(t, k, (n1 + n2).normalize())?;
            let w1 = (n2 - n1 * n2.dot(n1)).normalize();
            (n1, w1, n2.dot(w1).atan2(n2.dot(n1)))
        }
    };
    let dir = |phi: f64| w0 * phi.cos() + w1 * phi.sin();
    let sep = |phi: f64| {
        let u = dir(phi);
        (shape.support(-u, Hint::Segment(e0, e1)) - e0).dot(u)
    };
    let step = span / ARC_SAMPLES as f64;
    let (mut best, mut best_sep) = (0, f64::NEG_INFINITY);
    for i in 0..=ARC_SAMPLES {
        let v = sep(step * i as f64);
        if v > best_sep {
            best = i;
            best_sep = v;
        }
    }
    // golden section between the best sample's neighbours (maximising the separation)
    let (mut lo, mut hi) = (
        step * best.saturating_sub(1) as f64,
        (step * (best + 1) as f64).min(span),
    );
    const G: f64 = 0.618_033_988_749_894_8;
    let (mut x1, mut x2) = (hi - G * (hi - lo), lo + G * (hi - lo));
    let (mut f1, mut f2) = (sep(x1), sep(x2));
    for _ in 0..GOLDEN_STEPS {
        if f1 < f2 {
            lo = x1;
            x1 = x2;
            f1 = f2;
            x2 = lo + G * (hi - lo);
            f2 = sep(x2);
        } else {
            hi = x2;
            x2 = x1;
            f2 = f1;
            x1 = hi - G * (hi - lo);
            f1 = sep(x1);
        }
    }
    let mut phi = 0.5 * (lo + hi);
    let mut dist = sep(phi);
    if best_sep > dist {
        phi = step * best as f64;
        dist = best_sep;
    }
    let inner = phi > ARC_END * span && phi < (1.0 - ARC_END) * span;
    Some((dir(phi), dist, inner))
}

/// The contact of edge `k` of triangle `t` along its best direction `u` (separation `dist`,
/// from [`arc_best`]): kept when the shape's extreme point along `-u` lies beside the edge's
/// interior and, in penetration, the edge point is inside the shape and the extreme point
/// inside the mesh (up to the grazing angle).
#[allow(clippy::too_many_arguments)]
fn edge_contact(
    mesh: &TriMesh,
    t: usize,
    k: usize,
    shape: &Smooth,
    u: DVec3,
    dist: f64,
    margin: f64,
    stack: &mut Vec<u32>,
) -> Option<Cand> {
    if dist > margin {
        return None;
    }
    let corners = mesh.corners(t);
    let (e0, e1) = (corners[k], corners[(k + 1) % 3]);
    let ev = e1 - e0;
    let s = shape.support(-u, Hint::Segment(e0, e1));
    let tau = (s - e0).dot(ev) / ev.length_squared();
    if tau <= END_EPS || tau >= 1.0 - END_EPS {
        return None;
    }
    let x = e0 + ev * tau;
    let normal = mesh.edge_cone(t, k, u)?;
    if dist < 0.0 {
        let l = s.distance(x);
        let tol = 1e-9 * (1.0 + x.length().max(s.length())) + GRAZE * l;
        if !shape.contains(x, tol) || !mesh.inside_or_near(s, tol, stack) {
            return None;
        }
    }
    Some(Cand {
        dist,
        pos: (x + s) * 0.5,
        normal,
    })
}
