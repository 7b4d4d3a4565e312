//! The face bounding-volume hierarchy MuJoCo 4.0.0's compiler builds for every mesh
//! (`mjCMesh::tree_`, `mjCBoundingVolumeHierarchy::MakeBVH`), which `mjc_MeshSDF` walks.
//!
//! Its shape decides which triangles `mjc_MeshSDF` visits first, and that decides its contacts
//! (it keeps the first 50 candidate points), so the tree is built exactly as MuJoCo builds it:
//! - one element per triangle, boxed by the axis-aligned box of its three vertices
//!   (`[centre; half-sizes]`) and ordered by its circumcentre;
//! - a node's box is the union of its elements' boxes, a flat side (thinner than
//!   [`EPS`](crate::math::EPS)) grown by `EPS` on both sides;
//! - a node splits its elements along the longest side of its box (a later axis only when
//!   longer by at least `EPS`), sorted by circumcentre on that axis (values within `EPS` tie,
//!   ties go by triangle index), the first `n / 2` to child 0, the rest to child 1;
//! - nodes are numbered in pre-order (node 0 is the root, child 0's subtree comes first).
//!
//! Vertices are the mesh's double-precision vertices in the mesh frame, before MuJoCo rounds
//! them to `f32` (the compiler has them).

use glam::DVec3;

use crate::math::EPS;

/// Marks "no child" and "no triangle" in a [`FaceBvhNode`].
pub const NONE: u32 = u32::MAX;

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

/// One triangle while the tree is built: its box (as `min`/`max` corners of
/// `centre ∓ half`), its circumcentre and its index.
#[derive(Clone, Copy)]
struct Element {
    lo: DVec3,
    hi: DVec3,
    key: DVec3,
    face: u32,
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
                face: i as u32,
            });
        }
        let mut bvh = FaceBvh {
            nodes: Vec::with_capacity(2 * elements.len()),
        };
        if !elements.is_empty() {
            let mut scratch = elements.clone();
            bvh.make(&mut elements, &mut scratch);
        }
        Ok(bvh)
    }

    /// Appends the subtree of `elements` (pre-order) and returns its root.
    fn make(&mut self, elements: &mut [Element], scratch: &mut [Element]) -> u32 {
        let (mut lo, mut hi) = (DVec3::splat(f64::MAX), DVec3::splat(-f64::MAX));
        for e in elements.iter() {
            lo = lo.min(e.lo);
            hi = hi.max(e.hi);
        }
        for i in 0..3 {
            if (lo[i] - hi[i]).abs() < EPS {
                lo[i] -= EPS;
                hi[i] += EPS;
            }
        }
        let id = self.nodes.len() as u32;
        self.nodes.push(FaceBvhNode {
            center: (hi + lo) / 2.0,
            half: (hi - lo) / 2.0,
            child: [NONE; 2],
            face: NONE,
        });
        if let [only] = elements {
            self.nodes[id as usize].face = only.face;
            return id;
        }
        let edges = hi - lo;
        let mut axis = 0;
        if edges[1] >= edges[0] + EPS {
            axis = 1;
        }
        if edges[2] >= edges[axis] + EPS {
            axis = 2;
        }
        let before = |a: &Element, b: &Element| {
            let (x, y) = (a.key[axis], b.key[axis]);
            if (x - y).abs() > EPS {
                x < y
            } else {
                a.face < b.face
            }
        };
        merge_sort(elements, &mut scratch[..elements.len()], &before);
        let m = elements.len() / 2;
        let (left, right) = elements.split_at_mut(m);
        let c0 = self.make(left, scratch);
        let c1 = self.make(right, scratch);
        self.nodes[id as usize].child = [c0, c1];
        id
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

/// Stable merge sort by `before` (a strict "comes first" test). Unlike the standard library's
/// sorts it never panics when `before` is not a total order (MuJoCo's tolerance comparison,
/// or NaN circumcentres of degenerate triangles); the result is then some permutation.
fn merge_sort<T: Copy>(items: &mut [T], scratch: &mut [T], before: &impl Fn(&T, &T) -> bool) {
    let n = items.len();
    if n <= 1 {
        return;
    }
    let mid = n / 2;
    {
        let (l, r) = items.split_at_mut(mid);
        merge_sort(l, &mut scratch[..mid], before);
        merge_sort(r, &mut scratch[mid..n], before);
    }
    let (mut i, mut j) = (0, mid);
    for slot in scratch[..n].iter_mut() {
        *slot = if j >= n || (i < mid && !before(&items[j], &items[i])) {
            i += 1;
            items[i - 1]
        } else {
            j += 1;
            items[j - 1]
        };
    }
    items.copy_from_slice(&scratch[..n]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_sort_is_stable_and_total() {
        let mut v = [(3, 0), (1, 1), (3, 2), (0, 3), (1, 4)];
        let mut s = v;
        merge_sort(&mut v, &mut s, &|a: &(i32, i32), b: &(i32, i32)| a.0 < b.0);
        assert_eq!(v, [(0, 3), (1, 1), (1, 4), (3, 0), (3, 2)]);
    }

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
