//! `collide::distance`: hand-worked distances, properties (swap symmetry, rigid-motion
//! invariance), the closest-pair query, the collision checker against the full collider on
//! the corpus, and batch determinism.

use std::path::PathBuf;

use collide::distance::{body_geoms, PairFilter};
use collide::glam::{DQuat, DVec3};
use collide::{
    distance, distance_batch, forward_kinematics, in_collision_batch, Collider, CollisionChecker,
    DistanceError, GeomDistance, Model, Poses,
};
use proptest::prelude::*;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn poses_at(m: &Model, q: &[f64]) -> Poses {
    let mut p = Poses::new(m);
    forward_kinematics(m, q, None::<(&[DVec3], &[DQuat])>, &mut p).unwrap();
    p
}

/// Two free bodies with one geom each, at the origin.
fn two_geoms(g1: &str, g2: &str) -> Model {
    let xml = format!(
        "<mujoco><worldbody><body><freejoint/>{g1}</body><body><freejoint/>{g2}</body>\
         </worldbody></mujoco>"
    );
    collide_mjcf::load_str(&xml, ".").unwrap()
}

fn qpos2(p1: DVec3, q1: DQuat, p2: DVec3, q2: DQuat) -> Vec<f64> {
    vec![
        p1.x, p1.y, p1.z, q1.w, q1.x, q1.y, q1.z, p2.x, p2.y, p2.z, q2.w, q2.x, q2.y, q2.z,
    ]
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol
}

#[test]
fn sphere_box_distance_is_the_gap_between_surfaces() {
    // sphere r=0.2 at the origin, box half-size 0.2 at x=1: gap 1 - 0.2 - 0.2 = 0.6
    let m = two_geoms(
        r#"<geom type="sphere" size=".2"/>"#,
        r#"<geom type="box" size=".2 .3 .1"/>"#,
    );
    let p = poses_at(
        &m,
        &qpos2(DVec3::ZERO, DQuat::IDENTITY, DVec3::X, DQuat::IDENTITY),
    );
    let d = distance(&m, &p.view(), 0, 1, 10.0).unwrap();
    assert!(close(d.dist, 0.6, 1e-12), "{d:?}");
    let want = [0.2, 0.0, 0.0, 0.8, 0.0, 0.0];
    assert!(
        d.fromto.iter().zip(want).all(|(a, b)| close(*a, b, 1e-12)),
        "{d:?}"
    );
    // capped: distmax below the distance gives distmax and a zero segment
    let c = distance(&m, &p.view(), 0, 1, 0.5).unwrap();
    assert_eq!((c.dist, c.fromto), (0.5, [0.0; 6]));
}

#[test]
fn overlapping_boxes_report_the_penetration_depth() {
    // unit half-size boxes 1.9 apart along z overlap by 0.1 (EPA through the convex solver)
    let m = two_geoms(
        r#"<geom type="box" size="1 1 1"/>"#,
        r#"<geom type="box" size="1 1 1"/>"#,
    );
    let p = poses_at(
        &m,
        &qpos2(
            DVec3::ZERO,
            DQuat::IDENTITY,
            DVec3::new(0.3, 0.2, 1.9),
            DQuat::IDENTITY,
        ),
    );
    let d = distance(&m, &p.view(), 0, 1, 1.0).unwrap();
    assert!(close(d.dist, -0.1, 1e-9), "{d:?}");
    assert!(
        close(d.fromto[2], 1.0, 1e-9) && close(d.fromto[5], 0.9, 1e-9),
        "{d:?}"
    );
}

#[test]
fn capsule_capsule_crossing_distance() {
    // capsules along z (half-length .5, r .1) at the origin and along x at y = 1: gap 0.8
    let m = two_geoms(
        r#"<geom type="capsule" size=".1 .5"/>"#,
        r#"<geom type="capsule" size=".1 .5"/>"#,
    );
    let q = DQuat::from_rotation_y(std::f64::consts::FRAC_PI_2);
    let p = poses_at(&m, &qpos2(DVec3::ZERO, DQuat::IDENTITY, DVec3::Y, q));
    let d = distance(&m, &p.view(), 0, 1, 5.0).unwrap();
    assert!(close(d.dist, 0.8, 1e-12), "{d:?}");
}

#[test]
fn planes_never_have_a_distance_and_bad_inputs_are_errors() {
    let m = collide_mjcf::load_str(
        r#"<mujoco><worldbody><geom type="plane" size="1 1 1"/>
           <geom type="plane" size="1 1 1" pos="0 0 1" euler="0.2 0 0"/>
           <geom type="sphere" size=".1" pos="0 0 .5"/></worldbody></mujoco>"#,
        ".",
    )
    .unwrap();
    let p = poses_at(&m, &[]);
    let d = distance(&m, &p.view(), 0, 1, 3.0).unwrap();
    assert_eq!((d.dist, d.fromto), (3.0, [0.0; 6]));
    // plane–sphere runs the analytic collider with margin = distmax
    let s = distance(&m, &p.view(), 2, 0, 3.0).unwrap();
    assert!(
        close(s.dist, 0.4, 1e-12) && close(s.fromto[2], 0.4, 1e-12),
        "{s:?}"
    );
    assert_eq!(
        distance(&m, &p.view(), 0, 7, 1.0),
        Err(DistanceError::GeomIndex { index: 7, ngeom: 3 })
    );
    assert!(matches!(
        distance(&m, &p.view(), 0, 2, f64::NAN),
        Err(DistanceError::DistMax(_))
    ));
    let mut c = CollisionChecker::new(&m);
    assert!(matches!(
        c.in_collision(&[1.0]),
        Err(DistanceError::Kinematics { .. })
    ));
}

const SHAPES: [&str; 6] = [
    r#"<geom type="sphere" size=".15"/>"#,
    r#"<geom type="capsule" size=".1 .2"/>"#,
    r#"<geom type="ellipsoid" size=".1 .2 .15"/>"#,
    r#"<geom type="cylinder" size=".12 .18"/>"#,
    r#"<geom type="box" size=".1 .15 .2"/>"#,
    r#"<geom type="mesh" mesh="m"/>"#,
];

fn shape_model(i: usize, j: usize) -> Model {
    let xml = format!(
        "<mujoco><asset><mesh name=\"m\" vertex=\"-.1 -.1 -.1  .15 -.1 -.1  -.1 .2 -.1  -.1 -.1 .12  \
         .1 .1 .1  .12 -.05 .1\"/></asset><worldbody><body><freejoint/>{}</body>\
         <body><freejoint/>{}</body></worldbody></mujoco>",
        SHAPES[i], SHAPES[j]
    );
    collide_mjcf::load_str(&xml, ".").unwrap()
}

fn unit_quat(v: [f64; 4]) -> DQuat {
    let q = DQuat::from_xyzw(v[1], v[2], v[3], v[0]);
    if q.length() < 1e-3 {
        DQuat::IDENTITY
    } else {
        q.normalize()
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Swapping the geoms gives the same distance and the reversed segment; moving both geoms
    /// by one rigid motion moves the segment and keeps the distance.
    #[test]
    fn distance_is_symmetric_and_invariant_under_rigid_motion(
        i in 0usize..6, j in 0usize..6,
        p2 in prop::array::uniform3(-0.6f64..0.6),
        q1 in prop::array::uniform4(-1f64..1.0), q2 in prop::array::uniform4(-1f64..1.0),
        t in prop::array::uniform3(-2f64..2.0), r in prop::array::uniform4(-1f64..1.0),
    ) {
        let m = shape_model(i, j);
        let (q1, q2, r) = (unit_quat(q1), unit_quat(q2), unit_quat(r));
        let p2 = DVec3::from(p2);
        let a = poses_at(&m, &qpos2(DVec3::ZERO, q1, p2, q2));
        let d12 = distance(&m, &a.view(), 0, 1, 10.0).unwrap();
        let d21 = distance(&m, &a.view(), 1, 0, 10.0).unwrap();
        prop_assert!(close(d12.dist, d21.dist, 1e-9), "{d12:?} {d21:?}");
        // the segment's length is the distance
        let (f, t2) = (DVec3::from_slice(&d12.fromto[..3]), DVec3::from_slice(&d12.fromto[3..]));
        prop_assert!(close((t2 - f).length(), d12.dist.abs(), 1e-6), "{d12:?}");
        let t = DVec3::from(t);
        let b = poses_at(&m, &qpos2(t, r * q1, t + r * p2, r * q2));
        let moved = distance(&m, &b.view(), 0, 1, 10.0).unwrap();
        prop_assert!(close(moved.dist, d12.dist, 1e-6), "{moved:?} {d12:?}");
        if d12.dist > 1e-3 {
            // separated: the closest points are unique for strictly convex pairs; check the
            // moved segment's length (ties on flat faces may pick other points)
            let (f2, t3) = (DVec3::from_slice(&moved.fromto[..3]), DVec3::from_slice(&moved.fromto[3..]));
            prop_assert!(close((t3 - f2).length(), moved.dist, 1e-6));
        }
    }
}

fn arm() -> Model {
    collide_mjcf::load_file(root().join("conformance/corpus/scenes/arm_table_clutter.xml")).unwrap()
}

/// Deterministic configurations of the arm: joints uniform in their ranges.
fn arm_states(m: &Model, n: usize) -> Vec<f64> {
    let ranges = [
        (-2.8, 2.8),
        (-1.76, 1.76),
        (-2.8, 2.8),
        (-3.07, -0.07),
        (-2.8, 2.8),
        (-0.02, 3.75),
        (-2.8, 2.8),
    ];
    assert_eq!(m.nq(), 7);
    let mut s = 0x2545_f491_4f6c_dd1du64;
    let mut out = Vec::with_capacity(n * 7);
    for _ in 0..n {
        for &(lo, hi) in &ranges {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            out.push(lo + (hi - lo) * (s >> 11) as f64 / (1u64 << 53) as f64);
        }
    }
    out
}

#[test]
fn collision_checker_agrees_with_the_collider_on_every_corpus_state() {
    let corpus: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("conformance/corpus.json")).unwrap(),
    )
    .unwrap();
    let mut checked = 0;
    let mut colliding = 0;
    for entry in corpus["models"].as_array().unwrap() {
        let path = root()
            .join("conformance")
            .join(entry["path"].as_str().unwrap());
        let m = collide_mjcf::load_file(&path).unwrap();
        let fixture = entry["fixture"]
            .as_str()
            .unwrap()
            .replace("fixtures/", "states/");
        let states: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(root().join("conformance").join(fixture)).unwrap(),
        )
        .unwrap();
        let mut collider = Collider::new(&m).unwrap();
        let mut checker = CollisionChecker::new(&m);
        let mut contacts = Vec::new();
        for s in states["states"].as_array().unwrap() {
            if s.get("mocap_pos").is_some() {
                continue;
            }
            let q: Vec<f64> = s["qpos"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_f64().unwrap())
                .collect();
            collider.detect(&poses_at(&m, &q), &mut contacts);
            let hit = checker.in_collision(&q).unwrap();
            assert_eq!(hit, !contacts.is_empty(), "{}", path.display());
            checked += 1;
            colliding += hit as usize;
        }
    }
    // the arm over the table: 2,000 random configurations
    let m = arm();
    let q = arm_states(&m, 2000);
    let mut collider = Collider::new(&m).unwrap();
    let mut checker = CollisionChecker::new(&m);
    let mut contacts = Vec::new();
    let mut arm_hits = 0;
    for row in q.chunks(7) {
        collider.detect(&poses_at(&m, row), &mut contacts);
        let hit = checker.in_collision(row).unwrap();
        assert_eq!(hit, !contacts.is_empty(), "arm at {row:?}");
        arm_hits += hit as usize;
    }
    eprintln!("{checked} corpus states ({colliding} colliding); arm: {arm_hits} of 2000 colliding");
    assert!(checked > 300 && colliding > 100);
    assert!(arm_hits > 100 && arm_hits < 1900);
}

#[test]
fn batches_are_deterministic_for_any_thread_count() {
    let m = arm();
    let q = arm_states(&m, 500);
    let pairs: Vec<[usize; 2]> = (17..27)
        .flat_map(|a| (1..16).map(move |b| [a, b]))
        .collect();
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let mut flags = vec![false; 500];
            in_collision_batch(&m, &q, &mut flags).unwrap();
            let mut d = vec![0.0; 500 * pairs.len()];
            let mut f = vec![0.0; 500 * pairs.len() * 6];
            distance_batch(&m, &q, &pairs, 0.3, &mut d, &mut f).unwrap();
            (flags, d, f)
        })
    };
    let one = run(1);
    assert_eq!(one, run(3));
    // and equal to the one-at-a-time answers
    let mut checker = CollisionChecker::new(&m);
    let mut query = GeomDistance::new(&m);
    for (s, row) in q.chunks(7).enumerate() {
        assert_eq!(one.0[s], checker.in_collision(row).unwrap());
        let p = poses_at(&m, row);
        for (k, pr) in pairs.iter().enumerate() {
            let d = query.distance(&p.view(), pr[0], pr[1], 0.3).unwrap();
            assert_eq!(one.1[s * pairs.len() + k].to_bits(), d.dist.to_bits());
        }
    }
    // a bad row is named
    let mut bad = q.clone();
    bad[7 * 42 + 3] = f64::NAN;
    let mut flags = vec![false; 500];
    assert!(matches!(
        in_collision_batch(&m, &bad, &mut flags),
        Err(DistanceError::Kinematics { state: 42, .. })
    ));
}

#[test]
fn closest_pairs_between_arm_and_table_match_pairwise_distances() {
    let m = arm();
    let q = arm_states(&m, 40);
    let robot = body_geoms(&m, &(3..11).collect::<Vec<_>>()).unwrap();
    let table = body_geoms(&m, &[1]).unwrap();
    let mut query = GeomDistance::new(&m);
    let mut out = Vec::new();
    let mut found = 0;
    for row in q.chunks(7) {
        let p = poses_at(&m, row);
        let best = query
            .closest_pairs(
                &p.view(),
                &robot,
                &table,
                0.25,
                PairFilter::AllPairs,
                &mut out,
            )
            .unwrap();
        let mut want = Vec::new();
        for &a in &robot {
            for &b in &table {
                let d = query.distance(&p.view(), a, b, 0.25).unwrap();
                if d.dist < 0.25 {
                    want.push((a, b, d.dist));
                }
            }
        }
        let got: Vec<_> = out
            .iter()
            .map(|x| (x.geom1, x.geom2, x.distance.dist))
            .collect();
        assert_eq!(got, want);
        let min = want.iter().map(|w| w.2).fold(f64::INFINITY, f64::min);
        assert_eq!(
            best.map(|i| out[i].distance.dist),
            want.first().map(|_| min)
        );
        found += want.len();
    }
    assert!(found > 20, "{found}");
}
