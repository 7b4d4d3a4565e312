//! Many worlds of one model at once: world poses for all worlds in one struct-of-arrays
//! buffer, forward kinematics and collision detection over all worlds in parallel (`rayon`).
//!
//! Results are deterministic: each world is computed by exactly one worker, with the same
//! sequential algorithm as [`Collider::detect`], from that world's own memory of its earlier
//! calls (a [`WorldCache`] per world index, swapped into the worker's collider for the call), so
//! the output is bit-identical for any number of threads and equals what one [`Collider`] per
//! world would give.

use glam::{DMat3, DQuat, DVec3};
use rayon::prelude::*;

use crate::collider::{Collider, ColliderError, ColliderOptions, Stats, WorldCache};
use crate::contact::Contact;
use crate::kinematics::{forward_kinematics, KinematicsError, PoseView, Poses};
use crate::model::Model;

/// World poses of `nworld` worlds, struct-of-arrays: world `w`'s geom `g` is at index
/// `w * ngeom + g` (bodies likewise).
#[derive(Clone, Debug, Default)]
pub struct BatchPoses {
    nworld: usize,
    nbody: usize,
    ngeom: usize,
    /// Body frame orientations of all worlds.
    pub xquat: Vec<DQuat>,
    /// Inertial frame positions of all worlds.
    pub xipos: Vec<DVec3>,
    /// Inertial frame orientations of all worlds.
    pub ximat: Vec<DMat3>,
    /// Geom positions of all worlds.
    pub geom_xpos: Vec<DVec3>,
    /// Geom orientations of all worlds.
    pub geom_xmat: Vec<DMat3>,
}

impl BatchPoses {
    /// Buffers for `nworld` worlds of `model`.
    pub fn new(model: &Model, nworld: usize) -> BatchPoses {
        let (nb, ng) = (model.nbody(), model.ngeom());
        BatchPoses {
            nworld,
            nbody: nb,
            ngeom: ng,
            xquat: vec![DQuat::IDENTITY; nworld * nb],
            xipos: vec![DVec3::ZERO; nworld * nb],
            ximat: vec![DMat3::IDENTITY; nworld * nb],
            geom_xpos: vec![DVec3::ZERO; nworld * ng],
            geom_xmat: vec![DMat3::IDENTITY; nworld * ng],
        }
    }

    /// Number of worlds.
    pub fn nworld(&self) -> usize {
        self.nworld
    }

    /// The poses of world `w`.
    pub fn world(&self, w: usize) -> PoseView<'_> {
        let (b, g) = (
            w * self.nbody..(w + 1) * self.nbody,
            w * self.ngeom..(w + 1) * self.ngeom,
        );
        PoseView {
            xquat: &self.xquat[b.clone()],
            xipos: &self.xipos[b.clone()],
            ximat: &self.ximat[b],
            geom_xpos: &self.geom_xpos[g.clone()],
            geom_xmat: &self.geom_xmat[g],
        }
    }

    /// Forward kinematics of every world from `qpos` (`nworld * nq` values, world after world),
    /// in parallel; mocap bodies at their model poses.
    pub fn compute(&mut self, model: &Model, qpos: &[f64]) -> Result<(), KinematicsError> {
        let nq = model.nq();
        if qpos.len() != self.nworld * nq {
            return Err(KinematicsError::QposLength {
                got: qpos.len(),
                expected: self.nworld * nq,
            });
        }
        let (nb, ng) = (self.nbody, self.ngeom);
        let chunks = self
            .xquat
            .par_chunks_mut(nb.max(1))
            .zip(self.xipos.par_chunks_mut(nb.max(1)))
            .zip(self.ximat.par_chunks_mut(nb.max(1)))
            .zip(
                self.geom_xpos
                    .par_chunks_mut(ng.max(1))
                    .zip(self.geom_xmat.par_chunks_mut(ng.max(1))),
            )
            .zip(qpos.par_chunks(nq.max(1)));
        chunks.try_for_each_init(
            || Poses::new(model),
            |poses, ((((xquat, xipos), ximat), (gpos, gmat)), q)| {
                forward_kinematics(model, q, None::<(&[DVec3], &[DQuat])>, poses)?;
                xquat.copy_from_slice(&poses.xquat);
                xipos.copy_from_slice(&poses.xipos);
                ximat.copy_from_slice(&poses.ximat);
                gpos.copy_from_slice(&poses.geom_xpos);
                gmat.copy_from_slice(&poses.geom_xmat);
                Ok(())
            },
        )
    }
}

/// Memory (bytes) the per-world caches of a batch may take in all: worlds added by a call get
/// the largest tables ([`WORLD_SLOTS_PER_GEOM`] slots per geom, halved as needed) under which
/// that call's worlds fit; below one slot per geom they remember nothing.
pub const WORLD_CACHE_BUDGET: usize = 128 << 20;

/// Slots per geom of one world's tables when the batch fits [`WORLD_CACHE_BUDGET`]: those of a
/// collider's own tables, so that each world is then detected bit for bit as by its own
/// [`Collider`] (see [`Collider::world_cache`]).
pub const WORLD_SLOTS_PER_GEOM: usize = 32;

/// One [`WorldCache`] per world index of a batch, kept across calls (a world `i` of the next call
/// continues world `i` of this one).
#[derive(Default)]
pub struct WorldCaches {
    caches: Vec<WorldCache>,
}

impl WorldCaches {
    /// No world yet.
    pub fn new() -> WorldCaches {
        WorldCaches::default()
    }

    /// The caches of worlds `0..nworld`, the missing ones made for `collider`'s model and
    /// options, sized under [`WORLD_CACHE_BUDGET`] (allocates only when `nworld` grows).
    pub fn prepare(&mut self, collider: &Collider, nworld: usize) -> &mut [WorldCache] {
        if self.caches.len() < nworld {
            let mut per = WORLD_SLOTS_PER_GEOM;
            while per > 0 && collider.world_cache_bytes(per) * nworld > WORLD_CACHE_BUDGET {
                per /= 2;
            }
            self.caches
                .resize_with(nworld, || collider.world_cache(per));
        }
        &mut self.caches[..nworld]
    }

    /// Forgets every world's history (the next call starts as a fresh collider would).
    pub fn clear(&mut self) {
        self.caches.clear();
    }

    /// Bytes held by the caches' tables.
    pub fn bytes(&self) -> usize {
        self.caches.iter().map(WorldCache::bytes).sum()
    }
}

/// Collision detection over many worlds with one reusable [`Collider`] per worker and one
/// [`WorldCache`] per world: world `i` of a call continues world `i` of the previous call (its
/// separating directions and, with [`ColliderOptions::warm_start`], its touching pairs), as one
/// [`Collider`] per world would; [`BatchCollider::reset`] forgets them.
pub struct BatchCollider<'m> {
    workers: Vec<Worker<'m>>,
    worlds: WorldCaches,
}

/// One worker's collider, alone on its cache lines: the colliders of neighbouring workers
/// would otherwise share a line at their boundary, which both threads write on every call.
#[repr(align(128))]
struct Worker<'m>(Collider<'m>);

impl<'m> BatchCollider<'m> {
    /// One collider per thread of the current rayon pool.
    pub fn new(model: &'m Model) -> Result<BatchCollider<'m>, ColliderError> {
        BatchCollider::with_workers(model, rayon::current_num_threads())
    }

    /// `nworker` colliders (at least one), default options (meshes as hulls).
    pub fn with_workers(
        model: &'m Model,
        nworker: usize,
    ) -> Result<BatchCollider<'m>, ColliderError> {
        BatchCollider::with_options(model, nworker, ColliderOptions::default())
    }

    /// `nworker` colliders (at least one) with `options`; the meshes of
    /// [`crate::MeshCollision::Exact`] are prepared once and shared by the workers.
    pub fn with_options(
        model: &'m Model,
        nworker: usize,
        options: ColliderOptions,
    ) -> Result<BatchCollider<'m>, ColliderError> {
        let first = Collider::with_options(model, options)?;
        let mut workers = Vec::with_capacity(nworker.max(1));
        for _ in 1..nworker.max(1) {
            workers.push(Worker(first.another()?));
        }
        workers.insert(0, Worker(first));
        // (every world brings its own tables: the workers' would never be used)
        for Worker(w) in &mut workers {
            w.release_caches();
        }
        Ok(BatchCollider {
            workers,
            worlds: WorldCaches::new(),
        })
    }

    /// Forgets what the worlds kept of earlier calls: the next call detects every world as a
    /// fresh [`Collider`] would (e.g. at the start of an episode, for runs that repeat bit for
    /// bit).
    pub fn reset(&mut self) {
        self.worlds.clear();
    }

    /// Bytes held by the per-world caches (the workers hold none of their own).
    pub fn cache_bytes(&self) -> usize {
        self.worlds.bytes()
            + self
                .workers
                .iter()
                .map(|w| w.0.cache_bytes())
                .sum::<usize>()
    }

    /// How the workers collide meshes.
    pub fn mesh_collision(&self) -> crate::MeshCollision {
        self.workers[0].0.mesh_collision()
    }

    /// Detects the contacts of every world; `out` must hold one buffer per world (reused across
    /// calls, so the steady state does not allocate). Returns the summed counts.
    pub fn detect(&mut self, poses: &BatchPoses, out: &mut [Vec<Contact>]) -> Stats {
        let n = poses.nworld().min(out.len());
        if n == 0 {
            return Stats::default();
        }
        let chunk = n.div_ceil(self.workers.len());
        let out = &mut out[..n];
        let caches = self.worlds.prepare(&self.workers[0].0, n);
        out.par_chunks_mut(chunk)
            .zip(caches.par_chunks_mut(chunk))
            .zip(self.workers.par_iter_mut())
            .enumerate()
            .map(|(c, ((outs, caches), Worker(collider)))| {
                let mut total = Stats::default();
                for (k, (o, cache)) in outs.iter_mut().zip(caches).enumerate() {
                    total += collider.detect_view_in(&poses.world(c * chunk + k), o, cache);
                }
                total
            })
            // integer counts: the sum does not depend on the reduction order
            .reduce(Stats::default, |mut a, s| {
                a += s;
                a
            })
    }
}
