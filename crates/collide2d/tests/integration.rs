//! The integration tests of `collide2d`, one module per file of `tests/`, built as one
//! binary (one link instead of one per file). `cargo test -p collide2d --test integration
//! MODULE::` runs one file's tests.

mod bounding_volumes;
mod broad_sweep;
mod ccd_analytic;
mod ccd_props;
mod contact_analytic;
mod contact_parry;
mod contact_props;
mod containment_analytic;
mod distance_analytic;
mod distance_props;
mod render_demo;
mod scene_run;
