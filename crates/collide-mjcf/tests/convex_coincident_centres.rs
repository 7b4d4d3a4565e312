//! GJK from coincident (or nearly coincident) geom centres, against MuJoCo 4.0.0: a sphere at
//! the centre of a torus mesh's hull, and a sphere, capsule and ellipsoid at the centre of a
//! box-shaped mesh. GJK's first iterate, the centre difference, is then (nearly) the origin;
//! MuJoCo still searches (from the x axis when the centres coincide) and EPA finds the depth.
//! Expected values were recorded with `mujoco==4.0.0` (`mj_forward`, `d.contact`) from the
//! same XML and `qpos`; collide repeats them to the last bits.

use collide::glam::DVec3;
use collide::{forward_kinematics, Collider, Contact, Poses};

/// The torus of `python/tests/test_mesh_collision.py` (radii 0.2 and 0.05, 48 x 24 vertices)
/// with a free sphere of radius 0.05.
fn torus_xml() -> String {
    let (big, small, nu, nv) = (0.2f64, 0.05f64, 48usize, 24usize);
    let (mut vert, mut face) = (Vec::new(), Vec::new());
    for i in 0..nu {
        let u = std::f64::consts::TAU * i as f64 / nu as f64;
        for j in 0..nv {
            let v = std::f64::consts::TAU * j as f64 / nv as f64;
            let rr = big + small * v.cos();
            vert.extend([rr * u.cos(), rr * u.sin(), small * v.sin()]);
        }
    }
    for i in 0..nu {
        for j in 0..nv {
            let (a, b) = (i * nv + j, i * nv + (j + 1) % nv);
            let (c, d) = (((i + 1) % nu) * nv + (j + 1) % nv, ((i + 1) % nu) * nv + j);
            face.extend([a, d, c, a, c, b]);
        }
    }
    // 12 significant digits, as the Python test writes them (`f"{x:.12g}"`)
    let vs: Vec<String> = vert.iter().map(|x| format!("{x:.11e}")).collect();
    let fs: Vec<String> = face.iter().map(ToString::to_string).collect();
    format!(
        r#"<mujoco><asset><mesh name="torus" vertex="{}" face="{}"/></asset><worldbody>
        <geom type="mesh" mesh="torus"/><body><freejoint/><geom type="sphere" size="0.05"/></body>
        </worldbody></mujoco>"#,
        vs.join(" "),
        fs.join(" ")
    )
}

fn box_mesh_xml(geom: &str) -> String {
    format!(
        r#"<mujoco><asset><mesh name="c" scale=".2 .3 .1"
        vertex="-1 -1 -1  1 -1 -1  -1 1 -1  1 1 -1  -1 -1 1  1 -1 1  -1 1 1  1 1 1"/></asset>
        <worldbody><geom type="mesh" mesh="c"/><body><freejoint/>{geom}</body></worldbody>
        </mujoco>"#
    )
}

/// The contacts with the free body at `(x, 0, 0)`.
fn contacts_at(xml: &str, x: f64) -> Vec<Contact> {
    let model = collide_mjcf::load_str(xml, ".").expect("model loads");
    let mut poses = Poses::new(&model);
    forward_kinematics(&model, &[x, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0], None, &mut poses)
        .expect("kinematics");
    let mut collider = Collider::new(&model).expect("collider");
    let mut out = Vec::new();
    collider.detect(&poses, &mut out);
    out
}

/// One contact with MuJoCo's `dist` (within `tol`) and normal (within 1e-9 per component).
fn assert_single(label: &str, got: &[Contact], dist: f64, normal: [f64; 3], tol: f64) {
    assert_eq!(got.len(), 1, "{label}: contact count");
    let c = &got[0];
    assert!(
        (c.dist - dist).abs() <= tol,
        "{label}: dist {} vs {dist}",
        c.dist
    );
    let n = DVec3::from(normal);
    assert!(
        (c.frame[0] - n).abs().max_element() < 1e-9,
        "{label}: normal {} vs {n}",
        c.frame[0]
    );
}

#[test]
fn sphere_at_the_centre_of_a_torus_hull_has_mujocos_contact() {
    let xml = torus_xml();
    // (x, MuJoCo's dist, the z of its normal): on the axis the hull's top and bottom faces are
    // equally deep and MuJoCo's choice between them depends on the last bits of the start point
    let cases = [
        (0.0, -0.10000000069468537, 1.0),
        (1e-12, -0.10000000069468536, 1.0),
        (1e-9, -0.10000000069468537, -1.0),
        (1e-6, -0.1000000006946853, -1.0),
        (0.01, -0.10000000071469971, -1.0),
    ];
    for (x, dist, nz) in cases {
        let got = contacts_at(&xml, x);
        assert_eq!(got.len(), 1, "x = {x}: contact count");
        let c = &got[0];
        assert!(
            (c.dist - dist).abs() <= 2e-17,
            "x = {x}: dist {} vs {dist}",
            c.dist
        );
        assert!(
            (c.frame[0].z - nz).abs() < 1e-9,
            "x = {x}: normal {}",
            c.frame[0]
        );
    }
}

#[test]
fn round_geoms_centred_in_a_box_mesh_match_mujoco_bit_for_bit() {
    let cases: [(&str, f64, f64, [f64; 3]); 6] = [
        (
            r#"<geom type="sphere" size="0.05"/>"#,
            0.0,
            -0.14999982661877598,
            [
                3.806353356589542e-08,
                -5.556387912378131e-07,
                0.9999999999998449,
            ],
        ),
        (
            r#"<geom type="sphere" size="0.05"/>"#,
            1e-12,
            -0.14999981062503023,
            [
                3.1625699238678765e-08,
                6.098026998880295e-07,
                -0.9999999999998137,
            ],
        ),
        (
            r#"<geom type="capsule" size="0.02 0.05"/>"#,
            0.0,
            -0.16999994242754243,
            [
                6.330055385539132e-11,
                -1.968297487843589e-07,
                0.9999999999999808,
            ],
        ),
        (
            r#"<geom type="capsule" size="0.02 0.05"/>"#,
            1e-12,
            -0.16999977939187647,
            [
                -1.1103900056073402e-06,
                -1.2171654609445755e-11,
                0.9999999999993835,
            ],
        ),
        (
            r#"<geom type="ellipsoid" size="0.05 0.04 0.03"/>"#,
            0.0,
            -0.1299998307502,
            [
                3.2833960142980063e-08,
                -5.467237895822986e-07,
                0.9999999999998501,
            ],
        ),
        (
            r#"<geom type="ellipsoid" size="0.05 0.04 0.03"/>"#,
            1e-12,
            -0.1299998307502,
            [
                3.2833960259909845e-08,
                -5.467237898267657e-07,
                0.9999999999998501,
            ],
        ),
    ];
    for (geom, x, dist, normal) in cases {
        let got = contacts_at(&box_mesh_xml(geom), x);
        assert_single(&format!("{geom} at x = {x}"), &got, dist, normal, 1e-16);
    }
}

/// `mj_geomDistance` with coincident centres depends on the argument order (GJK starts along
/// +x of the caller's order): a box mesh (0.3 x 0.2 x 0.1 half-sizes) with a sphere (r 0.05) and
/// an ellipsoid (0.05, 0.03, 0.02) at its centre, every pair asked both ways. Values recorded
/// from `mujoco==4.0.0` (`mj_geomDistance`, distmax 1).
#[test]
fn geom_distance_from_coincident_centres_follows_the_argument_order() {
    let xml = r#"<mujoco><asset><mesh name="b" vertex="-1 -1 -1 1 -1 -1 -1 1 -1 1 1 -1 -1 -1 1 1 -1 1 -1 1 1 1 1 1" scale=".3 .2 .1"/></asset>
        <worldbody><body pos=".1 .2 .3"><geom type="mesh" mesh="b"/></body>
        <body pos=".1 .2 .3"><geom type="sphere" size=".05"/></body>
        <body pos=".1 .2 .3"><geom type="ellipsoid" size=".05 .03 .02"/></body></worldbody></mujoco>"#;
    let m = collide_mjcf::load_str(xml, ".").expect("model");
    let mut poses = Poses::new(&m);
    forward_kinematics(&m, &m.qpos0, None, &mut poses).expect("poses");
    let mujoco: [(usize, usize, f64, [f64; 6]); 4] = [
        (
            1,
            0,
            -0.14999999810884876,
            [
                0.10000720982045627,
                0.19998936611520127,
                0.25000000338126777,
                0.1000072098190822,
                0.19998936864837602,
                0.4000000014901165,
            ],
        ),
        (
            0,
            1,
            -0.15000000057999546,
            [
                0.09999967377666269,
                0.20000652167252383,
                0.19999999850988348,
                0.09999967377009181,
                0.20000652234390753,
                0.34999999908987894,
            ],
        ),
        (
            2,
            0,
            -0.1200000014662904,
            [
                0.0999989278915055,
                0.20000071095766664,
                0.3199999999761739,
                0.09999892760249611,
                0.20000071051009702,
                0.19999999850988348,
            ],
        ),
        (
            0,
            2,
            -0.1200000014662904,
            [
                0.10000107239750392,
                0.20000071051009702,
                0.19999999850988348,
                0.10000107210849452,
                0.20000071095766664,
                0.3199999999761739,
            ],
        ),
    ];
    for (g1, g2, dist, fromto) in mujoco {
        let d = collide::distance::distance(&m, &poses.view(), g1, g2, 1.0).expect("distance");
        // bit for bit but for the last bits of the mesh-first sphere pair (2 ulp)
        assert!(
            (d.dist - dist).abs() < 1e-15,
            "({g1},{g2}): {} vs {dist}",
            d.dist
        );
        for k in 0..6 {
            assert!(
                (d.fromto[k] - fromto[k]).abs() < 1e-15,
                "({g1},{g2}) fromto: {:?} vs {fromto:?}",
                d.fromto
            );
        }
    }
}
