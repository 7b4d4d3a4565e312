//! `collide`: collision detection for rigid-body and robotics simulation.
//!
//! The library holds no I/O. It is organized along the data's path:
//! - [`model`]: the compiled, MuJoCo-numbered model (built by the `collide-mjcf` crate);
//! - [`kinematics`]: world poses from generalized coordinates;
//! - [`math`]: quaternion and matrix helpers in MuJoCo's conventions.
//!
//! All quantities are `f64` (MuJoCo's `mjtNum`).

pub mod kinematics;
pub mod math;
pub mod model;

pub use glam;
pub use kinematics::{forward_kinematics, KinematicsError, Poses};
pub use model::{GeomType, HField, JointType, Mesh, Model, Options, SameFrame};
