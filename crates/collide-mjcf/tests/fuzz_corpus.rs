//! Fuzz-style robustness: random mutations of every corpus model must load or fail with an
//! error, never panic. Referenced files (includes, meshes, height fields) are read from disk,
//! the main file is served mutated.

use std::path::{Path, PathBuf};

use collide_mjcf::{load_file_with, FileReader};
use proptest::prelude::*;

fn corpus_files() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../conformance");
    let text = std::fs::read_to_string(dir.join("corpus.json")).expect("corpus.json");
    let v: serde_json::Value = serde_json::from_str(&text).expect("corpus.json is JSON");
    v["models"]
        .as_array()
        .expect("models")
        .iter()
        .map(|m| dir.join(m["path"].as_str().expect("path")))
        .collect()
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

const TOKENS: [&str; 16] = [
    "nan",
    "inf",
    "-1",
    "0",
    "1e400",
    "",
    " ",
    "\"",
    "<",
    "/>",
    "&amp;",
    "1 2 3 4 5 6 7",
    "-0",
    "box",
    "mesh",
    "hfield",
];

#[derive(Clone, Debug)]
enum Mutation {
    Truncate(f64),
    DeleteRange(f64, usize),
    InsertToken(f64, usize),
    ReplaceNumber(usize, usize),
    FlipByte(f64, u8),
    DuplicateRange(f64, usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (0.0..1.0f64).prop_map(Mutation::Truncate),
        (0.0..1.0f64, 1..64usize).prop_map(|(p, n)| Mutation::DeleteRange(p, n)),
        (0.0..1.0f64, 0..TOKENS.len()).prop_map(|(p, t)| Mutation::InsertToken(p, t)),
        (0..10_000usize, 0..TOKENS.len()).prop_map(|(i, t)| Mutation::ReplaceNumber(i, t)),
        (0.0..1.0f64, any::<u8>()).prop_map(|(p, b)| Mutation::FlipByte(p, b)),
        (0.0..1.0f64, 1..200usize).prop_map(|(p, n)| Mutation::DuplicateRange(p, n)),
    ]
}

fn apply(text: &[u8], m: &Mutation) -> Vec<u8> {
    let at = |p: f64| ((p * text.len() as f64) as usize).min(text.len());
    let mut out = text.to_vec();
    match *m {
        Mutation::Truncate(p) => out.truncate(at(p)),
        Mutation::DeleteRange(p, n) => {
            let a = at(p);
            out.drain(a..(a + n).min(out.len()));
        }
        Mutation::InsertToken(p, t) => {
            let a = at(p);
            out.splice(a..a, TOKENS[t].bytes());
        }
        Mutation::ReplaceNumber(i, t) => {
            // replace the i-th (mod count) run of digits with a token
            let runs: Vec<(usize, usize)> = {
                let mut v = Vec::new();
                let mut k = 0;
                while k < out.len() {
                    if out[k].is_ascii_digit() {
                        let s = k;
                        while k < out.len() && (out[k].is_ascii_digit() || out[k] == b'.') {
                            k += 1;
                        }
                        v.push((s, k));
                    } else {
                        k += 1;
                    }
                }
                v
            };
            if !runs.is_empty() {
                let (s, e) = runs[i % runs.len()];
                out.splice(s..e, TOKENS[t].bytes());
            }
        }
        Mutation::FlipByte(p, b) => {
            let a = at(p);
            if a < out.len() {
                out[a] = b;
            }
        }
        Mutation::DuplicateRange(p, n) => {
            let a = at(p);
            let chunk: Vec<u8> = out[a..(a + n).min(out.len())].to_vec();
            out.splice(a..a, chunk);
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn mutated_corpus_models_never_panic(file in 0..1000usize, muts in proptest::collection::vec(mutation(), 1..4)) {
        let files = corpus_files();
        let path = &files[file % files.len()];
        let original = std::fs::read(path).expect("corpus file");
        let mut text = original;
        for m in &muts {
            text = apply(&text, m);
        }
        // either outcome is fine; errors must carry a location
        if let Err(e) = load_file_with(path, &Mutated { main: path, text: &text }) {
            prop_assert!(!e.location.file.is_empty());
            prop_assert!(!e.message.is_empty());
        }
    }
}

#[test]
fn every_corpus_model_loads_unmutated() {
    for path in corpus_files() {
        let text = std::fs::read(&path).expect("corpus file");
        if let Err(e) = load_file_with(
            &path,
            &Mutated {
                main: &path,
                text: &text,
            },
        ) {
            panic!("{}: {e}", path.display());
        }
    }
}
