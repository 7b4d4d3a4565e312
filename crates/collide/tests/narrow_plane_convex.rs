//! Plane–ellipsoid and plane–mesh (`collide::narrow::plane_convex`) against MuJoCo 4.0.0.
//!
//! `data/narrow/plane_convex.json` is written by `conformance/narrow_plane_convex.py` (random
//! planes, ellipsoids and meshes at chosen heights, meshes often laid nearly flat on a hull
//! polygon, run through `mj_kinematics` + `mj_collision`). The comparison is contact by
//! contact, in MuJoCo's order.

use crate::narrow_mpr_util;

use collide::glam::{DMat3, DVec3};
use collide::narrow::convex::ConvexGeom;
use collide::narrow::plane_convex::plane_convex;
use collide::narrow::PreContact;
use collide::{ConvexHull, GeomType, HullGraph};
use narrow_mpr_util::*;

const DATA: &str = include_str!("data/narrow/plane_convex.json");

fn run(plane: &ConvexGeom, g: &ConvexGeom, margin: f64) -> Vec<PreContact> {
    let mut out = [PreContact::default(); 8];
    let n = plane_convex(plane, g, margin, &mut out);
    assert!(n <= 4, "{n} contacts");
    out[..n].to_vec()
}

#[derive(Default)]
struct Exact {
    cases: usize,
    touching: usize,
    same: usize,
    contacts: usize,
    dist: f64,
    pos: f64,
    angle: f64,
}

#[test]
fn matches_mujoco() {
    let doc = load(DATA);
    let mut exact = [Exact::default(), Exact::default()];
    let mut stats = [Stats::default(), Stats::default()];
    let mut failures = Vec::new();
    for case in doc.json.get("cases").arr() {
        let name = case.get("name").str();
        let geoms = case.get("geoms").arr();
        let plane = geom(&geoms[0], &doc);
        let g = geom(&geoms[1], &doc);
        let margin = case.get("margin").num();
        let want = contacts(case.get("contacts"));
        let got = run(&plane, &g, margin);
        let k = (g.kind == GeomType::Mesh) as usize;
        let scale = [
            g.pos.abs().max_element(),
            plane.pos.abs().max_element(),
            g.size.max_element(),
            margin,
            1.0,
        ]
        .into_iter()
        .fold(0.0, f64::max);
        stats[k].add(name, &got, &want, margin, ISSUE4, 1.0);
        let e = &mut exact[k];
        e.cases += 1;
        if got.len() != want.len() {
            // the driver's bounding tests (plane-sphere in the broad phase) drop pairs exactly
            // at the margin: MuJoCo then has nothing while the pair function reports contacts
            // with dist == margin
            let at_margin = |c: &PreContact| (c.dist - margin).abs() <= 1e-12 * scale;
            if want.is_empty() && got.iter().all(at_margin) {
                e.touching += 1;
                continue;
            }
            failures.push(format!(
                "{name}: {} contacts, MuJoCo {}\n  got {got:?}\n  want {want:?}",
                got.len(),
                want.len()
            ));
            continue;
        }
        let mut same = true;
        for (i, (c, w)) in got.iter().zip(&want).enumerate() {
            e.contacts += 1;
            let dd = (c.dist - w.dist).abs() / scale;
            let dp = (c.pos - w.pos).abs().max_element() / scale;
            let da = angle(c.normal, w.normal);
            e.dist = e.dist.max(dd);
            e.pos = e.pos.max(dp);
            e.angle = e.angle.max(da);
            if !(dd <= 1e-12 && dp <= 1e-12 && da <= 1e-12) {
                same = false;
                failures.push(format!(
                    "{name} contact {i}: dist err {dd:.2e}, pos err {dp:.2e}, normal err {da:.2e}\n  got {c:?}\n  want {w:?}"
                ));
            }
        }
        e.same += same as usize;
    }
    for (label, (e, s)) in ["plane-ellipsoid", "plane-mesh"]
        .iter()
        .zip(exact.iter().zip(&stats))
    {
        println!(
            "{label}: {}/{} pairs identical (all contacts, in order, within 1e-12 relative), {} \
             more exactly at the margin (dropped by MuJoCo's broad phase); {} contacts; worst \
             dist {:.2e}, pos {:.2e}, normal {:.2e} rad",
            e.same, e.cases, e.touching, e.contacts, e.dist, e.pos, e.angle
        );
        println!("  {}", s.report(label));
    }
    assert!(exact[0].cases > 300 && exact[1].cases > 1000);
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

fn ground() -> ConvexGeom<'static> {
    ConvexGeom {
        kind: GeomType::Plane,
        pos: DVec3::ZERO,
        mat: DMat3::IDENTITY,
        size: DVec3::ONE,
        hull: None,
        hfield: None,
    }
}

/// A box-shaped hull (8 vertices) with its graph and 6 quads, as MuJoCo would store it.
fn box_hull(h: DVec3) -> ConvexHull {
    let vert: Vec<DVec3> = (0..8)
        .map(|i| {
            DVec3::new(
                if i & 1 != 0 { h.x } else { -h.x },
                if i & 2 != 0 { h.y } else { -h.y },
                if i & 4 != 0 { h.z } else { -h.z },
            )
        })
        .collect();
    let mut adj_start = vec![0u32];
    let mut adj = Vec::new();
    for i in 0..8u32 {
        for b in [1u32, 2, 4] {
            adj.push(i ^ b);
        }
        adj_start.push(adj.len() as u32);
    }
    // quads, counter-clockwise seen from outside
    let polys: [([u32; 4], DVec3); 6] = [
        ([0, 2, 3, 1], -DVec3::Z),
        ([4, 5, 7, 6], DVec3::Z),
        ([0, 1, 5, 4], -DVec3::Y),
        ([2, 6, 7, 3], DVec3::Y),
        ([0, 4, 6, 2], -DVec3::X),
        ([1, 3, 7, 5], DVec3::X),
    ];
    let mut poly_start = vec![0u32];
    let mut poly_vert = Vec::new();
    let mut poly_normal = Vec::new();
    let mut face = Vec::new();
    for (p, n) in polys {
        poly_vert.extend_from_slice(&p);
        poly_start.push(poly_vert.len() as u32);
        poly_normal.push(n);
        face.push([p[0], p[1], p[2]]);
        face.push([p[0], p[2], p[3]]);
    }
    let mut extrema = [0u32; 27];
    for (e, slot) in extrema.iter_mut().enumerate() {
        let d = DVec3::new(
            (e / 9) as f64 - 1.0,
            ((e / 3) % 3) as f64 - 1.0,
            (e % 3) as f64 - 1.0,
        );
        let mut best = 0;
        for (i, v) in vert.iter().enumerate() {
            if v.dot(d) > vert[best].dot(d) {
                best = i;
            }
        }
        *slot = best as u32;
    }
    let graph = HullGraph::new(&vert, &adj_start, &adj).expect("valid hull graph");
    ConvexHull {
        vert,
        mesh_index: (0..8).collect(),
        mesh_nvert: 0,
        graph,
        face,
        poly_start,
        poly_vert,
        poly_normal,
        extrema,
        vert_poly_start: Vec::new(),
        vert_poly: Vec::new(),
    }
}

#[test]
fn resting_box_mesh_gives_four_corners() {
    let hull = box_hull(DVec3::new(0.5, 0.25, 0.125));
    let g = ConvexGeom {
        kind: GeomType::Mesh,
        pos: DVec3::new(0.0, 0.0, 0.1),
        mat: DMat3::IDENTITY,
        size: DVec3::ONE,
        hull: Some(&hull),
        hfield: None,
    };
    let c = run(&ground(), &g, 0.0);
    assert_eq!(c.len(), 4);
    for k in &c {
        assert!((k.dist + 0.025).abs() < 1e-15);
        assert_eq!(k.normal, DVec3::Z);
        assert!((k.pos.z + 0.0125).abs() < 1e-15);
    }
    // the four bottom corners, each once
    let mut xy: Vec<(i32, i32)> = c
        .iter()
        .map(|k| (k.pos.x.signum() as i32, k.pos.y.signum() as i32))
        .collect();
    xy.sort();
    assert_eq!(xy, vec![(-1, -1), (-1, 1), (1, -1), (1, 1)]);
    // above the margin: nothing; within it: all four
    let g2 = ConvexGeom {
        pos: DVec3::new(0.0, 0.0, 0.2),
        ..g
    };
    assert!(run(&ground(), &g2, 0.07).is_empty());
    assert_eq!(run(&ground(), &g2, 0.08).len(), 4);
}

#[test]
fn box_mesh_contacts_same_with_vertex_polygon_index() {
    // the polygon facing the plane is found from the hull's vertex-to-polygon index when it
    // is built, else by scanning the polygons: same contacts, bit for bit, at any pose
    let plain = box_hull(DVec3::new(0.3, 0.2, 0.1));
    let mut indexed = plain.clone();
    indexed.index_vertex_polygons();
    assert!(!indexed.vert_poly.is_empty());
    let mut compared = 0;
    for k in 0..200 {
        let t = k as f64;
        let axis = DVec3::new((0.7 * t).sin(), (1.3 * t).cos(), 0.5 + (0.3 * t).sin()).normalize();
        let mat = DMat3::from_axis_angle(axis, 0.37 * t);
        let geom = |hull| ConvexGeom {
            kind: GeomType::Mesh,
            pos: DVec3::new(0.0, 0.0, 0.05 + 0.002 * (k % 50) as f64),
            mat,
            size: DVec3::ONE,
            hull: Some(hull),
            hfield: None,
        };
        let a = run(&ground(), &geom(&plain), 0.01);
        let b = run(&ground(), &geom(&indexed), 0.01);
        assert_eq!(a, b, "pose {k}");
        compared += usize::from(a.len() > 1);
    }
    assert!(compared > 20, "only {compared} poses with polygon contacts");
}

#[test]
fn tilted_box_mesh_skips_corners_beyond_margin() {
    let hull = box_hull(DVec3::new(0.5, 0.5, 0.5));
    let mat = DMat3::from_axis_angle(DVec3::Y, 0.3);
    let g = ConvexGeom {
        kind: GeomType::Mesh,
        pos: DVec3::new(0.0, 0.0, 0.6),
        mat,
        size: DVec3::ONE,
        hull: Some(&hull),
        hfield: None,
    };
    let c = run(&ground(), &g, 0.0);
    // lowest edge penetrates (two corners), the other bottom corners are above the plane
    assert_eq!(c.len(), 2);
    let low = -(0.5 * 0.3f64.cos() + 0.5 * 0.3f64.sin()) + 0.6;
    for k in &c {
        assert!((k.dist - low).abs() < 1e-12, "{k:?}");
    }
}

#[test]
fn ellipsoid_contact_is_support_point() {
    let g = ConvexGeom {
        kind: GeomType::Ellipsoid,
        pos: DVec3::new(1.0, 2.0, 0.25),
        mat: DMat3::IDENTITY,
        size: DVec3::new(0.5, 0.4, 0.3),
        hull: None,
        hfield: None,
    };
    let c = run(&ground(), &g, 0.0);
    assert_eq!(c.len(), 1);
    assert!((c[0].dist + 0.05).abs() < 1e-15);
    assert!((c[0].pos - DVec3::new(1.0, 2.0, -0.025)).length() < 1e-15);
    assert!(run(
        &ground(),
        &ConvexGeom {
            pos: DVec3::new(1.0, 2.0, 0.31),
            ..g
        },
        0.0
    )
    .is_empty());
}

// ------------------------------------------------------------------------------------------
// fuzz: random planes, ellipsoids and oracle meshes at random poses
// ------------------------------------------------------------------------------------------

#[test]
fn fuzz_no_panic_no_nan_contacts_on_shapes() {
    let doc = load(DATA);
    let mut rng = Rng(0x9e3779b97f4a7c15);
    let mut n_contacts = 0;
    for it in 0..20_000 {
        let scale = 10f64.powf(rng.range(-3.0, 3.0));
        let plane = ConvexGeom {
            kind: GeomType::Plane,
            pos: rng.unit() * scale * rng.next(),
            mat: rng.rot(),
            size: DVec3::ONE,
            hull: None,
            hfield: None,
        };
        let mesh = &doc.meshes[it % doc.meshes.len()];
        let g = if it % 3 == 0 {
            ConvexGeom {
                kind: GeomType::Ellipsoid,
                pos: rng.unit() * scale * 2.0 * rng.next(),
                mat: rng.rot(),
                size: DVec3::new(
                    rng.range(0.01, 1.0),
                    rng.range(0.01, 1.0),
                    rng.range(0.01, 1.0),
                ) * scale,
                hull: None,
                hfield: None,
            }
        } else {
            ConvexGeom {
                kind: GeomType::Mesh,
                pos: rng.unit() * scale * 2.0 * rng.next(),
                mat: rng.rot(),
                size: DVec3::ONE,
                hull: Some(mesh),
                hfield: None,
            }
        };
        let margin = if rng.next() < 0.5 {
            0.0
        } else {
            scale * rng.next()
        };
        // mesh hulls are in their own units; the oracle meshes span ~0.01..30
        let c = run(&plane, &g, margin);
        let size = match g.kind {
            GeomType::Mesh => mesh.vert.iter().map(|v| v.length()).fold(0.0, f64::max),
            _ => g.size.max_element(),
        };
        let tol = 1e-9 * (size + scale + g.pos.length() + plane.pos.length());
        for k in &c {
            n_contacts += 1;
            assert!(
                k.dist.is_finite() && k.pos.is_finite() && k.normal.is_finite(),
                "{k:?}"
            );
            assert!(k.dist <= margin);
            assert!((k.normal.length() - 1.0).abs() < 1e-12);
            // half the distance above the plane, and the other end on the geom
            let h = (k.pos - plane.pos).dot(plane.mat.z_axis);
            assert!(
                (h - k.dist / 2.0).abs() <= tol,
                "{it}: height {h} vs dist/2 {}",
                k.dist / 2.0
            );
            let w = k.pos + k.normal * (k.dist / 2.0);
            assert!(
                outside_by(&g, w, &mut rng) <= tol,
                "{it}: witness off the geom"
            );
        }
    }
    assert!(n_contacts > 5000, "{n_contacts}");
}
