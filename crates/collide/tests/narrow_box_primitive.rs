//! Sphere–box and capsule–box pair functions against MuJoCo 4.0.0.
//!
//! `data/narrow/box_primitive.json` is written by `conformance/narrow_box_primitive.py` (random
//! and hand-made configurations run through `mj_kinematics` + `mj_collision`). Every case goes
//! through `collide::narrow::dispatch`, so the dispatch table is checked as well.

use collide::glam::{DMat3, DQuat, DVec3};
use collide::narrow::{dispatch, Dispatch, PairFn, PreContact, Shape, MAX_PAIR_CONTACTS};
use collide::GeomType;
use proptest::prelude::*;

const DATA: &str = include_str!("data/narrow/box_primitive.json");
/// Absolute tolerance on `dist` and `pos`, scaled up by the size of the configuration.
const TOL: f64 = 1e-9;
/// Tolerance on the angle between normals, radians.
const ANGLE_TOL: f64 = 1e-9;

use crate::common;
use common::*;

fn pair_fn(t1: GeomType) -> PairFn {
    match dispatch(t1, GeomType::Box) {
        Dispatch::Analytic(f) => f,
        other => panic!("{t1:?}-box dispatches to {other:?}"),
    }
}

fn angle(a: DVec3, b: DVec3) -> f64 {
    a.cross(b).length().atan2(a.dot(b))
}

fn run(t1: GeomType, g1: &Shape, g2: &Shape, margin: f64) -> Vec<PreContact> {
    let mut out = [PreContact::default(); MAX_PAIR_CONTACTS];
    let n = pair_fn(t1)(g1, g2, margin, &mut out);
    assert!(n <= 2, "{n} contacts");
    out[..n].to_vec()
}

fn shape(pos: DVec3, mat: DMat3, size: DVec3) -> Shape {
    Shape { pos, mat, size }
}

// ------------------------------------------------------------------------------------------
// oracle
// ------------------------------------------------------------------------------------------

#[derive(Default)]
struct Worst {
    cases: usize,
    contacts: usize,
    dist: f64,
    pos: f64,
    angle: f64,
}

#[test]
fn matches_mujoco() {
    let doc = parse_json(DATA);
    assert_eq!(doc.get("mujoco_version").str(), "4.0.0");
    let mut worst = [Worst::default(), Worst::default()];
    let mut failures = Vec::new();
    for case in doc.get("cases").arr() {
        let name = case.get("name").str();
        let (t1, w) = match case.get("type").str() {
            "sphere" => (GeomType::Sphere, &mut worst[0]),
            "capsule" => (GeomType::Capsule, &mut worst[1]),
            other => panic!("unknown type {other}"),
        };
        let g1 = shape(
            case.get("pos1").vec3(),
            mat_rowmajor(&case.get("mat1").nums()),
            case.get("size1").vec3(),
        );
        let g2 = shape(
            case.get("pos2").vec3(),
            mat_rowmajor(&case.get("mat2").nums()),
            case.get("size2").vec3(),
        );
        let margin = case.get("margin").num();
        let expect = case.get("contacts").arr();
        let got = run(t1, &g1, &g2, margin);
        w.cases += 1;
        if got.len() != expect.len() {
            failures.push(format!(
                "{name}: {} contacts, MuJoCo {}: got {got:?}",
                got.len(),
                expect.len()
            ));
            continue;
        }
        // errors are relative to the configuration's length scale once it exceeds 1
        let scale = [
            g1.pos.abs().max_element(),
            g2.pos.abs().max_element(),
            g1.size.max_element(),
            g2.size.max_element(),
            margin,
            1.0,
        ]
        .into_iter()
        .fold(0.0, f64::max);
        for (i, (c, e)) in got.iter().zip(expect).enumerate() {
            w.contacts += 1;
            let dd = (c.dist - e.get("dist").num()).abs() / scale;
            let dp = (c.pos - e.get("pos").vec3()).abs().max_element() / scale;
            let da = angle(c.normal, e.get("normal").vec3());
            w.dist = w.dist.max(dd);
            w.pos = w.pos.max(dp);
            w.angle = w.angle.max(da);
            if !(dd <= TOL && dp <= TOL && da <= ANGLE_TOL) {
                failures.push(format!(
                    "{name} contact {i}: dist err {dd:.3e}, pos err {dp:.3e}, normal err \
                     {da:.3e}\n  got {c:?}\n  mujoco {e:?}"
                ));
            }
        }
    }
    for (label, w) in ["sphere-box", "capsule-box"].iter().zip(&worst) {
        println!(
            "{label}: {} cases, {} contacts; worst dist {:.2e}, pos {:.2e}, normal {:.2e} rad",
            w.cases, w.contacts, w.dist, w.pos, w.angle
        );
    }
    assert!(worst[0].cases > 300 && worst[1].cases > 300);
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures
            .iter()
            .take(20)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

// ------------------------------------------------------------------------------------------
// hand-worked cases
// ------------------------------------------------------------------------------------------

fn unit_box() -> Shape {
    shape(DVec3::ZERO, DMat3::IDENTITY, DVec3::new(0.5, 1.0, 2.0))
}

fn sphere_at(pos: DVec3, r: f64) -> Shape {
    shape(pos, DMat3::IDENTITY, DVec3::new(r, 0.0, 0.0))
}

/// Capsule whose axis (local z) is the world direction `axis`.
fn capsule(pos: DVec3, axis: DVec3, r: f64, half: f64) -> Shape {
    let q = DQuat::from_rotation_arc(DVec3::Z, axis.normalize());
    shape(pos, DMat3::from_quat(q), DVec3::new(r, half, 0.0))
}

#[test]
fn sphere_resting_on_face() {
    let c = run(
        GeomType::Sphere,
        &sphere_at(DVec3::new(0.1, 0.2, 2.25), 0.25),
        &unit_box(),
        0.0,
    );
    assert_eq!(c.len(), 1);
    assert_eq!(c[0].dist, 0.0);
    assert_eq!(c[0].normal, DVec3::new(0.0, 0.0, -1.0));
    assert_eq!(c[0].pos, DVec3::new(0.1, 0.2, 2.0));
    assert_eq!(c[0].tangent, DVec3::ZERO);
}

#[test]
fn sphere_margin_is_inclusive() {
    let s = sphere_at(DVec3::new(0.5 + 0.25 + 0.125, 0.0, 0.0), 0.25);
    let c = run(GeomType::Sphere, &s, &unit_box(), 0.125);
    assert_eq!(c.len(), 1);
    assert_eq!(c[0].dist, 0.125);
    assert_eq!(c[0].pos, DVec3::new(0.5625, 0.0, 0.0));
    assert!(run(GeomType::Sphere, &s, &unit_box(), 0.0625).is_empty());
}

#[test]
fn sphere_centre_inside_uses_nearest_face() {
    // nearest face is +y (0.2 away); the normal points from the sphere into the box
    let c = run(
        GeomType::Sphere,
        &sphere_at(DVec3::new(0.1, 0.8, -0.5), 0.3),
        &unit_box(),
        0.0,
    );
    assert_eq!(c.len(), 1);
    assert_eq!(c[0].normal, DVec3::new(0.0, -1.0, 0.0));
    assert!((c[0].dist - -(0.2 + 0.3)).abs() < 1e-15);
    // midpoint between the face (y = 1) and the deepest sphere point (y = 0.5)
    assert!((c[0].pos - DVec3::new(0.1, 0.75, -0.5)).length() < 1e-15);

    // rotated and translated box: same answer in the box frame
    let q = DQuat::from_axis_angle(DVec3::new(1.0, -2.0, 0.5).normalize(), 0.9);
    let m = DMat3::from_quat(q);
    let t = DVec3::new(3.0, -1.0, 2.0);
    let b = shape(t, m, unit_box().size);
    let c2 = run(
        GeomType::Sphere,
        &sphere_at(m * DVec3::new(0.1, 0.8, -0.5) + t, 0.3),
        &b,
        0.0,
    );
    assert_eq!(c2.len(), 1);
    assert!(angle(c2[0].normal, m * DVec3::new(0.0, -1.0, 0.0)) < 1e-14);
    assert!((c2[0].dist - c[0].dist).abs() < 1e-14);
}

#[test]
fn sphere_centre_at_box_centre_picks_first_nearest_face() {
    // equal box: all faces tie; MuJoCo keeps the first (-x face, normal +x)
    let b = shape(DVec3::ZERO, DMat3::IDENTITY, DVec3::splat(1.0));
    let c = run(GeomType::Sphere, &sphere_at(DVec3::ZERO, 0.5), &b, 0.0);
    assert_eq!(c.len(), 1);
    assert_eq!(c[0].normal, DVec3::X);
    assert_eq!(c[0].dist, -1.5);
}

#[test]
fn capsule_lying_on_face_gives_both_ends() {
    let cap = capsule(DVec3::new(0.0, 0.0, 2.1), DVec3::Y, 0.125, 0.5);
    let c = run(GeomType::Capsule, &cap, &unit_box(), 0.0);
    assert_eq!(c.len(), 2);
    for k in &c {
        assert!((k.dist - -0.025).abs() < 1e-14, "{k:?}");
        assert!(angle(k.normal, -DVec3::Z) < 1e-14);
    }
    let mut ys = [c[0].pos.y, c[1].pos.y];
    ys.sort_by(f64::total_cmp);
    assert!((ys[0] + 0.5).abs() < 1e-14 && (ys[1] - 0.5).abs() < 1e-14);
}

#[test]
fn capsule_standing_on_face_gives_one() {
    let cap = capsule(
        DVec3::new(0.1, 0.1, 2.0 + 0.5 + 0.125),
        DVec3::Z,
        0.125,
        0.5,
    );
    let c = run(GeomType::Capsule, &cap, &unit_box(), 0.0);
    assert_eq!(c.len(), 1);
    assert_eq!(c[0].dist, 0.0);
    assert!((c[0].pos - DVec3::new(0.1, 0.1, 2.0)).length() < 1e-15);
}

#[test]
fn capsule_far_away_gives_none() {
    let cap = capsule(DVec3::new(5.0, 0.0, 0.0), DVec3::Y, 0.125, 0.5);
    assert!(run(GeomType::Capsule, &cap, &unit_box(), 0.1).is_empty());
}

// ------------------------------------------------------------------------------------------
// rigid-transform invariance
// ------------------------------------------------------------------------------------------

fn unit(v: [f64; 3]) -> DVec3 {
    let v = DVec3::from_array(v);
    if v.length() < 1e-3 {
        DVec3::Z
    } else {
        v.normalize()
    }
}

fn rot(axis: [f64; 3], angle: f64) -> DMat3 {
    DMat3::from_quat(DQuat::from_axis_angle(unit(axis), angle))
}

fn vec3() -> impl Strategy<Value = [f64; 3]> {
    [-1.0..1.0f64, -1.0..1.0f64, -1.0..1.0f64]
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 2000,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn rigid_transform_invariance(
        capsule_pair in any::<bool>(),
        size in [0.1..2.0f64, 0.1..2.0f64, 0.1..2.0f64],
        r in 0.05..1.0f64,
        half in 0.05..2.0f64,
        local in vec3(),
        box_axis in vec3(), box_angle in 0.0..6.3f64,
        cap_axis in vec3(), cap_angle in 0.0..6.3f64,
        margin in prop_oneof![Just(0.0), 0.0..0.5f64],
        t_axis in vec3(), t_angle in 0.0..6.3f64,
        t_shift in [-10.0..10.0f64, -10.0..10.0f64, -10.0..10.0f64],
    ) {
        let size = DVec3::from_array(size);
        let mb = rot(box_axis, box_angle);
        let b = shape(DVec3::new(0.3, -0.2, 0.1), mb, size);
        let p1 = b.pos + mb * (DVec3::from_array(local) * (size + r + half));
        let (t1, g1) = if capsule_pair {
            (GeomType::Capsule, shape(p1, rot(cap_axis, cap_angle), DVec3::new(r, half, 0.0)))
        } else {
            (GeomType::Sphere, shape(p1, rot(cap_axis, cap_angle), DVec3::new(r, 0.0, 0.0)))
        };
        let base = run(t1, &g1, &b, margin);

        let m = rot(t_axis, t_angle);
        let t = DVec3::from_array(t_shift);
        let moved = |g: &Shape| shape(m * g.pos + t, m * g.mat, g.size);
        let other = run(t1, &moved(&g1), &moved(&b), margin);

        // contacts right at the margin may appear on one side only
        let borderline = base.iter().chain(&other).any(|c| (c.dist - margin).abs() < 1e-9);
        prop_assume!(!borderline || base.len() == other.len());
        prop_assert_eq!(base.len(), other.len());
        for (c, o) in base.iter().zip(&other) {
            prop_assert!((c.dist - o.dist).abs() < 1e-9, "{:?} vs {:?}", c, o);
            prop_assert!((m * c.pos + t - o.pos).length() < 1e-9, "{:?} vs {:?}", c, o);
            prop_assert!(angle(m * c.normal, o.normal) < 1e-9, "{:?} vs {:?}", c, o);
            prop_assert!((c.normal.length() - 1.0).abs() < 1e-12);
        }
    }
}
