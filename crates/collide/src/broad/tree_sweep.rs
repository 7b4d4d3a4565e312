//! Two-level sweep for models made of many kinematic trees (a crowd of humanoids, many robots):
//! one box per tree (the union of its bodies' boxes), sweep-and-prune over the tree boxes, then
//! body pairs only inside a tree and between trees whose boxes overlap.
//!
//! Inside a tree the body pairs that the static body filters allow are listed once (a
//! humanoid's neighbouring bodies, excluded by the parent filter, are never tested). Between
//! two trees whose boxes overlap, only the bodies of each tree that reach into the other
//! tree's box can meet, and those few are tested pairwise. A body pair of two trees overlaps
//! only if each body overlaps the other's tree box (each tree box contains its bodies' boxes),
//! so no pair is lost; the boxes are compared with the same closed-interval test as
//! [`super::sweep_and_prune::SweepAndPrune`], so the pairs are the same.

use super::sweep_and_prune::{Intervals, SweepAndPrune};

/// Trees must hold this many swept bodies on average for the two levels to pay off.
pub const MIN_BODIES_PER_TREE: usize = 4;

/// At most this many allowed pairs inside trees per swept body (each is a box test per call).
pub const MAX_INNER_PAIRS_PER_BODY: usize = 16;

/// Sweep state for boxes grouped in trees; buffers are reused across calls.
#[derive(Clone, Debug, Default)]
pub struct TreeSweep {
    /// Box indices, tree by tree: those of tree `t` are `members[start[t]..start[t + 1]]`.
    members: Vec<u32>,
    start: Vec<usize>,
    /// Pairs `(i, j)`, `i < j`, of boxes in one tree that the static filters allow.
    inner: Vec<(u32, u32)>,
    /// The boxes of the current call, empty ones replaced by all-NaN records.
    live: Vec<[f64; 6]>,
    /// Overlapping pairs found by the current call (before the sleep test).
    found: Vec<(u32, u32)>,
    /// One box per tree (the union of its non-empty boxes), and their sweep.
    tree_boxes: Intervals,
    tree_sap: SweepAndPrune,
    /// Overlapping tree pairs of the current call.
    tree_pairs: Vec<(u32, u32)>,
    /// Boxes of either tree of a pair that reach into the other tree's box.
    reach_a: Vec<u32>,
    reach_b: Vec<u32>,
}

/// Whether two `[lo_x, hi_x, lo_y, hi_y, lo_z, hi_z]` records overlap on all three axes
/// (closed intervals: touching counts).
#[inline(always)]
fn overlap(a: &[f64; 6], b: &[f64; 6]) -> bool {
    (a[0] <= b[1])
        & (b[0] <= a[1])
        & (a[2] <= b[3])
        & (b[2] <= a[3])
        & (a[4] <= b[5])
        & (b[4] <= a[5])
}

impl TreeSweep {
    /// A sweep over boxes where box `i` belongs to tree `tree[i]` (any ids) and two boxes of
    /// one tree may pair only if `allowed(i, j)` (asked for `i < j`). `None` when the trees
    /// are too small on average ([`MIN_BODIES_PER_TREE`]) or too many pairs inside them are
    /// allowed ([`MAX_INNER_PAIRS_PER_BODY`]): then a plain sweep costs less.
    pub fn new(tree: &[usize], allowed: impl Fn(usize, usize) -> bool) -> Option<TreeSweep> {
        let n = tree.len();
        if n == 0 || u32::try_from(n).is_err() {
            return None;
        }
        let mut order: Vec<u32> = (0..n as u32).collect();
        // stable: each tree's boxes stay in index order
        order.sort_by_key(|&i| tree[i as usize]);
        let mut start = vec![0];
        for k in 1..n {
            if tree[order[k] as usize] != tree[order[k - 1] as usize] {
                start.push(k);
            }
        }
        start.push(n);
        let ntrees = start.len() - 1;
        if ntrees * MIN_BODIES_PER_TREE > n {
            return None;
        }
        let mut inner = Vec::new();
        for t in 0..ntrees {
            let group = &order[start[t]..start[t + 1]];
            for (k, &i) in group.iter().enumerate() {
                for &j in &group[k + 1..] {
                    if allowed(i as usize, j as usize) {
                        inner.push((i, j));
                    }
                }
            }
            if inner.len() > MAX_INNER_PAIRS_PER_BODY * n {
                return None;
            }
        }
        Some(TreeSweep {
            members: order,
            start,
            inner,
            ..Default::default()
        })
    }

    /// Number of boxes.
    pub fn len(&self) -> usize {
        self.members.len()
    }

    /// Whether there are no boxes.
    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }

    /// The pairs `(i, j)`, `i < j`, of boxes that overlap on all three axes (touching
    /// counts), are not both flagged in `asleep` (indexed like the boxes; may be empty), and,
    /// when in one tree, are allowed (see [`TreeSweep::new`]), each once. Pairs of different
    /// trees are reported whatever the filters. An empty box (a lower bound above its upper
    /// bound, or NaN, on some axis) overlaps nothing. `boxes` must hold [`TreeSweep::len`]
    /// boxes (nothing is reported otherwise). Pairs come in no particular order.
    pub fn overlapping_pairs(&mut self, boxes: &Intervals, asleep: &[bool]) -> &[(u32, u32)] {
        let records = boxes.records();
        self.found.clear();
        if records.len() != self.members.len() {
            return &self.found;
        }
        // empty boxes become all-NaN records, which fail every comparison of `overlap`
        self.live.clear();
        self.live.extend(records.iter().map(|r| {
            let empty = !((r[0] <= r[1]) & (r[2] <= r[3]) & (r[4] <= r[5]));
            if empty {
                [f64::NAN; 6]
            } else {
                *r
            }
        }));
        let b = &self.live;
        let found = &mut self.found;

        // pairs inside trees
        for &(i, j) in &self.inner {
            if overlap(&b[i as usize], &b[j as usize]) {
                found.push((i, j));
            }
        }

        // the tree boxes and their overlapping pairs
        let ntrees = self.start.len() - 1;
        if ntrees >= 2 {
            self.tree_boxes.resize(ntrees);
            for t in 0..ntrees {
                let mut lo = [f64::INFINITY; 3];
                let mut hi = [f64::NEG_INFINITY; 3];
                for &i in &self.members[self.start[t]..self.start[t + 1]] {
                    let r = &b[i as usize];
                    // (`min` and `max` skip the NaN of empty boxes)
                    for a in 0..3 {
                        lo[a] = lo[a].min(r[2 * a]);
                        hi[a] = hi[a].max(r[2 * a + 1]);
                    }
                }
                self.tree_boxes.set(t, lo, hi);
            }
            self.tree_pairs.clear();
            let tree_pairs = &mut self.tree_pairs;
            self.tree_sap
                .overlapping_pairs(&self.tree_boxes, &[], |s, t| {
                    tree_pairs.push((s as u32, t as u32))
                });
        } else {
            self.tree_pairs.clear();
        }

        // pairs between trees: the bodies of each that reach into the other's box
        let tb = self.tree_boxes.records();
        for &(s, t) in &self.tree_pairs {
            let (s, t) = (s as usize, t as usize);
            let reach = |from: usize, into: &[f64; 6], out: &mut Vec<u32>| {
                out.clear();
                out.extend(
                    self.members[self.start[from]..self.start[from + 1]]
                        .iter()
                        .copied()
                        .filter(|&i| overlap(&b[i as usize], into)),
                );
            };
            reach(s, &tb[t], &mut self.reach_a);
            if self.reach_a.is_empty() {
                continue;
            }
            reach(t, &tb[s], &mut self.reach_b);
            for &i in &self.reach_a {
                for &j in &self.reach_b {
                    if overlap(&b[i as usize], &b[j as usize]) {
                        found.push((i.min(j), i.max(j)));
                    }
                }
            }
        }

        if !asleep.is_empty() {
            let sleeping = |i: u32| asleep.get(i as usize).copied().unwrap_or(false);
            found.retain(|&(i, j)| !(sleeping(i) && sleeping(j)));
        }
        &self.found
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Brute-force pairs of non-empty overlapping boxes, not both asleep, allowed when in one
    /// tree.
    fn brute(
        b: &Intervals,
        tree: &[usize],
        asleep: &[bool],
        allowed: impl Fn(usize, usize) -> bool,
    ) -> Vec<(usize, usize)> {
        let r = b.records();
        let empty = |x: &[f64; 6]| !((x[0] <= x[1]) & (x[2] <= x[3]) & (x[4] <= x[5]));
        let sleeping = |i: usize| asleep.get(i).copied().unwrap_or(false);
        let mut v = Vec::new();
        for i in 0..r.len() {
            for j in i + 1..r.len() {
                let both_asleep = sleeping(i) && sleeping(j);
                let live = !empty(&r[i]) && !empty(&r[j]);
                if live
                    && overlap(&r[i], &r[j])
                    && !both_asleep
                    && (tree[i] != tree[j] || allowed(i, j))
                {
                    v.push((i, j));
                }
            }
        }
        v
    }

    proptest! {
        /// Random trees of boxes (some empty, some NaN, some asleep): the same pairs as brute
        /// force, over two calls with the same sweep (the tree sweep's order kept).
        #[test]
        fn equals_brute_force_with_trees_sleep_and_empty_boxes(
            spec in proptest::collection::vec(
                (0usize..1000, prop::array::uniform3(-4.0..4.0f64), prop::array::uniform3(0.0..1.0f64), 0u8..12),
                8..160),
            shift in -1.0..1.0f64,
        ) {
            // about five boxes per tree, in random order
            let ntrees = (spec.len() / 5).max(1);
            let tree: Vec<usize> = spec.iter().map(|s| s.0 % ntrees).collect();
            let asleep: Vec<bool> = spec.iter().map(|s| s.3 % 3 == 0).collect();
            let allowed = |i: usize, j: usize| !(i * 5 + j).is_multiple_of(4);
            let ts = TreeSweep::new(&tree, allowed);
            prop_assert!(ts.is_some());
            let mut ts = ts.unwrap();
            for step in 0..2 {
                let mut b = Intervals::default();
                for (t, c, h, kind) in &spec {
                    // trees sit near each other; later calls move every other tree
                    let dx = if step == 1 && (t % ntrees) % 2 == 0 { shift } else { 0.0 };
                    let c = [c[0] + (t % ntrees) as f64 * 0.5 + dx, c[1], c[2]];
                    match kind {
                        1 => b.push([c[0] + h[0] + 0.1, c[1], c[2]], [c[0], c[1], c[2]]),
                        2 => b.push([f64::NAN, c[1], c[2]], [c[0], c[1], c[2]]),
                        _ => b.push(
                            [c[0] - h[0], c[1] - h[1], c[2] - h[2]],
                            [c[0] + h[0], c[1] + h[1], c[2] + h[2]],
                        ),
                    }
                }
                let mut got: Vec<(usize, usize)> = ts
                    .overlapping_pairs(&b, &asleep)
                    .iter()
                    .map(|&(i, j)| (i as usize, j as usize))
                    .collect();
                got.sort_unstable();
                prop_assert!(got.windows(2).all(|w| w[0] != w[1]), "a pair reported twice");
                prop_assert_eq!(got, brute(&b, &tree, &asleep, allowed), "step {}", step);
            }
        }
    }

    #[test]
    fn small_trees_and_crowded_trees_are_refused() {
        // one box per tree: a plain sweep is cheaper
        assert!(TreeSweep::new(&[0, 1, 2, 3, 4, 5, 6, 7], |_, _| true).is_none());
        // one tree of 40 boxes with every pair allowed: 780 pairs > 16 per box
        assert!(TreeSweep::new(&[0; 40], |_, _| true).is_none());
        // the same tree with only neighbours allowed
        assert!(TreeSweep::new(&[0; 40], |i, j| j == i + 1).is_some());
    }

    #[test]
    fn touching_boxes_pair_once_on_every_axis() {
        // two trees of four unit boxes stacked along z, each touching the next; tree 1 sits
        // diagonally next to tree 0, touching it along x and y; inside a tree only neighbours
        // may pair
        let tree = [0, 0, 0, 0, 1, 1, 1, 1];
        let mut ts = TreeSweep::new(&tree, |i, j| j == i + 1).unwrap();
        let mut b = Intervals::default();
        for k in 0..8 {
            let xy = if k < 4 { 0.0 } else { 1.0 };
            let z = (k % 4) as f64;
            b.push([xy, xy, z], [xy + 1.0, xy + 1.0, z + 1.0]);
        }
        let mut got = ts.overlapping_pairs(&b, &[]).to_vec();
        got.sort_unstable();
        let mut expect = vec![(0, 1), (1, 2), (2, 3), (4, 5), (5, 6), (6, 7)];
        // across: boxes at the same height or one apart touch
        for k in 0..4u32 {
            for m in 0..4u32 {
                if k.abs_diff(m) <= 1 {
                    expect.push((k, 4 + m));
                }
            }
        }
        expect.sort_unstable();
        assert_eq!(got, expect);
    }
}
