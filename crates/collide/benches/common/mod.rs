//! Shared by the benches: corpus scenes (models loaded with `collide_mjcf`, states from
//! `conformance/states/*.json`) and their precomputed poses.

#![allow(dead_code)]

use std::path::PathBuf;

use collide::glam::{DQuat, DVec3};
use collide::{forward_kinematics, Model, Poses};

/// The `conformance/` folder of the repository.
pub fn conformance_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../conformance")
}

/// One state of a corpus model: `qpos` and, for models with mocap bodies, the mocap poses.
pub struct State {
    pub qpos: Vec<f64>,
    pub mocap: Option<(Vec<DVec3>, Vec<DQuat>)>,
}

/// A corpus model with its recorded states and their poses.
pub struct Scene {
    pub name: String,
    pub model: Model,
    pub states: Vec<State>,
    pub poses: Vec<Poses>,
}

fn floats(v: &serde_json::Value) -> Vec<f64> {
    v.as_array()
        .map(|a| a.iter().filter_map(|x| x.as_f64()).collect())
        .unwrap_or_default()
}

/// Loads corpus model `name` (e.g. `scenes/box_pile`, as in `conformance/corpus.json`) and
/// its states; panics with a readable message if the files are missing (benches only).
pub fn scene(name: &str) -> Scene {
    let dir = conformance_dir();
    let corpus: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("corpus.json")).expect("conformance/corpus.json"),
    )
    .expect("corpus.json is JSON");
    let entry = corpus["models"]
        .as_array()
        .and_then(|a| a.iter().find(|e| e["name"] == name))
        .unwrap_or_else(|| panic!("{name} not in corpus.json"));
    let path = dir.join(entry["path"].as_str().expect("path"));
    let model = collide_mjcf::load_file(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
    let spath = dir
        .join("states")
        .join(format!("{}.json", name.replace('/', "__")));
    let sjson: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&spath).expect("states file"))
            .expect("states JSON");
    let states: Vec<State> = sjson["states"]
        .as_array()
        .expect("states array")
        .iter()
        .map(|s| {
            let qpos = floats(&s["qpos"]);
            let mocap = s.get("mocap_pos").map(|mp| {
                let p = floats(mp);
                let q = floats(&s["mocap_quat"]);
                (
                    p.chunks_exact(3)
                        .map(|c| DVec3::new(c[0], c[1], c[2]))
                        .collect(),
                    q.chunks_exact(4)
                        .map(|c| DQuat::from_xyzw(c[1], c[2], c[3], c[0]))
                        .collect(),
                )
            });
            State { qpos, mocap }
        })
        .collect();
    let poses = states
        .iter()
        .map(|s| {
            let mut p = Poses::new(&model);
            kinematics(&model, s, &mut p);
            p
        })
        .collect();
    Scene {
        name: name.to_string(),
        model,
        states,
        poses,
    }
}

/// Forward kinematics of state `s` into `out`.
pub fn kinematics(model: &Model, s: &State, out: &mut Poses) {
    let mocap = s.mocap.as_ref().map(|(p, q)| (p.as_slice(), q.as_slice()));
    forward_kinematics(model, &s.qpos, mocap, out).expect("state matches the model");
}

/// Deterministic xorshift generator, uniform in [0, 1).
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}
