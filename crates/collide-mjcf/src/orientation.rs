//! Orientation specifiers (`quat`, `axisangle`, `euler`, `xyaxes`, `zaxis`) and frames.

use glam::{DQuat, DVec3};

use crate::compile_math as cm;

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
    /// Converts an orientation angle (`axisangle`, `euler`) in the model's unit to radians,
    /// rounding as MuJoCo's compiler does (`a / 180 · π`).
    pub fn orientation_rad(&self, a: f64) -> f64 {
        if self.degrees {
            a / 180.0 * std::f64::consts::PI
        } else {
            a
        }
    }

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

    /// `self ∘ child`: `child` expressed in this frame's parent (the compiler's
    /// `frameaccum` arithmetic).
    pub fn compose(&self, child: Frame) -> Frame {
        if *self == Frame::IDENTITY {
            return child;
        }
        let p = cm::Pose::new(self.pos, self.quat).accum(cm::Pose::new(child.pos, child.quat));
        Frame {
            pos: p.pos_vec(),
            quat: p.quat_glam(),
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

/// The quaternion of one orientation attribute, computed as MuJoCo's compiler does
/// (`ResolveOrientation`, with the compiler's normalization; see `compile_math`).
fn orientation_of(e: &Elem, key: &str, angles: &AngleSettings) -> Result<DQuat> {
    let q = match key {
        "quat" => {
            let mut q = e.array::<4>("quat")?.unwrap_or([1.0, 0.0, 0.0, 0.0]);
            if cm::normalize(&mut q) < 1e-10 {
                return Err(e.err("quat has zero norm"));
            }
            q
        }
        "axisangle" => {
            let a = e.array::<4>("axisangle")?.unwrap_or_default();
            let mut axis = [a[0], a[1], a[2]];
            if cm::normalize(&mut axis) < 1e-10 {
                return Err(e.err("axisangle axis has zero norm"));
            }
            let half = angles.orientation_rad(a[3]) / 2.0;
            let (sin, cos) = (half.sin(), half.cos());
            [cos, sin * axis[0], sin * axis[1], sin * axis[2]]
        }
        "xyaxes" => {
            let a = e.array::<6>("xyaxes")?.unwrap_or_default();
            let mut x = [a[0], a[1], a[2]];
            if cm::normalize(&mut x) < 1e-10 {
                return Err(e.err("xyaxes: x axis has zero norm"));
            }
            let mut y = [a[3], a[4], a[5]];
            let d = x[0] * y[0] + x[1] * y[1] + x[2] * y[2];
            for k in 0..3 {
                y[k] -= x[k] * d;
            }
            if cm::normalize(&mut y) < 1e-10 {
                return Err(e.err("xyaxes: y axis is parallel to x or zero"));
            }
            let mut z = cm::cross(x, y);
            if cm::normalize(&mut z) < 1e-10 {
                return Err(e.err("xyaxes: y axis is parallel to x or zero"));
            }
            cm::frame_to_quat(x, y, z)
        }
        "zaxis" => {
            let mut z = e.vec3("zaxis")?.unwrap_or(DVec3::Z).to_array();
            if cm::normalize(&mut z) < 1e-10 {
                return Err(e.err("zaxis has zero norm"));
            }
            cm::z_to_quat(z)
        }
        _ => {
            return Ok(euler_quat(
                e.array::<3>("euler")?.unwrap_or_default(),
                angles,
            ))
        }
    };
    Ok(cm::from_wxyz(q))
}

/// Quaternion of Euler angles in the model's unit and sequence: one rotation per axis, each
/// multiplied on the right (lowercase, moving axes) or left (uppercase, fixed axes) with the
/// compiler's normalized product.
pub fn euler_quat(a: [f64; 3], angles: &AngleSettings) -> DQuat {
    let mut q = [1.0, 0.0, 0.0, 0.0];
    for (i, &c) in angles.eulerseq.iter().enumerate() {
        let half = angles.orientation_rad(a[i]) / 2.0;
        let mut r = [half.cos(), 0.0, 0.0, 0.0];
        let k = match c.to_ascii_lowercase() {
            b'x' => 1,
            b'y' => 2,
            _ => 3,
        };
        r[k] = half.sin();
        q = if c.is_ascii_lowercase() {
            cm::mul_quat(q, r)
        } else {
            cm::mul_quat(r, q)
        };
    }
    cm::normalize(&mut q);
    cm::from_wxyz(q)
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
