//! The exact non-convex mesh path (`narrow::mesh_exact`): hand-worked analytic answers on
//! meshes built in code, the normal-cone rule on flat triangulations, and swap / rigid-motion
//! properties.

use crate::mesh_shapes;

use collide::glam::{DMat3, DVec3};
use collide::narrow::mesh_exact::{
    mesh_mesh, primitive_mesh, MeshScratch, TriMesh, TriMeshError, MAX_MESH_CONTACTS,
};
use collide::narrow::{PreContact, Shape, MAX_PAIR_CONTACTS};
use collide::GeomType;
use mesh_shapes::*;
use proptest::prelude::*;

fn at(pos: DVec3, mat: DMat3, size: DVec3) -> Shape {
    Shape { pos, mat, size }
}

fn placed(pos: DVec3, mat: DMat3) -> Shape {
    at(pos, mat, DVec3::ZERO)
}

fn prim(kind: GeomType, s: &Shape, mesh: &TriMesh, ms: &Shape, margin: f64) -> Vec<PreContact> {
    let mut out = [PreContact::default(); MAX_PAIR_CONTACTS];
    let mut scratch = MeshScratch::new();
    let n = primitive_mesh(kind, s, ms, mesh, margin, &mut scratch, &mut out);
    assert!(n <= MAX_MESH_CONTACTS);
    out[..n].to_vec()
}

fn meshes(s1: &Shape, m1: &TriMesh, s2: &Shape, m2: &TriMesh, margin: f64) -> Vec<PreContact> {
    let mut out = [PreContact::default(); MAX_PAIR_CONTACTS];
    let mut scratch = MeshScratch::new();
    let n = mesh_mesh(s1, m1, s2, m2, margin, &mut scratch, &mut out);
    assert!(n <= MAX_MESH_CONTACTS);
    out[..n].to_vec()
}

fn deepest(cs: &[PreContact]) -> PreContact {
    *cs.iter()
        .min_by(|a, b| a.dist.total_cmp(&b.dist))
        .expect("at least one contact")
}

fn angle(a: DVec3, b: DVec3) -> f64 {
    a.normalize().dot(b.normalize()).clamp(-1.0, 1.0).acos()
}

/// Largest distance between a triangle of `s` whose vertices lie on the sphere of radius `r`
/// about the origin and that sphere (the sagitta of the tessellation).
fn sagitta(s: &Soup, r: f64) -> f64 {
    s.face
        .iter()
        .map(|t| t.map(|i| s.vert[i as usize]))
        .filter(|c| c.iter().all(|p| (p.length() - r).abs() < 1e-9))
        .map(|[a, b, c]| r - (b - a).cross(c - a).normalize().dot(a).abs())
        .fold(0.0, f64::max)
}

#[test]
fn sphere_in_hemispherical_bowl_radial_normal_and_depth() {
    let (r_in, r_out, nlat, nlon) = (1.0, 1.2, 24, 48);
    let soup = bowl(r_in, r_out, nlat, nlon);
    let mesh = soup.mesh();
    let sag = sagitta(&soup, r_in);
    assert!(sag > 0.0 && sag < 1e-2, "sagitta {sag}");
    let step =
        (std::f64::consts::PI / 2.0 / nlat as f64).max(2.0 * std::f64::consts::PI / nlon as f64);
    let r = 0.3;
    for (phi, lam, gap) in [
        (2.9, 0.4, -0.01),
        (2.5, 1.3, -0.02),
        (2.2, 4.0, 0.005),
        (std::f64::consts::PI - 1e-3, 0.1, -0.001),
    ] {
        let u = dir(phi, lam);
        let c = u * (r_in - r - gap);
        let cs = prim(
            GeomType::Sphere,
            &at(c, DMat3::IDENTITY, DVec3::new(r, 0.0, 0.0)),
            &mesh,
            &placed(DVec3::ZERO, DMat3::IDENTITY),
            0.01,
        );
        let d = deepest(&cs);
        // exact: dist = r_in - |c| - r = gap; the flat faces lie inside the sphere of radius
        // r_in by at most the sagitta, and tilt the normal by at most one grid step
        assert!(
            (d.dist - gap).abs() <= sag + 1e-12,
            "phi {phi}: dist {} vs {gap} (sagitta {sag})",
            d.dist
        );
        for k in &cs {
            // the normal points from the sphere (geom 1) into the bowl: radially outwards
            assert!(
                angle(k.normal, u) <= step,
                "normal {:?} vs radial {u:?}",
                k.normal
            );
        }
    }
    // well inside the cavity: nothing (the outer surface's faces never report)
    let cs = prim(
        GeomType::Sphere,
        &at(
            DVec3::new(0.0, 0.0, -0.4),
            DMat3::IDENTITY,
            DVec3::new(r, 0.0, 0.0),
        ),
        &mesh,
        &placed(DVec3::ZERO, DMat3::IDENTITY),
        0.0,
    );
    assert!(cs.is_empty(), "{cs:?}");
}

#[test]
fn capsule_and_cylinder_through_torus_hole() {
    let (big, small, nu, nv) = (1.0, 0.3, 64, 32);
    let mesh = torus(big, small, nu, nv).mesh();
    let pi = std::f64::consts::PI;
    // the polygon departs from the torus by at most these sagittas
    let bound = (big - small) * (1.0 - (pi / nu as f64).cos())
        + small * (1.0 - (pi / nv as f64).cos())
        + 1e-12;
    // radius 0.2, half-length 1 either way
    let size = DVec3::new(0.2, 1.0, 0.0);
    let torus_at = placed(DVec3::ZERO, DMat3::IDENTITY);
    for kind in [GeomType::Capsule, GeomType::Cylinder] {
        // centred: the hole has radius 0.7, the capsule 0.2
        for margin in [0.0, 0.4] {
            let cs = prim(
                kind,
                &at(DVec3::ZERO, DMat3::IDENTITY, size),
                &mesh,
                &torus_at,
                margin,
            );
            assert!(cs.is_empty(), "margin {margin}: {cs:?}");
        }
        // offset along x: dist = (R - r) - x - r_capsule, normal +x (capsule to torus)
        for x in [0.45, 0.5, 0.55, 0.6] {
            let cs = prim(
                kind,
                &at(DVec3::new(x, 0.0, 0.0), DMat3::IDENTITY, size),
                &mesh,
                &torus_at,
                0.0,
            );
            let expect = big - small - x - size.x;
            if expect > bound {
                assert!(cs.is_empty(), "x {x}: {cs:?}");
                continue;
            }
            let d = deepest(&cs);
            assert!(
                (d.dist - expect).abs() <= bound,
                "x {x}: {} vs {expect}",
                d.dist
            );
            assert!(
                angle(d.normal, DVec3::X) <= pi / nv as f64,
                "{:?}",
                d.normal
            );
            assert!((d.pos.x - (big - small + x + size.x) / 2.0).abs() < 0.01);
        }
    }
}

#[test]
fn box_sliding_on_fine_plane_has_only_the_plane_normal() {
    let mesh = grid(2.0, 40).mesh();
    assert_eq!(mesh.ntri(), 3200);
    let plane = placed(DVec3::ZERO, DMat3::IDENTITY);
    let half = DVec3::new(0.3, 0.2, 0.1);
    let mut total = 0;
    for i in 0..80 {
        let x = -1.0 + 0.0251 * i as f64;
        for (yaw, roll) in [(0.0, 0.0), (0.3, 0.0), (1.1, 0.05), (2.0, -0.2)] {
            let mat = rot(DVec3::Z, yaw) * rot(DVec3::X, roll);
            // lowest corner 5 mm below the plane
            let low: f64 = (0..3).map(|k| (mat.row(2)[k] * half[k]).abs()).sum();
            let z = low - 0.005;
            let cs = prim(
                GeomType::Box,
                &at(DVec3::new(x, 0.3 * x, z), mat, half),
                &mesh,
                &plane,
                0.0,
            );
            assert!(!cs.is_empty() && cs.len() <= MAX_MESH_CONTACTS);
            for c in &cs {
                assert_eq!(c.normal, -DVec3::Z, "x {x} yaw {yaw} roll {roll}: {c:?}");
                // every contact is at a penetrating box point: its depth is at most 5 mm
                assert!(c.dist <= 1e-12 && c.dist >= -0.005 - 1e-12, "{c:?}");
            }
            assert!((deepest(&cs).dist + 0.005).abs() < 1e-12);
            total += cs.len();
        }
    }
    assert!(total >= 320);
    // a sphere rolling across the sheet: the plane normal, the right depth, one contact
    for i in 0..200 {
        let c = DVec3::new(-1.0 + 0.0103 * i as f64, 0.05 * i as f64 % 1.0, 0.099);
        let cs = prim(
            GeomType::Sphere,
            &at(c, DMat3::IDENTITY, DVec3::new(0.1, 0.0, 0.0)),
            &mesh,
            &plane,
            0.0,
        );
        assert_eq!(cs.len(), 1, "{cs:?}");
        assert_eq!(cs[0].normal, -DVec3::Z);
        assert!((cs[0].dist + 0.001).abs() < 1e-12);
    }
}

#[test]
fn crossed_bars_edge_edge_contact_without_vertex_penetration() {
    let h = DVec3::new(2.0, 0.2, 0.2);
    let quarter = std::f64::consts::FRAC_PI_4;
    // bar A along x, bar B along y, each turned 45° about its length: ridges cross
    let ma = rot(DVec3::X, quarter);
    let mb = rot(DVec3::Z, std::f64::consts::FRAC_PI_2) * rot(DVec3::X, quarter);
    let a = box_mesh(h).mapped(|p| ma * p);
    let b = box_mesh(h).mapped(|p| mb * p);
    let ridge = 0.2 * 2f64.sqrt();
    let delta = 0.01;
    let zb = 2.0 * ridge - delta;
    // no vertex of one bar is inside the other
    let inside = |p: DVec3, m: DMat3| {
        let l = m.transpose() * p;
        l.x.abs() < h.x && l.y.abs() < h.y && l.z.abs() < h.z
    };
    assert!(b.vert.iter().all(|&p| !inside(p + DVec3::Z * zb, ma)));
    assert!(a.vert.iter().all(|&p| !inside(p - DVec3::Z * zb, mb)));
    let (ma_mesh, mb_mesh) = (a.mesh(), b.mesh());
    let sa = placed(DVec3::ZERO, DMat3::IDENTITY);
    let sb = placed(DVec3::Z * zb, DMat3::IDENTITY);
    let cs = meshes(&sa, &ma_mesh, &sb, &mb_mesh, 0.0);
    let d = deepest(&cs);
    assert!((d.dist + delta).abs() < 1e-12, "{cs:?}");
    assert!(angle(d.normal, DVec3::Z) < 1e-12, "{d:?}");
    assert!((d.pos - DVec3::Z * (ridge - delta / 2.0)).length() < 1e-12);
    // apart by 1 mm: no contact without margin, the edge pair within a 2 mm margin
    let sb = placed(DVec3::Z * (2.0 * ridge + 0.001), DMat3::IDENTITY);
    assert!(meshes(&sa, &ma_mesh, &sb, &mb_mesh, 0.0).is_empty());
    let cs = meshes(&sa, &ma_mesh, &sb, &mb_mesh, 0.002);
    assert_eq!(cs.len(), 1, "{cs:?}");
    assert!((cs[0].dist - 0.001).abs() < 1e-12);
}

#[test]
fn peg_in_hole_with_clearance_touches_only_at_the_wall() {
    let plate = plate_with_hole(1.0, 0.2, 0.3).mesh();
    let ps = placed(DVec3::ZERO, DMat3::IDENTITY);
    let half = DVec3::new(0.15, 0.15, 0.6);
    let peg_mesh = box_mesh(half).mesh();
    // clearance 0.05 on each side
    for i in 0..=70 {
        let x = 0.001 * i as f64;
        let expect = 0.05 - x;
        let peg = at(DVec3::new(x, 0.0, 0.1), DMat3::IDENTITY, half);
        let as_box = prim(GeomType::Box, &peg, &plate, &ps, 0.0);
        let as_mesh = meshes(&placed(peg.pos, peg.mat), &peg_mesh, &ps, &plate, 0.0);
        // a round peg of radius 0.15 has the same clearance along x
        let round = at(peg.pos, peg.mat, DVec3::new(0.15, 0.6, 0.0));
        let as_cylinder = prim(GeomType::Cylinder, &round, &plate, &ps, 0.0);
        for cs in [as_box, as_mesh, as_cylinder] {
            if expect > 1e-12 {
                assert!(cs.is_empty(), "x {x}: {cs:?}");
            } else if expect < -1e-12 {
                let d = deepest(&cs);
                assert!((d.dist - expect).abs() < 1e-12, "x {x}: {cs:?}");
                for c in &cs {
                    assert!(angle(c.normal, DVec3::X) < 1e-12, "x {x}: {c:?}");
                }
            }
        }
    }
}

/// Lowest point below the centre of an ellipsoid (semi-axes `s`) or cylinder (radius `s.x`,
/// half-height `s.y`) turned by `mat`, along z.
fn low_extent(kind: GeomType, mat: DMat3, s: DVec3) -> f64 {
    let r = mat.row(2);
    match kind {
        GeomType::Ellipsoid => (r * s).length(),
        _ => s.y * r.z.abs() + s.x * (1.0 - r.z * r.z).max(0.0).sqrt(),
    }
}

#[test]
fn cylinder_and_ellipsoid_on_fine_plane_have_only_the_plane_normal() {
    let mesh = grid(2.0, 40).mesh();
    let plane = placed(DVec3::ZERO, DMat3::IDENTITY);
    for (kind, size) in [
        (GeomType::Cylinder, DVec3::new(0.25, 0.15, 0.0)),
        (GeomType::Ellipsoid, DVec3::new(0.3, 0.2, 0.1)),
    ] {
        for i in 0..40 {
            let x = -1.0 + 0.0513 * i as f64;
            // upright (flat cap down), lying on its side, tilted
            for (tilt, yaw) in [(0.0, 0.0), (std::f64::consts::FRAC_PI_2, 0.4), (0.7, 1.3)] {
                let mat = rot(DVec3::Z, yaw) * rot(DVec3::X, tilt);
                let z = low_extent(kind, mat, size) - 0.005;
                let cs = prim(
                    kind,
                    &at(DVec3::new(x, 0.3 * x, z), mat, size),
                    &mesh,
                    &plane,
                    0.0,
                );
                assert!(!cs.is_empty() && cs.len() <= MAX_MESH_CONTACTS, "{cs:?}");
                for c in &cs {
                    assert_eq!(c.normal, -DVec3::Z, "{kind:?} x {x} tilt {tilt}: {c:?}");
                    assert!(c.dist <= 1e-12 && c.dist >= -0.005 - 1e-12, "{c:?}");
                }
                assert!((deepest(&cs).dist + 0.005).abs() < 1e-12, "{kind:?} {cs:?}");
                // a flat cap or side resting on the sheet: contacts spread over it
                if kind == GeomType::Cylinder && tilt != 0.7 {
                    assert!(cs.len() >= 2, "{cs:?}");
                }
            }
        }
    }
}

#[test]
fn trimesh_rejects_bad_input_naming_the_mesh() {
    let v = [DVec3::ZERO, DVec3::X, DVec3::Y];
    assert_eq!(
        TriMesh::new("m", &v, &[[0, 1, 5]]),
        Err(TriMeshError::BadIndex {
            mesh: "m".into(),
            face: 0,
            vertex: 5,
            nvert: 3
        })
    );
    let bad = [DVec3::ZERO, DVec3::new(f64::NAN, 0.0, 0.0), DVec3::Y];
    let e = TriMesh::new("cup", &bad, &[[0, 1, 2]]).unwrap_err();
    assert!(e.to_string().contains("cup") && e.to_string().contains("vertex 1"));
    assert!(matches!(
        TriMesh::new(
            "flat",
            &[DVec3::ZERO, DVec3::X, DVec3::X * 2.0],
            &[[0, 1, 2]]
        ),
        Err(TriMeshError::Empty { .. })
    ));
}

/// Distance from `p` to triangle `abc` (by its plane or its edges).
fn point_triangle_distance(p: DVec3, a: DVec3, b: DVec3, c: DVec3) -> f64 {
    let n = (b - a).cross(c - a).normalize();
    let inside = [(a, b), (b, c), (c, a)]
        .iter()
        .all(|&(u, v)| (v - u).cross(p - u).dot(n) >= 0.0);
    if inside {
        return (p - a).dot(n).abs();
    }
    [(a, b), (b, c), (c, a)]
        .iter()
        .map(|&(u, v)| {
            let t = ((p - u).dot(v - u) / (v - u).length_squared()).clamp(0.0, 1.0);
            p.distance(u + (v - u) * t)
        })
        .fold(f64::INFINITY, f64::min)
}

fn unit_quat() -> impl Strategy<Value = DMat3> {
    (-1.0..1.0f64, -1.0..1.0f64, -1.0..1.0f64, -1.0..1.0f64).prop_filter_map(
        "zero",
        |(w, x, y, z)| {
            let q = collide::glam::DQuat::from_xyzw(x, y, z, w);
            (q.length() > 0.1).then(|| DMat3::from_quat(q.normalize()))
        },
    )
}

fn vec3(r: f64) -> impl Strategy<Value = DVec3> {
    (-r..r, -r..r, -r..r).prop_map(|(x, y, z)| DVec3::new(x, y, z))
}

thread_local! {
    static SHAPES: (TriMesh, TriMesh) = (
        torus(0.5, 0.15, 24, 12).mesh(),
        box_mesh(DVec3::new(0.4, 0.1, 0.25)).mesh(),
    );
}

/// Some contact of `cs` has `dist` within 1e-9 and a normal within 1e-6 rad of `n`.
fn has(cs: &[PreContact], dist: f64, n: DVec3) -> bool {
    cs.iter()
        .any(|c| (c.dist - dist).abs() < 1e-9 && angle(c.normal, n) < 1e-6)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Swapping the meshes keeps the deepest dist and flips its normal.
    #[test]
    fn swap_flips_normal_keeps_dist(p in vec3(0.6), r1 in unit_quat(), r2 in unit_quat()) {
        SHAPES.with(|(t, b)| {
            let (s1, s2) = (placed(DVec3::ZERO, r1), placed(p, r2));
            let ab = meshes(&s1, t, &s2, b, 0.01);
            let ba = meshes(&s2, b, &s1, t, 0.01);
            prop_assert_eq!(ab.is_empty(), ba.is_empty());
            if !ab.is_empty() {
                let (d1, d2) = (deepest(&ab), deepest(&ba));
                prop_assert!((d1.dist - d2.dist).abs() < 1e-9, "{:?} {:?}", d1, d2);
                prop_assert!(has(&ba, d1.dist, -d1.normal), "{:?} {:?}", ab, ba);
            }
            Ok(())
        })?;
    }

    /// An ellipsoid with equal semi-axes is a sphere: against the torus (non-convex) its
    /// deepest contact is the sphere core's: apart, the same distance and normal; in
    /// penetration up to a quarter of the radius, the same depth within 1e-6 (the features
    /// may differ: a sphere's edge test keeps only edges whose closest direction lies in their
    /// cone, the ellipsoid's takes the cone's best direction).
    #[test]
    fn round_ellipsoid_matches_sphere(p in vec3(0.7), r1 in unit_quat(), r2 in unit_quat()) {
        SHAPES.with(|(tor, _)| {
            let ts = placed(DVec3::ZERO, r1);
            let r = 0.12;
            let sph = prim(GeomType::Sphere, &at(p, r2, DVec3::new(r, 0.0, 0.0)), tor, &ts, 0.01);
            let ell = prim(GeomType::Ellipsoid, &at(p, r2, DVec3::splat(r)), tor, &ts, 0.01);
            match (sph.is_empty(), ell.is_empty()) {
                (false, false) => {
                    let (a, b) = (deepest(&sph), deepest(&ell));
                    if a.dist >= 0.0 {
                        prop_assert!((a.dist - b.dist).abs() < 1e-8, "{:?} {:?}", a, b);
                        prop_assert!(angle(a.normal, b.normal) < 1e-6, "{:?} {:?}", a, b);
                    } else if a.dist > -r / 4.0 {
                        prop_assert!((a.dist - b.dist).abs() < 1e-6, "{:?} {:?}", a, b);
                    }
                }
                (true, true) => {}
                _ => prop_assert!(
                    sph.iter().chain(&ell).all(|c| c.dist > 0.01 - 1e-8 || c.dist < -r / 4.0),
                    "{:?} {:?}", sph, ell
                ),
            }
            Ok(())
        })?;
    }

    /// Ellipsoids and cylinders of any proportions (down to 1e-6 thick) against a fin (two
    /// triangles back to back) and the torus: every contact finite, with a unit normal and
    /// `dist` within the margin.
    #[test]
    fn smooth_shapes_stay_finite_on_fins_and_flat_shapes(
        p in vec3(0.7), r in unit_quat(), kind in 0..2usize,
        size in (1e-6..0.3f64, 1e-6..0.3f64, 1e-6..0.3f64), margin in 0.0..0.05f64,
    ) {
        let fin = TriMesh::new(
            "fin",
            &[DVec3::ZERO, DVec3::X, DVec3::new(0.5, 1.0, 0.0), DVec3::new(0.5, 1.0, 0.0)],
            &[[0, 1, 2], [1, 0, 3]],
        ).expect("fin");
        SHAPES.with(|(tor, _)| {
            let kind = [GeomType::Ellipsoid, GeomType::Cylinder][kind];
            let shape = at(p * 0.5 + DVec3::new(0.5, 0.3, 0.0), r, DVec3::new(size.0, size.1, size.2));
            for mesh in [&fin, tor] {
                for c in prim(kind, &shape, mesh, &placed(DVec3::ZERO, DMat3::IDENTITY), margin) {
                    prop_assert!(c.dist.is_finite() && c.pos.is_finite(), "{:?}", c);
                    prop_assert!((c.normal.length() - 1.0).abs() < 1e-9, "{:?}", c);
                    prop_assert!(c.dist <= margin + 1e-12, "{:?}", c);
                }
            }
            Ok(())
        })?;
    }

    /// Moving both shapes rigidly moves the contacts with them. Ellipsoids and cylinders are
    /// compared out of deep penetration (their deepest contact within a third of the tube's
    /// radius): deeper, a vertex's cone test on a face normal at its rim can flip with the
    /// frame's rounding, and with it the deepest feature.
    #[test]
    fn rigid_transform_invariance(
        p in vec3(0.6), r1 in unit_quat(), r2 in unit_quat(),
        g in unit_quat(), t in vec3(5.0), kind in 0..6usize,
    ) {
        SHAPES.with(|(tor, bx)| {
            let run = |rg: DMat3, tg: DVec3| {
                let s1 = placed(tg, rg * r1);
                let s2 = at(rg * p + tg, rg * r2, DVec3::new(0.12, 0.2, 0.08));
                match kind {
                    0 => meshes(&s1, tor, &s2, bx, 0.01),
                    k => {
                        let kinds = [
                            GeomType::Sphere,
                            GeomType::Capsule,
                            GeomType::Box,
                            GeomType::Ellipsoid,
                            GeomType::Cylinder,
                        ];
                        prim(kinds[k - 1], &s2, tor, &s1, 0.01)
                    }
                }
            };
            let base = run(DMat3::IDENTITY, DVec3::ZERO);
            let moved = run(g, t);
            prop_assert_eq!(base.is_empty(), moved.is_empty());
            let deep = kind >= 4 && base.iter().chain(&moved).any(|c| c.dist < -0.05);
            if !base.is_empty() && !deep {
                let (d1, d2) = (deepest(&base), deepest(&moved));
                prop_assert!((d1.dist - d2.dist).abs() < 1e-9, "{:?} {:?}", d1, d2);
                prop_assert!(has(&moved, d1.dist, g * d1.normal), "{:?} {:?}", base, moved);
            }
            Ok(())
        })?;
    }
}

proptest! {
    // brute force over every triangle for every surface sample: few cases
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Apart from the torus, an ellipsoid's or cylinder's distance is the least distance of its
    /// surface to the triangles: no sample of its surface is nearer (brute force over every
    /// triangle), and the nearest sample is within the sampling step.
    #[test]
    fn smooth_distance_matches_sampled_surface(
        p in vec3(0.9), r in unit_quat(), kind in 0..2usize,
    ) {
        SHAPES.with(|(tor, _)| {
            let kind = [GeomType::Ellipsoid, GeomType::Cylinder][kind];
            let size = DVec3::new(0.12, 0.08, 0.06);
            let shape = at(p, r, size);
            let cs = prim(kind, &shape, tor, &placed(DVec3::ZERO, DMat3::IDENTITY), 0.3);
            let Some(d) = cs.iter().map(|c| c.dist).reduce(f64::min) else { return Ok(()) };
            if d <= 1e-3 {
                return Ok(());
            }
            let (n, pi) = (48usize, std::f64::consts::PI);
            let mut samples = Vec::new();
            for i in 0..=n {
                for j in 0..2 * n {
                    let (a, b) = (pi * i as f64 / n as f64, pi * j as f64 / n as f64);
                    let local = match kind {
                        GeomType::Ellipsoid => DVec3::new(
                            size.x * a.sin() * b.cos(), size.y * a.sin() * b.sin(), size.z * a.cos()),
                        // the side (i from bottom to top) and both caps (i along the radius)
                        _ => DVec3::new(size.x * b.cos(), size.x * b.sin(), size.y * (2.0 * i as f64 / n as f64 - 1.0)),
                    };
                    samples.push(local);
                    if kind == GeomType::Cylinder {
                        let rr = size.x * i as f64 / n as f64;
                        for z in [-size.y, size.y] {
                            samples.push(DVec3::new(rr * b.cos(), rr * b.sin(), z));
                        }
                    }
                }
            }
            let mut best = f64::INFINITY;
            for x in samples {
                let q = shape.mat * x + shape.pos;
                for t in 0..tor.ntri() {
                    let [a, b, c] = tor.corners(t);
                    best = best.min(point_triangle_distance(q, a, b, c));
                }
            }
            prop_assert!(d <= best + 1e-9, "collide {} > sampled {}", d, best);
            // samples at most 0.12·π/48 apart along the surface
            prop_assert!(best - d < 0.008, "collide {} vs sampled {}", d, best);
            Ok(())
        })?;
    }
}
