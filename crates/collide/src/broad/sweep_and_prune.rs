//! Sweep-and-prune over axis-aligned intervals in a chosen frame: sort the boxes along axis 0,
//! scan each box's successors that start before it ends, and prune candidates on axes 1 and 2.

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

    /// Sets the number of boxes (new boxes are empty: `lo = +inf`, `hi = -inf`).
    pub fn resize(&mut self, n: usize) {
        for a in 0..3 {
            self.lo[a].resize(n, f64::INFINITY);
            self.hi[a].resize(n, f64::NEG_INFINITY);
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

/// A box of the sweep, with all its bounds next to each other so that the inner loop streams
/// through contiguous memory (64 bytes).
#[derive(Clone, Copy, Debug, Default)]
struct Packed {
    lo_x: f64,
    hi_x: f64,
    lo_y: f64,
    hi_y: f64,
    lo_z: f64,
    hi_z: f64,
    id: u32,
    /// [`coarse_key`] of `lo_x` (the sort key).
    lo_key: u32,
    /// [`coarse_key`] of `hi_x`: no box whose `lo_key` is larger reaches this one along x.
    hi_key: u32,
    /// The strip holding the box's lower y bound (at most 256 strips).
    strip: u8,
    /// The box belongs to a sleeping body.
    asleep: bool,
}

/// Reusable buffers of the sweep.
#[derive(Clone, Debug, Default)]
pub struct SweepAndPrune {
    /// `coarse_key(lower x bound) << 32 | box index`, sorted.
    order: Vec<u64>,
    /// The boxes, gathered in x order.
    packed: Vec<Packed>,
    /// Boxes of each strip, in x order: `strip_boxes[strip_start[s]..strip_start[s + 1]]`.
    strip_start: Vec<usize>,
    strip_boxes: Vec<Packed>,
    /// Candidate pairs `(lower id, higher id)`; entries past the count are scratch.
    cand: Vec<(u32, u32)>,
    /// Scratch of the radix sort.
    scratch: Vec<u64>,
}

/// Sorts `key << 32 | index` entries by their upper 32 bits (stable LSD radix sort, four
/// 8-bit digits counted in one pass; digits shared by all entries are skipped).
fn radix_sort_keys(v: &mut Vec<u64>, scratch: &mut Vec<u64>) {
    // the four count tables cost a few thousand operations: small inputs sort faster directly
    if v.len() < 512 {
        v.sort_unstable();
        return;
    }
    let mut counts = [[0u32; 256]; 4];
    for &e in v.iter() {
        let k = (e >> 32) as u32;
        counts[0][(k & 0xFF) as usize] += 1;
        counts[1][((k >> 8) & 0xFF) as usize] += 1;
        counts[2][((k >> 16) & 0xFF) as usize] += 1;
        counts[3][(k >> 24) as usize] += 1;
    }
    scratch.clear();
    scratch.resize(v.len(), 0);
    for (digit, count) in counts.iter_mut().enumerate() {
        if count.iter().any(|&c| c as usize == v.len()) {
            continue;
        }
        let mut sum = 0u32;
        for c in count.iter_mut() {
            let n = *c;
            *c = sum;
            sum += n;
        }
        let shift = 32 + 8 * digit as u32;
        for &e in v.iter() {
            let d = ((e >> shift) & 0xFF) as usize;
            scratch[count[d] as usize] = e;
            count[d] += 1;
        }
        std::mem::swap(v, scratch);
    }
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

/// The upper 32 bits of [`order_key`]: monotonic (`x <= y` implies `coarse_key(x) <=
/// coarse_key(y)`), and `coarse_key(x) < coarse_key(y)` implies `x < y`. Sorting on it orders
/// the boxes to about 1e-6 relative precision, which the sweep tolerates by testing x overlap
/// exactly.
#[inline]
fn coarse_key(x: f64) -> u32 {
    (order_key(x) >> 32) as u32
}

/// Strips hold about this many boxes each (fewer strips for small scenes).
const BOXES_PER_STRIP: usize = 64;

impl SweepAndPrune {
    /// Calls `emit(i, j)` (with `i < j`) for every pair of boxes whose closed intervals overlap
    /// on all three axes, exactly once. Touching boxes count as overlapping.
    ///
    /// The boxes are sorted by a coarse key of their lower x bound ([`coarse_key`]). The order
    /// is kept between calls: when the same boxes come back (same count) nearly in order, their
    /// new keys are written into the previous order and it is repaired by insertion sort, which
    /// costs O(n) when the boxes moved little (warm start); otherwise (many descents, or past a
    /// swap budget) it is sorted afresh. Space is cut into strips along y; in each strip, every
    /// box is tested against the later boxes (x order) that start before it ends, and a pair is
    /// reported only by the strip that holds the lower end of its y overlap, so crowds spread
    /// over a plane do not make every scan long. Pairs are emitted after the sweep, in no
    /// particular order.
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
        let key = |i: usize| ((coarse_key(boxes.lo[0][i]) as u64) << 32) | i as u64;
        let mut sorted = false;
        if self.order.len() == n {
            let mut descents = 0usize;
            let mut prev = 0u64;
            for e in &mut self.order {
                *e = key((*e & 0xFFFF_FFFF) as usize);
                descents += (*e < prev) as usize;
                prev = *e;
            }
            // a shuffled order (descents at a sizeable fraction of the boxes) is cheaper to
            // sort afresh than to repair
            sorted = descents <= n / 16 + 4 && insertion_sort_within(&mut self.order, 8 * n + 64);
        } else {
            self.order.clear();
            self.order.extend((0..n).map(key));
        }
        if !sorted {
            radix_sort_keys(&mut self.order, &mut self.scratch);
        }

        // strips along y over the range of the boxes' lower y bounds
        let (mut ymin, mut ymax) = (f64::INFINITY, f64::NEG_INFINITY);
        for &y in &boxes.lo[1] {
            ymin = ymin.min(y);
            ymax = ymax.max(y);
        }
        let nstrip = (n / BOXES_PER_STRIP).clamp(1, 256);
        let width = (ymax - ymin) / nstrip as f64;
        // any monotonic map of y to strips gives the same pairs; the reciprocal saves divisions
        let inv_width = 1.0 / width;
        let strip_of = |y: f64| -> usize {
            if width.is_nan() || width <= 0.0 || !inv_width.is_finite() {
                return 0;
            }
            // truncation is the floor here: the quotient is >= 0 for every lower bound, and
            // upper bounds only clamp further up
            let s = (y - ymin) * inv_width;
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
        self.strip_start.clear();
        self.strip_start.resize(nstrip + 1, 0);
        for &e in &self.order {
            let iu = (e & 0xFFFF_FFFF) as usize;
            let (lo_y, hi_y) = (boxes.lo[1][iu], boxes.hi[1][iu]);
            let strip = strip_of(lo_y);
            for s in strip..=strip_of(hi_y) {
                self.strip_start[s + 1] += 1;
            }
            let (lo_x, hi_x) = (boxes.lo[0][iu], boxes.hi[0][iu]);
            self.packed.push(Packed {
                lo_x,
                hi_x,
                lo_y,
                hi_y,
                lo_z: boxes.lo[2][iu],
                hi_z: boxes.hi[2][iu],
                id: iu as u32,
                lo_key: (e >> 32) as u32,
                hi_key: coarse_key(hi_x),
                strip: strip as u8,
                asleep: asleep.get(iu).copied().unwrap_or(false),
            });
        }
        // counting sort of (box, strip) memberships, keeping x order within each strip
        for s in 0..nstrip {
            self.strip_start[s + 1] += self.strip_start[s];
        }
        self.strip_boxes.clear();
        self.strip_boxes
            .resize(self.strip_start[nstrip], Packed::default());
        // `strip_start[s]` serves as the write cursor of strip `s`
        for p in &self.packed {
            for s in p.strip as usize..=strip_of(p.hi_y) {
                let c = &mut self.strip_start[s];
                self.strip_boxes[*c] = *p;
                *c += 1;
            }
        }
        // the cursors now sit at each strip's end: shift back to starts
        for s in (1..=nstrip).rev() {
            self.strip_start[s] = self.strip_start[s - 1];
        }
        self.strip_start[0] = 0;

        // each box against the later boxes of its strip that start before it ends along x;
        // candidates are written unconditionally and kept by advancing the count (the outcome
        // of the overlap test is hard to predict, a branch on it would mispredict often)
        let mut count = 0usize;
        for s in 0..nstrip {
            let strip = &self.strip_boxes[self.strip_start[s]..self.strip_start[s + 1]];
            for (k, cur) in strip.iter().enumerate() {
                let later = &strip[k + 1..];
                if self.cand.len() < count + later.len() {
                    self.cand.resize(count + later.len(), (0, 0));
                }
                let cand = &mut self.cand[count..count + later.len()];
                let mut c = 0usize;
                for a in later {
                    if a.lo_key > cur.hi_key {
                        // sorted by `lo_key`: this and every later box start after `cur` ends
                        break;
                    }
                    let overlap = (a.lo_x <= cur.hi_x)
                        & (cur.lo_x <= a.hi_x)
                        & (a.lo_y <= cur.hi_y)
                        & (cur.lo_y <= a.hi_y)
                        & (a.lo_z <= cur.hi_z)
                        & (cur.lo_z <= a.hi_z)
                        & !(a.asleep & cur.asleep)
                        // the strip of the overlap's lower end (strips are monotonic in y)
                        & (a.strip.max(cur.strip) as usize == s);
                    cand[c] = (a.id.min(cur.id), a.id.max(cur.id));
                    c += overlap as usize;
                }
                count += c;
            }
        }
        for &(i, j) in &self.cand[..count] {
            emit(i as usize, j as usize);
        }
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
    fn radix_sort_orders_coarse_keys() {
        let mut r = 0x9E37_79B9_7F4A_7C15u64;
        let mut v: Vec<u64> = (0..3000u64)
            .map(|i| {
                r ^= r << 13;
                r ^= r >> 7;
                r ^= r << 17;
                let x = (r >> 11) as f64 / (1u64 << 53) as f64 * 200.0 - 100.0;
                ((coarse_key(x) as u64) << 32) | i
            })
            .collect();
        let mut expect = v.clone();
        expect.sort_unstable_by_key(|e| e >> 32);
        radix_sort_keys(&mut v, &mut Vec::new());
        let keys = |w: &[u64]| w.iter().map(|e| e >> 32).collect::<Vec<_>>();
        assert_eq!(keys(&v), keys(&expect));
        // stable: equal keys keep their index order
        assert!(v.windows(2).all(|w| w[0] >> 32 < w[1] >> 32 || w[0] < w[1]));
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
