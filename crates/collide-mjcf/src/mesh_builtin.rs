//! MuJoCo 4.0.0's procedural meshes (`<mesh builtin="..." params="...">`).
//!
//! Each generator returns the user vertices and faces MuJoCo's `mjs_makeMesh` produces for the
//! same parameters, in the same order (matched against `MjSpec.meshes[i].uservert/userface`;
//! MuJoCo computes them in `f32`, so values agree to about 1e-7 before the compiler rounds
//! vertices to `f32`). The mesh compiler then treats them like any inline mesh: a mesh without
//! faces gets the faces of its convex hull.
//!
//! Kinds: `sphere` (icosphere), `hemisphere`, `cone`, `supersphere`, `supertorus`, `wedge`
//! (with foveal deformation `gamma`), `plate`, and the lattice kinds shared with `flexcomp`,
//! parameters `count[3] spacing[3] [dim]`: `grid` (planar for dim 2, solid for dim 3), `box`,
//! `cylinder` and `ellipsoid` (solid point sets with their centre for dim 3, open-top surfaces
//! with faces for dim 2), `square` and `disc` (planar, 6 parameters). Integer parameters are
//! truncated toward zero as MuJoCo does.
//!
//! Planar kinds (`plate`, `square`, `disc`, a dim-2 `grid`) compile only as meshes that need no
//! hull (faces given, no collision use): MuJoCo refuses their coplanar vertices otherwise, and
//! the compiler does the same.

use glam::DVec3;
use std::f64::consts::PI;

use crate::mesh_compile::MeshInertia;
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

/// The inertia mode MuJoCo gives a builtin mesh, from the mode the asset and its defaults chose:
/// a plate is always a shell; the lattice kinds that come with faces (planar grids, squares,
/// discs, open-top dim-2 boxes, cylinders and ellipsoids) are shells unless a mode other than
/// `legacy` was chosen.
pub fn builtin_inertia(kind: &str, has_faces: bool, chosen: MeshInertia) -> MeshInertia {
    let lattice = matches!(
        kind,
        "grid" | "box" | "cylinder" | "ellipsoid" | "square" | "disc"
    );
    if kind == "plate" || (lattice && has_faces && chosen == MeshInertia::Legacy) {
        MeshInertia::Shell
    } else {
        chosen
    }
}

/// Largest vertex count a builtin mesh may have (MuJoCo has no limit; this keeps absurd
/// resolutions from exhausting memory).
const MAX_VERTICES: f64 = 1e6;

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
            Ok(wedge(rp as usize, rt as usize, fp, ft, gamma))
        }
        "plate" => {
            need(2, "Plate")?;
            let (rx, ry) = (int(params[0]), int(params[1]));
            if rx <= 0.0 || ry <= 0.0 {
                return Err("Horizontal and vertical resolutions must be positive".into());
            }
            if rx * ry > MAX_VERTICES {
                return Err(format!("plate resolution {rx} x {ry} is too large"));
            }
            Ok(plate(rx as usize, ry as usize))
        }
        "none" => Err("Unsupported mesh type".into()),
        "grid" => {
            let (count, spacing, dim) =
                lattice_params(params, "Grid", "(count[3], spacing[3], [dim])")?;
            if dim != 2 && dim != 3 {
                return Err("Grid dim must be 2 or 3".into());
            }
            if dim == 2 && count[2] != 1 {
                return Err("Grid count must be 1 along dimensions beyond dim".into());
            }
            if count.iter().any(|&c| c <= 0) {
                return Err("Grid count must be positive".into());
            }
            if count[0] < 2 || count[1] < 2 || (dim == 3 && count[2] < 2) {
                return Err("Failed to create grid mesh".into());
            }
            let count = lattice_size(count)?;
            Ok(grid(count, spacing, dim == 3))
        }
        "box" | "cylinder" | "ellipsoid" => {
            let (count, spacing, dim) = lattice_params(
                params,
                "Box/cylinder/ellipsoid",
                "(count[3], spacing[3], [dim])",
            )?;
            if dim != 2 && dim != 3 {
                return Err("Mesh dim must be 2 or 3 for box/cylinder/ellipsoid".into());
            }
            if count.iter().any(|&c| c < 2) {
                return Err("Box/cylinder/ellipsoid count must be at least 2".into());
            }
            let count = lattice_size(count)?;
            let shape = match kind {
                "box" => Lattice::Box,
                "cylinder" => Lattice::Cylinder,
                _ => Lattice::Ellipsoid,
            };
            Ok(if dim == 3 {
                lattice_solid(shape, count, spacing)
            } else {
                lattice_open_surface(shape, count, spacing)
            })
        }
        "square" | "disc" => {
            if params.len() != 6 {
                return Err(format!(
                    "Square/disc mesh type requires 6 parameters (count[3], spacing[3]), got {}",
                    params.len()
                ));
            }
            let (count, spacing, _) =
                lattice_params(params, "Square/disc", "(count[3], spacing[3])")?;
            if count.iter().any(|&c| c <= 0) {
                return Err("Count must be positive".into());
            }
            if count[2] != 1 {
                return Err("Square/disc count[2] must be 1".into());
            }
            if count[0] < 2 || count[1] < 2 {
                return Err("Failed to create square/disc mesh".into());
            }
            let count = lattice_size(count)?;
            Ok(square(count, spacing, kind == "disc"))
        }
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
                vert.push(f32_midpoint_on_sphere(vert[a as usize], vert[b as usize]));
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

/// The normalised sum of two unit vectors in `f32` arithmetic: MuJoCo 4.0.0 builds its
/// builtin sphere in single precision (sum, squared norm summed left to right, `sqrtf`,
/// division), and its midpoints are not the `f64` ones rounded: those were one `f32` ulp off
/// in 122 of the 162 vertices of `scenes/builtin_meshes`'s `ico2`.
fn f32_midpoint_on_sphere(a: DVec3, b: DVec3) -> DVec3 {
    let (a, b) = (a.as_vec3(), b.as_vec3());
    let p = [a.x + b.x, a.y + b.y, a.z + b.z];
    let norm = (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt();
    DVec3::new(
        f64::from(p[0] / norm),
        f64::from(p[1] / norm),
        f64::from(p[2] / norm),
    )
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
/// `radius` is 0); no faces (the compiler takes the convex hull). Vertex `i` of either ring is
/// at the angle `2π i / n`, counting on through the top ring (`i` from `n` to `2n - 1`), as
/// MuJoCo 4.0.0 rounds it: the top ring's first vertex has `y = radius sin 2π`, not 0.
fn cone(n: usize, radius: f64) -> RawMesh {
    let ring = |first: usize, r: f64, z: f64| {
        (first..first + n).map(move |i| {
            let a = 2.0 * PI * i as f64 / n as f64;
            DVec3::new(r * a.cos(), r * a.sin(), z)
        })
    };
    let mut vert: Vec<DVec3> = ring(0, 1.0, -1.0).collect();
    if radius == 0.0 {
        vert.push(DVec3::Z);
    } else {
        vert.extend(ring(n, radius, 1.0));
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
/// `[-fov_phi, fov_phi]`, vertical in `[-fov_theta, fov_theta]` (degrees); no faces. With
/// `gamma > 0` (foveal deformation) the cell edges, as fractions `x` of the field of view, move
/// to `gamma x^5 + (1 - gamma) x` and each direction is at the middle of its moved cell.
///
/// The arithmetic is MuJoCo's (`mjCMesh::MakeWedge`, read from its machine code), which decides
/// the last bits, and so whether the middle cell's coordinates are exactly 0: the `n + 1` cell
/// edges are accumulated, `-1`, `-1 + 2/n`, ... (each the previous plus `2/n`, not `2k/n - 1`);
/// a nonzero `gamma` maps each edge `x` to `pow(x, 5) gamma + x (1 - gamma)`; the edges are then
/// scaled to radians by `fov π / 180`, and a cell's angle is `(e[k + 1] + e[k]) / 2` of the
/// scaled edges. The vertex at cell angles `(φ, θ)` is `(sin φ cos θ, sin θ, -cos θ cos φ)`.
fn wedge(rp: usize, rt: usize, fov_phi: f64, fov_theta: f64, gamma: f64) -> RawMesh {
    // the cell edges of `n` cells across `fov` degrees, in radians
    let edges = |n: usize, fov: f64| {
        let step = 2.0 / n as f64;
        let mut x = -1.0;
        let mut e: Vec<f64> = (0..=n)
            .map(|_| {
                let e = x;
                x += step;
                e
            })
            .collect();
        if gamma != 0.0 {
            for x in &mut e {
                *x = x.powf(5.0) * gamma + *x * (1.0 - gamma);
            }
        }
        let scale = fov * PI / 180.0;
        for x in &mut e {
            *x *= scale;
        }
        e
    };
    let (ep, et) = (edges(rp, fov_phi), edges(rt, fov_theta));
    let mut vert = Vec::with_capacity(rp * rt);
    for i in 0..rp {
        let phi = (ep[i + 1] + ep[i]) * 0.5;
        for j in 0..rt {
            let th = (et[j + 1] + et[j]) * 0.5;
            vert.push(DVec3::new(
                phi.sin() * th.cos(),
                th.sin(),
                -(th.cos() * phi.cos()),
            ));
        }
    }
    RawMesh { vert, face: vec![] }
}

/// `rx × ry` cell-centred grid on the square `[-1, 1]²` at z = -1 (vertex `i * ry + j`), two
/// triangles per grid cell.
fn plate(rx: usize, ry: usize) -> RawMesh {
    let mut vert = Vec::with_capacity(rx * ry);
    for i in 0..rx {
        for j in 0..ry {
            vert.push(DVec3::new(
                -1.0 + (i as f64 + 0.5) * 2.0 / rx as f64,
                -1.0 + (j as f64 + 0.5) * 2.0 / ry as f64,
                -1.0,
            ));
        }
    }
    let mut face = Vec::new();
    for i in 0..rx - 1 {
        for j in 0..ry - 1 {
            let (a, b) = (i * ry + j, (i + 1) * ry + j);
            face.push(tri(a, b, a + 1));
            face.push(tri(b + 1, a + 1, b));
        }
    }
    RawMesh { vert, face }
}

/// Reads the lattice parameters `count[3] spacing[3] [dim]` (6, or 7 unless `what` is the
/// square/disc family, which the caller checks); counts and `dim` are truncated, `dim`
/// defaults to 3.
fn lattice_params(
    params: &[f64],
    what: &str,
    layout: &str,
) -> Result<([i64; 3], DVec3, i64), String> {
    if params.len() != 6 && params.len() != 7 {
        return Err(format!(
            "{what} mesh type requires 6 or 7 parameters {layout}, got {}",
            params.len()
        ));
    }
    // a count beyond i32 overflows MuJoCo's int cast; refuse it as too large instead
    let int = |x: f64| x.trunc().clamp(-1e12, 1e12) as i64;
    let count = [int(params[0]), int(params[1]), int(params[2])];
    let spacing = DVec3::new(params[3], params[4], params[5]);
    let dim = params.get(6).map_or(3, |&d| int(d));
    Ok((count, spacing, dim))
}

/// The checked counts as sizes: at most [`MAX_VERTICES`] lattice points.
fn lattice_size(count: [i64; 3]) -> Result<[usize; 3], String> {
    let n = count.iter().map(|&c| c as f64).product::<f64>();
    if n > MAX_VERTICES {
        return Err(format!(
            "lattice of {} x {} x {} points is too large",
            count[0], count[1], count[2]
        ));
    }
    Ok(count.map(|c| c as usize))
}

/// Position of lattice index `i` of `n` points `spacing` apart, centred on 0.
fn lattice_coord(i: usize, n: usize, spacing: f64) -> f64 {
    spacing * (i as f64 - 0.5 * (n as f64 - 1.0))
}

/// Regular lattice of `count` points `spacing` apart centred on the origin, index
/// `(ix * ny + iy) * nz + iz` (x slowest). `solid`: all three axes, no faces (the compiler takes
/// the hull); otherwise the z = 0 layer (`count[2]` is 1) with two triangles `(a, b, c)`,
/// `(a, c, d)` per cell, counter-clockwise for positive spacings.
fn grid(count: [usize; 3], spacing: DVec3, solid: bool) -> RawMesh {
    let [nx, ny, nz] = count;
    let mut vert = Vec::with_capacity(nx * ny * nz);
    for ix in 0..nx {
        for iy in 0..ny {
            for iz in 0..if solid { nz } else { 1 } {
                vert.push(DVec3::new(
                    lattice_coord(ix, nx, spacing.x),
                    lattice_coord(iy, ny, spacing.y),
                    if solid {
                        lattice_coord(iz, nz, spacing.z)
                    } else {
                        0.0
                    },
                ));
            }
        }
    }
    let face = if solid {
        vec![]
    } else {
        square_faces(&vert, nx, ny, false)
    };
    RawMesh { vert, face }
}

/// Two triangles per cell of an `nx × ny` planar lattice (vertex `ix * ny + iy`), cells in
/// x-major order: `(a, b, c)`, `(a, c, d)` for corners `a = (ix, iy)`, `b = (ix+1, iy)`,
/// `c = (ix+1, iy+1)`, `d = (ix, iy+1)`. With `towards_centre` the other diagonal
/// (`(a, b, d)`, `(b, c, d)`) is used when exactly one coordinate of `a` is negative, so every
/// diagonal points at the centre (MuJoCo's disc).
fn square_faces(vert: &[DVec3], nx: usize, ny: usize, towards_centre: bool) -> Vec<[u32; 3]> {
    let mut face = Vec::with_capacity(2 * (nx - 1) * (ny - 1));
    for ix in 0..nx - 1 {
        for iy in 0..ny - 1 {
            let (a, b) = (ix * ny + iy, (ix + 1) * ny + iy);
            let (c, d) = (b + 1, a + 1);
            let p = vert[a];
            if towards_centre && (p.x < 0.0) != (p.y < 0.0) {
                face.extend([tri(a, b, d), tri(b, c, d)]);
            } else {
                face.extend([tri(a, b, c), tri(a, c, d)]);
            }
        }
    }
    face
}

/// The planar lattice of [`grid`] (`count[2]` is 1); for a disc each point `p` is moved to
/// `L∞(p) · p / |p|` scaled by the half-extents over the largest coordinate, so the square's
/// rings become ellipses.
fn square(count: [usize; 3], spacing: DVec3, disc: bool) -> RawMesh {
    let [nx, ny, _] = count;
    let mut mesh = grid([nx, ny, 1], spacing, false);
    if disc {
        // the diagonals follow the lattice positions (before the projection, which mirrors an
        // axis with negative spacing)
        mesh.face = square_faces(&mesh.vert, nx, ny, true);
        let half = [
            0.5 * spacing.x * (nx as f64 - 1.0),
            0.5 * spacing.y * (ny as f64 - 1.0),
        ];
        for p in &mut mesh.vert {
            let linf = p.x.abs().max(p.y.abs());
            let (x, y) = normalize2(p.x, p.y);
            *p = DVec3::new(x * half[0] * linf, y * half[1] * linf, p.z);
        }
    }
    mesh
}

/// `(x, y)` divided by its norm, unchanged when the norm is below `mjMINVAL`.
fn normalize2(x: f64, y: f64) -> (f64, f64) {
    let n = (x * x + y * y).sqrt();
    if n > 1e-15 {
        (x / n, y / n)
    } else {
        (x, y)
    }
}

/// The surface a box lattice is projected onto.
#[derive(Clone, Copy)]
enum Lattice {
    Box,
    Cylinder,
    Ellipsoid,
}

/// Surface point `(ix, iy, iz)` of a `count` lattice with half-extents `spacing (count-1)/2`:
/// on the box, or pushed out radially to the cylinder (by the point's `L∞` norm in xy) or to
/// the ellipsoid.
fn lattice_point(shape: Lattice, count: [usize; 3], spacing: DVec3, idx: [usize; 3]) -> DVec3 {
    let unit = |k: usize| 2.0 * idx[k] as f64 / (count[k] as f64 - 1.0) - 1.0;
    let mut p = DVec3::new(unit(0), unit(1), unit(2));
    let half = DVec3::new(
        0.5 * spacing.x * (count[0] as f64 - 1.0),
        0.5 * spacing.y * (count[1] as f64 - 1.0),
        0.5 * spacing.z * (count[2] as f64 - 1.0),
    );
    match shape {
        Lattice::Box => {}
        Lattice::Cylinder => {
            let linf = p.x.abs().max(p.y.abs());
            let (x, y) = normalize2(p.x, p.y);
            p = DVec3::new(x * linf, y * linf, p.z);
        }
        Lattice::Ellipsoid => {
            let n = p.length();
            if n > 1e-15 {
                p /= n;
            }
        }
    }
    p * half
}

/// Solid lattice shape (`dim` 3): the centre, then the surface points of the z = min and max
/// faces (x slowest), the rest of the y = min and max faces, the rest of the x = min and max
/// faces; no faces (the compiler takes the hull).
fn lattice_solid(shape: Lattice, count: [usize; 3], spacing: DVec3) -> RawMesh {
    let [nx, ny, nz] = count;
    let pt = |ix, iy, iz| lattice_point(shape, count, spacing, [ix, iy, iz]);
    let mut vert = vec![DVec3::ZERO];
    for iz in [0, nz - 1] {
        for ix in 0..nx {
            for iy in 0..ny {
                vert.push(pt(ix, iy, iz));
            }
        }
    }
    for iy in [0, ny - 1] {
        for ix in 0..nx {
            for iz in 1..nz - 1 {
                vert.push(pt(ix, iy, iz));
            }
        }
    }
    for ix in [0, nx - 1] {
        for iy in 1..ny - 1 {
            for iz in 1..nz - 1 {
                vert.push(pt(ix, iy, iz));
            }
        }
    }
    RawMesh { vert, face: vec![] }
}

/// Open-top surface lattice shape (`dim` 2, MuJoCo's shell without its z = max face): points
/// of the z = min face (x slowest), then the new points of the y = min and max faces (x
/// slowest, z above the bottom), then those of the x = min and max faces; two outward
/// triangles per cell of the bottom, the y faces and the x faces, in that order.
fn lattice_open_surface(shape: Lattice, count: [usize; 3], spacing: DVec3) -> RawMesh {
    let [nx, ny, nz] = count;
    let pt = |ix, iy, iz| lattice_point(shape, count, spacing, [ix, iy, iz]);
    // vertex index of each lattice point on the surface (NONE inside or on the top)
    const NONE: usize = usize::MAX;
    let mut id = vec![NONE; nx * ny * nz];
    let key = |ix: usize, iy: usize, iz: usize| (ix * ny + iy) * nz + iz;
    let mut vert = Vec::new();
    let mut add = |ix: usize, iy: usize, iz: usize, vert: &mut Vec<DVec3>| {
        let k = key(ix, iy, iz);
        if id[k] == NONE {
            id[k] = vert.len();
            vert.push(pt(ix, iy, iz));
        }
    };
    for ix in 0..nx {
        for iy in 0..ny {
            add(ix, iy, 0, &mut vert);
        }
    }
    for iy in [0, ny - 1] {
        for ix in 0..nx {
            for iz in 1..nz {
                add(ix, iy, iz, &mut vert);
            }
        }
    }
    for ix in [0, nx - 1] {
        for iy in 1..ny - 1 {
            for iz in 1..nz {
                add(ix, iy, iz, &mut vert);
            }
        }
    }
    let v = |ix, iy, iz| id[key(ix, iy, iz)];
    let mut face = Vec::new();
    // quad (p00, p10, p11, p01) as two triangles, outward when the corners turn
    // counter-clockwise seen from outside
    let quad = |p: [usize; 4], face: &mut Vec<[u32; 3]>| {
        face.push(tri(p[0], p[1], p[2]));
        face.push(tri(p[0], p[2], p[3]));
    };
    for ix in 0..nx - 1 {
        for iy in 0..ny - 1 {
            let (a, b) = (v(ix, iy, 0), v(ix + 1, iy, 0));
            let (c, d) = (v(ix + 1, iy + 1, 0), v(ix, iy + 1, 0));
            face.extend([tri(a, c, b), tri(a, d, c)]);
        }
    }
    for iy in [0, ny - 1] {
        for ix in 0..nx - 1 {
            for iz in 0..nz - 1 {
                let (p00, p10) = (v(ix, iy, iz), v(ix + 1, iy, iz));
                let (p11, p01) = (v(ix + 1, iy, iz + 1), v(ix, iy, iz + 1));
                if iy == 0 {
                    quad([p00, p10, p11, p01], &mut face);
                } else {
                    quad([p10, p00, p01, p11], &mut face);
                }
            }
        }
    }
    for ix in [0, nx - 1] {
        for iy in 0..ny - 1 {
            for iz in 0..nz - 1 {
                let (p00, p10) = (v(ix, iy, iz), v(ix, iy + 1, iz));
                let (p11, p01) = (v(ix, iy + 1, iz + 1), v(ix, iy, iz + 1));
                if ix == 0 {
                    quad([p10, p00, p01, p11], &mut face);
                } else {
                    quad([p00, p10, p11, p01], &mut face);
                }
            }
        }
    }
    RawMesh { vert, face }
}
