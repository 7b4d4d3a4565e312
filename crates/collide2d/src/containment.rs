//! Containment: is a shape inside the pool border (or another container), and by how much
//! does it stick out?
//!
//! # Definition
//!
//! Let `Ω` be the closed allowed region of the container (the inside of a [`Shape::Border`]
//! outline, or the convex polygon, box, circle or capsule itself) and `sd(p)` the Euclidean
//! signed distance of a point `p` to `Ω` (positive outside, minus the distance to the boundary
//! inside). For a convex shape `S` the *worst value* is `max_{p ∈ S} sd(p)`, evaluated on the
//! shape's extreme points: its polygon or segment vertices, and for circles and capsules the
//! core points widened by the radius (`sd(c) + r`, attained at `c + r·outward`). This is exact
//! for convex containers (the signed distance to a convex set is convex) and for any border
//! when the worst point is a vertex (the paper's rule R10: "every extreme point lies inside").
//! For a **non-convex** border a reflex wall corner may pierce a shape whose extreme points are
//! all inside; then each border edge crossing the shape is also a candidate, with value its
//! two-sided penetration depth into the shape, point the deepest wall point, and normal the
//! edge's inward normal.
//!
//! - `violation = max(worst value, 0)`; `contained = violation <= EPS_TOUCH` (touching the
//!   border from inside counts as contained);
//! - `point`: the worst point (also reported when contained: the point closest to leaving);
//! - `normal`: the unit inward normal of the border at the closest border point (an edge's
//!   inward normal in its face region, the direction towards the inside at a corner);
//! - `part`: for compounds and fish, the part (leaf, numbered as in [`crate::contact`]) holding
//!   the worst point; every part is checked.
//!
//! Compound and fish *containers*: a leaf counts as inside if it is inside at least one
//! container part (its value is the minimum over parts), which is conservative for leaves that
//! straddle two parts.

// Index loops mirror the math (parallel arrays of parts, poses and volumes); negated
// comparisons are deliberate: they treat NaN as "reject".
#![allow(clippy::needless_range_loop, clippy::neg_cmp_op_on_partial_ord)]

use crate::contact::{cvx, hull_circle, hull_hull, Cvx, Hull, EPS_TOUCH};
use crate::shape::{Border, Pose, Shape, FISH_PARTS};
use glam::DVec2;

/// The result of a containment query.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Containment {
    /// `violation <= EPS_TOUCH`: the shape lies inside the container (touching allowed).
    pub contained: bool,
    /// How far the shape sticks out: `max(0, max_{p ∈ shape} sd(p))` (`>= 0`).
    pub violation: f64,
    /// The worst point (world).
    pub point: DVec2,
    /// Unit inward normal of the container's boundary at the point closest to `point`.
    pub normal: DVec2,
    /// Part (leaf) index of the worst point for compounds and fish; `None` for simple shapes.
    pub part: Option<usize>,
}

/// Containment of `shape` at `ps` inside `container` at `pc` (a [`Shape::Border`], convex
/// polygon, box, circle, capsule, or a compound/fish of them). See the module documentation.
pub fn contains(container: &Shape, pc: &Pose, shape: &Shape, ps: &Pose) -> Containment {
    let mut best: Option<Cand> = None;
    let mut leaf = 0usize;
    let composite = matches!(shape, Shape::Compound(_) | Shape::Fish { .. });
    visit_leaves(shape, ps, &mut |l: Leaf, pose: &Pose| {
        let c = leaf_value(container, pc, l, pose);
        let part = if composite { Some(leaf) } else { None };
        leaf += 1;
        if let Some(c) = c {
            if best.as_ref().is_none_or(|(b, ..)| c.0 > *b) {
                best = Some((c.0, c.1, c.2, part));
            }
        }
    });
    match best {
        Some((v, point, normal, part)) => {
            let violation = if v > 0.0 { v } else { 0.0 };
            Containment {
                contained: violation <= EPS_TOUCH,
                violation,
                point,
                normal,
                part,
            }
        }
        None => Containment {
            contained: true,
            violation: 0.0,
            point: ps.pos,
            normal: DVec2::X,
            part: None,
        },
    }
}

/// (worst value, point, inward normal, part).
type Cand = (f64, DVec2, DVec2, Option<usize>);

#[derive(Clone, Copy)]
enum Leaf<'a> {
    Convex(Cvx<'a>),
    Outline(&'a Border),
}

fn visit_leaves<'a>(shape: &'a Shape, pose: &Pose, f: &mut dyn FnMut(Leaf<'a>, &Pose)) {
    match shape {
        Shape::Compound(parts) => {
            for (q, s) in parts {
                visit_leaves(s, &pose.compose(*q), f);
            }
        }
        Shape::Fish { fish, joints } => {
            let poses = fish.part_poses(*pose, *joints);
            for i in 0..FISH_PARTS {
                f(Leaf::Convex(Cvx::Poly(&fish.parts()[i])), &poses[i]);
            }
        }
        Shape::Border(b) => f(Leaf::Outline(b), pose),
        _ => {
            if let Some(c) = cvx(shape) {
                f(Leaf::Convex(c), pose)
            }
        }
    }
}

/// Worst (value, point, normal) of one shape leaf inside a container.
fn leaf_value(container: &Shape, pc: &Pose, l: Leaf, pl: &Pose) -> Option<(f64, DVec2, DVec2)> {
    match container {
        Shape::Border(border) => Some(in_border(border, pc, l, pl)),
        Shape::Compound(parts) => {
            let mut best: Option<(f64, DVec2, DVec2)> = None;
            for (q, s) in parts {
                if let Some(c) = leaf_value(s, &pc.compose(*q), l, pl) {
                    if best.is_none_or(|b| c.0 < b.0) {
                        best = Some(c);
                    }
                }
            }
            best
        }
        Shape::Fish { fish, joints } => {
            let poses = fish.part_poses(*pc, *joints);
            let mut best: Option<(f64, DVec2, DVec2)> = None;
            for i in 0..FISH_PARTS {
                let h = Hull::new(Cvx::Poly(&fish.parts()[i]), poses[i].pos, poses[i].rot());
                let c = in_convex(&h, l, pl);
                if best.is_none_or(|b| c.0 < b.0) {
                    best = Some(c);
                }
            }
            best
        }
        _ => {
            let c = cvx(container)?;
            let h = Hull::new(c, pc.pos, pc.rot());
            Some(in_convex(&h, l, pl))
        }
    }
}

/// Calls `f(point, radius)` for the extreme points of a leaf (world coordinates).
fn extreme_points(l: Leaf, pl: &Pose, f: &mut dyn FnMut(DVec2, f64)) {
    match l {
        Leaf::Convex(Cvx::Disc(c, r)) => f(pl.apply(c), r),
        Leaf::Convex(Cvx::Poly(p)) => {
            for &v in p.verts() {
                f(pl.apply(v), 0.0)
            }
        }
        Leaf::Convex(Cvx::Capsule(a, b, r)) => {
            f(pl.apply(a), r);
            f(pl.apply(b), r);
        }
        Leaf::Outline(b) => {
            for &v in b.verts() {
                f(pl.apply(v), 0.0)
            }
        }
    }
}

/// Inside a convex (possibly rounded) container hull, in world coordinates: exact.
fn in_convex(h: &Hull, l: Leaf, pl: &Pose) -> (f64, DVec2, DVec2) {
    let mut best = (f64::NEG_INFINITY, pl.pos, DVec2::X);
    extreme_points(l, pl, &mut |p, r| {
        // signed distance of p to the container, outward normal from the container to p
        let raw = hull_circle(h, p, 0.0);
        let v = raw.sep + r;
        if v > best.0 || !best.0.is_finite() {
            best = (v, p + r * raw.normal, -raw.normal);
        }
    });
    best
}

/// Signed distance of a local point to the outline (positive outside), the outward unit normal
/// at the closest boundary point, and the edge index.
fn outline_sd(b: &Border, p: DVec2) -> (f64, DVec2) {
    let verts = b.verts();
    let inward = b.inward_normals();
    let n = verts.len();
    let mut best_d2 = f64::INFINITY;
    let mut best_q = verts[0];
    let mut best_i = 0;
    let mut best_face = true;
    let mut inside = false;
    for i in 0..n {
        let (a, c) = (verts[i], verts[(i + 1) % n]);
        // crossing number (half-open rule on y)
        if (a.y > p.y) != (c.y > p.y) {
            let x = a.x + (p.y - a.y) * (c.x - a.x) / (c.y - a.y);
            if p.x < x {
                inside = !inside;
            }
        }
        let e = c - a;
        let t = ((p - a).dot(e) / e.length_squared()).clamp(0.0, 1.0);
        let t = if t.is_finite() { t } else { 0.0 };
        let q = a + t * e;
        let d2 = (p - q).length_squared();
        if d2 < best_d2 {
            best_d2 = d2;
            best_q = q;
            best_i = i;
            best_face = t > 0.0 && t < 1.0;
        }
    }
    let d = best_d2.sqrt();
    let outward_edge = -inward[best_i];
    let outward = if d > 0.0 && !best_face {
        let dir = if inside { best_q - p } else { p - best_q };
        (dir / d).try_normalize().unwrap_or(outward_edge)
    } else {
        outward_edge
    };
    (if inside { -d } else { d }, outward)
}

fn border_is_convex(b: &Border) -> bool {
    let v = b.verts();
    let n = v.len();
    (0..n).all(|i| (v[(i + 1) % n] - v[i]).perp_dot(v[(i + 2) % n] - v[(i + 1) % n]) >= 0.0)
}

/// Inside a border outline: extreme points, plus piercing edges for non-convex outlines.
fn in_border(b: &Border, pc: &Pose, l: Leaf, pl: &Pose) -> (f64, DVec2, DVec2) {
    let rot = pc.rot();
    let mut best = (f64::NEG_INFINITY, pl.pos, DVec2::X);
    extreme_points(l, pl, &mut |p, r| {
        let local = pc.inverse_apply(p);
        let (sd, out) = outline_sd(b, local);
        let v = sd + r;
        if v > best.0 || !best.0.is_finite() {
            best = (v, p + r * rot.rotate(out), -rot.rotate(out));
        }
    });
    if let Leaf::Convex(c) = l {
        if !border_is_convex(b) {
            // the leaf in the border's frame
            let rel_pos = pc.inverse_apply(pl.pos);
            let (sn, cs) = (pl.angle - pc.angle).sin_cos();
            let h = Hull::new(c, rel_pos, DVec2::new(cs, sn));
            let verts = b.verts();
            let n = verts.len();
            for i in 0..n {
                let edge = Hull::segment(verts[i], verts[(i + 1) % n], 0.0);
                let raw = match h.core {
                    crate::contact::Core::Point(p) => hull_circle(&edge, p, h.radius),
                    _ => hull_hull(&edge, &h),
                };
                let depth = -raw.sep;
                if depth > 0.0 && depth > best.0 {
                    best = (depth, pc.apply(raw.wa), rot.rotate(b.inward_normals()[i]));
                }
            }
        }
    }
    best
}
