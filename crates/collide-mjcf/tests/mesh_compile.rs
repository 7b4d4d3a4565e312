//! Mesh compilation with hand-worked answers (MuJoCo's algorithm, see `mesh_compile.rs`).

use collide::math::{quat_to_mat, quat_wxyz};
use collide_mjcf::mesh_compile::{compile_mesh, MeshInertia, MeshSettings};
use collide_mjcf::mesh_file::RawMesh;
use glam::{DQuat, DVec3};

const CUBE_V: [[f64; 3]; 8] = [
    [0.0, 0.0, 0.0],
    [1.0, 0.0, 0.0],
    [1.0, 1.0, 0.0],
    [0.0, 1.0, 0.0],
    [0.0, 0.0, 1.0],
    [1.0, 0.0, 1.0],
    [1.0, 1.0, 1.0],
    [0.0, 1.0, 1.0],
];
const CUBE_F: [[u32; 3]; 12] = [
    [0, 2, 1],
    [0, 3, 2],
    [4, 5, 6],
    [4, 6, 7],
    [0, 1, 5],
    [0, 5, 4],
    [1, 2, 6],
    [1, 6, 5],
    [2, 3, 7],
    [2, 7, 6],
    [3, 0, 4],
    [3, 4, 7],
];

fn raw(v: &[[f64; 3]], f: &[[u32; 3]]) -> RawMesh {
    RawMesh {
        vert: v.iter().map(|p| DVec3::from_array(*p)).collect(),
        face: f.to_vec(),
    }
}

fn cube() -> RawMesh {
    raw(&CUBE_V, &CUBE_F)
}

fn settings(inertia: MeshInertia) -> MeshSettings {
    MeshSettings {
        inertia,
        ..Default::default()
    }
}

fn assert_close(a: DVec3, b: DVec3, tol: f64, what: &str) {
    assert!((a - b).abs().max_element() <= tol, "{what}: {a} vs {b}");
}

#[test]
fn unit_cube() {
    let m = compile_mesh("cube", cube(), &MeshSettings::default()).unwrap();
    assert_eq!(m.name, "cube");
    assert_close(m.pos, DVec3::splat(0.5), 1e-15, "centre of mass");
    // isotropic inertia: the Jacobi iteration stops at once, the frame stays the identity
    assert_eq!(m.quat, DQuat::IDENTITY);
    assert!((m.volume - 1.0).abs() < 1e-15);
    assert_close(m.inertia, DVec3::splat(1.0 / 6.0), 1e-15, "inertia");
    assert_close(m.boxsz, DVec3::splat(0.5), 1e-15, "boxsz");
    for k in 0..3 {
        assert!((m.aamm[k] + 0.5).abs() < 1e-15 && (m.aamm[k + 3] - 0.5).abs() < 1e-15);
    }
    assert_eq!(m.vert.len(), 8);
    assert_eq!(m.face, CUBE_F.to_vec());
    assert_eq!(m.vert[0], DVec3::splat(-0.5));
    assert_eq!(m.vert[6], DVec3::splat(0.5));
}

#[test]
fn box_placed_with_refpos_refquat_and_scale() {
    // A 1x2x3 box, rotated by q and offset by p in the file; refpos/refquat undo that, and a
    // uniform scale of 2 makes it 2x4x6 with its corner at the origin.
    let p = DVec3::new(0.3, -1.2, 2.5);
    let q = DQuat::from_xyzw(0.1, 0.3, 0.2, 0.9).normalize();
    let r = quat_to_mat(quat_wxyz(q.w, q.x, q.y, q.z));
    let mut v = Vec::new();
    for c in CUBE_V {
        let b = DVec3::new(c[0], 2.0 * c[1], 3.0 * c[2]);
        v.push((p + r * b).to_array());
    }
    let s = MeshSettings {
        scale: DVec3::splat(2.0),
        refpos: p,
        refquat: q,
        inertia: MeshInertia::Exact,
        ..Default::default()
    };
    let m = compile_mesh("box", raw(&v, &CUBE_F), &s).unwrap();
    // file vertices are rounded to f32, hence the tolerances
    assert_close(m.pos, DVec3::new(1.0, 2.0, 3.0), 1e-5, "centre of mass");
    assert!((m.volume - 48.0).abs() < 1e-4);
    // principal moments per unit density: V (b² + c²)/12 etc., decreasing
    assert_close(m.inertia, DVec3::new(208.0, 160.0, 80.0), 1e-3, "inertia");
    assert_close(m.boxsz, DVec3::new(1.0, 2.0, 3.0), 1e-5, "boxsz");
    // principal axes are the box axes (up to sign)
    let axes = quat_to_mat(m.quat);
    for (k, e) in [DVec3::X, DVec3::Y, DVec3::Z].into_iter().enumerate() {
        assert!(
            (axes.col(k).dot(e).abs() - 1.0).abs() < 1e-6,
            "axis {k}: {}",
            axes.col(k)
        );
    }
    for k in 0..3 {
        let half = [1.0, 2.0, 3.0][k];
        assert!((m.aamm[k] + half).abs() < 1e-5 && (m.aamm[k + 3] - half).abs() < 1e-5);
    }
}

#[test]
fn tetrahedron() {
    let v = [
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [0.0, 1.0, 0.0],
        [0.0, 0.0, 1.0],
    ];
    let f = [[0, 2, 1], [0, 1, 3], [1, 2, 3], [0, 3, 2]];
    for inertia in [MeshInertia::Legacy, MeshInertia::Exact, MeshInertia::Convex] {
        let m = compile_mesh("tet", raw(&v, &f), &settings(inertia)).unwrap();
        assert_close(m.pos, DVec3::splat(0.25), 1e-15, "centre of mass");
        assert!(
            (m.volume - 1.0 / 6.0).abs() < 1e-15,
            "{inertia:?}: {}",
            m.volume
        );
        // about the centroid the covariance is C = V/20 (I + 1 1ᵀ) - V c cᵀ with c = (1,1,1)/4;
        // the moment about n = (1,1,1)/√3 is tr C - nᵀCn, about any perpendicular axis
        // tr C - (C_ii - C_ij): the symmetry axis has the largest moment, the other two are equal
        let vol = 1.0 / 6.0;
        let c_diag = vol / 10.0 - vol / 16.0;
        let c_off = vol / 20.0 - vol / 16.0;
        let along = 2.0 * (c_diag - c_off);
        let across = 3.0 * c_diag - (c_diag - c_off);
        assert!(
            (m.inertia.x - along).abs() < 1e-14,
            "{} vs {along}",
            m.inertia.x
        );
        assert!((m.inertia.y - across).abs() < 1e-14 && (m.inertia.z - across).abs() < 1e-14);
        let axes = quat_to_mat(m.quat);
        let n = DVec3::splat(1.0 / 3f64.sqrt());
        assert!(
            (axes.col(0).dot(n).abs() - 1.0).abs() < 1e-12,
            "{}",
            axes.col(0)
        );
        assert!((axes.determinant() - 1.0).abs() < 1e-12);
    }
}

#[test]
fn mesh_without_faces_uses_the_convex_hull() {
    let mut v = CUBE_V.to_vec();
    v.push([0.5, 0.25, 0.75]); // interior: not on the hull, but kept as a vertex
    let m = compile_mesh("points", raw(&v, &[]), &MeshSettings::default()).unwrap();
    assert_eq!(m.vert.len(), 9);
    assert_eq!(m.face.len(), 12);
    assert!(m.face.iter().all(|f| f.iter().all(|&i| i < 8)));
    assert_close(m.pos, DVec3::splat(0.5), 1e-15, "centre of mass");
    assert!((m.volume - 1.0).abs() < 1e-15);
    // the hull triangles are outward: exact inertia accepts them
    let e = compile_mesh("points", raw(&v, &[]), &settings(MeshInertia::Exact)).unwrap();
    assert!((e.volume - 1.0).abs() < 1e-15);
}

#[test]
fn mirrored_scale_flips_the_winding() {
    let s = MeshSettings {
        scale: DVec3::new(-1.0, 1.0, 1.0),
        inertia: MeshInertia::Exact,
        ..Default::default()
    };
    let m = compile_mesh("cube", cube(), &s).unwrap();
    assert!((m.volume - 1.0).abs() < 1e-15);
    assert_close(m.pos, DVec3::new(-0.5, 0.5, 0.5), 1e-15, "centre of mass");
    assert_eq!(m.face[0], [0, 1, 2]);
    // no faces: the hull is already outward in the mirrored frame
    let h = compile_mesh("points", raw(&CUBE_V, &[]), &s).unwrap();
    assert!((h.volume - 1.0).abs() < 1e-15);
}

#[test]
fn inverted_winding_legacy_exact_shell_convex() {
    let inv: Vec<[u32; 3]> = CUBE_F.iter().map(|f| [f[0], f[2], f[1]]).collect();
    for inertia in [MeshInertia::Legacy, MeshInertia::Convex] {
        let m = compile_mesh("inv", raw(&CUBE_V, &inv), &settings(inertia)).unwrap();
        assert!((m.volume - 1.0).abs() < 1e-15, "{inertia:?}");
    }
    let shell = compile_mesh("inv", raw(&CUBE_V, &inv), &settings(MeshInertia::Shell)).unwrap();
    assert!((shell.volume - 6.0).abs() < 1e-14, "shell uses the area");
    assert_close(
        shell.inertia,
        DVec3::splat(5.0 / 3.0),
        1e-14,
        "shell inertia",
    );
    let err = compile_mesh("inv", raw(&CUBE_V, &inv), &settings(MeshInertia::Exact)).unwrap_err();
    assert!(err.contains("mesh volume is negative"), "{err}");
}

#[test]
fn exact_rejects_inconsistent_orientation() {
    let mut f = CUBE_F.to_vec();
    f[0] = [0, 1, 2];
    let err = compile_mesh("cube", raw(&CUBE_V, &f), &settings(MeshInertia::Exact)).unwrap_err();
    assert!(
        err.contains("inconsistent orientation") && err.contains("vertices 1 and 2"),
        "{err}"
    );
    // legacy does not care
    compile_mesh("cube", raw(&CUBE_V, &f), &MeshSettings::default()).unwrap();
}

#[test]
fn open_mesh_legacy_matches_mujoco() {
    // the cube without its bottom (MuJoCo 4.0.0: mesh_pos (0.5, 0.5, 0.5875), mass 804.1666…)
    let m = compile_mesh("open", raw(&CUBE_V, &CUBE_F[2..]), &MeshSettings::default()).unwrap();
    assert_close(m.pos, DVec3::new(0.5, 0.5, 0.5875), 1e-15, "centre of mass");
    assert!(
        (m.volume - 0.8041666666666669).abs() < 1e-14,
        "{}",
        m.volume
    );
    let q = [m.quat.w, m.quat.x, m.quat.y, m.quat.z];
    for (a, b) in q.iter().zip([0.5, 0.5, -0.5, 0.5]) {
        assert!((a - b).abs() < 1e-12, "{q:?}");
    }
}

#[test]
fn vertices_are_rounded_to_f32_and_not_merged() {
    let mut v: Vec<[f64; 3]> = CUBE_V.iter().map(|p| p.map(|x| 0.1 * x + 0.1)).collect();
    v.push(v[0]); // duplicate, used by a face
    let mut f = CUBE_F.to_vec();
    f[0][0] = 8;
    let m = compile_mesh("small", raw(&v, &f), &MeshSettings::default()).unwrap();
    assert_eq!(
        m.vert.len(),
        9,
        "MuJoCo 4.0.0 does not merge inline duplicates"
    );
    // MuJoCo 4.0.0 gives 0.15000000223517418: the mean of f32(0.1) and f32(0.2)
    assert_close(
        m.pos,
        DVec3::splat(0.15000000223517418),
        1e-17,
        "centre of mass",
    );
    for v in &m.vert {
        assert_eq!(*v, v.as_vec3().as_dvec3());
    }
    assert_eq!(m.face[0][0], 8);
}

#[test]
fn errors() {
    let d = MeshSettings::default();
    let e = compile_mesh("m", raw(&CUBE_V[..3], &[[0, 1, 2]]), &d).unwrap_err();
    assert!(e.contains("at least 4 vertices"), "{e}");

    let mut v = CUBE_V.to_vec();
    v[3][1] = f64::NAN;
    let e = compile_mesh("m", raw(&v, &CUBE_F), &d).unwrap_err();
    assert!(e.contains("vertex coordinate 3 is not finite"), "{e}");
    v[3][1] = 1e300; // overflows f32
    assert!(compile_mesh("m", raw(&v, &CUBE_F), &d)
        .unwrap_err()
        .contains("not finite"));

    let mut f = CUBE_F.to_vec();
    f[3][2] = 8;
    let e = compile_mesh("m", raw(&CUBE_V, &f), &d).unwrap_err();
    assert!(
        e.contains("in face 3, vertex index 8 does not exist"),
        "{e}"
    );

    let flat = [
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [0.0, 1.0, 0.0],
        [1.0, 1.0, 0.0],
    ];
    let e = compile_mesh("m", raw(&flat, &[[0, 1, 2], [1, 3, 2]]), &d).unwrap_err();
    assert!(e.contains("mesh volume is too small"), "{e}");
    // ... but a flat shell is fine (MuJoCo rejects it only when a collidable geom needs its hull)
    compile_mesh(
        "m",
        raw(&flat, &[[0, 1, 2], [1, 3, 2]]),
        &settings(MeshInertia::Shell),
    )
    .unwrap();

    let e = compile_mesh("m", raw(&flat, &[]), &d).unwrap_err();
    assert!(
        e.contains("coplanar vertices, cannot compute convex hull"),
        "{e}"
    );
    let line = [
        [0.0, 0.0, 0.0],
        [1.0, 1.0, 1.0],
        [2.0, 2.0, 2.0],
        [3.0, 3.0, 3.0],
    ];
    assert!(compile_mesh("m", raw(&line, &[]), &d)
        .unwrap_err()
        .contains("collinear"));
    let same = [[1.0, 2.0, 3.0]; 5];
    assert!(compile_mesh("m", raw(&same, &[]), &d)
        .unwrap_err()
        .contains("colocated"));

    let zero = MeshSettings {
        scale: DVec3::new(1.0, 0.0, 1.0),
        ..Default::default()
    };
    assert!(compile_mesh("m", cube(), &zero)
        .unwrap_err()
        .contains("volume is too small"));
    let nan = MeshSettings {
        scale: DVec3::new(1.0, f64::NAN, 1.0),
        ..Default::default()
    };
    assert!(compile_mesh("m", cube(), &nan)
        .unwrap_err()
        .contains("scale"));
    let q0 = MeshSettings {
        refquat: DQuat::from_xyzw(0.0, 0.0, 0.0, 0.0),
        ..Default::default()
    };
    assert!(compile_mesh("m", cube(), &q0)
        .unwrap_err()
        .contains("refquat"));
    let mh = MeshSettings {
        maxhullvert: Some(3),
        ..Default::default()
    };
    assert!(compile_mesh("m", cube(), &mh)
        .unwrap_err()
        .contains("maxhullvert"));
}

#[test]
fn maxhullvert_limits_the_hull_of_a_faceless_mesh() {
    // a cube's corners plus points just outside its faces: the limited hull keeps 8 vertices
    let mut v = CUBE_V.to_vec();
    v.extend([[0.5, 0.5, 1.01], [0.5, 0.5, -0.01], [1.01, 0.5, 0.5]]);
    let s = MeshSettings {
        maxhullvert: Some(8),
        ..Default::default()
    };
    let m = compile_mesh("m", raw(&v, &[]), &s).unwrap();
    let used: std::collections::BTreeSet<u32> = m.face.iter().flatten().copied().collect();
    assert_eq!(used.len(), 8);
    let full = compile_mesh("m", raw(&v, &[]), &MeshSettings::default()).unwrap();
    let used: std::collections::BTreeSet<u32> = full.face.iter().flatten().copied().collect();
    assert_eq!(used.len(), 11);
}

fn corpus_model(path: &str) -> collide::Model {
    let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../conformance/corpus");
    collide_mjcf::load_file(dir.join(path)).unwrap()
}

fn wxyz(q: DQuat) -> [f64; 4] {
    [q.w, q.x, q.y, q.z]
}

/// scenes/hfield_png: the tetrahedron (binary STL, non-uniform scale, refpos, refquat) on the
/// tilted RGB terrain touches it at a zero-margin tie (state 0, geoms 2 and 16) whose outcome
/// depends on the last bits of the mesh frame. MuJoCo 4.0.0's compiled values, bit for bit:
/// `refquat` normalized by division, the compiler's quaternion-to-matrix rounding, the Jacobi
/// frame with MuJoCo's rotation formula and its `mjEPS` "close enough to unit" rule.
#[test]
fn hfield_png_tetra_frame_is_mujocos_bit_for_bit() {
    let m = corpus_model("scenes/hfield_png.xml");
    let tetra = m.mesh.iter().find(|x| x.name == "tetra").unwrap();
    let pos = [
        0.04560000060158116,
        0.038750001660415104,
        0.0036666644357499566,
    ];
    let quat = [
        0.8552196612901459,
        0.3867346128175604,
        0.05714196826978263,
        0.3402505924372164,
    ];
    assert_eq!(tetra.pos.to_array(), pos);
    assert_eq!(wxyz(tetra.quat), quat);
    // the lone geom of body drop_tetra2 takes the mesh frame, and the body its inertial frame
    assert_eq!(m.geom_pos[16].to_array(), pos);
    assert_eq!(wxyz(m.geom_quat[16]), quat);
    assert_eq!(m.body_ipos[14].to_array(), pos);
    assert_eq!(wxyz(m.body_iquat[14]), quat);
    // the bevelled box's frame: quarter turns that MuJoCo does not renormalize (norm 1 + 2e-15)
    let bevel = m.mesh.iter().find(|x| x.name == "bevel").unwrap();
    assert_eq!(
        wxyz(bevel.quat),
        [0.0, 0.7071067811865489, 0.0, 0.7071067811865489]
    );
    // a mesh given by vertices only: its faces are qhull's triangles, whose order sets the
    // rounding of the centre of mass and so of the frame
    let cloud = m.mesh.iter().find(|x| x.name == "cloud").unwrap();
    assert_eq!(
        cloud.pos.to_array(),
        [
            0.009399692586324613,
            0.004670623346093605,
            0.013916046211920385
        ]
    );
    assert_eq!(
        wxyz(cloud.quat),
        [
            0.8248015640080523,
            0.4251741124651053,
            0.002502793026998462,
            0.37272387920073835
        ]
    );
}

/// scenes/freejoint_align: free bodies aligned with their inertial frames (inertia combined from
/// several geoms, principal axes, frame moved onto them, geoms moved back). MuJoCo 4.0.0's body
/// and geom frames bit for bit, including quaternions up to 2e-15 off unit norm.
#[test]
fn freejoint_align_frames_are_mujocos_bit_for_bit() {
    let m = corpus_model("scenes/freejoint_align.xml");
    let body_pos = [
        [0.32955414465005894, 0.0, 0.05],
        [-0.06768422361826812, 0.3609224952741021, 0.06],
        [0.572, 0.42800000000000005, 0.04],
        [0.55, -0.2803038449397558, 0.1234729635533386],
    ];
    let body_quat = [
        [0.0, 0.7071067811865489, 0.0, 0.7071067811865489],
        [
            0.3535533905932743,
            0.3535533905932743,
            0.6123724356957954,
            0.6123724356957954,
        ],
        [
            0.1130999730480397,
            0.698003149059182,
            -0.1130999730480397,
            0.698003149059182,
        ],
        [
            0.943714364147489,
            0.12767944069578063,
            0.2392983377447303,
            0.189307857412,
        ],
    ];
    for b in 0..4 {
        assert_eq!(m.body_pos[b + 1].to_array(), body_pos[b], "body {}", b + 1);
        assert_eq!(wxyz(m.body_quat[b + 1]), body_quat[b], "body {}", b + 1);
    }
    let geom_z = [
        -0.12955414465005946,
        0.09044585534994137,
        0.07815500945179606,
        -0.0918449905482044,
        0.24815500945179653,
    ];
    let h = 0.5000000000000007;
    let geom_quat = [
        [0.0, -1.0000000000000018, 0.0, -1.1102230246251565e-16],
        [0.0, -0.7071067811865489, 0.0, -0.7071067811865489],
        [
            5.551115123125783e-17,
            -0.7071067811865483,
            -0.7071067811865483,
            -5.551115123125783e-17,
        ],
        [h, -h, -h, -h],
        [h, -h, -h, -h],
    ];
    for g in 0..5 {
        assert_eq!(
            m.geom_pos[g + 1].to_array(),
            [0.0, 0.0, geom_z[g]],
            "geom {}",
            g + 1
        );
        assert_eq!(wxyz(m.geom_quat[g + 1]), geom_quat[g], "geom {}", g + 1);
    }
}

/// scenes/box_pile: bodies placed by nested `<replicate>` with `euler` rotations inside a
/// rotated `<frame>`. MuJoCo 4.0.0's body frames bit for bit: degrees converted as `a / 180 · π`,
/// Euler factors multiplied with the compiler's normalized product, frames accumulated through
/// the rotation matrix (`frameaccum`).
#[test]
fn box_pile_replicated_frames_are_mujocos_bit_for_bit() {
    let m = corpus_model("scenes/box_pile.xml");
    // bodies 5 and 9 (MuJoCo's big110 and big220)
    let b = 5;
    assert_eq!(
        m.body_pos[b].to_array(),
        [0.0, 0.19275450791377058, 0.3399500938714982]
    );
    assert_eq!(
        wxyz(m.body_quat[b]),
        [
            0.9530458046419614,
            0.14243364983532633,
            0.2643029932404738,
            0.03950034699936056
        ]
    );
    let b = 9;
    assert_eq!(
        m.body_pos[b].to_array(),
        [0.11845875722931246, 0.26978083827496424, 0.5501387815125276]
    );
    assert_eq!(
        wxyz(m.body_quat[b]),
        [
            0.8197131663174274,
            0.25061146493886327,
            0.492533360538531,
            0.15058255995856912
        ]
    );
}

/// gymnasium/ant: a capsule given by `fromto` along (1, 1, 0). MuJoCo's rotation axis
/// `z × dir` has norm 1 − 1e-16 and is left unnormalized (within `mjEPS` of 1), which shows in
/// the last bit of the geom quaternion.
#[test]
fn ant_fromto_capsule_frame_is_mujocos_bit_for_bit() {
    let m = corpus_model("gymnasium/assets/ant.xml");
    let g = m.geom_name.iter().position(|n| n == "aux_1_geom").unwrap();
    assert_eq!(m.geom_pos[g].to_array(), [0.1, 0.1, 0.0]);
    assert_eq!(
        wxyz(m.geom_quat[g]),
        [
            std::f64::consts::FRAC_1_SQRT_2,
            0.4999999999999999,
            -0.4999999999999999,
            0.0
        ]
    );
    assert_eq!(m.geom_size[g].to_array(), [0.08, 0.14142135623730953, 0.0]);
}

/// scenes/mesh_pile: the third copy of a `<replicate>` with `euler` is offset by the offset
/// rotated through the rotation matrix of the second copy's quaternion (MuJoCo 4.0.0, bit for
/// bit; the engine's quaternion rotation formula is one ulp off here).
#[test]
fn mesh_pile_replicate_offset_is_mujocos_bit_for_bit() {
    let m = corpus_model("scenes/mesh_pile.xml");
    // body 25, MuJoCo's ico_up2
    assert_eq!(
        m.body_pos[25].to_array(),
        [0.13166900816479316, -0.1903428894730657, 0.1881916100127683]
    );
}

/// scenes/mesh_fit_aabb: a sphere fitted to the tetrahedron's bounding box sits at the mesh
/// frame plus the box centre rotated by MuJoCo's quaternion formula (`rotVecQuat`), and keeps
/// the mesh quaternion as is. MuJoCo 4.0.0's values bit for bit.
#[test]
fn mesh_fit_aabb_sphere_frame_is_mujocos_bit_for_bit() {
    let m = corpus_model("scenes/mesh_fit_aabb.xml");
    assert_eq!(
        m.geom_pos[1].to_array(),
        [
            0.008834437613468783,
            0.042890924995410765,
            -0.019864717776811952
        ]
    );
    assert_eq!(
        wxyz(m.geom_quat[1]),
        [
            0.8552196612901459,
            0.3867346128175604,
            0.05714196826978263,
            0.3402505924372164
        ]
    );
    assert_eq!(m.geom_size[1].x, 0.11841712512254465);
}

/// A mesh geom inside a `<frame>` (random-scene seed 28 scene 122, and seed 1 scene 1170): the
/// mesh's own frame (centre and principal axes) composes with the geom's pose first, and the
/// `<frame>` then with that, as MuJoCo 4.0.0 rounds it. Composing the frame with the geom's
/// pose first put the position one ulp off, which moved a cylinder–mesh contact by 1.2e-6.
/// MuJoCo 4.0.0's values bit for bit.
#[test]
fn mesh_in_frame_takes_the_mesh_offset_before_the_frame() {
    let xml = r#"<mujoco>
  <asset>
    <mesh name="m0" vertex="-0.099329 -0.0447402 -4.71549e-05 0.104425 0.163388 -3.20809e-05 -0.0808366 -0.16394 -8.19757e-05 0.190977 -0.0226733 9.42924e-05 -0.0517997 -0.109287 -7.71422e-05 -0.182604 -0.00475875 -4.97611e-05 0.0786102 -0.172973 -1.28282e-05 0.0463568 0.0406346 3.63938e-05 -0.0989359 0.0856972 -4.18344e-05 0.0757307 0.0102862 -4.10981e-05 0.147569 -0.0581978 0.000207185 -0.0300396 -0.0401557 6.39905e-05 0.0688527 0.0341642 -4.16931e-05 -0.0967028 -0.0199576 -4.22202e-05 0.104883 0.402991 -2.6586e-05 0.0534025 -0.166785 -0.000167687 -0.147969 -0.288717 7.55841e-06"/>
  </asset>
  <worldbody>
    <body pos="-0.0272271 -0.248418 0.0590227">
      <joint type="free"/>
      <frame pos="0.000114517 0.0111759 -0.0410556" euler="-48.687 17.7915 -132.404">
        <geom type="mesh" pos="-0.0197077 0.0827747 0.0282895" mesh="m0"/>
      </frame>
    </body>
  </worldbody>
</mujoco>"#;
    let m = collide_mjcf::load_str(xml, ".").unwrap();
    assert_eq!(
        m.geom_pos[0].to_array(),
        [
            0.05096377750234175,
            -0.011058870233559394,
            0.004527274714923812
        ]
    );
    assert_eq!(
        wxyz(m.geom_quat[0]),
        [
            0.4596729607995677,
            -0.664547956235771,
            -0.5851957443851807,
            -0.0679906149854218
        ]
    );
}
