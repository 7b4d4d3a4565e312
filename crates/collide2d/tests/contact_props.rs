//! Property tests of the narrow phase: swap symmetry, the MTV property, rigid-transform
//! invariance, bounding layers as pure filters, margins, agreement with `distance`, and no
//! panics on odd finite input.

use collide2d::contact::{contact, contact_layered, Contact, Layers, Stats, EPS_TOUCH};
use collide2d::distance::distance;
use collide2d::{Pose, Shape};
use glam::DVec2;
use proptest::prelude::*;
use std::f64::consts::PI;

fn v(x: f64, y: f64) -> DVec2 {
    DVec2::new(x, y)
}

/// Convex hull (Andrew's monotone chain), counter-clockwise, no collinear points.
fn hull(mut pts: Vec<DVec2>) -> Vec<DVec2> {
    pts.sort_by(|a, b| a.x.total_cmp(&b.x).then(a.y.total_cmp(&b.y)));
    pts.dedup();
    if pts.len() < 3 {
        return pts;
    }
    let mut lower: Vec<DVec2> = Vec::new();
    for &p in &pts {
        while lower.len() >= 2
            && (lower[lower.len() - 1] - lower[lower.len() - 2])
                .perp_dot(p - lower[lower.len() - 1])
                <= 0.0
        {
            lower.pop();
        }
        lower.push(p);
    }
    let mut upper: Vec<DVec2> = Vec::new();
    for &p in pts.iter().rev() {
        while upper.len() >= 2
            && (upper[upper.len() - 1] - upper[upper.len() - 2])
                .perp_dot(p - upper[upper.len() - 1])
                <= 0.0
        {
            upper.pop();
        }
        upper.push(p);
    }
    lower.pop();
    upper.pop();
    lower.extend(upper);
    lower
}

fn poly_from(points: Vec<(f64, f64)>) -> Shape {
    let h = hull(points.into_iter().map(|(x, y)| v(x, y)).collect());
    Shape::polygon(h).unwrap_or_else(|_| Shape::rect(v(0.5, 0.3)).unwrap())
}

fn convex() -> impl Strategy<Value = Shape> {
    let pt = || (-1.5..1.5f64, -1.5..1.5f64);
    prop_oneof![
        (0.05..1.5f64).prop_map(|r| Shape::circle(r).unwrap()),
        (0.05..1.5f64, 0.05..1.5f64).prop_map(|(x, y)| Shape::rect(v(x, y)).unwrap()),
        prop::collection::vec(pt(), 3..9).prop_map(poly_from),
        (pt(), pt()).prop_map(|(a, b)| Shape::segment(v(a.0, a.1), v(b.0, b.1))
            .unwrap_or_else(|_| Shape::segment(v(0.0, 0.0), v(1.0, 0.0)).unwrap())),
        (pt(), pt(), 0.05..1.0f64).prop_map(|(a, b, r)| Shape::capsule(
            v(a.0, a.1),
            v(b.0, b.1),
            r
        )
        .unwrap()),
    ]
}

fn pose_in(extent: f64) -> impl Strategy<Value = Pose> {
    (-extent..extent, -extent..extent, -PI..PI).prop_map(|(x, y, a)| Pose::new(v(x, y), a))
}

fn any_shape() -> impl Strategy<Value = Shape> {
    prop_oneof![
        4 => convex(),
        1 => prop::collection::vec((pose_in(1.5), convex()), 1..4)
            .prop_map(|parts| Shape::compound(parts).unwrap()),
        1 => (-0.8..0.8f64, -0.8..0.8f64, -0.8..0.8f64)
            .prop_map(|(a, b, c)| {
                let fish = Shape::fish([a, b, c]).unwrap();
                // scale the fish up by wrapping it: poses are in metres, the fish is 0.45 m long
                fish
            }),
    ]
}

fn pool() -> Shape {
    Shape::border(vec![
        v(-4.0, -3.0),
        v(4.0, -3.0),
        v(4.0, 3.0),
        v(1.0, 3.0),
        v(0.0, 1.5),
        v(-1.0, 3.0),
        v(-4.0, 3.0),
    ])
    .unwrap()
}

fn scale_of(c: &Contact) -> f64 {
    1.0 + c.witness_a.abs().max_element() + c.witness_b.abs().max_element() + c.depth.abs()
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 3000,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    /// Swapping A and B flips the normal (and mtv), swaps witnesses and parts, keeps the depth.
    #[test]
    fn swap_flips_normal_keeps_depth(a in any_shape(), pa in pose_in(2.0), b in any_shape(), pb in pose_in(2.0)) {
        let ab = contact(&a, &pa, &b, &pb, 0.5);
        let ba = contact(&b, &pb, &a, &pa, 0.5);
        prop_assert_eq!(ab.is_some(), ba.is_some());
        if let (Some(ab), Some(ba)) = (ab, ba) {
            let tol = 1e-9 * scale_of(&ab);
            prop_assert!((ab.depth - ba.depth).abs() <= tol, "{} vs {}", ab.depth, ba.depth);
            prop_assert!((ab.normal + ba.normal).length() <= 1e-9, "{:?} vs {:?}", ab.normal, ba.normal);
            prop_assert!((ab.witness_a - ba.witness_b).length() <= tol);
            prop_assert!((ab.witness_b - ba.witness_a).length() <= tol);
            prop_assert_eq!((ab.part_a, ab.part_b), (ba.part_b, ba.part_a));
            prop_assert_eq!(ab.intersect, ba.intersect);
            prop_assert_eq!(ab.points.len(), ba.points.len());
        }
    }

    /// Moving B by `mtv` brings a convex pair to touching (distance ~ 0); moving it by 0.99 mtv
    /// leaves it intersecting by 1% of the depth.
    #[test]
    fn mtv_resolves_to_touching(a in convex(), pa in pose_in(1.5), b in convex(), pb in pose_in(1.5)) {
        if let Some(c) = contact(&a, &pa, &b, &pb, 1.0) {
            let tol = 1e-9 * scale_of(&c);
            let moved = Pose::new(pb.pos + c.mtv, pb.angle);
            let d = distance(&a, &pa, &b, &moved);
            prop_assert!(d.distance.abs() <= tol, "depth {} -> distance after mtv {}", c.depth, d.distance);
            if c.depth > 1e-6 {
                let part = Pose::new(pb.pos + 0.99 * c.mtv, pb.angle);
                let c2 = contact(&a, &pa, &b, &part, 0.0).expect("still intersecting");
                prop_assert!(c2.intersect);
                prop_assert!((c2.depth - 0.01 * c.depth).abs() <= tol, "{} vs {}", c2.depth, 0.01 * c.depth);
            }
            // the witnesses are consistent with the depth
            prop_assert!((c.witness_b - c.witness_a + c.depth * c.normal).length() <= tol);
        }
    }

    /// Results are invariant under a rigid transform of the whole scene.
    #[test]
    fn rigid_transform_invariance(
        a in any_shape(), pa in pose_in(2.0), b in any_shape(), pb in pose_in(2.0),
        t in pose_in(50.0),
    ) {
        let c1 = contact(&a, &pa, &b, &pb, 0.3);
        let c2 = contact(&a, &t.compose(pa), &b, &t.compose(pb), 0.3);
        prop_assert_eq!(c1.is_some(), c2.is_some());
        if let (Some(c1), Some(c2)) = (c1, c2) {
            let tol = 1e-9 * (scale_of(&c1) + 50.0);
            prop_assert!((c1.depth - c2.depth).abs() <= tol, "{} vs {}", c1.depth, c2.depth);
            prop_assert!((t.apply_dir(c1.normal) - c2.normal).length() <= 1e-9 * (1.0 + 50.0 / c1.depth.abs().max(1e-3)).min(1e3));
            prop_assert!((t.apply(c1.witness_a) - c2.witness_a).length() <= tol);
            prop_assert!((t.apply(c1.witness_b) - c2.witness_b).length() <= tol);
            prop_assert!((t.apply(c1.action_point) - c2.action_point).length() <= tol);
            prop_assert_eq!((c1.part_a, c1.part_b), (c2.part_a, c2.part_b));
            prop_assert_eq!(c1.points.len(), c2.points.len());
        }
    }

    /// The bounding layers (circles, AABBs, 8-DOPs, the fish tree) never change an answer,
    /// and never run more exact tests than the unfiltered traversal.
    #[test]
    fn bounding_layers_are_pure_filters(
        a in any_shape(), pa in pose_in(3.0), b in any_shape(), pb in pose_in(3.0), margin in 0.0..0.5f64,
        mask in 0u8..16,
    ) {
        let mut s_none = Stats::default();
        let mut s_all = Stats::default();
        let mut s_some = Stats::default();
        let exact = contact_layered(&a, &pa, &b, &pb, margin, Layers::NONE, &mut s_none);
        let layered = contact_layered(&a, &pa, &b, &pb, margin, Layers::ALL, &mut s_all);
        let some = Layers { circle: mask & 1 != 0, aabb: mask & 2 != 0, kdop: mask & 4 != 0, fish_tree: mask & 8 != 0 };
        let partial = contact_layered(&a, &pa, &b, &pb, margin, some, &mut s_some);
        prop_assert_eq!(&exact, &layered);
        prop_assert_eq!(&exact, &partial);
        prop_assert_eq!(s_none.bound_tests, 0);
        prop_assert!(s_all.exact_tests <= s_none.exact_tests);
        prop_assert!(s_some.exact_tests <= s_none.exact_tests);
    }

    /// Same with the pool border and shapes near its walls.
    #[test]
    fn bounding_layers_with_border(b in any_shape(), pb in pose_in(4.5), margin in 0.0..0.5f64) {
        let mut s1 = Stats::default();
        let mut s2 = Stats::default();
        let exact = contact_layered(&pool(), &Pose::IDENTITY, &b, &pb, margin, Layers::NONE, &mut s1);
        let layered = contact_layered(&pool(), &Pose::IDENTITY, &b, &pb, margin, Layers::ALL, &mut s2);
        prop_assert_eq!(exact, layered);
    }

    /// Margin semantics: `None` beyond the margin, speculative within, intersect when touching.
    #[test]
    fn margin_semantics(a in any_shape(), pa in pose_in(2.0), b in any_shape(), pb in pose_in(2.0), margin in 0.0..1.0f64) {
        let d = distance(&a, &pa, &b, &pb);
        match contact(&a, &pa, &b, &pb, margin) {
            None => prop_assert!(d.distance > margin.max(EPS_TOUCH) - 1e-12),
            Some(c) => {
                prop_assert!(-c.depth <= margin.max(EPS_TOUCH));
                prop_assert_eq!(c.intersect, c.depth >= -EPS_TOUCH);
                prop_assert_eq!(c.speculative, !c.intersect);
                prop_assert!(!c.points.is_empty() && c.points.len() <= 2);
                for p in &c.points {
                    prop_assert!(p.separation <= margin.max(EPS_TOUCH) || c.points.len() == 1);
                    prop_assert!(p.separation >= -c.depth - 1e-9 * scale_of(&c));
                }
                prop_assert!((c.normal.length() - 1.0).abs() <= 1e-12);
                prop_assert!((c.mtv - c.depth * c.normal).length() <= 1e-15 * (1.0 + c.depth.abs()));
                // the contact and the distance agree
                prop_assert!((d.distance + c.depth).abs() <= 1e-12 * scale_of(&c), "{} vs {}", d.distance, c.depth);
                prop_assert!((d.normal - c.normal).length() <= 1e-12);
            }
        }
    }

    /// The pool border: contacts point into the pool and the border pair survives the swap.
    #[test]
    fn border_contacts(b in any_shape(), pb in pose_in(4.5)) {
        let c1 = contact(&pool(), &Pose::IDENTITY, &b, &pb, 0.2);
        let c2 = contact(&b, &pb, &pool(), &Pose::IDENTITY, 0.2);
        prop_assert_eq!(c1.is_some(), c2.is_some());
        if let (Some(c1), Some(c2)) = (c1, c2) {
            prop_assert!((c1.depth - c2.depth).abs() <= 1e-12 * scale_of(&c1));
            prop_assert!((c1.normal + c2.normal).length() <= 1e-12);
        }
    }

    /// No panic and finite unit normals on odd but finite input: huge and tiny coordinates,
    /// degenerate shapes built directly through the enum, extreme margins.
    #[test]
    fn no_panics_on_odd_input(
        a in any_shape(), b in any_shape(),
        x in prop_oneof![Just(0.0), Just(1e-300), Just(-1e15), Just(1e15), -1e6..1e6f64],
        y in prop_oneof![Just(0.0), Just(5e-324), Just(1e12), -1e3..1e3f64],
        ang in prop_oneof![Just(0.0), Just(1e15), -1e3..1e3f64],
        margin in prop_oneof![Just(0.0), Just(f64::MAX), Just(1e300), 0.0..10.0f64],
    ) {
        let pa = Pose::IDENTITY;
        let pb = Pose::new(v(x, y), ang);
        for (s1, s2) in [(&a, &b), (&b, &a)] {
            if let Some(c) = contact(s1, &pa, s2, &pb, margin) {
                prop_assert!(c.normal.is_finite());
            }
            let _ = distance(s1, &pa, s2, &pb);
        }
        // degenerate enum-built shapes
        let odd = [
            Shape::Circle { radius: 0.0 },
            Shape::Segment { a: v(1.0, 1.0), b: v(1.0, 1.0) },
            Shape::Capsule { a: v(0.0, 0.0), b: v(1e-300, 0.0), radius: 0.5 },
            Shape::Compound(vec![]),
            Shape::Compound(vec![(Pose::IDENTITY, pool())]),
        ];
        for o in &odd {
            let _ = contact(o, &pa, &a, &pb, margin);
            let _ = contact(&b, &pb, o, &pa, margin);
            let _ = distance(o, &pa, &b, &pb);
        }
    }
}

#[test]
fn stats_count_filtered_tests() {
    // two compounds far apart: every leaf pair is rejected by the bounding circles
    let c = |x: f64| {
        Shape::compound(vec![
            (Pose::new(v(x, 0.0), 0.0), Shape::circle(0.5).unwrap()),
            (Pose::new(v(x, 2.0), 0.0), Shape::rect(v(0.5, 0.5)).unwrap()),
        ])
        .unwrap()
    };
    let mut s = Stats::default();
    assert!(collide2d::contact::contact_with_stats(
        &c(0.0),
        &Pose::IDENTITY,
        &c(10.0),
        &Pose::IDENTITY,
        0.0,
        &mut s
    )
    .is_none());
    assert_eq!(s.exact_tests, 0);
    assert_eq!(s.bound_tests, 4);
    let mut s = Stats::default();
    assert!(contact_layered(
        &c(0.0),
        &Pose::IDENTITY,
        &c(10.0),
        &Pose::IDENTITY,
        0.0,
        Layers::NONE,
        &mut s
    )
    .is_none());
    assert_eq!((s.exact_tests, s.bound_tests), (4, 0));
    // a fish far from a circle: only the root circle is tested
    let fish = Shape::fish([0.1, 0.2, 0.3]).unwrap();
    let mut s = Stats::default();
    assert!(collide2d::contact::contact_with_stats(
        &fish,
        &Pose::IDENTITY,
        &Shape::circle(0.1).unwrap(),
        &Pose::new(v(5.0, 0.0), 0.0),
        0.0,
        &mut s
    )
    .is_none());
    assert_eq!((s.bound_tests, s.exact_tests), (1, 0));
    // a circle touching the nose: root + 2 groups + 3 front leaves, then one exact test
    let mut s = Stats::default();
    let c = collide2d::contact::contact_with_stats(
        &fish,
        &Pose::IDENTITY,
        &Shape::circle(0.05).unwrap(),
        &Pose::new(v(0.13, 0.0), 0.0),
        0.0,
        &mut s,
    )
    .unwrap();
    assert_eq!(c.part_a, Some(0));
    assert_eq!(s.exact_tests, 1);
    assert_eq!(s.bound_tests, 1 + 2 + 3);
    // without layers: 7 exact tests
    let mut s = Stats::default();
    contact_layered(
        &fish,
        &Pose::IDENTITY,
        &Shape::circle(0.05).unwrap(),
        &Pose::new(v(0.13, 0.0), 0.0),
        0.0,
        Layers::NONE,
        &mut s,
    );
    assert_eq!((s.bound_tests, s.exact_tests), (0, 7));
}

fn fish_shape() -> impl Strategy<Value = Shape> {
    (-1.2..1.2f64, -1.2..1.2f64, -1.2..1.2f64).prop_map(|(a, b, c)| Shape::fish([a, b, c]).unwrap())
}

fn small_convex() -> impl Strategy<Value = Shape> {
    let pt = || (-0.15..0.15f64, -0.15..0.15f64);
    prop_oneof![
        (0.01..0.15f64).prop_map(|r| Shape::circle(r).unwrap()),
        (0.01..0.15f64, 0.01..0.15f64).prop_map(|(x, y)| Shape::rect(v(x, y)).unwrap()),
        prop::collection::vec(pt(), 3..7).prop_map(poly_from),
        (pt(), pt(), 0.01..0.05f64).prop_map(|(a, b, r)| Shape::capsule(
            v(a.0, a.1),
            v(b.0, b.1),
            r
        )
        .unwrap()),
    ]
}

proptest! {
    #![proptest_config(config())]

    /// The fish's bounding-volume tree (root circle, group circles, 8-DOP leaves) never changes
    /// an answer: fish against small shapes and against another fish, at close range.
    #[test]
    fn fish_tree_is_a_pure_filter(
        fa in fish_shape(), pa in pose_in(0.3), b in prop_oneof![small_convex(), fish_shape()], pb in pose_in(0.5),
        margin in 0.0..0.05f64,
    ) {
        let mut s_none = Stats::default();
        let mut s_all = Stats::default();
        let exact = contact_layered(&fa, &pa, &b, &pb, margin, Layers::NONE, &mut s_none);
        let layered = contact_layered(&fa, &pa, &b, &pb, margin, Layers::ALL, &mut s_all);
        prop_assert_eq!(&exact, &layered);
        prop_assert!(s_all.exact_tests <= s_none.exact_tests);
        let swapped = contact_layered(&b, &pb, &fa, &pa, margin, Layers::ALL, &mut s_all);
        prop_assert_eq!(exact.is_some(), swapped.is_some());
        if let (Some(c1), Some(c2)) = (exact, swapped) {
            prop_assert!((c1.depth - c2.depth).abs() <= 1e-12);
            prop_assert_eq!((c1.part_a, c1.part_b), (c2.part_b, c2.part_a));
        }
    }
}

#[test]
fn fish_tree_saves_exact_tests() {
    // at close range the fish tree still skips most of the 49 part pairs
    let fish = Shape::fish([0.3, -0.2, 0.4]).unwrap();
    let mut s_all = Stats::default();
    let mut s_none = Stats::default();
    let pb = Pose::new(v(0.35, 0.05), 2.5);
    let a = contact_layered(
        &fish,
        &Pose::IDENTITY,
        &fish,
        &pb,
        0.0,
        Layers::ALL,
        &mut s_all,
    );
    let b = contact_layered(
        &fish,
        &Pose::IDENTITY,
        &fish,
        &pb,
        0.0,
        Layers::NONE,
        &mut s_none,
    );
    assert_eq!(a, b);
    assert_eq!(s_none.exact_tests, 49);
    assert!(s_all.exact_tests < 10, "{s_all:?}");
}
