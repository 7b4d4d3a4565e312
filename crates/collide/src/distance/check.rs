//! Early-exit collision checking of whole configurations ([`CollisionChecker`]).

use glam::{DMat3, DQuat, DVec3};

use crate::collider::{convex_geom, sdf_contacts};
use crate::filter::{bodies_can_collide, body_pair_allowed, signature, spheres_may_touch};
use crate::kinematics::{forward_kinematics, forward_kinematics_geoms, PoseView, Poses};
use crate::mid::{obb_overlap, Obb};
use crate::model::{disable, enable, GeomType, Model};
use crate::narrow::convex::{convex_pair, convex_pair_report, CcdOptions};
use crate::narrow::hfield::hfield_convex;
use crate::narrow::plane_convex::plane_convex;
use crate::narrow::{dispatch, Dispatch, PreContact, Shape, MAX_PAIR_CONTACTS};

use super::{ccd_options, DistanceError};

/// Would the model collide geoms `g1` and `g2` (on different bodies)? An explicit `<pair>`
/// always qualifies; otherwise MuJoCo's body filters, `exclude` and the geom bitmasks.
pub(crate) fn model_collides(m: &Model, g1: usize, g2: usize) -> bool {
    let explicit = (0..m.npair()).any(|p| {
        let (a, b) = (m.pair_geom1[p], m.pair_geom2[p]);
        (a == g1 && b == g2) || (a == g2 && b == g1)
    });
    if explicit {
        return true;
    }
    let (b1, b2) = (m.geom_bodyid[g1], m.geom_bodyid[g2]);
    body_pair_allowed(m, b1, b2)
        && bodies_can_collide(m, b1, b2)
        && m.exclude_signature
            .binary_search(&signature(b1, b2))
            .is_err()
        && ((m.geom_contype[g1] & m.geom_conaffinity[g2]) != 0
            || (m.geom_contype[g2] & m.geom_conaffinity[g1]) != 0)
}

/// World bounds of static geom `g` at `poses`, grown by `threshold` (and a relative allowance
/// for rounding): its oriented box as an axis-aligned box, a half-space for planes.
fn static_bound(m: &Model, poses: &Poses, g: usize, threshold: f64) -> StaticBound {
    let (p, r) = (poses.geom_xpos[g], poses.geom_xmat[g]);
    match m.geom_type[g] {
        GeomType::Plane => StaticBound::HalfSpace(r.z_axis, p, threshold * (1.0 + 1e-12) + 1e-12),
        GeomType::HField => StaticBound::Always,
        _ => {
            let a = m.geom_aabb[g];
            let (c, h) = (DVec3::new(a[0], a[1], a[2]), DVec3::new(a[3], a[4], a[5]));
            let centre = p + r * c;
            let abs = DMat3::from_cols(r.x_axis.abs(), r.y_axis.abs(), r.z_axis.abs());
            let half = abs * h;
            let slack = (centre.abs() + half) * 1e-12 + DVec3::splat(1e-12 + threshold.max(0.0));
            let half = half + slack;
            if !(centre.is_finite() && half.is_finite()) {
                return StaticBound::Always;
            }
            StaticBound::Aabb(centre - half, centre + half)
        }
    }
}

/// A geom pair to check, ordered by type (`g1` has the lower type).
#[derive(Clone, Copy, Debug)]
struct CheckPair {
    g1: usize,
    g2: usize,
    /// Detection threshold: the pair's margin plus gap.
    threshold: f64,
    /// Bounding-sphere test radius `rbound1 + rbound2 + threshold` (summed as
    /// [`spheres_may_touch`] does), or NaN when a plane makes it a half-space test.
    reach: f64,
    kind: Dispatch,
}

/// A body pair to check: a bounding-sphere test, then its geom pairs.
#[derive(Clone, Copy, Debug)]
struct BodyPair {
    b1: usize,
    b2: usize,
    /// Largest detection threshold of its geom pairs.
    threshold: f64,
    /// Its geom pairs: `pairs[start..end]`.
    start: usize,
    end: usize,
    /// When exactly one of the bodies never moves: its moving body and its static geoms'
    /// groups `groups[.0...1]` (which replace the body-sphere test and cover `start..end`).
    statics: Option<(usize, usize, usize)>,
    /// With `statics`: the union of its groups' bounds (everything when one is not a box).
    root: StaticBound,
}

/// The geom pairs of one static geom with the geoms of one moving body, behind a test of the
/// moving body's bounding sphere against the static geom's precomputed world bounds.
#[derive(Clone, Copy, Debug)]
struct StaticGroup {
    bound: StaticBound,
    /// Its geom pairs: `pairs[start..end]`.
    start: usize,
    end: usize,
}

/// World bounds of a static geom, grown by the largest threshold of its pairs.
#[derive(Clone, Copy, Debug)]
enum StaticBound {
    /// Axis-aligned box `(lo, hi)`.
    Aabb(DVec3, DVec3),
    /// A plane: its normal and a point; nothing farther than the threshold above it touches.
    HalfSpace(DVec3, DVec3, f64),
    /// No test (height fields).
    Always,
}

impl StaticBound {
    /// Can a sphere (centre `c`, radius `r`) reach the bound?
    #[inline(always)]
    fn may_touch(&self, c: DVec3, r: f64) -> bool {
        match *self {
            StaticBound::Aabb(lo, hi) => {
                let d = (lo - c).max(DVec3::ZERO) + (c - hi).max(DVec3::ZERO);
                d.length_squared() <= r * r
            }
            StaticBound::HalfSpace(n, p, t) => n.dot(c - p) <= r + t,
            StaticBound::Always => true,
        }
    }
}

/// Does a configuration have any contact? Answers exactly what
/// [`crate::Collider::detect`] would (some contact, within the pairs' margins, MuJoCo's
/// filters: weld groups, static pairs, parent–child, `exclude`, contype/conaffinity, explicit
/// `<pair>`s with their own margins), but stops at the first contact and skips everything the
/// answer does not need (contact parameters, multi-contact, ordering).
///
/// Built once per model: the candidate body and geom pairs are listed up front; each check then
/// runs forward kinematics, a bounding-sphere test per body pair (the body's geoms' spheres
/// grown by their margins), a sphere test per geom pair and the narrow phase. Steady-state
/// checks do not allocate. Sleeping is not modelled (every body is awake).
#[derive(Clone)]
pub struct CollisionChecker<'m> {
    model: &'m Model,
    ccd: CcdOptions,
    poses: Poses,
    /// Per body: bounding-sphere centre in the body frame and radius (grown by the largest
    /// margin + gap of its geoms); an infinite radius for bodies with a plane.
    body_sphere: Vec<(DVec3, f64)>,
    bodies: Vec<BodyPair>,
    pairs: Vec<CheckPair>,
    /// Static-geom groups of the body pairs with one static body.
    groups: Vec<StaticGroup>,
    /// Explicit `<pair>`s (checked after the body pairs).
    explicit: Vec<CheckPair>,
    pre: [PreContact; MAX_PAIR_CONTACTS],
    /// Contacts disabled by the model's flags: nothing ever collides.
    disabled: bool,
    /// Geoms on bodies that move with `qpos` or mocap (the others keep their poses).
    moving: Vec<usize>,
    /// Per body: world centre of its bounding sphere (scratch of one check).
    centre: Vec<DVec3>,
    /// Per geom: its local box (centre, half-sizes), `None` for planes and height fields
    /// (the sphere test only).
    aabb: Vec<Option<(DVec3, DVec3)>>,
}

impl<'m> CollisionChecker<'m> {
    /// Lists the candidate pairs of `model`.
    pub fn new(model: &'m Model) -> CollisionChecker<'m> {
        let m = model;
        let override_margin = (m.opt.enableflags & enable::OVERRIDE != 0).then_some(m.opt.o_margin);
        let geom_threshold = |g: usize| override_margin.unwrap_or(m.geom_margin[g]) + m.geom_gap[g];
        let pair_of = |g1: usize, g2: usize, threshold: f64| {
            let (t1, t2) = (m.geom_type[g1], m.geom_type[g2]);
            let (g1, g2, t1, t2) = if t1 > t2 {
                (g2, g1, t2, t1)
            } else {
                (g1, g2, t1, t2)
            };
            let (rb1, rb2) = (m.geom_rbound[g1], m.geom_rbound[g2]);
            CheckPair {
                g1,
                g2,
                threshold,
                reach: if rb1 == 0.0 || rb2 == 0.0 {
                    f64::NAN
                } else {
                    rb1 + rb2 + threshold
                },
                kind: dispatch(t1, t2),
            }
        };
        let collidable = |kind: &Dispatch| !matches!(kind, Dispatch::Never);

        let body_sphere = (0..m.nbody())
            .map(|b| {
                let geoms = m.body_geomadr[b]..m.body_geomadr[b] + m.body_geomnum[b];
                if geoms.is_empty() {
                    return (DVec3::ZERO, 0.0);
                }
                if geoms.clone().any(|g| m.geom_rbound[g] <= 0.0) {
                    return (DVec3::ZERO, f64::INFINITY);
                }
                let c = geoms.clone().map(|g| m.geom_pos[g]).sum::<DVec3>() / geoms.len() as f64;
                let r = geoms
                    .map(|g| (m.geom_pos[g] - c).length() + m.geom_rbound[g] + geom_threshold(g))
                    .fold(0.0, f64::max);
                // a relative allowance for the rounding of world poses
                (c, r * (1.0 + 1e-12) + 1e-12)
            })
            .collect();

        let explicit_pair = |g1: usize, g2: usize| {
            (0..m.npair()).any(|p| {
                let (a, b) = (m.pair_geom1[p], m.pair_geom2[p]);
                (a == g1 && b == g2) || (a == g2 && b == g1)
            })
        };
        // bodies welded to the world (no joint, no mocap on the way up) never move
        let mut fixed = vec![true; m.nbody()];
        for b in 1..m.nbody() {
            fixed[b] =
                fixed[m.body_parentid[b]] && m.body_jntnum[b] == 0 && m.body_mocapid[b].is_none();
        }
        // world poses of the static geoms (qpos0 is finite; they never change)
        let mut poses = Poses::new(model);
        let _ = forward_kinematics(m, &m.qpos0, None::<(&[DVec3], &[DQuat])>, &mut poses);
        let mut bodies = Vec::new();
        let mut pairs = Vec::new();
        let mut groups: Vec<StaticGroup> = Vec::new();
        for b1 in 0..m.nbody() {
            for b2 in b1 + 1..m.nbody() {
                if m.body_geomnum[b1] == 0
                    || m.body_geomnum[b2] == 0
                    || !body_pair_allowed(m, b1, b2)
                    || !bodies_can_collide(m, b1, b2)
                    || m.exclude_signature
                        .binary_search(&signature(b1, b2))
                        .is_ok()
                {
                    continue;
                }
                let start = pairs.len();
                let mut threshold: f64 = 0.0;
                // with one static body, its geoms go first (grouped per static geom)
                let statik = match (fixed[b1], fixed[b2]) {
                    (true, false) => Some((b1, b2)),
                    (false, true) => Some((b2, b1)),
                    _ => None,
                };
                let (outer, inner) = statik.unwrap_or((b1, b2));
                let gstart = groups.len();
                for go in m.body_geomadr[outer]..m.body_geomadr[outer] + m.body_geomnum[outer] {
                    let group_start = pairs.len();
                    let mut group_threshold: f64 = 0.0;
                    for gi in m.body_geomadr[inner]..m.body_geomadr[inner] + m.body_geomnum[inner] {
                        let (g1, g2) = (go.min(gi), go.max(gi));
                        let bits = (m.geom_contype[g1] & m.geom_conaffinity[g2]) != 0
                            || (m.geom_contype[g2] & m.geom_conaffinity[g1]) != 0;
                        if !bits || explicit_pair(g1, g2) {
                            continue;
                        }
                        let margin =
                            override_margin.unwrap_or(m.geom_margin[g1] + m.geom_margin[g2]);
                        let t = margin + m.geom_gap[g1] + m.geom_gap[g2];
                        let p = pair_of(g1, g2, t);
                        if collidable(&p.kind) {
                            threshold = threshold.max(t);
                            group_threshold = group_threshold.max(t);
                            pairs.push(p);
                        }
                    }
                    if statik.is_some() && pairs.len() > group_start {
                        groups.push(StaticGroup {
                            bound: static_bound(m, &poses, go, group_threshold),
                            start: group_start,
                            end: pairs.len(),
                        });
                    }
                }
                let root = groups[gstart..]
                    .iter()
                    .try_fold(None::<(DVec3, DVec3)>, |acc, g| match g.bound {
                        StaticBound::Aabb(lo, hi) => {
                            Some(Some(acc.map_or((lo, hi), |(a, b)| (a.min(lo), b.max(hi)))))
                        }
                        _ => None,
                    })
                    .flatten()
                    .map_or(StaticBound::Always, |(lo, hi)| StaticBound::Aabb(lo, hi));
                if pairs.len() > start {
                    bodies.push(BodyPair {
                        root,
                        b1,
                        b2,
                        threshold,
                        start,
                        end: pairs.len(),
                        statics: statik.map(|(_, mv)| (mv, gstart, groups.len())),
                    });
                }
            }
        }
        let explicit = (0..m.npair())
            .map(|p| {
                let margin = override_margin.unwrap_or(m.pair_margin[p]);
                pair_of(m.pair_geom1[p], m.pair_geom2[p], margin + m.pair_gap[p])
            })
            .filter(|p| collidable(&p.kind))
            .collect();
        let moving = (0..m.ngeom())
            .filter(|&g| !fixed[m.geom_bodyid[g]])
            .collect();
        let aabb = (0..m.ngeom())
            .map(|g| {
                let a = m.geom_aabb[g];
                (!matches!(m.geom_type[g], GeomType::Plane | GeomType::HField))
                    .then(|| (DVec3::new(a[0], a[1], a[2]), DVec3::new(a[3], a[4], a[5])))
            })
            .collect();
        CollisionChecker {
            groups,
            moving,
            centre: vec![DVec3::ZERO; m.nbody()],
            aabb,
            model,
            ccd: ccd_options(model),
            poses,
            body_sphere,
            bodies,
            pairs,
            explicit,
            pre: [PreContact::default(); MAX_PAIR_CONTACTS],
            disabled: m.opt.disableflags & (disable::CONSTRAINT | disable::CONTACT) != 0
                || m.nbody() < 2,
        }
    }

    /// The model checked.
    pub fn model(&self) -> &'m Model {
        self.model
    }

    /// Geom pairs that may be checked per configuration (after the static filters).
    pub fn candidate_pairs(&self) -> usize {
        self.pairs.len() + self.explicit.len()
    }

    /// Does configuration `qpos` (length `nq`; mocap bodies at their model poses) have any
    /// contact? Errors when `qpos` has the wrong length or a non-finite entry.
    pub fn in_collision(&mut self, qpos: &[f64]) -> Result<bool, DistanceError> {
        self.in_collision_mocap(qpos, None)
    }

    /// [`CollisionChecker::in_collision`] with mocap bodies at `mocap` (positions and
    /// `(w,x,y,z)` quaternions, `nmocap` each; `None`: their model poses).
    pub fn in_collision_mocap(
        &mut self,
        qpos: &[f64],
        mocap: Option<(&[DVec3], &[DQuat])>,
    ) -> Result<bool, DistanceError> {
        forward_kinematics_geoms(self.model, qpos, mocap, &self.moving, &mut self.poses)
            .map_err(|source| DistanceError::Kinematics { state: 0, source })?;
        let poses = std::mem::take(&mut self.poses);
        let hit = self.poses_in_collision(&poses.view(), &poses.xpos, &poses.xmat);
        self.poses = poses;
        Ok(hit)
    }

    /// [`CollisionChecker::in_collision`] at given world poses (`xpos`, `xmat`: body frames).
    pub fn poses_in_collision(&mut self, poses: &PoseView, xpos: &[DVec3], xmat: &[DMat3]) -> bool {
        if self.disabled {
            return false;
        }
        for (b, c) in self.centre.iter_mut().enumerate() {
            *c = xpos[b] + xmat[b] * self.body_sphere[b].0;
        }
        for i in 0..self.bodies.len() {
            let bp = self.bodies[i];
            if let Some((mv, gs, ge)) = bp.statics {
                let r = self.body_sphere[mv].1;
                if r.is_finite() {
                    // the moving body's sphere against each static geom's bounds
                    let c = self.centre[mv];
                    if !bp.root.may_touch(c, r) {
                        continue;
                    }
                    for gi in gs..ge {
                        let g = &self.groups[gi];
                        if !g.bound.may_touch(c, r) {
                            continue;
                        }
                        for k in g.start..g.end {
                            let p = self.pairs[k];
                            if self.pair_collides(poses, &p) {
                                return true;
                            }
                        }
                    }
                    continue;
                }
            }
            let r1 = self.body_sphere[bp.b1].1;
            let r2 = self.body_sphere[bp.b2].1;
            if r1.is_finite() && r2.is_finite() {
                let (p1, p2) = (self.centre[bp.b1], self.centre[bp.b2]);
                let r = r1 + r2 + bp.threshold;
                if (p1 - p2).length_squared() > r * r {
                    continue;
                }
            }
            for k in bp.start..bp.end {
                let p = self.pairs[k];
                if self.pair_collides(poses, &p) {
                    return true;
                }
            }
        }
        for k in 0..self.explicit.len() {
            let p = self.explicit[k];
            if self.pair_collides(poses, &p) {
                return true;
            }
        }
        false
    }

    /// Sphere test and narrow phase of one geom pair: is there a contact?
    #[inline(always)]
    fn pair_collides(&mut self, poses: &PoseView, p: &CheckPair) -> bool {
        let m = self.model;
        let (g1, g2) = (p.g1, p.g2);
        if !p.reach.is_nan() {
            let d = poses.geom_xpos[g1] - poses.geom_xpos[g2];
            if d.length_squared() > p.reach * p.reach {
                return false;
            }
        } else if !spheres_may_touch(
            m.geom_rbound[g1],
            poses.geom_xpos[g1],
            &poses.geom_xmat[g1],
            m.geom_rbound[g2],
            poses.geom_xpos[g2],
            &poses.geom_xmat[g2],
            p.threshold,
        ) {
            return false;
        }
        // the geoms' oriented boxes (exact as a rejection: each box contains its geom)
        if let (Some((c1, h1)), Some((c2, h2))) = (self.aabb[g1], self.aabb[g2]) {
            let (r1, r2) = (&poses.geom_xmat[g1], &poses.geom_xmat[g2]);
            let o1 = Obb::placed(poses.geom_xpos[g1], r1, c1, h1);
            let o2 = Obb::placed(poses.geom_xpos[g2], r2, c2, h2);
            if !obb_overlap(&o1, &o2, p.threshold) {
                return false;
            }
        }
        let n = match p.kind {
            // what the collider cannot collide never collides here either
            Dispatch::Never | Dispatch::Unsupported => 0,
            Dispatch::Sdf | Dispatch::MeshSdf => {
                sdf_contacts(m, poses, g1, g2, &mut self.pre).unwrap_or(0)
            }
            Dispatch::Analytic(f) => {
                let shape = |g: usize| Shape {
                    pos: poses.geom_xpos[g],
                    mat: poses.geom_xmat[g],
                    size: m.geom_size[g],
                };
                f(&shape(g1), &shape(g2), p.threshold, &mut self.pre)
            }
            kind => {
                let (c1, c2) = (convex_geom(m, poses, g1), convex_geom(m, poses, g2));
                if (c1.kind == GeomType::Mesh && c1.hull.is_none())
                    || (c2.kind == GeomType::Mesh && c2.hull.is_none())
                {
                    return false;
                }
                match kind {
                    Dispatch::PlaneConvex => plane_convex(&c1, &c2, p.threshold, &mut self.pre),
                    Dispatch::HFieldConvex => {
                        hfield_convex(&c1, &c2, p.threshold, &self.ccd, &mut self.pre)
                    }
                    _ if self.ccd.native => {
                        // one contact decides: the multi-contact step never removes the first
                        convex_pair_report(&c1, &c2, p.threshold, &self.ccd, &mut self.pre[..1])
                            .ncon
                    }
                    _ => convex_pair(&c1, &c2, p.threshold, &self.ccd, &mut self.pre),
                }
            }
        };
        n > 0
    }
}
