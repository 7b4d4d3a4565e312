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
    query(field, hf, g, margin).map(|(q, _)| q)
}

fn valid(field: &HField) -> bool {
    field.nrow >= 2 && field.ncol >= 2 && field.data.len() >= field.nrow * field.ncol
}

fn query<'a>(
    field: &HField,
    hf: &ConvexGeom,
    g: &ConvexGeom<'a>,
    margin: f64,
) -> Option<(HFieldQuery, CcdObj<'a>)> {
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
    let mut obj = CcdObj::from_geom(g, 0.0);
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
    Some((
        HFieldQuery {
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
        },
        obj,
    ))
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
/// all below `zskip`; `f` returns `false` to stop.
fn for_each_prism(field: &HField, cells: CellRange, zskip: f64, mut f: impl FnMut(&Prism) -> bool) {
    let [s0, s1, s2, s3] = field.size;
    let dx = (s0 + s0) / (field.ncol - 1) as f64;
    let dy = (s1 + s1) / (field.nrow - 1) as f64;
    let vertex = |r: usize, c: usize| -> (f64, f64, f64) {
        let x = dx * c as f64 - s0;
        let y = dy * r as f64 - s1;
        let z = field.data[r * field.ncol + c] as f64 * s2;
        (x, y, z)
    };
    let mut p = Prism {
        vert: [DVec3::ZERO; 6],
        row: 0,
        col: 0,
        half: 0,
    };
    let push = |p: &mut Prism, (x, y, z): (f64, f64, f64)| {
        p.vert[0] = p.vert[1];
        p.vert[1] = p.vert[2];
        p.vert[3] = p.vert[4];
        p.vert[4] = p.vert[5];
        p.vert[2] = DVec3::new(x, y, -s3);
        p.vert[5] = DVec3::new(x, y, z);
    };
    for r in cells.rmin..cells.rmax {
        p.row = r;
        push(&mut p, vertex(r + 1, cells.cmin));
        push(&mut p, vertex(r, cells.cmin));
        for c in cells.cmin + 1..=cells.cmax {
            p.col = c;
            for half in 0..2 {
                push(&mut p, vertex(r + 1 - half, c));
                p.half = half;
                if p.vert[3].z < zskip && p.vert[4].z < zskip && p.vert[5].z < zskip {
                    continue;
                }
                if !f(&p) {
                    return;
                }
            }
        }
    }
}

/// All prisms `hfield_convex` would collide with `g`, in order (for tests and debugging).
pub fn hfield_prisms(hf: &ConvexGeom, g: &ConvexGeom, margin: f64) -> Vec<Prism> {
    let mut v = Vec::new();
    if let Some(field) = hf.hfield {
        if let Some((q, _)) = query(field, hf, g, margin) {
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
    let Some((q, mut obj2)) = query(field, hf, g, margin) else {
        return 0;
    };
    let limit = out.len().min(MAX_HFIELD_CONTACTS);
    if limit == 0 {
        return 0;
    }
    obj2.margin = margin;
    let mut obj1 = CcdObj::prism(margin);
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
        let Some(mut solver) = PrismCollider::new(&geom_local, margin, opt) else {
            return 0;
        };
        for_each_prism(field, q.cells, q.lo.z - margin, |p| {
            match solver.collide(&p.vert) {
                Some(c) if c.dist <= margin => emit(c, &mut cnt),
                _ => true,
            }
        });
    } else {
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
