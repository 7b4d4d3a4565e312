//! The viewer on hand-built scenes with known answers and on a corpus model.

use collide::glam::{DMat3, DVec3};
use collide::{forward_kinematics, Model, Poses};
use collide_view::html::{base64, scene_json};
use collide_view::{render, report, to_html, RenderOptions, Scene, ViewError};
use serde_json::Value;

fn model(xml: &str) -> Model {
    collide_mjcf::load_str(xml, ".").unwrap()
}

fn poses_at(m: &Model, qpos: &[f64]) -> Poses {
    let mut p = Poses::new(m);
    forward_kinematics(m, qpos, None, &mut p).unwrap();
    p
}

/// A sphere of radius 0.1 sinking 0.01 into the floor: one contact, dist −0.01, at (0, 0,
/// −0.005) (MuJoCo puts it midway between the surfaces), normal +z.
const SPHERE_ON_FLOOR: &str = r#"<mujoco><worldbody>
  <geom name="floor" type="plane" size="1 1 0.1"/>
  <body name="ball" pos="0 0 0.09"><freejoint/><geom name="ball" type="sphere" size="0.1"/></body>
</worldbody></mujoco>"#;

fn sphere_scene() -> Scene {
    let m = model(SPHERE_ON_FLOOR);
    Scene::build(&m, &[poses_at(&m, &m.qpos0)]).unwrap()
}

fn decode(s: &str) -> Vec<u8> {
    const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = Vec::new();
    let v: Vec<u32> = s
        .bytes()
        .filter(|&c| c != b'=')
        .map(|c| A.iter().position(|&a| a == c).unwrap() as u32)
        .collect();
    for ch in v.chunks(4) {
        let n = ch
            .iter()
            .enumerate()
            .fold(0, |n, (i, &x)| n | x << (18 - 6 * i));
        for k in 0..ch.len() - 1 {
            out.push((n >> (16 - 8 * k)) as u8);
        }
    }
    out
}

fn f32s(s: &Value) -> Vec<f32> {
    decode(s.as_str().unwrap())
        .chunks(4)
        .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
        .collect()
}

#[test]
fn scene_json_holds_the_sphere_floor_contact() {
    let scene = sphere_scene();
    let d: Value = serde_json::from_str(&scene_json(&scene)).unwrap();
    assert_eq!(d["nstate"], 1);
    assert_eq!(d["geoms"]["name"], serde_json::json!(["floor", "ball"]));
    assert_eq!(d["cstart"], serde_json::json!([0, 1]));
    let c = f32s(&d["cdata"]);
    let want = [-0.01, 0.0, 0.0, -0.005, 0.0, 0.0, 1.0];
    for (got, want) in c.iter().zip(want) {
        assert!((*got as f64 - want).abs() < 1e-6, "{c:?}");
    }
    // the ball's pose: centre at z = 0.09, identity orientation (w = 1)
    let p = f32s(&d["poses"]);
    assert_eq!(p.len(), 2 * 7);
    assert!((p[7 + 2] - 0.09).abs() < 1e-7 && (p[7 + 3] - 1.0).abs() < 1e-7);
}

#[test]
fn html_is_self_contained_with_three_and_data() {
    let html = to_html(&sphere_scene(), "ball <on> floor");
    assert!(html.contains("ball &lt;on&gt; floor"));
    assert!(!html.contains("ball <on> floor"));
    assert!(html.contains(r#"<script type="application/json" id="scene-data">{"#));
    assert!(html.contains("const t=\"170\""), "three.js r170 embedded");
    assert!(html.contains("class OrbitControls"));
    // nothing is fetched: no external scripts, styles or imports of a URL
    for pat in [
        "<script src",
        "<link",
        "import(\"http",
        "from 'http",
        "from \"http",
    ] {
        assert!(!html.contains(pat), "{pat}");
    }
    // all markers filled
    for m in ["{{TITLE}}", "{{THREE}}", "{{ORBIT}}", "{{DATA}}"] {
        assert!(!html.contains(m), "{m}");
    }
}

#[test]
fn names_with_script_end_tags_cannot_break_the_page() {
    let xml = SPHERE_ON_FLOOR.replace(r#"name="floor""#, r#"name="&lt;/script&gt;x""#);
    let m = model(&xml);
    let scene = Scene::build(&m, &[poses_at(&m, &m.qpos0)]).unwrap();
    let html = to_html(&scene, "t");
    assert_eq!(html.matches("</script>").count(), 4);
    let json = scene_json(&scene);
    let d: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(d["geoms"]["name"][0], "</script>x");
}

#[test]
fn shapes_are_shared_by_geoms_of_one_type_and_size() {
    let m = model(
        r#"<mujoco><worldbody>
      <body pos="0 0 1"><freejoint/><geom type="capsule" size="0.1 0.2"/></body>
      <body pos="1 0 1"><freejoint/><geom type="capsule" size="0.1 0.2"/></body>
      <body pos="2 0 1"><freejoint/><geom type="capsule" size="0.1 0.3"/></body>
      <geom type="box" size="1 1 0.1" contype="0" conaffinity="0"/>
    </worldbody></mujoco>"#,
    );
    let s = Scene::build(&m, &[poses_at(&m, &m.qpos0)]).unwrap();
    assert_eq!(s.geoms.len(), 3, "the visual-only box is not drawn");
    assert_eq!(s.shapes.len(), 2);
    assert_eq!(s.geoms[0].shape, s.geoms[1].shape);
    assert_ne!(s.geoms[0].shape, s.geoms[2].shape);
}

/// A unit sphere at the origin seen from distance 5 with a 40° field of view: its outline has
/// a radius of `tan(asin(1/5)) / tan(20°)` of the half-height.
#[test]
fn rasteriser_draws_a_sphere_where_expected() {
    let m = model(
        r#"<mujoco><worldbody><geom name="s" type="sphere" size="1" rgba="1 1 1 1"/></worldbody></mujoco>"#,
    );
    let scene = Scene::build(&m, &[poses_at(&m, &m.qpos0)]).unwrap();
    let opts = RenderOptions {
        width: 200,
        height: 200,
        distance: Some(5.0),
        lookat: Some(DVec3::ZERO),
        ..Default::default()
    };
    let img = render(&scene, &opts).unwrap();
    let r = (0.2f64.asin().tan() / 20f64.to_radians().tan()) * 100.0;
    let bg = |p: [u8; 3]| p[0] > 200 && p[1] > 200 && p[2] > 200;
    for k in 0..16 {
        let a = k as f64 * std::f64::consts::PI / 8.0;
        let at = |f: f64| {
            let x = (100.0 + f * r * a.cos()) as usize;
            let y = (100.0 + f * r * a.sin()) as usize;
            img.pixel(x, y)
        };
        assert!(!bg(at(0.9)), "inside at angle {a}: {:?}", at(0.9));
        assert!(bg(at(1.1)), "outside at angle {a}: {:?}", at(1.1));
    }
    assert!(bg(img.pixel(2, 2)));
}

/// A contact disc's red (0xe0102a), even when drawn faded over a dark surface.
fn is_red(p: &[u8]) -> bool {
    let [r, g, b] = [p[0] as u32, p[1] as u32, p[2] as u32];
    r >= 140 && r > 3 * g && r > 3 * b
}

/// The contact of the sphere on the floor is drawn: red disc pixels at its projection.
#[test]
fn rasteriser_draws_contact_points() {
    let scene = sphere_scene();
    let opts = RenderOptions {
        width: 300,
        height: 200,
        ..Default::default()
    };
    let img = render(&scene, &opts).unwrap();
    let red = img.rgb.chunks(3).filter(|p| is_red(p)).count();
    assert!(red >= 10, "{red} red pixels");
    // without the contact (ball lifted), no red
    let m = model(&SPHERE_ON_FLOOR.replace("0 0 0.09", "0 0 0.5"));
    let s2 = Scene::build(&m, &[poses_at(&m, &m.qpos0)]).unwrap();
    let img = render(&s2, &opts).unwrap();
    let red = img.rgb.chunks(3).filter(|p| is_red(p)).count();
    assert_eq!(red, 0);
}

#[test]
fn render_of_a_corpus_model_is_not_blank() {
    let dir = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../conformance/corpus/scenes"
    );
    let m = collide_mjcf::load_file(format!("{dir}/box_stack.xml")).unwrap();
    let scene = Scene::build(&m, &[poses_at(&m, &m.qpos0)]).unwrap();
    let img = render(&scene, &RenderOptions::default()).unwrap();
    let mut colours: Vec<[u8; 3]> = img.rgb.chunks(3).map(|p| [p[0], p[1], p[2]]).collect();
    colours.sort();
    colours.dedup();
    assert!(colours.len() > 500, "{} colours", colours.len());
    let png = img.to_png().unwrap();
    assert_eq!(&png[1..4], b"PNG");
}

#[test]
fn bad_inputs_are_errors_naming_the_fault() {
    let m = model(SPHERE_ON_FLOOR);
    assert!(matches!(Scene::build(&m, &[]), Err(ViewError::NoStates)));
    let other = model("<mujoco><worldbody><geom type='sphere' size='1'/></worldbody></mujoco>");
    let e = Scene::build(&m, &[poses_at(&other, &[])]).unwrap_err();
    assert!(
        matches!(
            e,
            ViewError::PoseCount {
                state: 0,
                got: 1,
                want: 2
            }
        ),
        "{e}"
    );
    let mut p = poses_at(&m, &m.qpos0);
    p.geom_xpos[1].z = f64::NAN;
    let e = Scene::build(&m, &[p.clone()]).unwrap_err();
    assert!(e.to_string().contains("geom 1 ('ball')"), "{e}");
    p.geom_xpos[1].z = 0.09;
    p.geom_xmat[1] = DMat3::from_diagonal(DVec3::new(1.0, f64::INFINITY, 1.0));
    assert!(Scene::build(&m, &[p]).is_err());

    let scene = sphere_scene();
    let bad = |o: RenderOptions| render(&scene, &o).unwrap_err().to_string();
    let d = RenderOptions::default;
    assert!(bad(RenderOptions { state: 3, ..d() }).contains("state 3 does not exist"));
    assert!(bad(RenderOptions { width: 0, ..d() }).contains("width"));
    assert!(bad(RenderOptions {
        height: 9000,
        ..d()
    })
    .contains("height"));
    assert!(bad(RenderOptions {
        elevation: 90.0,
        ..d()
    })
    .contains("elevation"));
    assert!(bad(RenderOptions {
        azimuth: f64::NAN,
        ..d()
    })
    .contains("azimuth"));
    assert!(bad(RenderOptions { fov: 0.0, ..d() }).contains("fov"));
    assert!(bad(RenderOptions {
        distance: Some(-1.0),
        ..d()
    })
    .contains("distance"));
    let lookat = Some(DVec3::new(0.0, f64::NAN, 0.0));
    assert!(bad(RenderOptions { lookat, ..d() }).contains("lookat"));
    assert!(report::pair_table(&scene, 1).is_err());
}

#[test]
fn pair_table_lists_the_deepest_contact() {
    let t = report::pair_table(&sphere_scene(), 0).unwrap();
    assert!(t.starts_with("state 0: 1 contacts in 1 pairs"), "{t}");
    assert!(
        t.contains("floor (plane) - ball (sphere): 1 contact, deepest dist -0.01000 at (0.0000, 0.0000, -0.0050) normal (0.000, 0.000, 1.000)"),
        "{t}"
    );
}

#[test]
fn base64_round_trips() {
    let bytes: Vec<u8> = (0..=255).collect();
    for n in [0, 1, 2, 3, 100, 256] {
        assert_eq!(decode(&base64(&bytes[..n])), &bytes[..n]);
    }
}
