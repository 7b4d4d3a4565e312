//! The `collide` binary end to end: info, poses (with and without states), demo, errors.

use crate::common;

use common::*;
use std::path::PathBuf;

#[test]
fn info_counts_geoms_by_type() {
    let out = collide()
        .arg("info")
        .arg(conformance().join("corpus/dm_control/suite/cartpole.xml"))
        .run_ok();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("bodies: 3"), "{text}");
    assert!(text.contains("geoms: 5"), "{text}");
    assert!(text.contains("plane: 1"), "{text}");
}

#[test]
fn poses_with_states_match_the_fixture() {
    let model = conformance().join("corpus/scenes/joints_mocap.xml");
    let states = conformance().join("states/scenes__joints_mocap.json");
    let out = collide()
        .arg("poses")
        .arg(&model)
        .arg("--states")
        .arg(&states)
        .run_ok();
    let ours: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let fixture: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(conformance().join("fixtures/scenes__joints_mocap.json")).unwrap(),
    )
    .unwrap();
    let ours = ours["states"].as_array().unwrap();
    let theirs = fixture["states"].as_array().unwrap();
    assert_eq!(ours.len(), theirs.len());
    for (a, b) in ours.iter().zip(theirs) {
        for key in ["geom_xpos", "geom_xmat"] {
            let x: Vec<f64> = a[key]
                .as_array()
                .unwrap()
                .iter()
                .flat_map(|r| r.as_array().unwrap().iter().map(|v| v.as_f64().unwrap()))
                .collect();
            let y: Vec<f64> = b[key]
                .as_array()
                .unwrap()
                .iter()
                .flat_map(|r| r.as_array().unwrap().iter().map(|v| v.as_f64().unwrap()))
                .collect();
            assert_eq!(x.len(), y.len());
            for (u, v) in x.iter().zip(&y) {
                assert!((u - v).abs() < 1e-9, "{key}: {u} vs {v}");
            }
        }
    }
}

#[test]
fn poses_without_states_gives_one_state_at_qpos0() {
    let out = collide()
        .arg("poses")
        .arg(conformance().join("corpus/gymnasium/assets/ant.xml"))
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let states = v["states"].as_array().unwrap();
    assert_eq!(states.len(), 1);
    assert_eq!(states[0]["geom_xpos"].as_array().unwrap().len(), 14);
    assert_eq!(states[0]["geom_xmat"][0].as_array().unwrap().len(), 9);
}

#[test]
fn demo_runs_without_files() {
    let dir = std::env::temp_dir();
    let out = collide().arg("demo").current_dir(dir).run_ok();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("geoms: 13"), "{text}");
    assert!(text.contains("kinematics:"), "{text}");
}

#[test]
fn bad_model_fails_with_a_located_message() {
    let dir = std::env::temp_dir().join(format!("collide-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("bad.xml");
    std::fs::write(
        &path,
        "<mujoco>\n<worldbody>\n<geom type=\"box\" size=\"1 nan 1\"/>\n</worldbody>\n</mujoco>",
    )
    .unwrap();
    let out = collide().arg("info").arg(&path).output().unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("bad.xml:3: <geom>"), "{err}");
    assert!(err.contains("not a finite number"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn bad_states_file_fails_with_a_message() {
    let dir = std::env::temp_dir().join(format!("collide-cli-states-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let states = dir.join("s.json");
    std::fs::write(&states, r#"{"states":[{"qpos":[0,0]}]}"#).unwrap();
    let out = collide()
        .arg("poses")
        .arg(conformance().join("corpus/dm_control/suite/cartpole.xml"))
        .arg("--states")
        .arg(&states)
        .output()
        .unwrap();
    assert!(out.status.success(), "cartpole has nq = 2");
    std::fs::write(&states, r#"{"states":[{"qpos":[0]}]}"#).unwrap();
    let out = collide()
        .arg("poses")
        .arg(conformance().join("corpus/dm_control/suite/cartpole.xml"))
        .arg("--states")
        .arg(&states)
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("nq = 2"));
    std::fs::remove_dir_all(&dir).ok();
}

fn demo_pool() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../collide2d/assets/demo_pool.json")
}

#[test]
fn two_d_queries_print_one_result_per_query() {
    let out = collide().arg("2d").arg(demo_pool()).run_ok();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let scene: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(demo_pool()).unwrap()).unwrap();
    assert_eq!(
        v["results"].as_array().unwrap().len(),
        scene["queries"].as_array().unwrap().len()
    );
    let first = &v["results"][0];
    assert!(
        first["normal"].as_array().is_some()
            || first["distance"].is_number()
            || first["contained"].is_boolean()
    );
}

#[test]
fn two_d_render_writes_png_and_svg() {
    let dir = std::env::temp_dir().join(format!("collide-2d-render-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for name in ["pool.png", "pool.svg"] {
        let path = dir.join(name);
        collide()
            .args(["2d", "render"])
            .arg(demo_pool())
            .arg("-o")
            .arg(&path)
            .run_ok();
        let bytes = std::fs::read(&path).unwrap();
        if name.ends_with(".png") {
            assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
        } else {
            assert!(String::from_utf8(bytes).unwrap().contains("<svg"));
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn two_d_bad_scene_names_the_field() {
    let dir = std::env::temp_dir().join(format!("collide-2d-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("bad.json");
    std::fs::write(
        &path,
        r#"{"shapes":[{"type":"circle","radius":-1}],"queries":[]}"#,
    )
    .unwrap();
    let out = collide().arg("2d").arg(&path).output().unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(err.contains("shapes[0]"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn closed_stdout_pipe_ends_quietly_instead_of_panicking() {
    use std::process::Stdio;
    // a reader that goes away before the output is written, as in `collide contacts … | head`
    let mut child = collide()
        .arg("contacts")
        .arg(conformance().join("corpus/scenes/mesh_pile_100.xml"))
        .arg("--states")
        .arg(conformance().join("states/scenes__mesh_pile_100.json"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(out.status.success(), "{:?} {stderr}", out.status);
}

/// Warm starts per state that `collide bench` on the resting bin reports with `args`: the
/// number after `marker` on its statistics line.
fn bin_warm_starts(args: &[&str], marker: &str) -> f64 {
    let out = collide()
        .arg("bench")
        .arg(conformance().join("corpus/scenes/mesh_bin.xml"))
        .arg("--states")
        .arg(conformance().join("states/scenes__mesh_bin.json"))
        .args(args)
        .run_ok();
    let text = String::from_utf8(out.stdout).unwrap();
    let after = text
        .lines()
        .find_map(|l| l.split(marker).nth(1))
        .unwrap_or_else(|| panic!("{text}"));
    after.split_whitespace().next().unwrap().parse().unwrap()
}

#[test]
fn bench_no_warm_start_solves_every_touching_pair_from_scratch() {
    // a bin of object meshes at rest: with warm starts (the default) most touching pairs start
    // from the last call; with --no-warm-start none does
    let warm_starts =
        |extra: &[&str]| bin_warm_starts(&[&["--iters", "2"], extra].concat(), "touching cache: ");
    assert!(warm_starts(&[]) > 10.0);
    assert_eq!(warm_starts(&["--no-warm-start"]), 0.0);
}

#[test]
fn bench_worlds_warm_start_each_world_from_its_own_previous_state() {
    // three worlds of the resting bin, each stepping through the recorded states: from the
    // second call on, every world starts its touching pairs from its own previous call
    let warm_starts = |extra: &[&str]| {
        let args = [&["--worlds", "3", "--iters", "6"], extra].concat();
        bin_warm_starts(&args, "separation skips, ")
    };
    assert!(warm_starts(&[]) > 10.0);
    assert_eq!(warm_starts(&["--no-warm-start"]), 0.0);
}

#[test]
fn mesh_exact_collides_mesh_backed_sdf_geoms_and_leaves_plugins_to_mujocos_path() {
    let contacts = |scene: &str, mesh: &str| -> serde_json::Value {
        let out = collide()
            .arg("contacts")
            .arg(conformance().join(format!("corpus/scenes/{scene}.xml")))
            .arg("--states")
            .arg(conformance().join(format!("states/scenes__{scene}.json")))
            .args(["--mesh", mesh])
            .run_ok();
        serde_json::from_slice(&out.stdout).unwrap()
    };
    // plugin-backed sdf geoms (a nut on a bolt): MuJoCo's sdf path either way
    assert_eq!(
        contacts("sdf_nut_bolt", "exact"),
        contacts("sdf_nut_bolt", "hull")
    );
    // mesh-backed ones (a mug and tori in a pile): by their triangles, at most 4 contacts a pair
    // where MuJoCo's path reports more
    let (exact, hull) = (
        contacts("sdf_mesh_pile", "exact"),
        contacts("sdf_mesh_pile", "hull"),
    );
    assert_ne!(exact, hull);
    let most = |v: &serde_json::Value| {
        let mut per_pair = std::collections::HashMap::new();
        for s in v["states"].as_array().unwrap() {
            for c in s["contacts"].as_array().unwrap() {
                let key = (c["geom1"].as_u64(), c["geom2"].as_u64(), s as *const _);
                *per_pair.entry(key).or_insert(0) += 1;
            }
        }
        per_pair.into_values().max().unwrap_or(0)
    };
    assert!(most(&exact) <= 4, "{}", most(&exact));
    assert!(most(&hull) > 4, "{}", most(&hull));
}
