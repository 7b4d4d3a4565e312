//! Mismatches found by `conformance/scene_fuzz.py` (random MJCF scenes against MuJoCo 4.0.0),
//! each pinned by its minimised scene and the contacts MuJoCo 4.0.0 gave for it (`<keyframe>`
//! is the failing configuration). Names say what the case exercises.

use collide::{forward_kinematics, Collider, Contact, Model, Poses};
use glam::DVec3;

fn model(xml: &str) -> Model {
    collide_mjcf::load_str(xml, ".").expect("model compiles")
}

fn contacts_at_key(m: &Model) -> Vec<Contact> {
    let mut poses = Poses::new(m);
    forward_kinematics(m, &m.key_qpos[0], None, &mut poses).expect("kinematics");
    let mut c = Collider::new(m).expect("collider");
    let mut out = Vec::new();
    c.detect(&poses, &mut out);
    out
}

/// One contact as MuJoCo reported it: geoms, dist, pos, normal, includemargin, exclude.
fn assert_contact(c: &Contact, geom: [usize; 2], dist: f64, pos: [f64; 3], normal: [f64; 3]) {
    assert_eq!(c.geom, geom);
    assert!((c.dist - dist).abs() < 1e-12, "dist {} vs {dist}", c.dist);
    assert!((c.pos - DVec3::from(pos)).length() < 1e-12, "pos {}", c.pos);
    assert!((c.normal() - DVec3::from(normal)).length() < 1e-12);
}


/// Scene 276 of `scene_fuzz --seed 1`: with the override on, the tree's internal nodes are
/// tested with `o_margin` (MuJoCo's `mj_assignMargin` of the body margins), not with the
/// bodies' own margins (zero here). The static body holds two geoms, so the pair goes through
/// the tree; the sphere is 0.0957 from the capsule, inside `o_margin = 0.1`.
#[test]
fn override_margin_applies_to_tree_nodes() {
    let m = model(
        r#"<mujoco>
          <option o_margin="0.1"><flag override="enable"/></option>
          <asset><mesh name="m0" vertex="-0.0449004 0.0216488 -0.0200093 -0.0449004 -0.0216488 0.0200093 -0.0449004 -0.0216488 0.0200093 0.0449004 -0.0216488 0.0200093 -0.0449004 -0.0216488 0.0200093 -0.0449004 0.0216488 0.0200093 0.0449004 0.0216488 0.0200093 -0.0449004 0.0216488 -0.0200093"/></asset>
          <worldbody>
            <body name="b0" pos="0.146986 -0.101103 0.0645706">
              <geom name="g1" type="capsule" pos="-0.0747171 -0.0657793 0.0478528" size="0.0655288 0.00843454"/>
              <geom name="g2" type="mesh" pos="-0.0133007 0.0668481 0.0297062" mesh="m0"/>
            </body>
            <body name="b2" pos="-0.222511 -0.15895 0.135004">
              <joint type="free"/><geom type="sphere" size="0.134004"/>
            </body>
          </worldbody>
          <keyframe><key qpos="-0.222511 -0.15895 0.135004 1 0 0 0"/></keyframe>
        </mujoco>"#,
    );
    let c = contacts_at_key(&m);
    assert_eq!(c.len(), 1, "{c:?}");
    assert_contact(
        &c[0],
        [2, 0],
        0.09569291338015867,
        [-0.04093515139148707, -0.16383606619351354, 0.12629043829186815],
        [0.9984899236077565, -0.026868594571861183, -0.04791608372467303],
    );
    assert_eq!(c[0].includemargin, 0.1);
}

/// Scene 1532 of `scene_fuzz --seed 1`: with the override on and `o_margin = 0`, MuJoCo's
/// broad-phase boxes grow by each geom's own `margin + gap` (its `makeAAMM` takes a zero half
/// override margin as "none"), so a pair within the sphere's gap 0.02 is found: dist 0.0062,
/// threshold `o_margin + gap = 0.02`, reported as a gap contact (`exclude`).
#[test]
fn override_with_zero_o_margin_keeps_geom_gaps_in_broad_phase() {
    let m = model(
        r#"<mujoco>
          <option><flag override="enable"/></option>
          <worldbody>
            <body pos="0.108367 -0.12242 0.165204" euler="180 -180 -90">
              <joint type="free"/>
              <geom type="sphere" pos="-0.079736 0.110796 -0.0821743" size="0.117111" gap="0.02"/>
            </body>
            <body pos="0.0594186 -0.270907 0.286107">
              <joint type="free"/><geom type="box" size="0.0371171 0.111311 0.0540643"/>
            </body>
          </worldbody>
          <keyframe><key qpos="0.108367 -0.12242 0.165204 -0.35241331883641236 0.6305763890048179
            0.6805245113947241 -0.1227381755091779 0.0594186 -0.270907 0.286107 -0.3559896834411286
            -0.6844449757918067 0.1634510427608286 -0.6148903780489952"/></keyframe>
        </mujoco>"#,
    );
    let c = contacts_at_key(&m);
    assert_eq!(c.len(), 1, "{c:?}");
    assert_contact(
        &c[0],
        [0, 1],
        0.006214696449366189,
        [0.16715164921958936, -0.23796408268849423, 0.21697157554624052],
        [-0.6269893702102224, -0.3058216326870927, 0.716489677960534],
    );
    assert_eq!(c[0].includemargin, 0.0);
    assert!(c[0].exclude);
}
