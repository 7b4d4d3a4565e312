//! Box–box narrow phase: conformance with MuJoCo 4.0.0's `mjc_BoxBox`, hand-worked cases and
//! rigid-transform invariance.
//!
//! The oracle data `tests/data/narrow/box_box.json` is written by
//! `conformance/narrow_box_box.py` (MuJoCo 4.0.0 through its Python bindings).

use collide::glam::{DMat3, DQuat, DVec3};
use collide::narrow::{dispatch, Dispatch, PreContact, Shape, MAX_PAIR_CONTACTS};
use collide::GeomType;
use proptest::prelude::*;

use crate::common;
use common::parse_json;

// ------------------------------------------------------------------------------------------
// helpers

fn box_fn() -> collide::narrow::PairFn {
    match dispatch(GeomType::Box, GeomType::Box) {
        Dispatch::Analytic(f) => f,
        other => panic!("box-box dispatches to {other:?}"),
    }
}

fn collide(g1: &Shape, g2: &Shape, margin: f64) -> Vec<PreContact> {
    let mut out = [PreContact::default(); MAX_PAIR_CONTACTS];
    let n = box_fn()(g1, g2, margin, &mut out);
    assert!(n <= MAX_PAIR_CONTACTS);
    out[..n].to_vec()
}

fn angle(a: DVec3, b: DVec3) -> f64 {
    a.cross(b).length().atan2(a.dot(b))
}

fn shape(pos: DVec3, mat: DMat3, size: DVec3) -> Shape {
    Shape { pos, mat, size }
}

// ------------------------------------------------------------------------------------------
// conformance with MuJoCo 4.0.0

const TOL: f64 = 1e-9;

#[test]
fn matches_mujoco_oracle() {
    // COLLIDE_BOXBOX_ORACLE may point at a larger stress file written by the generator with
    // `--times N --out FILE`
    let default = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/narrow/box_box.json"
    );
    let path = std::env::var("COLLIDE_BOXBOX_ORACLE").unwrap_or_else(|_| default.to_string());
    let doc = parse_json(&std::fs::read_to_string(&path).expect("oracle data"));
    assert_eq!(doc.get("mujoco_version").str(), "4.0.0");
    let cases = doc.get("cases").arr();
    assert!(cases.len() >= 500, "{} cases", cases.len());

    let mut failures = Vec::new();
    let (mut ncon, mut worst_d, mut worst_p, mut worst_n) = (0, 0.0f64, 0.0f64, 0.0f64);
    for (idx, case) in cases.iter().enumerate() {
        let g1 = shape(
            case.get("pos1").vec3(),
            case.get("mat1").mat_rowmajor(),
            case.get("size1").vec3(),
        );
        let g2 = shape(
            case.get("pos2").vec3(),
            case.get("mat2").mat_rowmajor(),
            case.get("size2").vec3(),
        );
        let margin = case.get("margin").num();
        let kind = case.get("kind").str();
        let expect = case.get("contacts").arr();
        let got = collide(&g1, &g2, margin);

        // absolute tolerance for unit-sized scenes, relative for large ones
        let scale = [g1.pos.abs().max_element(), g2.pos.abs().max_element()]
            .into_iter()
            .chain([g1.size.max_element(), g2.size.max_element()])
            .fold(1.0f64, f64::max);
        let tol = TOL * scale;

        if got.len() != expect.len() {
            failures.push(format!(
                "case {idx} ({kind}): {} contacts, MuJoCo {}",
                got.len(),
                expect.len()
            ));
            continue;
        }
        for (k, (c, e)) in got.iter().zip(expect).enumerate() {
            ncon += 1;
            let dd = (c.dist - e.get("dist").num()).abs();
            let dp = (c.pos - e.get("pos").vec3()).abs().max_element();
            let dn = angle(c.normal, e.get("normal").vec3());
            worst_d = worst_d.max(dd / scale);
            worst_p = worst_p.max(dp / scale);
            worst_n = worst_n.max(dn);
            if dd > tol || dp > tol || dn > TOL || !dn.is_finite() {
                failures.push(format!(
                    "case {idx} ({kind}) contact {k}: ddist {dd:.3e} dpos {dp:.3e} \
                     dnormal {dn:.3e} (tol {tol:.1e})"
                ));
            }
        }
    }
    println!(
        "box-box oracle: {} cases, {} contacts, {} failures; worst |ddist| {worst_d:.2e}, \
         |dpos| {worst_p:.2e} (relative to max(1, scale)), normal {worst_n:.2e} rad",
        cases.len(),
        ncon,
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

// ------------------------------------------------------------------------------------------
// hand-worked cases

#[test]
fn unit_cube_resting_on_unit_cube() {
    // half-sizes 0.5: box 2's bottom face lies exactly on box 1's top face
    let s = DVec3::splat(0.5);
    let g1 = shape(DVec3::ZERO, DMat3::IDENTITY, s);
    let g2 = shape(DVec3::new(0.0, 0.0, 1.0), DMat3::IDENTITY, s);
    let c = collide(&g1, &g2, 0.0);
    assert_eq!(c.len(), 4);
    let mut corners: Vec<(f64, f64)> = Vec::new();
    for k in &c {
        assert_eq!(k.dist, 0.0);
        assert_eq!(k.normal, DVec3::Z);
        assert_eq!(k.pos.z, 0.5);
        assert_eq!(k.pos.x.abs(), 0.5);
        assert_eq!(k.pos.y.abs(), 0.5);
        assert_eq!(k.tangent, DVec3::ZERO);
        corners.push((k.pos.x, k.pos.y));
    }
    corners.sort_by(|a, b| a.partial_cmp(b).unwrap());
    corners.dedup();
    assert_eq!(corners.len(), 4, "four distinct corners");

    // swapped order: the normal flips, the contacts stay
    let c = collide(&g2, &g1, 0.0);
    assert_eq!(c.len(), 4);
    assert!(c.iter().all(|k| k.normal == -DVec3::Z && k.dist == 0.0));

    // lifted by 0.01: no contact without margin, four with margin 0.02 (dist 0.01)
    let g3 = shape(DVec3::new(0.0, 0.0, 1.01), DMat3::IDENTITY, s);
    assert!(collide(&g1, &g3, 0.0).is_empty());
    let c = collide(&g1, &g3, 0.02);
    assert_eq!(c.len(), 4);
    for k in &c {
        assert!((k.dist - 0.01).abs() < 1e-15);
        assert!((k.pos.z - 0.505).abs() < 1e-15);
    }
}

#[test]
fn concentric_identical_boxes() {
    let s = DVec3::ONE;
    let g = shape(DVec3::new(0.3, -2.0, 5.0), DMat3::IDENTITY, s);
    let c = collide(&g, &g, 0.0);
    assert!(!c.is_empty() && c.len() <= 8);
    for k in &c {
        assert!((k.dist + 2.0).abs() < 1e-12, "{}", k.dist);
        assert!((k.normal.length() - 1.0).abs() < 1e-15);
    }
    // rotated copy: still a full-depth face manifold
    let q = DQuat::from_euler(collide::glam::EulerRot::XYZ, 0.3, -1.1, 2.0);
    let g = shape(DVec3::ZERO, DMat3::from_quat(q), s);
    let c = collide(&g, &g, 0.0);
    assert!(!c.is_empty());
    assert!(c.iter().all(|k| (k.dist + 2.0).abs() < 1e-12));
}

#[test]
fn edge_on_edge_single_contact() {
    // box 2 turned 45 degrees about x, box 1 about y: two edges cross
    let s = DVec3::splat(0.5);
    let h = 0.5 * std::f64::consts::SQRT_2;
    let g1 = shape(
        DVec3::ZERO,
        DMat3::from_rotation_y(std::f64::consts::FRAC_PI_4),
        s,
    );
    let g2 = shape(
        DVec3::new(0.0, 0.0, 2.0 * h - 0.01),
        DMat3::from_rotation_x(std::f64::consts::FRAC_PI_4),
        s,
    );
    let c = collide(&g1, &g2, 0.0);
    assert_eq!(c.len(), 1);
    assert!((c[0].dist + 0.01).abs() < 1e-12, "{}", c[0].dist);
    assert!((c[0].normal - DVec3::Z).length() < 1e-12);
    assert!((c[0].pos - DVec3::new(0.0, 0.0, h - 0.005)).length() < 1e-12);
}

#[test]
fn separated_and_nan_free() {
    let s = DVec3::new(1.0, 0.2, 0.05);
    let g1 = shape(DVec3::ZERO, DMat3::IDENTITY, s);
    let g2 = shape(DVec3::new(0.0, 0.0, 3.0), DMat3::from_rotation_z(0.3), s);
    assert!(collide(&g1, &g2, 0.0).is_empty());
    // degenerate sizes (zero extents) still give finite output
    let z = shape(DVec3::ZERO, DMat3::IDENTITY, DVec3::ZERO);
    for c in collide(&z, &z, 0.0)
        .iter()
        .chain(collide(&g1, &z, 0.1).iter())
    {
        assert!(c.dist.is_finite() && c.pos.is_finite() && c.normal.is_finite());
    }
    // a short output buffer is respected
    let mut out = [PreContact::default(); 2];
    let g3 = shape(DVec3::new(0.0, 0.0, 0.09), DMat3::IDENTITY, s);
    let n = box_fn()(&g1, &g3, 0.0, &mut out);
    assert_eq!(n, 2);
}

// ------------------------------------------------------------------------------------------
// rigid-transform invariance

fn quat(v: [f64; 4]) -> DQuat {
    let q = DQuat::from_xyzw(v[0], v[1], v[2], v[3]);
    if q.length() < 1e-3 {
        DQuat::IDENTITY
    } else {
        q.normalize()
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn rigid_transform_invariance(
        s1 in prop::array::uniform3(0.05f64..2.0),
        s2 in prop::array::uniform3(0.05f64..2.0),
        q1 in prop::array::uniform4(-1.0f64..1.0),
        q2 in prop::array::uniform4(-1.0f64..1.0),
        qt in prop::array::uniform4(-1.0f64..1.0),
        d in prop::array::uniform3(-3.0f64..3.0),
        t in prop::array::uniform3(-10.0f64..10.0),
        margin in prop_oneof![Just(0.0), 0.0f64..0.3],
    ) {
        let g1 = shape(DVec3::ZERO, DMat3::from_quat(quat(q1)), DVec3::from(s1));
        let g2 = shape(DVec3::from(d), DMat3::from_quat(quat(q2)), DVec3::from(s2));
        let rt = DMat3::from_quat(quat(qt));
        let tt = DVec3::from(t);
        let move_shape = |g: &Shape| shape(rt * g.pos + tt, rt * g.mat, g.size);
        let a = collide(&g1, &g2, margin);
        let b = collide(&move_shape(&g1), &move_shape(&g2), margin);

        // a contact within rounding of a decision threshold may legitimately come and go
        let borderline = |cs: &[PreContact]| cs.iter().any(|c| (c.dist - margin).abs() < 1e-9);
        if a.len() != b.len() {
            prop_assume!(borderline(&a) || borderline(&b));
        }
        prop_assert_eq!(a.len(), b.len());
        for (ca, cb) in a.iter().zip(&b) {
            prop_assert!((ca.dist - cb.dist).abs() < 1e-9, "{} {}", ca.dist, cb.dist);
            prop_assert!((rt * ca.pos + tt - cb.pos).length() < 1e-9);
            prop_assert!(angle(rt * ca.normal, cb.normal) < 1e-9);
            // edge contacts may exceed the margin by the separation slack, 1e-13 * sizes
            prop_assert!(ca.dist <= margin + 1e-12);
        }
    }
}
