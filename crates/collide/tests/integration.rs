//! The integration tests of `collide`, one module per file of `tests/`, built as one
//! binary (one link instead of one per file). `cargo test -p collide --test integration
//! MODULE::` runs one file's tests.

mod common;
mod mesh_shapes;
mod narrow_mpr_util;

mod contact_params;
mod distance_api;
mod distance_coal;
mod distance_mujoco;
mod narrow_box_box;
mod narrow_box_primitive;
mod narrow_convex;
mod narrow_convex_analytic;
mod narrow_hfield;
mod narrow_mesh_sdf;
mod narrow_mpr;
mod narrow_plane_convex;
mod narrow_primitive;
mod narrow_sdf;
mod nonconvex;
mod nonconvex_pipeline;
mod nonconvex_sdf;
mod separation_cache;
