//! A separating-direction cache for the native convex solver: per geom pair, the direction that
//! separated the pair at its last solve, kept in geom 1's frame (so it follows the pair's rigid
//! motion). The next call first checks whether that direction still proves that the solver
//! would report no contact, and skips the solver if it does (the separating-axis cache of
//! Bullet or PhysX; MuJoCo has none).
//!
//! # Why a skip never changes the output
//! For a unit direction `d` (world frame, from geom 1 towards geom 2), every point `a` of shape
//! 1 and `b` of shape 2 satisfy `|b - a| >= d · (b - a) >= min_b d · b - max_a d · a`, so
//! `LB = (d · p2 - h2(-d)) - (d · p1 + h1(d))`, with `p` the geom centres and `h` the support
//! functions about them, is a lower bound of the true distance `D` between the shapes.
//!
//! GJK's reported distance is the norm of one of its iterates, a point of the Minkowski
//! difference (support points combined by barycentric weights or projected on their affine hull
//! by the sub-distance step, or the initial centre difference, which lies in the difference
//! because every eligible geom contains its frame origin: see below), so it is at least `D` up to
//! rounding. The solver (`solve` in `mod.rs`) then decides "no contact" as follows:
//! - (a) when a sphere or capsule is involved or the margin is positive, GJK runs on the cores
//!   (sphere centre, capsule axis segment, other shapes as they are) and, when its distance
//!   exceeds `tol`, decides alone: no contact iff `distance >= fm1 + fm2` (radii plus half
//!   margins). So `LB_core > max(tol, fm1 + fm2)` implies no contact;
//! - (b) otherwise (no round shape, margin not positive) GJK runs on the shapes and gives no
//!   contact when its distance exceeds `tol`. So `LB > tol` implies no contact.
//!
//! The comparison adds a slack of [`SLACK`] times the magnitudes involved (positions and support
//! values), six orders of magnitude above the rounding of either computation. The support
//! values are exact maxima: closed forms for boxes, ellipsoids, cylinders and capsule or sphere
//! cores, and for meshes a hill climb on the hull's vertex graph (on a convex polytope a vertex
//! without an improving neighbour maximizes the linear function globally, so its value is
//! exact even where the solver would break a tie differently), or a scan of the hull vertices
//! for small hulls or hulls without a valid graph.
//!
//! A skip therefore returns exactly what the solver would (no contact), whatever the cache holds:
//! results never depend on the cache's state, only the time does. A batch keeps a table per
//! world and swaps it into the worker's collider for that world's call
//! ([`SeparationCache::swap_table`]); that only changes the hit rate.
//!
//! Eligible geoms: sphere, capsule, ellipsoid, cylinder and box with finite non-negative sizes,
//! and meshes whose hull vertices are finite and whose hull contains the mesh frame's origin
//! (checked once per geom; the compiler centres meshes, so this holds for compiled models).
//!
//! # Storage
//! A direct-mapped table of a power of two of slots, sized from the model, keyed by the geom
//! pair; a pair hashed to an occupied slot overwrites it. Nothing allocates after
//! construction. (Unlike the touching cache's, a second way measured more instructions than the
//! hits it adds save: the lookup runs for every convex pair, and a hit saves only a GJK run.)

use glam::DVec3;

use super::mpr::extrema_bucket;
use super::support::{core_radius, is_round};
use super::{ConvexGeom, Separation};
use crate::model::{ConvexHull, GeomType, Model};
use crate::narrow::{dispatch, Dispatch};

/// Relative slack of the separation test (see the module docs).
pub const SLACK: f64 = 1e-9;

/// Hulls with fewer vertices are scanned rather than hill-climbed.
const SCAN_BELOW: usize = 8;

/// Slots per eligible geom of a collider's own table (before rounding up to a power of two).
pub(crate) const SLOTS_PER_GEOM: usize = 32;

/// Largest table (slots).
const MAX_SLOTS: usize = 1 << 16;

/// Key of an empty slot.
pub(super) const EMPTY: u64 = u64::MAX;

/// An empty slot.
const EMPTY_SLOT: Slot = Slot {
    key: EMPTY,
    dir: DVec3::ZERO,
    h1: f64::NAN,
    anchor2: (DVec3::ZERO, f64::NAN),
    hint: [-1; 2],
};

/// One cached pair.
#[derive(Clone, Copy, Debug)]
struct Slot {
    /// `(geom1 << 32) | geom2` (unique: geom indices are far below 2^32), or [`EMPTY`].
    key: u64,
    /// Unit separating direction in geom 1's frame (from geom 1 towards geom 2).
    dir: DVec3,
    /// Mesh geom 1: its support value towards `dir` (NaN until computed).
    h1: f64,
    /// Mesh geom 2: a direction in its frame (near `-dir` seen from geom 2 at some earlier
    /// call) and its support value there (NaN until computed).
    anchor2: (DVec3, f64),
    /// Hill-climb warm starts (hull vertex) of geom 1 (towards `dir`) and geom 2 (towards
    /// `-dir`); `-1` for none.
    hint: [i32; 2],
}

/// How the cache treats one geom.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Eligible {
    /// Never cached.
    No,
    /// Primitive with a closed-form support value.
    Primitive,
    /// Mesh searched by hill climbing on its hull graph; the largest hull vertex norm.
    Climb(f64),
    /// Mesh searched by scanning its hull vertices; the largest hull vertex norm.
    Scan(f64),
}

/// Per-collider cache of separating directions of convex geom pairs (see the module docs).
#[derive(Clone, Debug)]
pub struct SeparationCache {
    slots: Vec<Slot>,
    /// `64 - log2(slots.len())`: the hash keeps the top bits.
    shift: u32,
    /// Per geom.
    eligible: Vec<Eligible>,
}

impl SeparationCache {
    /// An empty cache for `model`'s geoms (only those that can meet the convex solver get
    /// slots: a humanoid of capsules and spheres has none).
    pub fn new(model: &Model) -> SeparationCache {
        let meets = meets_convex_solver(model, |_| true);
        let eligible: Vec<Eligible> = (0..model.ngeom())
            .map(|g| {
                if meets(model.geom_type[g]) {
                    eligibility(model, g)
                } else {
                    Eligible::No
                }
            })
            .collect();
        let nslot = table_len(
            eligible.iter().filter(|&&e| e != Eligible::No).count(),
            SLOTS_PER_GEOM,
        );
        SeparationCache {
            slots: vec![EMPTY_SLOT; nslot],
            shift: table_shift(nslot),
            eligible,
        }
    }

    /// An empty table of `per_geom` slots per eligible geom (rounded up to a power of two; none
    /// for 0), for one world of a batch: it holds no per-geom data, so it serves only through
    /// [`SeparationCache::swap_table`] with the cache it was made from.
    pub fn world_table(&self, per_geom: usize) -> SeparationCache {
        let nslot = self.world_len(per_geom);
        SeparationCache {
            slots: vec![EMPTY_SLOT; nslot],
            shift: table_shift(nslot),
            eligible: Vec::new(),
        }
    }

    /// Slots of [`SeparationCache::world_table`].
    fn world_len(&self, per_geom: usize) -> usize {
        table_len(
            self.eligible.iter().filter(|&&e| e != Eligible::No).count(),
            per_geom,
        )
    }

    /// Bytes [`SeparationCache::world_table`] would hold, without making it.
    pub fn world_table_bytes(&self, per_geom: usize) -> usize {
        self.world_len(per_geom) * std::mem::size_of::<Slot>()
    }

    /// Exchanges the tables of two caches of one model (see [`SeparationCache::world_table`]).
    pub fn swap_table(&mut self, other: &mut SeparationCache) {
        std::mem::swap(&mut self.slots, &mut other.slots);
        std::mem::swap(&mut self.shift, &mut other.shift);
    }

    /// Bytes held by the table.
    pub fn table_bytes(&self) -> usize {
        self.slots.len() * std::mem::size_of::<Slot>()
    }

    /// The slot of pair `(g1, g2)` and its key (`None` for an empty table).
    #[inline]
    fn slot(&self, g1: usize, g2: usize) -> Option<(usize, u64)> {
        pair_slot(self.slots.len(), self.shift, g1, g2)
    }

    /// True when the cached direction of pair `(g1, g2)` proves that the native solver reports
    /// no contact for `c1`, `c2` (geoms `g1`, `g2`) at detection threshold `margin` and
    /// tolerance `tol`. False when nothing is cached or the proof fails.
    #[inline]
    pub fn proves_separated(
        &mut self,
        g1: usize,
        g2: usize,
        c1: &ConvexGeom,
        c2: &ConvexGeom,
        margin: f64,
        tol: f64,
    ) -> bool {
        match self.slot(g1, g2) {
            Some((i, key)) if self.slots[i].key == key => {
                self.prove(i, g1, g2, c1, c2, margin, tol)
            }
            _ => false,
        }
    }

    /// [`SeparationCache::proves_separated`] for a pair cached in slot `i` (only eligible geoms
    /// are cached).
    ///
    /// Mesh support values come first from the cached ones: for unit `l`, `l0` and a shape
    /// within radius `R` of its origin, `|h(l) - h(l0)| <= |l - l0| R`. Only when these bounds
    /// do not decide are the exact values computed (and cached).
    #[allow(clippy::too_many_arguments)]
    fn prove(
        &mut self,
        i: usize,
        g1: usize,
        g2: usize,
        c1: &ConvexGeom,
        c2: &ConvexGeom,
        margin: f64,
        tol: f64,
    ) -> bool {
        let (e1, e2) = (self.eligible[g1], self.eligible[g2]);
        let slot = &mut self.slots[i];
        let w = c1.mat * slot.dir;
        let d = w * (1.0 / w.length());
        let l1 = c1.mat.transpose() * d;
        let l2 = c2.mat.transpose() * -d;
        // (then every support value below is finite: eligible hulls have finite vertices)
        if !(l1.is_finite() && l2.is_finite()) {
            return false;
        }
        let bound = if is_round(c1.kind) || is_round(c2.kind) || margin > 0.0 {
            // the solver's radii plus half margins, summed as it does
            let fm1 = core_radius(c1.kind, c1.size) + 0.5 * margin;
            let fm2 = core_radius(c2.kind, c2.size) + 0.5 * margin;
            tol.max(fm1 + fm2)
        } else {
            tol
        };
        let centres = d.dot(c2.pos - c1.pos);
        let pos_scale = 1.0 + c1.pos.abs().max_element() + c2.pos.abs().max_element();
        // `true` when separated with support values `h1`, `h2` (upper bounds suffice)
        let proves = |h1: f64, h2: f64| {
            centres - h1 - h2 > bound + SLACK * (pos_scale + h1.abs() + h2.abs())
        };

        // support values, or for meshes the cached values and their error bounds
        let (mut h1, err1) = match e1 {
            Eligible::Climb(r) | Eligible::Scan(r) => (slot.h1, (l1 - slot.dir).length() * r),
            _ => match primitive_support(c1, l1) {
                Some(h) => (h, 0.0),
                None => return false,
            },
        };
        let (mut h2, mut err2) = match e2 {
            Eligible::Climb(r) | Eligible::Scan(r) => {
                (slot.anchor2.1, (l2 - slot.anchor2.0).length() * r)
            }
            _ => match primitive_support(c2, l2) {
                Some(h) => (h, 0.0),
                None => return false,
            },
        };
        if proves(h1 + err1, h2 + err2) {
            return true;
        }
        // give up without computing the exact values when even their lower bounds fail
        if !(h1.is_nan() || h2.is_nan() || proves(h1 - err1, h2 - err2)) {
            return false;
        }
        // geom 1's value belongs to `dir` itself, computed once; geom 2's is re-anchored
        if h1.is_nan() {
            h1 = match mesh_support(c1, e1, slot.dir, &mut slot.hint[0]) {
                Some(h) => h,
                None => return false,
            };
            slot.h1 = h1;
        }
        if err2 > 0.0 || h2.is_nan() {
            h2 = match mesh_support(c2, e2, l2, &mut slot.hint[1]) {
                Some(h) => h,
                None => return false,
            };
            slot.anchor2 = (l2, h2);
            err2 = 0.0;
        }
        proves(h1 + err1, h2 + err2)
    }

    /// Records the outcome of a solve of pair `(g1, g2)` (geom 1 is `c1`): `separation` is how
    /// the solver found the pair separated when that is why it reported no contact, `None`
    /// otherwise (the entry is dropped).
    pub fn record(
        &mut self,
        g1: usize,
        g2: usize,
        c1: &ConvexGeom,
        separation: Option<Separation>,
    ) {
        let Some((i, key)) = self.slot(g1, g2) else {
            return;
        };
        let eligible = |g: usize| self.eligible.get(g).is_some_and(|&e| e != Eligible::No);
        if !(eligible(g1) && eligible(g2)) {
            return;
        }
        let slot = &mut self.slots[i];
        let local = separation.map(|s| (c1.mat.transpose() * s.dir, s.feature));
        match local {
            Some((l, feature)) if l.is_finite() && l.length_squared() > 0.0 => {
                slot.key = key;
                slot.dir = l * (1.0 / l.length());
                slot.h1 = f64::NAN;
                slot.anchor2.1 = f64::NAN;
                // the solver's support vertices along about `±dir`: the climbs start there
                slot.hint = feature;
            }
            _ => {
                if slot.key == key {
                    slot.key = EMPTY;
                }
            }
        }
    }
}

/// Whether a geom of a given type can reach the convex solver against a geom of `model` whose
/// type passes `partner`: their pair dispatches to it, or to an sdf path that the exact mesh
/// path may send there. Tables are sized for these geoms only.
pub(super) fn meets_convex_solver(
    model: &Model,
    partner: impl Fn(GeomType) -> bool,
) -> impl Fn(GeomType) -> bool {
    let mut present: Vec<GeomType> = model.geom_type.clone();
    present.sort();
    present.dedup();
    present.retain(|&u| partner(u));
    move |t: GeomType| {
        present.iter().any(|&u| {
            matches!(
                dispatch(t.min(u), t.max(u)),
                Dispatch::Convex | Dispatch::Sdf | Dispatch::MeshSdf
            )
        })
    }
}

/// Slots of a per-pair table for `n` eligible geoms at `per_geom` slots each: a power of two
/// (at least 2), 0 when no pair can be cached or `per_geom` is 0.
pub(super) fn table_len(n: usize, per_geom: usize) -> usize {
    if n < 2 || per_geom == 0 {
        0
    } else {
        (n * per_geom).next_power_of_two().min(MAX_SLOTS)
    }
}

/// Hash shift of a table of `len` slots ([`table_len`]): the hash keeps the top bits.
pub(super) fn table_shift(len: usize) -> u32 {
    64 - len.max(1).trailing_zeros()
}

/// Slot and key of pair `(g1, g2)` in a table of `len` slots with shift `shift`; `None` for an
/// empty table. The key `(g1 << 32) | g2` is unique (geom indices are far below 2^32).
#[inline]
pub(super) fn pair_slot(len: usize, shift: u32, g1: usize, g2: usize) -> Option<(usize, u64)> {
    if len == 0 {
        return None;
    }
    let key = ((g1 as u64) << 32) | g2 as u64;
    // Fibonacci hashing: the top bits of the product
    let i = (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> shift) as usize;
    Some((i, key))
}

/// `max p · l` over the geom's core (see the module docs) in its frame, for the local
/// direction `l`, for the primitive geoms; `None` for others.
fn primitive_support(c: &ConvexGeom, l: DVec3) -> Option<f64> {
    let s = c.size;
    match c.kind {
        GeomType::Sphere => Some(0.0),
        GeomType::Capsule => Some(s.y * l.z.abs()),
        GeomType::Ellipsoid => Some((l * s).length()),
        GeomType::Cylinder => Some(s.x * (l.x * l.x + l.y * l.y).sqrt() + s.y * l.z.abs()),
        GeomType::Box => Some(l.abs().dot(s)),
        GeomType::Mesh | GeomType::Plane | GeomType::HField | GeomType::Sdf => None,
    }
}

/// `max v · l` over a mesh geom's hull vertices for the local direction `l`; `hint` is the
/// hill climb's warm start. `None` for other geoms or when the search fails.
fn mesh_support(c: &ConvexGeom, e: Eligible, l: DVec3, hint: &mut i32) -> Option<f64> {
    match e {
        Eligible::Climb(_) => hill_climb(c.hull?, l, hint),
        Eligible::Scan(_) => Some(scan(c.hull?, l)),
        Eligible::No | Eligible::Primitive => None,
    }
}

/// Largest `l · v` over the hull vertices.
fn scan(hull: &ConvexHull, l: DVec3) -> f64 {
    hull.vert
        .iter()
        .fold(f64::NEG_INFINITY, |best, v| best.max(l.dot(*v)))
}

/// Largest `l · v` over the hull vertices by hill climbing on the hull graph from `hint` (or
/// from the vertex of the hull's extrema table nearest to `l`'s direction), which it updates.
/// On a convex hull a vertex with no better neighbour maximizes `l · v`, and every step
/// strictly improves, so the climb settles on a maximizer.
fn hill_climb(hull: &ConvexHull, l: DVec3, hint: &mut i32) -> Option<f64> {
    let verts = hull.vert.as_slice();
    let start = match usize::try_from(*hint) {
        Ok(h) if h < verts.len() => h,
        _ => hull.extrema[extrema_bucket(l)] as usize,
    };
    let dot = |v: &DVec3| l.x * v.x + l.y * v.y + l.z * v.z;
    let cur = hull.graph.climb(l, start, dot(verts.get(start)?));
    *hint = cur as i32;
    verts.get(cur).map(dot)
}

/// How the cache may treat geom `g` (see the module docs).
fn eligibility(m: &Model, g: usize) -> Eligible {
    let t = m.geom_type[g];
    let s = m.geom_size[g];
    let sizes_ok = s.is_finite() && s.min_element() >= 0.0;
    match t {
        GeomType::Sphere
        | GeomType::Capsule
        | GeomType::Ellipsoid
        | GeomType::Cylinder
        | GeomType::Box
            if sizes_ok =>
        {
            Eligible::Primitive
        }
        GeomType::Mesh => {
            let hull = m.geom_dataid[g]
                .and_then(|i| m.mesh.get(i))
                .and_then(|x| x.hull.as_ref());
            match hull {
                Some(h) if hull_contains_origin(h) => {
                    let radius = h.vert.iter().map(|v| v.length()).fold(0.0, f64::max);
                    if h.vert.len() >= SCAN_BELOW && valid_graph(h) {
                        Eligible::Climb(radius)
                    } else {
                        Eligible::Scan(radius)
                    }
                }
                _ => Eligible::No,
            }
        }
        _ => Eligible::No,
    }
}

/// Finite vertices, at least one face, and the origin inside every face's plane (up to
/// 1e-12 of the hull's size).
fn hull_contains_origin(h: &ConvexHull) -> bool {
    let n = h.vert.len();
    if n == 0 || h.face.is_empty() || !h.vert.iter().all(|v| v.is_finite()) {
        return false;
    }
    let size = h
        .vert
        .iter()
        .map(|v| v.abs().max_element())
        .fold(0.0, f64::max);
    h.face.iter().all(|f| {
        let [a, b, c] = f.map(|i| h.vert.get(i as usize).copied());
        let (Some(a), Some(b), Some(c)) = (a, b, c) else {
            return false;
        };
        // outward normal (faces are counter-clockwise seen from outside); the origin is
        // inside when it is behind the face: `nrm · (0 - a) <= 0`
        let nrm = (b - a).cross(c - a);
        nrm.dot(a) >= -1e-12 * size * nrm.length()
    })
}

/// The hull has a vertex graph and its extrema table points at hull vertices.
fn valid_graph(h: &ConvexHull) -> bool {
    !h.graph.is_empty() && h.extrema.iter().all(|&j| (j as usize) < h.vert.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A regular tetrahedron about the origin moved by `shift`, faces counter-clockwise seen
    /// from outside.
    fn tetrahedron(shift: DVec3) -> ConvexHull {
        let corners = [
            DVec3::new(1.0, 1.0, 1.0),
            DVec3::new(1.0, -1.0, -1.0),
            DVec3::new(-1.0, 1.0, -1.0),
            DVec3::new(-1.0, -1.0, 1.0),
        ];
        let face = [[0u32, 1, 2], [0, 3, 1], [0, 2, 3], [1, 3, 2]];
        // every face's normal points away from the opposite corner
        for f in &face {
            let [a, b, c] = f.map(|i| corners[i as usize]);
            let opposite = (0..4).find(|i| !f.contains(i)).map(|i| corners[i as usize]);
            assert!((b - a).cross(c - a).dot(a - opposite.unwrap()) > 0.0);
        }
        ConvexHull {
            vert: corners.iter().map(|&v| v + shift).collect(),
            face: face.to_vec(),
            ..ConvexHull::default()
        }
    }

    #[test]
    fn mesh_hull_beside_its_frame_origin_is_not_eligible() {
        assert!(hull_contains_origin(&tetrahedron(DVec3::ZERO)));
        assert!(hull_contains_origin(&tetrahedron(DVec3::new(
            0.3, -0.2, 0.1
        ))));
        // GJK may start from the frame origins: it must lie in the hull
        assert!(!hull_contains_origin(&tetrahedron(DVec3::new(
            0.0, 0.0, 1.5
        ))));
        assert!(!hull_contains_origin(&ConvexHull::default()));
    }
}
