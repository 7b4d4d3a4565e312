//! The integration tests of `collide-cli`, one module per file of `tests/`, built as one
//! binary (one link instead of one per file). `cargo test -p collide-cli --test integration
//! MODULE::` runs one file's tests.

mod common;

mod batch;
mod broad_phase;
mod cli;
mod conformance;
mod distance_cli;
mod pipeline;
mod scene_fuzz_regressions;
mod sleep;
mod urdf_cli;
mod view;
