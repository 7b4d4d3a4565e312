//! Mesh-backed sdf geoms (`<geom type="sdf" mesh="…"/>`): the octree the compiler builds
//! against MuJoCo 4.0.0's `oct_*` arrays, and the geom's box, bounding sphere and mass.
//!
//! `data/octree/mujoco_octrees.json` was dumped from `mujoco==4.0.0` for `data/octree/box.xml`
//! (a 0.2 × 0.6 × 1.4 box) and `data/octree/mug.xml` (metaworld's mug, scaled 4×): node
//! count, a checksum of the whole child array (`Σ (8i + j + 1)(child[i][j] + 2) mod 2⁶¹ − 1`),
//! nodes per depth, the sum and largest magnitude of the coefficients, and about 60 nodes in
//! full (children, box, coefficients).

use std::path::Path;

use collide::narrow::sdf::Octree;
use serde_json::Value;

fn data() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/octree"))
}

fn f(v: &Value) -> f64 {
    v.as_f64().expect("number")
}

fn check_against_mujoco(name: &str) {
    let fixture: Value = serde_json::from_str(
        &std::fs::read_to_string(data().join("mujoco_octrees.json")).expect("fixture"),
    )
    .expect("json");
    let mj = &fixture[name];
    let m = collide_mjcf::load_file(data().join(format!("{name}.xml"))).expect("compiles");
    let o: &Octree = m.mesh[0].octree.as_ref().expect("octree built");
    let n = o.child.len();
    assert_eq!(n as u64, mj["noct"].as_u64().unwrap(), "node count");
    assert_eq!(o.aabb.len(), n);
    assert_eq!(o.coeff.len(), n);

    // the whole child layout, exactly
    let p: u128 = (1 << 61) - 1;
    let mut sum: u128 = 0;
    for (i, c) in o.child.iter().enumerate() {
        for (j, &k) in c.iter().enumerate() {
            sum = (sum + (8 * i + j + 1) as u128 * (k + 2) as u128) % p;
        }
    }
    assert_eq!(
        sum as u64,
        mj["child_checksum"].as_u64().unwrap(),
        "child layout"
    );
    let mut per_depth = vec![0u64; 7];
    for &d in &o.depth {
        per_depth[d as usize] += 1;
    }
    let want: Vec<u64> = mj["depth_counts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    assert_eq!(per_depth, want, "nodes per depth");

    // coefficients: MuJoCo's triangle-distance tree may pick another of two equidistant
    // triangles, which rounds differently; agreement is to 1e-11 of the largest value
    let scale = f(&mj["coeff_abs_max"]);
    let tol = 1e-11 * scale;
    let total: f64 = o.coeff.iter().flatten().sum();
    assert!(
        (total - f(&mj["coeff_sum"])).abs() < tol * (8 * n) as f64,
        "coefficient sum {total} vs {}",
        mj["coeff_sum"]
    );
    for node in mj["nodes"].as_array().unwrap() {
        let v = node.as_array().unwrap();
        let i = v[0].as_u64().unwrap() as usize;
        for j in 0..8 {
            assert_eq!(o.child[i][j] as i64, v[1 + j].as_i64().unwrap(), "node {i}");
        }
        for k in 0..6 {
            assert_eq!(o.aabb[i][k], f(&v[9 + k]), "node {i} box {k}");
        }
        for j in 0..8 {
            let (ours, theirs) = (o.coeff[i][j], f(&v[15 + j]));
            assert!(
                (ours - theirs).abs() <= tol,
                "node {i} corner {j}: {ours} vs {theirs}"
            );
        }
    }

    // the geom's box, bounding sphere and (for the free mug) mass
    for k in 0..6 {
        let want = f(&mj["geom_aabb"][k]);
        assert!((m.geom_aabb[0][k] - want).abs() <= 1e-12 * want.abs().max(1e-3));
    }
    assert!((m.geom_rbound[0] - f(&mj["geom_rbound"])).abs() < 1e-12);
    let b = m.body_mass.len() - 1;
    let mass = f(&mj["body_mass"]);
    assert!((m.body_mass[b] - mass).abs() <= 1e-12 * mass.max(1.0));
}

#[test]
fn box_octree_matches_mujoco() {
    check_against_mujoco("box");
}

#[test]
fn mug_octree_matches_mujoco() {
    check_against_mujoco("mug");
}

/// The field of the box octree by hand: inside, the distance to the nearest face; outside the
/// root box (1.1× the mesh box), the interpolated value at the box plus the distance to it.
#[test]
fn box_octree_field_by_hand() {
    let m = collide_mjcf::load_file(data().join("box.xml")).expect("compiles");
    let o = m.mesh[0].octree.as_ref().unwrap();
    let h = [0.1f32 as f64, 0.3f32 as f64, 0.7f32 as f64];
    // deep inside on a grid corner shared by the finest leaves: exact mesh distance
    let d = o.distance(glam::DVec3::ZERO);
    assert!((d + h[0]).abs() < 1e-12, "{d}");
    // 1 m above the top face, on the axis: root box top at 1.1 h[2], where the field
    // interpolates the distance 0.1 h[2] to the face
    let d = o.distance(glam::DVec3::new(0.0, 0.0, h[2] + 1.0));
    assert!((d - 1.0).abs() < 1e-5, "{d}");
    let g = o.gradient(glam::DVec3::new(0.0, 0.0, h[2] + 1.0));
    assert!((g - glam::DVec3::Z).length() < 1e-5, "{g}");
}

fn error_of(xml: &str) -> String {
    match collide_mjcf::load_str(xml, data()) {
        Ok(_) => panic!("compiled"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn mesh_sdf_errors_name_the_mesh_and_geom() {
    let nan = std::fs::read_to_string(data().join("box.xml"))
        .unwrap()
        .replace("-0.1 -0.3 -0.7  0.1", "-0.1 -0.3 nan  0.1");
    let e = error_of(&nan);
    assert!(
        e.contains("not a finite number") && e.contains("name=\"m\""),
        "{e}"
    );
    // a plugin mesh has no triangles: without the plugin on the geom there is no field
    let plugin = r#"<mujoco>
  <extension><plugin plugin="mujoco.sdf.torus"><instance name="t"/></plugin></extension>
  <asset><mesh name="torus"><plugin instance="t"/></mesh></asset>
  <worldbody><geom name="ring" type="sdf" mesh="torus"/></worldbody>
</mujoco>"#;
    let e = error_of(plugin);
    assert!(
        e.contains("mesh 'torus' of sdf geom 'ring'") && e.contains("octree"),
        "{e}"
    );
}

#[test]
fn octree_builder_rejects_bad_meshes() {
    use collide_mjcf::sdf_octree::build_octree;
    use glam::DVec3;
    let tetra = [DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z];
    let faces = [[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]];
    let aamm = [0.0, 0.0, 0.0, 1.0, 1.0, 1.0];
    assert!(build_octree(&tetra, &faces, aamm).is_ok());
    assert!(build_octree(&tetra, &[], aamm)
        .unwrap_err()
        .contains("triangles"));
    let mut nan = tetra;
    nan[1].y = f64::NAN;
    assert!(build_octree(&nan, &faces, aamm)
        .unwrap_err()
        .contains("non-finite"));
    assert!(build_octree(&tetra, &[[0, 1, 7]], aamm)
        .unwrap_err()
        .contains("missing vertex"));
}
