//! The general convex collider (`narrow::convex`) against closed forms, against the values of
//! MuJoCo's `engine_collision_gjk_test.cc`, and under fuzzing (no panic, no NaN, every contact
//! within the margin of both shapes).

use collide::glam::{DMat3, DQuat, DVec3};
use collide::math::mat_from_rows;
use collide::narrow::convex::{
    convex_pair, convex_pair_report, max_contacts, CcdOptions, ConvexGeom, EpaStatus,
};
use collide::narrow::PreContact;
use collide::{ConvexHull, GeomType, HullGraph};

// ------------------------------------------------------------------------------------------
// helpers
// ------------------------------------------------------------------------------------------

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    fn range(&mut self, a: f64, b: f64) -> f64 {
        a + (b - a) * self.unit()
    }
    fn normal(&mut self) -> f64 {
        let u = self.unit().max(1e-300);
        let v = self.unit();
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }
    fn dir(&mut self) -> DVec3 {
        loop {
            let v = DVec3::new(self.normal(), self.normal(), self.normal());
            if v.length() > 1e-6 {
                return v.normalize();
            }
        }
    }
    fn rot(&mut self) -> DMat3 {
        let q = DQuat::from_xyzw(self.normal(), self.normal(), self.normal(), self.normal());
        DMat3::from_quat(q.normalize())
    }
    fn pick(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Angle between two directions, exact near 0 (glam's `angle_between` uses `acos`, which
/// cannot resolve angles below ~1.5e-8).
fn angle(a: DVec3, b: DVec3) -> f64 {
    a.cross(b).length().atan2(a.dot(b))
}

fn geom<'a>(kind: GeomType, pos: DVec3, mat: DMat3, size: DVec3) -> ConvexGeom<'a> {
    ConvexGeom {
        kind,
        pos,
        mat,
        size,
        hull: None,
        hfield: None,
    }
}

fn mesh(pos: DVec3, mat: DMat3, hull: &ConvexHull) -> ConvexGeom<'_> {
    ConvexGeom {
        kind: GeomType::Mesh,
        pos,
        mat,
        size: DVec3::ONE,
        hull: Some(hull),
        hfield: None,
    }
}

fn run(g1: &ConvexGeom, g2: &ConvexGeom, margin: f64, opt: &CcdOptions) -> Vec<PreContact> {
    let mut out = [PreContact::default(); 8];
    let n = convex_pair(g1, g2, margin, opt, &mut out);
    out[..n].to_vec()
}

fn deepest(c: &[PreContact]) -> PreContact {
    *c.iter()
        .min_by(|a, b| a.dist.total_cmp(&b.dist))
        .expect("no contact")
}

fn close(a: DVec3, b: DVec3, tol: f64) -> bool {
    (a - b).abs().max_element() <= tol
}

fn single() -> CcdOptions {
    CcdOptions {
        multi: false,
        ..CcdOptions::default()
    }
}

fn rows(m: [f64; 9]) -> DMat3 {
    mat_from_rows([m[0], m[1], m[2]], [m[3], m[4], m[5]], [m[6], m[7], m[8]])
}

/// A convex hull from vertices and faces (counter-clockwise seen from outside), with the graph,
/// polygons, triangles and the 27 extrema, as the convex collider expects.
fn hull_from_polys(vert: &[DVec3], polys: &[Vec<u32>]) -> ConvexHull {
    let n = vert.len();
    let mut nbrs: Vec<Vec<u32>> = vec![Vec::new(); n];
    let mut poly_start = vec![0u32];
    let mut poly_vert = Vec::new();
    let mut poly_normal = Vec::new();
    let mut face = Vec::new();
    for p in polys {
        for (i, &a) in p.iter().enumerate() {
            let b = p[(i + 1) % p.len()];
            if !nbrs[a as usize].contains(&b) {
                nbrs[a as usize].push(b);
            }
            if !nbrs[b as usize].contains(&a) {
                nbrs[b as usize].push(a);
            }
        }
        for k in 1..p.len() - 1 {
            face.push([p[0], p[k], p[k + 1]]);
        }
        let (a, b, c) = (
            vert[p[0] as usize],
            vert[p[1] as usize],
            vert[p[2] as usize],
        );
        poly_normal.push((b - a).cross(c - a).normalize());
        poly_vert.extend_from_slice(p);
        poly_start.push(poly_vert.len() as u32);
    }
    let mut adj_start = vec![0u32];
    let mut adj = Vec::new();
    for l in &nbrs {
        adj.extend_from_slice(l);
        adj_start.push(adj.len() as u32);
    }
    let mut extrema = [0u32; 27];
    for (k, e) in extrema.iter_mut().enumerate() {
        let d = DVec3::new(
            (k / 9) as f64 - 1.0,
            ((k / 3) % 3) as f64 - 1.0,
            (k % 3) as f64 - 1.0,
        );
        let mut best = 0;
        for (i, v) in vert.iter().enumerate() {
            if d.dot(*v) > d.dot(vert[best]) {
                best = i;
            }
        }
        *e = best as u32;
    }
    let graph = HullGraph::new(vert, &adj_start, &adj).expect("valid hull graph");
    ConvexHull {
        vert: vert.to_vec(),
        mesh_index: (0..n as u32).collect(),
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

fn box_hull(h: DVec3) -> ConvexHull {
    let v: Vec<DVec3> = (0..8)
        .map(|i| {
            DVec3::new(
                if i & 1 != 0 { h.x } else { -h.x },
                if i & 2 != 0 { h.y } else { -h.y },
                if i & 4 != 0 { h.z } else { -h.z },
            )
        })
        .collect();
    let polys = vec![
        vec![1, 3, 7, 5],
        vec![0, 4, 6, 2],
        vec![2, 6, 7, 3],
        vec![0, 1, 5, 4],
        vec![4, 5, 7, 6],
        vec![0, 2, 3, 1],
    ];
    hull_from_polys(&v, &polys)
}

fn prism_hull(n: usize, r: f64, h: f64) -> ConvexHull {
    let mut v = Vec::new();
    for z in [-h, h] {
        for k in 0..n {
            let a = std::f64::consts::TAU * k as f64 / n as f64;
            v.push(DVec3::new(r * a.cos(), r * a.sin(), z));
        }
    }
    let n32 = n as u32;
    let mut polys = vec![(0..n32).rev().collect::<Vec<_>>(), (n32..2 * n32).collect()];
    for k in 0..n32 {
        let k1 = (k + 1) % n32;
        polys.push(vec![k, k1, n32 + k1, n32 + k]);
    }
    hull_from_polys(&v, &polys)
}

fn tet_hull(s: f64) -> ConvexHull {
    let v = [
        DVec3::new(s, s, s),
        DVec3::new(s, -s, -s),
        DVec3::new(-s, s, -s),
        DVec3::new(-s, -s, s),
    ];
    let polys = vec![vec![0, 1, 2], vec![0, 3, 1], vec![0, 2, 3], vec![1, 3, 2]];
    hull_from_polys(&v, &polys)
}

// ------------------------------------------------------------------------------------------
// closed forms
// ------------------------------------------------------------------------------------------

/// Sphere–sphere through the convex path (cores reduced to points): exact distance, normal and
/// midpoint under random rigid transforms, shallow and deep, with and without margin.
#[test]
fn sphere_sphere_closed_form() {
    let mut rng = Rng(0x5eed_0001);
    let opt = CcdOptions::default();
    for _ in 0..2000 {
        let scale = 10f64.powf(rng.range(-2.0, 2.0));
        let r1 = scale * rng.range(0.1, 1.0);
        let r2 = scale * rng.range(0.1, 1.0);
        let margin = if rng.unit() < 0.5 {
            0.0
        } else {
            scale * rng.range(0.0, 0.2)
        };
        let gap = rng.range(-0.9 * r1.min(r2), margin + 0.1 * scale);
        let rot = rng.rot();
        let t = DVec3::new(rng.normal(), rng.normal(), rng.normal()) * scale;
        let n = rng.dir();
        let c1 = t;
        let c2 = t + n * (r1 + r2 + gap);
        let g1 = geom(GeomType::Sphere, c1, rot, DVec3::new(r1, 0.0, 0.0));
        let g2 = geom(GeomType::Sphere, c2, rng.rot(), DVec3::new(r2, 0.0, 0.0));
        let c = run(&g1, &g2, margin, &opt);
        let expect_dist = (c2 - c1).length() - r1 - r2;
        if expect_dist >= margin {
            assert!(c.is_empty(), "gap {gap} margin {margin}: {c:?}");
            continue;
        }
        assert_eq!(c.len(), 1);
        let tol = 1e-12 * scale.max(1.0) * 10.0;
        assert!(
            (c[0].dist - expect_dist).abs() <= tol,
            "{} vs {expect_dist}",
            c[0].dist
        );
        assert!(close(c[0].normal, n, 1e-9), "{:?} vs {n:?}", c[0].normal);
        let mid = 0.5 * ((c1 + n * r1) + (c2 - n * r2));
        assert!(close(c[0].pos, mid, tol), "{:?} vs {mid:?}", c[0].pos);
    }
}

/// Box–box through the convex path: a small box resting face down on a large one with a random
/// yaw, sunk by `d`, then a random rigid transform on both: four contacts at the small box's
/// bottom corners, all at `-d`, normal along the large box's face; tilted by a small angle, the
/// deepest contact is the lowest corner's depth times the cosine of the tilt and the normal is
/// the small box's face normal (MuJoCo measures along the reference face of geom 1, scales by
/// the angle between the faces, and reports the incident face's normal).
#[test]
fn box_box_closed_form() {
    let mut rng = Rng(0x5eed_0002);
    let opt = CcdOptions::default();
    for case in 0..1000 {
        let a = DVec3::new(
            rng.range(1.0, 2.0),
            rng.range(1.0, 2.0),
            rng.range(0.2, 1.0),
        );
        let b = DVec3::new(
            rng.range(0.1, 0.4),
            rng.range(0.1, 0.4),
            rng.range(0.1, 0.4),
        );
        let d = rng.range(1e-4, 0.05);
        let yaw = rng.range(0.0, std::f64::consts::TAU);
        let tilt = if case % 2 == 0 {
            0.0
        } else {
            rng.range(0.0, 0.05)
        };
        let tilt_axis = DVec3::new(rng.normal(), rng.normal(), 0.0).normalize();
        let rb = DMat3::from_axis_angle(tilt_axis, tilt) * DMat3::from_rotation_z(yaw);
        let offset = DVec3::new(rng.range(-0.5, 0.5), rng.range(-0.5, 0.5), 0.0);
        // lowest bottom corner at depth d below the top face
        let corners: Vec<DVec3> = (0..8)
            .map(|i| {
                rb * DVec3::new(
                    if i & 1 != 0 { b.x } else { -b.x },
                    if i & 2 != 0 { b.y } else { -b.y },
                    if i & 4 != 0 { b.z } else { -b.z },
                )
            })
            .collect();
        let low = corners.iter().map(|c| c.z).fold(f64::MAX, f64::min);
        let pb_local = offset + DVec3::new(0.0, 0.0, a.z - d - low);
        // random rigid transform of the whole scene
        let (rot, t) = (
            rng.rot(),
            DVec3::new(rng.normal(), rng.normal(), rng.normal()),
        );
        let g1 = geom(GeomType::Box, t, rot, a);
        let g2 = geom(GeomType::Box, t + rot * pb_local, rot * rb, b);
        let c = run(&g1, &g2, 0.0, &opt);
        // face-face: the normal is the incident (small box's bottom) face's, reversed
        let up = rot * rb * DVec3::Z;
        let deep = deepest(&c);
        let expect = -d * tilt.cos();
        assert!(
            (deep.dist - expect).abs() < 1e-9,
            "case {case}: {} vs {expect}",
            deep.dist
        );
        assert!(
            angle(deep.normal, up) < 1e-9,
            "case {case}: normal {:?}",
            deep.normal
        );
        // every contact is a bottom corner of the small box projected onto its face
        for k in &c {
            assert!(k.dist <= 1e-12, "case {case}: {k:?}");
        }
        if tilt == 0.0 {
            assert_eq!(c.len(), 4, "case {case}");
            for k in &c {
                assert!((k.dist + d).abs() < 1e-9, "case {case}: {k:?}");
            }
        }
    }
}

/// Contacts never come back for separated shapes, and always for overlapping ones, across all
/// type pairs (up to the tolerance), under random rigid transforms of the same configuration.
#[test]
fn rigid_transform_invariance() {
    let mut rng = Rng(0x5eed_0003);
    let opt = CcdOptions::default();
    let hull = prism_hull(6, 0.3, 0.15);
    let kinds = [
        GeomType::Sphere,
        GeomType::Capsule,
        GeomType::Ellipsoid,
        GeomType::Cylinder,
        GeomType::Box,
        GeomType::Mesh,
    ];
    for _ in 0..600 {
        let k1 = kinds[rng.pick(6)];
        let k2 = kinds[rng.pick(6)];
        let (k1, k2) = if (k1 as usize) <= (k2 as usize) {
            (k1, k2)
        } else {
            (k2, k1)
        };
        let s1 = DVec3::new(
            rng.range(0.1, 0.3),
            rng.range(0.1, 0.3),
            rng.range(0.1, 0.3),
        );
        let s2 = DVec3::new(
            rng.range(0.1, 0.3),
            rng.range(0.1, 0.3),
            rng.range(0.1, 0.3),
        );
        let r1 = rng.rot();
        let r2 = rng.rot();
        let p2 = rng.dir() * rng.range(0.0, 0.8);
        let margin = if rng.unit() < 0.5 {
            0.0
        } else {
            rng.range(0.0, 0.05)
        };
        let make = |k: GeomType, p: DVec3, r: DMat3, s: DVec3| -> ConvexGeom<'_> {
            if k == GeomType::Mesh {
                mesh(p, r, &hull)
            } else {
                geom(k, p, r, s)
            }
        };
        let base = run(
            &make(k1, DVec3::ZERO, r1, s1),
            &make(k2, p2, r2, s2),
            margin,
            &opt,
        );
        for _ in 0..3 {
            let (rot, t) = (
                rng.rot(),
                DVec3::new(rng.normal(), rng.normal(), rng.normal()),
            );
            let c = run(
                &make(k1, t, rot * r1, s1),
                &make(k2, t + rot * p2, rot * r2, s2),
                margin,
                &opt,
            );
            match (base.is_empty(), c.is_empty()) {
                (true, true) => {}
                (false, false) => {
                    let (a, b) = (deepest(&base), deepest(&c));
                    // GJK/EPA stop at the tolerance: the depth agrees to about that much
                    assert!(
                        (a.dist - b.dist).abs() < 1e-5,
                        "{k1:?}-{k2:?}: {a:?} vs {b:?}"
                    );
                }
                (e, _) => {
                    let other = if e { &c } else { &base };
                    let d = deepest(other).dist;
                    assert!(
                        d > margin - 1e-5,
                        "{k1:?}-{k2:?}: found only once, dist {d}"
                    );
                }
            }
        }
    }
}

// ------------------------------------------------------------------------------------------
// engine_collision_gjk_test.cc
// ------------------------------------------------------------------------------------------

fn at(x: f64, y: f64, z: f64) -> DVec3 {
    DVec3::new(x, y, z)
}

#[test]
fn gjk_sphere_sphere() {
    let i = DMat3::IDENTITY;
    let opt = CcdOptions {
        iterations: 1000,
        ..CcdOptions::default()
    };
    // SphereSphereNoDist
    let g1 = geom(GeomType::Sphere, at(-1.5, 0.0, 0.0), i, at(1.0, 0.0, 0.0));
    let g2 = geom(GeomType::Sphere, at(1.5, 0.0, 0.0), i, at(1.0, 0.0, 0.0));
    assert!(run(&g1, &g2, 0.0, &opt).is_empty());
    // SphereSphereDist: distance 1 (seen through a margin)
    let c = run(&g1, &g2, 2.0, &opt);
    assert_eq!(c.len(), 1);
    assert_eq!(c[0].dist, 1.0);
    assert!(close(c[0].pos, DVec3::ZERO, 0.0));
    // SphereSphereIntersect
    let g1 = geom(GeomType::Sphere, at(-1.0, 0.0, 0.0), i, at(3.0, 0.0, 0.0));
    let g2 = geom(GeomType::Sphere, at(3.0, 0.0, 0.0), i, at(3.0, 0.0, 0.0));
    let c = run(&g1, &g2, 0.0, &opt);
    assert_eq!(c.len(), 1);
    assert!((c[0].dist + 2.0).abs() < 1e-6);
    assert!(close(c[0].normal, DVec3::X, 1e-6));
    assert!(close(c[0].pos, at(1.0, 0.0, 0.0), 1e-6));
}

#[test]
fn gjk_box_box() {
    let i = DMat3::IDENTITY;
    let opt = CcdOptions {
        iterations: 1000,
        multi: false,
        ..CcdOptions::default()
    };
    // BoxBoxDepth
    let g1 = geom(GeomType::Box, at(-1.0, 0.0, 0.0), i, at(2.5, 2.5, 2.5));
    let g2 = geom(GeomType::Box, at(1.5, 0.0, 0.0), i, at(1.0, 1.0, 1.0));
    let c = run(&g1, &g2, 0.0, &opt);
    assert_eq!(c.len(), 1);
    assert!((c[0].dist + 1.0).abs() < 1e-6);
    assert!(close(c[0].normal, DVec3::X, 1e-6));
    // BoxBox distance 1
    let g1 = geom(GeomType::Box, at(-1.5, 0.5, 0.0), i, at(1.0, 1.0, 1.0));
    let g2 = geom(GeomType::Box, at(1.5, 0.0, 0.0), i, at(1.0, 1.0, 1.0));
    let c = run(&g1, &g2, 2.0, &opt);
    assert_eq!(c.len(), 1);
    assert!((c[0].dist - 1.0).abs() < 1e-9);
    // BoxBoxDepth3
    let g1 = geom(
        GeomType::Box,
        at(
            -0.015_346_499_999_999_2,
            -0.023505500000000002,
            -4.562296442400121,
        ),
        rows([
            0.9659258262890682,
            -0.25881904510252074,
            6.339100926609e-18,
            0.25881904510252074,
            0.9659258262890682,
            -2.14827792362716e-16,
            4.9478422780336e-17,
            2.09148392896446e-16,
            1.0,
        ]),
        at(0.25, 0.25, 0.05),
    );
    let g2 = geom(
        GeomType::Box,
        at(-0.015346499999999798, -0.023_505_5, -4.659230360891631),
        rows([
            0.8660254037844387,
            -0.49999999999999994,
            1.8716705841316e-17,
            0.49999999999999994,
            0.8660254037844387,
            -2.6316173687573e-16,
            1.15371725704125e-16,
            2.37263102359077e-16,
            1.0,
        ]),
        at(0.25, 0.25, 0.05),
    );
    let c = run(&g1, &g2, 0.0, &opt);
    assert_eq!(c.len(), 1);
    assert!((c[0].dist + 0.003066).abs() < 1e-6, "{}", c[0].dist);
    assert!(close(c[0].normal, -DVec3::Z, 1e-6));
    // BoxBoxTouching
    let z = 1.859_913_200_000_001_4;
    let g1 = geom(GeomType::Box, at(0.0, 0.0, z), i, at(1.0, 1.0, 1.0));
    let g2 = geom(GeomType::Box, at(0.0, 2.0, z), i, at(1.0, 1.0, 1.0));
    assert!(run(&g1, &g2, 0.0, &opt).is_empty());
}

#[test]
fn gjk_box_box_multi() {
    let i = DMat3::IDENTITY;
    let opt = CcdOptions {
        iterations: 1000,
        ..CcdOptions::default()
    };
    let has = |c: &[PreContact], p: DVec3| c.iter().any(|k| close(k.pos, p, 1e-6));
    // BoxBoxMultiCCD
    let g1 = geom(GeomType::Box, at(0.0, 0.0, 1.9), i, at(1.0, 1.0, 1.0));
    let g2 = geom(GeomType::Box, at(0.0, 0.0, 0.0), i, at(10.0, 10.0, 1.0));
    let c = run(&g1, &g2, 0.0, &opt);
    assert_eq!(c.len(), 4);
    for k in &c {
        assert!((k.dist + 0.1).abs() < 1e-6);
        assert!(close(k.normal, -DVec3::Z, 1e-6));
    }
    for p in [
        at(-1.0, 1.0, 0.95),
        at(1.0, 1.0, 0.95),
        at(1.0, -1.0, 0.95),
        at(-1.0, -1.0, 0.95),
    ] {
        assert!(has(&c, p), "{p:?} missing from {c:?}");
    }
    // BoxBoxMultiCCD2
    let g1 = geom(GeomType::Box, at(9.5, 9.5, 1.9), i, at(1.0, 1.0, 1.0));
    let c = run(&g1, &g2, 0.0, &opt);
    assert_eq!(c.len(), 4);
    for p in [
        at(8.5, 10.0, 0.95),
        at(10.0, 10.0, 0.95),
        at(10.0, 8.5, 0.95),
        at(8.5, 8.5, 0.95),
    ] {
        assert!(has(&c, p), "{p:?} missing from {c:?}");
    }
    // BoxBoxMultiCCD4: two thin boxes turned 60° against each other: an octagon
    let s = at(0.25, 0.25, 0.05);
    let g1 = geom(
        GeomType::Box,
        at(
            -0.015346718925143525,
            -0.023500448793229847,
            -4.85938271725998,
        ),
        rows([
            0.5000632466941185,
            -0.8659888850785822,
            -1.5036290463686326e-5,
            0.8659888852088018,
            0.5000632466036506,
            9.541064416582983e-6,
            -7.433595104331356e-7,
            -1.7792396065397684e-5,
            0.9999999998414385,
        ]),
        s,
    );
    let g2 = geom(
        GeomType::Box,
        at(
            -0.015347749710384112,
            -0.02350060127321363,
            -4.958782854594746,
        ),
        rows([
            0.9999999994486337,
            -3.320742076119545e-5,
            -4.492552733386883e-8,
            3.3207420790006527e-5,
            0.999999999448429,
            6.414586527410463e-7,
            4.490422612170667e-8,
            -6.414601442482573e-7,
            0.9999999999997944,
        ]),
        s,
    );
    let c = run(&g1, &g2, 0.0, &opt);
    assert_eq!(c.len(), 8);
    let d = deepest(&c);
    assert!(
        (d.dist + 0.000_604_251_192_427_074_6).abs() < 1e-6,
        "{}",
        d.dist
    );
    assert!(close(d.normal, -DVec3::Z, 1e-4), "{:?}", d.normal);
}

#[test]
fn gjk_ellipsoids_and_capsules() {
    let i = DMat3::IDENTITY;
    let opt = CcdOptions {
        iterations: 1000,
        ..CcdOptions::default()
    };
    // EllipsoidEllipsoid distance 0.7542, and EllipsoidEllipsoidIntersect with margin 15
    let g1 = geom(
        GeomType::Ellipsoid,
        at(1.5, 0.0, -0.5),
        i,
        at(0.15, 0.30, 0.20),
    );
    let g2 = geom(
        GeomType::Ellipsoid,
        at(1.5, 0.5, 0.5),
        i,
        at(0.10, 0.10, 0.15),
    );
    let c = run(&g1, &g2, 1.0, &opt);
    assert_eq!(c.len(), 1);
    assert!((c[0].dist - 0.7542).abs() < 1e-4, "{}", c[0].dist);
    let c = run(&g1, &g2, 15.0, &opt);
    assert!(
        (c[0].dist - (15.0 - 14.245_732_934_582_15)).abs() < 1e-6,
        "{}",
        c[0].dist
    );
    // CapsuleCapsule distance 0.4711
    let g1 = geom(
        GeomType::Capsule,
        at(-0.3, 0.2, -0.4),
        i,
        at(0.15, 0.30, 0.0),
    );
    let g2 = geom(GeomType::Capsule, at(0.3, 0.2, 0.4), i, at(0.10, 0.10, 0.0));
    let c = run(&g1, &g2, 1.0, &opt);
    assert!((c[0].dist - 0.4711).abs() < 1e-4, "{}", c[0].dist);
    // EllipsoidEllipsoidPenetrating (free body from a keyframe)
    let q = DQuat::from_xyzw(0.155468, 0.00454524, 1.60038e-06, 0.98783).normalize();
    let g1 = geom(
        GeomType::Ellipsoid,
        at(0.0, 0.0, -0.1),
        i,
        at(0.1, 0.1, 0.1),
    );
    let g2 = geom(
        GeomType::Ellipsoid,
        at(0.000886189, -0.0303047, 0.0951303),
        DMat3::from_quat(q),
        at(0.01, 0.02, 0.1),
    );
    let c = run(&g1, &g2, 0.0, &opt);
    assert_eq!(c.len(), 1);
    assert!(
        (c[0].dist + 0.000_225_488_562_481_220_27).abs() < 1e-6,
        "{}",
        c[0].dist
    );
}

#[test]
fn gjk_long_box_mesh() {
    // LongBox: a long thin box mesh lying on a box, turned 40° about z
    let hull = box_hull(at(0.6, 0.03, 0.03));
    let g1 = geom(
        GeomType::Box,
        at(0.0, 0.0, -0.3),
        DMat3::IDENTITY,
        at(1.0, 1.0, 0.3),
    );
    let g2 = mesh(
        at(0.0, 0.0, 0.02),
        DMat3::from_rotation_z(40f64.to_radians()),
        &hull,
    );
    let c = run(
        &g1,
        &g2,
        0.0,
        &CcdOptions {
            iterations: 1000,
            multi: false,
            ..Default::default()
        },
    );
    assert_eq!(c.len(), 1);
    assert!((c[0].dist + 0.01).abs() < 1e-6, "{}", c[0].dist);
    assert!(close(c[0].normal, DVec3::Z, 1e-6));
    assert!(
        close(c[0].pos, at(0.0, 0.0, -0.005), 1e-6),
        "{:?}",
        c[0].pos
    );
    let c = run(
        &g1,
        &g2,
        0.0,
        &CcdOptions {
            iterations: 1000,
            ..Default::default()
        },
    );
    assert_eq!(c.len(), 4);
    for k in &c {
        assert!((k.dist + 0.01).abs() < 1e-6);
    }
}

// ------------------------------------------------------------------------------------------
// reports and options
// ------------------------------------------------------------------------------------------

#[test]
fn report_and_limits() {
    let i = DMat3::IDENTITY;
    let g1 = geom(GeomType::Ellipsoid, at(0.0, 0.0, 0.0), i, at(0.3, 0.2, 0.1));
    let g2 = geom(
        GeomType::Ellipsoid,
        at(0.0, 0.0, 0.15),
        DMat3::from_rotation_x(0.4),
        at(0.1, 0.2, 0.1),
    );
    let mut out = [PreContact::default(); 4];
    // default budget: converged
    let rep = convex_pair_report(&g1, &g2, 0.0, &CcdOptions::default(), &mut out);
    assert_eq!(rep.ncon, 1);
    assert_eq!(rep.epa_status, EpaStatus::Ok);
    assert!(!rep.gjk_exhausted && !rep.epa_exhausted, "{rep:?}");
    let converged = out[0].dist;
    // a tiny budget is reported, and the depth is a lower bound (dist an upper bound)
    let opt = CcdOptions {
        iterations: 6,
        ..CcdOptions::default()
    };
    let rep = convex_pair_report(&g1, &g2, 0.0, &opt, &mut out);
    if rep.ncon == 1 {
        assert!(rep.epa_exhausted || rep.gjk_exhausted, "{rep:?}");
        assert!(
            out[0].dist >= converged - 1e-9,
            "{} vs {converged}",
            out[0].dist
        );
    }
    // max_contacts per type pair
    let o = CcdOptions::default();
    assert_eq!(max_contacts(GeomType::Sphere, GeomType::Mesh, &o), 1);
    assert_eq!(max_contacts(GeomType::Ellipsoid, GeomType::Box, &o), 1);
    assert_eq!(max_contacts(GeomType::Capsule, GeomType::Cylinder, &o), 2);
    assert_eq!(max_contacts(GeomType::Capsule, GeomType::Mesh, &o), 2);
    assert_eq!(max_contacts(GeomType::Cylinder, GeomType::Cylinder, &o), 4);
    assert_eq!(max_contacts(GeomType::Box, GeomType::Mesh, &o), 4);
    assert_eq!(max_contacts(GeomType::Mesh, GeomType::Mesh, &o), 4);
    assert_eq!(max_contacts(GeomType::Mesh, GeomType::Mesh, &single()), 1);
    // an empty output buffer, a mesh without hull, non-finite input: nothing, no panic
    let g3 = ConvexGeom {
        kind: GeomType::Mesh,
        hull: None,
        ..g1
    };
    assert_eq!(convex_pair(&g1, &g2, 0.0, &o, &mut []), 0);
    assert_eq!(convex_pair(&g1, &g3, 0.0, &o, &mut out), 0);
    let g4 = ConvexGeom {
        pos: at(f64::NAN, 0.0, 0.0),
        ..g1
    };
    assert_eq!(convex_pair(&g4, &g2, 0.0, &o, &mut out), 0);
    let mut g5 = g1;
    g5.mat.y_axis.z = f64::INFINITY;
    assert_eq!(convex_pair(&g5, &g2, 0.0, &o, &mut out), 0);
    let g6 = ConvexGeom {
        size: DVec3::new(1.0, f64::NEG_INFINITY, 1.0),
        ..g2
    };
    assert_eq!(convex_pair(&g1, &g6, 0.0, &o, &mut out), 0);
    // the same pair with finite data does touch (so the zeros above are the input check's)
    assert!(convex_pair(&g1, &g2, 0.0, &o, &mut out) > 0);
}

// ------------------------------------------------------------------------------------------
// fuzz
// ------------------------------------------------------------------------------------------

/// Whether `p` lies within `delta` of the shape (a superset test: boxes, cylinders and
/// ellipsoids grown by `delta` along their axes, meshes through their face planes).
fn near_shape(g: &ConvexGeom, p: DVec3, delta: f64) -> bool {
    let l = g.mat.transpose() * (p - g.pos);
    let s = g.size;
    match g.kind {
        GeomType::Sphere => l.length() <= s.x + delta,
        GeomType::Capsule => {
            let z = l.z.clamp(-s.y, s.y);
            (l - DVec3::new(0.0, 0.0, z)).length() <= s.x + delta
        }
        GeomType::Ellipsoid => {
            let e = s + DVec3::splat(delta);
            (l / e).length_squared() <= 1.0 + 1e-9
        }
        GeomType::Cylinder => l.truncate().length() <= s.x + delta && l.z.abs() <= s.y + delta,
        GeomType::Box => (l.abs() - s).max_element() <= delta,
        GeomType::Mesh => {
            let h = g.hull.unwrap();
            (0..h.poly_normal.len()).all(|k| {
                let v = h.vert[h.poly_vert[h.poly_start[k] as usize] as usize];
                h.poly_normal[k].dot(l - v) <= delta
            })
        }
        _ => true,
    }
}

#[test]
fn fuzz_no_panic_no_nan_contacts_near_both() {
    let mut rng = Rng(0x5eed_f022);
    let hulls = [
        box_hull(at(0.2, 0.1, 0.15)),
        prism_hull(6, 0.2, 0.1),
        prism_hull(3, 0.25, 0.2),
        tet_hull(0.15),
        prism_hull(12, 0.2, 0.05),
    ];
    let kinds = [
        GeomType::Sphere,
        GeomType::Capsule,
        GeomType::Ellipsoid,
        GeomType::Cylinder,
        GeomType::Box,
        GeomType::Mesh,
    ];
    let mut total = 0;
    for case in 0..20000 {
        let k1 = kinds[rng.pick(6)];
        let k2 = kinds[rng.pick(6)];
        let (k1, k2) = if (k1 as usize) <= (k2 as usize) {
            (k1, k2)
        } else {
            (k2, k1)
        };
        let scale = if case % 10 == 0 {
            10f64.powf(rng.range(-3.0, 3.0))
        } else {
            1.0
        };
        let size = |rng: &mut Rng| {
            DVec3::new(
                rng.range(0.02, 0.3),
                rng.range(0.02, 0.3),
                rng.range(0.02, 0.3),
            ) * scale
        };
        let (s1, s2) = (size(&mut rng), size(&mut rng));
        let h1 = &hulls[rng.pick(hulls.len())];
        let h2 = &hulls[rng.pick(hulls.len())];
        // special poses: identical, coincident centres, axis aligned, random
        let mode = rng.pick(8);
        let r1 = if mode == 1 {
            DMat3::IDENTITY
        } else {
            rng.rot()
        };
        let r2 = match mode {
            0 => r1,
            1 => DMat3::IDENTITY,
            _ => rng.rot(),
        };
        let p1 = DVec3::new(rng.normal(), rng.normal(), rng.normal()) * scale;
        let p2 = match mode {
            0 | 2 => p1,
            _ => p1 + rng.dir() * rng.range(0.0, 0.6) * scale,
        };
        let margin = if rng.unit() < 0.5 {
            0.0
        } else {
            rng.range(0.0, 0.05) * scale
        };
        let iterations = if rng.unit() < 0.1 { rng.pick(10) } else { 35 };
        let opt = CcdOptions {
            iterations,
            multi: rng.unit() < 0.9,
            ..CcdOptions::default()
        };
        let g1 = if k1 == GeomType::Mesh {
            ConvexGeom {
                size: s1,
                ..mesh(p1, r1, h1)
            }
        } else {
            geom(k1, p1, r1, s1)
        };
        let g2 = if k2 == GeomType::Mesh {
            ConvexGeom {
                size: s2,
                ..mesh(p2, r2, h2)
            }
        } else {
            geom(k2, p2, r2, s2)
        };
        // meshes keep their hull's own scale: rescale the hull vertices would change the hull,
        // so the mesh geoms here are only used at scale 1
        if (k1 == GeomType::Mesh || k2 == GeomType::Mesh) && scale != 1.0 {
            continue;
        }
        let mut out = [PreContact::default(); 8];
        let n = convex_pair(&g1, &g2, margin, &opt, &mut out);
        assert!(n <= max_contacts(k1, k2, &opt), "case {case}: {n} contacts");
        total += n;
        for c in &out[..n] {
            assert!(
                c.dist.is_finite() && c.pos.is_finite() && c.normal.is_finite(),
                "case {case} {k1:?}-{k2:?}: {c:?}"
            );
            assert!((c.normal.length() - 1.0).abs() < 1e-9, "case {case}: {c:?}");
            assert!(
                c.dist <= margin + 1e-9 * scale,
                "case {case} {k1:?}-{k2:?}: {c:?} margin {margin}"
            );
            let delta = margin + c.dist.abs() + 1e-6 * scale;
            assert!(
                near_shape(&g1, c.pos, delta),
                "case {case} {k1:?}-{k2:?}: {c:?} far from geom 1"
            );
            assert!(
                near_shape(&g2, c.pos, delta),
                "case {case} {k1:?}-{k2:?}: {c:?} far from geom 2"
            );
        }
    }
    assert!(total > 5000, "only {total} contacts");
}
