//! Mid phase (MuJoCo's `mj_collideTree`): a bounding-volume hierarchy per body, built once in
//! the body's inertial frame as MuJoCo builds it (median geom position on the longest side),
//! and a dual-tree traversal with an explicit stack that tests nodes as oriented boxes (6 face
//! axes) and descends the node MuJoCo descends.

use glam::{DMat3, DVec3};

use crate::math::quat_to_mat;
use crate::model::Model;

pub mod build;

use build::{build_tree, Element, NONE};

/// Half-sizes at or above this count as infinite (MuJoCo's `mjMAXVAL`; a plane's box has
/// infinite x and y half sizes and a finite z half size of 5e9: a half-space).
const INFINITE: f64 = 1e10;

/// One node: an axis-aligned box in the body's inertial frame, and either two children or a geom.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Node {
    /// Box centre in the inertial frame.
    pub center: DVec3,
    /// Box half-sizes.
    pub half: DVec3,
    /// Children of an internal node ([`NONE`] for leaves).
    pub child: [u32; 2],
    /// The geom of a leaf, [`NONE`] for internal nodes.
    pub geom: u32,
}

impl Node {
    /// Whether the node is a leaf.
    #[inline]
    pub fn is_leaf(&self) -> bool {
        self.geom != NONE
    }

    /// An eighth of the surface area of the box (`xy + yz + zx` of the half sizes): the
    /// traversal descends the node with the larger one.
    fn surface(&self) -> f64 {
        let h = self.half;
        h.x * h.y + h.y * h.z + h.z * h.x
    }
}

/// The tree of one body; node 0 is the root. Empty when the body has no collidable geoms.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Bvh {
    /// Nodes, root first.
    pub nodes: Vec<Node>,
}

impl Bvh {
    /// Builds the tree of `geoms` (all in body `b`, in increasing id order) in the body's
    /// inertial frame, node for node as MuJoCo's compiler ([`build`]): each geom's box is its
    /// `geom_aabb` placed in the inertial frame, its split key its position there. Any tree
    /// prunes conservatively, but the override prunes internal nodes with `o_margin` alone
    /// while the leaves add the gaps, so in-gap contacts depend on the tree (scene 1670 of
    /// `scene_fuzz --seed 5`, scene 1762 of `--seed 6`).
    pub fn build(m: &Model, b: usize, geoms: &[usize]) -> Bvh {
        let irot_t = quat_to_mat(m.body_iquat[b]).transpose();
        let ipos = m.body_ipos[b];
        let mut elements: Vec<Element> = geoms
            .iter()
            .map(|&g| {
                let grot = quat_to_mat(m.geom_quat[g]);
                let offset = m.geom_pos[g] - ipos;
                let a = m.geom_aabb[g];
                let (c, h) = (DVec3::new(a[0], a[1], a[2]), DVec3::new(a[3], a[4], a[5]));
                let (clo, chi) = (c - h, c + h);
                let mut lo = DVec3::INFINITY;
                let mut hi = DVec3::NEG_INFINITY;
                for k in 0..8 {
                    let corner = DVec3::new(
                        if k & 1 == 0 { clo.x } else { chi.x },
                        if k & 2 == 0 { clo.y } else { chi.y },
                        if k & 4 == 0 { clo.z } else { chi.z },
                    );
                    // geom frame -> body frame -> inertial frame
                    let p = irot_t * (grot * corner + offset);
                    lo = lo.min(p);
                    hi = hi.max(p);
                }
                Element {
                    lo,
                    hi,
                    key: irot_t * offset,
                    id: g as u32,
                }
            })
            .collect();
        Bvh {
            nodes: build_tree(&mut elements)
                .into_iter()
                .map(|n| Node {
                    center: n.center,
                    half: n.half,
                    child: n.child,
                    geom: n.id,
                })
                .collect(),
        }
    }
}

/// An oriented box in world coordinates.
#[derive(Clone, Copy, Debug)]
pub struct Obb {
    /// Centre.
    pub center: DVec3,
    /// Axes (columns).
    pub rot: DMat3,
    /// Half-sizes along the axes.
    pub half: DVec3,
}

impl Obb {
    /// A box given in a local frame (`frame_pos`, `frame_rot`).
    #[inline]
    pub fn placed(frame_pos: DVec3, frame_rot: &DMat3, center: DVec3, half: DVec3) -> Obb {
        Obb {
            center: frame_pos + *frame_rot * center,
            rot: *frame_rot,
            half,
        }
    }

    fn radius(&self, axis: DVec3) -> f64 {
        self.half.x * self.rot.x_axis.dot(axis).abs()
            + self.half.y * self.rot.y_axis.dot(axis).abs()
            + self.half.z * self.rot.z_axis.dot(axis).abs()
    }
}

/// Which face axes [`obb_overlap`] tests, from the half sizes `ha`, `hb` of the two boxes, as
/// MuJoCo's `mj_collideOBB`: `None` when a box is infinite along all three axes (the test
/// passes), else whether to test the axes of box a and of box b: a box's axes are skipped when
/// the *other* box has an infinite side. A plane's box (infinite in x and y) is thus tested
/// along its normal only, as the half-space below it.
#[inline]
fn tested_axes(ha: DVec3, hb: DVec3) -> Option<(bool, bool)> {
    if ha.min_element() >= INFINITE || hb.min_element() >= INFINITE {
        return None;
    }
    Some((hb.max_element() < INFINITE, ha.max_element() < INFINITE))
}

/// Separating-axis test on the 6 face axes (no edge axes, as MuJoCo's `mj_collideOBB`): `true`
/// when the boxes, grown by `margin`, may overlap. Infinite sides follow [`tested_axes`].
pub fn obb_overlap(a: &Obb, b: &Obb, margin: f64) -> bool {
    let Some((test_a, test_b)) = tested_axes(a.half, b.half) else {
        return true;
    };
    let d = b.center - a.center;
    let axes_a = [a.rot.x_axis, a.rot.y_axis, a.rot.z_axis];
    let axes_b = [b.rot.x_axis, b.rot.y_axis, b.rot.z_axis];
    let tested = axes_a
        .iter()
        .filter(|_| test_a)
        .chain(axes_b.iter().filter(|_| test_b));
    for &axis in tested {
        if d.dot(axis).abs() > a.radius(axis) + b.radius(axis) + margin {
            return false;
        }
    }
    true
}

/// The rotation-only part of [`obb_overlap`] for boxes with fixed orientations `ra` and `rb`
/// (every node of one tree shares its body's frame): the absolute dot products between all
/// axes, computed once per body pair. [`PairFrame::overlap`] then gives exactly the answer of
/// [`obb_overlap`] (the same products and sums, in the same order) at a third of the cost.
#[derive(Clone, Copy, Debug)]
pub struct PairFrame {
    a: [DVec3; 3],
    b: [DVec3; 3],
    /// `aa[k][i] = |a_k · a_i|`.
    aa: [[f64; 3]; 3],
    /// `bb[k][i] = |b_k · b_i|`.
    bb: [[f64; 3]; 3],
    /// `ab[i][k] = |a_i · b_k|`.
    ab: [[f64; 3]; 3],
}

impl PairFrame {
    /// Axis products of orientations `ra` (boxes `a`) and `rb` (boxes `b`).
    pub fn new(ra: &DMat3, rb: &DMat3) -> PairFrame {
        let a = [ra.x_axis, ra.y_axis, ra.z_axis];
        let b = [rb.x_axis, rb.y_axis, rb.z_axis];
        let table = |u: &[DVec3; 3], v: &[DVec3; 3]| {
            let mut t = [[0.0; 3]; 3];
            for (row, ui) in t.iter_mut().zip(u) {
                for (x, vk) in row.iter_mut().zip(v) {
                    *x = ui.dot(*vk).abs();
                }
            }
            t
        };
        PairFrame {
            aa: table(&a, &a),
            bb: table(&b, &b),
            ab: table(&a, &b),
            a,
            b,
        }
    }

    /// [`obb_overlap`] of box `(ca, ha)` oriented as `ra` and box `(cb, hb)` oriented as `rb`.
    pub fn overlap(&self, ca: DVec3, ha: DVec3, cb: DVec3, hb: DVec3, margin: f64) -> bool {
        let Some((test_a, test_b)) = tested_axes(ha, hb) else {
            return true;
        };
        let d = cb - ca;
        // the dot product is symmetric bit for bit, so `|a_k · a_i|` serves for `|a_i · a_k|`
        let radius =
            |h: DVec3, t: &[[f64; 3]; 3], i: usize| h.x * t[0][i] + h.y * t[1][i] + h.z * t[2][i];
        for i in (0..3).filter(|_| test_a) {
            let ra = radius(ha, &self.aa, i);
            let rb = hb.x * self.ab[i][0] + hb.y * self.ab[i][1] + hb.z * self.ab[i][2];
            if d.dot(self.a[i]).abs() > ra + rb + margin {
                return false;
            }
        }
        for i in (0..3).filter(|_| test_b) {
            let ra = radius(ha, &self.ab, i);
            let rb = radius(hb, &self.bb, i);
            if d.dot(self.b[i]).abs() > ra + rb + margin {
                return false;
            }
        }
        true
    }
}

/// Traverses two trees placed at inertial frames `(p1, r1)` and `(p2, r2)`; internal nodes are
/// pruned with `margin`; `leaf(g1, g2)` is called for every surviving leaf pair.
#[allow(clippy::too_many_arguments)]
pub fn traverse(
    t1: &Bvh,
    p1: DVec3,
    r1: &DMat3,
    t2: &Bvh,
    p2: DVec3,
    r2: &DMat3,
    margin: f64,
    stack: &mut Vec<(u32, u32)>,
    mut leaf: impl FnMut(usize, usize),
) {
    if t1.nodes.is_empty() || t2.nodes.is_empty() {
        return;
    }
    // built at the first node test (trees of single leaves never need it)
    let mut frame: Option<PairFrame> = None;
    stack.clear();
    stack.push((0, 0));
    while let Some((i, j)) = stack.pop() {
        let (a, b) = (&t1.nodes[i as usize], &t2.nodes[j as usize]);
        if a.is_leaf() && b.is_leaf() {
            leaf(a.geom as usize, b.geom as usize);
            continue;
        }
        let ca = Obb::placed(p1, r1, a.center, a.half).center;
        let cb = Obb::placed(p2, r2, b.center, b.half).center;
        let frame = frame.get_or_insert_with(|| PairFrame::new(r1, r2));
        if !frame.overlap(ca, a.half, cb, b.half, margin) {
            continue;
        }
        // MuJoCo's choice: the internal node against a leaf, else tree 1's node only when its
        // surface is strictly larger (ties descend tree 2). Every choice prunes conservatively,
        // but under the override internal nodes are pruned with `o_margin` alone while leaves
        // add the gaps, so the nodes visited decide which in-gap contacts survive.
        if !a.is_leaf() && (b.is_leaf() || a.surface() > b.surface()) {
            stack.push((a.child[1], j));
            stack.push((a.child[0], j));
        } else {
            stack.push((i, b.child[1]));
            stack.push((i, b.child[0]));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit_box(center: DVec3, rot: DMat3) -> Obb {
        Obb {
            center,
            rot,
            half: DVec3::ONE,
        }
    }

    #[test]
    fn obb_overlap_matches_mujocos_test_obb_case() {
        // MuJoCo's TestOBB: unit boxes 1.71 apart overlap unrotated and separate at 45°.
        let a = unit_box(DVec3::ZERO, DMat3::IDENTITY);
        let b = unit_box(DVec3::new(1.71, 1.71, 0.0), DMat3::IDENTITY);
        assert!(obb_overlap(&a, &b, 0.0));
        let r = DMat3::from_rotation_z(std::f64::consts::FRAC_PI_4);
        let c = unit_box(DVec3::new(1.71, 1.71, 0.0), r);
        let d = unit_box(DVec3::ZERO, r);
        assert!(!obb_overlap(&d, &c, 0.0));
    }

    #[test]
    fn pair_frame_answers_as_obb_overlap() {
        // random rotations, sizes and offsets, many of them near the separating threshold
        let mut r = 0x2545_F491_4F6C_DD1Du64;
        let mut next = move || {
            r ^= r << 13;
            r ^= r >> 7;
            r ^= r << 17;
            (r >> 11) as f64 / (1u64 << 53) as f64
        };
        let rot = |next: &mut dyn FnMut() -> f64| {
            let axis = DVec3::new(next() - 0.5, next() - 0.5, next() - 0.5).normalize();
            DMat3::from_axis_angle(axis, next() * 6.0)
        };
        let (mut hits, mut misses) = (0, 0);
        for _ in 0..20000 {
            let (ra, rb) = (rot(&mut next), rot(&mut next));
            let a = Obb {
                center: DVec3::new(next(), next(), next()),
                rot: ra,
                half: DVec3::new(next(), next(), next()) + 0.05,
            };
            let b = Obb {
                center: DVec3::new(next(), next(), next()) * 3.0,
                rot: rb,
                half: DVec3::new(next(), next(), next()) + 0.05,
            };
            let margin = next() * 0.1;
            let expect = obb_overlap(&a, &b, margin);
            let got = PairFrame::new(&ra, &rb).overlap(a.center, a.half, b.center, b.half, margin);
            assert_eq!(got, expect);
            if expect {
                hits += 1;
            } else {
                misses += 1;
            }
        }
        assert!(hits > 1000 && misses > 1000, "{hits} {misses}");
    }

    #[test]
    fn margin_closes_a_gap() {
        let a = unit_box(DVec3::ZERO, DMat3::IDENTITY);
        let b = unit_box(DVec3::new(2.5, 0.0, 0.0), DMat3::IDENTITY);
        assert!(!obb_overlap(&a, &b, 0.4));
        assert!(obb_overlap(&a, &b, 0.5));
    }
}
