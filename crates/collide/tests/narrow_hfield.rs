//! Height field against convex geoms (`collide::narrow::hfield`) against MuJoCo 4.0.0.
//!
//! `data/narrow/hfield.json` is written by `conformance/narrow_hfield.py`: small random height
//! fields at random poses with a sphere, capsule, ellipsoid, cylinder, box or mesh above,
//! touching, within the margin or sunk in (some over an edge, some covering more than 50
//! prisms), each run with the native solver and with `nativeccd` disabled.
//!
//! - libccd cases: compared contact by contact (MuJoCo's order) and with the issue-4 criteria;
//! - native cases: the same, zero-margin box/mesh pairs (discrete GJK/EPA, where MuJoCo's
//!   early EPA stop makes the depth depend on the last bits of the arithmetic) reported
//!   separately.

use crate::narrow_mpr_util;

use collide::glam::{DMat3, DVec3};
use collide::narrow::convex::{CcdOptions, ConvexGeom};
use collide::narrow::hfield::{
    hfield_convex, hfield_prisms, hfield_query, CellRange, MAX_HFIELD_CONTACTS,
};
use collide::narrow::PreContact;
use collide::{GeomType, HField};
use narrow_mpr_util::*;

const DATA: &str = include_str!("data/narrow/hfield.json");

fn run(hf: &ConvexGeom, g: &ConvexGeom, margin: f64, opt: &CcdOptions) -> Vec<PreContact> {
    let mut out = [PreContact::default(); 64];
    let n = hfield_convex(hf, g, margin, opt, &mut out);
    assert!(n <= MAX_HFIELD_CONTACTS);
    out[..n].to_vec()
}

#[derive(Default)]
struct Order {
    cases: usize,
    same: usize,
    worst_dist: f64,
    worst_pos: f64,
    worst_angle: f64,
}

/// Compares every case of one solver. With `split`, zero-margin pairs with a box or mesh
/// (where GJK/EPA treat both shapes as discrete) go to the second `Stats`.
fn compare(doc: &Doc, native: bool, split: bool) -> (Stats, Stats, Order, Vec<String>) {
    let opt = ccd_options(native, true);
    let mut stats = Stats::default();
    let mut discrete = Stats::default();
    let mut order = Order::default();
    let mut notes = Vec::new();
    for case in doc.json.get("cases").arr() {
        if case.get("native").bool() != native {
            continue;
        }
        let name = case.get("name").str();
        let geoms = case.get("geoms").arr();
        let hf = geom(&geoms[0], doc);
        let g = geom(&geoms[1], doc);
        let margin = case.get("margin").num();
        let want = contacts(case.get("contacts"));
        let got = run(&hf, &g, margin, &opt);
        let is_discrete =
            split && margin == 0.0 && matches!(g.kind, GeomType::Box | GeomType::Mesh);
        if is_discrete {
            discrete.add(name, &got, &want, margin, ISSUE4, 1.0);
        } else {
            stats.add(name, &got, &want, margin, ISSUE4, 1.0);
        }
        order.cases += 1;
        if got.len() == want.len() {
            let mut same = true;
            for (c, w) in got.iter().zip(&want) {
                let dd = (c.dist - w.dist).abs();
                let dp = (c.pos - w.pos).length();
                let da = angle(c.normal, w.normal);
                order.worst_dist = order.worst_dist.max(dd);
                order.worst_pos = order.worst_pos.max(dp);
                order.worst_angle = order.worst_angle.max(da);
                same &= dd <= 1e-6 && da <= 1e-3;
            }
            order.same += same as usize;
            if !same {
                notes.push(format!("{name}: same count, a contact differs"));
            }
        } else {
            notes.push(format!(
                "{name}: {} contacts, MuJoCo {}",
                got.len(),
                want.len()
            ));
        }
    }
    (stats, discrete, order, notes)
}

#[test]
fn matches_mujoco_libccd() {
    let doc = load(DATA);
    let (stats, _, order, notes) = compare(&doc, false, false);
    println!("{}", stats.report("hfield, nativeccd disabled"));
    println!(
        "  contact by contact: {}/{} pairs with the same contacts in the same order (dist \
         within 1e-6, normal within 1e-3 rad); worst dist {:.2e}, pos {:.2e}, normal {:.2e} rad",
        order.same, order.cases, order.worst_dist, order.worst_pos, order.worst_angle
    );
    for n in notes.iter().take(10) {
        println!("    {n}");
    }
    assert!(
        stats.cases >= 500 && stats.both >= 300,
        "{}",
        stats.report("hfield")
    );
    assert!(
        stats.found_mismatch == 0 && stats.dist_fail == 0 && stats.angle_fail == 0,
        "{} failures:\n{}",
        stats.failures.len(),
        stats.failure_text(30)
    );
    assert!(stats.count_rate() >= 0.9);
}

#[test]
fn matches_mujoco_native() {
    let doc = load(DATA);
    let (stats, discrete, order, notes) = compare(&doc, true, true);
    println!("{}", stats.report("hfield, native GJK/EPA"));
    println!(
        "{}",
        discrete.report("hfield, native GJK/EPA, zero margin with box or mesh")
    );
    println!(
        "  contact by contact: {}/{} pairs identical within tolerance; worst dist {:.2e}, pos \
         {:.2e}, normal {:.2e} rad",
        order.same, order.cases, order.worst_dist, order.worst_pos, order.worst_angle
    );
    for n in notes.iter().take(10) {
        println!("    {n}");
    }
    assert!(
        stats.cases >= 500 && discrete.cases >= 100 && discrete.both >= 50,
        "{}",
        discrete.report("hfield")
    );
    for s in [&stats, &discrete] {
        assert!(
            s.found_mismatch == 0 && s.dist_fail == 0 && s.angle_fail == 0,
            "{} failures:\n{}",
            s.failures.len(),
            s.failure_text(30)
        );
        assert!(s.count_rate() >= 0.9);
    }
    // MuJoCo's prism object (no vertex index, 4.0.0's rounding) reproduces every contact, in
    // order, including the zero-margin box/mesh pairs whose discrete EPA stops early
    assert_eq!(order.same, order.cases, "{}", notes.join("\n"));
}

/// Every MuJoCo contact (either solver) lies on a prism the Rust side visits: its position,
/// moved half its distance towards the height field, is within the horizontal extent of a
/// visited prism. Checks cell selection independently of the solver.
#[test]
fn mujoco_contacts_lie_on_visited_prisms() {
    let doc = load(DATA);
    let mut checked = 0;
    for case in doc.json.get("cases").arr() {
        let geoms = case.get("geoms").arr();
        let hf = geom(&geoms[0], &doc);
        let g = geom(&geoms[1], &doc);
        let margin = case.get("margin").num();
        let want = contacts(case.get("contacts"));
        if want.is_empty() {
            continue;
        }
        let prisms = hfield_prisms(&hf, &g, margin);
        assert!(!prisms.is_empty(), "{}", case.get("name").str());
        let field = hf.hfield.unwrap();
        let dx = 2.0 * field.size[0] / (field.ncol - 1) as f64;
        let dy = 2.0 * field.size[1] / (field.nrow - 1) as f64;
        for c in &want {
            let local = hf.mat.transpose() * (c.pos - hf.pos);
            let near = prisms.iter().any(|p| {
                let (lo, hi) = p
                    .vert
                    .iter()
                    .fold((DVec3::MAX, DVec3::MIN), |(a, b), v| (a.min(*v), b.max(*v)));
                let slack = (c.dist.abs() + margin) + 1e-9 * (dx + dy);
                local.x >= lo.x - slack
                    && local.x <= hi.x + slack
                    && local.y >= lo.y - slack
                    && local.y <= hi.y + slack
            });
            assert!(
                near,
                "{}: contact {c:?} not over a visited prism",
                case.get("name").str()
            );
            checked += 1;
        }
    }
    assert!(checked > 1000, "{checked}");
}

// ------------------------------------------------------------------------------------------
// hand-worked cases
// ------------------------------------------------------------------------------------------

fn field(nrow: usize, ncol: usize, data: Vec<f32>) -> HField {
    HField {
        name: "h".into(),
        size: [1.0, 2.0, 0.5, 0.25],
        nrow,
        ncol,
        data,
    }
}

fn hgeom(f: &HField) -> ConvexGeom<'_> {
    ConvexGeom {
        kind: GeomType::HField,
        pos: DVec3::ZERO,
        mat: DMat3::IDENTITY,
        size: DVec3::new(1.0, 2.0, 0.25),
        hull: None,
        hfield: Some(f),
    }
}

fn sphere(pos: DVec3, r: f64) -> ConvexGeom<'static> {
    ConvexGeom {
        kind: GeomType::Sphere,
        pos,
        mat: DMat3::IDENTITY,
        size: DVec3::new(r, 0.0, 0.0),
        hull: None,
        hfield: None,
    }
}

#[test]
fn prisms_are_built_as_mujoco() {
    // 3 rows (y = -2, 0, 2), 3 columns (x = -1, 0, 1); heights 0..8 / 8 * 0.5
    let f = field(3, 3, (0..9).map(|i| i as f32 / 8.0).collect());
    let hf = hgeom(&f);
    // a big sphere over everything: all 8 prisms, lower row first, -x first
    let s = sphere(DVec3::new(0.0, 0.0, 0.4), 3.0);
    let q = hfield_query(&hf, &s, 0.0).unwrap();
    assert_eq!(
        q.cells,
        CellRange {
            cmin: 0,
            cmax: 2,
            rmin: 0,
            rmax: 2
        }
    );
    let p = hfield_prisms(&hf, &s, 0.0);
    assert_eq!(p.len(), 8);
    let z = |r: usize, c: usize| (r * 3 + c) as f64 / 8.0 * 0.5;
    let v = |r: usize, c: usize, top: bool| {
        DVec3::new(
            c as f64 - 1.0,
            2.0 * r as f64 - 2.0,
            if top { z(r, c) } else { -0.25 },
        )
    };
    // first prism: (c0, r1), (c0, r0), (c1, r1)
    assert_eq!(
        p[0].vert,
        [
            v(1, 0, false),
            v(0, 0, false),
            v(1, 1, false),
            v(1, 0, true),
            v(0, 0, true),
            v(1, 1, true)
        ]
    );
    // second: (c0, r0), (c1, r1), (c1, r0)
    assert_eq!(
        p[1].vert,
        [
            v(0, 0, false),
            v(1, 1, false),
            v(0, 1, false),
            v(0, 0, true),
            v(1, 1, true),
            v(0, 1, true)
        ]
    );
    assert_eq!((p[0].row, p[0].col, p[0].half), (0, 1, 0));
    assert_eq!((p[3].row, p[3].col, p[3].half), (0, 2, 1));
    assert_eq!((p[4].row, p[4].col, p[4].half), (1, 1, 0));
    // a small sphere over cell (row 1, col 1..2) only visits that cell's prisms
    let s = sphere(DVec3::new(0.5, 1.0, 0.8), 0.1);
    let p = hfield_prisms(&hf, &s, 0.0);
    assert!(p.iter().all(|p| p.row == 1 && p.col == 2), "{p:?}");
    // far above or beside: nothing
    assert!(hfield_query(&hf, &sphere(DVec3::new(0.0, 0.0, 2.0), 0.5), 0.0).is_none());
    assert!(hfield_query(&hf, &sphere(DVec3::new(1.6, 0.0, 0.0), 0.5), 0.0).is_none());
    // ... unless within the margin
    assert!(hfield_query(&hf, &sphere(DVec3::new(1.6, 0.0, 0.0), 0.5), 0.2).is_some());
}

#[test]
fn sphere_on_flat_field_libccd() {
    let f = field(2, 2, vec![0.0; 4]);
    let hf = hgeom(&f);
    let opt = ccd_options(false, true);
    let s = sphere(DVec3::new(0.2, -0.3, 0.09), 0.1);
    let c = run(&hf, &s, 0.0, &opt);
    // the sphere is over the diagonal-free part of one prism: one contact, depth 0.01
    assert!(!c.is_empty());
    for k in &c {
        assert!((k.dist + 0.01).abs() < 1e-6, "{k:?}");
        // MPR's contact point is only as good as its tolerance; the sphere normal follows it
        assert!(angle(k.normal, DVec3::Z) < 2e-3, "{k:?}");
    }
    // margin: reports the true gap
    let s = sphere(DVec3::new(0.2, -0.3, 0.105), 0.1);
    let c = run(&hf, &s, 0.01, &opt);
    assert!(!c.is_empty());
    assert!((c[0].dist - 0.005).abs() < 1e-6, "{c:?}");
    assert!(run(&hf, &s, 0.004, &opt).is_empty());
}

#[test]
fn at_most_fifty_contacts() {
    let f = field(
        16,
        16,
        (0..256).map(|i| ((i * 7919) % 13) as f32 / 12.0).collect(),
    );
    let hf = hgeom(&f);
    let b = ConvexGeom {
        kind: GeomType::Box,
        pos: DVec3::new(0.0, 0.0, 0.2),
        mat: DMat3::IDENTITY,
        size: DVec3::new(0.9, 1.9, 0.2),
        hull: None,
        hfield: None,
    };
    let c = run(&hf, &b, 0.0, &ccd_options(false, true));
    assert_eq!(c.len(), MAX_HFIELD_CONTACTS);
    let mut small = [PreContact::default(); 7];
    assert_eq!(
        hfield_convex(&hf, &b, 0.0, &ccd_options(false, true), &mut small),
        7
    );
}

// ------------------------------------------------------------------------------------------
// fuzz
// ------------------------------------------------------------------------------------------

#[test]
fn fuzz_no_panic_no_nan_contacts_near_both() {
    let doc = load(DATA);
    let mut rng = Rng(0x853c49e6748fea9b);
    let kinds = [
        GeomType::Sphere,
        GeomType::Capsule,
        GeomType::Ellipsoid,
        GeomType::Cylinder,
        GeomType::Box,
        GeomType::Mesh,
    ];
    let mut n = 0;
    for it in 0..4000 {
        let nrow = 2 + (rng.next() * 12.0) as usize;
        let ncol = 2 + (rng.next() * 12.0) as usize;
        let scale = 10f64.powf(rng.range(-2.0, 2.0));
        let f = HField {
            name: String::new(),
            size: [
                scale * rng.range(0.3, 2.0),
                scale * rng.range(0.3, 2.0),
                scale * rng.range(0.01, 1.0),
                scale * rng.range(0.01, 1.0),
            ],
            nrow,
            ncol,
            data: (0..nrow * ncol).map(|_| rng.next() as f32).collect(),
        };
        let hf = ConvexGeom {
            kind: GeomType::HField,
            pos: rng.unit() * scale * rng.next(),
            mat: if rng.next() < 0.5 {
                DMat3::IDENTITY
            } else {
                rng.rot()
            },
            size: DVec3::ONE,
            hull: None,
            hfield: Some(&f),
        };
        let kind = kinds[it % kinds.len()];
        let gs = scale * 10f64.powf(rng.range(-1.5, 0.3));
        let mut g = ConvexGeom {
            kind,
            pos: hf.pos
                + hf.mat
                    * DVec3::new(
                        rng.range(-1.3, 1.3) * f.size[0],
                        rng.range(-1.3, 1.3) * f.size[1],
                        rng.range(-0.5, 1.5) * f.size[2],
                    ),
            mat: rng.rot(),
            size: DVec3::new(
                rng.range(0.1, 1.0),
                rng.range(0.1, 1.0),
                rng.range(0.1, 1.0),
            ) * gs,
            hull: None,
            hfield: None,
        };
        if kind == GeomType::Mesh {
            g.hull = Some(&doc.meshes[it % doc.meshes.len()]);
        }
        let margin = if rng.next() < 0.5 {
            0.0
        } else {
            gs * rng.next()
        };
        let c = run(&hf, &g, margin, &ccd_options(false, true));
        let size = match kind {
            GeomType::Mesh => g
                .hull
                .unwrap()
                .vert
                .iter()
                .map(|v| v.length())
                .fold(0.0, f64::max),
            _ => g.size.length(),
        };
        let tol = 1e-5 * (scale + size + g.pos.length() + hf.pos.length()) + 1e-6;
        for k in &c {
            n += 1;
            assert!(
                k.dist.is_finite() && k.pos.is_finite() && k.normal.is_finite(),
                "{it}: {k:?}"
            );
            assert!(k.dist <= margin, "{it}: {k:?}");
            assert!((k.normal.length() - 1.0).abs() < 1e-9, "{it}: {k:?}");
            // near the geom (grown by margin and depth) ...
            let o = (0..32)
                .map(|_| {
                    let u = rng.unit();
                    u.dot(k.pos) - support(&g, u)
                })
                .fold(f64::NEG_INFINITY, f64::max);
            assert!(
                o <= margin + k.dist.abs() + tol,
                "{it}: {o:.3e} off the geom {k:?}"
            );
            // ... and not above the field's top or below its base by more than that
            let local = hf.mat.transpose() * (k.pos - hf.pos);
            assert!(
                local.z <= f.size[2] + margin + k.dist.abs() + tol
                    && local.z >= -f.size[3] - margin - k.dist.abs() - tol,
                "{it}: {local:?}"
            );
        }
    }
    assert!(n > 2000, "{n}");
}
