//! Signed distance with answers worked out by hand (to 1e-9).

use collide2d::distance::{distance, distance_with_parts, Distance};
use collide2d::{Pose, Shape};
use glam::DVec2;
use std::f64::consts::{FRAC_PI_2, SQRT_2};

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
fn check(d: &Distance, dist: f64, n: DVec2, pa: DVec2, pb: DVec2) {
    assert!(
        close(d.distance, dist),
        "distance {} expected {}",
        d.distance,
        dist
    );
    assert!(
        close(d.normal.x, n.x) && close(d.normal.y, n.y),
        "normal {:?} expected {:?}",
        d.normal,
        n
    );
    assert!(
        close(d.point_a.x, pa.x) && close(d.point_a.y, pa.y),
        "point_a {:?} expected {:?}",
        d.point_a,
        pa
    );
    assert!(
        close(d.point_b.x, pb.x) && close(d.point_b.y, pb.y),
        "point_b {:?} expected {:?}",
        d.point_b,
        pb
    );
    // invariant: point_b - point_a = distance * normal
    assert!((d.point_b - d.point_a - d.distance * d.normal).length() <= 1e-9);
}
fn circle(r: f64) -> Shape {
    Shape::circle(r).unwrap()
}
fn rect(x: f64, y: f64) -> Shape {
    Shape::rect(v(x, y)).unwrap()
}
fn seg(a: DVec2, b: DVec2) -> Shape {
    Shape::segment(a, b).unwrap()
}

#[test]
fn circles() {
    check(
        &distance(&circle(1.0), &Pose::IDENTITY, &circle(0.5), &at(3.0, 4.0)),
        3.5,
        v(0.6, 0.8),
        v(0.6, 0.8),
        v(2.7, 3.6),
    );
    check(
        &distance(&circle(1.0), &Pose::IDENTITY, &circle(0.5), &at(1.2, 0.0)),
        -0.3,
        v(1.0, 0.0),
        v(1.0, 0.0),
        v(0.7, 0.0),
    );
    // concentric: -(ra + rb), normal +x
    check(
        &distance(&circle(1.0), &at(2.0, 2.0), &circle(0.5), &at(2.0, 2.0)),
        -1.5,
        v(1.0, 0.0),
        v(3.0, 2.0),
        v(1.5, 2.0),
    );
    // far apart: exact
    check(
        &distance(&circle(1.0), &Pose::IDENTITY, &circle(1.0), &at(1e6, 0.0)),
        1e6 - 2.0,
        v(1.0, 0.0),
        v(1.0, 0.0),
        v(1e6 - 1.0, 0.0),
    );
}

#[test]
fn boxes() {
    // corner to corner (GJK vertex-vertex)
    let d = (1.0f64 + 2.25).sqrt();
    check(
        &distance(
            &rect(1.0, 1.0),
            &Pose::IDENTITY,
            &rect(0.5, 0.5),
            &at(2.5, 3.0),
        ),
        d,
        v(1.0, 1.5) / d,
        v(1.0, 1.0),
        v(2.0, 2.5),
    );
    // corner of a 45-degree box to a face: gap 0.25
    let pb = Pose::new(v(1.25 + SQRT_2, 0.0), std::f64::consts::FRAC_PI_4);
    check(
        &distance(&rect(1.0, 1.0), &Pose::IDENTITY, &rect(1.0, 1.0), &pb),
        0.25,
        v(1.0, 0.0),
        v(1.0, 0.0),
        v(1.25, 0.0),
    );
    // overlapping: minus the SAT depth
    let o = distance(
        &rect(1.0, 1.0),
        &Pose::IDENTITY,
        &rect(1.0, 1.0),
        &at(1.5, 0.5),
    );
    assert!(close(o.distance, -0.5) && close(o.normal.x, 1.0));
}

#[test]
fn circle_vs_box_regions() {
    // face region: gap 0.3
    check(
        &distance(
            &rect(2.0, 1.0),
            &Pose::IDENTITY,
            &circle(0.5),
            &at(2.8, 0.4),
        ),
        0.3,
        v(1.0, 0.0),
        v(2.0, 0.4),
        v(2.3, 0.4),
    );
    // vertex region: centre (2.6, 1.8) is 1 from vertex (2, 1)
    check(
        &distance(
            &rect(2.0, 1.0),
            &Pose::IDENTITY,
            &circle(0.5),
            &at(2.6, 1.8),
        ),
        0.5,
        v(0.6, 0.8),
        v(2.0, 1.0),
        v(2.3, 1.4),
    );
    // inside
    check(
        &distance(
            &rect(2.0, 1.0),
            &Pose::IDENTITY,
            &circle(0.5),
            &at(1.5, 0.2),
        ),
        -1.0,
        v(1.0, 0.0),
        v(2.0, 0.2),
        v(1.0, 0.2),
    );
}

#[test]
fn segments() {
    // skew: end (2,0) to end (3,1)
    check(
        &distance(
            &seg(v(0.0, 0.0), v(2.0, 0.0)),
            &Pose::IDENTITY,
            &seg(v(3.0, 1.0), v(3.0, 3.0)),
            &Pose::IDENTITY,
        ),
        SQRT_2,
        v(1.0, 1.0) / SQRT_2,
        v(2.0, 0.0),
        v(3.0, 1.0),
    );
    // end (1, 2) of B above the interior of A: face-vertex
    check(
        &distance(
            &seg(v(0.0, 0.0), v(4.0, 0.0)),
            &Pose::IDENTITY,
            &seg(v(1.0, 2.0), v(-1.0, 5.0)),
            &Pose::IDENTITY,
        ),
        2.0,
        v(0.0, 1.0),
        v(1.0, 0.0),
        v(1.0, 2.0),
    );
    // crossing: the shallow way out is down along A's edge-0 normal by 0.25
    check(
        &distance(
            &seg(v(-1.0, 0.0), v(1.0, 0.0)),
            &Pose::IDENTITY,
            &seg(v(0.0, -1.0), v(0.0, 0.25)),
            &Pose::IDENTITY,
        ),
        -0.25,
        v(0.0, -1.0),
        v(0.0, 0.0),
        v(0.0, 0.25),
    );
    // parallel: gap 0.3
    let d = distance(
        &seg(v(0.0, 0.0), v(2.0, 0.0)),
        &Pose::IDENTITY,
        &seg(v(0.5, 0.3), v(1.5, 0.3)),
        &Pose::IDENTITY,
    );
    assert!(close(d.distance, 0.3) && close(d.normal.y, 1.0));
}

#[test]
fn capsules() {
    let cap = Shape::capsule(v(0.0, 0.0), v(2.0, 0.0), 0.5).unwrap();
    // capsule–capsule, perpendicular, cores 2 apart
    let cap2 = Shape::capsule(v(1.0, 2.0), v(1.0, 4.0), 0.25).unwrap();
    check(
        &distance(&cap, &Pose::IDENTITY, &cap2, &Pose::IDENTITY),
        1.25,
        v(0.0, 1.0),
        v(1.0, 0.5),
        v(1.0, 1.75),
    );
    // capsule vs box corner, rotated capsule pose
    let d = distance(
        &rect(1.0, 1.0),
        &Pose::IDENTITY,
        &cap,
        &Pose::new(v(1.6, 1.8), FRAC_PI_2 / 2.0 + 0.2),
    );
    assert!(close(d.distance, 0.5) && close(d.normal.x, 0.6) && close(d.normal.y, 0.8));
}

#[test]
fn compounds_min_over_parts() {
    let c = Shape::compound(vec![
        (at(-2.0, 0.0), rect(0.5, 0.5)),
        (at(2.0, 0.0), circle(0.5)),
    ])
    .unwrap();
    let (d, pa, pb) = distance_with_parts(&c, &Pose::IDENTITY, &circle(1.0), &at(4.0, 0.0));
    check(&d, 0.5, v(1.0, 0.0), v(2.5, 0.0), v(3.0, 0.0));
    assert_eq!((pa, pb), (Some(1), None));
    let (d, pa, _) = distance_with_parts(&c, &Pose::IDENTITY, &circle(1.0), &at(-4.0, 0.0));
    check(&d, 0.5, v(-1.0, 0.0), v(-2.5, 0.0), v(-3.0, 0.0));
    assert_eq!(pa, Some(0));
}

#[test]
fn fish_distance() {
    let fish = Shape::fish([0.0, 0.0, 0.0]).unwrap();
    // nose (0.1, 0) to a circle at (0.5, 0) of radius 0.1
    let (d, pa, _) = distance_with_parts(&fish, &Pose::IDENTITY, &circle(0.1), &at(0.5, 0.0));
    check(&d, 0.3, v(1.0, 0.0), v(0.1, 0.0), v(0.4, 0.0));
    assert_eq!(pa, Some(0));
    // caudal fin trailing edge x = -0.32
    let (d, pa, _) = distance_with_parts(&fish, &Pose::IDENTITY, &circle(0.1), &at(-1.0, 0.01));
    check(&d, 0.58, v(-1.0, 0.0), v(-0.32, 0.01), v(-0.9, 0.01));
    assert_eq!(pa, Some(6));
}

#[test]
fn border_distance() {
    let pool = Shape::border(vec![v(0.0, 0.0), v(10.0, 0.0), v(10.0, 5.0), v(0.0, 5.0)]).unwrap();
    // centre of the pool: bottom and top walls tie at 2.0 -> lowest edge (bottom)
    check(
        &distance(&pool, &Pose::IDENTITY, &circle(0.5), &at(5.0, 2.5)),
        2.0,
        v(0.0, 1.0),
        v(5.0, 0.0),
        v(5.0, 2.0),
    );
    check(
        &distance(&pool, &Pose::IDENTITY, &circle(0.5), &at(9.0, 3.0)),
        0.5,
        v(-1.0, 0.0),
        v(10.0, 3.0),
        v(9.5, 3.0),
    );
    // outside: negative, pushing back in
    check(
        &distance(&pool, &Pose::IDENTITY, &circle(0.5), &at(11.0, 3.0)),
        -1.5,
        v(-1.0, 0.0),
        v(10.0, 3.0),
        v(11.5, 3.0),
    );
    // border–border: nothing to measure
    let d = distance(&pool, &Pose::IDENTITY, &pool, &Pose::IDENTITY);
    assert!(d.distance.is_infinite() && d.normal == DVec2::X);
}
