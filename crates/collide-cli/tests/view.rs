//! `collide view`, `collide render` and the demo's viewer output.

use crate::common;

use common::*;
use std::path::PathBuf;

fn corpus(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../conformance")
        .join(path)
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("collide-view-cli-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn view_writes_a_page_with_every_state() {
    let dir = scratch("view");
    let out = dir.join("dice.html");
    let st = collide()
        .arg("view")
        .arg(corpus("corpus/scenes/dice.xml"))
        .arg("--states")
        .arg(corpus("states/scenes__dice.json"))
        .arg("-o")
        .arg(&out)
        .status()
        .unwrap();
    assert!(st.success());
    let html = std::fs::read_to_string(&out).unwrap();
    assert!(html.contains("\"nstate\":8"), "eight states embedded");
    assert!(html.contains("<title>dice - collide viewer</title>"));
}

#[test]
fn render_writes_a_png_and_rejects_a_missing_state() {
    let dir = scratch("render");
    let out = dir.join("stack.png");
    let model = corpus("corpus/scenes/box_stack.xml");
    let run = |extra: &[&str]| {
        collide()
            .arg("render")
            .arg(&model)
            .args(["--width", "160", "--height", "120", "-o"])
            .arg(&out)
            .args(extra)
            .output()
            .unwrap()
    };
    let ok = run(&["--azimuth", "-30", "--lookat", "0,0,0.2"]);
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    let png = std::fs::read(&out).unwrap();
    assert_eq!(&png[1..4], b"PNG");
    let bad = run(&["--state", "1"]);
    assert!(!bad.status.success());
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(
        err.contains("state 1 does not exist (the scene has 1 states)"),
        "{err}"
    );
    assert!(!err.contains("panicked"));
}

#[test]
fn demo_prints_contacts_and_writes_the_viewer() {
    let dir = scratch("demo");
    let out = collide().arg("demo").current_dir(&dir).run_ok();
    let text = String::from_utf8(out.stdout).unwrap();
    // at qpos0 the four stacked bricks touch the floor and each other (4 contacts per face pair)
    assert!(
        text.contains("floor (plane) - brick0/geom#2 (box): 4 contacts"),
        "{text}"
    );
    assert!(text.contains("us per state"), "{text}");
    assert!(text.contains("state 4:"), "{text}");
    assert!(text.contains("target/collide-demo.html"), "{text}");
    let html = std::fs::read_to_string(dir.join("target/collide-demo.html")).unwrap();
    assert!(html.contains("\"nstate\":5"));
    assert!(dir.join("target/collide-demo.png").exists());
}

/// A ball in the hole of a torus: inside the torus's convex hull (a contact with hulls) but
/// clear of its triangles (none with `--mesh exact`); `view` and `render` both honour the flag.
#[test]
fn view_and_render_follow_the_mesh_flag() {
    let dir = scratch("mesh-flag");
    let model = dir.join("ring.xml");
    std::fs::write(
        &model,
        r#"<mujoco><asset><mesh name="ring" builtin="supertorus" params="24 0.3 1 1"/></asset>
<worldbody><geom type="mesh" mesh="ring"/>
<body pos="0 0 0"><freejoint/><geom type="sphere" size="0.2"/></body></worldbody></mujoco>"#,
    )
    .unwrap();
    let page = |mesh: &str| {
        let out = dir.join(format!("ring-{mesh}.html"));
        collide()
            .arg("view")
            .arg(&model)
            .args(["--mesh", mesh, "-o"])
            .arg(&out)
            .run_ok();
        std::fs::read_to_string(&out).unwrap()
    };
    assert!(!page("hull").contains("\"cstart\":[0,0]"), "hull: contact");
    assert!(page("exact").contains("\"cstart\":[0,0]"), "exact: none");
    let picture = |mesh: &str| {
        let out = dir.join(format!("ring-{mesh}.png"));
        collide()
            .arg("render")
            .arg(&model)
            .args(["--width", "96", "--height", "72", "--mesh", mesh, "-o"])
            .arg(&out)
            .run_ok();
        std::fs::read(&out).unwrap()
    };
    assert_ne!(
        picture("hull"),
        picture("exact"),
        "the contact is drawn only with hulls"
    );
    std::fs::remove_dir_all(&dir).ok();
}
