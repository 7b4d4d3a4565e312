//! GJK (Gilbert–Johnson–Keerthi) on the Minkowski difference of two support-mapped shapes, with
//! the signed-volume sub-distance algorithm of Montanari et al. (ToG 2017), the Frank–Wolfe
//! duality-gap stop, and a simplex-walk intersection test (`gjkIntersect`) used when only
//! contact (not distance) is needed. Follows MuJoCo's `engine_collision_gjk.c`, with 4.0.0's
//! arithmetic (measured by tracing the library's `mjc_ccd`): the next iterate is the origin's
//! projection on the affine hull of the reduced simplex, not the barycentric combination of its
//! vertices (which can also stall: on a sphere core against an ellipsoid, at tolerance 1e-10,
//! it stopped 3.6e-6 above the true distance where the projection converges; test
//! `sphere_deep_in_ellipsoid_depth_is_exact_cross_check_732`), and search directions are
//! `x * (1 / |x|)`.

use glam::DVec3;

use super::support::{minkowski_support, Object, Vertex, MINVAL};

/// MuJoCo's `mjMAXVAL`.
const MAXVAL: f64 = 1e10;
/// Distance reported for separated shapes (`mjMAX_LIMIT`).
pub(crate) const FAR: f64 = f64::MAX;

/// Result of a GJK run.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Gjk {
    /// Distance between the shapes (0 when a tetrahedron encloses the origin), or [`FAR`].
    pub dist: f64,
    /// Witness point on shape 1.
    pub x1: DVec3,
    /// Witness point on shape 2.
    pub x2: DVec3,
    /// The last iterate `x_k`, a point of the Minkowski difference (shape 1 − shape 2): when the
    /// run ends separated, `-x_k` points from shape 1 towards shape 2 and separates them.
    pub x: DVec3,
    /// Number of simplex vertices (the first entries of the caller's simplex).
    pub nsimplex: usize,
    /// A separating direction was found.
    pub separated: bool,
    /// Iterations used.
    pub iterations: usize,
    /// The iteration budget ran out before any stopping test fired.
    pub exhausted: bool,
}

/// Runs GJK from the initial guess `x1 - x2`, leaving the final simplex in the first
/// [`Gjk::nsimplex`] entries of `simplex` (the caller's buffer, so that the 512-byte simplex is
/// neither zeroed nor returned by value on every run; the other entries are stale).
///
/// `cutoff`: 0 asks only for contact (early exit on a separating plane); a positive value asks
/// for the distance, stopping early once the shapes are provably farther apart than `cutoff`.
/// `use_intersect` (contact mode only): once a tetrahedron exists, switch to the
/// `gjkIntersect` walk. MuJoCo 4.0.0's collision path does not (measured: its EPA starts from
/// the plain GJK simplex), so the colliders pass `false`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn gjk(
    o1: &mut Object,
    o2: &mut Object,
    x1: DVec3,
    x2: DVec3,
    max_iterations: usize,
    tolerance: f64,
    cutoff: f64,
    use_intersect: bool,
    simplex: &mut [Vertex; 4],
) -> Gjk {
    let get_dist = cutoff > 0.0;
    let mut backup = !get_dist && use_intersect;
    let discrete = o1.discrete() && o2.discrete();
    let epsilon = if discrete {
        0.0
    } else {
        0.5 * tolerance * tolerance
    };
    // the iterate's norm below which GJK stops: the tolerance in contact mode between smooth
    // shapes, else MINVAL (MuJoCo 4.0.0's machine code; distance mode goes on below the
    // tolerance: `distance_mode_gjk_does_not_stop_at_the_tolerance`)
    let min_norm = if discrete || get_dist {
        MINVAL
    } else {
        tolerance
    };

    let mut out = Gjk {
        dist: FAR,
        x1,
        x2,
        x: x1 - x2,
        nsimplex: 0,
        separated: false,
        iterations: 0,
        exhausted: false,
    };
    let mut lambda = [0.0f64; 4];
    let mut n = 0usize;
    let mut x_k = x1 - x2;
    let mut x_norm = x_k.length();
    if x_norm < MINVAL {
        // coincident centres (a sphere centred in a mesh): MuJoCo 4.0.0 starts from the unit
        // x axis instead (measured bit for bit: test `convex_coincident_centres`)
        x_k = DVec3::X;
        x_norm = 1.0;
    }
    let mut x_norm_prev = 0.0;
    let mut k = 0usize;
    let mut stopped = false;

    while k < max_iterations {
        // the start point is never a stopping point (neither here nor by the duality gap
        // below): MuJoCo 4.0.0 searches from centres 1e-12 or 1e-6 apart and finds the contact
        // of a sphere inside a mesh
        // (a simplex of one vertex stops only below MINVAL, whatever the tolerance:
        // `one_vertex_simplex_does_not_stop_at_the_tolerance`)
        let stop_norm = if n == 1 { MINVAL } else { min_norm };
        if x_norm.is_nan() || (k > 0 && x_norm < stop_norm) || (x_norm_prev - x_norm).abs() < MINVAL
        {
            stopped = true;
            break;
        }
        // (MuJoCo 4.0.0's rounding: `x_k * (1 / |x_k|)`)
        let dir = -(x_k * (1.0 / x_norm));
        simplex[n] = minkowski_support(o1, o2, dir);
        let s_k = simplex[n].vert;

        let lower = x_k.dot(s_k);
        if !get_dist {
            if lower > 0.0 {
                out.separated = true;
                out.iterations = k;
                out.x = x_k;
                return out;
            }
        } else if cutoff < FAR && lower > 0.0 && lower >= cutoff * x_norm {
            out.separated = true;
            out.iterations = k;
            out.x = x_k;
            return out;
        }

        // Frank-Wolfe duality gap, after the separation tests: a support point that proves
        // separation ends the search as separated even when the gap is closed too (MuJoCo 4.0.0's
        // order; `distance_mode_gjk_does_not_stop_at_the_tolerance`)
        if k > 0 && x_k.dot(x_k - s_k) < epsilon {
            stopped = true;
            break;
        }

        if n == 3 && backup {
            let (ret, kk) = intersect(o1, o2, simplex, k, max_iterations);
            if ret != 0 {
                out.iterations = kk;
                if ret > 0 {
                    out.nsimplex = 4;
                    out.dist = 0.0;
                } else {
                    out.separated = true;
                }
                return out;
            }
            k = kk;
            backup = false;
        }

        let known = subdistance(&mut lambda, n + 1, simplex);
        n = 0;
        for i in 0..4 {
            if lambda[i] == 0.0 {
                continue;
            }
            if n != i {
                simplex[n] = simplex[i];
                lambda[n] = lambda[i];
            }
            n += 1;
        }
        if n < 1 {
            out.separated = true;
            out.iterations = k;
            out.nsimplex = 0;
            return out;
        }
        x_k = match known {
            // the projection the sub-distance computed, if on the kept vertices
            Some((k, p)) if k == n => p,
            _ => projection(&lambda, n, simplex),
        };
        // the start point (the centres' difference) is not an iterate: the first iterate's
        // norm is compared with nothing (two cylinders on one axis overlapping along it by
        // exactly their centre distance give |x_1| = |x_0| with x_1 = -x_0; MuJoCo 4.0.0 goes
        // on and finds the contact)
        x_norm_prev = if k == 0 { 0.0 } else { x_norm };
        x_norm = x_k.length();
        k += 1;
        if n == 4 {
            stopped = true;
            break;
        }
    }
    out.exhausted = !stopped;

    if n > 0 {
        out.x1 = lincomb(&lambda, n, |i| simplex[i].vert1);
        out.x2 = lincomb(&lambda, n, |i| simplex[i].vert2);
    }
    // final check, in contact mode only: a support point beyond the origin proves separation.
    // MuJoCo 4.0.0 makes no such support query when the simplex encloses the origin, nor in
    // distance mode, and the query would move a mesh's hill-climbing warm start, which decides
    // ties in the solves that follow (`gjk_tetrahedron_makes_no_final_support_query`,
    // `distance_mode_gjk_makes_no_final_support_query`)
    if !get_dist && n < 4 && x_norm > 0.0 && x_norm.is_finite() {
        let tmp = minkowski_support(o1, o2, -x_k / x_norm);
        if x_k.dot(tmp.vert) > 0.0 {
            out.separated = true;
        }
    }
    out.iterations = k;
    out.nsimplex = n;
    out.x = x_k;
    out.dist = if n == 4 && !out.separated {
        0.0
    } else {
        x_norm
    };
    out
}

/// The origin's projection on the affine hull of the reduced simplex (its `n` first vertices),
/// the point MuJoCo 4.0.0's GJK moves to (bit for bit), rather than the barycentric combination.
fn projection(lambda: &[f64; 4], n: usize, s: &[Vertex; 4]) -> DVec3 {
    match n {
        1 => s[0].vert,
        2 => project_origin_line(s[0].vert, s[1].vert),
        3 => project_origin_plane(s[0].vert, s[1].vert, s[2].vert)
            .unwrap_or_else(|| lincomb(lambda, n, |i| s[i].vert)),
        _ => lincomb(lambda, n, |i| s[i].vert),
    }
}

/// Signed distance of the face `(v1, v2, v3)` from the origin, with its unit normal.
fn signed_distance(v1: DVec3, v2: DVec3, v3: DVec3) -> (f64, DVec3) {
    let normal = (v3 - v1).cross(v2 - v1);
    let norm2 = normal.length_squared();
    if norm2 > MINVAL * MINVAL && norm2 < MAXVAL * MAXVAL {
        let nrm = normal / norm2.sqrt();
        (nrm.dot(v1), nrm)
    } else {
        (FAR, DVec3::ZERO)
    }
}

/// Walks the tetrahedron towards the origin: +1 in contact (the simplex then encloses the
/// origin), -1 separated, 0 inconclusive. Returns the iteration count reached.
fn intersect(
    o1: &mut Object,
    o2: &mut Object,
    simplex_out: &mut [Vertex; 4],
    k0: usize,
    kmax: usize,
) -> (i32, usize) {
    let mut simplex = *simplex_out;
    let mut s = [0usize, 1, 2, 3];
    let mut k = k0;
    while k < kmax {
        let (d0, n0) = signed_distance(simplex[s[2]].vert, simplex[s[1]].vert, simplex[s[3]].vert);
        let (d1, n1) = signed_distance(simplex[s[0]].vert, simplex[s[2]].vert, simplex[s[3]].vert);
        let (d2, n2) = signed_distance(simplex[s[1]].vert, simplex[s[0]].vert, simplex[s[3]].vert);
        let (d3, n3) = signed_distance(simplex[s[0]].vert, simplex[s[1]].vert, simplex[s[2]].vert);
        let dist = [d0, d1, d2, d3];
        let normals = [n0, n1, n2, n3];
        if d0 == 0.0 || d1 == 0.0 || d2 == 0.0 || d3 == 0.0 {
            return (0, k);
        }
        let i = if dist[0] < dist[1] { 0 } else { 1 };
        let j = if dist[2] < dist[3] { 2 } else { 3 };
        let index = if dist[i] < dist[j] { i } else { j };
        if dist[index] > 0.0 {
            for c in 0..4 {
                simplex_out[c] = simplex[s[c]];
            }
            return (1, k);
        }
        if normals[index] == DVec3::ZERO {
            return (0, k);
        }
        simplex[s[index]] = minkowski_support(o1, o2, normals[index]);
        if normals[index].dot(simplex[s[index]].vert) < 0.0 {
            return (-1, k);
        }
        let a = (index + 1) & 3;
        let b = (index + 2) & 3;
        s.swap(a, b);
        k += 1;
    }
    (0, k)
}

/// Linear combination of `n` vectors.
pub(crate) fn lincomb(coef: &[f64], n: usize, v: impl Fn(usize) -> DVec3) -> DVec3 {
    let mut r = DVec3::ZERO;
    for (i, c) in coef.iter().enumerate().take(n) {
        r += v(i) * *c;
    }
    r
}

/// Both strictly positive or both strictly negative. Evaluated without short-circuits, so it
/// compiles to flag arithmetic rather than data-dependent branches.
#[inline]
fn same_sign(a: f64, b: f64) -> bool {
    ((a > 0.0) & (b > 0.0)) | ((a < 0.0) & (b < 0.0))
}

/// Origin projected on the plane through three points; `None` if they are collinear. Inlined:
/// the common case, the normal `n = (v3 - v2) × (v2 - v1)` neither short nor orthogonal to the
/// points, written out in scalars (the same operations as `DVec3::cross` and `DVec3::dot`,
/// which keeps the compiler from shuffling lanes); the rest out of line.
#[inline(always)]
pub(crate) fn project_origin_plane(v1: DVec3, v2: DVec3, v3: DVec3) -> Option<DVec3> {
    let (ax, ay, az) = (v3.x - v2.x, v3.y - v2.y, v3.z - v2.z);
    let (bx, by, bz) = (v2.x - v1.x, v2.y - v1.y, v2.z - v1.z);
    let (nx, ny, nz) = (ay * bz - by * az, az * bx - bz * ax, ax * by - bx * ay);
    let nv = (nx * v2.x) + (ny * v2.y) + (nz * v2.z);
    let nn = (nx * nx) + (ny * ny) + (nz * nz);
    if nn == 0.0 {
        return None;
    }
    let s = nv / nn;
    if nv != 0.0 && nn > MINVAL {
        return Some(DVec3::new(nx * s, ny * s, nz * s));
    }
    project_origin_plane_other_normals(v1, v2, v3)
}

/// [`project_origin_plane`] when its first normal is too short or orthogonal to the points: the
/// whole computation again, the first normal failing the same way before the normals through
/// the other two vertices are tried (rare, kept out of line).
#[cold]
#[inline(never)]
fn project_origin_plane_other_normals(v1: DVec3, v2: DVec3, v3: DVec3) -> Option<DVec3> {
    let d21 = v2 - v1;
    let d31 = v3 - v1;
    let d32 = v3 - v2;

    let n = d32.cross(d21);
    let nv = n.dot(v2);
    let nn = n.dot(n);
    if nn == 0.0 {
        return None;
    }
    if nv != 0.0 && nn > MINVAL {
        return Some(n * (nv / nn));
    }
    let n = d21.cross(d31);
    let nv = n.dot(v1);
    let nn = n.dot(n);
    if nn == 0.0 {
        return None;
    }
    if nv != 0.0 && nn > MINVAL {
        return Some(n * (nv / nn));
    }
    let n = d31.cross(d32);
    let nv = n.dot(v3);
    let nn = n.dot(n);
    if nn == 0.0 {
        return None;
    }
    Some(n * (nv / nn))
}

fn project_origin_line(v1: DVec3, v2: DVec3) -> DVec3 {
    let diff = v2 - v1;
    let dd = diff.dot(diff);
    if dd == 0.0 {
        return v2;
    }
    v2 - diff * (v2.dot(diff) / dd)
}

/// `Some((k, p))`: `p` is the origin's projection on the affine hull of the `k` simplex vertices
/// the barycentric coordinates are supported on, in their order, as [`projection`] computes it
/// (the sub-distance computes it on the way; GJK reuses it when those `k` vertices are kept).
type Known = Option<(usize, DVec3)>;

/// Barycentric coordinates of the point of the simplex nearest the origin.
fn subdistance(lambda: &mut [f64; 4], n: usize, simplex: &[Vertex; 4]) -> Known {
    *lambda = [0.0; 4];
    match n {
        4 => {
            let (l, known) = s3d(
                simplex[0].vert,
                simplex[1].vert,
                simplex[2].vert,
                simplex[3].vert,
            );
            *lambda = l;
            known
        }
        3 => {
            let (l, known) = s2d(simplex[0].vert, simplex[1].vert, simplex[2].vert);
            lambda[..3].copy_from_slice(&l);
            known
        }
        2 => {
            let (l, known) = s1d(simplex[0].vert, simplex[1].vert);
            lambda[..2].copy_from_slice(&l);
            known
        }
        _ => {
            lambda[0] = 1.0;
            None
        }
    }
}

fn det3(a: DVec3, b: DVec3, c: DVec3) -> f64 {
    a.dot(b.cross(c))
}

fn s3d(s1: DVec3, s2: DVec3, s3: DVec3, s4: DVec3) -> ([f64; 4], Known) {
    let c41 = -det3(s2, s3, s4);
    let c42 = det3(s1, s3, s4);
    let c43 = -det3(s1, s2, s4);
    let c44 = det3(s1, s2, s3);
    let m_det = c41 + c42 + c43 + c44;
    let comp = [
        same_sign(m_det, c41),
        same_sign(m_det, c42),
        same_sign(m_det, c43),
        same_sign(m_det, c44),
    ];
    if comp.iter().all(|&c| c) {
        return ([c41 / m_det, c42 / m_det, c43 / m_det, c44 / m_det], None);
    }
    let mut lambda = [0.0; 4];
    let mut known = None;
    let mut dmin = FAR;
    let faces: [[usize; 3]; 4] = [[1, 2, 3], [0, 2, 3], [0, 1, 3], [0, 1, 2]];
    let s = [s1, s2, s3, s4];
    for (f, idx) in faces.iter().enumerate() {
        if comp[f] {
            continue;
        }
        let (l, face_known) = s2d(s[idx[0]], s[idx[1]], s[idx[2]]);
        let x = s[idx[0]] * l[0] + s[idx[1]] * l[1] + s[idx[2]] * l[2];
        let d = x.dot(x);
        if d < dmin || dmin == FAR {
            lambda = [0.0; 4];
            lambda[idx[0]] = l[0];
            lambda[idx[1]] = l[1];
            lambda[idx[2]] = l[2];
            known = face_known;
            dmin = d;
        }
    }
    (lambda, known)
}

/// A coordinate plane: the triangle projections the sub-distance algorithm chooses between.
#[derive(Clone, Copy)]
enum Plane {
    Yz,
    Xz,
    Xy,
}

impl Plane {
    /// The two coordinates of `v` in this plane.
    #[inline]
    fn coords(self, v: DVec3) -> (f64, f64) {
        match self {
            Plane::Yz => (v.y, v.z),
            Plane::Xz => (v.x, v.z),
            Plane::Xy => (v.x, v.y),
        }
    }
}

/// The coordinate plane of the projection with the largest area, and the corresponding signed
/// minor.
fn best_projection(s1: DVec3, s2: DVec3, s3: DVec3) -> (Plane, f64) {
    let m14 = s2.y * s3.z - s2.z * s3.y - s1.y * s3.z + s1.z * s3.y + s1.y * s2.z - s1.z * s2.y;
    let m24 = s2.x * s3.z - s2.z * s3.x - s1.x * s3.z + s1.z * s3.x + s1.x * s2.z - s1.z * s2.x;
    let m34 = s2.x * s3.y - s2.y * s3.x - s1.x * s3.y + s1.y * s3.x + s1.x * s2.y - s1.y * s2.x;
    let (mu1, mu2, mu3) = (m14.abs(), m24.abs(), m34.abs());
    if mu1 >= mu2 && mu1 >= mu3 {
        (Plane::Yz, m14)
    } else if mu2 >= mu3 {
        (Plane::Xz, m24)
    } else {
        (Plane::Xy, m34)
    }
}

/// Signed areas (cofactors) of `p` against the triangle's edges, projected on `plane`.
fn cofactors(s1: DVec3, s2: DVec3, s3: DVec3, p: DVec3, plane: Plane) -> [f64; 3] {
    let (ax, ay) = plane.coords(s1);
    let (bx, by) = plane.coords(s2);
    let (cx, cy) = plane.coords(s3);
    let (px, py) = plane.coords(p);
    let c31 = px * by + py * cx + bx * cy - px * cy - py * bx - cx * by;
    let c32 = px * cy + py * ax + cx * ay - px * ay - py * cx - ax * cy;
    let c33 = px * ay + py * bx + ax * by - px * by - py * ax - bx * ay;
    [c31, c32, c33]
}

/// [`best_projection`] as MuJoCo 4.0.0's GJK sub-distance rounds it: the minors are the
/// coordinate-plane cross products of the edges `s2 - s1` and `s3 - s1` (the same values, other
/// roundings: near-degenerate triangles can get a different sign or plane).
fn edge_projection(s1: DVec3, s2: DVec3, s3: DVec3) -> (Plane, f64) {
    let (a, b) = (s2 - s1, s3 - s1);
    let m14 = b.z * a.y - a.z * b.y;
    let m24 = b.z * a.x - a.z * b.x;
    let m34 = a.x * b.y - a.y * b.x;
    let (mu1, mu2, mu3) = (m14.abs(), m24.abs(), m34.abs());
    if mu1 >= mu2 && mu1 >= mu3 {
        (Plane::Yz, m14)
    } else if mu2 >= mu3 {
        (Plane::Xz, m24)
    } else {
        (Plane::Xy, m34)
    }
}

/// [`cofactors`] as MuJoCo 4.0.0's GJK sub-distance rounds them: cross products of the
/// vertices' offsets from `p` in `plane`; their sum (not the minor) normalises them.
fn edge_cofactors(s1: DVec3, s2: DVec3, s3: DVec3, p: DVec3, plane: Plane) -> [f64; 3] {
    let (pu, pv) = plane.coords(p);
    let offset = |s: DVec3| {
        let (u, v) = plane.coords(s);
        (u - pu, v - pv)
    };
    let ((au, av), (bu, bv), (cu, cv)) = (offset(s1), offset(s2), offset(s3));
    [bu * cv - cu * bv, cu * av - au * cv, au * bv - bu * av]
}

/// The sub-distance on a triangle (barycentric coordinates: cofactors over their sum, the
/// signs tested against the minor, [`edge_projection`] and [`edge_cofactors`]). Three
/// collinear points (no plane to project on) are solved
/// edge by edge, as MuJoCo 4.0.0 does (its plane projection gives no usable point, so no sign
/// test passes): the edges `(s2, s3)`, `(s1, s3)`, `(s1, s2)` in turn, the first or a strictly
/// nearer one kept (`capsule_parallel_to_mesh_face_witness_at_one_end`).
#[inline(always)]
fn s2d(s1: DVec3, s2: DVec3, s3: DVec3) -> ([f64; 3], Known) {
    let comp = match project_origin_plane(s1, s2, s3) {
        Some(p_o) => {
            let (plane, m_max) = edge_projection(s1, s2, s3);
            let c = edge_cofactors(s1, s2, s3, p_o, plane);
            let comp = [
                same_sign(m_max, c[0]),
                same_sign(m_max, c[1]),
                same_sign(m_max, c[2]),
            ];
            if comp[0] && comp[1] && comp[2] {
                let sum = c[0] + c[1] + c[2];
                return ([c[0] / sum, c[1] / sum, c[2] / sum], Some((3, p_o)));
            }
            comp
        }
        None => [false; 3],
    };
    let mut lambda = [0.0; 3];
    let mut known = None;
    let mut dmin = FAR;
    let edges: [[usize; 2]; 3] = [[1, 2], [0, 2], [0, 1]];
    let s = [s1, s2, s3];
    for (e, idx) in edges.iter().enumerate() {
        if comp[e] {
            continue;
        }
        let (l, edge_known) = s1d(s[idx[0]], s[idx[1]]);
        let xv = s[idx[0]] * l[0] + s[idx[1]] * l[1];
        let d = xv.dot(xv);
        if d < dmin || dmin == FAR {
            lambda = [0.0; 3];
            lambda[idx[0]] = l[0];
            lambda[idx[1]] = l[1];
            known = edge_known;
            dmin = d;
        }
    }
    (lambda, known)
}

/// The sub-distance on a segment; a segment shorter than `MINVAL` (squared length below
/// `MINVAL²`) is its second point, as in MuJoCo 4.0.0.
fn s1d(s1: DVec3, s2: DVec3) -> ([f64; 2], Known) {
    let diff = s2 - s1;
    if diff.dot(diff) < MINVAL * MINVAL {
        return ([0.0, 1.0], None);
    }
    let p_o = project_origin_line(s1, s2);
    // the coordinate with the largest |s1 - s2| (the last of equals)
    let d = s1 - s2;
    let (mut mu_max, mut a, mut b, mut p) = (d.x, s1.x, s2.x, p_o.x);
    if d.y.abs() >= mu_max.abs() {
        (mu_max, a, b, p) = (d.y, s1.y, s2.y, p_o.y);
    }
    if d.z.abs() >= mu_max.abs() {
        (mu_max, a, b, p) = (d.z, s1.z, s2.z, p_o.z);
    }
    let c1 = p - b;
    let c2 = a - p;
    if same_sign(mu_max, c1) && same_sign(mu_max, c2) {
        ([c1 / mu_max, c2 / mu_max], Some((2, p_o)))
    } else {
        ([0.0, 1.0], None)
    }
}

/// Affine coordinates of `p` in the triangle `(v1, v2, v3)` (assumed in its plane).
pub(crate) fn tri_affine(v1: DVec3, v2: DVec3, v3: DVec3, p: DVec3) -> [f64; 3] {
    let (plane, m_max) = best_projection(v1, v2, v3);
    if m_max == 0.0 {
        return [1.0, 0.0, 0.0];
    }
    let c = cofactors(v1, v2, v3, p, plane);
    [c[0] / m_max, c[1] / m_max, c[2] / m_max]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::GeomType;
    use glam::DMat3;

    fn sphere(p: DVec3, r: f64) -> Object<'static> {
        Object::new(
            GeomType::Sphere,
            p,
            DMat3::IDENTITY,
            DVec3::new(r, 0.0, 0.0),
            None,
            0.0,
        )
    }

    fn run(
        a: &mut Object,
        b: &mut Object,
        iterations: usize,
        tol: f64,
        cutoff: f64,
        use_intersect: bool,
    ) -> Gjk {
        let (pa, pb) = (a.pos, b.pos);
        let mut simplex = [Vertex::default(); 4];
        gjk(
            a,
            b,
            pa,
            pb,
            iterations,
            tol,
            cutoff,
            use_intersect,
            &mut simplex,
        )
    }

    fn cube(p: DVec3, rot: DMat3, h: f64) -> Object<'static> {
        Object::new(GeomType::Box, p, rot, DVec3::splat(h), None, 0.0)
    }

    #[test]
    fn distance_mode() {
        let mut a = sphere(DVec3::new(-1.5, 0.0, 0.0), 1.0);
        let mut b = sphere(DVec3::new(1.5, 0.0, 0.0), 1.0);
        let g = run(&mut a, &mut b, 100, 1e-10, f64::MAX, false);
        assert!((g.dist - 1.0).abs() < 1e-8, "{}", g.dist);
        assert!((g.x1 - DVec3::new(-0.5, 0.0, 0.0)).length() < 1e-4);
        assert!((g.x2 - DVec3::new(0.5, 0.0, 0.0)).length() < 1e-4);
        // a cutoff below the distance ends early with "far"
        let g = run(&mut a, &mut b, 100, 1e-10, 0.5, false);
        assert!(g.separated && g.dist == FAR);
        // boxes: exact distance (discrete shapes converge exactly)
        let r = DMat3::from_rotation_z(0.3);
        let mut a = cube(DVec3::ZERO, DMat3::IDENTITY, 1.0);
        let mut b = cube(DVec3::new(3.0, 0.2, 0.1), r, 0.5);
        let g = run(&mut a, &mut b, 100, 1e-10, f64::MAX, false);
        let corner_x = 3.0 - 0.5 * (0.3f64.cos() + 0.3f64.sin());
        assert!(
            (g.dist - (corner_x - 1.0)).abs() < 1e-12,
            "{} vs {}",
            g.dist,
            corner_x - 1.0
        );
    }

    /// Random-scene seed 31 scene 1211 (`ccd_tolerance` 0.01, margin 0.001): the core distance
    /// between an ellipsoid and a thin box, in distance mode with the margin as cutoff. MuJoCo
    /// 4.0.0 goes on while the iterate is shorter than the tolerance (only contact mode stops
    /// there) and, at its seventh support point, where the duality gap closes and the point also
    /// proves separation, reports the shapes apart (its status after `gjk`: distance
    /// `mjMAXVAL`, 6 iterations). We stopped after five support points, 7.4e-3 apart.
    #[test]
    fn distance_mode_gjk_does_not_stop_at_the_tolerance() {
        let mat = |m: [f64; 9]| DMat3::from_cols_array(&m).transpose();
        let mut ellipsoid = Object::new(
            GeomType::Ellipsoid,
            DVec3::new(
                0.10576453362247068,
                0.061687257145526336,
                0.2775712675828248,
            ),
            mat([
                0.6551336572219066,
                0.6705880138649047,
                0.3480109291901227,
                0.530923536616325,
                -0.0809171671822812,
                -0.8435476337006758,
                -0.5375128737452379,
                0.737403639613962,
                -0.4090425196018364,
            ]),
            DVec3::new(0.131292, 0.108079, 0.129142),
            None,
            0.0,
        );
        let mut slab = Object::new(
            GeomType::Box,
            DVec3::new(
                0.15889898444552075,
                0.19257685928468143,
                0.23776933889994464,
            ),
            mat([
                -0.7805420000071209,
                0.5876058041483618,
                -0.21324541063300959,
                -0.2714476153783147,
                -0.625907784132325,
                -0.7311331191157939,
                -0.5630900268432307,
                -0.5127951488593863,
                0.6480515079652,
            ]),
            DVec3::new(0.0972874, 0.140257, 0.000275974),
            None,
            0.0,
        );
        let g = run(&mut ellipsoid, &mut slab, 35, 0.01, 0.001, false);
        assert!(g.separated && g.dist == FAR, "{g:?}");
        assert_eq!(g.iterations, 6);
    }

    #[test]
    fn intersection_mode() {
        for use_intersect in [false, true] {
            // overlapping: a tetrahedron (or a simplex within tolerance) around the origin
            let mut a = cube(DVec3::ZERO, DMat3::from_rotation_x(0.4), 1.0);
            let mut b = cube(DVec3::new(1.5, 0.3, -0.2), DMat3::from_rotation_y(0.7), 0.8);
            let g = run(&mut a, &mut b, 50, 1e-6, 0.0, use_intersect);
            assert!(
                !g.separated && g.dist <= 1e-6 && g.nsimplex > 1,
                "{use_intersect}: {g:?}"
            );
            // separated: a separating direction ends the search
            let mut b = cube(DVec3::new(3.5, 0.3, -0.2), DMat3::from_rotation_y(0.7), 0.8);
            let g = run(&mut a, &mut b, 50, 1e-6, 0.0, use_intersect);
            assert!(g.separated || g.dist > 1e-6, "{use_intersect}: {g:?}");
        }
    }

    #[test]
    fn subdistance_projection_is_the_recomputed_one() {
        // GJK takes the sub-distance's projection instead of recomputing it: it must be the
        // one `projection` gives on the kept vertices, bit for bit
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut rnd = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        };
        let mut reused = [0usize; 5];
        for trial in 0..3000 {
            let size = 2 + trial % 3;
            let mut simplex = [Vertex::default(); 4];
            for v in simplex.iter_mut().take(size) {
                v.vert = DVec3::new(rnd(), rnd(), rnd() + 0.3);
            }
            let mut lambda = [0.0; 4];
            let known = subdistance(&mut lambda, size, &simplex);
            let mut n = 0;
            for i in 0..4 {
                if lambda[i] != 0.0 {
                    simplex[n] = simplex[i];
                    lambda[n] = lambda[i];
                    n += 1;
                }
            }
            if let Some((k, p)) = known {
                if k == n {
                    let q = projection(&lambda, n, &simplex);
                    assert_eq!(
                        p.to_array().map(f64::to_bits),
                        q.to_array().map(f64::to_bits)
                    );
                    reused[k] += 1;
                }
            }
        }
        // both the edge and the triangle cases were exercised
        assert!(reused[2] > 100 && reused[3] > 100, "{reused:?}");
    }

    #[test]
    fn subdistance_corner_cases() {
        // degenerate simplices give finite barycentric coordinates summing to one
        let p = DVec3::new(1.0, 2.0, 3.0);
        let (l, _) = s1d(p, p);
        assert!(l.iter().all(|x| x.is_finite()));
        let (l, _) = s2d(p, p, p);
        assert!(l.iter().all(|x| x.is_finite()));
        let (l, _) = s3d(p, p + DVec3::X, p + DVec3::Y, p + DVec3::Z);
        assert!((l.iter().sum::<f64>() - 1.0).abs() < 1e-12, "{l:?}");
        let l = tri_affine(p, p, p, DVec3::ZERO);
        assert!(l.iter().all(|x| x.is_finite()));
    }
}
