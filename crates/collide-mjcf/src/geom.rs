//! Geom sizes, `fromto`, bounding spheres, local AABBs and mass properties (MuJoCo's
//! `mjCGeom::Compile`, `GetRBound`, `ComputeAABB`, `GetVolume`, `SetInertia`).

use glam::{DQuat, DVec3};

use collide::math::z_to_quat;
use collide::{GeomType, HField, Mesh};

/// Number of size parameters each type requires to be positive (MuJoCo's `mjGEOMINFO`).
pub fn required_sizes(t: GeomType) -> usize {
    match t {
        GeomType::Plane | GeomType::HField | GeomType::Mesh => 0,
        GeomType::Sphere => 1,
        GeomType::Capsule | GeomType::Cylinder => 2,
        GeomType::Ellipsoid | GeomType::Box => 3,
    }
}

/// Applies `fromto` = (from, to): returns (pos, quat, size). `None` if the points coincide.
pub fn apply_fromto(t: GeomType, fromto: [f64; 6], size: DVec3) -> Option<(DVec3, DQuat, DVec3)> {
    let from = DVec3::new(fromto[0], fromto[1], fromto[2]);
    let to = DVec3::new(fromto[3], fromto[4], fromto[5]);
    let vec = from - to;
    let len = vec.length();
    if len < collide::math::EPS {
        return None;
    }
    let pos = 0.5 * (from + to);
    let quat = z_to_quat(vec / len);
    let size = match t {
        GeomType::Box | GeomType::Ellipsoid => DVec3::new(size.x, size.x, 0.5 * len),
        _ => DVec3::new(size.x, 0.5 * len, size.z),
    };
    Some((pos, quat, size))
}

/// Bounding-sphere radius about the geom centre (0 for planes).
pub fn rbound(t: GeomType, size: DVec3, mesh: Option<&Mesh>, hfield: Option<&HField>) -> f64 {
    match t {
        GeomType::Plane => 0.0,
        GeomType::HField => {
            let s = hfield.map(|h| h.size).unwrap_or_default();
            (s[0] * s[0] + s[1] * s[1] + s[2].max(s[3]).powi(2)).sqrt()
        }
        GeomType::Sphere => size.x,
        GeomType::Capsule => size.x + size.y,
        GeomType::Cylinder => (size.x * size.x + size.y * size.y).sqrt(),
        GeomType::Ellipsoid => size.max_element(),
        GeomType::Box => size.length(),
        GeomType::Mesh => {
            let a = mesh.map(|m| m.aamm).unwrap_or_default();
            DVec3::new(
                a[0].abs().max(a[3].abs()),
                a[1].abs().max(a[4].abs()),
                a[2].abs().max(a[5].abs()),
            )
            .length()
        }
    }
}

/// Local AABB `[centre; half-sizes]` in the geom frame.
pub fn aabb(t: GeomType, size: DVec3, mesh: Option<&Mesh>, hfield: Option<&HField>) -> [f64; 6] {
    match t {
        GeomType::Plane => [0.0, 0.0, -5e9, 1e10, 1e10, 5e9],
        GeomType::HField => {
            let s = hfield.map(|h| h.size).unwrap_or_default();
            [
                0.0,
                0.0,
                0.5 * (s[2] - s[3]),
                s[0],
                s[1],
                0.5 * (s[2] + s[3]),
            ]
        }
        GeomType::Sphere => [0.0, 0.0, 0.0, size.x, size.x, size.x],
        GeomType::Capsule => [0.0, 0.0, 0.0, size.x, size.x, size.x + size.y],
        GeomType::Cylinder => [0.0, 0.0, 0.0, size.x, size.x, size.y],
        GeomType::Ellipsoid | GeomType::Box => [0.0, 0.0, 0.0, size.x, size.y, size.z],
        GeomType::Mesh => {
            let a = mesh.map(|m| m.aamm).unwrap_or_default();
            [
                0.5 * (a[0] + a[3]),
                0.5 * (a[1] + a[4]),
                0.5 * (a[2] + a[5]),
                0.5 * (a[3] - a[0]),
                0.5 * (a[4] - a[1]),
                0.5 * (a[5] - a[2]),
            ]
        }
    }
}

/// Size of a mesh geom: per-axis maximum of `|aamm|`.
pub fn mesh_size(mesh: &Mesh) -> DVec3 {
    let a = mesh.aamm;
    DVec3::new(
        a[0].abs().max(a[3].abs()),
        a[1].abs().max(a[4].abs()),
        a[2].abs().max(a[5].abs()),
    )
}

/// Volume and principal moments of inertia per unit mass, in the geom frame.
pub fn mass_properties(t: GeomType, size: DVec3, mesh: Option<&Mesh>) -> (f64, DVec3) {
    use std::f64::consts::PI;
    let (r, h) = (size.x, size.y);
    match t {
        GeomType::Plane | GeomType::HField => (0.0, DVec3::ZERO),
        GeomType::Sphere => (4.0 / 3.0 * PI * r.powi(3), DVec3::splat(0.4 * r * r)),
        GeomType::Capsule => {
            let vc = PI * r * r * 2.0 * h;
            let vs = 4.0 / 3.0 * PI * r.powi(3);
            let v = vc + vs;
            // cylinder plus two hemispheres, per unit mass
            let mc = vc / v;
            let ms = vs / v;
            let hh = 2.0 * h;
            let iz = mc * r * r / 2.0 + ms * 0.4 * r * r;
            let ix =
                mc * (r * r / 4.0 + hh * hh / 12.0) + ms * (0.4 * r * r + h * h + 0.75 * r * h);
            (v, DVec3::new(ix, ix, iz))
        }
        GeomType::Cylinder => {
            let v = PI * r * r * 2.0 * h;
            let ix = (3.0 * r * r + 4.0 * h * h) / 12.0;
            (v, DVec3::new(ix, ix, r * r / 2.0))
        }
        GeomType::Ellipsoid => {
            let v = 4.0 / 3.0 * PI * size.x * size.y * size.z;
            let s2 = size * size;
            (v, DVec3::new(s2.y + s2.z, s2.x + s2.z, s2.x + s2.y) / 5.0)
        }
        GeomType::Box => {
            let v = 8.0 * size.x * size.y * size.z;
            let s2 = size * size;
            (v, DVec3::new(s2.y + s2.z, s2.x + s2.z, s2.x + s2.y) / 3.0)
        }
        GeomType::Mesh => match mesh {
            Some(m) if m.volume > 0.0 => (m.volume, m.inertia / m.volume),
            _ => (0.0, DVec3::ZERO),
        },
    }
}

/// Fits a primitive of type `t` to a mesh (MuJoCo's `FitGeom`): returns the size and the
/// offset of the primitive's centre in the mesh frame.
pub fn fit_to_mesh(t: GeomType, mesh: &Mesh, fitaabb: bool, fitscale: f64) -> (DVec3, DVec3) {
    let a = mesh.aamm;
    let (size, center) = if fitaabb {
        let half = DVec3::new(a[3] - a[0], a[4] - a[1], a[5] - a[2]) * 0.5;
        let cen = DVec3::new(a[3] + a[0], a[4] + a[1], a[5] + a[2]) * 0.5;
        let s = match t {
            GeomType::Sphere => DVec3::new(half.max_element(), 0.0, 0.0),
            GeomType::Capsule => {
                let r = half.x.max(half.y);
                DVec3::new(r, (half.z - r).max(0.0), 0.0)
            }
            GeomType::Cylinder => DVec3::new(half.x.max(half.y), half.z, 0.0),
            _ => half,
        };
        (s, cen)
    } else {
        let b = mesh.boxsz;
        let s = match t {
            GeomType::Sphere => DVec3::new((b.x + b.y + b.z) / 3.0, 0.0, 0.0),
            GeomType::Capsule => {
                let r = (b.x + b.y) / 2.0;
                DVec3::new(r, (b.z - r / 2.0).max(0.0), 0.0)
            }
            GeomType::Cylinder => DVec3::new((b.x + b.y) / 2.0, b.z, 0.0),
            _ => b,
        };
        (s, DVec3::ZERO)
    };
    (size * fitscale, center)
}
