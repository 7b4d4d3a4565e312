//! The arithmetic of MuJoCo's model compiler (its `user` layer), which differs in the last bits
//! from the engine's `mju_*` routines that [`collide::math`] follows:
//!
//! - a quaternion or vector is normalized by *dividing* by its norm, and left untouched when the
//!   norm is within `mjEPS` (1e-14) of 1 or its square is below `mjEPS`: compiled quaternions can
//!   be up to ~1e-14 off unit length, and MuJoCo keeps them so;
//! - every quaternion product is normalized that way;
//! - the rotation matrix of a quaternion sums its diagonal terms left to right;
//! - the eigen-decomposition of an inertia tensor is a Jacobi iteration on a quaternion with a
//!   relative stopping tolerance.
//!
//! Compiled frames (mesh frames, inertial frames, free-joint alignment) must reproduce these bit
//! for bit: contacts of touching shapes can flip on the last bit of a pose. Quaternions here are
//! MuJoCo's `[w, x, y, z]` arrays; matrices are row-major `[f64; 9]`.

use glam::{DQuat, DVec3};

/// MuJoCo's `mjEPS`.
const EPS: f64 = 1e-14;

/// `[w, x, y, z]` of a glam quaternion.
pub(crate) fn wxyz(q: DQuat) -> [f64; 4] {
    [q.w, q.x, q.y, q.z]
}

/// A glam quaternion from `[w, x, y, z]`.
pub(crate) fn from_wxyz(q: [f64; 4]) -> DQuat {
    DQuat::from_xyzw(q[1], q[2], q[3], q[0])
}

/// Normalizes `v` in place the compiler's way (see the module doc) and returns its norm before
/// (0 when the squared norm is below `mjEPS`, in which case `v` is unchanged).
pub(crate) fn normalize(v: &mut [f64]) -> f64 {
    let mut n2 = 0.0;
    for c in v.iter() {
        n2 += c * c;
    }
    if n2 < EPS {
        return 0.0;
    }
    let n = n2.sqrt();
    if (n - 1.0).abs() > EPS {
        for c in v.iter_mut() {
            *c /= n;
        }
    }
    n
}

/// Quaternion product `a b`, normalized with [`normalize`].
pub(crate) fn mul_quat(a: [f64; 4], b: [f64; 4]) -> [f64; 4] {
    let mut r = [
        a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
        a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
        a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
        a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0],
    ];
    normalize(&mut r);
    r
}

/// The conjugate (inverse rotation) of a quaternion.
pub(crate) fn conj(q: [f64; 4]) -> [f64; 4] {
    [q[0], -q[1], -q[2], -q[3]]
}

/// Row-major rotation matrix of a quaternion; the identity quaternion gives the exact identity.
pub(crate) fn quat_mat(q: [f64; 4]) -> [f64; 9] {
    if q == [1.0, 0.0, 0.0, 0.0] {
        return [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0];
    }
    let (q00, q01, q02, q03) = (q[0] * q[0], q[0] * q[1], q[0] * q[2], q[0] * q[3]);
    let (q11, q12, q13) = (q[1] * q[1], q[1] * q[2], q[1] * q[3]);
    let (q22, q23, q33) = (q[2] * q[2], q[2] * q[3], q[3] * q[3]);
    [
        q00 + q11 - q22 - q33,
        2.0 * (q12 - q03),
        2.0 * (q13 + q02),
        2.0 * (q12 + q03),
        q00 - q11 + q22 - q33,
        2.0 * (q23 - q01),
        2.0 * (q13 - q02),
        2.0 * (q23 + q01),
        q00 - q11 - q22 + q33,
    ]
}

/// `m v` for a row-major matrix.
pub(crate) fn mat_vec(m: &[f64; 9], v: [f64; 3]) -> [f64; 3] {
    [
        m[0] * v[0] + m[1] * v[1] + m[2] * v[2],
        m[3] * v[0] + m[4] * v[1] + m[5] * v[2],
        m[6] * v[0] + m[7] * v[1] + m[8] * v[2],
    ]
}

/// `mᵀ v` for a row-major matrix.
pub(crate) fn mat_t_vec(m: &[f64; 9], v: [f64; 3]) -> [f64; 3] {
    [
        m[0] * v[0] + m[3] * v[1] + m[6] * v[2],
        m[1] * v[0] + m[4] * v[1] + m[7] * v[2],
        m[2] * v[0] + m[5] * v[1] + m[8] * v[2],
    ]
}

/// `v` rotated by the quaternion `q` (`mjuu_rotVecQuat`: `v + 2 q⃗ × (w v + q⃗ × v)`; exact for a
/// zero vector or the identity quaternion).
pub(crate) fn rot_vec_quat(v: [f64; 3], q: [f64; 4]) -> [f64; 3] {
    if v == [0.0; 3] {
        return [0.0; 3];
    }
    if q == [1.0, 0.0, 0.0, 0.0] {
        return v;
    }
    let t = [
        q[0] * v[0] + q[2] * v[2] - q[3] * v[1],
        q[0] * v[1] + q[3] * v[0] - q[1] * v[2],
        q[0] * v[2] + q[1] * v[1] - q[2] * v[0],
    ];
    [
        v[0] + 2.0 * (q[2] * t[2] - q[3] * t[1]),
        v[1] + 2.0 * (q[3] * t[0] - q[1] * t[2]),
        v[2] + 2.0 * (q[1] * t[1] - q[2] * t[0]),
    ]
}

/// Product of two row-major 3×3 matrices, each entry summed left to right.
fn mat_mat(a: &[f64; 9], b: &[f64; 9]) -> [f64; 9] {
    let mut r = [0.0; 9];
    for i in 0..3 {
        for j in 0..3 {
            r[3 * i + j] = a[3 * i] * b[j] + a[3 * i + 1] * b[3 + j] + a[3 * i + 2] * b[6 + j];
        }
    }
    r
}

/// Cross product `a × b`.
pub(crate) fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// Quaternion of the minimal rotation taking +z onto the unit vector `vec` (`mjuu_z2quat`):
/// axis `z × vec` normalized (the x axis when shorter than 1e-10), angle `atan2(|z × vec|,
/// vec_z)`.
pub(crate) fn z_to_quat(vec: [f64; 3]) -> [f64; 4] {
    let mut axis = cross([0.0, 0.0, 1.0], vec);
    let s = normalize(&mut axis);
    if s < 1e-10 {
        axis = [1.0, 0.0, 0.0];
    }
    let half = s.atan2(vec[2]) / 2.0;
    let (sin, cos) = (half.sin(), half.cos());
    [cos, axis[0] * sin, axis[1] * sin, axis[2] * sin]
}

/// Quaternion of the frame whose axes (matrix columns) are `x`, `y`, `z` (`mjuu_frame2quat`:
/// the branch on the largest of `w, x, y, z`, then [`normalize`]).
pub(crate) fn frame_to_quat(x: [f64; 3], y: [f64; 3], z: [f64; 3]) -> [f64; 4] {
    // m[c][r]: column c, row r
    let m = [x, y, z];
    let mut q = [0.0; 4];
    if m[0][0] + m[1][1] + m[2][2] > 0.0 {
        q[0] = 0.5 * (1.0 + m[0][0] + m[1][1] + m[2][2]).sqrt();
        q[1] = 0.25 * (m[1][2] - m[2][1]) / q[0];
        q[2] = 0.25 * (m[2][0] - m[0][2]) / q[0];
        q[3] = 0.25 * (m[0][1] - m[1][0]) / q[0];
    } else if m[0][0] > m[1][1] && m[0][0] > m[2][2] {
        q[1] = 0.5 * (1.0 + m[0][0] - m[1][1] - m[2][2]).sqrt();
        q[0] = 0.25 * (m[1][2] - m[2][1]) / q[1];
        q[2] = 0.25 * (m[1][0] + m[0][1]) / q[1];
        q[3] = 0.25 * (m[2][0] + m[0][2]) / q[1];
    } else if m[1][1] > m[2][2] {
        q[2] = 0.5 * (1.0 - m[0][0] + m[1][1] - m[2][2]).sqrt();
        q[0] = 0.25 * (m[2][0] - m[0][2]) / q[2];
        q[1] = 0.25 * (m[1][0] + m[0][1]) / q[2];
        q[3] = 0.25 * (m[2][1] + m[1][2]) / q[2];
    } else {
        q[3] = 0.5 * (1.0 - m[0][0] - m[1][1] + m[2][2]).sqrt();
        q[0] = 0.25 * (m[0][1] - m[1][0]) / q[3];
        q[1] = 0.25 * (m[2][0] + m[0][2]) / q[3];
        q[2] = 0.25 * (m[2][1] + m[1][2]) / q[3];
    }
    normalize(&mut q);
    q
}

/// A rigid frame as the compiler carries it: position and `[w, x, y, z]` orientation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Pose {
    /// Origin in the parent frame.
    pub pos: [f64; 3],
    /// Orientation in the parent frame (not necessarily of exactly unit norm).
    pub quat: [f64; 4],
}

impl Pose {
    /// From glam values.
    pub(crate) fn new(pos: DVec3, quat: DQuat) -> Pose {
        Pose {
            pos: pos.to_array(),
            quat: wxyz(quat),
        }
    }

    /// `self ∘ child`: the child frame expressed in this frame's parent (`mjuu_frameaccum`:
    /// the child position is rotated by the matrix of `self.quat`).
    pub(crate) fn accum(&self, child: Pose) -> Pose {
        let v = mat_vec(&quat_mat(self.quat), child.pos);
        Pose {
            pos: [self.pos[0] + v[0], self.pos[1] + v[1], self.pos[2] + v[2]],
            quat: mul_quat(self.quat, child.quat),
        }
    }

    /// The inverse transformation (`mjuu_frameinvert`).
    pub(crate) fn invert(&self) -> Pose {
        let q = conj(self.quat);
        let v = mat_vec(&quat_mat(q), self.pos);
        Pose {
            pos: [-v[0], -v[1], -v[2]],
            quat: q,
        }
    }

    /// Position as a glam vector.
    pub(crate) fn pos_vec(&self) -> DVec3 {
        DVec3::from_array(self.pos)
    }

    /// Orientation as a glam quaternion.
    pub(crate) fn quat_glam(&self) -> DQuat {
        from_wxyz(self.quat)
    }
}

/// The diagonal inertia `local` expressed in the frame `quat`, as the symmetric matrix
/// `[xx, yy, zz, xy, xz, yz]` (`R diag(local) Rᵀ`, MuJoCo's summation order).
pub(crate) fn global_inertia(local: [f64; 3], quat: [f64; 4]) -> [f64; 6] {
    let m = quat_mat(quat);
    // column j of R scaled by local[j], stored by rows of Rᵀ
    let t = [
        m[0] * local[0],
        m[3] * local[0],
        m[6] * local[0],
        m[1] * local[1],
        m[4] * local[1],
        m[7] * local[1],
        m[2] * local[2],
        m[5] * local[2],
        m[8] * local[2],
    ];
    [
        m[0] * t[0] + m[1] * t[3] + m[2] * t[6],
        m[3] * t[1] + m[4] * t[4] + m[5] * t[7],
        m[6] * t[2] + m[7] * t[5] + m[8] * t[8],
        m[0] * t[1] + m[1] * t[4] + m[2] * t[7],
        m[0] * t[2] + m[1] * t[5] + m[2] * t[8],
        m[3] * t[2] + m[4] * t[5] + m[5] * t[8],
    ]
}

/// Parallel-axis term of a point mass at `d`: `mass (|d|² I − d dᵀ)` as `[xx, yy, zz, xy, xz, yz]`.
pub(crate) fn offcenter(mass: f64, d: [f64; 3]) -> [f64; 6] {
    [
        mass * (d[1] * d[1] + d[2] * d[2]),
        mass * (d[0] * d[0] + d[2] * d[2]),
        mass * (d[0] * d[0] + d[1] * d[1]),
        -mass * d[0] * d[1],
        -mass * d[0] * d[2],
        -mass * d[1] * d[2],
    ]
}

/// Relative tolerance of the principal axes of a body inertia (`fullinertia`, inertia from
/// several geoms).
pub(crate) const BODY_EIG_RELTOL: f64 = 4e-15;
/// Relative tolerance of a mesh's principal axes (its compiled frame).
pub(crate) const MESH_EIG_RELTOL: f64 = 1e-7;

/// Eigen-decomposition of a symmetric 3×3 matrix (row-major) as the compiler does it.
///
/// Jacobi rotations are accumulated in a quaternion starting from the identity: each step
/// annihilates the largest off-diagonal entry of `Rᵀ M R`, with the rotation built from the
/// tangent of its half angle, until that entry is at most `scale · max(reltol, 4e-15)`
/// (`scale` = largest `|Mᵢⱼ|`; at most 500 steps). The eigenvalues are then sorted decreasing
/// by the bubble pattern (0, 1, 0), each swap turning the frame by 90° (with MuJoCo's rounded
/// `cos π/4` literal), and only when they differ by more than `scale · max(reltol, 1e-12)`.
///
/// Returns the eigenvalues (the diagonal of the last `Rᵀ M R`) and the quaternion of `R`,
/// whose columns are the eigenvectors. MuJoCo uses `reltol` = [`MESH_EIG_RELTOL`] for meshes
/// and [`BODY_EIG_RELTOL`] for bodies (inferred from MuJoCo 4.0.0's compiled models, which
/// these reproduce bit for bit).
pub(crate) fn eig3(mat: &[f64; 9], reltol: f64) -> ([f64; 3], [f64; 4]) {
    let scale = mat.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    let tol = scale * reltol.max(4e-15);
    let mut q = [1.0, 0.0, 0.0, 0.0];
    let mut ev = [mat[0], mat[4], mat[8]];
    for _ in 0..500 {
        let r = quat_mat(q);
        let rt = [r[0], r[3], r[6], r[1], r[4], r[7], r[2], r[5], r[8]];
        let d = mat_mat(&mat_mat(&rt, mat), &r);
        ev = [d[0], d[4], d[8]];
        // the largest off-diagonal entry (row, column) and the axis it rotates about
        let (row, col, axis) = if d[1].abs() > d[2].abs() && d[1].abs() > d[5].abs() {
            (0, 1, 2)
        } else if d[2].abs() > d[5].abs() {
            (0, 2, 1)
        } else {
            (1, 2, 0)
        };
        let off = d[3 * row + col];
        // also stops on NaN
        if off.abs() <= tol || off.is_nan() {
            break;
        }
        let tau = (d[4 * col] - d[4 * row]) / (2.0 * off);
        let t = if tau >= 0.0 {
            1.0 / (tau + (1.0 + tau * tau).sqrt())
        } else {
            -1.0 / (-tau + (1.0 + tau * tau).sqrt())
        };
        let half_tan = t / (1.0 + (1.0 + t * t).sqrt());
        let mut step = [0.0; 4];
        step[0] = 1.0 / (1.0 + half_tan * half_tan).sqrt();
        let sin = if axis == 1 { half_tan } else { -half_tan };
        step[axis + 1] = sin * step[0];
        q = mul_quat(q, step);
        normalize(&mut q);
    }
    let eps = scale * reltol.max(1e-12);
    for j in 0..3 {
        let a = j % 2;
        if ev[a] + eps < ev[a + 1] {
            ev.swap(a, a + 1);
            // MuJoCo's literal, one ulp above 1/√2
            #[allow(clippy::approx_constant)]
            let h = 0.707106781186548;
            let mut turn = [h, 0.0, 0.0, 0.0];
            turn[(a + 2) % 3 + 1] = h;
            q = mul_quat(q, turn);
            normalize(&mut q);
        }
    }
    (ev, q)
}

/// Principal moments (decreasing) and frame of a symmetric inertia `[xx, yy, zz, xy, xz, yz]`
/// (`mjuu_fullInertia`).
pub(crate) fn principal_inertia(full: [f64; 6]) -> ([f64; 3], [f64; 4]) {
    let m = [
        full[0], full[3], full[4], full[3], full[1], full[5], full[4], full[5], full[2],
    ];
    eig3(&m, BODY_EIG_RELTOL)
}

/// Principal moments (decreasing) and frame, in the body frame, of a `fullinertia`
/// `[xx, yy, zz, xy, xz, yz]` given in the inertial frame `quat` (`mjCBody::Compile`): the
/// tensor is first turned into the body frame, `R F Rᵀ` (`mjuu_mulRMRT`, `R` the matrix of
/// `quat`, the exact identity for the identity quaternion, products summed left to right), its
/// upper triangle is mirrored, and its eigen-decomposition starts from the identity. The frame
/// is the decomposition's quaternion alone, not `quat` times the principal frame of `F` (which
/// differs in the last bits). Only URDF reaches this with a rotated frame (an `<inertial>`
/// origin with `rpy`): MJCF's schema refuses `fullinertia` with an orientation.
pub(crate) fn principal_inertia_in_frame(full: [f64; 6], quat: [f64; 4]) -> ([f64; 3], [f64; 4]) {
    let f = [
        full[0], full[3], full[4], full[3], full[1], full[5], full[4], full[5], full[2],
    ];
    let r = quat_mat(quat);
    let rt = [r[0], r[3], r[6], r[1], r[4], r[7], r[2], r[5], r[8]];
    let b = mat_mat(&mat_mat(&r, &f), &rt);
    principal_inertia([b[0], b[4], b[8], b[1], b[2], b[5]])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalize_leaves_nearly_unit_vectors_alone() {
        let mut q = [0.0, 0.7071067811865489, 0.0, 0.7071067811865489];
        let n = normalize(&mut q);
        assert!(n > 1.0 && n - 1.0 < EPS, "{n}");
        assert_eq!(q, [0.0, 0.7071067811865489, 0.0, 0.7071067811865489]);
        let mut v = [3.0, 4.0];
        assert_eq!(normalize(&mut v), 5.0);
        assert_eq!(v, [0.6, 0.8]);
        let mut z = [1e-8, 0.0];
        assert_eq!(normalize(&mut z), 0.0);
        assert_eq!(z, [1e-8, 0.0]);
    }

    #[test]
    fn frame_invert_undoes_accum() {
        let a = Pose {
            pos: [0.1, -0.2, 0.3],
            quat: [0.5, 0.5, -0.5, 0.5],
        };
        let id = a.accum(a.invert());
        for k in 0..3 {
            assert!(id.pos[k].abs() < 1e-15);
        }
        assert!((id.quat[0] - 1.0).abs() < 1e-15);
    }

    #[test]
    fn eig3_of_diagonal_sorts_with_quarter_turns() {
        // eigenvalues 1, 3, 2: no rotation, then two swaps, each a quarter turn of the frame
        // (the turns use a literal slightly above 1/√2 and are not renormalized: R is ~5e-15
        // larger than a rotation)
        let m = [1.0, 0.0, 0.0, 0.0, 3.0, 0.0, 0.0, 0.0, 2.0];
        let (ev, q) = eig3(&m, BODY_EIG_RELTOL);
        assert_eq!(ev, [3.0, 2.0, 1.0]);
        let r = quat_mat(q);
        let rt = [r[0], r[3], r[6], r[1], r[4], r[7], r[2], r[5], r[8]];
        let d = mat_mat(&mat_mat(&rt, &m), &r);
        for (i, want) in [3.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 1.0]
            .iter()
            .enumerate()
        {
            assert!((d[i] - want).abs() < 1e-13, "{d:?}");
        }
    }

    #[test]
    fn eig3_stops_at_the_relative_tolerance() {
        // off-diagonal 1e-9 of the scale: below the mesh tolerance (no rotation), above the
        // body tolerance (rotated)
        let m = [2.0, 2e-9, 0.0, 2e-9, 1.0, 0.0, 0.0, 0.0, 0.5];
        assert_eq!(eig3(&m, MESH_EIG_RELTOL).1, [1.0, 0.0, 0.0, 0.0]);
        let q = eig3(&m, BODY_EIG_RELTOL).1;
        assert!(q[3] != 0.0 && (q[3].abs() - 1e-9).abs() < 1e-12, "{q:?}");
    }
}
