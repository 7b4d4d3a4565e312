//! The general convex narrow phase (MuJoCo's `mjc_Convex` family): support functions for every
//! convex geom type, GJK/EPA with multi-contact (MuJoCo's native `mjc_ccd`, the default) and
//! MPR (libccd's, when the `nativeccd` flag is off).
//!
//! Conventions are those of [`crate::narrow`]: world coordinates, geom 1 has the lower type,
//! normal from geom 1 to geom 2, `pos` the midpoint, `dist` the signed distance, contacts
//! reported when `dist < margin`.
//!
//! # The native solver (MuJoCo 4.0.0's `mjc_ccd`)
//! What follows was read from MuJoCo's source (3.x `engine_collision_gjk.c`) and then adjusted
//! to what the released 4.0.0 binary measurably does (`conformance/narrow_convex.py`):
//! - Core distance first: whenever a sphere or capsule is involved **or the margin is
//!   positive**, GJK computes the distance between the cores (sphere centre, capsule axis
//!   segment, every other shape as it is, no inflation). If it exceeds the tolerance, the witness
//!   points are pushed out by the radii plus `margin / 2` each and that is the contact (its
//!   distance is exact to GJK's tolerance). Only overlapping cores go on to the full solve.
//! - Every GJK run starts from the centre difference, or from the x axis when the centres are
//!   within 1e-15 of each other; its first iterate is never a stopping point (so a sphere
//!   centred in a mesh still gets EPA's contact, as in 4.0.0).
//! - Full solve: both shapes inflated by `margin / 2` (the Minkowski support moves by `margin`
//!   along the query direction); GJK (signed-volume sub-distance, Frank–Wolfe duality-gap
//!   stop; no `gjkIntersect` shortcut, which 4.0.0 does not take) then EPA from its simplex
//!   (horizon expansion, faces oriented away from the polytope centre, stop when the current
//!   support's bound is within the tolerance of the closest face). The contact has
//!   `dist = margin - depth`, `pos` the witnesses' midpoint, `normal` their difference.
//! - Multi-contact (flag `multiccd`): for cylinder, box and mesh pairs (up to 4 contacts) and
//!   capsule–cylinder / capsule–mesh (up to 2), face–face or edge–face clipping of the true
//!   (uninflated) features touched by the closest EPA face, or by the last GJK simplex for a
//!   shallow contact; see `multicontact.rs` for the rules and the reporting convention.
//!
//! # Iteration limits
//! GJK runs at most `ccd_iterations` steps and EPA at most `min(ccd_iterations,`
//! [`MAX_EPA_ITERATIONS`]`)` expansions (MuJoCo: 1000), all in fixed-size buffers. When GJK
//! runs out, its current estimate decides (a distance above the tolerance means no contact);
//! when EPA runs out, the closest face found so far gives the contact (its depth is a lower
//! bound of the true depth, within the face's gap). [`convex_pair_report`] returns these
//! outcomes ([`CcdReport::gjk_exhausted`], [`CcdReport::epa_exhausted`],
//! [`CcdReport::epa_status`]), so a caller can tell a converged answer from a budget-limited one.
//!
//! With `nativeccd` off, [`convex_pair`] hands the pair to libccd's MPR ([`mpr`]), one contact.
//!
//! # Per-pair caches of the collider
//! [`crate::Collider`] keeps two caches per convex pair: the separating direction of a
//! separated pair (`separation.rs`: an exact proof that the solver would report nothing, so its
//! contacts are bit for bit the solver's), and for touching pairs of boxes and meshes at zero
//! margin the GJK tetrahedron, from which EPA restarts while it encloses the origin
//! (`coherence.rs`: depth and normal equal to rounding, witness points and multi-contact
//! features possibly not MuJoCo's bit for bit). The free functions here never use them.

use glam::{DMat3, DVec3};

use crate::model::{ConvexHull, GeomType, HField};
use crate::narrow::PreContact;

mod coherence;
mod epa;
mod gjk;
pub(crate) mod lean_gjk;
pub mod mpr;
mod multicontact;
mod prism;
mod separation;
mod support;

pub(crate) use coherence::{is_polytope, TouchingCache, WarmSlot};
pub use epa::{EpaStatus, MAX_EPA_ITERATIONS};
pub(crate) use prism::PrismCollider;
pub(crate) use separation::SeparationCache;
pub use support::HILLCLIMB_MIN;

use coherence::{Surface, TetraIds};
use epa::{epa, Polytope};
use gjk::{gjk, FAR};
use multicontact::{multicontact, normalize, Touched};
use support::{Object, Vertex};

/// A convex geom as the convex colliders see it.
#[derive(Clone, Copy, Debug)]
pub struct ConvexGeom<'a> {
    /// Geom type.
    pub kind: GeomType,
    /// Centre of the geom frame.
    pub pos: DVec3,
    /// Orientation of the geom frame (columns are the local axes).
    pub mat: DMat3,
    /// MuJoCo size parameters.
    pub size: DVec3,
    /// Hull of a mesh geom, in the geom frame.
    pub hull: Option<&'a ConvexHull>,
    /// Height-field data of an hfield geom.
    pub hfield: Option<&'a HField>,
}

/// Solver settings from the model's options.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CcdOptions {
    /// Maximum iterations (`option/@ccd_iterations`).
    pub iterations: usize,
    /// Convergence tolerance (`option/@ccd_tolerance`).
    pub tolerance: f64,
    /// Native GJK/EPA (flag `nativeccd`, on by default) rather than libccd's MPR.
    pub native: bool,
    /// Multiple contacts per pair (flag `multiccd`, on by default in 4.0.0).
    pub multi: bool,
}

impl Default for CcdOptions {
    /// MuJoCo's defaults: 35 iterations, tolerance 1e-6, native solver, multi-contact on.
    fn default() -> Self {
        CcdOptions {
            iterations: 35,
            tolerance: 1e-6,
            native: true,
            multi: true,
        }
    }
}

/// What the solver did for one pair.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CcdReport {
    /// Contacts written.
    pub ncon: usize,
    /// GJK iterations (of the last GJK run).
    pub gjk_iterations: usize,
    /// GJK stopped because `ccd_iterations` ran out, not on a convergence test.
    pub gjk_exhausted: bool,
    /// EPA expansions (0 if EPA did not run).
    pub epa_iterations: usize,
    /// EPA stopped because its iteration budget ran out: the depth is the best lower bound
    /// found, not converged to `ccd_tolerance`.
    pub epa_exhausted: bool,
    /// How EPA's initial polytope construction went ([`EpaStatus::NotRun`] if it did not run;
    /// any failure means the overlap was treated as "touching", with no contact, as MuJoCo does).
    pub epa_status: EpaStatus,
    /// The contacts come from the multi-contact step (else the single GJK/EPA contact).
    pub multi: bool,
    /// How GJK found the pair separated (the shapes, or their cores in the core test, farther
    /// apart than the test requires), when that is why there is no contact; `None` otherwise.
    pub separation: Option<Separation>,
    /// EPA started from the pair's cached tetrahedron instead of GJK's (collider only; see
    /// [`Stats::warm_starts`](crate::Stats::warm_starts)); GJK did not run.
    pub warm_start: bool,
    /// The pair's cached EPA surface proved the depth: EPA did not run either (implies
    /// [`CcdReport::warm_start`]).
    pub warm_surface: bool,
}

/// How GJK found a pair separated ([`CcdReport::separation`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Separation {
    /// GJK's last iterate negated: a direction (world frame, not normalized) from geom 1
    /// towards geom 2 along which the pair is separated.
    pub dir: DVec3,
    /// Feature indices of GJK's last support points on geom 1 and geom 2 (for a mesh a hull
    /// vertex, usually a maximizer along `dir`, resp. `-dir`, or close to one).
    pub feature: [i32; 2],
}

/// Largest number of contacts the convex collider returns for a type pair (MuJoCo 4.0.0's
/// `mj_maxContact` for the pairs it sends to `mjc_Convex`): 1 with a sphere or ellipsoid or with
/// multi-contact off, 2 with a capsule, 8 for box–box, else 4.
pub fn max_contacts(t1: GeomType, t2: GeomType, opt: &CcdOptions) -> usize {
    use GeomType::*;
    if !opt.multi {
        return 1;
    }
    let has = |t: GeomType| t1 == t || t2 == t;
    if has(Sphere) || has(Ellipsoid) || has(Plane) || has(HField) {
        1
    } else if has(Capsule) {
        2
    } else if t1 == Box && t2 == Box {
        8
    } else {
        4
    }
}

/// Convex–convex pair (`mjc_Convex` with the native solver). Writes at most
/// [`max_contacts`] contacts (and at most `out.len()`) and returns their number.
pub fn convex_pair(
    g1: &ConvexGeom,
    g2: &ConvexGeom,
    margin: f64,
    opt: &CcdOptions,
    out: &mut [PreContact],
) -> usize {
    if !opt.native {
        return mpr::mpr_convex(g1, g2, margin, opt, out);
    }
    convex_pair_report(g1, g2, margin, opt, out).ncon
}

/// Is the geom something the solver can handle?
fn usable(g: &ConvexGeom) -> bool {
    // `0 x` is ±0 for a finite `x` and NaN otherwise: one comparison of the sum tests all 15
    // numbers, without a branch per component
    let z = [g.pos, g.mat.x_axis, g.mat.y_axis, g.mat.z_axis, g.size]
        .iter()
        .fold(DVec3::ZERO, |acc, v| acc + *v * 0.0);
    let finite = z.x + z.y + z.z == 0.0;
    finite
        && match g.kind {
            GeomType::Sphere
            | GeomType::Capsule
            | GeomType::Ellipsoid
            | GeomType::Cylinder
            | GeomType::Box => true,
            GeomType::Mesh => g.hull.is_some_and(|h| !h.vert.is_empty()),
            GeomType::Plane | GeomType::HField | GeomType::Sdf => false,
        }
}

/// The single contact found by GJK/EPA and the features it touches.
struct Single {
    /// Signed distance of the inflated shapes (negative).
    dist: f64,
    x1: DVec3,
    x2: DVec3,
    feature: Touched,
}

/// [`convex_pair`] with the native solver (whatever [`CcdOptions::native`] says), also returning
/// the solver's diagnostics.
pub fn convex_pair_report(
    g1: &ConvexGeom,
    g2: &ConvexGeom,
    margin: f64,
    opt: &CcdOptions,
    out: &mut [PreContact],
) -> CcdReport {
    convex_pair_report_warm(g1, g2, margin, opt, out, None)
}

/// [`convex_pair_report`] with the pair's slot in the collider's touching cache (see
/// `coherence.rs`): what the pair's previous solve left there in, what the next call may start
/// from out (the entry is dropped when the pair did not end in EPA from a GJK tetrahedron of
/// two polytopes at zero margin). [`CcdReport::warm_start`] tells whether the cache was used.
pub(crate) fn convex_pair_report_warm(
    g1: &ConvexGeom,
    g2: &ConvexGeom,
    margin: f64,
    opt: &CcdOptions,
    out: &mut [PreContact],
    warm: Option<&mut WarmSlot>,
) -> CcdReport {
    let mut rep = CcdReport::default();
    if out.is_empty() || !usable(g1) || !usable(g2) || !margin.is_finite() {
        return rep;
    }
    let maxcon = max_contacts(g1.kind, g2.kind, opt).min(out.len());
    let mut o1 = Object::new(g1.kind, g1.pos, g1.mat, g1.size, g1.hull, margin);
    let mut o2 = Object::new(g2.kind, g2.pos, g2.mat, g2.size, g2.hull, margin);
    let iterations = opt.iterations;
    let tol = opt.tolerance;

    let Some(single) = solve::<true>(&mut o1, &mut o2, iterations, tol, warm, &mut rep) else {
        return rep;
    };

    if maxcon > 1 {
        // (written straight into `out`: nothing is written when no aligned features are found)
        let n = multicontact(
            &o1,
            &o2,
            &single.feature,
            single.x1,
            single.x2,
            margin,
            maxcon,
            &mut out[..maxcon],
        );
        if n > 0 {
            rep.ncon = n;
            rep.multi = true;
            return rep;
        }
    }

    let c = PreContact {
        dist: margin + single.dist,
        pos: 0.5 * (single.x1 + single.x2),
        normal: normalize(single.x1 - single.x2),
        tangent: DVec3::ZERO,
    };
    if c.dist.is_finite() && c.pos.is_finite() {
        out[0] = c;
        rep.ncon = 1;
    }
    rep
}

/// MuJoCo's `mjc_ccd` up to (not including) the multi-contact step; for two polytopes at zero
/// margin with a `warm` slot, the pair's cached EPA surface or tetrahedron is tried first and the
/// slot receives what the next call may start from (see `coherence.rs`). With `WARM` false
/// (height-field prisms) `warm` is ignored and none of this is compiled in.
fn solve<const WARM: bool>(
    o1: &mut Object,
    o2: &mut Object,
    iterations: usize,
    tol: f64,
    warm: Option<&mut WarmSlot>,
    rep: &mut CcdReport,
) -> Option<Single> {
    let mut simplex = [Vertex::default(); 4];
    if support::is_round(o1.kind)
        || support::is_round(o2.kind)
        || o1.margin > 0.0
        || o2.margin > 0.0
    {
        // distance between the cores (sphere centre, capsule segment, other shapes as they
        // are), radii and half margins added back
        let (m1, m2) = (o1.margin, o2.margin);
        let fm1 = o1.core_radius() + 0.5 * m1;
        let fm2 = o2.core_radius() + 0.5 * m2;
        o1.core = true;
        o2.core = true;
        o1.margin = 0.0;
        o2.margin = 0.0;
        let g = gjk(
            o1,
            o2,
            o1.pos,
            o2.pos,
            iterations,
            tol,
            fm1 + fm2,
            false,
            &mut simplex,
        );
        o1.core = false;
        o2.core = false;
        o1.margin = m1;
        o2.margin = m2;
        rep.gjk_iterations = g.iterations;
        rep.gjk_exhausted = g.exhausted;
        if g.dist > tol {
            if g.dist >= FAR {
                rep.separation = Some(separation_of(&g, o1, o2));
                return None;
            }
            let n = normalize(g.x2 - g.x1);
            let x1 = g.x1 + n * fm1;
            let x2 = g.x2 - n * fm2;
            // the radii and half margins summed first, as MuJoCo 4.0.0 rounds it (scenes/
            // option_override: capsule–ellipsoid and cylinder–cylinder with margins, 1.4e-17)
            let dist = g.dist - (fm1 + fm2);
            if dist.is_nan() || dist >= 0.0 {
                rep.separation = Some(separation_of(&g, o1, o2));
                return None;
            }
            let k = g.nsimplex.clamp(1, 3);
            let feature = Touched::of(&[0, 1, 2].map(|i| &simplex[i.min(k - 1)]));
            return Some(Single {
                dist,
                x1,
                x2,
                feature,
            });
        }
    }

    // (the slot only for two polytopes at zero margin)
    let mut warm = warm.filter(|_| WARM && o1.discrete() && o2.discrete());
    let mut cached = None;
    if let Some(slot) = warm.as_deref_mut() {
        let surface = slot.surface();
        // (a surface that failed is not replaced at once: the next call starts EPA from the
        // tetrahedron, so pairs whose surfaces keep failing try one every other call)
        let retry = surface.is_none();
        if let Some(single) = surface.and_then(|s| surface_penetration(o1, o2, s)) {
            rep.warm_start = true;
            rep.warm_surface = true;
            return Some(single);
        }
        cached = slot.tetra();
        if let Some(ids) = cached {
            let got = warm_penetration(
                o1,
                o2,
                &ids,
                &mut simplex,
                iterations,
                tol,
                retry,
                slot,
                rep,
            );
            if got.is_some() {
                return got;
            }
        }
        slot.forget();
    }

    let g = gjk(
        o1,
        o2,
        o1.pos,
        o2.pos,
        iterations,
        tol,
        0.0,
        false,
        &mut simplex,
    );
    rep.gjk_iterations = g.iterations;
    rep.gjk_exhausted = g.exhausted;
    if !(g.dist <= tol && g.nsimplex > 1 && !g.separated) {
        if g.separated || g.dist > tol {
            rep.separation = Some(separation_of(&g, o1, o2));
        }
        return None;
    }
    let single = penetration(
        o1, o2, &simplex, g.nsimplex, iterations, tol, &mut None, rep,
    );
    // after a failed warm start the pair skips one (a stream of unrelated poses then pays for
    // every other test only); EPA's surface is kept only once a warm start has shown the pair
    // to move little between calls (so random poses never pay for it)
    if let Some(slot) = warm.filter(|_| cached.is_none() && g.nsimplex == 4) {
        if single.is_some() && !rep.epa_exhausted {
            slot.keep(coherence::tetra_ids(&simplex));
        }
    }
    single
}

/// EPA from the tetrahedron `ids` rebuilt at the current poses, when it still encloses the
/// origin (see `coherence.rs`) and EPA converges; then `slot` keeps `ids`, and EPA's surface
/// if `keep_surface`.
/// `None` leaves `o1`, `o2` as they were (the fallback solve must start its hill climbs afresh).
/// Out of line, so that the solver's usual path compiles as before.
#[allow(clippy::too_many_arguments)]
#[inline(never)]
fn warm_penetration(
    o1: &mut Object,
    o2: &mut Object,
    ids: &TetraIds,
    simplex: &mut [Vertex; 4],
    iterations: usize,
    tol: f64,
    keep_surface: bool,
    slot: &mut WarmSlot,
    rep: &mut CcdReport,
) -> Option<Single> {
    if !coherence::enclosing_tetrahedron(o1, o2, ids, simplex) {
        return None;
    }
    let (fresh1, fresh2) = (*o1, *o2);
    let mut surface = keep_surface.then_some(Surface::EMPTY);
    match penetration(o1, o2, simplex, 4, iterations, tol, &mut surface, rep) {
        Some(single) if !rep.epa_exhausted => {
            rep.warm_start = true;
            let kept = slot.keep(*ids);
            if let Some(s) = surface {
                *kept = s;
            }
            Some(single)
        }
        _ => {
            (*o1, *o2) = (fresh1, fresh2);
            None
        }
    }
}

/// The penetration of two polytopes read off the pair's cached EPA `surface` rebuilt at the
/// current poses, when it proves the depth (see `coherence.rs`): every face still has the origin
/// strictly behind it, and the support point along the nearest face's normal is one of that
/// face's vertices or within EPA's tolerance of its plane, EPA's own stopping rules. The
/// contact is then the one EPA would report on that face. `None` leaves `o1`, `o2` as they
/// were. Out of line, as [`warm_penetration`].
#[inline(never)]
fn surface_penetration(o1: &mut Object, o2: &mut Object, surface: &Surface) -> Option<Single> {
    let mut pts = [Vertex::default(); coherence::SURFACE_VERTS];
    let fi = coherence::nearest_face(o1, o2, surface, &mut pts)?;
    let [a, b, c] = surface.faces[fi].map(|k| pts[usize::from(k)]);
    // the origin's projection on the face's plane, as EPA computes it for a face
    let v = gjk::project_origin_plane(c.vert, b.vert, a.vert)?;
    let dist2 = v.dot(v);
    let lower = dist2.sqrt();
    if lower.is_nan() || lower <= support::MINVAL {
        return None;
    }
    let (fresh1, fresh2) = (*o1, *o2);
    let w = support::minkowski_support(o1, o2, v / lower);
    let ids = (w.index1, w.index2);
    let on_face = [&a, &b, &c].iter().any(|p| (p.index1, p.index2) == ids);
    let upper = v.dot(w.vert) / lower;
    let l = epa::face_barycentric(a.vert, b.vert, c.vert, v);
    let single = Single {
        dist: -lower,
        x1: a.vert1 * l[0] + b.vert1 * l[1] + c.vert1 * l[2],
        x2: a.vert2 * l[0] + b.vert2 * l[1] + c.vert2 * l[2],
        feature: Touched::of(&[&a, &b, &c]),
    };
    if (on_face || upper - lower < support::MINVAL)
        && single.x1.is_finite()
        && single.x2.is_finite()
    {
        Some(single)
    } else {
        (*o1, *o2) = (fresh1, fresh2);
        None
    }
}

/// What [`CcdReport::separation`] records of a GJK run that found the pair separated.
fn separation_of(g: &gjk::Gjk, o1: &Object, o2: &Object) -> Separation {
    Separation {
        dir: -g.x,
        feature: [o1.vertindex, o2.vertindex],
    }
}

thread_local! {
    /// EPA's polytope (about 58 KB), kept per thread so that steady-state detection neither
    /// allocates nor clears it on every call (`epa` resets what it uses).
    static POLYTOPE: std::cell::RefCell<Box<Polytope>> =
        std::cell::RefCell::new(Box::new(Polytope::new()));
}

/// EPA on the overlapping shapes; with `surface` `Some`, EPA's final surface is also written
/// there when it converged and fits a [`Surface`] (else `surface` is set to `None`).
#[allow(clippy::too_many_arguments)]
fn penetration(
    o1: &mut Object,
    o2: &mut Object,
    simplex: &[Vertex; 4],
    n: usize,
    iterations: usize,
    tol: f64,
    surface: &mut Option<Surface>,
    rep: &mut CcdReport,
) -> Option<Single> {
    // (the result is read inside the closure: only what the pair keeps leaves it)
    POLYTOPE.with_borrow_mut(|pt| {
        let e = epa(pt, simplex, n, o1, o2, iterations, tol);
        rep.epa_iterations = e.iterations;
        rep.epa_exhausted = e.exhausted;
        rep.epa_status = e.status;
        if let Some(s) = surface.as_mut() {
            if !(e.found && !e.exhausted && pt.surface(s)) {
                *surface = None;
            }
        }
        (e.found && e.dist < 0.0).then(|| Single {
            dist: e.dist,
            x1: e.x1,
            x2: e.x2,
            feature: Touched::of(&[&e.face[0], &e.face[1], &e.face[2]]),
        })
    })
}

/// Result of [`convex_distance`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ConvexDistance {
    /// Signed distance between the surfaces (negative = penetration depth from EPA).
    pub dist: f64,
    /// Witness point on geom 1 (world frame).
    pub x1: DVec3,
    /// Witness point on geom 2 (world frame).
    pub x2: DVec3,
}

/// Signed distance between two convex geoms with the native solver in distance mode (MuJoCo
/// 4.0.0's `mjc_ccd` with one contact, zero margin and `dist_cutoff = cutoff`, as
/// `mj_geomDistance` calls it): spheres and capsules are first reduced to their cores and, when
/// the cores are apart, the witness points are pushed out by the radii; otherwise GJK runs on
/// the full shapes with early exit once they are provably farther apart than `cutoff`, then EPA
/// when they overlap. Returns `None` when the shapes are farther apart than `cutoff` (or when
/// the input is unusable: non-finite numbers, a mesh without hull, a plane or height field).
/// The result's `dist` may exceed `cutoff` slightly when GJK converged without the early
/// exit; callers cap it. Witness points are on the true (uninflated) surfaces; in penetration
/// they are EPA's deepest points. Nothing allocates (EPA's polytope is per thread).
pub fn convex_distance(
    g1: &ConvexGeom,
    g2: &ConvexGeom,
    cutoff: f64,
    opt: &CcdOptions,
) -> Option<ConvexDistance> {
    convex_distance_from(g1, g2, cutoff, opt, None, false)
}

/// [`convex_distance`] with a warm start: `guess`, a direction from geom 1 towards geom 2
/// (e.g. the previous query's `x2 - x1` for the same pair), makes GJK start from the support
/// points along it rather than from the centres. The answer is the same to the solver's
/// tolerance, but not bit for bit (nor are tied witness points): MuJoCo starts from the
/// centres. `swapped`: the caller asked for the pair in the other order (`mj_geomDistance`
/// then starts GJK from coincident centres along −x of this order, +x otherwise).
pub fn convex_distance_from(
    g1: &ConvexGeom,
    g2: &ConvexGeom,
    cutoff: f64,
    opt: &CcdOptions,
    guess: Option<DVec3>,
    swapped: bool,
) -> Option<ConvexDistance> {
    if !usable(g1) || !usable(g2) || cutoff.is_nan() {
        return None;
    }
    let cutoff = cutoff.max(0.0);
    let mut o1 = Object::new(g1.kind, g1.pos, g1.mat, g1.size, g1.hull, 0.0);
    let mut o2 = Object::new(g2.kind, g2.pos, g2.mat, g2.size, g2.hull, 0.0);
    let (iterations, tol) = (opt.iterations, opt.tolerance);
    let mut simplex = [Vertex::default(); 4];
    if support::is_round(o1.kind) || support::is_round(o2.kind) {
        let fm1 = o1.core_radius();
        let fm2 = o2.core_radius();
        o1.core = true;
        o2.core = true;
        let (s1, s2) = start(&mut o1, &mut o2, g1.pos, g2.pos, guess);
        let g = gjk(
            &mut o1,
            &mut o2,
            s1,
            s2,
            iterations,
            tol,
            cutoff + (fm1 + fm2),
            false,
            &mut simplex,
        );
        o1.core = false;
        o2.core = false;
        if g.dist > tol {
            if g.dist >= FAR {
                return None;
            }
            let n = normalize(g.x2 - g.x1);
            let d = ConvexDistance {
                dist: g.dist - (fm1 + fm2),
                x1: g.x1 + n * fm1,
                x2: g.x2 - n * fm2,
            };
            return (d.dist <= cutoff && d.dist.is_finite()).then_some(d);
        }
        o1.vertindex = -1;
        o2.vertindex = -1;
    }
    // coincident centres: GJK itself starts along +x (gjk.rs); in the caller's order that is
    // −x here when the pair was swapped (measured against mj_geomDistance both ways)
    let p1 = if swapped && g1.pos == g2.pos {
        g1.pos - DVec3::X
    } else {
        g1.pos
    };
    let (s1, s2) = start(&mut o1, &mut o2, p1, g2.pos, guess);
    let g = gjk(
        &mut o1,
        &mut o2,
        s1,
        s2,
        iterations,
        tol,
        cutoff,
        false,
        &mut simplex,
    );
    if g.dist >= FAR {
        return None;
    }
    if g.dist <= tol && g.nsimplex > 1 && !g.separated {
        let e = POLYTOPE
            .with_borrow_mut(|pt| epa(pt, &simplex, g.nsimplex, &mut o1, &mut o2, iterations, tol));
        if e.found {
            return Some(ConvexDistance {
                dist: e.dist,
                x1: e.x1,
                x2: e.x2,
            });
        }
    }
    let d = ConvexDistance {
        dist: g.dist,
        x1: g.x1,
        x2: g.x2,
    };
    d.dist.is_finite().then_some(d)
}

/// GJK's starting points: the centres, or with a `guess` direction (geom 1 towards geom 2) the
/// support points along it (a point of the Minkowski difference near the answer).
fn start(
    o1: &mut Object,
    o2: &mut Object,
    p1: DVec3,
    p2: DVec3,
    guess: Option<DVec3>,
) -> (DVec3, DVec3) {
    match guess {
        Some(d) if d.is_finite() && d.length_squared() > 1e-30 => {
            let d = d.normalize();
            let s = (o1.support_raw(d), o2.support_raw(-d));
            o1.vertindex = -1;
            o2.vertindex = -1;
            s
        }
        _ => (p1, p2),
    }
}
