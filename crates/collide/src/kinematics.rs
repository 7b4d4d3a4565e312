//! Forward kinematics: from `qpos` to body, inertial and geom world poses (MuJoCo's
//! `mj_kinematics`).

use glam::{DMat3, DQuat, DVec3};
use thiserror::Error;

use crate::math::{
    axis_angle_quat, mul_quat, normalize_quat, quat_to_mat, quat_wxyz, rot_vec_quat,
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

fn check_finite(
    what: &'static str,
    values: impl Iterator<Item = f64>,
) -> Result<(), KinematicsError> {
    match values.enumerate().find(|(_, v)| !v.is_finite()) {
        Some((index, _)) => Err(KinematicsError::NotFinite { what, index }),
        None => Ok(()),
    }
}

/// A child frame (`pos`, `quat` in the parent) in world coordinates, copying the parent's
/// frame where `same` says they coincide (MuJoCo's `mj_local2Global`).
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
        _ => (ppos + *pmat * pos, quat_to_mat(mul_quat(pquat, quat))),
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

    for b in 1..model.nbody() {
        let parent = model.body_parentid[b];
        let (mut pos, mut quat);
        if let Some(m) = model.body_mocapid[b] {
            // mocap bodies are children of the world
            let (p, q) = match mocap {
                Some((mp, mq)) => (mp[m], mq[m]),
                None => (model.body_pos[b], model.body_quat[b]),
            };
            pos = p;
            quat = normalize_quat(q);
        } else {
            pos = out.xpos[parent] + rot_vec_quat(model.body_pos[b], out.xquat[parent]);
            quat = mul_quat(out.xquat[parent], model.body_quat[b]);
        }

        let jadr = model.body_jntadr[b];
        for j in jadr..jadr + model.body_jntnum[b] {
            let qa = model.jnt_qposadr[j];
            match model.jnt_type[j] {
                JointType::Free => {
                    pos = DVec3::new(qpos[qa], qpos[qa + 1], qpos[qa + 2]);
                    quat = normalize_quat(quat_wxyz(
                        qpos[qa + 3],
                        qpos[qa + 4],
                        qpos[qa + 5],
                        qpos[qa + 6],
                    ));
                }
                JointType::Ball | JointType::Hinge => {
                    let anchor = rot_vec_quat(model.jnt_pos[j], quat) + pos;
                    let local = if model.jnt_type[j] == JointType::Ball {
                        normalize_quat(quat_wxyz(
                            qpos[qa],
                            qpos[qa + 1],
                            qpos[qa + 2],
                            qpos[qa + 3],
                        ))
                    } else {
                        axis_angle_quat(model.jnt_axis[j], qpos[qa] - model.qpos0[qa])
                    };
                    quat = mul_quat(quat, local);
                    pos = anchor - rot_vec_quat(model.jnt_pos[j], quat);
                }
                JointType::Slide => {
                    let axis = rot_vec_quat(model.jnt_axis[j], quat);
                    pos += axis * (qpos[qa] - model.qpos0[qa]);
                }
            }
        }

        quat = normalize_quat(quat);
        let mat = quat_to_mat(quat);
        out.xpos[b] = pos;
        out.xquat[b] = quat;
        out.xmat[b] = mat;
        if inertial {
            let (ipos, imat) = local_to_global(
                pos,
                quat,
                &mat,
                model.body_ipos[b],
                model.body_iquat[b],
                model.body_sameframe[b],
            );
            out.xipos[b] = ipos;
            out.ximat[b] = imat;
        }
    }

    if geoms {
        geom_poses(model, 0..model.ngeom(), out);
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
        geom_poses(model, 0..model.ngeom(), out);
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
