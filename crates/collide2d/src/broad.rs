//! The pool scene's broad phase: sort-and-sweep on axis-aligned bounding boxes.
//!
//! The pool holds a few dozen objects (fish, balls, obstacles, the border), so a one-axis
//! sort-and-sweep is both simple and fast: boxes are sorted by their lower `x` bound, swept
//! with an active list, and pruned on `y`. Boxes that merely touch (a shared edge or corner)
//! are reported, because touching shapes intersect under the crate's conventions. A box with a
//! NaN bound never pairs. The result is the same set as the brute-force `O(n²)` test
//! ([`brute_force_pairs`]), as pairs `(i, j)` with `i < j`, sorted.

use crate::bounding::Aabb;

/// Whether two boxes overlap or touch (closed intervals on both axes).
#[inline]
pub fn overlaps(a: &Aabb, b: &Aabb) -> bool {
    a.min.x <= b.max.x && b.min.x <= a.max.x && a.min.y <= b.max.y && b.min.y <= a.max.y
}

/// Reusable buffers of the sweep and counters of its last run.
#[derive(Clone, Debug, Default)]
pub struct SortAndSweep {
    /// Box indices sorted by lower `x` bound.
    order: Vec<usize>,
    /// Boxes whose `x` interval is still open during the sweep.
    active: Vec<usize>,
    /// Pairs whose `x` intervals overlapped in the last run (the `y` tests performed).
    pub x_overlaps: usize,
    /// Pairs reported by the last run.
    pub pairs: usize,
}

impl SortAndSweep {
    /// Empty buffers.
    pub fn new() -> SortAndSweep {
        SortAndSweep::default()
    }

    /// Writes into `out` (cleared first) every pair `(i, j)`, `i < j`, of overlapping or
    /// touching boxes, sorted lexicographically. Reuses this struct's buffers, so repeated
    /// calls do not allocate once the buffers have grown.
    pub fn candidate_pairs(&mut self, aabbs: &[Aabb], out: &mut Vec<(usize, usize)>) {
        out.clear();
        self.x_overlaps = 0;
        self.order.clear();
        self.order
            .extend((0..aabbs.len()).filter(|&i| valid(&aabbs[i])));
        self.order
            .sort_unstable_by(|&i, &j| aabbs[i].min.x.total_cmp(&aabbs[j].min.x).then(i.cmp(&j)));
        self.active.clear();
        for &i in &self.order {
            let bi = &aabbs[i];
            // drop boxes that ended strictly before this one starts (touching ones stay)
            self.active.retain(|&j| aabbs[j].max.x >= bi.min.x);
            for &j in &self.active {
                self.x_overlaps += 1;
                let bj = &aabbs[j];
                if bi.min.y <= bj.max.y && bj.min.y <= bi.max.y {
                    out.push(if i < j { (i, j) } else { (j, i) });
                }
            }
            self.active.push(i);
        }
        out.sort_unstable();
        self.pairs = out.len();
    }
}

/// A box takes part only if its bounds are ordered and not NaN.
#[inline]
fn valid(b: &Aabb) -> bool {
    b.min.x <= b.max.x && b.min.y <= b.max.y
}

/// Every pair `(i, j)`, `i < j`, of overlapping or touching boxes, sorted, written into `out`
/// (cleared first). Sort-and-sweep; see [`SortAndSweep`] to reuse the buffers across calls.
pub fn candidate_pairs(aabbs: &[Aabb], out: &mut Vec<(usize, usize)>) {
    SortAndSweep::new().candidate_pairs(aabbs, out);
}

/// The `O(n²)` reference: every pair `(i, j)`, `i < j`, of overlapping or touching boxes with
/// valid bounds, sorted, written into `out` (cleared first).
pub fn brute_force_pairs(aabbs: &[Aabb], out: &mut Vec<(usize, usize)>) {
    out.clear();
    for i in 0..aabbs.len() {
        if !valid(&aabbs[i]) {
            continue;
        }
        for j in i + 1..aabbs.len() {
            if valid(&aabbs[j]) && overlaps(&aabbs[i], &aabbs[j]) {
                out.push((i, j));
            }
        }
    }
}
