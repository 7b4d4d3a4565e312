//! The integration tests of `collide-mjcf`, one module per file of `tests/`, built as one
//! binary (one link instead of one per file). `cargo test -p collide-mjcf --test integration
//! MODULE::` runs one file's tests.

#[path = "../../collide/tests/common/mod.rs"]
mod common;

mod asset_model;
mod compile_regressions;
mod convex_coincident_centres;
mod convex_cross_check;
mod errors;
mod fuzz_corpus;
mod hfield_file;
mod hfield_fuzz;
mod hull_robustness;
mod include_paths;
mod mesh_builtin;
mod mesh_compile;
mod mesh_file;
mod mesh_fuzz;
mod mesh_hull;
mod mesh_hull_props;
mod mesh_oracle;
mod replicate;
mod schema;
mod sdf_octree;
mod sdf_plugins;
mod urdf;
mod urdf_fuzz;
mod urdf_hull_polygons;
