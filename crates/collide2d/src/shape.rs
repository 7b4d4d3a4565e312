//! Shapes in their local frames, poses, and the articulated robot fish.
//!
//! Conventions: SI metres, radians, `f64`; polygons are convex with counter-clockwise vertices
//! and outward unit normals; a [`Pose`] maps local coordinates to world coordinates
//! (`world = pos + R(angle) · local`).

use glam::DVec2;
use thiserror::Error;

/// Why a shape was rejected at construction.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum ShapeError {
    /// A coordinate, size or angle is NaN or infinite.
    #[error("{what} is not finite")]
    NotFinite {
        /// Which value.
        what: &'static str,
    },
    /// A radius or half-size is not positive.
    #[error("{what} must be positive, got {value}")]
    NotPositive {
        /// Which value.
        what: &'static str,
        /// The value given.
        value: f64,
    },
    /// Too few vertices.
    #[error("a {what} needs at least {min} vertices, got {got}")]
    TooFewVertices {
        /// Polygon or border.
        what: &'static str,
        /// Minimum count.
        min: usize,
        /// Count given.
        got: usize,
    },
    /// Two consecutive vertices coincide, or three are collinear.
    #[error("vertices {index} and {next} are coincident or collinear with their neighbour")]
    Degenerate {
        /// First vertex.
        index: usize,
        /// Next vertex.
        next: usize,
    },
    /// The polygon is not convex or not counter-clockwise.
    #[error("polygon is not convex and counter-clockwise at vertex {index}")]
    NotConvexCcw {
        /// The offending vertex.
        index: usize,
    },
    /// The border outline crosses itself or is clockwise.
    #[error("border outline is not a simple counter-clockwise polygon ({reason})")]
    BadBorder {
        /// What is wrong.
        reason: &'static str,
    },
}

fn finite(v: f64, what: &'static str) -> Result<f64, ShapeError> {
    if v.is_finite() {
        Ok(v)
    } else {
        Err(ShapeError::NotFinite { what })
    }
}

fn positive(v: f64, what: &'static str) -> Result<f64, ShapeError> {
    finite(v, what)?;
    if v > 0.0 {
        Ok(v)
    } else {
        Err(ShapeError::NotPositive { what, value: v })
    }
}

fn finite2(v: DVec2, what: &'static str) -> Result<DVec2, ShapeError> {
    if v.is_finite() {
        Ok(v)
    } else {
        Err(ShapeError::NotFinite { what })
    }
}

/// A rigid placement: translation and rotation angle (counter-clockwise, radians).
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Pose {
    /// World position of the local origin.
    pub pos: DVec2,
    /// Rotation angle.
    pub angle: f64,
}

impl Pose {
    /// The identity pose.
    pub const IDENTITY: Pose = Pose {
        pos: DVec2::ZERO,
        angle: 0.0,
    };

    /// A pose from position and angle.
    pub fn new(pos: DVec2, angle: f64) -> Pose {
        Pose { pos, angle }
    }

    /// The rotation as the unit vector `(cos, sin)`.
    #[inline]
    pub fn rot(&self) -> DVec2 {
        let (s, c) = self.angle.sin_cos();
        DVec2::new(c, s)
    }

    /// Local point → world point.
    #[inline]
    pub fn apply(&self, p: DVec2) -> DVec2 {
        self.pos + self.rot().rotate(p)
    }

    /// Local direction → world direction.
    #[inline]
    pub fn apply_dir(&self, d: DVec2) -> DVec2 {
        self.rot().rotate(d)
    }

    /// World point → local point.
    #[inline]
    pub fn inverse_apply(&self, p: DVec2) -> DVec2 {
        let r = self.rot();
        DVec2::new(r.x, -r.y).rotate(p - self.pos)
    }

    /// `self ∘ child`: a pose given relative to `self`, in world coordinates.
    #[inline]
    pub fn compose(&self, child: Pose) -> Pose {
        Pose {
            pos: self.apply(child.pos),
            angle: self.angle + child.angle,
        }
    }

    /// Rejects NaN and infinities.
    pub fn validate(&self) -> Result<(), ShapeError> {
        finite2(self.pos, "pose position")?;
        finite(self.angle, "pose angle")?;
        Ok(())
    }
}

/// A convex polygon: counter-clockwise vertices with outward unit edge normals
/// (`normals[i]` belongs to the edge from `verts[i]` to `verts[i + 1]`).
#[derive(Clone, Debug, PartialEq)]
pub struct ConvexPolygon {
    verts: Vec<DVec2>,
    normals: Vec<DVec2>,
    centroid: DVec2,
}

impl ConvexPolygon {
    /// Validates and builds a polygon: at least 3 finite vertices, convex, counter-clockwise,
    /// with no coincident or collinear consecutive vertices.
    pub fn new(verts: Vec<DVec2>) -> Result<ConvexPolygon, ShapeError> {
        let n = verts.len();
        if n < 3 {
            return Err(ShapeError::TooFewVertices {
                what: "polygon",
                min: 3,
                got: n,
            });
        }
        for v in &verts {
            finite2(*v, "polygon vertex")?;
        }
        let scale = verts
            .iter()
            .fold(0.0f64, |m, v| m.max(v.abs().max_element()))
            .max(1e-300);
        let mut normals = Vec::with_capacity(n);
        for i in 0..n {
            let (a, b, c) = (verts[i], verts[(i + 1) % n], verts[(i + 2) % n]);
            let e = b - a;
            if e.length() <= 1e-12 * scale {
                return Err(ShapeError::Degenerate {
                    index: i,
                    next: (i + 1) % n,
                });
            }
            let cross = e.perp_dot(c - b);
            if cross.abs() <= 1e-12 * scale * scale {
                return Err(ShapeError::Degenerate {
                    index: (i + 1) % n,
                    next: (i + 2) % n,
                });
            }
            if cross < 0.0 {
                return Err(ShapeError::NotConvexCcw { index: (i + 1) % n });
            }
            normals.push(DVec2::new(e.y, -e.x).normalize());
        }
        // a star polygon can turn left at every vertex; its total turning exceeds one turn
        let mut turning = 0.0;
        for i in 0..n {
            let e0 = verts[(i + 1) % n] - verts[i];
            let e1 = verts[(i + 2) % n] - verts[(i + 1) % n];
            turning += e0.perp_dot(e1).atan2(e0.dot(e1));
        }
        if turning > std::f64::consts::TAU + 1e-9 {
            return Err(ShapeError::NotConvexCcw { index: 0 });
        }
        // area centroid
        let mut area = 0.0;
        let mut c = DVec2::ZERO;
        for i in 0..n {
            let (p, q) = (verts[i] - verts[0], verts[(i + 1) % n] - verts[0]);
            let a = 0.5 * p.perp_dot(q);
            area += a;
            c += a * (p + q) / 3.0;
        }
        let centroid = verts[0] + c / area;
        Ok(ConvexPolygon {
            verts,
            normals,
            centroid,
        })
    }

    /// An axis-aligned box of half-extents `half` centred at the origin.
    pub fn rect(half: DVec2) -> Result<ConvexPolygon, ShapeError> {
        positive(half.x, "box half-width")?;
        positive(half.y, "box half-height")?;
        ConvexPolygon::new(vec![
            DVec2::new(-half.x, -half.y),
            DVec2::new(half.x, -half.y),
            DVec2::new(half.x, half.y),
            DVec2::new(-half.x, half.y),
        ])
    }

    /// Vertices, counter-clockwise.
    pub fn verts(&self) -> &[DVec2] {
        &self.verts
    }

    /// Outward unit normals, one per edge.
    pub fn normals(&self) -> &[DVec2] {
        &self.normals
    }

    /// Area centroid.
    pub fn centroid(&self) -> DVec2 {
        self.centroid
    }
}

/// The closed pool outline: a simple counter-clockwise polygon (not necessarily convex) whose
/// inside is the allowed region. Each edge carries its inward unit normal; corners are handled
/// as vertices of the chain, so no "ghost" normals appear where two edges meet.
#[derive(Clone, Debug, PartialEq)]
pub struct Border {
    verts: Vec<DVec2>,
    inward: Vec<DVec2>,
}

impl Border {
    /// Validates and builds the outline (at least 3 vertices, simple, counter-clockwise).
    pub fn new(verts: Vec<DVec2>) -> Result<Border, ShapeError> {
        let n = verts.len();
        if n < 3 {
            return Err(ShapeError::TooFewVertices {
                what: "border",
                min: 3,
                got: n,
            });
        }
        for v in &verts {
            finite2(*v, "border vertex")?;
        }
        let mut area = 0.0;
        let mut inward = Vec::with_capacity(n);
        for i in 0..n {
            let (a, b) = (verts[i], verts[(i + 1) % n]);
            let e = b - a;
            if e.length_squared() == 0.0 {
                return Err(ShapeError::Degenerate {
                    index: i,
                    next: (i + 1) % n,
                });
            }
            area += a.perp_dot(b);
            inward.push(DVec2::new(-e.y, e.x).normalize());
        }
        if area <= 0.0 {
            return Err(ShapeError::BadBorder {
                reason: "clockwise or zero area",
            });
        }
        // no two non-adjacent edges may intersect
        for i in 0..n {
            for j in i + 1..n {
                if j == i + 1 || (i == 0 && j == n - 1) {
                    continue;
                }
                let (a, b) = (verts[i], verts[(i + 1) % n]);
                let (c, d) = (verts[j], verts[(j + 1) % n]);
                let d1 = (b - a).perp_dot(c - a);
                let d2 = (b - a).perp_dot(d - a);
                let d3 = (d - c).perp_dot(a - c);
                let d4 = (d - c).perp_dot(b - c);
                if d1 * d2 < 0.0 && d3 * d4 < 0.0 {
                    return Err(ShapeError::BadBorder {
                        reason: "edges cross",
                    });
                }
            }
        }
        Ok(Border { verts, inward })
    }

    /// Vertices, counter-clockwise.
    pub fn verts(&self) -> &[DVec2] {
        &self.verts
    }

    /// Inward unit normals, one per edge (edge `i` runs from vertex `i` to `i + 1`).
    pub fn inward_normals(&self) -> &[DVec2] {
        &self.inward
    }
}

/// Dimensions of the articulated robot fish (metres). The body is centred at the fish origin
/// and points along local +x; the tail extends toward −x.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FishDims {
    /// Body length along x.
    pub body_length: f64,
    /// Body width along y.
    pub body_width: f64,
    /// Pectoral fin length (pointing backwards from the body's side).
    pub fin_length: f64,
    /// Pectoral fin width.
    pub fin_width: f64,
    /// Length of each of the three tail links.
    pub link_length: f64,
    /// Width of the tail links at their front.
    pub link_width: f64,
    /// Caudal (tail) fin length.
    pub caudal_length: f64,
    /// Caudal fin span.
    pub caudal_span: f64,
}

impl Default for FishDims {
    /// Proportions of the URWPGSim2D fish (about 0.45 m long).
    fn default() -> Self {
        FishDims {
            body_length: 0.20,
            body_width: 0.08,
            fin_length: 0.06,
            fin_width: 0.02,
            link_length: 0.05,
            link_width: 0.05,
            caudal_length: 0.06,
            caudal_span: 0.10,
        }
    }
}

/// Number of parts of a fish: body, left fin, right fin, three tail links, caudal fin.
pub const FISH_PARTS: usize = 7;

/// Names of the fish parts, in part-id order.
pub const FISH_PART_NAMES: [&str; FISH_PARTS] = [
    "body",
    "left_fin",
    "right_fin",
    "tail1",
    "tail2",
    "tail3",
    "caudal_fin",
];

/// The articulated robot fish: seven convex parts whose poses follow from a base pose and three
/// tail joint angles (each joint at the rear of the previous segment).
#[derive(Clone, Debug, PartialEq)]
pub struct Fish {
    dims: FishDims,
    /// Part polygons in their part frames.
    parts: [ConvexPolygon; FISH_PARTS],
}

impl Fish {
    /// Builds the part polygons.
    pub fn new(dims: FishDims) -> Result<Fish, ShapeError> {
        for (v, what) in [
            (dims.body_length, "fish body length"),
            (dims.body_width, "fish body width"),
            (dims.fin_length, "fish fin length"),
            (dims.fin_width, "fish fin width"),
            (dims.link_length, "fish tail link length"),
            (dims.link_width, "fish tail link width"),
            (dims.caudal_length, "fish caudal fin length"),
            (dims.caudal_span, "fish caudal fin span"),
        ] {
            positive(v, what)?;
        }
        let (l, w) = (dims.body_length, dims.body_width);
        // body: a hexagon, pointed at the head
        let body = ConvexPolygon::new(vec![
            DVec2::new(-0.5 * l, -0.4 * w),
            DVec2::new(0.25 * l, -0.5 * w),
            DVec2::new(0.5 * l, 0.0),
            DVec2::new(0.25 * l, 0.5 * w),
            DVec2::new(-0.5 * l, 0.4 * w),
            DVec2::new(-0.55 * l, 0.0),
        ])?;
        let fin = |side: f64| {
            let (fl, fw) = (dims.fin_length, dims.fin_width);
            let mut v = vec![
                DVec2::new(0.0, 0.0),
                DVec2::new(-fl, side * 0.6 * fl),
                DVec2::new(-fl + fw, side * 0.6 * fl + side * fw),
                DVec2::new(fw, side * fw),
            ];
            // the left fin (side +1) is listed clockwise: reverse it to counter-clockwise
            if side > 0.0 {
                v.reverse();
            }
            ConvexPolygon::new(v)
        };
        let link = |k: f64| {
            let (ll, lw) = (dims.link_length, dims.link_width * k);
            ConvexPolygon::new(vec![
                DVec2::new(-ll, -0.35 * lw),
                DVec2::new(0.0, -0.5 * lw),
                DVec2::new(0.0, 0.5 * lw),
                DVec2::new(-ll, 0.35 * lw),
            ])
        };
        let (cl, cs) = (dims.caudal_length, dims.caudal_span);
        let caudal = ConvexPolygon::new(vec![
            DVec2::new(0.0, -0.05 * cs),
            DVec2::new(0.0, 0.05 * cs),
            DVec2::new(-cl, 0.5 * cs),
            DVec2::new(-cl, -0.5 * cs),
        ])?;
        Ok(Fish {
            dims,
            parts: [
                body,
                fin(1.0)?,
                fin(-1.0)?,
                link(1.0)?,
                link(0.7)?,
                link(0.5)?,
                caudal,
            ],
        })
    }

    /// Dimensions.
    pub fn dims(&self) -> &FishDims {
        &self.dims
    }

    /// Part polygons in their own frames, in part-id order.
    pub fn parts(&self) -> &[ConvexPolygon; FISH_PARTS] {
        &self.parts
    }

    /// World poses of the parts for base pose `base` and tail joint angles `joints`
    /// (forward kinematics down the tail chain).
    pub fn part_poses(&self, base: Pose, joints: [f64; 3]) -> [Pose; FISH_PARTS] {
        let d = &self.dims;
        let l = d.body_length;
        let fin_y = 0.45 * d.body_width;
        let left = base.compose(Pose::new(DVec2::new(0.05 * l, fin_y), 0.0));
        let right = base.compose(Pose::new(DVec2::new(0.05 * l, -fin_y), 0.0));
        let t1 = base.compose(Pose::new(DVec2::new(-0.55 * l, 0.0), joints[0]));
        let t2 = t1.compose(Pose::new(DVec2::new(-d.link_length, 0.0), joints[1]));
        let t3 = t2.compose(Pose::new(DVec2::new(-d.link_length, 0.0), joints[2]));
        let caudal = t3.compose(Pose::new(DVec2::new(-d.link_length, 0.0), 0.0));
        [base, left, right, t1, t2, t3, caudal]
    }
}

/// A shape in its local frame.
#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    /// Disc of the given radius centred at the origin.
    Circle {
        /// Radius (> 0).
        radius: f64,
    },
    /// Box with half-extents `half`, centred at the origin (oriented by its pose).
    Box {
        /// Half-extents (> 0).
        half: DVec2,
        /// The same box as a polygon (for the general algorithms).
        poly: ConvexPolygon,
    },
    /// Convex polygon.
    Polygon(ConvexPolygon),
    /// Two-sided segment from `a` to `b`.
    Segment {
        /// First end.
        a: DVec2,
        /// Second end.
        b: DVec2,
    },
    /// Capsule: segment `a`–`b` swept by a disc of `radius`.
    Capsule {
        /// First end of the core segment.
        a: DVec2,
        /// Second end of the core segment.
        b: DVec2,
        /// Radius (> 0).
        radius: f64,
    },
    /// Closed pool outline; the inside is allowed.
    Border(Border),
    /// Rigid compound of convex parts, each with a pose relative to the compound's frame.
    Compound(Vec<(Pose, Shape)>),
    /// Articulated fish with its tail joint angles.
    Fish {
        /// Geometry.
        fish: Box<Fish>,
        /// Tail joint angles (radians).
        joints: [f64; 3],
    },
}

impl Shape {
    /// A circle.
    pub fn circle(radius: f64) -> Result<Shape, ShapeError> {
        Ok(Shape::Circle {
            radius: positive(radius, "circle radius")?,
        })
    }

    /// A box of half-extents `half`.
    pub fn rect(half: DVec2) -> Result<Shape, ShapeError> {
        Ok(Shape::Box {
            half,
            poly: ConvexPolygon::rect(half)?,
        })
    }

    /// A convex polygon (validated).
    pub fn polygon(verts: Vec<DVec2>) -> Result<Shape, ShapeError> {
        Ok(Shape::Polygon(ConvexPolygon::new(verts)?))
    }

    /// A segment (its ends must differ).
    pub fn segment(a: DVec2, b: DVec2) -> Result<Shape, ShapeError> {
        finite2(a, "segment end")?;
        finite2(b, "segment end")?;
        if a == b {
            return Err(ShapeError::Degenerate { index: 0, next: 1 });
        }
        Ok(Shape::Segment { a, b })
    }

    /// A capsule (its ends may coincide: then it is a circle).
    pub fn capsule(a: DVec2, b: DVec2, radius: f64) -> Result<Shape, ShapeError> {
        finite2(a, "capsule end")?;
        finite2(b, "capsule end")?;
        Ok(Shape::Capsule {
            a,
            b,
            radius: positive(radius, "capsule radius")?,
        })
    }

    /// A pool border.
    pub fn border(verts: Vec<DVec2>) -> Result<Shape, ShapeError> {
        Ok(Shape::Border(Border::new(verts)?))
    }

    /// A compound; parts must not themselves be borders.
    pub fn compound(parts: Vec<(Pose, Shape)>) -> Result<Shape, ShapeError> {
        for (p, s) in &parts {
            p.validate()?;
            if matches!(s, Shape::Border(_)) {
                return Err(ShapeError::BadBorder {
                    reason: "a border cannot be a compound part",
                });
            }
        }
        if parts.is_empty() {
            return Err(ShapeError::TooFewVertices {
                what: "compound",
                min: 1,
                got: 0,
            });
        }
        Ok(Shape::Compound(parts))
    }

    /// A fish with default dimensions.
    pub fn fish(joints: [f64; 3]) -> Result<Shape, ShapeError> {
        for j in joints {
            finite(j, "fish joint angle")?;
        }
        Ok(Shape::Fish {
            fish: Box::new(Fish::new(FishDims::default())?),
            joints,
        })
    }
}
