//! The mesh MuJoCo's compiler makes for an SDF plugin (`<mesh><plugin instance=…/></mesh>`):
//! marching cubes over the plugin's box, as `mjCMesh::LoadSDF` and MarchingCubeCpp do it.
//!
//! The field is sampled in `f32` on a grid of about 300 cells along the sum of the box's
//! half-sizes (`n_k = ⌊300·h_k / Σh⌋ + 1` points per axis); every grid edge whose end values
//! differ in sign (`< 0`) gives one vertex, interpolated linearly in `f32`, mapped back to the
//! box and rounded to `f32`. Only the vertices are kept: they fix the geom's box, size and
//! bounding sphere, which is what collision needs (MuJoCo does not recentre these meshes, so
//! the mesh frame is the plugin's frame). The triangles, used for rendering and mass, are not
//! built.

use glam::{DQuat, DVec3};

use collide::narrow::sdf::SdfPlugin;
use collide::Mesh;

/// Number of grid cells MuJoCo spreads over the sum of the box's half-sizes.
const CELLS: f64 = 300.0;

/// The marching-cubes vertices of `plugin` in the plugin frame, exactly representable as
/// `f32`.
pub fn plugin_mesh_vertices(plugin: &SdfPlugin) -> Result<Vec<DVec3>, String> {
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
    let mut vert = Vec::new();
    for k in 0..n[2] {
        for j in 0..n[1] {
            for i in 0..n[0] {
                let va = field[index(i, j, k)];
                let cell = [i, j, k];
                for axis in 0..3 {
                    let mut next = cell;
                    next[axis] += 1;
                    if next[axis] >= n[axis] {
                        continue;
                    }
                    let vb = field[index(next[0], next[1], next[2])];
                    if (va < 0.0) == (vb < 0.0) {
                        continue;
                    }
                    let mut v = [i as f32, j as f32, k as f32];
                    v[axis] += va / (va - vb);
                    let out: [f64; 3] = std::array::from_fn(|a| {
                        let h = b[3 + a];
                        (2.0 * h * v[a] as f64 / (n[a] - 1) as f64 + b[a] - h) as f32 as f64
                    });
                    vert.push(DVec3::from_array(out));
                }
            }
        }
    }
    if vert.is_empty() {
        return Err("the SDF plugin's surface does not cross its box".into());
    }
    Ok(vert)
}

/// The compiled mesh of an SDF plugin: marching-cubes vertices, no faces, mesh frame = plugin
/// frame (`pos` 0, identity `quat`), `aamm` from the vertices.
pub fn plugin_mesh(name: &str, plugin: &SdfPlugin) -> Result<Mesh, String> {
    let vert = plugin_mesh_vertices(plugin)?;
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
        volume: 0.0,
        inertia: DVec3::ZERO,
        hull: None,
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
