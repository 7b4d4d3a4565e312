//! `<default>` classes: nested, inherited attribute values per element kind.

use std::collections::HashMap;

use crate::error::Result;
use crate::xml::{AttrSource, Elem};

/// The name of the root default class.
pub const MAIN: &str = "main";

/// All default classes of one model file.
#[derive(Debug, Default)]
pub struct Defaults {
    /// class name → (parent class, element kind → the class's own element)
    classes: HashMap<String, (Option<String>, HashMap<String, Elem>)>,
}

impl Defaults {
    /// Collects the classes of every top-level `<default>` element of `root`.
    pub fn collect(root: &Elem) -> Result<Defaults> {
        let mut d = Defaults::default();
        d.classes.insert(MAIN.to_string(), (None, HashMap::new()));
        for top in root.children_named("default") {
            // a top-level default is the main class, whether or not it says class="main"
            let name = top.attr("class").unwrap_or(MAIN).to_string();
            let parent = if name == MAIN {
                None
            } else {
                Some(MAIN.to_string())
            };
            d.add_class(top, name, parent)?;
        }
        Ok(d)
    }

    fn add_class(&mut self, elem: &Elem, name: String, parent: Option<String>) -> Result<()> {
        if name != MAIN || parent.is_some() {
            if self.classes.contains_key(&name) {
                return Err(elem.err(format!("repeated default class '{name}'")));
            }
            self.classes.insert(name.clone(), (parent, HashMap::new()));
        }
        for c in &elem.children {
            if c.name == "default" {
                let Some(child) = c.attr("class") else {
                    return Err(c.err("nested default requires the attribute 'class'"));
                };
                self.add_class(c, child.to_string(), Some(name.clone()))?;
            } else if let Some(entry) = self.classes.get_mut(&name) {
                // a repeated kind inside one class: later attributes win, as when merged
                match entry.1.get_mut(&c.name) {
                    Some(existing) => existing.attrs.extend(c.attrs.iter().cloned()),
                    None => {
                        entry.1.insert(c.name.clone(), c.clone());
                    }
                }
            }
        }
        Ok(())
    }

    /// Whether `class` exists.
    pub fn has(&self, class: &str) -> bool {
        self.classes.contains_key(class)
    }

    /// The attribute layers for an element of `kind` in `class`, root class first.
    pub fn layers<'a>(&'a self, kind: &str, class: &str, elem: &'a Elem) -> Result<Resolved<'a>> {
        if !self.has(class) {
            return Err(elem.err(format!("unknown default class '{class}'")));
        }
        let mut chain = Vec::new();
        let mut cur = Some(class);
        while let Some(c) = cur {
            let Some((parent, kinds)) = self.classes.get(c) else {
                break;
            };
            if let Some(e) = kinds.get(kind) {
                chain.push(e);
            }
            cur = parent.as_deref();
            if chain.len() > 256 {
                break;
            }
        }
        chain.reverse();
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
