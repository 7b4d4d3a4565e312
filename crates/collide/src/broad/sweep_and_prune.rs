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

    /// Whether boxes `i` and `j` overlap (closed intervals) on axes 1 and 2.
    #[inline]
    fn overlap_yz(&self, i: usize, j: usize) -> bool {
        self.lo[1][i] <= self.hi[1][j]
            && self.lo[1][j] <= self.hi[1][i]
            && self.lo[2][i] <= self.hi[2][j]
            && self.lo[2][j] <= self.hi[2][i]
    }
}

/// Reusable buffers of the sweep.
#[derive(Clone, Debug, Default)]
pub struct SweepAndPrune {
    /// `(value, box index * 2 + is_upper)` per endpoint.
    endpoints: Vec<(f64, u32)>,
    active: Vec<u32>,
}

impl SweepAndPrune {
    /// Calls `emit(i, j)` (with `i < j`) for every pair of boxes whose closed intervals overlap
    /// on all three axes. Touching boxes count as overlapping.
    pub fn overlapping_pairs(&mut self, boxes: &Intervals, mut emit: impl FnMut(usize, usize)) {
        let n = boxes.len();
        self.endpoints.clear();
        for i in 0..n {
            self.endpoints.push((boxes.lo[0][i], 2 * i as u32));
            self.endpoints.push((boxes.hi[0][i], 2 * i as u32 + 1));
        }
        // lower endpoints first on ties, so touching intervals overlap
        self.endpoints.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then((a.1 & 1).cmp(&(b.1 & 1))));
        self.active.clear();
        for &(_, e) in &self.endpoints {
            let i = (e >> 1) as usize;
            if e & 1 == 0 {
                for &j in &self.active {
                    let j = j as usize;
                    if boxes.overlap_yz(i, j) {
                        emit(i.min(j), i.max(j));
                    }
                }
                self.active.push(i as u32);
            } else if let Some(k) = self.active.iter().position(|&a| a as usize == i) {
                self.active.swap_remove(k);
            }
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
            (prop::array::uniform3(-10.0..10.0f64), prop::array::uniform3(0.0..3.0f64)), 0..120)) {
            let mut b = Intervals::default();
            for (c, h) in &boxes {
                b.push([c[0] - h[0], c[1] - h[1], c[2] - h[2]], [c[0] + h[0], c[1] + h[1], c[2] + h[2]]);
            }
            let mut got = Vec::new();
            SweepAndPrune::default().overlapping_pairs(&b, |i, j| got.push((i, j)));
            got.sort_unstable();
            prop_assert_eq!(got, brute(&b));
        }
    }

    #[test]
    fn touching_intervals_overlap() {
        let mut b = Intervals::default();
        b.push([0.0; 3], [1.0; 3]);
        b.push([1.0, 0.0, 0.0], [2.0, 1.0, 1.0]);
        let mut got = Vec::new();
        SweepAndPrune::default().overlapping_pairs(&b, |i, j| got.push((i, j)));
        assert_eq!(got, vec![(0, 1)]);
    }
}
