//! The exact mesh path through the collider (`MeshCollision::Exact`).
//!
//! On a convex mesh the collider sends pairs with convex shapes to the convex solver, as the
//! hull path does; the triangle functions themselves (`primitive_mesh`, `mesh_mesh`) agree
//! with that solver on the deepest `dist` out of penetration, where the hull path is exact
//! (GJK/EPA to a 1e-12 tolerance with `multiccd` off: MuJoCo's multi-contact face clipping
//! reports face-based depths that can differ from the true distance by ~1e-4, which the
//! exact path and a brute-force sampling agree on). In penetration the convex solver's depth
//! is the minimal translation, checked against a brute-force separating-axis search. The hull
//! path stays the default.

use collide::glam::{DQuat, DVec3};
use collide::narrow::mesh_exact::{self, MeshScratch, TriMesh};
use collide::narrow::{PreContact, Shape};
use collide::{
    BatchCollider, BatchPoses, Collider, ColliderOptions, Contact, GeomType, MeshCollision, Poses,
};
use proptest::prelude::*;

/// The octahedron's vertices and faces (unequal arms).
const OCTA_VERTEX: &str = "0.3 0 0  -0.2 0 0  0 0.25 0  0 -0.15 0  0 0 0.2  0 0 -0.3";
const OCTA_FACE: &str = "0 2 4  1 4 2  0 4 3  1 3 4  0 5 2  1 2 5  0 3 5  1 5 3";

/// The dented octahedron's vertices: its short -x arm pushed in to x = 0.05 (not convex).
const DENT_VERTEX: &str = "0.3 0 0  0.05 0 0  0 0.25 0  0 -0.15 0  0 0 0.2  0 0 -0.3";

/// A convex mesh (an octahedron with unequal arms, margin 0.05) on a free body and, on a second
/// free body, a sphere, capsule, box, ellipsoid, cylinder or a second convex mesh (a skewed
/// wedge), far apart at `qpos0`.
fn model(other: &str) -> collide::Model {
    model_of("octa", other)
}

/// [`model`] with mesh `mesh` (`octa` or `dent`, the dented octahedron) on the first body.
fn model_of(mesh: &str, other: &str) -> collide::Model {
    let xml = format!(
        r#"<mujoco>
  <option ccd_tolerance="1e-12" ccd_iterations="500"><flag multiccd="disable"/></option>
  <asset>
    <mesh name="octa" vertex="{OCTA_VERTEX}" face="{OCTA_FACE}"/>
    <mesh name="dent" vertex="{DENT_VERTEX}" face="{OCTA_FACE}"/>
    <mesh name="wedge" vertex="-0.12 -0.1 -0.06  0.14 -0.1 -0.06  0 0.13 -0.06
                                -0.1 -0.08 0.07  0.11 -0.09 0.08  0.01 0.1 0.06"
          face="0 2 1  3 4 5  0 1 4  0 4 3  1 2 5  1 5 4  2 0 3  2 3 5"/>
  </asset>
  <worldbody>
    <body name="a"><freejoint/><geom type="mesh" mesh="{mesh}" margin="0.05"/></body>
    <body name="b" pos="3 0 0"><freejoint/>{other}</body>
  </worldbody>
</mujoco>"#
    );
    collide_mjcf::load_str(&xml, ".").expect("test model compiles")
}

/// The geoms of the pair `model(other)` builds (`kind` indexes them).
const OTHERS: [&str; 6] = [
    r#"<geom type="sphere" size="0.12"/>"#,
    r#"<geom type="capsule" size="0.07 0.15"/>"#,
    r#"<geom type="box" size="0.1 0.15 0.05"/>"#,
    r#"<geom type="ellipsoid" size="0.12 0.07 0.09"/>"#,
    r#"<geom type="cylinder" size="0.08 0.11"/>"#,
    r#"<geom type="mesh" mesh="wedge"/>"#,
];

fn poses(m: &collide::Model, qpos: &[f64]) -> Poses {
    let mut poses = Poses::new(m);
    collide::forward_kinematics(m, qpos, None, &mut poses).expect("finite qpos");
    poses
}

fn detect(m: &collide::Model, mesh: MeshCollision, qpos: &[f64]) -> Vec<Contact> {
    let poses = poses(m, qpos);
    let opts = ColliderOptions {
        mesh_collision: mesh,
        ..Default::default()
    };
    let mut c = Collider::with_options(m, opts).expect("collider");
    assert_eq!(c.mesh_collision(), mesh);
    let mut out = Vec::new();
    c.detect(&poses, &mut out);
    out
}

fn deepest(cs: &[Contact]) -> Option<&Contact> {
    cs.iter().min_by(|a, b| a.dist.total_cmp(&b.dist))
}

/// The deepest contact's `dist` and normal, the normal from the octahedron (geom 0) to the
/// other geom.
fn deepest_from_octa(cs: &[Contact]) -> Option<(f64, DVec3)> {
    deepest(cs).map(|c| {
        let n = c.normal();
        (c.dist, if c.geom[0] == 0 { n } else { -n })
    })
}

/// The triangle functions' deepest contact (`dist`, normal from the octahedron to the other
/// geom) for `model(other)` at `qpos`, whatever the collider's routing: `primitive_mesh` for a
/// primitive, `mesh_mesh` for the wedge, with the pair's margin (the octahedron's 0.05).
fn triangles_deepest(m: &collide::Model, qpos: &[f64]) -> Option<(f64, DVec3)> {
    let p = poses(m, qpos);
    let shape = |g: usize| Shape {
        pos: p.geom_xpos[g],
        mat: p.geom_xmat[g],
        size: m.geom_size[g],
    };
    let tri = |g: usize| TriMesh::from_mesh(&m.mesh[m.geom_dataid[g].expect("mesh")]).unwrap();
    let octa = tri(0);
    let mut scratch = MeshScratch::new();
    let mut out = [PreContact::default(); mesh_exact::MAX_MESH_CONTACTS];
    let (n, sign) = if m.geom_type[1] == GeomType::Mesh {
        let n = mesh_exact::mesh_mesh(
            &shape(0),
            &octa,
            &shape(1),
            &tri(1),
            0.05,
            &mut scratch,
            &mut out,
        );
        (n, 1.0)
    } else {
        let n = mesh_exact::primitive_mesh(
            m.geom_type[1],
            &shape(1),
            &shape(0),
            &octa,
            0.05,
            &mut scratch,
            &mut out,
        );
        (n, -1.0)
    };
    out[..n]
        .iter()
        .min_by(|a, b| a.dist.total_cmp(&b.dist))
        .map(|c| (c.dist, sign * c.normal))
}

/// Penetration compared for the sphere and the capsule: at most 0.02 (their radii are 0.12 and
/// 0.07).
const SHALLOW: f64 = -0.02;

fn quat() -> impl Strategy<Value = DQuat> {
    (-1.0..1.0f64, -1.0..1.0f64, -1.0..1.0f64, -1.0..1.0f64).prop_filter_map(
        "zero",
        |(w, x, y, z)| {
            let q = DQuat::from_xyzw(x, y, z, w);
            (q.length() > 0.1).then(|| q.normalize())
        },
    )
}

/// `model(OTHERS[kind])` with the octahedron turned by `qa` at the origin and the other geom
/// turned by `qb` at `p`.
fn posed(kind: usize, p: (f64, f64, f64), qa: DQuat, qb: DQuat) -> (collide::Model, Vec<f64>) {
    let m = model(OTHERS[kind]);
    let mut qpos = m.qpos0.clone();
    qpos[3..7].copy_from_slice(&[qa.w, qa.x, qa.y, qa.z]);
    qpos[7..10].copy_from_slice(&[p.0, p.1, p.2]);
    qpos[10..14].copy_from_slice(&[qb.w, qb.x, qb.y, qb.z]);
    (m, qpos)
}

/// The world vertices of a polytope geom (a box's corners or a mesh's vertices), the
/// directions of its edges and its face normals (both up to sign; a box's are its axes).
fn polytope(m: &collide::Model, p: &Poses, g: usize) -> (Vec<DVec3>, Vec<DVec3>, Vec<DVec3>) {
    let (pos, mat) = (p.geom_xpos[g], p.geom_xmat[g]);
    if m.geom_type[g] == GeomType::Box {
        let s = m.geom_size[g];
        let corners = (0..8)
            .map(|k| {
                let sign = |b: usize| if k >> b & 1 == 1 { 1.0 } else { -1.0 };
                pos + mat * DVec3::new(sign(0) * s.x, sign(1) * s.y, sign(2) * s.z)
            })
            .collect();
        let axes: Vec<DVec3> = vec![mat.x_axis, mat.y_axis, mat.z_axis];
        return (corners, axes.clone(), axes);
    }
    let mesh = &m.mesh[m.geom_dataid[g].expect("mesh")];
    let v: Vec<DVec3> = mesh.vert.iter().map(|&v| pos + mat * v).collect();
    let mut edges = Vec::new();
    let mut normals = Vec::new();
    for f in &mesh.face {
        let [a, b, c] = f.map(|i| v[i as usize]);
        normals.push((b - a).cross(c - a).normalize());
        edges.extend([b - a, c - b, a - c]);
    }
    (v, edges, normals)
}

/// The minimal translation depth of two convex polytopes by brute force: the smallest overlap
/// of their projections over every face normal and every cross product of two edges (the
/// normals of the faces of their Minkowski difference are among these); negative when a
/// tested axis separates them.
fn sat_depth(
    a: &(Vec<DVec3>, Vec<DVec3>, Vec<DVec3>),
    b: &(Vec<DVec3>, Vec<DVec3>, Vec<DVec3>),
) -> f64 {
    let mut axes: Vec<DVec3> = a.2.iter().chain(&b.2).copied().collect();
    for ea in &a.1 {
        for eb in &b.1 {
            let n = ea.cross(*eb);
            if n.length_squared() > 1e-12 * ea.length_squared() * eb.length_squared() {
                axes.push(n.normalize());
            }
        }
    }
    let span = |v: &[DVec3], n: DVec3| {
        v.iter()
            .map(|p| p.dot(n))
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), x| {
                (lo.min(x), hi.max(x))
            })
    };
    axes.iter()
        .map(|&n| {
            let ((alo, ahi), (blo, bhi)) = (span(&a.0, n), span(&b.0, n));
            (ahi - blo).min(bhi - alo)
        })
        .fold(f64::INFINITY, f64::min)
}

#[test]
fn hull_stays_the_default() {
    let m = model(r#"<geom type="sphere" size="0.1"/>"#);
    let c = Collider::new(&m).expect("collider");
    assert_eq!(c.mesh_collision(), MeshCollision::Hull);
}

/// The octahedron and the wedge are convex, the dented octahedron is not.
#[test]
fn convexity_of_prepared_meshes() {
    let m = model(OTHERS[5]);
    for g in 0..2 {
        let mesh = TriMesh::from_mesh(&m.mesh[m.geom_dataid[g].unwrap()]).unwrap();
        assert!(mesh.closed && mesh.convex, "geom {g}");
    }
    let dented = model_of("dent", OTHERS[0]);
    let mesh = TriMesh::from_mesh(&dented.mesh[dented.geom_dataid[0].unwrap()]).unwrap();
    assert!(mesh.closed && !mesh.convex);
    // two convex pieces in one mesh are not convex
    let v: Vec<DVec3> = [[0., 0., 0.], [1., 0., 0.], [0., 1., 0.], [0., 0., 1.]]
        .iter()
        .chain(&[[5., 0., 0.], [6., 0., 0.], [5., 1., 0.], [5., 0., 1.]])
        .map(|&[x, y, z]| DVec3::new(x, y, z))
        .collect();
    let tet = [[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]];
    let f: Vec<[u32; 3]> = tet
        .iter()
        .chain(&tet.map(|t| t.map(|i| i + 4)))
        .copied()
        .collect();
    let one = TriMesh::new("tet", &v[..4], &f[..4]).unwrap();
    let two = TriMesh::new("two tets", &v, &f).unwrap();
    assert!(one.convex && !two.convex);
    // an open mesh (one face missing) is not convex
    assert!(!TriMesh::new("open", &v[..4], &f[..3]).unwrap().convex);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// On a convex mesh, under `MeshCollision::Exact`, pairs with convex shapes go to the convex
    /// solver: the hull path's contacts exactly.
    #[test]
    fn convex_pairs_take_the_convex_solver_when_exact(
        kind in 0..6usize,
        p in (-0.5..0.5f64, -0.5..0.5f64, -0.5..0.5f64),
        qa in quat(), qb in quat(),
    ) {
        let (m, qpos) = posed(kind, p, qa, qb);
        prop_assert_eq!(detect(&m, MeshCollision::Hull, &qpos), detect(&m, MeshCollision::Exact, &qpos));
    }

    /// The triangle functions on a convex mesh, against sphere, capsule, box, ellipsoid,
    /// cylinder and a convex mesh: a contact when the hull path finds one (outside a 1e-9 band
    /// at the margin), with the same deepest dist within 1e-6 and normal within 1e-3 rad out
    /// of penetration and, for the sphere and the capsule, down to 0.02 deep (less than their
    /// radii: their core stays outside the mesh, so the depth is the radius less the core's
    /// distance, the minimal translation). Deeper, or for shapes without a core, depths on the
    /// triangles are per feature, which is why the collider sends convex pairs to the convex
    /// solver (`convex_polytopes_in_penetration_report_the_minimal_translation`).
    #[test]
    fn convex_mesh_triangles_agree_with_hull(
        kind in 0..6usize,
        p in (-0.5..0.5f64, -0.5..0.5f64, -0.5..0.5f64),
        qa in quat(), qb in quat(),
    ) {
        let (m, qpos) = posed(kind, p, qa, qb);
        let hull = detect(&m, MeshCollision::Hull, &qpos);
        // box, ellipsoid, cylinder and mesh: compared only out of penetration (in penetration a
        // box corner's or a cylinder rim's depth below a face can exceed the minimal
        // translation, and crossed mesh edges count only with both witnesses inside the other
        // mesh)
        let shallow = if kind < 2 { SHALLOW } else { 0.0 };
        match (deepest_from_octa(&hull), triangles_deepest(&m, &qpos)) {
            (Some(h), Some(e)) => {
                if h.0 > shallow {
                    prop_assert!((h.0 - e.0).abs() < 1e-6, "hull {:?}\nexact {:?}", h, e);
                    prop_assert!(h.1.dot(e.1) > 1.0 - 1e-6, "{:?} {:?}", h, e);
                }
            }
            (Some(h), None) => prop_assert!(h.0 > 0.05 - 1e-9 || h.0 < shallow, "{:?}", h),
            (None, Some(e)) => prop_assert!(e.0 > 0.05 - 1e-9, "{:?}", e),
            (None, None) => {}
        }
    }

    /// Convex polytopes (the octahedron against a box or the wedge) in penetration under
    /// `MeshCollision::Exact`: the deepest contact's depth is the minimal translation, as a
    /// brute-force separating-axis search over face normals and edge cross products finds it.
    #[test]
    fn convex_polytopes_in_penetration_report_the_minimal_translation(
        wedge in any::<bool>(),
        p in (-0.25..0.25f64, -0.25..0.25f64, -0.25..0.25f64),
        qa in quat(), qb in quat(),
    ) {
        let (m, qpos) = posed(if wedge { 5 } else { 2 }, p, qa, qb);
        let pz = poses(&m, &qpos);
        let depth = sat_depth(&polytope(&m, &pz, 0), &polytope(&m, &pz, 1));
        let exact = detect(&m, MeshCollision::Exact, &qpos);
        match deepest(&exact) {
            Some(c) if depth > 1e-9 => {
                prop_assert!((c.dist + depth).abs() < 1e-6, "dist {} depth {}", c.dist, depth)
            }
            Some(c) => prop_assert!(c.dist >= -1e-9, "dist {} but separated", c.dist),
            None => prop_assert!(depth <= 0.0, "missed depth {}", depth),
        }
    }
}

/// Found by `convex_mesh_exact_agrees_with_hull` (once an ignored known gap): an octahedron tip
/// inside a box, 0.014 below one box face and 0.017 behind another. The nearer face's normal
/// lies outside the tip's normal cone, so the contact goes out through the other face, as the
/// hull path's does. The collider now sends this convex pair to the convex solver; the
/// triangle functions keep the answer.
#[test]
fn box_into_octahedron_tip_found() {
    let m = model(r#"<geom type="box" size="0.1 0.15 0.05"/>"#);
    let mut qpos = m.qpos0.clone();
    // (w, x, y, z) from the shrunk proptest case
    qpos[3..7].copy_from_slice(&[0.0, 0.0, 0.0, -1.0]);
    qpos[7..10].copy_from_slice(&[
        0.13947858186677917,
        0.18230222531658405,
        -0.04562461162220762,
    ]);
    qpos[10..14].copy_from_slice(&[
        0.2256446452655539,
        -0.7915640833605085,
        -0.5311601985692637,
        0.20094685728440972,
    ]);
    let hull = detect(&m, MeshCollision::Hull, &qpos);
    let h = deepest(&hull).expect("hull contact");
    let e = triangles_deepest(&m, &qpos).expect("contact on the triangles");
    assert!((h.dist - e.0).abs() < 1e-6, "{h:?} {e:?}");
}

/// `BatchCollider` takes the option: its workers (sharing one set of prepared meshes) give the
/// single collider's contacts in every world (a box against the dented octahedron, by its
/// triangles).
#[test]
fn batch_collider_collides_meshes_exactly_when_asked() {
    let m = model_of("dent", r#"<geom type="box" size="0.1 0.15 0.05"/>"#);
    let mut states = Vec::new();
    for k in 0..5 {
        let mut qpos = m.qpos0.clone();
        qpos[7..10].copy_from_slice(&[0.05 * k as f64, 0.1, 0.22]);
        states.push(qpos);
    }
    let opts = ColliderOptions {
        mesh_collision: MeshCollision::Exact,
        ..Default::default()
    };
    let mut batch = BatchCollider::with_options(&m, 3, opts).expect("batch");
    assert_eq!(batch.mesh_collision(), MeshCollision::Exact);
    let mut poses = BatchPoses::new(&m, states.len());
    poses.compute(&m, &states.concat()).expect("finite qpos");
    let mut out = vec![Vec::new(); states.len()];
    batch.detect(&poses, &mut out);
    let mut found = 0;
    for (qpos, got) in states.iter().zip(&out) {
        let want = detect(&m, MeshCollision::Exact, qpos);
        assert_eq!(got, &want);
        found += want.len();
    }
    assert!(found > 0);
}

/// Found by `convex_mesh_exact_agrees_with_hull` once box penetration was compared (once an
/// ignored known gap): a box and the octahedron interpenetrating by 0.015 with no vertex of
/// either inside the other (an octahedron edge crossing a box edge, normal along their cross
/// product). The box edge's witness grazes an octahedron face 2.3e-5 outside it (a sharp
/// edge), which the exact path once rejected; the triangle functions now report the hull
/// path's depth.
#[test]
fn box_octahedron_edges_crossing_found() {
    let m = model(r#"<geom type="box" size="0.1 0.15 0.05"/>"#);
    let mut qpos = m.qpos0.clone();
    let q = |x: f64, y: f64, z: f64, w: f64| DQuat::from_xyzw(x, y, z, w).normalize();
    let qa = q(
        -0.6737290501944315,
        -0.4321813683298201,
        0.3931531796715942,
        0.45248094888822493,
    );
    let qb = q(
        -0.23279847165452272,
        0.511740247270845,
        0.6301092755889427,
        0.5356202868966697,
    );
    qpos[3..7].copy_from_slice(&[qa.w, qa.x, qa.y, qa.z]);
    qpos[7..10].copy_from_slice(&[0.12994424105686697, 0.1257749359575972, 0.1402098338332183]);
    qpos[10..14].copy_from_slice(&[qb.w, qb.x, qb.y, qb.z]);
    let hull = detect(&m, MeshCollision::Hull, &qpos);
    let h = deepest(&hull).expect("hull contact");
    assert!((h.dist + 0.015).abs() < 1e-3, "{h:?}");
    let e = triangles_deepest(&m, &qpos).expect("contact on the triangles");
    assert!((h.dist - e.0).abs() < 1e-6, "{h:?} {e:?}");
}

/// Mesh `mesh` (`octa`, the octahedron, or `dent`, the octahedron with its short -x arm
/// pushed in to x = 0.05: not convex) as a `kind` geom (`mesh` or a mesh-backed `sdf`) on body
/// `a` at the origin, and `other` on body `b`, declared first, at `(0.35, 0.02, 0.01)`:
/// touching the long +x arm.
fn mesh_or_sdf(kind: &str, mesh: &str, other: &str) -> collide::Model {
    let xml = format!(
        r#"<mujoco>
  <asset>
    <mesh name="octa" vertex="{OCTA_VERTEX}" face="{OCTA_FACE}"/>
    <mesh name="dent" vertex="{DENT_VERTEX}" face="{OCTA_FACE}"/>
    <mesh name="tetra" vertex="0 0 0  0.1 0 0  0 0.1 0  0 0 0.1"/>
  </asset>
  <worldbody>
    <body name="b" pos="0.35 0.02 0.01"><freejoint/>{other}</body>
    <body name="a"><freejoint/><geom type="{kind}" mesh="{mesh}"/></body>
  </worldbody>
</mujoco>"#
    );
    collide_mjcf::load_str(&xml, ".").expect("test model compiles")
}

/// Under `MeshCollision::Exact` a mesh-backed sdf geom collides as its mesh would as a `mesh`
/// geom against spheres, capsules, boxes, ellipsoids, cylinders and meshes (by its triangles,
/// or by the convex solver when the mesh and the other shape are convex): exactly the
/// contacts of the same mesh as a `mesh` geom, and not MuJoCo's sdf path (the hull option's
/// contacts).
#[test]
fn mesh_backed_sdf_geom_collides_as_its_mesh_when_exact() {
    let others = [
        r#"<geom type="sphere" size="0.1"/>"#,
        r#"<geom type="capsule" size="0.05 0.1" euler="0 90 0"/>"#,
        r#"<geom type="box" size="0.08 0.06 0.05" euler="10 20 30"/>"#,
        r#"<geom type="ellipsoid" size="0.08 0.06 0.05" euler="10 20 30"/>"#,
        r#"<geom type="cylinder" size="0.06 0.05" pos="-0.03 0 0" euler="0 90 0"/>"#,
        r#"<geom type="mesh" mesh="tetra" pos="-0.1 0 0"/>"#,
    ];
    for (name, other) in ["octa", "dent"]
        .iter()
        .flat_map(|n| others.map(|o| (*n, o)))
    {
        let sdf = mesh_or_sdf("sdf", name, other);
        let mesh = mesh_or_sdf("mesh", name, other);
        let want = detect(&mesh, MeshCollision::Exact, &mesh.qpos0);
        assert!(!want.is_empty(), "{other}: no contact");
        let got = detect(&sdf, MeshCollision::Exact, &sdf.qpos0);
        assert_eq!(got, want, "{other}");
        // by the hull option, the sdf geom is MuJoCo's (another answer)
        assert_ne!(
            detect(&sdf, MeshCollision::Hull, &sdf.qpos0),
            want,
            "{other}"
        );
    }
}
