//! Differential test of `collide::distance` against MuJoCo 4.0.0's `mj_geomDistance` on random
//! (state, pair, distmax) cases over the corpus models, recorded by
//! `conformance/geom_distance.py` into `tests/data/distance/geom_distance.bin`.
//!
//! Tolerances (the issue's): 1e-9 on `dist` and `fromto` for pairs MuJoCo computes with an
//! analytic collider, 1e-6 for pairs that go through a convex solver (GJK/EPA, including
//! box–box, plane–convex and height fields) or involve a mesh (MuJoCo's mesh frames come from
//! `f32` vertices).

use std::path::PathBuf;

use collide::glam::{DQuat, DVec3};
use collide::narrow::{dispatch, Dispatch};
use collide::{forward_kinematics, DistanceError, GeomDistance, GeomType, Model, Poses};

struct Reader<'a> {
    b: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn take(&mut self, n: usize) -> &[u8] {
        let s = &self.b[self.at..self.at + n];
        self.at += n;
        s
    }
    fn u16(&mut self) -> usize {
        u16::from_le_bytes(self.take(2).try_into().unwrap()) as usize
    }
    fn u32(&mut self) -> usize {
        u32::from_le_bytes(self.take(4).try_into().unwrap()) as usize
    }
    fn f64(&mut self) -> f64 {
        f64::from_le_bytes(self.take(8).try_into().unwrap())
    }
}

/// A recorded case.
struct Case {
    state: usize,
    g1: usize,
    g2: usize,
    distmax: f64,
    dist: f64,
    fromto: [f64; 6],
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Does MuJoCo compute this pair through a convex solver (or with mesh data)?
fn convex_pair(m: &Model, g1: usize, g2: usize) -> bool {
    let (a, b) = (
        m.geom_type[g1].min(m.geom_type[g2]),
        m.geom_type[g1].max(m.geom_type[g2]),
    );
    a == GeomType::Mesh
        || b == GeomType::Mesh
        || b == GeomType::Sdf
        || (a == GeomType::Box && b == GeomType::Box)
        || !matches!(dispatch(a, b), Dispatch::Analytic(_) | Dispatch::Never)
}

/// What [`compare`] found on one fixture file.
struct Outcome {
    total: usize,
    failures: Vec<String>,
    ties: Vec<String>,
    no_hull: usize,
}

/// Every case of `tests/data/distance/{file}` against `collide::distance`.
fn compare(file: &str) -> Outcome {
    let bytes = std::fs::read(root().join("crates/collide/tests/data/distance").join(file))
        .expect("fixture");
    let mut r = Reader { b: &bytes, at: 0 };
    assert_eq!(r.take(4), b"CDST");
    assert_eq!(r.u32(), 1);
    let nmodel = r.u32();
    let (mut total, mut analytic, mut convex, mut capped, mut penetrating) = (0, 0, 0, 0, 0);
    let mut failures = Vec::new();
    let mut ties = Vec::new();
    let mut no_hull = 0;
    let mut worst = [0.0f64; 2];
    for _ in 0..nmodel {
        let n = r.u16();
        let path = String::from_utf8(r.take(n).to_vec()).unwrap();
        let nq = r.u32();
        let nstate = r.u32();
        let qpos: Vec<Vec<f64>> = (0..nstate)
            .map(|_| (0..nq).map(|_| r.f64()).collect())
            .collect();
        let ncase = r.u32();
        let cases: Vec<Case> = (0..ncase)
            .map(|_| {
                let (state, g1, g2, _) = (r.u16(), r.u16(), r.u16(), r.u16());
                let (distmax, dist) = (r.f64(), r.f64());
                let fromto = std::array::from_fn(|_| r.f64());
                Case {
                    state,
                    g1,
                    g2,
                    distmax,
                    dist,
                    fromto,
                }
            })
            .collect();
        let model = collide_mjcf::load_file(root().join("conformance").join(&path))
            .unwrap_or_else(|e| panic!("{path}: {e}"));
        let mut poses: Vec<Poses> = Vec::new();
        for q in &qpos {
            let mut p = Poses::new(&model);
            forward_kinematics(&model, q, None::<(&[DVec3], &[DQuat])>, &mut p).unwrap();
            poses.push(p);
        }
        let mut query = GeomDistance::new(&model);
        for c in &cases {
            let got = match query.distance(&poses[c.state].view(), c.g1, c.g2, c.distmax) {
                Ok(d) => d,
                Err(DistanceError::MeshWithoutHull { .. }) => {
                    no_hull += 1;
                    continue;
                }
                Err(e) => panic!("{path}: {e}"),
            };
            let cv = convex_pair(&model, c.g1, c.g2);
            let tol = if cv { 1e-6 } else { 1e-9 };
            let dist_err = (got.dist - c.dist).abs();
            let ft_err = (0..6)
                .map(|i| (got.fromto[i] - c.fromto[i]).abs())
                .fold(0.0, f64::max);
            let err = dist_err.max(ft_err);
            worst[cv as usize] = worst[cv as usize].max(dist_err);
            // the same distance with other witness points: a tie (parallel faces, symmetric
            // shapes) if our segment is as long as the distance
            let (p1, p2) = (
                DVec3::from_slice(&got.fromto[..3]),
                DVec3::from_slice(&got.fromto[3..]),
            );
            total += 1;
            if dist_err <= tol && ft_err > tol && ((p2 - p1).length() - got.dist.abs()).abs() <= tol
            {
                ties.push(format!(
                    "{path} state {} geoms {} {} ({:?}, {:?}): fromto {:?}, MuJoCo {:?}",
                    c.state,
                    c.g1,
                    c.g2,
                    model.geom_type[c.g1],
                    model.geom_type[c.g2],
                    got.fromto,
                    c.fromto
                ));
                continue;
            }
            if cv {
                convex += 1;
            } else {
                analytic += 1;
            }
            capped += (c.dist == c.distmax) as usize;
            penetrating += (c.dist < 0.0) as usize;
            if err > tol || err.is_nan() {
                failures.push(format!(
                    "{path} state {} geoms {} {} ({:?}, {:?}) distmax {}: got {} {:?}, MuJoCo {} {:?} (err {err:.3e})",
                    c.state, c.g1, c.g2, model.geom_type[c.g1], model.geom_type[c.g2], c.distmax,
                    got.dist, got.fromto, c.dist, c.fromto
                ));
            }
        }
    }
    eprintln!(
        "{total} cases compared ({analytic} analytic, {convex} convex; {capped} capped, {penetrating} \
         penetrating); worst dist error analytic {:.2e}, convex {:.2e}; {} failures",
        worst[0],
        worst[1],
        failures.len()
    );
    eprintln!(
        "{} witness ties (same distance, other closest points):\n{}",
        ties.len(),
        ties.join("\n")
    );
    eprintln!("{no_hull} cases on visual-only meshes (no collision hull) skipped");
    Outcome {
        total,
        failures,
        ties,
        no_hull,
    }
}

/// Asserts `o`: at least `min_total` cases, few ties, no failure.
fn assert_agrees(o: Outcome, min_total: usize) {
    let Outcome {
        total,
        failures,
        ties,
        no_hull,
    } = o;
    assert!(total >= min_total, "{total} cases compared");
    // ties are rare: closest points are unique for generic poses
    assert!(ties.len() * 100 <= total, "{} ties", ties.len());
    assert!(no_hull * 100 <= total, "{no_hull} cases without hull");
    assert!(
        failures.is_empty(),
        "{} of {total} cases differ:\n{}",
        failures.len(),
        failures[..failures.len().min(200)].join("\n")
    );
}

#[test]
fn geom_distance_matches_mujoco_on_10000_random_cases() {
    assert_agrees(compare("geom_distance.bin"), 10_000);
}

/// The corpus's sdf scenes (`geom_distance.py --sdf`): `mjc_SDF` pairs report penetrations
/// only (MuJoCo ignores the margin there), plane–sdf pairs go through the plugin mesh's hull.
#[test]
fn geom_distance_matches_mujoco_on_sdf_scenes() {
    assert_agrees(compare("geom_distance_sdf.bin"), 600);
}
