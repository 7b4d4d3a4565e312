//! Bounding volumes: analytic AABBs, 8-DOPs and circles, conservativeness on random shapes, and
//! the fish's bounding-volume tree (structure, refit, and that it never rejects a contact).

#![allow(clippy::needless_range_loop)]

use collide2d::bounding::{
    aabb, bounding_circle, circles_overlap, merge_circles, Aabb, FishTree, Kdop8, FISH_FRONT_GROUP,
    FISH_TAIL_GROUP,
};
use collide2d::contact::{contact, Layers, Stats};
use collide2d::shape::{Fish, FishDims};
use collide2d::{Pose, Shape};
use glam::DVec2;
use proptest::prelude::*;
use std::f64::consts::{FRAC_PI_4, PI, SQRT_2};

fn v(x: f64, y: f64) -> DVec2 {
    DVec2::new(x, y)
}
fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * (1.0 + b.abs())
}
#[track_caller]
fn assert_box(b: Aabb, min: DVec2, max: DVec2) {
    assert!(
        close(b.min.x, min.x)
            && close(b.min.y, min.y)
            && close(b.max.x, max.x)
            && close(b.max.y, max.y),
        "{b:?}"
    );
}

#[test]
fn aabbs_by_hand() {
    assert_box(
        aabb(&Shape::circle(0.5).unwrap(), &Pose::new(v(1.0, 2.0), 3.0)),
        v(0.5, 1.5),
        v(1.5, 2.5),
    );
    assert_box(
        aabb(
            &Shape::rect(v(1.0, 1.0)).unwrap(),
            &Pose::new(v(0.0, 0.0), FRAC_PI_4),
        ),
        v(-SQRT_2, -SQRT_2),
        v(SQRT_2, SQRT_2),
    );
    assert_box(
        aabb(
            &Shape::rect(v(2.0, 1.0)).unwrap(),
            &Pose::new(v(1.0, 1.0), PI / 2.0),
        ),
        v(0.0, -1.0),
        v(2.0, 3.0),
    );
    assert_box(
        aabb(
            &Shape::capsule(v(0.0, 0.0), v(2.0, 1.0), 0.5).unwrap(),
            &Pose::IDENTITY,
        ),
        v(-0.5, -0.5),
        v(2.5, 1.5),
    );
    assert_box(
        aabb(
            &Shape::segment(v(0.0, 3.0), v(2.0, 1.0)).unwrap(),
            &Pose::IDENTITY,
        ),
        v(0.0, 1.0),
        v(2.0, 3.0),
    );
    let pool = Shape::border(vec![v(0.0, 0.0), v(10.0, 0.0), v(10.0, 5.0), v(0.0, 5.0)]).unwrap();
    assert_box(aabb(&pool, &Pose::IDENTITY), v(0.0, 0.0), v(10.0, 5.0));
    let comp = Shape::compound(vec![
        (Pose::new(v(-2.0, 0.0), 0.0), Shape::circle(0.5).unwrap()),
        (
            Pose::new(v(2.0, 1.0), 0.0),
            Shape::rect(v(0.5, 0.5)).unwrap(),
        ),
    ])
    .unwrap();
    assert_box(
        aabb(&comp, &Pose::new(v(1.0, 0.0), 0.0)),
        v(-1.5, -0.5),
        v(3.5, 1.5),
    );
    // the default fish, straight: nose (0.1, 0), caudal trailing edge x = -0.32, fins up to 0.092
    let fish = Shape::fish([0.0; 3]).unwrap();
    assert_box(
        aabb(&fish, &Pose::IDENTITY),
        v(-0.32, -0.092),
        v(0.1, 0.092),
    );
}

#[test]
fn circles_by_hand() {
    let (c, r) = bounding_circle(
        &Shape::capsule(v(0.0, 0.0), v(2.0, 0.0), 0.5).unwrap(),
        &Pose::IDENTITY,
    );
    assert!((c - v(1.0, 0.0)).length() < 1e-12 && close(r, 1.5));
    let (c, r) = bounding_circle(
        &Shape::rect(v(3.0, 4.0)).unwrap(),
        &Pose::new(v(1.0, 1.0), 0.3),
    );
    assert!((c - v(1.0, 1.0)).length() < 1e-12 && close(r, 5.0));
    // merging: disjoint circles give the tight enclosing circle
    let (c, r) = merge_circles((v(0.0, 0.0), 1.0), (v(4.0, 0.0), 1.0));
    assert!((c - v(2.0, 0.0)).length() < 1e-12 && close(r, 3.0));
    // nested: the bigger one
    assert_eq!(
        merge_circles((v(0.0, 0.0), 5.0), (v(1.0, 0.0), 1.0)),
        (v(0.0, 0.0), 5.0)
    );
    assert!(
        circles_overlap((v(0.0, 0.0), 1.0), (v(2.0, 0.0), 1.0)),
        "touching circles overlap"
    );
    assert!(!circles_overlap((v(0.0, 0.0), 1.0), (v(2.0, 0.0), 0.999)));
}

#[test]
fn kdop8_by_hand() {
    // a unit square rotated 45 degrees (a diamond with vertices at distance sqrt 2)
    let diamond = Shape::rect(v(1.0, 1.0)).unwrap();
    let k = Kdop8::from_shape(&diamond, &Pose::new(DVec2::ZERO, FRAC_PI_4));
    for i in [0, 2] {
        assert!(close(k.min[i], -SQRT_2) && close(k.max[i], SQRT_2));
    }
    for i in [1, 3] {
        assert!(close(k.min[i], -1.0) && close(k.max[i], 1.0));
    }
    // two diamonds whose AABBs overlap but whose 45-degree slabs are disjoint
    let k2 = Kdop8::from_shape(&diamond, &Pose::new(v(2.0, 2.0), FRAC_PI_4));
    assert!(k.aabb().overlaps(&k2.aabb()));
    assert!(!k.overlaps(&k2));
    assert!(contact(
        &diamond,
        &Pose::new(DVec2::ZERO, FRAC_PI_4),
        &diamond,
        &Pose::new(v(2.0, 2.0), FRAC_PI_4),
        0.0
    )
    .is_none());
    // touching slabs overlap (closed intervals)
    let sq = Kdop8::from_shape(&diamond, &Pose::IDENTITY);
    let k3 = Kdop8::from_shape(&diamond, &Pose::new(v(2.0, 0.0), 0.0));
    assert!(sq.overlaps(&k3));
    assert!(!sq.overlaps(&Kdop8::from_shape(
        &diamond,
        &Pose::new(v(2.0 + 1e-12, 0.0), 0.0)
    )));
    // a circle's 8-DOP: every slab is [c - r, c + r] along the direction
    let kc = Kdop8::from_shape(&Shape::circle(1.0).unwrap(), &Pose::new(v(1.0, 0.0), 0.0));
    assert!(close(kc.min[1], 1.0 / SQRT_2 - 1.0) && close(kc.max[1], 1.0 / SQRT_2 + 1.0));
}

#[test]
fn fish_tree_structure() {
    let fish = Fish::new(FishDims::default()).unwrap();
    let joints = [0.3, -0.5, 0.7];
    let base = Pose::new(v(1.0, 2.0), 0.4);
    let t = FishTree::new(&fish, base, joints);
    assert_eq!(t.poses, fish.part_poses(base, joints));
    // leaves contain their part's vertices; groups contain their leaves; the root its groups
    for (g, ids) in [(0usize, &FISH_FRONT_GROUP[..]), (1, &FISH_TAIL_GROUP[..])] {
        let (c, r) = t.groups[g];
        assert!((c - t.root.0).length() + r <= t.root.1 + 1e-12);
        for &i in ids {
            for &p in fish.parts()[i].verts() {
                let w = t.poses[i].apply(p);
                assert!((w - c).length() <= r + 1e-12);
                let k = Kdop8::from_points([w]);
                assert!(t.leaves[i].overlaps(&k));
            }
        }
    }
    // refit reproduces a freshly built tree
    let mut t2 = FishTree::new(&fish, Pose::IDENTITY, [0.0; 3]);
    t2.refit(base, joints);
    assert_eq!(t2.poses, t.poses);
    assert_eq!(t2.leaves, t.leaves);
    assert_eq!(t2.root, t.root);
    assert_eq!(t2.groups, t.groups);
    // a query far away touches only the root
    let far = (v(10.0, 10.0), 0.1);
    let (hits, tests) = t.query(far, &Kdop8::from_points([far.0]).inflate(far.1));
    assert_eq!((hits, tests), ([false; 7], 1));
}

fn pt() -> impl Strategy<Value = DVec2> {
    (-1.0..1.0f64, -1.0..1.0f64).prop_map(|(x, y)| v(x, y))
}

fn shape() -> impl Strategy<Value = Shape> {
    prop_oneof![
        (0.01..1.0f64).prop_map(|r| Shape::circle(r).unwrap()),
        (0.01..1.0f64, 0.01..1.0f64).prop_map(|(x, y)| Shape::rect(v(x, y)).unwrap()),
        (pt(), pt(), 0.01..0.5f64).prop_map(|(a, b, r)| Shape::capsule(a, b, r).unwrap()),
        (pt(), pt()).prop_filter_map("seg", |(a, b)| Shape::segment(a, b).ok()),
        (-1.0..1.0f64, -1.0..1.0f64, -1.0..1.0f64)
            .prop_map(|(a, b, c)| Shape::fish([a, b, c]).unwrap()),
    ]
}

/// Sample points of a shape's boundary (world).
fn samples(s: &Shape, p: &Pose) -> Vec<DVec2> {
    let ring =
        |c: DVec2, r: f64| (0..64).map(move |k| c + r * DVec2::from_angle(k as f64 * PI / 32.0));
    match s {
        Shape::Circle { radius } => ring(p.pos, *radius).collect(),
        Shape::Box { poly, .. } | Shape::Polygon(poly) => {
            poly.verts().iter().map(|&q| p.apply(q)).collect()
        }
        Shape::Segment { a, b } => vec![p.apply(*a), p.apply(*b)],
        Shape::Capsule { a, b, radius } => ring(p.apply(*a), *radius)
            .chain(ring(p.apply(*b), *radius))
            .collect(),
        Shape::Fish { fish, joints } => {
            let poses = fish.part_poses(*p, *joints);
            fish.parts()
                .iter()
                .zip(poses.iter())
                .flat_map(|(poly, q)| poly.verts().iter().map(move |&w| q.apply(w)))
                .collect()
        }
        _ => vec![],
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    /// Every volume contains the shape.
    #[test]
    fn volumes_are_conservative(s in shape(), x in -5.0..5.0f64, y in -5.0..5.0f64, a in -PI..PI) {
        let p = Pose::new(v(x, y), a);
        let b = aabb(&s, &p).inflate(1e-12);
        let (c, r) = bounding_circle(&s, &p);
        let k = Kdop8::from_shape(&s, &p).inflate(1e-12);
        for q in samples(&s, &p) {
            prop_assert!(b.contains_point(q));
            prop_assert!((q - c).length() <= r + 1e-12);
            prop_assert!(k.overlaps(&Kdop8::from_points([q])));
        }
    }

    /// Two fish trees (and a tree and a shape) never reject an intersecting part pair, and the
    /// layered contact equals the exact one.
    #[test]
    fn fish_tree_never_rejects_a_contact(
        j1 in prop::array::uniform3(-1.2..1.2f64), j2 in prop::array::uniform3(-1.2..1.2f64),
        x in -0.5..0.5f64, y in -0.3..0.3f64, a in -PI..PI,
    ) {
        let fish = Fish::new(FishDims::default()).unwrap();
        let ta = FishTree::new(&fish, Pose::IDENTITY, j1);
        let pb = Pose::new(v(x, y), a);
        let tb = FishTree::new(&fish, pb, j2);
        let (hits, _) = ta.query_tree(&tb, 1e-9);
        for i in 0..7 {
            for j in 0..7 {
                let c = contact(
                    &Shape::Polygon(fish.parts()[i].clone()), &ta.poses[i],
                    &Shape::Polygon(fish.parts()[j].clone()), &tb.poses[j], 0.0,
                );
                if c.is_some() {
                    prop_assert!(hits[i][j], "parts {} and {} touch but the tree rejected them", i, j);
                }
            }
        }
        let (sa, sb) = (Shape::fish(j1).unwrap(), Shape::fish(j2).unwrap());
        let mut s1 = Stats::default();
        let mut s2 = Stats::default();
        let exact = collide2d::contact::contact_layered(&sa, &Pose::IDENTITY, &sb, &pb, 0.0, Layers::NONE, &mut s1);
        let layered = collide2d::contact::contact_layered(&sa, &Pose::IDENTITY, &sb, &pb, 0.0, Layers::ALL, &mut s2);
        prop_assert_eq!(exact, layered);
        prop_assert!(s2.exact_tests <= s1.exact_tests);
    }
}
