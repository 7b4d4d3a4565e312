//! Shared by the narrow-phase oracle tests: the oracle files' JSON (read with `serde_json`,
//! navigated with panicking accessors: a malformed oracle file is a broken test) and matrix
//! helpers. Each test crate uses a subset, hence the `dead_code` allowance.
#![allow(dead_code)]

use collide::glam::{DMat3, DVec3};
use collide::math::mat_from_rows;

/// A JSON value (objects keep their keys in sorted order).
#[derive(Clone, Debug)]
pub enum Json {
    Null,
    Bool(bool),
    Num(f64),
    Str(String),
    Arr(Vec<Json>),
    Obj(Vec<(String, Json)>),
}

impl Json {
    pub fn get(&self, key: &str) -> &Json {
        self.opt(key).unwrap_or_else(|| panic!("missing key {key}"))
    }
    pub fn opt(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Obj(fields) => fields.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => panic!("not an object looking up {key}"),
        }
    }
    pub fn num(&self) -> f64 {
        match self {
            Json::Num(x) => *x,
            other => panic!("not a number: {other:?}"),
        }
    }
    pub fn int(&self) -> i64 {
        self.num() as i64
    }
    pub fn bool(&self) -> bool {
        match self {
            Json::Bool(b) => *b,
            other => panic!("not a bool: {other:?}"),
        }
    }
    pub fn str(&self) -> &str {
        match self {
            Json::Str(s) => s,
            other => panic!("not a string: {other:?}"),
        }
    }
    pub fn arr(&self) -> &[Json] {
        match self {
            Json::Arr(v) => v,
            other => panic!("not an array: {other:?}"),
        }
    }
    pub fn nums(&self) -> Vec<f64> {
        self.arr().iter().map(Json::num).collect()
    }
    pub fn u32s(&self) -> Vec<u32> {
        self.arr().iter().map(|x| x.int() as u32).collect()
    }
    pub fn vec3(&self) -> DVec3 {
        let v = self.nums();
        assert_eq!(v.len(), 3, "not a 3-vector");
        DVec3::new(v[0], v[1], v[2])
    }
    /// A row-major 3×3 matrix.
    pub fn mat_rowmajor(&self) -> DMat3 {
        mat_rowmajor(&self.nums())
    }
}

impl From<serde_json::Value> for Json {
    fn from(v: serde_json::Value) -> Json {
        use serde_json::Value;
        match v {
            Value::Null => Json::Null,
            Value::Bool(b) => Json::Bool(b),
            Value::Number(n) => Json::Num(n.as_f64().expect("finite number")),
            Value::String(s) => Json::Str(s),
            Value::Array(a) => Json::Arr(a.into_iter().map(Json::from).collect()),
            Value::Object(o) => Json::Obj(o.into_iter().map(|(k, v)| (k, v.into())).collect()),
        }
    }
}

/// Parses an oracle file.
pub fn parse_json(text: &str) -> Json {
    serde_json::from_str::<serde_json::Value>(text)
        .expect("oracle file is valid JSON")
        .into()
}

pub fn mat_rowmajor(v: &[f64]) -> DMat3 {
    assert_eq!(v.len(), 9);
    mat_from_rows([v[0], v[1], v[2]], [v[3], v[4], v[5]], [v[6], v[7], v[8]])
}
