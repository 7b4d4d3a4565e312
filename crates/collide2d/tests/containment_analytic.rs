//! Containment with answers worked out by hand (to 1e-9), plus property checks against a
//! sampling oracle.

use collide2d::contact::EPS_TOUCH;
use collide2d::containment::{contains, Containment};
use collide2d::{Pose, Shape};
use glam::DVec2;
use proptest::prelude::*;
use std::f64::consts::{FRAC_PI_2, PI, SQRT_2};

fn v(x: f64, y: f64) -> DVec2 {
    DVec2::new(x, y)
}
fn at(x: f64, y: f64) -> Pose {
    Pose::new(v(x, y), 0.0)
}
fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * (1.0 + b.abs())
}
#[track_caller]
fn check(c: &Containment, violation: f64, point: DVec2, normal: DVec2, part: Option<usize>) {
    assert!(
        close(c.violation, violation),
        "violation {} expected {}",
        c.violation,
        violation
    );
    assert!(
        close(c.point.x, point.x) && close(c.point.y, point.y),
        "point {:?} expected {:?}",
        c.point,
        point
    );
    assert!(
        close(c.normal.x, normal.x) && close(c.normal.y, normal.y),
        "normal {:?} expected {:?}",
        c.normal,
        normal
    );
    assert_eq!(c.part, part);
    assert_eq!(c.contained, c.violation <= EPS_TOUCH);
    assert!(c.violation >= 0.0);
}
fn pool() -> Shape {
    Shape::border(vec![v(0.0, 0.0), v(10.0, 0.0), v(10.0, 5.0), v(0.0, 5.0)]).unwrap()
}
fn l_pool() -> Shape {
    Shape::border(vec![
        v(0.0, 0.0),
        v(4.0, 0.0),
        v(4.0, 2.0),
        v(2.0, 2.0),
        v(2.0, 4.0),
        v(0.0, 4.0),
    ])
    .unwrap()
}
fn circle(r: f64) -> Shape {
    Shape::circle(r).unwrap()
}
fn rect(x: f64, y: f64) -> Shape {
    Shape::rect(v(x, y)).unwrap()
}

#[test]
fn circle_in_pool() {
    // well inside: worst point is towards the nearest wall (bottom and top tie -> bottom, edge 0)
    let c = contains(&pool(), &Pose::IDENTITY, &circle(0.5), &at(5.0, 2.5));
    check(&c, 0.0, v(5.0, 2.0), v(0.0, 1.0), None);
    assert!(c.contained);
    // 0.3 through the right wall
    let c = contains(&pool(), &Pose::IDENTITY, &circle(0.5), &at(9.8, 2.5));
    check(&c, 0.3, v(10.3, 2.5), v(-1.0, 0.0), None);
    assert!(!c.contained);
    // centre outside
    let c = contains(&pool(), &Pose::IDENTITY, &circle(0.5), &at(10.2, 2.5));
    check(&c, 0.7, v(10.7, 2.5), v(-1.0, 0.0), None);
    // outside beyond the corner (10, 5): distance 0.5 from the corner plus the radius
    let c = contains(&pool(), &Pose::IDENTITY, &circle(0.5), &at(10.3, 5.4));
    check(&c, 1.0, v(10.6, 5.8), v(-0.6, -0.8), None);
    // touching the wall from inside counts as contained
    let c = contains(&pool(), &Pose::IDENTITY, &circle(0.5), &at(9.5, 2.5));
    check(&c, 0.0, v(10.0, 2.5), v(-1.0, 0.0), None);
    assert!(c.contained);
}

#[test]
fn box_in_pool() {
    // a corner out past the pool corner: the worst vertex (10.5, 5.25) is sqrt(0.3125) away
    let c = contains(&pool(), &Pose::IDENTITY, &rect(1.0, 0.5), &at(9.5, 4.75));
    let d = 0.3125f64.sqrt();
    check(&c, d, v(10.5, 5.25), v(-0.5, -0.25) / d, None);
    // a vertex exactly on the wall
    let c = contains(&pool(), &Pose::IDENTITY, &rect(0.5, 0.5), &at(9.5, 2.5));
    check(&c, 0.0, v(10.0, 2.0), v(-1.0, 0.0), None);
    assert!(c.contained);
    // rotated by 45 degrees: its right corner at 9 + sqrt(2) * 0.5 ... half 1 -> corner at 9 + sqrt 2
    let c = contains(
        &pool(),
        &Pose::IDENTITY,
        &rect(1.0, 1.0),
        &Pose::new(v(9.0, 2.5), PI / 4.0),
    );
    check(&c, SQRT_2 - 1.0, v(9.0 + SQRT_2, 2.5), v(-1.0, 0.0), None);
}

#[test]
fn segment_and_capsule_in_pool() {
    let c = contains(
        &pool(),
        &Pose::IDENTITY,
        &Shape::segment(v(1.0, 1.0), v(3.0, -0.5)).unwrap(),
        &Pose::IDENTITY,
    );
    check(&c, 0.5, v(3.0, -0.5), v(0.0, 1.0), None);
    let cap = Shape::capsule(v(-1.0, 0.0), v(1.0, 0.0), 0.3).unwrap();
    let c = contains(
        &pool(),
        &Pose::IDENTITY,
        &cap,
        &Pose::new(v(5.0, 4.0), FRAC_PI_2),
    );
    // ends at (5, 3) and (5, 5): the top end is on the wall, plus the radius
    check(&c, 0.3, v(5.0, 5.3), v(0.0, -1.0), None);
}

#[test]
fn rotated_pool() {
    // the pool turned by 90 degrees about (1, 1): its bottom wall becomes x = 1, inside x < 1
    let pc = Pose::new(v(1.0, 1.0), FRAC_PI_2);
    let c = contains(&pool(), &pc, &circle(0.5), &at(0.8, 3.0));
    check(&c, 0.3, v(1.3, 3.0), v(-1.0, 0.0), None);
}

#[test]
fn fish_in_pool_every_part() {
    let fish = Shape::fish([0.0, 0.0, 0.0]).unwrap();
    // nose exactly on the right wall
    let c = contains(&pool(), &Pose::IDENTITY, &fish, &at(9.9, 2.5));
    check(&c, 0.0, v(10.0, 2.5), v(-1.0, 0.0), Some(0));
    assert!(c.contained);
    // nose 0.05 through
    let c = contains(&pool(), &Pose::IDENTITY, &fish, &at(9.95, 2.5));
    check(&c, 0.05, v(10.05, 2.5), v(-1.0, 0.0), Some(0));
    // caudal fin 0.02 through the left wall (its trailing corners at x = 0.3 - 0.32)
    let c = contains(&pool(), &Pose::IDENTITY, &fish, &at(0.3, 2.5));
    check(&c, 0.02, v(-0.02, 2.55), v(1.0, 0.0), Some(6));
    // a left fin through the top wall: fish pointing +x at y such that the fin's highest vertex
    // (local (-0.03, 0.092)) is 0.01 above y = 5
    let c = contains(
        &pool(),
        &Pose::IDENTITY,
        &fish,
        &at(5.0, 5.0 - 0.092 + 0.01),
    );
    check(&c, 0.01, v(4.97, 5.01), v(0.0, -1.0), Some(1));
}

#[test]
fn compound_in_pool() {
    let comp = Shape::compound(vec![
        (at(0.0, 0.0), circle(0.5)),
        (at(2.0, 0.0), rect(0.5, 0.5)),
    ])
    .unwrap();
    let c = contains(&pool(), &Pose::IDENTITY, &comp, &at(7.7, 2.5));
    check(&c, 0.2, v(10.2, 2.0), v(-1.0, 0.0), Some(1));
    let c = contains(&pool(), &Pose::IDENTITY, &comp, &at(0.4, 2.5));
    check(&c, 0.1, v(-0.1, 2.5), v(1.0, 0.0), Some(0));
}

#[test]
fn nonconvex_pool() {
    // L-shaped pool; box corner (2.7, 2.7) is in the wall block x > 2, y > 2, 0.7 from both
    // walls (tie -> the lower edge index, edge 2 from (4,2) to (2,2), inward normal -y)
    let c = contains(&l_pool(), &Pose::IDENTITY, &rect(0.5, 0.5), &at(2.2, 2.2));
    check(&c, 0.7, v(2.7, 2.7), v(0.0, -1.0), None);
    // a triangle whose vertices are all inside but which the reflex corner (2, 2) pierces: the
    // wall corner is (4.5 - 4)/sqrt 2 deep behind the triangle's edge x + y = 4.5
    let tri = Shape::polygon(vec![v(1.0, 1.0), v(2.9, 1.6), v(1.6, 2.9)]).unwrap();
    let c = contains(&l_pool(), &Pose::IDENTITY, &tri, &Pose::IDENTITY);
    check(&c, 0.5 / SQRT_2, v(2.0, 2.0), v(0.0, -1.0), None);
    assert!(!c.contained);
    // the same triangle moved away from the corner is inside
    let c = contains(&l_pool(), &Pose::IDENTITY, &tri, &at(-0.9, -0.9));
    assert!(c.contained);
}

#[test]
fn convex_containers() {
    // box container: circle 0.3 through its right face
    let c = contains(
        &rect(2.0, 1.0),
        &Pose::IDENTITY,
        &circle(0.5),
        &at(1.8, 0.0),
    );
    check(&c, 0.3, v(2.3, 0.0), v(-1.0, 0.0), None);
    // circle container radius 3 at (1, 1): a box whose far corners are sqrt(6.5) away: inside
    let c = contains(&circle(3.0), &at(1.0, 1.0), &rect(0.5, 0.5), &at(3.0, 1.0));
    let d = 6.5f64.sqrt();
    check(&c, 0.0, v(3.5, 0.5), v(-2.5, 0.5) / d, None);
    // moved 0.5 further: corners sqrt(9.25) away
    let c = contains(&circle(3.0), &at(1.0, 1.0), &rect(0.5, 0.5), &at(3.5, 1.0));
    let d = 9.25f64.sqrt();
    check(&c, d - 3.0, v(4.0, 0.5), v(-3.0, 0.5) / d, None);
    // circle in circle: |c| + r - R
    let c = contains(&circle(3.0), &Pose::IDENTITY, &circle(1.0), &at(0.0, 2.5));
    check(&c, 0.5, v(0.0, 3.5), v(0.0, -1.0), None);
    // capsule container
    let cap = Shape::capsule(v(0.0, 0.0), v(4.0, 0.0), 1.0).unwrap();
    let c = contains(&cap, &Pose::IDENTITY, &circle(0.5), &at(2.0, 0.7));
    check(&c, 0.2, v(2.0, 1.2), v(0.0, -1.0), None);
    // a convex polygon container and the same outline as a border agree
    let outline = vec![v(0.0, 0.0), v(4.0, 0.0), v(5.0, 3.0), v(1.0, 4.0)];
    let poly = Shape::polygon(outline.clone()).unwrap();
    let border = Shape::border(outline).unwrap();
    for (x, y) in [(4.4, 2.0), (0.5, 0.5), (2.5, 3.6), (5.2, 3.1), (-0.5, -0.4)] {
        let a = contains(&poly, &Pose::IDENTITY, &circle(0.3), &at(x, y));
        let b = contains(&border, &Pose::IDENTITY, &circle(0.3), &at(x, y));
        assert!(
            close(a.violation, b.violation)
                && (a.point - b.point).length() < 1e-9
                && (a.normal - b.normal).length() < 1e-9
        );
    }
}

// ---------------------------------------------------------------- sampling oracle

/// Signed distance of a point to the L pool's closed inside (brute force).
fn sd_l(p: DVec2) -> f64 {
    let b = match l_pool() {
        Shape::Border(b) => b,
        _ => unreachable!(),
    };
    let vs = b.verts();
    let n = vs.len();
    let mut d = f64::INFINITY;
    let mut inside = false;
    for i in 0..n {
        let (a, c) = (vs[i], vs[(i + 1) % n]);
        if (a.y > p.y) != (c.y > p.y) && p.x < a.x + (p.y - a.y) * (c.x - a.x) / (c.y - a.y) {
            inside = !inside;
        }
        let e = c - a;
        let t = ((p - a).dot(e) / e.length_squared()).clamp(0.0, 1.0);
        d = d.min((p - a - t * e).length());
    }
    if inside {
        -d
    } else {
        d
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    /// `contained` agrees with dense sampling of the shape, and the violation bounds every sampled
    /// point's distance outside (it is exact for boxes whose worst point is a vertex).
    #[test]
    fn agrees_with_sampling(hx in 0.05..0.8f64, hy in 0.05..0.8f64, x in -0.5..4.5f64, y in -0.5..4.5f64, a in -PI..PI) {
        let pose = Pose::new(v(x, y), a);
        let c = contains(&l_pool(), &Pose::IDENTITY, &rect(hx, hy), &pose);
        let mut worst = f64::NEG_INFINITY;
        let k = 40;
        for i in 0..=k {
            for j in 0..=k {
                let local = v(-hx + 2.0 * hx * i as f64 / k as f64, -hy + 2.0 * hy * j as f64 / k as f64);
                worst = worst.max(sd_l(pose.apply(local)));
            }
        }
        // sampled violation never exceeds the reported one by more than the sampling step
        let step = 2.0 * hx.max(hy) / k as f64;
        if worst > 1e-9 {
            prop_assert!(!c.contained, "sample {} outside but reported contained", worst);
        }
        if c.violation > 3.0 * step {
            prop_assert!(worst > 0.0, "reported {} but no sample outside", c.violation);
        }
        // the reported point is where the reported value is attained (for vertex violations)
        prop_assert!(c.violation >= 0.0 && c.normal.is_finite());
        prop_assert!((c.normal.length() - 1.0).abs() < 1e-12);
    }
}
