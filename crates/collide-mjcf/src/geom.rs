//! Geom sizes, `fromto`, bounding spheres, local AABBs and mass properties (MuJoCo's
//! `mjCGeom::Compile`, `GetRBound`, `ComputeAABB`, `GetVolume`, `SetInertia`).

use glam::{DQuat, DVec3};

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
    let mut vec = (from - to).to_array();
    let len = crate::compile_math::normalize(&mut vec);
    if len / 2.0 < collide::math::EPS {
        return None;
    }
    let pos = (from + to) / 2.0;
    let quat = crate::compile_math::from_wxyz(crate::compile_math::z_to_quat(vec));
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

/// Half-sizes of the box whose mass and inertia MuJoCo 4.0.0 gives a height-field geom
/// (measured): `size[0] × size[1]` across, `size[2] / 2 + size[3]` high, centred on the geom
/// frame.
pub fn hfield_mass_box(h: &HField) -> DVec3 {
    DVec3::new(h.size[0], h.size[1], 0.5 * (0.5 * h.size[2] + h.size[3]))
}

/// Volume of a geom (MuJoCo's `mjCGeom::GetVolume`, solid geoms): a mesh's compiled volume,
/// 0 for planes and height fields (whose mass comes from [`hfield_mass_box`]).
pub fn volume(t: GeomType, size: DVec3, mesh: Option<&Mesh>) -> f64 {
    use std::f64::consts::PI;
    let r = size.x;
    match t {
        GeomType::Plane | GeomType::HField => 0.0,
        GeomType::Sphere => 4.0 * PI * r * r * r / 3.0,
        GeomType::Capsule => {
            let h = 2.0 * size.y;
            PI * (r * r * h + 4.0 * r * r * r / 3.0)
        }
        GeomType::Cylinder => PI * r * r * (2.0 * size.y),
        GeomType::Ellipsoid => 4.0 * PI * size.x * size.y * size.z / 3.0,
        GeomType::Box => size.x * size.y * size.z * 8.0,
        GeomType::Mesh => mesh.map_or(0.0, |m| m.volume.max(0.0)),
    }
}

/// Principal moments of inertia of a solid geom of mass `mass` in its own frame (MuJoCo's
/// `mjCGeom::SetInertia`, with its operation order: compiled inertial frames depend on the
/// last bits). A mesh geom gets the inertia of its equivalent box `boxsz`.
pub fn inertia(t: GeomType, size: DVec3, mesh: Option<&Mesh>, mass: f64) -> DVec3 {
    let (s0, s1, s2) = (size.x * size.x, size.y * size.y, size.z * size.z);
    match t {
        GeomType::Plane | GeomType::HField => DVec3::ZERO,
        GeomType::Sphere => DVec3::splat(2.0 * mass * s0 / 5.0),
        GeomType::Capsule => {
            let (r, h) = (size.x, 2.0 * size.y);
            // two hemispheres (a sphere) and a cylinder, the hemispheres displaced along z
            let sphere = mass * 4.0 * r / (4.0 * r + 3.0 * h);
            let cyl = mass - sphere;
            let sphere_i = 2.0 * sphere * r * r / 5.0;
            let shift = sphere * h * (3.0 * r + 2.0 * h) / 8.0;
            let ix = cyl * (3.0 * r * r + h * h) / 12.0 + (sphere_i + shift);
            DVec3::new(ix, ix, cyl * r * r / 2.0 + sphere_i)
        }
        GeomType::Cylinder => {
            let (r, h) = (size.x, 2.0 * size.y);
            let ix = mass * (3.0 * r * r + h * h) / 12.0;
            DVec3::new(ix, ix, mass * r * r / 2.0)
        }
        GeomType::Ellipsoid => DVec3::new(
            mass * (s1 + s2) / 5.0,
            mass * (s0 + s2) / 5.0,
            mass * (s0 + s1) / 5.0,
        ),
        GeomType::Box => DVec3::new(
            mass * (s1 + s2) / 3.0,
            mass * (s0 + s2) / 3.0,
            mass * (s0 + s1) / 3.0,
        ),
        GeomType::Mesh => match mesh {
            Some(m) => {
                let b = m.boxsz;
                DVec3::new(
                    mass * (b.y * b.y + b.z * b.z) / 3.0,
                    mass * (b.x * b.x + b.z * b.z) / 3.0,
                    mass * (b.x * b.x + b.y * b.y) / 3.0,
                )
            }
            None => DVec3::ZERO,
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
