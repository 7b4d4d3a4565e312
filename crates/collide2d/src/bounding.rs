//! Bounding volumes: bounding circles, axis-aligned boxes, 8-DOPs and the robot fish's
//! depth-3 bounding-volume tree.
//!
//! Conventions: world coordinates, SI metres, `f64`. Every volume is *conservative*: it
//! contains the exact shape (up to floating-point round-off, which the narrow phase covers by
//! inflating the volumes with a small slack before testing them). Overlap tests use closed
//! intervals, so touching volumes overlap. These volumes are pure filters: a pair they reject
//! is separated by more than the inflation.

// Index loops mirror the math (parallel arrays of parts, poses and volumes); negated
// comparisons are deliberate: they treat NaN as "reject".
#![allow(clippy::needless_range_loop, clippy::neg_cmp_op_on_partial_ord)]

use crate::shape::{ConvexPolygon, Fish, Pose, Shape, FISH_PARTS};
use glam::DVec2;

/// An axis-aligned bounding box (`min <= max` componentwise for a valid box).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Aabb {
    /// Lower corner.
    pub min: DVec2,
    /// Upper corner.
    pub max: DVec2,
}

impl Aabb {
    /// The empty box (`min = +inf`, `max = -inf`), the identity of [`Aabb::union`].
    pub const EMPTY: Aabb = Aabb {
        min: DVec2::splat(f64::INFINITY),
        max: DVec2::splat(f64::NEG_INFINITY),
    };

    /// The smallest box containing `points` ([`Aabb::EMPTY`] for no points).
    pub fn from_points(points: impl IntoIterator<Item = DVec2>) -> Aabb {
        let mut b = Aabb::EMPTY;
        for p in points {
            b.min = b.min.min(p);
            b.max = b.max.max(p);
        }
        b
    }

    /// Whether the two boxes overlap or touch (closed intervals on both axes).
    #[inline]
    pub fn overlaps(&self, other: &Aabb) -> bool {
        self.min.x <= other.max.x
            && other.min.x <= self.max.x
            && self.min.y <= other.max.y
            && other.min.y <= self.max.y
    }

    /// The smallest box containing both.
    #[inline]
    pub fn union(&self, other: &Aabb) -> Aabb {
        Aabb {
            min: self.min.min(other.min),
            max: self.max.max(other.max),
        }
    }

    /// The box grown by `m` on every side.
    #[inline]
    pub fn inflate(&self, m: f64) -> Aabb {
        Aabb {
            min: self.min - DVec2::splat(m),
            max: self.max + DVec2::splat(m),
        }
    }

    /// Whether `p` lies in the closed box.
    #[inline]
    pub fn contains_point(&self, p: DVec2) -> bool {
        p.x >= self.min.x && p.x <= self.max.x && p.y >= self.min.y && p.y <= self.max.y
    }

    /// Centre of the box.
    #[inline]
    pub fn center(&self) -> DVec2 {
        0.5 * (self.min + self.max)
    }
}

fn poly_aabb(poly: &ConvexPolygon, pose: &Pose) -> Aabb {
    Aabb::from_points(poly.verts().iter().map(|&v| pose.apply(v)))
}

/// The axis-aligned bounding box of `shape` placed at `pose`. Circles and capsules are exact,
/// polygons use their transformed vertices, a [`Shape::Border`] gives its outline's box, and
/// compounds and fish the union of their parts' boxes.
pub fn aabb(shape: &Shape, pose: &Pose) -> Aabb {
    match shape {
        Shape::Circle { radius } => Aabb {
            min: pose.pos - DVec2::splat(*radius),
            max: pose.pos + DVec2::splat(*radius),
        },
        Shape::Box { poly, .. } | Shape::Polygon(poly) => poly_aabb(poly, pose),
        Shape::Segment { a, b } => Aabb::from_points([pose.apply(*a), pose.apply(*b)]),
        Shape::Capsule { a, b, radius } => {
            Aabb::from_points([pose.apply(*a), pose.apply(*b)]).inflate(*radius)
        }
        Shape::Border(border) => Aabb::from_points(border.verts().iter().map(|&v| pose.apply(v))),
        Shape::Compound(parts) => parts.iter().fold(Aabb::EMPTY, |acc, (p, s)| {
            acc.union(&aabb(s, &pose.compose(*p)))
        }),
        Shape::Fish { fish, joints } => {
            let poses = fish.part_poses(*pose, *joints);
            fish.parts()
                .iter()
                .zip(poses.iter())
                .fold(Aabb::EMPTY, |acc, (poly, p)| acc.union(&poly_aabb(poly, p)))
        }
    }
}

/// Bounding circle of a point set: centred at the set's box centre, radius the largest
/// distance to a point (not minimal, but cheap, deterministic and conservative).
fn points_circle<I: Iterator<Item = DVec2> + Clone>(points: I) -> (DVec2, f64) {
    let b = Aabb::from_points(points.clone());
    let c = b.center();
    let r = points.fold(0.0f64, |m, p| m.max((p - c).length()));
    (c, r)
}

fn poly_circle(poly: &ConvexPolygon, pose: &Pose) -> (DVec2, f64) {
    points_circle(poly.verts().iter().map(|&v| pose.apply(v)))
}

/// The smallest circle enclosing two circles.
pub fn merge_circles(a: (DVec2, f64), b: (DVec2, f64)) -> (DVec2, f64) {
    let d = b.0 - a.0;
    let len = d.length();
    if len + b.1 <= a.1 {
        return a;
    }
    if len + a.1 <= b.1 {
        return b;
    }
    let r = 0.5 * (len + a.1 + b.1);
    // len > 0 here (otherwise one circle contains the other)
    let c = a.0 + d * ((r - a.1) / len);
    // guard against round-off: make sure both circles are inside
    let r = r
        .max((c - a.0).length() + a.1)
        .max((c - b.0).length() + b.1);
    (c, r)
}

/// A bounding circle `(centre, radius)` of `shape` at `pose`: exact for circles, the capsule's
/// core midpoint plus half length plus radius for capsules, the vertex box centre with the
/// largest vertex distance for polygons, segments and borders, and merged part circles for
/// compounds and fish. Conservative, not necessarily minimal.
pub fn bounding_circle(shape: &Shape, pose: &Pose) -> (DVec2, f64) {
    match shape {
        Shape::Circle { radius } => (pose.pos, *radius),
        Shape::Box { poly, .. } | Shape::Polygon(poly) => poly_circle(poly, pose),
        Shape::Segment { a, b } => {
            let (a, b) = (pose.apply(*a), pose.apply(*b));
            let c = 0.5 * (a + b);
            (c, (a - c).length().max((b - c).length()))
        }
        Shape::Capsule { a, b, radius } => {
            let (a, b) = (pose.apply(*a), pose.apply(*b));
            let c = 0.5 * (a + b);
            (c, (a - c).length().max((b - c).length()) + radius)
        }
        Shape::Border(border) => points_circle(border.verts().iter().map(|&v| pose.apply(v))),
        Shape::Compound(parts) => {
            let mut acc: Option<(DVec2, f64)> = None;
            for (p, s) in parts {
                let c = bounding_circle(s, &pose.compose(*p));
                acc = Some(match acc {
                    None => c,
                    Some(a) => merge_circles(a, c),
                });
            }
            acc.unwrap_or((pose.pos, 0.0))
        }
        Shape::Fish { fish, joints } => FishTree::new(fish, *pose, *joints).root,
    }
}

/// Whether two circles overlap or touch.
#[inline]
pub fn circles_overlap(a: (DVec2, f64), b: (DVec2, f64)) -> bool {
    let r = a.1 + b.1;
    (b.0 - a.0).length_squared() <= r * r
}

const S: f64 = std::f64::consts::FRAC_1_SQRT_2;

/// The four unit directions of [`Kdop8`]: 0°, 45°, 90°, 135°.
pub const KDOP8_DIRS: [DVec2; 4] = [
    DVec2::new(1.0, 0.0),
    DVec2::new(S, S),
    DVec2::new(0.0, 1.0),
    DVec2::new(-S, S),
];

/// An 8-DOP: the intersection of four slabs `min[k] <= d_k · p <= max[k]` along the unit
/// directions [`KDOP8_DIRS`] (0°, 45°, 90°, 135°). Tighter than an AABB for rotated parts.
/// Two 8-DOPs overlap iff all four interval pairs overlap (closed intervals); a disjoint axis
/// proves the enclosed shapes disjoint.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Kdop8 {
    /// Lower bound along each direction.
    pub min: [f64; 4],
    /// Upper bound along each direction.
    pub max: [f64; 4],
}

impl Kdop8 {
    /// The empty 8-DOP.
    pub const EMPTY: Kdop8 = Kdop8 {
        min: [f64::INFINITY; 4],
        max: [f64::NEG_INFINITY; 4],
    };

    /// Adds a point.
    #[inline]
    pub fn add_point(&mut self, p: DVec2) {
        for k in 0..4 {
            let s = KDOP8_DIRS[k].dot(p);
            self.min[k] = self.min[k].min(s);
            self.max[k] = self.max[k].max(s);
        }
    }

    /// The 8-DOP of a point set.
    pub fn from_points(points: impl IntoIterator<Item = DVec2>) -> Kdop8 {
        let mut k = Kdop8::EMPTY;
        for p in points {
            k.add_point(p);
        }
        k
    }

    /// The 8-DOP of a convex polygon at `pose` (built from its transformed vertices).
    pub fn from_polygon(poly: &ConvexPolygon, pose: &Pose) -> Kdop8 {
        Kdop8::from_points(poly.verts().iter().map(|&v| pose.apply(v)))
    }

    /// The 8-DOP of any shape at `pose`: exact slabs for polygons, segments, circles and
    /// capsules (a disc widens every slab by its radius), union over parts for compounds and
    /// fish, the outline's slabs for a border.
    pub fn from_shape(shape: &Shape, pose: &Pose) -> Kdop8 {
        match shape {
            Shape::Circle { radius } => Kdop8::from_points([pose.pos]).inflate(*radius),
            Shape::Box { poly, .. } | Shape::Polygon(poly) => Kdop8::from_polygon(poly, pose),
            Shape::Segment { a, b } => Kdop8::from_points([pose.apply(*a), pose.apply(*b)]),
            Shape::Capsule { a, b, radius } => {
                Kdop8::from_points([pose.apply(*a), pose.apply(*b)]).inflate(*radius)
            }
            Shape::Border(border) => {
                Kdop8::from_points(border.verts().iter().map(|&v| pose.apply(v)))
            }
            Shape::Compound(parts) => parts.iter().fold(Kdop8::EMPTY, |acc, (p, s)| {
                acc.union(&Kdop8::from_shape(s, &pose.compose(*p)))
            }),
            Shape::Fish { fish, joints } => {
                let poses = fish.part_poses(*pose, *joints);
                let mut k = Kdop8::EMPTY;
                for (poly, p) in fish.parts().iter().zip(poses.iter()) {
                    k = k.union(&Kdop8::from_polygon(poly, p));
                }
                k
            }
        }
    }

    /// Every slab widened by `m` on both sides (the 8-DOP of the shape grown by a disc of
    /// radius `m`, since the directions are unit vectors).
    #[inline]
    pub fn inflate(&self, m: f64) -> Kdop8 {
        let mut k = *self;
        for i in 0..4 {
            k.min[i] -= m;
            k.max[i] += m;
        }
        k
    }

    /// The smallest 8-DOP containing both.
    #[inline]
    pub fn union(&self, o: &Kdop8) -> Kdop8 {
        let mut k = *self;
        for i in 0..4 {
            k.min[i] = k.min[i].min(o.min[i]);
            k.max[i] = k.max[i].max(o.max[i]);
        }
        k
    }

    /// Whether the two 8-DOPs overlap or touch: four closed-interval tests.
    #[inline]
    pub fn overlaps(&self, o: &Kdop8) -> bool {
        (0..4).all(|i| self.min[i] <= o.max[i] && o.min[i] <= self.max[i])
    }

    /// The axis-aligned box of this 8-DOP (its 0° and 90° slabs).
    #[inline]
    pub fn aabb(&self) -> Aabb {
        Aabb {
            min: DVec2::new(self.min[0], self.min[2]),
            max: DVec2::new(self.max[0], self.max[2]),
        }
    }
}

/// Part ids in the fish tree's first internal node: body and the two pectoral fins.
pub const FISH_FRONT_GROUP: [usize; 3] = [0, 1, 2];
/// Part ids in the fish tree's second internal node: the three tail links and the caudal fin.
pub const FISH_TAIL_GROUP: [usize; 4] = [3, 4, 5, 6];

/// The robot fish's fixed-topology, depth-3 bounding-volume tree: a root circle over the whole
/// fish, two internal circles ({body, left fin, right fin} and {tail1, tail2, tail3, caudal fin}),
/// and seven 8-DOP leaves, one per part polygon (part ids as in
/// [`crate::shape::FISH_PART_NAMES`]). [`FishTree::refit`] recomputes it bottom-up from the base
/// pose and joint angles (forward kinematics); the topology never changes and refitting does not
/// allocate.
#[derive(Clone, Debug)]
pub struct FishTree<'a> {
    fish: &'a Fish,
    /// World poses of the seven parts.
    pub poses: [Pose; FISH_PARTS],
    /// Root bounding circle `(centre, radius)`.
    pub root: (DVec2, f64),
    /// Internal circles: `[front group, tail group]`.
    pub groups: [(DVec2, f64); 2],
    /// Leaf 8-DOPs, one per part.
    pub leaves: [Kdop8; FISH_PARTS],
}

impl<'a> FishTree<'a> {
    /// Builds the tree of `fish` at base pose `base` with tail joint angles `joints`.
    pub fn new(fish: &'a Fish, base: Pose, joints: [f64; 3]) -> FishTree<'a> {
        let mut t = FishTree {
            fish,
            poses: [Pose::IDENTITY; FISH_PARTS],
            root: (DVec2::ZERO, 0.0),
            groups: [(DVec2::ZERO, 0.0); 2],
            leaves: [Kdop8::EMPTY; FISH_PARTS],
        };
        t.refit(base, joints);
        t
    }

    /// The fish geometry.
    pub fn fish(&self) -> &'a Fish {
        self.fish
    }

    /// Recomputes part poses, leaves, internal circles and root for a new base pose and joint
    /// angles.
    pub fn refit(&mut self, base: Pose, joints: [f64; 3]) {
        self.poses = self.fish.part_poses(base, joints);
        let parts = self.fish.parts();
        for i in 0..FISH_PARTS {
            self.leaves[i] = Kdop8::from_polygon(&parts[i], &self.poses[i]);
        }
        let poses = &self.poses;
        let group_circle = |ids: &[usize]| {
            points_circle(
                ids.iter()
                    .flat_map(move |&i| parts[i].verts().iter().map(move |&v| poses[i].apply(v))),
            )
        };
        self.groups = [
            group_circle(&FISH_FRONT_GROUP),
            group_circle(&FISH_TAIL_GROUP),
        ];
        self.root = merge_circles(self.groups[0], self.groups[1]);
    }

    /// The part ids under internal node `g` (0 = front, 1 = tail).
    pub fn group_parts(g: usize) -> &'static [usize] {
        if g == 0 {
            &FISH_FRONT_GROUP
        } else {
            &FISH_TAIL_GROUP
        }
    }

    /// Part ids whose leaf may overlap a shape with bounding circle `circle` and 8-DOP `kdop`
    /// (both already inflated by the caller's tolerance), in increasing order, with the number
    /// of bounding-volume tests performed. Pure filter: a part not returned has a leaf disjoint
    /// from `kdop` or lies under a circle disjoint from `circle`.
    pub fn query(&self, circle: (DVec2, f64), kdop: &Kdop8) -> ([bool; FISH_PARTS], usize) {
        let mut hit = [false; FISH_PARTS];
        let mut tests = 1;
        if !circles_overlap(self.root, circle) {
            return (hit, tests);
        }
        for g in 0..2 {
            tests += 1;
            if !circles_overlap(self.groups[g], circle) {
                continue;
            }
            for &p in FishTree::group_parts(g) {
                tests += 1;
                hit[p] = self.leaves[p].overlaps(kdop);
            }
        }
        (hit, tests)
    }

    /// Pairs of parts `(i, j)` of two fish trees whose leaves may overlap (after inflating
    /// `self`'s volumes by `slack`), by simultaneous descent (BVTT), with the number of
    /// bounding-volume tests performed.
    pub fn query_tree(
        &self,
        other: &FishTree<'_>,
        slack: f64,
    ) -> ([[bool; FISH_PARTS]; FISH_PARTS], usize) {
        let mut hit = [[false; FISH_PARTS]; FISH_PARTS];
        let mut tests = 1;
        let grow = |c: (DVec2, f64)| (c.0, c.1 + slack);
        if !circles_overlap(grow(self.root), other.root) {
            return (hit, tests);
        }
        for ga in 0..2 {
            for gb in 0..2 {
                tests += 1;
                if !circles_overlap(grow(self.groups[ga]), other.groups[gb]) {
                    continue;
                }
                for &i in FishTree::group_parts(ga) {
                    let ki = self.leaves[i].inflate(slack);
                    for &j in FishTree::group_parts(gb) {
                        tests += 1;
                        hit[i][j] = ki.overlaps(&other.leaves[j]);
                    }
                }
            }
        }
        (hit, tests)
    }
}
