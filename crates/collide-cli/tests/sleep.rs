//! Sleep states (`body_awake` in STATES.json) against MuJoCo 4.0.0 on `scenes/sleep_settle`,
//! whose fixture was recorded from a simulation in which bodies fell asleep.

use crate::common;

use common::*;

use collide::{forward_kinematics, Collider, Poses};
use collide_cli::states::{detect_state, parse_state, parse_states};
use serde_json::Value;

fn fixture() -> Value {
    let text =
        std::fs::read_to_string(conformance().join("fixtures/scenes__sleep_settle.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// (geom1, geom2) of every MuJoCo contact, in order.
fn mujoco_pairs(state: &Value) -> Vec<(usize, usize)> {
    state["contacts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["geom1"].as_u64().unwrap() as usize,
                c["geom2"].as_u64().unwrap() as usize,
            )
        })
        .collect()
}

#[test]
fn sleep_settle_contacts_match_mujoco_only_with_body_awake() {
    let model = collide_mjcf::load_file(conformance().join("corpus/scenes/sleep_settle.xml"))
        .expect("scene loads");
    let fx = fixture();
    let mut collider = Collider::new(&model).unwrap();
    let mut poses = Poses::new(&model);
    let mut out = Vec::new();
    let mut sleeping_states = 0;
    let mut dropped = 0;
    for (si, s) in fx["states"].as_array().unwrap().iter().enumerate() {
        let state = parse_state(s, si).unwrap();
        let mocap = state
            .mocap
            .as_ref()
            .map(|(p, q)| (p.as_slice(), q.as_slice()));
        forward_kinematics(&model, &state.qpos, mocap, &mut poses).unwrap();
        let asleep = state.asleep_flags(&model).unwrap().expect("sleep enabled");
        let want = mujoco_pairs(s);
        detect_state(&mut collider, &poses, Some(&asleep), &mut out);
        let got: Vec<_> = out.iter().map(|c| (c.geom[0], c.geom[1])).collect();
        assert_eq!(got, want, "state {si}: contacts with sleep flags");
        if asleep.iter().any(|&a| a) {
            sleeping_states += 1;
            // all awake: MuJoCo's dropped contacts (sleeping vs static, sleeping vs sleeping)
            // come back
            detect_state(&mut collider, &poses, None, &mut out);
            assert!(out.len() > want.len(), "state {si}: nothing dropped");
            dropped += out.len() - want.len();
        }
    }
    assert!(
        sleeping_states >= 5,
        "only {sleeping_states} states with sleeping bodies"
    );
    assert!(dropped >= 20, "only {dropped} contacts dropped by sleep");
}

#[test]
fn contacts_cli_applies_body_awake_from_states_json() {
    let fx = fixture();
    let out = collide()
        .arg("contacts")
        .arg(conformance().join("corpus/scenes/sleep_settle.xml"))
        .arg("--states")
        .arg(conformance().join("states/scenes__sleep_settle.json"))
        .run_ok();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let got = v["states"].as_array().unwrap();
    let want = fx["states"].as_array().unwrap();
    assert_eq!(got.len(), want.len());
    for (si, (g, w)) in got.iter().zip(want).enumerate() {
        let n = g["contacts"].as_array().unwrap().len();
        assert_eq!(n, mujoco_pairs(w).len(), "state {si}: contact count");
    }
}

#[test]
fn body_awake_of_the_wrong_length_is_an_error() {
    let dir = std::env::temp_dir().join(format!("collide-sleep-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let states = dir.join("bad_awake.json");
    let model =
        collide_mjcf::load_file(conformance().join("corpus/scenes/sleep_settle.xml")).unwrap();
    let qpos: Vec<String> = model.qpos0.iter().map(|x| x.to_string()).collect();
    std::fs::write(
        &states,
        format!(
            r#"{{"states":[{{"qpos":[{}],"body_awake":[1,0]}}]}}"#,
            qpos.join(",")
        ),
    )
    .unwrap();
    let out = collide()
        .arg("contacts")
        .arg(conformance().join("corpus/scenes/sleep_settle.xml"))
        .arg("--states")
        .arg(&states)
        .output()
        .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("body_awake has 2 entries") && err.contains("bodies"),
        "{err}"
    );
}

#[test]
fn body_awake_is_ignored_when_the_model_does_not_enable_sleeping() {
    let model = collide_mjcf::load_file(conformance().join("corpus/scenes/box_stack.xml")).unwrap();
    let awake: Vec<String> = (0..model.nbody()).map(|_| "0".to_string()).collect();
    let qpos: Vec<String> = model.qpos0.iter().map(|x| x.to_string()).collect();
    let doc = format!(
        r#"{{"states":[{{"qpos":[{}],"body_awake":[{}]}}]}}"#,
        qpos.join(","),
        awake.join(",")
    );
    let s = &parse_states(&doc).unwrap()[0];
    assert_eq!(s.asleep_flags(&model).unwrap(), None);
}
