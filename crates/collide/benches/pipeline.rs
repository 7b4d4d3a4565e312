//! Per-phase and whole-scene timings on conformance corpus models, per state (each iteration
//! takes the next recorded state of the model, round robin):
//! - `kinematics/SCENE`: forward kinematics (body, inertial and geom poses);
//! - `broad/SCENE`: the broad phase (body boxes in the principal frame + sweep-and-prune);
//! - `mid/SCENE`: mid-phase tree traversals of the broad phase's multi-geom body pairs;
//! - `scene/SCENE`: the whole `Collider::detect` (broad, mid and narrow phase; poses given,
//!   like MuJoCo's `mj_collision`).
//!
//! Run with `cargo bench -p collide --bench pipeline` (or `bash bench/all.sh`).

mod common;

use collide::broad::BroadPhase;
use collide::mid::{traverse, PlacedTrees};
use collide::{Collider, Poses};
use common::{kinematics, scene, Scene};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};

/// Scenes timed phase by phase: crowds of humanoids, piles of each shape family, robots.
const SCENES: &[&str] = &[
    "scenes/humanoid_crowd_100",
    "scenes/humanoid_crowd_22",
    "dm_control/humanoid",
    "dm_control/dog",
    "dm_control/quadruped",
    "dm_control/manipulator",
    "scenes/box_pile",
    "scenes/sphere_pile",
    "scenes/capsule_heap",
    "scenes/ellipsoid_pile_100",
    "scenes/mesh_pile_100",
    "scenes/hfield_png",
];

fn short(name: &str) -> &str {
    name.rsplit('/').next().unwrap_or(name)
}

fn bench_scene(c: &mut Criterion, s: &Scene) {
    let id = short(&s.name);
    let m = &s.model;
    let n = s.states.len();

    let mut out = Poses::new(m);
    let mut k = 0;
    c.benchmark_group("kinematics")
        .bench_function(BenchmarkId::from_parameter(id), |b| {
            b.iter(|| {
                k = (k + 1) % n;
                kinematics(m, &s.states[k], &mut out);
                out.geom_xpos.len()
            })
        });

    // broad phase alone; also keeps each state's body pairs for the mid phase
    let mut broad = BroadPhase::new(m);
    let pairs: Vec<Vec<u32>> = s
        .poses
        .iter()
        .map(|p| {
            broad.run(m, &p.view());
            broad.pairs().to_vec()
        })
        .collect();
    c.benchmark_group("broad")
        .bench_function(BenchmarkId::from_parameter(id), |b| {
            b.iter(|| {
                k = (k + 1) % n;
                broad.run(m, &s.poses[k].view());
                broad.pairs().len()
            })
        });

    let collider = Collider::new(m).expect("collider");
    let trees = collider.trees();
    let multi: Vec<Vec<(usize, usize)>> = pairs
        .iter()
        .map(|ps| {
            ps.iter()
                .map(|&sig| ((sig >> 16) as usize, (sig & 0xFFFF) as usize))
                .filter(|&(b1, b2)| {
                    // what the collider sends through the mid phase
                    let single = m.body_geomnum[b1] == 1 && m.body_geomnum[b2] == 1;
                    let trees_exist = !trees[b1].nodes.is_empty() && !trees[b2].nodes.is_empty();
                    !single && trees_exist
                })
                .collect()
        })
        .collect();
    if multi.iter().any(|v| !v.is_empty()) {
        let mut stack = Vec::new();
        c.benchmark_group("mid")
            .bench_function(BenchmarkId::from_parameter(id), |b| {
                b.iter(|| {
                    k = (k + 1) % n;
                    let p = &s.poses[k];
                    let mut leaves = 0usize;
                    for &(b1, b2) in &multi[k] {
                        let margin = m.body_margin[b1] + m.body_margin[b2];
                        let placed = PlacedTrees {
                            t1: &trees[b1],
                            p1: p.xipos[b1],
                            r1: &p.ximat[b1],
                            t2: &trees[b2],
                            p2: p.xipos[b2],
                            r2: &p.ximat[b2],
                            margin,
                        };
                        traverse(&placed, &mut stack, |_, _| leaves += 1);
                    }
                    leaves
                })
            });
    }

    let mut collider = Collider::new(m).expect("collider");
    let mut contacts = Vec::new();
    c.benchmark_group("scene")
        .bench_function(BenchmarkId::from_parameter(id), |b| {
            b.iter(|| {
                k = (k + 1) % n;
                collider.detect(&s.poses[k], &mut contacts).contacts
            })
        });
}

fn bench(c: &mut Criterion) {
    for name in SCENES {
        bench_scene(c, &scene(name));
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
