//! Models that once failed to load or disagreed with MuJoCo 4.0.0 although MuJoCo compiles
//! them; expected figures are MuJoCo's (measured with its Python bindings).

use collide_mjcf::load_str;

fn corpus() -> std::path::PathBuf {
    std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../conformance/corpus")
}

/// gymnasium-robotics' Fetch torso mesh (`torso_fixed_link.stl`) alone in a model.
fn fetch_torso() -> collide::Model {
    let dir = corpus().join("gymnasium_robotics/assets/stls/fetch");
    let xml = format!(
        r#"<mujoco><compiler meshdir="{}"/><asset><mesh file="torso_fixed_link.stl" name="t"/>
        </asset><worldbody><geom type="mesh" mesh="t"/></worldbody></mujoco>"#,
        dir.display()
    );
    load_str(&xml, ".").expect("MuJoCo compiles this mesh")
}

#[test]
fn fetch_torso_fixed_link_hull_compiles_like_mujoco() {
    // gymnasium-robotics' Fetch torso: qhull merges coplanar facets here (60 vertices and 116
    // triangles after qh_triangulate, as MuJoCo's graph).
    let m = fetch_torso();
    let mesh = &m.mesh[0];
    let hull = mesh.hull.as_ref().expect("hull built");
    assert_eq!(hull.vert.len(), 60);
    assert_eq!(hull.face.len(), 116);
    let want = [
        -0.09617273934566008,
        -1.059503852708905e-09,
        0.21236826425604396,
    ];
    for (k, w) in want.iter().enumerate() {
        assert!((mesh.pos[k] - w).abs() < 1e-6, "{:?}", mesh.pos);
    }
    let q = [mesh.quat.w, mesh.quat.x, mesh.quat.y, mesh.quat.z];
    let wq = [0.9999999999999223, 0.0, 3.943109228824379e-07, 0.0];
    let same = (0..4).all(|k| (q[k] - wq[k]).abs() < 1e-6);
    let neg = (0..4).all(|k| (q[k] + wq[k]).abs() < 1e-6);
    assert!(same || neg, "{q:?}");
}

#[test]
fn body_without_massive_geoms_keeps_its_frame_as_inertial_frame() {
    // MuJoCo 4.0.0: body_ipos/body_iquat of a body without geoms or <inertial>, or whose geoms
    // are all massless (e.g. visual-only geoms of a static body), equal its pos/quat
    // (measured: pos "1 1 0", euler "0 0 30" gives ipos (1,1,0), iquat (cos15°,0,0,sin15°)).
    for inside in [
        r#"<site size=".01"/>"#,
        r#"<geom size=".1" pos="0 0 .3" mass="0"/><geom size=".1" pos=".2 0 0" mass="0"/>"#,
    ] {
        let m = load_str(
            &format!(
                r#"<mujoco><worldbody><body pos="1 1 0" euler="0 0 30">{inside}</body>
                </worldbody></mujoco>"#
            ),
            ".",
        )
        .unwrap();
        let p = m.body_ipos[1];
        assert!(
            (p - collide::glam::DVec3::new(1.0, 1.0, 0.0)).length() < 1e-15,
            "{inside}: {p}"
        );
        let q = m.body_iquat[1];
        let h = 15f64.to_radians();
        assert!(
            (q.w - h.cos()).abs() < 1e-12 && (q.z - h.sin()).abs() < 1e-12,
            "{inside}: {q:?}"
        );
    }
}

#[test]
fn hfield_geom_weighs_as_its_box() {
    // MuJoCo 4.0.0: a height field of size (sx, sy, sz, base) weighs as a box sx × sy across
    // (half-sizes) and sz/2 + base high, centred on the geom: size "1 1 1 1" gives mass 6000,
    // size "2 1 1 1" 12000, "1 1 1 2" 10000; the body's inertial frame is at the geom.
    for (size, mass) in [
        ("1 1 1 1", 6000.0),
        ("2 1 1 1", 12000.0),
        ("1 1 1 2", 10000.0),
    ] {
        let m = load_str(
            &format!(
                r#"<mujoco><asset><hfield name="h" nrow="3" ncol="3" size="{size}"/></asset>
                <worldbody><body pos="1 0 0"><geom type="hfield" hfield="h" pos="0 0 .3"/>
                </body></worldbody></mujoco>"#
            ),
            ".",
        )
        .unwrap();
        assert!(
            (m.body_mass[1] - mass).abs() < 1e-9,
            "{size}: {}",
            m.body_mass[1]
        );
        assert!((m.body_ipos[1] - collide::glam::DVec3::new(0.0, 0.0, 0.3)).length() < 1e-15);
    }
}

#[test]
fn inertiagrouprange_limits_the_geoms_of_the_inertial_frame() {
    // metaworld: `inertiagrouprange="4 5"`; MuJoCo 4.0.0 measured: the group-0 sphere does not
    // count (ipos at the group-4 box), and a body with only group-0 geoms keeps its own frame.
    let m = load_str(
        r#"<mujoco><compiler inertiagrouprange="4 5"/><worldbody>
        <body pos="0 0 1"><freejoint/><geom size=".1" pos="1 0 0"/>
          <geom type="box" size=".1 .1 .1" pos="0 2 0" group="4"/></body>
        <body pos="0 3 0.5"><geom size=".1" pos=".2 0 0"/></body>
        </worldbody></mujoco>"#,
        ".",
    )
    .unwrap();
    assert!((m.body_ipos[1] - collide::glam::DVec3::new(0.0, 2.0, 0.0)).length() < 1e-15);
    assert!((m.body_ipos[2] - collide::glam::DVec3::new(0.0, 3.0, 0.5)).length() < 1e-15);
}

#[test]
fn included_file_with_mujocoinclude_root_is_accepted() {
    // metaworld's included files use the legacy `<mujocoinclude>` root; MuJoCo 4.0.0 takes
    // the children of any root element.
    let dir = std::env::temp_dir().join(format!("collide-inc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("part.xml"),
        r#"<mujocoinclude><worldbody><geom size=".1"/></worldbody></mujocoinclude>"#,
    )
    .unwrap();
    let m = load_str(r#"<mujoco><include file="part.xml"/></mujoco>"#, &dir);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(m.unwrap().ngeom(), 1);
}

#[test]
fn adroit_hammer_board_class_keeps_the_main_defaults_of_its_time() {
    // gymnasium-robotics' Adroit hammer defines class "board" before including the file whose
    // top-level <default> sets geom margin 0.0005: MuJoCo copies a class from its parent when
    // the class is parsed, so "board" keeps margin 0 (and body_margin of the nail board is 0).
    // A class's own elements are read before its nested classes. MuJoCo 4.0.0: a 0.002/0,
    // b 0.0005/0.0001, c 0.0005/0.0001 (margin/gap).
    let m = load_str(
        r#"<mujoco>
          <default>
            <default class="board"><geom type="box" size=".1 .1 .1"/></default>
            <geom margin="0.002"/>
          </default>
          <default>
            <geom margin="0.0005" gap="0.0001"/>
            <default class="late"><geom type="box" size=".1 .1 .1"/></default>
          </default>
          <worldbody>
            <geom name="a" class="board"/>
            <geom name="b" class="late"/>
            <geom name="c" size=".1"/>
          </worldbody>
        </mujoco>"#,
        ".",
    )
    .unwrap();
    let got: Vec<(f64, f64)> = (0..3).map(|g| (m.geom_margin[g], m.geom_gap[g])).collect();
    assert_eq!(got, [(0.002, 0.0), (0.0005, 0.0001), (0.0005, 0.0001)]);
    assert_eq!(m.geom_type[0], collide::GeomType::Box);
}

#[test]
fn repeated_element_in_one_default_class_is_an_error_and_main_classes_merge() {
    // MuJoCo 4.0.0 refuses two <geom> in one class ("unique element 'geom' found 2 times"),
    // and merges two top-level <default> sections, the later value winning (margin 0.3).
    let e = load_str(
        r#"<mujoco><default><geom margin="0.1"/><geom margin="0.3"/></default>
        <worldbody><geom size=".1"/></worldbody></mujoco>"#,
        ".",
    )
    .unwrap_err()
    .to_string();
    // (the schema check says so first: "<geom> may appear once inside <default>")
    assert!(e.contains("found 2 times"), "{e}");
    let m = load_str(
        r#"<mujoco><default><geom margin="0.1"/></default><default><geom margin="0.3"/></default>
        <worldbody><geom size=".1"/></worldbody></mujoco>"#,
        ".",
    )
    .unwrap();
    assert_eq!(m.geom_margin[0], 0.3);
}

#[test]
fn fetch_slide_torso_hull_orders_vertices_as_mujoco() {
    // gymnasium_robotics/fetch/slide, floor against robot0:torso_fixed_link at its recorded
    // states 4 and 6: MuJoCo reports 1 contact. The mesh's flat bottom has 23 vertices tied for
    // the support along -z; MuJoCo's extremum seed for -z (bucket 12) is its hull vertex 0 =
    // mesh vertex 14, which lies on no polygon (dropped from the bottom face as an edge point),
    // so mjc_PlaneConvex adds no polygon contacts. qhull gets this order through a
    // concave-coplanar merge of two new facets after its 21st merge (qh_getmergeset_initial,
    // qh_merge_nonconvex, qh_mergesimplex); without it the hull listed mesh vertex 13 first (a
    // corner of the bottom polygon) and three more contacts followed. MuJoCo 4.0.0's
    // mesh_graph: vertex ids and faces (mesh vertex ids).
    let m = fetch_torso();
    assert!(collide_mjcf::mesh_hull::last_build_was_exact());
    let hull = m.mesh[0].hull.as_ref().unwrap();
    let vert: [u32; 60] = [
        14, 44, 4, 6, 36, 38, 20, 2, 0, 27, 11, 40, 12, 17, 25, 26, 18, 24, 47, 30, 46, 31, 57, 58,
        22, 56, 52, 34, 35, 19, 59, 39, 9, 13, 55, 29, 8, 21, 7, 5, 51, 37, 45, 42, 41, 16, 53, 54,
        15, 28, 49, 48, 10, 3, 23, 50, 32, 1, 33, 43,
    ];
    let face: [u32; 348] = [
        7, 18, 19, 3, 4, 5, 4, 3, 6, 47, 22, 46, 6, 16, 17, 3, 16, 6, 36, 7, 5, 4, 36, 5, 36, 18,
        7, 10, 39, 22, 29, 30, 31, 38, 14, 13, 12, 14, 38, 14, 12, 40, 14, 15, 13, 15, 14, 40, 18,
        34, 19, 12, 20, 0, 20, 12, 38, 28, 16, 53, 28, 15, 40, 25, 26, 24, 44, 4, 6, 44, 36, 4, 44,
        25, 24, 44, 24, 18, 36, 44, 18, 44, 6, 17, 25, 44, 17, 47, 23, 22, 23, 10, 22, 9, 10, 5,
        10, 9, 39, 37, 20, 21, 20, 8, 21, 8, 20, 38, 8, 38, 13, 7, 8, 5, 29, 50, 30, 1, 37, 45, 37,
        1, 20, 1, 2, 0, 20, 1, 0, 48, 42, 41, 42, 48, 49, 49, 48, 29, 48, 50, 29, 1, 11, 2, 11, 12,
        0, 2, 11, 0, 28, 43, 16, 27, 1, 28, 27, 11, 1, 27, 28, 40, 12, 27, 40, 11, 27, 12, 16, 33,
        17, 43, 33, 16, 33, 25, 17, 33, 26, 25, 34, 33, 35, 33, 34, 18, 24, 33, 18, 26, 33, 24, 1,
        32, 28, 32, 43, 28, 47, 46, 31, 30, 47, 31, 57, 58, 46, 22, 57, 46, 46, 56, 31, 58, 56, 46,
        52, 34, 35, 34, 52, 19, 59, 57, 22, 39, 59, 22, 59, 9, 13, 9, 59, 39, 56, 55, 31, 55, 29,
        31, 21, 8, 19, 8, 7, 19, 8, 9, 5, 9, 8, 13, 51, 37, 21, 37, 51, 45, 52, 51, 19, 51, 21, 19,
        41, 42, 16, 16, 42, 53, 15, 54, 13, 54, 56, 58, 54, 59, 13, 57, 54, 58, 28, 54, 15, 59, 54,
        57, 54, 28, 53, 54, 55, 56, 42, 54, 53, 54, 42, 49, 55, 54, 29, 54, 49, 29, 10, 48, 5, 48,
        3, 5, 48, 47, 30, 48, 16, 3, 48, 23, 47, 48, 41, 16, 23, 48, 10, 50, 48, 30, 32, 52, 35,
        51, 32, 45, 32, 51, 52, 32, 1, 45, 33, 32, 35, 32, 33, 43,
    ];
    assert_eq!(hull.mesh_index, vert);
    let ours: Vec<u32> = hull
        .face
        .iter()
        .flat_map(|f| f.map(|i| hull.mesh_index[i as usize]))
        .collect();
    assert_eq!(ours, face);
    assert_eq!(hull.mesh_index[hull.extrema[12] as usize], 14);
}

#[test]
fn text_after_a_nul_byte_is_ignored_as_mujoco_reads_a_c_string() {
    // pybullet_data's humanoid.urdf ends with a NUL byte after `</robot>`; MuJoCo 4.0.0 loads it
    let m = collide_mjcf::load_str(
        "<mujoco><worldbody><geom size=\"1\"/></worldbody></mujoco>\r\n\0garbage <",
        ".",
    )
    .expect("MuJoCo loads it");
    assert_eq!(m.ngeom(), 1);
}

#[test]
fn xml_declaration_after_an_empty_line_is_accepted_and_lines_are_kept() {
    // pybullet_data's diff_ring.urdf starts with an empty line, then `<?xml version="1.0" ?>`
    let text = "\n<?xml version=\"1.0\" ?>\n<mujoco>\n<worldbody>\n<geom size=\"-1\"/>\n</worldbody></mujoco>";
    let e = collide_mjcf::load_str(text, ".").expect_err("negative size");
    assert_eq!(e.location.line, 5, "{e}");
    let ok = text.replace("size=\"-1\"", "size=\"1\"");
    assert_eq!(collide_mjcf::load_str(&ok, ".").expect("loads").ngeom(), 1);
}

/// The compiled joint axes of one body per `(type, axis)`.
fn joint_axes(joints: &[(&str, &str)]) -> Vec<[f64; 3]> {
    let bodies: String = joints
        .iter()
        .enumerate()
        .map(|(i, (t, a))| {
            format!(r#"<body pos="{i} 0 0"><joint type="{t}" axis="{a}"/><geom size=".1"/></body>"#)
        })
        .collect();
    let m = load_str(
        &format!("<mujoco><worldbody>{bodies}</worldbody></mujoco>"),
        ".",
    )
    .unwrap();
    m.jnt_axis.iter().map(|a| a.to_array()).collect()
}

/// A free or ball joint keeps +z as its axis in MuJoCo 4.0.0, whatever `axis` says
/// (`brax/test_data/capsule` gives a free joint `axis="1 0 0"`).
#[test]
fn free_and_ball_joints_keep_the_z_axis() {
    let axes = joint_axes(&[("ball", "1 0 0"), ("free", "1 1 0"), ("hinge", "1 1 0")]);
    // (a hinge's axis is divided by its norm: MuJoCo's 0.7071067811865475)
    assert_eq!(
        axes,
        [
            [0.0, 0.0, 1.0],
            [0.0, 0.0, 1.0],
            [0.7071067811865475, 0.7071067811865475, 0.0]
        ]
    );
}

/// MuJoCo 4.0.0 normalizes a joint axis only when its norm is more than 1e-14 from 1: a
/// near-unit axis is kept bit for bit (dividing it by its norm moved it by an ulp), a farther
/// one is divided by its norm.
#[test]
fn near_unit_joint_axis_is_kept_as_given() {
    let axes = joint_axes(&[
        ("hinge", "0.2 0.3 0.9327379053088815"),
        ("hinge", "0 0 1.00000000000001"),
        ("hinge", "0 0 1.00000000000002"),
        ("slide", "0 0 5e-7"),
    ]);
    assert_eq!(
        axes,
        [
            [0.2, 0.3, 0.9327379053088815],
            [0.0, 0.0, 1.00000000000001],
            [0.0, 0.0, 1.0],
            [0.0, 0.0, 1.0]
        ]
    );
}

/// An axis whose squared norm is below mjEPS (1e-14) is an error, as in MuJoCo 4.0.0 ("axis
/// too small"), naming the joint's element; a free joint's axis is not checked.
#[test]
fn tiny_joint_axis_is_refused() {
    for (t, a) in [("hinge", "0 0 1e-8"), ("slide", "0 0 0")] {
        let e = load_str(
            &format!(r#"<mujoco><worldbody><body><joint type="{t}" axis="{a}"/><geom size=".1"/></body></worldbody></mujoco>"#),
            ".",
        )
        .expect_err("refused");
        assert!(e.to_string().contains("joint axis is too small"), "{e}");
        assert!(e.to_string().contains("<joint"), "{e}");
    }
    assert_eq!(joint_axes(&[("free", "0 0 0")]), [[0.0, 0.0, 1.0]]);
}
