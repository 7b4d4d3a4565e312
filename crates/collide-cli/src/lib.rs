//! Library side of the `collide` command-line tool: state files, JSON output, and the
//! conformance comparison against MuJoCo fixtures (shared by the CLI and the tests).

pub mod conformance;
pub mod distance_cmd;
pub mod states;

use collide::math::mat_to_rowmajor;
use collide::{Contact, Poses};
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

/// One contact as JSON: `geom1`, `geom2`, `dist`, `pos`, `normal`, `frame` (9, rows), `dim`,
/// `friction`, `solref`, `solreffriction`, `solimp`, `includemargin`, `exclude`.
pub fn contact_json(c: &Contact) -> Value {
    let f = c.frame;
    json!({
        "geom1": c.geom[0],
        "geom2": c.geom[1],
        "dist": c.dist,
        "pos": c.pos.to_array(),
        "normal": f[0].to_array(),
        "frame": [f[0].x, f[0].y, f[0].z, f[1].x, f[1].y, f[1].z, f[2].x, f[2].y, f[2].z],
        "dim": c.dim,
        "friction": c.friction,
        "solref": c.solref,
        "solreffriction": c.solreffriction,
        "solimp": c.solimp,
        "includemargin": c.includemargin,
        "exclude": u8::from(c.exclude),
    })
}
