//! A lean GJK for convex pairs, in the first shape's frame, optionally warm-started from a
//! previous answer, with a relative stopping rule like coal's (duality gap below [`REL_GAP`] times the squared
//! distance, so the distance is within `REL_GAP · dist` of the true one).
//!
//! Spheres and capsules run as their cores (centre point, axis segment) with the radii added
//! back, so sphere and capsule pairs converge in one or two steps. Overlapping shapes (GJK finds
//! the origin inside the Minkowski difference) are handed back to the caller, which runs the
//! full solver with EPA.
//!
//! Used by the planner mode of [`crate::distance::GeomDistance`]
//! ([`crate::distance::DistanceMode::Fast`]) and by the exact mesh path for ellipsoids and
//! cylinders against triangles (`narrow::mesh_exact`).

use glam::{DMat3, DVec3};

use crate::model::{ConvexHull, GeomType};

/// Relative duality gap at which GJK stops: `|v|² − v·w ≤ REL_GAP · |v|²` bounds the distance
/// error by `REL_GAP · |v|`.
pub(crate) const REL_GAP: f64 = 1e-10;

/// Iteration cap (GJK on polytopes terminates long before; smooth shapes converge linearly).
const MAX_ITER: usize = 128;

/// Below this squared core distance the shapes are treated as overlapping (EPA's job).
const TOUCH2: f64 = 1e-24;

/// A convex shape in its own frame, reduced to its core for spheres and capsules.
#[derive(Clone, Copy)]
pub(crate) enum Local<'a> {
    /// A point at the origin (sphere core).
    Point,
    /// The segment `(0, 0, ±h)` (capsule core).
    Segment(f64),
    /// Ellipsoid with semi-axes.
    Ellipsoid(DVec3),
    /// Cylinder: radius, half-height.
    Cylinder(f64, f64),
    /// Box half-sizes.
    Box(DVec3),
    /// Hull vertices (scanned).
    Hull(&'a [DVec3]),
}

impl<'a> Local<'a> {
    /// The shape of a geom and the radius removed by the core reduction; `None` for types the
    /// fast path does not handle.
    #[inline]
    pub(crate) fn of(
        kind: GeomType,
        size: DVec3,
        hull: Option<&'a ConvexHull>,
    ) -> Option<(Local<'a>, f64)> {
        Some(match kind {
            GeomType::Sphere => (Local::Point, size.x),
            GeomType::Capsule => (Local::Segment(size.y), size.x),
            GeomType::Ellipsoid => (Local::Ellipsoid(size), 0.0),
            GeomType::Cylinder => (Local::Cylinder(size.x, size.y), 0.0),
            GeomType::Box => (Local::Box(size), 0.0),
            GeomType::Mesh => {
                let h = hull?;
                if h.vert.is_empty() {
                    return None;
                }
                (Local::Hull(&h.vert), 0.0)
            }
            _ => return None,
        })
    }

    /// A support point in direction `d` (local frame; `d` need not be unit).
    #[inline(always)]
    fn support(&self, d: DVec3) -> DVec3 {
        match *self {
            Local::Point => DVec3::ZERO,
            Local::Segment(h) => DVec3::new(0.0, 0.0, if d.z >= 0.0 { h } else { -h }),
            Local::Ellipsoid(s) => {
                let t = d * s;
                let n = t.length();
                if n > 0.0 && n.is_finite() {
                    t * s / n
                } else {
                    DVec3::new(s.x, 0.0, 0.0)
                }
            }
            Local::Cylinder(r, h) => {
                let n2 = d.x * d.x + d.y * d.y;
                let z = if d.z >= 0.0 { h } else { -h };
                if n2 > 0.0 {
                    let k = r / n2.sqrt();
                    DVec3::new(d.x * k, d.y * k, z)
                } else {
                    DVec3::new(0.0, 0.0, z)
                }
            }
            Local::Box(s) => DVec3::new(
                if d.x >= 0.0 { s.x } else { -s.x },
                if d.y >= 0.0 { s.y } else { -s.y },
                if d.z >= 0.0 { s.z } else { -s.z },
            ),
            Local::Hull(v) => {
                let mut best = v[0];
                let mut bd = best.dot(d);
                for &p in &v[1..] {
                    let x = p.dot(d);
                    if x > bd {
                        bd = x;
                        best = p;
                    }
                }
                best
            }
        }
    }
}

/// Outcome of [`gjk`].
pub(crate) enum Outcome {
    /// Separated: core distance, witness points on the cores (frame of shape 1), and the
    /// final `v` (closest point of `A − B`) for the warm start.
    Separated {
        dist: f64,
        a: DVec3,
        b: DVec3,
        v: DVec3,
    },
    /// Provably farther apart than the cutoff.
    Beyond,
    /// The cores overlap (or touch).
    Overlap,
}

/// GJK between `s1` (at the origin, identity) and `s2` placed by `(r, t)` (its points are
/// `r · p + t`), both in shape 1's frame. `guess`: a previous `v` (a point of `A − B` near the
/// answer), `cutoff`: stop with [`Outcome::Beyond`] once the distance provably exceeds it.
#[inline]
pub(crate) fn gjk(
    s1: &Local,
    s2: &Local,
    r: &DMat3,
    t: DVec3,
    guess: Option<DVec3>,
    cutoff: f64,
) -> Outcome {
    let rt = r.transpose();
    let support = |d: DVec3| -> (DVec3, DVec3) {
        // minimise x·d over A − B: A's support along −d, B's along +d
        let a = s1.support(-d);
        let b = *r * s2.support(rt * d) + t;
        (a, b)
    };
    // simplex: points w = a − b with their a and b
    let mut w = [DVec3::ZERO; 4];
    let mut pa = [DVec3::ZERO; 4];
    let mut pb = [DVec3::ZERO; 4];
    let mut n = 0usize;
    let mut v = match guess {
        Some(g) if g.length_squared() > 0.0 => g,
        _ => {
            let c = -t;
            if c.length_squared() > 0.0 {
                c
            } else {
                DVec3::NEG_X
            }
        }
    };
    let mut lam = [0.0f64; 4];
    let mut vv = f64::INFINITY;
    let cut2 = cutoff * cutoff;
    for _ in 0..MAX_ITER {
        let (a, b) = support(v);
        let x = a - b;
        let vx = v.dot(x);
        if n > 0 {
            // lower bound v·x/|v| beyond the cutoff
            if vx > 0.0 && vx * vx > cut2 * vv {
                return Outcome::Beyond;
            }
            if vv - vx <= REL_GAP * vv {
                break;
            }
        }
        w[n] = x;
        pa[n] = a;
        pb[n] = b;
        n += 1;
        let (nv, nn) = closest(&mut w, &mut pa, &mut pb, n, &mut lam);
        n = nn;
        let nvv = nv.length_squared();
        if n == 4 || nvv <= TOUCH2 {
            return Outcome::Overlap;
        }
        if nvv >= vv {
            // no progress (rounding): keep the previous answer
            break;
        }
        v = nv;
        vv = nvv;
    }
    let mut a = DVec3::ZERO;
    let mut b = DVec3::ZERO;
    for i in 0..n {
        a += pa[i] * lam[i];
        b += pb[i] * lam[i];
    }
    Outcome::Separated {
        dist: vv.sqrt(),
        a,
        b,
        v,
    }
}

/// Closest point of the simplex `w[..n]` to the origin (the newest point last); reduces the
/// simplex to the smallest face holding it, with its barycentric weights in `lam`. Returns the
/// point and the new size (4: the origin is inside the tetrahedron).
#[inline]
fn closest(
    w: &mut [DVec3; 4],
    pa: &mut [DVec3; 4],
    pb: &mut [DVec3; 4],
    n: usize,
    lam: &mut [f64; 4],
) -> (DVec3, usize) {
    // keep(idx): compacts the simplex to the listed vertices with weights
    fn keep(
        w: &mut [DVec3; 4],
        pa: &mut [DVec3; 4],
        pb: &mut [DVec3; 4],
        lam: &mut [f64; 4],
        idx: &[usize],
        l: &[f64],
    ) -> (DVec3, usize) {
        let (w0, a0, b0) = (*w, *pa, *pb);
        let mut p = DVec3::ZERO;
        for (k, (&i, &li)) in idx.iter().zip(l).enumerate() {
            w[k] = w0[i];
            pa[k] = a0[i];
            pb[k] = b0[i];
            lam[k] = li;
            p += w0[i] * li;
        }
        (p, idx.len())
    }
    match n {
        1 => {
            lam[0] = 1.0;
            (w[0], 1)
        }
        2 => {
            let (pt, idx, l) = segment(w[0], w[1]);
            let (idx, l) = (&idx[..pt], &l[..pt]);
            keep(w, pa, pb, lam, idx, l)
        }
        3 => {
            let (cnt, idx, l) = triangle(w[0], w[1], w[2], [0, 1, 2]);
            keep(w, pa, pb, lam, &idx[..cnt], &l[..cnt])
        }
        _ => {
            // tetrahedron: the best face whose plane separates the origin from the opposite
            // vertex; none: the origin is inside
            const FACES: [([usize; 3], usize); 4] = [
                ([0, 1, 2], 3),
                ([0, 1, 3], 2),
                ([0, 2, 3], 1),
                ([1, 2, 3], 0),
            ];
            let mut best: Option<(f64, usize, [usize; 3], [f64; 3])> = None;
            for (f, o) in FACES {
                let (a, b, c) = (w[f[0]], w[f[1]], w[f[2]]);
                let nrm = (b - a).cross(c - a);
                let so = nrm.dot(-a);
                let sd = nrm.dot(w[o] - a);
                if so * sd < 0.0 || (so != 0.0 && sd == 0.0) {
                    let (cnt, idx, l) = triangle(a, b, c, f);
                    let mut p = DVec3::ZERO;
                    for k in 0..cnt {
                        p += w[idx[k]] * l[k];
                    }
                    let d = p.length_squared();
                    if best.is_none_or(|bb| d < bb.0) {
                        let mut l3 = [0.0; 3];
                        l3[..cnt].copy_from_slice(&l[..cnt]);
                        best = Some((d, cnt, idx, l3));
                    }
                }
            }
            match best {
                Some((_, cnt, idx, l)) => keep(w, pa, pb, lam, &idx[..cnt], &l[..cnt]),
                None => (DVec3::ZERO, 4),
            }
        }
    }
}

/// Closest point of segment `ab` to the origin: (count, vertex ids, weights).
#[inline(always)]
fn segment(a: DVec3, b: DVec3) -> (usize, [usize; 3], [f64; 3]) {
    let ab = b - a;
    let t = -a.dot(ab);
    if t <= 0.0 {
        return (1, [0, 0, 0], [1.0, 0.0, 0.0]);
    }
    let l = ab.length_squared();
    if t >= l {
        return (1, [1, 0, 0], [1.0, 0.0, 0.0]);
    }
    let s = t / l;
    (2, [0, 1, 0], [1.0 - s, s, 0.0])
}

/// Closest point of triangle `abc` to the origin (Voronoi regions): (count, ids from `id`,
/// weights).
#[inline(always)]
fn triangle(a: DVec3, b: DVec3, c: DVec3, id: [usize; 3]) -> (usize, [usize; 3], [f64; 3]) {
    let ab = b - a;
    let ac = c - a;
    let ap = -a;
    let d1 = ab.dot(ap);
    let d2 = ac.dot(ap);
    if d1 <= 0.0 && d2 <= 0.0 {
        return (1, [id[0], 0, 0], [1.0, 0.0, 0.0]);
    }
    let bp = -b;
    let d3 = ab.dot(bp);
    let d4 = ac.dot(bp);
    if d3 >= 0.0 && d4 <= d3 {
        return (1, [id[1], 0, 0], [1.0, 0.0, 0.0]);
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        let s = d1 / (d1 - d3);
        return (2, [id[0], id[1], 0], [1.0 - s, s, 0.0]);
    }
    let cp = -c;
    let d5 = ab.dot(cp);
    let d6 = ac.dot(cp);
    if d6 >= 0.0 && d5 <= d6 {
        return (1, [id[2], 0, 0], [1.0, 0.0, 0.0]);
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        let s = d2 / (d2 - d6);
        return (2, [id[0], id[2], 0], [1.0 - s, s, 0.0]);
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0 {
        let s = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        return (2, [id[1], id[2], 0], [1.0 - s, s, 0.0]);
    }
    let sum = va + vb + vc;
    if sum <= 0.0 || !sum.is_finite() {
        // degenerate (flat) triangle: the best vertex
        let (da, db, dc) = (a.length_squared(), b.length_squared(), c.length_squared());
        let k = if da <= db && da <= dc {
            0
        } else if db <= dc {
            1
        } else {
            2
        };
        return (1, [id[k], 0, 0], [1.0, 0.0, 0.0]);
    }
    let den = 1.0 / sum;
    let v = vb * den;
    let w = vc * den;
    (3, id, [1.0 - v - w, v, w])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unit_boxes_two_apart_along_x_are_one_apart() {
        let s = Local::Box(DVec3::splat(0.5));
        match gjk(
            &s,
            &s,
            &DMat3::IDENTITY,
            DVec3::new(2.0, 0.3, -0.2),
            None,
            10.0,
        ) {
            Outcome::Separated { dist, a, b, .. } => {
                assert!((dist - 1.0).abs() < 1e-12, "{dist}");
                assert!((a.x - 0.5).abs() < 1e-12 && (b.x - 1.5).abs() < 1e-12);
            }
            _ => panic!("not separated"),
        }
    }

    #[test]
    fn overlapping_boxes_report_overlap_and_far_ones_beyond() {
        let s = Local::Box(DVec3::splat(0.5));
        let r = DMat3::from_rotation_z(0.3);
        assert!(matches!(
            gjk(&s, &s, &r, DVec3::new(0.6, 0.1, 0.0), None, 10.0),
            Outcome::Overlap
        ));
        assert!(matches!(
            gjk(&s, &s, &r, DVec3::new(5.0, 0.0, 0.0), None, 1.0),
            Outcome::Beyond
        ));
    }

    #[test]
    fn point_to_segment_core_distance() {
        // a capsule core (segment ±1 along z) and a point at (3, 0, 0.5): 3 apart
        let r = DMat3::IDENTITY;
        match gjk(
            &Local::Segment(1.0),
            &Local::Point,
            &r,
            DVec3::new(3.0, 0.0, 0.5),
            None,
            10.0,
        ) {
            Outcome::Separated { dist, a, .. } => {
                assert!((dist - 3.0).abs() < 1e-12);
                assert!((a - DVec3::new(0.0, 0.0, 0.5)).length() < 1e-12);
            }
            _ => panic!("not separated"),
        }
    }
}
