//! The JSON scene and query format of `collide 2d`.
//!
//! Input: `{"shapes":[…],"queries":[…]}` (`queries` may be omitted). Shapes, with `pos`
//! (default `[0,0]`) and `angle` (radians, default `0`) where listed:
//!
//! | `type` | fields |
//! | --- | --- |
//! | `circle` | `radius`, `pos` |
//! | `box` | `half: [hx, hy]`, `pos`, `angle` |
//! | `polygon` | `vertices: [[x, y], …]` (convex, counter-clockwise, local frame), `pos`, `angle` |
//! | `segment` | `a`, `b` (world) |
//! | `capsule` | `a`, `b`, `radius` (world) |
//! | `border` | `vertices` (simple, counter-clockwise, world; the inside is the pool) |
//! | `compound` | `parts: [shape, …]` (circle, box, polygon, segment, capsule; their `pos`/`angle`/points are relative to the compound), `pos`, `angle` |
//! | `fish` | `pos`, `angle`, `joints: [j1, j2, j3]` (default `0`) |
//!
//! Queries (`a`, `b`, `container`, `shape` index `shapes`):
//!
//! | `op` | fields | result |
//! | --- | --- | --- |
//! | `contact` | `a`, `b`, `margin` (default `0`) | `intersect`, `speculative`, `depth`, `normal`, `mtv`, `action_point`, `points: [{point, separation, feature}]`, `part_a`, `part_b` |
//! | `distance` | `a`, `b` | `distance` (signed), `normal`, `point_a`, `point_b` |
//! | `contains` | `container`, `shape` | `contained`, `violation`, `point`, `normal`, `part` |
//! | `toi` | `a`, `b`, `motion_a`/`motion_b: {vel: [vx, vy], omega}` (default at rest), `dt` | `hit`, `toi`, `point`, `normal` |
//!
//! A contact query always yields a result: a pair separated by more than the margin gives
//! `intersect: false`, `depth = −distance`, the distance normal, `mtv = depth·normal`, the
//! midpoint of the closest points as `action_point`, and no points. `part_a`/`part_b` are
//! `null` unless the shape is a compound or a fish. Output: `{"results":[…]}`, one per query,
//! in order. Errors name the shape or query and the field, e.g. `shapes[2].radius: missing`.

use glam::DVec2;
use serde_json::{json, Map, Value};
use thiserror::Error;

use crate::ccd::{self, Motion};
use crate::contact::contact;
use crate::containment::contains;
use crate::distance::distance;
use crate::shape::{Pose, Shape};

/// Why a scene was rejected.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum SceneError {
    /// The text is not JSON.
    #[error("invalid JSON at line {line}, column {column}: {message}")]
    Json {
        /// Line (1-based).
        line: usize,
        /// Column (1-based).
        column: usize,
        /// Parser message.
        message: String,
    },
    /// A value is missing, of the wrong kind, out of range or geometrically invalid.
    #[error("{path}: {message}")]
    Invalid {
        /// Where, e.g. `shapes[2].vertices[1]` or `queries[0].b`.
        path: String,
        /// What is wrong.
        message: String,
    },
}

fn invalid(path: &str, message: impl Into<String>) -> SceneError {
    SceneError::Invalid {
        path: path.to_string(),
        message: message.into(),
    }
}

/// A shape with its world pose.
#[derive(Clone, Debug, PartialEq)]
pub struct SceneShape {
    /// The shape in its local frame.
    pub shape: Shape,
    /// Its pose (identity for segments, capsules and borders, which are given in world
    /// coordinates).
    pub pose: Pose,
}

/// One query of the scene.
#[derive(Clone, Debug, PartialEq)]
pub enum Query {
    /// Contact with a speculative margin.
    Contact {
        /// Shape A.
        a: usize,
        /// Shape B.
        b: usize,
        /// Margin (≥ 0).
        margin: f64,
    },
    /// Signed distance.
    Distance {
        /// Shape A.
        a: usize,
        /// Shape B.
        b: usize,
    },
    /// Containment of `shape` in `container`.
    Contains {
        /// The container (normally the border).
        container: usize,
        /// The contained shape.
        shape: usize,
    },
    /// Time of impact within `[0, dt]`.
    Toi {
        /// Shape A.
        a: usize,
        /// Shape B.
        b: usize,
        /// Motion of A.
        motion_a: Motion,
        /// Motion of B.
        motion_b: Motion,
        /// Time horizon (seconds, ≥ 0).
        dt: f64,
    },
}

/// A parsed scene.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Scene {
    /// Shapes, in input order.
    pub shapes: Vec<SceneShape>,
    /// Queries, in input order.
    pub queries: Vec<Query>,
}

// ---------------------------------------------------------------------------------------------
// field readers

fn obj<'a>(v: &'a Value, path: &str) -> Result<&'a Map<String, Value>, SceneError> {
    v.as_object()
        .ok_or_else(|| invalid(path, "expected an object"))
}

fn field<'a>(o: &'a Map<String, Value>, path: &str, key: &str) -> Result<&'a Value, SceneError> {
    o.get(key)
        .ok_or_else(|| invalid(&format!("{path}.{key}"), "missing"))
}

fn num_at(v: &Value, path: &str) -> Result<f64, SceneError> {
    let x = v
        .as_f64()
        .ok_or_else(|| invalid(path, "expected a number"))?;
    if x.is_finite() {
        Ok(x)
    } else {
        Err(invalid(path, "not finite"))
    }
}

fn num(o: &Map<String, Value>, path: &str, key: &str) -> Result<f64, SceneError> {
    num_at(field(o, path, key)?, &format!("{path}.{key}"))
}

fn num_or(o: &Map<String, Value>, path: &str, key: &str, default: f64) -> Result<f64, SceneError> {
    match o.get(key) {
        None => Ok(default),
        Some(v) => num_at(v, &format!("{path}.{key}")),
    }
}

fn vec2_at(v: &Value, path: &str) -> Result<DVec2, SceneError> {
    let a = v
        .as_array()
        .filter(|a| a.len() == 2)
        .ok_or_else(|| invalid(path, "expected [x, y]"))?;
    Ok(DVec2::new(
        num_at(&a[0], &format!("{path}[0]"))?,
        num_at(&a[1], &format!("{path}[1]"))?,
    ))
}

fn vec2(o: &Map<String, Value>, path: &str, key: &str) -> Result<DVec2, SceneError> {
    vec2_at(field(o, path, key)?, &format!("{path}.{key}"))
}

fn vec2_or(o: &Map<String, Value>, path: &str, key: &str) -> Result<DVec2, SceneError> {
    match o.get(key) {
        None => Ok(DVec2::ZERO),
        Some(v) => vec2_at(v, &format!("{path}.{key}")),
    }
}

fn points(o: &Map<String, Value>, path: &str, key: &str) -> Result<Vec<DVec2>, SceneError> {
    let p = format!("{path}.{key}");
    let a = field(o, path, key)?
        .as_array()
        .ok_or_else(|| invalid(&p, "expected an array of [x, y]"))?;
    a.iter()
        .enumerate()
        .map(|(i, v)| vec2_at(v, &format!("{p}[{i}]")))
        .collect()
}

fn pose(o: &Map<String, Value>, path: &str) -> Result<Pose, SceneError> {
    Ok(Pose::new(
        vec2_or(o, path, "pos")?,
        num_or(o, path, "angle", 0.0)?,
    ))
}

fn index(o: &Map<String, Value>, path: &str, key: &str, n: usize) -> Result<usize, SceneError> {
    let p = format!("{path}.{key}");
    let v = field(o, path, key)?;
    let i = v
        .as_u64()
        .ok_or_else(|| invalid(&p, "expected a shape index (a non-negative integer)"))?;
    if i as u128 >= n as u128 {
        return Err(invalid(&p, format!("index {i} out of range ({n} shapes)")));
    }
    Ok(i as usize)
}

fn shape_err(path: &str, key: &str, e: crate::shape::ShapeError) -> SceneError {
    invalid(&format!("{path}.{key}"), e.to_string())
}

// ---------------------------------------------------------------------------------------------
// shapes

const SHAPE_TYPES: &str = "circle, box, polygon, segment, capsule, border, compound, fish";

/// Parses one shape; `part` restricts the types to convex compound parts.
fn parse_shape(v: &Value, path: &str, part: bool) -> Result<SceneShape, SceneError> {
    let o = obj(v, path)?;
    let ty_path = format!("{path}.type");
    let ty = field(o, path, "type")?
        .as_str()
        .ok_or_else(|| invalid(&ty_path, "expected a string"))?;
    let s = match ty {
        "circle" => {
            let shape = Shape::circle(num(o, path, "radius")?).map_err(|e| shape_err(path, "radius", e))?;
            SceneShape { shape, pose: Pose::new(vec2_or(o, path, "pos")?, num_or(o, path, "angle", 0.0)?) }
        }
        "box" => {
            let shape = Shape::rect(vec2(o, path, "half")?).map_err(|e| shape_err(path, "half", e))?;
            SceneShape { shape, pose: pose(o, path)? }
        }
        "polygon" => {
            let shape = Shape::polygon(points(o, path, "vertices")?).map_err(|e| shape_err(path, "vertices", e))?;
            SceneShape { shape, pose: pose(o, path)? }
        }
        "segment" => {
            let shape = Shape::segment(vec2(o, path, "a")?, vec2(o, path, "b")?).map_err(|e| shape_err(path, "b", e))?;
            SceneShape { shape, pose: pose(o, path)? }
        }
        "capsule" => {
            let (a, b) = (vec2(o, path, "a")?, vec2(o, path, "b")?);
            let shape = Shape::capsule(a, b, num(o, path, "radius")?).map_err(|e| shape_err(path, "radius", e))?;
            SceneShape { shape, pose: pose(o, path)? }
        }
        "border" if !part => {
            let shape = Shape::border(points(o, path, "vertices")?).map_err(|e| shape_err(path, "vertices", e))?;
            SceneShape { shape, pose: Pose::IDENTITY }
        }
        "compound" if !part => {
            let pp = format!("{path}.parts");
            let arr = field(o, path, "parts")?.as_array().ok_or_else(|| invalid(&pp, "expected an array of shapes"))?;
            if arr.is_empty() {
                return Err(invalid(&pp, "a compound needs at least one part"));
            }
            let mut parts = Vec::with_capacity(arr.len());
            for (k, pv) in arr.iter().enumerate() {
                let ps = parse_shape(pv, &format!("{pp}[{k}]"), true)?;
                parts.push((ps.pose, ps.shape));
            }
            let shape = Shape::compound(parts).map_err(|e| shape_err(path, "parts", e))?;
            SceneShape { shape, pose: pose(o, path)? }
        }
        "fish" if !part => {
            let mut joints = [0.0; 3];
            if let Some(j) = o.get("joints") {
                let jp = format!("{path}.joints");
                let a = j.as_array().filter(|a| a.len() == 3).ok_or_else(|| invalid(&jp, "expected [j1, j2, j3]"))?;
                for k in 0..3 {
                    joints[k] = num_at(&a[k], &format!("{jp}[{k}]"))?;
                }
            }
            let shape = Shape::fish(joints).map_err(|e| shape_err(path, "joints", e))?;
            SceneShape { shape, pose: pose(o, path)? }
        }
        "border" | "compound" | "fish" => {
            return Err(invalid(&ty_path, format!("a {ty} cannot be a compound part (parts are circle, box, polygon, segment, capsule)")))
        }
        other => return Err(invalid(&ty_path, format!("unknown shape type {other:?} (expected one of {SHAPE_TYPES})"))),
    };
    Ok(s)
}

// ---------------------------------------------------------------------------------------------
// queries

fn motion(o: &Map<String, Value>, path: &str, key: &str) -> Result<Motion, SceneError> {
    let Some(v) = o.get(key) else {
        return Ok(Motion::default());
    };
    let p = format!("{path}.{key}");
    let m = obj(v, &p)?;
    Ok(Motion {
        vel: vec2_or(m, &p, "vel")?,
        omega: num_or(m, &p, "omega", 0.0)?,
    })
}

fn parse_query(v: &Value, path: &str, n: usize) -> Result<Query, SceneError> {
    let o = obj(v, path)?;
    let op_path = format!("{path}.op");
    let op = field(o, path, "op")?
        .as_str()
        .ok_or_else(|| invalid(&op_path, "expected a string"))?;
    Ok(match op {
        "contact" => {
            let margin = num_or(o, path, "margin", 0.0)?;
            if margin < 0.0 {
                return Err(invalid(
                    &format!("{path}.margin"),
                    format!("must be >= 0, got {margin}"),
                ));
            }
            Query::Contact {
                a: index(o, path, "a", n)?,
                b: index(o, path, "b", n)?,
                margin,
            }
        }
        "distance" => Query::Distance {
            a: index(o, path, "a", n)?,
            b: index(o, path, "b", n)?,
        },
        "contains" => Query::Contains {
            container: index(o, path, "container", n)?,
            shape: index(o, path, "shape", n)?,
        },
        "toi" => {
            let dt = num(o, path, "dt")?;
            if dt < 0.0 {
                return Err(invalid(
                    &format!("{path}.dt"),
                    format!("must be >= 0, got {dt}"),
                ));
            }
            Query::Toi {
                a: index(o, path, "a", n)?,
                b: index(o, path, "b", n)?,
                motion_a: motion(o, path, "motion_a")?,
                motion_b: motion(o, path, "motion_b")?,
                dt,
            }
        }
        other => {
            return Err(invalid(
                &op_path,
                format!("unknown op {other:?} (expected one of contact, distance, contains, toi)"),
            ))
        }
    })
}

/// Parses and validates a scene (shapes with their poses, and queries).
pub fn parse_scene(json: &str) -> Result<Scene, SceneError> {
    let root: Value = serde_json::from_str(json).map_err(|e| SceneError::Json {
        line: e.line(),
        column: e.column(),
        message: e.to_string(),
    })?;
    let o = obj(&root, "scene")?;
    let sv = o
        .get("shapes")
        .ok_or_else(|| invalid("shapes", "missing"))?;
    let sa = sv
        .as_array()
        .ok_or_else(|| invalid("shapes", "expected an array"))?;
    let shapes = sa
        .iter()
        .enumerate()
        .map(|(i, v)| parse_shape(v, &format!("shapes[{i}]"), false))
        .collect::<Result<Vec<_>, _>>()?;
    let queries = match o.get("queries") {
        None => Vec::new(),
        Some(qv) => {
            let qa = qv
                .as_array()
                .ok_or_else(|| invalid("queries", "expected an array"))?;
            qa.iter()
                .enumerate()
                .map(|(i, v)| parse_query(v, &format!("queries[{i}]"), shapes.len()))
                .collect::<Result<Vec<_>, _>>()?
        }
    };
    Ok(Scene { shapes, queries })
}

// ---------------------------------------------------------------------------------------------
// evaluation

fn v2(v: DVec2) -> Value {
    json!([v.x, v.y])
}

fn part(p: Option<usize>) -> Value {
    p.map_or(Value::Null, |i| json!(i))
}

/// Evaluates one query (indices must be in range, as [`parse_scene`] guarantees).
pub fn eval_query(scene: &Scene, q: &Query) -> Value {
    let s = |i: usize| (&scene.shapes[i].shape, &scene.shapes[i].pose);
    match *q {
        Query::Contact { a, b, margin } => {
            let ((sa, pa), (sb, pb)) = (s(a), s(b));
            match contact(sa, pa, sb, pb, margin) {
                Some(c) => json!({
                    "intersect": c.intersect,
                    "speculative": c.speculative,
                    "depth": c.depth,
                    "normal": v2(c.normal),
                    "mtv": v2(c.mtv),
                    "action_point": v2(c.action_point),
                    "points": c.points.iter().map(|p| json!({
                        "point": v2(p.point), "separation": p.separation, "feature": p.feature
                    })).collect::<Vec<_>>(),
                    "part_a": part(c.part_a),
                    "part_b": part(c.part_b),
                }),
                None => {
                    let d = distance(sa, pa, sb, pb);
                    let depth = -d.distance;
                    json!({
                        "intersect": false,
                        "speculative": false,
                        "depth": depth,
                        "normal": v2(d.normal),
                        "mtv": v2(depth * d.normal),
                        "action_point": v2(0.5 * (d.point_a + d.point_b)),
                        "points": [],
                        "part_a": Value::Null,
                        "part_b": Value::Null,
                    })
                }
            }
        }
        Query::Distance { a, b } => {
            let ((sa, pa), (sb, pb)) = (s(a), s(b));
            let d = distance(sa, pa, sb, pb);
            json!({"distance": d.distance, "normal": v2(d.normal), "point_a": v2(d.point_a), "point_b": v2(d.point_b)})
        }
        Query::Contains { container, shape } => {
            let ((sc, pc), (ss, ps)) = (s(container), s(shape));
            let c = contains(sc, pc, ss, ps);
            json!({"contained": c.contained, "violation": c.violation, "point": v2(c.point), "normal": v2(c.normal), "part": part(c.part)})
        }
        Query::Toi {
            a,
            b,
            motion_a,
            motion_b,
            dt,
        } => {
            let ((sa, pa), (sb, pb)) = (s(a), s(b));
            let t = ccd::toi(sa, pa, &motion_a, sb, pb, &motion_b, dt);
            json!({"hit": t.hit, "toi": t.toi, "point": v2(t.point), "normal": v2(t.normal)})
        }
    }
}

/// Runs a scene: parses `json`, evaluates every query in order, and returns
/// `{"results":[…]}` as compact JSON text.
pub fn run(json: &str) -> Result<String, SceneError> {
    let scene = parse_scene(json)?;
    let results: Vec<Value> = scene
        .queries
        .iter()
        .map(|q| eval_query(&scene, q))
        .collect();
    Ok(json!({ "results": results }).to_string())
}

impl Scene {
    /// Every intersecting pair `(i, j, contact)`, `i < j`, found by the sort-and-sweep broad
    /// phase on the shapes' AABBs followed by the narrow phase (margin `0`), in pair order.
    pub fn intersecting_pairs(&self) -> Vec<(usize, usize, crate::contact::Contact)> {
        let aabbs: Vec<_> = self
            .shapes
            .iter()
            .map(|s| crate::bounding::aabb(&s.shape, &s.pose))
            .collect();
        let mut pairs = Vec::new();
        crate::broad::candidate_pairs(&aabbs, &mut pairs);
        pairs
            .into_iter()
            .filter_map(|(i, j)| {
                let (a, b) = (&self.shapes[i], &self.shapes[j]);
                contact(&a.shape, &a.pose, &b.shape, &b.pose, 0.0)
                    .filter(|c| c.intersect)
                    .map(|c| (i, j, c))
            })
            .collect()
    }
}
