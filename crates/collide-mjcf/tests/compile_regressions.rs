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
    // gymnasium-robotics' Fetch torso: qhull merges coplanar facets our emulation could not
    // reproduce; the plain hull (60 vertices, 116 triangles, as MuJoCo's graph) is kept.
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
    assert!(e.contains("repeated"), "{e}");
    let m = load_str(
        r#"<mujoco><default><geom margin="0.1"/></default><default><geom margin="0.3"/></default>
        <worldbody><geom size=".1"/></worldbody></mujoco>"#,
        ".",
    )
    .unwrap();
    assert_eq!(m.geom_margin[0], 0.3);
}

#[test]
#[ignore = "hull builder (mesh_hull.rs): qhull merges on this mesh are not emulated, the hull vertex order differs"]
fn fetch_slide_torso_hull_orders_vertices_as_mujoco() {
    // gymnasium_robotics/fetch/slide, floor against robot0:torso_fixed_link at its recorded
    // states 4 and 6: MuJoCo reports 1 contact, we report 4. The mesh's flat bottom has 23
    // vertices tied for the support along -z; MuJoCo's extremum seed for -z (bucket 12) is
    // its hull vertex 0 = mesh vertex 14, which lies on no polygon (dropped from the bottom
    // face as an edge point), so mjc_PlaneConvex adds no polygon contacts. Our hull lists
    // mesh vertex 13 first (a corner of the bottom polygon), the seed is 13 and three more
    // contacts follow. MuJoCo 4.0.0's mesh_graph vertex order starts 14, 44, 4, 6, 36, 38.
    let m = fetch_torso();
    let hull = m.mesh[0].hull.as_ref().unwrap();
    assert_eq!(&hull.mesh_index[..6], &[14, 44, 4, 6, 36, 38]);
    assert_eq!(hull.mesh_index[hull.extrema[12] as usize], 14);
}
