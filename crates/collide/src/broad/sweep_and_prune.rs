//! Sweep-and-prune over axis-aligned intervals in a chosen frame: sort the interval endpoints
//! along axis 0, sweep with an active list, and prune candidates on axes 1 and 2.

/// Struct-of-arrays boxes: `lo[axis][i]`, `hi[axis][i]` for box `i` in the sweep frame.
#[derive(Clone, Debug, Default)]
pub struct Intervals {
    /// Lower bounds per axis.
    pub lo: [Vec<f64>; 3],
    /// Upper bounds per axis.
    pub hi: [Vec<f64>; 3],
}

impl Intervals {
    /// Removes all boxes, keeping capacity.
    pub fn clear(&mut self) {
        for a in 0..3 {
            self.lo[a].clear();
            self.hi[a].clear();
        }
    }

    /// Overwrites box `i`.
    pub fn set(&mut self, i: usize, lo: [f64; 3], hi: [f64; 3]) {
        for a in 0..3 {
            self.lo[a][i] = lo[a];
            self.hi[a][i] = hi[a];
        }
    }

    /// Appends a box.
    pub fn push(&mut self, lo: [f64; 3], hi: [f64; 3]) {
        for a in 0..3 {
            self.lo[a].push(lo[a]);
            self.hi[a].push(hi[a]);
        }
    }

    /// Number of boxes.
    pub fn len(&self) -> usize {
        self.lo[0].len()
    }

    /// Whether there are no boxes.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// An interval on the sweep in progress, with its cross-axis bounds kept next to it so that
/// the inner loop streams through contiguous memory.
#[derive(Clone, Copy, Debug)]
struct Active {
    lo_x: f64,
    hi_x: f64,
    lo_y: f64,
    hi_y: f64,
    lo_z: f64,
    hi_z: f64,
    id: u32,
    /// The strip holding the box's lower y bound.
    strip: u32,
    /// The strip holding the box's upper y bound.
    strip_end: u32,
    /// The box belongs to a sleeping body.
    asleep: bool,
}

/// Reusable buffers of the sweep.
#[derive(Clone, Debug, Default)]
pub struct SweepAndPrune {
    /// `(order-preserving key of the lower x bound, box index)`, sorted.
    order: Vec<(u64, u32)>,
    /// The boxes, gathered in x order.
    packed: Vec<Active>,
    /// Boxes of each strip (indices into `packed`), in x order: `strip_items[strip_start[s]..strip_start[s + 1]]`.
    strip_start: Vec<usize>,
    strip_items: Vec<u32>,
    active: Vec<Active>,
}

/// Insertion sort that gives up (returning `false`, the slice partly sorted) after `budget`
/// element moves; `true` when the slice is sorted.
fn insertion_sort_within<T: Ord + Copy>(v: &mut [T], budget: usize) -> bool {
    let mut moves = 0;
    for i in 1..v.len() {
        let x = v[i];
        let mut j = i;
        while j > 0 && v[j - 1] > x {
            v[j] = v[j - 1];
            j -= 1;
            moves += 1;
        }
        v[j] = x;
        if moves > budget {
            return false;
        }
    }
    true
}

/// Maps an `f64` to a `u64` with the same order (IEEE total order), for integer sorting.
#[inline]
fn order_key(x: f64) -> u64 {
    let b = x.to_bits();
    if b >> 63 == 1 {
        !b
    } else {
        b | (1 << 63)
    }
}

/// Strips hold about this many boxes each (fewer strips for small scenes).
const BOXES_PER_STRIP: usize = 64;

impl SweepAndPrune {
    /// Calls `emit(i, j)` (with `i < j`) for every pair of boxes whose closed intervals overlap
    /// on all three axes, exactly once. Touching boxes count as overlapping.
    ///
    /// The boxes are sorted by their lower x bound. The order is kept between calls: when the
    /// same boxes come back (same count), their new keys are written into the previous order
    /// and it is repaired by insertion sort, which costs O(n) when the boxes moved little
    /// (warm start); past a swap budget it falls back to a full sort. Space is cut into strips
    /// along y; each strip is swept along x with an active list of the boxes whose x interval
    /// still reaches the current one, and a pair is reported only by the strip that holds the
    /// lower end of its y overlap, so crowds spread over a plane do not make every active list
    /// long.
    ///
    /// Boxes flagged in `asleep` (indexed like the boxes; may be empty) are never tested against
    /// each other.
    pub fn overlapping_pairs(
        &mut self,
        boxes: &Intervals,
        asleep: &[bool],
        mut emit: impl FnMut(usize, usize),
    ) {
        let n = boxes.len();
        if self.order.len() == n {
            for e in &mut self.order {
                e.0 = order_key(boxes.lo[0][e.1 as usize]);
            }
            if !insertion_sort_within(&mut self.order, 8 * n + 64) {
                self.order.sort_unstable();
            }
        } else {
            self.order.clear();
            self.order
                .extend((0..n).map(|i| (order_key(boxes.lo[0][i]), i as u32)));
            self.order.sort_unstable();
        }

        // strips along y over the range of the boxes' lower y bounds
        let (mut ymin, mut ymax) = (f64::INFINITY, f64::NEG_INFINITY);
        for i in 0..n {
            ymin = ymin.min(boxes.lo[1][i]);
            ymax = ymax.max(boxes.lo[1][i]);
        }
        let nstrip = (n / BOXES_PER_STRIP).clamp(1, 256);
        let width = (ymax - ymin) / nstrip as f64;
        let strip_of = |y: f64| -> usize {
            if width.is_nan() || width <= 0.0 {
                return 0;
            }
            // truncation is the floor here: the quotient is >= 0 for every lower bound, and
            // upper bounds only clamp further up
            let s = (y - ymin) / width;
            if s >= nstrip as f64 {
                nstrip - 1
            } else if s > 0.0 {
                s as usize
            } else {
                0
            }
        };
        // gather every box once, in x order, so that all later passes stream through memory
        self.packed.clear();
        for &(_, i) in &self.order {
            let iu = i as usize;
            let (lo_y, hi_y) = (boxes.lo[1][iu], boxes.hi[1][iu]);
            self.packed.push(Active {
                lo_x: boxes.lo[0][iu],
                hi_x: boxes.hi[0][iu],
                lo_y,
                hi_y,
                lo_z: boxes.lo[2][iu],
                hi_z: boxes.hi[2][iu],
                id: i,
                strip: strip_of(lo_y) as u32,
                strip_end: strip_of(hi_y) as u32,
                asleep: asleep.get(iu).copied().unwrap_or(false),
            });
        }
        // counting sort of (box, strip) memberships, keeping x order within each strip
        self.strip_start.clear();
        self.strip_start.resize(nstrip + 1, 0);
        for p in &self.packed {
            for s in p.strip..=p.strip_end {
                self.strip_start[s as usize + 1] += 1;
            }
        }
        for s in 0..nstrip {
            self.strip_start[s + 1] += self.strip_start[s];
        }
        self.strip_items.clear();
        self.strip_items.resize(self.strip_start[nstrip], 0);
        // `strip_start[s]` serves as the write cursor of strip `s`
        for (k, p) in self.packed.iter().enumerate() {
            for s in p.strip..=p.strip_end {
                let c = &mut self.strip_start[s as usize];
                self.strip_items[*c] = k as u32;
                *c += 1;
            }
        }
        // the cursors now sit at each strip's end: shift back to starts
        for s in (1..=nstrip).rev() {
            self.strip_start[s] = self.strip_start[s - 1];
        }
        self.strip_start[0] = 0;

        let mut active = std::mem::take(&mut self.active);
        for s in 0..nstrip {
            active.clear();
            for &k in &self.strip_items[self.strip_start[s]..self.strip_start[s + 1]] {
                let cur = self.packed[k as usize];
                let mut a_k = 0;
                while a_k < active.len() {
                    let a: Active = active[a_k];
                    if a.hi_x < cur.lo_x {
                        // boxes come in x order: `a` ends before every later one starts
                        active.swap_remove(a_k);
                        continue;
                    }
                    if !(a.asleep && cur.asleep)
                        && a.lo_y <= cur.hi_y
                        && cur.lo_y <= a.hi_y
                        && a.lo_z <= cur.hi_z
                        && cur.lo_z <= a.hi_z
                        // the strip of the overlap's lower end (strips are monotonic in y)
                        && a.strip.max(cur.strip) as usize == s
                    {
                        let (i, j) = (cur.id as usize, a.id as usize);
                        emit(i.min(j), i.max(j));
                    }
                    a_k += 1;
                }
                active.push(cur);
            }
        }
        self.active = active;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn brute(b: &Intervals) -> Vec<(usize, usize)> {
        let mut v = Vec::new();
        for i in 0..b.len() {
            for j in i + 1..b.len() {
                if (0..3).all(|a| b.lo[a][i] <= b.hi[a][j] && b.lo[a][j] <= b.hi[a][i]) {
                    v.push((i, j));
                }
            }
        }
        v
    }

    proptest! {
        #[test]
        fn equals_brute_force(boxes in proptest::collection::vec(
            (prop::array::uniform3(-10.0..10.0f64), prop::array::uniform3(0.0..3.0f64)), 0..400)) {
            let mut b = Intervals::default();
            for (c, h) in &boxes {
                b.push([c[0] - h[0], c[1] - h[1], c[2] - h[2]], [c[0] + h[0], c[1] + h[1], c[2] + h[2]]);
            }
            let mut got = Vec::new();
            SweepAndPrune::default().overlapping_pairs(&b, &[], |i, j| got.push((i, j)));
            got.sort_unstable();
            prop_assert_eq!(got, brute(&b));
        }
    }

    #[test]
    fn many_strips_equal_brute_force() {
        // 3000 small boxes on a plane: dozens of strips, boxes straddling strip borders
        let mut b = Intervals::default();
        let mut r = 0x2545_F491_4F6C_DD1Du64;
        let mut next = move || {
            r ^= r << 13;
            r ^= r >> 7;
            r ^= r << 17;
            (r >> 11) as f64 / (1u64 << 53) as f64
        };
        for _ in 0..3000 {
            let c = [next() * 40.0, next() * 40.0, next()];
            let h = [next() * 0.5, next() * 0.5, next() * 0.5];
            b.push(
                [c[0] - h[0], c[1] - h[1], c[2] - h[2]],
                [c[0] + h[0], c[1] + h[1], c[2] + h[2]],
            );
        }
        let mut got = Vec::new();
        SweepAndPrune::default().overlapping_pairs(&b, &[], |i, j| got.push((i, j)));
        got.sort_unstable();
        let expect = brute(&b);
        assert!(expect.len() > 1000);
        assert_eq!(got, expect);
    }

    #[test]
    fn warm_start_gives_the_pairs_of_a_cold_sweep() {
        // a sequence of small random motions, then a big reshuffle (the fallback)
        let mut r = 0x1234_5678_9ABC_DEF1u64;
        let mut next = move || {
            r ^= r << 13;
            r ^= r >> 7;
            r ^= r << 17;
            (r >> 11) as f64 / (1u64 << 53) as f64
        };
        let mut centres: Vec<[f64; 3]> = (0..800)
            .map(|_| [next() * 20.0, next() * 20.0, next()])
            .collect();
        let mut warm = SweepAndPrune::default();
        for step in 0..12 {
            let jump = if step == 8 { 10.0 } else { 0.05 };
            for c in &mut centres {
                c[0] += (next() - 0.5) * jump;
                c[1] += (next() - 0.5) * jump;
            }
            let mut b = Intervals::default();
            for c in &centres {
                b.push(
                    [c[0] - 0.3, c[1] - 0.3, c[2] - 0.3],
                    [c[0] + 0.3, c[1] + 0.3, c[2] + 0.3],
                );
            }
            let mut got = Vec::new();
            warm.overlapping_pairs(&b, &[], |i, j| got.push((i, j)));
            got.sort_unstable();
            assert_eq!(got, brute(&b), "step {step}");
        }
    }

    #[test]
    fn insertion_sort_gives_up_past_its_budget() {
        let mut v: Vec<u32> = (0..100).rev().collect();
        assert!(!insertion_sort_within(&mut v, 50));
        let mut w = vec![1, 0, 2, 4, 3];
        assert!(insertion_sort_within(&mut w, 10));
        assert_eq!(w, vec![0, 1, 2, 3, 4]);
    }

    #[test]
    fn order_key_preserves_order() {
        let xs = [
            f64::NEG_INFINITY,
            -1e300,
            -2.5,
            -0.0,
            0.0,
            1e-300,
            3.0,
            1e300,
            f64::INFINITY,
        ];
        for w in xs.windows(2) {
            assert!(order_key(w[0]) <= order_key(w[1]), "{} {}", w[0], w[1]);
        }
    }

    #[test]
    fn touching_intervals_overlap() {
        let mut b = Intervals::default();
        b.push([0.0; 3], [1.0; 3]);
        b.push([1.0, 0.0, 0.0], [2.0, 1.0, 1.0]);
        let mut got = Vec::new();
        SweepAndPrune::default().overlapping_pairs(&b, &[], |i, j| got.push((i, j)));
        assert_eq!(got, vec![(0, 1)]);
    }
}
