//! The narrow phase: contact manifolds, minimum translation vectors and part ids.
//!
//! # Conventions
//!
//! - The contact normal is a **unit** vector from shape A to shape B; `separation = -depth`;
//!   `depth >= 0` iff the shapes intersect, with touching tolerance [`EPS_TOUCH`]
//!   (`intersect = depth >= -EPS_TOUCH`).
//! - `mtv = depth * normal`: translating B by `+mtv` (or A by `-mtv`) brings the pair exactly to
//!   touching (also when separated: then `mtv` points from B towards A).
//! - A pair separated by more than `max(margin, EPS_TOUCH)` gives `None`. A pair within the
//!   margin but not intersecting is `speculative` (never `intersect`).
//! - Manifold points lie midway between the two surfaces; points whose separation exceeds
//!   `max(margin, EPS_TOUCH)` are culled (at least one point is always kept).
//! - Feature ids: `feature = (feature_a << 16) | feature_b`, where a feature is an edge index
//!   `i` (edge from vertex `i` to `i + 1`) or a vertex index with bit 15 set ([`VERTEX_BIT`]).
//!   A segment or capsule core has two edges: edge 0 (`a → b`, normal `(b − a)` rotated by
//!   −90°) and edge 1 (`b → a`, the opposite normal).
//!
//! # Algorithms
//!
//! Every convex shape is a *core* (a point, a segment or a convex polygon) plus a radius
//! (circles and capsules are rounded cores). Pairs are computed in A's local frame (to reduce
//! round-off, as Box2D does):
//! - circle–circle: centre distance;
//! - circle vs polygon, segment or capsule: **Voronoi regions** of the core (face region,
//!   vertex regions, inside);
//! - polygon, box, segment and capsule pairs: **SAT** on the cores' face normals (a segment
//!   contributes both normals, plus its two end-cap directions so that collinear segments are
//!   exact); if the cores overlap, the axis of least penetration gives the exact depth; if they
//!   are separated, **GJK** gives the exact distance. The manifold comes from clipping the
//!   incident edge against the reference face's side planes (up to two points).
//! - witnesses: separated pairs use the GJK closest points (and the GJK direction as the
//!   normal, so the separation and normal are exact even for vertex–vertex pairs); overlapping
//!   pairs use the deepest incident point inside the reference face's slab (the first deepest
//!   clipped point) and its projection on the reference face, or the incident support vertex
//!   when no clipped point is that deep. A pair that is (nearly, within 1e-10 in cosine)
//!   face-separated gets a two-point speculative manifold whose separations are measured along
//!   the reference face normal.
//! - compounds and fish: the deepest part pair (ties: the lowest `(part_a, part_b)`); its
//!   manifold is reported, with the part ids. Part ids number the leaves depth-first (a fish
//!   has parts 0–6 as in [`crate::shape::FISH_PART_NAMES`]).
//! - border: each outline edge is a one-sided segment whose front faces the inside of the
//!   pool (see [`contact`]).
//!
//! # Degenerate cases (deterministic normals)
//!
//! - concentric circles (or a circle centred on a capsule's core point): normal `+x` (world);
//! - circle centre exactly on a polygon edge, at a vertex, or anywhere inside (including the
//!   centroid): the edge of maximal separation, ties to the lowest edge index;
//! - circle centre on a segment/capsule core: the core's edge-0 normal;
//! - coincident or collinear overlapping segments: SAT ties go to A's faces first, then B's, then
//!   the end caps; within a shape to the lowest index — so A's edge-0 normal;
//! - two identical polygons at the same pose: A's lowest-index edge normal.
//!
//! # Bounding layers
//!
//! Before each exact convex test, [`contact_with_stats`] runs the bounding circle test, then
//! the AABB test (the paper's two-layer model); fish parts are filtered by the fish's
//! bounding-volume tree ([`crate::bounding::FishTree`]: root circle, group circles, 8-DOP
//! leaves). All volumes are inflated by `max(margin, EPS_TOUCH)` plus a round-off slack, so
//! each layer is a pure filter: the answer equals the exact answer ([`contact_layered`] with
//! [`Layers::NONE`]). Pairs involving a border are never filtered.

// Index loops mirror the math (parallel arrays of parts, poses and volumes); negated
// comparisons are deliberate: they treat NaN as "reject".
#![allow(clippy::needless_range_loop, clippy::neg_cmp_op_on_partial_ord)]

use crate::bounding::{self, circles_overlap, FishTree, Kdop8};
use crate::shape::{Border, ConvexPolygon, Fish, Pose, Shape, FISH_PARTS};
use glam::DVec2;

/// Touching tolerance: a pair with `depth >= -EPS_TOUCH` intersects.
pub const EPS_TOUCH: f64 = 1e-9;

/// Bit 15 of a 16-bit feature marks a vertex (otherwise the feature is an edge index).
pub const VERTEX_BIT: u32 = 0x8000;

/// One manifold point.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ManifoldPoint {
    /// World point, midway between the two surfaces.
    pub point: DVec2,
    /// Signed separation along the contact normal (negative = penetration).
    pub separation: f64,
    /// Feature key `(feature_a << 16) | feature_b` (see the module documentation).
    pub feature: u32,
}

/// The contact between two shapes (see the module documentation for the conventions).
#[derive(Clone, Debug, PartialEq)]
pub struct Contact {
    /// `depth >= -EPS_TOUCH`: intersecting or touching.
    pub intersect: bool,
    /// Separated (`separation > EPS_TOUCH`) but within the margin; never set with `intersect`.
    pub speculative: bool,
    /// Penetration depth `= -separation`; `>= 0` iff intersecting.
    pub depth: f64,
    /// Unit normal from A to B.
    pub normal: DVec2,
    /// Minimum translation vector `depth * normal`: moving B by `+mtv` brings the pair to
    /// touching.
    pub mtv: DVec2,
    /// Midpoint of the deepest witness points, or the centroid of the manifold points when
    /// there are two.
    pub action_point: DVec2,
    /// Deepest point on A's surface (`witness_b - witness_a = -depth * normal`).
    pub witness_a: DVec2,
    /// Deepest point on B's surface.
    pub witness_b: DVec2,
    /// Manifold points (at most 2; those with separation above the margin are culled).
    pub points: Vec<ManifoldPoint>,
    /// Part (leaf) index of A inside a compound or fish, for the deepest pair; `None` for a
    /// simple shape.
    pub part_a: Option<usize>,
    /// Part (leaf) index of B, as `part_a`.
    pub part_b: Option<usize>,
}

impl Contact {
    /// The signed separation `-depth`.
    pub fn separation(&self) -> f64 {
        -self.depth
    }

    /// The same contact seen from B (normal, mtv, witnesses, features and part ids swapped).
    pub fn flipped(&self) -> Contact {
        Contact {
            intersect: self.intersect,
            speculative: self.speculative,
            depth: self.depth,
            normal: -self.normal,
            mtv: -self.mtv,
            action_point: self.action_point,
            witness_a: self.witness_b,
            witness_b: self.witness_a,
            points: self
                .points
                .iter()
                .map(|p| ManifoldPoint {
                    feature: p.feature.rotate_left(16),
                    ..*p
                })
                .collect(),
            part_a: self.part_b,
            part_b: self.part_a,
        }
    }
}

/// Counters of the bounding layers and the exact tests they let through.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Bounding-volume tests run (circles, AABBs, 8-DOPs, fish-tree nodes).
    pub bound_tests: usize,
    /// Exact convex-pair tests run (per border edge for a border pair).
    pub exact_tests: usize,
}

/// Which bounding layers [`contact_layered`] runs before the exact tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layers {
    /// Bounding circles of convex leaves.
    pub circle: bool,
    /// AABBs of convex leaves.
    pub aabb: bool,
    /// 8-DOPs at fish leaves.
    pub kdop: bool,
    /// The fish's root and group circles.
    pub fish_tree: bool,
}

impl Layers {
    /// Every layer (the default of [`contact`]).
    pub const ALL: Layers = Layers {
        circle: true,
        aabb: true,
        kdop: true,
        fish_tree: true,
    };
    /// No layer: every leaf pair runs the exact test.
    pub const NONE: Layers = Layers {
        circle: false,
        aabb: false,
        kdop: false,
        fish_tree: false,
    };
}

impl Default for Layers {
    fn default() -> Self {
        Layers::ALL
    }
}

/// Contact between A at `pa` and B at `pb` with speculative `margin >= 0` (NaN or negative
/// margins count as 0). `None` when the pair is separated by more than
/// `max(margin, EPS_TOUCH)`, and for border–border pairs and empty compounds.
///
/// A [`Shape::Border`] is the closed chain of its edges, each a one-sided segment whose front
/// faces the pool (inward normal): the contact with edge `i` is the two-sided segment contact
/// when its normal points into the pool (`normal · inward_i >= 0`); otherwise (the shape's core
/// lies mostly behind the wall line, within the edge's extent) the shape is pushed back along
/// `inward_i` by the depth of its deepest point behind the line plus its radius. The deepest edge
/// wins (ties: lowest edge index). The normal still points from A to B (so from the border into
/// the pool when A is the border).
pub fn contact(a: &Shape, pa: &Pose, b: &Shape, pb: &Pose, margin: f64) -> Option<Contact> {
    let mut s = Stats::default();
    contact_layered(a, pa, b, pb, margin, Layers::ALL, &mut s)
}

/// [`contact`] with every bounding layer, counting the bounding-volume and exact tests into
/// `stats` (which is added to, not reset).
pub fn contact_with_stats(
    a: &Shape,
    pa: &Pose,
    b: &Shape,
    pb: &Pose,
    margin: f64,
    stats: &mut Stats,
) -> Option<Contact> {
    contact_layered(a, pa, b, pb, margin, Layers::ALL, stats)
}

/// [`contact`] with a chosen set of bounding layers. The answer does not depend on `layers`
/// (they are pure filters); only the counters in `stats` do.
pub fn contact_layered(
    a: &Shape,
    pa: &Pose,
    b: &Shape,
    pb: &Pose,
    margin: f64,
    layers: Layers,
    stats: &mut Stats,
) -> Option<Contact> {
    let margin = if margin.is_nan() {
        0.0
    } else {
        margin.max(0.0)
    };
    let cull = margin.max(EPS_TOUCH);
    let mut ctx = Ctx {
        cull,
        layers,
        stats,
        best: None,
    };
    pair(node(a), pa, None, None, node(b), pb, None, None, &mut ctx);
    let (raw, ia, ib) = ctx.best?;
    Some(raw.into_contact(cull, ia, ib))
}

/// The deepest pair of any two shapes with no culling: used by [`crate::distance`].
pub(crate) fn deepest(
    a: &Shape,
    pa: &Pose,
    b: &Shape,
    pb: &Pose,
) -> Option<(Raw, Option<usize>, Option<usize>)> {
    let mut stats = Stats::default();
    let mut ctx = Ctx {
        cull: f64::INFINITY,
        layers: Layers::NONE,
        stats: &mut stats,
        best: None,
    };
    pair(node(a), pa, None, None, node(b), pb, None, None, &mut ctx);
    ctx.best
}

// ---------------------------------------------------------------------------------------------
// raw results

/// A manifold point in some frame.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct RawPoint {
    pub point: DVec2,
    pub sep: f64,
    pub feature: u32,
}

/// A convex-pair result: exact separation, unit normal A→B, surface witnesses and up to two
/// manifold points, all in one frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Raw {
    pub sep: f64,
    pub normal: DVec2,
    pub wa: DVec2,
    pub wb: DVec2,
    pub points: [RawPoint; 2],
    pub count: usize,
}

impl Raw {
    fn single(sep: f64, normal: DVec2, wa: DVec2, wb: DVec2, feature: u32) -> Raw {
        let p = RawPoint {
            point: 0.5 * (wa + wb),
            sep,
            feature,
        };
        Raw {
            sep,
            normal,
            wa,
            wb,
            points: [p, RawPoint::default()],
            count: 1,
        }
    }

    pub(crate) fn flip(mut self) -> Raw {
        self.normal = -self.normal;
        std::mem::swap(&mut self.wa, &mut self.wb);
        for p in &mut self.points {
            p.feature = p.feature.rotate_left(16);
        }
        self
    }

    /// From a frame (`pos`, `rot`) to world coordinates.
    fn to_world(mut self, pos: DVec2, rot: DVec2) -> Raw {
        self.normal = rot.rotate(self.normal);
        self.wa = pos + rot.rotate(self.wa);
        self.wb = pos + rot.rotate(self.wb);
        for p in &mut self.points[..self.count.min(2)] {
            p.point = pos + rot.rotate(p.point);
        }
        self
    }

    fn into_contact(self, cull: f64, part_a: Option<usize>, part_b: Option<usize>) -> Contact {
        let depth = -self.sep;
        let intersect = depth >= -EPS_TOUCH;
        let mut points = Vec::with_capacity(self.count.clamp(1, 2));
        for p in &self.points[..self.count.min(2)] {
            if p.sep <= cull {
                points.push(ManifoldPoint {
                    point: p.point,
                    separation: p.sep,
                    feature: p.feature,
                });
            }
        }
        if points.is_empty() {
            let feature = if self.count > 0 {
                self.points[0].feature
            } else {
                0
            };
            points.push(ManifoldPoint {
                point: 0.5 * (self.wa + self.wb),
                separation: self.sep,
                feature,
            });
        }
        let action_point = if points.len() == 2 {
            0.5 * (points[0].point + points[1].point)
        } else {
            0.5 * (self.wa + self.wb)
        };
        Contact {
            intersect,
            speculative: !intersect,
            depth,
            normal: self.normal,
            mtv: depth * self.normal,
            action_point,
            witness_a: self.wa,
            witness_b: self.wb,
            points,
            part_a,
            part_b,
        }
    }
}

#[inline]
fn feat(fa: u32, fb: u32) -> u32 {
    ((fa & 0xFFFF) << 16) | (fb & 0xFFFF)
}

// ---------------------------------------------------------------------------------------------
// convex primitives and hulls

/// A convex leaf shape in its local frame.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Cvx<'a> {
    /// Disc (or point, radius 0) centred at a local point.
    Disc(DVec2, f64),
    /// Convex polygon (also boxes).
    Poly(&'a ConvexPolygon),
    /// Capsule core `a`–`b` with radius (0 for a segment); `a != b`.
    Capsule(DVec2, DVec2, f64),
}

/// The convex leaf of a shape (`None` for borders, compounds and fish).
pub(crate) fn cvx(shape: &Shape) -> Option<Cvx<'_>> {
    Some(match shape {
        Shape::Circle { radius } => Cvx::Disc(DVec2::ZERO, *radius),
        Shape::Box { poly, .. } | Shape::Polygon(poly) => Cvx::Poly(poly),
        Shape::Segment { a, b } => {
            if a == b {
                Cvx::Disc(*a, 0.0)
            } else {
                Cvx::Capsule(*a, *b, 0.0)
            }
        }
        Shape::Capsule { a, b, radius } => {
            if a == b {
                Cvx::Disc(*a, *radius)
            } else {
                Cvx::Capsule(*a, *b, *radius)
            }
        }
        _ => return None,
    })
}

/// The core of a hull.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Core<'a> {
    /// A point (frame coordinates).
    Point(DVec2),
    /// A segment (frame coordinates) with its edge-0 normal.
    Seg([DVec2; 2], DVec2),
    /// A polygon in its local frame, placed by the hull's transform.
    Poly(&'a ConvexPolygon),
}

/// A convex core placed in a frame, plus a rounding radius.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Hull<'a> {
    pub core: Core<'a>,
    pos: DVec2,
    rot: DVec2,
    pub radius: f64,
}

impl<'a> Hull<'a> {
    /// The hull of `c` placed by the transform (`pos`, `rot` = (cos, sin)).
    pub(crate) fn new(c: Cvx<'a>, pos: DVec2, rot: DVec2) -> Hull<'a> {
        match c {
            Cvx::Disc(p, r) => Hull {
                core: Core::Point(pos + rot.rotate(p)),
                pos,
                rot,
                radius: r,
            },
            Cvx::Poly(p) => Hull {
                core: Core::Poly(p),
                pos,
                rot,
                radius: 0.0,
            },
            Cvx::Capsule(a, b, r) => Hull::segment(pos + rot.rotate(a), pos + rot.rotate(b), r),
        }
    }

    /// A segment hull in frame coordinates.
    pub(crate) fn segment(a: DVec2, b: DVec2, r: f64) -> Hull<'a> {
        let e = b - a;
        let n0 = DVec2::new(e.y, -e.x).try_normalize().unwrap_or(DVec2::Y);
        Hull {
            core: Core::Seg([a, b], n0),
            pos: DVec2::ZERO,
            rot: DVec2::X,
            radius: r,
        }
    }

    #[inline]
    pub(crate) fn nverts(&self) -> usize {
        match &self.core {
            Core::Point(_) => 1,
            Core::Seg(..) => 2,
            Core::Poly(p) => p.verts().len(),
        }
    }

    #[inline]
    pub(crate) fn nedges(&self) -> usize {
        match &self.core {
            Core::Point(_) => 0,
            Core::Seg(..) => 2,
            Core::Poly(p) => p.verts().len(),
        }
    }

    #[inline]
    pub(crate) fn vert(&self, i: usize) -> DVec2 {
        match &self.core {
            Core::Point(p) => *p,
            Core::Seg(s, _) => s[i & 1],
            Core::Poly(p) => self.pos + self.rot.rotate(p.verts()[i]),
        }
    }

    /// Outward unit normal of edge `i` (from vertex `i` to `i + 1`).
    #[inline]
    pub(crate) fn normal(&self, i: usize) -> DVec2 {
        match &self.core {
            Core::Point(_) => DVec2::X,
            Core::Seg(_, n) => {
                if i == 0 {
                    *n
                } else {
                    -*n
                }
            }
            Core::Poly(p) => self.rot.rotate(p.normals()[i]),
        }
    }

    #[inline]
    fn next(&self, i: usize) -> usize {
        let n = self.nverts();
        if i + 1 >= n {
            0
        } else {
            i + 1
        }
    }

    /// Index of the vertex furthest along `d` (ties: lowest index).
    #[inline]
    pub(crate) fn support(&self, d: DVec2) -> usize {
        let mut best = 0;
        let mut bv = d.dot(self.vert(0));
        for i in 1..self.nverts() {
            let v = d.dot(self.vert(i));
            if v > bv {
                bv = v;
                best = i;
            }
        }
        best
    }

    /// Smallest `d · v` over the vertices, relative to `o`.
    #[inline]
    fn min_proj(&self, d: DVec2, o: DVec2) -> f64 {
        let mut m = f64::INFINITY;
        for i in 0..self.nverts() {
            m = m.min(d.dot(self.vert(i) - o));
        }
        m
    }

    /// Number of end-cap axes (2 for a segment core).
    #[inline]
    fn ncaps(&self) -> usize {
        match self.core {
            Core::Seg(..) => 2,
            _ => 0,
        }
    }

    /// End-cap axis `k`: (unit direction, point). Cap 0 is at `b` along `b − a`, cap 1 at `a`
    /// along `a − b`.
    #[inline]
    fn cap(&self, k: usize) -> (DVec2, DVec2) {
        match &self.core {
            Core::Seg(s, n) => {
                let d = DVec2::new(-n.y, n.x); // (b − a)/|b − a|
                if k == 0 {
                    (d, s[1])
                } else {
                    (-d, s[0])
                }
            }
            _ => (DVec2::X, DVec2::ZERO),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// GJK

#[derive(Clone, Copy, Default, Debug)]
struct SimplexVertex {
    wa: DVec2,
    wb: DVec2,
    w: DVec2,
    a: f64,
    ia: usize,
    ib: usize,
}

/// Closest points between two hull cores (radii ignored).
#[derive(Clone, Copy, Debug)]
pub(crate) struct GjkOut {
    /// Distance between the cores (0 when they overlap).
    pub distance: f64,
    /// Closest core point on A.
    pub pa: DVec2,
    /// Closest core point on B.
    pub pb: DVec2,
    /// Features of the closest points (vertex with [`VERTEX_BIT`] or edge index).
    pub fa: u32,
    pub fb: u32,
}

fn gjk_feature(h: &Hull, i0: usize, i1: usize, two: bool) -> u32 {
    if !two || i0 == i1 {
        return i0 as u32 | VERTEX_BIT;
    }
    if h.next(i0) == i1 {
        i0 as u32
    } else if h.next(i1) == i0 {
        i1 as u32
    } else {
        i0.min(i1) as u32 | VERTEX_BIT
    }
}

/// GJK distance between the cores of `a` and `b` (Catto's formulation: simplex of the
/// Minkowski difference `B − A`, barycentric sub-simplex solves, duplicate-vertex and
/// no-progress termination, at most 64 iterations).
pub(crate) fn gjk(a: &Hull, b: &Hull) -> GjkOut {
    let make = |ia: usize, ib: usize| {
        let wa = a.vert(ia);
        let wb = b.vert(ib);
        SimplexVertex {
            wa,
            wb,
            w: wb - wa,
            a: 1.0,
            ia,
            ib,
        }
    };
    let mut s = [
        make(0, 0),
        SimplexVertex::default(),
        SimplexVertex::default(),
    ];
    let mut n = 1usize;
    for _ in 0..64 {
        let saved = [(s[0].ia, s[0].ib), (s[1].ia, s[1].ib), (s[2].ia, s[2].ib)];
        let saved_n = n;
        match n {
            2 => solve2(&mut s, &mut n),
            3 => solve3(&mut s, &mut n),
            _ => {}
        }
        if n == 3 {
            break;
        }
        let p = closest(&s, n);
        let d = -p;
        if d.length_squared() <= f64::MIN_POSITIVE {
            break;
        }
        let ia = a.support(-d);
        let ib = b.support(d);
        if saved[..saved_n].iter().any(|&(x, y)| x == ia && y == ib) {
            break;
        }
        let v = make(ia, ib);
        // no progress along the search direction: converged
        if d.dot(v.w - p) <= 1e-15 * d.length_squared() {
            break;
        }
        s[n] = v;
        n += 1;
    }
    if n == 3 {
        let p = s[0].a * s[0].wa + s[1].a * s[1].wa + s[2].a * s[2].wa;
        return GjkOut {
            distance: 0.0,
            pa: p,
            pb: p,
            fa: 0,
            fb: 0,
        };
    }
    let mut pa = DVec2::ZERO;
    let mut pb = DVec2::ZERO;
    for v in &s[..n] {
        pa += v.a * v.wa;
        pb += v.a * v.wb;
    }
    let two = n == 2;
    let fa = gjk_feature(a, s[0].ia, s[1].ia, two);
    let fb = gjk_feature(b, s[0].ib, s[1].ib, two);
    GjkOut {
        distance: (pb - pa).length(),
        pa,
        pb,
        fa,
        fb,
    }
}

fn closest(s: &[SimplexVertex; 3], n: usize) -> DVec2 {
    let mut p = DVec2::ZERO;
    for v in &s[..n] {
        p += v.a * v.w;
    }
    p
}

fn solve2(s: &mut [SimplexVertex; 3], n: &mut usize) {
    let (w1, w2) = (s[0].w, s[1].w);
    let e12 = w2 - w1;
    let d12_2 = -w1.dot(e12);
    if d12_2 <= 0.0 {
        s[0].a = 1.0;
        *n = 1;
        return;
    }
    let d12_1 = w2.dot(e12);
    if d12_1 <= 0.0 {
        s[1].a = 1.0;
        s[0] = s[1];
        *n = 1;
        return;
    }
    let inv = 1.0 / (d12_1 + d12_2);
    s[0].a = d12_1 * inv;
    s[1].a = d12_2 * inv;
    *n = 2;
}

fn solve3(s: &mut [SimplexVertex; 3], n: &mut usize) {
    let (w1, w2, w3) = (s[0].w, s[1].w, s[2].w);
    let e12 = w2 - w1;
    let d12_1 = w2.dot(e12);
    let d12_2 = -w1.dot(e12);
    let e13 = w3 - w1;
    let d13_1 = w3.dot(e13);
    let d13_2 = -w1.dot(e13);
    let e23 = w3 - w2;
    let d23_1 = w3.dot(e23);
    let d23_2 = -w2.dot(e23);
    let n123 = e12.perp_dot(e13);
    let d123_1 = n123 * w2.perp_dot(w3);
    let d123_2 = n123 * w3.perp_dot(w1);
    let d123_3 = n123 * w1.perp_dot(w2);

    if d12_2 <= 0.0 && d13_2 <= 0.0 {
        s[0].a = 1.0;
        *n = 1;
        return;
    }
    if d12_1 > 0.0 && d12_2 > 0.0 && d123_3 <= 0.0 {
        let inv = 1.0 / (d12_1 + d12_2);
        s[0].a = d12_1 * inv;
        s[1].a = d12_2 * inv;
        *n = 2;
        return;
    }
    if d13_1 > 0.0 && d13_2 > 0.0 && d123_2 <= 0.0 {
        let inv = 1.0 / (d13_1 + d13_2);
        s[0].a = d13_1 * inv;
        s[2].a = d13_2 * inv;
        s[1] = s[2];
        *n = 2;
        return;
    }
    if d12_1 <= 0.0 && d23_2 <= 0.0 {
        s[1].a = 1.0;
        s[0] = s[1];
        *n = 1;
        return;
    }
    if d13_1 <= 0.0 && d23_1 <= 0.0 {
        s[2].a = 1.0;
        s[0] = s[2];
        *n = 1;
        return;
    }
    if d23_1 > 0.0 && d23_2 > 0.0 && d123_1 <= 0.0 {
        let inv = 1.0 / (d23_1 + d23_2);
        s[1].a = d23_1 * inv;
        s[2].a = d23_2 * inv;
        s[0] = s[2];
        *n = 2;
        return;
    }
    let sum = d123_1 + d123_2 + d123_3;
    if sum > 0.0 && sum.is_finite() {
        let inv = 1.0 / sum;
        s[0].a = d123_1 * inv;
        s[1].a = d123_2 * inv;
        s[2].a = d123_3 * inv;
    } else {
        s[0].a = 1.0 / 3.0;
        s[1].a = 1.0 / 3.0;
        s[2].a = 1.0 / 3.0;
    }
    *n = 3;
}

// ---------------------------------------------------------------------------------------------
// convex pairs

/// Circle–circle in one frame. Concentric circles: normal `fallback`.
pub(crate) fn circle_circle(ca: DVec2, ra: f64, cb: DVec2, rb: f64, fallback: DVec2) -> Raw {
    let d = cb - ca;
    let len = d.length();
    let n = if len > 0.0 { d / len } else { fallback };
    let n = if n.is_finite() { n } else { fallback };
    let sep = len - ra - rb;
    Raw::single(
        sep,
        n,
        ca + ra * n,
        cb - rb * n,
        feat(VERTEX_BIT, VERTEX_BIT),
    )
}

/// Voronoi-region test: hull A (polygon, segment or capsule core) against the disc centred at
/// `c` with radius `rb` (B).
pub(crate) fn hull_circle(a: &Hull, c: DVec2, rb: f64) -> Raw {
    let ra = a.radius;
    let (q, n, s_core, fa) = match &a.core {
        Core::Point(p) => {
            let d = c - *p;
            let len = d.length();
            let n = if len > 0.0 && (d / len).is_finite() {
                d / len
            } else {
                DVec2::X
            };
            (*p, n, len, VERTEX_BIT)
        }
        Core::Seg(sv, n0) => {
            let (pa, pb) = (sv[0], sv[1]);
            let e = pb - pa;
            let u = (c - pa).dot(e);
            let v = (c - pb).dot(-e);
            if u <= 0.0 || v <= 0.0 {
                // vertex region of a (u <= 0) or b
                let (p, f) = if u <= 0.0 { (pa, 0) } else { (pb, 1) };
                let d = c - p;
                let len = d.length();
                if len > 0.0 && (d / len).is_finite() {
                    (p, d / len, len, f | VERTEX_BIT)
                } else {
                    (p, *n0, 0.0, 0)
                }
            } else {
                // face region
                let s = n0.dot(c - pa);
                if s >= 0.0 {
                    (c - s * *n0, *n0, s, 0)
                } else {
                    (c - s * *n0, -*n0, -s, 1)
                }
            }
        }
        Core::Poly(_) => {
            let m = a.nedges();
            let mut best = 0;
            let mut bs = f64::NEG_INFINITY;
            for i in 0..m {
                let s = a.normal(i).dot(c - a.vert(i));
                if s > bs {
                    bs = s;
                    best = i;
                }
            }
            let v1 = a.vert(best);
            let v2 = a.vert(a.next(best));
            let nf = a.normal(best);
            if bs > 0.0 {
                let u1 = (c - v1).dot(v2 - v1);
                let u2 = (c - v2).dot(v1 - v2);
                if u1 < 0.0 || u2 < 0.0 {
                    let (p, f) = if u1 < 0.0 {
                        (v1, best)
                    } else {
                        (v2, a.next(best))
                    };
                    let d = c - p;
                    let len = d.length();
                    let n = if len > 0.0 && (d / len).is_finite() {
                        d / len
                    } else {
                        nf
                    };
                    (p, n, len, f as u32 | VERTEX_BIT)
                } else {
                    (c - bs * nf, nf, bs, best as u32)
                }
            } else {
                (c - bs * nf, nf, bs, best as u32)
            }
        }
    };
    let sep = s_core - ra - rb;
    Raw::single(sep, n, q + ra * n, c - rb * n, feat(fa, VERTEX_BIT))
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Axis {
    FaceA(usize),
    FaceB(usize),
    CapA(usize),
    CapB(usize),
}

/// Largest separation of `o` from the faces of `r`: `max_i min_j n_i · (o_j − r_i)`.
fn max_face_sep(r: &Hull, o: &Hull) -> (usize, f64) {
    let mut best = 0;
    let mut bs = f64::NEG_INFINITY;
    for i in 0..r.nedges() {
        let s = o.min_proj(r.normal(i), r.vert(i));
        if s > bs {
            bs = s;
            best = i;
        }
    }
    (best, bs)
}

/// Clips the incident edge of `inc` against reference face `i` of `r`. Returns the clipped
/// points with their core separations along the reference normal, features as
/// (reference edge, incident vertex), and the count.
fn clip(r: &Hull, i: usize, inc: &Hull) -> ([RawPoint; 2], usize) {
    let n = r.normal(i);
    let v1 = r.vert(i);
    let v2 = r.vert(r.next(i));
    // incident edge: most anti-parallel normal (ties: lowest index)
    let mut j = 0;
    let mut bd = f64::INFINITY;
    for k in 0..inc.nedges() {
        let d = inc.normal(k).dot(n);
        if d < bd {
            bd = d;
            j = k;
        }
    }
    let j2 = inc.next(j);
    let (w1, w2) = (inc.vert(j), inc.vert(j2));
    let t = v2 - v1;
    let len = t.length();
    let mut out = [RawPoint::default(); 2];
    if !(len > 0.0) {
        return (out, 0);
    }
    let t = t / len;
    let u1 = t.dot(w1 - v1);
    let u2 = t.dot(w2 - v1);
    let (mut l0, mut l1) = (0.0f64, 1.0f64);
    if u1 == u2 {
        if !(u1 >= 0.0 && u1 <= len) {
            return (out, 0);
        }
    } else {
        let la = (0.0 - u1) / (u2 - u1);
        let lb = (len - u1) / (u2 - u1);
        l0 = l0.max(la.min(lb));
        l1 = l1.min(la.max(lb));
        if !(l0 <= l1) {
            return (out, 0);
        }
    }
    let at = |l: f64| {
        if l == 0.0 {
            w1
        } else if l == 1.0 {
            w2
        } else {
            w1 + l * (w2 - w1)
        }
    };
    let mut count = 0;
    for (l, fv) in [(l0, j), (l1, j2)] {
        let q = at(l);
        out[count] = RawPoint {
            point: q,
            sep: n.dot(q - v1),
            feature: feat(i as u32, fv as u32 | VERTEX_BIT),
        };
        count += 1;
        if l0 == l1 {
            break;
        }
    }
    (out, count)
}

/// SAT (cores overlapping) or GJK (cores separated) plus clipping, for two hulls with edges
/// (polygons, segments, capsules). A and B in the same frame.
pub(crate) fn hull_hull(a: &Hull, b: &Hull) -> Raw {
    let (ra, rb) = (a.radius, b.radius);
    let (ia, sa) = max_face_sep(a, b);
    let (ib, sb) = max_face_sep(b, a);
    let (mut axis, mut s) = if sb > sa {
        (Axis::FaceB(ib), sb)
    } else {
        (Axis::FaceA(ia), sa)
    };
    // end caps only when strictly better than every face (degenerate collinear segments)
    for k in 0..a.ncaps() {
        let (d, p) = a.cap(k);
        let sc = b.min_proj(d, p);
        if sc > s {
            s = sc;
            axis = Axis::CapA(k);
        }
    }
    for k in 0..b.ncaps() {
        let (d, p) = b.cap(k);
        let sc = a.min_proj(d, p);
        if sc > s {
            s = sc;
            axis = Axis::CapB(k);
        }
    }
    // axis direction from A to B
    let u = match axis {
        Axis::FaceA(i) => a.normal(i),
        Axis::FaceB(j) => -b.normal(j),
        Axis::CapA(k) => a.cap(k).0,
        Axis::CapB(k) => -b.cap(k).0,
    };
    let is_face = matches!(axis, Axis::FaceA(_) | Axis::FaceB(_));

    if s > 0.0 {
        let g = gjk(a, b);
        if g.distance > 0.0 && g.distance.is_finite() {
            // the exact distance and direction come from GJK
            let ng = (g.pb - g.pa) / g.distance;
            let sep = g.distance - ra - rb;
            let mut raw = Raw::single(sep, ng, g.pa + ra * ng, g.pb - rb * ng, feat(g.fa, g.fb));
            if is_face && ng.dot(u) >= 1.0 - 1e-10 {
                // (nearly) face-separated: a two-point speculative manifold from clipping on
                // that face; the points' separations are measured along the face normal
                manifold_on_face(&mut raw, a, b, axis, u);
            }
            return raw;
        }
        // round-off: GJK sees touching cores; fall through with the SAT axis
    }

    // cores overlap (or touch): exact depth along the SAT axis
    let (ca, cb) = match axis {
        Axis::FaceA(_) | Axis::CapA(_) => {
            let bstar = b.vert(b.support(-u));
            (bstar - s * u, bstar)
        }
        Axis::FaceB(_) | Axis::CapB(_) => {
            let astar = a.vert(a.support(u));
            (astar, astar + s * u)
        }
    };
    let sep = s - ra - rb;
    let fallback_feature = match axis {
        Axis::FaceA(i) => feat(i as u32, b.support(-u) as u32 | VERTEX_BIT),
        Axis::FaceB(j) => feat(a.support(u) as u32 | VERTEX_BIT, j as u32),
        Axis::CapA(k) => feat(
            (1 - k as u32) | VERTEX_BIT,
            b.support(-u) as u32 | VERTEX_BIT,
        ),
        Axis::CapB(k) => feat(
            a.support(u) as u32 | VERTEX_BIT,
            (1 - k as u32) | VERTEX_BIT,
        ),
    };
    let mut raw = Raw::single(sep, u, ca + ra * u, cb - rb * u, fallback_feature);
    if is_face {
        if let Some((q, sq)) = manifold_on_face(&mut raw, a, b, axis, u) {
            // prefer a deepest witness inside the reference face's slab (the deepest clipped
            // point) when it is as deep as the SAT axis says
            if sq <= s + 1e-12 * (1.0 + q.abs().max_element()) {
                let (ca, cb) = match axis {
                    Axis::FaceA(_) => (q - s * u, q),
                    _ => (q, q + s * u),
                };
                raw.wa = ca + ra * u;
                raw.wb = cb - rb * u;
            }
        }
    }
    raw
}

/// Replaces the single point of `raw` by the clipped manifold of reference face `axis`.
/// Returns the deepest clipped core point (on the incident hull) and its core separation.
fn manifold_on_face(
    raw: &mut Raw,
    a: &Hull,
    b: &Hull,
    axis: Axis,
    u: DVec2,
) -> Option<(DVec2, f64)> {
    let (ra, rb) = (a.radius, b.radius);
    let (pts, count, ref_is_a) = match axis {
        Axis::FaceA(i) => {
            let (p, c) = clip(a, i, b);
            (p, c, true)
        }
        Axis::FaceB(j) => {
            let (p, c) = clip(b, j, a);
            (p, c, false)
        }
        _ => return None,
    };
    if count == 0 {
        return None;
    }
    let (r_ref, r_inc) = if ref_is_a { (ra, rb) } else { (rb, ra) };
    let nref = if ref_is_a { u } else { -u };
    let mut out = [RawPoint::default(); 2];
    for k in 0..count {
        let q = pts[k].point;
        let sq = pts[k].sep;
        let on_ref = q - sq * nref + r_ref * nref;
        let on_inc = q - r_inc * nref;
        out[k] = RawPoint {
            point: 0.5 * (on_ref + on_inc),
            sep: sq - r_ref - r_inc,
            feature: if ref_is_a {
                pts[k].feature
            } else {
                pts[k].feature.rotate_left(16)
            },
        };
    }
    raw.points = out;
    raw.count = count;
    let k = if count == 2 && pts[1].sep < pts[0].sep {
        1
    } else {
        0
    };
    Some((pts[k].point, pts[k].sep))
}

/// The exact contact of two convex leaves, in world coordinates.
pub(crate) fn convex_raw(a: Cvx, pa: &Pose, b: Cvx, pb: &Pose) -> Raw {
    if let (Cvx::Disc(ca, ra), Cvx::Disc(cb, rb)) = (a, b) {
        return circle_circle(pa.apply(ca), ra, pb.apply(cb), rb, DVec2::X);
    }
    // work in A's local frame
    let rot_a = pa.rot();
    let rel_pos = pa.inverse_apply(pb.pos);
    let da = pb.angle - pa.angle;
    let (sn, cs) = da.sin_cos();
    let rel_rot = DVec2::new(cs, sn);
    let ha = Hull::new(a, DVec2::ZERO, DVec2::X);
    let hb = Hull::new(b, rel_pos, rel_rot);
    let raw = match (&ha.core, &hb.core) {
        (Core::Point(c), _) => hull_circle(&hb, *c, ha.radius).flip(),
        (_, Core::Point(c)) => hull_circle(&ha, *c, hb.radius),
        _ => hull_hull(&ha, &hb),
    };
    raw.to_world(pa.pos, rot_a)
}

// ---------------------------------------------------------------------------------------------
// border

/// One-sided border contact against a convex leaf, in world coordinates, with the edge index.
pub(crate) fn border_raw(
    border: &Border,
    pa: &Pose,
    b: Cvx,
    pb: &Pose,
    stats: &mut Stats,
) -> Option<Raw> {
    let rot_a = pa.rot();
    let rel_pos = pa.inverse_apply(pb.pos);
    let (sn, cs) = (pb.angle - pa.angle).sin_cos();
    let hb = Hull::new(b, rel_pos, DVec2::new(cs, sn));
    let verts = border.verts();
    let inward = border.inward_normals();
    let nv = verts.len();
    let mut best: Option<Raw> = None;
    for i in 0..nv {
        stats.exact_tests += 1;
        let (v1, v2) = (verts[i], verts[(i + 1) % nv]);
        let ni = inward[i];
        let edge = Hull::segment(v1, v2, 0.0);
        let two = match &hb.core {
            Core::Point(c) => hull_circle(&edge, *c, hb.radius),
            _ => hull_hull(&edge, &hb),
        };
        let mut raw = if two.normal.dot(ni) >= 0.0 {
            two
        } else {
            // behind the wall line: push back along the inward normal, if within the strip
            let t = v2 - v1;
            let len2 = t.length_squared();
            let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
            for j in 0..hb.nverts() {
                let x = t.dot(hb.vert(j) - v1);
                lo = lo.min(x);
                hi = hi.max(x);
            }
            if !(hi >= 0.0 && lo <= len2) {
                continue;
            }
            let k = hb.support(-ni);
            let p = hb.vert(k);
            let s_core = ni.dot(p - v1);
            let sep = s_core - hb.radius;
            let mut r = Raw::single(
                sep,
                ni,
                p - s_core * ni,
                p - hb.radius * ni,
                feat(i as u32, k as u32 | VERTEX_BIT),
            );
            if hb.nedges() > 0 {
                // reference face: the edge's inward face (segment edge 1 runs b → a, normal −n0 = inward)
                let (pts, count) = clip(&edge, 1, &hb);
                if count > 0 {
                    let mut out = [RawPoint::default(); 2];
                    for m in 0..count {
                        let q = pts[m].point;
                        let sq = pts[m].sep;
                        out[m] = RawPoint {
                            point: 0.5 * ((q - sq * ni) + (q - hb.radius * ni)),
                            sep: sq - hb.radius,
                            feature: feat(i as u32, pts[m].feature & 0xFFFF),
                        };
                    }
                    r.points = out;
                    r.count = count;
                }
            }
            r
        };
        // border features: the outline edge index
        for p in &mut raw.points {
            p.feature = feat(i as u32, p.feature & 0xFFFF);
        }
        if best.is_none_or(|bst| raw.sep < bst.sep) {
            best = Some(raw);
        }
    }
    best.map(|r| r.to_world(pa.pos, rot_a))
}

// ---------------------------------------------------------------------------------------------
// composite traversal

#[derive(Clone, Copy)]
enum Node<'a> {
    Leaf(Cvx<'a>),
    Border(&'a Border),
    Compound(&'a [(Pose, Shape)]),
    Fish(&'a Fish, [f64; 3]),
}

fn node(s: &Shape) -> Node<'_> {
    match s {
        Shape::Border(b) => Node::Border(b),
        Shape::Compound(parts) => Node::Compound(parts),
        Shape::Fish { fish, joints } => Node::Fish(fish, *joints),
        _ => Node::Leaf(cvx(s).unwrap_or(Cvx::Disc(DVec2::ZERO, 0.0))),
    }
}

/// Number of leaves (part ids) of a shape.
pub(crate) fn leaf_count(s: &Shape) -> usize {
    match s {
        Shape::Compound(parts) => parts.iter().map(|(_, p)| leaf_count(p)).sum(),
        Shape::Fish { .. } => FISH_PARTS,
        _ => 1,
    }
}

struct Ctx<'s> {
    cull: f64,
    layers: Layers,
    stats: &'s mut Stats,
    best: Option<(Raw, Option<usize>, Option<usize>)>,
}

impl Ctx<'_> {
    fn offer(&mut self, raw: Raw, ia: Option<usize>, ib: Option<usize>) {
        if !(raw.sep <= self.cull) {
            return;
        }
        let better = match &self.best {
            None => true,
            Some((b, ja, jb)) => raw.sep < b.sep || (raw.sep == b.sep && (ia, ib) < (*ja, *jb)),
        };
        if better {
            self.best = Some((raw, ia, ib));
        }
    }

    /// Inflation of bounding volumes: the culling distance plus a round-off slack.
    fn slack(&self, scale: f64) -> f64 {
        self.cull + 1e-9 * (1.0 + scale)
    }
}

fn leaf_circle(c: Cvx, p: &Pose) -> (DVec2, f64) {
    match c {
        Cvx::Disc(q, r) => (p.apply(q), r),
        Cvx::Poly(poly) => {
            let mut b = bounding::Aabb::EMPTY;
            for &v in poly.verts() {
                let w = p.apply(v);
                b.min = b.min.min(w);
                b.max = b.max.max(w);
            }
            let c = b.center();
            let r = poly
                .verts()
                .iter()
                .fold(0.0f64, |m, &v| m.max((p.apply(v) - c).length()));
            (c, r)
        }
        Cvx::Capsule(a, b, r) => {
            let (a, b) = (p.apply(a), p.apply(b));
            let c = 0.5 * (a + b);
            (c, (a - c).length().max((b - c).length()) + r)
        }
    }
}

fn leaf_aabb(c: Cvx, p: &Pose) -> bounding::Aabb {
    match c {
        Cvx::Disc(q, r) => bounding::Aabb {
            min: p.apply(q) - DVec2::splat(r),
            max: p.apply(q) + DVec2::splat(r),
        },
        Cvx::Poly(poly) => bounding::Aabb::from_points(poly.verts().iter().map(|&v| p.apply(v))),
        Cvx::Capsule(a, b, r) => bounding::Aabb::from_points([p.apply(a), p.apply(b)]).inflate(r),
    }
}

fn leaf_kdop(c: Cvx, p: &Pose) -> Kdop8 {
    match c {
        Cvx::Disc(q, r) => Kdop8::from_points([p.apply(q)]).inflate(r),
        Cvx::Poly(poly) => Kdop8::from_polygon(poly, p),
        Cvx::Capsule(a, b, r) => Kdop8::from_points([p.apply(a), p.apply(b)]).inflate(r),
    }
}

fn kdop_scale(k: &Kdop8) -> f64 {
    k.min.iter().chain(k.max.iter()).fold(
        0.0f64,
        |m, v| if v.is_finite() { m.max(v.abs()) } else { m },
    )
}

#[allow(clippy::too_many_arguments)]
fn leaf_pair(
    a: Cvx,
    pa: &Pose,
    ia: Option<usize>,
    ka: Option<&Kdop8>,
    b: Cvx,
    pb: &Pose,
    ib: Option<usize>,
    kb: Option<&Kdop8>,
    ctx: &mut Ctx,
) {
    let l = ctx.layers;
    if l.kdop && (ka.is_some() || kb.is_some()) {
        let ka = ka.copied().unwrap_or_else(|| leaf_kdop(a, pa));
        let kb = kb.copied().unwrap_or_else(|| leaf_kdop(b, pb));
        ctx.stats.bound_tests += 1;
        let slack = ctx.slack(kdop_scale(&ka) + kdop_scale(&kb));
        if !ka.inflate(slack).overlaps(&kb) {
            return;
        }
    } else {
        if l.circle {
            let (ca, ra) = leaf_circle(a, pa);
            let (cb, rb) = leaf_circle(b, pb);
            ctx.stats.bound_tests += 1;
            let slack = ctx.slack(ca.abs().max_element() + cb.abs().max_element() + ra + rb);
            if !circles_overlap((ca, ra + slack), (cb, rb)) {
                return;
            }
        }
        if l.aabb {
            let ba = leaf_aabb(a, pa);
            let bb = leaf_aabb(b, pb);
            ctx.stats.bound_tests += 1;
            let scale = ba.min.abs().max(ba.max.abs()).max_element()
                + bb.min.abs().max(bb.max.abs()).max_element();
            if !ba.inflate(ctx.slack(scale)).overlaps(&bb) {
                return;
            }
        }
    }
    exact_leaf(a, pa, ia, b, pb, ib, ctx);
}

/// The exact test of two convex leaves (no bounding layer).
fn exact_leaf(
    a: Cvx,
    pa: &Pose,
    ia: Option<usize>,
    b: Cvx,
    pb: &Pose,
    ib: Option<usize>,
    ctx: &mut Ctx,
) {
    ctx.stats.exact_tests += 1;
    let raw = convex_raw(a, pa, b, pb);
    ctx.offer(raw, ia, ib);
}

/// Which parts of a fish (its tree `t`) may touch the node `other` at `pother`, through the
/// fish tree when that layer is on (not against the border, which bounds nothing), and
/// whether the tree was used (it has then tested each hit leaf's 8-DOP already).
fn fish_parts_hit(
    t: &FishTree<'_>,
    other: Node<'_>,
    pother: &Pose,
    ctx: &mut Ctx,
) -> ([bool; FISH_PARTS], bool) {
    if !ctx.layers.fish_tree || matches!(other, Node::Border(_)) {
        return ([true; FISH_PARTS], false);
    }
    let (circle, kdop) = node_bounds(other, pother);
    let scale = t.root.0.abs().max_element() + t.root.1 + circle.0.abs().max_element() + circle.1;
    let slack = ctx.slack(scale);
    let (h, tests) = t.query((circle.0, circle.1 + slack), &kdop.inflate(slack));
    ctx.stats.bound_tests += tests;
    (h, true)
}

/// Bounding circle and 8-DOP of any node (for the fish-tree query).
fn node_bounds(n: Node, p: &Pose) -> ((DVec2, f64), Kdop8) {
    match n {
        Node::Leaf(c) => (leaf_circle(c, p), leaf_kdop(c, p)),
        Node::Border(b) => {
            let k = Kdop8::from_points(b.verts().iter().map(|&q| p.apply(q)));
            let bb = k.aabb();
            let c = bb.center();
            let r = b
                .verts()
                .iter()
                .fold(0.0f64, |m, &q| m.max((p.apply(q) - c).length()));
            ((c, r), k)
        }
        Node::Compound(parts) => {
            let mut circle: Option<(DVec2, f64)> = None;
            let mut k = Kdop8::EMPTY;
            for (q, s) in parts {
                let (c2, k2) = node_bounds(node(s), &p.compose(*q));
                circle = Some(match circle {
                    None => c2,
                    Some(c1) => bounding::merge_circles(c1, c2),
                });
                k = k.union(&k2);
            }
            (circle.unwrap_or((p.pos, 0.0)), k)
        }
        Node::Fish(f, j) => {
            let t = FishTree::new(f, *p, j);
            let k = t.leaves.iter().fold(Kdop8::EMPTY, |acc, l| acc.union(l));
            (t.root, k)
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn pair(
    a: Node,
    pa: &Pose,
    ia: Option<usize>,
    ka: Option<&Kdop8>,
    b: Node,
    pb: &Pose,
    ib: Option<usize>,
    kb: Option<&Kdop8>,
    ctx: &mut Ctx,
) {
    match (a, b) {
        (Node::Border(_), Node::Border(_)) => {}
        (Node::Compound(parts), _) => {
            let mut off = ia.unwrap_or(0);
            for (q, s) in parts {
                pair(
                    node(s),
                    &pa.compose(*q),
                    Some(off),
                    None,
                    b,
                    pb,
                    ib,
                    kb,
                    ctx,
                );
                off += leaf_count(s);
            }
        }
        (_, Node::Compound(parts)) => {
            let mut off = ib.unwrap_or(0);
            for (q, s) in parts {
                pair(
                    a,
                    pa,
                    ia,
                    ka,
                    node(s),
                    &pb.compose(*q),
                    Some(off),
                    None,
                    ctx,
                );
                off += leaf_count(s);
            }
        }
        (Node::Fish(fa, ja), Node::Fish(fb, jb)) => {
            let ta = FishTree::new(fa, *pa, ja);
            let tb = FishTree::new(fb, *pb, jb);
            let (oa, ob) = (ia.unwrap_or(0), ib.unwrap_or(0));
            let hits = if ctx.layers.fish_tree {
                let scale = ta.root.0.abs().max_element()
                    + ta.root.1
                    + tb.root.0.abs().max_element()
                    + tb.root.1;
                let (h, tests) = ta.query_tree(&tb, ctx.slack(scale));
                ctx.stats.bound_tests += tests;
                h
            } else {
                [[true; FISH_PARTS]; FISH_PARTS]
            };
            for i in 0..FISH_PARTS {
                for j in 0..FISH_PARTS {
                    if hits[i][j] && ctx.layers.fish_tree {
                        // the tree descent already tested these two leaves' 8-DOPs
                        exact_leaf(
                            Cvx::Poly(&fa.parts()[i]),
                            &ta.poses[i],
                            Some(oa + i),
                            Cvx::Poly(&fb.parts()[j]),
                            &tb.poses[j],
                            Some(ob + j),
                            ctx,
                        );
                    } else if hits[i][j] {
                        leaf_pair(
                            Cvx::Poly(&fa.parts()[i]),
                            &ta.poses[i],
                            Some(oa + i),
                            Some(&ta.leaves[i]),
                            Cvx::Poly(&fb.parts()[j]),
                            &tb.poses[j],
                            Some(ob + j),
                            Some(&tb.leaves[j]),
                            ctx,
                        );
                    }
                }
            }
        }
        (Node::Fish(f, j), _) => {
            let t = FishTree::new(f, *pa, j);
            let off = ia.unwrap_or(0);
            let (hits, tree_used) = fish_parts_hit(&t, b, pb, ctx);
            for i in 0..FISH_PARTS {
                if !hits[i] {
                    continue;
                }
                let part = Cvx::Poly(&f.parts()[i]);
                match b {
                    // the tree already tested this leaf's 8-DOP against the leaf's
                    Node::Leaf(c) if tree_used => {
                        exact_leaf(part, &t.poses[i], Some(off + i), c, pb, ib, ctx)
                    }
                    _ => pair(
                        Node::Leaf(part),
                        &t.poses[i],
                        Some(off + i),
                        Some(&t.leaves[i]),
                        b,
                        pb,
                        ib,
                        kb,
                        ctx,
                    ),
                }
            }
        }
        (_, Node::Fish(f, j)) => {
            let t = FishTree::new(f, *pb, j);
            let off = ib.unwrap_or(0);
            let (hits, tree_used) = fish_parts_hit(&t, a, pa, ctx);
            for i in 0..FISH_PARTS {
                if !hits[i] {
                    continue;
                }
                let part = Cvx::Poly(&f.parts()[i]);
                match a {
                    Node::Leaf(c) if tree_used => {
                        exact_leaf(c, pa, ia, part, &t.poses[i], Some(off + i), ctx)
                    }
                    _ => pair(
                        a,
                        pa,
                        ia,
                        ka,
                        Node::Leaf(part),
                        &t.poses[i],
                        Some(off + i),
                        Some(&t.leaves[i]),
                        ctx,
                    ),
                }
            }
        }
        (Node::Border(br), Node::Leaf(c)) => {
            if let Some(raw) = border_raw(br, pa, c, pb, ctx.stats) {
                ctx.offer(raw, ia, ib);
            }
        }
        (Node::Leaf(c), Node::Border(br)) => {
            if let Some(raw) = border_raw(br, pb, c, pa, ctx.stats) {
                ctx.offer(raw.flip(), ia, ib);
            }
        }
        (Node::Leaf(x), Node::Leaf(y)) => leaf_pair(x, pa, ia, ka, y, pb, ib, kb, ctx),
    }
}
