//! MuJoCo 4.0.0's `mjc_SDF`: a primitive or SDF geom against an SDF geom, by gradient descent
//! from Halton start points.
//!
//! The two shapes' local boxes are intersected in geom 1's frame; `sdf_initpoints` start
//! points fill that box by the Halton sequence in bases 2, 3, 5. From each, `sdf_iterations`
//! steps of gradient descent with Armijo backtracking (c = 0.1, ρ = 0.5, α₀ = 2, α ≥ 1e-4)
//! minimise `A + B + |max(A, B)|` (A = geom 2's distance, B = geom 1's), then one step on the
//! intersection `max(A, B)` projects the point; a contact is kept when that value is `<= 0`
//! and the point is new. Its normal is the negated gradient of the mid-surface `A − B`
//! (normalised gradients subtracted), pointing from geom 1 to geom 2; `dist` is the
//! intersection value, and `pos` is the point moved by `dist/2` along the normal (MuJoCo
//! 4.0.0's `addPreContact`, measured; older sources moved it by `-dist/2`). The margin plays
//! no part, as in MuJoCo.

use glam::DVec3;

use super::octree::Octree;
use super::plugins::SdfPlugin;
pub(super) use crate::math::rot_vec_quat;
use crate::math::MINVAL;
use crate::model::GeomType;
use crate::narrow::{PreContact, MAX_PAIR_CONTACTS};

/// MuJoCo's `mjMAXVAL`.
pub(super) const MAXVAL: f64 = 1e10;

/// A distance field in its own frame: a primitive geom (MuJoCo's analytic SDFs after Quilez),
/// an SDF plugin, or a mesh's octree.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Field<'a> {
    /// A primitive geom of the given type and MuJoCo size (plane, sphere, capsule, ellipsoid,
    /// cylinder or box).
    Primitive(GeomType, DVec3),
    /// An SDF plugin.
    Plugin(SdfPlugin),
    /// A mesh-backed sdf geom's octree (in the mesh frame, which is the geom frame).
    Octree(&'a Octree),
}

impl Field<'_> {
    /// Signed distance at `x` (negative inside).
    pub fn distance(&self, x: DVec3) -> f64 {
        match *self {
            Field::Plugin(p) => p.distance(x),
            Field::Primitive(t, s) => primitive_distance(t, s, x),
            Field::Octree(o) => o.distance(x),
        }
    }

    /// Gradient of the distance at `x`, as MuJoCo computes it.
    pub fn gradient(&self, x: DVec3) -> DVec3 {
        match *self {
            Field::Plugin(p) => p.gradient(x),
            Field::Primitive(t, s) => primitive_gradient(t, s, x),
            Field::Octree(o) => o.gradient(x),
        }
    }
}

pub(super) fn norm3(v: DVec3) -> f64 {
    (v.x * v.x + v.y * v.y + v.z * v.z).sqrt()
}

pub(super) fn dot3(a: DVec3, b: DVec3) -> f64 {
    a.x * b.x + a.y * b.y + a.z * b.z
}

/// MuJoCo's `mju_normalize3`: a vector shorter than `MINVAL` becomes +x.
pub(super) fn normalize3(v: DVec3) -> DVec3 {
    let n = norm3(v);
    if n < MINVAL {
        DVec3::X
    } else {
        let inv = 1.0 / n;
        DVec3::new(v.x * inv, v.y * inv, v.z * inv)
    }
}

/// MuJoCo's `radialField3d`: inside a box (`a = |x| - size`, all negative), a unit field
/// turning from radial at the centre to the face normals at the faces.
fn radial_field(a: DVec3, x: DVec3, size: DVec3) -> DVec3 {
    let mut f = normalize3(DVec3::new(-size.x / a.x, -size.y / a.y, -size.z / a.z));
    for i in 0..3 {
        if x[i] < 0.0 {
            f[i] = -f[i];
        }
    }
    f
}

fn primitive_distance(t: GeomType, size: DVec3, x: DVec3) -> f64 {
    match t {
        GeomType::Plane => x.z,
        GeomType::Sphere => norm3(x) - size.x,
        GeomType::Box => {
            let a = DVec3::new(x.x.abs() - size.x, x.y.abs() - size.y, x.z.abs() - size.z);
            if a.x >= 0.0 || a.y >= 0.0 || a.z >= 0.0 {
                let b = a.max(DVec3::ZERO);
                return norm3(b) + a.x.max(a.y.max(a.z)).min(0.0);
            }
            // inside: along the radial field, to the first face it meets
            let b = radial_field(a, x, size);
            let t = DVec3::new(-a.x / b.x.abs(), -a.y / b.y.abs(), -a.z / b.z.abs());
            -t.x.min(t.y.min(t.z)) * norm3(b)
        }
        GeomType::Capsule => {
            let a = DVec3::new(x.x, x.y, x.z - x.z.clamp(-size.y, size.y));
            norm3(a) - size.x
        }
        GeomType::Ellipsoid => {
            let a = x / size;
            let b = a / size;
            let (k0, k1) = (norm3(a), norm3(b));
            k0 * (k0 - 1.0) / k1
        }
        GeomType::Cylinder => {
            let a0 = (x.x * x.x + x.y * x.y).sqrt() - size.x;
            let a1 = x.z.abs() - size.y;
            let (b0, b1) = (a0.max(0.0), a1.max(0.0));
            a0.max(a1).min(0.0) + (b0 * b0 + b1 * b1).sqrt()
        }
        // not reached: the dispatch table sends only primitives here
        _ => MAXVAL,
    }
}

fn primitive_gradient(t: GeomType, size: DVec3, x: DVec3) -> DVec3 {
    match t {
        GeomType::Plane => DVec3::Z,
        GeomType::Sphere => {
            let c = norm3(x);
            DVec3::new(x.x * (1.0 / c), x.y * (1.0 / c), x.z * (1.0 / c))
        }
        GeomType::Box => {
            let a = DVec3::new(x.x.abs() - size.x, x.y.abs() - size.y, x.z.abs() - size.z);
            let k = if a.x > a.y { 0 } else { 1 };
            let l = if a.z > a[k] { 2 } else { k };
            let mut g = DVec3::ZERO;
            if a[l] < 0.0 {
                g = radial_field(a, x, size);
            } else {
                let b = a.max(DVec3::ZERO);
                let c = norm3(b);
                for i in 0..3 {
                    g[i] = if a[i] > 0.0 {
                        b[i] / c * x[i] / x[i].abs()
                    } else {
                        0.0
                    };
                }
            }
            g
        }
        GeomType::Capsule => {
            let a = DVec3::new(x.x, x.y, x.z - x.z.clamp(-size.y, size.y));
            let c = norm3(a);
            DVec3::new(a.x / c, a.y / c, a.z / c)
        }
        GeomType::Ellipsoid => {
            let a = x / size;
            let b = a / size;
            let (k0, k1) = (norm3(a), norm3(b));
            let (inv_k0, inv_k1) = (1.0 / k0, 1.0 / k1);
            let gk0 = b * inv_k0;
            let gk1 = DVec3::new(
                b.x * inv_k1 / (size.x * size.x),
                b.y * inv_k1 / (size.y * size.y),
                b.z * inv_k1 / (size.z * size.z),
            );
            let df_dk0 = (2.0 * k0 - 1.0) * inv_k1;
            let df_dk1 = k0 * (k0 - 1.0) * inv_k1 * inv_k1;
            normalize3(gk0 * df_dk0 - gk1 * df_dk1)
        }
        GeomType::Cylinder => {
            let c = (x.x * x.x + x.y * x.y).sqrt();
            let e = x.z.abs();
            let (a0, a1) = (c - size.x, e - size.y);
            let tiny = 1.0 / MAXVAL;
            let grada = DVec3::new(x.x / c.max(tiny), x.y / c.max(tiny), x.z / e.max(tiny));
            let j = if a0 > a1 { 0 } else { 1 };
            if [a0, a1][j] < 0.0 {
                if j == 0 {
                    DVec3::new(grada.x, grada.y, 0.0)
                } else {
                    DVec3::new(0.0, 0.0, grada.z)
                }
            } else {
                let (b0, b1) = (a0.max(0.0), a1.max(0.0));
                let bn = (b0 * b0 + b1 * b1).sqrt().max(tiny);
                DVec3::new(grada.x * b0 / bn, grada.y * b0 / bn, grada.z * b1 / bn)
            }
        }
        _ => DVec3::ZERO,
    }
}

/// A rigid transform in MuJoCo's row-major layout, `y = mat · x + pos`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RowPose {
    /// Translation.
    pub pos: DVec3,
    /// Rotation, row-major.
    pub mat: [f64; 9],
}

impl RowPose {
    /// `mat · x + pos` (MuJoCo's `mju_mulMatVec3` then `mju_addTo3`).
    pub fn apply(&self, x: DVec3) -> DVec3 {
        mul_mat_vec(&self.mat, x) + self.pos
    }
}

fn mul_mat_vec(m: &[f64; 9], v: DVec3) -> DVec3 {
    DVec3::new(
        m[0] * v.x + m[1] * v.y + m[2] * v.z,
        m[3] * v.x + m[4] * v.y + m[5] * v.z,
        m[6] * v.x + m[7] * v.y + m[8] * v.z,
    )
}

fn mul_mat_t_vec(m: &[f64; 9], v: DVec3) -> DVec3 {
    DVec3::new(
        m[0] * v.x + m[3] * v.y + m[6] * v.z,
        m[1] * v.x + m[4] * v.y + m[7] * v.z,
        m[2] * v.x + m[5] * v.y + m[8] * v.z,
    )
}

/// The two fields of a pair: `a` (geom 2) evaluated at `x`, `b` (geom 1) at
/// `rel.apply(x)`.
struct Pair<'a> {
    a: &'a Field<'a>,
    b: &'a Field<'a>,
    rel: RowPose,
}

/// Which combination of the two fields is evaluated (MuJoCo's `mjtSDFType`).
#[derive(Clone, Copy)]
enum Objective {
    /// `A + B + |max(A, B)|`.
    Collision,
    /// `max(A, B)`.
    Intersection,
}

impl Pair<'_> {
    fn ab(&self, x: DVec3) -> (f64, f64, DVec3) {
        let y = self.rel.apply(x);
        (self.a.distance(x), self.b.distance(y), y)
    }

    fn value(&self, o: Objective, x: DVec3) -> f64 {
        let (a, b, _) = self.ab(x);
        match o {
            Objective::Collision => a + b + a.max(b).abs(),
            Objective::Intersection => a.max(b),
        }
    }

    fn gradient(&self, o: Objective, x: DVec3) -> DVec3 {
        let (a, b, y) = self.ab(x);
        match o {
            Objective::Collision => {
                let g1 = self.a.gradient(x);
                let g2 = mul_mat_t_vec(&self.rel.mat, self.b.gradient(y));
                let s = if a.max(b) > 0.0 { 1.0 } else { -1.0 };
                let pick = if a > b { g1 } else { g2 };
                (g1 + g2) + pick * s
            }
            Objective::Intersection => {
                if a > b {
                    self.a.gradient(x)
                } else {
                    mul_mat_t_vec(&self.rel.mat, self.b.gradient(y))
                }
            }
        }
    }

    /// Normalised gradient of the mid-surface `A − B`.
    fn midsurface_gradient(&self, x: DVec3) -> DVec3 {
        let y = self.rel.apply(x);
        let g1 = normalize3(self.a.gradient(x));
        let g2 = normalize3(mul_mat_t_vec(&self.rel.mat, self.b.gradient(y)));
        normalize3(g1 - g2)
    }

    /// MuJoCo's `stepGradient`: `niter` steps of gradient descent with backtracking; stops
    /// early, back at the previous point, when a step does not improve (MuJoCo 4.0.0's
    /// behaviour, measured: older sources kept the worse point). Returns the objective at the
    /// final point, or `MAXVAL` on a non-finite gradient.
    fn descend(&self, o: Objective, x: &mut DVec3, niter: usize) -> f64 {
        const C: f64 = 0.1;
        const RHO: f64 = 0.5;
        const AMIN: f64 = 1e-4;
        let mut dist = MAXVAL;
        for _ in 0..niter {
            let grad = self.gradient(o, *x);
            if grad
                .to_array()
                .iter()
                .any(|g| g.is_nan() || g.abs() > MAXVAL)
            {
                return MAXVAL;
            }
            let x0 = *x;
            let dist0 = self.value(o, x0);
            let mut alpha = 2.0;
            let mut wolfe = -C * alpha * dot3(grad, grad);
            loop {
                alpha *= RHO;
                wolfe *= RHO;
                *x = DVec3::new(
                    x0.x + -alpha * grad.x,
                    x0.y + -alpha * grad.y,
                    x0.z + -alpha * grad.z,
                );
                dist = self.value(o, *x);
                if !(alpha > AMIN && dist - dist0 > wolfe) {
                    break;
                }
            }
            if dist0 < dist {
                // no improvement: back to the last point
                *x = x0;
                return dist0;
            }
        }
        dist
    }
}

/// MuJoCo's `mju_Halton`: the radical inverse of `index` in `base`.
pub fn halton(index: usize, base: usize) -> f64 {
    let mut n0 = index;
    let b = base as f64;
    let (mut f, mut hn) = (1.0 / b, 0.0);
    while n0 > 0 {
        let n1 = n0 / base;
        let r = n0 - n1 * base;
        hn += f * r as f64;
        f /= b;
        n0 = n1;
    }
    hn
}

/// Everything [`sdf_pair`] needs about one geom.
#[derive(Clone, Copy, Debug)]
pub struct SdfGeom<'a> {
    /// The geom's distance field, in its SDF frame.
    pub field: Field<'a>,
    /// Local box of the geom, `[centre; half-sizes]` in the geom frame (`geom_aabb`).
    pub aabb: [f64; 6],
    /// Geom frame in the world: position and quaternion (from `geom_xmat`).
    pub pos: DVec3,
    /// Geom orientation (the field's frame is the geom frame).
    pub quat: glam::DQuat,
}

/// `(pos, quat)` of `b⁻¹ ∘ a` as a row-major transform (MuJoCo's `mapPose(a, b)`): maps
/// coordinates in frame `a` to frame `b`. The composed quaternion is normalised, as MuJoCo
/// 4.0.0's `mju_mulPose` does: `a = b` then gives exactly the identity.
pub(super) fn map_pose(
    a_pos: DVec3,
    a_quat: glam::DQuat,
    b_pos: DVec3,
    b_quat: glam::DQuat,
) -> RowPose {
    use crate::math::{mul_quat_runtime, normalize_quat, quat_to_mat};
    let neg_quat = b_quat.conjugate();
    let neg_pos = -rot_vec_quat(b_pos, neg_quat);
    let quat = normalize_quat(mul_quat_runtime(neg_quat, a_quat));
    let pos = rot_vec_quat(a_pos, neg_quat) + neg_pos;
    RowPose {
        pos,
        mat: crate::math::mat_to_rowmajor(&quat_to_mat(quat)),
    }
}

/// Contacts between geom 1 (a primitive or SDF) and SDF geom 2, MuJoCo's `mjc_SDF` (see the
/// module docs); at most `min(initpoints, MAX_PAIR_CONTACTS)` contacts are written to `out`.
pub fn sdf_pair(
    g1: &SdfGeom<'_>,
    g2: &SdfGeom<'_>,
    iterations: usize,
    initpoints: usize,
    out: &mut [PreContact],
) -> usize {
    // geom 1 to itself (MuJoCo composes it, rounding included), 2 → 1 and 1 → 2
    let self1 = map_pose(g1.pos, g1.quat, g1.pos, g1.quat);
    let to1 = map_pose(g2.pos, g2.quat, g1.pos, g1.quat);
    let to2 = map_pose(g1.pos, g1.quat, g2.pos, g2.quat);

    // the two boxes in geom 1's frame, and their intersection
    let (s1, s2) = (&g1.aabb, &g2.aabb);
    let mut box1 = [MAXVAL, MAXVAL, MAXVAL, -MAXVAL, -MAXVAL, -MAXVAL];
    let mut box2 = box1;
    for i in 0..8 {
        let corner = |s: &[f64; 6]| {
            DVec3::new(
                if i & 1 != 0 { s[0] + s[3] } else { s[0] - s[3] },
                if i & 2 != 0 { s[1] + s[4] } else { s[1] - s[4] },
                if i & 4 != 0 { s[2] + s[5] } else { s[2] - s[5] },
            )
        };
        let v1 = corner(s1);
        let v2 = to1.apply(corner(s2));
        for k in 0..3 {
            box1[k] = box1[k].min(v1[k]);
            box1[3 + k] = box1[3 + k].max(v1[k]);
            box2[k] = box2[k].min(v2[k]);
            box2[3 + k] = box2[3 + k].max(v2[k]);
        }
    }
    let mut aabb = [0.0; 6];
    for k in 0..3 {
        aabb[k] = box1[k].max(box2[k]);
        aabb[3 + k] = box1[3 + k].min(box2[3 + k]);
    }
    if aabb[3] < aabb[0] || aabb[4] < aabb[1] || aabb[5] < aabb[2] {
        return 0;
    }

    let pair = Pair {
        a: &g2.field,
        b: &g1.field,
        rel: to1,
    };
    let cap = out.len().min(MAX_PAIR_CONTACTS);
    let mut points = [DVec3::ZERO; MAX_PAIR_CONTACTS];
    let mut cnt = 0;
    for j in 0..initpoints {
        let start = DVec3::new(
            aabb[0] + (aabb[3] - aabb[0]) * halton(j, 2),
            aabb[1] + (aabb[4] - aabb[1]) * halton(j, 3),
            aabb[2] + (aabb[5] - aabb[2]) * halton(j, 5),
        );
        let mut x = to2.apply(self1.apply(start));
        pair.descend(Objective::Collision, &mut x, iterations);
        let dist = pair.descend(Objective::Intersection, &mut x, 1);

        // keep penetrating points not seen yet
        if dist > 0.0 || points[..cnt].iter().any(|p| p.distance(x) < MINVAL) {
            continue;
        }
        if cnt == cap {
            break;
        }
        // MuJoCo 4.0.0 normalises the (already unit) mid-surface gradient once more and drops
        // the contact when that fails (a NaN gradient)
        let g = pair.midsurface_gradient(x);
        let n = norm3(g);
        if n.is_nan() || n < MINVAL {
            continue;
        }
        let inv = 1.0 / n;
        points[cnt] = x;
        let normal = rot_vec_quat(-DVec3::new(g.x * inv, g.y * inv, g.z * inv), g2.quat);
        // MuJoCo 4.0.0's contact sits at x + dist/2 along the normal (measured: the sources
        // read -dist/2)
        let pos = rot_vec_quat(x, g2.quat) + g2.pos + normal * (dist * 0.5);
        out[cnt] = PreContact {
            dist,
            pos,
            normal,
            tangent: DVec3::ZERO,
        };
        cnt += 1;
    }
    cnt
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn halton_matches_radical_inverse() {
        assert_eq!(halton(0, 2), 0.0);
        assert_eq!(halton(1, 2), 0.5);
        assert_eq!(halton(3, 2), 0.75);
        assert_eq!(halton(5, 3), 2.0 / 3.0 + 1.0 / 9.0);
    }

    #[test]
    fn primitive_fields_by_hand() {
        let b = Field::Primitive(GeomType::Box, DVec3::new(1.0, 2.0, 3.0));
        assert_eq!(b.distance(DVec3::new(2.0, 0.0, 0.0)), 1.0);
        // inside, MuJoCo 4.0.0 follows the radial field normalize(size / (size - |x|)) =
        // (1, 4, 1)/√18 to the first face: the y face, at 0.5 / (4/√18)
        let depth = 0.125 * 18f64.sqrt();
        assert!((b.distance(DVec3::new(0.0, 1.5, 0.0)) + depth).abs() < 1e-15);
        let g = b.gradient(DVec3::new(0.0, -1.5, 0.0));
        assert!(
            (g - DVec3::new(1.0, -4.0, 1.0) / 18f64.sqrt()).length() < 1e-15,
            "{g}"
        );
        let c = Field::Primitive(GeomType::Cylinder, DVec3::new(1.0, 2.0, 0.0));
        assert_eq!(c.distance(DVec3::new(4.0, 0.0, 5.0)), (9.0f64 + 9.0).sqrt());
        let s = Field::Primitive(GeomType::Capsule, DVec3::new(0.5, 1.0, 0.0));
        assert_eq!(s.distance(DVec3::new(0.0, 0.0, 2.0)), 0.5);
    }
}
