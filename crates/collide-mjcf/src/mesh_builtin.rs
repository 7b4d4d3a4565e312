//! MuJoCo 4.0.0's procedural meshes (`<mesh builtin="..." params="...">`).
//!
//! Each generator returns the user vertices and faces MuJoCo's `mjs_makeMesh` produces for the
//! same parameters, in the same order (matched against `MjSpec.meshes[i].uservert/userface`;
//! MuJoCo computes them in `f32`, so values agree to about 1e-7 before the compiler rounds
//! vertices to `f32`). The mesh compiler then treats them like any inline mesh: a mesh without
//! faces gets the faces of its convex hull.
//!
//! Kinds: `sphere` (icosphere), `hemisphere`, `cone`, `supersphere`, `supertorus`, `wedge`,
//! `plate`. Integer parameters are truncated toward zero as MuJoCo does.

use glam::DVec3;
use std::f64::consts::PI;

use crate::mesh_file::RawMesh;

/// The `builtin` keywords MuJoCo 4.0.0's MJCF parser accepts.
pub const BUILTIN_KINDS: &[&str] = &[
    "none",
    "sphere",
    "hemisphere",
    "cone",
    "supersphere",
    "supertorus",
    "wedge",
    "plate",
    "grid",
    "box",
    "cylinder",
    "ellipsoid",
    "square",
    "disc",
];

/// Generates the builtin mesh `kind` from `params`; errors are MuJoCo's checks, worded as
/// MuJoCo words them (the caller adds the mesh name and location).
pub fn builtin_mesh(kind: &str, params: &[f64]) -> Result<RawMesh, String> {
    if let Some(p) = params.iter().find(|p| !p.is_finite()) {
        return Err(format!("builtin mesh parameter {p} is not finite"));
    }
    let need = |n: usize, what: &str| -> Result<(), String> {
        if params.len() == n {
            Ok(())
        } else {
            Err(format!(
                "{what} mesh type requires {n} parameter{}, got {}",
                if n == 1 { "" } else { "s" },
                params.len()
            ))
        }
    };
    // MuJoCo casts integer parameters with a C cast (truncation toward zero).
    let int = |x: f64| x.trunc();
    match kind {
        "sphere" => {
            need(1, "Sphere")?;
            let s = int(params[0]);
            if s < 0.0 {
                return Err("Sphere subdivision cannot be negative".into());
            }
            if s > 4.0 {
                return Err("Sphere subdivision cannot be greater than 4".into());
            }
            Ok(icosphere(s as usize))
        }
        "hemisphere" => {
            need(1, "Hemisphere")?;
            let r = int(params[0]);
            if r < 0.0 {
                return Err("Hemisphere resolution cannot be negative".into());
            }
            if r > 10.0 {
                return Err("Hemisphere resolution cannot be greater than 10".into());
            }
            Ok(hemisphere(r as usize))
        }
        "cone" => {
            need(2, "Cone")?;
            let n = int(params[0]);
            if n < 3.0 {
                return Err("Cone nvert must be at least 3".into());
            }
            if n > 1e6 {
                return Err(format!("Cone nvert {n} is too large"));
            }
            let r = params[1];
            if !(0.0..=1.0).contains(&r) {
                return Err("Cone radius must be in [0, 1]".into());
            }
            Ok(cone(n as usize, r))
        }
        "supersphere" => {
            need(3, "Supersphere")?;
            let res = int(params[0]);
            if res < 3.0 {
                return Err("Supersphere resolution must be greater than 2".into());
            }
            if res > 1e3 {
                return Err(format!("Supersphere resolution {res} is too large"));
            }
            if params[1] < 0.0 {
                return Err("Supersphere 'e' cannot be negative".into());
            }
            if params[2] < 0.0 {
                return Err("Supersphere 'n' cannot be negative".into());
            }
            Ok(supersphere(res as usize, params[1], params[2]))
        }
        "supertorus" => {
            need(4, "Supertorus")?;
            let res = int(params[0]);
            if res < 3.0 {
                return Err("Supertorus resolution must be greater than 2".into());
            }
            if res > 1e3 {
                return Err(format!("Supertorus resolution {res} is too large"));
            }
            let r = params[1];
            if !(r > 0.0 && r <= 1.0) {
                return Err("Supertorus radius must be in (0, 1]".into());
            }
            if params[2] <= 0.0 {
                return Err("Supertorus 's' must be greater than 0".into());
            }
            if params[3] <= 0.0 {
                return Err("Supertorus 't' must be greater than 0".into());
            }
            Ok(supertorus(res as usize, r, params[2], params[3]))
        }
        "wedge" => {
            need(5, "Wedge")?;
            let (rp, rt) = (int(params[0]), int(params[1]));
            if rp <= 0.0 || rt <= 0.0 {
                return Err("Horizontal and vertical resolutions must be positive".into());
            }
            if rp * rt > 1e6 {
                return Err(format!("wedge resolution {rp} x {rt} is too large"));
            }
            let (fp, ft, gamma) = (params[2], params[3], params[4]);
            if !(fp > 0.0 && fp <= 180.0) {
                return Err("fov[0] must be a float between (0, 180] degrees".into());
            }
            if !(ft > 0.0 && ft <= 90.0) {
                return Err("fov[1] must be a float between (0, 90] degrees".into());
            }
            if !(0.0..=1.0).contains(&gamma) {
                return Err("`gamma` must be a nonnegative float between [0, 1]".into());
            }
            if gamma != 0.0 {
                // MuJoCo's foveal deformation is not reproduced yet (wedges are meant for tactile
                // sensors; their vertices are nearly coplanar and rarely collide).
                return Err("wedge with gamma > 0 (foveal deformation) is not supported".into());
            }
            Ok(wedge(rp as usize, rt as usize, fp, ft))
        }
        "plate" => {
            need(2, "Plate")?;
            let (rx, ry) = (int(params[0]), int(params[1]));
            if rx <= 0.0 || ry <= 0.0 {
                return Err("Horizontal and vertical resolutions must be positive".into());
            }
            // A plate's vertices all lie in one plane: MuJoCo cannot build its convex hull.
            Err("has coplanar vertices, cannot compute convex hull (builtin plate)".into())
        }
        "none" => Err("Unsupported mesh type".into()),
        "grid" | "box" | "cylinder" | "ellipsoid" | "square" | "disc" => Err(format!(
            "builtin '{kind}' (flexcomp-style procedural mesh) is not supported"
        )),
        _ => Err(format!(
            "invalid builtin keyword '{kind}' (expected one of {})",
            BUILTIN_KINDS.join(", ")
        )),
    }
}

/// MuJoCo's signed power `sign(x) |x|^p`.
fn spow(x: f64, p: f64) -> f64 {
    x.abs().powf(p).copysign(x)
}

fn tri(a: usize, b: usize, c: usize) -> [u32; 3] {
    [a as u32, b as u32, c as u32]
}

/// Icosahedron with `s` subdivisions; midpoints are normalised and shared between faces.
fn icosphere(s: usize) -> RawMesh {
    let t = (1.0 + 5f64.sqrt()) / 2.0;
    let base = [
        [-1.0, t, 0.0],
        [1.0, t, 0.0],
        [-1.0, -t, 0.0],
        [1.0, -t, 0.0],
        [0.0, -1.0, t],
        [0.0, 1.0, t],
        [0.0, -1.0, -t],
        [0.0, 1.0, -t],
        [t, 0.0, -1.0],
        [t, 0.0, 1.0],
        [-t, 0.0, -1.0],
        [-t, 0.0, 1.0],
    ];
    let mut vert: Vec<DVec3> = base
        .iter()
        .map(|p| DVec3::from_array(*p).normalize())
        .collect();
    let mut face: Vec<[u32; 3]> = [
        [0, 11, 5],
        [0, 5, 1],
        [0, 1, 7],
        [0, 7, 10],
        [0, 10, 11],
        [1, 5, 9],
        [5, 11, 4],
        [11, 10, 2],
        [10, 7, 6],
        [7, 1, 8],
        [3, 9, 4],
        [3, 4, 2],
        [3, 2, 6],
        [3, 6, 8],
        [3, 8, 9],
        [4, 9, 5],
        [2, 4, 11],
        [6, 2, 10],
        [8, 6, 7],
        [9, 8, 1],
    ]
    .to_vec();
    for _ in 0..s {
        let mut cache = std::collections::HashMap::new();
        let mut next = Vec::with_capacity(face.len() * 4);
        let mut mid = |a: u32, b: u32, vert: &mut Vec<DVec3>| -> u32 {
            *cache.entry((a.min(b), a.max(b))).or_insert_with(|| {
                let p = (vert[a as usize] + vert[b as usize]).normalize();
                vert.push(p);
                (vert.len() - 1) as u32
            })
        };
        for &[a, b, c] in &face {
            let m0 = mid(a, b, &mut vert);
            let m1 = mid(b, c, &mut vert);
            let m2 = mid(c, a, &mut vert);
            next.extend([[a, m0, m2], [b, m1, m0], [c, m2, m1], [m0, m1, m2]]);
        }
        face = next;
    }
    RawMesh { vert, face }
}

/// Octahedron-projected hemisphere: pole, `r + 1` rings of `4k` vertices (ring `k` is the
/// diamond `|x| + |y| = k` at height `r + 1 - k`, normalised), then the centre of the base.
fn hemisphere(r: usize) -> RawMesh {
    const AXES: [[f64; 2]; 4] = [[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0]];
    let mut vert = vec![DVec3::Z];
    let mut rings: Vec<Vec<usize>> = Vec::new();
    for k in 1..=r + 1 {
        let z = (r + 1 - k) as f64;
        let mut ring = Vec::with_capacity(4 * k);
        for q in 0..4 {
            let (a, b) = (AXES[q], AXES[(q + 1) % 4]);
            for i in 0..k {
                let (wa, wb) = ((k - i) as f64, i as f64);
                let p = DVec3::new(a[0] * wa + b[0] * wb, a[1] * wa + b[1] * wb, z);
                vert.push(p.normalize());
                ring.push(vert.len() - 1);
            }
        }
        rings.push(ring);
    }
    vert.push(DVec3::ZERO);
    let centre = vert.len() - 1;
    let mut face = Vec::new();
    let mut prev = vec![0usize];
    for (kin, ring) in rings.iter().enumerate() {
        for q in 0..4 {
            let inner: Vec<usize> = if kin == 0 {
                vec![0]
            } else {
                (0..=kin).map(|i| prev[(q * kin + i) % (4 * kin)]).collect()
            };
            let outer: Vec<usize> = (0..kin + 2)
                .map(|j| ring[(q * (kin + 1) + j) % (4 * (kin + 1))])
                .collect();
            for i in 0..=kin {
                face.push(tri(inner[i], outer[i], outer[i + 1]));
                if i < kin {
                    face.push(tri(inner[i], outer[i + 1], inner[i + 1]));
                }
            }
        }
        prev = ring.clone();
    }
    let n = prev.len();
    for j in 0..n {
        face.push(tri(prev[j], centre, prev[(j + 1) % n]));
    }
    RawMesh { vert, face }
}

/// Unit `n`-gon at z = -1 and the same polygon scaled by `radius` at z = 1 (a single apex when
/// `radius` is 0); no faces (the compiler takes the convex hull).
fn cone(n: usize, radius: f64) -> RawMesh {
    let ring = |r: f64, z: f64| {
        (0..n).map(move |j| {
            let a = 2.0 * PI * j as f64 / n as f64;
            DVec3::new(r * a.cos(), r * a.sin(), z)
        })
    };
    let mut vert: Vec<DVec3> = ring(1.0, -1.0).collect();
    if radius == 0.0 {
        vert.push(DVec3::Z);
    } else {
        vert.extend(ring(radius, 1.0));
    }
    RawMesh { vert, face: vec![] }
}

/// Superellipsoid: south pole, `res - 1` latitude rings of `res` vertices, north pole.
fn supersphere(res: usize, e: f64, n: f64) -> RawMesh {
    let mut vert = vec![DVec3::NEG_Z];
    for i in 1..res {
        let lat = -PI / 2.0 + PI * i as f64 / res as f64;
        for j in 0..res {
            let lon = -PI + 2.0 * PI * j as f64 / res as f64;
            let c = spow(lat.cos(), n);
            vert.push(DVec3::new(
                c * spow(lon.cos(), e),
                c * spow(lon.sin(), e),
                spow(lat.sin(), n),
            ));
        }
    }
    vert.push(DVec3::Z);
    let top = vert.len() - 1;
    let mut face = Vec::new();
    for j in 0..res {
        face.push(tri(0, 1 + (j + 1) % res, 1 + j));
    }
    for i in 0..res - 2 {
        let a = 1 + i * res;
        let b = a + res;
        for j in 0..res {
            let j1 = (j + 1) % res;
            face.push(tri(a + j, a + j1, b + j));
            face.push(tri(a + j1, b + j1, b + j));
        }
    }
    let a = 1 + (res - 2) * res;
    for j in 0..res {
        face.push(tri(a + j, a + (j + 1) % res, top));
    }
    RawMesh { vert, face }
}

/// Supertoroid of major radius 1: vertex `i * res + k` at major angle `2πi/res` and minor
/// angle `2πk/res`.
fn supertorus(res: usize, radius: f64, s: f64, t: f64) -> RawMesh {
    let mut vert = Vec::with_capacity(res * res);
    for i in 0..res {
        let u = 2.0 * PI * i as f64 / res as f64;
        for k in 0..res {
            let w = 2.0 * PI * k as f64 / res as f64;
            let rr = 1.0 + radius * spow(w.cos(), s);
            vert.push(DVec3::new(
                rr * spow(u.cos(), t),
                rr * spow(u.sin(), t),
                radius * spow(w.sin(), s),
            ));
        }
    }
    let mut face = Vec::with_capacity(2 * res * res);
    for i in 0..res {
        let i1 = (i + 1) % res;
        for k in 0..res {
            let k1 = (k + 1) % res;
            let (a, a1, b, b1) = (i * res + k, i * res + k1, i1 * res + k, i1 * res + k1);
            face.push(tri(a, b, a1));
            face.push(tri(b, b1, a1));
        }
    }
    RawMesh { vert, face }
}

/// Cell-centred grid of directions on the unit sphere: horizontal angle in
/// `[-fov_phi, fov_phi]`, vertical in `[-fov_theta, fov_theta]` (degrees); no faces.
fn wedge(rp: usize, rt: usize, fov_phi: f64, fov_theta: f64) -> RawMesh {
    let mut vert = Vec::with_capacity(rp * rt);
    for i in 0..rp {
        let phi = (-fov_phi + (i as f64 + 0.5) * 2.0 * fov_phi / rp as f64).to_radians();
        for j in 0..rt {
            let th = (-fov_theta + (j as f64 + 0.5) * 2.0 * fov_theta / rt as f64).to_radians();
            vert.push(DVec3::new(
                phi.sin() * th.cos(),
                th.sin(),
                -phi.cos() * th.cos(),
            ));
        }
    }
    RawMesh { vert, face: vec![] }
}
