//! Fuzz target bodies: each takes arbitrary bytes, feeds them to one user-data entry point and
//! panics only on a violated property (a panic, NaN or a contact outside the margin is a
//! finding). Errors returned by the loaders are the expected outcome for bad input.

use std::path::{Path, PathBuf};

use collide::{forward_kinematics, Collider, Poses};
use collide_mjcf::{load_file_with, FileReader};

/// Serves `main` as the main file and `other` for every other path (includes, meshes, height
/// fields, attached models).
struct Files<'a> {
    main: PathBuf,
    text: &'a [u8],
    other: &'a [u8],
}

impl FileReader for Files<'_> {
    fn read(&self, path: &Path) -> Result<Vec<u8>, String> {
        Ok(if path == self.main {
            self.text.to_vec()
        } else {
            self.other.to_vec()
        })
    }
}

/// Splits at the first NUL byte: (main file, every other file).
fn split(data: &[u8]) -> (&[u8], &[u8]) {
    match data.iter().position(|&b| b == 0) {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, &[]),
    }
}

/// Loads a model, then runs kinematics and collision at qpos0: must not panic; contacts must
/// be finite.
fn load_and_collide(name: &str, data: &[u8]) {
    let (text, other) = split(data);
    let files = Files {
        main: PathBuf::from("/fuzz").join(name),
        text,
        other,
    };
    let Ok(model) = load_file_with(&files.main, &files) else {
        return;
    };
    collide_model(&model);
}

fn collide_model(model: &collide::Model) {
    if model.ngeom() > 2000 {
        return;
    }
    let Ok(mut collider) = Collider::new(model) else {
        return;
    };
    let mut poses = Poses::new(model);
    if forward_kinematics(model, &model.qpos0, None, &mut poses).is_err() {
        return;
    }
    let mut out = Vec::new();
    collider.detect(&poses, &mut out);
    for c in &out {
        assert!(
            c.dist.is_finite() && c.pos.is_finite(),
            "non-finite contact {c:?}"
        );
        assert!(
            c.dist <= c.includemargin + 1e-9,
            "contact beyond its margin: {c:?}"
        );
    }
}

/// MJCF with includes: main XML, then (after a NUL byte) the bytes of every other file.
pub fn mjcf(data: &[u8]) {
    load_and_collide("main.xml", data);
}

/// URDF: as [`mjcf`], the other files being meshes.
pub fn urdf(data: &[u8]) {
    load_and_collide("robot.urdf", data);
}

/// Mesh files: the first byte picks STL, OBJ or MSH; a decoded mesh is also compiled.
pub fn mesh(data: &[u8]) {
    let Some((&k, rest)) = data.split_first() else {
        return;
    };
    let name = ["m.stl", "m.obj", "m.msh"][usize::from(k) % 3];
    if let Ok(raw) = collide_mjcf::mesh_file::decode_mesh(name, rest) {
        let settings = collide_mjcf::mesh_compile::MeshSettings::default();
        let _ = collide_mjcf::mesh_compile::compile_mesh("m", raw, &settings);
    }
}

/// Height-field files: the first byte picks PNG or MuJoCo's binary format; a decoded field is
/// also built.
pub fn hfield(data: &[u8]) {
    let Some((&k, rest)) = data.split_first() else {
        return;
    };
    let decoded = if k % 2 == 0 {
        collide_mjcf::hfield_file::decode_hfield_png("h", rest)
    } else {
        collide_mjcf::hfield_file::decode_hfield_bin("h", rest)
    };
    if let Ok((nrow, ncol, d)) = decoded {
        if nrow.saturating_mul(ncol) <= 1 << 20 {
            let _ =
                collide_mjcf::hfield_file::build_hfield("h", [1.0, 1.0, 1.0, 0.1], nrow, ncol, d);
        }
    }
}

/// `STATES.json`.
pub fn states(data: &[u8]) {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = collide_cli::states::parse_states(text);
    }
}

/// The 2D module's scene JSON, run end to end.
pub fn scene2d(data: &[u8]) {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = collide2d::scene::run(text);
    }
}

/// Random geometry into the pair functions: two free geoms (types, sizes, poses and margins
/// from the bytes) collided by the full pipeline.
pub fn pairs(data: &[u8]) {
    const TYPES: [&str; 6] = ["sphere", "capsule", "ellipsoid", "cylinder", "box", "mesh"];
    let mut it = data.iter().copied();
    let mut byte = || it.next().unwrap_or(0);
    let mut num = |lo: f64, hi: f64| {
        let b = [byte(), byte()];
        lo + (hi - lo) * f64::from(u16::from_le_bytes(b)) / 65535.0
    };
    let mut geoms = String::new();
    for i in 0..2 {
        let t = TYPES[usize::from(byte_of(data, 40 + i)) % TYPES.len()];
        let size = format!("{} {} {}", num(1e-3, 1.0), num(1e-3, 1.0), num(1e-3, 1.0));
        let pos = format!("{} {} {}", num(-0.5, 0.5), num(-0.5, 0.5), num(-0.5, 0.5));
        let quat = format!(
            "{} {} {} {}",
            num(-1.0, 1.0),
            num(-1.0, 1.0),
            num(-1.0, 1.0),
            num(0.01, 1.0)
        );
        let margin = num(0.0, 0.1);
        let mesh = if t == "mesh" { r#" mesh="hull""# } else { "" };
        geoms.push_str(&format!(
            r#"<body pos="{pos}" quat="{quat}"><freejoint/><geom name="g{i}" type="{t}" size="{size}" margin="{margin}"{mesh}/></body>"#
        ));
    }
    let verts: Vec<String> = (0..8 * 3).map(|_| format!("{}", num(-0.5, 0.5))).collect();
    let xml = format!(
        r#"<mujoco><asset><mesh name="hull" vertex="{}"/></asset><worldbody>{geoms}</worldbody></mujoco>"#,
        verts.join(" ")
    );
    if let Ok(model) = collide_mjcf::load_str(&xml, ".") {
        collide_model(&model);
    }
}

fn byte_of(data: &[u8], i: usize) -> u8 {
    data.get(i).copied().unwrap_or(0)
}

/// A fuzz target body.
pub type Target = fn(&[u8]);

/// The targets by name (for the `replay` binary).
pub const TARGETS: &[(&str, Target)] = &[
    ("mjcf", mjcf),
    ("urdf", urdf),
    ("mesh", mesh),
    ("hfield", hfield),
    ("states", states),
    ("scene2d", scene2d),
    ("pairs", pairs),
];
