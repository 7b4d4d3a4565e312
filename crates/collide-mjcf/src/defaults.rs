//! `<default>` classes: nested, inherited attribute values per element kind.

use std::collections::HashMap;

use crate::error::Result;
use crate::xml::{AttrSource, Elem};

/// The name of the root default class.
pub const MAIN: &str = "main";

/// All default classes of one model file.
///
/// As in MuJoCo, a class starts as a copy of its parent's values at the moment the class is
/// parsed (the parent's own elements are read before its nested classes): attributes that a
/// later top-level `<default>` (e.g. from an `<include>` further down) adds to the main class
/// reach only the classes created after it.
#[derive(Debug, Default)]
pub struct Defaults {
    /// class name → element kind → the chain of default elements giving the class's values,
    /// root first (copies of the ancestors' elements as they were when the class was created,
    /// then the class's own element)
    classes: HashMap<String, HashMap<String, Vec<Elem>>>,
}

impl Defaults {
    /// Collects the classes of every top-level `<default>` element of `root`.
    pub fn collect(root: &Elem) -> Result<Defaults> {
        let mut d = Defaults::default();
        d.classes.insert(MAIN.to_string(), HashMap::new());
        for top in root.children_named("default") {
            // a top-level default is the main class, whether or not it says class="main"
            let name = top.attr("class").unwrap_or(MAIN).to_string();
            let parent = (name != MAIN).then(|| MAIN.to_string());
            d.add_class(top, name, parent)?;
        }
        // a `<body>` directly under `<mujoco>` is never compiled, and MuJoCo does not check
        // its classes
        for c in root.children.iter().filter(|c| c.name != "body") {
            d.check_references_of(c)?;
        }
        Ok(d)
    }

    /// Rejects a `class` or `childclass` that names no class anywhere in the document, as
    /// MuJoCo does, also on elements collide does not compile (actuators, tendons, sensors).
    fn check_references_of(&self, elem: &Elem) -> Result<()> {
        if elem.name == "default" {
            return Ok(());
        }
        for key in ["class", "childclass"] {
            if let Some(class) = elem.attr(key) {
                if !self.has(class) {
                    return Err(elem.err(format!("unknown default class '{class}'")));
                }
            }
        }
        elem.children
            .iter()
            .try_for_each(|c| self.check_references_of(c))
    }

    fn add_class(&mut self, elem: &Elem, name: String, parent: Option<String>) -> Result<()> {
        if let Some(parent) = &parent {
            if self.classes.contains_key(&name) {
                return Err(elem.err(format!("repeated default class '{name}'")));
            }
            // the parent's values as they are now
            let inherited = self.classes.get(parent).cloned().unwrap_or_default();
            self.classes.insert(name.clone(), inherited);
        }
        // the class's own elements first, then its nested classes (MuJoCo's parse order)
        let mut seen: Vec<&str> = Vec::new();
        for c in elem.children.iter().filter(|c| c.name != "default") {
            if seen.contains(&c.name.as_str()) {
                return Err(c.err(format!(
                    "<{}> repeated in default class '{name}' (one per class)",
                    c.name
                )));
            }
            seen.push(&c.name);
            let Some(kinds) = self.classes.get_mut(&name) else {
                continue;
            };
            let chain = kinds.entry(c.name.clone()).or_default();
            match chain.last_mut() {
                // another top-level <default> of the main class: later values win
                Some(layer) if parent.is_none() => {
                    for (k, v) in &c.attrs {
                        match layer.attrs.iter_mut().find(|(k2, _)| k2 == k) {
                            Some(slot) => slot.1.clone_from(v),
                            None => layer.attrs.push((k.clone(), v.clone())),
                        }
                    }
                }
                _ => chain.push(c.clone()),
            }
        }
        for c in elem.children.iter().filter(|c| c.name == "default") {
            let Some(child) = c.attr("class") else {
                return Err(c.err("nested default requires the attribute 'class'"));
            };
            self.add_class(c, child.to_string(), Some(name.clone()))?;
        }
        Ok(())
    }

    /// Whether `class` exists.
    pub fn has(&self, class: &str) -> bool {
        self.classes.contains_key(class)
    }

    /// The attribute layers for an element of `kind` in `class`, root class first.
    pub fn layers<'a>(&'a self, kind: &str, class: &str, elem: &'a Elem) -> Result<Resolved<'a>> {
        let Some(kinds) = self.classes.get(class) else {
            return Err(elem.err(format!("unknown default class '{class}'")));
        };
        let mut chain: Vec<&Elem> = kinds.get(kind).map_or(Vec::new(), |c| c.iter().collect());
        chain.push(elem);
        Ok(Resolved { layers: chain })
    }
}

/// An element seen through its default classes: its own attributes win, then the nearest class.
pub struct Resolved<'a> {
    /// Root class first, the element itself last.
    pub layers: Vec<&'a Elem>,
}

impl Resolved<'_> {
    /// The element itself.
    pub fn elem(&self) -> &Elem {
        self.layers[self.layers.len() - 1]
    }

    /// Whether the element itself (not a class) sets `key`.
    pub fn own(&self, key: &str) -> bool {
        self.elem().attr(key).is_some()
    }

    /// The layer that sets `key`, nearest first.
    pub fn layer_of(&self, key: &str) -> Option<&Elem> {
        self.layers
            .iter()
            .rev()
            .find(|l| l.attr(key).is_some())
            .copied()
    }
}

impl AttrSource for Resolved<'_> {
    fn raw(&self, key: &str) -> Option<&str> {
        self.layers.iter().rev().find_map(|l| l.attr(key))
    }
    fn blame(&self) -> &Elem {
        self.elem()
    }
    fn partial<const N: usize>(&self, key: &str, into: &mut [f64; N]) -> Result<()> {
        for l in &self.layers {
            l.partial(key, into)?;
        }
        Ok(())
    }
}
