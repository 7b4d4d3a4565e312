//! Temporal coherence for touching pairs of polytopes. Per geom pair, two things from earlier
//! calls, tried in this order:
//!
//! 1. **EPA's surface** (kept after a warm start below converged): the feature ids of the
//!    vertices of EPA's final polytope and its triangles. Rebuilt at the new poses, it proves
//!    the penetration depth without GJK or EPA when EPA's own stopping rules hold on it (below).
//! 2. **GJK's tetrahedron**: the feature ids (box corner bits, mesh hull vertices) of the four
//!    support points of the GJK tetrahedron that enclosed the origin at the pair's last solve.
//!    The next call rebuilds it at the new poses (eight transformed vertices, no support
//!    search) and, when it still encloses the origin with every barycentric coordinate at least
//!    [`MIN_BARYCENTRIC`], starts EPA from it instead of running GJK from the centres (as
//!    Genesis caches witness vertices; Box2D and Jolt keep contact features between steps).
//!
//! Otherwise the solver runs as usual.
//!
//! # Why the rebuilt surface proves the depth
//! Every rebuilt vertex `a_i - b_j` is a point of the Minkowski difference `M = A - B`, whose
//! support function `h_M` gives the penetration depth `p = min over unit n of h_M(n)`. The
//! surface is closed, its triangles wound consistently (each edge crossed in opposite
//! directions by its two faces, checked when it is stored). If every triangle `(a, b, c)` still
//! has `det(a, b, c) > 0` (the origin strictly behind it), the radial projection of the surface
//! onto the unit sphere covers every direction (its degree is at least 1, every face counting
//! +1), so the ray from the origin along any `n` meets some face at a point `x` of the convex
//! hull of the rebuilt points, inside `M`: `h_M(n) >= n · x = |x| >= d_f`, the plane distance of
//! that face. Hence `p >= d_min`, the smallest plane distance over the faces. Along that face's
//! normal `n*`, `h_M(n*)` is one support query; when it is within EPA's tolerance of `d_min`, or
//! its support point is one of the face's own vertices (EPA's "repeated vertex" stop), the
//! depth is `d_min` to that tolerance and the face is the one EPA would stop on. A surface that
//! fails either test is dropped for one call (EPA then starts from the tetrahedron).
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
//! rounding unless two facets tie for nearest. The same holds for the surface's face. The
//! conformance criteria for convex pairs (counts, deepest `dist` within 1e-6, normal within
//! 1e-3 rad) hold on the corpus with the cache, and contacts depend on earlier calls only this
//! far (tests `touching_cache_matches_a_fresh_collider_within_tolerance`,
//! `cached_epa_surface_proves_the_depth_only_while_it_holds`). Pairs of other shapes, and every
//! first call, are bit for bit MuJoCo's.
//!
//! The surface is kept only after a warm start from the tetrahedron converged, so streams of
//! unrelated poses (random configurations) never pay for it. When EPA from the cached
//! tetrahedron finds no contact (a degenerate polytope), the pair is solved from scratch, so
//! "no contact" never comes from the cache.
//!
//! # Storage
//! A two-way set-associative table, sized and hashed as the separation cache's
//! (`separation.rs`): a pair lives in one of the two slots of its set ([`way`]), and a new
//! pair whose two slots hold other pairs overwrites the first. A slot
//! is 256 bytes (the surface at most [`SURFACE_VERTS`] vertices and [`SURFACE_FACES`] faces).
//! Nothing allocates after construction; a batch keeps one smaller table per world
//! ([`crate::Collider::world_cache`]).

use glam::DVec3;

use super::separation::{
    meets_convex_solver, pair_slot, table_len, table_shift, EMPTY, SLOTS_PER_GEOM,
};
use super::support::{Object, Vertex};
use crate::model::{GeomType, Model};

/// Feature ids `[geom 1, geom 2]` of the four support points of a GJK tetrahedron.
pub(crate) type TetraIds = [[i32; 2]; 4];

/// The cached tetrahedron is used only when the origin's barycentric coordinates in it are all
/// at least this: strictly inside, up to rounding of the volumes (GJK itself hands EPA any
/// tetrahedron with positive coordinates; 1e-3 instead lost about a tenth of the hits on the
/// mesh piles, with the same conformance).
pub const MIN_BARYCENTRIC: f64 = 1e-9;

/// Most vertices of a cached EPA surface (16 and 28 hold every converged surface of the mesh
/// scenes of the benchmark set; larger ones are not cached).
pub(crate) const SURFACE_VERTS: usize = 16;
/// Most faces of a cached EPA surface.
pub(crate) const SURFACE_FACES: usize = 28;

/// The closed surface of a converged EPA run as feature ids: vertices `[geom 1, geom 2]` and
/// triangles wound so that every face turns its front (counter-clockwise) side away from the
/// origin, each edge shared by two faces running opposite ways. See the module docs for why
/// rebuilding it at new poses can prove the penetration depth.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Surface {
    /// Vertices used (0: nothing cached).
    pub(super) nverts: u8,
    /// Faces (0: nothing cached).
    pub(super) nfaces: u8,
    pub(super) ids: [[i32; 2]; SURFACE_VERTS],
    pub(super) faces: [[u8; 3]; SURFACE_FACES],
}

impl Surface {
    /// Nothing cached.
    pub(super) const EMPTY: Surface = Surface {
        nverts: 0,
        nfaces: 0,
        ids: [[-1; 2]; SURFACE_VERTS],
        faces: [[0; 3]; SURFACE_FACES],
    };
}

/// One pair's entry: the GJK tetrahedron and, when it fitted, the last converged EPA surface.
#[derive(Clone, Copy, Debug)]
struct Entry {
    /// `(geom1 << 32) | geom2`, or `EMPTY`.
    key: u64,
    tetra: TetraIds,
    surface: Surface,
}

/// Per-collider cache of the GJK tetrahedra and EPA surfaces of touching polytope pairs (see the
/// module docs).
#[derive(Clone, Debug)]
pub struct TouchingCache {
    slots: Vec<Entry>,
    shift: u32,
    /// Box and mesh geoms the table is sized for: those that can meet another through the
    /// convex solver (0 when disabled).
    geoms: usize,
}

/// Geom types whose feature ids name points: box corners and mesh hull vertices (a mesh without
/// a hull never reaches the solver).
#[inline]
pub(crate) fn is_polytope(t: GeomType) -> bool {
    matches!(t, GeomType::Box | GeomType::Mesh)
}

impl TouchingCache {
    /// An empty cache for `model`'s box and mesh geoms that can meet another through the convex
    /// solver (none for boxes without meshes, whose pairs are analytic).
    pub fn new(model: &Model) -> TouchingCache {
        let meets = meets_convex_solver(model, is_polytope);
        let geoms = model
            .geom_type
            .iter()
            .filter(|&&t| is_polytope(t) && meets(t))
            .count();
        TouchingCache::sized(geoms, SLOTS_PER_GEOM)
    }

    fn sized(geoms: usize, per_geom: usize) -> TouchingCache {
        let len = table_len(geoms, per_geom);
        TouchingCache {
            slots: vec![
                Entry {
                    key: EMPTY,
                    tetra: [[-1; 2]; 4],
                    surface: Surface::EMPTY,
                };
                len
            ],
            shift: table_shift(len),
            geoms,
        }
    }

    /// An empty cache for the same geoms with `per_geom` slots each (rounded up to a power of
    /// two; none for 0), for one world of a batch; nothing for a disabled cache.
    pub fn world_table(&self, per_geom: usize) -> TouchingCache {
        TouchingCache::sized(self.geoms, per_geom)
    }

    /// Bytes [`TouchingCache::world_table`] would hold, without making it.
    pub fn world_table_bytes(&self, per_geom: usize) -> usize {
        table_len(self.geoms, per_geom) * std::mem::size_of::<Entry>()
    }

    /// Bytes held by the table.
    pub fn table_bytes(&self) -> usize {
        self.slots.len() * std::mem::size_of::<Entry>()
    }

    /// A cache that never holds anything (for colliders without warm starts).
    pub fn disabled() -> TouchingCache {
        TouchingCache::sized(0, 0)
    }

    /// The slot of pair `(g1, g2)` (both [`is_polytope`]); `None` when the cache is disabled.
    #[inline]
    pub fn slot(&mut self, g1: usize, g2: usize) -> Option<WarmSlot<'_>> {
        let (i, key) = pair_slot(self.slots.len(), self.shift, g1, g2)?;
        let i = way(i, key, |k| self.slots[k].key);
        Some(WarmSlot {
            entry: &mut self.slots[i],
            key,
        })
    }
}

/// Of the two slots of `key`'s set (`i`, from [`pair_slot`], and `i ^ 1`), the one holding it,
/// else the first empty one, else `i` (the pair there is evicted when `key` is stored).
/// `key_at(k)` is slot `k`'s key.
#[inline]
fn way(i: usize, key: u64, key_at: impl Fn(usize) -> u64) -> usize {
    // (the first slot alone in the common case: the pair is there)
    let ki = key_at(i);
    if ki == key {
        return i;
    }
    let j = i ^ 1;
    let kj = key_at(j);
    if kj == key || (ki != EMPTY && kj == EMPTY) {
        j
    } else {
        i
    }
}

/// A pair's place in the [`TouchingCache`], handed to the solver: what it holds for the pair
/// (if the slot is the pair's), and where the solver keeps what the next call starts from.
pub(crate) struct WarmSlot<'a> {
    entry: &'a mut Entry,
    key: u64,
}

impl WarmSlot<'_> {
    /// The pair's cached tetrahedron, if the slot holds the pair.
    #[inline]
    pub(super) fn tetra(&self) -> Option<TetraIds> {
        (self.entry.key == self.key).then_some(self.entry.tetra)
    }

    /// The pair's cached EPA surface, if the slot holds the pair and one was kept.
    #[inline]
    pub(super) fn surface(&self) -> Option<&Surface> {
        (self.entry.key == self.key && self.entry.surface.nfaces > 0).then_some(&self.entry.surface)
    }

    /// Keeps `tetra` for the pair and returns its surface to fill (emptied).
    #[inline]
    pub(super) fn keep(&mut self, tetra: TetraIds) -> &mut Surface {
        self.entry.key = self.key;
        self.entry.tetra = tetra;
        self.entry.surface.nfaces = 0;
        self.entry.surface.nverts = 0;
        &mut self.entry.surface
    }

    /// Drops the pair's entry (a slot holding another pair is left alone).
    #[inline]
    pub(super) fn forget(&mut self) {
        if self.entry.key == self.key {
            self.entry.key = EMPTY;
        }
    }
}

/// The solver vertex named by feature ids `id` (`[geom 1, geom 2]`) at the objects' current
/// poses (uninflated: only for objects at zero margin); `None` when an id names no point.
fn vertex_at(o1: &Object, o2: &Object, id: [i32; 2]) -> Option<Vertex> {
    let (a, b) = (o1.feature_point(id[0])?, o2.feature_point(id[1])?);
    Some(Vertex {
        vert: a - b,
        vert1: a,
        vert2: b,
        raw1: a,
        raw2: b,
        index1: id[0],
        index2: id[1],
    })
}

/// Rebuilds `surface` at the objects' current poses into `pts` and returns its face nearest the
/// origin, when every face still has the origin strictly behind it (see the module docs: that
/// face's plane distance is then a lower bound of the penetration depth); `None` when not, or
/// when an id names no point. Ties go to the first face.
pub(super) fn nearest_face(
    o1: &Object,
    o2: &Object,
    surface: &Surface,
    pts: &mut [Vertex; SURFACE_VERTS],
) -> Option<usize> {
    let nv = usize::from(surface.nverts);
    for (v, &id) in pts.iter_mut().zip(&surface.ids).take(nv) {
        *v = vertex_at(o1, o2, id)?;
    }
    let (mut best, mut best2) = (None, f64::INFINITY);
    for (fi, f) in surface.faces[..usize::from(surface.nfaces)]
        .iter()
        .enumerate()
    {
        let [a, b, c] = f.map(|k| pts[usize::from(k)].vert);
        let n = (b - a).cross(c - a);
        // `n · a` is six times the volume of the tetrahedron (origin, face): the origin behind
        // the face, strictly (NaN fails too)
        let det = n.dot(a);
        if det.is_nan() || det <= 0.0 {
            return None;
        }
        // the squared plane distance
        let d2 = det * det / n.dot(n);
        if d2 < best2 {
            (best, best2) = (Some(fi), d2);
        }
    }
    best
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
    // the points alone until the test passes (four whole vertices built up front, as
    // `vertex_at` does, cost about 1% of the resting scenes' instructions)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_pairs_of_one_set_are_both_kept_and_a_third_evicts_the_first_slot() {
        let mut keys = [EMPTY; 8];
        let store = |keys: &mut [u64; 8], i: usize, key: u64| {
            let k = way(i, key, |k| keys[k]);
            keys[k] = key;
            k
        };
        // slots 4 and 5 form a set: a pair hashed to either slot goes to the first free one
        assert_eq!(store(&mut keys, 5, 10), 5);
        assert_eq!(store(&mut keys, 5, 11), 4);
        // both are found again, wherever they were put
        assert_eq!(way(5, 10, |k| keys[k]), 5);
        assert_eq!(way(5, 11, |k| keys[k]), 4);
        assert_eq!(way(4, 10, |k| keys[k]), 5);
        // a third pair of the set takes its first slot; the pair in the other one stays
        assert_eq!(store(&mut keys, 4, 12), 4);
        assert_eq!(keys[5], 10);
        // a freed slot is reused before an occupied one is evicted
        keys[4] = EMPTY;
        assert_eq!(store(&mut keys, 5, 13), 4);
        assert_eq!(keys[5], 10);
    }
}
