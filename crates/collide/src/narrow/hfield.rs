//! Height field against a convex geom (MuJoCo 4.0.0's `mjc_ConvexHField`).
//!
//! The height field (geom 1) is a grid of `nrow × ncol` elevations over
//! `[-sx, sx] × [-sy, sy]` (row 0 at `-y`, column 0 at `-x`); each grid cell is split into two
//! triangular prisms that reach down to `-base`. The geom (geom 2) is expressed in the height
//! field's frame; after a bounding-sphere and a bounding-box rejection test, the cells under
//! the geom's bounding box (grown by `margin`) are visited row by row, and every prism whose
//! top is not entirely below the geom (minus `margin`) is collided with the geom through the
//! convex penetration solver (one contact per prism):
//! - native mode ([`CcdOptions::native`], MuJoCo's default): GJK/EPA with the prism as its own
//!   solver object (see `convex/prism.rs`), as MuJoCo does: support = the best of the three
//!   vertices on the side of `dir.z` plus `margin / 2` along `dir`; no vertex index (it stays
//!   -1); centre = vertex mean; discrete when the margin is 0. With a zero margin and a box or
//!   mesh, both shapes are discrete and EPA stops as soon as the *geom's* support vertex repeats
//!   (the prism vertex is not compared), so MuJoCo reports a depth that can be well short of the
//!   true penetration depth (a lower bound), and which one depends on the last bits of the
//!   arithmetic: ties of the box's or mesh's support (a face exactly perpendicular to a search
//!   direction) are decided by rounding noise. The solver therefore reproduces 4.0.0's
//!   arithmetic bit for bit (for every pair: GJK iterates on the origin's projection on the
//!   reduced simplex, directions `x * (1 / |x|)`, mesh support searched as MuJoCo's, a first EPA
//!   bound below the face keeps the face), and prism pairs run the geom's six bounding-box
//!   support queries first, as MuJoCo does. On the 1200 oracle configurations (`tests/narrow_hfield.rs`) every native
//!   contact then agrees with 4.0.0, in order (dist within 6e-10, normal within 2.2e-5 rad; on
//!   the zero-margin box/mesh pairs the dists are identical and the normals within 2e-12 rad).
//!   Known residual: a separated contact within a positive margin between parallel faces (the
//!   closest points are not unique) can sit elsewhere on the common face: one pair of the 1200
//!   (`hf2_122`, a mesh, 0.12 away), dist and normal agreeing. Passing the prism as a six-vertex mesh instead (vertex indices on both sides, the
//!   solver's usual rounding) agrees on smooth pairs but got the deepest contact wrong on 49 of
//!   the 55 zero-margin box/mesh pairs with contacts of the first 900 configurations (up to 6.3
//!   in dist, 1.65 rad);
//!   Three shortcuts leave the output bit for bit as it was: a geom whose bounding sphere is
//!   above every grid point under it returns at once (see `above_field`), the solver's geom
//!   object (and its six bounding-box queries) is built only when a first prism reaches the
//!   solver, and prisms provably farther from a primitive geom than the solver's reach are
//!   skipped (see `Cull`; never for meshes, whose warm start carries over from prism to
//!   prism);
//! - libccd mode (`nativeccd` disabled): MPR ([`super::convex::mpr`]), then `mjc_fixNormal` on
//!   every contact.
//!
//! Both shapes are inflated by `margin / 2`, so `dist` is the true signed distance (MuJoCo
//! 4.0.0; 3.12 reported about `dist - 1.5 margin`). At most [`MAX_HFIELD_CONTACTS`] contacts,
//! in prism order: rows from `-y` up, columns from `-x` up, and in each cell first the prism
//! with two vertices on the upper row, then the one with two on the lower row.

use glam::{DMat3, DVec3};

use super::convex::mpr::{ccd_penetration, fix_normal, rbound, CcdObj};
use super::convex::{CcdOptions, ConvexGeom, PrismCollider};
use super::PreContact;
use crate::model::{GeomType, HField};

/// MuJoCo's `mjMAXCONPAIR`: contacts per height-field pair.
pub const MAX_HFIELD_CONTACTS: usize = 50;

/// The cells (grid-vertex index ranges) a height-field query visits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CellRange {
    /// First and last grid column (inclusive); prisms lie between consecutive columns.
    pub cmin: usize,
    /// Last grid column (inclusive).
    pub cmax: usize,
    /// First grid row; rows `rmin..rmax` are the lower rows of the visited cells.
    pub rmin: usize,
    /// One past the last lower row.
    pub rmax: usize,
}

/// The result of the early tests of `mjc_ConvexHField`: the geom in the height field's frame
/// and the grid cells to visit, or `None` when the geom is out of reach.
#[derive(Clone, Copy, Debug)]
pub struct HFieldQuery {
    /// Geom position in the height-field frame.
    pub pos: DVec3,
    /// Geom orientation in the height-field frame.
    pub mat: DMat3,
    /// Bounding box of the geom in the height-field frame (`[xmin, ymin, zmin]`).
    pub lo: DVec3,
    /// `[xmax, ymax, zmax]`.
    pub hi: DVec3,
    /// Cells to visit.
    pub cells: CellRange,
}

/// The bounding tests and cell selection of `mjc_ConvexHField` (exposed for testing).
pub fn hfield_query(hf: &ConvexGeom, g: &ConvexGeom, margin: f64) -> Option<HFieldQuery> {
    let field = hf.hfield?;
    query(field, hf, g, margin, &mut CcdObj::from_geom(g, 0.0))
}

fn valid(field: &HField) -> bool {
    field.nrow >= 2 && field.ncol >= 2 && field.data.len() >= field.nrow * field.ncol
}

/// The early tests proper; `obj` (built from `g` by the caller, moved here to the height
/// field's frame) runs the bounding-box support queries, and keeps the warm start they leave.
fn query(
    field: &HField,
    hf: &ConvexGeom,
    g: &ConvexGeom,
    margin: f64,
    obj: &mut CcdObj,
) -> Option<HFieldQuery> {
    if !valid(field)
        || !hf.pos.is_finite()
        || !hf.mat.is_finite()
        || !margin.is_finite()
        || field.size.iter().any(|s| !s.is_finite())
    {
        return None;
    }
    let [s0, s1, s2, s3] = field.size;
    let pos = hf.mat.transpose_mul_vec3(g.pos - hf.pos);
    let radius = rbound(g) + margin;
    if s0 < pos.x - radius
        || -s0 > pos.x + radius
        || s1 < pos.y - radius
        || -s1 > pos.y + radius
        || s2 < pos.z - radius
        || -s3 > pos.z + radius
    {
        return None;
    }
    let mat = hf.mat.transpose() * g.mat;
    obj.pos = pos;
    obj.mat = mat;
    if !obj.is_supported() || obj.kind == GeomType::HField || !obj.is_finite() {
        return None;
    }
    let xmax = obj.native_support(DVec3::X).x;
    let xmin = obj.native_support(DVec3::NEG_X).x;
    let ymax = obj.native_support(DVec3::Y).y;
    let ymin = obj.native_support(DVec3::NEG_Y).y;
    let zmax = obj.native_support(DVec3::Z).z;
    let zmin = obj.native_support(DVec3::NEG_Z).z;
    if xmin - margin > s0
        || -s0 > margin + xmax
        || ymin - margin > s1
        || -s1 > margin + ymax
        || zmin - margin > s2
        || -s3 > margin + zmax
    {
        return None;
    }
    let nc = (field.ncol - 1) as f64;
    let nr = (field.nrow - 1) as f64;
    let cmin = ((s0 + (xmin - margin)) / (s0 + s0) * nc).floor();
    let cmax = ((s0 + (margin + xmax)) / (s0 + s0) * nc).ceil();
    let rmin = ((s1 + (ymin - margin)) / (s1 + s1) * nr).floor();
    let rmax = ((s1 + (margin + ymax)) / (s1 + s1) * nr).ceil();
    // (MuJoCo truncates to int; saturating casts keep absurd values harmless)
    let cmin = (cmin as i64).max(0) as usize;
    let cmax = (cmax as i64).min(field.ncol as i64 - 1).max(0) as usize;
    let rmin = (rmin as i64).max(0) as usize;
    let rmax = (rmax as i64).min(field.nrow as i64 - 1).max(0) as usize;
    Some(HFieldQuery {
        pos,
        mat,
        lo: DVec3::new(xmin, ymin, zmin),
        hi: DVec3::new(xmax, ymax, zmax),
        cells: CellRange {
            cmin,
            cmax,
            rmin,
            rmax,
        },
    })
}

/// One triangular prism of a height field, in the height field's frame: `vert[0..3]` bottom
/// (at `-base`), `vert[3..6]` the matching top vertices, as MuJoCo builds them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Prism {
    /// Vertices: bottom 0, 1, 2 and top 3, 4, 5 (`vert[i + 3]` above `vert[i]`).
    pub vert: [DVec3; 6],
    /// Lower grid row of the cell.
    pub row: usize,
    /// Right grid column of the cell (the cell spans columns `col - 1 ..= col`).
    pub col: usize,
    /// 0: the prism with two vertices on row `row + 1`; 1: with two on row `row`.
    pub half: usize,
}

/// Visits the prisms of `cells` in MuJoCo's order, skipping those whose three top vertices are
/// all below `zskip`; `f` returns `false` to stop. The top vertices (grid points, coordinates
/// computed once per row and column) slide from prism to prism; the prism's six vertices are
/// built for the prisms that pass the height test.
fn for_each_prism(field: &HField, cells: CellRange, zskip: f64, mut f: impl FnMut(&Prism) -> bool) {
    let [s0, s1, s2, s3] = field.size;
    let dx = (s0 + s0) / (field.ncol - 1) as f64;
    let dy = (s1 + s1) / (field.nrow - 1) as f64;
    let height = |r: usize, c: usize| field.data[r * field.ncol + c] as f64 * s2;
    // grid-line coordinates
    let gx = |c: usize| dx * c as f64 - s0;
    let gy = |r: usize| dy * r as f64 - s1;
    let mut p = Prism {
        vert: [DVec3::ZERO; 6],
        row: 0,
        col: 0,
        half: 0,
    };
    // the prism's three top vertices (grid points), in vertex order
    let mut corner = [DVec3::ZERO; 3];
    let push = |corner: &mut [DVec3; 3], top: DVec3| {
        corner[0] = corner[1];
        corner[1] = corner[2];
        corner[2] = top;
    };
    for r in cells.rmin..cells.rmax {
        p.row = r;
        let (y_lo, y_hi) = (gy(r), gy(r + 1));
        let x = gx(cells.cmin);
        push(&mut corner, DVec3::new(x, y_hi, height(r + 1, cells.cmin)));
        push(&mut corner, DVec3::new(x, y_lo, height(r, cells.cmin)));
        for c in cells.cmin + 1..=cells.cmax {
            p.col = c;
            let x = gx(c);
            for half in 0..2 {
                let (vr, y) = if half == 0 { (r + 1, y_hi) } else { (r, y_lo) };
                push(&mut corner, DVec3::new(x, y, height(vr, c)));
                if corner[0].z < zskip && corner[1].z < zskip && corner[2].z < zskip {
                    continue;
                }
                p.half = half;
                for (i, &t) in corner.iter().enumerate() {
                    p.vert[i] = DVec3::new(t.x, t.y, -s3);
                    p.vert[i + 3] = t;
                }
                if !f(&p) {
                    return;
                }
            }
        }
    }
}

/// A shortcut of `mjc_ConvexHField` for a geom above the field: is the bottom of its bounding
/// sphere (grown by `margin`, less [`CULL_SLACK`]) above every grid point under that sphere
/// (one more cell around it)? Then every prism under the geom's bounding box falls under
/// MuJoCo's height test (the geom's lowest point is at least that high), so the pair has no
/// contact, and this costs a few height loads where the bounding-box support queries cost six
/// support evaluations.
fn above_field(field: &HField, hf: &ConvexGeom, g: &ConvexGeom, margin: f64) -> bool {
    if !valid(field) {
        return false;
    }
    let [s0, s1, s2, _] = field.size;
    let pos = hf.mat.transpose_mul_vec3(g.pos - hf.pos);
    let radius = rbound(g) + margin;
    let floor = pos.z - radius - CULL_SLACK;
    if !(floor.is_finite() && radius.is_finite() && s0 > 0.0 && s1 > 0.0) {
        return false;
    }
    // grid lines around [lo, hi] along an axis of half-size `s` with `n` grid points, one
    // more on each side than MuJoCo's floor/ceil (rounding of the bounding box)
    let span = |lo: f64, hi: f64, s: f64, n: usize| {
        let cells = (n - 1) as f64;
        // (`as` saturates far outside the field; the ±1 must not overflow there)
        let first = (((s + lo) / (s + s) * cells).floor() as i64).saturating_sub(1);
        let last = (((s + hi) / (s + s) * cells).ceil() as i64).saturating_add(1);
        let last = last.min(n as i64 - 1);
        (first.max(0) as usize, last.max(0) as usize)
    };
    let (c0, c1) = span(pos.x - radius, pos.x + radius, s0, field.ncol);
    let (r0, r1) = span(pos.y - radius, pos.y + radius, s1, field.nrow);
    if c0 > c1 || r0 > r1 {
        // beside the field: left to MuJoCo's own tests
        return false;
    }
    (r0..=r1).all(|r| {
        field.data[r * field.ncol + c0..=r * field.ncol + c1]
            .iter()
            .all(|&h| (h as f64 * s2) < floor)
    })
}

/// Added to the solver's reach (`margin + tolerance`) before a prism is culled: far above
/// the rounding of the bounds (relative 1e-16) and of GJK's distance estimate.
const CULL_SLACK: f64 = 1e-6;

/// A provably exact shortcut of the native solver for primitive geoms: prisms separated from
/// the geom by more than `bound` (the solver's reach, `margin + tolerance`, plus
/// [`CULL_SLACK`]) along a coordinate axis or the prism's top-face normal are skipped.
///
/// GJK's iterate is always a point of the Minkowski difference (up to rounding), so the solver
/// reports a contact only when the shapes are within `margin + tolerance` of each other: a
/// skipped prism would have given no contact. Primitives carry no state from prism to prism
/// (their support functions depend on the query direction alone), so skipping a prism changes
/// nothing for the next ones. Meshes do (the hill-climb warm start and the scan's start vertex
/// decide ties), and are never culled.
struct Cull {
    kind: GeomType,
    /// Geom centre in the height field's frame.
    pos: DVec3,
    /// Geom axes in the height field's frame.
    axes: DMat3,
    size: DVec3,
    /// The centre's coordinates along the geom's axes (`axes^T pos`).
    axis_pos: DVec3,
    /// The geom's half-widths along its axes.
    axis_ext: DVec3,
    /// Geom bounding box in the height field's frame.
    lo: DVec3,
    hi: DVec3,
    /// Separation beyond which a prism is skipped.
    bound: f64,
}

impl Cull {
    /// The cull for geom `g` (in the height field's frame, bounding box of `q`); `None` for
    /// meshes or a non-finite `bound`.
    fn new(g: &ConvexGeom, q: &HFieldQuery, bound: f64) -> Option<Self> {
        let s = g.size;
        let axis_ext = match g.kind {
            GeomType::Sphere => DVec3::splat(s.x),
            GeomType::Capsule => DVec3::new(s.x, s.x, s.x + s.y),
            GeomType::Cylinder => DVec3::new(s.x, s.x, s.y),
            GeomType::Ellipsoid | GeomType::Box => s,
            GeomType::Mesh | GeomType::Plane | GeomType::HField | GeomType::Sdf => return None,
        };
        bound.is_finite().then_some(Cull {
            kind: g.kind,
            pos: g.pos,
            axes: g.mat,
            size: s,
            axis_pos: g.mat.transpose_mul_vec3(g.pos),
            axis_ext,
            lo: q.lo,
            hi: q.hi,
            bound,
        })
    }

    /// Half-width of the geom along the unit direction `n`: `max_p n·(p - pos)`.
    fn extent(&self, n: DVec3) -> f64 {
        let s = self.size;
        let a = self.axes.transpose_mul_vec3(n);
        match self.kind {
            GeomType::Sphere => s.x,
            GeomType::Capsule => s.x + s.y * a.z.abs(),
            GeomType::Ellipsoid => (a * s).length(),
            GeomType::Cylinder => s.x * (1.0 - a.z * a.z).max(0.0).sqrt() + s.y * a.z.abs(),
            GeomType::Box => (a.abs() * s).element_sum(),
            GeomType::Mesh | GeomType::Plane | GeomType::HField | GeomType::Sdf => f64::INFINITY,
        }
    }

    /// The point of the geom's core nearest to `p` (the geom frame's origin clamped to the
    /// capsule's or cylinder's axis segment, or into the box): a cheap stand-in for the geom's
    /// point closest to a prism.
    fn core_point(&self, p: DVec3) -> DVec3 {
        let s = self.size;
        let local = self.axes.transpose_mul_vec3(p - self.pos);
        let clamped = match self.kind {
            GeomType::Capsule | GeomType::Cylinder => {
                DVec3::new(0.0, 0.0, local.z.clamp(-s.y, s.y))
            }
            GeomType::Box => local.clamp(-s, s),
            _ => return self.pos,
        };
        self.axes.mul_vec3(clamped) + self.pos
    }

    /// Is the prism (vertices as in [`Prism::vert`]) farther than `bound` from the geom along
    /// x or y, along one of the geom's axes, from the centroid of its top face towards the
    /// geom's core, or along its top face's normal? (Any direction gives a lower bound of the
    /// distance; these are the ones that catch the prisms around a geom resting on the field,
    /// tried cheapest and likeliest first.)
    fn excludes(&self, v: &[DVec3; 6]) -> bool {
        // the top vertices have the prism's x and y (finite, as the field's size); a
        // non-finite height is left to the solver
        let (t0, t1, t2) = (v[3], v[4], v[5]);
        if !(t0.z + t1.z + t2.z).is_finite() {
            return false;
        }
        let b = self.bound;
        let (xlo, xhi) = range([t0.x, t1.x, t2.x]);
        let (ylo, yhi) = range([t0.y, t1.y, t2.y]);
        if xhi < self.lo.x - b || xlo > self.hi.x + b || yhi < self.lo.y - b || ylo > self.hi.y + b
        {
            return true;
        }
        // a sphere's axes are no better than any other direction
        if self.kind != GeomType::Sphere && self.axes_separate(v) {
            return true;
        }
        let centroid = (t0 + t1 + t2) * (1.0 / 3.0);
        if self.gap(self.core_point(centroid) - centroid, v) > b {
            return true;
        }
        let n = (t1 - t0).cross(t2 - t0);
        self.gap(if n.z < 0.0 { -n } else { n }, v) > b
    }

    /// Does one of the geom's axes separate it from the prism by more than `bound`?
    fn axes_separate(&self, v: &[DVec3; 6]) -> bool {
        let axes = [self.axes.x_axis, self.axes.y_axis, self.axes.z_axis];
        axes.iter().enumerate().any(|(i, a)| {
            let (lo, hi) = prism_range(*a, v);
            let (c, e) = (self.axis_pos[i], self.axis_ext[i]);
            lo - (c + e) > self.bound || (c - e) - hi > self.bound
        })
    }

    /// Separation of the geom from the prism along `u` (any length): how far the geom's lowest
    /// point along `u` lies beyond the prism's highest; -inf for a zero or non-finite `u`.
    fn gap(&self, u: DVec3, v: &[DVec3; 6]) -> f64 {
        let len = u.length();
        if !(len > 0.0 && len.is_finite()) {
            return f64::NEG_INFINITY;
        }
        let n = u * (1.0 / len);
        let (_, top) = prism_range(n, v);
        n.dot(self.pos) - self.extent(n) - top
    }
}

/// Smallest and largest of `n · p` over a prism's vertices (as in [`Prism::vert`]: `v[i + 3]`
/// above `v[i]`), each rounded as `n.dot(p)`: a bottom vertex shares `n.x x + n.y y` with the
/// top vertex above it, computed once for both.
#[inline]
fn prism_range(n: DVec3, v: &[DVec3; 6]) -> (f64, f64) {
    let mut d = [0.0; 6];
    for i in 0..3 {
        let t = v[i + 3];
        let xy = n.x * t.x + n.y * t.y;
        d[i] = xy + n.z * v[i].z;
        d[i + 3] = xy + n.z * t.z;
    }
    range(d)
}

/// Smallest and largest of finite values.
#[inline]
fn range<const N: usize>(d: [f64; N]) -> (f64, f64) {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for x in d {
        if x < lo {
            lo = x;
        }
        if x > hi {
            hi = x;
        }
    }
    (lo, hi)
}

/// All prisms `hfield_convex` would collide with `g`, in order (for tests and debugging).
pub fn hfield_prisms(hf: &ConvexGeom, g: &ConvexGeom, margin: f64) -> Vec<Prism> {
    let mut v = Vec::new();
    if let Some(field) = hf.hfield {
        if let Some(q) = query(field, hf, g, margin, &mut CcdObj::from_geom(g, 0.0)) {
            for_each_prism(field, q.cells, q.lo.z - margin, |p| {
                v.push(*p);
                true
            });
        }
    }
    v
}

// ------------------------------------------------------------------------------------------
// entry point
// ------------------------------------------------------------------------------------------

/// Height field (`hf`, geom 1, with `hf.hfield` set) against a convex geom (`g`, geom 2):
/// MuJoCo 4.0.0's `mjc_ConvexHField`. Up to [`MAX_HFIELD_CONTACTS`] contacts (and at most
/// `out.len()`), one per colliding prism, in prism order (see the module documentation);
/// normals point from the height field to the geom, `dist` is the true signed distance and
/// every contact has `dist <= margin`. Returns 0 without height-field data.
pub fn hfield_convex(
    hf: &ConvexGeom,
    g: &ConvexGeom,
    margin: f64,
    opt: &CcdOptions,
    out: &mut [PreContact],
) -> usize {
    let Some(field) = hf.hfield else {
        return 0;
    };
    if above_field(field, hf, g, margin) {
        return 0;
    }
    let mut obj2 = CcdObj::from_geom(g, 0.0);
    let Some(q) = query(field, hf, g, margin, &mut obj2) else {
        return 0;
    };
    let limit = out.len().min(MAX_HFIELD_CONTACTS);
    if limit == 0 {
        return 0;
    }
    let mut cnt = 0;
    let mut emit = |c: PreContact, cnt: &mut usize| -> bool {
        out[*cnt] = PreContact {
            dist: c.dist,
            pos: hf.mat.mul_vec3(c.pos) + hf.pos,
            normal: hf.mat.mul_vec3(c.normal),
            tangent: DVec3::ZERO,
        };
        *cnt += 1;
        *cnt < limit
    };
    if opt.native {
        let geom_local = ConvexGeom {
            kind: g.kind,
            pos: q.pos,
            mat: q.mat,
            size: g.size,
            hull: g.hull,
            hfield: None,
        };
        let cull = Cull::new(&geom_local, &q, margin + opt.tolerance + CULL_SLACK);
        // built at the first prism that reaches the solver (its six bounding-box support
        // queries, which seed a mesh's warm start, then run just before that prism's GJK, as
        // in MuJoCo: nothing else touches the object in between)
        let mut solver = None;
        for_each_prism(field, q.cells, q.lo.z - margin, |p| {
            if cull.as_ref().is_some_and(|k| k.excludes(&p.vert)) {
                return true;
            }
            if solver.is_none() {
                solver = PrismCollider::new(&geom_local, margin, opt);
            }
            let Some(solver) = solver.as_mut() else {
                return false;
            };
            match solver.collide(&p.vert) {
                Some(c) if c.dist <= margin => emit(c, &mut cnt),
                _ => true,
            }
        });
    } else {
        obj2.margin = margin;
        let mut obj1 = CcdObj::prism(margin);
        for_each_prism(field, q.cells, q.lo.z - margin, |p| {
            obj1.prism = p.vert;
            match ccd_penetration(&mut obj1, &mut obj2, margin, opt) {
                Some(c) => emit(c, &mut cnt),
                None => true,
            }
        });
        for c in &mut out[..cnt] {
            fix_normal(c, None, Some(g));
        }
    }
    cnt
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reproducible xorshift generator of numbers in `[lo, hi)`.
    struct Rng(u64);

    impl Rng {
        fn range(&mut self, lo: f64, hi: f64) -> f64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            lo + (hi - lo) * (self.0 >> 11) as f64 / (1u64 << 53) as f64
        }
    }

    /// A height field of `nrow × ncol` random heights in [0, 1).
    fn random_field(rng: &mut Rng, nrow: usize, ncol: usize, size: [f64; 4]) -> HField {
        HField {
            name: String::new(),
            size,
            nrow,
            ncol,
            data: (0..nrow * ncol)
                .map(|_| rng.range(0.0, 1.0) as f32)
                .collect(),
        }
    }

    /// The height-field geom of `field` placed at `pos`, `mat`.
    fn field_geom(field: &HField, pos: DVec3, mat: DMat3) -> ConvexGeom<'_> {
        ConvexGeom {
            kind: GeomType::HField,
            pos,
            mat,
            size: DVec3::ZERO,
            hull: None,
            hfield: Some(field),
        }
    }

    #[test]
    fn prism_range_is_the_range_of_the_vertex_dot_products_bit_for_bit() {
        // the cull's shared `n.x x + n.y y` must round exactly as `n.dot(p)` per vertex
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let field = random_field(&mut rng, 7, 9, [1.3, 0.7, 0.4, 0.2]);
        let cells = CellRange {
            cmin: 0,
            cmax: 8,
            rmin: 0,
            rmax: 6,
        };
        let mut checked = 0;
        for_each_prism(&field, cells, f64::NEG_INFINITY, |p| {
            for _ in 0..20 {
                let n = DVec3::new(
                    rng.range(-1.0, 1.0),
                    rng.range(-1.0, 1.0),
                    rng.range(-1.0, 1.0),
                );
                let (lo, hi) = prism_range(n, &p.vert);
                let (elo, ehi) = range(p.vert.map(|q| n.dot(q)));
                assert_eq!((lo.to_bits(), hi.to_bits()), (elo.to_bits(), ehi.to_bits()));
                checked += 1;
            }
            true
        });
        assert_eq!(checked, 20 * 2 * 8 * 6);
    }

    #[test]
    fn culled_prisms_never_give_a_contact() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let field = random_field(&mut rng, 9, 11, [1.0, 0.8, 0.4, 0.2]);
        let hf = field_geom(
            &field,
            DVec3::new(0.1, -0.2, 0.3),
            DMat3::from_rotation_z(0.4),
        );
        let opt = CcdOptions::default();
        let kinds = [
            GeomType::Sphere,
            GeomType::Capsule,
            GeomType::Ellipsoid,
            GeomType::Cylinder,
            GeomType::Box,
        ];
        let (mut culled, mut kept, mut contacts) = (0, 0, 0);
        for case in 0..400 {
            let kind = kinds[case % kinds.len()];
            let size = DVec3::new(
                rng.range(0.03, 0.3),
                rng.range(0.03, 0.3),
                rng.range(0.03, 0.3),
            );
            let local = DVec3::new(
                rng.range(-0.9, 0.9),
                rng.range(-0.7, 0.7),
                rng.range(0.2, 0.8),
            );
            let mat = DMat3::from_euler(
                glam::EulerRot::XYZ,
                rng.range(-3.0, 3.0),
                rng.range(-3.0, 3.0),
                rng.range(-3.0, 3.0),
            );
            let margin = if case % 3 == 0 {
                0.0
            } else {
                rng.range(0.0, 0.05)
            };
            let g = ConvexGeom {
                kind,
                pos: hf.mat * local + hf.pos,
                mat: hf.mat * mat,
                size,
                hull: None,
                hfield: None,
            };
            let mut obj = CcdObj::from_geom(&g, 0.0);
            let Some(q) = query(&field, &hf, &g, margin, &mut obj) else {
                continue;
            };
            let geom_local = ConvexGeom {
                pos: q.pos,
                mat: q.mat,
                ..g
            };
            let cull = Cull::new(&geom_local, &q, margin + opt.tolerance + CULL_SLACK).unwrap();
            let mut solver = PrismCollider::new(&geom_local, margin, &opt).unwrap();
            for_each_prism(&field, q.cells, q.lo.z - margin, |p| {
                let c = solver.collide(&p.vert).filter(|c| c.dist <= margin);
                if cull.excludes(&p.vert) {
                    culled += 1;
                    assert!(
                        c.is_none(),
                        "case {case} ({kind:?}): culled {p:?} has {c:?}"
                    );
                } else {
                    kept += 1;
                    contacts += c.is_some() as usize;
                }
                true
            });
        }
        // the cull fires on most prisms that give no contact, and keeps enough that do
        println!("culled {culled}, kept {kept} ({contacts} with a contact)");
        assert!(culled > 2 * (kept - contacts), "{culled} {kept} {contacts}");
        assert!(contacts > 200, "{contacts}");
    }

    #[test]
    fn above_field_only_for_geoms_whose_prisms_all_fall_under_the_height_test() {
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        let field = random_field(&mut rng, 12, 10, [1.2, 0.9, 0.5, 0.1]);
        let hf = field_geom(
            &field,
            DVec3::new(-0.3, 0.2, 0.1),
            DMat3::from_rotation_x(0.3),
        );
        let (mut above, mut below_without_prisms, mut with_prisms) = (0, 0, 0);
        for case in 0..600 {
            let kind = [GeomType::Sphere, GeomType::Box, GeomType::Capsule][case % 3];
            let g = ConvexGeom {
                kind,
                pos: hf.mat
                    * DVec3::new(
                        rng.range(-1.5, 1.5),
                        rng.range(-1.2, 1.2),
                        rng.range(0.0, 1.2),
                    )
                    + hf.pos,
                mat: DMat3::from_euler(glam::EulerRot::ZYX, rng.range(-3.0, 3.0), 0.4, -0.2),
                size: DVec3::new(rng.range(0.02, 0.2), rng.range(0.02, 0.2), 0.1),
                hull: None,
                hfield: None,
            };
            let margin = rng.range(0.0, 0.02);
            let prisms = hfield_prisms(&hf, &g, margin).len();
            if above_field(&field, &hf, &g, margin) {
                above += 1;
                assert_eq!(prisms, 0, "case {case}: {g:?}");
            } else if prisms == 0 {
                below_without_prisms += 1;
            } else {
                with_prisms += 1;
            }
        }
        assert!(above > 100 && with_prisms > 100, "{above} {with_prisms}");
        // the shortcut is a bounding-sphere test: looser than the bounding box
        assert!(below_without_prisms > 0);
    }

    #[test]
    fn geom_far_beside_the_field_gives_nothing() {
        let field = HField {
            name: String::new(),
            size: [1.0, 1.0, 0.5, 0.1],
            nrow: 3,
            ncol: 3,
            data: vec![0.5; 9],
        };
        let hf = field_geom(&field, DVec3::ZERO, DMat3::IDENTITY);
        let mut out = [PreContact::default(); 4];
        for pos in [
            DVec3::new(1e6, 0.0, 0.0),
            DVec3::new(0.0, -1e6, 0.0),
            DVec3::new(-1e300, 1e300, 0.0),
        ] {
            let g = ConvexGeom {
                kind: GeomType::Sphere,
                pos,
                mat: DMat3::IDENTITY,
                size: DVec3::splat(0.1),
                hull: None,
                hfield: None,
            };
            assert!(!above_field(&field, &hf, &g, 0.0));
            assert_eq!(
                hfield_convex(&hf, &g, 0.0, &CcdOptions::default(), &mut out),
                0
            );
        }
    }

    #[test]
    fn meshes_are_never_culled() {
        let hull = crate::model::ConvexHull::default();
        let g = ConvexGeom {
            kind: GeomType::Mesh,
            pos: DVec3::ZERO,
            mat: DMat3::IDENTITY,
            size: DVec3::ONE,
            hull: Some(&hull),
            hfield: None,
        };
        let q = HFieldQuery {
            pos: DVec3::ZERO,
            mat: DMat3::IDENTITY,
            lo: -DVec3::ONE,
            hi: DVec3::ONE,
            cells: CellRange {
                cmin: 0,
                cmax: 1,
                rmin: 0,
                rmax: 1,
            },
        };
        assert!(Cull::new(&g, &q, 1e-3).is_none());
        let sphere = ConvexGeom {
            kind: GeomType::Sphere,
            ..g
        };
        assert!(Cull::new(&sphere, &q, 1e-3).is_some());
    }
}
