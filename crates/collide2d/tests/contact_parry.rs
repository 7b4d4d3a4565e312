//! Differential tests against `parry2d-f64` on random convex pairs: signed distance (depth on
//! overlap), normal and witness points agree to ~1e-9.
//!
//! parry computes penetration with GJK + EPA and separation with GJK; we use SAT + GJK, so the
//! two are independent implementations. Pairs whose minimum-translation direction is ambiguous
//! (two candidate axes within 1e-7 of each other) are compared on depth only, since either
//! normal is a correct answer there.

use collide2d::contact::contact;
use collide2d::distance::distance;
use collide2d::{Pose, Shape};
use glam::DVec2;
use parry2d_f64::math::{Pose as PPose, Vector as PVec};
use parry2d_f64::query;
use parry2d_f64::shape as ps;
use proptest::prelude::*;
use std::f64::consts::PI;

fn v(x: f64, y: f64) -> DVec2 {
    DVec2::new(x, y)
}
fn pv(p: DVec2) -> PVec {
    PVec::new(p.x, p.y)
}
fn gv(p: PVec) -> DVec2 {
    DVec2::new(p.x, p.y)
}

fn hull(mut pts: Vec<DVec2>) -> Vec<DVec2> {
    pts.sort_by(|a, b| a.x.total_cmp(&b.x).then(a.y.total_cmp(&b.y)));
    pts.dedup();
    if pts.len() < 3 {
        return pts;
    }
    let mut out: Vec<DVec2> = Vec::new();
    for pass in 0..2 {
        let start = out.len();
        let iter: Vec<DVec2> = if pass == 0 {
            pts.clone()
        } else {
            pts.iter().rev().copied().collect()
        };
        for p in iter {
            while out.len() >= start + 2
                && (out[out.len() - 1] - out[out.len() - 2]).perp_dot(p - out[out.len() - 1])
                    <= 1e-9
            {
                out.pop();
            }
            out.push(p);
        }
        out.pop();
    }
    out
}

/// A random convex shape as (ours, parry's).
#[derive(Clone, Debug)]
enum Spec {
    Circle(f64),
    Box(f64, f64),
    Poly(Vec<DVec2>),
    Capsule(DVec2, DVec2, f64),
    Segment(DVec2, DVec2),
}

impl Spec {
    fn ours(&self) -> Shape {
        match self {
            Spec::Circle(r) => Shape::circle(*r).unwrap(),
            Spec::Box(x, y) => Shape::rect(v(*x, *y)).unwrap(),
            Spec::Poly(p) => Shape::polygon(p.clone()).unwrap(),
            Spec::Capsule(a, b, r) => Shape::capsule(*a, *b, *r).unwrap(),
            Spec::Segment(a, b) => Shape::segment(*a, *b).unwrap(),
        }
    }
    fn parry(&self) -> Box<dyn ps::Shape> {
        match self {
            Spec::Circle(r) => Box::new(ps::Ball::new(*r)),
            Spec::Box(x, y) => Box::new(ps::Cuboid::new(PVec::new(*x, *y))),
            Spec::Poly(p) => Box::new(
                ps::ConvexPolygon::from_convex_polyline_unmodified(
                    p.iter().map(|&q| pv(q)).collect(),
                )
                .unwrap(),
            ),
            Spec::Capsule(a, b, r) => Box::new(ps::Capsule::new(pv(*a), pv(*b), *r)),
            Spec::Segment(a, b) => Box::new(ps::Segment::new(pv(*a), pv(*b))),
        }
    }
}

impl Spec {
    /// parry's shape for the comparison and the radius added on top of it: a capsule is
    /// compared through its core segment (rounded distance = core distance − radii), because
    /// parry's GJK on the curved capsule support map only converges to ~1e-7.
    fn parry_core(&self) -> (Box<dyn ps::Shape>, f64) {
        match self {
            Spec::Capsule(a, b, r) => (Box::new(ps::Segment::new(pv(*a), pv(*b))), *r),
            _ => (self.parry(), 0.0),
        }
    }
}

/// parry's signed distance and normal for the pair (through capsule cores), if supported and
/// within 10 m, and whether the core pair is well conditioned (cores not touching).
fn parry_eval(sa: &Spec, pa: &Pose, sb: &Spec, pb: &Pose) -> Option<(f64, DVec2, bool)> {
    let (qa, ra) = sa.parry_core();
    let (qb, rb) = sb.parry_core();
    let c = query::contact(&ppose(pa), &*qa, &ppose(pb), &*qb, 10.0).ok()??;
    Some((c.dist - ra - rb, gv(c.normal1), c.dist.abs() > 1e-6))
}

fn spec(with_segments: bool) -> impl Strategy<Value = Spec> {
    let pt = || (-1.0..1.0f64, -1.0..1.0f64).prop_map(|(x, y)| v(x, y));
    let poly = prop::collection::vec(pt(), 3..9).prop_filter_map("degenerate hull", |pts| {
        let h = hull(pts);
        if h.len() >= 3 && Shape::polygon(h.clone()).is_ok() {
            // well-shaped only: no vertex angle closer than ~0.5 degrees to flat
            let n = h.len();
            let ok = (0..n).all(|i| {
                let e0 = (h[(i + 1) % n] - h[i]).normalize();
                let e1 = (h[(i + 2) % n] - h[(i + 1) % n]).normalize();
                e0.perp_dot(e1) > 1e-2 && (h[(i + 1) % n] - h[i]).length() > 1e-2
            });
            if ok {
                return Some(Spec::Poly(h));
            }
        }
        None
    });
    let capsule = (pt(), pt(), 0.05..0.8f64).prop_filter_map("short capsule", |(a, b, r)| {
        if (a - b).length() > 1e-2 {
            Some(Spec::Capsule(a, b, r))
        } else {
            None
        }
    });
    let segment = (pt(), pt()).prop_filter_map("short segment", |(a, b)| {
        if (a - b).length() > 1e-2 {
            Some(Spec::Segment(a, b))
        } else {
            None
        }
    });
    let w = if with_segments { 1 } else { 0 };
    prop_oneof![
        1 => (0.05..1.2f64).prop_map(Spec::Circle),
        1 => (0.05..1.2f64, 0.05..1.2f64).prop_map(|(x, y)| Spec::Box(x, y)),
        2 => poly,
        1 => capsule,
        w => segment,
    ]
}

fn pose() -> impl Strategy<Value = Pose> {
    (-1.5..1.5f64, -1.5..1.5f64, -PI..PI).prop_map(|(x, y, a)| Pose::new(v(x, y), a))
}

fn ppose(p: &Pose) -> PPose {
    PPose::new(pv(p.pos), p.angle)
}

/// Is the minimum translation direction ambiguous (a second axis nearly as good)? Probe by
/// perturbing B slightly along the normal's perpendicular: if the normal jumps, it is a tie.
fn ambiguous(a: &Shape, pa: &Pose, b: &Shape, pb: &Pose, n: DVec2) -> bool {
    let perp = v(-n.y, n.x);
    [1e-7, -1e-7].iter().any(|&e| {
        let moved = Pose::new(pb.pos + e * perp, pb.angle);
        let d = distance(a, pa, b, &moved);
        (d.normal - n).length() > 1e-4
    }) || [1e-7, -1e-7].iter().any(|&e| {
        let rotated = Pose::new(pb.pos, pb.angle + e);
        (distance(a, pa, b, &rotated).normal - n).length() > 1e-4
    })
}

const TOL: f64 = 1e-9;

fn check_pair(sa: &Spec, pa: &Pose, sb: &Spec, pb: &Pose) -> Result<(), TestCaseError> {
    let (a, b) = (sa.ours(), sb.ours());
    let ours = distance(&a, pa, &b, pb);
    let Some((dist, n, well_conditioned)) = parry_eval(sa, pa, sb, pb) else {
        return Ok(());
    };
    // skip near-touching pairs (the normal is ill-conditioned there for both libraries)
    if ours.distance.abs() < 1e-6 || !well_conditioned {
        return Ok(());
    }
    prop_assert!(
        (ours.distance - dist).abs() <= TOL,
        "distance {} vs parry {} ({:?} at {:?} / {:?} at {:?})",
        ours.distance,
        dist,
        sa,
        pa,
        sb,
        pb
    );
    if (ours.normal - n).length() > TOL && !ambiguous(&a, pa, &b, pb, ours.normal) {
        prop_assert!(
            false,
            "normal {:?} vs parry {:?} (distance {})",
            ours.normal,
            n,
            ours.distance
        );
    }
    if ours.distance > 0.0 {
        let (qa, ra) = sa.parry_core();
        let (qb, rb) = sb.parry_core();
        let q = query::distance(&ppose(pa), &*qa, &ppose(pb), &*qb).unwrap();
        prop_assert!((ours.distance - (q.distance - ra - rb)).abs() <= TOL);
    }
    // contact() reports the same depth
    let c = contact(&a, pa, &b, pb, 10.0).unwrap();
    prop_assert!((c.depth + dist).abs() <= TOL);
    // and both agree with the brute-force Minkowski-difference oracle
    let (od, on) = oracle(sa, pa, sb, pb);
    prop_assert!((od - ours.distance).abs() <= 1e-12 * (1.0 + od.abs()));
    prop_assert!((on - ours.normal).length() <= TOL);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 5000, ..ProptestConfig::default() })]

    /// Area shapes (circles, boxes, polygons, capsules) against each other.
    #[test]
    fn agrees_with_parry(sa in spec(false), pa in pose(), sb in spec(false), pb in pose()) {
        check_pair(&sa, &pa, &sb, &pb)?;
    }

    /// Segments against area shapes (parry's GJK/EPA handles a segment against a shape with
    /// area; segment–segment is checked against a brute-force oracle in distance_props.rs).
    #[test]
    fn segments_agree_with_parry(
        a in (-1.0..1.0f64, -1.0..1.0f64, -1.0..1.0f64, -1.0..1.0f64)
            .prop_filter_map("short", |(x0, y0, x1, y1)| if (x1 - x0).hypot(y1 - y0) > 1e-2 { Some(Spec::Segment(v(x0, y0), v(x1, y1))) } else { None }),
        pa in pose(), sb in spec(false), pb in pose(),
    ) {
        check_pair(&a, &pa, &sb, &pb)?;
        check_pair(&sb, &pb, &a, &pa)?;
    }
}

/// Independent brute-force oracle: the signed distance of the origin to the Minkowski
/// difference `B − A` of the cores (convex hull of all vertex differences), minus the radii.
/// Returns (signed distance, unit normal from A to B).
fn oracle(sa: &Spec, pa: &Pose, sb: &Spec, pb: &Pose) -> (f64, DVec2) {
    fn core(s: &Spec, p: &Pose) -> (Vec<DVec2>, f64) {
        match s {
            Spec::Circle(r) => (vec![p.pos], *r),
            Spec::Box(x, y) => (
                [v(-x, -y), v(*x, -y), v(*x, *y), v(-x, *y)]
                    .iter()
                    .map(|&q| p.apply(q))
                    .collect(),
                0.0,
            ),
            Spec::Poly(q) => (q.iter().map(|&q| p.apply(q)).collect(), 0.0),
            Spec::Capsule(a, b, r) => (vec![p.apply(*a), p.apply(*b)], *r),
            Spec::Segment(a, b) => (vec![p.apply(*a), p.apply(*b)], 0.0),
        }
    }
    let (ca, ra) = core(sa, pa);
    let (cb, rb) = core(sb, pb);
    let mut diffs = Vec::new();
    for &x in &ca {
        for &y in &cb {
            diffs.push(y - x);
        }
    }
    let m = hull(diffs.clone());
    let m = if m.len() >= 2 { m } else { diffs };
    let n = m.len();
    // closest boundary point to the origin, and whether the origin is inside
    let mut best = (f64::INFINITY, DVec2::ZERO);
    let mut inside = n >= 3;
    for i in 0..n {
        let (a, b) = (m[i], m[(i + 1) % n]);
        let e = b - a;
        let t = if e.length_squared() > 0.0 {
            (-a).dot(e) / e.length_squared()
        } else {
            0.0
        };
        let q = a + t.clamp(0.0, 1.0) * e;
        if q.length() < best.0 {
            best = (q.length(), q);
        }
        if n >= 3 && e.perp_dot(-a) < 0.0 {
            inside = false;
        }
    }
    if inside {
        (-best.0 - ra - rb, -best.1 / best.0)
    } else {
        (best.0 - ra - rb, best.1 / best.0)
    }
}

/// Summary over a fixed random sample (printed with `--nocapture`): the largest discrepancies
/// with parry (capsules through their cores), with the brute-force oracle, and parry's own
/// error on curved capsules when given them directly.
#[test]
fn parry_summary() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let strat = (spec(true), pose(), spec(false), pose());
    let (mut n_overlap, mut n_sep, mut max_dd, mut max_dn, mut n_ambiguous) =
        (0, 0, 0.0f64, 0.0f64, 0);
    let (mut max_oracle_d, mut max_oracle_n, mut max_direct_capsule) = (0.0f64, 0.0f64, 0.0f64);
    for _ in 0..20000 {
        let (sa, pa, sb, pb) = strat.new_tree(&mut runner).unwrap().current();
        let (a, b) = (sa.ours(), sb.ours());
        let ours = distance(&a, &pa, &b, &pb);
        let Some((dist, n, ok)) = parry_eval(&sa, &pa, &sb, &pb) else {
            continue;
        };
        if ours.distance.abs() < 1e-6 || !ok {
            continue;
        }
        if ours.distance < 0.0 {
            n_overlap += 1;
        } else {
            n_sep += 1;
        }
        let (od, on) = oracle(&sa, &pa, &sb, &pb);
        max_oracle_d = max_oracle_d.max((od - ours.distance).abs());
        max_oracle_n = max_oracle_n.max((on - ours.normal).length());
        max_dd = max_dd.max((ours.distance - dist).abs());
        let dn = (ours.normal - n).length();
        if dn > TOL && ambiguous(&a, &pa, &b, &pb, ours.normal) {
            n_ambiguous += 1;
        } else {
            max_dn = max_dn.max(dn);
        }
        if matches!(sa, Spec::Capsule(..)) || matches!(sb, Spec::Capsule(..)) {
            if let Ok(Some(t)) =
                query::contact(&ppose(&pa), &*sa.parry(), &ppose(&pb), &*sb.parry(), 10.0)
            {
                max_direct_capsule = max_direct_capsule.max((t.dist - ours.distance).abs());
            }
        }
    }
    println!(
        "parry2d-f64 0.31: {n_overlap} overlapping + {n_sep} separated pairs; max |Δdistance| = {max_dd:.3e}, \
         max |Δnormal| = {max_dn:.3e} ({n_ambiguous} ambiguous-normal pairs excluded); \
         brute-force oracle: max |Δd| = {max_oracle_d:.3e}, max |Δn| = {max_oracle_n:.3e}; \
         parry on curved capsules directly: max |Δd| = {max_direct_capsule:.3e}"
    );
    assert!(max_dd <= TOL && max_dn <= TOL);
    assert!(max_oracle_d <= 1e-12 && max_oracle_n <= TOL);
}
