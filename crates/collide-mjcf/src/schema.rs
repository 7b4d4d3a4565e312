//! MuJoCo 4.0.0's MJCF schema check: a document MuJoCo refuses for an unknown element, an
//! unknown attribute (a typo such as `conaffinty`, which would otherwise be ignored and change
//! the contacts silently) or a repeated unique element is refused here too, with the file, line
//! and element, and the nearest valid name when one is close.
//!
//! The schema is MuJoCo's own, as `mujoco.mj_printSchema` prints it (`mjcf_schema.txt`, written
//! by `conformance/mjcf_schema.py`): one element per line, indented three spaces per level, its
//! multiplicity in parentheses (`!` exactly once, `?` at most once, `*` any number, `R` any
//! number and nested in itself), then its attributes, continued on lines of their own. Rules
//! measured on MuJoCo 4.0.0 beyond the printed schema:
//! - the top level's `(world)body` entry is the element `worldbody`, which takes no attribute
//!   ("World body cannot have attributes"); inside, it is `body`, nested in itself;
//! - a `body` directly under `mujoco` also matches that entry: it is checked as a body
//!   (attributes and children) and then ignored by the compiler, as MuJoCo ignores it (gym_xarm's
//!   `xarm.xml`, an include fragment loaded on its own);
//! - `frame` and `replicate` under `mujoco`, `worldbody` or a `body` are not checked at all,
//!   nor is anything inside them (MuJoCo accepts an unknown attribute on a geom in a frame);
//! - elsewhere they are unknown elements.

use std::sync::OnceLock;

use crate::error::Result;
use crate::xml::Elem;

/// The schema as printed by MuJoCo 4.0.0.
const SCHEMA_TEXT: &str = include_str!("mjcf_schema.txt");

/// Column where the attribute lists start in the printed schema.
const ATTR_COLUMN: usize = 30;

/// One element of the schema.
#[derive(Debug)]
struct Node {
    /// Tag (`(world)body` for the body entry).
    name: String,
    /// At most once under its parent (`!` or `?`).
    unique: bool,
    /// May contain itself (`R`).
    recursive: bool,
    /// Allowed attributes, sorted.
    attrs: Vec<String>,
    /// Child elements (indices into the node list).
    children: Vec<usize>,
}

/// The parsed schema: node 0 is `mujoco`.
fn schema() -> &'static [Node] {
    static NODES: OnceLock<Vec<Node>> = OnceLock::new();
    NODES.get_or_init(|| parse(SCHEMA_TEXT))
}

/// Parses the printed schema (see the module docs). The text is MuJoCo's, embedded at build
/// time; a malformed line is a bug caught by the tests, not a user error.
fn parse(text: &str) -> Vec<Node> {
    let mut nodes: Vec<Node> = Vec::new();
    // the open element at each depth
    let mut open: Vec<usize> = Vec::new();
    for line in text.lines() {
        let head = line.get(..ATTR_COLUMN.min(line.len())).unwrap_or("");
        let attrs = line.get(ATTR_COLUMN..).unwrap_or("");
        let attrs = attrs.split_whitespace().map(str::to_owned);
        if head.trim().is_empty() {
            // a continuation of the last element's attributes
            if let Some(last) = nodes.last_mut() {
                last.attrs.extend(attrs);
            }
            continue;
        }
        let depth = (head.len() - head.trim_start().len()) / 3;
        let mut words = head.split_whitespace();
        let name = words.next().unwrap_or_default().to_owned();
        let mult = words.next().unwrap_or_default();
        let i = nodes.len();
        nodes.push(Node {
            name,
            unique: mult == "(!)" || mult == "(?)",
            recursive: mult == "(R)",
            attrs: attrs.collect(),
            children: Vec::new(),
        });
        open.truncate(depth);
        if let Some(&parent) = open.last() {
            nodes[parent].children.push(i);
        }
        open.push(i);
    }
    for n in &mut nodes {
        n.attrs.sort();
    }
    nodes
}

/// Checks a parsed MJCF document (includes spliced) against MuJoCo 4.0.0's schema.
pub fn check(root: &Elem) -> Result<()> {
    if root.name != "mujoco" {
        // the compiler names a wrong root element
        return Ok(());
    }
    check_elem(root, schema(), 0)
}

fn check_elem(elem: &Elem, nodes: &[Node], at: usize) -> Result<()> {
    let node = &nodes[at];
    if elem.name == "worldbody" {
        if let Some((k, _)) = elem.attrs.first() {
            return Err(elem.err(format!(
                "the world body cannot have attributes (found '{k}'; MuJoCo 4.0.0 refuses them)"
            )));
        }
    } else {
        for (k, _) in &elem.attrs {
            if node.attrs.binary_search(k).is_err() {
                return Err(elem.err(format!(
                    "unrecognized attribute '{k}' (MuJoCo 4.0.0's schema for <{}> has no such attribute{})",
                    elem.name,
                    hint(k, node.attrs.iter().map(String::as_str))
                )));
            }
        }
    }
    let bodylike = node.name == "mujoco" || node.name == "(world)body";
    for (ci, child) in elem.children.iter().enumerate() {
        if bodylike && (child.name == "frame" || child.name == "replicate") {
            continue;
        }
        let Some(c) = find_child(nodes, at, &child.name) else {
            let names = node
                .children
                .iter()
                .map(|&c| child_tag(nodes, at, c))
                .chain(node.recursive.then(|| self_tag(node)));
            return Err(child.err(format!(
                "unrecognized element <{}> inside <{}> (MuJoCo 4.0.0's schema{})",
                child.name,
                elem.name,
                hint(&child.name, names)
            )));
        };
        if nodes[c].unique {
            // reported once, at the second occurrence
            let earlier = elem.children[..ci].iter().filter(|e| e.name == child.name);
            if earlier.count() == 1 {
                let n = elem
                    .children
                    .iter()
                    .filter(|e| e.name == child.name)
                    .count();
                return Err(child.err(format!(
                    "<{}> may appear once inside <{}>, found {n} times",
                    child.name, elem.name
                )));
            }
        }
        check_elem(child, nodes, c)?;
    }
    Ok(())
}

/// The tag of node `c` as a child of node `parent`: `(world)body` is `worldbody` at the top
/// level and `body` elsewhere.
fn child_tag(nodes: &[Node], parent: usize, c: usize) -> &str {
    match nodes[c].name.as_str() {
        "(world)body" if nodes[parent].name == "mujoco" => "worldbody",
        "(world)body" => "body",
        n => n,
    }
}

/// The tag under which a recursive node contains itself.
fn self_tag(node: &Node) -> &str {
    if node.name == "(world)body" {
        "body"
    } else {
        &node.name
    }
}

/// The schema node of child element `name` of node `at`.
fn find_child(nodes: &[Node], at: usize, name: &str) -> Option<usize> {
    let node = &nodes[at];
    if node.recursive && self_tag(node) == name {
        return Some(at);
    }
    node.children.iter().copied().find(|&c| {
        let tag = child_tag(nodes, at, c);
        tag == name || (tag == "worldbody" && name == "body")
    })
}

/// `"; did you mean 'x'?"` for the nearest of `names` to `word` when it is close (edit distance
/// at most 2, or a third of the word), else `""`.
fn hint<'a>(word: &str, names: impl Iterator<Item = &'a str>) -> String {
    let limit = (word.chars().count() / 3).max(2);
    names
        .map(|n| (edit_distance(word, n), n))
        .filter(|&(d, _)| d <= limit)
        .min()
        .map_or(String::new(), |(_, n)| format!("; did you mean '{n}'?"))
}

/// Levenshtein distance of two short strings.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diag = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let next = (row[j + 1] + 1)
                .min(row[j] + 1)
                .min(diag + usize::from(ca != cb));
            diag = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node<'a>(nodes: &'a [Node], path: &[&str]) -> &'a Node {
        let mut at = 0;
        for name in path {
            at = find_child(nodes, at, name).unwrap_or_else(|| panic!("no {name} in {path:?}"));
        }
        &nodes[at]
    }

    #[test]
    fn printed_schema_parses_into_mujocos_tree() {
        let nodes = schema();
        assert_eq!(nodes[0].name, "mujoco");
        assert_eq!(nodes[0].attrs, ["model"]);
        let geom = node(nodes, &["worldbody", "body", "body", "geom"]);
        for a in [
            "conaffinity",
            "contype",
            "margin",
            "gap",
            "fromto",
            "class",
            "priority",
        ] {
            assert!(geom.attrs.iter().any(|x| x == a), "{a}");
        }
        // in <default>, a geom takes no class and appears at most once
        let dgeom = node(nodes, &["default", "default", "geom"]);
        assert!(dgeom.unique && !dgeom.attrs.iter().any(|x| x == "class"));
        assert!(node(nodes, &["worldbody", "body", "inertial"]).unique);
        assert_eq!(
            node(nodes, &["extension", "plugin", "instance", "config"]).attrs,
            ["key", "value"]
        );
        // continuation lines are read: the last attribute of the body entry's first geom line
        // and one from its third line
        assert!(geom.attrs.iter().any(|x| x == "zaxis"));
        assert!(nodes.len() > 150, "{}", nodes.len());
    }

    #[test]
    fn hints_name_the_nearest_valid_word() {
        let names = ["conaffinity", "contype", "condim"];
        assert_eq!(
            hint("conaffinty", names.into_iter()),
            "; did you mean 'conaffinity'?"
        );
        assert_eq!(hint("bogus", names.into_iter()), "");
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }
}
