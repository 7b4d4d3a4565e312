//! The exact non-convex mesh path (`narrow::mesh_exact`) on scenes built in code: a sphere in
//! a bowl, a capsule through a torus, a box resting on flat sheets of 1k, 10k and 100k
//! triangles, and mesh against mesh (crossed bars, a peg in a hole, a torus against a box, two stacked tori touching all round).
//! Each iteration is one pair call (tree query, per-triangle features, reduction).
//!
//! Run with `cargo bench -p collide --bench nonconvex`.

#[path = "../tests/mesh_shapes/mod.rs"]
mod mesh_shapes;

use std::time::Duration;

use collide::glam::{DMat3, DVec3};
use collide::narrow::mesh_exact::{mesh_mesh, primitive_mesh, MeshScratch, TriMesh};
use collide::narrow::{PreContact, Shape, MAX_PAIR_CONTACTS};
use collide::GeomType;
use criterion::{criterion_group, criterion_main, Criterion};
use mesh_shapes::*;

fn at(pos: DVec3, mat: DMat3, size: DVec3) -> Shape {
    Shape { pos, mat, size }
}

fn bench(c: &mut Criterion) {
    let origin = at(DVec3::ZERO, DMat3::IDENTITY, DVec3::ZERO);
    let mut g = c.benchmark_group("mesh_exact");
    g.sample_size(20)
        .measurement_time(Duration::from_secs(1))
        .warm_up_time(Duration::from_millis(300));
    let mut out = [PreContact::default(); MAX_PAIR_CONTACTS];
    let mut scratch = MeshScratch::new();

    let prim_cases: Vec<(String, GeomType, Shape, TriMesh)> = vec![
        (
            format!("sphere_bowl_{}", bowl(1.0, 1.2, 24, 48).face.len()),
            GeomType::Sphere,
            at(
                dir(2.9, 0.4) * 0.71,
                DMat3::IDENTITY,
                DVec3::new(0.3, 0.0, 0.0),
            ),
            bowl(1.0, 1.2, 24, 48).mesh(),
        ),
        (
            format!("capsule_torus_{}", torus(1.0, 0.3, 64, 32).face.len()),
            GeomType::Capsule,
            at(
                DVec3::new(0.55, 0.0, 0.0),
                DMat3::IDENTITY,
                DVec3::new(0.2, 1.0, 0.0),
            ),
            torus(1.0, 0.3, 64, 32).mesh(),
        ),
    ]
    .into_iter()
    .chain([22usize, 71, 224].into_iter().map(|n| {
        let sheet = grid(2.0, n);
        (
            format!("box_sheet_{}", sheet.face.len()),
            GeomType::Box,
            at(
                DVec3::new(0.1, 0.2, 0.095),
                rot(DVec3::Z, 0.3),
                DVec3::new(0.3, 0.2, 0.1),
            ),
            sheet.mesh(),
        )
    }))
    .collect();
    for (name, kind, shape, mesh) in &prim_cases {
        assert!(primitive_mesh(*kind, shape, &origin, mesh, 0.0, &mut scratch, &mut out) > 0);
        g.bench_function(name.as_str(), |b| {
            b.iter(|| primitive_mesh(*kind, shape, &origin, mesh, 0.0, &mut scratch, &mut out))
        });
    }

    let quarter = std::f64::consts::FRAC_PI_4;
    let (ma, mb) = (
        rot(DVec3::X, quarter),
        rot(DVec3::Z, std::f64::consts::FRAC_PI_2) * rot(DVec3::X, quarter),
    );
    let h = DVec3::new(2.0, 0.2, 0.2);
    let ridge = 0.2 * 2f64.sqrt();
    let mesh_cases: Vec<(&str, TriMesh, Shape, TriMesh)> = vec![
        (
            "bars_crossed",
            box_mesh(h).mapped(|p| ma * p).mesh(),
            at(
                DVec3::Z * (2.0 * ridge - 0.01),
                DMat3::IDENTITY,
                DVec3::ZERO,
            ),
            box_mesh(h).mapped(|p| mb * p).mesh(),
        ),
        (
            "peg_hole",
            plate_with_hole(1.0, 0.2, 0.3).mesh(),
            at(DVec3::new(0.06, 0.0, 0.1), DMat3::IDENTITY, DVec3::ZERO),
            box_mesh(DVec3::new(0.15, 0.15, 0.6)).mesh(),
        ),
        (
            "torus_576_box",
            torus(0.5, 0.15, 24, 12).mesh(),
            at(DVec3::new(0.5, 0.0, 0.2), rot(DVec3::X, 0.3), DVec3::ZERO),
            box_mesh(DVec3::new(0.4, 0.1, 0.25)).mesh(),
        ),
        (
            "torus_4096_torus_4096",
            torus(1.0, 0.3, 64, 32).mesh(),
            at(DVec3::new(0.1, 0.0, 0.58), DMat3::IDENTITY, DVec3::ZERO),
            torus(1.0, 0.3, 64, 32).mesh(),
        ),
    ];
    for (name, m1, s2, m2) in &mesh_cases {
        assert!(
            mesh_mesh(&origin, m1, s2, m2, 0.0, &mut scratch, &mut out) > 0,
            "{name}"
        );
        g.bench_function(*name, |b| {
            b.iter(|| mesh_mesh(&origin, m1, s2, m2, 0.0, &mut scratch, &mut out))
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
