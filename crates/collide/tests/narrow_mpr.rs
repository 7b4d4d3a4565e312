//! libccd's MPR path (`collide::narrow::convex::mpr::mpr_penetration`) against MuJoCo 4.0.0
//! with `nativeccd` disabled.
//!
//! `data/narrow/mpr.json` is written by `conformance/narrow_mpr.py`: random pairs of
//! ellipsoids, cylinders, boxes, meshes, spheres and capsules touching at their support points
//! along a random direction, then moved apart or together (penetrating, shallow, within the
//! margin, separated). Most cases disable multiccd, so MuJoCo reports the single MPR contact
//! (compared with `mpr_penetration`); the others keep it (MuJoCo then adds contacts found by
//! perturbing the poses, with the first contact's dist), compared with `mpr_convex`, all
//! contacts in order.
//!
//! Criteria (issue 4): pairs found agree except within 1e-6 of touching, deepest dist within
//! 1e-6, deepest normal within 1e-3 rad, equal counts on at least 90% of the pairs.

use crate::narrow_mpr_util;

use collide::glam::{DMat3, DVec3};
use collide::narrow::convex::mpr::{mpr_convex, mpr_penetration};
use collide::narrow::convex::{CcdOptions, ConvexGeom};
use collide::narrow::PreContact;
use collide::GeomType;
use narrow_mpr_util::*;

const DATA: &str = include_str!("data/narrow/mpr.json");

fn run(g1: &ConvexGeom, g2: &ConvexGeom, margin: f64, opt: &CcdOptions) -> Vec<PreContact> {
    let mut out = [PreContact::default(); 4];
    let n = mpr_penetration(g1, g2, margin, opt, &mut out);
    assert!(n <= 1);
    out[..n].to_vec()
}

#[test]
fn matches_mujoco() {
    let doc = load(DATA);
    let opt = ccd_options(false, false);
    let mut single = Stats::default();
    let mut multi = Stats::default();
    let mut per_pair: Vec<(String, Stats)> = Vec::new();
    let mut multi_all = MultiAll::default();
    let mut worst_pos: f64 = 0.0;
    let mut worst_pos_case = String::new();
    for case in doc.json.get("cases").arr() {
        let name = case.get("name").str();
        let geoms = case.get("geoms").arr();
        let g1 = geom(&geoms[0], &doc);
        let g2 = geom(&geoms[1], &doc);
        let margin = case.get("margin").num();
        let want = contacts(case.get("contacts"));
        if case.get("multiccd").bool() {
            let mut out = [PreContact::default(); 8];
            let n = mpr_convex(&g1, &g2, margin, &ccd_options(false, true), &mut out);
            let got = &out[..n];
            multi.add(name, got, &want, margin, ISSUE4, 1.0);
            multi_all.cases += 1;
            if got.len() == want.len() {
                let mut same = true;
                for (c, w) in got.iter().zip(&want) {
                    let dd = (c.dist - w.dist).abs();
                    let dp = (c.pos - w.pos).length();
                    let da = angle(c.normal, w.normal);
                    multi_all.dist = multi_all.dist.max(dd);
                    multi_all.pos = multi_all.pos.max(dp);
                    multi_all.angle = multi_all.angle.max(da);
                    same &= dd <= 1e-6 && da <= 1e-3;
                }
                multi_all.same += same as usize;
                if !same {
                    println!("    differs: {name}\n      got {got:?}\n      want {want:?}");
                }
                multi_all.multi += (same && want.len() > 1) as usize;
            }
            multi_all.with_multi += (want.len() > 1) as usize;
            continue;
        }
        let got = run(&g1, &g2, margin, &opt);
        // multiccd off: mpr_convex is the single MPR contact
        let mut out = [PreContact::default(); 8];
        let n = mpr_convex(&g1, &g2, margin, &opt, &mut out);
        assert_eq!(&out[..n], &got[..], "{name}");
        single.add(name, &got, &want, margin, ISSUE4, 1.0);
        if let (Some(g), Some(w)) = (got.first(), want.first()) {
            let dp = (g.pos - w.pos).length();
            if dp > worst_pos {
                worst_pos = dp;
                worst_pos_case = name.to_owned();
            }
        }
        let pair = format!("{}-{}", g1.kind.name(), g2.kind.name());
        let slot = match per_pair.iter().position(|(p, _)| *p == pair) {
            Some(i) => i,
            None => {
                per_pair.push((pair.clone(), Stats::default()));
                per_pair.len() - 1
            }
        };
        per_pair[slot].1.add(name, &got, &want, margin, ISSUE4, 1.0);
    }
    println!("{}", single.report("MPR, multiccd off"));
    println!("  worst position difference {worst_pos:.2e} ({worst_pos_case})");
    per_pair.sort_by(|a, b| a.0.cmp(&b.0));
    for (p, s) in &per_pair {
        println!("    {}", s.report(p));
    }
    println!(
        "{}",
        multi.report("MPR with perturbation contacts, multiccd on")
    );
    println!(
        "  all contacts in order: {}/{} pairs identical (dist within 1e-6, normal within 1e-3 \
         rad), {} of the {} pairs where MuJoCo has several contacts; worst dist {:.2e}, pos \
         {:.2e}, normal {:.2e} rad",
        multi_all.same,
        multi_all.cases,
        multi_all.multi,
        multi_all.with_multi,
        multi_all.dist,
        multi_all.pos,
        multi_all.angle
    );
    assert!(
        single.cases >= 1000 && single.both >= 500,
        "{}",
        single.report("single")
    );
    for s in [&single, &multi] {
        assert!(
            s.found_mismatch == 0 && s.dist_fail == 0 && s.angle_fail == 0,
            "{} failures:\n{}",
            s.failures.len(),
            s.failure_text(30)
        );
    }
    assert!(single.count_rate() >= 0.9 && multi.count_rate() >= 0.9);
}

#[derive(Default)]
struct MultiAll {
    cases: usize,
    same: usize,
    multi: usize,
    with_multi: usize,
    dist: f64,
    pos: f64,
    angle: f64,
}

// ------------------------------------------------------------------------------------------
// hand-worked cases
// ------------------------------------------------------------------------------------------

fn shape(kind: GeomType, pos: DVec3, mat: DMat3, size: DVec3) -> ConvexGeom<'static> {
    ConvexGeom {
        kind,
        pos,
        mat,
        size,
        hull: None,
        hfield: None,
    }
}

#[test]
fn ellipsoids_along_axis() {
    let opt = ccd_options(false, false);
    let a = shape(
        GeomType::Ellipsoid,
        DVec3::ZERO,
        DMat3::IDENTITY,
        DVec3::new(0.5, 0.3, 0.2),
    );
    let b = shape(
        GeomType::Ellipsoid,
        DVec3::new(0.0, 0.0, 0.35),
        DMat3::IDENTITY,
        DVec3::new(0.4, 0.4, 0.2),
    );
    let c = run(&a, &b, 0.0, &opt);
    assert_eq!(c.len(), 1);
    // overlap of 0.05 along z; the normal is fixed analytically to +z
    assert!((c[0].dist + 0.05).abs() < 1e-5, "{:?}", c[0]);
    assert!(angle(c[0].normal, DVec3::Z) < 1e-9, "{:?}", c[0]);
    // with margin 0.1 and a gap of 0.05: a contact with dist 0.05
    let b2 = shape(
        GeomType::Ellipsoid,
        DVec3::new(0.0, 0.0, 0.45),
        DMat3::IDENTITY,
        b.size,
    );
    let c = run(&a, &b2, 0.1, &opt);
    assert_eq!(c.len(), 1);
    assert!((c[0].dist - 0.05).abs() < 1e-5, "{:?}", c[0]);
    assert!(run(&a, &b2, 0.04, &opt).is_empty());
}

#[test]
fn boxes_face_to_face() {
    let opt = ccd_options(false, false);
    let a = shape(
        GeomType::Box,
        DVec3::ZERO,
        DMat3::IDENTITY,
        DVec3::splat(0.5),
    );
    let b = shape(
        GeomType::Cylinder,
        DVec3::new(0.1, 0.0, 0.9),
        DMat3::IDENTITY,
        DVec3::new(0.3, 0.5, 0.0),
    );
    let c = run(&a, &b, 0.0, &opt);
    assert_eq!(c.len(), 1);
    assert!((c[0].dist + 0.1).abs() < 1e-6, "{:?}", c[0]);
    assert!(angle(c[0].normal, DVec3::Z) < 1e-6, "{:?}", c[0]);
}

#[test]
fn unsupported_inputs_give_nothing() {
    let opt = ccd_options(false, false);
    let a = shape(GeomType::Mesh, DVec3::ZERO, DMat3::IDENTITY, DVec3::ONE);
    let b = shape(GeomType::Sphere, DVec3::ZERO, DMat3::IDENTITY, DVec3::ONE);
    assert!(run(&a, &b, 0.0, &opt).is_empty());
    let p = shape(GeomType::Plane, DVec3::ZERO, DMat3::IDENTITY, DVec3::ONE);
    assert!(run(&p, &b, 0.0, &opt).is_empty());
    let nan = shape(
        GeomType::Box,
        DVec3::new(f64::NAN, 0.0, 0.0),
        DMat3::IDENTITY,
        DVec3::ONE,
    );
    assert!(run(&nan, &b, 0.0, &opt).is_empty());
    assert!(run(&b, &b, f64::NAN, &opt).is_empty());
    let mut out: [PreContact; 0] = [];
    assert_eq!(mpr_penetration(&b, &b, 0.0, &opt, &mut out), 0);
}

// ------------------------------------------------------------------------------------------
// fuzz
// ------------------------------------------------------------------------------------------

#[test]
fn fuzz_no_panic_no_nan_contacts_on_shapes() {
    let doc = load(DATA);
    let opt = ccd_options(false, false);
    let kinds = [
        GeomType::Sphere,
        GeomType::Capsule,
        GeomType::Ellipsoid,
        GeomType::Cylinder,
        GeomType::Box,
        GeomType::Mesh,
    ];
    let mut rng = Rng(0x2545f4914f6cdd1d);
    let mut n = 0;
    for it in 0..20_000 {
        let scale = 10f64.powf(rng.range(-3.0, 2.0));
        let mk = |rng: &mut Rng, k: GeomType| -> ConvexGeom {
            let mut g = shape(
                k,
                rng.unit() * scale * rng.next(),
                rng.rot(),
                DVec3::new(
                    rng.range(0.05, 1.0),
                    rng.range(0.05, 1.0),
                    rng.range(0.05, 1.0),
                ) * scale,
            );
            if rng.next() < 0.1 {
                g.mat = DMat3::IDENTITY;
            }
            if k == GeomType::Mesh {
                let h =
                    &doc.meshes[(rng.next() * doc.meshes.len() as f64) as usize % doc.meshes.len()];
                g.hull = Some(h);
                g.pos =
                    rng.unit() * rng.next() * h.vert.iter().map(|v| v.length()).fold(0.0, f64::max);
            }
            g
        };
        let k1 = kinds[it % kinds.len()];
        let k2 = kinds[(it / kinds.len()) % kinds.len()];
        let g1 = mk(&mut rng, k1);
        let g2 = mk(&mut rng, k2);
        let margin = if rng.next() < 0.5 {
            0.0
        } else {
            scale * rng.next() * 0.5
        };
        let c = run(&g1, &g2, margin, &opt);
        let size = |g: &ConvexGeom| match g.kind {
            GeomType::Mesh => g
                .hull
                .unwrap()
                .vert
                .iter()
                .map(|v| v.length())
                .fold(0.0, f64::max),
            _ => g.size.length(),
        };
        let tol =
            1e-5 * (size(&g1) + size(&g2) + g1.pos.length() + g2.pos.length() + margin) + 1e-6;
        for k in &c {
            n += 1;
            assert!(
                k.dist.is_finite() && k.pos.is_finite() && k.normal.is_finite(),
                "{it}: {k:?}"
            );
            assert!(k.dist <= margin, "{it}: {k:?}");
            assert!((k.normal.length() - 1.0).abs() < 1e-9, "{it}: {k:?}");
            // the contact point lies in both shapes grown by the margin and the depth (MPR's
            // point is a blend of the two witness points, each on or in the other shape)
            for g in [&g1, &g2] {
                let o = outside_by(g, k.pos, &mut rng);
                assert!(
                    o <= margin + k.dist.abs() + tol,
                    "{it}: contact {o:.3e} outside {:?} ({k:?})",
                    g.kind
                );
            }
        }
    }
    assert!(n > 3000, "{n}");
}
