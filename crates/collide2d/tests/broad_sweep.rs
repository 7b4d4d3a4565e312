//! The sort-and-sweep broad phase equals brute force.

use collide2d::bounding::Aabb;
use collide2d::broad::{brute_force_pairs, candidate_pairs, SortAndSweep};
use glam::DVec2;
use proptest::prelude::*;

fn sweep(boxes: &[Aabb]) -> Vec<(usize, usize)> {
    let mut out = vec![(99, 99)]; // must be cleared
    candidate_pairs(boxes, &mut out);
    out
}

fn brute(boxes: &[Aabb]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    brute_force_pairs(boxes, &mut out);
    out
}

/// A deterministic pseudo-random scene: boxes snapped to a coarse grid so that shared edges,
/// corners and duplicates are frequent.
fn lcg_scene(seed: u64, n: usize) -> Vec<Aabb> {
    let mut s = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let mut next = move || {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((s >> 33) % 41) as f64 * 0.05 - 1.0
    };
    (0..n)
        .map(|_| {
            let (x, y) = (next(), next());
            let (w, h) = (next().abs() * 0.4, next().abs() * 0.4);
            Aabb {
                min: DVec2::new(x, y),
                max: DVec2::new(x + w, y + h),
            }
        })
        .collect()
}

#[test]
fn equals_brute_force_on_grid_scenes() {
    let mut total = 0;
    for seed in 0..200 {
        let boxes = lcg_scene(seed, (seed % 60) as usize);
        let got = sweep(&boxes);
        assert_eq!(got, brute(&boxes), "seed {seed}");
        assert!(got.windows(2).all(|w| w[0] < w[1]), "sorted and unique");
        assert!(got.iter().all(|&(i, j)| i < j));
        total += got.len();
    }
    assert!(total > 1000, "scenes must produce pairs ({total})");
}

#[test]
fn touching_boxes_pair_and_separated_do_not() {
    let b = |x0: f64, y0: f64, x1: f64, y1: f64| Aabb {
        min: DVec2::new(x0, y0),
        max: DVec2::new(x1, y1),
    };
    // edge contact, corner contact, a point box on an edge, and a gap of 1e-12
    let boxes = [
        b(0., 0., 1., 1.),
        b(1., 0., 2., 1.),
        b(2., 1., 3., 2.),
        b(0.5, 1., 0.5, 1.),
        b(3.0 + 1e-12, 0., 4., 1.),
    ];
    assert_eq!(sweep(&boxes), vec![(0, 1), (0, 3), (1, 2)]);
    assert_eq!(sweep(&boxes), brute(&boxes));
}

#[test]
fn nan_and_inverted_boxes_never_pair() {
    let boxes = [
        Aabb {
            min: DVec2::ZERO,
            max: DVec2::ONE,
        },
        Aabb {
            min: DVec2::new(f64::NAN, 0.0),
            max: DVec2::ONE,
        },
        Aabb {
            min: DVec2::ONE,
            max: DVec2::ZERO,
        },
        Aabb {
            min: DVec2::splat(0.5),
            max: DVec2::splat(2.0),
        },
    ];
    assert_eq!(sweep(&boxes), vec![(0, 3)]);
    assert_eq!(sweep(&boxes), brute(&boxes));
    assert!(sweep(&[]).is_empty());
}

#[test]
fn reusable_sweep_counts_and_reuses() {
    let mut s = SortAndSweep::new();
    let mut out = Vec::new();
    for seed in 0..20 {
        let boxes = lcg_scene(seed + 1000, 40);
        s.candidate_pairs(&boxes, &mut out);
        assert_eq!(out, brute(&boxes));
        assert_eq!(s.pairs, out.len());
        assert!(s.x_overlaps >= s.pairs);
    }
}

#[test]
fn demo_scene_pairs_match_brute_force() {
    let txt = include_str!("../assets/demo_pool.json");
    let scene = collide2d::scene::parse_scene(txt).unwrap();
    let boxes: Vec<Aabb> = scene
        .shapes
        .iter()
        .map(|s| collide2d::bounding::aabb(&s.shape, &s.pose))
        .collect();
    let got = sweep(&boxes);
    assert_eq!(got, brute(&boxes));
    // the border's box holds everything
    assert!((1..boxes.len()).all(|j| got.contains(&(0, j))));
}

fn arb_box() -> impl Strategy<Value = Aabb> {
    (-10.0..10.0f64, -10.0..10.0f64, 0.0..3.0f64, 0.0..3.0f64).prop_map(|(x, y, w, h)| Aabb {
        min: DVec2::new(x, y),
        max: DVec2::new(x + w, y + h),
    })
}

proptest! {
    #[test]
    fn equals_brute_force_random(boxes in proptest::collection::vec(arb_box(), 0..120)) {
        prop_assert_eq!(sweep(&boxes), brute(&boxes));
    }
}
