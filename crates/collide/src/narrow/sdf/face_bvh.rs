//! The face bounding-volume hierarchy MuJoCo 4.0.0's compiler builds for every mesh
//! (`mjCMesh::tree_`, `mjCBoundingVolumeHierarchy::MakeBVH`), which `mjc_MeshSDF` walks.
//!
//! Its shape decides which triangles `mjc_MeshSDF` visits first, and that decides its contacts
//! (it keeps the first 50 candidate points), so the tree is built exactly as MuJoCo builds it
//! ([`crate::mid::build`]), with one element per triangle, boxed by the axis-aligned box of its
//! three vertices (`[centre; half-sizes]`) and ordered by its circumcentre.
//!
//! Vertices are the mesh's double-precision vertices in the mesh frame, before MuJoCo rounds
//! them to `f32` (the compiler has them).

use glam::DVec3;

/// Marks "no child" and "no triangle" in a [`FaceBvhNode`].
pub use crate::mid::build::NONE;
use crate::mid::build::{build_tree, Element};

/// One node of a [`FaceBvh`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FaceBvhNode {
    /// Box centre, in the mesh frame.
    pub center: DVec3,
    /// Box half-sizes.
    pub half: DVec3,
    /// Children of an internal node ([`NONE`] for leaves).
    pub child: [u32; 2],
    /// Triangle of a leaf (an index into the mesh's faces), [`NONE`] for internal nodes.
    pub face: u32,
}

/// MuJoCo's face tree of one mesh; empty for a mesh without triangles.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FaceBvh {
    /// Nodes in pre-order, root first.
    pub nodes: Vec<FaceBvhNode>,
}

impl FaceBvh {
    /// Builds the tree of triangles `face` over vertices `vert` (mesh frame, double
    /// precision). Errors name the first triangle with a vertex index out of range.
    pub fn build(vert: &[DVec3], face: &[[u32; 3]]) -> Result<FaceBvh, String> {
        let mut elements = Vec::with_capacity(face.len());
        for (i, f) in face.iter().enumerate() {
            let mut v = [DVec3::ZERO; 3];
            for (k, &id) in f.iter().enumerate() {
                v[k] = *vert.get(id as usize).ok_or_else(|| {
                    format!(
                        "face {i}: vertex index {id} does not exist ({} vertices)",
                        vert.len()
                    )
                })?;
            }
            let (lo, hi) = (v[0].min(v[1]).min(v[2]), v[0].max(v[1]).max(v[2]));
            let (c, h) = ((lo + hi) * 0.5, (hi - lo) * 0.5);
            elements.push(Element {
                lo: c - h,
                hi: c + h,
                key: circumcenter(v),
                id: i as u32,
            });
        }
        Ok(FaceBvh {
            nodes: build_tree(&mut elements)
                .into_iter()
                .map(|n| FaceBvhNode {
                    center: n.center,
                    half: n.half,
                    child: n.child,
                    face: n.id,
                })
                .collect(),
        })
    }
}

/// MuJoCo's `MakeCenter`: the circumcentre of triangle `v` (NaN for a degenerate one).
fn circumcenter(v: [DVec3; 3]) -> DVec3 {
    let a = v[0] - v[2];
    let b = v[1] - v[2];
    let nrm = a.cross(b);
    let (na, nb) = (a.dot(a), b.dot(b));
    let area = nrm.dot(nrm).sqrt();
    let vec = b * na - a * nb;
    vec.cross(nrm) / (2.0 * area * area) + v[2]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn circumcenter_of_right_triangle_is_hypotenuse_midpoint() {
        let c = circumcenter([
            DVec3::new(0.0, 0.0, 1.0),
            DVec3::new(2.0, 0.0, 1.0),
            DVec3::new(0.0, 4.0, 1.0),
        ]);
        assert!((c - DVec3::new(1.0, 2.0, 1.0)).length() < 1e-15, "{c}");
    }

    #[test]
    fn bad_vertex_index_is_an_error() {
        let err = FaceBvh::build(&[DVec3::ZERO; 3], &[[0, 1, 3]]).unwrap_err();
        assert!(err.contains("face 0") && err.contains("index 3"), "{err}");
    }
}
