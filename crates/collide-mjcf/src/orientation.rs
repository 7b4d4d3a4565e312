//! Orientation specifiers (`quat`, `axisangle`, `euler`, `xyaxes`, `zaxis`) and frames.

use glam::{DQuat, DVec3};

use collide::math::{
    axis_angle_quat, mat_to_quat, mul_quat, normalize_quat, quat_wxyz, rot_vec_quat, z_to_quat,
};

use crate::error::Result;
use crate::xml::{AttrSource, Elem};

/// Compiler settings that orientation parsing depends on.
#[derive(Clone, Copy, Debug)]
pub struct AngleSettings {
    /// `compiler/@angle="degree"` (the default) rather than radians.
    pub degrees: bool,
    /// `compiler/@eulerseq`, e.g. `b"xyz"`; lowercase = intrinsic, uppercase = extrinsic.
    pub eulerseq: [u8; 3],
}

impl Default for AngleSettings {
    fn default() -> Self {
        AngleSettings {
            degrees: true,
            eulerseq: *b"xyz",
        }
    }
}

impl AngleSettings {
    /// Converts an angle in the model's unit to radians.
    pub fn to_rad(&self, a: f64) -> f64 {
        if self.degrees {
            a * std::f64::consts::PI / 180.0
        } else {
            a
        }
    }
}

const KEYS: [&str; 5] = ["quat", "axisangle", "xyaxes", "zaxis", "euler"];

/// A rigid frame: position and orientation relative to a parent.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Frame {
    /// Origin in the parent frame.
    pub pos: DVec3,
    /// Orientation in the parent frame.
    pub quat: DQuat,
}

impl Frame {
    /// The identity frame.
    pub const IDENTITY: Frame = Frame {
        pos: DVec3::ZERO,
        quat: DQuat::IDENTITY,
    };

    /// `self ∘ child`: `child` expressed in this frame's parent.
    pub fn compose(&self, child: Frame) -> Frame {
        if *self == Frame::IDENTITY {
            return child;
        }
        Frame {
            pos: self.pos + rot_vec_quat(child.pos, self.quat),
            quat: normalize_quat(mul_quat(self.quat, child.quat)),
        }
    }
}

/// Reads the element's orientation. Only the element's own attributes are considered first;
/// if it has none, the nearest default layer that has one (for elements with defaults).
/// Returns `None` when nothing is specified.
pub fn read_orientation(
    src: &dyn OrientationSource,
    angles: &AngleSettings,
) -> Result<Option<DQuat>> {
    for layer in src.orientation_layers().into_iter().rev() {
        let present: Vec<&str> = KEYS
            .iter()
            .copied()
            .filter(|k| layer.attr(k).is_some())
            .collect();
        if present.is_empty() {
            continue;
        }
        // MuJoCo: an alternative specifier overrides `quat`; two alternatives are an error.
        let alts: Vec<&str> = present.iter().copied().filter(|k| *k != "quat").collect();
        if alts.len() > 1 {
            return Err(layer.err(format!(
                "multiple orientation specifiers: {}",
                alts.join(", ")
            )));
        }
        return orientation_of(layer, alts.first().copied().unwrap_or("quat"), angles).map(Some);
    }
    Ok(None)
}

fn orientation_of(e: &Elem, key: &str, angles: &AngleSettings) -> Result<DQuat> {
    match key {
        "quat" => {
            let q = e.array::<4>("quat")?.unwrap_or([1.0, 0.0, 0.0, 0.0]);
            let n = (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]).sqrt();
            if n < 1e-10 {
                return Err(e.err("quat has zero norm"));
            }
            Ok(quat_wxyz(q[0] / n, q[1] / n, q[2] / n, q[3] / n))
        }
        "axisangle" => {
            let a = e.array::<4>("axisangle")?.unwrap_or_default();
            let axis = DVec3::new(a[0], a[1], a[2]);
            let n = axis.length();
            if n < 1e-10 {
                return Err(e.err("axisangle axis has zero norm"));
            }
            Ok(axis_angle_quat(axis / n, angles.to_rad(a[3])))
        }
        "xyaxes" => {
            let a = e.array::<6>("xyaxes")?.unwrap_or_default();
            let x = DVec3::new(a[0], a[1], a[2]);
            let nx = x.length();
            if nx < 1e-10 {
                return Err(e.err("xyaxes: x axis has zero norm"));
            }
            let x = x / nx;
            let mut y = DVec3::new(a[3], a[4], a[5]);
            y -= x * x.dot(y);
            let ny = y.length();
            if ny < 1e-10 {
                return Err(e.err("xyaxes: y axis is parallel to x or zero"));
            }
            let y = y / ny;
            let z = x.cross(y);
            Ok(mat_to_quat(&glam::DMat3::from_cols(x, y, z)))
        }
        "zaxis" => {
            let z = e.vec3("zaxis")?.unwrap_or(DVec3::Z);
            let n = z.length();
            if n < 1e-10 {
                return Err(e.err("zaxis has zero norm"));
            }
            Ok(z_to_quat(z / n))
        }
        _ => Ok(euler_quat(
            e.array::<3>("euler")?.unwrap_or_default(),
            angles,
        )),
    }
}

/// Quaternion of Euler angles in the model's unit and sequence.
pub fn euler_quat(a: [f64; 3], angles: &AngleSettings) -> DQuat {
    let mut q = DQuat::IDENTITY;
    for (i, &c) in angles.eulerseq.iter().enumerate() {
        let axis = match c.to_ascii_lowercase() {
            b'x' => DVec3::X,
            b'y' => DVec3::Y,
            _ => DVec3::Z,
        };
        let r = axis_angle_quat(axis, angles.to_rad(a[i]));
        q = if c.is_ascii_lowercase() {
            mul_quat(q, r)
        } else {
            mul_quat(r, q)
        };
    }
    normalize_quat(q)
}

/// Something that has orientation attributes, possibly through default layers.
pub trait OrientationSource {
    /// Layers to search, root first, the element itself last.
    fn orientation_layers(&self) -> Vec<&Elem>;
}

impl OrientationSource for Elem {
    fn orientation_layers(&self) -> Vec<&Elem> {
        vec![self]
    }
}

impl OrientationSource for crate::defaults::Resolved<'_> {
    fn orientation_layers(&self) -> Vec<&Elem> {
        self.layers.clone()
    }
}

/// Reads `pos` and orientation of an element as a frame.
pub fn read_frame(e: &dyn FrameSource, angles: &AngleSettings) -> Result<Frame> {
    let pos = e.frame_pos()?.unwrap_or(DVec3::ZERO);
    let quat = read_orientation(e.as_orientation(), angles)?.unwrap_or(DQuat::IDENTITY);
    Ok(Frame { pos, quat })
}

/// Something with a `pos` attribute and an orientation.
pub trait FrameSource {
    /// The `pos` attribute.
    fn frame_pos(&self) -> Result<Option<DVec3>>;
    /// As an orientation source.
    fn as_orientation(&self) -> &dyn OrientationSource;
}

impl FrameSource for Elem {
    fn frame_pos(&self) -> Result<Option<DVec3>> {
        self.vec3("pos")
    }
    fn as_orientation(&self) -> &dyn OrientationSource {
        self
    }
}

impl FrameSource for crate::defaults::Resolved<'_> {
    fn frame_pos(&self) -> Result<Option<DVec3>> {
        self.vec3("pos")
    }
    fn as_orientation(&self) -> &dyn OrientationSource {
        self
    }
}
