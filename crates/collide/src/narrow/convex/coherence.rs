//! Temporal coherence for touching pairs of polytopes: per geom pair, the feature ids (box
//! corner bits, mesh hull vertices) of the four support points of the GJK tetrahedron that
//! enclosed the origin at the pair's last solve. The next call rebuilds that tetrahedron at the
//! new poses (eight transformed vertices, no support search) and, when it still encloses the
//! origin with every barycentric coordinate at least [`MIN_BARYCENTRIC`], starts EPA from it
//! instead of running GJK from the centres (as Genesis caches witness vertices; Box2D and Jolt
//! keep contact features between steps). Otherwise the solver runs as usual.
//!
//! # Which pairs, and what changes
//! Only pairs of "discrete" shapes: boxes and meshes (as their hulls) at zero margin, with no
//! sphere or capsule, so that the solver goes straight to GJK on the shapes and EPA converges
//! to machine precision (tolerance `1e-15`, see `epa.rs`).
//!
//! The rebuilt tetrahedron has its vertices in the Minkowski difference, so enclosing the
//! origin proves the overlap that GJK would have found. EPA from any tetrahedron enclosing the
//! origin converges to the same thing for polytopes: the facet of the Minkowski difference
//! nearest the origin, i.e. the penetration depth and normal, up to rounding. What may differ
//! from a solve from the centres (MuJoCo's) is the triangle of that facet EPA ends on, hence the
//! witness points of a single contact (both on the same facet) and, through the features it
//! touches, the multi-contact step's choice where it is ambiguous; depth and normal agree to
//! rounding unless two facets tie for nearest. The conformance criteria for convex pairs
//! (counts, deepest `dist` within 1e-6, normal within 1e-3 rad) hold on the corpus with the
//! cache, and contacts depend on earlier calls only this far (test
//! `touching_cache_matches_a_fresh_collider_within_tolerance`). Pairs of other shapes, and
//! every first call, are bit for bit MuJoCo's.
//!
//! When EPA from the cached tetrahedron finds no contact (a degenerate polytope), the pair is
//! solved from scratch, so "no contact" never comes from the cache.
//!
//! # Storage
//! A direct-mapped table, sized and hashed as the separation cache's (`separation.rs`); a pair
//! hashed to an occupied slot overwrites it. Nothing allocates after construction.

use super::separation::{pair_slot, table_len, table_shift, EMPTY};
use super::support::{Object, Vertex};
use crate::model::{GeomType, Model};

/// Feature ids `[geom 1, geom 2]` of the four support points of a GJK tetrahedron.
pub(crate) type TetraIds = [[i32; 2]; 4];

/// The cached tetrahedron is used only when the origin's barycentric coordinates in it are all
/// at least this (the origin well inside, away from EPA's degenerate starts).
pub const MIN_BARYCENTRIC: f64 = 1e-3;

/// Per-collider cache of the GJK tetrahedra of touching polytope pairs (see the module docs).
#[derive(Clone, Debug)]
pub struct TouchingCache {
    /// `(key, ids)`; key `(geom1 << 32) | geom2` or `EMPTY`.
    slots: Vec<(u64, TetraIds)>,
    shift: u32,
    /// Per geom: a box or a mesh with a hull (its feature ids name points).
    eligible: Vec<bool>,
}

impl TouchingCache {
    /// An empty cache for `model`'s geoms.
    pub fn new(model: &Model) -> TouchingCache {
        let eligible: Vec<bool> = (0..model.ngeom())
            .map(|g| match model.geom_type[g] {
                GeomType::Box => true,
                GeomType::Mesh => model.geom_dataid[g]
                    .and_then(|i| model.mesh.get(i))
                    .is_some_and(|m| m.hull.is_some()),
                _ => false,
            })
            .collect();
        let len = table_len(eligible.iter().filter(|&&e| e).count());
        TouchingCache {
            slots: vec![(EMPTY, [[-1; 2]; 4]); len],
            shift: table_shift(len),
            eligible,
        }
    }

    /// The slot of pair `(g1, g2)` when both geoms are eligible.
    #[inline]
    fn slot(&self, g1: usize, g2: usize) -> Option<(usize, u64)> {
        let ok = |g: usize| self.eligible.get(g).copied().unwrap_or(false);
        if !(ok(g1) && ok(g2)) {
            return None;
        }
        pair_slot(self.slots.len(), self.shift, g1, g2)
    }

    /// The tetrahedron cached for pair `(g1, g2)`, if any.
    #[inline]
    pub fn get(&self, g1: usize, g2: usize) -> Option<TetraIds> {
        let (i, key) = self.slot(g1, g2)?;
        let (k, ids) = self.slots[i];
        (k == key).then_some(ids)
    }

    /// Stores the pair's tetrahedron after a solve (`None`: the pair's entry is dropped).
    #[inline]
    pub fn record(&mut self, g1: usize, g2: usize, ids: Option<TetraIds>) {
        let Some((i, key)) = self.slot(g1, g2) else {
            return;
        };
        match ids {
            Some(ids) => self.slots[i] = (key, ids),
            None if self.slots[i].0 == key => self.slots[i].0 = EMPTY,
            None => {}
        }
    }
}

/// The feature ids of a GJK tetrahedron (the solver's simplex of four vertices).
pub(super) fn tetra_ids(s: &[Vertex; 4]) -> TetraIds {
    s.map(|v| [v.index1, v.index2])
}

/// Rebuilds the tetrahedron of `ids` at the objects' current poses (uninflated: only for
/// objects at zero margin); `None` when an id names no point or the origin is not well inside
/// (every barycentric coordinate at least [`MIN_BARYCENTRIC`]).
pub(super) fn enclosing_tetrahedron(
    o1: &Object,
    o2: &Object,
    ids: &TetraIds,
) -> Option<[Vertex; 4]> {
    let mut s = [Vertex::default(); 4];
    for (v, &[i1, i2]) in s.iter_mut().zip(ids) {
        let (p1, p2) = (o1.feature_point(i1)?, o2.feature_point(i2)?);
        *v = Vertex {
            vert: p1 - p2,
            vert1: p1,
            vert2: p2,
            raw1: p1,
            raw2: p2,
            index1: i1,
            index2: i2,
        };
    }
    let [a, b, c, d] = s.map(|v| v.vert);
    // six times the signed volumes of the tetrahedra with the origin in place of each vertex,
    // and of the whole
    let vol = |p: glam::DVec3, q: glam::DVec3, r: glam::DVec3, t: glam::DVec3| {
        (q - p).cross(r - p).dot(t - p)
    };
    let o = glam::DVec3::ZERO;
    let total = vol(a, b, c, d);
    let parts = [
        vol(o, b, c, d),
        vol(a, o, c, d),
        vol(a, b, o, d),
        vol(a, b, c, o),
    ];
    // (false for a flat or non-finite tetrahedron: NaN fails every comparison)
    let inside = total != 0.0 && parts.iter().all(|&p| p / total >= MIN_BARYCENTRIC);
    inside.then_some(s)
}
