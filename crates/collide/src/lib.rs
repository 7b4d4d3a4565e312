//! `collide`: collision detection for rigid-body and robotics simulation.
//!
//! The library holds no I/O. It is organized along the data's path:
//! - [`model`]: the compiled, MuJoCo-numbered model (built by the `collide-mjcf` crate);
//! - [`kinematics`]: world poses from generalized coordinates;
//! - [`broad`]: per-body boxes in the principal frame and sweep-and-prune (per kinematic tree,
//!   then per body, for models made of many trees);
//! - [`mid`]: per-body bounding-volume trees;
//! - [`narrow`]: the type-pair dispatch table and one file per pair family;
//! - [`filter`], [`contact`]: MuJoCo's pair filters, parameter mixing and contact frames;
//! - [`collider`]: the driver tying them together ([`Collider`]);
//! - [`distance`]: signed distances (`mj_geomDistance`) and early-exit collision checks for
//!   planning, batched;
//! - [`batch`]: many worlds at once, in parallel ([`BatchCollider`]);
//! - [`cpu`]: the CPU extensions the build assumes, checked against the running CPU;
//! - [`math`]: quaternion and matrix helpers in MuJoCo's conventions.
//!
//! All quantities are `f64` (MuJoCo's `mjtNum`).

pub mod batch;
pub mod broad;
pub mod collider;
pub mod contact;
pub mod cpu;
pub mod distance;
pub mod filter;
pub mod kinematics;
pub mod math;
pub mod mid;
pub mod model;
pub mod narrow;

pub use batch::{BatchCollider, BatchPoses, WorldCaches};
pub use collider::{Collider, ColliderError, ColliderOptions, MeshCollision, Stats, WorldCache};
pub use contact::Contact;
pub use cpu::{cpu_error_message, missing_cpu_features};
pub use distance::{
    distance, distance_batch, in_collision_batch, CollisionChecker, Distance, DistanceError,
    DistanceMode, GeomDistance,
};
pub use glam;
pub use kinematics::{
    forward_kinematics, forward_kinematics_geoms, KinematicsError, PoseView, Poses,
};
pub use model::{
    ConvexHull, GeomType, HField, HullGraph, JointType, Mesh, Model, Options, SameFrame,
};
