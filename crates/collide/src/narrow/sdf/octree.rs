//! The distance field of a mesh-backed sdf geom (`<geom type="sdf" mesh="…"/>`): MuJoCo
//! 4.0.0's octree with trilinear interpolation (`oct_distance`, `oct_gradient`).
//!
//! The octree lives in the mesh frame (the geom frame of the sdf geom). Every node stores its
//! box as `[centre; half-sizes]`, its eight children (`-1` for a leaf; child `4z + 2y + x`
//! holds the upper half along each axis whose bit is set) and the field at its eight corners
//! (corner `4z + 2y + x` likewise). Inside the root box the distance is the trilinear
//! interpolation of the corner values of the leaf holding the point, and the gradient is that
//! interpolant's exact gradient. Outside, the point is first moved into the root box (to 1e-6
//! inside its nearest face, edge or corner), the interpolated value there is increased by the
//! distance moved, and the gradient is a forward finite difference of that distance (step
//! 1e-8). The octree is built by the compiler (`collide_mjcf`), never here.
//!
//! MuJoCo 4.0.0 divides the interpolant's gradient by the leaf's edge lengths (a true
//! gradient), measured bit for bit through its exported `mjc_gradient`: the published sources
//! omit it, which changes the direction in non-cubic leaves.

use glam::DVec3;

/// A mesh's octree distance field, in MuJoCo's `oct_*` layout (node 0 is the root).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Octree {
    /// Children of each node (`-1` for none: a leaf has none).
    pub child: Vec<[i32; 8]>,
    /// Box of each node: centre then half-sizes, in the mesh frame.
    pub aabb: Vec<[f64; 6]>,
    /// Signed distance at each node's eight corners (negative inside the mesh).
    pub coeff: Vec<[f64; 8]>,
    /// Depth of each node (0 for the root).
    pub depth: Vec<u32>,
}

/// MuJoCo's `boxProjection`: moves `p` into `b` (`[centre; half-sizes]`) when outside, 1e-6
/// past each violated face, and returns the distance to the box (or, inside, the largest
/// `|p - centre| - half-size`, which is not positive).
fn box_projection(p: &mut DVec3, b: &[f64; 6]) -> f64 {
    const EPS: f64 = 1e-6;
    let r = DVec3::new(p.x - b[0], p.y - b[1], p.z - b[2]);
    let q = DVec3::new(r.x.abs() - b[3], r.y.abs() - b[4], r.z.abs() - b[5]);
    if q.x <= 0.0 && q.y <= 0.0 && q.z <= 0.0 {
        return q.x.max(q.y.max(q.z));
    }
    let mut dist_sqr = 0.0;
    for i in 0..3 {
        if q[i] >= 0.0 {
            dist_sqr += q[i] * q[i];
            p[i] -= if r[i] > 0.0 {
                q[i] + EPS
            } else {
                -(q[i] + EPS)
            };
        }
    }
    dist_sqr.sqrt()
}

/// Trilinear weight of corner `j` at normalised coordinates `c` in `[0, 1]³`.
fn weight(j: usize, c: DVec3) -> f64 {
    let f = |bit: usize, t: f64| if j & bit != 0 { t } else { 1.0 - t };
    f(1, c.x) * f(2, c.y) * f(4, c.z)
}

/// Gradient of [`weight`] in a leaf of edge lengths `size`, in MuJoCo's operation order
/// (`(±1 / size) · (product of the other two factors)`).
fn weight_gradient(j: usize, c: DVec3, size: DVec3) -> DVec3 {
    let f = |bit: usize, t: f64| if j & bit != 0 { t } else { 1.0 - t };
    let s = |bit: usize| if j & bit != 0 { 1.0 } else { -1.0 };
    DVec3::new(
        s(1) / size.x * (f(2, c.y) * f(4, c.z)),
        s(2) / size.y * (f(1, c.x) * f(4, c.z)),
        s(4) / size.z * (f(1, c.x) * f(2, c.y)),
    )
}

impl Octree {
    /// The leaf holding `p` (a point inside the root box), `p`'s normalised coordinates in it
    /// and the leaf's edge lengths (MuJoCo's `findOct`: children by `coord < 0.5`, boxes
    /// tested with a 1e-8 slack). `None` for an empty octree or a point outside every box.
    fn find_leaf(&self, p: DVec3) -> Option<(usize, DVec3, DVec3)> {
        const EPS: f64 = 1e-8;
        let mut node = 0usize;
        for _ in 0..100 {
            let b = self.aabb.get(node)?;
            let vmin = DVec3::new(b[0] - b[3], b[1] - b[4], b[2] - b[5]);
            let vmax = DVec3::new(b[0] + b[3], b[1] + b[4], b[2] + b[5]);
            if (0..3).any(|i| p[i] + EPS < vmin[i] || p[i] - EPS > vmax[i]) {
                return None;
            }
            let size = vmax - vmin;
            let c = DVec3::new(
                (p.x - vmin.x) / size.x,
                (p.y - vmin.y) / size.y,
                (p.z - vmin.z) / size.z,
            );
            let child = self.child.get(node)?;
            if child.iter().all(|&k| k == -1) {
                return Some((node, c, size));
            }
            let half = |t: f64| if t < 0.5 { 0 } else { 1 };
            let slot = half(c.x) + 2 * half(c.y) + 4 * half(c.z);
            node = usize::try_from(child[slot]).ok()?;
        }
        None
    }

    /// Signed distance at `p` (mesh frame; negative inside), MuJoCo's `oct_distance`.
    /// Returns `+inf` for an octree that does not cover the point (not built by the compiler).
    pub fn distance(&self, p: DVec3) -> f64 {
        let Some(root) = self.aabb.first() else {
            return f64::INFINITY;
        };
        let mut point = p;
        let box_dist = box_projection(&mut point, root);
        let Some((node, c, _)) = self.find_leaf(point) else {
            return f64::INFINITY;
        };
        let coeff = &self.coeff[node];
        let mut sdf = 0.0;
        for (j, &k) in coeff.iter().enumerate() {
            sdf += weight(j, c) * k;
        }
        if box_dist > 0.0 {
            sdf + box_dist
        } else {
            sdf
        }
    }

    /// Gradient of [`Octree::distance`] at `p`, MuJoCo's `oct_gradient`: inside the root box
    /// the gradient of the leaf's trilinear interpolant, outside a forward difference with
    /// step 1e-8.
    pub fn gradient(&self, p: DVec3) -> DVec3 {
        let Some(root) = self.aabb.first() else {
            return DVec3::ZERO;
        };
        let mut q = p;
        if box_projection(&mut q, root) <= 0.0 {
            let Some((node, c, size)) = self.find_leaf(q) else {
                return DVec3::ZERO;
            };
            let mut g = DVec3::ZERO;
            for (j, &k) in self.coeff[node].iter().enumerate() {
                let dw = weight_gradient(j, c, size);
                g.x += dw.x * k;
                g.y += dw.y * k;
                g.z += dw.z * k;
            }
            return g;
        }
        const EPS: f64 = 1e-8;
        let d0 = self.distance(p);
        DVec3::new(
            (self.distance(DVec3::new(p.x + EPS, p.y, p.z)) - d0) / EPS,
            (self.distance(DVec3::new(p.x, p.y + EPS, p.z)) - d0) / EPS,
            (self.distance(DVec3::new(p.x, p.y, p.z + EPS)) - d0) / EPS,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One leaf over `[-1, 1]³` holding the field `x` (corner values -1 and 1).
    fn plane_x() -> Octree {
        let coeff = std::array::from_fn(|j| if j & 1 != 0 { 1.0 } else { -1.0 });
        Octree {
            child: vec![[-1; 8]],
            aabb: vec![[0.0, 0.0, 0.0, 1.0, 1.0, 1.0]],
            coeff: vec![coeff],
            depth: vec![0],
        }
    }

    #[test]
    fn single_leaf_interpolates_linear_field_exactly() {
        let o = plane_x();
        assert!((o.distance(DVec3::new(0.25, 0.3, -0.7)) - 0.25).abs() < 1e-15);
        let g = o.gradient(DVec3::new(0.25, 0.3, -0.7));
        assert!((g - DVec3::X).length() < 1e-15, "{g}");
    }

    #[test]
    fn outside_the_root_box_adds_the_distance_to_the_box() {
        let o = plane_x();
        // projected to x = 1 - 1e-6, where the field is 1 - 1e-6; 2 further away
        let d = o.distance(DVec3::new(3.0, 0.0, 0.0));
        assert!((d - (3.0 - 1e-6)).abs() < 1e-12, "{d}");
        let g = o.gradient(DVec3::new(3.0, 0.5, 0.0));
        assert!((g - DVec3::X).length() < 1e-6, "{g}");
    }

    #[test]
    fn empty_octree_is_far_from_everything() {
        let o = Octree::default();
        assert_eq!(o.distance(DVec3::ZERO), f64::INFINITY);
        assert_eq!(o.gradient(DVec3::ZERO), DVec3::ZERO);
    }
}
