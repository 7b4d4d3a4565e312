//! Batched worlds: the same contacts as one world at a time, bit-identical for 1 and 2 threads.

use std::path::PathBuf;

use collide::{BatchCollider, BatchPoses, Collider, Contact, Poses, Stats};
use collide_cli::states::parse_states;

/// Corpus scene `scenes/{name}` and the `qpos` of its recorded states.
fn scene(name: &str) -> (collide::Model, Vec<Vec<f64>>) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../conformance");
    let model =
        collide_mjcf::load_file(dir.join(format!("corpus/scenes/{name}.xml"))).expect("loads");
    let text =
        std::fs::read_to_string(dir.join(format!("states/scenes__{name}.json"))).expect("states");
    let states = parse_states(&text)
        .expect("parses")
        .into_iter()
        .map(|s| s.qpos)
        .collect();
    (model, states)
}

fn run_batch(
    model: &collide::Model,
    qpos: &[f64],
    nworld: usize,
    threads: usize,
) -> Vec<Vec<Contact>> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("pool");
    pool.install(|| {
        let mut poses = BatchPoses::new(model, nworld);
        poses.compute(model, qpos).expect("kinematics");
        let mut batch = BatchCollider::new(model).expect("collider");
        let mut out = vec![Vec::new(); nworld];
        batch.detect(&poses, &mut out);
        out
    })
}

fn bits(c: &[Contact]) -> Vec<(usize, usize, u64, [u64; 3])> {
    c.iter()
        .map(|c| {
            (
                c.geom[0],
                c.geom[1],
                c.dist.to_bits(),
                c.pos.to_array().map(f64::to_bits),
            )
        })
        .collect()
}

/// The contacts of `nworld` worlds cycling through `states`, batched on 1 thread, after
/// asserting that 2 threads give the same bits.
fn batch_on_one_and_two_threads(
    model: &collide::Model,
    states: &[Vec<f64>],
    nworld: usize,
) -> Vec<Vec<Contact>> {
    let qpos: Vec<f64> = (0..nworld)
        .flat_map(|w| states[w % states.len()].clone())
        .collect();
    let one = run_batch(model, &qpos, nworld, 1);
    let two = run_batch(model, &qpos, nworld, 2);
    for w in 0..nworld {
        assert_eq!(
            bits(&one[w]),
            bits(&two[w]),
            "world {w} differs between 1 and 2 threads"
        );
    }
    one
}

#[test]
fn batched_worlds_are_deterministic_and_equal_single_world_detection() {
    let (model, states) = scene("humanoid_crowd_22");
    let nworld = 37;
    let one = batch_on_one_and_two_threads(&model, &states, nworld);
    // and equal to the one-world path
    let mut collider = Collider::new(&model).expect("collider");
    let mut poses = Poses::new(&model);
    let mut out = Vec::new();
    for w in 0..nworld {
        collide::forward_kinematics(&model, &states[w % states.len()], None, &mut poses)
            .expect("kinematics");
        collider.detect(&poses, &mut out);
        assert_eq!(bits(&out), bits(&one[w]), "world {w}");
        assert!(!out.is_empty());
    }
}

#[test]
fn batch_rejects_a_short_qpos_buffer() {
    let (model, states) = scene("humanoid_crowd_22");
    let mut poses = BatchPoses::new(&model, 3);
    assert!(poses.compute(&model, &states[0]).is_err());
}

#[test]
fn batched_mesh_worlds_do_not_depend_on_the_split_between_workers() {
    // a resting mesh pile: a collider carried from one world to the next would warm-start EPA
    // (its touching cache) from another world; each world has its own cache, so at a first
    // call every world is a fresh collider's
    let (model, states) = scene("mesh_pile_steady");
    let nworld = 9;
    let one = batch_on_one_and_two_threads(&model, &states, nworld);
    let mut poses = Poses::new(&model);
    let mut out = Vec::new();
    for w in 0..nworld {
        collide::forward_kinematics(&model, &states[w % states.len()], None, &mut poses)
            .expect("kinematics");
        Collider::new(&model)
            .expect("collider")
            .detect(&poses, &mut out);
        assert!(!out.is_empty());
        assert_eq!(bits(&out), bits(&one[w]), "world {w}");
    }
}

/// `nworld` worlds of a resting mesh pile over `ncall` calls, world `w` at call `t` in state
/// `(w + t) % len` (the states are consecutive moments of the pile, so each world moves a
/// little between calls; the wrap-around is a jump): the contacts of every call and the stats.
fn batch_over_calls(
    model: &collide::Model,
    states: &[Vec<f64>],
    nworld: usize,
    ncall: usize,
    threads: usize,
    reset_at: Option<usize>,
) -> (Vec<Vec<Vec<Contact>>>, Vec<Stats>) {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("pool");
    pool.install(|| {
        let mut batch = BatchCollider::new(model).expect("collider");
        let mut poses = BatchPoses::new(model, nworld);
        let (mut calls, mut stats) = (Vec::new(), Vec::new());
        for t in 0..ncall {
            if reset_at == Some(t) {
                batch.reset();
            }
            let qpos: Vec<f64> = (0..nworld)
                .flat_map(|w| states[(w + t) % states.len()].clone())
                .collect();
            poses.compute(model, &qpos).expect("kinematics");
            let mut out = vec![Vec::new(); nworld];
            stats.push(batch.detect(&poses, &mut out));
            calls.push(out);
        }
        (calls, stats)
    })
}

#[test]
fn batched_worlds_continue_their_own_history_as_one_collider_per_world_would() {
    let (model, states) = scene("mesh_pile_steady");
    let (nworld, ncall) = (5, 7);
    let (one, stats) = batch_over_calls(&model, &states, nworld, ncall, 1, None);
    let (two, _) = batch_over_calls(&model, &states, nworld, ncall, 2, None);
    // one collider per world, fed that world's states in order (five worlds fit the batch's
    // memory budget with tables of a collider's own size)
    let mut colliders: Vec<Collider> = (0..nworld)
        .map(|_| Collider::new(&model).expect("collider"))
        .collect();
    let mut poses = Poses::new(&model);
    let mut out = Vec::new();
    for t in 0..ncall {
        for (w, collider) in colliders.iter_mut().enumerate() {
            let q = &states[(w + t) % states.len()];
            collide::forward_kinematics(&model, q, None, &mut poses).expect("kinematics");
            collider.detect(&poses, &mut out);
            assert!(!out.is_empty());
            assert_eq!(bits(&out), bits(&one[t][w]), "call {t} world {w}, 1 thread");
            assert_eq!(
                bits(&out),
                bits(&two[t][w]),
                "call {t} world {w}, 2 threads"
            );
        }
    }
    // the worlds' caches were used: nothing at the first call, then warm starts and proofs
    assert_eq!(stats[0].warm_starts, 0);
    let later: usize = stats[1..].iter().map(|s| s.warm_starts).sum();
    let proofs: usize = stats[1..].iter().map(|s| s.surface_proofs).sum();
    let skips: usize = stats[1..].iter().map(|s| s.separation_skips).sum();
    assert!(later > 10 * (ncall - 1), "warm starts {later}");
    assert!(
        proofs > 0 && skips > 0,
        "proofs {proofs}, separation skips {skips}"
    );
}

#[test]
fn worlds_beyond_the_memory_budget_get_smaller_tables_and_stay_deterministic() {
    // enough worlds that a world's tables must shrink below a collider's own to fit the budget
    let (model, states) = scene("mesh_pile_steady");
    let probe = Collider::new(&model).expect("collider");
    let full = probe.world_cache_bytes(collide::batch::WORLD_SLOTS_PER_GEOM);
    for per in [32, 16, 1, 0] {
        assert_eq!(probe.world_cache_bytes(per), probe.world_cache(per).bytes());
    }
    let nworld = collide::batch::WORLD_CACHE_BUDGET / full + 1;
    let (one, stats) = batch_over_calls(&model, &states, nworld, 2, 1, None);
    let (two, _) = batch_over_calls(&model, &states, nworld, 2, 2, None);
    for t in 0..2 {
        for w in 0..nworld {
            assert_eq!(bits(&one[t][w]), bits(&two[t][w]), "call {t} world {w}");
        }
    }
    assert!(stats[1].warm_starts > 0);
    let mut batch = BatchCollider::new(&model).expect("collider");
    let mut poses = BatchPoses::new(&model, nworld);
    let qpos: Vec<f64> = (0..nworld)
        .flat_map(|w| states[w % states.len()].clone())
        .collect();
    poses.compute(&model, &qpos).expect("kinematics");
    batch.detect(&poses, &mut vec![Vec::new(); nworld]);
    let bytes = batch.cache_bytes();
    assert!(bytes <= collide::batch::WORLD_CACHE_BUDGET, "{bytes}");
    assert!(bytes > collide::batch::WORLD_CACHE_BUDGET / 4, "{bytes}");
}

#[test]
fn batch_reset_forgets_every_worlds_history() {
    let (model, states) = scene("mesh_pile_steady");
    let (nworld, ncall) = (3, 4);
    let (calls, stats) = batch_over_calls(&model, &states, nworld, ncall, 2, Some(2));
    assert!(stats[1].warm_starts > 0);
    // after the reset, each world is detected as a fresh collider would
    assert_eq!(stats[2].warm_starts, 0);
    assert_eq!(stats[2].separation_skips, 0);
    let mut poses = Poses::new(&model);
    let mut out = Vec::new();
    for w in 0..nworld {
        let q = &states[(w + 2) % states.len()];
        collide::forward_kinematics(&model, q, None, &mut poses).expect("kinematics");
        Collider::new(&model)
            .expect("collider")
            .detect(&poses, &mut out);
        assert_eq!(bits(&out), bits(&calls[2][w]), "world {w}");
    }
    assert!(stats[3].warm_starts > 0);
}

#[test]
fn world_caches_hold_no_table_where_no_pair_reaches_the_convex_solver() {
    // capsules, spheres and a plane (all analytic) and boxes alone (box-box is analytic): the
    // worlds keep nothing; meshes and ellipsoids do
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../conformance");
    let humanoid =
        collide_mjcf::load_file(dir.join("corpus/dm_control/suite/humanoid.xml")).expect("loads");
    for (name, model, expect_tables) in [
        ("humanoid", humanoid, false),
        ("box_pile", scene("box_pile").0, false),
        ("ellipsoid_pile_100", scene("ellipsoid_pile_100").0, true),
        ("mesh_pile_steady", scene("mesh_pile_steady").0, true),
    ] {
        let nworld = 3;
        let qpos: Vec<f64> = (0..nworld).flat_map(|_| model.qpos0.clone()).collect();
        let mut poses = BatchPoses::new(&model, nworld);
        poses.compute(&model, &qpos).expect("kinematics");
        let mut batch = BatchCollider::with_workers(&model, 2).expect("collider");
        batch.detect(&poses, &mut vec![Vec::new(); nworld]);
        assert_eq!(batch.cache_bytes() > 0, expect_tables, "{name}");
        // the worlds' tables and nothing else: the workers keep none of their own
        let per_world = Collider::new(&model)
            .expect("collider")
            .world_cache_bytes(collide::batch::WORLD_SLOTS_PER_GEOM);
        assert_eq!(batch.cache_bytes(), nworld * per_world, "{name}");
    }
}

#[test]
fn a_collider_without_its_caches_detects_every_call_afresh() {
    let (model, states) = scene("mesh_pile_steady");
    let mut kept = Collider::new(&model).expect("collider");
    let mut released = Collider::new(&model).expect("collider");
    assert!(kept.cache_bytes() > 0);
    released.release_caches();
    assert_eq!(released.cache_bytes(), 0);
    let (mut poses, mut out, mut fresh) = (Poses::new(&model), Vec::new(), Vec::new());
    let mut warm = 0;
    for q in states.iter().chain(&states) {
        collide::forward_kinematics(&model, q, None, &mut poses).expect("kinematics");
        warm += kept.detect(&poses, &mut out).warm_starts;
        let stats = released.detect(&poses, &mut out);
        assert_eq!((stats.warm_starts, stats.separation_skips), (0, 0));
        Collider::new(&model)
            .expect("collider")
            .detect(&poses, &mut fresh);
        assert_eq!(bits(&out), bits(&fresh));
    }
    assert!(
        warm > 0,
        "the scene never warm-starts: the test shows nothing"
    );
}

#[test]
fn a_world_cache_of_another_model_is_ignored() {
    // two caches take the bin through its states; one is then handed to the pile's collider.
    // The pile's calls are plain detections (the bin's cached support values must not prove
    // pile pairs apart), and the cache comes back as it was: its next bin call warm-starts as
    // the other cache's does
    let (bin, bin_states) = scene("mesh_bin");
    let (pile, pile_states) = scene("mesh_pile_steady");
    let mut bin_collider = Collider::new(&bin).expect("collider");
    let per = collide::batch::WORLD_SLOTS_PER_GEOM;
    let (mut lent, mut kept) = (bin_collider.world_cache(per), bin_collider.world_cache(per));
    let mut poses = Poses::new(&bin);
    let mut out = Vec::new();
    for q in &bin_states {
        collide::forward_kinematics(&bin, q, None, &mut poses).expect("kinematics");
        bin_collider.detect_view_in(&poses.view(), &mut out, &mut lent);
        bin_collider.detect_view_in(&poses.view(), &mut out, &mut kept);
    }
    let mut pile_collider = Collider::new(&pile).expect("collider");
    let mut fresh = Collider::new(&pile).expect("collider");
    let mut pile_poses = Poses::new(&pile);
    let mut expected = Vec::new();
    for q in &pile_states {
        collide::forward_kinematics(&pile, q, None, &mut pile_poses).expect("kinematics");
        pile_collider.detect_view_in(&pile_poses.view(), &mut out, &mut lent);
        fresh.detect(&pile_poses, &mut expected);
        assert_eq!(bits(&out), bits(&expected));
    }
    collide::forward_kinematics(&bin, &bin_states[0], None, &mut poses).expect("kinematics");
    let a = bin_collider.detect_view_in(&poses.view(), &mut out, &mut lent);
    let b = bin_collider.detect_view_in(&poses.view(), &mut expected, &mut kept);
    assert!(b.warm_starts > 0);
    assert_eq!(a, b);
    assert_eq!(bits(&out), bits(&expected));
}
