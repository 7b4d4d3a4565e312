//! Narrow-phase pair functions on the colliding geom pairs of conformance corpus scenes, per
//! pair type (`narrow/TYPE1-TYPE2`; each iteration takes the next pair of that type, round
//! robin), and side-by-side comparisons with `parry3d-f64` on the same shapes and poses
//! (`parry_PAIR/collide`, `parry_PAIR/parry_contact` = `query::contact`, one deepest point;
//! `parry_PAIR/parry_contacts` = `contact_manifolds`, a manifold like ours).
//!
//! Run with `cargo bench -p collide --bench narrow` (or `bash bench/all.sh`).

mod common;

use std::collections::BTreeMap;

use collide::narrow::convex::{convex_pair, CcdOptions, ConvexGeom};
use collide::narrow::hfield::hfield_convex;
use collide::narrow::plane_convex::plane_convex;
use collide::narrow::{dispatch, Dispatch, PreContact, Shape, MAX_PAIR_CONTACTS};
use collide::{Collider, GeomType, Model};
use common::{scene, Scene};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use parry3d_f64::math::{Mat3 as PMat3, Pose as PPose, Rot3 as PRot3, Vector as PVec};
use parry3d_f64::query::{
    contact as parry_contact, ContactManifold, DefaultQueryDispatcher, PersistentQueryDispatcher,
};
use parry3d_f64::shape::{Ball, Capsule, ConvexPolyhedron, Cuboid, Shape as PShape};

/// Scenes whose colliding pairs are timed.
const SCENES: &[&str] = &[
    "scenes/primitive_pairs",
    "scenes/box_pile",
    "scenes/sphere_pile",
    "scenes/capsule_heap",
    "scenes/humanoid_crowd_22",
    "scenes/ellipsoid_pile_100",
    "scenes/ellipsoid_cylinder_pile",
    "scenes/mesh_pile_100",
    "scenes/mesh_primitives",
    "scenes/hfield_png",
];

/// Pairs kept per type pair.
const MAX_PAIRS: usize = 64;

/// One colliding geom pair of a scene state, geom 1 of the lower type.
#[derive(Clone, Copy)]
struct Pair<'a> {
    g1: ConvexGeom<'a>,
    g2: ConvexGeom<'a>,
    margin: f64,
    opt: CcdOptions,
}

fn convex_geom<'a>(m: &'a Model, s: &Scene, state: usize, g: usize) -> ConvexGeom<'a> {
    let t = m.geom_type[g];
    let data = m.geom_dataid[g];
    ConvexGeom {
        kind: t,
        pos: s.poses[state].geom_xpos[g],
        mat: s.poses[state].geom_xmat[g],
        size: m.geom_size[g],
        hull: data
            .filter(|_| t == GeomType::Mesh)
            .and_then(|i| m.mesh.get(i))
            .and_then(|x| x.hull.as_ref()),
        hfield: data
            .filter(|_| t == GeomType::HField)
            .and_then(|i| m.hfield.get(i)),
    }
}

/// The colliding pairs of every scene state, grouped by type pair.
fn collect(scenes: &[Scene]) -> BTreeMap<(GeomType, GeomType), Vec<Pair<'_>>> {
    let mut out: BTreeMap<(GeomType, GeomType), Vec<Pair>> = BTreeMap::new();
    for s in scenes {
        let m = &s.model;
        let opt = CcdOptions {
            iterations: m.opt.ccd_iterations,
            tolerance: m.opt.ccd_tolerance,
            ..CcdOptions::default()
        };
        let mut collider = Collider::new(m).expect("collider");
        let mut contacts = Vec::new();
        for k in 0..s.poses.len() {
            collider.detect(&s.poses[k], &mut contacts);
            let mut seen: Vec<(usize, usize)> =
                contacts.iter().map(|c| (c.geom[0], c.geom[1])).collect();
            seen.dedup();
            for (a, b) in seen {
                let (a, b) = if m.geom_type[a] <= m.geom_type[b] {
                    (a, b)
                } else {
                    (b, a)
                };
                let list = out.entry((m.geom_type[a], m.geom_type[b])).or_default();
                if list.len() < MAX_PAIRS {
                    list.push(Pair {
                        g1: convex_geom(m, s, k, a),
                        g2: convex_geom(m, s, k, b),
                        margin: m.geom_margin[a].max(m.geom_margin[b]),
                        opt,
                    });
                }
            }
        }
    }
    out
}

fn shape(g: &ConvexGeom) -> Shape {
    Shape {
        pos: g.pos,
        mat: g.mat,
        size: g.size,
    }
}

/// Our narrow phase on one pair, as the collider dispatches it.
fn collide_pair(p: &Pair, out: &mut [PreContact]) -> usize {
    match dispatch(p.g1.kind, p.g2.kind) {
        Dispatch::Never => 0,
        Dispatch::Analytic(f) => f(&shape(&p.g1), &shape(&p.g2), p.margin, out),
        Dispatch::Convex => convex_pair(&p.g1, &p.g2, p.margin, &p.opt, out),
        Dispatch::PlaneConvex => plane_convex(&p.g1, &p.g2, p.margin, out),
        Dispatch::HFieldConvex => hfield_convex(&p.g1, &p.g2, p.margin, &p.opt, out),
        // the fixtures this bench reads have no sdf geoms
        Dispatch::Sdf | Dispatch::MeshSdf | Dispatch::Unsupported => 0,
    }
}

fn kind(t1: GeomType, t2: GeomType) -> &'static str {
    match dispatch(t1, t2) {
        Dispatch::Never => "never",
        Dispatch::Analytic(_) => "analytic",
        Dispatch::Convex => "convex",
        Dispatch::PlaneConvex => "plane_convex",
        Dispatch::HFieldConvex => "hfield",
        Dispatch::Sdf => "sdf",
        Dispatch::MeshSdf => "mesh_sdf",
        Dispatch::Unsupported => "unsupported",
    }
}

fn bench_types(c: &mut Criterion, pairs: &BTreeMap<(GeomType, GeomType), Vec<Pair>>) {
    let mut g = c.benchmark_group("narrow");
    let mut out = [PreContact::default(); MAX_PAIR_CONTACTS];
    for (&(t1, t2), list) in pairs {
        let id = format!("{t1:?}-{t2:?} {}", kind(t1, t2));
        let mut k = 0;
        g.bench_function(BenchmarkId::from_parameter(id), |b| {
            b.iter(|| {
                k = (k + 1) % list.len();
                collide_pair(&list[k], &mut out)
            })
        });
    }
    g.finish();
}

fn pose(g: &ConvexGeom) -> PPose {
    let m = PMat3::from_cols_array(&g.mat.to_cols_array());
    PPose::from_parts(PVec::new(g.pos.x, g.pos.y, g.pos.z), PRot3::from_mat3(&m))
}

/// The parry shape of geom `g` (sphere, capsule, box or mesh hull).
fn parry_shape(g: &ConvexGeom) -> Option<Box<dyn PShape>> {
    let s = g.size;
    Some(match g.kind {
        GeomType::Sphere => Box::new(Ball::new(s.x)),
        GeomType::Capsule => Box::new(Capsule::new_z(s.y, s.x)),
        GeomType::Box => Box::new(Cuboid::new(PVec::new(s.x, s.y, s.z))),
        GeomType::Mesh => {
            let pts: Vec<PVec> = g
                .hull?
                .vert
                .iter()
                .map(|v| PVec::new(v.x, v.y, v.z))
                .collect();
            Box::new(ConvexPolyhedron::from_convex_hull(&pts)?)
        }
        _ => return None,
    })
}

fn bench_parry(c: &mut Criterion, pairs: &BTreeMap<(GeomType, GeomType), Vec<Pair>>) {
    use GeomType::*;
    for (t, name) in [
        (Sphere, "sphere_sphere"),
        (Capsule, "capsule_capsule"),
        (Box, "box_box"),
        (Mesh, "mesh_mesh"),
    ] {
        let Some(list) = pairs.get(&(t, t)) else {
            continue;
        };
        let theirs: Vec<_> = list
            .iter()
            .filter_map(|p| {
                Some((
                    pose(&p.g1),
                    parry_shape(&p.g1)?,
                    pose(&p.g2),
                    parry_shape(&p.g2)?,
                    p.margin,
                ))
            })
            .collect();
        if theirs.len() != list.len() {
            continue;
        }
        let mut out = [PreContact::default(); MAX_PAIR_CONTACTS];
        let mut manifolds: Vec<ContactManifold<(), ()>> = Vec::new();
        // the work each side does on the list: contacts found (read by bench/report.py)
        let ours: usize = list.iter().map(|p| collide_pair(p, &mut out)).sum();
        let one = theirs
            .iter()
            .filter(|(p1, s1, p2, s2, m)| {
                matches!(
                    parry_contact(p1, s1.as_ref(), p2, s2.as_ref(), *m),
                    Ok(Some(_))
                )
            })
            .count();
        let many: usize = theirs
            .iter()
            .map(|(p1, s1, p2, s2, m)| {
                manifolds.clear();
                let _ = DefaultQueryDispatcher.contact_manifolds(
                    &p1.inv_mul(p2),
                    s1.as_ref(),
                    s2.as_ref(),
                    *m,
                    &mut manifolds,
                    &mut None,
                );
                manifolds.iter().map(|m| m.points.len()).sum::<usize>()
            })
            .sum();
        println!(
            "parry_counts {name} pairs={} collide={ours} parry_contact={one} parry_contacts={many}",
            list.len()
        );
        let mut g = c.benchmark_group(format!("parry_{name}"));
        let mut k = 0;
        g.bench_function("collide", |b| {
            b.iter(|| {
                k = (k + 1) % list.len();
                collide_pair(&list[k], &mut out)
            })
        });
        g.bench_function("parry_contact", |b| {
            b.iter(|| {
                k = (k + 1) % theirs.len();
                let (p1, s1, p2, s2, margin) = &theirs[k];
                parry_contact(p1, s1.as_ref(), p2, s2.as_ref(), *margin)
                    .ok()
                    .flatten()
                    .is_some()
            })
        });
        g.bench_function("parry_contacts", |b| {
            b.iter(|| {
                k = (k + 1) % theirs.len();
                let (p1, s1, p2, s2, margin) = &theirs[k];
                manifolds.clear();
                let _ = DefaultQueryDispatcher.contact_manifolds(
                    &p1.inv_mul(p2),
                    s1.as_ref(),
                    s2.as_ref(),
                    *margin,
                    &mut manifolds,
                    &mut None,
                );
                manifolds.iter().map(|m| m.points.len()).sum::<usize>()
            })
        });
        g.finish();
    }
}

fn bench(c: &mut Criterion) {
    let scenes: Vec<Scene> = SCENES.iter().map(|n| scene(n)).collect();
    let pairs = collect(&scenes);
    bench_types(c, &pairs);
    bench_parry(c, &pairs);
}

criterion_group!(benches, bench);
criterion_main!(benches);
