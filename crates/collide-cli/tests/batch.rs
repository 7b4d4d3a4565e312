//! Batched worlds: the same contacts as one world at a time, bit-identical for 1 and 2 threads.

use std::path::PathBuf;

use collide::{BatchCollider, BatchPoses, Collider, Contact, Poses};
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
    // (its touching cache); batch workers must not, so every world is a fresh collider's
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
