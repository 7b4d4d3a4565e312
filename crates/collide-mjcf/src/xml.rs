//! An owned element tree built from `roxmltree`, with `<include>` spliced in and every
//! element remembering its file and line, plus typed attribute readers.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use glam::DVec3;

use crate::error::{Location, MjcfError, Result};

/// Reads files for the loader; the CLI uses [`FsReader`], tests may serve files from memory.
pub trait FileReader {
    /// Returns the bytes of `path`, or a human-readable error.
    fn read(&self, path: &Path) -> std::result::Result<Vec<u8>, String>;

    /// Whether `path` is a readable file (used to search for URDF `package://` folders).
    fn exists(&self, path: &Path) -> bool {
        self.read(path).is_ok()
    }
}

/// Reads from the file system.
pub struct FsReader;

impl FileReader for FsReader {
    fn read(&self, path: &Path) -> std::result::Result<Vec<u8>, String> {
        std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
    }

    fn exists(&self, path: &Path) -> bool {
        path.is_file()
    }
}

/// An XML element with owned attributes and children.
#[derive(Clone, Debug)]
pub struct Elem {
    /// Tag name.
    pub name: String,
    /// Attributes in document order.
    pub attrs: Vec<(String, String)>,
    /// Child elements in document order.
    pub children: Vec<Elem>,
    /// File the element comes from.
    pub file: Arc<str>,
    /// 1-based line of the start tag.
    pub line: u32,
    /// How errors name the element when it was translated from another format (e.g.
    /// `link name="arm"` for a URDF link); `None`: the tag and its `name`.
    pub alias: Option<String>,
}

impl Elem {
    /// The raw value of attribute `key`.
    pub fn attr(&self, key: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// Location of this element for error messages.
    pub fn loc(&self) -> Location {
        let element = match (&self.alias, self.attr("name")) {
            (Some(a), _) => a.clone(),
            (None, Some(n)) => format!("{} name=\"{}\"", self.name, n),
            (None, None) => self.name.clone(),
        };
        Location {
            file: self.file.to_string(),
            line: self.line,
            element,
        }
    }

    /// An error at this element.
    pub fn err(&self, message: impl Into<String>) -> MjcfError {
        MjcfError::new(self.loc(), message)
    }

    /// Children with tag `name`.
    pub fn children_named<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Elem> + 'a {
        self.children.iter().filter(move |c| c.name == name)
    }
}

/// Reads `rel`, a path written in `file` (a document under `base_dir`), as MuJoCo 4.0.0 looks it
/// up: `under` (the main model's directory, or `meshdir` below it) joined with `rel` first;
/// where that file cannot be read and `file` was included from a subfolder `D` of `base_dir`,
/// `under` joined with `D` and `rel` (measured: an included `sub/a.xml` reaches `sub/x.stl` and
/// `sub/b.xml` by `x.stl` and `b.xml`, and `meshes/sub/x.stl` under `meshdir="meshes"`; the
/// main directory's file wins when both exist). Returns the bytes and the path read.
pub fn read_relative(
    reader: &dyn FileReader,
    under: &Path,
    base_dir: &Path,
    file: &str,
    rel: &str,
) -> std::result::Result<(Vec<u8>, PathBuf), String> {
    let first = under.join(rel);
    let err = match reader.read(&first) {
        Ok(bytes) => return Ok((bytes, first)),
        Err(e) => e,
    };
    let sub = Path::new(file)
        .parent()
        .and_then(|d| d.strip_prefix(base_dir).ok())
        .filter(|d| !d.as_os_str().is_empty() && !Path::new(rel).is_absolute());
    match sub {
        Some(d) => {
            let second = under.join(d).join(rel);
            reader
                .read(&second)
                .map(|bytes| (bytes, second.clone()))
                .map_err(|e2| format!("{err} (nor {}: {e2})", second.display()))
        }
        None => Err(err),
    }
}

/// Parses XML text into an element tree, splicing `<include file>` elements (paths relative to
/// `base_dir`, the directory of the main model file, then to the including file's folder: see
/// [`read_relative`]).
pub fn parse_document(
    text: &str,
    file: &str,
    base_dir: &Path,
    reader: &dyn FileReader,
) -> Result<Elem> {
    let mut depth = 0;
    parse_with_includes(text, file, base_dir, reader, &mut depth)
}

fn parse_with_includes(
    text: &str,
    file: &str,
    base_dir: &Path,
    reader: &dyn FileReader,
    depth: &mut usize,
) -> Result<Elem> {
    let opts = roxmltree::ParsingOptions {
        allow_dtd: true,
        ..Default::default()
    };
    let text = as_tinyxml_reads(text);
    let doc = roxmltree::Document::parse_with_options(&text, opts).map_err(|e| {
        let pos = e.pos();
        MjcfError::new(
            Location {
                file: file.to_string(),
                line: pos.row,
                element: "xml".into(),
            },
            format!("malformed XML: {e}"),
        )
    })?;
    let file: Arc<str> = Arc::from(file);
    let root = doc.root_element();
    // byte offsets where lines start, for line numbers in O(log n) per element
    let line_starts: Vec<usize> = std::iter::once(0)
        .chain(
            text.bytes()
                .enumerate()
                .filter(|&(_, b)| b == b'\n')
                .map(|(i, _)| i + 1),
        )
        .collect();
    let mut elem = convert(root, &file, &line_starts);
    expand_includes(&mut elem, base_dir, reader, depth)?;
    Ok(elem)
}

/// The document as MuJoCo's XML reader (TinyXML-2, on a C string) sees it: the text ends at
/// the first NUL byte (pybullet_data's `humanoid.urdf` has one after `</robot>`), and an XML
/// declaration after leading whitespace is accepted (pybullet_data's `diff_ring.urdf` starts
/// with an empty line), here by blanking the declaration so that line numbers stay.
fn as_tinyxml_reads(text: &str) -> std::borrow::Cow<'_, str> {
    let text = match text.find('\0') {
        Some(i) => &text[..i],
        None => text,
    };
    let body = text.trim_start();
    let lead = text.len() - body.len();
    if lead == 0 || !body.starts_with("<?xml") {
        return std::borrow::Cow::Borrowed(text);
    }
    let Some(end) = body.find("?>") else {
        return std::borrow::Cow::Borrowed(text);
    };
    let decl = &text[lead..lead + end + 2];
    let blank: String = decl
        .chars()
        .map(|c| if c == '\n' { '\n' } else { ' ' })
        .collect();
    std::borrow::Cow::Owned(format!(
        "{}{blank}{}",
        &text[..lead],
        &text[lead + end + 2..]
    ))
}

fn convert(node: roxmltree::Node, file: &Arc<str>, line_starts: &[usize]) -> Elem {
    let offset = node.range().start;
    let line = line_starts.partition_point(|&s| s <= offset) as u32;
    Elem {
        name: node.tag_name().name().to_string(),
        attrs: node
            .attributes()
            .map(|a| (a.name().to_string(), a.value().to_string()))
            .collect(),
        children: node
            .children()
            .filter(|c| c.is_element())
            .map(|c| convert(c, file, line_starts))
            .collect(),
        file: file.clone(),
        line,
        alias: None,
    }
}

fn expand_includes(
    elem: &mut Elem,
    base_dir: &Path,
    reader: &dyn FileReader,
    depth: &mut usize,
) -> Result<()> {
    if !elem.children.iter().any(|c| c.name == "include") {
        for c in &mut elem.children {
            expand_includes(c, base_dir, reader, depth)?;
        }
        return Ok(());
    }
    let children = std::mem::take(&mut elem.children);
    for mut c in children {
        if c.name == "include" {
            let Some(rel) = c.attr("file") else {
                return Err(c.err("include requires the attribute 'file'"));
            };
            if *depth > 32 {
                return Err(c.err("include nesting deeper than 32 (recursive include?)"));
            }
            let (bytes, path) =
                read_relative(reader, base_dir, base_dir, &c.file, rel).map_err(|e| c.err(e))?;
            let text = String::from_utf8(bytes)
                .map_err(|_| c.err(format!("{} is not UTF-8", path.display())))?;
            *depth += 1;
            let inc =
                parse_with_includes(&text, &path.display().to_string(), base_dir, reader, depth)?;
            *depth -= 1;
            if inc.children.is_empty() {
                return Err(c.err(format!(
                    "empty include file '{rel}' (MuJoCo 4.0.0 refuses a file with no elements)"
                )));
            }
            // MuJoCo 4.0.0 takes the children of an included file's root whatever its name
            // (`<mujoco>`, the legacy `<mujocoinclude>` of metaworld, anything)
            elem.children.extend(inc.children);
        } else {
            expand_includes(&mut c, base_dir, reader, depth)?;
            elem.children.push(c);
        }
    }
    Ok(())
}

/// Typed attribute access with MuJoCo's parsing rules; every error names the element.
pub trait AttrSource {
    /// The raw value of `key`, if present.
    fn raw(&self, key: &str) -> Option<&str>;
    /// The element to blame in errors.
    fn blame(&self) -> &Elem;

    /// Parses a whitespace-separated list of finite numbers.
    fn numbers(&self, key: &str) -> Result<Option<Vec<f64>>> {
        let Some(text) = self.raw(key) else {
            return Ok(None);
        };
        parse_numbers(text)
            .map(Some)
            .map_err(|m| self.blame().err(format!("attribute '{key}': {m}")))
    }

    /// Parses whitespace-separated finite numbers as `f32` (MuJoCo reads mesh vertices and
    /// height-field elevations as `float`), returned widened to `f64`.
    fn numbers_f32(&self, key: &str) -> Result<Option<Vec<f64>>> {
        let Some(text) = self.raw(key) else {
            return Ok(None);
        };
        text.split_ascii_whitespace()
            .map(|t| match t.parse::<f32>() {
                Ok(v) if v.is_finite() => Ok(f64::from(v)),
                Ok(_) => Err(format!("'{t}' is not a finite single-precision number")),
                Err(_) => Err(format!("'{t}' is not a number")),
            })
            .collect::<std::result::Result<Vec<_>, _>>()
            .map(Some)
            .map_err(|m| self.blame().err(format!("attribute '{key}': {m}")))
    }

    /// Exactly `N` finite numbers.
    fn array<const N: usize>(&self, key: &str) -> Result<Option<[f64; N]>> {
        let Some(v) = self.numbers(key)? else {
            return Ok(None);
        };
        if v.len() != N {
            return Err(self.blame().err(format!(
                "attribute '{key}' needs {N} numbers, got {}",
                v.len()
            )));
        }
        let mut out = [0.0; N];
        out.copy_from_slice(&v);
        Ok(Some(out))
    }

    /// Up to `N` numbers, overwriting the leading entries of `into` (MuJoCo's partial read).
    fn partial<const N: usize>(&self, key: &str, into: &mut [f64; N]) -> Result<()> {
        let Some(v) = self.numbers(key)? else {
            return Ok(());
        };
        if v.is_empty() || v.len() > N {
            return Err(self.blame().err(format!(
                "attribute '{key}' needs 1 to {N} numbers, got {}",
                v.len()
            )));
        }
        into[..v.len()].copy_from_slice(&v);
        Ok(())
    }

    /// A 3-vector.
    fn vec3(&self, key: &str) -> Result<Option<DVec3>> {
        Ok(self.array::<3>(key)?.map(DVec3::from_array))
    }

    /// One finite number.
    fn number(&self, key: &str) -> Result<Option<f64>> {
        Ok(self.array::<1>(key)?.map(|a| a[0]))
    }

    /// An integer.
    fn int(&self, key: &str) -> Result<Option<i64>> {
        let Some(text) = self.raw(key) else {
            return Ok(None);
        };
        text.trim().parse::<i64>().map(Some).map_err(|_| {
            self.blame()
                .err(format!("attribute '{key}': '{text}' is not an integer"))
        })
    }

    /// `true`/`false`.
    fn boolean(&self, key: &str) -> Result<Option<bool>> {
        match self.raw(key).map(str::trim) {
            None => Ok(None),
            Some("true") => Ok(Some(true)),
            Some("false") => Ok(Some(false)),
            Some(other) => Err(self
                .blame()
                .err(format!("attribute '{key}': '{other}' is not true or false"))),
        }
    }

    /// One of `choices`.
    fn keyword(&self, key: &str, choices: &[&str]) -> Result<Option<usize>> {
        let Some(text) = self.raw(key) else {
            return Ok(None);
        };
        let t = text.trim();
        choices
            .iter()
            .position(|c| *c == t)
            .map(Some)
            .ok_or_else(|| {
                self.blame().err(format!(
                    "attribute '{key}': '{t}' is not one of {}",
                    choices.join(", ")
                ))
            })
    }
}

impl AttrSource for Elem {
    fn raw(&self, key: &str) -> Option<&str> {
        self.attr(key)
    }
    fn blame(&self) -> &Elem {
        self
    }
}

/// Parses whitespace-separated finite numbers.
pub fn parse_numbers(text: &str) -> std::result::Result<Vec<f64>, String> {
    text.split_ascii_whitespace()
        .map(|t| match t.parse::<f64>() {
            Ok(v) if v.is_finite() => Ok(v),
            Ok(_) => Err(format!("'{t}' is not a finite number")),
            Err(_) => Err(format!("'{t}' is not a number")),
        })
        .collect()
}

/// The directory containing `path` (empty path for a bare file name).
pub fn parent_dir(path: &Path) -> PathBuf {
    path.parent().map(Path::to_path_buf).unwrap_or_default()
}
