//! Paths written in included files, as MuJoCo 4.0.0 looks them up (each case measured on it):
//! relative to the main model's directory (or `meshdir` below it) first, then, for a file
//! included from a subfolder, relative to that subfolder (below `meshdir` too).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use collide_mjcf::{load_file_with, FileReader};

/// Serves files from memory.
struct MemFs(HashMap<PathBuf, Vec<u8>>);

impl FileReader for MemFs {
    fn read(&self, path: &Path) -> Result<Vec<u8>, String> {
        // `a/./b` and `a/b` are one file, as on disk; `..` is resolved lexically
        let mut clean = PathBuf::new();
        for c in path.components() {
            match c {
                std::path::Component::CurDir => {}
                std::path::Component::ParentDir => {
                    clean.pop();
                }
                c => clean.push(c),
            }
        }
        self.0
            .get(&clean)
            .cloned()
            .ok_or_else(|| format!("cannot read {}: no such file", path.display()))
    }
}

/// A tetrahedron (4 vertices) or an octahedron (6), as OBJ text.
fn obj(octahedron: bool) -> Vec<u8> {
    if octahedron {
        b"v 1 0 0\nv -1 0 0\nv 0 1 0\nv 0 -1 0\nv 0 0 1\nv 0 0 -1\nf 1 3 5\nf 3 2 5\nf 2 4 5\nf 4 1 5\nf 3 1 6\nf 2 3 6\nf 4 2 6\nf 1 4 6\n".to_vec()
    } else {
        b"v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n".to_vec()
    }
}

fn fs(files: &[(&str, Vec<u8>)]) -> MemFs {
    MemFs(
        files
            .iter()
            .map(|(p, b)| (PathBuf::from(p), b.clone()))
            .collect(),
    )
}

const MAIN: &[u8] = b"<mujoco><include file=\"sub/a.xml\"/>\
    <worldbody><geom type=\"mesh\" mesh=\"a\"/></worldbody></mujoco>";

fn mesh_vertices(files: &MemFs) -> usize {
    let m = load_file_with(Path::new("/m/main.xml"), files).expect("MuJoCo loads it");
    m.mesh[0].vert.len()
}

#[test]
fn included_file_reaches_its_own_folder_and_the_main_one() {
    let a = b"<mujoco><asset><mesh name=\"a\" file=\"x.obj\"/></asset></mujoco>".to_vec();
    // only beside the included file (genesis's franka_sim: `../meshes/...` from `assets/`)
    let f = fs(&[
        ("/m/main.xml", MAIN.to_vec()),
        ("/m/sub/a.xml", a.clone()),
        ("/m/sub/x.obj", obj(true)),
    ]);
    assert_eq!(mesh_vertices(&f), 6);
    // in both places: the main directory's file wins
    let f = fs(&[
        ("/m/main.xml", MAIN.to_vec()),
        ("/m/sub/a.xml", a.clone()),
        ("/m/sub/x.obj", obj(true)),
        ("/m/x.obj", obj(false)),
    ]);
    assert_eq!(mesh_vertices(&f), 4);
    // `..` from the included file's folder
    let up = b"<mujoco><asset><mesh name=\"a\" file=\"../meshes/x.obj\"/></asset></mujoco>";
    let f = fs(&[
        ("/m/main.xml", MAIN.to_vec()),
        ("/m/sub/a.xml", up.to_vec()),
        ("/m/meshes/x.obj", obj(true)),
    ]);
    assert_eq!(mesh_vertices(&f), 6);
}

#[test]
fn meshdir_holds_the_included_files_folder() {
    let main = b"<mujoco><compiler meshdir=\"meshes\"/><include file=\"sub/a.xml\"/>\
        <worldbody><geom type=\"mesh\" mesh=\"a\"/></worldbody></mujoco>";
    let a = b"<mujoco><asset><mesh name=\"a\" file=\"x.obj\"/></asset></mujoco>".to_vec();
    let f = fs(&[
        ("/m/main.xml", main.to_vec()),
        ("/m/sub/a.xml", a.clone()),
        ("/m/meshes/sub/x.obj", obj(true)),
    ]);
    assert_eq!(mesh_vertices(&f), 6);
    // not beside the included file itself: MuJoCo fails ("Error opening file 'meshes/sub/x.obj'")
    let f = fs(&[
        ("/m/main.xml", main.to_vec()),
        ("/m/sub/a.xml", a),
        ("/m/sub/meshes/x.obj", obj(true)),
    ]);
    let e = load_file_with(Path::new("/m/main.xml"), &f).expect_err("MuJoCo refuses it");
    assert!(e.message.contains("meshes/sub/x.obj"), "{e}");
}

#[test]
fn nested_includes_resolve_from_the_including_files_folder() {
    let b = b"<mujoco><asset><mesh name=\"a\" file=\"x.obj\"/></asset></mujoco>".to_vec();
    for inner in ["b.xml", "sub/b.xml"] {
        let a = format!("<mujoco><include file=\"{inner}\"/></mujoco>");
        let f = fs(&[
            ("/m/main.xml", MAIN.to_vec()),
            ("/m/sub/a.xml", a.into_bytes()),
            ("/m/sub/b.xml", b.clone()),
            ("/m/sub/x.obj", obj(true)),
        ]);
        assert_eq!(mesh_vertices(&f), 6, "include {inner}");
    }
}

#[test]
fn empty_include_file_is_refused() {
    // MuJoCo 4.0.0: "Empty include file 'sub/a.xml'" (a root with comments only is empty too)
    for a in [
        "<mujoco/>",
        "<mujocoinclude><!-- nothing --></mujocoinclude>",
    ] {
        let f = fs(&[
            ("/m/main.xml", MAIN.to_vec()),
            ("/m/sub/a.xml", a.as_bytes().to_vec()),
        ]);
        let e = load_file_with(Path::new("/m/main.xml"), &f).expect_err("MuJoCo refuses it");
        assert!(e.message.contains("empty include file"), "{e}");
    }
}
