//! Box–box contacts, reproducing MuJoCo 4.0.0's `mjc_BoxBox` (the collider rewritten in
//! MuJoCo 3.12.0, `engine_collision_box.c`).
//!
//! The manifold is built in two stages.
//!
//! 1. **Separating-axis test** over the 15 candidate axes: the three face normals of each box,
//!    then the nine cross products of an edge of box 1 with an edge of box 2 (skipped when the
//!    edges are parallel to rounding, `sin² < 1e-16`). The pair is rejected as soon as one axis
//!    separates the boxes by more than `septol = margin + 1e-13·(sum of all six half-sizes)`.
//!    The axis of largest separation wins; an edge axis must beat the best face axis by a
//!    relative `1e-6` bias, and if the winning edge axis lies within about 8° of the best face
//!    axis (`|cos| > 0.99`) without being 5 % deeper, the face axis is used instead.
//! 2. **Manifold**:
//!    - *edge axis*: a single contact at the midpoint of the closest points of the two
//!      supporting edges (both candidate edges are tried when an axis component is ambiguous,
//!      `|c| < 1e-9`), `dist` = the witness gap along the axis;
//!    - *face axis*: the face of the other ("incident") box most opposed to the winning
//!      ("reference") face is clipped against the four side planes of the reference face
//!      (Sutherland–Hodgman); every clipped vertex whose height above the reference plane is
//!      `<= margin` becomes a contact (near-duplicates within `1e-14·(sx²+sy²)` dropped), with
//!      `dist` = that height and `pos` halfway between the vertex and the reference plane.
//!      A quad clipped by four half-planes has at most 8 vertices.
//!
//! Conventions (see [`crate::narrow`]): world-frame shapes, `size` = half-extents, the normal
//! points from box 1 to box 2 and is shared by all contacts of one call, `margin` is MuJoCo's
//! `margin + gap`. Face contacts are reported when `dist <= margin`; the edge–edge contact, as
//! in MuJoCo, when `dist <= septol`, i.e. up to `1e-13·(sum of half-sizes)` beyond the margin.
//! Contacts come in MuJoCo's order; at most `out.len()` are written. No allocation; no panics;
//! finite input gives finite output.

use super::{PreContact, Shape};
use crate::math::MINVAL;
use glam::{DMat3, DVec3};

/// Slack of the separation tests, per unit of summed half-size (`mjBOXBOX_SEPEPS`).
const SEP_EPS: f64 = 1e-13;
/// `sin²` of the edge angle below which an edge-cross axis is rounding noise (`mjBOXBOX_PAREPS`).
const PAR_EPS: f64 = 1e-16;
/// Axis component below which the supporting edge is ambiguous (`mjBOXBOX_SGNEPS`).
const SGN_EPS: f64 = 1e-9;
/// Squared duplicate radius of clipped vertices, relative to the face size (`mjBOXBOX_DUPEPS`).
const DUP_EPS: f64 = 1e-14;
/// Relative handicap of edge axes against face axes on near-ties (`mjBOXBOX_EDGEBIAS`).
const EDGE_BIAS: f64 = 1e-6;
/// MuJoCo's `mjMAXVAL`, the initial "best separation" of the axis search.
const MAXVAL: f64 = 1e10;
/// Capacity of the clipping buffers (`mjBOXBOX_MAXVERT`).
const MAX_VERT: usize = 12;

type V3 = [f64; 3];

#[inline]
fn v3(v: DVec3) -> V3 {
    [v.x, v.y, v.z]
}

#[inline]
fn dot(a: &V3, b: &V3) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

#[inline]
fn clamp(x: f64, lo: f64, hi: f64) -> f64 {
    if x < lo {
        lo
    } else if x > hi {
        hi
    } else {
        x
    }
}

/// `m * v` for a rotation given by its columns, summing in MuJoCo's order.
#[inline]
fn rotate(m: &DMat3, v: &V3) -> DVec3 {
    let (c0, c1, c2) = (m.x_axis, m.y_axis, m.z_axis);
    DVec3::new(
        c0.x * v[0] + c1.x * v[1] + c2.x * v[2],
        c0.y * v[0] + c1.y * v[1] + c2.y * v[2],
        c0.z * v[0] + c1.z * v[1] + c2.z * v[2],
    )
}

/// Unit vector along `v` (MuJoCo's `mju_normalize3`: `+x` for a vanishing vector).
#[inline]
fn normalized(v: V3) -> V3 {
    let n = dot(&v, &v).sqrt();
    if n < MINVAL {
        [1.0, 0.0, 0.0]
    } else {
        let inv = 1.0 / n;
        [v[0] * inv, v[1] * inv, v[2] * inv]
    }
}

/// The relative pose of the two boxes, everything in box-local coordinates.
struct Relative {
    /// `rot[r][c]`: axis `r` of box 1 dotted with axis `c` of box 2, so column `c` is box 2's
    /// axis `c` in box 1's frame.
    rot: [[f64; 3]; 3],
    /// `|rot|`, elementwise.
    rot_abs: [[f64; 3]; 3],
    /// Centre of box 2 in box 1's frame.
    p21: V3,
    /// Centre of box 1 in box 2's frame.
    p12: V3,
    /// Half-sizes.
    s1: V3,
    s2: V3,
}

impl Relative {
    fn new(g1: &Shape, g2: &Shape) -> Self {
        let ax1 = [v3(g1.mat.x_axis), v3(g1.mat.y_axis), v3(g1.mat.z_axis)];
        let ax2 = [v3(g2.mat.x_axis), v3(g2.mat.y_axis), v3(g2.mat.z_axis)];
        let d21 = v3(g2.pos - g1.pos);
        let d12 = v3(g1.pos - g2.pos);
        let mut rot = [[0.0; 3]; 3];
        let mut rot_abs = [[0.0; 3]; 3];
        for r in 0..3 {
            for c in 0..3 {
                rot[r][c] = dot(&ax1[r], &ax2[c]);
                rot_abs[r][c] = rot[r][c].abs();
            }
        }
        Relative {
            rot,
            rot_abs,
            p21: [dot(&ax1[0], &d21), dot(&ax1[1], &d21), dot(&ax1[2], &d21)],
            p12: [dot(&ax2[0], &d12), dot(&ax2[1], &d12), dot(&ax2[2], &d12)],
            s1: v3(g1.size),
            s2: v3(g2.size),
        }
    }

    /// Unnormalized edge-cross axis `e_i × rot[:, j]` in box 1's frame (component `i` is 0).
    #[inline]
    fn cross_axis(&self, i: usize, j: usize) -> V3 {
        let (i1, i2) = ((i + 1) % 3, (i + 2) % 3);
        let mut a = [0.0; 3];
        a[i1] = -self.rot[i2][j];
        a[i2] = self.rot[i1][j];
        a
    }

    /// Component `c` of a box-1-frame vector in box 2's frame.
    #[inline]
    fn to_box2(&self, v: &V3, c: usize) -> f64 {
        v[0] * self.rot[0][c] + v[1] * self.rot[1][c] + v[2] * self.rot[2][c]
    }
}

/// The winning separating axis.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Axis {
    /// Face normal `k` of box 1.
    Face1(usize),
    /// Face normal `k` of box 2.
    Face2(usize),
    /// Edge `i` of box 1 crossed with edge `j` of box 2.
    Edge(usize, usize),
}

/// Separation of the boxes along the edge axis `e_i × (box 2's axis j)`, or `None` when the
/// edges are parallel to rounding (`sin² < PAR_EPS`).
#[inline(always)]
fn edge_separation(rel: &Relative, i: usize, j: usize) -> Option<f64> {
    let (s1, s2) = (&rel.s1, &rel.s2);
    let (i1, i2) = ((i + 1) % 3, (i + 2) % 3);
    let (j1, j2) = ((j + 1) % 3, (j + 2) % 3);
    let raw = rel.cross_axis(i, j);
    let (mut u1, mut u2) = (raw[i1], raw[i2]);
    let n2 = u1 * u1 + u2 * u2;
    if n2 < PAR_EPS {
        return None;
    }
    let inv = 1.0 / n2.sqrt();
    u1 *= inv;
    u2 *= inv;
    let r1 = s1[i1] * u1.abs() + s1[i2] * u2.abs();
    let b1 = u1 * rel.rot[i1][j1] + u2 * rel.rot[i2][j1];
    let b2 = u1 * rel.rot[i1][j2] + u2 * rel.rot[i2][j2];
    let r2 = s2[j1] * b1.abs() + s2[j2] * b2.abs();
    Some((u1 * rel.p21[i1] + u2 * rel.p21[i2]).abs() - r1 - r2)
}

/// Stage 1. Returns the winning axis, or `None` when some axis separates the boxes by more
/// than `septol` (or, as in MuJoCo, when no face axis beats `-mjMAXVAL`).
fn separating_axis(rel: &Relative, septol: f64) -> Option<Axis> {
    let (s1, s2) = (&rel.s1, &rel.s2);
    // MuJoCo starts from -mjMAXVAL, so a face axis must beat it to be chosen at all
    let mut best = -MAXVAL;
    let mut axis = None;

    for (i, ra) in rel.rot_abs.iter().enumerate() {
        let r2 = ra[0] * s2[0] + ra[1] * s2[1] + ra[2] * s2[2];
        let sep = rel.p21[i].abs() - s1[i] - r2;
        if sep > septol {
            return None;
        }
        if sep > best {
            best = sep;
            axis = Some(Axis::Face1(i));
        }
    }
    for j in 0..3 {
        let ra = &rel.rot_abs;
        let r1 = ra[0][j] * s1[0] + ra[1][j] * s1[1] + ra[2][j] * s1[2];
        let sep = rel.p12[j].abs() - s2[j] - r1;
        if sep > septol {
            return None;
        }
        if sep > best {
            best = sep;
            axis = Some(Axis::Face2(j));
        }
    }
    let (face, face_sep) = (axis, best);

    // the nine edge axes in MuJoCo's order (i outer, j inner), unrolled so that every index
    // is a constant
    macro_rules! edge_axes {
        ($(($i:literal, $j:literal)),*) => {$(
            if let Some(sep) = edge_separation(rel, $i, $j) {
                if sep > septol {
                    return None;
                }
                if sep - EDGE_BIAS * sep.abs() > best && sep > face_sep {
                    best = sep;
                    axis = Some(Axis::Edge($i, $j));
                }
            }
        )*};
    }
    edge_axes!(
        (0, 0),
        (0, 1),
        (0, 2),
        (1, 0),
        (1, 1),
        (1, 2),
        (2, 0),
        (2, 1),
        (2, 2)
    );

    // an edge axis nearly parallel to the best face axis yields to it unless clearly deeper
    if let (Some(Axis::Edge(i, j)), Some(face_axis)) = (axis, face) {
        let e = normalized(rel.cross_axis(i, j));
        let cos = match face_axis {
            Axis::Face1(k) => e[k].abs(),
            Axis::Face2(k) => rel.to_box2(&e, k).abs(),
            Axis::Edge(..) => 0.0,
        };
        if cos > 0.99 && best < face_sep + 0.05 * face_sep.abs() + MINVAL {
            axis = face;
        }
    }
    axis
}

/// Stage 2a: one contact between the supporting edges `i` of box 1 and `j` of box 2.
fn edge_contact(
    g1: &Shape,
    rel: &Relative,
    i: usize,
    j: usize,
    septol: f64,
    out: &mut [PreContact],
) -> usize {
    let (s1, s2, rot) = (&rel.s1, &rel.s2, &rel.rot);
    let (i1, i2) = ((i + 1) % 3, (i + 2) % 3);
    let (j1, j2) = ((j + 1) % 3, (j + 2) % 3);

    // unit axis in box 1's frame, pointing from box 1 towards box 2
    let mut n = normalized(rel.cross_axis(i, j));
    if dot(&n, &rel.p21) < 0.0 {
        n = [-n[0], -n[1], -n[2]];
    }
    let n2 = [rel.to_box2(&n, 0), rel.to_box2(&n, 1), rel.to_box2(&n, 2)];

    // an axis component near zero leaves the supporting edge ambiguous: try both
    let ambiguous = |v: &V3, k1: usize, k2: usize| {
        if v[k1].abs() < SGN_EPS {
            Some(k1)
        } else if v[k2].abs() < SGN_EPS {
            Some(k2)
        } else {
            None
        }
    };
    let amb1 = ambiguous(&n, i1, i2);
    let amb2 = ambiguous(&n2, j1, j2);

    // edge directions: e_i for box 1, column j of rot for box 2
    let d2 = [rot[0][j], rot[1][j], rot[2][j]];
    let b = d2[i];
    let denom = 1.0 - b * b;

    let mut best = f64::INFINITY;
    let mut w1 = [0.0; 3];
    let mut w2 = [0.0; 3];
    for f1 in 0..1 + amb1.is_some() as usize {
        for f2 in 0..1 + amb2.is_some() as usize {
            // box 1 edge centre: the corner supporting +n
            let mut c1 = [0.0; 3];
            c1[i1] = if n[i1] >= 0.0 { s1[i1] } else { -s1[i1] };
            c1[i2] = if n[i2] >= 0.0 { s1[i2] } else { -s1[i2] };
            if let (Some(k), 1) = (amb1, f1) {
                c1[k] = -c1[k];
            }
            // box 2 edge centre: the corner supporting -n, mapped to box 1's frame
            let mut cc = [0.0; 3];
            cc[j1] = if n2[j1] >= 0.0 { -s2[j1] } else { s2[j1] };
            cc[j2] = if n2[j2] >= 0.0 { -s2[j2] } else { s2[j2] };
            if let (Some(k), 1) = (amb2, f2) {
                cc[k] = -cc[k];
            }
            let mut c2 = [0.0; 3];
            for r in 0..3 {
                c2[r] = rot[r][0] * cc[0] + rot[r][1] * cc[1] + rot[r][2] * cc[2] + rel.p21[r];
            }

            // closest points of the two segments, each clamp re-solving the other parameter
            let e = [c2[0] - c1[0], c2[1] - c1[1], c2[2] - c1[2]];
            let d1e = e[i];
            let d2e = dot(&d2, &e);
            let mut s = if denom < MINVAL {
                0.0
            } else {
                (d1e - b * d2e) / denom
            };
            s = clamp(s, -s1[i], s1[i]);
            let t = clamp(b * s - d2e, -s2[j], s2[j]);
            s = clamp(d1e + b * t, -s1[i], s1[i]);

            let mut p1 = c1;
            p1[i] += s;
            let p2 = [c2[0] + d2[0] * t, c2[1] + d2[1] * t, c2[2] + d2[2] * t];
            let g = [p2[0] - p1[0], p2[1] - p1[1], p2[2] - p1[2]];
            let g2 = dot(&g, &g);
            if g2 < best {
                best = g2;
                w1 = p1;
                w2 = p2;
            }
        }
    }

    let g = [w2[0] - w1[0], w2[1] - w1[1], w2[2] - w1[2]];
    let dist = dot(&g, &n);
    if dist > septol || out.is_empty() {
        return 0;
    }
    let mid = [
        0.5 * (w1[0] + w2[0]),
        0.5 * (w1[1] + w2[1]),
        0.5 * (w1[2] + w2[2]),
    ];
    out[0] = PreContact {
        dist,
        pos: rotate(&g1.mat, &mid) + g1.pos,
        normal: rotate(&g1.mat, &n),
        tangent: DVec3::ZERO,
    };
    1
}

/// A polygon in the reference face's coordinates `(x, y, height above the face)`.
struct Poly {
    v: [V3; MAX_VERT],
    n: usize,
}

/// Clips `poly` against the half-plane `sign * v[coord] <= limit`. Returns `false` for a
/// polygon entirely inside (nothing written); otherwise the result is written to `clipped`
/// and the caller takes it as the new polygon.
fn clip(poly: &Poly, clipped: &mut Poly, coord: usize, sign: f64, limit: f64) -> bool {
    let mut d = [0.0; MAX_VERT];
    let mut inside = true;
    for (dk, v) in d.iter_mut().zip(&poly.v[..poly.n]) {
        *dk = sign * v[coord] - limit;
        inside &= *dk <= 0.0;
    }
    if inside {
        return false;
    }
    let mut n = 0;
    for k in 0..poly.n {
        let k1 = if k + 1 == poly.n { 0 } else { k + 1 };
        let (dp, dq) = (d[k], d[k1]);
        let p = poly.v[k];
        if dp <= 0.0 && n < MAX_VERT {
            clipped.v[n] = p;
            n += 1;
        }
        if ((dp < 0.0 && dq > 0.0) || (dp > 0.0 && dq < 0.0)) && n < MAX_VERT {
            let q = poly.v[k1];
            let t = dp / (dp - dq);
            clipped.v[n] = [
                p[0] + t * (q[0] - p[0]),
                p[1] + t * (q[1] - p[1]),
                p[2] + t * (q[2] - p[2]),
            ];
            n += 1;
        }
    }
    clipped.n = n;
    true
}

/// Stage 2b: the incident face clipped against the reference face (normal `a` of box 1 when
/// `REF1`, else of box 2; a constant, so that each case reads the rotation without a branch).
fn face_contacts<const REF1: bool>(
    g1: &Shape,
    g2: &Shape,
    rel: &Relative,
    a: usize,
    margin: f64,
    out: &mut [PreContact],
) -> usize {
    let (gref, size_ref, size_inc, p_inc) = if REF1 {
        (g1, &rel.s1, &rel.s2, &rel.p21)
    } else {
        (g2, &rel.s2, &rel.s1, &rel.p12)
    };
    // rinc[r][c]: component r of incident axis c, in the reference frame
    let rinc = |r: usize, c: usize| if REF1 { rel.rot[r][c] } else { rel.rot[c][r] };

    // side of the reference box the incident box lies on
    let sgn = if p_inc[a] >= 0.0 { 1.0 } else { -1.0 };

    // incident face: normal most (anti)parallel to the reference normal, oriented against it
    let mut binc = 0;
    for k in 1..3 {
        if rinc(a, k).abs() > rinc(a, binc).abs() {
            binc = k;
        }
    }
    let tinc = if sgn * rinc(a, binc) > 0.0 { -1.0 } else { 1.0 };

    // face centre and half-edge vectors in (x, y, z) = (axis a+1, axis a+2, axis a)
    let (ax, ay) = ((a + 1) % 3, (a + 2) % 3);
    let (bu, bv) = ((binc + 1) % 3, (binc + 2) % 3);
    let mut cen = [0.0; 3];
    let mut du = [0.0; 3];
    let mut dv = [0.0; 3];
    for (r, c) in [ax, ay, a].into_iter().enumerate() {
        cen[r] = p_inc[c] + tinc * size_inc[binc] * rinc(c, binc);
        du[r] = size_inc[bu] * rinc(c, bu);
        dv[r] = size_inc[bv] * rinc(c, bv);
    }
    // height above the reference face plane (negative: inside the reference box)
    cen[2] = sgn * cen[2] - size_ref[a];
    du[2] *= sgn;
    dv[2] *= sgn;

    let mut poly = Poly {
        v: [[0.0; 3]; MAX_VERT],
        n: 4,
    };
    for (k, (su, sv)) in [(1.0, 1.0), (-1.0, 1.0), (-1.0, -1.0), (1.0, -1.0)]
        .into_iter()
        .enumerate()
    {
        for r in 0..3 {
            poly.v[k][r] = cen[r] + su * du[r] + sv * dv[r];
        }
    }
    let mut other = Poly {
        v: [[0.0; 3]; MAX_VERT],
        n: 0,
    };
    // the two buffers trade roles by reference whenever a clip cuts the polygon
    let (mut poly, mut spare) = (&mut poly, &mut other);
    for (coord, sign, limit) in [
        (0, 1.0, size_ref[ax]),
        (0, -1.0, size_ref[ax]),
        (1, 1.0, size_ref[ay]),
        (1, -1.0, size_ref[ay]),
    ] {
        if clip(poly, spare, coord, sign, limit) {
            std::mem::swap(&mut poly, &mut spare);
        }
    }

    let nsign = if REF1 { sgn } else { -sgn };
    let normal = nsign * gref.mat.col(a);
    let dup2 = DUP_EPS * (size_ref[ax] * size_ref[ax] + size_ref[ay] * size_ref[ay]);

    // accepted vertices are written straight to `out`; duplicates are tested against them
    // in the reference frame, kept alongside
    let mut kept = [[0.0f64; 2]; MAX_VERT];
    let mut n = 0;
    for v in &poly.v[..poly.n] {
        if v[2] > margin || n >= out.len() {
            continue;
        }
        let dup = kept[..n].iter().any(|w| {
            let (dx, dy) = (w[0] - v[0], w[1] - v[1]);
            dx * dx + dy * dy < dup2
        });
        if dup {
            continue;
        }
        let mut local = [0.0; 3];
        local[ax] = v[0];
        local[ay] = v[1];
        local[a] = sgn * (size_ref[a] + 0.5 * v[2]);
        kept[n] = [v[0], v[1]];
        out[n] = PreContact {
            dist: v[2],
            pos: rotate(&gref.mat, &local) + gref.pos,
            normal,
            tangent: DVec3::ZERO,
        };
        n += 1;
    }
    n
}

/// Box–box contacts (`mjc_BoxBox`): up to 8 contacts sharing one normal (face manifold), or a
/// single edge–edge contact. `size` is the half-extents; the normal points from `g1` to
/// `g2`; `pos` is midway between the surfaces; contacts with `dist <= margin` are reported.
pub fn box_box(g1: &Shape, g2: &Shape, margin: f64, out: &mut [PreContact]) -> usize {
    let rel = Relative::new(g1, g2);
    let (s1, s2) = (&rel.s1, &rel.s2);
    let septol = margin + SEP_EPS * (s1[0] + s1[1] + s1[2] + s2[0] + s2[1] + s2[2]);
    match separating_axis(&rel, septol) {
        None => 0,
        Some(Axis::Edge(i, j)) => edge_contact(g1, &rel, i, j, septol, out),
        Some(Axis::Face1(a)) => face_contacts::<true>(g1, g2, &rel, a, margin, out),
        Some(Axis::Face2(a)) => face_contacts::<false>(g1, g2, &rel, a, margin, out),
    }
}
