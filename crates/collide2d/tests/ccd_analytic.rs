//! Continuous detection against analytic answers: tunnelling through a thin wall, a rotating
//! fin, a fish tail sweeping past a ball, bodies closing on each other, exact circle TOI.

use collide2d::ccd::{
    interpolate, max_motion, min_width, pseudo_continuous, substep_count, toi, toi_circles,
    wrap_angle, BodyState, Motion, SubstepOptions,
};
use collide2d::contact::contact;
use collide2d::distance::distance;
use collide2d::{Pose, Shape};
use glam::DVec2;

const BALL: f64 = 0.058;

fn at(x: f64, y: f64) -> Pose {
    Pose::new(DVec2::new(x, y), 0.0)
}

fn state(x: f64, y: f64, angle: f64) -> BodyState {
    BodyState::from_pose(Pose::new(DVec2::new(x, y), angle))
}

fn intersects(a: &Shape, pa: &Pose, b: &Shape, pb: &Pose) -> bool {
    contact(a, pa, b, pb, 0.0).is_some_and(|c| c.intersect)
}

/// A fast ball (20 m/s, 2 m per 100 ms cycle) crosses a 1 cm wall between two cycles.
#[test]
fn tunnelling_through_thin_wall() {
    let ball = Shape::circle(BALL).unwrap();
    let wall = Shape::rect(DVec2::new(0.005, 0.5)).unwrap();
    let (p0, p1) = (at(-1.0, 0.1), at(1.0, 0.1));
    let wall_pose = at(0.0, 0.0);
    let exact = (1.0 - 0.005 - BALL) / 20.0;

    // the discrete test at both cycles misses it
    assert!(!intersects(&ball, &p0, &wall, &wall_pose));
    assert!(!intersects(&ball, &p1, &wall, &wall_pose));

    // (a) pseudo-continuous
    let opts = SubstepOptions::default();
    let w = BodyState::from_pose(wall_pose);
    let r = pseudo_continuous(
        &ball,
        &BodyState::from_pose(p0),
        &BodyState::from_pose(p1),
        &wall,
        &w,
        &w,
        &opts,
    );
    assert!(r.hit);
    // N = ceil(2 / (0.5 · (0.116 + 0.01))) = 32
    assert_eq!(r.substeps, 32);
    assert!(
        r.time >= exact - 1e-12 && r.time <= exact + opts.time_tol + 1e-12,
        "{} vs {exact}",
        r.time
    );
    let c = r.contact.unwrap();
    assert!(c.intersect);
    assert!((c.normal - DVec2::X).length() < 1e-9, "{:?}", c.normal);
    assert!(c.depth <= 20.0 * opts.time_tol + 1e-9);

    // clamping N to 1 loses it: the guarantee is conditional
    let coarse = SubstepOptions {
        max_substeps: 1,
        ..opts
    };
    let r = pseudo_continuous(
        &ball,
        &BodyState::from_pose(p0),
        &BodyState::from_pose(p1),
        &wall,
        &w,
        &w,
        &coarse,
    );
    assert!(!r.hit);
    assert_eq!(r.substeps, 1);

    // (b) time of impact, both orders
    let still = Motion::default();
    let fast = Motion::new(DVec2::new(20.0, 0.0), 0.0);
    let t = toi(&ball, &p0, &fast, &wall, &wall_pose, &still, 0.1);
    assert!(t.hit);
    assert!((t.toi - exact).abs() < 1e-9, "{} vs {exact}", t.toi);
    assert!((t.normal - DVec2::X).length() < 1e-9);
    assert!(
        (t.point - DVec2::new(-0.005, 0.1)).length() < 1e-8,
        "{:?}",
        t.point
    );
    let t = toi(&wall, &wall_pose, &still, &ball, &p0, &fast, 0.1);
    assert!(t.hit && (t.toi - exact).abs() < 1e-9);
    assert!((t.normal + DVec2::X).length() < 1e-9);

    // a wall that moves toward the ball: relative motion counts
    let t = toi(
        &ball,
        &p0,
        &Motion::new(DVec2::new(10.0, 0.0), 0.0),
        &wall,
        &wall_pose,
        &Motion::new(DVec2::new(-10.0, 0.0), 0.0),
        0.1,
    );
    assert!(t.hit && (t.toi - exact).abs() < 1e-9);

    // a segment wall (zero thickness): still found by (b), and (a) uses N_max
    let seg = Shape::segment(DVec2::new(0.0, -0.5), DVec2::new(0.0, 0.5)).unwrap();
    let t = toi(&ball, &p0, &fast, &seg, &Pose::IDENTITY, &still, 0.1);
    assert!(
        t.hit && (t.toi - (1.0 - BALL) / 20.0).abs() < 1e-9,
        "{}",
        t.toi
    );
    let s = BodyState::default();
    let r = pseudo_continuous(
        &ball,
        &BodyState::from_pose(p0),
        &BodyState::from_pose(p1),
        &seg,
        &s,
        &s,
        &opts,
    );
    assert!(r.hit && (r.time - (1.0 - BALL) / 20.0).abs() <= opts.time_tol + 1e-12);
}

/// A thin fin of length 0.2 m rotating at 30 rad/s about its root sweeps past a ball.
/// First contact: the fin's leading face reaches the ball at angle `φ − asin((r + h)/ρ)`.
#[test]
fn rotating_fin_passes_ball() {
    let (len, h) = (0.2, 0.005);
    let fin = Shape::polygon(vec![
        DVec2::new(-len, -h),
        DVec2::new(0.0, -h),
        DVec2::new(0.0, h),
        DVec2::new(-len, h),
    ])
    .unwrap();
    let (rho, phi) = (0.12, 0.8f64);
    let centre = rho * DVec2::new(-phi.cos(), -phi.sin());
    let ball = Shape::circle(BALL).unwrap();
    let omega = 30.0;
    let theta = phi - ((BALL + h) / rho).asin();
    let exact = theta / omega;
    // the contact lies on the face, not at the tip
    assert!(rho * (phi - theta).cos() < len);

    let (p0, p1) = (Pose::IDENTITY, Pose::new(DVec2::ZERO, omega * 0.1));
    let bp = Pose::new(centre, 0.0);
    assert!(!intersects(&fin, &p0, &ball, &bp));
    assert!(
        !intersects(&fin, &p1, &ball, &bp),
        "the fin has passed the ball at the next cycle"
    );

    let t = toi(
        &fin,
        &p0,
        &Motion::new(DVec2::ZERO, omega),
        &ball,
        &bp,
        &Motion::default(),
        0.1,
    );
    assert!(t.hit);
    assert!((t.toi - exact).abs() < 1e-9, "{} vs {exact}", t.toi);
    let d = distance(&fin, &Pose::new(DVec2::ZERO, omega * t.toi), &ball, &bp);
    assert!(d.distance.abs() < 1e-9);
    // the contact normal is the fin's rotated face normal (−y turned by θ)
    let n = DVec2::new(theta.sin(), -theta.cos());
    assert!((t.normal - n).length() < 1e-6, "{:?} vs {n:?}", t.normal);

    // the same from the ball's side, and with the ball spinning (irrelevant for a disc)
    let t2 = toi(
        &ball,
        &bp,
        &Motion::new(DVec2::ZERO, 50.0),
        &fin,
        &p0,
        &Motion::new(DVec2::ZERO, omega),
        0.1,
    );
    assert!(t2.hit && (t2.toi - exact).abs() < 1e-9);

    let opts = SubstepOptions::default();
    let r = pseudo_continuous(
        &fin,
        &BodyState::from_pose(p0),
        &BodyState::from_pose(p1),
        &ball,
        &BodyState::from_pose(bp),
        &BodyState::from_pose(bp),
        &opts,
    );
    assert!(r.hit);
    // max_motion = 3 rad · 0.2000625 m; min_feature = 0.01 + 0.116
    assert_eq!(r.substeps, 10);
    assert!(
        r.time >= exact - 1e-12 && r.time <= exact + opts.time_tol + 1e-12,
        "{} vs {exact}",
        r.time
    );
}

/// The tail parts of a fish as a rigid compound in the frame of tail joint 1.
fn tail_compound(fish: &collide2d::Fish, joint1: f64) -> (Shape, Pose) {
    let poses = fish.part_poses(Pose::IDENTITY, [joint1, 0.0, 0.0]);
    let j = poses[3];
    let parts = (3..7)
        .map(|k| {
            let rel = Pose::new(j.inverse_apply(poses[k].pos), poses[k].angle - j.angle);
            (rel, Shape::Polygon(fish.parts()[k].clone()))
        })
        .collect();
    (Shape::compound(parts).unwrap(), j)
}

/// A fish beats its tail (joint 1 from −0.7 to +0.7 rad in 100 ms) past a ball behind it: both
/// cycles are free, the sweep hits. The pseudo-continuous joint interpolation agrees with the
/// exact TOI of the rigid tail rotating about joint 1 at 14 rad/s.
#[test]
fn fish_tail_sweep_hits_ball() {
    let ball = Shape::circle(BALL).unwrap();
    let bp = at(-0.36, 0.0);
    let fish0 = Shape::fish([-0.7, 0.0, 0.0]).unwrap();
    let fish1 = Shape::fish([0.7, 0.0, 0.0]).unwrap();
    assert!(!intersects(&fish0, &Pose::IDENTITY, &ball, &bp));
    assert!(!intersects(&fish1, &Pose::IDENTITY, &ball, &bp));
    assert!(intersects(
        &Shape::fish([0.0; 3]).unwrap(),
        &Pose::IDENTITY,
        &ball,
        &bp
    ));

    let Shape::Fish { fish, .. } = &fish0 else {
        unreachable!()
    };
    let (tail, jp) = tail_compound(fish, -0.7);
    let omega = 1.4 / 0.1;
    let t = toi(
        &tail,
        &jp,
        &Motion::new(DVec2::ZERO, omega),
        &ball,
        &bp,
        &Motion::default(),
        0.1,
    );
    assert!(t.hit && t.toi > 0.0 && t.toi < 0.05, "{t:?}");
    // the rigid tail and the fish with joint 1 at that angle are the same geometry
    let j1 = -0.7 + omega * t.toi;
    let d = distance(
        &Shape::fish([j1, 0.0, 0.0]).unwrap(),
        &Pose::IDENTITY,
        &ball,
        &bp,
    );
    assert!(d.distance.abs() < 1e-9, "{}", d.distance);

    let s0 = BodyState {
        pose: Pose::IDENTITY,
        joints: [-0.7, 0.0, 0.0],
    };
    let s1 = BodyState {
        pose: Pose::IDENTITY,
        joints: [0.7, 0.0, 0.0],
    };
    let b = BodyState::from_pose(bp);
    let opts = SubstepOptions::default();
    let r = pseudo_continuous(&fish0, &s0, &s1, &ball, &b, &b, &opts);
    assert!(r.hit, "{r:?}");
    assert!(r.substeps > 1);
    assert!(
        r.time >= t.toi - 1e-9 && r.time <= t.toi + opts.time_tol + 1e-9,
        "{} vs {}",
        r.time,
        t.toi
    );
    assert!((r.state_a.joints[0] - (-0.7 + 14.0 * r.time)).abs() < 1e-12);
    let c = r.contact.unwrap();
    assert!(c.intersect);
    assert!(
        c.part_a.is_some_and(|p| p >= 3),
        "a tail part hits: {:?}",
        c.part_a
    );

    // a base rotation the long way round is interpolated along the shortest arc
    let mid = interpolate(&state(0.0, 0.0, 3.0), &state(0.0, 0.0, -3.0), 0.5);
    assert!(
        (wrap_angle(mid.pose.angle) - std::f64::consts::PI).abs() < 1e-12
            || (wrap_angle(mid.pose.angle) + std::f64::consts::PI).abs() < 1e-12
    );
}

/// Two bodies closing on each other: TOI = gap / closing speed.
#[test]
fn bodies_moving_toward_each_other() {
    let a = Shape::rect(DVec2::new(0.1, 0.1)).unwrap();
    let b = Shape::rect(DVec2::new(0.1, 0.05)).unwrap();
    let (pa, pb) = (at(-0.5, 0.0), at(0.5, 0.02));
    let (ma, mb) = (
        Motion::new(DVec2::new(3.0, 0.0), 0.0),
        Motion::new(DVec2::new(-5.0, 0.0), 0.0),
    );
    let gap = 0.8;
    let t = toi(&a, &pa, &ma, &b, &pb, &mb, 0.2);
    assert!(t.hit && (t.toi - gap / 8.0).abs() < 1e-9, "{t:?}");
    assert!((t.normal - DVec2::X).length() < 1e-9);
    // too short a horizon: no hit, and the report is at dt
    let t = toi(&a, &pa, &ma, &b, &pb, &mb, 0.05);
    assert!(!t.hit && t.toi == 0.05);
    // moving apart: no hit
    let t = toi(&a, &pa, &mb, &b, &pb, &ma, 1.0);
    assert!(!t.hit);

    // a fish swimming at 1 m/s meets a ball coming at 4 m/s on its axis, at the snout (x = +0.1)
    let fish = Shape::fish([0.0; 3]).unwrap();
    let ball = Shape::circle(BALL).unwrap();
    let (pf, pball) = (at(0.0, 0.0), at(0.5, 0.0));
    let gap = 0.5 - BALL - 0.1;
    let (mf, mball) = (
        Motion::new(DVec2::new(1.0, 0.0), 0.0),
        Motion::new(DVec2::new(-4.0, 0.0), 0.0),
    );
    let t = toi(&fish, &pf, &mf, &ball, &pball, &mball, 0.1);
    assert!(
        t.hit && (t.toi - gap / 5.0).abs() < 1e-9,
        "{} vs {}",
        t.toi,
        gap / 5.0
    );
    assert!(
        (t.point - DVec2::new(0.1 + t.toi, 0.0)).length() < 1e-8,
        "{:?}",
        t.point
    );

    let opts = SubstepOptions::default();
    let r = pseudo_continuous(
        &fish,
        &BodyState::from_pose(pf),
        &BodyState::from_pose(at(0.1, 0.0)),
        &ball,
        &BodyState::from_pose(pball),
        &BodyState::from_pose(at(0.1, 0.0)),
        &opts,
    );
    assert!(
        r.hit && r.time >= gap / 5.0 - 1e-12 && r.time <= gap / 5.0 + opts.time_tol + 1e-12,
        "{}",
        r.time
    );
    assert_eq!(r.contact.unwrap().part_a, Some(0), "the body part hits");
}

/// Circle TOI: the exact quadratic against hand-solved cases, and conservative advancement
/// (a circle wrapped in a compound, a zero-length capsule) agrees with it.
#[test]
fn circle_toi_exact_vs_formula() {
    // head-on: |1 − 2t| = 0.2  →  t = 0.4
    let t = toi_circles(
        DVec2::ZERO,
        0.1,
        DVec2::ZERO,
        DVec2::new(1.0, 0.0),
        0.1,
        DVec2::new(-2.0, 0.0),
        1.0,
    )
    .unwrap();
    assert!((t - 0.4).abs() < 1e-15);
    // offset: (1 − 2t)² + 0.01 = 0.04
    let t = toi_circles(
        DVec2::ZERO,
        0.1,
        DVec2::ZERO,
        DVec2::new(1.0, 0.1),
        0.1,
        DVec2::new(-2.0, 0.0),
        1.0,
    )
    .unwrap();
    assert!((t - (1.0 - 0.03f64.sqrt()) / 2.0).abs() < 1e-15);
    // both moving, diagonal
    let t = toi_circles(
        DVec2::new(0.0, 0.0),
        0.05,
        DVec2::new(1.0, 1.0),
        DVec2::new(1.0, 1.0),
        0.05,
        DVec2::new(-1.0, -1.0),
        1.0,
    )
    .unwrap();
    assert!((t - (2f64.sqrt() - 0.1) / (2.0 * 2f64.sqrt())).abs() < 1e-15);
    // miss, parallel, receding, beyond dt, overlapping
    assert_eq!(
        toi_circles(
            DVec2::ZERO,
            0.1,
            DVec2::ZERO,
            DVec2::new(1.0, 0.3),
            0.1,
            DVec2::new(-2.0, 0.0),
            1.0
        ),
        None
    );
    assert_eq!(
        toi_circles(
            DVec2::ZERO,
            0.1,
            DVec2::X,
            DVec2::new(1.0, 0.0),
            0.1,
            DVec2::X,
            1.0
        ),
        None
    );
    assert_eq!(
        toi_circles(
            DVec2::ZERO,
            0.1,
            DVec2::ZERO,
            DVec2::new(1.0, 0.0),
            0.1,
            DVec2::X,
            1.0
        ),
        None
    );
    assert_eq!(
        toi_circles(
            DVec2::ZERO,
            0.1,
            DVec2::ZERO,
            DVec2::new(1.0, 0.0),
            0.1,
            DVec2::new(-2.0, 0.0),
            0.3
        ),
        None
    );
    assert_eq!(
        toi_circles(
            DVec2::ZERO,
            0.1,
            DVec2::ZERO,
            DVec2::new(0.15, 0.0),
            0.1,
            DVec2::ZERO,
            1.0
        ),
        Some(0.0)
    );

    let c = Shape::circle(BALL).unwrap();
    let wrapped = Shape::compound(vec![(Pose::IDENTITY, c.clone())]).unwrap();
    let cap = Shape::capsule(DVec2::ZERO, DVec2::ZERO, BALL).unwrap();
    for k in 0..20 {
        let y = -0.1 + 0.01 * k as f64;
        let (pa, pb) = (at(0.0, 0.0), at(0.6, y));
        let (ma, mb) = (
            Motion::new(DVec2::new(2.0, 0.5), 0.0),
            Motion::new(DVec2::new(-3.0, 0.5), 0.0),
        );
        let exact = toi_circles(pa.pos, BALL, ma.vel, pb.pos, BALL, mb.vel, 0.2);
        let direct = toi(&c, &pa, &ma, &c, &pb, &mb, 0.2);
        assert_eq!(direct.hit, exact.is_some());
        for other in [&wrapped, &cap] {
            let t = toi(other, &pa, &ma, &c, &pb, &mb, 0.2);
            assert_eq!(t.hit, exact.is_some(), "y = {y}");
            if let Some(e) = exact {
                assert_eq!(direct.toi, e);
                assert!((t.toi - e).abs() < 1e-9, "y = {y}: {} vs {e}", t.toi);
                assert!((t.normal - direct.normal).length() < 1e-6);
                assert!((t.point - direct.point).length() < 1e-6);
            }
        }
    }
    // a circle spinning about its own centre changes nothing
    let t = toi(
        &c,
        &at(0.0, 0.0),
        &Motion::new(DVec2::X, 100.0),
        &c,
        &at(1.0, 0.0),
        &Motion::default(),
        1.0,
    );
    assert!(t.hit && (t.toi - (1.0 - 2.0 * BALL)).abs() < 1e-15);
}

#[test]
fn toi_edge_cases() {
    let b = Shape::rect(DVec2::splat(0.1)).unwrap();
    let still = Motion::default();
    // initially overlapping: hit at 0
    let t = toi(&b, &at(0.0, 0.0), &still, &b, &at(0.15, 0.0), &still, 0.1);
    assert!(t.hit && t.toi == 0.0);
    // at rest and apart: no hit
    let t = toi(&b, &at(0.0, 0.0), &still, &b, &at(0.5, 0.0), &still, 0.1);
    assert!(!t.hit && t.toi == 0.1);
    // non-finite input: no hit, no panic
    let t = toi(
        &b,
        &at(0.0, 0.0),
        &Motion::new(DVec2::new(f64::NAN, 0.0), 0.0),
        &b,
        &at(0.5, 0.0),
        &still,
        0.1,
    );
    assert!(!t.hit);
    let t = toi(
        &b,
        &at(0.0, 0.0),
        &still,
        &b,
        &at(0.5, 0.0),
        &still,
        f64::INFINITY,
    );
    assert!(!t.hit);
    // a box spinning in place: its half-diagonal (0.1414) cannot reach a face at 0.15 ...
    let t = toi(
        &b,
        &at(0.0, 0.0),
        &Motion::new(DVec2::ZERO, 10.0),
        &b,
        &at(0.25, 0.0),
        &still,
        0.1,
    );
    assert!(!t.hit, "{t:?}");
    // ... but reaches one at 0.13: corner (0.1, −0.1) turned by θ has x = √2·0.1·cos(θ − π/4)
    let t = toi(
        &b,
        &at(0.0, 0.0),
        &Motion::new(DVec2::ZERO, 10.0),
        &b,
        &at(0.23, 0.0),
        &still,
        0.1,
    );
    assert!(t.hit, "{t:?}");
    let theta = std::f64::consts::FRAC_PI_4 - (0.13 / (0.1 * 2f64.sqrt())).acos();
    assert!(
        (t.toi - theta / 10.0).abs() < 1e-9,
        "{} vs {}",
        t.toi,
        theta / 10.0
    );
}

#[test]
fn substep_count_formula() {
    let ball = Shape::circle(BALL).unwrap();
    let wall = Shape::rect(DVec2::new(0.005, 0.5)).unwrap();
    let opts = SubstepOptions::default();
    let s = BodyState::default();
    assert_eq!(min_width(&ball), 2.0 * BALL);
    assert_eq!(min_width(&wall), 0.01);
    // no motion: one step
    assert_eq!(substep_count(&ball, &s, &s, &wall, &s, &s, &opts), 1);
    // 0.3 m of relative motion: ceil(0.3 / 0.063) = 5
    let moved = state(0.3, 0.0, 0.0);
    assert_eq!(substep_count(&ball, &s, &moved, &wall, &s, &s, &opts), 5);
    assert_eq!(
        substep_count(&ball, &s, &moved, &wall, &s, &moved, &opts),
        1,
        "moving together"
    );
    // huge motion is clamped at N_max
    assert_eq!(
        substep_count(&ball, &s, &state(100.0, 0.0, 0.0), &wall, &s, &s, &opts),
        opts.max_substeps
    );
    // rotation counts with its lever arm (the wall's corner at 0.500025 m)
    let turned = state(0.0, 0.0, 0.5);
    let m = max_motion(&ball, &s, &s, &wall, &s, &turned);
    assert!((m - 0.5 * (0.005f64.hypot(0.5))).abs() < 1e-12);
    // the shortest arc: 3 → −3 rad is a turn of 2π − 6
    let m = max_motion(
        &ball,
        &s,
        &s,
        &wall,
        &state(0.0, 0.0, 3.0),
        &state(0.0, 0.0, -3.0),
    );
    assert!((m - (std::f64::consts::TAU - 6.0) * 0.005f64.hypot(0.5)).abs() < 1e-12);
}
