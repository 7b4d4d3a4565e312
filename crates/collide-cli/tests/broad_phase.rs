//! The broad phase never loses a pair: on random scenes of 1 to 10,000 bodies its candidate
//! body pairs contain every pair of bodies whose geoms are within their margins, found by
//! brute force over all pairs.

use std::collections::HashSet;

use collide::broad::BroadPhase;
use collide::filter::{bodies_can_collide, body_pair_allowed, signature};
use collide::{forward_kinematics, Poses};

/// Deterministic xorshift generator in [0, 1).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// A scene of free bodies, each with one to three spheres, in a box of side `extent`.
fn scene(nbody: usize, extent: f64, seed: u64) -> String {
    let mut r = Rng(seed);
    let mut xml = String::from("<mujoco><worldbody>");
    xml.push_str("<geom type=\"sphere\" size=\"0.5\" pos=\"0 0 -1\"/>");
    for b in 0..nbody {
        let (x, y, z) = (r.next() * extent, r.next() * extent, r.next() * extent);
        xml.push_str(&format!(
            "<body name=\"b{b}\" pos=\"{x} {y} {z}\"><freejoint/>"
        ));
        let ngeom = 1 + (r.next() * 3.0) as usize;
        for _ in 0..ngeom {
            let (dx, dy, dz) = (r.next() - 0.5, r.next() - 0.5, r.next() - 0.5);
            let radius = 0.05 + 0.3 * r.next();
            let margin = if r.next() < 0.3 { 0.1 * r.next() } else { 0.0 };
            xml.push_str(&format!(
                "<geom type=\"sphere\" size=\"{radius}\" pos=\"{dx} {dy} {dz}\" margin=\"{margin}\"/>"
            ));
        }
        xml.push_str("</body>");
    }
    xml.push_str("</worldbody></mujoco>");
    xml
}

fn check(nbody: usize, extent: f64, seed: u64) -> (usize, usize) {
    let model = collide_mjcf::load_str(&scene(nbody, extent, seed), ".").expect("scene compiles");
    let mut poses = Poses::new(&model);
    forward_kinematics(&model, &model.qpos0, None, &mut poses).expect("kinematics");
    let mut broad = BroadPhase::new(&model);
    broad.run(&model, &poses.view());
    let found: HashSet<u32> = broad.pairs().iter().copied().collect();
    assert_eq!(found.len(), broad.pairs().len(), "pairs are unique");
    assert!(
        broad.pairs().windows(2).all(|w| w[0] < w[1]),
        "pairs are sorted"
    );

    // brute force: every body pair with two spheres within their summed margins
    let mut expected = 0;
    for b1 in 0..model.nbody() {
        for b2 in b1 + 1..model.nbody() {
            if !body_pair_allowed(&model, b1, b2) || !bodies_can_collide(&model, b1, b2) {
                continue;
            }
            let g1s = model.body_geomadr[b1]..model.body_geomadr[b1] + model.body_geomnum[b1];
            let touching = g1s.into_iter().any(|g1| {
                (model.body_geomadr[b2]..model.body_geomadr[b2] + model.body_geomnum[b2]).any(
                    |g2| {
                        let d = (poses.geom_xpos[g1] - poses.geom_xpos[g2]).length();
                        d <= model.geom_size[g1].x
                            + model.geom_size[g2].x
                            + model.geom_margin[g1]
                            + model.geom_margin[g2]
                    },
                )
            });
            if touching {
                expected += 1;
                assert!(
                    found.contains(&signature(b1, b2)),
                    "broad phase lost bodies {b1} and {b2} (n = {nbody})"
                );
            }
        }
    }
    (expected, found.len())
}

#[test]
fn broad_phase_contains_every_touching_pair() {
    for (n, extent, seed) in [
        (1, 1.0, 1),
        (2, 0.5, 2),
        (10, 2.0, 3),
        (100, 5.0, 4),
        (1000, 15.0, 5),
        (10_000, 40.0, 6),
    ] {
        let (expected, found) = check(n, extent, seed);
        assert!(found >= expected);
        if n >= 100 {
            assert!(
                expected > 0,
                "scene of {n} bodies has no touching pair: test is vacuous"
            );
            // the broad phase prunes: far fewer candidates than all pairs
            assert!(
                found < n * (n - 1) / 20,
                "{found} candidates for {n} bodies"
            );
        }
    }
}

#[test]
fn broad_phase_superset_on_many_random_scenes() {
    for seed in 10..60 {
        let n = 2 + (seed as usize * 37) % 300;
        check(n, 1.0 + (seed % 7) as f64, seed);
    }
}
