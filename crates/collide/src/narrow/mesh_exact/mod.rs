//! Exact non-convex mesh collision: meshes collide by their triangles instead of their convex
//! hulls (selected by [`crate::collider::MeshCollision::Exact`]).
//!
//! Each mesh is prepared once ([`TriMesh`]: face normals, the normal cones of its edges and
//! vertices, a triangle tree). A pair is collided by querying the tree with the other shape's
//! box (or by descending both trees, mesh against mesh) and, per candidate triangle, finding
//! the closest features between the triangle and the other shape's *core* (sphere centre,
//! capsule segment, box corners and edges, or the other mesh's triangle), then inflating by the
//! core radius (ellipsoids and cylinders, which have no such core, meet each triangle whole:
//! `smooth.rs`):
//! - a core vertex against the triangle (face, edge or vertex region); a vertex behind the face
//!   and inside its prism that is inside the mesh (sign against the pseudo-normal of its
//!   nearest surface feature, found in the tree) penetrates by its distance to that nearest
//!   surface point, along the nearest face's normal (or towards the nearest edge or vertex), so
//!   the far side of a closed mesh never reports and depths are to the nearest surface;
//! - a triangle vertex against a box (its closest box point, or its shallowest box face);
//! - an edge of the triangle against an edge of the core: for two interior closest points the
//!   normal is along the cross product of the edges, oriented out of the mesh edge, which finds
//!   edge–edge penetration where no vertex is inside;
//! - a capsule segment piercing the triangle: the face normal, the deeper endpoint's depth.
//!
//! **Normal cones.** A contact whose mesh-side feature is an edge or a vertex is kept only if
//! its normal lies in that feature's normal cone (between the two face normals of an interior
//! edge; making no acute angle with any edge at a vertex), and likewise for the other shape's
//! feature (box corner or edge, the other mesh's edge or vertex). On a flat region the cone of
//! an edge or vertex is the face normal alone, and a kept normal is set exactly to it: a shape
//! sliding over a finely triangulated plane only ever gets the plane's normal (no ghost
//! contacts on internal edges); a concave edge has an empty cone, so contacts there come from
//! its faces.
//!
//! **Reduction.** All candidates of a pair are gathered in a deterministic order (tree order,
//! then feature order) and reduced to at most [`MAX_MESH_CONTACTS`]: the deepest, then
//! repeatedly the candidate farthest from those already kept (ties to the earliest).
//!
//! Conventions are those of [`crate::narrow`]: world coordinates, normal from geom 1 to geom 2,
//! `dist` negative in penetration, `pos` midway between the two witness points, contacts
//! reported when `dist <= margin`. Scratch buffers live in [`MeshScratch`]; steady-state calls
//! do not allocate.
//!
//! **Signed distance field.** Each mesh also bakes an [`Sdf`] (exact distances to the
//! triangles on a grid, sign by generalised winding number). On a closed mesh it settles inside
//! tests for points well away from the surface without a tree search. When no surface feature
//! of a pair is near (a shape wholly inside a mesh, one mesh wholly inside another), the
//! deepest core point or vertex inside by the field is refined on the triangles and reported,
//! so deep containment is not missed.
//!
//! **Mesh against mesh** uses the fields to bound the work: tree nodes farther than the margin
//! from the other mesh's surface by its field (the exact value at the nearest grid node less
//! the distance to it) are skipped, only triangle pairs
//! that meet or lie within the margin (separating axes of two triangles) are tested feature by
//! feature, and the vertices inside the other mesh come from one pass over the vertices (the
//! field's value or, on a closed mesh, a node of the point's cell farther outside than the
//! point is from it; refined on the triangles only where neither rules inside out). The two
//! trees are descended depth first (the larger box split; a child pair tested before it is
//! stacked), node boxes placed in the other frame once per call. A triangle pair skips its
//! edge–edge pairs when the two face normals are too far from opposite for any edge pair's
//! normal to lie in both edges' cones (each triangle's [`Bend`]: the widest angle from its
//! normal to its edges' cones); with a core without radius (another mesh's triangle, a box)
//! an edge pair's normal is the edges' cross product, so both cones are tested before the
//! closest points are sought.
//!
//! Limits: depths are per feature (a vertex's distance to the nearest surface, an edge pair's
//! separation along their common normal), not the minimal translation of the whole pair (the
//! collider sends pairs of a convex mesh, [`TriMesh::convex`], with convex shapes to the convex
//! solver instead). A
//! penetrating edge pair counts only if each witness is inside the other shape, up to a grazing
//! angle of `GRAZE` (0.02 rad; `box_octahedron_edges_crossing_found`).

use std::cell::Cell;

use glam::{DMat3, DVec3};

use crate::model::GeomType;
use crate::narrow::{PreContact, Shape};

mod sdf;
mod smooth;
mod trimesh;

pub use sdf::Sdf;
pub use trimesh::{Bend, Node, TriMesh, TriMeshError, CONVEX_TOL};
use trimesh::{LEAF_SIZE, VERTEX_CLUSTER};

/// Largest number of contacts an exact mesh pair reports (MuJoCo's multi-contact bound).
pub const MAX_MESH_CONTACTS: usize = 4;

/// Tolerance of the cone tests, on unit vectors.
const CONE_EPS: f64 = 1e-7;

/// Angle (radians, small) under which a penetrating edge pair's witness may lie outside the
/// other shape, seen from the other witness: a witness grazing the surface at a sharp edge.
const GRAZE: f64 = 0.02;

/// Closest-point parameters closer than this to a segment end count as the end.
const END_EPS: f64 = 1e-9;

/// Reusable buffers of the exact mesh colliders.
#[derive(Clone, Debug, Default)]
pub struct MeshScratch {
    stack: Vec<u32>,
    tris: Vec<u32>,
    pair_stack: Vec<(u32, u32)>,
    cand: Vec<Cand>,
    keep: Vec<usize>,
    mind: Vec<f64>,
    /// Nearest points of mesh 2's vertices on mesh 1, and of mesh 1's on mesh 2 (one call).
    near12: Vec<Cell<Option<Near>>>,
    near21: Vec<Cell<Option<Near>>>,
    /// Mesh 2's triangles met in leaf pairs, placed in mesh 1's frame (one call), and per
    /// triangle of mesh 2 its index in `tri2` plus one (0: not placed yet).
    tri2: Vec<PlacedTri>,
    tri2_slot: Vec<u32>,
    /// Candidates of mesh vertices inside an ellipsoid or cylinder, by vertex id (one call).
    smooth_verts: Vec<(u32, u32, Cand)>,
    /// Mesh 1's (2's) vertices placed in mesh 2's (1's) frame (one call).
    vert1: Vec<DVec3>,
    vert2: Vec<DVec3>,
    /// Per node of mesh 1 (2), its box placed in mesh 2's (1's) frame, once computed in a call
    /// (entries of other calls are stale), and the number of the current call (never 0).
    node_box1: Vec<PlacedBox>,
    node_box2: Vec<PlacedBox>,
    call: u32,
    /// Mesh vertices that may lie inside the other mesh, their depths not computed yet (one call).
    deferred: Vec<Deferred>,
    /// Per deferred vertex: [`UNREFINED`], [`REJECTED`] or its candidate's index in `cand`.
    slot: Vec<u32>,
    /// A heap of the deferred vertices by their depth bounds, the lowest first (one call).
    by_bound: Vec<u32>,
}

impl MeshScratch {
    /// Empty buffers (they grow to the largest pair seen and are kept).
    pub fn new() -> MeshScratch {
        MeshScratch::default()
    }
}

/// A candidate contact in the mesh frame: normal from the mesh to the other shape.
#[derive(Clone, Copy, Debug)]
struct Cand {
    dist: f64,
    pos: DVec3,
    normal: DVec3,
}

/// A vertex of one mesh that may be inside the other mesh (a closed mesh, by its field), whose
/// exact depth (and, unless `sure`, whether it is inside) is found only if the reduction needs it
/// ([`reduce_refining`]).
#[derive(Clone, Copy, Debug)]
struct Deferred {
    /// The vertex in the frame of the mesh it is inside.
    p: DVec3,
    /// The vertex in the frame of the candidates (where the reduction spreads contacts).
    anchor: DVec3,
    /// A lower bound of its `dist` if it is inside (the field's value less its error bound).
    lo: f64,
    /// An upper bound of its depth (the distance to the surface).
    far: f64,
    /// Whether the field puts it inside for sure (else the nearest surface feature decides).
    sure: bool,
    /// Whether it is inside the pair's second mesh (else the first).
    in_second: bool,
}

/// [`MeshScratch::slot`] of a deferred vertex not refined yet.
const UNREFINED: u32 = u32::MAX;

/// [`MeshScratch::slot`] of a deferred vertex that gave no candidate.
const REJECTED: u32 = u32::MAX - 1;

/// Where on a triangle a closest point lies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Feature {
    Face,
    /// Edge `k`: from corner `k` to corner `(k + 1) % 3`.
    Edge(usize),
    Vertex(usize),
}

/// The closest point of triangle `abc` to `p`, and the feature it lies on.
fn closest_on_triangle(p: DVec3, a: DVec3, b: DVec3, c: DVec3) -> (DVec3, Feature) {
    let (ab, ac, ap) = (b - a, c - a, p - a);
    let (d1, d2) = (ab.dot(ap), ac.dot(ap));
    if d1 <= 0.0 && d2 <= 0.0 {
        return (a, Feature::Vertex(0));
    }
    let bp = p - b;
    let (d3, d4) = (ab.dot(bp), ac.dot(bp));
    if d3 >= 0.0 && d4 <= d3 {
        return (b, Feature::Vertex(1));
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        return (a + ab * (d1 / (d1 - d3)), Feature::Edge(0));
    }
    let cp = p - c;
    let (d5, d6) = (ab.dot(cp), ac.dot(cp));
    if d6 >= 0.0 && d5 <= d6 {
        return (c, Feature::Vertex(2));
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        return (a + ac * (d2 / (d2 - d6)), Feature::Edge(2));
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0 {
        let w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        return (b + (c - b) * w, Feature::Edge(1));
    }
    let den = 1.0 / (va + vb + vc);
    (a + ab * (vb * den) + ac * (vc * den), Feature::Face)
}

/// A segment from `p` along `d` (`l2` its squared length).
#[derive(Clone, Copy, Debug)]
struct Segment {
    p: DVec3,
    d: DVec3,
    l2: f64,
}

impl Segment {
    fn new(p: DVec3, q: DVec3) -> Segment {
        let d = q - p;
        Segment {
            p,
            d,
            l2: d.length_squared(),
        }
    }
}

/// Closest points of segments `p1q1` and `p2q2`: `(point on 1, point on 2, s, t)` with the
/// points at parameters `s` and `t`; `None` for a zero-length segment.
fn closest_segments(
    p1: DVec3,
    q1: DVec3,
    p2: DVec3,
    q2: DVec3,
) -> Option<(DVec3, DVec3, f64, f64)> {
    closest_on_segments(&Segment::new(p1, q1), &Segment::new(p2, q2), false)
}

/// [`closest_segments`] of `s1` and `s2`; with `interior`, also `None` unless both closest
/// points lie farther than [`END_EPS`] from the segments' ends.
#[inline(always)]
fn closest_on_segments(
    s1: &Segment,
    s2: &Segment,
    interior: bool,
) -> Option<(DVec3, DVec3, f64, f64)> {
    let inner = |x: f64| x > END_EPS && x < 1.0 - END_EPS;
    let (d1, d2, r) = (s1.d, s2.d, s1.p - s2.p);
    let (a, e) = (s1.l2, s2.l2);
    if a <= 0.0 || e <= 0.0 {
        return None;
    }
    let (b, c, f) = (d1.dot(d2), d1.dot(r), d2.dot(r));
    let den = a * e - b * b;
    let mut s = if den > 1e-14 * a * e {
        ((b * f - c * e) / den).clamp(0.0, 1.0)
    } else {
        0.0
    };
    // an end here stays an end, or the other point goes to an end below
    if interior && !inner(s) {
        return None;
    }
    let mut t = (b * s + f) / e;
    if interior && !inner(t) {
        return None;
    }
    if t < 0.0 {
        t = 0.0;
        s = (-c / a).clamp(0.0, 1.0);
    } else if t > 1.0 {
        t = 1.0;
        s = ((b - c) / a).clamp(0.0, 1.0);
    }
    Some((s1.p + d1 * s, s2.p + d2 * t, s, t))
}

impl TriMesh {
    /// `u` if it lies in the normal cone of edge `k` of triangle `t` (snapped to the face
    /// normal on a flat edge), else `None`.
    fn edge_cone(&self, t: usize, k: usize, u: DVec3) -> Option<DVec3> {
        self.edge_cone_of(t, k).admit(u)
    }

    /// The normal cone of edge `k` of triangle `t`.
    #[inline]
    fn edge_cone_of(&self, t: usize, k: usize) -> EdgeCone {
        let e = self.edge_dir[t][k];
        let n1 = self.normal[t];
        EdgeCone {
            n1,
            t1: e.cross(n1),
            across: self.neighbour[t][k].map(|n2| (n2.cross(e), n1 + n2, n1.dot(n2) >= 1.0 - 1e-9)),
        }
    }

    /// `u` if it lies in the normal cone of vertex `v` (snapped to the common normal when the
    /// triangles around `v` are coplanar), else `None`.
    fn vertex_cone(&self, v: usize, u: DVec3) -> Option<DVec3> {
        let p = self.vert[v];
        for &w in self.vertex_neighbours(v) {
            let e = self.vert[w as usize] - p;
            if u.dot(e) > CONE_EPS * e.length() {
                return None;
            }
        }
        if u.dot(self.vnormal[v]) < -CONE_EPS {
            return None;
        }
        Some(self.vflat[v].unwrap_or(u))
    }
}

/// The normal cone of a mesh edge: the face normal `n1`, the face's tangent `t1` out of the
/// edge, and for an interior edge the other face's tangent, the sum of the two normals and
/// whether the faces are coplanar.
struct EdgeCone {
    n1: DVec3,
    t1: DVec3,
    across: Option<(DVec3, DVec3, bool)>,
}

impl EdgeCone {
    /// `u` if it lies in the cone (snapped to the face normal on a flat edge), else `None`.
    #[inline]
    fn admit(&self, u: DVec3) -> Option<DVec3> {
        if u.dot(self.t1) < -CONE_EPS {
            return None;
        }
        match self.across {
            None => Some(u),
            Some((t2, sum, flat)) => {
                if u.dot(t2) < -CONE_EPS || u.dot(sum) < -CONE_EPS {
                    None
                } else if flat {
                    Some(self.n1)
                } else {
                    Some(u)
                }
            }
        }
    }
}

/// The other shape's core as the per-triangle tests see it, in the mesh frame.
struct Core<'a> {
    v: [DVec3; 8],
    nv: usize,
    e: [[u8; 2]; 12],
    ne: usize,
    r: f64,
    centre: DVec3,
    kind: CoreKind<'a>,
    /// Per core vertex, its nearest point on the mesh once computed (see `TriMesh::nearest`).
    near: NearCache<'a>,
}

/// Where a core keeps its vertices' nearest points: its own cells (primitives, one call), or
/// cells shared by all triangles of the other mesh for one call, indexed by vertex id.
#[allow(clippy::large_enum_variant)] // built once per call, on the stack
enum NearCache<'a> {
    Local([Cell<Option<Near>>; 8]),
    Shared(&'a [Cell<Option<Near>>], [u32; 3]),
}

impl Core<'_> {
    fn near_cell(&self, i: usize) -> &Cell<Option<Near>> {
        match &self.near {
            NearCache::Local(c) => &c[i],
            NearCache::Shared(c, ids) => &c[ids[i] as usize],
        }
    }
}

/// `TriMesh::nearest`'s answer: distance, point, triangle, feature, inside.
type Near = (f64, DVec3, usize, Feature, bool);

/// A cached [`Near`], filled on first use.
type NearCell = Cell<Option<Near>>;

enum CoreKind<'a> {
    Sphere,
    Capsule,
    /// Corner `i` has sign `+` along axis `k` when bit `k` of `i` is set.
    Box {
        axes: [DVec3; 3],
        half: DVec3,
    },
    /// Triangle `t` of `mesh`; `(rot, off)` maps `mesh`'s frame into the frame of the tests.
    Tri {
        mesh: &'a TriMesh,
        t: usize,
        rot: DMat3,
        off: DVec3,
    },
}

impl Core<'_> {
    /// Distance from `p` to the core (sphere centre, capsule segment, box solid); 0 for a
    /// triangle core (not used).
    fn distance_to(&self, p: DVec3) -> f64 {
        match &self.kind {
            CoreKind::Sphere => p.distance(self.centre),
            CoreKind::Capsule => {
                let (a, d) = (self.v[0], self.v[1] - self.v[0]);
                let t = ((p - a).dot(d) / d.length_squared()).clamp(0.0, 1.0);
                p.distance(a + d * t)
            }
            CoreKind::Box { axes, half } => {
                let d = p - self.centre;
                let l = DVec3::new(d.dot(axes[0]), d.dot(axes[1]), d.dot(axes[2]));
                (l.abs() - *half).max(DVec3::ZERO).length()
            }
            CoreKind::Tri { .. } => 0.0,
        }
    }

    /// Whether `u` (pointing out of the core) lies in the normal cone of core vertex `i`.
    fn vertex_ok(&self, i: usize, u: DVec3) -> bool {
        match &self.kind {
            CoreKind::Sphere => true,
            CoreKind::Capsule => u.dot(self.v[i] - self.v[1 - i]) >= -CONE_EPS,
            CoreKind::Box { axes, .. } => (0..3).all(|k| {
                let s = if i >> k & 1 == 1 { 1.0 } else { -1.0 };
                s * u.dot(axes[k]) >= -CONE_EPS
            }),
            CoreKind::Tri { mesh, t, rot, .. } => mesh
                .vertex_cone(mesh.tri[*t][i] as usize, rot.transpose() * u)
                .is_some(),
        }
    }

    /// Whether core vertex `i`, found behind a face with normal `n`, points into it: a box
    /// corner's diagonal or another mesh's vertex normal makes no acute angle with `n`; a
    /// sphere's or capsule's centre is no more than its radius behind the face. This keeps the
    /// far side of a closed mesh from reporting.
    /// `a` is a point of the face's plane.
    fn faces_into(&self, i: usize, a: DVec3, n: DVec3) -> bool {
        match &self.kind {
            CoreKind::Sphere | CoreKind::Capsule => (self.centre - a).dot(n) >= -self.r,
            CoreKind::Box { axes, .. } => {
                let s = |k: usize| if i >> k & 1 == 1 { 1.0 } else { -1.0 };
                (axes[0] * s(0) + axes[1] * s(1) + axes[2] * s(2)).dot(n) <= CONE_EPS
            }
            CoreKind::Tri { mesh, t, rot, .. } => {
                (*rot * mesh.vnormal[mesh.tri[*t][i] as usize]).dot(n) <= CONE_EPS
            }
        }
    }

    /// Whether `p` (frame of the tests) is inside the core's shape or within `tol` of it.
    fn contains(&self, p: DVec3, tol: f64, stack: &mut Vec<u32>) -> bool {
        match &self.kind {
            CoreKind::Sphere | CoreKind::Capsule => true,
            CoreKind::Box { axes, half } => {
                let d = p - self.centre;
                (0..3).all(|k| d.dot(axes[k]).abs() <= half[k] + tol)
            }
            CoreKind::Tri { mesh, rot, off, .. } => {
                mesh.inside_or_near(rot.transpose() * (p - *off), tol, stack)
            }
        }
    }

    /// Whether `u` (pointing out of the core) lies in the normal cone of core edge `j`.
    fn edge_ok(&self, j: usize, u: DVec3) -> bool {
        match &self.kind {
            CoreKind::Sphere | CoreKind::Capsule => true,
            CoreKind::Box { axes, .. } => {
                let [i0, i1] = self.e[j];
                let along = (i0 ^ i1).trailing_zeros() as usize;
                (0..3).filter(|&k| k != along).all(|k| {
                    let s = if i0 >> k & 1 == 1 { 1.0 } else { -1.0 };
                    s * u.dot(axes[k]) >= -CONE_EPS
                })
            }
            CoreKind::Tri { mesh, t, rot, .. } => {
                mesh.edge_cone(*t, j, rot.transpose() * u).is_some()
            }
        }
    }
}

/// The 12 edges of a box core (corners differing in one bit).
const BOX_EDGES: [[u8; 2]; 12] = [
    [0, 1],
    [2, 3],
    [4, 5],
    [6, 7],
    [0, 2],
    [1, 3],
    [4, 6],
    [5, 7],
    [0, 4],
    [1, 5],
    [2, 6],
    [3, 7],
];

/// Core of a sphere, capsule or box placed at `pos` with rotation `mat` (mesh frame).
fn primitive_core(kind: GeomType, pos: DVec3, mat: DMat3, size: DVec3) -> Option<Core<'static>> {
    let mut core = Core {
        v: [pos; 8],
        nv: 1,
        e: [[0, 0]; 12],
        ne: 0,
        r: 0.0,
        centre: pos,
        kind: CoreKind::Sphere,
        near: NearCache::Local(Default::default()),
    };
    match kind {
        GeomType::Sphere => core.r = size.x,
        GeomType::Capsule if size.y > 0.0 => {
            let h = mat.z_axis * size.y;
            core.v[0] = pos - h;
            core.v[1] = pos + h;
            core.nv = 2;
            core.e[0] = [0, 1];
            core.ne = 1;
            core.r = size.x;
            core.kind = CoreKind::Capsule;
        }
        GeomType::Capsule => core.r = size.x,
        GeomType::Box => {
            let axes = [mat.x_axis, mat.y_axis, mat.z_axis];
            for (i, v) in core.v.iter_mut().enumerate() {
                let s = |k: usize| if i >> k & 1 == 1 { 1.0 } else { -1.0 };
                *v = pos
                    + axes[0] * (s(0) * size.x)
                    + axes[1] * (s(1) * size.y)
                    + axes[2] * (s(2) * size.z);
            }
            core.nv = 8;
            core.e = BOX_EDGES;
            core.ne = 12;
            core.kind = CoreKind::Box { axes, half: size };
        }
        _ => return None,
    }
    Some(core)
}

/// Appends the candidate contacts of triangle `t` of `mesh` against `core` (both in the mesh
/// frame) with `dist <= margin`. `edges` adds the edge–edge pairs.
#[allow(clippy::too_many_arguments)]
fn triangle_core(
    mesh: &TriMesh,
    t: usize,
    core: &Core,
    margin: f64,
    edges: bool,
    out: &mut Vec<Cand>,
    stack: &mut Vec<u32>,
) {
    let corners = mesh.corners(t);
    let [a, b, c] = corners;
    let ids = mesh.tri[t];
    let n = mesh.normal[t];
    let r = core.r;
    let mut push = |dist: f64, on_mesh: DVec3, on_core: DVec3, normal: DVec3| {
        out.push(Cand {
            dist,
            pos: (on_mesh + on_core) * 0.5,
            normal,
        })
    };
    // another mesh's vertex behind the plane of a closed mesh yields only an inside contact at
    // zero margin (outside, beside the triangle, it is farther than the margin), which
    // `deep_vertices` finds and defers
    let inside_left_to_deep =
        mesh.closed && margin <= 0.0 && matches!(core.kind, CoreKind::Tri { .. });
    // core vertices against the triangle
    for i in 0..core.nv {
        let p = core.v[i];
        let s = (p - a).dot(n);
        // in front of the plane and farther than the reach (beyond rounding): no point of
        // the triangle is within it
        if s >= 0.0 && s - r > margin + 1e-9 * (1.0 + (p - a).abs().max_element()) {
            continue;
        }
        if s < 0.0 && inside_left_to_deep {
            continue;
        }
        let (q, feat) = closest_on_triangle(p, a, b, c);
        if s < 0.0 && (feat != Feature::Face || core.faces_into(i, a, n)) {
            // behind the plane: the depth is the distance to the nearest surface point (which
            // may lie on another triangle), if the point is inside the mesh at all
            let (depth, qn, tn, fnear, inside) = match core.near_cell(i).get() {
                // an inside vertex's contact depends on its nearest point alone: it was
                // pushed when that was first found (a repeat would change nothing)
                Some((.., true)) => continue,
                Some(near) => near,
                // a closed mesh's field settles points well outside without a tree search
                None if mesh.closed && mesh.sdf.classify(p, 0.0) == Some(false) => {
                    (0.0, p, t, Feature::Face, false)
                }
                None => {
                    // `q` on this triangle bounds the search
                    let near = mesh.nearest_below(p, p.distance_squared(q), stack);
                    core.near_cell(i).set(Some(near));
                    near
                }
            };
            if !inside {
                if feat == Feature::Face {
                    continue;
                }
                // outside, beside this triangle: its edge or vertex may be the closest feature
            } else {
                if let Some(c) = inside_cand(mesh, p, (depth, qn, tn, fnear, inside), r, margin) {
                    push(c.dist, c.pos, c.pos, c.normal);
                }
                continue;
            }
        } else if s < 0.0 && feat == Feature::Face {
            continue;
        }
        let d = p - q;
        let l = d.length();
        if l - r > margin {
            continue;
        }
        let u = if l > 0.0 { d / l } else { n };
        let normal = match feat {
            Feature::Face => Some(n),
            Feature::Edge(k) => mesh.edge_cone(t, k, u),
            Feature::Vertex(k) => mesh.vertex_cone(ids[k] as usize, u),
        };
        let Some(normal) = normal else { continue };
        if core.vertex_ok(i, -normal) {
            push(l - r, q, p - normal * r, normal);
        }
    }
    // triangle vertices against a box (its corners in the box frame serve the edge pairs too)
    let box_corners = box_local(core, corners);
    if let (CoreKind::Box { axes, half }, Some(in_box)) = (&core.kind, &box_corners) {
        let rot = DMat3::from_cols(axes[0], axes[1], axes[2]);
        for k in 0..3 {
            let v = corners[k];
            let local = in_box[k];
            let clamped = local.clamp(-*half, *half);
            let (dist, on_box, u) = if clamped != local {
                let qb = core.centre + rot * clamped;
                let d = qb - v;
                let l = d.length();
                (l, qb, d / l)
            } else {
                // inside the box: out through the shallowest box face whose normal lies in the
                // vertex's normal cone (the nearest face may point across the mesh)
                let depth = *half - local.abs();
                let mut order = [0, 1, 2];
                order.sort_by(|&x, &y| depth[x].total_cmp(&depth[y]));
                let found = order.into_iter().find_map(|j| {
                    let f = axes[j] * if local[j] < 0.0 { -1.0 } else { 1.0 };
                    mesh.vertex_cone(ids[k] as usize, -f)
                        .map(|normal| (-depth[j], v + f * depth[j], normal))
                });
                let Some((dist, on_box, normal)) = found else {
                    continue;
                };
                if dist <= margin {
                    push(dist, v, on_box, normal);
                }
                continue;
            };
            if dist > margin || !u.is_finite() {
                continue;
            }
            if let Some(normal) = mesh.vertex_cone(ids[k] as usize, u) {
                push(dist, v, on_box, normal);
            }
        }
    }
    if edges {
        edge_pairs(mesh, t, core, margin, box_corners.as_ref(), out, stack);
    }
    // a capsule segment piercing the triangle
    if matches!(core.kind, CoreKind::Capsule) {
        let (p0, p1) = (core.v[0], core.v[1]);
        let (s0, s1) = ((p0 - a).dot(n), (p1 - a).dot(n));
        if (s0 < 0.0) != (s1 < 0.0) {
            let x = p0 + (p1 - p0) * (s0 / (s0 - s1));
            let (_, feat) = closest_on_triangle(x, a, b, c);
            let (pe, se) = if s0 < s1 { (p0, s0) } else { (p1, s1) };
            let dist = se - r;
            if feat == Feature::Face && dist <= margin && (core.centre - x).dot(n) >= -r {
                let (on_mesh, on_core) = (pe - n * se, pe - n * r);
                out.push(Cand {
                    dist,
                    pos: (on_mesh + on_core) * 0.5,
                    normal: n,
                });
            }
        }
    }
}

/// Appends the candidates of the edges of triangle `t` of `mesh` against the edges of `core`
/// (both in the mesh frame) with `dist <= margin`: pairs whose closest points are interior to
/// the core edge and to the mesh edge (or at a mesh vertex, against a capsule), the normal along
/// the edges' cross product (or between the closest points of a capsule) in both normal cones;
/// a penetrating pair only if each witness is inside the other shape.
///
/// A core without radius (a box's or another mesh's triangle's edges) has the cross product as
/// the only normal, fixed by the edges' directions: both cones are tested before the closest
/// points are sought (few edge pairs pass them).
///
/// With `box_corners` (a box core: the triangle's corners in the box frame, [`box_local`]),
/// mesh edges wholly outside the box beyond everything `keep` could accept are skipped
/// ([`box_reach`]; the same candidates as without).
fn edge_pairs(
    mesh: &TriMesh,
    t: usize,
    core: &Core,
    margin: f64,
    box_corners: Option<&[DVec3; 3]>,
    out: &mut Vec<Cand>,
    stack: &mut Vec<u32>,
) {
    if core.ne == 0 {
        return;
    }
    let corners = mesh.corners(t);
    let ids = mesh.tri[t];
    let n = mesh.normal[t];
    let r = core.r;
    let capsule = matches!(core.kind, CoreKind::Capsule);
    // the direction out of the mesh at edge `k` that orients an edge pair's cross product
    let hint = |k: usize, seg_a: &Segment| match mesh.neighbour[t][k] {
        Some(n2) if (n + n2).length_squared() > 1e-12 => n + n2,
        _ => seg_a.d.cross(n) + n * 1e-3,
    };
    // a pair within the margin: kept if a penetrating pair's witnesses are each inside the
    // other shape (away from convex shapes, crossed edges can be far apart); a witness may graze
    // the other's surface (the segment between the witnesses, of length `l`, leaving it at less
    // than `GRAZE` radians, at a sharp edge)
    let mut keep = |dist: f64, normal: DVec3, pa: DVec3, pb: DVec3, l: f64| {
        if dist > margin {
            return;
        }
        if dist < 0.0 && r == 0.0 {
            let tol = 1e-9 * (1.0 + pa.length().max(pb.length())) + GRAZE * l;
            if !core.contains(pa, tol, stack) || !mesh.inside_or_near(pb, tol, stack) {
                return;
            }
        }
        let on_core = pb - normal * r;
        out.push(Cand {
            dist,
            pos: (pa + on_core) * 0.5,
            normal,
        });
    };
    let far_from_box = match (&core.kind, box_corners) {
        (CoreKind::Box { half, .. }, Some(local)) => Some((
            local,
            *half,
            box_reach(core.centre, *half, local, corners, margin),
        )),
        _ => None,
    };
    for k in 0..3 {
        if let Some((local, half, slack)) = far_from_box {
            let (p, q) = (local[k], local[(k + 1) % 3]);
            let beyond = (p.min(q) - half).max(-p.max(q) - half);
            if beyond.max_element() > slack {
                continue;
            }
        }
        let seg_a = Segment::new(corners[k], corners[(k + 1) % 3]);
        if r == 0.0 && !capsule {
            // the normal is the edges' cross product whatever the closest points: both cones
            // first, then the closest points, which must be interior (an end of the core's edge
            // is a core vertex, handled above, and an end of the mesh's a mesh vertex, handled by
            // the vertex passes)
            let (hint, cone) = (hint(k, &seg_a), mesh.edge_cone_of(t, k));
            for j in 0..core.ne {
                let [i0, i1] = core.e[j];
                let seg_b = Segment::new(core.v[i0 as usize], core.v[i1 as usize]);
                let Some(u) = cross_normal(&seg_a, &seg_b, hint) else {
                    continue;
                };
                let Some(normal) = cone.admit(u) else {
                    continue;
                };
                if !core.edge_ok(j, -normal) {
                    continue;
                }
                let Some((pa, pb, ..)) = closest_on_segments(&seg_a, &seg_b, true) else {
                    continue;
                };
                let d = pb - pa;
                keep(d.dot(u) - r, normal, pa, pb, d.length());
            }
            continue;
        }
        for j in 0..core.ne {
            let [i0, i1] = core.e[j];
            let seg_b = Segment::new(core.v[i0 as usize], core.v[i1 as usize]);
            // against a capsule, a closest point at a mesh vertex counts
            let Some((pa, pb, s, tt)) = closest_on_segments(&seg_a, &seg_b, !capsule) else {
                continue;
            };
            let inner_a = s > END_EPS && s < 1.0 - END_EPS;
            let inner_b = tt > END_EPS && tt < 1.0 - END_EPS;
            if !inner_b || (!inner_a && !capsule) {
                continue;
            }
            let d = pb - pa;
            let l = d.length();
            let (dist, u) = if r > 0.0 && l > 0.0 {
                (l - r, d / l)
            } else if inner_a {
                let Some(u) = cross_normal(&seg_a, &seg_b, hint(k, &seg_a)) else {
                    continue;
                };
                (d.dot(u) - r, u)
            } else {
                continue;
            };
            if dist > margin {
                continue;
            }
            let normal = if inner_a {
                mesh.edge_cone(t, k, u)
            } else {
                let v = if s <= END_EPS { k } else { (k + 1) % 3 };
                mesh.vertex_cone(ids[v] as usize, u)
            };
            let Some(normal) = normal else { continue };
            if core.edge_ok(j, -normal) {
                keep(dist, normal, pa, pb, l);
            }
        }
    }
}

/// A triangle's `corners` in the frame of a box core (relative to its centre); `None` for other
/// cores.
#[inline]
fn box_local(core: &Core, corners: [DVec3; 3]) -> Option<[DVec3; 3]> {
    let CoreKind::Box { axes, .. } = &core.kind else {
        return None;
    };
    let rt = DMat3::from_cols(axes[0], axes[1], axes[2]).transpose();
    Some(corners.map(|v| rt * (v - core.centre)))
}

/// For a box (centre `centre`, half sizes `half`) and a triangle (`corners`; `local`: the same
/// in the box frame, [`box_local`]): how far outside the box along a box axis a mesh edge may
/// lie and still yield a contact in [`edge_pairs`]. That is the margin, plus the tolerance its
/// `keep` grants a penetrating pair's witness (rounding, and the grazing allowance over the
/// longest possible distance between the witnesses).
fn box_reach(
    centre: DVec3,
    half: DVec3,
    local: &[DVec3; 3],
    corners: [DVec3; 3],
    margin: f64,
) -> f64 {
    let far = local.iter().fold(0.0f64, |m, l| m.max(l.length()));
    let big = corners
        .iter()
        .fold(centre.length() + half.length(), |m, v| m.max(v.length()));
    margin.max(0.0) + 1e-9 * (2.0 + big) + GRAZE * (far + half.length()) * 1.001
}

/// The unit cross product of two segments' directions, oriented along `hint`; `None` for
/// (nearly) parallel segments.
#[inline]
fn cross_normal(seg_a: &Segment, seg_b: &Segment, hint: DVec3) -> Option<DVec3> {
    cross_normal_len(seg_a, seg_a.l2.sqrt(), seg_b, seg_b.l2.sqrt(), hint)
}

/// [`cross_normal`] given the segments' lengths.
#[inline(always)]
fn cross_normal_len(
    seg_a: &Segment,
    len_a: f64,
    seg_b: &Segment,
    len_b: f64,
    hint: DVec3,
) -> Option<DVec3> {
    let cr = seg_a.d.cross(seg_b.d);
    let cl = cr.length();
    if cl <= 1e-9 * len_a * len_b {
        return None;
    }
    let u = cr / cl;
    Some(if u.dot(hint) < 0.0 { -u } else { u })
}

/// The candidate of a point `p` inside `mesh` (mesh frame) whose nearest surface point is
/// `near` ([`TriMesh::nearest`]), for a core of radius `r`: `dist = -depth - r`, the normal the
/// nearest face's (towards the nearest edge or vertex, kept in its cone when it lies there), out
/// of the mesh; `None` beyond the margin or at zero depth off a face.
fn inside_cand(mesh: &TriMesh, p: DVec3, near: Near, r: f64, margin: f64) -> Option<Cand> {
    let (depth, qn, tn, fnear, _) = near;
    let normal = match fnear {
        Feature::Face => mesh.normal[tn],
        _ if depth <= 0.0 => return None,
        Feature::Edge(k) => {
            let u = (qn - p) / depth;
            mesh.edge_cone(tn, k, u).unwrap_or(u)
        }
        Feature::Vertex(k) => {
            let u = (qn - p) / depth;
            mesh.vertex_cone(mesh.tri[tn][k] as usize, u).unwrap_or(u)
        }
    };
    let dist = -depth - r;
    (dist <= margin).then(|| Cand {
        dist,
        pos: (qn + p - normal * r) * 0.5,
        normal,
    })
}

/// Gathers the vertices of `inner` (its frame mapped into `outer`'s by `(rot, off)`, its
/// vertices so placed in `placed`) not met
/// by the triangle pairs (`cache`, by vertex id) that may lie inside `outer`, skipping runs of
/// vertices ([`TriMesh::vball`]) and vertices that `outer`'s signed distance field puts
/// outside.
/// - On a closed `outer` a vertex is deferred (`deferred`; its anchor placed by `anchor_map`;
///   `in_second`: `outer` is the pair's second mesh) with the bounds of the field's nodes
///   ([`Sdf::node_bounds`]), since only the deepest and the spread of them are ever refined
///   ([`reduce_refining`]).
/// - Otherwise it is refined on the triangles ([`TriMesh::nearest`]) and kept if inside (by the
///   nearest feature, or surely by the field): candidates in `outer`'s frame, normals out of
///   `outer`.
#[allow(clippy::too_many_arguments)]
fn deep_vertices(
    outer: &TriMesh,
    inner: &TriMesh,
    (rot, off, placed): (DMat3, DVec3, &[DVec3]),
    cache: &[NearCell],
    margin: f64,
    cand: &mut Vec<Cand>,
    stack: &mut Vec<u32>,
    (deferred, in_second, anchor_map): (&mut Vec<Deferred>, bool, (DMat3, DVec3)),
) {
    let (lo, hi) = (outer.nodes[0].lo, outer.nodes[0].hi);
    let eb = outer.sdf.error_bound();
    let runs = inner.vorder.chunks(VERTEX_CLUSTER).zip(&inner.vball);
    for (i, p) in runs.flat_map(|(run, &(c, r))| {
        // a run wholly outside the box, or (closed meshes) wholly outside by the field
        let c = rot * c + off;
        let away = !boxes_overlap((c - r, c + r), (lo, hi))
            || (outer.closed
                && (outer.sdf.value(c) - eb - r > 0.0
                    || outer.sdf.signed_lower_bound(c) - r > 0.0));
        run[..if away { 0 } else { run.len() }]
            .iter()
            .map(move |&i| (i as usize, placed[i as usize]))
    }) {
        if cache[i].get().is_some() || !boxes_overlap((p, p), (lo, hi)) {
            continue;
        }
        // (on a closed mesh, the node bounds from the same cell)
        let below = if outer.closed { eb } else { f64::NEG_INFINITY };
        let (value, bounds) = outer.sdf.value_and_bounds(p, below);
        if value >= eb {
            continue;
        }
        if outer.closed {
            // inside the grid (`value` is below the error bound)
            let Some((lo, hi, far)) = bounds else {
                continue;
            };
            if lo <= 0.0 {
                deferred.push(Deferred {
                    p,
                    anchor: anchor_map.0 * p + anchor_map.1,
                    lo,
                    far,
                    sure: hi < 0.0 || value < -eb,
                    in_second,
                });
            }
            continue;
        }
        let near = outer.nearest(p, stack);
        cache[i].set(Some(near));
        if near.4 || value < -eb {
            cand.extend(inside_cand(outer, p, near, 0.0, margin));
        }
    }
}

/// Reduces `cand` to at most [`MAX_MESH_CONTACTS`] (the deepest, then farthest-point
/// sampling), mapped to the world by `(pos, mat)` with the normal negated when `flip`.
fn reduce(
    scratch: &mut MeshScratch,
    pos: DVec3,
    mat: &DMat3,
    flip: bool,
    out: &mut [PreContact],
) -> usize {
    scratch.deferred.clear();
    reduce_refining(scratch, pos, mat, flip, out, |_, _| None)
}

/// [`reduce`] over the candidates and the deferred vertices together. A deferred vertex takes
/// part by its bound when the deepest is chosen (vertices are refined in the order of their
/// bounds while a bound is not above the deepest found) and by its anchor in the spread, and is
/// refined (`refine`: its candidate, or `None`) only when it may be the deepest or is chosen.
/// Ties go to the earlier item (candidates first, then deferred vertices in order).
fn reduce_refining(
    scratch: &mut MeshScratch,
    pos: DVec3,
    mat: &DMat3,
    flip: bool,
    out: &mut [PreContact],
    mut refine: impl FnMut(&Deferred, &mut Vec<u32>) -> Option<Cand>,
) -> usize {
    let MeshScratch {
        cand,
        keep,
        mind,
        deferred,
        slot,
        by_bound,
        stack,
        ..
    } = scratch;
    let (ne, nd) = (cand.len(), deferred.len());
    slot.clear();
    slot.resize(nd, UNREFINED);
    // deferred vertex `j` refined: its candidate's index in `cand`, or `None`
    let mut refined = |j: usize, cand: &mut Vec<Cand>, slot: &mut [u32]| {
        if slot[j] == UNREFINED {
            slot[j] = match refine(&deferred[j], stack) {
                Some(c) => {
                    cand.push(c);
                    (cand.len() - 1) as u32
                }
                None => REJECTED,
            };
        }
        (slot[j] != REJECTED).then_some(slot[j] as usize)
    };
    // the deepest: candidates, then deferred vertices by their bounds
    let mut best: Option<(f64, usize)> = None;
    for (i, c) in cand.iter().enumerate() {
        if best.is_none_or(|(d, _)| c.dist < d) {
            best = Some((c.dist, i));
        }
    }
    // deferred vertices in the order of their bounds (ties by index), from a heap: only the
    // first few are ever taken
    by_bound.clear();
    by_bound.extend(0..nd as u32);
    let before = |a: u32, b: u32| {
        let (a, b) = (a as usize, b as usize);
        deferred[a].lo.total_cmp(&deferred[b].lo).then(a.cmp(&b)) == std::cmp::Ordering::Less
    };
    for i in (0..nd / 2).rev() {
        sift_down(by_bound, i, &before);
    }
    while let Some(&j) = by_bound.first() {
        let j = j as usize;
        if best.is_some_and(|(d, _)| deferred[j].lo > d) {
            break;
        }
        let last = by_bound.len() - 1;
        by_bound.swap(0, last);
        by_bound.pop();
        sift_down(by_bound, 0, &before);
        if let Some(k) = refined(j, cand, slot) {
            let (d, item) = (cand[k].dist, ne + j);
            if best.is_none_or(|(bd, bi)| d < bd || (d == bd && item < bi)) {
                best = Some((d, item));
            }
        }
    }
    let Some((_, best)) = best else {
        return 0;
    };
    let anchor = |i: usize, cand: &[Cand]| {
        if i < ne {
            cand[i].pos
        } else {
            deferred[i - ne].anchor
        }
    };
    keep.clear();
    keep.push(best);
    let first = anchor(best, cand);
    mind.clear();
    mind.extend((0..ne + nd).map(|i| {
        if i >= ne && slot[i - ne] == REJECTED {
            -1.0
        } else {
            anchor(i, cand).distance_squared(first)
        }
    }));
    let limit = MAX_MESH_CONTACTS.min(out.len());
    while keep.len() < limit {
        let mut far = 0;
        for (i, &d) in mind.iter().enumerate() {
            if d > mind[far] {
                far = i;
            }
        }
        // duplicates (within 1e-12 of a kept point) are not kept
        if mind[far] <= 1e-24 {
            break;
        }
        if far >= ne && refined(far - ne, cand, slot).is_none() {
            mind[far] = -1.0;
            continue;
        }
        keep.push(far);
        let a = anchor(far, cand);
        for (i, m) in mind.iter_mut().enumerate() {
            *m = m.min(anchor(i, cand).distance_squared(a));
        }
    }
    let sign = if flip { -1.0 } else { 1.0 };
    for (o, &i) in out.iter_mut().zip(keep.iter()) {
        let c = &cand[if i < ne { i } else { slot[i - ne] as usize }];
        *o = PreContact {
            dist: c.dist,
            pos: pos + *mat * c.pos,
            normal: (*mat * c.normal * sign).normalize(),
            tangent: DVec3::ZERO,
        };
    }
    keep.len()
}

/// Restores the heap order (`before`: the root first) of `heap` below entry `i`.
#[inline]
fn sift_down(heap: &mut [u32], mut i: usize, before: &impl Fn(u32, u32) -> bool) {
    let n = heap.len();
    loop {
        let (l, r) = (2 * i + 1, 2 * i + 2);
        let mut m = i;
        if l < n && before(heap[l], heap[m]) {
            m = l;
        }
        if r < n && before(heap[r], heap[m]) {
            m = r;
        }
        if m == i {
            return;
        }
        heap.swap(i, m);
        i = m;
    }
}

/// Whether [`primitive_mesh`] handles geom type `kind` against a mesh.
pub fn handles(kind: GeomType) -> bool {
    matches!(
        kind,
        GeomType::Sphere
            | GeomType::Capsule
            | GeomType::Box
            | GeomType::Ellipsoid
            | GeomType::Cylinder
    )
}

/// A sphere, capsule, box, ellipsoid or cylinder (`prim`, geom 1, of type `kind`) against a
/// mesh (`mesh_shape` places `mesh`, geom 2): contacts with normals from the primitive to the
/// mesh, at most [`MAX_MESH_CONTACTS`]. Other types return 0 (see [`handles`]).
pub fn primitive_mesh(
    kind: GeomType,
    prim: &Shape,
    mesh_shape: &Shape,
    mesh: &TriMesh,
    margin: f64,
    scratch: &mut MeshScratch,
    out: &mut [PreContact],
) -> usize {
    if matches!(kind, GeomType::Ellipsoid | GeomType::Cylinder) {
        return smooth::smooth_mesh(kind, prim, mesh_shape, mesh, margin, scratch, out);
    }
    let rt = mesh_shape.mat.transpose();
    let Some(core) = primitive_core(
        kind,
        rt * (prim.pos - mesh_shape.pos),
        rt * prim.mat,
        prim.size,
    ) else {
        return 0;
    };
    let (mut lo, mut hi) = (core.v[0], core.v[0]);
    for p in &core.v[..core.nv] {
        lo = lo.min(*p);
        hi = hi.max(*p);
    }
    let grow = DVec3::splat(core.r + margin.max(0.0));
    scratch.tris.clear();
    mesh.query_box(lo - grow, hi + grow, &mut scratch.stack, &mut scratch.tris);
    scratch.cand.clear();
    let reach = core.r + margin.max(0.0);
    for &t in &scratch.tris {
        // the triangle's bounding sphere farther from the core than its reach, and no core
        // vertex behind its plane: no feature of it comes within the margin
        let [a, b, c] = mesh.corners(t as usize);
        let mid = (a + b + c) / 3.0;
        let rad = mid
            .distance_squared(a)
            .max(mid.distance_squared(b))
            .max(mid.distance_squared(c))
            .sqrt();
        let n = mesh.normal[t as usize];
        if core.distance_to(mid) > reach + rad
            && core.v[..core.nv].iter().all(|&p| (p - a).dot(n) >= 0.0)
        {
            continue;
        }
        triangle_core(
            mesh,
            t as usize,
            &core,
            margin,
            true,
            &mut scratch.cand,
            &mut scratch.stack,
        );
    }
    if scratch.cand.is_empty() {
        // no surface feature near: the shape may lie wholly inside the mesh
        let centre = [core.centre];
        let points = core.v[..core.nv].iter().chain(&centre);
        if let Some(c) = deepest_inside(mesh, points.copied(), core.r, &mut scratch.stack) {
            scratch.cand.push(c);
        }
    }
    reduce(scratch, mesh_shape.pos, &mesh_shape.mat, true, out)
}

/// The deepest of `points` (mesh frame) inside `mesh` by its signed distance field (winding
/// number), refined on the triangles: a candidate with `dist = -depth - r` and the normal from
/// the point towards its nearest surface point (out of the mesh). Used when no surface
/// feature is near, for shapes wholly inside a mesh.
fn deepest_inside(
    mesh: &TriMesh,
    points: impl Iterator<Item = DVec3>,
    r: f64,
    stack: &mut Vec<u32>,
) -> Option<Cand> {
    let mut best: Option<(f64, DVec3)> = None;
    for p in points {
        let v = mesh.sdf.value(p);
        if v < 0.0 && best.is_none_or(|(b, _)| v < b) {
            best = Some((v, p));
        }
    }
    let (v, p) = best?;
    let (depth, q, _, _, inside) = mesh.nearest(p, stack);
    if depth <= 0.0 || !(inside || v < -mesh.sdf.error_bound()) {
        return None;
    }
    let normal = (q - p) / depth;
    Some(Cand {
        dist: -depth - r,
        pos: (q + p - normal * r) * 0.5,
        normal,
    })
}

/// Core of triangle `t` of `mesh`, mapped by `(rot, off)` into the frame of the tests, with
/// `centre` the owning geom's centre in that frame.
#[inline(always)]
fn triangle_as_core<'a>(
    mesh: &'a TriMesh,
    t: usize,
    rot: DMat3,
    off: DVec3,
    centre: DVec3,
    cache: &'a [Cell<Option<Near>>],
) -> Core<'a> {
    let c = mesh.corners(t);
    let mut v = [DVec3::ZERO; 8];
    for k in 0..3 {
        v[k] = rot * c[k] + off;
    }
    let mut e = [[0, 0]; 12];
    e[0] = [0, 1];
    e[1] = [1, 2];
    e[2] = [2, 0];
    Core {
        v,
        nv: 3,
        e,
        ne: 3,
        r: 0.0,
        centre,
        kind: CoreKind::Tri { mesh, t, rot, off },
        near: NearCache::Shared(cache, mesh.tri[t]),
    }
}

/// Mesh (geom 1, placed by `s1`) against mesh (geom 2, placed by `s2`): the two triangle trees
/// descended together (nodes and triangles the other mesh's field puts farther than the margin
/// from its surface skipped), triangle pairs that meet or lie within the margin tested both
/// ways (each one's vertices against the other's triangle) and edge against edge, then each
/// mesh's vertices inside the other (`deep_vertices`). Normals from mesh 1 to mesh 2, at most
/// [`MAX_MESH_CONTACTS`] contacts.
#[allow(clippy::too_many_arguments)]
pub fn mesh_mesh(
    s1: &Shape,
    m1: &TriMesh,
    s2: &Shape,
    m2: &TriMesh,
    margin: f64,
    scratch: &mut MeshScratch,
    out: &mut [PreContact],
) -> usize {
    // mesh 2's frame in mesh 1's: p1 = rot p2 + off
    let rot = s1.mat.transpose() * s2.mat;
    let off = s1.mat.transpose() * (s2.pos - s1.pos);
    let (irot, ioff) = (rot.transpose(), -(rot.transpose() * off));
    let grow = margin.max(0.0);
    scratch.cand.clear();
    for (cache, n) in [
        (&mut scratch.near12, m2.vert.len()),
        (&mut scratch.near21, m1.vert.len()),
    ] {
        cache.clear();
        cache.resize(n, Cell::new(None));
    }
    let reach = margin.max(0.0);
    // the root boxes turned into each other's frame overlap (else no feature pair is near and
    // no vertex is inside)
    let roots_overlap = turned_meets(&m2.nodes[0], &m1.nodes[0], (rot, off), grow)
        && turned_meets(&m1.nodes[0], &m2.nodes[0], (irot, ioff), grow);
    if roots_overlap {
        for (verts, mesh, (rot, off)) in [
            (&mut scratch.vert1, m1, (irot, ioff)),
            (&mut scratch.vert2, m2, (rot, off)),
        ] {
            verts.clear();
            verts.extend(mesh.vert.iter().map(|&v| rot * v + off));
        }
    }
    // the placed-box memos are kept between calls, their entries valid for one call number
    scratch.call = scratch.call.wrapping_add(1);
    if scratch.call == 0 {
        scratch.node_box1.clear();
        scratch.node_box2.clear();
        scratch.call = 1;
    }
    for (boxes, n) in [
        (&mut scratch.node_box1, m1.nodes.len()),
        (&mut scratch.node_box2, m2.nodes.len()),
    ] {
        if boxes.len() < n {
            boxes.resize(n, PlacedBox::default());
        }
    }
    scratch.tri2_slot.clear();
    scratch.tri2_slot.resize(m2.tri.len(), 0);
    scratch.tri2.clear();
    let idle = IdleBounds::new(margin, off, coord_scale(m1), coord_scale(m2));
    let mut descent = Descent {
        s1: Side {
            mesh: m1,
            place: (irot, ioff),
            verts: &scratch.vert1,
            boxes: &mut scratch.node_box1,
            grow: grow + idle.box_slack,
        },
        s2: Side {
            mesh: m2,
            place: (rot, off),
            verts: &scratch.vert2,
            boxes: &mut scratch.node_box2,
            grow,
        },
        reach,
        slack: idle.box_slack,
        call: scratch.call,
        idle,
    };
    let mut tris = TriPairs {
        tri2: &mut scratch.tri2,
        tri2_slot: &mut scratch.tri2_slot,
        cand: &mut scratch.cand,
        stack: &mut scratch.stack,
        near: (&scratch.near12, &scratch.near21),
        margin,
    };
    let stack = &mut scratch.pair_stack;
    stack.clear();
    // pairs on the stack have passed every test: boxes overlapping, both nodes near the other
    // mesh's surface
    if roots_overlap
        && descent.boxes_meet(0, 0)
        && descent.s1.near(0, m2, reach)
        && descent.s2.near(0, m1, reach)
    {
        stack.push((0, 0));
    }
    while let Some((i, j)) = stack.pop() {
        let (a, b) = (&m1.nodes[i as usize], &m2.nodes[j as usize]);
        // descend the larger box (ties: mesh 1); the children are tested here and those that
        // pass pushed in reverse, so that the first child's pairs are visited first
        let split1 = match (a.count > 0, b.count > 0) {
            (true, true) => {
                descent.leaf_pair(i, j, &mut tris);
                continue;
            }
            (false, true) => true,
            (true, false) => false,
            (false, false) => a.size2 >= b.size2,
        };
        if split1 {
            let (c, pb) = (a.first, descent.s2.boxes[j as usize]);
            let first = descent.child1(c, j, &pb);
            if descent.child1(c + 1, j, &pb) {
                stack.push((c + 1, j));
            }
            if first {
                stack.push((c, j));
            }
        } else {
            let (c, pa) = (b.first, descent.s1.boxes[i as usize]);
            let first = descent.child2(i, c, &pa);
            if descent.child2(i, c + 1, &pa) {
                stack.push((i, c + 1));
            }
            if first {
                stack.push((i, c));
            }
        }
    }
    scratch.deferred.clear();
    if roots_overlap {
        deep_vertices(
            m1,
            m2,
            (rot, off, &scratch.vert2),
            &scratch.near12,
            margin,
            &mut scratch.cand,
            &mut scratch.stack,
            (&mut scratch.deferred, false, (DMat3::IDENTITY, DVec3::ZERO)),
        );
        let start = scratch.cand.len();
        deep_vertices(
            m2,
            m1,
            (irot, ioff, &scratch.vert1),
            &scratch.near21,
            margin,
            &mut scratch.cand,
            &mut scratch.stack,
            (&mut scratch.deferred, true, (rot, off)),
        );
        for c in &mut scratch.cand[start..] {
            c.pos = rot * c.pos + off;
            c.normal = -(rot * c.normal);
        }
    }
    if scratch.cand.is_empty() && scratch.deferred.is_empty() && roots_overlap {
        // no surface features near each other: one mesh may lie wholly inside the other
        let stack = &mut scratch.stack;
        let a = contained(m1, m2, (rot, off), stack);
        let b = contained(m2, m1, (irot, ioff), stack).map(|c| Cand {
            dist: c.dist,
            pos: rot * c.pos + off,
            normal: -(rot * c.normal),
        });
        let deeper = match (a, b) {
            (Some(a), Some(b)) => Some(if b.dist < a.dist { b } else { a }),
            (a, b) => a.or(b),
        };
        scratch.cand.extend(deeper);
    }
    // a deferred vertex refined: its candidate in mesh 1's frame
    let refine = |d: &Deferred, stack: &mut Vec<u32>| {
        let outer = if d.in_second { m2 } else { m1 };
        let near = outer.nearest_below(d.p, d.far * d.far, stack);
        if !(near.4 || d.sure) {
            return None;
        }
        let c = inside_cand(outer, d.p, near, 0.0, margin)?;
        Some(if d.in_second {
            Cand {
                dist: c.dist,
                pos: rot * c.pos + off,
                normal: -(rot * c.normal),
            }
        } else {
            c
        })
    };
    reduce_refining(scratch, s1.pos, &s1.mat, false, out, refine)
}

/// The descent of [`mesh_mesh`] over node pairs: each mesh placed in the other's frame
/// (`s1`: mesh 1 in mesh 2's, `s2` the converse), the margin, the slack of turned boxes
/// ([`IdleBounds::box_slack`]) and the number of the call (see [`MeshScratch`]).
struct Descent<'a> {
    s1: Side<'a>,
    s2: Side<'a>,
    reach: f64,
    slack: f64,
    call: u32,
    idle: IdleBounds,
}

/// A mesh of [`Descent`] placed in the other mesh's frame: the placement `(rot, off)`, its
/// vertices so placed, the per-call memos of its nodes' [`PlacedBox`]es, and what they grow
/// by (the margin; in mesh 2's frame, where no triangle test follows, plus
/// [`IdleBounds::box_slack`]).
struct Side<'a> {
    mesh: &'a TriMesh,
    place: (DMat3, DVec3),
    verts: &'a [DVec3],
    boxes: &'a mut [PlacedBox],
    grow: f64,
}

/// A node's box placed in the other mesh's frame, grown (see [`Side`]): for a leaf, the box
/// around its triangles' placed corners; for an inner node, its own box turned (the box around
/// it there) and widened by a slack for the rounding of both; and whether the node may come
/// near the other mesh's surface ([`Side::near`]: 0 not yet known, 1 near, 2 far). A memo
/// entry, valid in the call numbered `call`.
#[derive(Clone, Copy, Debug, Default)]
struct PlacedBox {
    lo: DVec3,
    hi: DVec3,
    call: u32,
    near: u8,
}

impl Side<'_> {
    /// Node `k`'s [`PlacedBox`] in call `call` (`slack` widens an inner node's).
    #[inline(always)]
    fn placed(&mut self, k: u32, slack: f64, call: u32) -> &mut PlacedBox {
        let e = &mut self.boxes[k as usize];
        if e.call != call {
            let n = &self.mesh.nodes[k as usize];
            let grow = DVec3::splat(self.grow);
            let (lo, hi) = if n.count > 0 {
                let m = self.mesh;
                let (s, e) = (
                    m.leaf_vert_start[k as usize],
                    m.leaf_vert_start[k as usize + 1],
                );
                let (mut lo, mut hi) = (DVec3::INFINITY, DVec3::NEG_INFINITY);
                for &v in &m.leaf_vert[s as usize..e as usize] {
                    let p = self.verts[v as usize];
                    (lo, hi) = (lower(lo, p), upper(hi, p));
                }
                (lo, hi)
            } else {
                let h = turned_half(n, self.place.0) + slack;
                let c = self.place.0 * ((n.lo + n.hi) * 0.5) + self.place.1;
                (c - h, c + h)
            };
            *e = PlacedBox {
                lo: lo - grow,
                hi: hi + grow,
                call,
                near: 0,
            };
        }
        e
    }

    /// Whether node `k` may come within `reach` of `other`'s surface by its field
    /// ([`ball_far`]): a node wholly farther, outside it or deep inside where `deep_vertices`
    /// finds its vertices, meets no feature of it. Memoised in its [`PlacedBox`], which must be
    /// current. Leaves pass untested.
    #[inline(always)]
    fn near(&mut self, k: u32, other: &TriMesh, reach: f64) -> bool {
        let n = &self.mesh.nodes[k as usize];
        // a leaf is not tested: its triangle pairs are cheaper to reject than the field's bound
        // at its size is to read (measured)
        if n.count > 0 {
            return true;
        }
        let e = &mut self.boxes[k as usize];
        if e.near == 0 {
            let c = self.place.0 * ((n.lo + n.hi) * 0.5) + self.place.1;
            e.near = if ball_far(other, (c, hb_len(n)), reach) {
                2
            } else {
                1
            };
        }
        e.near == 1
    }
}

/// Half the extent of node `n`'s box turned by `rot` (the half extent of the box around it).
#[inline(always)]
fn turned_half(n: &Node, rot: DMat3) -> DVec3 {
    let arot = DMat3::from_cols(rot.x_axis.abs(), rot.y_axis.abs(), rot.z_axis.abs());
    arot * ((n.hi - n.lo) * 0.5)
}

/// Whether node `n`'s box turned by `(rot, off)` into another frame (the box around it there)
/// overlaps node `o`'s box of that frame, grown by `grow`.
fn turned_meets(n: &Node, o: &Node, (rot, off): (DMat3, DVec3), grow: f64) -> bool {
    let (c, h) = (
        rot * ((n.lo + n.hi) * 0.5) + off,
        turned_half(n, rot) + grow,
    );
    !((c - h).cmpgt(o.hi).any() || (c + h).cmplt(o.lo).any())
}

/// The element-wise minimum of `a` and `b` (finite: plain comparisons).
#[inline(always)]
fn lower(a: DVec3, b: DVec3) -> DVec3 {
    let m = |a: f64, b: f64| if b < a { b } else { a };
    DVec3::new(m(a.x, b.x), m(a.y, b.y), m(a.z, b.z))
}

/// The element-wise maximum of `a` and `b` (finite: plain comparisons).
#[inline(always)]
fn upper(a: DVec3, b: DVec3) -> DVec3 {
    let m = |a: f64, b: f64| if b > a { b } else { a };
    DVec3::new(m(a.x, b.x), m(a.y, b.y), m(a.z, b.z))
}

/// Whether node `k` of a mesh (`own`) passes against node `j` of the other mesh (`other`:
/// that mesh, `j`, its box placed in the first mesh's frame): boxes overlapping each way,
/// node `k` near the other mesh's surface ([`Side::near`]).
#[inline(always)]
fn child_meets(
    own: &mut Side,
    k: u32,
    (other, j, p_other): (&TriMesh, u32, &PlacedBox),
    (reach, slack, call): (f64, f64, u32),
) -> bool {
    let (a, b) = (&own.mesh.nodes[k as usize], &other.nodes[j as usize]);
    box_meets(a, p_other) && box_meets(b, own.placed(k, slack, call)) && own.near(k, other, reach)
}

/// Whether box `n` (own frame) overlaps a placed box (grown). (The box of a placed triangle of
/// a leaf, grown alike, lies in the leaf's placed box: the triangle tests of
/// [`Descent::leaf_pair`] pass only within those of the descent.)
#[inline(always)]
fn box_meets(n: &Node, p: &PlacedBox) -> bool {
    boxes_overlap((n.lo, n.hi), (p.lo, p.hi))
}

/// Whether boxes `a` and `b` (each lower and upper corner) overlap, closed; branch-free (the
/// outcome of the box tests is hard to predict).
#[inline(always)]
fn boxes_overlap(a: (DVec3, DVec3), b: (DVec3, DVec3)) -> bool {
    (a.0.cmpgt(b.1) | a.1.cmplt(b.0)).bitmask() == 0
}

/// A triangle of mesh 2 placed in mesh 1's frame for the leaf pairs of one call: its index,
/// box (grown by the margin), and separating-axis data.
#[derive(Clone, Copy, Debug)]
struct PlacedTri {
    t: u32,
    lo: DVec3,
    hi: DVec3,
    sat: SatTri,
}

/// What the triangle pairs of a leaf pair write to, borrowed from [`MeshScratch`].
struct TriPairs<'a> {
    tri2: &'a mut Vec<PlacedTri>,
    tri2_slot: &'a mut [u32],
    cand: &'a mut Vec<Cand>,
    stack: &'a mut Vec<u32>,
    near: (&'a [NearCell], &'a [NearCell]),
    margin: f64,
}

impl Descent<'_> {
    /// Whether node `i` of mesh 1 and node `j` of mesh 2 overlap, grown by the margin, each
    /// box placed in the other's frame (long boxes at an angle are separated along one of the
    /// two boxes' axes more often than along one's alone).
    #[inline]
    fn boxes_meet(&mut self, i: u32, j: u32) -> bool {
        let (a, b) = (
            &self.s1.mesh.nodes[i as usize],
            &self.s2.mesh.nodes[j as usize],
        );
        box_meets(a, self.s2.placed(j, self.slack, self.call))
            && box_meets(b, self.s1.placed(i, self.slack, self.call))
    }

    /// Whether node `k` of mesh 1, a child of a node that passed against node `j` of mesh 2
    /// (placed as `pb`), passes: boxes overlapping ([`Descent::boxes_meet`]) and the child near
    /// mesh 2's surface ([`Side::near`]).
    #[inline(always)]
    fn child1(&mut self, k: u32, j: u32, pb: &PlacedBox) -> bool {
        let other = (self.s2.mesh, j, pb);
        let memo = (self.reach, self.slack, self.call);
        child_meets(&mut self.s1, k, other, memo)
    }

    /// [`Descent::child1`] for child `k` of mesh 2 against node `i` of mesh 1 (placed as `pa`).
    #[inline(always)]
    fn child2(&mut self, i: u32, k: u32, pa: &PlacedBox) -> bool {
        let other = (self.s1.mesh, i, pa);
        let memo = (self.reach, self.slack, self.call);
        child_meets(&mut self.s2, k, other, memo)
    }
    /// The triangle pairs of leaf `i` of mesh 1 and leaf `j` of mesh 2 (a pair that passed the
    /// node tests): pairs whose boxes overlap (grown by the margin) that meet or lie within the
    /// margin ([`triangles_apart`]) go to [`triangle_pair`], in leaf order. (Triangles are not
    /// tested against the other mesh's field one by one: a pair that meets has both triangles
    /// within the margin of the other surface anyway, and the test cost more than it saved.)
    fn leaf_pair(&mut self, i: u32, j: u32, tp: &mut TriPairs) {
        let (m1, m2) = (self.s1.mesh, self.s2.mesh);
        let (a, b) = (&m1.nodes[i as usize], &m2.nodes[j as usize]);
        let ((rot, off), (irot, ioff)) = (self.s2.place, self.s1.place);
        let PlacedBox {
            lo: blo, hi: bhi, ..
        } = self.s2.boxes[j as usize];
        let grow = DVec3::splat(self.s2.grow);
        // a pair's boxes overlap (mesh 2's grown by the margin) only if each triangle's box
        // overlaps the other leaf's box: mesh 2's triangles filtered once, in leaf order
        let mut leaf2 = [0u32; LEAF_SIZE];
        let mut n_leaf2 = 0;
        let sb = b.first as usize;
        for &t2 in &m2.order[sb..sb + b.count as usize] {
            let slot = &mut tp.tri2_slot[t2 as usize];
            if *slot == 0 {
                let c = m2.tri[t2 as usize].map(|v| self.s2.verts[v as usize]);
                tp.tri2.push(PlacedTri {
                    t: t2,
                    lo: lower(lower(c[0], c[1]), c[2]) - grow,
                    hi: upper(upper(c[0], c[1]), c[2]) + grow,
                    sat: SatTri::new(c, rot * m2.normal[t2 as usize]),
                });
                *slot = tp.tri2.len() as u32;
            }
            let k = *slot - 1;
            let p = &tp.tri2[k as usize];
            if boxes_overlap((p.lo, p.hi), (a.lo, a.hi)) {
                leaf2[n_leaf2] = k;
                n_leaf2 += 1;
            }
        }
        if n_leaf2 == 0 {
            return;
        }
        let sa = a.first as usize;
        for &t1 in &m1.order[sa..sa + a.count as usize] {
            let (lo1, hi1) = (m1.tri_lo[t1 as usize], m1.tri_hi[t1 as usize]);
            if !boxes_overlap((blo, bhi), (lo1, hi1)) {
                continue;
            }
            let c1 = m1.corners(t1 as usize);
            let sat1 = SatTri {
                c: c1,
                n: m1.normal[t1 as usize],
                l2: m1.longest_edge2[t1 as usize],
            };
            let mut edges1 = None;
            for &k in &leaf2[..n_leaf2] {
                let p = &tp.tri2[k as usize];
                // the triangles' boxes apart by more than the margin
                if !boxes_overlap((p.lo, p.hi), (lo1, hi1)) {
                    continue;
                }
                let t2 = p.t as usize;
                // the triangles must meet or lie within the margin: a triangle wholly beyond or
                // behind the other gives no near feature pair, and its vertices deep inside the
                // other mesh are found by `deep_vertices`
                let Some((sa, sb)) = planes_apart(&sat1, &p.sat, self.reach) else {
                    continue;
                };
                // an edge pair's normal lies in both edges' cones, near each face's normal
                let edges = !cones_apart(&m1.bend[t1 as usize], &m2.bend[t2], &sat1, &p.sat);
                // the vertex tests of each way, unless the corners' distances from the other
                // plane show that none can fire
                let idle = || {
                    (
                        self.idle.none_fire(m1.closed, sb),
                        self.idle.none_fire(m2.closed, sa),
                    )
                };
                // a pair with nothing to test is not tested for meeting
                if !edges && idle() == (true, true) {
                    continue;
                }
                if crossings_apart(&sat1, &p.sat, self.reach, sa, sb) {
                    continue;
                }
                let idle = idle();
                triangle_pair(
                    m1,
                    t1 as usize,
                    m2,
                    t2,
                    (rot, off),
                    (irot, ioff),
                    tp.margin,
                    (edges, idle),
                    (&mut edges1, &p.sat.c),
                    tp.cand,
                    tp.stack,
                    tp.near,
                );
            }
        }
    }
}

/// Half the diagonal of a node's box (the radius of a ball around its centre holding it).
fn hb_len(n: &Node) -> f64 {
    n.size2.sqrt() * 0.5
}

/// Whether ball `(c, r)` (`other`'s frame) lies farther than `reach` from `other`'s surface by
/// its field.
#[inline]
fn ball_far(other: &TriMesh, (c, r): (DVec3, f64), reach: f64) -> bool {
    other.sdf.distance_lower_bound(c) - r > reach
}

/// Whether `inner` (its frame mapped into `outer`'s by `(rot, off)`) lies inside `outer` when
/// their surfaces do not meet: any vertex of `inner` surely outside `outer`'s field settles
/// it, else the deepest vertex is refined ([`deepest_inside`]). Candidate in `outer`'s frame.
fn contained(
    outer: &TriMesh,
    inner: &TriMesh,
    (rot, off): (DMat3, DVec3),
    stack: &mut Vec<u32>,
) -> Option<Cand> {
    // surfaces apart, so all of `inner` is in or all out: any vertex surely outside settles it
    let used = inner.vnormal.iter().zip(&inner.vert);
    let mut points = used
        .filter(|(n, _)| **n != DVec3::ZERO)
        .map(|(_, &v)| rot * v + off);
    if points
        .clone()
        .any(|p| outer.sdf.classify(p, 0.0) == Some(false))
    {
        return None;
    }
    deepest_inside(outer, &mut points, 0.0, stack)
}

/// A triangle as [`triangles_apart`] sees it: corners, unit normal, and the squared length of
/// its longest edge (the scale of its rounding), in one frame.
#[derive(Clone, Copy, Debug)]
struct SatTri {
    c: [DVec3; 3],
    n: DVec3,
    l2: f64,
}

impl SatTri {
    fn new(c: [DVec3; 3], n: DVec3) -> SatTri {
        SatTri {
            c,
            n,
            l2: trimesh::longest_edge2(&c),
        }
    }
}

/// Whether triangles `ta` and `tb` are farther apart than `reach` along one of the separating
/// axes of two triangles (the two normals and the nine edge cross products); at `reach <= 0`,
/// after the two normals, by the overlap of their crossings with each other's plane
/// ([`crossing_intervals_apart`]), which decides the same in a few dozen operations.
/// Conservative: triangles within `reach` of each other are never apart.
#[cfg(test)]
fn triangles_apart(ta: &SatTri, tb: &SatTri, reach: f64) -> bool {
    match planes_apart(ta, tb, reach) {
        None => true,
        Some((sa, sb)) => crossings_apart(ta, tb, reach, sa, sb),
    }
}

/// The first tests of [`triangles_apart`], along the two normals: `None` when one triangle
/// lies wholly beyond the other's plane, else the signed distances of `ta`'s corners from
/// `tb`'s plane and of `tb`'s corners from `ta`'s plane (as [`triangle_core`] computes them
/// for the corners of the placed triangle against the triangle of its own frame).
#[inline(always)]
fn planes_apart(ta: &SatTri, tb: &SatTri, reach: f64) -> Option<([f64; 3], [f64; 3])> {
    let (a, b) = (&ta.c, &tb.c);
    // signed distances of `t`'s corners from the plane through `o` with normal `n`
    let dists = |n: DVec3, o: DVec3, t: &[DVec3; 3]| {
        [(t[0] - o).dot(n), (t[1] - o).dot(n), (t[2] - o).dot(n)]
    };
    // wholly more than `reach` to one side (branch-free: hard to predict)
    let beyond = |[s0, s1, s2]: [f64; 3]| {
        (s0 > reach) & (s1 > reach) & (s2 > reach) | (s0 < -reach) & (s1 < -reach) & (s2 < -reach)
    };
    let sa = dists(tb.n, b[0], a);
    if beyond(sa) {
        return None;
    }
    let sb = dists(ta.n, a[0], b);
    if beyond(sb) {
        return None;
    }
    Some((sa, sb))
}

/// The rest of [`triangles_apart`] for triangles not apart along their normals (`sa`, `sb`
/// from [`planes_apart`]).
#[inline(always)]
fn crossings_apart(ta: &SatTri, tb: &SatTri, reach: f64, sa: [f64; 3], sb: [f64; 3]) -> bool {
    if reach <= 0.0 {
        if let Some(apart) = crossing_intervals_apart(ta, tb, sa, sb) {
            return apart;
        }
    }
    edge_axes_apart(&ta.c, &tb.c, reach)
}

/// Whether triangles `a` and `b` are farther apart than `reach` along one of the nine cross
/// products of their edges.
fn edge_axes_apart(a: &[DVec3; 3], b: &[DVec3; 3], reach: f64) -> bool {
    for i in 0..3 {
        let ea = a[(i + 1) % 3] - a[i];
        for j in 0..3 {
            let axis = ea.cross(b[(j + 1) % 3] - b[j]);
            let l2 = axis.length_squared();
            if l2 <= 1e-24 {
                continue;
            }
            let (pa0, pa1, pa2) = (axis.dot(a[0]), axis.dot(a[1]), axis.dot(a[2]));
            let (pb0, pb1, pb2) = (axis.dot(b[0]), axis.dot(b[1]), axis.dot(b[2]));
            let r = reach * l2.sqrt();
            if pb0.min(pb1).min(pb2) - pa0.max(pa1).max(pa2) > r
                || pa0.min(pa1).min(pa2) - pb0.max(pb1).max(pb2) > r
            {
                return true;
            }
        }
    }
    false
}

/// For triangles `ta` and `tb` that each reach the other's plane (`sa`: `ta`'s corners' signed
/// distances from `tb`'s plane, `sb` the converse), whether they are apart: each meets the
/// other's plane in a segment of the planes' common line (direction `na × nb`), and the
/// triangles meet exactly when the two segments overlap (the interval test of Möller's
/// triangle–triangle intersection). Overlaps within rounding count as meeting. `None` when the
/// planes are too close to parallel for the line to be well defined (the caller tests
/// separating axes).
fn crossing_intervals_apart(ta: &SatTri, tb: &SatTri, sa: [f64; 3], sb: [f64; 3]) -> Option<bool> {
    let (a, b, dir) = (&ta.c, &tb.c, ta.n.cross(tb.n));
    let (la2, lb2) = (ta.l2, tb.l2);
    // |dir| = sin of the planes' angle; below ~1e-6 the crossing points are ill-conditioned
    if dir.length_squared() <= 1e-12 || la2 == 0.0 || lb2 == 0.0 {
        return None;
    }
    let (alo, ahi) = crossing_interval(dir, a, sa);
    let (blo, bhi) = crossing_interval(dir, b, sb);
    if alo > ahi || blo > bhi {
        return None;
    }
    // rounding of the crossing points: relative to the positions on the line
    let tol = 1e-9 * dir.length() * (la2.max(lb2).sqrt() + alo.abs().max(blo.abs()) / dir.length());
    Some(blo - ahi > tol || alo - bhi > tol)
}

/// Whether no edge of triangle `a` and edge of triangle `b` (normals in one frame, each
/// triangle's [`Bend`]) can give an edge–edge candidate: its normal `u` must lie in an edge
/// cone of `a` (within `bend_a.angle` of `a`'s normal) and `-u` in one of `b` (within
/// `bend_b.angle` of `b`'s normal), so `a`'s normal and the reverse of `b`'s are no more than
/// the two angles apart.
#[inline]
fn cones_apart(bend_a: &Bend, bend_b: &Bend, a: &SatTri, b: &SatTri) -> bool {
    // (branch-free: hard to predict)
    (bend_a.angle + bend_b.angle < std::f64::consts::PI)
        & (-a.n.dot(b.n) < bend_a.cos * bend_b.cos - bend_a.sin * bend_b.sin)
}

/// The segment in which triangle `t` (its corners' signed distances `s` from a plane) meets
/// that plane, as positions along `dir` (a direction in the plane); empty (`lo > hi`) when it
/// does not reach it.
#[inline(always)]
fn crossing_interval(dir: DVec3, t: &[DVec3; 3], s: [f64; 3]) -> (f64, f64) {
    let p = [dir.dot(t[0]), dir.dot(t[1]), dir.dot(t[2])];
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    // (finite positions: plain comparisons)
    let mut take = |x: f64| {
        if x < lo {
            lo = x;
        }
        if x > hi {
            hi = x;
        }
    };
    for i in 0..3 {
        let j = (i + 1) % 3;
        if s[i] == 0.0 {
            take(p[i]);
        }
        if (s[i] < 0.0) & (s[j] > 0.0) | (s[i] > 0.0) & (s[j] < 0.0) {
            take(p[i] + (p[j] - p[i]) * (s[i] / (s[i] - s[j])));
        }
    }
    (lo, hi)
}

/// Candidates of triangle `t1` of `m1` against triangle `t2` of `m2` (triangles that meet or
/// lie within the margin), in mesh 1's frame; `fwd` maps mesh 2's frame into mesh 1's and `inv`
/// back; `edges` adds the edge–edge pairs; `idle2` (`idle1`) skips the tests of mesh 2's (1's)
/// vertices, which give nothing ([`IdleBounds`]).
#[allow(clippy::too_many_arguments)]
fn triangle_pair(
    m1: &TriMesh,
    t1: usize,
    m2: &TriMesh,
    t2: usize,
    fwd: (DMat3, DVec3),
    inv: (DMat3, DVec3),
    margin: f64,
    (edges, (idle2, idle1)): (bool, (bool, bool)),
    (edges1, c2): (&mut Option<TriEdges>, &[DVec3; 3]),
    cand: &mut Vec<Cand>,
    stack: &mut Vec<u32>,
    (near12, near21): (&[NearCell], &[NearCell]),
) {
    // mesh 2's vertices against mesh 1's triangle, and the edge pairs
    if !idle2 {
        let core2 = triangle_as_core(m2, t2, fwd.0, fwd.1, fwd.1, near12);
        triangle_core(m1, t1, &core2, margin, edges, cand, stack);
    } else if edges {
        // the vertex tests would give nothing: the edge pairs alone, mesh 1's edges set up
        // once per triangle
        let ea = edges1.get_or_insert_with(|| TriEdges::new(m1, t1));
        tri_edge_pairs(m1, ea, (m2, t2, c2), fwd, margin, cand, stack);
    }
    // mesh 1's vertices against mesh 2's triangle (in mesh 2's frame), mapped back and flipped
    if idle1 {
        return;
    }
    let core1 = triangle_as_core(m1, t1, inv.0, inv.1, inv.1, near21);
    let start = cand.len();
    triangle_core(m2, t2, &core1, margin, false, cand, stack);
    for c in &mut cand[start..] {
        c.pos = fwd.0 * c.pos + fwd.1;
        c.normal = -(fwd.0 * c.normal);
    }
}

/// The edges of a triangle as [`edge_pairs`] sees them (its own frame): segments, their
/// lengths, the directions that orient an edge pair's cross product, and the normal cones.
struct TriEdges {
    seg: [Segment; 3],
    len: [f64; 3],
    hint: [DVec3; 3],
    cone: [EdgeCone; 3],
}

impl TriEdges {
    /// The edges of triangle `t` of `mesh`.
    fn new(mesh: &TriMesh, t: usize) -> TriEdges {
        let c = mesh.corners(t);
        let n = mesh.normal[t];
        let seg = [0, 1, 2].map(|k| Segment::new(c[k], c[(k + 1) % 3]));
        TriEdges {
            seg,
            len: seg.map(|s| s.l2.sqrt()),
            hint: [0, 1, 2].map(|k| match mesh.neighbour[t][k] {
                Some(n2) if (n + n2).length_squared() > 1e-12 => n + n2,
                _ => seg[k].d.cross(n) + n * 1e-3,
            }),
            cone: [0, 1, 2].map(|k| mesh.edge_cone_of(t, k)),
        }
    }
}

/// [`edge_pairs`] of a triangle of `m1` (its edges `ea`) against the core of triangle `t2`
/// of `m2` (corners `c2`, placed in `m1`'s frame by `fwd`), without building the core: the
/// same tests in the same order, with the same arithmetic.
#[allow(clippy::too_many_arguments)]
fn tri_edge_pairs(
    m1: &TriMesh,
    ea: &TriEdges,
    (m2, t2, c2): (&TriMesh, usize, &[DVec3; 3]),
    (rot, off): (DMat3, DVec3),
    margin: f64,
    out: &mut Vec<Cand>,
    stack: &mut Vec<u32>,
) {
    let r = 0.0;
    let seg_b = [0, 1, 2].map(|j| Segment::new(c2[j], c2[(j + 1) % 3]));
    let len_b = seg_b.map(|s| s.l2.sqrt());
    for k in 0..3 {
        let (seg_a, cone) = (&ea.seg[k], &ea.cone[k]);
        for j in 0..3 {
            let Some(u) = cross_normal_len(seg_a, ea.len[k], &seg_b[j], len_b[j], ea.hint[k])
            else {
                continue;
            };
            let Some(normal) = cone.admit(u) else {
                continue;
            };
            if m2.edge_cone(t2, j, rot.transpose() * -normal).is_none() {
                continue;
            }
            let Some((pa, pb, ..)) = closest_on_segments(seg_a, &seg_b[j], true) else {
                continue;
            };
            let d = pb - pa;
            let (dist, l) = (d.dot(u) - r, d.length());
            if dist > margin {
                continue;
            }
            if dist < 0.0 && r == 0.0 {
                let tol = 1e-9 * (1.0 + pa.length().max(pb.length())) + GRAZE * l;
                if !m2.inside_or_near(rot.transpose() * (pa - off), tol, stack)
                    || !m1.inside_or_near(pb, tol, stack)
                {
                    continue;
                }
            }
            let on_core = pb - normal * r;
            out.push(Cand {
                dist,
                pos: (pa + on_core) * 0.5,
                normal,
            });
        }
    }
}

/// When the vertex tests of a triangle pair give [`triangle_core`] nothing to do, decided from
/// the corners' signed distances from the other triangle's plane (computed by
/// [`planes_apart`] anyway): against a closed mesh at zero margin, every corner behind the
/// plane (left to `deep_vertices`) or in front beyond the reach by `triangle_core`'s own
/// test (`1e-9 (1 + |p - a|∞)`, here with a bound of `|p - a|∞` over the whole call).
#[derive(Clone, Copy, Debug)]
struct IdleBounds {
    /// Whether the margin is not positive (else the vertex tests always run).
    zero_margin: bool,
    /// A bound of the rounding between distances computed in one frame and the other (those
    /// of mesh 1's corners from mesh 2's triangle are computed in mesh 1's frame, while
    /// `triangle_core` tests them in mesh 2's).
    slack: f64,
    /// `triangle_core`'s reach in front of the plane with `|p - a|∞` bounded over the call, in
    /// either frame, plus `slack`.
    front: f64,
    /// What boxes placed in mesh 2's frame grow by beyond the margin: more than the rounding
    /// of placed coordinates and the tolerances by which the triangle tests take triangles
    /// apart by less for meeting.
    box_slack: f64,
}

/// The largest coordinate magnitude of `mesh`'s box (its frame).
fn coord_scale(mesh: &TriMesh) -> f64 {
    let root = &mesh.nodes[0];
    root.lo.abs().max(root.hi.abs()).max_element()
}

impl IdleBounds {
    /// Bounds of a call: the margin and the placement (`off`) and boxes (`r1`, `r2`: largest
    /// coordinate magnitudes) of the two meshes.
    fn new(margin: f64, off: DVec3, r1: f64, r2: f64) -> IdleBounds {
        let scale = off.abs().max_element() + r1 + r2;
        let slack = 1e-12 * (1.0 + scale);
        IdleBounds {
            zero_margin: margin <= 0.0,
            slack,
            // a vertex and a corner of the other mesh, in either frame, are no farther apart
            // in any coordinate than 2 (|off|∞ + r1 + r2) (a rotation makes a coordinate at
            // most √3 times the largest)
            front: 1e-9 * (1.0 + 2.0 * scale) + slack,
            box_slack: 1e-8 * (1.0 + scale),
        }
    }

    /// Whether no vertex test of the corners at signed distances `s` from the plane of a
    /// triangle of a mesh (closed: `closed`) fires.
    #[inline(always)]
    fn none_fire(&self, closed: bool, s: [f64; 3]) -> bool {
        // (branch-free: hard to predict)
        let idle = |s: f64| (s < -self.slack) | (s > self.front);
        closed & self.zero_margin & idle(s[0]) & idle(s[1]) & idle(s[2])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tri(v: [f64; 9]) -> [DVec3; 3] {
        [
            DVec3::new(v[0], v[1], v[2]),
            DVec3::new(v[3], v[4], v[5]),
            DVec3::new(v[6], v[7], v[8]),
        ]
    }

    fn normal(t: &[DVec3; 3]) -> DVec3 {
        (t[1] - t[0]).cross(t[2] - t[0]).normalize()
    }

    /// The interval test decides touching triangles as the eleven separating axes do: never
    /// apart when they meet, apart when an axis separates them by more than rounding.
    #[test]
    fn crossing_intervals_agree_with_separating_axes() {
        // a deterministic spread of triangle pairs, many of them crossing (xorshift64*)
        let mut x = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = move || {
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
            (x.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        };
        let (mut met, mut apart) = (0, 0);
        for _ in 0..20_000 {
            let a = tri(std::array::from_fn(|_| next()));
            let b = tri(std::array::from_fn(|_| next() * 0.8 + 0.2));
            let (na, nb) = (normal(&a), normal(&b));
            if !na.is_finite() || !nb.is_finite() {
                continue;
            }
            let planes = |n: DVec3, o: DVec3, t: &[DVec3; 3]| {
                let s = t.map(|p| (p - o).dot(n));
                s.iter().all(|&v| v > 0.0) || s.iter().all(|&v| v < 0.0)
            };
            let sat = planes(na, a[0], &b) || planes(nb, b[0], &a) || edge_axes_apart(&a, &b, 0.0);
            let fast = triangles_apart(&SatTri::new(a, na), &SatTri::new(b, nb), 0.0);
            if !sat {
                assert!(!fast, "meeting triangles reported apart: {a:?} {b:?}");
                met += 1;
            } else if edge_axes_apart(&a, &b, 1e-6) || planes(na, a[0], &b) || planes(nb, b[0], &a)
            {
                assert!(fast, "separated triangles reported meeting: {a:?} {b:?}");
                apart += 1;
            }
        }
        assert!(met > 2_000 && apart > 2_000, "met {met}, apart {apart}");
    }

    /// Uniform numbers in [-1, 1) from a xorshift generator seeded with `x`.
    fn xorshift(mut x: u64) -> impl FnMut() -> f64 {
        move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        }
    }

    /// Skipping mesh edges beyond a box's reach changes no candidate: boxes of random size,
    /// pose and margin around a torus's triangles, with and without the skip, bit for bit.
    #[test]
    fn box_edge_pruning_keeps_every_candidate() {
        let mesh = torus(24, 12);
        let mut next = xorshift(0x51ed_2701_3c1b_9a4f);
        let mut stack = Vec::new();
        let (mut kept, mut pruned_calls) = (0, 0);
        for _ in 0..3_000 {
            let half = DVec3::new(next().abs(), next().abs(), next().abs()) * 0.4 + 0.01;
            // near the tube's surface, most boxes cut through it
            let a = next() * std::f64::consts::PI;
            let centre = DVec3::new(a.cos(), a.sin(), 0.0) * (1.0 + 0.35 * next())
                + DVec3::new(next(), next(), next()) * 0.2;
            let axis = DVec3::new(next(), next(), next()).normalize_or(DVec3::Z);
            let mat = DMat3::from_axis_angle(axis, 3.0 * next());
            let margin = if next() > 0.0 {
                0.05 * next().abs()
            } else {
                0.0
            };
            let core = primitive_core(GeomType::Box, centre, mat, half).unwrap();
            for t in 0..mesh.ntri() {
                let (mut with, mut without) = (Vec::new(), Vec::new());
                let local = box_local(&core, mesh.corners(t));
                assert!(local.is_some());
                edge_pairs(
                    &mesh,
                    t,
                    &core,
                    margin,
                    local.as_ref(),
                    &mut with,
                    &mut stack,
                );
                edge_pairs(&mesh, t, &core, margin, None, &mut without, &mut stack);
                assert_eq!(format!("{with:?}"), format!("{without:?}"), "triangle {t}");
                kept += with.len();
                pruned_calls += 1;
            }
        }
        assert!(kept > 500, "only {kept} candidates in {pruned_calls} calls");
    }

    /// A torus (major radius 1, tube 0.3) of `nu` by `nv` quads, two triangles each.
    fn torus(nu: usize, nv: usize) -> TriMesh {
        let tau = std::f64::consts::TAU;
        let mut vert = Vec::new();
        for i in 0..nu {
            let u = tau * i as f64 / nu as f64;
            for j in 0..nv {
                let v = tau * j as f64 / nv as f64;
                let r = 1.0 + 0.3 * v.cos();
                vert.push(DVec3::new(r * u.cos(), r * u.sin(), 0.3 * v.sin()));
            }
        }
        let id = |i: usize, j: usize| ((i % nu) * nv + j % nv) as u32;
        let mut face = Vec::new();
        for i in 0..nu {
            for j in 0..nv {
                let (a, b, c, d) = (id(i, j), id(i, j + 1), id(i + 1, j + 1), id(i + 1, j));
                face.extend([[a, d, c], [a, c, b]]);
            }
        }
        TriMesh::new("torus", &vert, &face).unwrap()
    }

    /// The tree search finds the nearest triangle a scan of all triangles finds (distance,
    /// point, inside), and a hint (the distance to any one triangle) changes nothing.
    #[test]
    fn nearest_agrees_with_a_scan_and_ignores_hints() {
        let mesh = torus(24, 12);
        let mut next = xorshift(0x2545_f491_4f6c_dd1d);
        let mut stack = Vec::new();
        let mut inside = 0;
        for k in 0..2_000 {
            let p = DVec3::new(next() * 1.6, next() * 1.6, next() * 0.6);
            let near = mesh.nearest(p, &mut stack);
            let (mut d2, mut q, mut t) = (f64::INFINITY, p, 0);
            for u in 0..mesh.ntri() {
                let [a, b, c] = mesh.corners(u);
                let (qu, _) = closest_on_triangle(p, a, b, c);
                if p.distance_squared(qu) < d2 {
                    (d2, q, t) = (p.distance_squared(qu), qu, u);
                }
            }
            assert!(
                (near.0 - d2.sqrt()).abs() < 1e-12,
                "{p}: {near:?} vs {d2} ({t})"
            );
            assert!(near.1.distance(q) < 1e-9, "{p}: {near:?} vs {q} ({t})");
            inside += usize::from(near.4);
            let [a, b, c] = mesh.corners(k % mesh.ntri());
            let hint2 = p.distance_squared(closest_on_triangle(p, a, b, c).0);
            let hinted = mesh.nearest_below(p, hint2, &mut stack);
            assert_eq!(
                (hinted.0.to_bits(), hinted.1, hinted.2, hinted.3, hinted.4),
                (near.0.to_bits(), near.1, near.2, near.3, near.4),
                "{p}"
            );
        }
        assert!(inside > 50 && inside < 1_950, "{inside} of 2000 inside");
    }

    /// Every direction across a mesh edge that its normal cone admits lies within the
    /// triangle's `bend` of its normal (convex and concave edges of a coarse and a fine torus,
    /// directions sampled around the edge and at the neighbour's normal).
    #[test]
    fn edge_cones_lie_within_the_bend() {
        let mut widest = 0.0_f64;
        for (nu, nv) in [(6, 4), (8, 5), (24, 12)] {
            let mesh = torus(nu, nv);
            for t in 0..mesh.ntri() {
                let (n1, bend) = (mesh.normal[t], mesh.bend[t]);
                for k in 0..3 {
                    let side = mesh.edge_dir[t][k].cross(n1);
                    let n2 = mesh.neighbour[t][k].unwrap();
                    let b = n2.dot(side).atan2(n2.dot(n1));
                    let samples = (0..720).map(|i| i as f64 * std::f64::consts::TAU / 720.0);
                    for a in samples.chain([b - 1e-9, b, b + 1e-9]) {
                        let u = n1 * a.cos() + side * a.sin();
                        if mesh.edge_cone(t, k, u).is_some() {
                            let angle = u.dot(n1).clamp(-1.0, 1.0).acos();
                            assert!(angle <= bend.angle, "{t} {k}: {angle} > {bend:?}");
                            widest = widest.max(angle);
                        }
                    }
                }
            }
        }
        assert!(widest > 0.5, "widest admitted angle {widest}");
    }

    /// Whenever an edge of one torus and an edge of another have a cross-product normal in the
    /// first edge's cone whose reverse lies in the second's, the triangle pair is not skipped by
    /// `cones_apart`; and it does skip many pairs (coarse and fine tori, random placements).
    #[test]
    fn cones_apart_never_skips_an_admitted_edge_pair() {
        let mut next = xorshift(0x5851_f42d_4c95_7f2d);
        let (mut admitted, mut skipped, mut tested) = (0, 0, 0);
        for (nu, nv) in [(8, 5), (24, 12)] {
            let a = torus(nu, nv);
            for _ in 0..20 {
                let axis = DVec3::new(next(), next(), next()).normalize();
                let rot = DMat3::from_axis_angle(axis, next() * 3.0);
                let off = DVec3::new(next(), next(), next()) * 0.5;
                let vert: Vec<DVec3> = a.vert.iter().map(|&v| rot * v + off).collect();
                let b = TriMesh::new("b", &vert, &a.tri).unwrap();
                for _ in 0..400 {
                    let t1 = ((next() + 1.0) * 0.5 * a.ntri() as f64) as usize % a.ntri();
                    let t2 = ((next() + 1.0) * 0.5 * b.ntri() as f64) as usize % b.ntri();
                    let (sa, sb) = (
                        SatTri::new(a.corners(t1), a.normal[t1]),
                        SatTri::new(b.corners(t2), b.normal[t2]),
                    );
                    let apart = cones_apart(&a.bend[t1], &b.bend[t2], &sa, &sb);
                    tested += 1;
                    skipped += usize::from(apart);
                    for k in 0..3 {
                        for j in 0..3 {
                            let cr = a.edge_dir[t1][k].cross(b.edge_dir[t2][j]);
                            if cr.length_squared() < 1e-18 {
                                continue;
                            }
                            for u in [cr.normalize(), -cr.normalize()] {
                                let Some(normal) = a.edge_cone(t1, k, u) else {
                                    continue;
                                };
                                if b.edge_cone(t2, j, -normal).is_some() {
                                    admitted += 1;
                                    assert!(!apart, "{t1} {k} / {t2} {j}: {u}");
                                }
                            }
                        }
                    }
                }
            }
        }
        assert!(admitted > 50, "{admitted} admitted");
        assert!(skipped > tested / 4, "{skipped} of {tested} skipped");
    }

    /// Two triangles crossing through each other's interiors, and the same pair moved so that
    /// one's crossing segment passes beside the other's: meet, then apart (hand-built).
    #[test]
    fn crossing_triangles_meet_and_slid_apart_do_not() {
        let a = tri([-1.0, -1.0, 0.0, 1.0, -1.0, 0.0, 0.0, 1.0, 0.0]);
        let b = tri([0.0, 0.0, -1.0, 0.0, 0.0, 1.0, 0.0, 2.0, 0.0]);
        let (na, nb) = (normal(&a), normal(&b));
        assert!(!triangles_apart(
            &SatTri::new(a, na),
            &SatTri::new(b, nb),
            0.0
        ));
        // b's crossing with a's plane is the segment x = 0, y in [0, 2]: a covers y <= 1 at x = 0
        let b_far = b.map(|p| p + DVec3::new(0.0, 1.5, 0.0));
        assert!(triangles_apart(
            &SatTri::new(a, na),
            &SatTri::new(b_far, nb),
            0.0
        ));
        // and touching at one point (a's apex on b's crossing segment's end) is not apart
        let b_touch = b.map(|p| p + DVec3::new(0.0, 1.0, 0.0));
        assert!(!triangles_apart(
            &SatTri::new(a, na),
            &SatTri::new(b_touch, nb),
            0.0
        ));
    }
}
