//! MuJoCo's `mjc_MeshSDF` (a mesh geom against an `sdf` geom): a case worked by hand, MuJoCo
//! 4.0.0's contacts for a mesh cube on a torus, symmetry under the declaration order, and bad
//! input that must give nothing rather than panic. The corpus scene `scenes/sdf_mesh_mix` is
//! the differential test (`collide conformance --only scenes/sdf_mesh_mix`).

use collide::glam::{DQuat, DVec3};
use collide::narrow::sdf::face_bvh::{FaceBvhNode, NONE};
use collide::narrow::sdf::{mesh_sdf_pair, FaceBvh, Field, MeshGeom, SdfGeom};
use collide::narrow::PreContact;
use collide::{Collider, Contact, GeomType, Poses};

/// Corners of the cube of half-size `h` (index bits: x, y, z) and its 12 outward triangles.
fn cube(h: f64) -> (Vec<DVec3>, Vec<[u32; 3]>) {
    let vert = (0..8)
        .map(|i| {
            let s = |b: u32| if i & b != 0 { h } else { -h };
            DVec3::new(s(1), s(2), s(4))
        })
        .collect();
    let face = vec![
        [0, 2, 1],
        [1, 2, 3],
        [4, 5, 6],
        [5, 7, 6],
        [0, 1, 4],
        [1, 5, 4],
        [2, 6, 3],
        [3, 6, 7],
        [0, 4, 2],
        [2, 4, 6],
        [1, 3, 5],
        [3, 7, 5],
    ];
    (vert, face)
}

fn plane_at_origin() -> SdfGeom {
    SdfGeom {
        field: Field::Primitive(GeomType::Plane, DVec3::ZERO),
        aabb: [0.0, 0.0, 0.0, 1e10, 1e10, 0.0],
        pos: DVec3::ZERO,
        quat: DQuat::IDENTITY,
    }
}

/// A cube of half-size 0.1 standing on its corner 0 (the diagonal (1, 1, 1) turned to +z),
/// that corner 0.01 below the plane z = 0. By hand: the field's gradient is +z everywhere, so
/// Frank–Wolfe jumps to the lowest corner of every triangle in its first step and stays; the
/// six triangles at corner 0 all end there, the other corners are above the plane. One
/// contact: `dist` = -0.01, normal -z (from the mesh into the field), at the midpoint
/// (corner + 0.005 z).
#[test]
fn cube_on_its_corner_in_a_plane_field_by_hand() {
    let (vert, face) = cube(0.1);
    let bvh = FaceBvh::build(&vert, &face).expect("valid triangles");
    let quat = DQuat::from_rotation_arc(DVec3::ONE.normalize(), DVec3::Z);
    let depth = 0.01;
    let pos = DVec3::new(0.2, -0.1, 0.1 * 3f64.sqrt() - depth);
    let mesh = MeshGeom {
        vert: &vert,
        face: &face,
        bvh: &bvh,
        pos,
        quat,
    };
    let mut out = [PreContact::default(); 50];
    let n = mesh_sdf_pair(&mesh, &plane_at_origin(), 10, 40, &mut out);
    assert_eq!(n, 1, "{:?}", &out[..n]);
    let corner = pos + quat * vert[0];
    assert!((corner.z + depth).abs() < 1e-15, "{corner}");
    let c = out[0];
    assert!((c.dist + depth).abs() < 1e-15, "{}", c.dist);
    assert!((c.normal - DVec3::NEG_Z).length() < 1e-15, "{}", c.normal);
    let mid = corner + DVec3::Z * (depth / 2.0);
    assert!((c.pos - mid).length() < 1e-15, "{} vs {mid}", c.pos);
}

/// The cube of `cube_on_its_corner…` turned so that no corner reaches the plane: nothing.
#[test]
fn cube_above_a_plane_field_gives_nothing() {
    let (vert, face) = cube(0.1);
    let bvh = FaceBvh::build(&vert, &face).expect("valid triangles");
    let mesh = MeshGeom {
        vert: &vert,
        face: &face,
        bvh: &bvh,
        pos: DVec3::new(0.0, 0.0, 0.1 + 1e-9),
        quat: DQuat::IDENTITY,
    };
    let mut out = [PreContact::default(); 50];
    assert_eq!(
        mesh_sdf_pair(&mesh, &plane_at_origin(), 10, 40, &mut out),
        0
    );
}

fn scene(mesh_first: bool, initpoints: usize) -> String {
    scene_in_frame(mesh_first, initpoints, "0 0 0", "0 0 0")
}

/// [`scene`] with both bodies in a `<frame pos=… euler=…>` (degrees).
fn scene_in_frame(mesh_first: bool, initpoints: usize, pos: &str, euler: &str) -> String {
    let torus = r#"<body pos="0 0 0"><geom type="sdf" mesh="torus"><plugin instance="torus"/></geom></body>"#;
    let cube = r#"<body pos="0.35 0 0.24"><freejoint/><geom type="mesh" mesh="cube"/></body>"#;
    let (a, b) = if mesh_first {
        (cube, torus)
    } else {
        (torus, cube)
    };
    format!(
        r#"<mujoco>
  <option sdf_initpoints="{initpoints}"/>
  <extension><plugin plugin="mujoco.sdf.torus"><instance name="torus"><config key="radius1" value="0.35"/><config key="radius2" value="0.15"/></instance></plugin></extension>
  <asset>
    <mesh name="torus"><plugin instance="torus"/></mesh>
    <mesh name="cube" vertex="-.1 -.1 -.1  .1 -.1 -.1  -.1 .1 -.1  .1 .1 -.1  -.1 -.1 .1  .1 -.1 .1  -.1 .1 .1  .1 .1 .1"/>
  </asset>
  <worldbody><frame pos="{pos}" euler="{euler}">{a}{b}</frame></worldbody>
</mujoco>"#
    )
}

fn detect(xml: &str) -> (Vec<Contact>, Vec<(usize, usize)>) {
    let m = collide_mjcf::load_str(xml, ".").expect("test model compiles");
    detect_model(&m)
}

fn detect_model(m: &collide::Model) -> (Vec<Contact>, Vec<(usize, usize)>) {
    let mut poses = Poses::new(m);
    collide::forward_kinematics(m, &m.qpos0, None, &mut poses).expect("finite qpos");
    let mut c = Collider::new(m).expect("collider");
    let mut out = Vec::new();
    c.detect(&poses, &mut out);
    (out, c.unsupported_pairs().to_vec())
}

/// A 0.2 mesh cube resting across the tube of a torus (radii 0.35, 0.15): MuJoCo 4.0.0's four
/// contacts, in its order (read from `mujoco.MjData.contact` for the same XML): two pairs of
/// mirror images in y, on the cube's bottom edges where Frank–Wolfe stops (not at corners).
#[test]
fn mesh_cube_on_torus_matches_mujoco() {
    let (cs, unsupported) = detect(&scene(false, 40));
    assert!(unsupported.is_empty());
    #[rustfmt::skip]
    let mujoco: [(f64, [f64; 3], [f64; 3]); 4] = [
        (-0.009732436364230851, [0.32607639, 0.09991199, 0.14485693], [0.059028, 0.01808657, -0.99809247]),
        (-0.009464422013363172, [0.34857853, 0.10011394, 0.14471418], [-0.08383169, -0.02407699, -0.99618901]),
        (-0.009732436364230851, [0.32607639, -0.09991199, 0.14485693], [0.059028, -0.01808657, -0.99809247]),
        (-0.009464422013363172, [0.34857853, -0.10011394, 0.14471418], [-0.08383169, 0.02407699, -0.99618901]),
    ];
    assert_eq!(cs.len(), 4, "{cs:?}");
    for (c, (dist, pos, normal)) in cs.iter().zip(mujoco) {
        assert_eq!(c.geom, [1, 0], "mesh first, as MuJoCo orders the types");
        assert!((c.dist - dist).abs() < 1e-12, "{} vs {dist}", c.dist);
        assert!((c.pos - DVec3::from(pos)).length() < 1e-8, "{}", c.pos);
        assert!(
            (c.normal() - DVec3::from(normal)).length() < 1e-8,
            "{}",
            c.normal()
        );
    }
}

/// Declaring the mesh before or after the torus gives the same contacts (geom 1 is the mesh
/// either way, as in MuJoCo), bit for bit.
#[test]
fn mesh_sdf_contacts_do_not_depend_on_declaration_order() {
    for initpoints in [1, 7, 40] {
        let (a, _) = detect(&scene(false, initpoints));
        let (b, _) = detect(&scene(true, initpoints));
        assert!(!a.is_empty());
        assert_eq!(a.len(), b.len());
        for (x, y) in a.iter().zip(&b) {
            assert_eq!(x.geom, [1, 0]);
            assert_eq!(y.geom, [0, 1]);
            assert_eq!((x.dist, x.pos, x.normal()), (y.dist, y.pos, y.normal()));
        }
    }
}

/// With one start per triangle the 50-candidate cap never binds on a 12-triangle cube: more
/// start points can only hide contacts (MuJoCo keeps the first 50 candidates, many of them
/// repeats), never add a deeper one than the triangles hold.
#[test]
fn more_start_points_fill_the_candidate_cap_with_repeats() {
    let (one, _) = detect(&scene(false, 1));
    let (many, _) = detect(&scene(false, 100));
    let deepest = |cs: &[Contact]| cs.iter().map(|c| c.dist).fold(f64::INFINITY, f64::min);
    assert!(one.len() > many.len(), "{} vs {}", one.len(), many.len());
    assert!(deepest(&one) <= deepest(&many));
}

/// A mesh without face tree (a model not built by the compiler) is an unsupported pair, not
/// a panic; a tree whose leaves name triangles that do not exist gives no contacts.
#[test]
fn missing_or_inconsistent_face_tree_gives_nothing() {
    let mut m = collide_mjcf::load_str(&scene(false, 40), ".").expect("compiles");
    let mesh = m.geom_dataid[1].expect("mesh geom");
    assert!(m.mesh[mesh].face_bvh.is_some());
    m.mesh[mesh].face_bvh = None;
    let (cs, unsupported) = detect_model(&m);
    assert!(cs.is_empty());
    assert_eq!(unsupported, [(1, 0)]);

    let (vert, face) = cube(0.1);
    let leaf = FaceBvhNode {
        center: DVec3::ZERO,
        half: DVec3::splat(0.1),
        child: [NONE; 2],
        face: 99,
    };
    let bvh = FaceBvh {
        nodes: vec![
            FaceBvhNode {
                child: [1, 7],
                face: NONE,
                ..leaf
            },
            leaf,
        ],
    };
    let mut out = [PreContact::default(); 50];
    for pos in [DVec3::ZERO, DVec3::NAN, DVec3::splat(f64::INFINITY)] {
        let mesh = MeshGeom {
            vert: &vert,
            face: &face,
            bvh: &bvh,
            pos,
            quat: DQuat::IDENTITY,
        };
        assert_eq!(
            mesh_sdf_pair(&mesh, &plane_at_origin(), 10, 40, &mut out),
            0
        );
    }
}

/// Height field against an sdf geom: MuJoCo 4.0.0 warns "HField vs SDF collision not yet
/// supported!" and returns nothing; here nothing, and the pair is reported.
#[test]
fn hfield_against_sdf_is_reported_unsupported() {
    let xml = r#"<mujoco>
  <extension><plugin plugin="mujoco.sdf.torus"><instance name="torus"/></plugin></extension>
  <asset>
    <mesh name="torus"><plugin instance="torus"/></mesh>
    <hfield name="hf" nrow="3" ncol="3" size="1 1 .1 .1" elevation="0 0 0 0 1 0 0 0 0"/>
  </asset>
  <worldbody>
    <geom type="hfield" hfield="hf"/>
    <body pos="0 0 0.1"><freejoint/><geom type="sdf" mesh="torus"><plugin instance="torus"/></geom></body>
  </worldbody>
</mujoco>"#;
    let (cs, unsupported) = detect(xml);
    assert!(cs.is_empty());
    assert_eq!(unsupported, [(0, 1)]);
}

/// The compiler's face tree of the vertex-only cube of `scene` against MuJoCo 4.0.0's
/// (`mesh_bvhadr`, `bvh_nodeid`, `bvh_child`, `bvh_aabb` of the same XML): the same nodes in
/// the same order. Most circumcentres tie on the split axis, so the order of the 12 hull
/// triangles decides the leaves; flat leaf boxes are grown by `mjEPS` = 1e-14.
#[test]
fn cube_face_tree_matches_mujoco() {
    let m = collide_mjcf::load_str(&scene(false, 40), ".").expect("compiles");
    let mesh = &m.mesh[m.geom_dataid[1].expect("mesh geom")];
    let f = |v: [u32; 3]| v;
    assert_eq!(
        mesh.face,
        [
            f([2, 3, 0]),
            [3, 1, 0],
            [1, 5, 0],
            [5, 4, 0],
            [3, 5, 1],
            [5, 3, 7],
            [6, 2, 0],
            [4, 6, 0],
            [6, 3, 2],
            [3, 6, 7],
            [5, 6, 4],
            [6, 5, 7]
        ]
    );
    // (triangle or -1, children) per node, pre-order
    #[rustfmt::skip]
    let mujoco: [(i64, [i64; 2]); 23] = [
        (-1, [1, 12]), (-1, [2, 7]), (-1, [3, 4]), (6, [-1, -1]), (-1, [5, 6]), (7, [-1, -1]),
        (0, [-1, -1]), (-1, [8, 9]), (1, [-1, -1]), (-1, [10, 11]), (2, [-1, -1]),
        (3, [-1, -1]), (-1, [13, 18]), (-1, [14, 15]), (8, [-1, -1]), (-1, [16, 17]),
        (9, [-1, -1]), (10, [-1, -1]), (-1, [19, 20]), (11, [-1, -1]), (-1, [21, 22]),
        (4, [-1, -1]), (5, [-1, -1]),
    ];
    let id = |x: u32| if x == NONE { -1 } else { i64::from(x) };
    let nodes = &mesh.face_bvh.as_ref().expect("tree").nodes;
    let ours: Vec<(i64, [i64; 2])> = nodes
        .iter()
        .map(|n| (id(n.face), [id(n.child[0]), id(n.child[1])]))
        .collect();
    assert_eq!(ours, mujoco);
    // boxes: the root is the cube (0.1 as f32), leaf 3 (triangle 6) the flat face x = -0.1
    let h = 0.1f32 as f64;
    assert_eq!(
        (nodes[0].center, nodes[0].half),
        (DVec3::ZERO, DVec3::splat(h))
    );
    assert_eq!(nodes[3].center, DVec3::new(-h, 0.0, 0.0));
    assert!(
        (nodes[3].half.x - 1.0005885e-14).abs() < 1e-20,
        "{}",
        nodes[3].half.x
    );
    assert_eq!((nodes[3].half.y, nodes[3].half.z), (h, h));
}

/// `mj_geomDistance` on the cube and torus of `mesh_cube_on_torus_matches_mujoco`: MuJoCo
/// 4.0.0 runs `mjc_MeshSDF` (the margin plays no part) and reports the deepest contact, from
/// the point on the cube's edge to the point on the torus, in either argument order.
#[test]
fn geom_distance_of_mesh_cube_and_torus_matches_mujoco() {
    let m = collide_mjcf::load_str(&scene(false, 40), ".").expect("compiles");
    let mut poses = Poses::new(&m);
    collide::forward_kinematics(&m, &m.qpos0, None, &mut poses).expect("finite qpos");
    let mut query = collide::GeomDistance::new(&m);
    let on_cube = [0.3263636360114271, 0.10000000149011612, 0.13999999850988387];
    let on_torus = [0.3257891497524064, 0.09982397505696258, 0.14971386992229357];
    for (a, b, from, to) in [(1, 0, on_cube, on_torus), (0, 1, on_torus, on_cube)] {
        let d = query
            .distance(&poses.view(), a, b, 0.5)
            .expect("valid query");
        assert!((d.dist + 0.009732436364230851).abs() < 1e-12, "{}", d.dist);
        let got = [&d.fromto[..3], &d.fromto[3..]];
        for (g, want) in got.iter().zip([from, to]) {
            assert!(
                (DVec3::from_slice(g) - DVec3::from(want)).length() < 1e-9,
                "{g:?}"
            );
        }
    }
}

/// Moving both geoms by one rigid motion moves the contacts with them: the same count, and
/// each contact's dist, position and normal carried over within rounding.
#[test]
fn rigid_motion_of_both_geoms_moves_the_contacts_with_them() {
    let (base, _) = detect(&scene(false, 40));
    for (pos, euler) in [("1 -2 0.5", "0 0 0"), ("0.3 0.1 -0.2", "30 -70 145")] {
        let (moved, _) = detect(&scene_in_frame(false, 40, pos, euler));
        let t = DVec3::from_slice(
            &pos.split(' ')
                .map(|x| x.parse().unwrap())
                .collect::<Vec<f64>>(),
        );
        let e: Vec<f64> = euler
            .split(' ')
            .map(|x| x.parse::<f64>().unwrap())
            .collect();
        let q = DQuat::from_euler(
            collide::glam::EulerRot::XYZ,
            e[0].to_radians(),
            e[1].to_radians(),
            e[2].to_radians(),
        );
        assert_eq!(base.len(), moved.len(), "{euler}");
        for (a, b) in base.iter().zip(&moved) {
            assert!((a.dist - b.dist).abs() < 1e-9, "{} vs {}", a.dist, b.dist);
            assert!(
                (q * a.pos + t - b.pos).length() < 1e-9,
                "{} vs {}",
                a.pos,
                b.pos
            );
            assert!((q * a.normal() - b.normal()).length() < 1e-9);
        }
    }
}
