//! `collide distance` and `collide check` end to end on the arm-over-table scene.

use crate::common;

use common::*;
use std::path::PathBuf;

use serde_json::Value;

fn arm() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../conformance/corpus/scenes/arm_table_clutter.xml")
}

fn write(name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("collide_distance_cli_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// Two states: the arm upright (free), and folded down onto the table (colliding).
const STATES: &str = r#"{"states":[{"qpos":[0,0,0,-1.5,0,1.5,0]},{"qpos":[0,1.6,0,-0.1,0,0,0]}]}"#;

#[test]
fn distance_prints_every_pair_in_order_with_capped_and_signed_values() {
    let states = write("states.json", STATES);
    // palm–table top, floor–palm (plane first reversed), l1–shelf, palm–l1
    let pairs = write("pairs.json", "[[24, 1], [0, 24], [17, 13], [24, 17]]");
    let out = collide()
        .arg("distance")
        .arg(arm())
        .arg("--states")
        .arg(&states)
        .arg("--pairs")
        .arg(&pairs)
        .arg("--distmax")
        .arg("2")
        .run_ok();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let states = v["states"].as_array().unwrap();
    assert_eq!(states.len(), 2);
    for s in states {
        let d = s["distances"].as_array().unwrap();
        let ids: Vec<(u64, u64)> = d
            .iter()
            .map(|x| (x["geom1"].as_u64().unwrap(), x["geom2"].as_u64().unwrap()))
            .collect();
        assert_eq!(ids, [(24, 1), (0, 24), (17, 13), (24, 17)]);
        for x in d {
            let dist = x["dist"].as_f64().unwrap();
            let ft: Vec<f64> = x["fromto"]
                .as_array()
                .unwrap()
                .iter()
                .map(|y| y.as_f64().unwrap())
                .collect();
            assert_eq!(ft.len(), 6);
            assert!(dist <= 2.0);
            if dist < 2.0 {
                let len =
                    ((ft[3] - ft[0]).powi(2) + (ft[4] - ft[1]).powi(2) + (ft[5] - ft[2]).powi(2))
                        .sqrt();
                assert!((len - dist.abs()).abs() < 1e-6, "{x}");
            } else {
                assert!(ft.iter().all(|&y| y == 0.0), "{x}");
            }
        }
    }
    // the folded arm's palm is in the table top or the clutter: the upright one is well above
    let palm_top = |s: &Value| s["distances"][0]["dist"].as_f64().unwrap();
    assert!(palm_top(&states[0]) > 0.3, "{}", states[0]);
    // the floor is 0.42 m below the base: the upright palm is higher than that
    assert!(states[0]["distances"][1]["dist"].as_f64().unwrap() > 0.42);
}

#[test]
fn check_reports_the_colliding_states() {
    let states = write("states_check.json", STATES);
    let out = collide()
        .arg("check")
        .arg(arm())
        .arg("--states")
        .arg(&states)
        .run_ok();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["colliding"], serde_json::json!([1]));
    assert_eq!(v["states"][0]["in_collision"], false);
    assert_eq!(v["states"][1]["in_collision"], true);
}

#[test]
fn bad_pairs_and_states_are_reported_with_their_place() {
    let pairs = write("bad_pairs.json", "[[0, 1], [3, 99]]");
    let out = collide()
        .arg("distance")
        .arg(arm())
        .arg("--pairs")
        .arg(&pairs)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("pair 1") && err.contains("out of range"),
        "{err}"
    );
    let pairs = write("bad_pairs2.json", r#"[[0, "a"]]"#);
    let out = collide()
        .arg("distance")
        .arg(arm())
        .arg("--pairs")
        .arg(&pairs)
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("pair 0"));
    let states = write(
        "bad_states.json",
        r#"{"states":[{"qpos":[0,0,0,0,0,0,0]},{"qpos":[1,2]}]}"#,
    );
    let out = collide()
        .arg("check")
        .arg(arm())
        .arg("--states")
        .arg(&states)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("state 1") && err.contains("nq = 7"), "{err}");
}
