//! How MuJoCo 4.0.0's compiler builds every bounding-volume hierarchy
//! (`mjCBoundingVolumeHierarchy::MakeBVH`): the body trees of the mid phase
//! ([`Bvh`](super::Bvh)) and the face trees of meshes
//! ([`FaceBvh`](crate::narrow::sdf::FaceBvh)). The shape matters beyond pruning: with the
//! override on, internal body nodes are tested without the gaps, and `mjc_MeshSDF` keeps the
//! first candidates it meets, so both trees are built node for node as MuJoCo builds them:
//! - a node's box is the union of its elements' boxes, a flat side (thinner than
//!   [`EPS`]) grown by `EPS` on both sides;
//! - a node of several elements splits along the longest side of its box (a later axis only
//!   when longer by at least `EPS`, in floating point: equal sides above about 64 pick the
//!   later axis), sorted by key on that axis (keys within `EPS` tie, ties go by element id),
//!   the first `n / 2` to child 0, the rest to child 1;
//! - nodes are numbered in pre-order (node 0 is the root, child 0's subtree comes first).

use glam::DVec3;

use crate::math::EPS;

/// Marks "no child" and "no element" in a built node.
pub const NONE: u32 = u32::MAX;

/// One element while a tree is built: its box as `lo`/`hi` corners, the key it is split by
/// and its id (geom or triangle index).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Element {
    pub lo: DVec3,
    pub hi: DVec3,
    pub key: DVec3,
    pub id: u32,
}

/// One node of a built tree: box centre and half sizes, children ([`NONE`] for leaves) and
/// the element of a leaf ([`NONE`] for internal nodes).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct BuiltNode {
    pub center: DVec3,
    pub half: DVec3,
    pub child: [u32; 2],
    pub id: u32,
}

/// The tree of `elements` (reordered in place), nodes in pre-order; empty without elements.
pub(crate) fn build_tree(elements: &mut [Element]) -> Vec<BuiltNode> {
    let mut nodes = Vec::with_capacity(2 * elements.len());
    if !elements.is_empty() {
        let mut scratch = elements.to_vec();
        make(&mut nodes, elements, &mut scratch);
    }
    nodes
}

/// Appends the subtree of `elements` (pre-order) and returns its root.
fn make(nodes: &mut Vec<BuiltNode>, elements: &mut [Element], scratch: &mut [Element]) -> u32 {
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
    let id = nodes.len() as u32;
    nodes.push(BuiltNode {
        center: (hi + lo) / 2.0,
        half: (hi - lo) / 2.0,
        child: [NONE; 2],
        id: NONE,
    });
    if let [only] = elements {
        nodes[id as usize].id = only.id;
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
            a.id < b.id
        }
    };
    merge_sort(elements, &mut scratch[..elements.len()], &before);
    let m = elements.len() / 2;
    let (left, right) = elements.split_at_mut(m);
    let c0 = make(nodes, left, scratch);
    let c1 = make(nodes, right, scratch);
    nodes[id as usize].child = [c0, c1];
    id
}

/// Stable merge sort by `before` (a strict "comes first" test). Unlike the standard library's
/// sorts it never panics when `before` is not a total order (MuJoCo's tolerance comparison,
/// or NaN keys such as the circumcentres of degenerate triangles); the result is then some
/// permutation.
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

    fn at(x: f64, id: u32) -> Element {
        Element {
            lo: DVec3::splat(x),
            hi: DVec3::splat(x),
            key: DVec3::new(x, 0.0, 0.0),
            id,
        }
    }

    #[test]
    fn keys_within_eps_tie_by_id() {
        // 0.1 and 0.1 + 5e-15 are equal for MuJoCo's comparator: id 1 before id 4; 0.1 + 2e-14
        // is more than `mjEPS` above both and comes after them
        let mut e = [
            at(0.1 + 2e-14, 0),
            at(0.1 + 5e-15, 1),
            at(-0.3, 2),
            at(0.1, 4),
        ];
        let nodes = build_tree(&mut e);
        let ids: Vec<u32> = e.iter().map(|e| e.id).collect();
        assert_eq!(ids, [2, 1, 4, 0]);
        // the root splits into {2, 1} and {4, 0}: leaves in pre-order
        let leaves: Vec<u32> = nodes
            .iter()
            .map(|n| n.id)
            .filter(|&id| id != NONE)
            .collect();
        assert_eq!(leaves, [2, 1, 4, 0]);
    }

    #[test]
    fn equal_large_sides_split_along_the_later_axis() {
        // a 2e10 x 2e10 box (a plane's): 2e10 + mjEPS rounds to 2e10, so y wins the tie; the
        // keys order the elements differently along x and y
        let mut e = [
            Element {
                lo: DVec3::new(-1e10, -1e10, -1.0),
                hi: DVec3::new(1e10, 1e10, 0.0),
                key: DVec3::ZERO,
                id: 0,
            },
            Element {
                lo: DVec3::splat(-0.1),
                hi: DVec3::splat(0.1),
                key: DVec3::new(-0.1, 0.1, 0.0),
                id: 1,
            },
        ];
        let nodes = build_tree(&mut e);
        assert_eq!(nodes.len(), 3);
        assert_eq!((nodes[1].id, nodes[2].id), (0, 1), "split along y");
        // small equal sides keep the earlier axis
        let mut e = [at(0.0, 0), at(-1.0, 1)];
        e[0].key = DVec3::new(0.0, -1.0, 0.0);
        e[1].key = DVec3::new(-1.0, 0.0, 0.0);
        let nodes = build_tree(&mut e);
        assert_eq!((nodes[1].id, nodes[2].id), (1, 0), "split along x");
    }
}
