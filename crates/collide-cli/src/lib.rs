//! Library side of the `collide` command-line tool: state files, JSON output, and the
//! conformance comparison against MuJoCo fixtures (shared by the CLI and the tests).

pub mod conformance;
pub mod states;

use collide::math::mat_to_rowmajor;
use collide::Poses;
use serde_json::{json, Value};

/// The embedded default scene of `collide demo`.
pub const DEMO_XML: &str = include_str!("../assets/demo.xml");

/// Geom poses of one state as `{"geom_xpos":[[x,y,z],…],"geom_xmat":[[9 row-major],…]}`.
pub fn poses_json(p: &Poses) -> Value {
    let xpos: Vec<Value> = p.geom_xpos.iter().map(|v| json!(v.to_array())).collect();
    let xmat: Vec<Value> = p
        .geom_xmat
        .iter()
        .map(|m| json!(mat_to_rowmajor(m)))
        .collect();
    json!({ "geom_xpos": xpos, "geom_xmat": xmat })
}
