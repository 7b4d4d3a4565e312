//! Small math helpers in MuJoCo's conventions.
//!
//! Quaternions are `glam::DQuat` (stored x, y, z, w), but every formula here follows MuJoCo's
//! `(w, x, y, z)` algebra so that compiled frames agree with MuJoCo to rounding. Matrices are
//! `glam::DMat3` (column-major); [`mat_to_rowmajor`] gives MuJoCo's row-major layout.

use glam::{DMat3, DQuat, DVec3};

/// MuJoCo's `mjMINVAL`: the smallest value treated as non-zero.
pub const MINVAL: f64 = 1e-15;
/// MuJoCo's `mjEPS`.
pub const EPS: f64 = 1e-14;

/// Builds a quaternion from MuJoCo's `(w, x, y, z)` order.
#[inline]
pub fn quat_wxyz(w: f64, x: f64, y: f64, z: f64) -> DQuat {
    DQuat::from_xyzw(x, y, z, w)
}

/// Returns a quaternion as MuJoCo's `[w, x, y, z]`.
#[inline]
pub fn quat_to_wxyz(q: DQuat) -> [f64; 4] {
    [q.w, q.x, q.y, q.z]
}

/// Hamilton product `a * b` (rotation `b` applied first, in the frame of `a`), each
/// component summed left to right. Kinematics and `mjc_SDF` round as MuJoCo's runtime does,
/// with [`mul_quat_runtime`].
#[inline]
pub fn mul_quat(a: DQuat, b: DQuat) -> DQuat {
    quat_wxyz(
        a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
        a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
        a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
        a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
    )
}

/// The Hamilton product `a * b` rounded as MuJoCo 4.0.0's runtime `mju_mulQuat` (and
/// `mju_mulPose`) round it: each component is the sum of the `a.w`, `a.x` terms plus the sum
/// of the `a.y`, `a.z` terms (its vectorised build), not the left-to-right sum of
/// [`mul_quat`]. The two differ in the last bit for most inputs.
#[inline]
pub fn mul_quat_runtime(a: DQuat, b: DQuat) -> DQuat {
    quat_wxyz(
        (a.w * b.w - a.x * b.x) - (a.y * b.y + a.z * b.z),
        (a.w * b.x + a.x * b.w) + (a.y * b.z - a.z * b.y),
        (a.w * b.y - a.x * b.z) + (a.y * b.w + a.z * b.x),
        (a.w * b.z + a.x * b.y) + (a.z * b.w - a.y * b.x),
    )
}

/// Normalizes a quaternion exactly as MuJoCo 4.0.0's `mju_normalize4` does: the squared
/// norm is summed pairwise, a quaternion already within `MINVAL` of unit norm is left
/// untouched, others are multiplied by the reciprocal norm; a zero quaternion becomes the
/// identity. (Bit-for-bit agreement matters: contact geometry of nearly aligned shapes is
/// ill-conditioned in the last bits of the rotation.)
#[inline]
pub fn normalize_quat(q: DQuat) -> DQuat {
    let n = ((q.w * q.w + q.x * q.x) + (q.y * q.y + q.z * q.z)).sqrt();
    if n < MINVAL {
        DQuat::IDENTITY
    } else if (n - 1.0).abs() < MINVAL {
        q
    } else {
        let inv = 1.0 / n;
        quat_wxyz(q.w * inv, q.x * inv, q.y * inv, q.z * inv)
    }
}

/// Rotation matrix of a unit quaternion, with MuJoCo's `mju_quat2Mat` formula.
#[inline]
pub fn quat_to_mat(q: DQuat) -> DMat3 {
    if q.w == 1.0 && q.x == 0.0 && q.y == 0.0 && q.z == 0.0 {
        return DMat3::IDENTITY;
    }
    let (q0, q1, q2, q3) = (q.w, q.x, q.y, q.z);
    let (q00, q01, q02, q03) = (q0 * q0, q0 * q1, q0 * q2, q0 * q3);
    let (q11, q12, q13) = (q1 * q1, q1 * q2, q1 * q3);
    let (q22, q23, q33) = (q2 * q2, q2 * q3, q3 * q3);
    // rows of the matrix; the diagonal sums are grouped as MuJoCo 4.0.0 rounds them
    let r0 = [
        (q00 - q22) + (q11 - q33),
        2.0 * (q12 - q03),
        2.0 * (q13 + q02),
    ];
    let r1 = [
        2.0 * (q12 + q03),
        (q00 + q22) - (q11 + q33),
        2.0 * (q23 - q01),
    ];
    let r2 = [
        2.0 * (q13 - q02),
        2.0 * (q23 + q01),
        (q00 - q22) + (q33 - q11),
    ];
    mat_from_rows(r0, r1, r2)
}

/// Builds a matrix from its three rows.
#[inline]
pub fn mat_from_rows(r0: [f64; 3], r1: [f64; 3], r2: [f64; 3]) -> DMat3 {
    DMat3::from_cols(
        DVec3::new(r0[0], r1[0], r2[0]),
        DVec3::new(r0[1], r1[1], r2[1]),
        DVec3::new(r0[2], r1[2], r2[2]),
    )
}

/// The nine entries of a matrix in row-major order (MuJoCo's `xmat` layout).
#[inline]
pub fn mat_to_rowmajor(m: &DMat3) -> [f64; 9] {
    [
        m.x_axis.x, m.y_axis.x, m.z_axis.x, m.x_axis.y, m.y_axis.y, m.z_axis.y, m.x_axis.z,
        m.y_axis.z, m.z_axis.z,
    ]
}

/// Rotates a vector by a unit quaternion as MuJoCo's `mju_rotVecQuat` rounds it
/// (`v + 2 q⃗ × (w v + q⃗ × v)`, not the quaternion's matrix times `v`; exact for a zero vector
/// or the identity quaternion). Joint anchors and axes in `mj_kinematics` are placed this way.
#[inline]
pub fn rot_vec_quat(v: DVec3, q: DQuat) -> DVec3 {
    if v.x == 0.0 && v.y == 0.0 && v.z == 0.0 {
        return DVec3::ZERO;
    }
    if q.w == 1.0 && q.x == 0.0 && q.y == 0.0 && q.z == 0.0 {
        return v;
    }
    let t = [
        q.w * v.x + q.y * v.z - q.z * v.y,
        q.w * v.y + q.z * v.x - q.x * v.z,
        q.w * v.z + q.x * v.y - q.y * v.x,
    ];
    DVec3::new(
        v.x + 2.0 * (q.y * t[2] - q.z * t[1]),
        v.y + 2.0 * (q.z * t[0] - q.x * t[2]),
        v.z + 2.0 * (q.x * t[1] - q.y * t[0]),
    )
}

/// Quaternion of a rotation by `angle` radians about the unit `axis`.
#[inline]
pub fn axis_angle_quat(axis: DVec3, angle: f64) -> DQuat {
    if angle == 0.0 {
        return DQuat::IDENTITY;
    }
    let (s, c) = (0.5 * angle).sin_cos();
    quat_wxyz(c, axis.x * s, axis.y * s, axis.z * s)
}

/// Quaternion of the minimal rotation taking +z to `vec` (MuJoCo's `z2quat`).
pub fn z_to_quat(vec: DVec3) -> DQuat {
    let z = DVec3::Z;
    let mut axis = z.cross(vec);
    let s = axis.length();
    if s < 1e-10 {
        axis = DVec3::X;
    } else {
        axis /= s;
    }
    // atan2 handles the antiparallel case (a half turn about x)
    let a = s.atan2(vec.z);
    axis_angle_quat(axis, a)
}

/// Quaternion of an orthonormal frame given as matrix columns (MuJoCo's `mat2quat`).
pub fn mat_to_quat(m: &DMat3) -> DQuat {
    // row-major access
    let r = mat_to_rowmajor(m);
    let tr = r[0] + r[4] + r[8];
    let q = if tr > 0.0 {
        let s = (tr + 1.0).sqrt() * 2.0;
        quat_wxyz(
            0.25 * s,
            (r[7] - r[5]) / s,
            (r[2] - r[6]) / s,
            (r[3] - r[1]) / s,
        )
    } else if r[0] > r[4] && r[0] > r[8] {
        let s = (1.0 + r[0] - r[4] - r[8]).sqrt() * 2.0;
        quat_wxyz(
            (r[7] - r[5]) / s,
            0.25 * s,
            (r[1] + r[3]) / s,
            (r[2] + r[6]) / s,
        )
    } else if r[4] > r[8] {
        let s = (1.0 + r[4] - r[0] - r[8]).sqrt() * 2.0;
        quat_wxyz(
            (r[2] - r[6]) / s,
            (r[1] + r[3]) / s,
            0.25 * s,
            (r[5] + r[7]) / s,
        )
    } else {
        let s = (1.0 + r[8] - r[0] - r[4]).sqrt() * 2.0;
        quat_wxyz(
            (r[3] - r[1]) / s,
            (r[2] + r[6]) / s,
            (r[5] + r[7]) / s,
            0.25 * s,
        )
    };
    normalize_quat(q)
}

/// Eigen-decomposition of a symmetric 3×3 matrix by Jacobi rotations accumulated in a
/// quaternion, with MuJoCo's conventions (`mju_eig3`): eigenvalues in decreasing order, and
/// the eigenvectors are the *columns* of `quat_to_mat(quat)`, a right-handed frame.
///
/// Returns `(eigenvalues, quat)`. The quaternion's sign and the column order are fully
/// determined by the iteration. (The model compiler's frames use the compiler's own variant in
/// `collide-mjcf`, which differs in its rotation formula, tolerances and normalization.)
pub fn eig3(mat: &DMat3) -> (DVec3, DQuat) {
    const EIG_EPS: f64 = 1e-12;
    let mut quat = DQuat::IDENTITY;
    let mut eigval = [0.0; 3];
    for _ in 0..500 {
        let v = quat_to_mat(quat);
        let d = v.transpose() * *mat * v;
        let dr = mat_to_rowmajor(&d);
        eigval = [dr[0], dr[4], dr[8]];
        let (rk, ck, rotk) = if dr[1].abs() > dr[2].abs() && dr[1].abs() > dr[5].abs() {
            (0, 1, 2)
        } else if dr[2].abs() > dr[5].abs() {
            (0, 2, 1)
        } else {
            (1, 2, 0)
        };
        let off = dr[3 * rk + ck];
        if off.abs() < EIG_EPS {
            break;
        }
        let tau = (dr[4 * ck] - dr[4 * rk]) / (2.0 * off);
        let t = if tau >= 0.0 {
            1.0 / (tau + (1.0 + tau * tau).sqrt())
        } else {
            -1.0 / (-tau + (1.0 + tau * tau).sqrt())
        };
        let c = 1.0 / (1.0 + t * t).sqrt();
        if c > 1.0 - EIG_EPS {
            break;
        }
        let mut r = [0.0; 4];
        let s = (0.5 - 0.5 * c).sqrt();
        r[rotk + 1] = if tau >= 0.0 { -s } else { s };
        if rotk == 1 {
            r[rotk + 1] = -r[rotk + 1];
        }
        r[0] = (1.0 - r[rotk + 1] * r[rotk + 1]).sqrt();
        let rq = normalize_quat(quat_wxyz(r[0], r[1], r[2], r[3]));
        quat = normalize_quat(mul_quat(quat, rq));
    }
    // sort decreasing with the bubble pattern 0, 1, 0, rotating the frame with each swap
    for j in 0..3 {
        let j1 = j % 2;
        if eigval[j1] < eigval[j1 + 1] {
            eigval.swap(j1, j1 + 1);
            let h = std::f64::consts::FRAC_1_SQRT_2;
            let mut r = [h, 0.0, 0.0, 0.0];
            r[(j1 + 2) % 3 + 1] = h;
            quat = normalize_quat(mul_quat(quat, quat_wxyz(r[0], r[1], r[2], r[3])));
        }
    }
    (DVec3::from_array(eigval), quat)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `mju_quat2Mat` of MuJoCo 4.0.0 on a free body's quaternion (scenes/cylinders_on_boxes,
    /// state 1), bit for bit: the ungrouped diagonal `q00 - q11 + q22 - q33` is one ulp off in
    /// the middle entry, enough to flip which 16-gon vertices the cylinder's multi-contact keeps.
    #[test]
    fn quat_to_mat_rounds_as_mujoco_4() {
        let q = quat_wxyz(
            0.9999999948899146,
            8.667009007034143e-05,
            -5.204251218048147e-05,
            2.092381384130308e-07,
        );
        let expect = [
            0.999999994583067,
            -4.2749733312395046e-07,
            -0.00010408498755970297,
            4.094552162512737e-07,
            0.999999984976504,
            -0.00017334020103345647,
            0.00010408506009845619,
            0.000173340157476343,
            0.9999999795597455,
        ];
        assert_eq!(mat_to_rowmajor(&quat_to_mat(q)), expect);
    }

    /// `mujoco.mju_mulQuat` (MuJoCo 4.0.0) on two unit quaternions where its summation order
    /// changes three of the four components' last bit against the left-to-right sum.
    #[test]
    fn mul_quat_runtime_rounds_as_mujoco_4() {
        let a = quat_wxyz(
            0.4898426394609422,
            0.19212327828147704,
            0.8222133923422595,
            0.21704370979447743,
        );
        let b = quat_wxyz(
            0.6309356934609797,
            0.6277176268518326,
            -0.45294220269321306,
            -0.05228855205335614,
        );
        let mujoco = [
            0.5722240834380072,
            0.4840162012163433,
            0.4431813832522612,
            -0.4918111190612159,
        ];
        assert_eq!(quat_to_wxyz(mul_quat_runtime(a, b)), mujoco);
        assert_ne!(quat_to_wxyz(mul_quat(a, b)), mujoco);
    }

    /// Values from `mujoco.mju_eig3` (MuJoCo 4.0.0) on the same matrices.
    #[test]
    fn eig3_matches_mujoco() {
        let a = mat_from_rows([2.0, 1.0, 0.0], [1.0, 3.0, 0.5], [0.0, 0.5, 1.0]);
        let (val, q) = eig3(&a);
        let expect = quat_wxyz(0.83830457, 0.22156573, 0.03700793, 0.49677407);
        assert!((q.dot(expect) - 1.0).abs() < 1e-8, "{q:?}");
        assert!(
            (val - DVec3::new(3.68614066, 1.5, 0.81385934))
                .abs()
                .max_element()
                < 1e-8
        );
        let (val, q) = eig3(&DMat3::from_diagonal(DVec3::new(1.0, 3.0, 2.0)));
        assert_eq!(val, DVec3::new(3.0, 2.0, 1.0));
        assert!(
            (q.dot(quat_wxyz(0.5, 0.5, 0.5, 0.5)) - 1.0).abs() < 1e-15,
            "{q:?}"
        );
    }

    #[test]
    fn eig3_diagonalizes_and_sorts() {
        let a = mat_from_rows([2.0, 1.0, 0.0], [1.0, 3.0, 0.5], [0.0, 0.5, 1.0]);
        let (val, q) = eig3(&a);
        let v = quat_to_mat(q);
        let d = v.transpose() * a * v;
        assert!(val.x >= val.y && val.y >= val.z);
        for i in 0..3 {
            for j in 0..3 {
                let expect = if i == j { val[i] } else { 0.0 };
                assert!((d.col(j)[i] - expect).abs() < 1e-5, "{d:?}");
            }
        }
        assert!((v.determinant() - 1.0).abs() < 1e-12);
    }

    #[test]
    fn eig3_of_diagonal_sorts_axes() {
        let a = DMat3::from_diagonal(DVec3::new(1.0, 3.0, 2.0));
        let (val, q) = eig3(&a);
        assert_eq!(val, DVec3::new(3.0, 2.0, 1.0));
        let v = quat_to_mat(q);
        assert!((v.col(0).dot(DVec3::Y).abs() - 1.0).abs() < 1e-12);
        assert!((v.col(1).dot(DVec3::Z).abs() - 1.0).abs() < 1e-12);
    }

    #[test]
    fn quat_mat_roundtrip() {
        let q = normalize_quat(quat_wxyz(0.3, -0.2, 0.9, 0.1));
        let m = quat_to_mat(q);
        let q2 = mat_to_quat(&m);
        assert!(q.dot(q2).abs() > 1.0 - 1e-14);
        let g = glam::DMat3::from_quat(q);
        assert!((m - g).abs_diff_eq(DMat3::ZERO, 1e-15));
    }

    #[test]
    fn z_to_quat_maps_z_onto_vector() {
        for v in [
            DVec3::new(1.0, 2.0, 3.0),
            DVec3::new(0.0, 0.0, -2.0),
            DVec3::new(0.0, 0.0, 5.0),
        ] {
            let q = z_to_quat(v);
            let z = rot_vec_quat(DVec3::Z, q);
            assert!((z - v.normalize()).length() < 1e-12, "{v} -> {z}");
        }
    }
}
