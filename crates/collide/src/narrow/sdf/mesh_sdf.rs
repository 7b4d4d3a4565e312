//! MuJoCo 4.0.0's `mjc_MeshSDF`: a mesh geom (geom 1) against an SDF geom (geom 2), by a walk
//! over the mesh's face tree and Frank–Wolfe steps on each triangle.
//!
//! Everything happens in the SDF geom's frame (the mesh's vertices are mapped into it):
//! 1. The face tree ([`FaceBvh`]) is walked depth first from the root with a stack (child 1 is
//!    visited before child 0); a node is entered when the field at its box centre is below the
//!    box's circumradius `|half-sizes|`.
//! 2. A triangle that passes is culled again: its centroid is pushed `d / 10` along the
//!    triangle's normal (`d` the field at the centroid), and the field at the centre of the
//!    circumsphere of the triangle and that apex must be below the sphere's radius. (Later
//!    MuJoCo sources test the triangle's own circumradius when `|d| < 1`; 4.0.0 does not,
//!    measured: a triangle that test culls gives MuJoCo 4.0.0's candidates.)
//! 3. From `sdf_initpoints` starts inside the triangle (barycentric `(1 − u − v, u, v)` with
//!    `u, v` the Halton sequence in bases 2 and 3 from index 1, reflected when `u + v > 1`),
//!    `sdf_iterations` Frank–Wolfe steps minimise the field over the triangle (step
//!    `2 / (k + 2)` towards the corner with the lowest `corner · gradient`); the end point is a
//!    candidate when its distance is negative. Candidates stop at 50: MuJoCo keeps the first 50
//!    in walk order, repeats included (several starts usually end on the same corner), and
//!    ignores the rest of the mesh.
//! 4. Each candidate not already taken (closer than `mjMINVAL` to a previous contact) with a
//!    gradient longer than `mjMINVAL` becomes a contact, in candidate order: `dist` is the
//!    field's distance there (negative), the normal is the negated normalised gradient (from
//!    the mesh into the SDF, geom 1 to geom 2), and `pos` is the point moved by `−dist / 2`
//!    along the normal.
//!
//! The margin plays no part, as in MuJoCo. The field is any [`Field`] (primitive, plugin, or
//! a mesh's own distance field): the walk only calls `distance` and `gradient`.

use glam::{DQuat, DVec3};

use super::face_bvh::{FaceBvh, NONE};
use super::gradient_descent::{
    dot3, halton, map_pose, norm3, normalize3, rot_vec_quat, Field, RowPose, SdfGeom, MAXVAL,
};
use crate::math::MINVAL;
use crate::narrow::{PreContact, MAX_PAIR_CONTACTS};

/// Deepest stack the walk needs: a median-split tree over `n` triangles is at most
/// `⌈log₂ n⌉ + 1` deep and the stack holds at most one sibling per level plus the node.
const STACK: usize = 128;

/// The mesh side of [`mesh_sdf_pair`]: the triangles in the mesh frame, the mesh's face tree,
/// and the mesh geom's frame in the world.
#[derive(Clone, Copy, Debug)]
pub struct MeshGeom<'a> {
    /// Vertices in the mesh frame (MuJoCo's `mesh_vert`, `f32` values).
    pub vert: &'a [DVec3],
    /// Triangles (indices into `vert`).
    pub face: &'a [[u32; 3]],
    /// The face tree built from the same triangles.
    pub bvh: &'a FaceBvh,
    /// Geom position in the world.
    pub pos: DVec3,
    /// Geom orientation (from `geom_xmat`, MuJoCo's `mju_mat2Quat`).
    pub quat: DQuat,
}

/// Candidate points of one call, in walk order.
struct Candidates {
    point: [DVec3; MAX_PAIR_CONTACTS],
    dist: [f64; MAX_PAIR_CONTACTS],
    n: usize,
}

impl Candidates {
    fn full(&self) -> bool {
        self.n == MAX_PAIR_CONTACTS
    }
}

/// Contacts between mesh geom 1 and SDF geom 2 (MuJoCo's `mjc_MeshSDF`, see the module docs):
/// `dist < 0`, normals from the mesh to the SDF. At most `min(out.len(), 50)` contacts are
/// written to `out`; the count is returned. Triangles whose vertex indices are out of range
/// are skipped.
pub fn mesh_sdf_pair(
    mesh: &MeshGeom,
    sdf: &SdfGeom,
    iterations: usize,
    initpoints: usize,
    out: &mut [PreContact],
) -> usize {
    let to_sdf = map_pose(mesh.pos, mesh.quat, sdf.pos, sdf.quat);
    let field = &sdf.field;
    let nodes = &mesh.bvh.nodes;
    let mut cand = Candidates {
        point: [DVec3::ZERO; MAX_PAIR_CONTACTS],
        dist: [0.0; MAX_PAIR_CONTACTS],
        n: 0,
    };

    // 1. the walk; once 50 candidates are in, nothing visited later can add one
    let mut stack = [0u32; STACK];
    let mut top = usize::from(!nodes.is_empty());
    while top > 0 && !cand.full() {
        top -= 1;
        let Some(node) = nodes.get(stack[top] as usize) else {
            continue;
        };
        // the field at the box centre against the box's circumradius
        let reaches = field.distance(to_sdf.apply(node.center)) < norm3(node.half);
        if !reaches {
            continue;
        }
        if node.face != NONE {
            if let Some(corners) = triangle(mesh, node.face, &to_sdf) {
                triangle_candidates(&corners, field, iterations, initpoints, &mut cand);
            }
            continue;
        }
        for c in node.child {
            if c != NONE && top < STACK {
                stack[top] = c;
                top += 1;
            }
        }
    }

    // 4. contacts in candidate order
    let cap = out.len().min(MAX_PAIR_CONTACTS);
    let mut taken = [DVec3::ZERO; MAX_PAIR_CONTACTS];
    let mut cnt = 0;
    for (&x, &dist) in cand.point[..cand.n].iter().zip(&cand.dist[..cand.n]) {
        if cnt == cap {
            break;
        }
        if dist > 0.0 || taken[..cnt].iter().any(|p| p.distance(x) < MINVAL) {
            continue;
        }
        taken[cnt] = x;
        // a vanishing gradient gives no normal (nor does a NaN one, which MuJoCo would emit)
        let grad = field.gradient(x);
        let len = norm3(grad);
        if len.is_nan() || len < MINVAL {
            continue;
        }
        let normal = rot_vec_quat(-normalize3(grad), sdf.quat);
        out[cnt] = PreContact {
            dist,
            pos: rot_vec_quat(x, sdf.quat) + sdf.pos + normal * (0.5 * dist),
            normal,
            tangent: DVec3::ZERO,
        };
        cnt += 1;
    }
    cnt
}

/// The corners of triangle `face` in the SDF frame; `None` when an index is out of range.
fn triangle(mesh: &MeshGeom, face: u32, to_sdf: &RowPose) -> Option<[DVec3; 3]> {
    let f = mesh.face.get(face as usize)?;
    let mut corners = [DVec3::ZERO; 3];
    for (c, &v) in corners.iter_mut().zip(f) {
        *c = to_sdf.apply(*mesh.vert.get(v as usize)?);
    }
    Some(corners)
}

/// Steps 2 and 3 of the module docs for one triangle.
fn triangle_candidates(
    corners: &[DVec3; 3],
    field: &Field,
    iterations: usize,
    initpoints: usize,
    cand: &mut Candidates,
) {
    if !circumsphere_meets_field(corners, field) {
        return;
    }
    let [c0, c1, c2] = *corners;
    for start in 1..=initpoints {
        if cand.full() {
            return;
        }
        let (mut u, mut v) = (halton(start, 2), halton(start, 3));
        if u + v > 1.0 {
            u = 1.0 - u;
            v = 1.0 - v;
        }
        let w = 1.0 - u - v;
        let mut x = DVec3::new(
            w * c0.x + u * c1.x + v * c2.x,
            w * c0.y + u * c1.y + v * c2.y,
            w * c0.z + u * c1.z + v * c2.z,
        );
        let depth = frank_wolfe(&mut x, corners, field, iterations);
        if depth < 0.0 {
            cand.point[cand.n] = x;
            cand.dist[cand.n] = depth;
            cand.n += 1;
        }
    }
}

/// MuJoCo's `stepFrankWolfe`: `iterations` steps of `x ← x + 2/(k+2) (s − x)`, `s` the corner
/// minimising `corner · ∇f(x)` (the first of equals); returns `f(x)` at the end. A step whose
/// gradient selects no corner (not finite) leaves `x` where it is.
fn frank_wolfe(x: &mut DVec3, corners: &[DVec3; 3], field: &Field, iterations: usize) -> f64 {
    for step in 0..iterations {
        let grad = field.gradient(*x);
        let mut best = MAXVAL;
        let mut target = *x;
        for &c in corners {
            let f = dot3(c, grad);
            if f < best {
                best = f;
                target = c;
            }
        }
        *x += (target - *x) * (2.0 / (step as f64 + 2.0));
    }
    field.distance(*x)
}

/// MuJoCo's `triangleIntersect` (step 2 of the module docs): whether the circumsphere of the
/// triangle and an apex `d / 10` along its normal from the centroid (`d` the field there)
/// reaches into the field. A flat tetrahedron (degenerate triangle, or `d = 0`) has no finite
/// circumsphere and is culled, as MuJoCo's division by zero culls it.
fn circumsphere_meets_field(t: &[DVec3; 3], field: &Field) -> bool {
    const DISTANCE_SCALE: f64 = 10.0;
    let normal = normalize3((t[1] - t[0]).cross(t[2] - t[0]));
    let third = 1.0 / 3.0;
    let mut p = t[0] * third;
    p += t[1] * third;
    p += t[2] * third;
    let h = -field.distance(p) / DISTANCE_SCALE;
    p += normal * -h;
    let v = [t[0] - p, t[1] - p, t[2] - p];
    let cross = [v[1].cross(v[2]), v[2].cross(v[0]), v[0].cross(v[1])];
    let mut center = cross[0] * dot3(v[0], v[0]);
    center += cross[1] * dot3(v[1], v[1]);
    center += cross[2] * dot3(v[2], v[2]);
    center *= 1.0 / (2.0 * dot3(v[0], cross[0]));
    let r = dot3(center, center).sqrt();
    field.distance(center + p) < r
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::GeomType;

    fn plane_field() -> Field {
        Field::Primitive(GeomType::Plane, DVec3::ZERO)
    }

    #[test]
    fn frank_wolfe_on_a_plane_ends_on_the_lowest_corner() {
        let corners = [
            DVec3::new(0.0, 0.0, -0.1),
            DVec3::new(1.0, 0.0, 0.2),
            DVec3::new(0.0, 1.0, 0.3),
        ];
        let mut x = (corners[0] + corners[1] + corners[2]) / 3.0;
        let d = frank_wolfe(&mut x, &corners, &plane_field(), 10);
        // the first step (size 1) lands on the corner, later steps stay there
        assert_eq!(x, corners[0]);
        assert_eq!(d, -0.1);
    }

    #[test]
    fn circumsphere_cull_by_hand() {
        let f = plane_field();
        // legs 2 at height 2 (d = 2): the apex goes d/10 = 0.2 along the triangle's normal
        // from the centroid (2/3, 2/3, 2); the circumcircle has centre (1, 1, 2), radius √2.
        // Normal +z: apex at z = 2.2, sphere centre (1, 1, 2 + k) with
        // 2 + k² = 2/9 + (0.2 − k)², k = −4.344, radius 4.57: it reaches the plane.
        let tri = [
            DVec3::new(0.0, 0.0, 2.0),
            DVec3::new(2.0, 0.0, 2.0),
            DVec3::new(0.0, 2.0, 2.0),
        ];
        assert!(circumsphere_meets_field(&tri, &f));
        // reversed winding: apex below, k = +4.344, centre at z = 6.344 > 4.57: culled
        assert!(!circumsphere_meets_field(&[tri[0], tri[2], tri[1]], &f));
        // a degenerate triangle has no circumsphere
        assert!(!circumsphere_meets_field(&[tri[0], tri[0], tri[1]], &f));
    }
}
