//! Single-shot multi-contact (MuJoCo's `multicontact`): from the features of the two shapes that
//! the solver's closest EPA face (or last GJK simplex) touches, find a pair of nearly
//! anti-parallel faces (face–face) or an edge nearly parallel to a face (edge–face), clip the
//! incident polygon or edge against the side planes of the reference face (Sutherland–Hodgman),
//! keep the points within the margin, and reduce them to at most four (MuJoCo's greedy
//! largest-quadrilateral search) or two (the farthest pair, for an edge).
//!
//! Features: box faces and edges (from the corner bits of the support points: the faces all
//! touched corners share, else the face facing the contact direction), mesh hull
//! polygons and edges (from the hull vertices), cylinder caps (16-gons with MuJoCo's tabulated
//! angles) and the side line through the support point, and the capsule side line (the line of
//! the capsule surface through the contact point, parallel to its axis, as long as the axis
//! segment).
//!
//! Rules, as MuJoCo 4.0.0 measurably applies them:
//! - face–face first, taking the most anti-parallel pair of candidate normals (dot below
//!   `-FACE_TOL`), geom 1's face being the reference;
//! - else an edge of the lower-dimensional feature (geom 1's on a tie; a feature of dimension
//!   < 3) against a face of the other geom facing it, else the other way round (the first pair
//!   within `EDGE_TOL`; with a box edge and a mesh vertex touched, the vertex's edges go first);
//! - the incident polygon is clipped by each side plane in turn (inward normal `s` through the
//!   reference vertex `a`): an edge `pq` crossing the plane gets the point `p + t (q - p)` with
//!   `t = dp / (dp - dq)`, `dp = (p - a)·s`, `dq = (q - a)·s` (inside: `> -MINVAL`); the
//!   last bits of these points decide which 4 of a clipped 16-gon the area search keeps;
//! - each kept point `v` on the incident feature gives a contact measured against the reference
//!   plane `(p, n)`, with `u` the incident feature's outward normal (`-n` for an edge), in
//!   MuJoCo's arithmetic: `d = (v - p)·n`, `w = v - d n` (the witness on the reference plane),
//!   `e = (w - v)·u`, `w - e u` (the witness on the incident feature); both witnesses are then
//!   moved out by their geom's inflation (half the margin, 0 for the capsule line, which runs
//!   through the inflated contact point) along the contact direction (`-u` when the reference
//!   face is geom 1's, `-n` when it is geom 2's), `dist = margin + (e - inflations)`, `pos` the
//!   witnesses' midpoint and the normal `normalize(x1 - x2)` (from geom 1 to geom 2);
//! - points farther than the two inflations from the reference plane are dropped; deeper points
//!   are kept however deep, even past the far side of the reference shape (MuJoCo 4.0.0 reports
//!   them, e.g. a mesh straddling a thin wall).
//!
//! All buffers are fixed-size: polygons are truncated at [`MAX_POLYVERT`] vertices, as MuJoCo
//! does.

use std::ops::ControlFlow;

use glam::DVec3;

use super::support::{Object, Vertex, MINVAL, SIGNED_AXES};
use crate::model::{ConvexHull, GeomType};
use crate::narrow::PreContact;

/// Two face normals are "aligned" when their dot product is below `-FACE_TOL` (about 5.1°).
pub(crate) const FACE_TOL: f64 = 0.996;
/// An edge is parallel to a face when `|edge · normal| < EDGE_TOL` (about 5.1°).
pub(crate) const EDGE_TOL: f64 = 0.0888;
/// Largest polygon handled (`mjMAX_POLYVERT`); bigger hull polygons are truncated.
pub(crate) const MAX_POLYVERT: usize = 150;
/// Vertices of the cylinder cap polygon.
const CYL_N: usize = 16;
/// Cosines and sines of `k · 22.5°` as MuJoCo tabulates them (15 digits; the clipping's
/// tie-breaks depend on the exact values).
#[allow(clippy::approx_constant)]
const COS16: [f64; 16] = [
    1.000000000000000,
    0.923879532511287,
    0.707106781186548,
    0.382683432365090,
    0.000000000000000,
    -0.382683432365090,
    -0.707106781186547,
    -0.923879532511287,
    -1.000000000000000,
    -0.923879532511287,
    -0.707106781186548,
    -0.382683432365090,
    0.000000000000000,
    0.382683432365090,
    0.707106781186547,
    0.923879532511287,
];
#[allow(clippy::approx_constant)]
const SIN16: [f64; 16] = [
    0.000000000000000,
    0.382683432365090,
    0.707106781186547,
    0.923879532511287,
    1.000000000000000,
    0.923879532511287,
    0.707106781186548,
    0.382683432365090,
    0.000000000000000,
    -0.382683432365090,
    -0.707106781186547,
    -0.923879532511287,
    -1.000000000000000,
    -0.923879532511287,
    -0.707106781186548,
    -0.382683432365090,
];
/// Room for clipped polygons.
const MAX_CLIP: usize = 2 * MAX_POLYVERT;

/// Features of one shape touched by the solver's last face or simplex.
struct Feature {
    dim: usize,
    idx: [i32; 3],
    pos: [DVec3; 3],
}

/// Reorders the three feature indices so that the distinct ones come first; returns their count.
fn simplex_dim(idx: &mut [i32; 3], pos: &mut [DVec3; 3]) -> usize {
    if idx[0] == idx[1] {
        if idx[0] == idx[2] {
            return 1;
        }
        idx[1] = idx[2];
        pos[1] = pos[2];
        return 2;
    }
    if idx[2] == idx[0] || idx[2] == idx[1] {
        2
    } else {
        3
    }
}

/// Candidate face normals (world) and their face ids.
struct Normals {
    n: usize,
    dir: [DVec3; MAX_POLYVERT],
    id: [usize; MAX_POLYVERT],
}

impl Normals {
    fn new() -> Self {
        Normals {
            n: 0,
            dir: [DVec3::ZERO; MAX_POLYVERT],
            id: [0; MAX_POLYVERT],
        }
    }
    fn clear(&mut self) {
        self.n = 0;
    }
    fn push(&mut self, d: DVec3, id: usize) {
        if self.n < MAX_POLYVERT {
            self.dir[self.n] = d;
            self.id[self.n] = id;
            self.n += 1;
        }
    }
}

/// Candidate edges: unit directions and far end points (the edge starts at the feature's
/// first point).
struct Edges {
    n: usize,
    dir: [DVec3; MAX_POLYVERT],
    end: [DVec3; MAX_POLYVERT],
    /// Start point override (capsule side line), else the feature's first point.
    start: Option<DVec3>,
}

impl Edges {
    fn new() -> Self {
        Edges {
            n: 0,
            dir: [DVec3::ZERO; MAX_POLYVERT],
            end: [DVec3::ZERO; MAX_POLYVERT],
            start: None,
        }
    }
    fn clear(&mut self) {
        self.n = 0;
        self.start = None;
    }
    fn push(&mut self, d: DVec3, end: DVec3) {
        self.push_unit(normalize(d), end);
    }
    /// An edge whose direction `d` is taken as unit as it is.
    fn push_unit(&mut self, d: DVec3, end: DVec3) {
        if self.n < MAX_POLYVERT {
            self.dir[self.n] = d;
            self.end[self.n] = end;
            self.n += 1;
        }
    }
}

/// `mju_normalize3`: unit vector (scaled by the reciprocal of the norm, as MuJoCo does), or +x
/// for a (near) zero vector.
pub(crate) fn normalize(v: DVec3) -> DVec3 {
    let n = v.length();
    // fails for NaN too
    if (MINVAL..f64::INFINITY).contains(&n) {
        v * (1.0 / n)
    } else {
        DVec3::X
    }
}

/// Box face normals touched by a feature of dimension `dim` (corner bits in `idx`).
fn box_normals(o: &Object, f: &Feature, dir: DVec3, out: &mut Normals) {
    let m = o.mat;
    let common = |bit: i32, k: usize| -> i32 {
        let all = f.idx[..k].iter().all(|&v| v & bit != 0);
        let none = f.idx[..k].iter().all(|&v| v & bit == 0);
        all as i32 - none as i32
    };
    match f.dim {
        3 | 2 => {
            let k = f.dim;
            let (x, y, z) = (common(1, k), common(2, k), common(4, k));
            let c = (x != 0) as usize + (y != 0) as usize + (z != 0) as usize;
            // the faces every touched corner lies on (one for three corners or a face diagonal,
            // two for an edge); none in common: the face facing `dir` (MuJoCo 4.0.0, measured
            // on a face diagonal left by an exhausted EPA:
            // `box_face_diagonal_feature_is_the_common_face`)
            if c > 0 {
                if x != 0 {
                    out.push(m.x_axis * x as f64, if x > 0 { 0 } else { 1 });
                }
                if y != 0 {
                    out.push(m.y_axis * y as f64, if y > 0 { 2 } else { 3 });
                }
                if z != 0 {
                    out.push(m.z_axis * z as f64, if z > 0 { 4 } else { 5 });
                }
            } else {
                box_normal_from_dir(o, dir, out);
            }
        }
        1 => {
            let v = f.idx[0];
            let sx = if v & 1 != 0 { 1.0 } else { -1.0 };
            let sy = if v & 2 != 0 { 1.0 } else { -1.0 };
            let sz = if v & 4 != 0 { 1.0 } else { -1.0 };
            out.push(m.x_axis * sx, if sx > 0.0 { 0 } else { 1 });
            out.push(m.y_axis * sy, if sy > 0.0 { 2 } else { 3 });
            out.push(m.z_axis * sz, if sz > 0.0 { 4 } else { 5 });
        }
        _ => {}
    }
}

/// The box face whose normal is within `FACE_TOL` of `dir`, if any (`boxNormals2`).
fn box_normal_from_dir(o: &Object, dir: DVec3, out: &mut Normals) {
    let l = o.mat.transpose() * dir;
    let len = l.length();
    if len.is_nan() || len <= 0.0 {
        return;
    }
    let l = l / len;
    for (i, a) in SIGNED_AXES.iter().enumerate() {
        if l.dot(*a) > FACE_TOL {
            out.push(o.mat * *a, i);
            return;
        }
    }
}

fn poly_range(hull: &ConvexHull, p: usize) -> (usize, usize) {
    let n = hull.poly_vert.len();
    let a = (hull.poly_start.get(p).copied().unwrap_or(0) as usize).min(n);
    let b = (hull.poly_start.get(p + 1).copied().unwrap_or(0) as usize).min(n);
    (a, b.max(a))
}

fn poly_normal(o: &Object, hull: &ConvexHull, p: usize) -> DVec3 {
    o.mat * hull.poly_normal.get(p).copied().unwrap_or(DVec3::Z)
}

/// The first polygons (in polygon order, at most `out.len()`) holding both hull vertices `v0`
/// and `v1`; returns their number. With the vertex-to-polygon index, a merge of the two
/// vertices' ordered polygon lists; else the polygons of `v0` are scanned for `v1`.
fn shared_polygons(hull: &ConvexHull, v0: i32, v1: i32, out: &mut [usize]) -> usize {
    let mut n = 0;
    let index = |v: i32| -> Option<&[u32]> {
        let i = usize::try_from(v).ok().filter(|&i| i < hull.vert.len())?;
        let (a, b) = (
            *hull.vert_poly_start.get(i)? as usize,
            *hull.vert_poly_start.get(i + 1)? as usize,
        );
        hull.vert_poly.get(a..b)
    };
    if hull.vert_poly_start.len() == hull.vert.len() + 1 {
        let (Some(l0), Some(l1)) = (index(v0), index(v1)) else {
            return 0;
        };
        let (mut i, mut j) = (0, 0);
        while let (Some(&p), Some(&q)) = (l0.get(i), l1.get(j)) {
            if n == out.len() {
                break;
            }
            if p == q {
                out[n] = p as usize;
                n += 1;
            }
            i += usize::from(p <= q);
            j += usize::from(q <= p);
        }
        return n;
    }
    hull.polygons_of_vertex(v0, |p| {
        let (a, b) = poly_range(hull, p);
        if n < out.len() && hull.poly_vert[a..b].iter().any(|&x| x as i32 == v1) {
            out[n] = p;
            n += 1;
        }
        if n == out.len() {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    });
    n
}

/// Mesh polygon normals touched by a feature (`meshNormals`).
fn mesh_normals(o: &Object, f: &Feature, out: &mut Normals) {
    let Some(hull) = o.hull else { return };
    match f.dim {
        3 | 2 => {
            // polygons shared by the first two (and the third) vertices (only the first two
            // count: the search stops there)
            let mut shared = [0usize; 2];
            let ns = shared_polygons(hull, f.idx[0], f.idx[1], &mut shared);
            if f.dim == 3 {
                for &p in &shared[..ns] {
                    let (a, b) = poly_range(hull, p);
                    if hull.poly_vert[a..b].iter().any(|&x| x as i32 == f.idx[2]) {
                        out.push(poly_normal(o, hull, p), p);
                        return;
                    }
                }
            } else {
                for &p in &shared[..ns] {
                    out.push(poly_normal(o, hull, p), p);
                }
            }
        }
        1 => hull.polygons_of_vertex(f.idx[0], |p| {
            out.push(poly_normal(o, hull, p), p);
            ControlFlow::Continue(())
        }),
        _ => {}
    }
}

/// Candidate face normals of a shape's feature.
fn face_normals(o: &Object, f: &Feature, dir: DVec3, out: &mut Normals) {
    match o.kind {
        GeomType::Box => box_normals(o, f, dir, out),
        GeomType::Mesh => mesh_normals(o, f, out),
        GeomType::Cylinder if f.dim == 1 => {
            let s = if f.idx[0] == 0 { 1.0 } else { -1.0 };
            out.push(o.mat.z_axis * s, f.idx[0].clamp(0, 1) as usize);
        }
        _ => {}
    }
}

/// Candidate edges of a shape's feature (starting at `f.pos[0]`).
fn edge_dirs(o: &Object, f: &Feature, witness: DVec3, out: &mut Edges) {
    match o.kind {
        GeomType::Box => {
            if f.dim == 2 {
                out.push(f.pos[1] - f.pos[0], f.pos[1]);
            } else if f.dim == 1 {
                let v = f.idx[0];
                let s = o.size;
                let x = if v & 1 != 0 { s.x } else { -s.x };
                let y = if v & 2 != 0 { s.y } else { -s.y };
                let z = if v & 4 != 0 { s.z } else { -s.z };
                for c in [
                    DVec3::new(-x, y, z),
                    DVec3::new(x, -y, z),
                    DVec3::new(x, y, -z),
                ] {
                    let end = o.mat * c + o.pos;
                    out.push(end - f.pos[0], end);
                }
            }
        }
        GeomType::Mesh => {
            if f.dim == 2 {
                out.push(f.pos[1] - f.pos[0], f.pos[1]);
            } else if f.dim == 1 {
                let Some(hull) = o.hull else { return };
                let v1 = f.idx[0];
                hull.polygons_of_vertex(v1, |p| {
                    let (a, b) = poly_range(hull, p);
                    let poly = &hull.poly_vert[a..b];
                    if let Some(j) = poly.iter().position(|&x| x as i32 == v1) {
                        let k = if j == 0 { poly.len() - 1 } else { j - 1 };
                        if let Some(vert) = hull.vert.get(poly[k] as usize) {
                            let end = o.mat * *vert + o.pos;
                            out.push(end - f.pos[0], end);
                        }
                    }
                    ControlFlow::Continue(())
                });
            }
        }
        GeomType::Cylinder if f.dim == 1 || f.dim == 2 => {
            let s = if f.idx[0] != 0 { 1.0 } else { -1.0 };
            let d = o.mat.z_axis * s;
            out.push(d, f.pos[0] + d * (2.0 * o.size.y));
        }
        GeomType::Capsule => {
            // the capsule's side line through the contact point, as long as the axis segment,
            // in MuJoCo's arithmetic (read from its machine code): with the axis `a` (the
            // frame's third column, used as the edge direction as it is, not renormalized),
            // `t = (x - pos)·a`, the line runs from `x + (-t - h) a` (the `-h` end) to
            // `x + (h - t) a`
            let a = o.mat.z_axis;
            let h = o.size.y;
            let t = (witness - o.pos).dot(a);
            let start = witness + a * (-t - h);
            let end = witness + a * (h - t);
            out.start = Some(start);
            out.push_unit(a, end);
        }
        _ => {}
    }
}

/// Vertices of face `id` of a shape, clockwise seen from outside (clipping convention).
fn face_polygon(o: &Object, id: usize, out: &mut [DVec3; MAX_POLYVERT]) -> usize {
    let g = |l: DVec3| o.mat * l + o.pos;
    match o.kind {
        GeomType::Box => {
            let s = o.size;
            let (x, y, z) = (s.x, s.y, s.z);
            let pts: [DVec3; 4] = match id {
                0 => [
                    DVec3::new(x, y, z),
                    DVec3::new(x, y, -z),
                    DVec3::new(x, -y, -z),
                    DVec3::new(x, -y, z),
                ],
                1 => [
                    DVec3::new(-x, y, -z),
                    DVec3::new(-x, y, z),
                    DVec3::new(-x, -y, z),
                    DVec3::new(-x, -y, -z),
                ],
                2 => [
                    DVec3::new(-x, y, -z),
                    DVec3::new(x, y, -z),
                    DVec3::new(x, y, z),
                    DVec3::new(-x, y, z),
                ],
                3 => [
                    DVec3::new(-x, -y, z),
                    DVec3::new(x, -y, z),
                    DVec3::new(x, -y, -z),
                    DVec3::new(-x, -y, -z),
                ],
                4 => [
                    DVec3::new(-x, y, z),
                    DVec3::new(x, y, z),
                    DVec3::new(x, -y, z),
                    DVec3::new(-x, -y, z),
                ],
                5 => [
                    DVec3::new(x, y, -z),
                    DVec3::new(-x, y, -z),
                    DVec3::new(-x, -y, -z),
                    DVec3::new(x, -y, -z),
                ],
                _ => return 0,
            };
            for (i, p) in pts.iter().enumerate() {
                out[i] = g(*p);
            }
            4
        }
        GeomType::Mesh => {
            let Some(hull) = o.hull else { return 0 };
            let (a, b) = poly_range(hull, id);
            let n = (b - a).min(MAX_POLYVERT);
            let mut k = 0;
            for i in (0..n).rev() {
                let Some(v) = hull.vert.get(hull.poly_vert[a + i] as usize) else {
                    return 0;
                };
                out[k] = g(*v);
                k += 1;
            }
            k
        }
        GeomType::Cylinder => {
            let sgn = if id != 0 { -1.0 } else { 1.0 };
            let (r, h) = (o.size.x, o.size.y);
            for (i, p) in out.iter_mut().enumerate().take(CYL_N) {
                *p = g(DVec3::new(COS16[i] * r, -SIN16[i] * r * sgn, sgn * h));
            }
            CYL_N
        }
        _ => 0,
    }
}

/// The most anti-parallel pair of face normals, if within `FACE_TOL`, over the faces of geom 1
/// facing along `-dir` and those of geom 2 facing along `dir` (`dir = x2 - x1`), each by more
/// than `EDGE_TOL |dir|` (MuJoCo 4.0.0 skips the other faces; measured on
/// `cylinder_cylinder_aligned_103`: anti-parallel caps touching rim to rim, their normals 51°
/// off the contact direction, keep the single EPA contact).
fn aligned_faces(a: &Normals, b: &Normals, dir: DVec3) -> Option<(usize, usize)> {
    let tol = dir.length() * EDGE_TOL;
    let mut res = None;
    let mut min = -FACE_TOL;
    for i in 0..a.n {
        if a.dir[i].dot(dir) >= -tol {
            continue;
        }
        for j in 0..b.n {
            if b.dir[j].dot(dir) <= tol {
                continue;
            }
            let d = a.dir[i].dot(b.dir[j]);
            if d < min {
                min = d;
                res = Some((i, j));
            }
        }
    }
    res
}

/// The first (face, edge) pair, over the faces facing `dir`, with the edge parallel to the face
/// within `EDGE_TOL`; returns `(edge, face)`.
fn aligned_face_edge(edges: &Edges, faces: &Normals, dir: DVec3) -> Option<(usize, usize)> {
    for i in 0..faces.n {
        if faces.dir[i].dot(dir) <= MINVAL {
            continue;
        }
        for j in 0..edges.n {
            if edges.dir[j].dot(faces.dir[i]).abs() < EDGE_TOL {
                return Some((j, i));
            }
        }
    }
    None
}

/// What the multi-contact step reads of the solver's closest face (or last simplex): per
/// geom, the feature indices and true-surface points of its three vertices (a third of the
/// vertices' size).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Touched {
    /// `[geom 1, geom 2]`: feature indices ([`Object::vertindex`]).
    idx: [[i32; 3]; 2],
    /// `[geom 1, geom 2]`: support points on the true surfaces.
    pos: [[DVec3; 3]; 2],
}

impl Touched {
    /// The features of three solver vertices.
    #[inline]
    pub(crate) fn of(v: &[&Vertex; 3]) -> Touched {
        Touched {
            idx: [v.map(|v| v.index1), v.map(|v| v.index2)],
            pos: [v.map(|v| v.raw1), v.map(|v| v.raw2)],
        }
    }
}

/// The feature of geom 1 (`first`) or geom 2 touched by `t`.
fn feature(o: &Object, t: &Touched, first: bool, witness: DVec3) -> Feature {
    let k = usize::from(!first);
    let mut idx = t.idx[k];
    let mut pos = t.pos[k];
    if o.kind == GeomType::Capsule {
        // a capsule only offers its side line, through the contact point
        return Feature {
            dim: 1,
            idx: [0; 3],
            pos: [witness; 3],
        };
    }
    let dim = simplex_dim(&mut idx, &mut pos);
    Feature { dim, idx, pos }
}

/// The reference face, the incident polygon or edge, and how to report the clipped points.
struct Clip<'a> {
    reference: &'a [DVec3],
    normal: DVec3,
    incident: &'a [DVec3],
    /// Outward direction of the incident feature.
    u: DVec3,
    /// The reference face belongs to geom 2.
    ref_is_2: bool,
    /// How far each geom's surface is inflated (half the margin; 0 for a capsule, whose side
    /// line already runs through the inflated contact point).
    inflate: [f64; 2],
}

/// Working memory of [`multicontact`] (about 30 KB), kept per thread: building and zeroing it
/// on every call was the largest single cost of mesh piles.
struct Scratch {
    n1: Normals,
    n2: Normals,
    poly1: [DVec3; MAX_POLYVERT],
    poly2: [DVec3; MAX_POLYVERT],
    edges: Edges,
    clip: ClipScratch,
}

/// Working memory of [`polygon_clip`]: side-plane normals, the vertices' distances to the
/// current plane and the two ping-pong polygons.
struct ClipScratch {
    pn: [DVec3; MAX_POLYVERT],
    dist: [f64; MAX_CLIP],
    buf_a: [DVec3; MAX_CLIP],
    buf_b: [DVec3; MAX_CLIP],
}

impl Scratch {
    fn new() -> Box<Scratch> {
        Box::new(Scratch {
            n1: Normals::new(),
            n2: Normals::new(),
            poly1: [DVec3::ZERO; MAX_POLYVERT],
            poly2: [DVec3::ZERO; MAX_POLYVERT],
            edges: Edges::new(),
            clip: ClipScratch {
                pn: [DVec3::ZERO; MAX_POLYVERT],
                dist: [0.0; MAX_CLIP],
                buf_a: [DVec3::ZERO; MAX_CLIP],
                buf_b: [DVec3::ZERO; MAX_CLIP],
            },
        })
    }
}

thread_local! {
    static SCRATCH: std::cell::RefCell<Box<Scratch>> = std::cell::RefCell::new(Scratch::new());
}

/// Multi-contact from the solver's closest face (or simplex). `x1`, `x2` are the single-contact
/// witnesses (on the inflated shapes). Returns the number of points written to `out`, 0 when no
/// aligned features were found (the caller keeps the single contact).
#[allow(clippy::too_many_arguments)]
pub(crate) fn multicontact(
    o1: &Object,
    o2: &Object,
    verts: &Touched,
    x1: DVec3,
    x2: DVec3,
    margin: f64,
    max_contacts: usize,
    out: &mut [PreContact],
) -> usize {
    SCRATCH
        .with_borrow_mut(|s| multicontact_in(s, o1, o2, verts, x1, x2, margin, max_contacts, out))
}

#[allow(clippy::too_many_arguments)]
fn multicontact_in(
    s: &mut Scratch,
    o1: &Object,
    o2: &Object,
    verts: &Touched,
    x1: DVec3,
    x2: DVec3,
    margin: f64,
    max_contacts: usize,
    out: &mut [PreContact],
) -> usize {
    let f1 = feature(o1, verts, true, x1);
    let f2 = feature(o2, verts, false, x2);
    let dir = x2 - x1;
    let dir_neg = x1 - x2;

    let Scratch {
        n1,
        n2,
        poly1,
        poly2,
        edges,
        clip: cs,
    } = s;
    n1.clear();
    n2.clear();
    face_normals(o1, &f1, dir_neg, n1);
    face_normals(o2, &f2, dir, n2);

    if let Some((i, j)) = aligned_faces(n1, n2, dir) {
        let nf1 = face_polygon(o1, n1.id[i], poly1);
        let nf2 = face_polygon(o2, n2.id[j], poly2);
        let clip = Clip {
            reference: &poly1[..nf1],
            normal: n1.dir[i],
            incident: &poly2[..nf2],
            u: n2.dir[j],
            ref_is_2: false,
            inflate: [inflation(o1, margin), inflation(o2, margin)],
        };
        return polygon_clip(cs, &clip, margin, max_contacts, out);
    }

    // an edge of the lower-dimensional feature (geom 1's on a tie) on a face of the other geom,
    // else the other way round
    let mut sides = [
        (o1, &f1, x1, &*n2, o2, dir, true),
        (o2, &f2, x2, &*n1, o1, dir_neg, false),
    ];
    if f1.dim > f2.dim {
        sides.swap(0, 1);
    }
    for (oe, fe, xe, faces, of, d, ref_is_2) in sides {
        if fe.dim >= 3 {
            continue;
        }
        edges.clear();
        edge_dirs(oe, fe, xe, edges);
        if let Some((i, j)) = aligned_face_edge(edges, faces, d) {
            let edge = [edges.start.unwrap_or(fe.pos[0]), edges.end[i]];
            let poly = if ref_is_2 { &mut *poly2 } else { &mut *poly1 };
            let nf = face_polygon(of, faces.id[j], poly);
            let clip = Clip {
                reference: &poly[..nf],
                normal: faces.dir[j],
                incident: &edge,
                u: -faces.dir[j],
                ref_is_2,
                inflate: [inflation(o1, margin), inflation(o2, margin)],
            };
            return polygon_clip(cs, &clip, margin, max_contacts, out);
        }
    }
    0
}

/// How far a shape's surface is moved out by the margin: half of it, except for a capsule, whose
/// side line passes through the contact point of the capsule already inflated by half the margin.
fn inflation(o: &Object, margin: f64) -> f64 {
    if o.kind == GeomType::Capsule {
        0.0
    } else {
        0.5 * margin
    }
}

/// `0, 1, 2, …`: the indices of the clipped points when all of them are kept (at most 50).
const FIRST: [usize; 50] = {
    let mut a = [0; 50];
    let mut i = 0;
    while i < a.len() {
        a[i] = i;
        i += 1;
    }
    a
};

/// Clips the incident polygon (or edge) against the side planes of the reference face and
/// turns the surviving points into contacts.
fn polygon_clip(
    cs: &mut ClipScratch,
    c: &Clip,
    margin: f64,
    max_contacts: usize,
    out: &mut [PreContact],
) -> usize {
    let nref = c.reference.len();
    if nref < 3 || c.incident.is_empty() {
        return 0;
    }
    // side planes: unit inward normals
    let ClipScratch {
        pn,
        dist,
        buf_a,
        buf_b,
    } = cs;
    let pn = &mut pn[..nref.min(MAX_POLYVERT)];
    for (i, s) in pn.iter_mut().enumerate() {
        let a = c.reference[i];
        let b = c.reference[(i + 1) % nref];
        *s = normalize((b - a).cross((a + c.normal) - a));
    }

    let poly = clip_by_planes(c.reference, pn, c.incident, dist, buf_a, buf_b);
    let npoly = poly.len();

    // keep the points within the two inflations of the reference plane (no depth limit)
    let p0 = c.reference[0];
    let reach = c.inflate[0] + c.inflate[1];
    let mut m = 0;
    for i in 0..npoly {
        let d = (poly[i] - p0).dot(c.normal);
        if d <= reach && d.is_finite() {
            poly[m] = poly[i];
            m += 1;
        }
    }
    let npoly = m;
    if npoly < 1 {
        return 0;
    }

    let mut pick = [0usize; 4];
    let chosen: &[usize];
    if max_contacts < 5 && npoly > 4 {
        hull4(&poly[..npoly], &mut pick);
        chosen = &pick[..4];
    } else if c.incident.len() == 2 && npoly > 2 {
        let (mut b1, mut b2, mut best) = (0, 1, 0.0);
        for i in 0..npoly {
            for j in i + 1..npoly {
                let d2 = (poly[j] - poly[i]).length_squared();
                if d2 > best {
                    best = d2;
                    b1 = i;
                    b2 = j;
                }
            }
        }
        pick[0] = b1;
        pick[1] = b2;
        chosen = &pick[..2];
    } else {
        chosen = &FIRST[..npoly.min(FIRST.len())];
    }

    // MuJoCo's arithmetic: witnesses on the reference plane (`w`) and on the incident feature
    // (`w - e u`), both inflated along the contact direction, then the midpoint and the normal
    // from their difference
    let dir = if c.ref_is_2 { -c.normal } else { -c.u };
    let inflated = c.inflate[0] != 0.0 || c.inflate[1] != 0.0;
    let mut k = 0;
    for &i in chosen {
        if k >= out.len() || k >= max_contacts {
            break;
        }
        let v = poly[i];
        let d = (v - p0).dot(c.normal);
        let w = v - c.normal * d;
        let e = (w - v).dot(c.u);
        let inc = w - c.u * e;
        let (mut x1, mut x2) = if c.ref_is_2 { (inc, w) } else { (w, inc) };
        let mut dist = e;
        if inflated {
            x1 += dir * c.inflate[0];
            x2 += dir * -c.inflate[1];
            dist -= c.inflate[0] + c.inflate[1];
        }
        let dist = margin + dist;
        let pos = (x1 + x2) * 0.5;
        if !(dist.is_finite() && pos.is_finite()) {
            continue;
        }
        out[k] = PreContact {
            dist,
            pos,
            normal: normalize(x1 - x2),
            tangent: DVec3::ZERO,
        };
        k += 1;
    }
    k
}

/// Sutherland–Hodgman: clips the polygon (or edge) `incident` by the planes through
/// `points[i]` with inward normals `normals[i]`, in order, and returns what is left (in
/// `buf_a` or `buf_b`). An edge `pq` keeps the crossing point `p + t (q - p)`,
/// `t = dp / (dp - dq)`, then `q` if inside (signed distance `> -MINVAL`); at most [`MAX_CLIP`]
/// points are kept.
fn clip_by_planes<'a>(
    points: &[DVec3],
    normals: &[DVec3],
    incident: &[DVec3],
    dist: &mut [f64; MAX_CLIP],
    buf_a: &'a mut [DVec3; MAX_CLIP],
    buf_b: &'a mut [DVec3; MAX_CLIP],
) -> &'a mut [DVec3] {
    let mut npoly = incident.len().min(MAX_CLIP);
    buf_a[..npoly].copy_from_slice(&incident[..npoly]);
    let ball = Ball::around(&incident[..npoly]);
    let (mut poly, mut clipped) = (buf_a, buf_b);
    // the polygon is `poly[rot..npoly]` followed by `poly[..rot]`: a plane that keeps every
    // vertex only rotates it by one (each edge `pq` emits `q`), which is recorded here instead
    // of copying the polygon
    let mut rot = 0;

    for (&a, &s) in points.iter().zip(normals) {
        if npoly == 0 {
            break;
        }
        if ball.inside(a, s) {
            rot = if rot + 1 < npoly { rot + 1 } else { 0 };
            continue;
        }
        let dist = &mut dist[..npoly];
        let mut all_in = true;
        for (d, p) in dist.iter_mut().zip(poly.iter()) {
            *d = (*p - a).dot(s);
            all_in &= *d > -MINVAL;
        }
        if all_in {
            rot = if rot + 1 < npoly { rot + 1 } else { 0 };
            continue;
        }
        // the edges in polygon order: from `rot` to the end, the closing edge, then up to `rot`
        let mut nclip = 0usize;
        let last = npoly - 1;
        let mut edge =
            |i: usize, j: usize| clip_edge(poly[i], poly[j], dist[i], dist[j], clipped, &mut nclip);
        for i in rot..last {
            edge(i, i + 1);
        }
        edge(last, 0);
        for i in 0..rot {
            edge(i, i + 1);
        }
        std::mem::swap(&mut poly, &mut clipped);
        npoly = nclip;
        rot = 0;
    }
    let poly = &mut poly[..npoly];
    poly.rotate_left(rot);
    poly
}

/// A ball holding a polygon and every polygon clipped from it: clipping keeps points on its
/// edges, inside the polygon's convex hull up to rounding.
struct Ball {
    centre: DVec3,
    radius: f64,
}

impl Ball {
    /// The ball about the middle of the points' bounding box (radius NaN when a point is not
    /// finite).
    fn around(points: &[DVec3]) -> Ball {
        let (lo, hi) = points.iter().fold(
            (DVec3::splat(f64::INFINITY), DVec3::splat(f64::NEG_INFINITY)),
            |(lo, hi), p| (lo.min(*p), hi.max(*p)),
        );
        let centre = (lo + hi) * 0.5;
        // (`min`, `max` skip NaN; `0 x` is NaN for a non-finite `x`, and poisons the radius)
        let (r2, zero) = points.iter().fold((0.0f64, 0.0), |(r2, zero), p| {
            (
                r2.max((*p - centre).length_squared()),
                zero + (*p * 0.0).element_sum(),
            )
        });
        Ball {
            centre,
            radius: r2.sqrt() + zero,
        }
    }

    /// True when every point of the ball is well inside the side plane through `a` with unit
    /// inward normal `s`: the clipping's own signed distances `(p - a)·s` of the points in the
    /// ball would all be positive (its rounding, relative 1e-15 of the magnitudes, is far below
    /// the slack), so the plane keeps every vertex and only rotates the polygon. False for
    /// anything non-finite.
    #[inline]
    fn inside(&self, a: DVec3, s: DVec3) -> bool {
        let c = self.centre - a;
        let scale = c.abs().element_sum() + self.radius;
        c.dot(s) - self.radius > BALL_SLACK * scale
    }
}

/// Relative slack of [`Ball::inside`].
const BALL_SLACK: f64 = 1e-9;

/// Clips the edge `pq` of a polygon by a side plane, `dp` and `dq` the signed distances of its
/// ends (inside: `> -MINVAL`), appending to `out[..*n]` what it keeps: the crossing point, then
/// `q` if inside.
#[inline(always)]
fn clip_edge(p: DVec3, q: DVec3, dp: f64, dq: f64, out: &mut [DVec3; MAX_CLIP], n: &mut usize) {
    let in1 = dp > -MINVAL;
    let in2 = dq > -MINVAL;
    if !in1 && !in2 {
        return;
    }
    if in1 && in2 {
        if *n < MAX_CLIP {
            out[*n] = q;
            *n += 1;
        }
        return;
    }
    let den = dp - dq;
    if den != 0.0 {
        let t = dp / den;
        if (0.0..=1.0).contains(&t) && *n < MAX_CLIP {
            out[*n] = p + (q - p) * t;
            *n += 1;
        }
    }
    if in2 && *n < MAX_CLIP {
        out[*n] = q;
        *n += 1;
    }
}

/// Area of the quadrilateral `abcd` (half the cross product of its diagonals).
fn area4(a: DVec3, b: DVec3, c: DVec3, d: DVec3) -> f64 {
    0.5 * (a - c).cross(b - d).length()
}

/// Four polygon vertices spanning a large quadrilateral (MuJoCo's `polygonQuad`: rotating
/// search for the largest-area inscribed quadrilateral).
fn hull4(p: &[DVec3], res: &mut [usize; 4]) {
    let n = p.len();
    let (mut a, mut b, mut c, mut d) = (0usize, 1usize, 2usize, 3usize);
    *res = [0, 1, 2, 3];
    let mut m = area4(p[a], p[b], p[c], p[d]);
    while a < n {
        loop {
            let dn = (d + 1) % n;
            let mn = area4(p[a], p[b], p[c], p[dn]);
            if mn.partial_cmp(&m) != Some(std::cmp::Ordering::Greater) {
                break;
            }
            d = dn;
            m = mn;
            *res = [a, b, c, d];
            loop {
                let cn = (c + 1) % n;
                let mn = area4(p[a], p[b], p[cn], p[d]);
                if mn.partial_cmp(&m) != Some(std::cmp::Ordering::Greater) {
                    break;
                }
                c = cn;
                m = mn;
                *res = [a, b, c, d];
            }
            loop {
                let bn = (b + 1) % n;
                let mn = area4(p[a], p[bn], p[c], p[d]);
                if mn.partial_cmp(&m) != Some(std::cmp::Ordering::Greater) {
                    break;
                }
                b = bn;
                m = mn;
                *res = [a, b, c, d];
            }
        }
        if b == a {
            b = (b + 1) % n;
            if c == b {
                c = (c + 1) % n;
                if d == c {
                    d = (d + 1) % n;
                }
            }
        }
        a += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Polygons found by `ConvexHull::polygons_of_vertex` for every vertex (and one index past the last).
    fn incidence(hull: &ConvexHull) -> Vec<Vec<usize>> {
        (0..=hull.vert.len() as i32)
            .map(|v| {
                let mut ps = Vec::new();
                hull.polygons_of_vertex(v, |p| {
                    ps.push(p);
                    ControlFlow::Continue(())
                });
                ps
            })
            .collect()
    }

    /// Sutherland–Hodgman as written before the distances were shared between edges and the
    /// all-inside planes became rotations: every edge `pq` in order from vertex 0.
    fn clip_edge_by_edge(points: &[DVec3], normals: &[DVec3], incident: &[DVec3]) -> Vec<DVec3> {
        let mut poly = incident.to_vec();
        for (&a, &s) in points.iter().zip(normals) {
            let mut clipped = Vec::new();
            for i in 0..poly.len() {
                let (p, q) = (poly[i], poly[(i + 1) % poly.len()]);
                let (dp, dq) = ((p - a).dot(s), (q - a).dot(s));
                let (in1, in2) = (dp > -MINVAL, dq > -MINVAL);
                if in1 && in2 {
                    clipped.push(q);
                } else if in1 || in2 {
                    let t = dp / (dp - dq);
                    if dp != dq && (0.0..=1.0).contains(&t) {
                        clipped.push(p + (q - p) * t);
                    }
                    if in2 {
                        clipped.push(q);
                    }
                }
            }
            poly = clipped;
        }
        poly
    }

    fn bits(v: &[DVec3]) -> Vec<[u64; 3]> {
        v.iter().map(|p| p.to_array().map(f64::to_bits)).collect()
    }

    /// A point of the polygon on the plane, or just outside it, is never proved inside; a
    /// polygon well inside is; non-finite input never is.
    #[test]
    fn ball_proves_only_planes_that_keep_every_vertex() {
        let square = [
            DVec3::new(1.0, 1.0, 0.0),
            DVec3::new(1.0, -1.0, 0.0),
            DVec3::new(-1.0, -1.0, 0.0),
            DVec3::new(-1.0, 1.0, 0.0),
        ];
        let ball = Ball::around(&square);
        assert_eq!(ball.centre, DVec3::ZERO);
        assert_eq!(ball.radius, 2f64.sqrt());
        // plane x = 1 (touching two vertices), x = 1.5 and x = -1.5, inward normal -x
        assert!(!ball.inside(DVec3::new(1.0, 0.0, 0.0), DVec3::NEG_X));
        assert!(!ball.inside(DVec3::new(1.4, 0.0, 0.0), DVec3::NEG_X));
        assert!(ball.inside(DVec3::new(1.5, 0.0, 0.0), DVec3::NEG_X));
        assert!(!ball.inside(DVec3::new(-1.5, 0.0, 0.0), DVec3::NEG_X));
        assert!(!ball.inside(DVec3::new(1.5, 0.0, 0.0), DVec3::new(f64::NAN, 0.0, 0.0)));
        let nan = [DVec3::new(f64::NAN, 0.0, 0.0), DVec3::X];
        assert!(!Ball::around(&nan).inside(DVec3::new(9.0, 0.0, 0.0), DVec3::NEG_X));
        assert!(!Ball::around(&[]).inside(DVec3::new(9.0, 0.0, 0.0), DVec3::NEG_X));
    }

    proptest::proptest! {
        /// Whenever the ball proves a plane, the clipping's own distances of the polygon's
        /// vertices, and of points on its edges, are inside (`> -MINVAL`).
        #[test]
        fn ball_inside_implies_every_clipping_distance_inside(
            pts in proptest::collection::vec((-3.0..3.0f64, -3.0..3.0f64, -0.1..0.1f64), 1..12),
            offset in -4.0..4.0f64,
            (nx, ny, nz) in (-1.0..1.0f64, -1.0..1.0f64, -0.2..0.2f64),
            t in 0.0..=1.0f64,
        ) {
            let pts: Vec<DVec3> = pts.iter().map(|&(x, y, z)| DVec3::new(x, y, z)).collect();
            let s = normalize(DVec3::new(nx, ny, nz));
            let a = s * offset;
            if Ball::around(&pts).inside(a, s) {
                for (i, &p) in pts.iter().enumerate() {
                    let q = pts[(i + 1) % pts.len()];
                    for v in [p, p + (q - p) * t] {
                        proptest::prop_assert!((v - a).dot(s) > -MINVAL);
                    }
                }
            }
        }
    }

    #[test]
    fn clip_by_planes_matches_edge_by_edge_clipping() {
        // reference polygons: a tilted square and a 16-gon (cylinder cap) in the plane z = 0.1,
        // side planes with inward normals as `polygon_clip` builds them
        let square: Vec<DVec3> = [(1.0, 1.0), (1.0, -1.0), (-1.0, -1.0), (-1.0, 1.0)]
            .iter()
            .map(|&(x, y)| DVec3::new(x + 0.1 * y, y - 0.1 * x, 0.1))
            .collect();
        let cap: Vec<DVec3> = (0..CYL_N)
            .map(|i| DVec3::new(0.7 * COS16[i], -0.7 * SIN16[i], 0.1))
            .collect();
        let ngon = |n: usize, r: f64, c: DVec3| -> Vec<DVec3> {
            (0..n)
                .map(|i| {
                    let a = 0.3 + i as f64 * std::f64::consts::TAU / n as f64;
                    c + DVec3::new(r * a.cos(), -r * a.sin(), 0.05 * a.sin())
                })
                .collect()
        };
        let incidents = [
            ngon(16, 0.5, DVec3::ZERO), // inside every plane: rotations only
            ngon(16, 0.8, DVec3::new(0.6, 0.2, 0.0)), // cut by some planes
            ngon(5, 0.3, DVec3::new(0.75, -0.1, 0.0)), // straddling one side
            ngon(4, 0.2, DVec3::new(5.0, 0.0, 0.0)), // outside
            vec![DVec3::new(-2.0, 0.3, 0.0), DVec3::new(2.0, -0.2, 0.1)], // an edge across
            vec![DVec3::new(0.2, 0.1, 0.0)], // a single point inside
        ];
        let mut dist = [0.0; MAX_CLIP];
        let mut buf_a = [DVec3::ZERO; MAX_CLIP];
        let mut buf_b = [DVec3::ZERO; MAX_CLIP];
        for reference in [&square, &cap] {
            let n = reference.len();
            let normals: Vec<DVec3> = (0..n)
                .map(|i| {
                    let (a, b) = (reference[i], reference[(i + 1) % n]);
                    normalize((b - a).cross(DVec3::Z))
                })
                .collect();
            for incident in &incidents {
                let expected = clip_edge_by_edge(reference, &normals, incident);
                let got = clip_by_planes(
                    reference, &normals, incident, &mut dist, &mut buf_a, &mut buf_b,
                );
                assert_eq!(
                    bits(got),
                    bits(&expected),
                    "{n}-gon, {} points",
                    incident.len()
                );
            }
        }
        // the cases reach every path: four all-inside planes rotate by four, cuts change the
        // polygon, an outside polygon leaves nothing
        let normals: Vec<DVec3> = (0..4)
            .map(|i| normalize((square[(i + 1) % 4] - square[i]).cross(DVec3::Z)))
            .collect();
        let mut rotated = incidents[0].clone();
        rotated.rotate_left(4);
        assert_eq!(
            bits(&clip_edge_by_edge(&square, &normals, &incidents[0])),
            bits(&rotated)
        );
        let cut = clip_edge_by_edge(&square, &normals, &incidents[1]);
        assert!(!cut.is_empty() && bits(&cut) != bits(&incidents[1]));
        assert!(clip_edge_by_edge(&square, &normals, &incidents[3]).is_empty());
    }

    /// A cube (corner bits: 1 x, 2 y, 4 z) with its six quads followed by `extra` polygons,
    /// without the vertex-to-polygon index.
    fn cube_hull(extra: &[&[u32]]) -> ConvexHull {
        let vert = (0..8)
            .map(|i| DVec3::new((i & 1) as f64, ((i >> 1) & 1) as f64, ((i >> 2) & 1) as f64))
            .collect();
        let quads: [&[u32]; 6] = [
            &[0, 4, 6, 2],
            &[1, 3, 7, 5],
            &[0, 1, 5, 4],
            &[2, 6, 7, 3],
            &[0, 2, 3, 1],
            &[4, 5, 7, 6],
        ];
        let mut hull = ConvexHull {
            vert,
            poly_start: vec![0],
            ..Default::default()
        };
        for p in quads.iter().chain(extra) {
            hull.poly_vert.extend_from_slice(p);
            hull.poly_start.push(hull.poly_vert.len() as u32);
        }
        hull
    }

    #[test]
    fn shared_polygons_by_index_match_the_polygon_scan() {
        let scanned = cube_hull(&[]);
        let mut indexed = scanned.clone();
        indexed.index_vertex_polygons();
        let shared = |hull: &ConvexHull, v0: i32, v1: i32, room: usize| {
            let mut out = [usize::MAX; 3];
            let n = shared_polygons(hull, v0, v1, &mut out[..room]);
            out[..n].to_vec()
        };
        // an edge of the cube lies on two quads; a diagonal on one; opposite corners on none
        assert_eq!(shared(&indexed, 0, 1, 2), [2, 4]);
        assert_eq!(shared(&indexed, 0, 6, 2), [0]);
        assert_eq!(shared(&indexed, 0, 7, 2), Vec::<usize>::new());
        assert_eq!(shared(&indexed, 0, 1, 1), [2]);
        for v0 in -1..10 {
            for v1 in -1..10 {
                for room in 0..3 {
                    assert_eq!(
                        shared(&indexed, v0, v1, room),
                        shared(&scanned, v0, v1, room),
                        "vertices {v0}, {v1}, room {room}"
                    );
                }
            }
        }
    }

    #[test]
    fn vertex_polygon_index_matches_polygon_scan() {
        // the cube plus a degenerate polygon naming vertex 0 twice and one naming a vertex
        // that does not exist
        let scanned = cube_hull(&[&[0, 7, 0], &[9, 1]]);
        let mut indexed = scanned.clone();
        indexed.index_vertex_polygons();
        assert_eq!(indexed.vert_poly_start.len(), 9);

        let by_scan = incidence(&scanned);
        let by_index = incidence(&indexed);
        assert_eq!(by_index[0], [0, 2, 4, 6]);
        assert_eq!(by_index[1], [1, 2, 4, 7]);
        assert_eq!(by_index[7], [1, 3, 5, 6]);
        assert_eq!(by_index[..8], by_scan[..8]);
        // no hull vertex 8: nothing from the index (the scan matches raw entries only)
        assert!(by_index[8].is_empty());

        // stopping early returns the first polygons only
        let mut first = Vec::new();
        indexed.polygons_of_vertex(0, |p| {
            first.push(p);
            if first.len() == 2 {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        });
        assert_eq!(first, [0, 2]);
    }
}
