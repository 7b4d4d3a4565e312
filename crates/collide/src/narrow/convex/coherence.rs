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

use glam::DVec3;

use super::separation::{pair_slot, table_len, table_shift, EMPTY};
use super::support::{Object, Vertex};
use crate::model::{GeomType, Model};

/// Feature ids `[geom 1, geom 2]` of the four support points of a GJK tetrahedron.
pub(crate) type TetraIds = [[i32; 2]; 4];

/// The cached tetrahedron is used only when the origin's barycentric coordinates in it are all
/// at least this: strictly inside, up to rounding of the volumes (GJK itself hands EPA any
/// tetrahedron with positive coordinates; 1e-3 instead lost about a tenth of the hits on the
/// mesh piles, with the same conformance).
pub const MIN_BARYCENTRIC: f64 = 1e-9;

/// Per-collider cache of the GJK tetrahedra of touching polytope pairs (see the module docs).
#[derive(Clone, Debug)]
pub struct TouchingCache {
    /// `(key, ids)`; key `(geom1 << 32) | geom2` or `EMPTY`.
    slots: Vec<(u64, TetraIds)>,
    shift: u32,
}

/// Geom types whose feature ids name points: box corners and mesh hull vertices (a mesh without
/// a hull never reaches the solver).
#[inline]
pub(crate) fn is_polytope(t: GeomType) -> bool {
    matches!(t, GeomType::Box | GeomType::Mesh)
}

impl TouchingCache {
    /// An empty cache for `model`'s geoms.
    pub fn new(model: &Model) -> TouchingCache {
        let len = table_len(model.geom_type.iter().filter(|&&t| is_polytope(t)).count());
        TouchingCache {
            slots: vec![(EMPTY, [[-1; 2]; 4]); len],
            shift: table_shift(len),
        }
    }

    /// A cache that never holds anything (for colliders whose consecutive calls are unrelated
    /// worlds, see [`crate::BatchCollider`]).
    pub fn disabled() -> TouchingCache {
        TouchingCache {
            slots: Vec::new(),
            shift: table_shift(0),
        }
    }

    /// The tetrahedron cached for pair `(g1, g2)` (both [`is_polytope`]), if any.
    #[inline]
    pub fn get(&self, g1: usize, g2: usize) -> Option<TetraIds> {
        let (i, key) = pair_slot(self.slots.len(), self.shift, g1, g2)?;
        let (k, ids) = self.slots[i];
        (k == key).then_some(ids)
    }

    /// Stores the tetrahedron of pair `(g1, g2)` (both [`is_polytope`]) after a solve (`None`:
    /// the pair's entry is dropped).
    #[inline]
    pub fn record(&mut self, g1: usize, g2: usize, ids: Option<TetraIds>) {
        let Some((i, key)) = pair_slot(self.slots.len(), self.shift, g1, g2) else {
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
/// objects at zero margin) into `out` and returns true when the origin is well inside (every
/// barycentric coordinate at least [`MIN_BARYCENTRIC`]); false (and `out` untouched) when not
/// or when an id names no point.
pub(super) fn enclosing_tetrahedron(
    o1: &Object,
    o2: &Object,
    ids: &TetraIds,
    out: &mut [Vertex; 4],
) -> bool {
    let (mut p1, mut p2) = ([DVec3::ZERO; 4], [DVec3::ZERO; 4]);
    for k in 0..4 {
        match (o1.feature_point(ids[k][0]), o2.feature_point(ids[k][1])) {
            (Some(a), Some(b)) => (p1[k], p2[k]) = (a, b),
            _ => return false,
        }
    }
    let [a, b, c, d] = [0, 1, 2, 3].map(|k| p1[k] - p2[k]);
    // six times the signed volumes of the whole and of the tetrahedra with the origin in place
    // of each vertex
    let vol = |p: DVec3, q: DVec3, r: DVec3, t: DVec3| (q - p).cross(r - p).dot(t - p);
    let o = DVec3::ZERO;
    let total = vol(a, b, c, d);
    let parts = [
        vol(o, b, c, d),
        vol(a, o, c, d),
        vol(a, b, o, d),
        vol(a, b, c, o),
    ];
    // (false for a flat or non-finite tetrahedron: NaN fails every comparison)
    if !(total != 0.0 && parts.iter().all(|&p| p / total >= MIN_BARYCENTRIC)) {
        return false;
    }
    for (k, v) in out.iter_mut().enumerate() {
        *v = Vertex {
            vert: p1[k] - p2[k],
            vert1: p1[k],
            vert2: p2[k],
            raw1: p1[k],
            raw2: p2[k],
            index1: ids[k][0],
            index2: ids[k][1],
        };
    }
    true
}
