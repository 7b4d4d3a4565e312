//! Sweep-and-prune for models with few swept bodies (at most [`MAX_BOXES`], e.g. one robot):
//! world-aligned boxes in struct-of-arrays form, swept along the world axis on which the box
//! centres spread most, in an order kept between calls and repaired by insertion sort. The
//! static body filters are a precomputed matrix, so a candidate costs one lookup.
//!
//! For a handful of boxes the principal-axis frame and the grid of
//! [`super::sweep_and_prune::SweepAndPrune`] cost more than they prune. In any frame, bodies
//! that can touch have overlapping boxes, so the contacts do not depend on the choice (models
//! where MuJoCo's boxes do not bound its contacts give this sweep their boxes in MuJoCo's
//! principal frame instead: see [`super::BroadPhase`]). The sweep axis is one of the frame's
//! axes, whichever frame the boxes are in.

/// Largest number of boxes this sweep takes (its pair filter is an n × n matrix).
pub const MAX_BOXES: usize = 128;

/// Models with at most this many allowed box pairs skip the sweep: every allowed pair is
/// tested directly, in `(i, j)` order (for one robot, sorting and scanning cost more than the
/// few box tests they save). Both paths report exactly the allowed overlapping pairs.
pub const DIRECT_PAIRS: usize = 160;

/// Switch the sweep axis only when another axis spreads the box centres this much more (the
/// kept order stays nearly sorted while the axis stays).
const AXIS_HYSTERESIS: f64 = 1.5;

/// Sweep state for up to [`MAX_BOXES`] boxes; buffers and order are reused across calls.
#[derive(Clone, Debug)]
pub struct SmallSweep {
    /// The boxes, bounds along the world axes.
    boxes: Vec<Record>,
    /// Box indices sorted by lower bound along `axis` (as of the last call).
    order: Vec<u16>,
    /// The sweep axis (0, 1, 2 for x, y, z).
    axis: usize,
    /// `allowed[i * n + j]`: boxes `i` and `j` may form a pair (static filters passed).
    allowed: Vec<bool>,
    /// Whether box `i` may pair with any box.
    pairs_any: Vec<bool>,
    /// The boxes in sweep order, bounds along (sweep axis, next, next) (scratch of the scan).
    sorted: Vec<Record>,
    /// Pairs found by the scan, as an n × n bit matrix (`words` 64-bit words per row; bit `j`
    /// of row `i` for the pair `(i, j)`, `i < j`): read back row by row, they come out sorted.
    hits: Vec<u64>,
    words: usize,
    /// The allowed pairs `(i, j)`, `i < j`, in order, when there are at most [`DIRECT_PAIRS`].
    direct: Option<Vec<(u16, u16)>>,
}

/// A box: bounds along the world axes (in [`SmallSweep::set`]) or along the sweep axis first
/// (the scan's records).
#[derive(Clone, Copy, Debug)]
struct Record {
    lo: [f64; 3],
    hi: [f64; 3],
    id: usize,
}

impl SmallSweep {
    /// A sweep over `n` boxes where boxes `i` and `j` may pair only if `allowed(i, j)` (asked
    /// for `i < j`); `None` when `n` exceeds [`MAX_BOXES`].
    pub fn new(n: usize, allowed: impl Fn(usize, usize) -> bool) -> Option<SmallSweep> {
        if n > MAX_BOXES {
            return None;
        }
        let mut matrix = vec![false; n * n];
        for i in 0..n {
            for j in i + 1..n {
                if allowed(i, j) {
                    matrix[i * n + j] = true;
                    matrix[j * n + i] = true;
                }
            }
        }
        let pairs_any = (0..n)
            .map(|i| matrix[i * n..(i + 1) * n].iter().any(|&a| a))
            .collect();
        let words = n.div_ceil(64);
        let mut list = Vec::new();
        for i in 0..n {
            for j in i + 1..n {
                if matrix[i * n + j] {
                    list.push((i as u16, j as u16));
                }
            }
        }
        let direct = (list.len() <= DIRECT_PAIRS).then_some(list);
        Some(SmallSweep {
            boxes: (0..n)
                .map(|id| Record {
                    lo: [f64::INFINITY; 3],
                    hi: [f64::NEG_INFINITY; 3],
                    id,
                })
                .collect(),
            order: (0..n as u16).collect(),
            axis: 0,
            allowed: matrix,
            pairs_any,
            sorted: Vec::with_capacity(n),
            hits: vec![0; n * words],
            words,
            direct,
        })
    }

    /// Number of boxes.
    pub fn len(&self) -> usize {
        self.order.len()
    }

    /// Whether there are no boxes.
    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }

    /// Sets box `i` (ignored when out of range). A box with a lower bound above its upper
    /// bound, or a NaN, on some axis is empty: it overlaps nothing.
    pub fn set(&mut self, i: usize, lo: [f64; 3], hi: [f64; 3]) {
        let Some(b) = self.boxes.get_mut(i) else {
            return;
        };
        let empty = !((lo[0] <= hi[0]) & (lo[1] <= hi[1]) & (lo[2] <= hi[2]));
        (b.lo, b.hi) = if empty {
            ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3])
        } else {
            (lo, hi)
        };
    }

    /// Calls `emit(i, j)` (`i < j`) once for every allowed pair of boxes that overlap on all
    /// three axes (touching counts), in increasing `(i, j)` order.
    pub fn overlapping_pairs(&mut self, mut emit: impl FnMut(usize, usize)) {
        let n = self.len();
        if n < 2 {
            return;
        }
        if let Some(list) = &self.direct {
            let boxes = &self.boxes;
            for &(i, j) in list {
                let (p, q) = (&boxes[i as usize], &boxes[j as usize]);
                let overlap = (q.lo[0] <= p.hi[0])
                    & (p.lo[0] <= q.hi[0])
                    & (q.lo[1] <= p.hi[1])
                    & (p.lo[1] <= q.hi[1])
                    & (q.lo[2] <= p.hi[2])
                    & (p.lo[2] <= q.hi[2]);
                if overlap {
                    emit(i as usize, j as usize);
                }
            }
            return;
        }
        self.choose_axis();
        let a = self.axis;
        let (b, c) = ((a + 1) % 3, (a + 2) % 3);
        let boxes = &self.boxes;
        // insertion sort of the kept order (a few swaps when the boxes moved a little)
        for k in 1..n {
            let id = self.order[k];
            let key = boxes[id as usize].lo[a];
            let mut p = k;
            while p > 0 && boxes[self.order[p - 1] as usize].lo[a] > key {
                self.order[p] = self.order[p - 1];
                p -= 1;
            }
            self.order[p] = id;
        }
        // the boxes in sweep order, each in one record: the scan below streams through them
        self.sorted.clear();
        self.sorted.extend(self.order.iter().map(|&i| {
            let x = &boxes[i as usize];
            Record {
                lo: [x.lo[a], x.lo[b], x.lo[c]],
                hi: [x.hi[a], x.hi[b], x.hi[c]],
                id: x.id,
            }
        }));
        let mut rest = &self.sorted[..];
        while let Some((r, later)) = rest.split_first() {
            rest = later;
            if !self.pairs_any[r.id] {
                continue;
            }
            let row = &self.allowed[r.id * n..(r.id + 1) * n];
            // `r`'s bounds in locals: the stores into `hits` below would otherwise make the
            // compiler reload them for every candidate
            let (end, lo, hi) = (r.hi[0], [r.lo[1], r.lo[2]], [r.hi[1], r.hi[2]]);
            for q in later {
                if q.lo[0] > end {
                    break;
                }
                let overlap = (q.lo[1] <= hi[0])
                    & (lo[0] <= q.hi[1])
                    & (q.lo[2] <= hi[1])
                    & (lo[1] <= q.hi[2]);
                if overlap && row.get(q.id) == Some(&true) {
                    let (i, j) = (r.id.min(q.id), r.id.max(q.id));
                    self.hits[i * self.words + j / 64] |= 1 << (j % 64);
                }
            }
        }
        // read the bit matrix back in order, clearing it for the next call
        for (i, row) in self.hits.chunks_exact_mut(self.words).enumerate() {
            for (w, word) in row.iter_mut().enumerate() {
                let mut bits = std::mem::take(word);
                while bits != 0 {
                    emit(i, w * 64 + bits.trailing_zeros() as usize);
                    bits &= bits - 1;
                }
            }
        }
    }

    /// Keeps the sweep axis unless another world axis spreads the (non-empty) box centres
    /// [`AXIS_HYSTERESIS`] times more; a new axis starts from a fresh order.
    fn choose_axis(&mut self) {
        let (mut sum, mut sq, mut k) = ([0.0f64; 3], [0.0f64; 3], 0.0);
        for x in &self.boxes {
            // a box is empty on all three axes or on none (see `set`)
            if x.lo[0] <= x.hi[0] {
                for a in 0..3 {
                    let c = x.lo[a] + x.hi[a];
                    sum[a] += c;
                    sq[a] += c * c;
                }
                k += 1.0;
            }
        }
        let spread: [f64; 3] = if k > 0.0 {
            std::array::from_fn(|a| sq[a] - sum[a] * sum[a] / k)
        } else {
            [0.0; 3]
        };
        let best = (0..3).fold(self.axis, |b, a| if spread[a] > spread[b] { a } else { b });
        if best != self.axis && spread[best] > AXIS_HYSTERESIS * spread[self.axis] {
            self.axis = best;
            for (k, o) in self.order.iter_mut().enumerate() {
                *o = k as u16;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn brute(
        boxes: &[([f64; 3], [f64; 3])],
        allowed: impl Fn(usize, usize) -> bool,
    ) -> Vec<(usize, usize)> {
        let mut v = Vec::new();
        for i in 0..boxes.len() {
            for j in i + 1..boxes.len() {
                let (a, b) = (boxes[i], boxes[j]);
                if allowed(i, j) && (0..3).all(|k| a.0[k] <= b.1[k] && b.0[k] <= a.1[k]) {
                    v.push((i, j));
                }
            }
        }
        v
    }

    /// The pairs of one call, in the order they are reported.
    fn swept(s: &mut SmallSweep) -> Vec<(usize, usize)> {
        let mut v = Vec::new();
        s.overlapping_pairs(|i, j| v.push((i, j)));
        v
    }

    proptest! {
        /// Over several calls with moving boxes (warm order, axis switches), the sweep finds
        /// exactly the allowed overlapping pairs of a brute-force test, in the same (sorted)
        /// order.
        #[test]
        fn equals_brute_force_across_calls(
            seed in proptest::collection::vec((-3.0f64..3.0, -3.0f64..3.0, -3.0f64..3.0, 0.0f64..1.0), 1..100),
            steps in proptest::collection::vec((-2.0f64..2.0, -2.0f64..2.0, -2.0f64..2.0), 3),
        ) {
            let n = seed.len();
            let allowed = |i: usize, j: usize| !(i * 7 + j * 3).is_multiple_of(5);
            let mut s = SmallSweep::new(n, allowed).unwrap();
            for (step, &(sx, sy, sz)) in steps.iter().enumerate() {
                let boxes: Vec<_> = seed
                    .iter()
                    .enumerate()
                    .map(|(k, &(x, y, z, r))| {
                        let t = step as f64 * (k as f64 * 0.1).sin();
                        let c = [x + sx * t, y + sy * t, z + sz * t];
                        ([c[0] - r, c[1] - r, c[2] - r], [c[0] + r, c[1] + r, c[2] + r])
                    })
                    .collect();
                for (i, &(lo, hi)) in boxes.iter().enumerate() {
                    s.set(i, lo, hi);
                }
                prop_assert_eq!(swept(&mut s), brute(&boxes, allowed));
            }
        }
    }

    /// The direct pair list (few allowed pairs) and the sweep (many) report the same pairs in
    /// the same order as the brute-force test.
    #[test]
    fn direct_pair_list_and_sweep_agree_with_brute_force() {
        for n in [5usize, 17, 19, 40] {
            let allowed = |i: usize, j: usize| !(i + 2 * j).is_multiple_of(3);
            let mut s = SmallSweep::new(n, allowed).unwrap();
            let npairs = (0..n)
                .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
                .filter(|&(i, j)| allowed(i, j))
                .count();
            assert_eq!(s.direct.is_some(), npairs <= DIRECT_PAIRS, "n = {n}");
            let boxes: Vec<_> = (0..n)
                .map(|k| {
                    let c = [
                        (k as f64 * 0.7).sin() * 2.0,
                        (k as f64 * 1.3).cos() * 2.0,
                        k as f64 * 0.1,
                    ];
                    (
                        [c[0] - 0.6, c[1] - 0.6, c[2] - 0.6],
                        [c[0] + 0.6, c[1] + 0.6, c[2] + 0.6],
                    )
                })
                .collect();
            for (i, &(lo, hi)) in boxes.iter().enumerate() {
                s.set(i, lo, hi);
            }
            s.set(1, [f64::NAN; 3], [1.0; 3]);
            let mut expect = brute(&boxes, allowed);
            expect.retain(|&(i, j)| i != 1 && j != 1);
            assert!(!expect.is_empty());
            assert_eq!(swept(&mut s), expect, "n = {n}");
        }
    }

    #[test]
    fn empty_and_nan_boxes_overlap_nothing() {
        let mut s = SmallSweep::new(4, |_, _| true).unwrap();
        s.set(0, [0.0; 3], [1.0; 3]);
        s.set(1, [0.5; 3], [1.5; 3]);
        s.set(2, [f64::NAN, 0.0, 0.0], [1.0; 3]);
        s.set(3, [0.8, 2.0, 0.0], [0.9, 1.0, 1.0]);
        assert_eq!(swept(&mut s), vec![(0, 1)]);
    }

    #[test]
    fn touching_boxes_overlap_and_disallowed_pairs_are_skipped() {
        let mut s = SmallSweep::new(3, |i, j| (i, j) != (0, 2)).unwrap();
        s.set(0, [0.0; 3], [1.0; 3]);
        s.set(1, [1.0, 0.0, 0.0], [2.0, 1.0, 1.0]);
        s.set(2, [0.0; 3], [1.0; 3]);
        assert_eq!(swept(&mut s), vec![(0, 1), (1, 2)]);
        assert!(SmallSweep::new(MAX_BOXES + 1, |_, _| true).is_none());
    }
}
