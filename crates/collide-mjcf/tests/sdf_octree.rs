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

    // coefficients: bit for bit in the nodes dumped in full; their sum (numpy's, pairwise) to
    // 1e-11 of the largest value
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
            assert_eq!(
                ours.to_bits(),
                theirs.to_bits(),
                "node {i} corner {j}: {ours:?} vs {theirs:?}"
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

/// The torus of `scenes/sdf_mesh_pile` (`data/octree/torus.xml`): every one of its 72,009 × 8
/// octree coefficients is MuJoCo 4.0.0's to the bit. They are distances to the mesh as its
/// compiler computes them: Ericson's point–triangle test then `|p − q|²` to the nearest point,
/// the nearest triangle found by walking the mesh's face tree. Eberly's closed-form squared
/// distances (`a00 + 2 b0 + c` at a vertex, and so on), as computed before, differed in the
/// last bits nearly everywhere and moved 246 of the scene's 376 contacts by up to 1e-10.
/// MuJoCo's values from Python:
///
/// ```python
/// m = mujoco.MjModel.from_xml_path("torus.xml")
/// bits = m.oct_coeff.reshape(-1).view(np.uint64).tolist()
/// p = (1 << 61) - 1
/// checksum = sum((i + 1) * (b % p) for i, b in enumerate(bits)) % p
/// [repr(float(x)) for x in m.oct_coeff[n]]  # n = 1, 100, 5000
/// ```
#[test]
fn octree_coefficients_are_mujocos_bit_for_bit() {
    let m = collide_mjcf::load_file(data().join("torus.xml")).expect("compiles");
    let o = m.mesh[0].octree.as_ref().expect("octree built");
    assert_eq!(o.coeff.len(), 72009);
    let want: [(usize, [f64; 8]); 3] = [
        (
            1,
            [
                0.08419452023972783,
                0.07667300838502891,
                0.02578360759411322,
                0.013500000536441847,
                0.02578360759411322,
                0.013500000536441847,
                0.07231773096328802,
                0.06419963908518886,
            ],
        ),
        (
            100,
            [
                0.021022905169658795,
                0.019141170119189893,
                0.015667933519961735,
                0.013500000536441847,
                -0.013625372583767548,
                -0.01642273018333023,
                -0.019112548196228166,
                -0.02221807612687714,
            ],
        ),
        (
            5000,
            [
                -0.0006536814505387376,
                -0.0013529469980516108,
                0.0007286535590861453,
                3.086042967927234e-05,
                0.008077075479422262,
                0.0077460959132111245,
                0.00947828406469065,
                0.009197865100519275,
            ],
        ),
    ];
    for (n, c) in want {
        for (j, (ours, theirs)) in o.coeff[n].iter().zip(c).enumerate() {
            assert_eq!(
                ours.to_bits(),
                theirs.to_bits(),
                "node {n} corner {j}: {ours:?} vs MuJoCo's {theirs:?}"
            );
        }
    }
    let p: u128 = (1 << 61) - 1;
    let checksum = o
        .coeff
        .iter()
        .flatten()
        .enumerate()
        .fold(0u128, |s, (i, c)| {
            (s + (i as u128 + 1) * (u128::from(c.to_bits()) % p)) % p
        });
    assert_eq!(checksum, 631687517770552904, "coefficient bits");
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

/// A sphere (r = 0.01) in the bottom of the mug, `data/octree/mug_sphere.xml` at slide
/// `qpos = -0.12`, 8 start points: MuJoCo 4.0.0's 8 contacts in its order, `(dist, pos,
/// normal)`. Pins the octree gradient divided by the leaf size (dist), the contact point at
/// `x + dist/2` along the normal (pos) and the mid-surface normal.
#[test]
fn sphere_in_mug_matches_mujoco_contacts() {
    use collide::{forward_kinematics, Collider, Poses};
    const MJ: [(f64, [f64; 3], [f64; 3]); 8] = [
        (
            -0.009477998900017348,
            [
                0.002704149081996758,
                0.0007041482037004874,
                -0.11697244118113295,
            ],
            [0.559802356707463, 0.5598025797294199, -0.6109356702248258],
        ),
        (
            -0.009443966591114121,
            [
                0.005000000845160722,
                5.08957957774123e-05,
                -0.11677711117909526,
            ],
            [
                -2.5695930299780174e-07,
                0.7417086251244854,
                -0.6707222341743857,
            ],
        ),
        (
            -0.008207233400640048,
            [
                0.004004532285312657,
                0.0036636439471328863,
                -0.11707943757497316,
            ],
            [0.605451858320559, -0.4036343494248729, -0.6859353899752814],
        ),
        (
            -0.00362923440170166,
            [
                0.0022660053443297667,
                0.007252878254940007,
                -0.11847979779362415,
            ],
            [
                -0.39021357541012663,
                0.6069991962384071,
                -0.6923043704409015,
            ],
        ),
        (
            -0.009778577195582878,
            [
                0.0017156203435043458,
                0.0025134263117567585,
                -0.11661807363726724,
            ],
            [0.7164940025680608, 0.10614701484512766, -0.6894701991554587],
        ),
        (
            -0.009860814119249571,
            [
                0.0065085844758544925,
                0.006352410289905181,
                -0.11684665319647071,
            ],
            [-0.3173356084289213, -0.7051902989078371, -0.634038448321016],
        ),
        (
            -0.0082890196813458,
            [
                0.004465554700768119,
                0.0018123430274195537,
                -0.11705693236707654,
            ],
            [0.2981031197456386, 0.662452164212604, -0.6872347925767108],
        ),
        (
            -0.009778752051843996,
            [
                0.008285406442385465,
                0.003486726112799219,
                -0.11661875284643142,
            ],
            [
                -0.7166548104933271,
                -0.10617092644973669,
                -0.6892993667294189,
            ],
        ),
    ];
    let m = collide_mjcf::load_file(data().join("mug_sphere.xml")).expect("compiles");
    let mut poses = Poses::new(&m);
    forward_kinematics(&m, &[-0.12], None, &mut poses).expect("kinematics");
    let mut collider = Collider::new(&m).expect("collider");
    let mut out = Vec::new();
    collider.detect(&poses, &mut out);
    assert_eq!(out.len(), MJ.len());
    for (c, (dist, pos, normal)) in out.iter().zip(MJ) {
        assert_eq!(c.geom, [1, 0]);
        assert!((c.dist - dist).abs() < 1e-12, "dist {} vs {dist}", c.dist);
        let (p, n) = (glam::DVec3::from(pos), glam::DVec3::from(normal));
        assert!((c.pos - p).length() < 1e-12, "pos {} vs {p}", c.pos);
        assert!(
            (c.frame[0] - n).length() < 1e-9,
            "normal {} vs {n}",
            c.frame[0]
        );
    }
}
