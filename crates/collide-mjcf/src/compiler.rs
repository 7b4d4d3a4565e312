//! MJCF → [`collide::Model`]: walks the element tree in MuJoCo's order (depth-first bodies,
//! document order within a body) and compiles geometry, joints, pairs and keyframes.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use glam::{DQuat, DVec3, DVec4};

use collide::math::{normalize_quat, quat_wxyz};
use collide::model::{disable, enable};
use collide::{GeomType, JointType, Model, SameFrame};

use crate::compile_math as cm;
use crate::defaults::{Defaults, Resolved, MAIN};
use crate::error::{Location, MjcfError, Result};
use crate::geom;
use crate::hfield_file;
use crate::mesh_builtin::{builtin_inertia, builtin_mesh};
use crate::mesh_compile::{compile_mesh, MeshInertia, MeshSettings};
use crate::mesh_file::{decode_mesh, RawMesh};
use crate::mesh_hull::build_hull_from_source;
use crate::orientation::{euler_quat, read_frame, AngleSettings, Frame};
use crate::sdf_mesh::plugin_mesh;
use crate::xml::{parent_dir, parse_document, read_relative, AttrSource, Elem, FileReader};
use collide::narrow::sdf::{FaceBvh, SdfPlugin};

/// `compiler/@inertiafromgeom`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum InertiaFromGeom {
    False,
    True,
    Auto,
}

/// Settings of one model file's `<compiler>`.
#[derive(Clone, Debug)]
struct Settings {
    angles: AngleSettings,
    meshdir: Option<String>,
    assetdir: Option<String>,
    fusestatic: bool,
    fitaabb: bool,
    alignfree: bool,
    balanceinertia: bool,
    inertiafromgeom: InertiaFromGeom,
    /// `compiler/@inertiagrouprange`: geom groups that count for inertia.
    inertiagrouprange: [i64; 2],
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            angles: AngleSettings::default(),
            meshdir: None,
            assetdir: None,
            fusestatic: false,
            fitaabb: false,
            alignfree: false,
            balanceinertia: false,
            inertiafromgeom: InertiaFromGeom::Auto,
            inertiagrouprange: [0, 5],
        }
    }
}

/// One parsed model file (the main file, or a sub-model used by `attach`).
struct Source {
    root: Elem,
    dir: PathBuf,
    settings: Settings,
    defaults: Defaults,
}

impl Source {
    fn new(root: Elem, dir: PathBuf) -> Result<Source> {
        if root.name != "mujoco" {
            return Err(root.err("the root element must be <mujoco>"));
        }
        let mut settings = Settings::default();
        for c in root.children_named("compiler") {
            read_compiler(c, &mut settings)?;
        }
        let defaults = Defaults::collect(&root)?;
        Ok(Source {
            root,
            dir,
            settings,
            defaults,
        })
    }

    /// Reads asset `file` named by element `e` (under `meshdir`, else `assetdir`, else the model's
    /// directory; see [`read_relative`] for files named in included documents): the bytes and
    /// the path read.
    fn read_asset(
        &self,
        reader: &dyn FileReader,
        e: &Elem,
        file: &str,
    ) -> Result<(Vec<u8>, PathBuf)> {
        let dir = self
            .settings
            .meshdir
            .as_ref()
            .or(self.settings.assetdir.as_ref());
        let under = match dir {
            Some(d) => self.dir.join(d),
            None => self.dir.clone(),
        };
        read_relative(reader, &under, &self.dir, &e.file, file).map_err(|m| e.err(m))
    }

    fn sections<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Elem> + 'a {
        self.root.children_named(name)
    }
}

fn read_compiler(c: &Elem, s: &mut Settings) -> Result<()> {
    if c.keyword("coordinate", &["local", "global"])? == Some(1) {
        return Err(c.err(
            "global coordinates are no longer supported (MuJoCo 4.0.0 refuses them; load and \
             save the model in an older MuJoCo to convert it to local coordinates)",
        ));
    }
    if let Some(i) = c.keyword("angle", &["degree", "radian"])? {
        s.angles.degrees = i == 0;
    }
    if let Some(seq) = c.attr("eulerseq") {
        let b = seq.trim().as_bytes();
        if b.len() != 3 || !b.iter().all(|c| b"xyzXYZ".contains(c)) {
            return Err(c.err(format!("eulerseq '{seq}' must be 3 characters from xyzXYZ")));
        }
        s.angles.eulerseq = [b[0], b[1], b[2]];
    }
    if let Some(d) = c.attr("meshdir") {
        s.meshdir = Some(d.to_string());
    }
    if let Some(d) = c.attr("assetdir") {
        s.assetdir = Some(d.to_string());
    }
    if let Some(v) = c.boolean("fusestatic")? {
        s.fusestatic = v;
    }
    if let Some(v) = c.boolean("fitaabb")? {
        s.fitaabb = v;
    }
    if let Some(v) = c.boolean("alignfree")? {
        s.alignfree = v;
    }
    if let Some(v) = c.boolean("balanceinertia")? {
        s.balanceinertia = v;
    }
    if let Some(r) = c.array::<2>("inertiagrouprange")? {
        s.inertiagrouprange = [r[0] as i64, r[1] as i64];
    }
    if let Some(i) = c.keyword("inertiafromgeom", &["false", "true", "auto"])? {
        s.inertiafromgeom = [
            InertiaFromGeom::False,
            InertiaFromGeom::True,
            InertiaFromGeom::Auto,
        ][i];
    }
    Ok(())
}

/// A geom before flattening.
#[derive(Clone, Debug)]
struct GeomB {
    name: String,
    t: GeomType,
    dataid: Option<usize>,
    /// The field of an sdf geom.
    sdf: Option<SdfPlugin>,
    size: DVec3,
    pos: DVec3,
    quat: DQuat,
    contype: u32,
    conaffinity: u32,
    condim: u32,
    priority: i32,
    friction: DVec3,
    solmix: f64,
    solref: [f64; 2],
    solimp: [f64; 5],
    margin: f64,
    gap: f64,
    adhesion: f64,
    mass: f64,
    /// principal moments (mass included) in the geom frame
    inertia: DVec3,
    /// `geom/@group`
    group: i64,
}

#[derive(Clone, Debug)]
struct JointB {
    name: String,
    t: JointType,
    pos: DVec3,
    axis: DVec3,
    reference: f64,
    align: Option<bool>,
}

#[derive(Clone, Debug)]
struct BodyB {
    name: String,
    parent: usize,
    frame: Frame,
    mocap: bool,
    joints: Vec<JointB>,
    geoms: Vec<GeomB>,
    /// explicit `<inertial>`: (pos, quat, mass)
    inertial: Option<(DVec3, DQuat, f64)>,
    /// principal moments of the explicit `<inertial>` (zero when not given)
    inertia_diag: DVec3,
    loc: Location,
}

/// A body waiting to be visited (depth-first order).
struct Pending<'s> {
    src: &'s Source,
    parent: usize,
    elem: &'s Elem,
    frame: Frame,
    class: String,
    suffix: String,
    prefix: String,
}

/// One `<attach>`: its model's `<contact>` section is carried over with renamed references.
struct Attached<'s> {
    src: &'s Source,
    prefix: String,
    suffix: String,
}

struct Builder<'r> {
    reader: &'r dyn FileReader,
    bodies: Vec<BodyB>,
    model: Model,
    /// full (prefixed) asset name → id
    mesh_ids: HashMap<String, usize>,
    /// where each mesh was declared
    mesh_locs: Vec<Location>,
    /// Source vertices and settings of each mesh, for its collision hull.
    mesh_sources: Vec<(Vec<DVec3>, MeshSettings)>,
    hfield_ids: HashMap<String, usize>,
    /// SDF plugin instances of `<extension>`, by instance name.
    sdf_instances: HashMap<String, SdfPlugin>,
}

/// Compiles MJCF text. `file` names the text in errors; relative asset paths resolve against
/// `dir`.
pub fn compile(text: &str, file: &str, dir: &Path, reader: &dyn FileReader) -> Result<Model> {
    let root = parse_document(text, file, dir, reader)?;
    crate::schema::check(&root)?;
    compile_tree(root, dir, reader)
}

/// Compiles an MJCF element tree (built by [`parse_document`], or translated from URDF by
/// [`crate::urdf`]); relative asset paths resolve against `dir`.
pub fn compile_tree(root: Elem, dir: &Path, reader: &dyn FileReader) -> Result<Model> {
    let main = Source::new(root, dir.to_path_buf())?;

    // sub-models for <attach>
    let mut submodels: HashMap<String, Source> = HashMap::new();
    for assets in main.sections("asset") {
        for m in assets.children_named("model") {
            let f = m
                .attr("file")
                .ok_or_else(|| m.err("asset model requires 'file'"))?;
            let path = main.dir.join(f);
            let bytes = reader.read(&path).map_err(|e| m.err(e))?;
            let text = String::from_utf8(bytes)
                .map_err(|_| m.err(format!("{} is not UTF-8", path.display())))?;
            let sub_dir = parent_dir(&path);
            let root = parse_document(&text, &path.display().to_string(), &sub_dir, reader)?;
            crate::schema::check(&root)?;
            // MuJoCo names an unnamed model asset after its file's `<mujoco model="…">`,
            // whose default is "MuJoCo Model".
            let name = match m.attr("name") {
                Some(n) => n.to_string(),
                None => root.attr("model").unwrap_or("MuJoCo Model").to_string(),
            };
            submodels.insert(name, Source::new(root, sub_dir)?);
        }
    }

    let mut b = Builder {
        reader,
        bodies: Vec::new(),
        model: Model::default(),
        mesh_ids: HashMap::new(),
        mesh_locs: Vec::new(),
        mesh_sources: Vec::new(),
        hfield_ids: HashMap::new(),
        sdf_instances: read_sdf_instances(&main)?,
    };
    read_options(&main, &mut b.model)?;
    b.compile_assets(&main, "")?;

    // world body, then the tree
    b.bodies.push(BodyB {
        name: "world".into(),
        parent: 0,
        frame: Frame::IDENTITY,
        mocap: false,
        joints: Vec::new(),
        geoms: Vec::new(),
        inertial: None,
        inertia_diag: DVec3::ZERO,
        loc: main.root.loc(),
    });
    let mut attached: Vec<Attached> = Vec::new();
    for wb in main.sections("worldbody") {
        let mut pending = Vec::new();
        b.walk(
            &main,
            wb,
            0,
            Frame::IDENTITY,
            MAIN,
            "",
            "",
            &submodels,
            &mut pending,
            &mut attached,
        )?;
        b.visit_pending(pending, &submodels, &mut attached)?;
    }

    let fuse = main.settings.fusestatic;
    if fuse {
        b.fuse_static(&main);
        for body in &b.bodies {
            if body.parent != 0 && body.joints.iter().any(|j| j.t == JointType::Free) {
                return Err(MjcfError::new(
                    body.loc.clone(),
                    "a free joint can only be used in a top-level body",
                ));
            }
        }
    }
    let mut contacts: Vec<(&Source, String, String, bool)> = attached
        .iter()
        .map(|a| (a.src, a.prefix.clone(), a.suffix.clone(), true))
        .collect();
    contacts.push((&main, String::new(), String::new(), false));
    b.finish(&main, &contacts)?;
    Ok(b.model)
}

/// The SDF plugin instances declared under `<extension><plugin plugin="mujoco.sdf.…">`:
/// `<instance name="…">` with `<config key="…" value="…"/>` children, by instance name.
fn read_sdf_instances(src: &Source) -> Result<HashMap<String, SdfPlugin>> {
    let mut out = HashMap::new();
    for ext in src.sections("extension") {
        for p in ext.children_named("plugin") {
            let name = p
                .attr("plugin")
                .ok_or_else(|| p.err("extension plugin requires 'plugin'"))?;
            for inst in p.children_named("instance") {
                let iname = inst
                    .attr("name")
                    .ok_or_else(|| inst.err("plugin instance requires 'name'"))?;
                let mut config: Vec<(String, String)> = Vec::new();
                for c in inst.children_named("config") {
                    let key = c
                        .attr("key")
                        .ok_or_else(|| c.err("config requires 'key'"))?;
                    let value = c
                        .attr("value")
                        .ok_or_else(|| c.err("config requires 'value'"))?;
                    if config.iter().any(|(k, _)| k == key) {
                        return Err(c.err(format!("duplicate config key '{key}'")));
                    }
                    config.push((key.to_string(), value.to_string()));
                }
                let sdf = SdfPlugin::from_config(name, &config)
                    .map_err(|e| inst.err(format!("plugin instance '{iname}': {e}")))?;
                if out.insert(iname.to_string(), sdf).is_some() {
                    return Err(inst.err(format!("repeated plugin instance name '{iname}'")));
                }
            }
        }
    }
    Ok(out)
}

/// The SDF plugin instance named by `e`'s `<plugin instance="…"/>` child, if any.
fn plugin_child(e: &Elem, instances: &HashMap<String, SdfPlugin>) -> Result<Option<SdfPlugin>> {
    let Some(p) = e.children_named("plugin").next() else {
        return Ok(None);
    };
    let name = p
        .attr("instance")
        .ok_or_else(|| p.err("plugin requires 'instance' (inline plugins are not supported)"))?;
    instances
        .get(name)
        .copied()
        .map(Some)
        .ok_or_else(|| p.err(format!("unknown plugin instance '{name}'")))
}

fn read_options(src: &Source, m: &mut Model) -> Result<()> {
    for opt in src.sections("option") {
        let o = &mut m.opt;
        if let Some(v) = opt.number("o_margin")? {
            o.o_margin = v;
        }
        opt.partial("o_solref", &mut o.o_solref)?;
        opt.partial("o_solimp", &mut o.o_solimp)?;
        opt.partial("o_friction", &mut o.o_friction)?;
        if let Some(v) = opt.int("ccd_iterations")? {
            o.ccd_iterations =
                usize::try_from(v).map_err(|_| opt.err("ccd_iterations must be >= 0"))?;
        }
        if let Some(v) = opt.number("ccd_tolerance")? {
            o.ccd_tolerance = v;
        }
        if let Some(v) = opt.int("sdf_iterations")? {
            o.sdf_iterations =
                usize::try_from(v).map_err(|_| opt.err("sdf_iterations must be >= 0"))?;
        }
        if let Some(v) = opt.int("sdf_initpoints")? {
            o.sdf_initpoints =
                usize::try_from(v).map_err(|_| opt.err("sdf_initpoints must be >= 0"))?;
        }
        if let Some(v) = opt.number("sleep_tolerance")? {
            o.sleep_tolerance = v;
        }
        for flag in opt.children_named("flag") {
            for (key, value) in &flag.attrs {
                let on = match value.trim() {
                    "enable" => true,
                    "disable" => false,
                    other => {
                        return Err(
                            flag.err(format!("flag '{key}': '{other}' is not enable or disable"))
                        )
                    }
                };
                if let Some(bit) = disable_bit(key) {
                    if on {
                        o.disableflags &= !bit;
                    } else {
                        o.disableflags |= bit;
                    }
                } else if let Some(bit) = enable_bit(key) {
                    if on {
                        o.enableflags |= bit;
                    } else {
                        o.enableflags &= !bit;
                    }
                } else {
                    return Err(flag.err(format!("unknown flag '{key}'")));
                }
            }
        }
    }
    Ok(())
}

fn disable_bit(name: &str) -> Option<u32> {
    Some(match name {
        "constraint" => disable::CONSTRAINT,
        "equality" => disable::EQUALITY,
        "frictionloss" => disable::FRICTIONLOSS,
        "limit" => disable::LIMIT,
        "contact" => disable::CONTACT,
        "spring" => disable::SPRING,
        "damper" => disable::DAMPER,
        "gravity" => disable::GRAVITY,
        "clampctrl" => disable::CLAMPCTRL,
        "warmstart" => disable::WARMSTART,
        "filterparent" => disable::FILTERPARENT,
        "actuation" => disable::ACTUATION,
        "refsafe" => disable::REFSAFE,
        "sensor" => disable::SENSOR,
        "midphase" => disable::MIDPHASE,
        "eulerdamp" => disable::EULERDAMP,
        "autoreset" => disable::AUTORESET,
        "nativeccd" => disable::NATIVECCD,
        "island" => disable::ISLAND,
        "multiccd" => disable::MULTICCD,
        _ => return None,
    })
}

fn enable_bit(name: &str) -> Option<u32> {
    Some(match name {
        "override" => enable::OVERRIDE,
        "energy" => enable::ENERGY,
        "fwdinv" => enable::FWDINV,
        "invdiscrete" => enable::INVDISCRETE,
        "sleep" => enable::SLEEP,
        "diagexact" => enable::DIAGEXACT,
        "ipc" => enable::IPC,
        "speculative" => enable::SPECULATIVE,
        _ => return None,
    })
}

/// The class an element uses: its `class`, else the inherited `childclass`.
fn class_of<'a>(e: &'a Elem, inherited: &'a str) -> &'a str {
    e.attr("class").unwrap_or(inherited)
}

/// MuJoCo's replicate suffix: the index padded to the digits of `count - 1`.
fn replicate_suffix(sep: &str, i: usize, count: usize) -> String {
    let width = (count.saturating_sub(1)).to_string().len();
    format!("{sep}{i:0width$}")
}

impl<'r> Builder<'r> {
    fn compile_assets(&mut self, src: &Source, prefix: &str) -> Result<()> {
        for assets in src.sections("asset") {
            for a in &assets.children {
                match a.name.as_str() {
                    "mesh" => self.compile_mesh_asset(src, a, prefix)?,
                    "hfield" => self.compile_hfield_asset(src, a, prefix)?,
                    _ => {}
                }
            }
        }
        Ok(())
    }

    fn compile_mesh_asset(&mut self, src: &Source, a: &Elem, prefix: &str) -> Result<()> {
        let r = src.defaults.layers("mesh", class_of(a, MAIN), a)?;
        let file = a.attr("file");
        let name = match (a.attr("name"), file) {
            (Some(n), _) => n.to_string(),
            (None, Some(f)) => Path::new(f)
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default(),
            (None, None) => return Err(a.err("mesh requires 'name' or 'file'")),
        };
        if let Some(plugin) = plugin_child(a, &self.sdf_instances)? {
            let full = format!("{prefix}{name}");
            let mesh =
                plugin_mesh(&full, &plugin).map_err(|e| a.err(format!("mesh '{full}': {e}")))?;
            if self
                .mesh_ids
                .insert(full.clone(), self.model.mesh.len())
                .is_some()
            {
                return Err(a.err(format!("repeated mesh name '{full}'")));
            }
            self.mesh_sources
                .push((mesh.vert.clone(), MeshSettings::default()));
            self.model.mesh.push(mesh);
            self.mesh_locs.push(a.loc());
            return Ok(());
        }
        let builtin = a.attr("builtin").filter(|b| *b != "none");
        let raw = if let Some(kind) = builtin {
            if file.is_some() {
                return Err(a.err("mesh: 'builtin' and 'file' cannot both be given"));
            }
            let params = a
                .numbers("params")?
                .ok_or_else(|| a.err(format!("builtin mesh '{name}' requires 'params'")))?;
            builtin_mesh(kind, &params)
                .map_err(|e| a.err(format!("builtin mesh '{name}' ({kind}): {e}")))?
        } else if let Some(f) = file {
            let (bytes, path) = src.read_asset(self.reader, a, f)?;
            decode_mesh(f, &bytes).map_err(|e| a.err(format!("{}: {e}", path.display())))?
        } else {
            let v = a
                .numbers("vertex")?
                .ok_or_else(|| a.err("mesh needs 'file' or 'vertex'"))?;
            if v.len() % 3 != 0 {
                return Err(a.err(format!(
                    "vertex has {} numbers, not a multiple of 3",
                    v.len()
                )));
            }
            let mut face = Vec::new();
            if let Some(text) = a.attr("face") {
                let mut idx = Vec::new();
                for t in text.split_ascii_whitespace() {
                    idx.push(t.parse::<u32>().map_err(|_| {
                        a.err(format!("face index '{t}' is not a non-negative integer"))
                    })?);
                }
                if idx.len() % 3 != 0 {
                    return Err(a.err(format!(
                        "face has {} indices, not a multiple of 3",
                        idx.len()
                    )));
                }
                face = idx.chunks_exact(3).map(|c| [c[0], c[1], c[2]]).collect();
            }
            RawMesh {
                vert: v
                    .chunks_exact(3)
                    .map(|c| DVec3::new(c[0], c[1], c[2]))
                    .collect(),
                face,
            }
        };
        let mut settings = MeshSettings::default();
        let mut scale = [1.0; 3];
        r.partial("scale", &mut scale)?;
        settings.scale = DVec3::from_array(scale);
        if let Some(p) = r.vec3("refpos")? {
            settings.refpos = p;
        }
        if let Some(q) = r.array::<4>("refquat")? {
            settings.refquat = quat_wxyz(q[0], q[1], q[2], q[3]);
        }
        if let Some(i) = r.keyword("inertia", &["legacy", "exact", "convex", "shell"])? {
            settings.inertia = [
                MeshInertia::Legacy,
                MeshInertia::Exact,
                MeshInertia::Convex,
                MeshInertia::Shell,
            ][i];
        }
        if let Some(n) = r.int("maxhullvert")? {
            if n != -1 && n < 4 {
                return Err(a.err("maxhullvert must be -1 or at least 4"));
            }
            settings.maxhullvert = usize::try_from(n).ok();
        }
        if let Some(kind) = builtin {
            settings.inertia = builtin_inertia(kind, !raw.face.is_empty(), settings.inertia);
        }
        let full = format!("{prefix}{name}");
        let source = raw.vert.clone();
        let mesh = compile_mesh(&full, raw, &settings).map_err(|e| a.err(e))?;
        if self
            .mesh_ids
            .insert(full.clone(), self.model.mesh.len())
            .is_some()
        {
            return Err(a.err(format!("repeated mesh name '{full}'")));
        }
        self.model.mesh.push(mesh);
        self.mesh_locs.push(a.loc());
        self.mesh_sources.push((source, settings));
        Ok(())
    }

    fn compile_hfield_asset(&mut self, src: &Source, a: &Elem, prefix: &str) -> Result<()> {
        let file = a.attr("file");
        let name = match (a.attr("name"), file) {
            (Some(n), _) => n.to_string(),
            (None, Some(f)) => Path::new(f)
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default(),
            (None, None) => return Err(a.err("hfield requires 'name' or 'file'")),
        };
        let size = a
            .array::<4>("size")?
            .ok_or_else(|| a.err("hfield requires 'size'"))?;
        let nrow = a.int("nrow")?.unwrap_or(0);
        let ncol = a.int("ncol")?.unwrap_or(0);
        if nrow < 0 || ncol < 0 {
            return Err(a.err("nrow and ncol must be non-negative"));
        }
        let (nrow, ncol) = (nrow as usize, ncol as usize);
        let (nrow, ncol, data) = if let Some(f) = file {
            if nrow != 0 || ncol != 0 {
                return Err(a.err("hfield: nrow and ncol must not be given together with 'file'"));
            }
            let (bytes, path) = src.read_asset(self.reader, a, f)?;
            let is_png = a
                .attr("content_type")
                .map(|c| c.contains("png"))
                .unwrap_or(false)
                || f.to_ascii_lowercase().ends_with(".png");
            let r = if is_png {
                hfield_file::decode_hfield_png(f, &bytes)
            } else {
                hfield_file::decode_hfield_bin(f, &bytes)
            };
            r.map_err(|e| a.err(format!("{}: {e}", path.display())))?
        } else if let Some(elev) = a.numbers_f32("elevation")? {
            if elev.len() != nrow.saturating_mul(ncol) {
                return Err(a.err(format!(
                    "elevation has {} values, nrow*ncol = {}",
                    elev.len(),
                    nrow * ncol
                )));
            }
            // the XML lists rows top (+y) to bottom; row 0 is at -y
            let mut data = Vec::with_capacity(elev.len());
            for r in (0..nrow).rev() {
                data.extend(elev[r * ncol..(r + 1) * ncol].iter().map(|&v| v as f32));
            }
            (nrow, ncol, data)
        } else {
            (nrow, ncol, vec![0.0; nrow.saturating_mul(ncol)])
        };
        let full = format!("{prefix}{name}");
        let h = hfield_file::build_hfield(&full, size, nrow, ncol, data).map_err(|e| a.err(e))?;
        if self
            .hfield_ids
            .insert(full.clone(), self.model.hfield.len())
            .is_some()
        {
            return Err(a.err(format!("repeated hfield name '{full}'")));
        }
        self.model.hfield.push(h);
        Ok(())
    }

    fn visit_pending<'s>(
        &mut self,
        pending: Vec<Pending<'s>>,
        subs: &'s HashMap<String, Source>,
        attached: &mut Vec<Attached<'s>>,
    ) -> Result<()> {
        for p in pending {
            self.visit_body(p, subs, attached)?;
        }
        Ok(())
    }

    fn visit_body<'s>(
        &mut self,
        p: Pending<'s>,
        subs: &'s HashMap<String, Source>,
        attached: &mut Vec<Attached<'s>>,
    ) -> Result<()> {
        let e = p.elem;
        let id = self.bodies.len();
        let local = read_frame(e, &p.src.settings.angles)?;
        let frame = p.frame.compose(local);
        let mocap = e.boolean("mocap")?.unwrap_or(false);
        let name = e
            .attr("name")
            .map(|n| format!("{}{n}{}", p.prefix, p.suffix))
            .unwrap_or_default();
        let parent = p.parent;
        self.bodies.push(BodyB {
            name,
            parent,
            frame,
            mocap,
            joints: Vec::new(),
            geoms: Vec::new(),
            inertial: None,
            inertia_diag: DVec3::ZERO,
            loc: e.loc(),
        });
        if mocap && parent != 0 {
            return Err(e.err("a mocap body must be a child of the world body"));
        }
        let class = e.attr("childclass").unwrap_or(&p.class).to_string();
        if !p.src.defaults.has(&class) {
            return Err(e.err(format!("unknown default class '{class}'")));
        }
        let mut pending = Vec::new();
        self.walk(
            p.src,
            e,
            id,
            Frame::IDENTITY,
            &class,
            &p.suffix,
            &p.prefix,
            subs,
            &mut pending,
            attached,
        )?;
        if mocap && !self.bodies[id].joints.is_empty() {
            return Err(e.err("a mocap body cannot have joints"));
        }
        self.visit_pending(pending, subs, attached)
    }

    #[allow(clippy::too_many_arguments)]
    fn walk<'s>(
        &mut self,
        src: &'s Source,
        container: &'s Elem,
        body: usize,
        frame: Frame,
        class: &str,
        suffix: &str,
        prefix: &str,
        subs: &'s HashMap<String, Source>,
        pending: &mut Vec<Pending<'s>>,
        attached: &mut Vec<Attached<'s>>,
    ) -> Result<()> {
        for c in &container.children {
            match c.name.as_str() {
                "geom" => {
                    let g = self.read_geom(src, c, frame, class_of(c, class), suffix, prefix)?;
                    self.bodies[body].geoms.push(g);
                }
                "joint" | "freejoint" => {
                    if body == 0 {
                        return Err(c.err("joints cannot be added to the world body"));
                    }
                    let j = self.read_joint(src, c, class_of(c, class), suffix, prefix)?;
                    // under fusestatic the check waits until static ancestors are fused
                    if j.t == JointType::Free
                        && self.bodies[body].parent != 0
                        && !src.settings.fusestatic
                    {
                        return Err(c.err("a free joint can only be used in a top-level body"));
                    }
                    self.bodies[body].joints.push(j);
                }
                "inertial" => {
                    if c.attr("pos").is_none() {
                        return Err(c.err("inertial requires 'pos' (MuJoCo 4.0.0's schema)"));
                    }
                    let f = read_frame(c, &src.settings.angles)?;
                    let mass = c
                        .number("mass")?
                        .ok_or_else(|| c.err("inertial requires 'mass'"))?;
                    let mut quat = f.quat;
                    let mut diag = c.vec3("diaginertia")?.unwrap_or(DVec3::ZERO);
                    if let Some(fi) = c.array::<6>("fullinertia")? {
                        // MuJoCo turns the tensor into the body frame, then diagonalizes it
                        let (moments, principal) =
                            cm::principal_inertia_in_frame(fi, cm::wxyz(quat));
                        diag = DVec3::from_array(moments);
                        quat = cm::from_wxyz(principal);
                    }
                    if src.settings.balanceinertia
                        && (diag.x + diag.y < diag.z
                            || diag.y + diag.z < diag.x
                            || diag.z + diag.x < diag.y)
                    {
                        // MuJoCo's balanceinertia: all three moments become their mean
                        diag = DVec3::splat((diag.x + diag.y + diag.z) / 3.0);
                    }
                    self.bodies[body].inertial = Some((f.pos, quat, mass));
                    self.bodies[body].inertia_diag = diag;
                }
                "body" => {
                    pending.push(Pending {
                        src,
                        parent: body,
                        elem: c,
                        frame,
                        class: class.to_string(),
                        suffix: suffix.to_string(),
                        prefix: prefix.to_string(),
                    });
                }
                "frame" => {
                    let f = frame.compose(read_frame(c, &src.settings.angles)?);
                    let cc = c.attr("childclass").unwrap_or(class);
                    if !src.defaults.has(cc) {
                        return Err(c.err(format!("unknown default class '{cc}'")));
                    }
                    self.walk(src, c, body, f, cc, suffix, prefix, subs, pending, attached)?;
                }
                "replicate" => {
                    let count = c
                        .int("count")?
                        .ok_or_else(|| c.err("replicate requires 'count'"))?;
                    if !(1..=100_000).contains(&count) {
                        return Err(c.err("replicate count must be between 1 and 100000"));
                    }
                    let count = count as usize;
                    let offset = c.vec3("offset")?.unwrap_or(DVec3::ZERO);
                    let euler = c.array::<3>("euler")?.unwrap_or_default();
                    let sep = c.attr("sep").unwrap_or("");
                    // copy i is rotated by euler(i * angles) and offset cumulatively
                    let mut pos = DVec3::ZERO;
                    for i in 0..count {
                        let k = i as f64;
                        let quat = euler_quat(
                            [k * euler[0], k * euler[1], k * euler[2]],
                            &src.settings.angles,
                        );
                        // MuJoCo puts the innermost copy's index first: `big100` is copy 1 of
                        // the inner replicate within copy 0 of the outer ones
                        let s = format!("{}{suffix}", replicate_suffix(sep, i, count));
                        let step = Frame { pos, quat };
                        self.walk(
                            src,
                            c,
                            body,
                            frame.compose(step),
                            class,
                            &s,
                            prefix,
                            subs,
                            pending,
                            attached,
                        )?;
                        let step = cm::mat_vec(&cm::quat_mat(cm::wxyz(quat)), offset.to_array());
                        pos += DVec3::from_array(step);
                    }
                }
                "attach" => self.attach(c, body, frame, suffix, subs, pending, attached)?,
                "flexcomp" | "composite" | "flex" | "skin" => {
                    return Err(c.err(format!("<{}> is not supported (deformable bodies)", c.name)));
                }
                _ => {}
            }
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn attach<'s>(
        &mut self,
        c: &'s Elem,
        body: usize,
        frame: Frame,
        suffix: &str,
        subs: &'s HashMap<String, Source>,
        pending: &mut Vec<Pending<'s>>,
        attached: &mut Vec<Attached<'s>>,
    ) -> Result<()> {
        let model = c
            .attr("model")
            .ok_or_else(|| c.err("attach requires 'model'"))?;
        let prefix = c.attr("prefix").unwrap_or("").to_string();
        let sub = subs
            .get(model)
            .ok_or_else(|| c.err(format!("unknown model '{model}'")))?;
        if !attached.iter().any(|a| a.prefix == prefix) {
            self.compile_assets(sub, &prefix)?;
        }
        attached.push(Attached {
            src: sub,
            prefix: prefix.clone(),
            suffix: suffix.to_string(),
        });
        let f = frame.compose(read_frame(c, &AngleSettings::default())?);
        match c.attr("body") {
            Some(bname) => {
                let target = sub
                    .sections("worldbody")
                    .flat_map(find_bodies)
                    .find(|b| b.attr("name") == Some(bname))
                    .ok_or_else(|| c.err(format!("model '{model}' has no body '{bname}'")))?;
                pending.push(Pending {
                    src: sub,
                    parent: body,
                    elem: target,
                    frame: f,
                    class: MAIN.into(),
                    suffix: suffix.to_string(),
                    prefix,
                });
            }
            None => {
                for wb in sub.sections("worldbody") {
                    self.walk(
                        sub, wb, body, f, MAIN, suffix, &prefix, subs, pending, attached,
                    )?;
                }
            }
        }
        Ok(())
    }

    fn read_joint(
        &self,
        src: &Source,
        c: &Elem,
        class: &str,
        suffix: &str,
        prefix: &str,
    ) -> Result<JointB> {
        let name = c
            .attr("name")
            .map(|n| format!("{prefix}{n}{suffix}"))
            .unwrap_or_default();
        if c.name == "freejoint" {
            let align = match c.attr("align") {
                None | Some("auto") => None,
                Some(_) => c.boolean("align")?,
            };
            return Ok(JointB {
                name,
                t: JointType::Free,
                pos: DVec3::ZERO,
                axis: DVec3::Z,
                reference: 0.0,
                align,
            });
        }
        let r = src.defaults.layers("joint", class, c)?;
        let t = match r.keyword("type", &["free", "ball", "slide", "hinge"])? {
            Some(0) => JointType::Free,
            Some(1) => JointType::Ball,
            Some(2) => JointType::Slide,
            _ => JointType::Hinge,
        };
        let pos = r.vec3("pos")?.unwrap_or(DVec3::ZERO);
        let given = r.vec3("axis")?.unwrap_or(DVec3::Z);
        let axis = if matches!(t, JointType::Free | JointType::Ball) {
            // MuJoCo keeps +z as the axis of free and ball joints, whatever was given
            DVec3::Z
        } else {
            // normalized the compiler's way: a near-unit axis is kept as given
            // (`near_unit_joint_axis_is_kept_as_given`), and one whose squared norm is below
            // mjEPS is refused, as MuJoCo refuses it ("axis too small")
            let mut a = given.to_array();
            if cm::normalize(&mut a) == 0.0 {
                return Err(c.err(format!(
                    "joint axis is too small (norm {:e}, MuJoCo needs at least 1e-7)",
                    given.length()
                )));
            }
            DVec3::from_array(a)
        };
        let mut reference = r.number("ref")?.unwrap_or(0.0);
        if t == JointType::Hinge {
            reference = src.settings.angles.to_rad(reference);
        }
        Ok(JointB {
            name,
            t,
            pos,
            axis,
            reference,
            align: None,
        })
    }

    fn read_geom(
        &self,
        src: &Source,
        c: &Elem,
        frame: Frame,
        class: &str,
        suffix: &str,
        prefix: &str,
    ) -> Result<GeomB> {
        let r = src.defaults.layers("geom", class, c)?;
        let tname = r.raw("type").unwrap_or("sphere").trim();
        let t = match GeomType::from_name(tname) {
            Some(t) => t,
            None => return Err(c.err(format!("unknown geom type '{tname}'"))),
        };
        // an sdf geom without a plugin is mesh-backed: its field is the mesh's octree
        let sdf = if t == GeomType::Sdf {
            plugin_child(c, &self.sdf_instances)?
        } else {
            None
        };
        let name = c
            .attr("name")
            .map(|n| format!("{prefix}{n}{suffix}"))
            .unwrap_or_default();
        let mut size = [0.0; 3];
        r.partial("size", &mut size)?;
        let mut size = DVec3::from_array(size);
        let mut local = read_frame(&r, &src.settings.angles)?;

        if let Some(ft) = r.array::<6>("fromto")? {
            if !matches!(
                t,
                GeomType::Capsule | GeomType::Cylinder | GeomType::Box | GeomType::Ellipsoid
            ) {
                return Err(c.err(format!("fromto is not allowed for {} geoms", t.name())));
            }
            if r.own("pos") && local.pos != DVec3::ZERO {
                return Err(c.err("fromto cannot be combined with a nonzero pos"));
            }
            let (p, q, s) =
                geom::apply_fromto(t, ft, size).ok_or_else(|| c.err("fromto points coincide"))?;
            local = Frame { pos: p, quat: q };
            size = s;
        }

        // mesh or hfield reference
        let mut dataid = None;
        let mut mesh_frame = None;
        if let Some(mname) = r
            .raw("mesh")
            .filter(|_| !matches!(t, GeomType::HField | GeomType::Plane))
        {
            let full = format!("{prefix}{mname}");
            let id = *self
                .mesh_ids
                .get(&full)
                .ok_or_else(|| c.err(format!("unknown mesh '{mname}'")))?;
            let mesh = &self.model.mesh[id];
            let mut mf = Frame {
                pos: mesh.pos,
                quat: mesh.quat,
            };
            if matches!(t, GeomType::Mesh | GeomType::Sdf) {
                dataid = Some(id);
                size = geom::mesh_size(mesh);
            } else {
                let fitscale = r.number("fitscale")?.unwrap_or(1.0);
                let (s, centre) = geom::fit_to_mesh(t, mesh, src.settings.fitaabb, fitscale);
                size = s;
                let c = cm::rot_vec_quat(centre.to_array(), cm::wxyz(mesh.quat));
                mf.pos += DVec3::from_array(c);
            }
            mesh_frame = Some(mf);
        } else if matches!(t, GeomType::Mesh | GeomType::Sdf) {
            return Err(c.err(format!("{} geom requires the attribute 'mesh'", t.name())));
        }
        if t == GeomType::HField {
            let hname = r
                .raw("hfield")
                .ok_or_else(|| c.err("hfield geom requires the attribute 'hfield'"))?;
            let full = format!("{prefix}{hname}");
            let id = *self
                .hfield_ids
                .get(&full)
                .ok_or_else(|| c.err(format!("unknown hfield '{hname}'")))?;
            let s = self.model.hfield[id].size;
            size = DVec3::new(s[0], s[1], 0.25 * s[2] + 0.5 * s[3]);
            dataid = Some(id);
        }
        // MuJoCo 4.0.0 also refuses a plane without a positive grid spacing (its third size)
        if t == GeomType::Plane && size[2] <= 0.0 {
            return Err(c.err(format!(
                "plane size(3) must be positive, got {} (MuJoCo 4.0.0 refuses it)",
                size[2]
            )));
        }
        for i in 0..geom::required_sizes(t) {
            if size[i] <= 0.0 {
                return Err(c.err(format!(
                    "size[{i}] must be positive for a {} geom, got {}",
                    t.name(),
                    size[i]
                )));
            }
        }

        let placed = match mesh_frame {
            Some(mf) => frame.compose(local.compose(mf)),
            None => frame.compose(local),
        };

        let mut friction = [1.0, 0.005, 0.0001];
        r.partial("friction", &mut friction)?;
        let mut solref = [0.02, 1.0];
        r.partial("solref", &mut solref)?;
        let mut solimp = [0.9, 0.95, 0.001, 0.5, 2.0];
        r.partial("solimp", &mut solimp)?;
        let int = |key: &str, default: i64| -> Result<i64> { Ok(r.int(key)?.unwrap_or(default)) };
        let condim = int("condim", 3)?;
        if ![1, 3, 4, 6].contains(&condim) {
            return Err(c.err(format!("condim must be 1, 3, 4 or 6, got {condim}")));
        }
        let mesh = dataid
            .filter(|_| matches!(t, GeomType::Mesh | GeomType::Sdf))
            .map(|i| &self.model.mesh[i]);
        // a height field weighs as its box (see `geom::hfield_mass_box`)
        let (mass_t, mass_size) = match dataid.filter(|_| t == GeomType::HField) {
            Some(i) => (GeomType::Box, geom::hfield_mass_box(&self.model.hfield[i])),
            None => (t, size),
        };
        let mass = match r.number("mass")? {
            Some(m) => m,
            None => r.number("density")?.unwrap_or(1000.0) * geom::volume(mass_t, mass_size, mesh),
        };
        let inertia = geom::inertia(mass_t, mass_size, mesh, mass);
        Ok(GeomB {
            name,
            t,
            dataid,
            sdf,
            size,
            pos: placed.pos,
            quat: placed.quat,
            contype: int("contype", 1)? as u32,
            conaffinity: int("conaffinity", 1)? as u32,
            condim: condim as u32,
            priority: int("priority", 0)? as i32,
            friction: DVec3::from_array(friction),
            solmix: r.number("solmix")?.unwrap_or(1.0),
            solref,
            solimp,
            margin: r.number("margin")?.unwrap_or(0.0),
            gap: r.number("gap")?.unwrap_or(0.0),
            adhesion: r.number("adhesion")?.unwrap_or(0.0),
            mass,
            inertia,
            group: int("group", 0)?,
        })
    }

    /// Merges joint-less, non-mocap bodies into their parents (`compiler/@fusestatic`).
    fn fuse_static(&mut self, main: &Source) {
        let referenced = referenced_names(&main.root);
        let n = self.bodies.len();
        // new index of each body, and the frame of each fused body in its surviving ancestor
        let keep: Vec<bool> = self
            .bodies
            .iter()
            .enumerate()
            .map(|(b, body)| {
                b == 0 || !body.joints.is_empty() || body.mocap || referenced.contains(&body.name)
            })
            .collect();
        // process in order: a fused body's geoms move to its parent (already relocated)
        for b in (1..n).filter(|&b| !keep[b]) {
            let parent = self.bodies[b].parent;
            let f = self.bodies[b].frame;
            if parent != 0
                && (self.bodies[b].inertial.is_some() || self.bodies[parent].inertial.is_some())
            {
                // MuJoCo adds the fused body's mass and inertia (explicit, or from its own
                // geoms) to its parent's (likewise), `mjCBody::AccumulateInertia`, only when
                // the fused body's mass is at least `mjMINVAL` (a massless <inertial> leaves
                // the parent's frame as it was, not re-diagonalized)
                let parent_inertial = compiled_inertial(&self.bodies[parent]);
                let child = compiled_inertial(&self.bodies[b]);
                let merged = (child.0 >= collide::math::MINVAL)
                    .then(|| {
                        accumulate_inertia(parent_inertial, cm::Pose::new(f.pos, f.quat), child)
                    })
                    .flatten();
                if let Some((com, quat, mass, moments)) = merged {
                    self.bodies[parent].inertial = Some((com, cm::from_wxyz(quat), mass));
                    self.bodies[parent].inertia_diag = DVec3::from_array(moments);
                }
            }
            let geoms = std::mem::take(&mut self.bodies[b].geoms);
            for mut g in geoms {
                let gf = f.compose(Frame {
                    pos: g.pos,
                    quat: g.quat,
                });
                g.pos = gf.pos;
                g.quat = gf.quat;
                self.bodies[parent].geoms.push(g);
            }
            // children re-parented with composed frames
            for c in b + 1..n {
                if self.bodies[c].parent == b {
                    self.bodies[c].parent = parent;
                    self.bodies[c].frame = f.compose(self.bodies[c].frame);
                }
            }
        }
        let mut newid = vec![0usize; n];
        let mut out = Vec::new();
        for (b, body) in std::mem::take(&mut self.bodies).into_iter().enumerate() {
            if b == 0 || keep[b] {
                newid[b] = out.len();
                out.push(body);
            }
        }
        for body in &mut out {
            body.parent = newid[body.parent];
        }
        self.bodies = out;
    }

    /// Flattens the bodies into the model arrays and computes derived data.
    fn finish(
        &mut self,
        main: &Source,
        contacts: &[(&Source, String, String, bool)],
    ) -> Result<()> {
        let nb = self.bodies.len();
        let mut geom_names: HashMap<String, usize> = HashMap::new();
        let mut body_names: HashMap<String, usize> = HashMap::new();
        let alignfree = main.settings.alignfree;
        let mut qpos0 = Vec::new();
        let mut nmocap = 0;
        let bodies = std::mem::take(&mut self.bodies);
        let m = &mut self.model;
        for (b, body) in bodies.into_iter().enumerate() {
            if !body.name.is_empty() && body_names.insert(body.name.clone(), b).is_some() {
                return Err(MjcfError::new(
                    body.loc.clone(),
                    format!("repeated body name '{}'", body.name),
                ));
            }
            let mut frame = body.frame;

            // inertial frame: explicit, or from geoms
            let from_geoms = match main.settings.inertiafromgeom {
                InertiaFromGeom::True => true,
                InertiaFromGeom::False => false,
                InertiaFromGeom::Auto => body.inertial.is_none(),
            };
            let (mut ipos, mut iquat, mass) = if b == 0 {
                (DVec3::ZERO, DQuat::IDENTITY, 0.0)
            } else if from_geoms {
                // only geoms of `compiler/@inertiagrouprange` count
                let [lo, hi] = main.settings.inertiagrouprange;
                let counted: Vec<GeomB> = body
                    .geoms
                    .iter()
                    .filter(|g| (lo..=hi).contains(&g.group))
                    .cloned()
                    .collect();
                // MuJoCo 4.0.0 leaves the inertial frame of a body without such geoms, or whose
                // geoms are all massless, at the body's own pos/quat (in its parent's frame),
                // as measured
                inertia_from_geoms(&counted).unwrap_or((frame.pos, frame.quat, 0.0))
            } else {
                body.inertial.unwrap_or((DVec3::ZERO, DQuat::IDENTITY, 0.0))
            };

            let mut geoms = body.geoms;
            let is_free = body.joints.len() == 1 && body.joints[0].t == JointType::Free;
            if is_free && body.joints[0].align.unwrap_or(alignfree) {
                // move the body frame onto the inertial frame, and the geoms with it
                let inertial = cm::Pose::new(ipos, iquat);
                let moved = cm::Pose::new(frame.pos, frame.quat).accum(inertial);
                frame = Frame {
                    pos: moved.pos_vec(),
                    quat: moved.quat_glam(),
                };
                let inverse = inertial.invert();
                for g in &mut geoms {
                    let p = inverse.accum(cm::Pose::new(g.pos, g.quat));
                    g.pos = p.pos_vec();
                    g.quat = p.quat_glam();
                }
                ipos = DVec3::ZERO;
                iquat = DQuat::IDENTITY;
            }

            m.body_name.push(body.name);
            m.body_parentid.push(body.parent);
            m.body_pos.push(frame.pos);
            m.body_quat.push(frame.quat);
            m.body_ipos.push(ipos);
            m.body_iquat.push(iquat);
            m.body_mass.push(mass);
            m.body_sameframe
                .push(same_frame(ipos, iquat, DVec3::ZERO, DQuat::IDENTITY, None));
            m.body_mocapid.push(if body.mocap {
                nmocap += 1;
                Some(nmocap - 1)
            } else {
                None
            });
            m.body_jntadr.push(m.jnt_type.len());
            m.body_jntnum.push(body.joints.len());
            m.body_dofnum
                .push(body.joints.iter().map(|j| j.t.nv()).sum());
            for j in body.joints {
                m.jnt_name.push(j.name);
                m.jnt_type.push(j.t);
                m.jnt_bodyid.push(b);
                m.jnt_qposadr.push(qpos0.len());
                m.jnt_pos.push(j.pos);
                m.jnt_axis.push(j.axis);
                match j.t {
                    JointType::Free => {
                        qpos0.extend(frame.pos.to_array());
                        qpos0.extend(collide::math::quat_to_wxyz(frame.quat));
                    }
                    JointType::Ball => qpos0.extend([1.0, 0.0, 0.0, 0.0]),
                    JointType::Slide | JointType::Hinge => qpos0.push(j.reference),
                }
            }
            m.body_geomadr.push(m.geom_type.len());
            m.body_geomnum.push(geoms.len());
            let (mut ct, mut ca, mut margin) = (0u32, 0u32, 0.0f64);
            for g in geoms {
                let gid = m.geom_type.len();
                if !g.name.is_empty() && geom_names.insert(g.name.clone(), gid).is_some() {
                    return Err(MjcfError::new(
                        body.loc.clone(),
                        format!("repeated geom name '{}'", g.name),
                    ));
                }
                ct |= g.contype;
                ca |= g.conaffinity;
                margin = margin.max(g.margin + g.gap);
                let mesh = g
                    .dataid
                    .filter(|_| matches!(g.t, GeomType::Mesh | GeomType::Sdf))
                    .map(|i| &m.mesh[i]);
                let hf = g
                    .dataid
                    .filter(|_| g.t == GeomType::HField)
                    .map(|i| &m.hfield[i]);
                m.geom_sameframe.push(same_frame(
                    g.pos,
                    g.quat,
                    DVec3::ZERO,
                    DQuat::IDENTITY,
                    Some((ipos, iquat)),
                ));
                m.geom_rbound.push(geom::rbound(g.t, g.size, mesh, hf));
                m.geom_aabb.push(geom::aabb(g.t, g.size, mesh, hf));
                m.geom_name.push(g.name);
                m.geom_type.push(g.t);
                m.geom_bodyid.push(b);
                m.geom_dataid.push(g.dataid);
                m.geom_sdf.push(g.sdf);
                m.geom_size.push(g.size);
                m.geom_pos.push(g.pos);
                m.geom_quat.push(g.quat);
                m.geom_contype.push(g.contype);
                m.geom_conaffinity.push(g.conaffinity);
                m.geom_condim.push(g.condim);
                m.geom_priority.push(g.priority);
                m.geom_friction.push(g.friction);
                m.geom_solmix.push(g.solmix);
                m.geom_solref.push(g.solref);
                m.geom_solimp.push(g.solimp);
                m.geom_margin.push(g.margin);
                m.geom_gap.push(g.gap);
                m.geom_adhesion.push(g.adhesion);
            }
            m.body_contype.push(ct);
            m.body_conaffinity.push(ca);
            m.body_margin.push(margin);
        }
        m.qpos0 = qpos0;

        // planes only in static or mocap weld groups
        // weld ids, root ids
        m.body_weldid = vec![0; nb];
        m.body_rootid = vec![0; nb];
        for b in 1..nb {
            let p = m.body_parentid[b];
            m.body_weldid[b] = if m.body_jntnum[b] > 0 || m.body_mocapid[b].is_some() {
                b
            } else {
                m.body_weldid[p]
            };
            m.body_rootid[b] = if p == 0 { b } else { m.body_rootid[p] };
        }
        for g in 0..m.ngeom() {
            let w = m.body_weldid[m.geom_bodyid[g]];
            if m.geom_type[g] == GeomType::Plane && w != 0 && m.body_mocapid[w].is_none() {
                let b = m.geom_bodyid[g];
                return Err(MjcfError::new(
                    Location {
                        file: main.root.file.to_string(),
                        line: 0,
                        element: format!("geom {g} (body '{}')", m.body_name[b]),
                    },
                    "plane geoms can only be attached to static or mocap bodies",
                ));
            }
        }

        self.read_contacts(contacts, &geom_names, &body_names)?;
        self.build_collision_hulls()?;
        self.build_face_trees()?;
        self.build_sdf_octrees()?;
        self.read_keyframes(main)?;
        Ok(())
    }

    /// Per mesh id: whether a geom of one of `types` uses it and collides (contype or
    /// conaffinity set, or named by an explicit pair).
    fn collidable_meshes(&self, types: &[GeomType]) -> Vec<bool> {
        let m = &self.model;
        let mut used = vec![false; m.mesh.len()];
        let mut in_pair = vec![false; m.ngeom()];
        for &g in m.pair_geom1.iter().chain(&m.pair_geom2) {
            in_pair[g] = true;
        }
        for (g, &paired) in in_pair.iter().enumerate() {
            let collidable = m.geom_contype[g] != 0 || m.geom_conaffinity[g] != 0 || paired;
            if let (true, Some(id)) = (
                collidable && types.contains(&m.geom_type[g]),
                m.geom_dataid[g],
            ) {
                used[id] = true;
            }
        }
        used
    }

    /// Mesh `id`'s vertices in double precision, before MuJoCo rounds them to `f32` (its face
    /// tree and octree are built on these); the stored vertices for a mesh without file
    /// vertices (a plugin mesh).
    fn double_vertices(&self, id: usize) -> Vec<DVec3> {
        let (source, settings) = &self.mesh_sources[id];
        let mesh = &self.model.mesh[id];
        if source.len() == mesh.vert.len() {
            crate::mesh_hull::double_vertices(mesh, source, settings)
        } else {
            mesh.vert.clone()
        }
    }

    /// MuJoCo builds the convex hull of every mesh a collidable geom or a pair uses (the
    /// collision geometry of meshes), and rejects meshes whose vertices are colocated,
    /// collinear or coplanar.
    fn build_collision_hulls(&mut self) -> Result<()> {
        let used = self.collidable_meshes(&[GeomType::Mesh, GeomType::Sdf]);
        for id in (0..used.len()).filter(|&id| used[id]) {
            let (source, settings) = &self.mesh_sources[id];
            let mesh = &self.model.mesh[id];
            let hull = build_hull_from_source(mesh, source, settings)
                .map_err(|e| MjcfError::new(self.mesh_locs[id].clone(), e))?;
            self.model.mesh[id].hull = Some(hull);
        }
        Ok(())
    }

    /// MuJoCo's face tree of every mesh a collidable mesh geom uses, when the model has an sdf
    /// geom (`mjc_MeshSDF` walks it). It is built from the double-precision vertices, as
    /// MuJoCo's compiler does before rounding them to `f32`.
    fn build_face_trees(&mut self) -> Result<()> {
        if !self.model.geom_type.contains(&GeomType::Sdf) {
            return Ok(());
        }
        let used = self.collidable_meshes(&[GeomType::Mesh]);
        for id in (0..used.len()).filter(|&id| used[id]) {
            let vert = self.double_vertices(id);
            let mesh = &self.model.mesh[id];
            let tree = FaceBvh::build(&vert, &mesh.face).map_err(|e| {
                MjcfError::new(
                    self.mesh_locs[id].clone(),
                    format!("mesh '{}': {e}", mesh.name),
                )
            })?;
            self.model.mesh[id].face_bvh = Some(tree);
        }
        Ok(())
    }

    /// MuJoCo builds the octree distance field of every mesh a mesh-backed sdf geom uses (an
    /// sdf geom without a plugin); errors name the mesh and the first such geom.
    fn build_sdf_octrees(&mut self) -> Result<()> {
        let m = &self.model;
        let mut user: Vec<Option<usize>> = vec![None; m.mesh.len()];
        for g in 0..m.ngeom() {
            let plugin = m.geom_sdf.get(g).copied().flatten();
            if let (GeomType::Sdf, None, Some(id)) = (m.geom_type[g], plugin, m.geom_dataid[g]) {
                user[id].get_or_insert(g);
            }
        }
        for (id, g) in user.into_iter().enumerate() {
            let Some(g) = g else { continue };
            let vert = self.double_vertices(id);
            let mesh = &self.model.mesh[id];
            let octree =
                crate::sdf_octree::build_octree(&vert, &mesh.face, mesh.aamm).map_err(|e| {
                    let geom = match self.model.geom_name[g].as_str() {
                        "" => format!("geom {g}"),
                        name => format!("geom '{name}'"),
                    };
                    MjcfError::new(
                        self.mesh_locs[id].clone(),
                        format!("mesh '{}' of sdf {geom}: {e}", mesh.name),
                    )
                })?;
            self.model.mesh[id].octree = Some(octree);
        }
        Ok(())
    }

    /// Reads `<contact>` sections: `(source, prefix, suffix, lenient)`; a lenient (attached)
    /// section skips entries naming elements that were not attached.
    fn read_contacts(
        &mut self,
        sections: &[(&Source, String, String, bool)],
        geoms: &HashMap<String, usize>,
        bodies: &HashMap<String, usize>,
    ) -> Result<()> {
        let m = &mut self.model;
        let mut pairs: Vec<(u32, usize)> = Vec::new();
        let mut excludes = Vec::new();
        for (src, prefix, suffix, lenient) in sections {
            for contact in src.sections("contact") {
                for c in &contact.children {
                    let lookup = |map: &HashMap<String, usize>,
                                  key: &str,
                                  what: &str|
                     -> Result<Option<usize>> {
                        let n = c
                            .attr(key)
                            .ok_or_else(|| c.err(format!("{} requires '{key}'", c.name)))?;
                        match map.get(&format!("{prefix}{n}{suffix}")) {
                            Some(&id) => Ok(Some(id)),
                            None if *lenient => Ok(None),
                            None => Err(c.err(format!("unknown {what} '{n}'"))),
                        }
                    };
                    match c.name.as_str() {
                        "pair" => {
                            let r: Resolved = src.defaults.layers("pair", class_of(c, MAIN), c)?;
                            let (Some(mut g1), Some(mut g2)) = (
                                lookup(geoms, "geom1", "geom")?,
                                lookup(geoms, "geom2", "geom")?,
                            ) else {
                                continue;
                            };
                            if m.geom_bodyid[g1] > m.geom_bodyid[g2] {
                                std::mem::swap(&mut g1, &mut g2);
                            }
                            let sig = ((m.geom_bodyid[g1] as u32) << 16) + m.geom_bodyid[g2] as u32;
                            let condim = r.int("condim")?.unwrap_or(3);
                            if ![1, 3, 4, 6].contains(&condim) {
                                return Err(
                                    c.err(format!("condim must be 1, 3, 4 or 6, got {condim}"))
                                );
                            }
                            let mut friction = [1.0, 1.0, 0.005, 0.0001, 0.0001];
                            r.partial("friction", &mut friction)?;
                            let mut solref = [0.02, 1.0];
                            r.partial("solref", &mut solref)?;
                            let mut solreffriction = [0.0, 0.0];
                            r.partial("solreffriction", &mut solreffriction)?;
                            let mut solimp = [0.9, 0.95, 0.001, 0.5, 2.0];
                            r.partial("solimp", &mut solimp)?;
                            pairs.push((sig, m.pair_geom1.len()));
                            m.pair_geom1.push(g1);
                            m.pair_geom2.push(g2);
                            m.pair_signature.push(sig);
                            m.pair_dim.push(condim as u32);
                            m.pair_friction.push(friction);
                            m.pair_solref.push(solref);
                            m.pair_solreffriction.push(solreffriction);
                            m.pair_solimp.push(solimp);
                            m.pair_margin.push(r.number("margin")?.unwrap_or(0.0));
                            m.pair_gap.push(r.number("gap")?.unwrap_or(0.0));
                            m.pair_adhesion.push(r.number("adhesion")?.unwrap_or(0.0));
                        }
                        "exclude" => {
                            let (Some(b1), Some(b2)) = (
                                lookup(bodies, "body1", "body")?,
                                lookup(bodies, "body2", "body")?,
                            ) else {
                                continue;
                            };
                            let (lo, hi) = (b1.min(b2), b1.max(b2));
                            excludes.push(((lo as u32) << 16) + hi as u32);
                        }
                        _ => {}
                    }
                }
            }
        }
        // stable sort of pairs by signature
        pairs.sort_by_key(|&(sig, _)| sig);
        let order: Vec<usize> = pairs.iter().map(|&(_, i)| i).collect();
        fn permute<T: Clone>(v: &mut Vec<T>, order: &[usize]) {
            *v = order.iter().map(|&i| v[i].clone()).collect();
        }
        permute(&mut m.pair_geom1, &order);
        permute(&mut m.pair_geom2, &order);
        permute(&mut m.pair_signature, &order);
        permute(&mut m.pair_dim, &order);
        permute(&mut m.pair_friction, &order);
        permute(&mut m.pair_solref, &order);
        permute(&mut m.pair_solreffriction, &order);
        permute(&mut m.pair_solimp, &order);
        permute(&mut m.pair_margin, &order);
        permute(&mut m.pair_gap, &order);
        permute(&mut m.pair_adhesion, &order);
        excludes.sort();
        m.exclude_signature = excludes;
        Ok(())
    }

    fn read_keyframes(&mut self, src: &Source) -> Result<()> {
        let m = &mut self.model;
        let (mpos0, mquat0) = m.mocap_defaults();
        for kf in src.sections("keyframe") {
            for k in kf.children_named("key") {
                // MuJoCo fills a short qpos from qpos0 and normalizes joint quaternions
                let mut qpos = m.qpos0.clone();
                if let Some(q) = k.numbers("qpos")? {
                    if q.len() > m.nq() {
                        return Err(k.err(format!(
                            "qpos has {} values, the model has nq = {}",
                            q.len(),
                            m.nq()
                        )));
                    }
                    qpos[..q.len()].copy_from_slice(&q);
                }
                for j in 0..m.njnt() {
                    let a = m.jnt_qposadr[j]
                        + if m.jnt_type[j] == JointType::Free {
                            3
                        } else {
                            0
                        };
                    if matches!(m.jnt_type[j], JointType::Free | JointType::Ball) {
                        let q = normalize_quat(quat_wxyz(
                            qpos[a],
                            qpos[a + 1],
                            qpos[a + 2],
                            qpos[a + 3],
                        ));
                        qpos[a..a + 4].copy_from_slice(&collide::math::quat_to_wxyz(q));
                    }
                }
                let mpos = match k.numbers("mpos")? {
                    Some(v) if v.len() == 3 * mpos0.len() => v
                        .chunks_exact(3)
                        .map(|c| DVec3::new(c[0], c[1], c[2]))
                        .collect(),
                    Some(v) => {
                        return Err(k.err(format!(
                            "mpos has {} values, expected {}",
                            v.len(),
                            3 * mpos0.len()
                        )))
                    }
                    None => mpos0.clone(),
                };
                let mquat = match k.numbers("mquat")? {
                    Some(v) if v.len() == 4 * mquat0.len() => v
                        .chunks_exact(4)
                        .map(|c| normalize_quat(quat_wxyz(c[0], c[1], c[2], c[3])))
                        .collect(),
                    Some(v) => {
                        return Err(k.err(format!(
                            "mquat has {} values, expected {}",
                            v.len(),
                            4 * mquat0.len()
                        )))
                    }
                    None => mquat0.clone(),
                };
                m.key_name.push(k.attr("name").unwrap_or("").to_string());
                m.key_qpos.push(qpos);
                m.key_mpos.push(mpos);
                m.key_mquat.push(mquat);
            }
        }
        Ok(())
    }
}

/// MuJoCo's `setSameframe` (tolerance 1e-6): how a frame (`pos`, `quat`) relates to the body
/// frame (`bpos`, `bquat`) and, for geoms, to the inertial frame, tested in MuJoCo's order:
/// the body frame, the body's rotation, the inertial frame, the inertial rotation; a
/// quaternion matches its negation. (A geom
/// with the body's rotation whose centre is within 1e-6 of the inertial centre is `BodyRot`,
/// placed exactly, not `Inertia`, placed at the inertial centre.)
fn same_frame(
    pos: DVec3,
    quat: DQuat,
    bpos: DVec3,
    bquat: DQuat,
    inertial: Option<(DVec3, DQuat)>,
) -> SameFrame {
    const TOL: f64 = 1e-6;
    let close_p = |a: DVec3, b: DVec3| (a - b).abs().max_element() < TOL;
    // `q` and `-q` are the same rotation: either sign matches, as MuJoCo's `IsSameQuat`
    let close_q = |a: DQuat, b: DQuat| {
        let (a, b) = (DVec4::from(a), DVec4::from(b));
        (a - b).abs().max_element() < TOL || (a + b).abs().max_element() < TOL
    };
    let inertia_same = inertial.is_some_and(|(ip, iq)| close_p(pos, ip) && close_q(quat, iq));
    let inertia_rot = inertial.is_some_and(|(_, iq)| close_q(quat, iq));
    if close_p(pos, bpos) && close_q(quat, bquat) {
        SameFrame::Body
    } else if close_q(quat, bquat) {
        SameFrame::BodyRot
    } else if inertia_same {
        SameFrame::Inertia
    } else if inertia_rot {
        SameFrame::InertiaRot
    } else {
        SameFrame::None
    }
}

fn find_bodies(e: &Elem) -> Vec<&Elem> {
    let mut out = Vec::new();
    for c in &e.children {
        if c.name == "body" {
            out.push(c);
        }
        if matches!(c.name.as_str(), "body" | "frame" | "replicate") {
            out.extend(find_bodies(c));
        }
    }
    out
}

/// Body names referenced outside `<worldbody>` (such bodies are not fused).
fn referenced_names(root: &Elem) -> std::collections::HashSet<String> {
    const BODY_KEYS: [&str; 6] = ["body", "body1", "body2", "objname", "refname", "target"];
    fn collect(e: &Elem, out: &mut std::collections::HashSet<String>) {
        for (k, v) in &e.attrs {
            if BODY_KEYS.contains(&k.as_str()) {
                out.insert(v.clone());
            }
        }
        for c in &e.children {
            collect(c, out);
        }
    }
    let mut out = std::collections::HashSet::new();
    for c in root.children.iter().filter(|c| c.name != "worldbody") {
        collect(c, &mut out);
    }
    out
}

/// A body's inertial frame as MuJoCo's first compilation pass leaves it before fusing static
/// bodies: (mass, pos, quat, principal moments) of the explicit `<inertial>`, else of its geoms
/// ([`inertia_from_geoms_full`] over all its geoms, `inertiagrouprange` not applied; zero mass
/// at the origin when they have no mass).
fn compiled_inertial(body: &BodyB) -> (f64, [f64; 3], [f64; 4], [f64; 3]) {
    if let Some((pos, quat, mass)) = body.inertial {
        return (
            mass,
            pos.to_array(),
            cm::wxyz(quat),
            body.inertia_diag.to_array(),
        );
    }
    match inertia_from_geoms_full(&body.geoms) {
        Some((pos, quat, mass, moments)) => (mass, pos.to_array(), cm::wxyz(quat), moments),
        None => (0.0, [0.0; 3], [1.0, 0.0, 0.0, 0.0], [0.0; 3]),
    }
}

/// The inertial frame of a body `a` with a fused child's `b` added, as MuJoCo's
/// `mjCBody::AccumulateInertia` computes it. `b`'s inertial frame is first carried into the
/// parent (`mjuu_frameaccum` of the child's pos/quat and its ipos/iquat); the centre of mass is
/// `(m_b p_b + (m_a p_a + 0)) / (m_a + m_b)`; each tensor is `mjuu_globalinertia` of the
/// principal moments in the (carried) inertial frame plus its parallel-axis term about the new
/// centre, and the sum is `(a + 0) + b`, whose eigen-decomposition (`mjuu_eig3`, tolerance
/// 4e-15) gives the frame and moments. `None` when the total mass is below `mjMINVAL` (MuJoCo
/// then zeroes the inertial; the parent's is kept here).
fn accumulate_inertia(
    a: (f64, [f64; 3], [f64; 4], [f64; 3]),
    child_frame: cm::Pose,
    b: (f64, [f64; 3], [f64; 4], [f64; 3]),
) -> Option<(DVec3, [f64; 4], f64, [f64; 3])> {
    let (ma, pa, qa, ia) = a;
    let carried = child_frame.accum(cm::Pose {
        pos: b.1,
        quat: b.2,
    });
    let (mb, pb, qb, ib) = (b.0, carried.pos, carried.quat, b.3);
    let mass = ma + mb;
    if mass < collide::math::MINVAL {
        return None;
    }
    let com: [f64; 3] = std::array::from_fn(|k| (mb * pb[k] + (ma * pa[k] + 0.0)) / mass);
    let da: [f64; 3] = std::array::from_fn(|k| pa[k] - com[k]);
    let db: [f64; 3] = std::array::from_fn(|k| pb[k] - com[k]);
    let ga = cm::global_inertia(ia, qa);
    let gb = cm::global_inertia(ib, qb);
    let oa = cm::offcenter(ma, da);
    let ob = cm::offcenter(mb, db);
    let total: [f64; 6] = std::array::from_fn(|j| (ga[j] + oa[j] + 0.0) + (gb[j] + ob[j]));
    let (moments, quat) = cm::principal_inertia(total);
    Some((DVec3::from_array(com), quat, mass, moments))
}

/// Inertial frame of a body from its geoms: (pos, quat, mass), as MuJoCo's
/// `mjCBody::InertiaFromGeom` computes it (same operation order: the frame feeds free-joint
/// alignment and so the geom poses). `None` when the geoms have no mass (below `mjMINVAL`).
fn inertia_from_geoms(geoms: &[GeomB]) -> Option<(DVec3, DQuat, f64)> {
    inertia_from_geoms_full(geoms).map(|(pos, quat, mass, _)| (pos, quat, mass))
}

/// [`inertia_from_geoms`] with the principal moments.
fn inertia_from_geoms_full(geoms: &[GeomB]) -> Option<(DVec3, DQuat, f64, [f64; 3])> {
    let mass: f64 = geoms.iter().map(|g| g.mass).sum();
    if mass < collide::math::MINVAL {
        return None;
    }
    let mut massive = geoms.iter().filter(|g| g.mass >= collide::math::MINVAL);
    if let (Some(g), None) = (massive.next(), massive.next()) {
        // MuJoCo keeps a lone massive geom's own frame (no re-sorting of the principal axes)
        return Some((g.pos, g.quat, mass, g.inertia.to_array()));
    }
    let mut com = [0.0; 3];
    for g in geoms {
        for (k, c) in com.iter_mut().enumerate() {
            *c += g.mass * g.pos[k];
        }
    }
    let ipos = com.map(|c| c / mass);
    let mut total = [0.0; 6];
    for g in geoms {
        let rotated = cm::global_inertia(g.inertia.to_array(), cm::wxyz(g.quat));
        let d = [g.pos.x - ipos[0], g.pos.y - ipos[1], g.pos.z - ipos[2]];
        let shifted = cm::offcenter(g.mass, d);
        for j in 0..6 {
            total[j] = total[j] + rotated[j] + shifted[j];
        }
    }
    let (moments, q) = cm::principal_inertia(total);
    Some((DVec3::from_array(ipos), cm::from_wxyz(q), mass, moments))
}
