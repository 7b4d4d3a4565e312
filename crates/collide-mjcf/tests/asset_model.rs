//! `<asset><model>` names: an unnamed model asset takes the name of its file's
//! `<mujoco model="…">` (MuJoCo's default "MuJoCo Model"), as MuJoCo 4.0.0 resolves `attach`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use collide_mjcf::{load_file_with, FileReader};

/// Serves files from memory.
struct MemFs(HashMap<PathBuf, Vec<u8>>);

impl FileReader for MemFs {
    fn read(&self, path: &Path) -> Result<Vec<u8>, String> {
        self.0
            .get(path)
            .cloned()
            .ok_or_else(|| format!("cannot read {}: no such file", path.display()))
    }
}

fn load(sub: &str, main: &str) -> Result<collide::Model, collide_mjcf::MjcfError> {
    let fs = MemFs(HashMap::from([
        (PathBuf::from("/m/main.xml"), main.as_bytes().to_vec()),
        (PathBuf::from("/m/sub.xml"), sub.as_bytes().to_vec()),
    ]));
    load_file_with(Path::new("/m/main.xml"), &fs)
}

const SUB_NAMED: &str = r#"<mujoco model="arm"><worldbody>
  <body name="b"><geom name="g" size="0.1"/></body></worldbody></mujoco>"#;
const SUB_UNNAMED: &str =
    r#"<mujoco><worldbody><body name="b"><geom name="g" size="0.1"/></body></worldbody></mujoco>"#;

fn main_xml(model_ref: &str) -> String {
    format!(
        r#"<mujoco><asset><model file="sub.xml"/></asset>
  <worldbody><attach model="{model_ref}" body="b" prefix="s-"/></worldbody></mujoco>"#
    )
}

#[test]
fn unnamed_model_asset_takes_its_files_model_name() {
    let m = load(SUB_NAMED, &main_xml("arm")).expect("loads");
    assert_eq!(m.body_name, ["world", "s-b"]);
    assert_eq!(m.geom_name, ["s-g"]);
}

#[test]
fn unnamed_model_asset_without_model_attribute_is_mujoco_model() {
    let m = load(SUB_UNNAMED, &main_xml("MuJoCo Model")).expect("loads");
    assert_eq!(m.body_name, ["world", "s-b"]);
}

#[test]
fn unnamed_model_asset_is_not_named_after_its_file() {
    let e = load(SUB_NAMED, &main_xml("sub")).expect_err("MuJoCo does not resolve 'sub'");
    assert!(e.message.contains("unknown model 'sub'"), "{e}");
    assert!(e.location.element.contains("attach"), "{e}");
}
