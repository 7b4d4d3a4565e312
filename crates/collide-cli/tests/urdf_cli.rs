//! `collide info|poses|contacts|bench ROBOT.urdf` end to end, against MuJoCo 4.0.0's fixtures,
//! and `--package NAME=DIR`.

use crate::common;

use common::*;
use std::path::{Path, PathBuf};
use std::process::Output;

fn pybullet(rel: &str) -> PathBuf {
    conformance().join("corpus/urdf/pybullet_data").join(rel)
}

/// The stdout of a command that must succeed.
fn ok(out: Output) -> String {
    String::from_utf8(out.stdout).unwrap()
}

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn floats(v: &serde_json::Value) -> Vec<f64> {
    match v {
        serde_json::Value::Array(a) => a.iter().flat_map(floats).collect(),
        x => vec![x.as_f64().unwrap()],
    }
}

#[test]
fn info_on_kuka_urdf_counts_bodies_and_meshes() {
    let text = ok(collide()
        .arg("info")
        .arg(pybullet("kuka_iiwa/model.urdf"))
        .run_ok());
    // link_0 fuses into the world; 7 revolute joints
    assert!(text.contains("bodies: 8"), "{text}");
    assert!(text.contains("joints: 7"), "{text}");
    assert!(text.contains("mesh: 8"), "{text}");
}

#[test]
fn poses_of_urdf_states_match_mujoco() {
    let out = ok(collide()
        .arg("poses")
        .arg(pybullet("kuka_iiwa/model.urdf"))
        .arg("--states")
        .arg(conformance().join("states/urdf__kuka_iiwa__model.json"))
        .run_ok());
    let ours: serde_json::Value = serde_json::from_str(&out).unwrap();
    let fixture = json(&conformance().join("fixtures/urdf__kuka_iiwa__model.json"));
    let (ours, theirs) = (
        ours["states"].as_array().unwrap(),
        fixture["states"].as_array().unwrap(),
    );
    assert_eq!(ours.len(), 8);
    assert_eq!(ours.len(), theirs.len());
    for (a, b) in ours.iter().zip(theirs) {
        for key in ["geom_xpos", "geom_xmat"] {
            let (x, y) = (floats(&a[key]), floats(&b[key]));
            assert_eq!(x.len(), y.len());
            for (u, v) in x.iter().zip(&y) {
                // mesh geoms: MuJoCo's mesh frames come from f32 vertices
                assert!((u - v).abs() < 1e-6, "{key}: {u} vs {v}");
            }
        }
    }
}

#[test]
fn contacts_of_urdf_states_match_mujocos_counts() {
    let out = ok(collide()
        .arg("contacts")
        .arg(pybullet("quadruped/minitaur_rainbow_dash.urdf"))
        .arg("--states")
        .arg(conformance().join("states/urdf__quadruped__minitaur_rainbow_dash.json"))
        .run_ok());
    let ours: serde_json::Value = serde_json::from_str(&out).unwrap();
    let fixture = json(&conformance().join("fixtures/urdf__quadruped__minitaur_rainbow_dash.json"));
    let counts = |v: &serde_json::Value| -> Vec<usize> {
        v["states"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["contacts"].as_array().unwrap().len())
            .collect()
    };
    let mine = counts(&ours);
    assert_eq!(mine, counts(&fixture));
    assert!(mine.iter().sum::<usize>() > 100, "{mine:?}");
}

#[test]
fn bench_runs_on_a_urdf() {
    let text = ok(collide()
        .arg("bench")
        .arg(pybullet("r2d2.urdf"))
        .arg("--iters")
        .arg("2")
        .run_ok());
    let last = text.lines().last().unwrap();
    let us: f64 = last
        .strip_prefix("collide_us_per_state: ")
        .unwrap()
        .parse()
        .unwrap();
    assert!(us > 0.0, "{text}");
}

#[test]
fn package_option_points_package_urls_at_a_folder() {
    // panda.urdf reads `package://meshes/collision/…`; moved away from its meshes, it needs
    // --package meshes=DIR
    let dir = std::env::temp_dir().join(format!("collide-urdf-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let urdf = dir.join("panda.urdf");
    std::fs::copy(pybullet("franka_panda/panda.urdf"), &urdf).unwrap();
    let out = collide().arg("info").arg(&urdf).output().unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("panda.urdf:"), "{err}");
    assert!(err.contains("--package meshes=DIR"), "{err}");

    let meshes = pybullet("franka_panda/meshes");
    let with = ok(collide()
        .arg("info")
        .arg(&urdf)
        .arg("--package")
        .arg(format!("meshes={}", meshes.display()))
        .run_ok());
    let direct = ok(collide()
        .arg("info")
        .arg(pybullet("franka_panda/panda.urdf"))
        .run_ok());
    assert_eq!(with, direct);
    assert!(with.contains("mesh: 11"), "{with}");

    let out = collide()
        .arg("info")
        .arg(&urdf)
        .arg("--package")
        .arg("meshes")
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("NAME=DIR"));
    std::fs::remove_dir_all(&dir).ok();
}
