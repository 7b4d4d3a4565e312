//! Whole-scene collision detection per 100 ms control cycle on the demo pool (border with
//! goals, 4 fish, 9 balls, 4 obstacles).
//!
//! One cycle = swept-AABB sort-and-sweep broad phase between the states of cycles k and k+1
//! (the fish swim, turn and beat their tails; two balls move), then per candidate pair the
//! pseudo-continuous test (moving pairs) or the discrete contact (static pairs), the discrete
//! contacts at the new state, and every body's containment in the border.
//!
//! Run: `cargo bench -p collide2d --bench pool`.

use std::hint::black_box;

use collide2d::bounding::{aabb, Aabb};
use collide2d::broad::SortAndSweep;
use collide2d::ccd::{pseudo_continuous, swept_aabb, toi, BodyState, Motion, SubstepOptions};
use collide2d::contact::contact;
use collide2d::containment::contains;
use collide2d::scene::parse_scene;
use collide2d::Shape;
use criterion::{criterion_group, criterion_main, Criterion};
use glam::DVec2;

const CYCLE: f64 = 0.1;

struct World {
    shapes: Vec<Shape>,
    s0: Vec<BodyState>,
    s1: Vec<BodyState>,
    border: usize,
}

fn world() -> World {
    let scene = parse_scene(include_str!("../assets/demo_pool.json")).expect("demo scene");
    let shapes: Vec<Shape> = scene.shapes.iter().map(|s| s.shape.clone()).collect();
    let s0: Vec<BodyState> = scene
        .shapes
        .iter()
        .map(|s| BodyState {
            pose: s.pose,
            joints: if let Shape::Fish { joints, .. } = s.shape {
                joints
            } else {
                [0.0; 3]
            },
        })
        .collect();
    let mut s1 = s0.clone();
    for (k, (sh, st)) in shapes.iter().zip(s1.iter_mut()).enumerate() {
        match sh {
            Shape::Fish { .. } => {
                // swim 0.4 m/s forward, turn 1 rad/s, beat the tail
                let heading = DVec2::new(st.pose.angle.cos(), st.pose.angle.sin());
                st.pose.pos += heading * 0.4 * CYCLE;
                st.pose.angle += 0.1;
                st.joints = [-st.joints[0], -st.joints[1] + 0.2, -st.joints[2]];
            }
            // a fast shot and a slow roll
            Shape::Circle { .. } if k == 6 => st.pose.pos += DVec2::new(0.0, -0.8),
            Shape::Circle { .. } if k == 11 => st.pose.pos += DVec2::new(0.05, -0.02),
            _ => {}
        }
    }
    let border = shapes
        .iter()
        .position(|s| matches!(s, Shape::Border(_)))
        .expect("a border");
    World {
        shapes,
        s0,
        s1,
        border,
    }
}

fn with_joints(s: &Shape, st: &BodyState) -> Shape {
    match s {
        Shape::Fish { fish, .. } => Shape::Fish {
            fish: fish.clone(),
            joints: st.joints,
        },
        _ => s.clone(),
    }
}

/// Counts of one cycle (kept so that nothing is optimised away).
#[derive(Default, Debug)]
struct Tally {
    candidates: usize,
    swept_hits: usize,
    substeps: u32,
    contacts: usize,
    outside: usize,
}

fn cycle(
    w: &World,
    sweep: &mut SortAndSweep,
    boxes: &mut Vec<Aabb>,
    pairs: &mut Vec<(usize, usize)>,
) -> Tally {
    let opts = SubstepOptions {
        cycle: CYCLE,
        ..SubstepOptions::default()
    };
    let mut t = Tally::default();
    // broad phase on swept boxes
    boxes.clear();
    boxes.extend(
        w.shapes
            .iter()
            .zip(w.s0.iter().zip(&w.s1))
            .map(|(s, (a, b))| swept_aabb(s, a, b)),
    );
    sweep.candidate_pairs(boxes, pairs);
    t.candidates = pairs.len();
    // the shapes at the new state
    let now: Vec<Shape> = w
        .shapes
        .iter()
        .zip(&w.s1)
        .map(|(s, st)| with_joints(s, st))
        .collect();
    for &(i, j) in pairs.iter() {
        let moving = w.s0[i] != w.s1[i] || w.s0[j] != w.s1[j];
        if moving {
            let r = pseudo_continuous(
                &w.shapes[i],
                &w.s0[i],
                &w.s1[i],
                &w.shapes[j],
                &w.s0[j],
                &w.s1[j],
                &opts,
            );
            t.substeps += r.substeps;
            t.swept_hits += r.hit as usize;
        }
        if contact(&now[i], &w.s1[i].pose, &now[j], &w.s1[j].pose, 0.0).is_some_and(|c| c.intersect)
        {
            t.contacts += 1;
        }
    }
    // containment of every body in the pool
    let bp = w.s1[w.border].pose;
    for (k, s) in now.iter().enumerate() {
        if k != w.border && !contains(&w.shapes[w.border], &bp, s, &w.s1[k].pose).contained {
            t.outside += 1;
        }
    }
    t
}

/// The discrete baseline: broad phase, contacts and containment at one state only.
fn discrete(
    w: &World,
    sweep: &mut SortAndSweep,
    boxes: &mut Vec<Aabb>,
    pairs: &mut Vec<(usize, usize)>,
) -> usize {
    boxes.clear();
    boxes.extend(w.shapes.iter().zip(&w.s0).map(|(s, st)| aabb(s, &st.pose)));
    sweep.candidate_pairs(boxes, pairs);
    let mut n = 0;
    for &(i, j) in pairs.iter() {
        n += contact(
            &w.shapes[i],
            &w.s0[i].pose,
            &w.shapes[j],
            &w.s0[j].pose,
            0.0,
        )
        .is_some_and(|c| c.intersect) as usize;
    }
    let bp = w.s0[w.border].pose;
    for (k, s) in w.shapes.iter().enumerate() {
        n += (k != w.border && !contains(&w.shapes[w.border], &bp, s, &w.s0[k].pose).contained)
            as usize;
    }
    n
}

/// Exact TOI of the fast ball against every other body (linear motion, fish at rest).
fn toi_sweep(w: &World) -> usize {
    let ball = 6;
    let m = Motion::new((w.s1[ball].pose.pos - w.s0[ball].pose.pos) / CYCLE, 0.0);
    let rest = Motion::default();
    (0..w.shapes.len())
        .filter(|&k| k != ball && k != w.border)
        .filter(|&k| {
            toi(
                &w.shapes[ball],
                &w.s0[ball].pose,
                &m,
                &w.shapes[k],
                &w.s0[k].pose,
                &rest,
                CYCLE,
            )
            .hit
        })
        .count()
}

fn bench(c: &mut Criterion) {
    let w = world();
    let (mut sweep, mut boxes, mut pairs) = (SortAndSweep::new(), Vec::new(), Vec::new());
    let tally = cycle(&w, &mut sweep, &mut boxes, &mut pairs);
    eprintln!("one cycle: {tally:?}");
    c.bench_function("pool/cycle_pseudo_continuous", |b| {
        b.iter(|| black_box(cycle(black_box(&w), &mut sweep, &mut boxes, &mut pairs)))
    });
    c.bench_function("pool/cycle_discrete", |b| {
        b.iter(|| black_box(discrete(black_box(&w), &mut sweep, &mut boxes, &mut pairs)))
    });
    c.bench_function("pool/toi_fast_ball_vs_all", |b| {
        b.iter(|| black_box(toi_sweep(black_box(&w))))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
