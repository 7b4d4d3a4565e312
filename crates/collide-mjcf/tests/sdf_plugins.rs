//! `type="sdf"` geoms backed by MuJoCo's SDF plugins: the compiled box, size and bounding
//! sphere against MuJoCo 4.0.0 (values read from `mujoco.MjModel` for the same XML), and the
//! errors for what is not supported.

use collide::narrow::sdf::SdfPlugin;
use collide::GeomType;

const SCENE: &str = r#"
<mujoco>
  <extension>
    <plugin plugin="mujoco.sdf.torus"><instance name="torus"><config key="radius1" value="0.35"/><config key="radius2" value="0.15"/></instance></plugin>
    <plugin plugin="mujoco.sdf.bowl"><instance name="bowl"><config key="height" value="0.4"/><config key="radius" value="1"/><config key="thickness" value="0.02"/></instance></plugin>
  </extension>
  <asset>
    <mesh name="torus"><plugin instance="torus"/></mesh>
    <mesh name="bowl"><plugin instance="bowl"/></mesh>
  </asset>
  <worldbody>
    <body pos="0 0 1"><freejoint/><geom type="sdf" mesh="torus"><plugin instance="torus"/></geom></body>
    <body pos="0 0 0"><geom type="sdf" mesh="bowl"><plugin instance="bowl"/></geom></body>
  </worldbody>
</mujoco>"#;

#[test]
fn torus_and_bowl_boxes_match_mujoco() {
    let m = collide_mjcf::load_str(SCENE, ".").expect("compiles");
    assert_eq!(m.geom_type, [GeomType::Sdf, GeomType::Sdf]);
    assert_eq!(
        m.geom_sdf[0],
        Some(SdfPlugin::Torus {
            radius1: 0.35,
            radius2: 0.15
        })
    );
    // MuJoCo 4.0.0: geom_aabb, geom_size, geom_rbound
    let torus_aabb = [
        1.4901161193847656e-08,
        1.4901161193847656e-08,
        7.450580596923828e-09,
        0.49995069205760956,
        0.49995069205760956,
        0.1499999687075615,
    ];
    let bowl_aabb = [
        0.0,
        0.0,
        -0.3000001609325409,
        1.0199999809265137,
        1.0199999809265137,
        0.7199998199939728,
    ];
    for (got, want) in m.geom_aabb[0].iter().zip(torus_aabb) {
        assert!((got - want).abs() < 1e-16, "{got} vs {want}");
    }
    for (got, want) in m.geom_aabb[1].iter().zip(bowl_aabb) {
        assert!((got - want).abs() < 1e-16, "{got} vs {want}");
    }
    assert_eq!(m.geom_size[0].x, 0.49995070695877075);
    assert_eq!(m.geom_size[0].z, 0.1499999761581421);
    assert_eq!(m.geom_size[1].z, 1.0199999809265137);
    assert!((m.geom_rbound[0] - 0.7227734165176474).abs() < 1e-15);
    assert!((m.geom_rbound[1] - 1.7666917906840074).abs() < 1e-15);
    // plugin meshes are not recentred
    assert_eq!(m.mesh[0].pos, glam::DVec3::ZERO);
}

fn error_of(xml: &str) -> String {
    match collide_mjcf::load_str(xml, ".") {
        Ok(_) => panic!("compiled"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn sdf_geom_errors_name_the_problem() {
    let without_plugin = SCENE.replace(
        r#"<geom type="sdf" mesh="torus"><plugin instance="torus"/></geom>"#,
        r#"<geom type="sdf" mesh="torus"/>"#,
    );
    assert!(error_of(&without_plugin).contains("octree"));
    let unknown = SCENE.replace(
        r#"<geom type="sdf" mesh="torus"><plugin instance="torus"/></geom>"#,
        r#"<geom type="sdf" mesh="torus"><plugin instance="donut"/></geom>"#,
    );
    assert!(error_of(&unknown).contains("unknown plugin instance 'donut'"));
    let bad = SCENE.replace(r#"value="0.35""#, r#"value="big""#);
    let e = error_of(&bad);
    assert!(e.contains("radius1") && e.contains("big"), "{e}");
    let plugin = SCENE.replace("mujoco.sdf.bowl", "mujoco.sdf.cow");
    assert!(error_of(&plugin).contains("unknown SDF plugin 'mujoco.sdf.cow'"));
    let no_mesh = SCENE.replace(r#"<geom type="sdf" mesh="torus">"#, r#"<geom type="sdf">"#);
    assert!(error_of(&no_mesh).contains("sdf geom requires the attribute 'mesh'"));
}

/// `<config>` of an SDF plugin instance as MuJoCo 4.0.0 reads it (each case checked with
/// `mujoco.MjModel.from_xml_string`): a key the plugin does not have (keys are
/// case-sensitive), a repeated key, a missing `value` and a bowl whose height exceeds its
/// radius are refused, naming the element; an empty value takes the default.
#[test]
fn sdf_plugin_config_keys_as_mujoco_reads_them() {
    let bowl = r#"<config key="thickness" value="0.02"/>"#;
    for key in ["bogus", "Thickness"] {
        let e = error_of(&SCENE.replace(bowl, &format!(r#"<config key="{key}" value="1"/>"#)));
        assert!(
            e.contains(":5:")
                && e.contains(r#"<instance name="bowl">"#)
                && e.contains(&format!("unknown config key '{key}' for mujoco.sdf.bowl")),
            "{e}"
        );
    }
    let twice = format!(r#"{bowl}<config key="thickness" value="0.03"/>"#);
    let e = error_of(&SCENE.replace(bowl, &twice));
    assert!(
        e.contains(":5:")
            && e.contains("<config")
            && e.contains("duplicate config key 'thickness'"),
        "{e}"
    );
    let e = error_of(&SCENE.replace(bowl, r#"<config key="thickness"/>"#));
    assert!(e.contains("config requires 'value'"), "{e}");
    let e = error_of(&SCENE.replace(r#"value="0.4""#, r#"value="1.5""#));
    assert!(e.contains("height") && e.contains("radius"), "{e}");

    let m = collide_mjcf::load_str(&SCENE.replace(r#"value="0.02""#, r#"value=" ""#), ".")
        .expect("an empty value takes the default");
    assert_eq!(
        m.geom_sdf[1],
        Some(SdfPlugin::Bowl {
            height: 0.4,
            radius: 1.0,
            thickness: 0.02
        })
    );
}
