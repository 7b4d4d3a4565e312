//! The mesh MuJoCo's compiler makes for an SDF plugin (`<mesh><plugin instance=…/></mesh>`):
//! marching cubes over the plugin's box, as `mjCMesh::LoadSDF` and MarchingCubeCpp do it.
//!
//! The field is sampled in `f32` on a grid of about 300 cells along the sum of the box's
//! half-sizes (`n_k = ⌊300·h_k / Σh⌋ + 1` points per axis); every grid edge whose end values
//! differ in sign (`< 0`) gives one vertex, interpolated linearly in `f32`, mapped back to the
//! box and rounded to `f32`, in MarchingCubeCpp's order. Only the vertices are kept: they fix
//! the geom's box, size and bounding sphere, and its convex hull (plane–SDF contacts), which is
//! what collision needs (MuJoCo does not recentre these meshes, so the mesh frame is the
//! plugin's frame). The triangles, used for rendering and mass, are not built.

use glam::{DQuat, DVec3};

use collide::narrow::sdf::SdfPlugin;
use collide::Mesh;

/// Number of grid cells MuJoCo spreads over the sum of the box's half-sizes.
const CELLS: f64 = 300.0;

/// The marching-cubes vertices of `plugin` in the plugin frame, exactly representable as
/// `f32`, and the volume inside the sampled field (each grid cell counted by its fraction of
/// inside corners: the marching-cubes solid's volume to within the cells the surface crosses).
pub fn plugin_mesh_vertices(plugin: &SdfPlugin) -> Result<(Vec<DVec3>, f64), String> {
    let p = *plugin;
    let b = p.aabb();
    let total = b[3] + b[4] + b[5];
    if !(total.is_finite() && total > 0.0 && b[3] > 0.0 && b[4] > 0.0 && b[5] > 0.0) {
        return Err(format!("the SDF plugin's box {b:?} is empty or not finite"));
    }
    let count = |h: f64| (CELLS / total * h).floor() as usize + 1;
    let n = [count(b[3]), count(b[4]), count(b[5])];
    if n.iter().any(|&k| k < 2) {
        return Err(format!("the SDF plugin's box {b:?} is too thin to mesh"));
    }
    // sample point k along axis a: (centre - half) + 2·half·k / (n - 1)
    let coord =
        |a: usize, k: usize| (b[a] - b[3 + a]) + 2.0 * b[3 + a] * k as f64 / (n[a] - 1) as f64;
    let index = |i: usize, j: usize, k: usize| (k * n[1] + j) * n[0] + i;
    let mut field = vec![0f32; n[0] * n[1] * n[2]];
    for k in 0..n[2] {
        for j in 0..n[1] {
            for i in 0..n[0] {
                let x = DVec3::new(coord(0, i), coord(1, j), coord(2, k));
                field[index(i, j, k)] = p.distance(x) as f32;
            }
        }
    }
    // MarchingCubeCpp's emission order (cells z, y, x; each grid edge once, by the cell
    // whose lower corner it leaves from or, on the low faces, the first cell touching it):
    // the order fixes the hull graph MuJoCo's plane–mesh contacts walk.
    let at = |c: [usize; 3]| field[index(c[0], c[1], c[2])];
    let mut vert = Vec::new();
    let cell: f64 = (0..3).map(|a| 2.0 * b[3 + a] / (n[a] - 1) as f64).product();
    let mut inside_corners = 0usize;
    let mut edge = |from: [usize; 3], axis: usize| {
        let mut to = from;
        to[axis] += 1;
        let (va, vb) = (at(from), at(to));
        if (va < 0.0) == (vb < 0.0) {
            return;
        }
        let mut v = [from[0] as f32, from[1] as f32, from[2] as f32];
        v[axis] += va / (va - vb);
        let out: [f64; 3] = std::array::from_fn(|a| {
            let h = b[3 + a];
            (2.0 * h * v[a] as f64 / (n[a] - 1) as f64 + b[a] - h) as f32 as f64
        });
        vert.push(DVec3::from_array(out));
    };
    for z in 0..n[2] - 1 {
        for y in 0..n[1] - 1 {
            for x in 0..n[0] - 1 {
                let corners = [
                    [x, y, z],
                    [x + 1, y, z],
                    [x, y + 1, z],
                    [x + 1, y + 1, z],
                    [x, y, z + 1],
                    [x + 1, y, z + 1],
                    [x, y + 1, z + 1],
                    [x + 1, y + 1, z + 1],
                ];
                let inside = corners.iter().filter(|&&c| at(c) < 0.0).count();
                inside_corners += inside;
                if inside == 0 || inside == 8 {
                    continue;
                }
                let (x0, y0, z0) = (x == 0, y == 0, z == 0);
                for (cond, from, axis) in [
                    (y0 && z0, [x, y, z], 0),
                    (z0, [x, y + 1, z], 0),
                    (y0, [x, y, z + 1], 0),
                    (true, [x, y + 1, z + 1], 0),
                    (x0 && z0, [x, y, z], 1),
                    (z0, [x + 1, y, z], 1),
                    (x0, [x, y, z + 1], 1),
                    (true, [x + 1, y, z + 1], 1),
                    (x0 && y0, [x, y, z], 2),
                    (y0, [x + 1, y, z], 2),
                    (x0, [x, y + 1, z], 2),
                    (true, [x + 1, y + 1, z], 2),
                ] {
                    if cond {
                        edge(from, axis);
                    }
                }
            }
        }
    }
    if vert.is_empty() {
        return Err("the SDF plugin's surface does not cross its box".into());
    }
    Ok((vert, inside_corners as f64 * cell / 8.0))
}

/// The compiled mesh of an SDF plugin: marching-cubes vertices, no faces, mesh frame = plugin
/// frame (`pos` 0, identity `quat`), `aamm` from the vertices. Its volume (the geom's mass) is
/// the sampled field's inside volume, an approximation of MuJoCo's, which integrates the
/// marching-cubes triangles: a lone sdf geom's inertial frame is its own frame either way.
pub fn plugin_mesh(name: &str, plugin: &SdfPlugin) -> Result<Mesh, String> {
    let (vert, volume) = plugin_mesh_vertices(plugin)?;
    let mut aamm = [f64::MAX, f64::MAX, f64::MAX, f64::MIN, f64::MIN, f64::MIN];
    for v in &vert {
        for a in 0..3 {
            aamm[a] = aamm[a].min(v[a]);
            aamm[3 + a] = aamm[3 + a].max(v[a]);
        }
    }
    Ok(Mesh {
        name: name.to_string(),
        vert,
        face: Vec::new(),
        pos: DVec3::ZERO,
        quat: DQuat::IDENTITY,
        aamm,
        boxsz: DVec3::new(
            0.5 * (aamm[3] - aamm[0]),
            0.5 * (aamm[4] - aamm[1]),
            0.5 * (aamm[5] - aamm[2]),
        ),
        volume,
        inertia: DVec3::ZERO,
        hull: None,
        face_bvh: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// MuJoCo 4.0.0 meshes the default torus (0.35, 0.15) into 49896 vertices whose box is
    /// ±0.49995068 (min x, f32) … 0.4999507 (max x) and ±0.14999996 / 0.14999998 in z.
    #[test]
    fn torus_plugin_mesh_matches_mujoco_box() {
        let t = SdfPlugin::Torus {
            radius1: 0.35,
            radius2: 0.15,
        };
        let m = plugin_mesh("torus", &t).unwrap();
        assert_eq!(m.vert.len(), 49896);
        assert_eq!(m.aamm[3], 0.499_950_706_958_770_75);
        assert_eq!(m.aamm[5], 0.149_999_976_158_142_1);
    }
}
