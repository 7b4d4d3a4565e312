//! Support functions of the convex geoms (MuJoCo's `mjCCDObj` and `mjc_*Support`).
//!
//! A support function maps a unit direction `d` (world frame) to a point of the shape that
//! maximizes `d · p`. The native solver inflates every shape by half the pair's detection
//! margin (`margin / 2` along `d`), so two shapes whose true surfaces are within `margin` of
//! each other overlap; the reported distance is corrected back afterwards.
//!
//! Spheres and capsules can also be reduced to their core (centre point and axis segment), which
//! the solver uses for a first, cheap distance query (see `mjc_ccd`).
//!
//! Meshes are collided as their convex hull, searched as MuJoCo 4.0.0 does (`mjc_meshSupport`,
//! `mjc_hillclimbSupport`): meshes of fewer than [`HILLCLIMB_MIN`] vertices are scanned in
//! mesh-vertex order from the previous answer, larger ones hill-climbed on the hull's vertex
//! graph from the hull's 27 `extrema` seed, or from the previous answer if that is at least as
//! good. Ties (e.g. the four corners of a box-shaped mesh's face) then go where MuJoCo sends
//! them.

use glam::{DMat3, DVec3};

use crate::model::{ConvexHull, GeomType};

/// MuJoCo's `mjMINVAL`.
pub(crate) const MINVAL: f64 = 1e-15;

/// Below this many hull vertices the mesh support scans every vertex (`mjMESH_HILLCLIMB_MIN`).
pub const HILLCLIMB_MIN: usize = 10;

/// The six signed coordinate directions in MuJoCo's order (+x, −x, +y, −y, +z, −z): the box
/// face normals and the bounding-box support queries.
pub(crate) const SIGNED_AXES: [DVec3; 6] = [
    DVec3::X,
    DVec3::NEG_X,
    DVec3::Y,
    DVec3::NEG_Y,
    DVec3::Z,
    DVec3::NEG_Z,
];

/// A geom as the convex solver sees it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Object<'a> {
    /// Geom type.
    pub kind: GeomType,
    /// Centre of the geom frame (world).
    pub pos: DVec3,
    /// Orientation of the geom frame (columns are the local axes).
    pub mat: DMat3,
    /// MuJoCo size parameters.
    pub size: DVec3,
    /// Hull of a mesh (always `Some` for meshes that reach the solver).
    pub hull: Option<&'a ConvexHull>,
    /// Inflation: the support point moves by `margin / 2` along the query direction.
    pub margin: f64,
    /// Sphere reduced to its centre, capsule to its axis segment.
    pub core: bool,
    /// Feature index of the last support point: box corner bits (`1` x, `2` y, `4` z), mesh
    /// hull vertex, cylinder cap (`0` top, `1` bottom), capsule end (`0` top, `1` bottom);
    /// `-1` for smooth shapes.
    pub vertindex: i32,
    /// Warm start of the hill climb (hull vertex), `-1` if none yet.
    pub meshindex: i32,
    /// Vertices of a height-field prism (`kind == HField`): bottom 0..3, top 3..6.
    pub prism: Option<&'a [DVec3; 6]>,
    /// The mesh support scans every hull vertex instead of hill climbing (see
    /// [`super::mpr::uses_exhaustive_search`]; decided once per object).
    exhaustive: bool,
}

impl<'a> Object<'a> {
    /// A solver object for a geom, inflated by `margin / 2`.
    pub fn new(
        kind: GeomType,
        pos: DVec3,
        mat: DMat3,
        size: DVec3,
        hull: Option<&'a ConvexHull>,
        margin: f64,
    ) -> Self {
        Object {
            kind,
            pos,
            mat,
            size,
            hull,
            margin,
            core: false,
            vertindex: -1,
            meshindex: -1,
            prism: None,
            exhaustive: hull.is_some_and(super::mpr::uses_exhaustive_search),
        }
    }

    /// True for shapes with finitely many vertices and no inflation (box, mesh or height-field
    /// prism, or a sphere or capsule reduced to its core, a point or a segment; zero margin):
    /// GJK then converges exactly, a zero duality gap does not stop it (MuJoCo 4.0.0's rule:
    /// `sphere_core_against_mesh_has_zero_gap_tolerance`,
    /// `capsule_parallel_to_mesh_face_witness_at_one_end`), and EPA runs to machine precision.
    pub fn discrete(&self) -> bool {
        self.margin == 0.0
            && ((self.core && is_round(self.kind))
                || matches!(self.kind, GeomType::Box | GeomType::Mesh | GeomType::HField))
    }

    /// Radius removed when the shape is reduced to its core (sphere and capsule), else 0.
    pub fn core_radius(&self) -> f64 {
        core_radius(self.kind, self.size)
    }

    /// Support point in the unit direction `dir` (world), without inflation; records the
    /// feature index in `vertindex`.
    #[inline(always)]
    pub fn support_raw(&mut self, dir: DVec3) -> DVec3 {
        // (only spheres and capsules have a core: the other shapes test no flag)
        match self.kind {
            GeomType::Sphere if self.core => self.pos,
            GeomType::Sphere => self.pos + dir * self.size.x,
            GeomType::Capsule if self.core => {
                let axis = self.mat.z_axis;
                let up = axis.dot(dir) >= 0.0;
                self.vertindex = if up { 0 } else { 1 };
                let h = if up { self.size.y } else { -self.size.y };
                self.pos + axis * h
            }
            GeomType::Capsule => {
                let l = self.mat.transpose() * dir;
                let mut p = l * self.size.x;
                p.z += if l.z >= 0.0 {
                    self.size.y
                } else {
                    -self.size.y
                };
                self.vertindex = if l.z >= 0.0 { 0 } else { 1 };
                self.mat * p + self.pos
            }
            GeomType::Ellipsoid => {
                let l = self.mat.transpose() * dir;
                let s = self.size;
                let t = l * s;
                let norm = t.length();
                // (`norm < MINVAL || !norm.is_finite()` in one comparison pair: NaN is outside)
                let p = if !(MINVAL..=f64::MAX).contains(&norm) {
                    DVec3::new(s.x, 0.0, 0.0)
                } else {
                    // grouped as MuJoCo rounds it: t * (s / |t|)
                    t * ((1.0 / norm) * s)
                };
                self.mat * p + self.pos
            }
            GeomType::Cylinder => {
                let l = self.mat.transpose() * dir;
                let n2 = l.x * l.x + l.y * l.y;
                let scl = if n2 >= MINVAL * MINVAL {
                    self.size.x / n2.sqrt()
                } else {
                    0.0
                };
                let up = l.z >= 0.0;
                self.vertindex = if up { 0 } else { 1 };
                let p = DVec3::new(
                    l.x * scl,
                    l.y * scl,
                    if up { self.size.y } else { -self.size.y },
                );
                self.mat * p + self.pos
            }
            GeomType::Box => {
                let l = self.mat.transpose() * dir;
                let s = self.size;
                let p = DVec3::new(
                    if l.x >= 0.0 { s.x } else { -s.x },
                    if l.y >= 0.0 { s.y } else { -s.y },
                    if l.z >= 0.0 { s.z } else { -s.z },
                );
                let mut idx = 0;
                if p.x > 0.0 {
                    idx |= 1;
                }
                if p.y > 0.0 {
                    idx |= 2;
                }
                if p.z > 0.0 {
                    idx |= 4;
                }
                self.vertindex = idx;
                self.mat * p + self.pos
            }
            GeomType::Mesh => {
                let l = self.mat.transpose() * dir;
                match self.mesh_support(l) {
                    Some(p) => self.mat * p + self.pos,
                    None => self.pos,
                }
            }
            // a height-field prism: the best of the three vertices on the side of `dir.z`
            // (MuJoCo's prism support; `vertindex` is never set)
            GeomType::HField => match self.prism {
                Some(v) => {
                    let [a, b, c] = if dir.z < 0.0 {
                        [v[0], v[1], v[2]]
                    } else {
                        [v[3], v[4], v[5]]
                    };
                    // first maximum
                    let (mut best, mut max) = (a, a.dot(dir));
                    let db = b.dot(dir);
                    if db > max {
                        (best, max) = (b, db);
                    }
                    if c.dot(dir) > max {
                        best = c;
                    }
                    best
                }
                None => self.pos,
            },
            // planes and sdf geoms never reach the convex solver
            GeomType::Plane | GeomType::Sdf => self.pos,
        }
    }

    /// The uninflated world point of feature `id` (see [`Object::vertindex`]) of a box (corner
    /// bits) or mesh (hull vertex): the point [`Object::support_raw`] returned when it recorded
    /// `id`. `None` for other shapes, cores and ids out of range.
    #[inline(always)]
    pub fn feature_point(&self, id: i32) -> Option<DVec3> {
        let local = match self.kind {
            GeomType::Box if (0..8).contains(&id) => {
                let s = self.size;
                let sign = |bit: i32, v: f64| if id & bit != 0 { v } else { -v };
                DVec3::new(sign(1, s.x), sign(2, s.y), sign(4, s.z))
            }
            GeomType::Mesh => *self.hull?.vert.get(usize::try_from(id).ok()?)?,
            _ => return None,
        };
        Some(self.mat * local + self.pos)
    }

    /// The hull of a mesh whose support hill-climbs (not scanned, at least one vertex).
    #[inline(always)]
    fn climbing_hull(&self) -> Option<&'a ConvexHull> {
        let hull = self.hull?;
        (self.kind == GeomType::Mesh && !self.exhaustive && !hull.vert.is_empty()).then_some(hull)
    }

    /// Records the search's answer `i` (a hull vertex index; a climb's also as its next warm
    /// start) as [`Object::support_raw`] does, and returns that vertex in the local frame.
    #[inline(always)]
    fn record(&mut self, hull: &ConvexHull, i: usize, climbed: bool) -> DVec3 {
        if climbed {
            self.meshindex = i as i32;
        }
        let i = i.min(hull.vert.len() - 1);
        self.vertindex = i as i32;
        hull.vert[i]
    }

    /// Hull vertex (local frame) maximizing `local_dir · v`; sets `vertindex` to its index.
    #[inline(always)]
    fn mesh_support(&mut self, local_dir: DVec3) -> Option<DVec3> {
        let hull = self.hull.filter(|h| !h.vert.is_empty())?;
        // MuJoCo 4.0.0's search, so that ties go where MuJoCo sends them: small meshes scanned
        // in mesh-vertex order from the previous answer, larger ones hill-climbed from the
        // extrema seed or the warm start if at least as good
        let i = if self.exhaustive {
            super::mpr::native_exhaustive(hull, local_dir, self.vertindex)
        } else {
            super::mpr::native_hillclimb(hull, local_dir, self.meshindex)
        };
        Some(self.record(hull, i, !self.exhaustive))
    }
}

/// A vertex of the Minkowski difference `A - B` and the two points it comes from.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Vertex {
    /// `vert1 - vert2`.
    pub vert: DVec3,
    /// Support point of object 1 (inflated by its half margin).
    pub vert1: DVec3,
    /// Support point of object 2 (inflated by its half margin).
    pub vert2: DVec3,
    /// Support point of object 1 on its true surface (for feature geometry).
    pub raw1: DVec3,
    /// Support point of object 2 on its true surface.
    pub raw2: DVec3,
    /// Feature index on object 1 (see [`Object::vertindex`]).
    pub index1: i32,
    /// Feature index on object 2.
    pub index2: i32,
}

/// `S_{A-B}(dir) = S_A(dir) - S_B(-dir)` for a unit direction, both shapes inflated by their
/// half margins.
#[inline(always)]
pub(crate) fn minkowski_support(o1: &mut Object, o2: &mut Object, dir: DVec3) -> Vertex {
    let (raw1, raw2) = match (o1.climbing_hull(), o2.climbing_hull()) {
        // two hill-climbed meshes: both climbs at once (the same answers as one after the other)
        (Some(h1), Some(h2)) => {
            let (l1, l2) = (o1.mat.transpose() * dir, o2.mat.transpose() * -dir);
            let (s1, s2) = (
                super::mpr::native_seed(h1, l1, o1.meshindex),
                super::mpr::native_seed(h2, l2, o2.meshindex),
            );
            let (i1, i2) = crate::model::HullGraph::climb_pair(
                (&h1.graph, l1, s1.0, s1.1),
                (&h2.graph, l2, s2.0, s2.1),
            );
            (
                o1.mat * o1.record(h1, i1, true) + o1.pos,
                o2.mat * o2.record(h2, i2, true) + o2.pos,
            )
        }
        _ => (o1.support_raw(dir), o2.support_raw(-dir)),
    };
    let vert1 = if o1.margin > 0.0 {
        raw1 + dir * (0.5 * o1.margin)
    } else {
        raw1
    };
    let vert2 = if o2.margin > 0.0 {
        raw2 - dir * (0.5 * o2.margin)
    } else {
        raw2
    };
    Vertex {
        vert: vert1 - vert2,
        vert1,
        vert2,
        raw1,
        raw2,
        index1: o1.vertindex,
        index2: o2.vertindex,
    }
}

/// Whether the solver reduces the shape to its core (sphere centre, capsule axis segment).
pub(super) fn is_round(kind: GeomType) -> bool {
    matches!(kind, GeomType::Sphere | GeomType::Capsule)
}

/// Radius the solver removes when it reduces a shape of type `kind` and MuJoCo sizes `size` to
/// its core (the sphere or capsule radius), else 0.
pub(super) fn core_radius(kind: GeomType, size: DVec3) -> f64 {
    if is_round(kind) {
        size.x
    } else {
        0.0
    }
}
