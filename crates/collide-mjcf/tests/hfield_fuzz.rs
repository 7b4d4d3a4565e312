//! Fuzz-style properties: no input makes the height-field decoders panic.

use collide_mjcf::hfield_file::{build_hfield, decode_hfield_bin, decode_hfield_png};
use proptest::prelude::*;

fn data(name: &str) -> Vec<u8> {
    let path = format!("{}/tests/data/mesh/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

const FILES: [&str; 4] = [
    "hfield_grey.png",
    "hfield_rgb.png",
    "hfield_grey16.png",
    "hfield.bin",
];

/// Decodes with both decoders; whatever succeeds must also normalize without panicking.
fn decode_all(bytes: &[u8]) -> Result<(), TestCaseError> {
    for (nrow, ncol, d) in [
        decode_hfield_png("f.png", bytes),
        decode_hfield_bin("f.bin", bytes),
    ]
    .into_iter()
    .flatten()
    {
        prop_assert_eq!(d.len(), nrow * ncol);
        if let Ok(h) = build_hfield("h", [1.0, 1.0, 1.0, 1.0], nrow, ncol, d) {
            prop_assert!(
                h.data.iter().all(|x| (0.0..=1.0).contains(x)),
                "{:?}",
                h.data
            );
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 400,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
        decode_all(&bytes)?;
    }

    #[test]
    fn mutated_files_never_panic(
        which in 0..FILES.len(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>(), 0u8..4), 1..6),
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
        decode_all(&bytes)?;
    }

    #[test]
    fn build_never_panics(
        size in prop::array::uniform4(prop_oneof![-1.0f64..2.0, Just(f64::NAN), Just(0.0)]),
        nrow in 0usize..5,
        ncol in 0usize..5,
        d in prop::collection::vec(prop_oneof![-1e12f32..1e12, Just(f32::NAN), Just(f32::INFINITY)], 0..20),
    ) {
        if let Ok(h) = build_hfield("h", size, nrow, ncol, d) {
            prop_assert!(h.data.iter().all(|x| x.is_finite() && *x >= 0.0));
        }
    }
}
