//! URDF loader: translates a URDF robot into the MJCF element tree MuJoCo 4.0.0 builds for it,
//! then compiles that tree with the MJCF compiler, so a URDF gives the same [`collide::Model`]
//! as `mujoco.MjModel.from_xml_path("robot.urdf")`.
//!
//! MuJoCo's rules (each checked against `mj_saveLastXML` of MuJoCo 4.0.0):
//! - every `<link>` is a body named after it; a link named `world` is the world body; links
//!   without a parent joint hang from the world, in document order; a link's child bodies come
//!   in the document order of their joints;
//! - the joint's `<origin>` (`xyz`, `rpy` = fixed-axis X, then Y, then Z) places the child
//!   body in its parent; `revolute` and `continuous` are hinges, `prismatic` a slide,
//!   `floating` a free joint, `spherical` a ball, `planar` two slides `NAME_TX`, `NAME_TY` and
//!   a hinge `NAME_RZ` about the normal `axis` (the slides along the x and y axes of the
//!   minimal rotation taking +z to the normal); `fixed` adds no joint; `axis` defaults to
//!   `1 0 0` and is normalized;
//! - `<collision>` elements become geoms (`box` half sizes, `cylinder` and `capsule` radius and
//!   half length, `sphere`, `mesh` with `scale`), contype = conaffinity = 1; `<visual>` ones are
//!   dropped unless `discardvisual="false"`, then kept in document order with contype =
//!   conaffinity = 0, group 1, density 0;
//! - meshes become assets named after the file stem (`a`, `a1`, … on clashes), one per distinct
//!   (file, scale), created in link document order;
//! - `<inertial>` becomes an MJCF `inertial` with `fullinertia` and the origin's `rpy` as its
//!   `quat` (a pair MJCF's schema refuses): the tensor is given in that rotated frame, and the
//!   compiler turns it into the link frame before diagonalizing it, as MuJoCo does; links
//!   without one get their inertia from their geoms;
//! - the extension `<mujoco><compiler …/></mujoco>`: `meshdir`, `strippath` (default false:
//!   keep only the file name of each mesh path), `discardvisual` (default true), `fusestatic`
//!   (default true: bodies without joints merge into their parents, inertia included),
//!   `inertiafromgeom`, `alignfree`, `balanceinertia` (unphysical principal moments become
//!   their mean, which matters where fused inertias add up).
//!
//! Mesh paths: `package://NAME/REST` resolves to `DIR/REST` when [`LoadOptions::package_dirs`]
//! maps `NAME` to `DIR`; otherwise the folder of the URDF file and each of its ancestors `F`
//! are tried in turn, taking the first existing `F/NAME/REST`, or `F/REST` when `F` itself is
//! named `NAME`. `file://PATH` is `PATH`. Other relative paths resolve against the URDF
//! folder joined with `meshdir`. MuJoCo itself reads `package://` literally (and fails);
//! with `strippath="true"` both keep only the file name. Collada (`.dae`) meshes are refused.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use glam::{DQuat, DVec3};

use crate::compile_math as cm;
use crate::compiler::compile_tree;
use crate::error::{Location, MjcfError, Result};
use crate::xml::{parent_dir, parse_document, parse_numbers, Elem, FileReader};

/// Options of the URDF loader.
#[derive(Clone, Debug, Default)]
pub struct LoadOptions {
    /// `package://NAME/…` folders: (NAME, DIR); relative DIRs are relative to the current
    /// directory. Packages not listed are searched for in the URDF file's folder tree.
    pub package_dirs: Vec<(String, PathBuf)>,
}

/// Loads and compiles a URDF file through `reader`.
pub fn load_urdf(
    path: &Path,
    reader: &dyn FileReader,
    opts: &LoadOptions,
) -> Result<collide::Model> {
    let file = path.display().to_string();
    let at_file = || Location {
        file: file.clone(),
        line: 0,
        element: "robot".into(),
    };
    let bytes = reader
        .read(path)
        .map_err(|e| MjcfError::new(at_file(), e))?;
    let text =
        String::from_utf8(bytes).map_err(|_| MjcfError::new(at_file(), "file is not UTF-8"))?;
    let dir = parent_dir(path);
    let tree = translate(&text, &file, &dir, reader, opts)?;
    // mesh paths in the tree are already resolved
    compile_tree(tree, Path::new(""), reader)
}

/// Loads URDF text; relative mesh paths resolve against `dir`.
pub fn load_urdf_str(
    text: &str,
    dir: &Path,
    reader: &dyn FileReader,
    opts: &LoadOptions,
) -> Result<collide::Model> {
    let tree = translate(text, "<string>", dir, reader, opts)?;
    compile_tree(tree, Path::new(""), reader)
}

/// Loads URDF text whose errors name `file`; relative mesh paths resolve against `dir`.
pub fn load_urdf_named(
    text: &str,
    file: &str,
    dir: &Path,
    reader: &dyn FileReader,
    opts: &LoadOptions,
) -> Result<collide::Model> {
    let tree = translate(text, file, dir, reader, opts)?;
    compile_tree(tree, Path::new(""), reader)
}

/// `<mujoco><compiler/></mujoco>` settings of a URDF.
struct UrdfSettings {
    meshdir: Option<String>,
    strippath: bool,
    discardvisual: bool,
    /// attributes passed to the MJCF compiler element
    passthrough: Vec<(String, String)>,
}

fn flag(e: &Elem, key: &str) -> Result<Option<bool>> {
    match e.attr(key).map(str::trim) {
        None => Ok(None),
        Some("true") => Ok(Some(true)),
        Some("false") => Ok(Some(false)),
        Some(v) => Err(e.err(format!("attribute '{key}': '{v}' is not true or false"))),
    }
}

fn read_settings(robot: &Elem) -> Result<UrdfSettings> {
    let mut s = UrdfSettings {
        meshdir: None,
        strippath: false,
        discardvisual: true,
        passthrough: vec![("fusestatic".into(), "true".into())],
    };
    for m in robot.children_named("mujoco") {
        for c in m.children_named("compiler") {
            if let Some(d) = c.attr("meshdir") {
                s.meshdir = Some(d.to_string());
            }
            if let Some(v) = flag(c, "strippath")? {
                s.strippath = v;
            }
            if let Some(v) = flag(c, "discardvisual")? {
                s.discardvisual = v;
            }
            for key in [
                "fusestatic",
                "inertiafromgeom",
                "alignfree",
                "balanceinertia",
            ] {
                if let Some(v) = c.attr(key) {
                    s.passthrough.retain(|(k, _)| k != key);
                    s.passthrough.push((key.to_string(), v.to_string()));
                }
            }
        }
    }
    Ok(s)
}

/// A generated MJCF element located at the URDF element `src`.
fn gen(name: &str, src: &Elem, attrs: Vec<(String, String)>) -> Elem {
    Elem {
        name: name.to_string(),
        attrs,
        children: Vec::new(),
        file: src.file.clone(),
        line: src.line,
        alias: Some(match src.attr("name") {
            Some(n) => format!("{} name=\"{}\"", src.name, n),
            None => src.name.clone(),
        }),
    }
}

fn kv(k: &str, v: String) -> (String, String) {
    (k.to_string(), v)
}

fn join(v: &[f64]) -> String {
    v.iter()
        .map(|x| format!("{x:?}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Exactly `n` finite numbers from attribute `key` (missing: `None`).
fn nums(e: &Elem, key: &str, n: usize) -> Result<Option<Vec<f64>>> {
    let Some(text) = e.attr(key) else {
        return Ok(None);
    };
    let v = parse_numbers(text).map_err(|m| e.err(format!("attribute '{key}': {m}")))?;
    if v.len() != n {
        return Err(e.err(format!(
            "attribute '{key}' needs {n} numbers, got {}",
            v.len()
        )));
    }
    Ok(Some(v))
}

fn required_num(e: &Elem, key: &str) -> Result<f64> {
    nums(e, key, 1)?
        .map(|v| v[0])
        .ok_or_else(|| e.err(format!("<{}> requires the attribute '{key}'", e.name)))
}

fn required_attr<'a>(e: &'a Elem, key: &str) -> Result<&'a str> {
    e.attr(key)
        .ok_or_else(|| e.err(format!("<{}> requires the attribute '{key}'", e.name)))
}

/// Quaternion of URDF `rpy`: rotation about fixed X by roll, then Y by pitch, then Z by yaw.
/// MuJoCo 4.0.0's URDF reader (`mjXURDF::Origin`, read from its machine code) turns `rpy` into
/// Euler angles of sequence `XYZ` in radians and resolves them as any `euler` attribute
/// (one axis rotation at a time, each multiplied on the left, then normalized): the same bits,
/// down to the sign of a zero component (`rpy_quaternion_is_mujocos_bit_for_bit`).
pub fn rpy_quat(rpy: [f64; 3]) -> DQuat {
    crate::orientation::euler_quat(
        rpy,
        &crate::orientation::AngleSettings {
            degrees: false,
            eulerseq: *b"XYZ",
        },
    )
}

/// `pos`/`quat` attributes of an `<origin>` child (none when absent or zero).
fn origin_attrs(parent: &Elem) -> Result<Vec<(String, String)>> {
    let mut out = Vec::new();
    let Some(o) = parent.children_named("origin").next() else {
        return Ok(out);
    };
    if let Some(xyz) = nums(o, "xyz", 3)? {
        if xyz.iter().any(|&x| x != 0.0) {
            out.push(kv("pos", join(&xyz)));
        }
    }
    if let Some(rpy) = nums(o, "rpy", 3)? {
        if rpy.iter().any(|&x| x != 0.0) {
            let q = rpy_quat([rpy[0], rpy[1], rpy[2]]);
            out.push(kv("quat", join(&[q.w, q.x, q.y, q.z])));
        }
    }
    Ok(out)
}

/// The `<axis xyz>` of a joint (default `1 0 0`), as given: the compiler normalizes it, once, as
/// MuJoCo does (normalizing here too put `1 1 0` one ulp off MuJoCo's axis).
fn joint_axis(j: &Elem) -> Result<DVec3> {
    let Some(a) = j.children_named("axis").next() else {
        return Ok(DVec3::X);
    };
    let Some(v) = nums(a, "xyz", 3)? else {
        return Ok(DVec3::X);
    };
    let v = DVec3::new(v[0], v[1], v[2]);
    let n = v.length();
    if n < 1e-10 {
        return Err(a.err("joint axis has zero length"));
    }
    Ok(v)
}

struct Translator<'a> {
    dir: PathBuf,
    reader: &'a dyn FileReader,
    opts: &'a LoadOptions,
    settings: UrdfSettings,
    /// (raw path, scale) → mesh asset name
    meshes: HashMap<(String, String), String>,
    mesh_names: HashSet<String>,
    assets: Vec<Elem>,
}

impl Translator<'_> {
    /// The path MuJoCo reads for mesh `filename` (after `strippath`, `package://`, `meshdir`).
    fn mesh_path(&self, e: &Elem, filename: &str) -> Result<PathBuf> {
        let mut name = filename.trim().to_string();
        if self.settings.strippath {
            name = name.rsplit(['/', '\\']).next().unwrap_or("").to_string();
        }
        if let Some(rest) = name.strip_prefix("package://") {
            return self.package_path(e, rest);
        }
        if let Some(rest) = name.strip_prefix("file://") {
            return Ok(PathBuf::from(rest));
        }
        let mut p = self.dir.clone();
        if let Some(d) = &self.settings.meshdir {
            p = p.join(d);
        }
        Ok(p.join(name))
    }

    fn package_path(&self, e: &Elem, rest: &str) -> Result<PathBuf> {
        let (pkg, sub) = rest.split_once('/').unwrap_or((rest, ""));
        if let Some((_, d)) = self.opts.package_dirs.iter().find(|(n, _)| n == pkg) {
            let d = if d.is_relative() {
                std::env::current_dir()
                    .map(|c| c.join(d))
                    .unwrap_or(d.clone())
            } else {
                d.clone()
            };
            return Ok(d.join(sub));
        }
        let start = if self.dir.as_os_str().is_empty() {
            PathBuf::from(".")
        } else {
            self.dir.clone()
        };
        for f in start.ancestors() {
            let cand = f.join(pkg).join(sub);
            if self.reader.exists(&cand) {
                return Ok(cand);
            }
            if f.file_name().is_some_and(|n| n == pkg) && self.reader.exists(&f.join(sub)) {
                return Ok(f.join(sub));
            }
        }
        Err(e.err(format!(
            "cannot resolve 'package://{rest}': package '{pkg}' is not given (--package \
             {pkg}=DIR, LoadOptions::package_dirs) and no folder '{pkg}' holding '{sub}' is in \
             or above {}",
            start.display()
        )))
    }

    /// The asset name of the mesh of `<mesh>` element `m`, declaring it on first use.
    fn mesh_asset(&mut self, m: &Elem) -> Result<String> {
        let filename = required_attr(m, "filename")?;
        let scale = match m.attr("scale") {
            Some(_) => Some(nums(m, "scale", 3)?.unwrap_or_default()),
            None => None,
        };
        let path = self.mesh_path(m, filename)?;
        let ext = path
            .extension()
            .map(|x| x.to_string_lossy().to_ascii_lowercase())
            .unwrap_or_default();
        if ext == "dae" {
            return Err(m.err(format!(
                "mesh {}: Collada (.dae) meshes are not supported (MuJoCo 4.0.0 cannot read them \
                 either); convert it to STL or OBJ",
                path.display()
            )));
        }
        let scale_key = scale.as_deref().map(join).unwrap_or_default();
        let key = (path.display().to_string(), scale_key);
        if let Some(n) = self.meshes.get(&key) {
            return Ok(n.clone());
        }
        let stem = path
            .file_stem()
            .map(|s| s.to_string_lossy().to_string())
            .unwrap_or_else(|| "mesh".into());
        let mut name = stem.clone();
        let mut k = 1;
        while self.mesh_names.contains(&name) {
            name = format!("{stem}{k}");
            k += 1;
        }
        self.mesh_names.insert(name.clone());
        self.meshes.insert(key, name.clone());
        let mut attrs = vec![
            kv("name", name.clone()),
            kv("file", path.display().to_string()),
        ];
        if let Some(s) = scale {
            attrs.push(kv("scale", join(&s)));
        }
        self.assets.push(gen("mesh", m, attrs));
        Ok(name)
    }

    /// The geom of a `<collision>` or `<visual>` element.
    fn geom(&mut self, c: &Elem, visual: bool) -> Result<Elem> {
        let geometry = c
            .children_named("geometry")
            .next()
            .ok_or_else(|| c.err(format!("<{}> requires a <geometry>", c.name)))?;
        let shape = geometry
            .children
            .first()
            .ok_or_else(|| geometry.err("<geometry> is empty"))?;
        let mut attrs = Vec::new();
        match shape.name.as_str() {
            "box" => {
                let s = nums(shape, "size", 3)?
                    .ok_or_else(|| shape.err("<box> requires the attribute 'size'"))?;
                attrs.push(kv("type", "box".into()));
                attrs.push(kv("size", join(&[s[0] / 2.0, s[1] / 2.0, s[2] / 2.0])));
            }
            "sphere" => {
                let r = required_num(shape, "radius")?;
                attrs.push(kv("type", "sphere".into()));
                attrs.push(kv("size", join(&[r])));
            }
            "cylinder" | "capsule" => {
                let r = required_num(shape, "radius")?;
                let l = required_num(shape, "length")?;
                attrs.push(kv("type", shape.name.clone()));
                attrs.push(kv("size", join(&[r, l / 2.0])));
            }
            "mesh" => {
                let name = self.mesh_asset(shape)?;
                attrs.push(kv("type", "mesh".into()));
                attrs.push(kv("mesh", name));
            }
            other => {
                return Err(shape.err(format!(
                    "unsupported URDF geometry <{other}> (MuJoCo reads box, cylinder, sphere, \
                     capsule and mesh)"
                )))
            }
        }
        attrs.extend(origin_attrs(c)?);
        if visual {
            for (k, v) in [
                ("contype", "0"),
                ("conaffinity", "0"),
                ("group", "1"),
                ("density", "0"),
            ] {
                attrs.push(kv(k, v.into()));
            }
        }
        Ok(gen("geom", c, attrs))
    }

    /// The `inertial` of a link's `<inertial>`.
    fn inertial(&self, i: &Elem) -> Result<Elem> {
        let mut attrs = origin_attrs(i)?;
        if !attrs.iter().any(|(k, _)| k == "pos") {
            attrs.push(kv("pos", "0 0 0".into()));
        }
        // MuJoCo 4.0.0: "missing element: 'mass'"
        let Some(m) = i.children_named("mass").next() else {
            return Err(i.err("<inertial> requires a <mass> element (as in MuJoCo 4.0.0)"));
        };
        let mass = required_num(m, "value")?;
        attrs.push(kv("mass", join(&[mass])));
        let mut full = [0.0; 6];
        if let Some(t) = i.children_named("inertia").next() {
            for (k, key) in ["ixx", "iyy", "izz", "ixy", "ixz", "iyz"]
                .iter()
                .enumerate()
            {
                full[k] = nums(t, key, 1)?.map(|v| v[0]).unwrap_or(0.0);
            }
        }
        attrs.push(kv("fullinertia", join(&full)));
        Ok(gen("inertial", i, attrs))
    }
}

/// MuJoCo 4.0.0's URDF reader refuses a repeated element where it reads one ("repeated
/// element: 'origin'"): a link's `inertial`; an inertial's `origin`, `mass`, `inertia`; a
/// collision's or visual's `origin`, `geometry`; a joint's `origin`, `parent`, `child`, `axis`,
/// `limit`, `dynamics` (pybullet_data's `spirit40newer.urdf`, ManiSkill's TriFinger); and a
/// malformed number in a joint's `<limit>`.
fn check_unique_children(robot: &Elem) -> Result<()> {
    fn unique(e: &Elem, names: &[&str]) -> Result<()> {
        for name in names {
            if let Some(second) = e.children_named(name).nth(1) {
                return Err(second.err(format!(
                    "repeated element <{name}> in <{}> (MuJoCo 4.0.0 refuses it)",
                    e.name
                )));
            }
        }
        Ok(())
    }
    for link in robot.children_named("link") {
        unique(link, &["inertial"])?;
        for i in link.children_named("inertial") {
            unique(i, &["origin", "mass", "inertia"])?;
        }
        for part in link
            .children
            .iter()
            .filter(|c| c.name == "collision" || c.name == "visual")
        {
            unique(part, &["origin", "geometry"])?;
        }
    }
    for joint in robot.children_named("joint") {
        unique(
            joint,
            &["origin", "parent", "child", "axis", "limit", "dynamics"],
        )?;
        // not compiled here, but MuJoCo refuses a malformed number in them ("bad format in
        // attribute 'lower'": pybullet_data's biped2d_pybullet.urdf writes `-1.57.`)
        for limit in joint.children_named("limit") {
            for key in ["lower", "upper", "effort", "velocity"] {
                nums(limit, key, 1)?;
            }
        }
    }
    Ok(())
}

/// Parses URDF text into the equivalent MJCF element tree (`<mujoco>` root), with every
/// element located at the URDF element it comes from. Mesh paths in the tree are resolved.
pub fn translate(
    text: &str,
    file: &str,
    dir: &Path,
    reader: &dyn FileReader,
    opts: &LoadOptions,
) -> Result<Elem> {
    let robot = parse_document(text, file, dir, reader)?;
    if robot.name != "robot" {
        return Err(robot.err("the root element of a URDF file must be <robot>"));
    }
    let settings = read_settings(&robot)?;
    check_unique_children(&robot)?;

    // links by name, in document order
    let links: Vec<&Elem> = robot.children_named("link").collect();
    let mut link_ids: HashMap<&str, usize> = HashMap::new();
    for (i, l) in links.iter().enumerate() {
        let name = required_attr(l, "name")?;
        if link_ids.insert(name, i).is_some() {
            return Err(l.err(format!("repeated link name '{name}'")));
        }
    }
    // joints: (joint, parent link, child link); children per link in joint document order
    let mut parent_joint: Vec<Option<usize>> = vec![None; links.len()];
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); links.len()];
    let joints: Vec<&Elem> = robot.children_named("joint").collect();
    let mut joint_names = HashSet::new();
    let mut joint_child = Vec::new();
    for (k, j) in joints.iter().enumerate() {
        let name = required_attr(j, "name")?;
        if !joint_names.insert(name) {
            return Err(j.err(format!("repeated joint name '{name}'")));
        }
        required_attr(j, "type")?;
        let link_of = |tag: &str| -> Result<usize> {
            let e = j
                .children_named(tag)
                .next()
                .ok_or_else(|| j.err(format!("<joint> requires a <{tag}> element")))?;
            let l = required_attr(e, "link")?;
            link_ids
                .get(l)
                .copied()
                .ok_or_else(|| e.err(format!("joint '{name}' names unknown link '{l}'")))
        };
        let p = link_of("parent")?;
        let c = link_of("child")?;
        if p == c {
            return Err(
                j.err(format!("joint '{name}' connects link '{}' to itself", {
                    links[c].attr("name").unwrap_or("")
                })),
            );
        }
        if let Some(prev) = parent_joint[c] {
            return Err(j.err(format!(
                "link '{}' has two parents: joint '{}' (line {}) already attaches it",
                links[c].attr("name").unwrap_or(""),
                joints[prev].attr("name").unwrap_or(""),
                joints[prev].line
            )));
        }
        parent_joint[c] = Some(k);
        children[p].push(c);
        joint_child.push(c);
    }
    let roots: Vec<usize> = (0..links.len())
        .filter(|&l| parent_joint[l].is_none())
        .collect();
    // every link must hang from a root: the others lie on a cycle
    let mut reached = vec![false; links.len()];
    let mut stack = roots.clone();
    while let Some(l) = stack.pop() {
        reached[l] = true;
        stack.extend(children[l].iter().copied());
    }
    if let Some(l) = (0..links.len()).find(|&l| !reached[l]) {
        let j = joints[parent_joint[l].unwrap_or(0)];
        return Err(j.err(format!(
            "the joints form a cycle through link '{}'",
            links[l].attr("name").unwrap_or("")
        )));
    }

    let mut t = Translator {
        dir: dir.to_path_buf(),
        reader,
        opts,
        settings,
        meshes: HashMap::new(),
        mesh_names: HashSet::new(),
        assets: Vec::new(),
    };
    // geoms of each link, in link document order (MuJoCo declares mesh assets in this order)
    let mut link_geoms: Vec<Vec<Elem>> = Vec::with_capacity(links.len());
    for l in &links {
        let mut g = Vec::new();
        for c in &l.children {
            match c.name.as_str() {
                "collision" => g.push(t.geom(c, false)?),
                "visual" if !t.settings.discardvisual => g.push(t.geom(c, true)?),
                _ => {}
            }
        }
        link_geoms.push(g);
    }

    let mut world = gen("worldbody", &robot, Vec::new());
    for &r in &roots {
        if links[r].attr("name") == Some("world") {
            world.children.append(&mut link_geoms[r]);
            for &c in &children[r] {
                let b = build_body(
                    1,
                    c,
                    &links,
                    &joints,
                    &parent_joint,
                    &children,
                    &mut link_geoms,
                    &t,
                )?;
                world.children.push(b);
            }
        } else {
            let b = build_body(
                1,
                r,
                &links,
                &joints,
                &parent_joint,
                &children,
                &mut link_geoms,
                &t,
            )?;
            world.children.push(b);
        }
    }

    let mut compiler_attrs = vec![kv("angle", "radian".into())];
    compiler_attrs.extend(t.settings.passthrough.iter().cloned());
    let mut root = gen(
        "mujoco",
        &robot,
        vec![kv("model", robot.attr("name").unwrap_or("").to_string())],
    );
    root.children.push(gen("compiler", &robot, compiler_attrs));
    let mut asset = gen("asset", &robot, Vec::new());
    asset.children = std::mem::take(&mut t.assets);
    root.children.push(asset);
    root.children.push(world);
    Ok(root)
}

/// Deepest link chain accepted (real robots are far shallower; bounds the recursion).
const MAX_DEPTH: usize = 512;

#[allow(clippy::too_many_arguments)]
fn build_body(
    depth: usize,
    l: usize,
    links: &[&Elem],
    joints: &[&Elem],
    parent_joint: &[Option<usize>],
    children: &[Vec<usize>],
    link_geoms: &mut Vec<Vec<Elem>>,
    t: &Translator,
) -> Result<Elem> {
    let link = links[l];
    if depth > MAX_DEPTH {
        return Err(link.err(format!("link chain deeper than {MAX_DEPTH}")));
    }
    let mut attrs = vec![kv("name", link.attr("name").unwrap_or("").to_string())];
    let mut jelems = Vec::new();
    if let Some(k) = parent_joint[l] {
        let j = joints[k];
        attrs.extend(origin_attrs(j)?);
        let name = j.attr("name").unwrap_or("");
        let ty = j.attr("type").unwrap_or("").trim();
        let joint = |n: &str, ty: &str, axis: Option<DVec3>| {
            let mut a = vec![kv("name", n.to_string()), kv("type", ty.to_string())];
            if let Some(ax) = axis {
                a.push(kv("axis", join(&ax.to_array())));
            }
            gen("joint", j, a)
        };
        match ty {
            "revolute" | "continuous" => {
                jelems.push(joint(name, "hinge", Some(joint_axis(j)?)));
            }
            "prismatic" => jelems.push(joint(name, "slide", Some(joint_axis(j)?))),
            "floating" => jelems.push(joint(name, "free", None)),
            "spherical" => jelems.push(joint(name, "ball", None)),
            "planar" => {
                let n = joint_axis(j)?;
                let [tx, ty] = planar_slide_axes(n);
                jelems.push(joint(&format!("{name}_TX"), "slide", Some(tx)));
                jelems.push(joint(&format!("{name}_TY"), "slide", Some(ty)));
                jelems.push(joint(&format!("{name}_RZ"), "hinge", Some(n)));
            }
            "fixed" => {}
            other => {
                return Err(j.err(format!(
                    "unknown joint type '{other}' (revolute, continuous, prismatic, fixed, \
                     floating, planar or spherical)"
                )))
            }
        }
    }
    let mut body = gen("body", link, attrs);
    if let Some(i) = link.children_named("inertial").next() {
        body.children.push(t.inertial(i)?);
    }
    body.children.extend(jelems);
    body.children.append(&mut link_geoms[l]);
    for &c in &children[l] {
        let b = build_body(
            depth + 1,
            c,
            links,
            joints,
            parent_joint,
            children,
            link_geoms,
            t,
        )?;
        body.children.push(b);
    }
    Ok(body)
}

/// The two slide axes of a planar joint about the normal `a` (as given, not normalized): the
/// first two columns of the matrix of MuJoCo's minimal rotation from +z to `a`
/// ([`cm::z_to_quat`], [`cm::quat_mat`]), which the compiler keeps as they are (unit within
/// 1e-14; `planar_slide_axes_are_mujocos_bit_for_bit`).
fn planar_slide_axes(a: DVec3) -> [DVec3; 2] {
    let m = cm::quat_mat(cm::z_to_quat(a.to_array()));
    [DVec3::new(m[0], m[3], m[6]), DVec3::new(m[1], m[4], m[7])]
}
