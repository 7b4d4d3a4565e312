//! Distances and collision checks for planning.
//!
//! - [`GeomDistance::distance`] (and the one-shot [`distance`]): the signed distance between
//!   two geoms with MuJoCo 4.0.0's `mj_geomDistance` semantics;
//! - [`GeomDistance::closest_pairs`]: every geom pair between two sets (geoms or bodies) closer
//!   than `distmax`, with the bounding-sphere and oriented-box tests inflated by `distmax`;
//! - [`CollisionChecker::in_collision`]: does a configuration have any contact, stopping at the
//!   first one and honouring the model's filters;
//! - [`distance_batch`], [`in_collision_batch`]: the same over `(nbatch, nq)` configurations on
//!   all cores, writing into caller buffers (deterministic for any thread count).
//!
//! # `mj_geomDistance` semantics (measured on the 4.0.0 wheel)
//! - The pair is ordered by geom type as collision does; the answer does not depend on the
//!   argument order except that `fromto` runs from the first argument's point to the second's.
//! - Plane–plane, plane–height field and height field–height field return `distmax`.
//! - With the native solver (the default), pairs MuJoCo sends to its general convex collider or
//!   to the box–box collider go to GJK (distance mode, early exit beyond `distmax`) and EPA in
//!   penetration; `fromto` holds GJK's or EPA's witness points.
//! - Every other pair runs its narrow-phase function with `margin = distmax` (the geoms' own
//!   margins are ignored) and takes the contact of smallest `dist`;
//!   `fromto = pos ∓ ½·dist·normal`.
//! - The result is capped: a distance not strictly below `distmax` returns `distmax` with a zero
//!   `fromto`.
//!
//! Distances are signed (negative in penetration), in the model's length unit.

use glam::DVec3;
use thiserror::Error;

use crate::collider::{convex_geom, sdf_contacts};
use crate::kinematics::{KinematicsError, PoseView};
use crate::mid::{obb_overlap, Obb};
use crate::model::{disable, GeomType, Model};
use crate::narrow::convex::{convex_distance_from, convex_pair, lean_gjk, CcdOptions};
use crate::narrow::hfield::hfield_convex;
use crate::narrow::plane_convex::plane_convex;
use crate::narrow::{dispatch, Dispatch, PreContact, Shape, MAX_PAIR_CONTACTS};

mod batch;
mod check;

pub use batch::{distance_batch, in_collision_batch};
pub use check::CollisionChecker;

/// Why a distance query or collision check was rejected.
#[derive(Debug, Error, PartialEq)]
pub enum DistanceError {
    /// A geom id out of range.
    #[error("geom id {index} is out of range: the model has {ngeom} geoms")]
    GeomIndex {
        /// The id given.
        index: usize,
        /// Geoms in the model.
        ngeom: usize,
    },
    /// A body id out of range.
    #[error("body id {index} is out of range: the model has {nbody} bodies")]
    BodyIndex {
        /// The id given.
        index: usize,
        /// Bodies in the model.
        nbody: usize,
    },
    /// A mesh geom without a collision hull: the compiler builds hulls only for meshes that
    /// some collidable geom or explicit pair uses (visual meshes have none).
    #[error("geom {geom} is a mesh without a collision hull (a visual-only mesh)")]
    MeshWithoutHull {
        /// The geom id.
        geom: usize,
    },
    /// `distmax` is NaN or infinite.
    #[error("distmax {0} is not a finite number")]
    DistMax(f64),
    /// A configuration was rejected by forward kinematics.
    #[error("state {state}: {source}")]
    Kinematics {
        /// Index of the configuration in the batch.
        state: usize,
        /// What was wrong with it.
        source: KinematicsError,
    },
    /// A caller buffer has the wrong length.
    #[error("{what} has {got} entries, expected {expected}")]
    BufferLength {
        /// Which buffer.
        what: &'static str,
        /// Its length.
        got: usize,
        /// The length required.
        expected: usize,
    },
}

/// A signed distance and its witness segment.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Distance {
    /// Signed distance (negative in penetration), at most `distmax`.
    pub dist: f64,
    /// Point on the first geom then point on the second (world frame); all zero when the
    /// distance was capped at `distmax`.
    pub fromto: [f64; 6],
}

/// One geom pair of [`GeomDistance::closest_pairs`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PairDistance {
    /// Geom from the first set.
    pub geom1: usize,
    /// Geom from the second set.
    pub geom2: usize,
    /// Their distance ([`Distance::fromto`] runs from `geom1` to `geom2`).
    pub distance: Distance,
}

/// Which geom pairs [`GeomDistance::closest_pairs`] considers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PairFilter {
    /// Every pair of distinct geoms on distinct bodies.
    #[default]
    AllPairs,
    /// Only pairs the model would collide: MuJoCo's body filters (weld groups, static pairs,
    /// parent–child), `exclude`, and the geoms' contype/conaffinity bitmasks (explicit
    /// `<pair>`s always qualify).
    ModelFilters,
}

/// How [`GeomDistance`] solves convex pairs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DistanceMode {
    /// MuJoCo 4.0.0's `mj_geomDistance`, reproduced (witness points within 1e-6, the model's
    /// `ccd_tolerance` and `ccd_iterations`, MuJoCo's GJK start and EPA). The default.
    #[default]
    MuJoCo,
    /// For planners: pairs of spheres, capsules, ellipsoids, cylinders, boxes and meshes run a
    /// lean GJK in the first geom's frame, warm-started from the pair's previous answer, that
    /// stops at a relative duality gap of 1e-10 (the distance is within `1e-10 · dist` of the
    /// true one; coal stops at 1e-6). Spheres and capsules run as their cores (centre, axis
    /// segment). Overlapping shapes go to the full solver with EPA at the model's
    /// `ccd_tolerance` (the minimum translation distance, also for the pairs MuJoCo collides
    /// analytically). Other types (planes, height fields) answer as in `MuJoCo` mode.
    /// Distances agree with MuJoCo's to the tolerances, but witness points of ties (parallel
    /// faces) may differ, and `nativeccd` is ignored.
    Fast,
}

/// Distance queries on one model; holds the scratch buffer of the narrow-phase functions, so
/// that repeated queries do not allocate.
pub struct GeomDistance<'m> {
    model: &'m Model,
    ccd: CcdOptions,
    pre: [PreContact; MAX_PAIR_CONTACTS],
    /// Warm starts of convex pairs (see [`GeomDistance::set_warm_start`]): a direct-mapped
    /// cache of `(geom1, geom2, direction)`, empty when off.
    warm: Vec<(u32, u32, DVec3)>,
    /// The solver of convex pairs.
    mode: DistanceMode,
    /// Warm starts of the fast mode: `(geom1, geom2, v)` with `v` GJK's last closest point of
    /// the Minkowski difference in geom 1's frame; empty unless the mode is `Fast`.
    fast_warm: Vec<(u32, u32, DVec3)>,
}

/// Entries of the warm-start cache (a power of two).
const WARM_SLOTS: usize = 1024;

/// Checks that `g` is a geom id of `m`.
fn check_geom(m: &Model, g: usize) -> Result<(), DistanceError> {
    if g < m.ngeom() {
        if m.geom_type[g] == GeomType::Mesh && !has_hull(m, g) {
            return Err(DistanceError::MeshWithoutHull { geom: g });
        }
        Ok(())
    } else {
        Err(DistanceError::GeomIndex {
            index: g,
            ngeom: m.ngeom(),
        })
    }
}

/// Does mesh geom `g` have a collision hull?
fn has_hull(m: &Model, g: usize) -> bool {
    m.geom_dataid[g]
        .and_then(|i| m.mesh.get(i))
        .is_some_and(|x| x.hull.is_some())
}

/// Checks that `distmax` is finite.
fn check_distmax(distmax: f64) -> Result<(), DistanceError> {
    if distmax.is_finite() {
        Ok(())
    } else {
        Err(DistanceError::DistMax(distmax))
    }
}

/// The convex-solver settings of a model's options.
pub(crate) fn ccd_options(m: &Model) -> CcdOptions {
    CcdOptions {
        iterations: m.opt.ccd_iterations,
        tolerance: m.opt.ccd_tolerance,
        native: m.opt.disableflags & disable::NATIVECCD == 0,
        multi: m.opt.disableflags & disable::MULTICCD == 0,
    }
}

/// One-shot [`GeomDistance::distance`]: signed distance between geoms `g1` and `g2` at `poses`,
/// capped at `distmax`, with `mj_geomDistance`'s semantics (see the [module](self) docs).
pub fn distance(
    model: &Model,
    poses: &PoseView,
    g1: usize,
    g2: usize,
    distmax: f64,
) -> Result<Distance, DistanceError> {
    GeomDistance::new(model).distance(poses, g1, g2, distmax)
}

impl<'m> GeomDistance<'m> {
    /// Distance queries on `model` (its `ccd_iterations`, `ccd_tolerance` and `nativeccd`).
    pub fn new(model: &'m Model) -> GeomDistance<'m> {
        GeomDistance {
            model,
            ccd: ccd_options(model),
            pre: [PreContact::default(); MAX_PAIR_CONTACTS],
            warm: Vec::new(),
            mode: DistanceMode::MuJoCo,
            fast_warm: Vec::new(),
        }
    }

    /// Chooses how convex pairs are solved (see [`DistanceMode`]; `MuJoCo` by default).
    pub fn set_mode(&mut self, mode: DistanceMode) {
        self.mode = mode;
        self.fast_warm = match mode {
            DistanceMode::Fast => vec![(u32::MAX, u32::MAX, DVec3::ZERO); WARM_SLOTS],
            DistanceMode::MuJoCo => Vec::new(),
        };
    }

    /// The current [`DistanceMode`].
    pub fn mode(&self) -> DistanceMode {
        self.mode
    }

    /// Warm-starts GJK on convex pairs from the direction that separated the same pair in the
    /// previous query (coal's "cached guess"), off by default. Repeated or nearby queries of a
    /// pair then converge in fewer iterations; the distances agree with the cold start to the
    /// solver's tolerance (`ccd_tolerance`), not bit for bit, and tied witness points may
    /// differ. Off, the queries reproduce MuJoCo's `mj_geomDistance`.
    pub fn set_warm_start(&mut self, on: bool) {
        self.warm = if on {
            vec![(u32::MAX, u32::MAX, DVec3::ZERO); WARM_SLOTS]
        } else {
            Vec::new()
        };
    }

    /// The model queried.
    pub fn model(&self) -> &'m Model {
        self.model
    }

    /// Signed distance between geoms `g1` and `g2` at `poses` (MuJoCo's `mj_geomDistance`):
    /// negative in penetration, capped at `distmax` (then `fromto` is zero); `fromto` is the
    /// segment from `g1`'s point to `g2`'s. Errors on a bad geom id or a non-finite `distmax`.
    pub fn distance(
        &mut self,
        poses: &PoseView,
        g1: usize,
        g2: usize,
        distmax: f64,
    ) -> Result<Distance, DistanceError> {
        check_geom(self.model, g1)?;
        check_geom(self.model, g2)?;
        check_distmax(distmax)?;
        Ok(self.distance_unchecked(poses, g1, g2, distmax))
    }

    /// [`GeomDistance::distance`] on checked ids and `distmax`.
    pub(crate) fn distance_unchecked(
        &mut self,
        poses: &PoseView,
        g1: usize,
        g2: usize,
        distmax: f64,
    ) -> Distance {
        let m = self.model;
        let capped = Distance {
            dist: distmax,
            fromto: [0.0; 6],
        };
        let (t1, t2) = (m.geom_type[g1], m.geom_type[g2]);
        let flip = t1 > t2;
        if self.mode == DistanceMode::Fast {
            match self.fast(poses, g1, g2, distmax) {
                FastAnswer::Done(d) => return d,
                FastAnswer::Overlap => {
                    let (a, b) = if flip { (g2, g1) } else { (g1, g2) };
                    return self.convex(poses, a, b, flip, distmax).unwrap_or(capped);
                }
                FastAnswer::NotConvex => {}
            }
        }
        let (a, b, ta, tb) = if flip {
            (g2, g1, t2, t1)
        } else {
            (g1, g2, t1, t2)
        };
        let kind = dispatch(ta, tb);
        let native = self.ccd.native;
        let n = match kind {
            // as the collider: no contacts for pairs it cannot collide (height field against
            // sdf)
            Dispatch::Never | Dispatch::Unsupported => return capped,
            // `mjc_SDF` and `mjc_MeshSDF` ignore the margin, so MuJoCo reports only
            // penetrations here
            Dispatch::Sdf | Dispatch::MeshSdf => {
                sdf_contacts(m, poses, a, b, &mut self.pre).unwrap_or(0)
            }
            Dispatch::Convex if native => {
                return self.convex(poses, a, b, flip, distmax).unwrap_or(capped)
            }
            Dispatch::Analytic(_) if native && ta == GeomType::Box && tb == GeomType::Box => {
                return self.convex(poses, a, b, flip, distmax).unwrap_or(capped)
            }
            Dispatch::Analytic(f) => {
                let shape = |g: usize| Shape {
                    pos: poses.geom_xpos[g],
                    mat: poses.geom_xmat[g],
                    size: m.geom_size[g],
                };
                f(&shape(a), &shape(b), distmax, &mut self.pre)
            }
            other => {
                let (c1, c2) = (convex_geom(m, poses, a), convex_geom(m, poses, b));
                match other {
                    Dispatch::PlaneConvex => plane_convex(&c1, &c2, distmax, &mut self.pre),
                    Dispatch::HFieldConvex => {
                        hfield_convex(&c1, &c2, distmax, &self.ccd, &mut self.pre)
                    }
                    _ => convex_pair(&c1, &c2, distmax, &self.ccd, &mut self.pre),
                }
            }
        };
        let mut best: Option<&PreContact> = None;
        let mut dist = distmax;
        for c in &self.pre[..n.min(MAX_PAIR_CONTACTS)] {
            if c.dist < dist {
                dist = c.dist;
                best = Some(c);
            }
        }
        let Some(c) = best else {
            return capped;
        };
        let s = if flip { -0.5 * dist } else { 0.5 * dist };
        let p1 = c.pos - c.normal * s;
        let p2 = c.pos + c.normal * s;
        Distance {
            dist,
            fromto: [p1.x, p1.y, p1.z, p2.x, p2.y, p2.z],
        }
    }

    /// The fast mode's GJK on a convex pair (see [`DistanceMode::Fast`]).
    #[inline]
    fn fast(&mut self, poses: &PoseView, g1: usize, g2: usize, distmax: f64) -> FastAnswer {
        let m = self.model;
        let hull = |g: usize| {
            m.geom_dataid[g]
                .filter(|_| m.geom_type[g] == GeomType::Mesh)
                .and_then(|i| m.mesh.get(i))
                .and_then(|x| x.hull.as_ref())
        };
        let Some((s1, r1)) = lean_gjk::Local::of(m.geom_type[g1], m.geom_size[g1], hull(g1)) else {
            return FastAnswer::NotConvex;
        };
        let Some((s2, r2)) = lean_gjk::Local::of(m.geom_type[g2], m.geom_size[g2], hull(g2)) else {
            return FastAnswer::NotConvex;
        };
        let (p1, m1) = (poses.geom_xpos[g1], poses.geom_xmat[g1]);
        let m1t = m1.transpose();
        let rot = m1t * poses.geom_xmat[g2];
        let t = m1t * (poses.geom_xpos[g2] - p1);
        let slot = (g1.wrapping_mul(0x9E37_79B9) ^ g2.wrapping_mul(0x85EB_CA6B)) & (WARM_SLOTS - 1);
        let guess = self
            .fast_warm
            .get(slot)
            .filter(|e| (e.0, e.1) == (g1 as u32, g2 as u32))
            .map(|e| e.2);
        let capped = Distance {
            dist: distmax,
            fromto: [0.0; 6],
        };
        match lean_gjk::gjk(&s1, &s2, &rot, t, guess, distmax + r1 + r2) {
            lean_gjk::Outcome::Beyond => FastAnswer::Done(capped),
            lean_gjk::Outcome::Overlap => FastAnswer::Overlap,
            lean_gjk::Outcome::Separated { dist, a, b, v } => {
                if let Some(e) = self.fast_warm.get_mut(slot) {
                    *e = (g1 as u32, g2 as u32, v);
                }
                let d = dist - r1 - r2;
                if d >= distmax || !d.is_finite() {
                    return FastAnswer::Done(capped);
                }
                let n = (b - a) / dist;
                let x1 = p1 + m1 * (a + n * r1);
                let x2 = p1 + m1 * (b - n * r2);
                FastAnswer::Done(Distance {
                    dist: d,
                    fromto: [x1.x, x1.y, x1.z, x2.x, x2.y, x2.z],
                })
            }
        }
    }

    /// Convex pair (`a` has the lower type) through GJK/EPA in distance mode; `None` when the
    /// distance is not below `distmax`.
    fn convex(
        &mut self,
        poses: &PoseView,
        a: usize,
        b: usize,
        flip: bool,
        distmax: f64,
    ) -> Option<Distance> {
        let m = self.model;
        let (c1, c2) = (convex_geom(m, poses, a), convex_geom(m, poses, b));
        let slot = (a.wrapping_mul(0x9E37_79B9) ^ b.wrapping_mul(0x85EB_CA6B)) & (WARM_SLOTS - 1);
        let guess = self
            .warm
            .get(slot)
            .filter(|e| (e.0, e.1) == (a as u32, b as u32))
            .map(|e| e.2);
        let d = convex_distance_from(&c1, &c2, distmax, &self.ccd, guess, flip);
        if let (Some(e), Some(d)) = (self.warm.get_mut(slot), d.as_ref()) {
            if d.dist > 0.0 {
                *e = (a as u32, b as u32, d.x2 - d.x1);
            }
        }
        let d = d?;
        // (NaN never gets here: convex_distance returns finite distances)
        if d.dist >= distmax {
            return None;
        }
        let (p1, p2) = if flip { (d.x2, d.x1) } else { (d.x1, d.x2) };
        Some(Distance {
            dist: d.dist,
            fromto: [p1.x, p1.y, p1.z, p2.x, p2.y, p2.z],
        })
    }

    /// Every geom pair `(g1 ∈ set1, g2 ∈ set2)` closer than `distmax`, appended to `out`
    /// (cleared first) in the order of `set1` then `set2`; returns the index in `out` of the
    /// closest pair (the first one on ties), `None` if none is closer than `distmax`.
    ///
    /// Pairs of one geom with itself or of two geoms on one body are skipped, and a pair
    /// appearing twice (both geoms in both sets) is reported once, with the lower id as `geom1`.
    /// Mesh geoms without a collision hull (visual-only meshes) are skipped.
    /// `filter` may further restrict the pairs to those the model collides. Each pair first
    /// passes the bounding-sphere test and the oriented-box test of the geoms' boxes, both
    /// inflated by `distmax`, before the narrow phase runs.
    pub fn closest_pairs(
        &mut self,
        poses: &PoseView,
        set1: &[usize],
        set2: &[usize],
        distmax: f64,
        filter: PairFilter,
        out: &mut Vec<PairDistance>,
    ) -> Result<Option<usize>, DistanceError> {
        let m = self.model;
        for &g in set1.iter().chain(set2) {
            if g >= m.ngeom() {
                check_geom(m, g)?;
            }
        }
        check_distmax(distmax)?;
        out.clear();
        let mut best: Option<usize> = None;
        // visual-only meshes (no hull) are skipped
        let usable = |g: usize| m.geom_type[g] != GeomType::Mesh || has_hull(m, g);
        for &g1 in set1.iter().filter(|&&g| usable(g)) {
            for &g2 in set2.iter().filter(|&&g| usable(g)) {
                if g1 == g2 || m.geom_bodyid[g1] == m.geom_bodyid[g2] {
                    continue;
                }
                // a pair in both orders: keep the one with the lower id first
                if g1 > g2 && set1.contains(&g2) && set2.contains(&g1) {
                    continue;
                }
                if filter == PairFilter::ModelFilters && !check::model_collides(m, g1, g2) {
                    continue;
                }
                if !may_be_within(m, poses, g1, g2, distmax) {
                    continue;
                }
                let d = self.distance_unchecked(poses, g1, g2, distmax);
                if d.dist < distmax {
                    if best.is_none_or(|i| d.dist < out[i].distance.dist) {
                        best = Some(out.len());
                    }
                    out.push(PairDistance {
                        geom1: g1,
                        geom2: g2,
                        distance: d,
                    });
                }
            }
        }
        Ok(best)
    }
}

/// What the fast mode made of a pair.
enum FastAnswer {
    /// The answer.
    Done(Distance),
    /// The shapes overlap: EPA's turn.
    Overlap,
    /// Not a pair of the fast mode's types.
    NotConvex,
}

/// The geoms of `bodies`, in body then geom order (for [`GeomDistance::closest_pairs`] between
/// sets of bodies).
pub fn body_geoms(model: &Model, bodies: &[usize]) -> Result<Vec<usize>, DistanceError> {
    let mut out = Vec::new();
    for &b in bodies {
        if b >= model.nbody() {
            return Err(DistanceError::BodyIndex {
                index: b,
                nbody: model.nbody(),
            });
        }
        let a = model.body_geomadr[b];
        out.extend(a..a + model.body_geomnum[b]);
    }
    Ok(out)
}

/// Can geoms `g1` and `g2` be within `d` of each other? Bounding spheres (a half-space for
/// planes) then the geoms' oriented boxes, both inflated by `d`; exact as a rejection test
/// (a rejected pair is farther apart than `d`).
#[inline]
pub(crate) fn may_be_within(m: &Model, poses: &PoseView, g1: usize, g2: usize, d: f64) -> bool {
    let (p1, r1, p2, r2) = (
        poses.geom_xpos[g1],
        &poses.geom_xmat[g1],
        poses.geom_xpos[g2],
        &poses.geom_xmat[g2],
    );
    if !crate::filter::spheres_may_touch(m.geom_rbound[g1], p1, r1, m.geom_rbound[g2], p2, r2, d) {
        return false;
    }
    // planes and height fields: the sphere (half-space) test only
    let boxed = |t: GeomType| !matches!(t, GeomType::Plane | GeomType::HField);
    if !boxed(m.geom_type[g1]) || !boxed(m.geom_type[g2]) {
        return true;
    }
    let obb = |g: usize, p, r: &glam::DMat3| {
        let a = m.geom_aabb[g];
        Obb::placed(
            p,
            r,
            DVec3::new(a[0], a[1], a[2]),
            DVec3::new(a[3], a[4], a[5]),
        )
    };
    obb_overlap(&obb(g1, p1, r1), &obb(g2, p2, r2), d)
}
