//! Continuous collision detection between two control cycles.
//!
//! Two methods, for two different questions:
//!
//! **(a) Pseudo-continuous sub-sampling** ([`pseudo_continuous`]), the paper's method (R9).
//! Given each body's state at two cycles `Δt` apart (100 ms in the simulator), intermediate
//! states are interpolated — position linearly, the base angle along the shortest arc, and for
//! a fish the three tail joint angles linearly, with forward kinematics per sample. The
//! sub-step count is adaptive:
//!
//! ```text
//! N = clamp(ceil(max_motion / (safety · min_feature)), 1, N_max)
//! max_motion  = |Δp_a − Δp_b| + |Δθ_a|·r_a + |Δθ_b|·r_b + Σ_k |Δj_k|·reach_k
//! min_feature = min_width(a) + min_width(b)
//! ```
//!
//! where `r` is the farthest point of a body from its pose origin, `reach_k` the farthest tail
//! point beyond fish joint `k`, and `min_width` the narrowest width of a body (of its
//! narrowest part for compounds and fish; `0` for segments and the border). `max_motion`
//! bounds how far any point of one body moves relative to the other. The pair is tested
//! discretely (intersecting iff the signed [`distance`] is at most the touching tolerance) at
//! the `N + 1` samples; on the first hit, the time is bisected between the last free and the
//! first hit sample down to `time_tol`, and the [`contact`] there is reported.
//!
//! *When (a) can miss.* Sampling sees only the samples. A contact is missed when the stretch of
//! relative motion during which the bodies overlap (the *overlap window*) is shorter than the
//! sample spacing `max_motion / N` and falls between two samples. With `safety < 1`, the
//! spacing is below `min_feature`, which is the overlap window of a head-on pass (a ball of
//! diameter `2r` crossing a wall of thickness `w` overlaps it over `2r + w` of its path), so
//! head-on tunnelling is caught as long as `N` is not clamped by `N_max`. Glancing passes
//! (clipping a corner, a thin fin tip sweeping past a ball's edge) have arbitrarily short
//! windows and can be missed; so can anything when `N` is clamped. Rotation makes points travel
//! on arcs; the bound `|Δθ|·r` is an arc length, so the spacing argument still holds, but a
//! large rotation within a cycle is approximated by the interpolated path, which is only the
//! true path if the body did turn at a constant rate. Only the *first* sampled hit is refined:
//! an earlier, missed window is not found, so the reported time is the first *detected* hit.
//!
//! **(b) Time of impact** ([`toi`]) for two bodies with constant linear and angular velocity
//! ([`Motion`], rotation about each pose origin) over `[0, dt]`. Two translating circles are
//! solved exactly ([`toi_circles`], a quadratic). Everything else uses *conservative
//! advancement*: with the signed distance `d(t)` ([`distance`]) and the bound on how fast any
//! point of one body approaches the other,
//!
//! ```text
//! B = |v_b − v_a| + |ω_a|·r_a + |ω_b|·r_b,
//! ```
//!
//! no contact can occur before `t + d(t)/B`, so `t` advances by `d(t)/B` until
//! `d(t) ≤ 1e-9` (exact contact, no slop: the target distance is `0`). For two convex shapes
//! under pure translation the distance is a convex function of time, so the tangent step
//! `d / (−ḋ)` (with `ḋ = n·(v_b − v_a)`) is also conservative and converges quadratically; a
//! non-negative `ḋ` then proves there is no impact at all. Every iterate is a time at which the
//! bodies are provably separated, so *(b) cannot miss* a contact of the motion it models,
//! however thin the objects or fast the motion (no sampling is involved): it returns the first
//! time of contact, and the bodies are separated at every earlier time. Its limits are the
//! model (rigid motion at constant velocities; a fish's joints are frozen) and the iteration
//! cap [`MAX_ITERATIONS`]: a near-miss that crawls at a tiny distance for long may exhaust it,
//! and the result is then a conservative hit at the last certified-free time (`converged`
//! false), never a missed contact.

use std::borrow::Cow;
use std::f64::consts::{PI, TAU};

use glam::DVec2;

use crate::bounding::{aabb, Aabb};
use crate::contact::{contact, Contact, EPS_TOUCH};
use crate::distance::distance;
use crate::shape::{ConvexPolygon, Fish, Pose, Shape};

/// Distance below which two bodies count as touching for [`toi`].
pub const TOI_TOLERANCE: f64 = 1e-9;

/// After reaching [`TOI_TOLERANCE`], conservative steps continue (at most 32) while the
/// distance exceeds this, tightening the reported time.
const POLISH_DISTANCE: f64 = 1e-13;

/// Iteration cap of conservative advancement in [`toi`].
pub const MAX_ITERATIONS: u32 = 20_000;

/// Constant linear velocity of the pose origin and angular velocity about it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Motion {
    /// Linear velocity (m/s).
    pub vel: DVec2,
    /// Angular velocity (rad/s, counter-clockwise).
    pub omega: f64,
}

impl Motion {
    /// A motion from linear and angular velocity.
    pub fn new(vel: DVec2, omega: f64) -> Motion {
        Motion { vel, omega }
    }

    /// The pose reached from `p` after time `t`.
    #[inline]
    pub fn pose_at(&self, p: &Pose, t: f64) -> Pose {
        Pose {
            pos: p.pos + self.vel * t,
            angle: p.angle + self.omega * t,
        }
    }
}

/// Result of [`toi`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Toi {
    /// Whether the bodies touch within `[0, dt]`.
    pub hit: bool,
    /// Time of first contact in seconds, in `[0, dt]`; `dt` when there is no hit, `0` when the
    /// bodies overlap (or touch) at the start.
    pub toi: f64,
    /// Contact point at `toi` (the midpoint of the two witness points); at `dt` when no hit.
    pub point: DVec2,
    /// Unit normal from A to B at `toi` (at `dt` when no hit).
    pub normal: DVec2,
    /// Distance evaluations used.
    pub iterations: u32,
    /// `false` only if [`MAX_ITERATIONS`] ran out (then `hit` is a conservative report at the
    /// last provably free time).
    pub converged: bool,
}

/// Exact time of impact of two translating circles (centres `ca`, `cb`, radii, velocities)
/// within `[0, dt]`: the smallest `t` with `|cb − ca + (vb − va)·t| = ra + rb`. `Some(0.0)` if
/// they already touch or overlap; `None` if they do not meet within `dt`.
pub fn toi_circles(
    ca: DVec2,
    ra: f64,
    va: DVec2,
    cb: DVec2,
    rb: f64,
    vb: DVec2,
    dt: f64,
) -> Option<f64> {
    let p = cb - ca;
    let v = vb - va;
    let r = ra + rb;
    let c = p.length_squared() - r * r;
    if c <= 0.0 {
        return Some(0.0);
    }
    let a = v.length_squared();
    let b = 2.0 * p.dot(v);
    if a == 0.0 || b >= 0.0 {
        return None;
    }
    let disc = b * b - 4.0 * a * c;
    if disc < 0.0 {
        return None;
    }
    // the smaller root, in the cancellation-free form
    let t = 2.0 * c / (-b + disc.sqrt());
    (t <= dt).then_some(t)
}

/// Farthest distance of any point of `shape` (placed at `pose` in its parent frame) from the
/// parent's origin. For a lone circle at the origin this is its radius, but a circle's set does
/// not change when it spins, so [`rotation_radius`] treats that case as `0`.
fn reach(shape: &Shape, pose: &Pose) -> f64 {
    let poly = |p: &ConvexPolygon| {
        p.verts()
            .iter()
            .fold(0.0f64, |m, v| m.max(pose.apply(*v).length()))
    };
    match shape {
        Shape::Circle { radius } => pose.pos.length() + radius,
        Shape::Box { poly: p, .. } | Shape::Polygon(p) => poly(p),
        Shape::Segment { a, b } => pose.apply(*a).length().max(pose.apply(*b).length()),
        Shape::Capsule { a, b, radius } => {
            pose.apply(*a).length().max(pose.apply(*b).length()) + radius
        }
        Shape::Border(b) => b
            .verts()
            .iter()
            .fold(0.0f64, |m, v| m.max(pose.apply(*v).length())),
        Shape::Compound(parts) => parts
            .iter()
            .fold(0.0f64, |m, (pp, ps)| m.max(reach(ps, &pose.compose(*pp)))),
        Shape::Fish { fish, joints } => {
            let poses = fish.part_poses(*pose, *joints);
            fish.parts()
                .iter()
                .zip(poses.iter())
                .fold(0.0f64, |m, (p, pp)| {
                    m.max(
                        p.verts()
                            .iter()
                            .fold(0.0f64, |m, v| m.max(pp.apply(*v).length())),
                    )
                })
        }
    }
}

/// The farthest distance of any point of `shape` from its own origin, i.e. the lever arm of
/// rotation about the pose origin (`0` for a circle, whose set is unchanged by spinning).
pub fn rotation_radius(shape: &Shape) -> f64 {
    match shape {
        Shape::Circle { .. } => 0.0,
        _ => reach(shape, &Pose::IDENTITY),
    }
}

/// Convex shapes whose distance is a convex function of time under translation.
fn is_convex(s: &Shape) -> bool {
    matches!(
        s,
        Shape::Circle { .. }
            | Shape::Box { .. }
            | Shape::Polygon(_)
            | Shape::Segment { .. }
            | Shape::Capsule { .. }
    )
}

fn toi_result(
    a: &Shape,
    pa: &Pose,
    b: &Shape,
    pb: &Pose,
    hit: bool,
    t: f64,
    iterations: u32,
) -> Toi {
    let d = distance(a, pa, b, pb);
    Toi {
        hit,
        toi: t,
        point: 0.5 * (d.point_a + d.point_b),
        normal: d.normal,
        iterations,
        converged: true,
    }
}

/// Time of impact of `a` (at `pa`, moving by `ma`) and `b` (at `pb`, moving by `mb`) within
/// `[0, dt]` seconds, to exact contact (distance `0` within [`TOI_TOLERANCE`], no slop).
///
/// Both bodies may translate and rotate (about their pose origins); fish joints stay as given.
/// Translating circles are solved exactly; everything else by conservative advancement (see
/// the module docs for the guarantee). Non-finite input gives no hit at `0`.
pub fn toi(a: &Shape, pa: &Pose, ma: &Motion, b: &Shape, pb: &Pose, mb: &Motion, dt: f64) -> Toi {
    let finite = pa.pos.is_finite()
        && pa.angle.is_finite()
        && pb.pos.is_finite()
        && pb.angle.is_finite()
        && ma.vel.is_finite()
        && ma.omega.is_finite()
        && mb.vel.is_finite()
        && mb.omega.is_finite()
        && dt.is_finite();
    if !finite {
        return Toi {
            hit: false,
            toi: 0.0,
            point: DVec2::ZERO,
            normal: DVec2::X,
            iterations: 0,
            converged: true,
        };
    }
    let dt = dt.max(0.0);

    // exact: two translating circles (spin does not change a circle)
    if let (Shape::Circle { radius: ra }, Shape::Circle { radius: rb }) = (a, b) {
        let t = toi_circles(pa.pos, *ra, ma.vel, pb.pos, *rb, mb.vel, dt);
        let tt = t.unwrap_or(dt);
        let (ca, cb) = (pa.pos + ma.vel * tt, pb.pos + mb.vel * tt);
        let n = (cb - ca).try_normalize().unwrap_or(DVec2::X);
        let (wa, wb) = (ca + n * *ra, cb - n * *rb);
        return Toi {
            hit: t.is_some(),
            toi: tt,
            point: 0.5 * (wa + wb),
            normal: n,
            iterations: 0,
            converged: true,
        };
    }

    let (ra, rb) = (rotation_radius(a), rotation_radius(b));
    let bound = (mb.vel - ma.vel).length() + ma.omega.abs() * ra + mb.omega.abs() * rb;
    let translating = ma.omega == 0.0 && mb.omega == 0.0 && is_convex(a) && is_convex(b);
    let vrel = mb.vel - ma.vel;

    let mut t = 0.0;
    let mut free_t = 0.0; // last time certified free
    let mut iterations = 0u32;
    loop {
        let (qa, qb) = (ma.pose_at(pa, t), mb.pose_at(pb, t));
        let d = distance(a, &qa, b, &qb);
        iterations += 1;
        if d.distance.is_nan() {
            break;
        }
        if d.distance <= TOI_TOLERANCE {
            if d.distance < -TOI_TOLERANCE && t > 0.0 {
                // numerical overshoot past the surface: bisect back on the sign of d
                let (mut lo, mut hi) = (free_t, t);
                for _ in 0..200 {
                    let mid = 0.5 * (lo + hi);
                    if mid <= lo || mid >= hi {
                        break;
                    }
                    let dm = distance(a, &ma.pose_at(pa, mid), b, &mb.pose_at(pb, mid)).distance;
                    iterations += 1;
                    if dm > TOI_TOLERANCE {
                        lo = mid;
                    } else {
                        hi = mid;
                        if dm >= -TOI_TOLERANCE {
                            break;
                        }
                    }
                }
                t = hi;
                let (qa, qb) = (ma.pose_at(pa, t), mb.pose_at(pb, t));
                return toi_result(a, &qa, b, &qb, true, t, iterations);
            }
            // polish: a few more conservative steps bring the time closer to the contact
            let mut d = d;
            let mut polish = 0;
            while d.distance > POLISH_DISTANCE && bound > 0.0 && polish < 32 {
                let next = t + d.distance / bound;
                if next <= t || next > dt {
                    break;
                }
                let dn = distance(a, &ma.pose_at(pa, next), b, &mb.pose_at(pb, next));
                iterations += 1;
                polish += 1;
                if dn.distance < -TOI_TOLERANCE {
                    break;
                }
                t = next;
                d = dn;
            }
            return Toi {
                hit: true,
                toi: t,
                point: 0.5 * (d.point_a + d.point_b),
                normal: d.normal,
                iterations,
                converged: true,
            };
        }
        free_t = t;
        if bound.is_nan() || bound <= 0.0 {
            break;
        }
        let mut step = d.distance / bound;
        if translating {
            // d(t) is convex: its tangent stays below it, so its root is conservative too
            let rate = d.normal.dot(vrel);
            if rate >= 0.0 {
                break; // never approaching again
            }
            step = step.max(d.distance / -rate);
        }
        let next = t + step;
        if next > dt {
            break;
        }
        if next <= t || iterations >= MAX_ITERATIONS {
            let converged = iterations < MAX_ITERATIONS;
            return Toi {
                hit: true,
                toi: t,
                point: 0.5 * (d.point_a + d.point_b),
                normal: d.normal,
                iterations,
                converged,
            };
        }
        t = next;
    }
    let (qa, qb) = (ma.pose_at(pa, dt), mb.pose_at(pb, dt));
    toi_result(a, &qa, b, &qb, false, dt, iterations)
}

// ---------------------------------------------------------------------------------------------
// pseudo-continuous sub-sampling

/// A body's state at the end of a control cycle: its pose and, for a fish, its tail joint
/// angles (ignored for other shapes).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct BodyState {
    /// Pose of the body (for a fish, of its body part).
    pub pose: Pose,
    /// Fish tail joint angles.
    pub joints: [f64; 3],
}

impl BodyState {
    /// A state from a pose, with zero joint angles.
    pub fn from_pose(pose: Pose) -> BodyState {
        BodyState {
            pose,
            joints: [0.0; 3],
        }
    }
}

/// Options of [`pseudo_continuous`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SubstepOptions {
    /// Cycle length `Δt` between the two states, seconds (default 0.1).
    pub cycle: f64,
    /// Fraction of `min_feature` allowed between samples (default 0.5, as Box2D).
    pub safety: f64,
    /// Upper bound `N_max` on the sub-step count (default 64).
    pub max_substeps: u32,
    /// Bisection stops when the bracket is shorter than this, seconds (default 1e-6).
    pub time_tol: f64,
}

impl Default for SubstepOptions {
    fn default() -> Self {
        SubstepOptions {
            cycle: 0.1,
            safety: 0.5,
            max_substeps: 64,
            time_tol: 1e-6,
        }
    }
}

/// Result of [`pseudo_continuous`].
#[derive(Clone, Debug)]
pub struct PseudoHit {
    /// Whether an intersecting sample was found.
    pub hit: bool,
    /// First detected hit time, seconds from the first state (refined by bisection: the
    /// bodies intersect at `time` and were free at `time − time_tol`); `cycle` if no hit.
    pub time: f64,
    /// The contact at `time` (`None` if no hit).
    pub contact: Option<Contact>,
    /// Sub-steps `N` used (the samples are at `k·cycle/N`, `k = 0..=N`).
    pub substeps: u32,
    /// Samples tested, including bisection.
    pub tests: u32,
    /// State of A at `time`.
    pub state_a: BodyState,
    /// State of B at `time`.
    pub state_b: BodyState,
}

/// `x` wrapped into `(−π, π]`.
pub fn wrap_angle(x: f64) -> f64 {
    let y = x.rem_euclid(TAU);
    if y > PI {
        y - TAU
    } else {
        y
    }
}

/// The state at fraction `u ∈ [0, 1]` between `s0` and `s1`: linear position, shortest-arc
/// angle, linear joint angles.
pub fn interpolate(s0: &BodyState, s1: &BodyState, u: f64) -> BodyState {
    let mut joints = [0.0; 3];
    for (k, j) in joints.iter_mut().enumerate() {
        *j = s0.joints[k] + (s1.joints[k] - s0.joints[k]) * u;
    }
    BodyState {
        pose: Pose {
            pos: s0.pose.pos + (s1.pose.pos - s0.pose.pos) * u,
            angle: s0.pose.angle + wrap_angle(s1.pose.angle - s0.pose.angle) * u,
        },
        joints,
    }
}

fn polygon_width(p: &ConvexPolygon) -> f64 {
    let v = p.verts();
    p.normals()
        .iter()
        .enumerate()
        .fold(f64::INFINITY, |m, (i, n)| {
            let base = v[i].dot(*n);
            let depth = v.iter().fold(0.0f64, |d, q| d.max(base - q.dot(*n)));
            m.min(depth)
        })
}

/// The narrowest width of a shape (of its narrowest part for compounds and fish; `0` for
/// segments and the border, whose wall is a line).
pub fn min_width(s: &Shape) -> f64 {
    match s {
        Shape::Circle { radius } => 2.0 * radius,
        Shape::Box { half, .. } => 2.0 * half.x.min(half.y),
        Shape::Polygon(p) => polygon_width(p),
        Shape::Segment { .. } | Shape::Border(_) => 0.0,
        Shape::Capsule { radius, .. } => 2.0 * radius,
        Shape::Compound(parts) => parts
            .iter()
            .fold(f64::INFINITY, |m, (_, ps)| m.min(min_width(ps))),
        Shape::Fish { fish, .. } => fish
            .parts()
            .iter()
            .fold(f64::INFINITY, |m, p| m.min(polygon_width(p))),
    }
}

/// Upper bounds on the distance from fish joint `k` to any tail point beyond it, and on the
/// distance from the fish origin to any of its points whatever the joint angles.
fn fish_reach(fish: &Fish) -> ([f64; 3], f64) {
    let d = fish.dims();
    let tip = (d.caudal_length.powi(2) + (0.5 * d.caudal_span).powi(2)).sqrt();
    let half_link = 0.5 * d.link_width;
    let mut r = [0.0; 3];
    for (k, rk) in r.iter_mut().enumerate() {
        *rk = (3 - k) as f64 * d.link_length + tip + half_link;
    }
    // body and fins at the origin, tail through joint 1 at 0.55·length behind it
    let front = fish.parts()[..3]
        .iter()
        .zip(fish.part_poses(Pose::IDENTITY, [0.0; 3]).iter())
        .fold(0.0f64, |m, (p, pp)| {
            m.max(
                p.verts()
                    .iter()
                    .fold(0.0f64, |m, v| m.max(pp.apply(*v).length())),
            )
        });
    (r, front.max(0.55 * d.body_length + r[0]))
}

/// Bound on how far any point of the body moves between the two states (about its pose
/// origin: rotation arc plus joint arcs; the translation is handled by the caller).
fn motion_terms(s: &Shape, s0: &BodyState, s1: &BodyState) -> f64 {
    let dtheta = wrap_angle(s1.pose.angle - s0.pose.angle).abs();
    match s {
        Shape::Fish { fish, .. } => {
            let (reach_k, r_max) = fish_reach(fish);
            let mut m = dtheta * r_max;
            for ((j0, j1), reach) in s0.joints.iter().zip(&s1.joints).zip(&reach_k) {
                m += (j1 - j0).abs() * reach;
            }
            m
        }
        _ => dtheta * rotation_radius(s),
    }
}

/// The bound `max_motion` of the module docs: how far any point of one body can move relative
/// to the other between the two states.
pub fn max_motion(
    a: &Shape,
    a0: &BodyState,
    a1: &BodyState,
    b: &Shape,
    b0: &BodyState,
    b1: &BodyState,
) -> f64 {
    let dp = (a1.pose.pos - a0.pose.pos) - (b1.pose.pos - b0.pose.pos);
    dp.length() + motion_terms(a, a0, a1) + motion_terms(b, b0, b1)
}

/// The box of `shape` at state `st` (a fish with the state's joints).
fn state_aabb(shape: &Shape, st: &BodyState) -> Aabb {
    match shape {
        Shape::Fish { fish, .. } => {
            let poses = fish.part_poses(st.pose, st.joints);
            let pts = fish
                .parts()
                .iter()
                .zip(poses.iter())
                .flat_map(|(p, pp)| p.verts().iter().map(move |v| pp.apply(*v)));
            Aabb::from_points(pts)
        }
        _ => aabb(shape, &st.pose),
    }
}

/// A box holding every interpolated pose of `shape` between the states `s0` and `s1`: the
/// union of the two end boxes, grown by twice the rotation and joint motion bound (a point
/// strays from the straight path between its translated end positions by at most that much).
/// Use it for the broad phase of [`pseudo_continuous`].
pub fn swept_aabb(shape: &Shape, s0: &BodyState, s1: &BodyState) -> Aabb {
    let (b0, b1) = (state_aabb(shape, s0), state_aabb(shape, s1));
    let grow = 2.0 * motion_terms(shape, s0, s1);
    Aabb {
        min: b0.min.min(b1.min) - DVec2::splat(grow),
        max: b0.max.max(b1.max) + DVec2::splat(grow),
    }
}

/// The adaptive sub-step count `N = clamp(ceil(max_motion / (safety · min_feature)), 1, N_max)`.
pub fn substep_count(
    a: &Shape,
    a0: &BodyState,
    a1: &BodyState,
    b: &Shape,
    b0: &BodyState,
    b1: &BodyState,
    opts: &SubstepOptions,
) -> u32 {
    let n_max = opts.max_substeps.max(1);
    let motion = max_motion(a, a0, a1, b, b0, b1);
    let feature = opts.safety * (min_width(a) + min_width(b));
    if motion.is_nan() || motion <= 0.0 {
        return 1;
    }
    if feature.is_nan() || feature <= 0.0 || !(motion / feature).is_finite() {
        return n_max;
    }
    let n = (motion / feature).ceil();
    if n >= n_max as f64 {
        n_max
    } else {
        (n as u32).max(1)
    }
}

/// The shape at a state: a fish takes the state's joint angles.
fn set_joints(s: &mut Shape, st: &BodyState) {
    if let Shape::Fish { joints, .. } = s {
        *joints = st.joints;
    }
}

/// The shape to move along the cycle: a fish is copied (its joints change), others borrowed.
fn working_copy(s: &Shape) -> Cow<'_, Shape> {
    if matches!(s, Shape::Fish { .. }) {
        Cow::Owned(s.clone())
    } else {
        Cow::Borrowed(s)
    }
}

/// The paper's pseudo-continuous detection between two cycles (see the module docs): samples
/// `N + 1` interpolated states of the pair, tests each discretely, and bisects the first hit
/// down to `opts.time_tol`. `a0`/`a1` and `b0`/`b1` are the states at the start and the end of
/// the cycle.
///
/// The discrete test is the signed distance (intersecting iff `distance ≤ EPS_TOUCH`, the
/// narrow phase's touching rule); the [`Contact`] is computed once, at the reported time. A
/// free sample at distance `d` also proves the next `d / max_motion` of the cycle free, so
/// the samples inside that stretch are skipped: the outcome equals testing every sample, at a
/// fraction of the cost for pairs that stay apart.
pub fn pseudo_continuous(
    a: &Shape,
    a0: &BodyState,
    a1: &BodyState,
    b: &Shape,
    b0: &BodyState,
    b1: &BodyState,
    opts: &SubstepOptions,
) -> PseudoHit {
    let n = substep_count(a, a0, a1, b, b0, b1, opts);
    let motion = max_motion(a, a0, a1, b, b0, b1);
    let cycle = if opts.cycle.is_finite() && opts.cycle > 0.0 {
        opts.cycle
    } else {
        0.0
    };
    // only a fish needs a copy (its joints change along the cycle)
    let (mut sa, mut sb) = (working_copy(a), working_copy(b));
    let mut tests = 0u32;
    let mut probe = |u: f64, sa: &mut Cow<'_, Shape>, sb: &mut Cow<'_, Shape>| {
        let (xa, xb) = (interpolate(a0, a1, u), interpolate(b0, b1, u));
        if let Cow::Owned(s) = sa {
            set_joints(s, &xa);
        }
        if let Cow::Owned(s) = sb {
            set_joints(s, &xb);
        }
        tests += 1;
        (distance(sa, &xa.pose, sb, &xb.pose).distance, xa, xb)
    };
    let mut last_free = 0.0;
    let mut free_until = f64::NEG_INFINITY; // fraction of the cycle proven free
    for k in 0..=n {
        let u = k as f64 / n as f64;
        if u < free_until {
            last_free = u;
            continue;
        }
        let (d, xa, xb) = probe(u, &mut sa, &mut sb);
        if d.is_nan() || d > EPS_TOUCH {
            last_free = u;
            if motion > 0.0 && !d.is_nan() {
                free_until = u + (d - EPS_TOUCH) / motion;
            }
            continue;
        }
        let (mut state_a, mut state_b) = (xa, xb);
        let mut hi = u;
        if k > 0 {
            let mut lo = last_free;
            for _ in 0..200 {
                if (hi - lo) * cycle <= opts.time_tol {
                    break;
                }
                let mid = 0.5 * (lo + hi);
                if mid <= lo || mid >= hi {
                    break;
                }
                let (dm, ya, yb) = probe(mid, &mut sa, &mut sb);
                if dm <= EPS_TOUCH {
                    hi = mid;
                    state_a = ya;
                    state_b = yb;
                } else {
                    lo = mid;
                }
            }
        }
        if let Cow::Owned(s) = &mut sa {
            set_joints(s, &state_a);
        }
        if let Cow::Owned(s) = &mut sb {
            set_joints(s, &state_b);
        }
        let c = contact(&sa, &state_a.pose, &sb, &state_b.pose, 0.0);
        return PseudoHit {
            hit: true,
            time: hi * cycle,
            contact: c,
            substeps: n,
            tests,
            state_a,
            state_b,
        };
    }
    PseudoHit {
        hit: false,
        time: cycle,
        contact: None,
        substeps: n,
        tests,
        state_a: *a1,
        state_b: *b1,
    }
}
