//! Mesh file decoders: round trips through files written here and in `tests/data/mesh/`.

use collide_mjcf::mesh_file::{decode_mesh, RawMesh};
use glam::DVec3;

const CUBE_V: [[f32; 3]; 8] = [
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

fn data(name: &str) -> Vec<u8> {
    let path = format!("{}/tests/data/mesh/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn binary_stl(v: &[[f32; 3]], f: &[[u32; 3]]) -> Vec<u8> {
    let mut b = vec![b' '; 80];
    b.extend((f.len() as u32).to_le_bytes());
    for t in f {
        b.extend([0u8; 12]); // normal, ignored
        for &i in t {
            for c in v[i as usize] {
                b.extend(c.to_le_bytes());
            }
        }
        b.extend([0u8; 2]);
    }
    b
}

fn msh(v: &[[f32; 3]], f: &[[i32; 3]]) -> Vec<u8> {
    let mut b = Vec::new();
    for n in [v.len() as i32, 0, 0, f.len() as i32] {
        b.extend(n.to_le_bytes());
    }
    for c in v.iter().flatten() {
        b.extend(c.to_le_bytes());
    }
    for i in f.iter().flatten() {
        b.extend(i.to_le_bytes());
    }
    b
}

fn positions(m: &RawMesh) -> Vec<[f32; 3]> {
    m.vert
        .iter()
        .map(|v| [v.x as f32, v.y as f32, v.z as f32])
        .collect()
}

/// The triangles as vertex positions, for comparisons independent of vertex numbering.
fn triangles(m: &RawMesh) -> Vec<[[f32; 3]; 3]> {
    let p = positions(m);
    m.face.iter().map(|f| f.map(|i| p[i as usize])).collect()
}

#[test]
fn binary_stl_merges_vertices_in_order_of_appearance() {
    let m = decode_mesh("cube.stl", &binary_stl(&CUBE_V, &CUBE_F)).unwrap();
    // first appearances: 0, 2, 1, 3, 4, 5, 6, 7 (MuJoCo's stl_decoder numbering)
    let order = [0usize, 2, 1, 3, 4, 5, 6, 7];
    assert_eq!(positions(&m), order.map(|i| CUBE_V[i]).to_vec());
    assert_eq!(m.face.len(), 12);
    assert_eq!(m.face[0], [0, 1, 2]);
    let expect: Vec<[[f32; 3]; 3]> = CUBE_F
        .iter()
        .map(|f| f.map(|i| CUBE_V[i as usize]))
        .collect();
    assert_eq!(triangles(&m), expect);
    // -0.0 and 0.0 are different bit patterns, hence different vertices (as in MuJoCo)
    let mut v = CUBE_V;
    v[7][0] = -0.0;
    let mut f = CUBE_F.to_vec();
    f.push([7, 3, 4]);
    let m2 = decode_mesh("x.STL", &binary_stl(&v, &f)).unwrap();
    assert_eq!(m2.vert.len(), 8);
}

#[test]
fn ascii_stl_reads_like_binary() {
    let a = decode_mesh("cube_ascii.stl", &data("cube_ascii.stl")).unwrap();
    let b = decode_mesh("cube.stl", &binary_stl(&CUBE_V, &CUBE_F)).unwrap();
    assert_eq!(a, b);
}

#[test]
fn binary_stl_starting_with_solid_is_still_binary() {
    let mut b = binary_stl(&CUBE_V, &CUBE_F);
    b[..5].copy_from_slice(b"solid");
    assert_eq!(decode_mesh("c.stl", &b).unwrap().face.len(), 12);
}

#[test]
fn stl_file_from_disk() {
    let m = decode_mesh("star.stl", &data("star.stl")).unwrap();
    assert_eq!((m.vert.len(), m.face.len()), (20, 36));
    let n = decode_mesh("star.msh", &data("star.msh")).unwrap();
    // the file was written from the same vertex list, which has no duplicates
    assert_eq!(m, n);
}

#[test]
fn stl_errors() {
    let good = binary_stl(&CUBE_V, &CUBE_F);
    let e = decode_mesh("c.stl", &good[..100]).unwrap_err();
    assert!(
        e.contains("truncated binary STL") && e.contains("84+50*12"),
        "{e}"
    );
    assert!(e.contains("got 100"), "{e}");
    assert!(decode_mesh("c.stl", &good[..50])
        .unwrap_err()
        .contains("invalid header"));
    assert!(decode_mesh("c.stl", &[]).unwrap_err().contains("empty"));
    let mut zero = good[..84].to_vec();
    zero[80..84].copy_from_slice(&0u32.to_le_bytes());
    assert!(decode_mesh("c.stl", &zero)
        .unwrap_err()
        .contains("number of faces"));
    let mut far = CUBE_V;
    far[2][1] = 2e9;
    let e = decode_mesh("c.stl", &binary_stl(&far, &CUBE_F)).unwrap_err();
    assert!(e.contains("maximum bounds"), "{e}");
    let e = decode_mesh(
        "c.stl",
        b"solid x\n facet normal 0 0 1\n outer loop\n vertex 0 0 0\n vertex 1 0\n",
    )
    .unwrap_err();
    assert!(e.contains("ASCII STL"), "{e}");
    let e = decode_mesh("c.stl", b"solid x\n vertex 0 0 0\n vertex 1 0 0\n endsolid").unwrap_err();
    assert!(e.contains("not a multiple of 3"), "{e}");
}

#[test]
fn msh_round_trip() {
    let f: Vec<[i32; 3]> = CUBE_F.iter().map(|t| t.map(|i| i as i32)).collect();
    let m = decode_mesh("cube.msh", &msh(&CUBE_V, &f)).unwrap();
    assert_eq!(positions(&m), CUBE_V.to_vec());
    assert_eq!(m.face, CUBE_F.to_vec());
    // normals and texture coordinates are skipped
    let mut b = Vec::new();
    for n in [8i32, 8, 8, 12] {
        b.extend(n.to_le_bytes());
    }
    for c in CUBE_V.iter().flatten() {
        b.extend(c.to_le_bytes());
    }
    b.extend(vec![0u8; 8 * 12 + 8 * 8]);
    for i in f.iter().flatten() {
        b.extend(i.to_le_bytes());
    }
    assert_eq!(decode_mesh("cube.msh", &b).unwrap(), m);
    // no faces
    let nf = decode_mesh("p.msh", &msh(&CUBE_V, &[])).unwrap();
    assert!(nf.face.is_empty() && nf.vert.len() == 8);
}

#[test]
fn msh_errors() {
    let f: Vec<[i32; 3]> = CUBE_F.iter().map(|t| t.map(|i| i as i32)).collect();
    let good = msh(&CUBE_V, &f);
    let e = decode_mesh("c.msh", &good[..good.len() - 1]).unwrap_err();
    assert!(e.contains("unexpected file size") && e.contains(&format!("got {}", good.len() - 1)));
    assert!(decode_mesh("c.msh", &good[..10])
        .unwrap_err()
        .contains("missing header"));
    let e = decode_mesh("c.msh", &msh(&CUBE_V[..3], &[])).unwrap_err();
    assert!(e.contains("invalid sizes"), "{e}");
    let mut bad = f.clone();
    bad[5][1] = -1;
    let e = decode_mesh("c.msh", &msh(&CUBE_V, &bad)).unwrap_err();
    assert!(
        e.contains("in face 5, vertex index -1 does not exist"),
        "{e}"
    );
    bad[5][1] = 8;
    assert!(decode_mesh("c.msh", &msh(&CUBE_V, &bad))
        .unwrap_err()
        .contains("index 8"));
    let mut huge = good.clone();
    huge[..4].copy_from_slice(&i32::MAX.to_le_bytes());
    assert!(decode_mesh("c.msh", &huge)
        .unwrap_err()
        .contains("unexpected file size"));
}

#[test]
fn obj_quads_first_object_and_index_forms() {
    let m = decode_mesh("quad_box.obj", &data("quad_box.obj")).unwrap();
    // every `v` line is a vertex, including those of the ignored second object
    assert_eq!(m.vert.len(), 11);
    assert_eq!(m.vert[10], DVec3::new(10.0, 11.0, 10.0));
    // faces of the first object only, quads split along the shorter diagonal: the bottom
    // `1 4 3 2` has |v1−v3|² = 13.25 ≥ |v4−v2|² = 9.125, hence (1,4,2), (4,3,2)
    assert_eq!(m.face.len(), 12);
    assert_eq!(&m.face[..2], &[[0, 3, 1], [3, 2, 1]]);
    // `v/vt`, `v//vn` and negative (relative) indices
    assert_eq!(m.face[2], [4, 5, 7]);
    assert_eq!(m.face[4], [0, 1, 4]);
    // `-6 -5 -1 -2` is `3 4 8 7`; equal diagonals go to 1–3
    assert_eq!(&m.face[8..10], &[[2, 3, 6], [3, 7, 6]]);
}

#[test]
fn obj_polygons_are_ear_clipped_like_tinyobjloader() {
    // faces recorded from MuJoCo 4.0.0 (mesh_face) for these files
    let pent = b"v 0 0 0\nv 2 0 0\nv 3 1 0\nv 1 2 0\nv -1 1 0\nv 1 1 2\nf 1 5 4 3 2\n\
                 f 1 2 6\nf 2 3 6\nf 3 4 6\nf 4 5 6\nf 5 1 6\n";
    let m = decode_mesh("pent.obj", pent).unwrap();
    let expect = [
        [0, 4, 3],
        [0, 3, 2],
        [0, 2, 1],
        [0, 1, 5],
        [1, 2, 5],
        [2, 3, 5],
        [3, 4, 5],
    ];
    assert_eq!(&m.face[..7], &expect);
    // a non-convex pentagon: tinyobjloader gives up after one ear on the bottom face
    let arrow = "v 0 0 0\nv 4 0 0\nv 4 3 0\nv 2 1 0\nv 0 3 0\nv 0 0 1\nv 4 0 1\nv 4 3 1\nv 2 1 1\n\
                 v 0 3 1\nf 5 4 3 2 1\nf 6 7 8 9 10\nf 1 2 7 6\nf 2 3 8 7\nf 3 4 9 8\n\
                 f 4 5 10 9\nf 5 1 6 10\n";
    let m = decode_mesh("arrow.obj", arrow.as_bytes()).unwrap();
    let expect = [
        [0, 4, 3],
        [6, 7, 8],
        [8, 9, 5],
        [5, 6, 8],
        [0, 1, 5],
        [1, 6, 5],
        [1, 2, 6],
        [2, 7, 6],
        [2, 3, 7],
        [3, 8, 7],
        [3, 4, 8],
        [4, 9, 8],
        [4, 0, 9],
        [0, 5, 9],
    ];
    assert_eq!(m.face, expect);
}

#[test]
fn obj_details() {
    // CRLF, comments, missing coordinates default to 0, extra vertex components ignored,
    // degenerate faces dropped, `g` lines separate shapes only after faces
    let text = "# c\r\nv 1 2 3 1\r\nv 4\r\nv 0 1 0 0.5 0.5 0.5\r\nv 0 0 1\r\ng a\r\nf 1 2\r\n\
                f 1 2 3\r\ng b\r\nf 1 2 4\r\n";
    let m = decode_mesh("d.obj", text.as_bytes()).unwrap();
    assert_eq!(m.vert[1], DVec3::new(4.0, 0.0, 0.0));
    assert_eq!(m.face, vec![[0, 1, 2]]);
    // no faces at all
    let m = decode_mesh("p.obj", b"v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\n").unwrap();
    assert!(m.face.is_empty() && m.vert.len() == 4);
    // errors
    let e = decode_mesh("z.obj", b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 0 1 2\n").unwrap_err();
    assert!(
        e.contains("invalid face index '0'") && e.contains("line 4"),
        "{e}"
    );
    let e = decode_mesh("z.obj", b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 9\n").unwrap_err();
    assert!(e.contains("vertex index 9 does not exist"), "{e}");
    assert!(decode_mesh("z.obj", b"v 0 0 0\nf -2 -1 -3\n").is_err());
    assert!(decode_mesh("z.obj", b"v 0 zero 0\n")
        .unwrap_err()
        .contains("invalid number"));
}

#[test]
fn format_detection() {
    let stl = binary_stl(&CUBE_V, &CUBE_F);
    assert_eq!(decode_mesh("model/stl", &stl).unwrap().face.len(), 12);
    assert_eq!(decode_mesh("noextension", &stl).unwrap().face.len(), 12);
    let f: Vec<[i32; 3]> = CUBE_F.iter().map(|t| t.map(|i| i as i32)).collect();
    assert_eq!(
        decode_mesh("blob", &msh(&CUBE_V, &f)).unwrap().face.len(),
        12
    );
    assert_eq!(
        decode_mesh("blob", &data("quad_box.obj"))
            .unwrap()
            .face
            .len(),
        12
    );
    assert_eq!(
        decode_mesh("blob", &data("cube_ascii.stl"))
            .unwrap()
            .face
            .len(),
        12
    );
    let e = decode_mesh("mesh.ply", &[1, 2, 3]).unwrap_err();
    assert!(
        e.contains("unknown or unsupported mesh file 'mesh.ply'"),
        "{e}"
    );
}
