//! Properties of `mesh_hull` on real and random meshes: the hull contains every vertex (in the
//! frame qhull ran in), is convex and closed (V − E + F = 2), its polygons and extrema are
//! consistent, and no input (random, degenerate, extreme) makes it panic.

// NaN-aware comparisons (`!(x > y)`) are deliberate.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use collide::ConvexHull;
use collide_mjcf::mesh_compile::{compile_mesh, MeshSettings};
use collide_mjcf::mesh_file::{decode_mesh, RawMesh};
use collide_mjcf::mesh_hull::{build_hull, build_hull_from_source};
use glam::DVec3;
use proptest::prelude::*;
use std::collections::{BTreeSet, HashSet};
use std::path::Path;

/// Structural and geometric invariants of a hull of `pts` (the points qhull saw, indexed like
/// the mesh). `contains`: every point is inside (false for `maxhullvert` hulls).
fn check_hull(h: &ConvexHull, pts: &[DVec3], contains: bool, mirrored: bool) -> Result<(), String> {
    check_hull_with(h, pts, contains, mirrored, true)
}

/// `geometric`: also check orientation, convexity and containment. (On extreme inputs, e.g. a
/// point 1e12 times further than the others, qhull's initial simplex can get a facet whose
/// winding disagrees with its hyperplane, and MuJoCo keeps it; the emulation does the same.)
fn check_hull_with(
    h: &ConvexHull,
    pts: &[DVec3],
    contains: bool,
    mirrored: bool,
    geometric: bool,
) -> Result<(), String> {
    let nv = h.vert.len();
    let nf = h.face.len();
    if nv < 4 || nf < 4 {
        return Err(format!("{nv} vertices, {nf} faces"));
    }
    if h.mesh_index.len() != nv || h.graph.len() != nv {
        return Err("array sizes".into());
    }
    let uniq: HashSet<u32> = h.mesh_index.iter().copied().collect();
    if uniq.len() != nv || h.mesh_index.iter().any(|&i| i as usize >= pts.len()) {
        return Err("mesh_index not a subset".into());
    }
    // adjacency: symmetric, no self loops, and the edges of the triangles
    let mut edges = BTreeSet::new();
    for i in 0..nv {
        let a = h.graph.neighbours(i);
        for &j in a {
            let j = j as usize;
            if j >= nv || j == i {
                return Err(format!("bad neighbour {j} of {i}"));
            }
            let b = h.graph.neighbours(j);
            if !b.contains(&(i as u32)) {
                return Err(format!("asymmetric edge {i}-{j}"));
            }
            edges.insert((i.min(j), i.max(j)));
        }
    }
    let mut face_edges = BTreeSet::new();
    let mut directed = HashSet::new();
    for f in &h.face {
        for k in 0..3 {
            let (a, b) = (f[k] as usize, f[(k + 1) % 3] as usize);
            if a >= nv || b >= nv {
                return Err("face index".into());
            }
            face_edges.insert((a.min(b), a.max(b)));
            if !directed.insert((a, b)) {
                return Err(format!("directed edge {a}->{b} twice"));
            }
        }
    }
    if edges != face_edges {
        return Err("adjacency is not the triangle edges".into());
    }
    // closed, Euler characteristic 2
    if directed.iter().any(|&(a, b)| !directed.contains(&(b, a))) {
        return Err("open triangle mesh".into());
    }
    let e = edges.len() as i64;
    if nv as i64 - e + nf as i64 != 2 {
        return Err(format!("V - E + F = {nv} - {e} + {nf}"));
    }
    // geometry in the frame qhull ran in: outward faces, convex, containing
    let scale = pts.iter().fold(0.0f64, |m, p| m.max(p.abs().max_element()));
    let tol = 1e-9 * scale.max(f64::MIN_POSITIVE);
    let p = |i: u32| pts[h.mesh_index[i as usize] as usize];
    let centroid = h
        .mesh_index
        .iter()
        .fold(DVec3::ZERO, |s, &i| s + pts[i as usize])
        / nv as f64;
    let mut area = 0.0;
    for f in h.face.iter().filter(|_| geometric) {
        let (a, b, c) = (p(f[0]), p(f[1]), p(f[2]));
        let mut n = (b - a).cross(c - a);
        if mirrored {
            n = -n;
        }
        area += n.length();
        let len = n.length();
        if !(len > 0.0) {
            continue; // degenerate sliver: only possible on nearly flat facets
        }
        let n = n / len;
        if n.dot(a - centroid) < -tol {
            return Err(format!("inward face {f:?}"));
        }
        for &i in &h.mesh_index {
            if n.dot(pts[i as usize] - a) > tol {
                return Err(format!("not convex at face {f:?}"));
            }
        }
        if contains {
            for q in pts {
                if n.dot(*q - a) > tol {
                    return Err(format!("point outside face {f:?} by {}", n.dot(*q - a)));
                }
            }
        }
    }
    if geometric && !(area > 0.0) {
        return Err("zero area".into());
    }
    // polygons: vertices on the hull, at least 3, unit normals; each triangle in a polygon
    let np = h.poly_start.len() - 1;
    if h.poly_normal.len() != np {
        return Err("poly_normal size".into());
    }
    for k in 0..np {
        let (s, t) = (h.poly_start[k] as usize, h.poly_start[k + 1] as usize);
        if t < s + 3 || t > h.poly_vert.len() {
            return Err(format!("polygon {k} has {} vertices", t.saturating_sub(s)));
        }
        if h.poly_vert[s..t].iter().any(|&v| v as usize >= nv) {
            return Err("polygon vertex".into());
        }
        if !h.poly_normal[k].is_finite() || (h.poly_normal[k].length() - 1.0).abs() > 1e-9 {
            return Err(format!("polygon normal {}", h.poly_normal[k]));
        }
    }
    // extrema: valid and actually extreme among the hull vertices (in f32)
    for (k, &x) in h.extrema.iter().enumerate() {
        if x as usize >= nv {
            return Err("extrema index".into());
        }
        let d = [
            (k / 9) as f32 - 1.0,
            ((k / 3) % 3) as f32 - 1.0,
            (k % 3) as f32 - 1.0,
        ];
        let dot = |v: DVec3| v.x as f32 * d[0] + v.y as f32 * d[1] + v.z as f32 * d[2];
        let best = h.vert.iter().map(|v| dot(*v)).fold(f32::MIN, f32::max);
        if dot(h.vert[x as usize]) != best {
            return Err(format!("extrema {k} not extreme"));
        }
    }
    for (i, v) in h.vert.iter().enumerate() {
        if !v.is_finite() {
            return Err(format!("vertex {i} not finite"));
        }
    }
    Ok(())
}

/// Every mesh of the dog model (162 STL bones, up to 35k vertices), compiled and hulled from the
/// file vertices.
#[test]
fn dog_meshes() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../conformance/corpus/dm_control/suite/dog_assets");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "stl"))
        .collect();
    files.sort();
    assert!(files.len() >= 160);
    let start = std::time::Instant::now();
    let mut exact = 0;
    for f in &files {
        let name = f.file_name().unwrap().to_string_lossy().to_string();
        let raw = decode_mesh(&name, &std::fs::read(f).unwrap()).unwrap();
        let source = raw.vert.clone();
        let settings = MeshSettings::default();
        let mesh = compile_mesh(&name, raw, &settings).unwrap();
        let h = build_hull_from_source(&mesh, &source, &settings)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        if collide_mjcf::mesh_hull::last_build_was_exact() {
            exact += 1;
        }
        let file: Vec<DVec3> = source.iter().map(|v| v.as_vec3().as_dvec3()).collect();
        check_hull(&h, &file, true, false).unwrap_or_else(|e| panic!("{name}: {e}"));
        // the compiled-frame variant runs qhull on the file vertices recovered from the
        // compiled ones (exact here, no refpos/refquat/scale), else on the compiled vertices
        let h2 = build_hull(&mesh, None).unwrap_or_else(|e| panic!("{name}: {e}"));
        check_hull(&h2, &file, true, false)
            .or_else(|_| check_hull(&h2, &mesh.vert, true, false))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    println!(
        "{} dog meshes in {:.2?}, {exact} without qhull merges",
        files.len(),
        start.elapsed()
    );
}

fn mesh_of(pts: &[DVec3]) -> collide::Mesh {
    collide::Mesh {
        name: "fuzz".into(),
        vert: pts.to_vec(),
        ..Default::default()
    }
}

/// Random clouds: small, with duplicates, on integer grids (many exact coplanarities), boxes
/// with points on their faces, nearly flat, at extreme scales.
fn cloud() -> impl Strategy<Value = (Vec<DVec3>, bool)> {
    let coord = prop_oneof![
        4 => -1.0f64..1.0,
        2 => (-3i32..=3).prop_map(|i| i as f64 * 0.25),
        1 => Just(0.0),
    ];
    let point = (coord.clone(), coord.clone(), coord).prop_map(|(x, y, z)| DVec3::new(x, y, z));
    let base = prop::collection::vec(point, 1..40);
    let scale = prop_oneof![
        5 => Just(1.0),
        1 => Just(1e-30),
        1 => Just(1e30),
        1 => Just(1e-8),
        1 => Just(3.7e5),
    ];
    let flat = prop_oneof![4 => Just(1.0), 1 => Just(1e-9), 1 => Just(0.0)];
    let outlier = prop_oneof![6 => Just(1.0), 1 => Just(1e12), 1 => Just(1e-12)];
    (base, scale, flat, 0usize..4, outlier).prop_map(|(mut v, s, flat, dup, out)| {
        for p in v.iter_mut() {
            p.z *= flat;
            *p *= s;
            *p = p.as_vec3().as_dvec3();
        }
        if let Some(p) = v.last_mut() {
            *p = (*p * out).as_vec3().as_dvec3();
        }
        let sane = out == 1.0;
        for k in 0..dup.min(v.len()) {
            let q = v[k * 7 % v.len()];
            v.push(q);
        }
        (v, sane)
    })
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(1500),
        ..ProptestConfig::default()
    })]

    #[test]
    fn no_panic_and_valid((pts, sane) in cloud(), maxhull in prop_oneof![4 => Just(None), 1 => (4usize..12).prop_map(Some)]) {
        let mesh = mesh_of(&pts);
        let settings = MeshSettings { maxhullvert: maxhull, ..Default::default() };
        for r in [build_hull(&mesh, maxhull), build_hull_from_source(&mesh, &pts, &settings)] {
            match r {
                Ok(h) => {
                    if let Some(m) = maxhull {
                        prop_assert!(h.vert.len() <= m.max(4), "{} > {m}", h.vert.len());
                    }
                    check_hull_with(&h, &pts, maxhull.is_none(), false, sane)
                        .map_err(|e| TestCaseError::fail(format!("{e} for {pts:?}")))?;
                }
                Err(e) => prop_assert!(e.contains("mesh 'fuzz'"), "{e}"),
            }
        }
    }

    #[test]
    fn boxes_with_face_points(n in 2usize..6, h in (0.01f64..2.0, 0.01f64..2.0, 0.01f64..2.0), c in (-5.0f64..5.0, -5.0f64..5.0, -5.0f64..5.0)) {
        let mut pts = Vec::new();
        let ticks: Vec<f64> = (0..=n).map(|i| -1.0 + 2.0 * i as f64 / n as f64).collect();
        for &i in &ticks {
            for &j in &ticks {
                for &k in &ticks {
                    if i.abs() == 1.0 || j.abs() == 1.0 || k.abs() == 1.0 {
                        let p = DVec3::new(c.0 + i * h.0, c.1 + j * h.1, c.2 + k * h.2);
                        pts.push(p.as_vec3().as_dvec3());
                    }
                }
            }
        }
        let mesh = mesh_of(&pts);
        let hull = build_hull_from_source(&mesh, &pts, &MeshSettings::default())
            .map_err(TestCaseError::fail)?;
        check_hull(&hull, &pts, true, false).map_err(TestCaseError::fail)?;
        // a box: 8 corners, 6 quads
        prop_assert_eq!(hull.vert.len(), 8);
        prop_assert_eq!(hull.poly_normal.len(), 6);
        prop_assert!(hull.poly_start.windows(2).all(|w| w[1] - w[0] == 4));
    }
}

#[test]
fn degenerate_sets_are_errors() {
    let cases: [(&str, Vec<DVec3>); 4] = [
        ("colocated", vec![DVec3::splat(0.5); 6]),
        (
            "collinear",
            (0..6).map(|i| DVec3::splat(i as f64)).collect(),
        ),
        (
            "coplanar",
            (0..9)
                .map(|i| DVec3::new((i % 3) as f64, (i / 3) as f64, 0.25))
                .collect(),
        ),
        ("at least 4", vec![DVec3::X, DVec3::Y, DVec3::Z]),
    ];
    for (what, pts) in cases {
        let mesh = mesh_of(&pts);
        let e = build_hull(&mesh, None).unwrap_err();
        assert!(e.contains(what) && e.contains("mesh 'fuzz'"), "{what}: {e}");
        let e = build_hull_from_source(&mesh, &pts, &MeshSettings::default()).unwrap_err();
        assert!(e.contains(what), "{what}: {e}");
    }
    // non-finite
    let mut pts = vec![DVec3::X, DVec3::Y, DVec3::Z, DVec3::ZERO];
    pts[2].y = f64::NAN;
    assert!(build_hull(&mesh_of(&pts), None)
        .unwrap_err()
        .contains("not finite"));
    // mismatched source
    let mesh = mesh_of(&[DVec3::X, DVec3::Y, DVec3::Z, DVec3::ZERO]);
    assert!(build_hull_from_source(&mesh, &[DVec3::X], &MeshSettings::default()).is_err());
    let _ = RawMesh::default();
}
