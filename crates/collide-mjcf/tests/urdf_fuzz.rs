//! Fuzz-style robustness of the URDF loader: random URDF-aware mutations of the corpus URDFs
//! (joint types, link references, geometry tags, numbers, `package://` paths) must load or fail
//! with a located error, never panic. Meshes are read from disk, the URDF is served mutated.

use std::path::{Path, PathBuf};

use collide_mjcf::{load_file_with, FileReader};
use proptest::prelude::*;

fn corpus_urdfs() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../conformance");
    let text = std::fs::read_to_string(dir.join("corpus.json")).expect("corpus.json");
    let v: serde_json::Value = serde_json::from_str(&text).expect("corpus.json is JSON");
    let files: Vec<PathBuf> = v["models"]
        .as_array()
        .expect("models")
        .iter()
        .filter_map(|m| m["path"].as_str())
        .filter(|p| p.ends_with(".urdf"))
        .map(|p| dir.join(p))
        .collect();
    assert!(files.len() >= 25, "only {} corpus URDFs", files.len());
    files
}

/// Disk reads, except `main`, which is replaced by `text`.
struct Mutated<'a> {
    main: &'a Path,
    text: &'a [u8],
}

impl FileReader for Mutated<'_> {
    fn read(&self, path: &Path) -> Result<Vec<u8>, String> {
        if path == self.main {
            Ok(self.text.to_vec())
        } else {
            std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
        }
    }
}

/// Replacements for attribute values.
const VALUES: [&str; 18] = [
    "nan",
    "inf",
    "-1",
    "0",
    "1e400",
    "",
    "1 2",
    "1 2 3 4",
    "fixed",
    "floating",
    "planar",
    "spherical",
    "revolute",
    "package://x/y.stl",
    "a.dae",
    "world",
    "base",
    "0 0 0",
];

/// Elements to insert.
const ELEMENTS: [&str; 10] = [
    "<joint name=\"z\" type=\"fixed\"><parent link=\"world\"/><child link=\"base\"/></joint>",
    "<link name=\"world\"/>",
    "<link/>",
    "<joint name=\"c\" type=\"revolute\"><parent link=\"q\"/><child link=\"q\"/></joint>",
    "<collision><geometry/></collision>",
    "<collision><geometry><mesh filename=\"package://nowhere/m.stl\"/></geometry></collision>",
    "<visual><geometry><box size=\"1 1 1\"/></geometry></visual>",
    "<mujoco><compiler discardvisual=\"false\" fusestatic=\"false\" strippath=\"true\"/></mujoco>",
    "<inertial><mass value=\"-1\"/><inertia ixx=\"nan\"/></inertial>",
    "<axis xyz=\"0 0 0\"/>",
];

#[derive(Clone, Debug)]
enum Mutation {
    /// Replace the i-th (mod count) attribute value.
    Value(usize, usize),
    /// Insert an element after the i-th (mod count) `>`.
    Insert(usize, usize),
    /// Delete the i-th (mod count) element start tag up to its `>`.
    DeleteTag(usize),
    /// Duplicate the i-th (mod count) line.
    DuplicateLine(usize),
    Truncate(f64),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (0..10_000usize, 0..VALUES.len()).prop_map(|(i, v)| Mutation::Value(i, v)),
        (0..10_000usize, 0..ELEMENTS.len()).prop_map(|(i, e)| Mutation::Insert(i, e)),
        (0..10_000usize).prop_map(Mutation::DeleteTag),
        (0..10_000usize).prop_map(Mutation::DuplicateLine),
        (0.0..1.0f64).prop_map(Mutation::Truncate),
    ]
}

fn positions(text: &str, pat: &str) -> Vec<usize> {
    text.match_indices(pat).map(|(i, _)| i).collect()
}

fn apply(text: &str, m: &Mutation) -> String {
    let mut out = text.to_string();
    match *m {
        Mutation::Value(i, v) => {
            let starts = positions(text, "=\"");
            if !starts.is_empty() {
                let s = starts[i % starts.len()] + 2;
                if let Some(len) = text[s..].find('"') {
                    out.replace_range(s..s + len, VALUES[v]);
                }
            }
        }
        Mutation::Insert(i, e) => {
            let ends = positions(text, ">");
            if !ends.is_empty() {
                let at = ends[i % ends.len()] + 1;
                out.insert_str(at, ELEMENTS[e]);
            }
        }
        Mutation::DeleteTag(i) => {
            let starts = positions(text, "<");
            if !starts.is_empty() {
                let s = starts[i % starts.len()];
                if let Some(len) = text[s..].find('>') {
                    out.replace_range(s..=s + len, "");
                }
            }
        }
        Mutation::DuplicateLine(i) => {
            let lines: Vec<&str> = text.lines().collect();
            if !lines.is_empty() {
                let k = i % lines.len();
                let mut v = lines.clone();
                v.insert(k, lines[k]);
                out = v.join("\n");
            }
        }
        Mutation::Truncate(p) => {
            let mut at = (p * text.len() as f64) as usize;
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            out.truncate(at);
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 600, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn mutated_corpus_urdfs_never_panic(file in 0..1000usize, muts in proptest::collection::vec(mutation(), 1..4)) {
        let files = corpus_urdfs();
        let path = &files[file % files.len()];
        let mut text = std::fs::read_to_string(path).expect("corpus URDF");
        for m in &muts {
            text = apply(&text, m);
        }
        if let Err(e) = load_file_with(path, &Mutated { main: path, text: text.as_bytes() }) {
            prop_assert!(!e.location.file.is_empty());
            prop_assert!(!e.message.is_empty());
        }
    }
}

#[test]
fn deep_link_chain_is_an_error_not_a_stack_overflow() {
    let mut s = String::from("<robot name=\"r\">");
    let n = 5000;
    for i in 0..n {
        s += &format!("<link name=\"l{i}\"/>");
    }
    for i in 1..n {
        s += &format!(
            "<joint name=\"j{i}\" type=\"continuous\"><parent link=\"l{}\"/><child link=\"l{i}\"/></joint>",
            i - 1
        );
    }
    s += "</robot>";
    let e = collide_mjcf::urdf::load_urdf_str(
        &s,
        Path::new("."),
        &collide_mjcf::FsReader,
        &collide_mjcf::LoadOptions::default(),
    )
    .unwrap_err();
    assert!(e.message.contains("deeper than"), "{e}");
}
