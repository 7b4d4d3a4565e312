//! The signed distance functions of MuJoCo 4.0.0's `libsdf_plugin` (`mujoco.sdf.torus`,
//! `bowl`, `nut`, `bolt`, `gear`), evaluated in the geom's SDF frame.
//!
//! Conventions: `distance` is negative inside the solid; `gradient` is the gradient of
//! `distance` (outward where the field is exact). Torus has an analytic gradient; the others
//! use MuJoCo's forward differences with step `1e-8`, because that is what MuJoCo's
//! gradient descent follows.

use glam::DVec3;
use std::f64::consts::PI;

/// Forward-difference step of the plugins without an analytic gradient.
const FD_STEP: f64 = 1e-8;

/// One of the SDF plugins shipped with MuJoCo 4.0.0, with its configuration.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SdfPlugin {
    /// `mujoco.sdf.torus`: a torus about local z, major radius `radius1`, tube radius
    /// `radius2` (defaults 0.35, 0.15).
    Torus {
        /// Distance from the axis to the centre of the tube.
        radius1: f64,
        /// Tube radius.
        radius2: f64,
    },
    /// `mujoco.sdf.bowl`: a spherical shell of `radius` about the origin, cut at
    /// `z = height`, `thickness` thick on each side (defaults 0.4, 1, 0.02).
    Bowl {
        /// Height of the cut above the centre.
        height: f64,
        /// Sphere radius.
        radius: f64,
        /// Half-thickness of the shell.
        thickness: f64,
    },
    /// `mujoco.sdf.nut`: a hexagonal nut with a threaded hole of `radius` (default 0.26).
    Nut {
        /// Thread radius.
        radius: f64,
    },
    /// `mujoco.sdf.bolt`: a hexagonal-headed threaded bolt of `radius` (default 0.255).
    Bolt {
        /// Thread radius.
        radius: f64,
    },
    /// `mujoco.sdf.gear`: an involute spur gear in the x–y plane (defaults: `alpha` 0,
    /// `diameter` 2.8, `teeth` 25, `thickness` 0.2, `innerdiameter` -1 = automatic).
    Gear {
        /// Rotation of the teeth about z, radians.
        alpha: f64,
        /// Pitch diameter.
        diameter: f64,
        /// Number of teeth.
        teeth: f64,
        /// Thickness along z.
        thickness: f64,
        /// Diameter of the bore; negative for `outer - dedendum - 0.14 · diameter`.
        innerdiameter: f64,
    },
}

/// Error building an [`SdfPlugin`] from an MJCF plugin instance.
#[derive(Clone, Debug, PartialEq)]
pub enum SdfPluginError {
    /// The plugin name is not one of the five SDF plugins.
    UnknownPlugin(String),
    /// A `config` value is not a number, or not finite.
    BadConfig {
        /// Config key.
        key: String,
        /// The value given.
        value: String,
    },
    /// A `config` key the plugin does not have (MuJoCo 4.0.0 refuses the model).
    UnknownKey {
        /// The plugin's name.
        plugin: String,
        /// The key given.
        key: String,
    },
    /// Values the plugin refuses at initialisation: a bowl whose `height` exceeds its
    /// `radius` in magnitude (MuJoCo's "Invalid height or radius in Bowl plugin").
    Invalid(&'static str),
}

impl std::fmt::Display for SdfPluginError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SdfPluginError::UnknownPlugin(p) => write!(
                f,
                "unknown SDF plugin '{p}' (known: mujoco.sdf.torus, bowl, nut, bolt, gear)"
            ),
            SdfPluginError::BadConfig { key, value } => {
                write!(f, "config '{key}' = '{value}' is not a finite number")
            }
            SdfPluginError::UnknownKey { plugin, key } => {
                let keys = SdfPlugin::config_keys(plugin).unwrap_or(&[]).join(", ");
                write!(
                    f,
                    "unknown config key '{key}' for {plugin} (its keys: {keys})"
                )
            }
            SdfPluginError::Invalid(why) => f.write_str(why),
        }
    }
}

impl std::error::Error for SdfPluginError {}

impl SdfPlugin {
    /// The `config` keys of the plugin named `plugin` (`mujoco.sdf.torus`, …), in MuJoCo's
    /// order; `None` for a name that is not one of the five.
    pub fn config_keys(plugin: &str) -> Option<&'static [&'static str]> {
        Some(match plugin {
            "mujoco.sdf.torus" => &["radius1", "radius2"],
            "mujoco.sdf.bowl" => &["height", "radius", "thickness"],
            "mujoco.sdf.nut" | "mujoco.sdf.bolt" => &["radius"],
            "mujoco.sdf.gear" => &["alpha", "diameter", "teeth", "thickness", "innerdiameter"],
            _ => return None,
        })
    }

    /// Builds a plugin from its MJCF name (`mujoco.sdf.torus`, …) and `config` key/value
    /// pairs, as MuJoCo 4.0.0 does: a missing key, or an empty (all-blank) value, takes the
    /// default; a key the plugin does not have is an error, as is a bowl with
    /// `|height| > radius`. (Repeated keys are the MJCF reader's to refuse.)
    pub fn from_config(plugin: &str, config: &[(String, String)]) -> Result<Self, SdfPluginError> {
        let keys = Self::config_keys(plugin)
            .ok_or_else(|| SdfPluginError::UnknownPlugin(plugin.to_string()))?;
        if let Some((k, _)) = config.iter().find(|(k, _)| !keys.contains(&k.as_str())) {
            return Err(SdfPluginError::UnknownKey {
                plugin: plugin.to_string(),
                key: k.clone(),
            });
        }
        let get = |key: &str, default: f64| -> Result<f64, SdfPluginError> {
            match config.iter().rev().find(|(k, _)| k == key) {
                Some((_, v)) if !v.trim().is_empty() => match v.trim().parse::<f64>() {
                    Ok(x) if x.is_finite() => Ok(x),
                    _ => Err(SdfPluginError::BadConfig {
                        key: key.to_string(),
                        value: v.to_string(),
                    }),
                },
                _ => Ok(default),
            }
        };
        Ok(match plugin {
            "mujoco.sdf.torus" => SdfPlugin::Torus {
                radius1: get("radius1", 0.35)?,
                radius2: get("radius2", 0.15)?,
            },
            "mujoco.sdf.bowl" => {
                let (height, radius) = (get("height", 0.4)?, get("radius", 1.0)?);
                if radius * radius < height * height {
                    return Err(SdfPluginError::Invalid(
                        "invalid bowl: |height| exceeds radius (MuJoCo refuses it)",
                    ));
                }
                SdfPlugin::Bowl {
                    height,
                    radius,
                    thickness: get("thickness", 0.02)?,
                }
            }
            "mujoco.sdf.nut" => SdfPlugin::Nut {
                radius: get("radius", 0.26)?,
            },
            "mujoco.sdf.bolt" => SdfPlugin::Bolt {
                radius: get("radius", 0.255)?,
            },
            "mujoco.sdf.gear" => SdfPlugin::Gear {
                alpha: get("alpha", 0.0)?,
                diameter: get("diameter", 2.8)?,
                teeth: get("teeth", 25.0)?,
                thickness: get("thickness", 0.2)?,
                innerdiameter: get("innerdiameter", -1.0)?,
            },
            other => return Err(SdfPluginError::UnknownPlugin(other.to_string())),
        })
    }

    /// The plugin's box `[centre; half-sizes]` in the SDF frame (`sdf_aabb`), the region
    /// MuJoCo's compiler samples for the plugin's mesh.
    pub fn aabb(&self) -> [f64; 6] {
        match *self {
            SdfPlugin::Torus { radius1, radius2 } => {
                [0.0, 0.0, 0.0, radius1 + radius2, radius1 + radius2, radius2]
            }
            SdfPlugin::Bowl {
                radius, thickness, ..
            } => {
                let h = radius + thickness;
                [0.0, 0.0, 0.0, h, h, h]
            }
            SdfPlugin::Nut { .. } | SdfPlugin::Bolt { .. } => [0.0, 0.0, 0.0, 0.6, 0.6, 1.0],
            SdfPlugin::Gear {
                diameter,
                thickness,
                ..
            } => {
                let r = diameter / 2.0 * 1.25;
                [0.0, 0.0, 0.0, r, r, thickness / 2.0 * 1.1]
            }
        }
    }

    /// Signed distance at `p` (SDF frame; negative inside).
    pub fn distance(&self, p: DVec3) -> f64 {
        match *self {
            SdfPlugin::Torus { radius1, radius2 } => {
                let q = (p.x * p.x + p.y * p.y).sqrt() - radius1;
                (q * q + p.z * p.z).sqrt() - radius2
            }
            SdfPlugin::Bowl {
                height,
                radius,
                thickness,
            } => bowl(p, height, radius, thickness),
            SdfPlugin::Nut { radius } => nut(p, radius),
            SdfPlugin::Bolt { radius } => bolt(p, radius),
            SdfPlugin::Gear {
                alpha,
                diameter,
                teeth,
                thickness,
                innerdiameter,
            } => extrusion(
                p,
                gear_2d(p, alpha, diameter, teeth, innerdiameter),
                thickness / 2.0,
            ),
        }
    }

    /// Gradient of [`SdfPlugin::distance`] at `p`, as the plugin computes it.
    pub fn gradient(&self, p: DVec3) -> DVec3 {
        match *self {
            SdfPlugin::Torus { radius1, .. } => {
                let len_xy = (p.x * p.x + p.y * p.y).sqrt();
                let q = len_xy - radius1;
                let (gx, gy) = (p.x / len_xy, p.y / len_xy);
                let len_qz = (q * q + p.z * p.z).sqrt().max(crate::math::MINVAL);
                DVec3::new(q * gx / len_qz, q * gy / len_qz, p.z / len_qz)
            }
            _ => {
                let d0 = self.distance(p);
                let dx = self.distance(DVec3::new(p.x + FD_STEP, p.y, p.z));
                let dy = self.distance(DVec3::new(p.x, p.y + FD_STEP, p.z));
                let dz = self.distance(DVec3::new(p.x, p.y, p.z + FD_STEP));
                DVec3::new(
                    (dx - d0) / FD_STEP,
                    (dy - d0) / FD_STEP,
                    (dz - d0) / FD_STEP,
                )
            }
        }
    }
}

fn union(a: f64, b: f64) -> f64 {
    a.min(b)
}

fn intersection(a: f64, b: f64) -> f64 {
    a.max(b)
}

fn subtraction(a: f64, b: f64) -> f64 {
    a.max(-b)
}

fn fract(x: f64) -> f64 {
    x - x.floor()
}

fn bowl(p: DVec3, height: f64, radius: f64, thick: f64) -> f64 {
    let width = (radius * radius - height * height).sqrt();
    let q0 = (p.x * p.x + p.y * p.y).sqrt();
    let q1 = p.z;
    let d = if height * q0 < width * q1 {
        let (a, b) = (q0 - width, q1 - height);
        (a * a + b * b).sqrt()
    } else {
        ((q0 * q0 + q1 * q1).sqrt() - radius).abs()
    };
    d - thick
}

/// The rotated hexagon of the nut's and bolt's head, and the helical thread term shared by
/// both: returns `(radial distance to the thread, hexagonal head)`.
fn thread_and_head(p: DVec3, radius_attr: f64) -> (f64, f64, f64) {
    let screw = 12.0;
    let radius = (p.x * p.x + p.y * p.y).sqrt() - radius_attr;
    let sqrt12 = 2f64.sqrt() / 2.0;
    let azimuth = p.y.atan2(p.x);
    let triangle = (fract(p.z * screw - azimuth / PI / 2.0) - 0.5).abs();
    let thread = (radius - triangle / screw) * sqrt12;

    let k = 6.0 / PI / 2.0;
    let angle = -(p.y.atan2(p.x) * k + 0.5).floor() / k;
    let s = [angle.sin(), (angle + PI * 0.5).sin()];
    // rows (s1, -s0), (s0, s1)
    let res0 = s[1] * p.x + -s[0] * p.y;
    let mut head = res0 - 0.5;
    head = intersection(head, (p.z + 0.25).abs() - 0.25);
    head = intersection(head, (p.z + radius - 0.22) * sqrt12);
    (radius, thread, head)
}

fn nut(p: DVec3, radius_attr: f64) -> f64 {
    let sqrt12 = 2f64.sqrt() / 2.0;
    let (radius2, thread2, head) = thread_and_head(p, radius_attr);
    let cone2 = (p.z - radius2) * sqrt12;
    let mut hole = subtraction(thread2, cone2 + 0.5 * sqrt12);
    hole = union(hole, -cone2 - 0.05 * sqrt12);
    subtraction(head, hole)
}

fn bolt(p: DVec3, radius_attr: f64) -> f64 {
    let sqrt12 = 2f64.sqrt() / 2.0;
    let (radius, thread, head) = thread_and_head(p, radius_attr);
    let mut body = subtraction(thread, 0.5 - (p.z + 0.5).abs());
    let cone = (p.z - radius) * sqrt12;
    body = subtraction(body, cone + sqrt12);
    union(body, head)
}

fn smooth_union(a: f64, b: f64, k: f64) -> f64 {
    let h = (0.5 + 0.5 * (b - a) / k).clamp(0.0, 1.0);
    b * (1.0 - h) + a * h - k * h * (1.0 - h)
}

fn smooth_intersection(a: f64, b: f64, k: f64) -> f64 {
    subtraction(
        intersection(a, b),
        smooth_union(subtraction(a, b), subtraction(b, a), k),
    )
}

fn extrusion(p: DVec3, sdf_2d: f64, h: f64) -> f64 {
    let w = [sdf_2d, p.z.abs() - h];
    let (a, b) = (w[0].max(0.0), w[1].max(0.0));
    w[0].max(w[1]).min(0.0) + (a * a + b * b).sqrt()
}

fn modulo(x: f64, y: f64) -> f64 {
    x - y * (x / y).floor()
}

/// The gear's cross-section distance (an involute profile after Quilez's shadertoy 3lG3WR).
fn gear_2d(p: DVec3, alpha: f64, d: f64, n: f64, innerdiameter: f64) -> f64 {
    let psi = 3.096e-5 * n * n - 6.557e-3 * n + 0.551;
    let r = d / 2.0;
    let rho = (p.x * p.x + p.y * p.y).sqrt();
    let pd = n / d;
    let circular_pitch = PI / pd;
    let a = 1.0 / pd;
    let ro = (d + 2.0 * a) / 2.0;
    let h = 2.2 / pd;
    let mut inner_r = ro - h - 0.14 * d;
    if innerdiameter >= 0.0 {
        inner_r = innerdiameter / 2.0;
    }
    if inner_r - rho > 0.0 {
        return inner_r - rho;
    }
    if ro - rho < -0.2 {
        return rho - ro;
    }
    let rb = d * psi.cos() / 2.0;
    let fi = p.y.atan2(p.x) + alpha;
    let alpha_stride = circular_pitch / r;
    let inv_alpha = (rb / r).acos();
    let inv_phi = inv_alpha.tan() - inv_alpha;
    let shift = alpha_stride / 2.0 - 2.0 * inv_phi;
    let fia = modulo(fi + shift / 2.0, alpha_stride) - shift / 2.0;
    let fib = modulo(-fi - shift + shift / 2.0, alpha_stride) - shift / 2.0;
    let (mut dista, mut distb) = (-1.0e6, -1.0e6);
    if rb < rho {
        let acos_rb_rho = (rb / rho).acos();
        let ta = (rho * rho - rb * rb).sqrt();
        dista = ta - rb * (fia + acos_rb_rho);
        distb = ta - rb * (fib + acos_rb_rho);
    }
    let gear_outer = rho - ro;
    let gear_low_base = rho - (ro - h);
    let crown_base = rho - inner_r;
    let mut cogs = intersection(dista, distb);
    let base_walls = intersection(fia - (alpha_stride - shift), fib - (alpha_stride - shift));
    cogs = intersection(base_walls, cogs);
    cogs = smooth_intersection(gear_outer, cogs, 0.0035 * d);
    cogs = smooth_union(gear_low_base, cogs, rb - ro + h);
    subtraction(cogs, crown_base)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn torus_distance_by_hand() {
        let t = SdfPlugin::Torus {
            radius1: 0.35,
            radius2: 0.15,
        };
        // on the tube's centre circle: -radius2; at the origin: radius1 - radius2
        assert!((t.distance(DVec3::new(0.35, 0.0, 0.0)) + 0.15).abs() < 1e-15);
        assert!((t.distance(DVec3::ZERO) - 0.2).abs() < 1e-15);
        // above the tube: sqrt(0.3² ) - 0.15
        let p = DVec3::new(0.0, 0.35, 0.3);
        assert!((t.distance(p) - 0.15).abs() < 1e-15);
        // gradient points away from the tube centre
        let g = t.gradient(DVec3::new(0.6, 0.0, 0.0));
        assert!((g - DVec3::X).length() < 1e-15);
        let g = t.gradient(p);
        assert!((g - DVec3::Z).length() < 1e-15);
    }

    #[test]
    fn bowl_distance_by_hand() {
        let b = SdfPlugin::Bowl {
            height: 0.4,
            radius: 1.0,
            thickness: 0.02,
        };
        // bottom of the shell: |1 - 1| - 0.02; the centre: |0 - 1| - 0.02
        assert!((b.distance(DVec3::new(0.0, 0.0, -1.0)) + 0.02).abs() < 1e-15);
        assert!((b.distance(DVec3::ZERO) - 0.98).abs() < 1e-15);
        // above the rim (width 0.9165…, height 0.4): distance to the rim circle
        let w = (1.0f64 - 0.16).sqrt();
        let p = DVec3::new(w, 0.0, 0.9);
        assert!((b.distance(p) - (0.5 - 0.02)).abs() < 1e-12);
        // the gradient at the inner bottom points up (towards the centre), to 1e-6
        let g = b.gradient(DVec3::new(0.0, 0.0, -0.9));
        assert!((g - DVec3::Z).length() < 1e-6, "{g}");
    }

    #[test]
    fn config_defaults_and_errors() {
        let cfg = |k: &str, v: &str| vec![(k.to_string(), v.to_string())];
        assert_eq!(
            SdfPlugin::from_config("mujoco.sdf.torus", &cfg("radius2", "0.1")).unwrap(),
            SdfPlugin::Torus {
                radius1: 0.35,
                radius2: 0.1
            }
        );
        assert!(matches!(
            SdfPlugin::from_config("mujoco.sdf.gear", &[]),
            Ok(SdfPlugin::Gear { teeth, .. }) if teeth == 25.0
        ));
        assert!(SdfPlugin::from_config("mujoco.sdf.nut", &cfg("radius", "nan")).is_err());
        assert!(SdfPlugin::from_config("mujoco.sdf.cow", &[]).is_err());
    }
}
