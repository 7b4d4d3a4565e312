//! Property tests of the time of impact: at `toi` the shapes touch (distance within 1e-9),
//! slightly before they are separated, and a reported miss is free at every sampled time.

use collide2d::ccd::{
    interpolate, pseudo_continuous, substep_count, toi, BodyState, Motion, SubstepOptions,
    TOI_TOLERANCE,
};
use collide2d::contact::contact;
use collide2d::distance::distance;
use collide2d::{Pose, Shape};
use glam::DVec2;
use proptest::prelude::*;

fn arb_shape() -> impl Strategy<Value = Shape> {
    prop_oneof![
        (0.02..0.3f64).prop_map(|r| Shape::circle(r).unwrap()),
        (0.01..0.3f64, 0.01..0.3f64).prop_map(|(x, y)| Shape::rect(DVec2::new(x, y)).unwrap()),
        (3usize..8, 0.03..0.3f64, 0.0..1.0f64).prop_map(|(n, r, phase)| {
            let verts = (0..n)
                .map(|k| {
                    let a = phase + std::f64::consts::TAU * k as f64 / n as f64;
                    r * DVec2::new(a.cos(), a.sin())
                })
                .collect();
            Shape::polygon(verts).unwrap()
        }),
        (0.01..0.3f64, 0.01..0.1f64).prop_map(|(h, r)| Shape::capsule(
            DVec2::new(-h, 0.0),
            DVec2::new(h, 0.0),
            r
        )
        .unwrap()),
        (-0.5..0.5f64, -0.5..0.5f64).prop_map(|(j1, j2)| Shape::fish([j1, j2, -j1]).unwrap()),
    ]
}

fn arb_motion() -> impl Strategy<Value = Motion> {
    (
        -8.0..8.0f64,
        -8.0..8.0f64,
        prop_oneof![Just(0.0), -20.0..20.0f64],
    )
        .prop_map(|(x, y, w)| Motion::new(DVec2::new(x, y), w))
}

fn arb_pose() -> impl Strategy<Value = Pose> {
    (-0.8..0.8f64, -0.8..0.8f64, -3.2..3.2f64).prop_map(|(x, y, a)| Pose::new(DVec2::new(x, y), a))
}

/// Two shapes and motions; A heads roughly toward B so that many cases hit.
#[allow(clippy::type_complexity)]
fn arb_case() -> impl Strategy<Value = (Shape, Shape, Pose, Pose, Motion, Motion)> {
    (
        arb_shape(),
        arb_shape(),
        arb_pose(),
        arb_pose(),
        0.0..10.0f64,
        arb_motion(),
        arb_motion(),
    )
        .prop_map(|(a, b, pa, pb, speed, noise, mb)| {
            let aim = (pb.pos - pa.pos).try_normalize().unwrap_or(DVec2::X);
            let ma = Motion::new(aim * speed + 0.3 * noise.vel, noise.omega);
            (a, b, pa, pb, ma, Motion::new(0.3 * mb.vel, mb.omega))
        })
}

fn dist(a: &Shape, pa: &Pose, ma: &Motion, b: &Shape, pb: &Pose, mb: &Motion, t: f64) -> f64 {
    distance(a, &ma.pose_at(pa, t), b, &mb.pose_at(pb, t)).distance
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, failure_persistence: None,
        max_global_rejects: 100_000, ..ProptestConfig::default() })]

    #[test]
    fn toi_touches_and_is_free_before((a, b, pa, pb, ma, mb) in arb_case()) {
        let dt = 0.1;
        let d0 = dist(&a, &pa, &ma, &b, &pb, &mb, 0.0);
        prop_assume!(d0 > 1e-3);
        let t = toi(&a, &pa, &ma, &b, &pb, &mb, dt);
        prop_assert!(t.converged);
        prop_assert!(t.toi >= 0.0 && t.toi <= dt);
        prop_assert!((t.normal.length() - 1.0).abs() < 1e-9);
        if t.hit {
            let d = dist(&a, &pa, &ma, &b, &pb, &mb, t.toi);
            prop_assert!(d.abs() <= TOI_TOLERANCE, "distance at toi {} = {d}", t.toi);
            prop_assert!(t.toi > 0.0);
            // separated slightly before, and at every sampled earlier time
            let before = dist(&a, &pa, &ma, &b, &pb, &mb, t.toi * (1.0 - 1e-6));
            prop_assert!(before > 0.0, "distance just before toi = {before}");
            for k in 0..50 {
                let s = t.toi * k as f64 / 50.0;
                prop_assert!(dist(&a, &pa, &ma, &b, &pb, &mb, s) > 0.0, "overlap at {s} before toi {}", t.toi);
            }
        } else {
            prop_assert_eq!(t.toi, dt);
            for k in 0..=200 {
                let s = dt * k as f64 / 200.0;
                prop_assert!(dist(&a, &pa, &ma, &b, &pb, &mb, s) > -1e-9, "missed an overlap at {}", s);
            }
        }
    }

    /// Pure translation (no spin): the pseudo-continuous first hit is never earlier than the
    /// exact TOI, and when it hits, it is within the time tolerance of it unless sampling
    /// missed an earlier glancing window.
    #[test]
    fn pseudo_continuous_brackets_toi((a, b, pa, pb, ma, mb) in arb_case()) {
        let dt = 0.1;
        prop_assume!(dist(&a, &pa, &ma, &b, &pb, &mb, 0.0) > 1e-3);
        let (ma, mb) = (Motion::new(ma.vel, 0.0), Motion::new(mb.vel, 0.0));
        let t = toi(&a, &pa, &ma, &b, &pb, &mb, dt);
        let st = |p: &Pose, m: &Motion| (BodyState::from_pose(*p), BodyState::from_pose(m.pose_at(p, dt)));
        let (a0, a1) = st(&pa, &ma);
        let (b0, b1) = st(&pb, &mb);
        let mut a0 = a0; let mut a1 = a1;
        if let Shape::Fish { joints, .. } = &a { a0.joints = *joints; a1.joints = *joints; }
        let mut b0 = b0; let mut b1 = b1;
        if let Shape::Fish { joints, .. } = &b { b0.joints = *joints; b1.joints = *joints; }
        let opts = SubstepOptions { max_substeps: 1000, ..SubstepOptions::default() };
        let r = pseudo_continuous(&a, &a0, &a1, &b, &b0, &b1, &opts);
        if r.hit {
            prop_assert!(t.hit, "sampling found a hit the exact TOI missed");
            prop_assert!(r.time >= t.toi - 1e-9, "{} < {}", r.time, t.toi);
        }
        if r.hit {
            prop_assert!(r.contact.as_ref().is_some_and(|c| c.intersect));
        }
    }
}

fn with_state(s: &Shape, st: &BodyState) -> Shape {
    match s {
        Shape::Fish { fish, .. } => Shape::Fish {
            fish: fish.clone(),
            joints: st.joints,
        },
        _ => s.clone(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, failure_persistence: None,
        max_global_rejects: 100_000, ..ProptestConfig::default() })]

    /// Skipping provably free samples changes nothing: the pseudo-continuous result equals
    /// testing every one of the `N + 1` samples with the narrow phase (fish joints move too).
    #[test]
    fn pseudo_continuous_equals_naive_sampling(
        (a, b, pa, pb, ma, mb) in arb_case(),
        ja in proptest::array::uniform3(-0.6..0.6f64),
        jb in proptest::array::uniform3(-0.6..0.6f64),
        max_substeps in 1u32..80,
    ) {
        let dt = 0.1;
        let st = |p: &Pose, m: &Motion, j0: [f64; 3], j1: [f64; 3]| {
            (BodyState { pose: *p, joints: j0 }, BodyState { pose: m.pose_at(p, dt), joints: j1 })
        };
        let (a0, a1) = st(&pa, &ma, [0.0; 3], ja);
        let (b0, b1) = st(&pb, &mb, jb, [0.0; 3]);
        let opts = SubstepOptions { max_substeps, ..SubstepOptions::default() };
        let n = substep_count(&a, &a0, &a1, &b, &b0, &b1, &opts);
        let first = (0..=n).find(|&k| {
            let u = k as f64 / n as f64;
            let (xa, xb) = (interpolate(&a0, &a1, u), interpolate(&b0, &b1, u));
            contact(&with_state(&a, &xa), &xa.pose, &with_state(&b, &xb), &xb.pose, 0.0).is_some_and(|c| c.intersect)
        });
        let r = pseudo_continuous(&a, &a0, &a1, &b, &b0, &b1, &opts);
        prop_assert_eq!(r.substeps, n);
        prop_assert_eq!(r.hit, first.is_some());
        prop_assert!(r.tests <= n + 1 + 200);
        if let Some(k) = first {
            let hi = dt * k as f64 / n as f64;
            let lo = if k == 0 { 0.0 } else { dt * (k - 1) as f64 / n as f64 };
            prop_assert!(r.time >= lo - 1e-12 && r.time <= hi + 1e-12, "{} outside [{lo}, {hi}]", r.time);
            let c = r.contact.as_ref().unwrap();
            prop_assert!(c.intersect);
        } else {
            prop_assert_eq!(r.time, dt);
        }
    }
}

/// The random cases above are not vacuous: many of them hit, with and without spin.
#[test]
fn random_cases_cover_hits() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let strat = arb_case();
    let (mut hits, mut spinning_hits, mut cases) = (0, 0, 0);
    for _ in 0..400 {
        let (a, b, pa, pb, ma, mb) = strat.new_tree(&mut runner).unwrap().current();
        if dist(&a, &pa, &ma, &b, &pb, &mb, 0.0) <= 1e-3 {
            continue;
        }
        cases += 1;
        let t = toi(&a, &pa, &ma, &b, &pb, &mb, 0.1);
        if t.hit {
            hits += 1;
            if ma.omega != 0.0 || mb.omega != 0.0 {
                spinning_hits += 1;
            }
            assert!(dist(&a, &pa, &ma, &b, &pb, &mb, t.toi).abs() <= TOI_TOLERANCE);
        }
    }
    eprintln!("{hits} hits ({spinning_hits} spinning) of {cases}");
    assert!(hits * 3 >= cases, "{hits} hits of {cases}");
    assert!(
        spinning_hits * 10 >= cases,
        "{spinning_hits} spinning hits of {cases}"
    );
}
