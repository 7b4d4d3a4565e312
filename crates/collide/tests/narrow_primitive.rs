//! Analytic primitive pair functions (plane–sphere/capsule/cylinder/box, sphere–sphere/
//! capsule/cylinder, capsule–capsule) against MuJoCo 4.0.0.
//!
//! `tests/data/narrow/primitive.json` is written by `conformance/narrow_primitive.py`: for
//! each case, both geoms' world poses and sizes, the detection threshold and MuJoCo's contacts
//! in order. The pair functions are reached through `collide::narrow::dispatch`.

use collide::glam::{DMat3, DVec3};
use collide::math::{mat_from_rows, normalize_quat, quat_to_mat, quat_wxyz};
use collide::narrow::{dispatch, Dispatch, PreContact, Shape, MAX_PAIR_CONTACTS};
use collide::GeomType;
use proptest::prelude::*;

const TOL: f64 = 1e-9;

use crate::common;
use common::parse_json;

// ------------------------------------------------------------------------------------------
// helpers
// ------------------------------------------------------------------------------------------

fn run(t1: GeomType, t2: GeomType, g1: &Shape, g2: &Shape, margin: f64) -> Vec<PreContact> {
    let Dispatch::Analytic(f) = dispatch(t1, t2) else {
        panic!("{t1:?}-{t2:?} is not analytic");
    };
    let mut out = [PreContact::default(); MAX_PAIR_CONTACTS];
    let n = f(g1, g2, margin, &mut out);
    assert!(n <= MAX_PAIR_CONTACTS);
    out[..n].to_vec()
}

fn angle(a: DVec3, b: DVec3) -> f64 {
    let (a, b) = (a.normalize(), b.normalize());
    a.cross(b).length().atan2(a.dot(b))
}

fn shape(pos: DVec3, quat: [f64; 4], size: DVec3) -> Shape {
    let q = normalize_quat(quat_wxyz(quat[0], quat[1], quat[2], quat[3]));
    Shape {
        pos,
        mat: quat_to_mat(q),
        size,
    }
}

fn close(a: DVec3, b: DVec3, tol: f64) -> bool {
    (a - b).abs().max_element() <= tol
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
    normal: f64,
    tangent: f64,
    tangent_checked: usize,
}

#[test]
fn matches_mujoco() {
    // COLLIDE_PRIMITIVE_ORACLE: an alternative (e.g. larger) file from the same generator
    let path = std::env::var("COLLIDE_PRIMITIVE_ORACLE").unwrap_or_else(|_| {
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/narrow/primitive.json"
        )
        .to_string()
    });
    let text = std::fs::read_to_string(&path).expect("oracle data");
    let root = parse_json(&text);
    assert_eq!(root.get("mujoco_version").str(), "4.0.0");
    let cases = root.get("cases").arr();
    assert!(cases.len() > 1000);

    let mut worst: Vec<(String, Worst)> = Vec::new();
    let mut failures = Vec::new();
    for (idx, case) in cases.iter().enumerate() {
        let name = case.get("pair").str().to_string();
        let label = case.get("label").str();
        let t1 = GeomType::ALL[case.get("type1").num() as usize];
        let t2 = GeomType::ALL[case.get("type2").num() as usize];
        let mat = |key: &str| -> DMat3 {
            let m = case.get(key).nums();
            mat_from_rows([m[0], m[1], m[2]], [m[3], m[4], m[5]], [m[6], m[7], m[8]])
        };
        let g1 = Shape {
            pos: case.get("pos1").vec3(),
            mat: mat("mat1"),
            size: case.get("size1").vec3(),
        };
        let g2 = Shape {
            pos: case.get("pos2").vec3(),
            mat: mat("mat2"),
            size: case.get("size2").vec3(),
        };
        let margin = case.get("margin").num();
        // absolute tolerance: 1e-9 at unit scale, relative beyond
        let scale = [g1.pos, g2.pos, g1.size, g2.size]
            .iter()
            .map(|v| v.abs().max_element())
            .fold(1.0f64, f64::max);
        let tol = TOL * scale;

        let got = run(t1, t2, &g1, &g2, margin);
        let expect = case.get("contacts").arr();
        let w = match worst.iter().position(|(n, _)| *n == name) {
            Some(i) => &mut worst[i].1,
            None => {
                worst.push((name.clone(), Worst::default()));
                &mut worst.last_mut().unwrap().1
            }
        };
        w.cases += 1;
        let here = format!("case {idx} ({name}, {label})");
        if got.len() != expect.len() {
            failures.push(format!(
                "{here}: {} contacts, MuJoCo {}: {got:?}",
                got.len(),
                expect.len()
            ));
            continue;
        }
        for (k, (c, e)) in got.iter().zip(expect).enumerate() {
            w.contacts += 1;
            let ed = e.get("dist").num();
            let ep = e.get("pos").vec3();
            let en = e.get("normal").vec3();
            let dd = (c.dist - ed).abs() / scale;
            let dp = (c.pos - ep).abs().max_element() / scale;
            let dn = angle(c.normal, en);
            w.dist = w.dist.max(dd);
            w.pos = w.pos.max(dp);
            w.normal = w.normal.max(dn);
            if !c.dist.is_finite() || (c.dist - ed).abs() > tol {
                failures.push(format!("{here} #{k}: dist {} vs {ed}", c.dist));
            }
            if !close(c.pos, ep, tol) {
                failures.push(format!("{here} #{k}: pos {} vs {ep}", c.pos));
            }
            if dn.is_nan() || dn > TOL || (c.normal.length() - 1.0).abs() > 1e-12 {
                failures.push(format!(
                    "{here} #{k}: normal {} vs {en} ({dn:e} rad)",
                    c.normal
                ));
            }
            if let Some(et) = e.opt("tangent") {
                // plane-capsule: the raw tangent is the capsule axis; MuJoCo's frame row is
                // its Gram-Schmidt against the normal (undefined when the axis is the normal)
                let et = et.vec3();
                if c.tangent != g2.mat.z_axis {
                    failures.push(format!(
                        "{here} #{k}: tangent {} is not the axis",
                        c.tangent
                    ));
                }
                let n = c.normal.normalize();
                let t = c.tangent - n * n.dot(c.tangent);
                if t.length() > 1e-6 {
                    let dt = angle(t, et);
                    w.tangent = w.tangent.max(dt);
                    w.tangent_checked += 1;
                    if dt.is_nan() || dt > TOL {
                        failures.push(format!("{here} #{k}: tangent {t} vs {et} ({dt:e} rad)"));
                    }
                }
            } else if c.tangent != DVec3::ZERO {
                failures.push(format!("{here} #{k}: unexpected tangent {}", c.tangent));
            }
        }
    }
    eprintln!("pair               cases contacts  max|ddist|/s  max|dpos|/s  max normal rad  max tangent rad (n)");
    for (name, w) in &worst {
        eprintln!(
            "{name:18} {:5} {:8}  {:11.3e}  {:11.3e}  {:14.3e}  {:.3e} ({})",
            w.cases, w.contacts, w.dist, w.pos, w.normal, w.tangent, w.tangent_checked
        );
    }
    assert_eq!(worst.len(), 8, "every pair type is covered");
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

// ------------------------------------------------------------------------------------------
// hand-worked cases
// ------------------------------------------------------------------------------------------

const IDENT: [f64; 4] = [1.0, 0.0, 0.0, 0.0];

fn plane_at(pos: DVec3, quat: [f64; 4]) -> Shape {
    shape(pos, quat, DVec3::ZERO)
}

#[test]
fn sphere_resting_on_plane() {
    let plane = plane_at(DVec3::new(0.0, 0.0, 1.0), IDENT);
    let ball = shape(DVec3::new(3.0, -2.0, 1.5), IDENT, DVec3::new(0.5, 0.0, 0.0));
    let c = run(GeomType::Plane, GeomType::Sphere, &plane, &ball, 0.0);
    assert_eq!(c.len(), 1);
    assert_eq!(c[0].dist, 0.0);
    assert_eq!(c[0].pos, DVec3::new(3.0, -2.0, 1.0));
    assert_eq!(c[0].normal, DVec3::Z);
    assert_eq!(c[0].tangent, DVec3::ZERO);
    // lifted by a bit more than the margin: nothing; by exactly the margin: a contact
    let lifted = Shape {
        pos: ball.pos + DVec3::new(0.0, 0.0, 0.25),
        ..ball
    };
    let c = run(GeomType::Plane, GeomType::Sphere, &plane, &lifted, 0.25);
    assert_eq!(c.len(), 1);
    assert_eq!(c[0].dist, 0.25);
    assert_eq!(c[0].pos, DVec3::new(3.0, -2.0, 1.125));
    assert!(run(GeomType::Plane, GeomType::Sphere, &plane, &lifted, 0.2).is_empty());
}

#[test]
fn tilted_plane_deep_sphere() {
    // plane normal (0, -1, 0) through the origin; sphere centre 2 below it
    let plane = plane_at(DVec3::ZERO, [0.5f64.sqrt(), 0.5f64.sqrt(), 0.0, 0.0]);
    let n = plane.mat.z_axis;
    let ball = shape(n * -2.0, IDENT, DVec3::new(0.5, 0.0, 0.0));
    let c = run(GeomType::Plane, GeomType::Sphere, &plane, &ball, 0.0);
    assert_eq!(c.len(), 1);
    assert!((c[0].dist + 2.5).abs() < 1e-12);
    // midpoint between the plane (0) and the sphere's lowest point (-2.5)
    assert!(close(c[0].pos, n * -1.25, 1e-12), "{}", c[0].pos);
}

#[test]
fn spheres_with_coincident_centres() {
    let c0 = DVec3::new(1.0, 2.0, 3.0);
    // z axes x and y: the normal is x × y = z
    let a = Shape {
        pos: c0,
        mat: DMat3::from_cols(DVec3::Y, DVec3::Z, DVec3::X),
        size: DVec3::new(0.5, 0.0, 0.0),
    };
    let b = Shape {
        pos: c0,
        mat: DMat3::from_cols(DVec3::Z, DVec3::X, DVec3::Y),
        size: DVec3::new(0.25, 0.0, 0.0),
    };
    let c = run(GeomType::Sphere, GeomType::Sphere, &a, &b, 0.0);
    assert_eq!(c.len(), 1);
    assert_eq!(c[0].dist, -0.75);
    assert_eq!(c[0].normal, DVec3::Z);
    assert_eq!(c[0].pos, c0 + DVec3::Z * 0.125);
    // parallel z axes as well: +x
    let b = Shape { mat: a.mat, ..b };
    let c = run(GeomType::Sphere, GeomType::Sphere, &a, &b, 0.0);
    assert_eq!(c[0].normal, DVec3::X);
    assert_eq!(c[0].pos, c0 + DVec3::X * 0.125);
}

#[test]
fn spheres_apart_and_touching() {
    let a = shape(DVec3::ZERO, IDENT, DVec3::new(1.0, 0.0, 0.0));
    let b = shape(DVec3::new(0.0, 3.0, 4.0), IDENT, DVec3::new(2.0, 0.0, 0.0));
    let c = run(GeomType::Sphere, GeomType::Sphere, &a, &b, 2.0);
    assert_eq!(c.len(), 1);
    assert_eq!(c[0].dist, 2.0);
    assert!(close(c[0].normal, DVec3::new(0.0, 0.6, 0.8), 1e-15));
    assert!(close(c[0].pos, DVec3::new(0.0, 0.6, 0.8) * 2.0, 1e-15));
    assert!(run(GeomType::Sphere, GeomType::Sphere, &a, &b, 1.999).is_empty());
}

#[test]
fn parallel_capsules_give_two_contacts() {
    // g1 spans z in [-1, 1], g2 (0.75 away along x) spans z in [-0.5, 1.5]
    let a = shape(DVec3::ZERO, IDENT, DVec3::new(0.25, 1.0, 0.0));
    let b = shape(DVec3::new(0.75, 0.0, 0.5), IDENT, DVec3::new(0.5, 1.0, 0.0));
    let c = run(GeomType::Capsule, GeomType::Capsule, &a, &b, 0.0);
    assert_eq!(c.len(), 2);
    // g1's -z end overhangs g2: g2's -z end projected back on g1 (z = -0.5); then g1's +z end
    // against its projection on g2 (z = 1)
    for (c, z) in c.iter().zip([-0.5, 1.0]) {
        assert_eq!(c.dist, 0.0);
        assert_eq!(c.normal, DVec3::X);
        assert_eq!(c.pos, DVec3::new(0.25, 0.0, z));
    }
    // no axial overlap: both contacts are the same end-to-end pair, as in MuJoCo
    let far = shape(DVec3::new(0.75, 0.0, 2.5), IDENT, DVec3::new(0.5, 1.0, 0.0));
    let c = run(GeomType::Capsule, GeomType::Capsule, &a, &far, 1.0);
    assert_eq!(c.len(), 2);
    assert_eq!(c[0], c[1]);
    let d = DVec3::new(0.75, 0.0, 0.5);
    assert!((c[0].dist - (d.length() - 0.75)).abs() < 1e-15);
    assert!(close(c[0].normal, d.normalize(), 1e-15));
    // tilted by 1e-5 rad: still parallel; by 1e-3 rad: one contact (margin 0.1 keeps both
    // ends of the tilted pair in range)
    for (angle, count) in [(1e-5f64, 2), (1e-3, 1)] {
        let h = 0.5 * angle;
        let tilted = shape(b.pos, [h.cos(), 0.0, h.sin(), 0.0], b.size);
        assert_eq!(
            run(GeomType::Capsule, GeomType::Capsule, &a, &tilted, 0.1).len(),
            count
        );
    }
}

#[test]
fn crossing_capsules_use_axis_cross_product() {
    // segments along z and x intersecting at the centre: closest points coincide
    let a = shape(DVec3::ZERO, IDENT, DVec3::new(0.25, 1.0, 0.0));
    let b = Shape {
        pos: DVec3::ZERO,
        mat: DMat3::from_cols(DVec3::Y, DVec3::Z, DVec3::X),
        size: DVec3::new(0.5, 1.0, 0.0),
    };
    let c = run(GeomType::Capsule, GeomType::Capsule, &a, &b, 0.0);
    assert_eq!(c.len(), 1);
    assert_eq!(c[0].dist, -0.75);
    assert_eq!(c[0].normal, DVec3::Y); // z × x
}

#[test]
fn box_face_down_gives_bottom_corners_in_bit_order() {
    let plane = plane_at(DVec3::ZERO, IDENT);
    let b = shape(DVec3::new(0.0, 0.0, 0.9), IDENT, DVec3::new(0.5, 0.25, 1.0));
    let c = run(GeomType::Plane, GeomType::Box, &plane, &b, 0.0);
    assert_eq!(c.len(), 4);
    let corners = [(-0.5, -0.25), (0.5, -0.25), (-0.5, 0.25), (0.5, 0.25)];
    for (c, (x, y)) in c.iter().zip(corners) {
        assert!((c.dist + 0.1).abs() < 1e-15);
        assert!(close(c.pos, DVec3::new(x, y, -0.05), 1e-15), "{}", c.pos);
        assert_eq!(c.normal, DVec3::Z);
    }
}

#[test]
fn standing_cylinder_gives_rim_triangle() {
    let plane = plane_at(DVec3::ZERO, IDENT);
    let cyl = shape(DVec3::new(0.0, 0.0, 1.0), IDENT, DVec3::new(0.5, 1.0, 0.0));
    let c = run(GeomType::Plane, GeomType::Cylinder, &plane, &cyl, 0.0);
    assert_eq!(c.len(), 3);
    // disk parallel to the plane: first point along the cylinder's x axis, then ±120°
    let s = 0.5 * 3f64.sqrt() / 2.0;
    let expect = [
        DVec3::new(0.5, 0.0, 0.0),
        DVec3::new(-0.25, s, 0.0),
        DVec3::new(-0.25, -s, 0.0),
    ];
    for (c, e) in c.iter().zip(expect) {
        assert_eq!(c.dist, 0.0);
        assert!(close(c.pos, e, 1e-15), "{} vs {e}", c.pos);
    }
    // both caps within the margin: 4 contacts, the far cap's second
    let c = run(GeomType::Plane, GeomType::Cylinder, &plane, &cyl, 2.0);
    assert_eq!(c.len(), 4);
    assert_eq!(c[1].dist, 2.0);
}

#[test]
fn capsule_on_plane_sets_axis_tangent() {
    let plane = plane_at(DVec3::ZERO, IDENT);
    let cap = Shape {
        pos: DVec3::new(0.0, 0.0, 0.25),
        mat: DMat3::from_cols(DVec3::Y, DVec3::Z, DVec3::X),
        size: DVec3::new(0.25, 1.0, 0.0),
    };
    let c = run(GeomType::Plane, GeomType::Capsule, &plane, &cap, 0.0);
    assert_eq!(c.len(), 2);
    assert_eq!(c[0].pos, DVec3::new(1.0, 0.0, 0.0));
    assert_eq!(c[1].pos, DVec3::new(-1.0, 0.0, 0.0));
    for c in &c {
        assert_eq!(c.tangent, DVec3::X);
        assert_eq!(c.dist, 0.0);
    }
}

#[test]
fn sphere_against_cylinder_cap_and_side() {
    let cyl = shape(DVec3::ZERO, IDENT, DVec3::new(0.5, 1.0, 0.0));
    let ball = |p: DVec3| shape(p, IDENT, DVec3::new(0.25, 0.0, 0.0));
    let s = run(
        GeomType::Sphere,
        GeomType::Cylinder,
        &ball(DVec3::new(0.1, 0.2, 1.2)),
        &cyl,
        0.0,
    );
    assert_eq!(s.len(), 1);
    assert!((s[0].dist + 0.05).abs() < 1e-15);
    assert_eq!(s[0].normal, -DVec3::Z);
    let s = run(
        GeomType::Sphere,
        GeomType::Cylinder,
        &ball(DVec3::new(0.0, -0.7, 0.3)),
        &cyl,
        0.0,
    );
    assert_eq!(s.len(), 1);
    assert!((s[0].dist + 0.05).abs() < 1e-15);
    assert!(close(s[0].normal, DVec3::Y, 1e-15));
}

#[test]
fn short_output_buffers_never_panic() {
    let plane = plane_at(DVec3::ZERO, IDENT);
    let b = shape(DVec3::new(0.0, 0.0, 0.9), IDENT, DVec3::new(0.5, 0.25, 1.0));
    for t2 in [GeomType::Box, GeomType::Cylinder, GeomType::Capsule] {
        let Dispatch::Analytic(f) = dispatch(GeomType::Plane, t2) else {
            unreachable!()
        };
        for len in 0..4 {
            let mut out = vec![PreContact::default(); len];
            assert!(f(&plane, &b, 5.0, &mut out) <= len);
        }
    }
    let a = shape(DVec3::ZERO, IDENT, DVec3::new(0.25, 1.0, 0.0));
    let mut out = [PreContact::default(); 1];
    let n = collide::narrow::capsule_capsule::capsule_capsule(&a, &a, 0.0, &mut out);
    assert_eq!(n, 1);
    let n = collide::narrow::sphere::sphere_sphere(&a, &a, 0.0, &mut []);
    assert_eq!(n, 0);
}

#[test]
fn zero_sizes_stay_finite() {
    // degenerate (zero) sizes and coincident poses must not produce NaN
    let z = shape(DVec3::ZERO, IDENT, DVec3::ZERO);
    let pairs = [
        (GeomType::Plane, GeomType::Sphere),
        (GeomType::Plane, GeomType::Capsule),
        (GeomType::Plane, GeomType::Cylinder),
        (GeomType::Plane, GeomType::Box),
        (GeomType::Sphere, GeomType::Sphere),
        (GeomType::Sphere, GeomType::Capsule),
        (GeomType::Sphere, GeomType::Cylinder),
        (GeomType::Capsule, GeomType::Capsule),
    ];
    for (t1, t2) in pairs {
        for c in run(t1, t2, &z, &z, 0.0) {
            assert!(
                c.dist.is_finite() && c.pos.is_finite() && c.normal.is_finite(),
                "{t1:?}-{t2:?}: {c:?}"
            );
        }
    }
}

// ------------------------------------------------------------------------------------------
// properties
// ------------------------------------------------------------------------------------------

fn quat() -> impl Strategy<Value = [f64; 4]> {
    prop::array::uniform4(-1.0f64..1.0).prop_filter("non-degenerate", |q| {
        q.iter().map(|x| x * x).sum::<f64>() > 0.01
    })
}

fn vec3(r: f64) -> impl Strategy<Value = DVec3> {
    prop::array::uniform3(-r..r).prop_map(DVec3::from_array)
}

/// The contacts of `f` on the shapes moved by a rigid transform (`rot`, `shift`) are the
/// original contacts moved by it. Cases with a contact within 1e-9 of the margin, or with
/// capsule axes at MuJoCo's parallel threshold, are skipped (the count may legitimately
/// flip there).
fn check_rigid_invariance(
    t1: GeomType,
    t2: GeomType,
    g1: Shape,
    g2: Shape,
    margin: f64,
    rot: [f64; 4],
    shift: DVec3,
) -> Result<(), TestCaseError> {
    let r = quat_to_mat(normalize_quat(quat_wxyz(rot[0], rot[1], rot[2], rot[3])));
    let mv = |g: &Shape| Shape {
        pos: r * g.pos + shift,
        mat: r * g.mat,
        size: g.size,
    };
    let a = run(t1, t2, &g1, &g2, margin);
    let b = run(t1, t2, &mv(&g1), &mv(&g2), margin);
    let near_margin = |cs: &[PreContact]| cs.iter().any(|c| (c.dist - margin).abs() < 1e-9);
    if near_margin(&a) || near_margin(&b) || a.len() != b.len() && t1 == GeomType::Capsule {
        // boundary of the margin, or a near-parallel capsule pair switching branch
        if t1 == GeomType::Capsule && a.len() != b.len() {
            // MuJoCo's parallel test: |z1 x z2|^2 <= 1e-8
            let s2 = g1.mat.z_axis.cross(g2.mat.z_axis).length_squared();
            prop_assert!(
                (s2 - 1e-8).abs() < 1e-12,
                "count changed away from the parallel threshold"
            );
        }
        return Ok(());
    }
    prop_assert_eq!(a.len(), b.len());
    for (ca, cb) in a.iter().zip(&b) {
        prop_assert!(
            (ca.dist - cb.dist).abs() < TOL,
            "{} vs {}",
            ca.dist,
            cb.dist
        );
        prop_assert!(
            close(r * ca.pos + shift, cb.pos, TOL),
            "{} vs {}",
            r * ca.pos + shift,
            cb.pos
        );
        prop_assert!(angle(r * ca.normal, cb.normal) < TOL);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn sphere_sphere_rigid_invariance(
        p1 in vec3(3.0), p2 in vec3(3.0), q1 in quat(), q2 in quat(),
        r1 in 0.01f64..2.0, r2 in 0.01f64..2.0, margin in 0.0f64..1.0,
        rot in quat(), shift in vec3(10.0),
    ) {
        let g1 = shape(p1, q1, DVec3::new(r1, 0.0, 0.0));
        let g2 = shape(p2, q2, DVec3::new(r2, 0.0, 0.0));
        check_rigid_invariance(GeomType::Sphere, GeomType::Sphere, g1, g2, margin, rot, shift)?;
    }

    #[test]
    fn capsule_capsule_rigid_invariance(
        p1 in vec3(3.0), p2 in vec3(3.0), q1 in quat(), q2 in quat(), parallel in 0u8..4,
        r1 in 0.01f64..1.0, r2 in 0.01f64..1.0, h1 in 0.01f64..2.0, h2 in 0.01f64..2.0,
        margin in 0.0f64..1.0, rot in quat(), shift in vec3(10.0),
    ) {
        // a quarter of the cases with parallel axes (identical frames)
        let q2 = if parallel == 0 { q1 } else { q2 };
        let g1 = shape(p1, q1, DVec3::new(r1, h1, 0.0));
        let g2 = shape(p2, q2, DVec3::new(r2, h2, 0.0));
        check_rigid_invariance(GeomType::Capsule, GeomType::Capsule, g1, g2, margin, rot, shift)?;
    }
}
