//! The collision driver on small hand-made models whose answers are known: regression tests
//! named after MuJoCo's own driver tests where they pin the same behaviour.

use collide::{forward_kinematics, Collider, Contact, Model, Poses};

fn model(xml: &str) -> Model {
    collide_mjcf::load_str(xml, ".").expect("model compiles")
}

fn contacts_at(m: &Model, qpos: &[f64]) -> Vec<Contact> {
    let mut poses = Poses::new(m);
    forward_kinematics(m, qpos, None, &mut poses).expect("kinematics");
    let mut c = Collider::new(m).expect("collider");
    let mut out = Vec::new();
    c.detect(&poses, &mut out);
    out
}

fn contacts(m: &Model) -> Vec<Contact> {
    contacts_at(m, &m.qpos0)
}

#[test]
fn margin_summing() {
    // two spheres 0.01 apart with margins 0.00999 each: margins add up, so they touch
    let m = model(
        r#"<mujoco><worldbody>
          <body><freejoint/><geom size="1" margin="0.00999"/></body>
          <body pos="2.01 0 0"><freejoint/><geom size="1" margin="0.00999"/></body>
        </worldbody></mujoco>"#,
    );
    let c = contacts(&m);
    assert_eq!(c.len(), 1);
    assert!((c[0].dist - 0.01).abs() < 1e-12);
    assert!((c[0].includemargin - 0.01998).abs() < 1e-15);
    assert!(!c[0].exclude);
    assert!((c[0].normal() - glam::DVec3::X).length() < 1e-15);
    assert!((c[0].pos - glam::DVec3::new(1.005, 0.0, 0.0)).length() < 1e-12);
}

#[test]
fn contact_count_eight_spheres_on_a_plane() {
    let m = model(
        r#"<mujoco><worldbody>
          <body><geom type="plane" size="5 5 .1"/></body>
          <body pos="0 0 0.09"><freejoint/>
            <geom size=".1" pos="-.3 -.3 0"/><geom size=".1" pos="-.1 -.3 0"/>
            <geom size=".1" pos=".1 -.3 0"/><geom size=".1" pos=".3 -.3 0"/>
            <geom size=".1" pos="-.3 .3 0"/><geom size=".1" pos="-.1 .3 0"/>
            <geom size=".1" pos=".1 .3 0"/><geom size=".1" pos=".3 .3 0"/>
          </body>
        </worldbody></mujoco>"#,
    );
    let c = contacts(&m);
    assert_eq!(c.len(), 8);
    for x in &c {
        assert!((x.dist + 0.01).abs() < 1e-12);
        assert_eq!(x.geom[0], 0, "the plane comes first");
    }
    // a multi-geom body pair: contacts ordered by geom ids
    assert!(c
        .windows(2)
        .all(|w| (w[0].geom[0], w[0].geom[1]) <= (w[1].geom[0], w[1].geom[1])));
}

const PARENT_CHILD: &str = r#"<mujoco><option><flag filterparent="FLAG"/></option><worldbody>
  <body><joint/><geom type="box" size=".1 .1 .1"/>
    <body pos=".15 0 0"><joint/><geom type="box" size=".1 .1 .1"/></body>
  </body></worldbody></mujoco>"#;

#[test]
fn filter_parent() {
    let on = model(&PARENT_CHILD.replace("FLAG", "enable"));
    assert!(contacts(&on).is_empty(), "parent and child do not collide");
    let off = model(&PARENT_CHILD.replace("FLAG", "disable"));
    assert!(
        !contacts(&off).is_empty(),
        "with filterparent disabled they do"
    );
}

#[test]
fn exclude_removes_a_body_pair() {
    let xml = r#"<mujoco><worldbody>
      <body name="a"><freejoint/><geom size=".1"/></body>
      <body name="b" pos=".15 0 0"><freejoint/><geom size=".1"/></body>
    </worldbody>EXCLUDE</mujoco>"#;
    assert_eq!(contacts(&model(&xml.replace("EXCLUDE", ""))).len(), 1);
    let excluded = xml.replace(
        "EXCLUDE",
        r#"<contact><exclude body1="b" body2="a"/></contact>"#,
    );
    assert!(contacts(&model(&excluded)).is_empty());
}

#[test]
fn explicit_pair_ignores_bitmasks_and_uses_its_own_parameters() {
    let m = model(
        r#"<mujoco><worldbody>
          <body><freejoint/><geom name="a" size=".1" contype="0" conaffinity="0" friction=".3"/></body>
          <body pos=".25 0 0"><freejoint/><geom name="b" size=".1" contype="0" conaffinity="0"/></body>
        </worldbody>
        <contact><pair geom1="b" geom2="a" margin=".06" condim="6" friction="2 2 .1 .01 .01"/></contact>
        </mujoco>"#,
    );
    let c = contacts(&m);
    assert_eq!(c.len(), 1);
    // pair geoms are stored body-ordered: geom 0 first
    assert_eq!(c[0].geom, [0, 1]);
    assert_eq!(c[0].dim, 6);
    assert_eq!(c[0].friction, [2.0, 2.0, 0.1, 0.01, 0.01]);
    assert!((c[0].dist - 0.05).abs() < 1e-12);
    assert!((c[0].includemargin - 0.06).abs() < 1e-15);
}

#[test]
fn in_gap_contacts_are_reported_but_excluded() {
    // dist 0.03: beyond margin 0.02, within margin + gap 0.05
    let m = model(
        r#"<mujoco><worldbody>
          <body><freejoint/><geom size=".1" margin=".01" gap=".015"/></body>
          <body pos=".23 0 0"><freejoint/><geom size=".1" margin=".01" gap=".015"/></body>
        </worldbody></mujoco>"#,
    );
    let c = contacts(&m);
    assert_eq!(c.len(), 1);
    assert!(c[0].exclude);
    assert!((c[0].includemargin - 0.02).abs() < 1e-15);
}

#[test]
fn priority_and_mixing() {
    let xml = r#"<mujoco><worldbody>
      <body><freejoint/><geom size=".1" condim="1" friction=".5 .01 .001" solref=".04 1" PRIO/></body>
      <body pos=".15 0 0"><freejoint/><geom size=".1" condim="4" friction=".9 .002 .003" solref=".02 1"/></body>
    </worldbody></mujoco>"#;
    // same priority: max condim and friction, solref mixed with solmix 1:1
    let c = contacts(&model(&xml.replace("PRIO", "")));
    assert_eq!(c[0].dim, 4);
    assert_eq!(c[0].friction, [0.9, 0.9, 0.01, 0.003, 0.003]);
    assert!((c[0].solref[0] - 0.03).abs() < 1e-15);
    // higher priority wins outright
    let c = contacts(&model(&xml.replace("PRIO", r#"priority="1""#)));
    assert_eq!(c[0].dim, 1);
    assert_eq!(c[0].friction, [0.5, 0.5, 0.01, 0.001, 0.001]);
    assert_eq!(c[0].solref, [0.04, 1.0]);
}

#[test]
fn mocap_no_static_contacts() {
    // a mocap body never collides with static geometry, but does with free bodies
    let m = model(
        r#"<mujoco><worldbody>
          <geom type="plane" size="1 1 1"/>
          <body mocap="true" pos="0 0 .05"><geom size=".1"/></body>
          <body pos=".15 0 .3"><freejoint/><geom size=".1"/></body>
        </worldbody></mujoco>"#,
    );
    let c = contacts(&m);
    assert!(
        c.iter().all(|c| c.geom != [0, 1]),
        "mocap vs plane filtered"
    );
    let m2 = model(
        r#"<mujoco><worldbody>
          <body mocap="true" pos="0 0 .05"><geom size=".1"/></body>
          <body pos=".15 0 .05"><freejoint/><geom size=".1"/></body>
        </worldbody></mujoco>"#,
    );
    assert_eq!(contacts(&m2).len(), 1);
}

#[test]
fn disabled_contact_flag_gives_no_contacts() {
    let m = model(
        r#"<mujoco><option><flag contact="disable"/></option><worldbody>
          <body><freejoint/><geom size=".1"/></body><body><freejoint/><geom size=".1"/></body>
        </worldbody></mujoco>"#,
    );
    assert!(contacts(&m).is_empty());
}

#[test]
fn midphase_off_gives_the_same_contacts() {
    let xml = r#"<mujoco><option><flag midphase="FLAG"/></option><worldbody>
      <body><freejoint/>
        <geom type="box" size=".1 .1 .1"/><geom type="capsule" size=".05 .2" pos="0 .2 0"/><geom size=".08" pos=".2 0 0"/>
      </body>
      <body pos=".15 .1 .05" euler="10 20 30"><freejoint/>
        <geom type="box" size=".1 .05 .1"/><geom size=".1" pos="0 .15 0"/><geom type="capsule" size=".04 .1" pos=".1 0 0"/>
      </body></worldbody></mujoco>"#;
    let on = contacts(&model(&xml.replace("FLAG", "enable")));
    let off = contacts(&model(&xml.replace("FLAG", "disable")));
    assert!(on.len() >= 3, "{} contacts", on.len());
    let key = |v: &[Contact]| {
        let mut k: Vec<_> = v.iter().map(|c| (c.geom, c.dist.to_bits())).collect();
        k.sort();
        k
    };
    assert_eq!(key(&on), key(&off));
}

#[test]
fn touching_spheres_give_one_contact_at_distance_zero() {
    let m = model(
        r#"<mujoco><worldbody>
          <body><freejoint/><geom size="0.5"/></body>
          <body pos="1 0 0"><freejoint/><geom size="0.5"/></body>
        </worldbody></mujoco>"#,
    );
    let c = contacts(&m);
    assert_eq!(c.len(), 1);
    assert_eq!(c[0].dist, 0.0);
    assert!(c[0].exclude, "dist >= includemargin (0) is in the gap");
}

#[test]
fn sleeping_bodies_skip_each_other_and_static_geometry() {
    // a stack of three boxes on the floor plus a ball dropped on the top box
    let m = model(
        r#"<mujoco><worldbody>
          <geom type="plane" size="2 2 .1"/>
          <body pos="0 0 .099"><freejoint/><geom type="box" size=".1 .1 .1"/></body>
          <body pos="0 0 .298"><freejoint/><geom type="box" size=".1 .1 .1"/></body>
          <body pos="0 0 .497"><freejoint/><geom type="box" size=".1 .1 .1"/></body>
          <body pos="0 0 .646"><freejoint/><geom size=".05"/></body>
        </worldbody></mujoco>"#,
    );
    let mut poses = Poses::new(&m);
    forward_kinematics(&m, &m.qpos0, None, &mut poses).expect("kinematics");
    let mut c = Collider::new(&m).expect("collider");
    let mut all = Vec::new();
    c.detect(&poses, &mut all);
    let pairs = |v: &[Contact]| {
        let mut p: Vec<_> = v.iter().map(|c| c.geom).collect();
        p.dedup();
        p
    };
    assert_eq!(
        pairs(&all),
        vec![[0, 1], [1, 2], [2, 3], [4, 3]],
        "floor-box, box-box ×2, ball-box"
    );

    // the three boxes fall asleep: only the awake ball still touches the top box
    c.set_asleep(&[false, true, true, true, false]);
    let mut some = Vec::new();
    c.detect(&poses, &mut some);
    assert_eq!(pairs(&some), vec![[4, 3]]);
    let ball: Vec<_> = all.iter().filter(|x| x.geom == [4, 3]).collect();
    assert_eq!(some.len(), ball.len());
    assert_eq!(some[0], *ball[0], "the surviving contact is unchanged");

    // waking everyone restores the full set, in order
    c.set_asleep(&[]);
    let mut again = Vec::new();
    c.detect(&poses, &mut again);
    assert_eq!(again, all);
}

/// An explicit pair of two sleeping bodies whose signature comes before a body pair of the
/// broad phase is merged inside the body-pair loop; it must be skipped there as it is after
/// the loop.
#[test]
fn explicit_pair_of_sleeping_bodies_merged_inside_the_body_pair_loop_is_skipped() {
    let m = model(
        r#"<mujoco><worldbody>
          <body name="a" pos="0 0 0"><freejoint/><geom name="a" type="box" size=".1 .1 .1"/></body>
          <body name="b" pos="0 0 .199"><freejoint/><geom name="b" type="box" size=".1 .1 .1"/></body>
          <body name="ball" pos="0 0 .348"><freejoint/><geom name="ball" size=".05"/></body>
        </worldbody>
        <contact><pair geom1="a" geom2="b"/></contact></mujoco>"#,
    );
    let mut poses = Poses::new(&m);
    forward_kinematics(&m, &m.qpos0, None, &mut poses).expect("kinematics");
    let mut c = Collider::new(&m).expect("collider");
    let mut out = Vec::new();
    c.detect(&poses, &mut out);
    let pairs = |v: &[Contact]| {
        let mut p: Vec<_> = v.iter().map(|c| c.geom).collect();
        p.dedup();
        p
    };
    assert_eq!(
        pairs(&out),
        vec![[0, 1], [2, 1]],
        "explicit a-b, then ball-b"
    );
    // both boxes asleep: the explicit pair is skipped, the awake ball still touches box b
    c.set_asleep(&[false, true, true, false]);
    c.detect(&poses, &mut out);
    assert_eq!(pairs(&out), vec![[2, 1]]);
}

#[test]
fn convex_budget_exhaustion_is_counted_not_silent() {
    // two deeply overlapping ellipsoids: EPA needs many expansions on curved supports
    let xml = |iters: usize| {
        format!(
            r#"<mujoco><option ccd_iterations="{iters}"/><worldbody>
            <body><freejoint/><geom type="ellipsoid" size=".3 .2 .1"/></body>
            <body pos=".1 .05 .02" euler="20 30 40"><freejoint/>
              <geom type="ellipsoid" size=".25 .15 .12"/></body>
            </worldbody></mujoco>"#
        )
    };
    let run = |iters: usize| {
        let m = model(&xml(iters));
        let mut poses = Poses::new(&m);
        forward_kinematics(&m, &m.qpos0, None, &mut poses).expect("kinematics");
        let mut out = Vec::new();
        let stats = Collider::new(&m)
            .expect("collider")
            .detect(&poses, &mut out);
        (stats, out)
    };
    // GJK itself runs out: no contact can be claimed (MuJoCo's rule), but the pair is counted
    let (gjk_out, c_gjk) = run(3);
    assert_eq!(gjk_out.geom_pairs, 1);
    assert_eq!(gjk_out.ccd_exhausted, 1, "{gjk_out:?}");
    assert!(c_gjk.is_empty());
    // GJK converges, EPA runs out: the best estimate is reported, and counted
    let (tight, c_tight) = run(8);
    assert_eq!(
        tight.ccd_exhausted, 1,
        "8 expansions cannot converge: {tight:?}"
    );
    assert_eq!(c_tight.len(), 1, "the best estimate is still reported");
    let (ample, c_ample) = run(1000);
    assert_eq!(ample.ccd_exhausted, 0, "{ample:?}");
    // the budget-limited depth is a lower bound of the converged one
    assert!(c_tight[0].dist >= c_ample[0].dist - 1e-12);
}
