//! Fuzz-style properties: no input makes the mesh decoders or the compiler panic, and every
//! compiled mesh is finite.

use collide_mjcf::mesh_compile::{compile_mesh, MeshInertia, MeshSettings};
use collide_mjcf::mesh_file::{decode_mesh, RawMesh};
use glam::{DQuat, DVec3};
use proptest::prelude::*;

fn data(name: &str) -> Vec<u8> {
    let path = format!("{}/tests/data/mesh/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

const FILES: [&str; 4] = ["star.stl", "star.msh", "quad_box.obj", "cube_ascii.stl"];

/// Checks the invariants of a successfully compiled mesh.
fn check_mesh(m: &collide::Mesh) -> Result<(), TestCaseError> {
    prop_assert!(m.pos.is_finite() && m.quat.is_finite() && m.boxsz.is_finite());
    prop_assert!((m.quat.length() - 1.0).abs() < 1e-9, "quat {}", m.quat);
    prop_assert!(m.volume.is_finite() && m.volume > 0.0);
    prop_assert!(m.inertia.is_finite() && m.inertia.min_element() > 0.0);
    prop_assert!(m.aamm.iter().all(|x| x.is_finite()));
    prop_assert!(m.boxsz.min_element() >= 0.0);
    for v in &m.vert {
        prop_assert!(v.is_finite());
        prop_assert_eq!(*v, v.as_vec3().as_dvec3());
    }
    for f in &m.face {
        prop_assert!(f.iter().all(|&i| (i as usize) < m.vert.len()));
    }
    Ok(())
}

fn settings() -> impl Strategy<Value = MeshSettings> {
    let inertia = prop_oneof![
        Just(MeshInertia::Legacy),
        Just(MeshInertia::Exact),
        Just(MeshInertia::Convex),
        Just(MeshInertia::Shell)
    ];
    let scale = prop_oneof![
        3 => Just(DVec3::ONE),
        1 => (-3.0f64..3.0, -3.0f64..3.0, -3.0f64..3.0).prop_map(|(x, y, z)| DVec3::new(x, y, z)),
        1 => Just(DVec3::new(1e200, 1.0, 1.0)),
    ];
    let quat = prop_oneof![
        3 => Just(DQuat::IDENTITY),
        1 => (-1.0f64..1.0, -1.0f64..1.0, -1.0f64..1.0, -1.0f64..1.0)
            .prop_map(|(w, x, y, z)| DQuat::from_xyzw(x, y, z, w)),
    ];
    let maxhull = prop_oneof![3 => Just(None), 1 => (0usize..12).prop_map(Some)];
    (
        inertia,
        scale,
        (-2.0f64..2.0, -2.0f64..2.0, -2.0f64..2.0),
        quat,
        maxhull,
    )
        .prop_map(|(inertia, scale, p, refquat, maxhullvert)| MeshSettings {
            scale,
            refpos: DVec3::new(p.0, p.1, p.2),
            refquat,
            inertia,
            maxhullvert,
        })
}

fn coord() -> impl Strategy<Value = f64> {
    prop_oneof![
        4 => (-2i32..=2).prop_map(f64::from),
        4 => -10.0f64..10.0,
        1 => Just(f64::NAN),
        1 => Just(1e30),
        1 => Just(-1e-30),
        1 => any::<f64>(),
    ]
}

fn point_cloud() -> impl Strategy<Value = RawMesh> {
    prop::collection::vec((coord(), coord(), coord()), 0..24).prop_flat_map(|pts| {
        let n = pts.len() as u32;
        let faces = prop_oneof![
            1 => Just(Vec::new()),
            2 => prop::collection::vec([0..n + 2, 0..n + 2, 0..n + 2], 0..40),
        ];
        (Just(pts), faces).prop_map(|(pts, face)| RawMesh {
            vert: pts
                .into_iter()
                .map(|(x, y, z)| DVec3::new(x, y, z))
                .collect(),
            face,
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 400,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn random_bytes_never_panic(
        bytes in prop::collection::vec(any::<u8>(), 0..700),
        name in prop::sample::select(vec!["a.stl", "a.obj", "a.msh", "blob", "model/obj"]),
    ) {
        let _ = decode_mesh(name, &bytes);
    }

    #[test]
    fn structured_headers_never_panic(
        counts in prop::array::uniform4(prop_oneof![Just(0i32), Just(4), Just(8), -3i32..50, any::<i32>()]),
        tail in prop::collection::vec(any::<u8>(), 0..400),
    ) {
        let mut msh: Vec<u8> = counts.iter().flat_map(|c| c.to_le_bytes()).collect();
        msh.extend(&tail);
        let _ = decode_mesh("h.msh", &msh);
        let mut stl = vec![0u8; 80];
        stl.extend(counts[0].to_le_bytes());
        stl.extend(&tail);
        let _ = decode_mesh("h.stl", &stl);
    }

    #[test]
    fn mutated_files_never_panic(
        which in 0..FILES.len(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>(), 0u8..4), 1..10),
        opts in settings(),
    ) {
        let mut bytes = data(FILES[which]);
        for (at, byte, kind) in edits {
            if bytes.is_empty() {
                break;
            }
            let i = at.index(bytes.len());
            match kind {
                0 => bytes[i] = byte,
                1 => bytes.truncate(i),
                2 => bytes.insert(i, byte),
                _ => {
                    bytes.remove(i);
                }
            }
        }
        if let Ok(raw) = decode_mesh(FILES[which], &bytes) {
            if let Ok(m) = compile_mesh("m", raw, &opts) {
                check_mesh(&m)?;
            }
        }
    }

    #[test]
    fn random_point_clouds_compile_without_panic_or_nan(raw in point_cloud(), opts in settings()) {
        if let Ok(m) = compile_mesh("m", raw, &opts) {
            check_mesh(&m)?;
        }
    }

    #[test]
    fn generic_point_clouds_compile(
        pts in prop::collection::vec((-5.0f64..5.0, -5.0f64..5.0, -5.0f64..5.0), 4..60),
        opts in settings(),
    ) {
        // points in general position always have a hull with volume
        let raw = RawMesh { vert: pts.iter().map(|&(x, y, z)| DVec3::new(x, y, z)).collect(), face: vec![] };
        match compile_mesh("m", raw, &opts) {
            Ok(m) => check_mesh(&m)?,
            Err(e) => prop_assert!(
                e.contains("too small") || e.contains("coplanar") || e.contains("collinear")
                    || e.contains("colocated") || e.contains("overflow")
                    || e.contains("not finite") || e.contains("maxhullvert")
                    || e.contains("refquat") || e.contains("eigenvalue"),
                "{}", e
            ),
        }
    }
}
