//! Forward kinematics: from `qpos` to body, inertial and geom world poses (MuJoCo's
//! `mj_kinematics`).

use glam::{DMat3, DQuat, DVec3};
use thiserror::Error;

use crate::math::{
    axis_angle_quat, mul_quat_runtime, normalize_quat, quat_to_mat, quat_wxyz, rot_vec_quat,
};
use crate::model::{JointType, Model, SameFrame};

/// Why a configuration was rejected.
#[derive(Debug, Error, PartialEq)]
pub enum KinematicsError {
    /// `qpos` has the wrong length.
    #[error("qpos has {got} entries, the model has nq = {expected}")]
    QposLength {
        /// Entries given.
        got: usize,
        /// Entries expected.
        expected: usize,
    },
    /// Mocap arrays have the wrong length.
    #[error("mocap arrays have {got} entries, the model has nmocap = {expected}")]
    MocapLength {
        /// Entries given.
        got: usize,
        /// Entries expected.
        expected: usize,
    },
    /// A NaN or infinite input value.
    #[error("{what}[{index}] is not finite")]
    NotFinite {
        /// Which input array.
        what: &'static str,
        /// Index of the first bad value.
        index: usize,
    },
}

/// World poses of bodies, inertial frames and geoms; reused across calls.
#[derive(Clone, Debug, Default)]
pub struct Poses {
    /// Body frame positions.
    pub xpos: Vec<DVec3>,
    /// Body frame orientations.
    pub xquat: Vec<DQuat>,
    /// Body frame orientation matrices.
    pub xmat: Vec<DMat3>,
    /// Inertial frame positions (used by the mid phase).
    pub xipos: Vec<DVec3>,
    /// Inertial frame orientations.
    pub ximat: Vec<DMat3>,
    /// Geom positions.
    pub geom_xpos: Vec<DVec3>,
    /// Geom orientations.
    pub geom_xmat: Vec<DMat3>,
}

/// Borrowed world poses of one world: what the collision pipeline reads. Obtained from
/// [`Poses::view`] or [`crate::batch::BatchPoses::world`].
#[derive(Clone, Copy, Debug)]
pub struct PoseView<'a> {
    /// Body frame orientations (MuJoCo's `xquat`; `mjc_SDF` builds its geom frames from
    /// them, as MuJoCo 4.0.0's `geom_xquat`, not from the matrices).
    pub xquat: &'a [DQuat],
    /// Inertial frame positions.
    pub xipos: &'a [DVec3],
    /// Inertial frame orientations.
    pub ximat: &'a [DMat3],
    /// Geom positions.
    pub geom_xpos: &'a [DVec3],
    /// Geom orientations.
    pub geom_xmat: &'a [DMat3],
}

impl Poses {
    /// The poses the collision pipeline reads.
    pub fn view(&self) -> PoseView<'_> {
        PoseView {
            xquat: &self.xquat,
            xipos: &self.xipos,
            ximat: &self.ximat,
            geom_xpos: &self.geom_xpos,
            geom_xmat: &self.geom_xmat,
        }
    }

    /// Buffers sized for `model`.
    pub fn new(model: &Model) -> Poses {
        let nb = model.nbody();
        let ng = model.ngeom();
        Poses {
            xpos: vec![DVec3::ZERO; nb],
            xquat: vec![DQuat::IDENTITY; nb],
            xmat: vec![DMat3::IDENTITY; nb],
            xipos: vec![DVec3::ZERO; nb],
            ximat: vec![DMat3::IDENTITY; nb],
            geom_xpos: vec![DVec3::ZERO; ng],
            geom_xmat: vec![DMat3::IDENTITY; ng],
        }
    }
}

/// Whether `q` is exactly the identity (then `quat_to_mat(q)` is exactly the identity and
/// `rot_vec_quat` returns its vector unchanged).
#[inline(always)]
fn is_identity(q: DQuat) -> bool {
    q.w == 1.0 && q.x == 0.0 && q.y == 0.0 && q.z == 0.0
}

fn check_finite(
    what: &'static str,
    mut values: impl Iterator<Item = f64>,
) -> Result<(), KinematicsError> {
    match values.position(|v| !v.is_finite()) {
        Some(index) => Err(KinematicsError::NotFinite { what, index }),
        None => Ok(()),
    }
}

/// A child frame (`pos`, `quat` in the parent) in world coordinates, copying the parent's
/// frame where `same` says they coincide (MuJoCo's `mj_local2Global`).
#[inline(always)]
fn local_to_global(
    ppos: DVec3,
    pquat: DQuat,
    pmat: &DMat3,
    pos: DVec3,
    quat: DQuat,
    same: SameFrame,
) -> (DVec3, DMat3) {
    match same {
        SameFrame::Body => (ppos, *pmat),
        SameFrame::BodyRot => (ppos + *pmat * pos, *pmat),
        _ => (
            ppos + *pmat * pos,
            quat_to_mat(mul_quat_runtime(pquat, quat)),
        ),
    }
}

/// Computes all world poses for configuration `qpos`, with mocap bodies at `mocap` poses
/// (`None`: at their model poses). Quaternions in `qpos` (free and ball joints) and mocap
/// quaternions are normalized, as MuJoCo does.
pub fn forward_kinematics(
    model: &Model,
    qpos: &[f64],
    mocap: Option<(&[DVec3], &[DQuat])>,
    out: &mut Poses,
) -> Result<(), KinematicsError> {
    bodies_and_geoms(model, qpos, mocap, out, true, true)
}

/// Body poses (checked inputs), inertial frames when `inertial` is set, then every geom's pose
/// when `geoms` is set.
#[inline(always)]
fn bodies_and_geoms(
    model: &Model,
    qpos: &[f64],
    mocap: Option<(&[DVec3], &[DQuat])>,
    out: &mut Poses,
    geoms: bool,
    inertial: bool,
) -> Result<(), KinematicsError> {
    if qpos.len() != model.nq() {
        return Err(KinematicsError::QposLength {
            got: qpos.len(),
            expected: model.nq(),
        });
    }
    check_finite("qpos", qpos.iter().copied())?;
    if let Some((mp, mq)) = mocap {
        let n = model.nmocap();
        if mp.len() != n || mq.len() != n {
            return Err(KinematicsError::MocapLength {
                got: mp.len().min(mq.len()),
                expected: n,
            });
        }
        check_finite("mocap_pos", mp.iter().flat_map(|v| v.to_array()))?;
        check_finite("mocap_quat", mq.iter().flat_map(|q| q.to_array()))?;
    }
    if out.xpos.len() != model.nbody() || out.geom_xpos.len() != model.ngeom() {
        *out = Poses::new(model);
    }

    out.xpos[0] = DVec3::ZERO;
    out.xquat[0] = DQuat::IDENTITY;
    out.xmat[0] = DMat3::IDENTITY;
    out.xipos[0] = DVec3::ZERO;
    out.ximat[0] = DMat3::IDENTITY;

    // every per-body array sliced to `nbody` once, so the loop indexes them unchecked by `b`
    let nb = model.nbody();
    let body_parentid = &model.body_parentid[..nb];
    let body_mocapid = &model.body_mocapid[..nb];
    let body_pos = &model.body_pos[..nb];
    let body_quat = &model.body_quat[..nb];
    let body_jntadr = &model.body_jntadr[..nb];
    let body_jntnum = &model.body_jntnum[..nb];
    let body_ipos = &model.body_ipos[..nb];
    let body_iquat = &model.body_iquat[..nb];
    let body_sameframe = &model.body_sameframe[..nb];
    let xpos = &mut out.xpos[..nb];
    let xquat = &mut out.xquat[..nb];
    let xmat = &mut out.xmat[..nb];
    let xipos = &mut out.xipos[..nb];
    let ximat = &mut out.ximat[..nb];
    for b in 1..nb {
        let parent = body_parentid[b];
        let (mut pos, mut quat);
        if let Some(m) = body_mocapid[b] {
            // mocap bodies are children of the world
            let (p, q) = match mocap {
                Some((mp, mq)) => (mp[m], mq[m]),
                None => (body_pos[b], body_quat[b]),
            };
            pos = p;
            quat = normalize_quat(q);
        } else {
            let (ppos, pquat) = (xpos[parent], xquat[parent]);
            // the parent's matrix is `quat_to_mat(pquat)`
            let offset = if is_identity(pquat) {
                body_pos[b]
            } else {
                xmat[parent] * body_pos[b]
            };
            pos = ppos + offset;
            quat = mul_quat_runtime(pquat, body_quat[b]);
        }

        let joints = body_jntadr[b]..body_jntadr[b] + body_jntnum[b];
        let jnt = model.jnt_type[joints.clone()]
            .iter()
            .zip(&model.jnt_qposadr[joints.clone()])
            .zip(&model.jnt_pos[joints.clone()])
            .zip(&model.jnt_axis[joints]);
        for (((&jtype, &qa), &jpos), &jaxis) in jnt {
            match jtype {
                JointType::Free => {
                    let q = &qpos[qa..qa + 7];
                    pos = DVec3::new(q[0], q[1], q[2]);
                    quat = normalize_quat(quat_wxyz(q[3], q[4], q[5], q[6]));
                }
                // anchors and axes placed as MuJoCo's `mju_rotVecQuat` rounds them (not by the
                // quaternion's matrix: the last bits differ)
                JointType::Ball | JointType::Hinge => {
                    let anchor = rot_vec_quat(jpos, quat) + pos;
                    let local = if jtype == JointType::Ball {
                        let q = &qpos[qa..qa + 4];
                        normalize_quat(quat_wxyz(q[0], q[1], q[2], q[3]))
                    } else {
                        axis_angle_quat(jaxis, qpos[qa] - model.qpos0[qa])
                    };
                    quat = mul_quat_runtime(quat, local);
                    pos = anchor - rot_vec_quat(jpos, quat);
                }
                JointType::Slide => {
                    let axis = rot_vec_quat(jaxis, quat);
                    pos += axis * (qpos[qa] - model.qpos0[qa]);
                }
            }
        }

        quat = normalize_quat(quat);
        let mat = quat_to_mat(quat);
        xpos[b] = pos;
        xquat[b] = quat;
        xmat[b] = mat;
        if inertial {
            let (ipos, imat) = local_to_global(
                pos,
                quat,
                &mat,
                body_ipos[b],
                body_iquat[b],
                body_sameframe[b],
            );
            xipos[b] = ipos;
            ximat[b] = imat;
        }
    }

    if geoms {
        all_geom_poses(model, out);
    }
    Ok(())
}

/// [`forward_kinematics`] computing the world poses of the geoms `geoms` only (the others keep
/// what `out` held): for callers that know some geoms cannot have moved (static bodies). The
/// inertial frames (`xipos`, `ximat`) are updated only when one of these geoms is placed by
/// its body's inertial frame; otherwise they keep what `out` held.
pub fn forward_kinematics_geoms(
    model: &Model,
    qpos: &[f64],
    mocap: Option<(&[DVec3], &[DQuat])>,
    geoms: &[usize],
    out: &mut Poses,
) -> Result<(), KinematicsError> {
    let resized = out.xpos.len() != model.nbody() || out.geom_xpos.len() != model.ngeom();
    // inertial frames only when a listed geom is placed by them
    let inertial = resized
        || geoms.iter().any(|&g| {
            matches!(
                model.geom_sameframe[g],
                SameFrame::Inertia | SameFrame::InertiaRot
            )
        });
    bodies_and_geoms(model, qpos, mocap, out, false, inertial)?;
    if resized {
        all_geom_poses(model, out);
    } else {
        geom_poses(model, geoms.iter().copied(), out);
    }
    Ok(())
}

/// World poses of the geoms `geoms` from the body poses in `out`.
#[inline]
fn geom_poses(model: &Model, geoms: impl Iterator<Item = usize>, out: &mut Poses) {
    for g in geoms {
        let b = model.geom_bodyid[g];
        let (p, m) = match model.geom_sameframe[g] {
            SameFrame::Inertia => (out.xipos[b], out.ximat[b]),
            SameFrame::InertiaRot => (out.xpos[b] + out.xmat[b] * model.geom_pos[g], out.ximat[b]),
            other => local_to_global(
                out.xpos[b],
                out.xquat[b],
                &out.xmat[b],
                model.geom_pos[g],
                model.geom_quat[g],
                other,
            ),
        };
        out.geom_xpos[g] = p;
        out.geom_xmat[g] = m;
    }
}

/// [`geom_poses`] of every geom, iterating the per-geom arrays together (no index checks).
fn all_geom_poses(model: &Model, out: &mut Poses) {
    let ng = model.ngeom();
    let Poses {
        xpos,
        xquat,
        xmat,
        xipos,
        ximat,
        geom_xpos,
        geom_xmat,
    } = out;
    let geoms = model.geom_bodyid[..ng]
        .iter()
        .zip(&model.geom_sameframe[..ng])
        .zip(model.geom_pos[..ng].iter().zip(&model.geom_quat[..ng]))
        .zip(geom_xpos[..ng].iter_mut().zip(&mut geom_xmat[..ng]));
    for (((&b, &same), (&gpos, &gquat)), (p, m)) in geoms {
        (*p, *m) = match same {
            SameFrame::Inertia => (xipos[b], ximat[b]),
            SameFrame::InertiaRot => (xpos[b] + xmat[b] * gpos, ximat[b]),
            other => local_to_global(xpos[b], xquat[b], &xmat[b], gpos, gquat, other),
        };
    }
}
