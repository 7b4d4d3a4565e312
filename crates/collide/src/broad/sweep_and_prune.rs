//! Sweep-and-prune over axis-aligned intervals in a chosen frame: sort the boxes along axis 0,
//! scan each box's successors that start before it ends, and prune candidates on axes 1 and 2.

/// Boxes in the sweep frame, each stored as `[lo_x, hi_x, lo_y, hi_y, lo_z, hi_z]` in one
/// contiguous record (the sweep gathers whole boxes in sorted order, one memory access each).
#[derive(Clone, Debug, Default)]
pub struct Intervals {
    bounds: Vec<[f64; 6]>,
}

/// The record of a box with lower bounds `lo` and upper bounds `hi`.
#[inline]
fn record(lo: [f64; 3], hi: [f64; 3]) -> [f64; 6] {
    [lo[0], hi[0], lo[1], hi[1], lo[2], hi[2]]
}

impl Intervals {
    /// Removes all boxes, keeping capacity.
    pub fn clear(&mut self) {
        self.bounds.clear();
    }

    /// Sets the number of boxes (new boxes are empty: `lo = +inf`, `hi = -inf`).
    pub fn resize(&mut self, n: usize) {
        self.bounds
            .resize(n, record([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]));
    }

    /// Overwrites box `i` (ignored when `i` is out of range).
    pub fn set(&mut self, i: usize, lo: [f64; 3], hi: [f64; 3]) {
        if let Some(b) = self.bounds.get_mut(i) {
            *b = record(lo, hi);
        }
    }

    /// Appends a box.
    pub fn push(&mut self, lo: [f64; 3], hi: [f64; 3]) {
        self.bounds.push(record(lo, hi));
    }

    /// Lower and upper bounds of box `i`, or `None` when out of range.
    pub fn get(&self, i: usize) -> Option<([f64; 3], [f64; 3])> {
        self.bounds
            .get(i)
            .map(|b| ([b[0], b[2], b[4]], [b[1], b[3], b[5]]))
    }

    /// The boxes as `[lo_x, hi_x, lo_y, hi_y, lo_z, hi_z]` records.
    pub fn records(&self) -> &[[f64; 6]] {
        &self.bounds
    }

    /// Number of boxes.
    pub fn len(&self) -> usize {
        self.bounds.len()
    }

    /// Whether there are no boxes.
    pub fn is_empty(&self) -> bool {
        self.bounds.is_empty()
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
    /// Box index in the low 31 bits; the top bit is set when the box belongs to a sleeping
    /// body.
    id: u32,
    /// `coarse_key` of `lo_x` (the sort key).
    lo_key: u32,
    /// `coarse_key` of `hi_x`: no box whose `lo_key` is larger reaches this one along x.
    hi_key: u32,
    /// Grid cell (along y) holding the box's lower y bound.
    cy: u16,
    /// Grid cell (along z) holding the box's lower z bound.
    cz: u16,
}

/// Top bit of [`Packed::id`]: the box belongs to a sleeping body.
const ASLEEP: u32 = 1 << 31;

impl Packed {
    /// The sort key: `lo_key` then box index.
    #[inline]
    fn sort_key(&self) -> u64 {
        ((self.lo_key as u64) << 32) | (self.id & !ASLEEP) as u64
    }

    /// Whether the box is empty (a lower bound above its upper bound, or NaN, on some axis).
    #[inline]
    fn is_empty(&self) -> bool {
        !((self.lo_x <= self.hi_x) & (self.lo_y <= self.hi_y) & (self.lo_z <= self.hi_z))
    }

    /// Whether the two boxes overlap on all three axes and are not both asleep.
    #[inline]
    fn overlaps(&self, a: &Packed) -> bool {
        (a.lo_x <= self.hi_x)
            & (self.lo_x <= a.hi_x)
            & (a.lo_y <= self.hi_y)
            & (self.lo_y <= a.hi_y)
            & (a.lo_z <= self.hi_z)
            & (self.lo_z <= a.hi_z)
            & (a.id & self.id & ASLEEP == 0)
    }

    /// The pair `(lower index, higher index)`.
    #[inline]
    fn pair(&self, a: &Packed) -> (u32, u32) {
        let (i, j) = (self.id & !ASLEEP, a.id & !ASLEEP);
        (i.min(j), i.max(j))
    }
}

/// A regular grid over the (y, z) plane of the sweep frame: cell `(cy, cz)` of the point
/// `(y, z)` is `floor((y - y0) * inv_y)`, `floor((z - z0) * inv_z)`, clamped to the grid. The map
/// is monotonic on each axis, which is all the pair bookkeeping relies on.
#[derive(Clone, Copy, Debug)]
struct Grid {
    y0: f64,
    z0: f64,
    inv_y: f64,
    inv_z: f64,
    ny: usize,
    nz: usize,
}

/// Cell of coordinate `v` on one grid axis (NaN and anything below the origin map to 0).
#[inline]
fn axis_cell(v: f64, origin: f64, inv: f64, n: usize) -> usize {
    let s = (v - origin) * inv;
    if s >= n as f64 {
        n - 1
    } else if s > 0.0 {
        // truncation is the floor for positive quotients
        s as usize
    } else {
        0
    }
}

impl Grid {
    /// Cell ranges `(cy0, cy1, cz0, cz1)` (inclusive) that a box's y and z extent covers.
    #[inline]
    fn cells(&self, lo_y: f64, hi_y: f64, lo_z: f64, hi_z: f64) -> (usize, usize, usize, usize) {
        if self.nz == 1 {
            // strips along y
            let (y0, y1) = (
                axis_cell(lo_y, self.y0, self.inv_y, self.ny),
                axis_cell(hi_y, self.y0, self.inv_y, self.ny),
            );
            return (y0, y1, 0, 0);
        }
        (
            axis_cell(lo_y, self.y0, self.inv_y, self.ny),
            axis_cell(hi_y, self.y0, self.inv_y, self.ny),
            axis_cell(lo_z, self.z0, self.inv_z, self.nz),
            axis_cell(hi_z, self.z0, self.inv_z, self.nz),
        )
    }
}

/// Reusable buffers of the sweep.
#[derive(Clone, Debug, Default)]
pub struct SweepAndPrune {
    /// `coarse_key(lower x bound) << 32 | box index`, sorted (when sorting afresh).
    order: Vec<u64>,
    /// All the boxes, gathered in x order (kept between calls: the warm-start order).
    packed: Vec<Packed>,
    /// Boxes of each grid cell, in x order: `cell_boxes[cell_start[c]..cell_start[c + 1]]`.
    cell_start: Vec<usize>,
    cell_boxes: Vec<Packed>,
    /// Boxes covering more than `LARGE_SPAN` cells, in x order, and their positions in
    /// `packed`.
    large: Vec<Packed>,
    large_pos: Vec<usize>,
    /// Upper grid cells `cy << 16 | cz` of the boxes, indexed like `packed`.
    upper: Vec<u32>,
    /// Sampled box extents along y and z (grid sizing).
    samples: Vec<f64>,
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

/// Insertion sort by `key` that gives up (returning `false`, the slice partly sorted) after
/// `budget` element moves; `true` when the slice is sorted.
fn insertion_sort_within<T: Copy, K: Ord>(
    v: &mut [T],
    budget: usize,
    key: impl Fn(&T) -> K,
) -> bool {
    let mut moves = 0;
    for i in 1..v.len() {
        let x = v[i];
        let kx = key(&x);
        let mut j = i;
        while j > 0 && key(&v[j - 1]) > kx {
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

/// Scenes of fewer boxes are cut into strips along y only, of [`BOXES_PER_STRIP`] boxes each
/// on average: cheaper to set up, and as fast as cells on the corpus scenes (a crowd of 100
/// humanoids: 1,600 bodies).
const STRIPS_BELOW: usize = 4096;

/// Boxes per strip in scenes of fewer than [`STRIPS_BELOW`] boxes.
const BOXES_PER_STRIP: usize = 64;

/// The grid has at most one cell per this many boxes (a single cell for small scenes).
const BOXES_PER_CELL: usize = 32;

/// Grid cells are this many times the median box extent (along y, and along z): small scenes
/// sit in cache, where each candidate tested costs more than copying a box into one more
/// cell; in large scenes the scattered copies cost more (measured with the `broad_scale` bench
/// and the humanoid crowd).
fn cell_per_extent(n: usize) -> f64 {
    if n < 1 << 16 {
        4.0
    } else {
        8.0
    }
}

/// Boxes covering more cells than this are swept against all boxes instead of being copied
/// into every cell.
const LARGE_SPAN: usize = 16;

/// Whether a box record is empty (a lower bound above its upper bound, or NaN, on some axis).
#[inline]
fn is_empty(b: &[f64; 6]) -> bool {
    !((b[0] <= b[1]) & (b[2] <= b[3]) & (b[4] <= b[5]))
}

/// Writes `p` at `v[*count]` (growing `v` when full) and advances the count.
#[inline]
fn push_at(v: &mut Vec<(u32, u32)>, count: &mut usize, p: (u32, u32)) {
    if *count < v.len() {
        v[*count] = p;
    } else {
        v.push(p);
    }
    *count += 1;
}

/// Median of `v` (reordered), or 0 when empty.
fn median(v: &mut [f64]) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    let mid = v.len() / 2;
    *v.select_nth_unstable_by(mid, f64::total_cmp).1
}

/// Number of cells and their reciprocal width along one axis whose lower bounds span `range`,
/// for cells of width `width` (one cell when either is not a positive finite number).
fn axis_cells(range: f64, width: f64) -> (usize, f64) {
    let n = (range / width).floor() + 1.0;
    if range > 0.0 && width > 0.0 && n.is_finite() && n > 1.0 {
        ((n as usize).min(1 << 15), 1.0 / width)
    } else {
        (1, 0.0)
    }
}

impl SweepAndPrune {
    /// Calls `emit(i, j)` (with `i < j`) for every pair of boxes whose closed intervals overlap
    /// on all three axes, exactly once. Touching boxes count as overlapping; an empty box (a
    /// lower bound above its upper bound, or NaN, on some axis) overlaps nothing.
    ///
    /// The boxes are sorted by a coarse key of their lower x bound (`coarse_key`). The order
    /// is kept between calls: when the same number of boxes comes back, they are read in the
    /// previous order into records of the sweep, which are repaired by insertion sort when few
    /// are out of place (O(n) for small motions), or else sorted by key and permuted (the
    /// permutation stays local when the boxes moved little). Otherwise they are sorted afresh.
    ///
    /// The (y, z) plane is cut into a grid of cells a few times the median box extent (one
    /// cell for small scenes, at most one cell per `BOXES_PER_CELL` boxes). Each box is
    /// copied, in x order, into every cell its y–z extent covers; in each cell, every box is
    /// tested against the later boxes that start before it ends along x, and a pair is reported
    /// only by the cell holding the lower corner of its y–z overlap. Boxes covering more than
    /// `LARGE_SPAN` cells are instead tested against every box of their x range. Pairs are
    /// emitted in no particular order (deterministic for given boxes and call history).
    ///
    /// Boxes flagged in `asleep` (indexed like the boxes; may be empty) are never tested against
    /// each other. Box indices must fit in 31 bits.
    pub fn overlapping_pairs(
        &mut self,
        boxes: &Intervals,
        asleep: &[bool],
        mut emit: impl FnMut(usize, usize),
    ) {
        let bounds = &boxes.bounds;
        let n = bounds.len();
        let gather = |i: usize| -> Packed {
            let r = &bounds[i];
            let sleep = if asleep.get(i).copied().unwrap_or(false) {
                ASLEEP
            } else {
                0
            };
            Packed {
                lo_x: r[0],
                hi_x: r[1],
                lo_y: r[2],
                hi_y: r[3],
                lo_z: r[4],
                hi_z: r[5],
                id: i as u32 & !ASLEEP | sleep,
                lo_key: coarse_key(r[0]),
                hi_key: coarse_key(r[1]),
                cy: 0,
                cz: 0,
            }
        };
        // the boxes are read once, in the order of the previous call, which is then repaired
        let mut sorted = false;
        if self.packed.len() == n {
            let mut descents = 0usize;
            let mut prev = 0u64;
            for b in &mut self.packed {
                *b = gather((b.id & !ASLEEP) as usize);
                let k = b.sort_key();
                descents += (k < prev) as usize;
                prev = k;
            }
            // a shuffled order (descents at a sizeable fraction of the boxes) is cheaper to
            // sort afresh than to repair
            sorted = descents <= n / 16 + 4
                && insertion_sort_within(&mut self.packed, 2 * n + 64, Packed::sort_key);
            if !sorted && n >= STRIPS_BELOW {
                // sort positions by key and permute: the boxes mostly move a short way, so the
                // reads stay close to each other (`cell_boxes` serves as the scratch); small
                // scenes sit in cache and sort afresh (below) at less cost
                self.order.clear();
                self.order.extend(
                    (self.packed.iter().enumerate())
                        .map(|(q, b)| ((b.lo_key as u64) << 32) | q as u64),
                );
                radix_sort_keys(&mut self.order, &mut self.scratch);
                self.cell_boxes.clear();
                let packed = &self.packed;
                self.cell_boxes
                    .extend((self.order.iter()).map(|&e| packed[(e & 0xFFFF_FFFF) as usize]));
                std::mem::swap(&mut self.packed, &mut self.cell_boxes);
                sorted = true;
            }
        }
        if !sorted {
            self.order.clear();
            self.order
                .extend((0..n).map(|i| ((coarse_key(bounds[i][0]) as u64) << 32) | i as u64));
            radix_sort_keys(&mut self.order, &mut self.scratch);
            self.packed.clear();
            self.packed.extend(
                self.order
                    .iter()
                    .map(|&e| gather((e & 0xFFFF_FFFF) as usize)),
            );
        }

        // count the (box, cell) memberships and set the large boxes aside
        let grid = self.grid(boxes);
        let ncell = grid.ny * grid.nz;
        self.cell_start.clear();
        self.cell_start.resize(ncell + 1, 0);
        self.large.clear();
        self.large_pos.clear();
        self.upper.clear();
        self.upper.resize(n, 0);
        for (q, b) in self.packed.iter_mut().enumerate() {
            if b.is_empty() {
                continue;
            }
            let (y0, y1, z0, z1) = grid.cells(b.lo_y, b.hi_y, b.lo_z, b.hi_z);
            (b.cy, b.cz) = (y0 as u16, z0 as u16);
            self.upper[q] = ((y1 as u32) << 16) | z1 as u32;
            if (y1 - y0 + 1) * (z1 - z0 + 1) > LARGE_SPAN {
                self.large.push(*b);
                self.large_pos.push(q);
                continue;
            }
            for cy in y0..=y1 {
                for c in cy * grid.nz + z0..=cy * grid.nz + z1 {
                    self.cell_start[c + 1] += 1;
                }
            }
        }
        for c in 0..ncell {
            self.cell_start[c + 1] += self.cell_start[c];
        }
        self.cell_boxes
            .resize(self.cell_start[ncell], Packed::default());

        // pairs found so far: `cand[..count]` (emitted together at the end)
        let mut count = 0usize;
        // copy the boxes into their cells in x order (`cell_start[c]` serves as the write
        // cursor of cell `c`); each box also meets the large boxes that come after it in x
        // order and start before it ends
        let mut next_large = 0usize;
        for (q, b) in self.packed.iter().enumerate() {
            if b.is_empty() {
                continue;
            }
            if next_large < self.large.len() && self.large_pos[next_large] == q {
                next_large += 1;
                continue;
            }
            for l in &self.large[next_large..] {
                if l.lo_key > b.hi_key {
                    break;
                }
                if b.overlaps(l) {
                    push_at(&mut self.cand, &mut count, b.pair(l));
                }
            }
            let (y0, z0) = (b.cy as usize, b.cz as usize);
            let (y1, z1) = (
                (self.upper[q] >> 16) as usize,
                (self.upper[q] & 0xFFFF) as usize,
            );
            for cy in y0..=y1 {
                for c in cy * grid.nz + z0..=cy * grid.nz + z1 {
                    let w = &mut self.cell_start[c];
                    self.cell_boxes[*w] = *b;
                    *w += 1;
                }
            }
        }
        // the cursors now sit at each cell's end: shift back to starts
        for c in (1..=ncell).rev() {
            self.cell_start[c] = self.cell_start[c - 1];
        }
        self.cell_start[0] = 0;

        // each large box against every later non-empty box (x order, large or not) that
        // starts before it ends
        for (l, &q) in self.large.iter().zip(&self.large_pos) {
            for b in &self.packed[q + 1..] {
                if b.lo_key > l.hi_key {
                    break;
                }
                if !b.is_empty() && b.overlaps(l) {
                    push_at(&mut self.cand, &mut count, b.pair(l));
                }
            }
        }

        // each box against the later boxes of its cell that start before it ends along x;
        // candidates are written unconditionally and kept by advancing the count (the outcome
        // of the overlap test is hard to predict, a branch on it would mispredict often)
        for cy in 0..grid.ny {
            for cz in 0..grid.nz {
                let c = cy * grid.nz + cz;
                let cell = &self.cell_boxes[self.cell_start[c]..self.cell_start[c + 1]];
                let (cy, cz) = (cy as u16, cz as u16);
                for (k, cur) in cell.iter().enumerate() {
                    let later = &cell[k + 1..];
                    if self.cand.len() < count + later.len() {
                        self.cand.resize(count + later.len(), (0, 0));
                    }
                    let cand = &mut self.cand[count..count + later.len()];
                    let mut m = 0usize;
                    for a in later {
                        if a.lo_key > cur.hi_key {
                            // sorted by `lo_key`: this and every later box start after `cur`
                            // ends
                            break;
                        }
                        // the cell of the lower corner of the y-z overlap (the grid is
                        // monotonic on each axis)
                        let own = (a.cy.max(cur.cy) == cy) & (a.cz.max(cur.cz) == cz);
                        cand[m] = cur.pair(a);
                        m += (cur.overlaps(a) & own) as usize;
                    }
                    count += m;
                }
            }
        }
        for &(i, j) in &self.cand[..count] {
            emit(i as usize, j as usize);
        }
    }

    /// The (y, z) grid for these boxes: cells [`cell_per_extent`] times the median extent of
    /// sampled boxes, over the range of the non-empty boxes' lower bounds, at most one cell per
    /// `BOXES_PER_CELL` boxes.
    fn grid(&mut self, boxes: &Intervals) -> Grid {
        let bounds = &boxes.bounds;
        let n = bounds.len();
        let single = Grid {
            y0: 0.0,
            z0: 0.0,
            inv_y: 0.0,
            inv_z: 0.0,
            ny: 1,
            nz: 1,
        };
        let max_cells = n / BOXES_PER_CELL;
        if max_cells < 2 {
            return single;
        }
        let (mut y0, mut y1, mut z0, mut z1) = (
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::INFINITY,
            f64::NEG_INFINITY,
        );
        for r in bounds {
            if !is_empty(r) && r[2].is_finite() && r[4].is_finite() {
                y0 = y0.min(r[2]);
                y1 = y1.max(r[2]);
                z0 = z0.min(r[4]);
                z1 = z1.max(r[4]);
            }
        }
        if !(y0 <= y1 && z0 <= z1) {
            return single;
        }
        if n < STRIPS_BELOW {
            // strips along y, of equal width over the range of the lower bounds
            let ny = (n / BOXES_PER_STRIP).clamp(1, 256);
            let inv_y = ny as f64 / (y1 - y0);
            if !(inv_y.is_finite() && inv_y > 0.0) {
                return single;
            }
            return Grid {
                y0,
                inv_y,
                ny,
                ..single
            };
        }
        // median extents of about 128 boxes spread over the list
        let stride = (n / 128).max(1);
        let mut extent = [0.0; 2];
        for (a, e) in extent.iter_mut().enumerate() {
            self.samples.clear();
            self.samples.extend(
                bounds
                    .iter()
                    .step_by(stride)
                    .filter(|r| !is_empty(r))
                    .map(|r| r[2 * a + 3] - r[2 * a + 2]),
            );
            *e = median(&mut self.samples);
        }
        let k = cell_per_extent(n);
        let (mut wy, mut wz) = (k * extent[0], k * extent[1]);
        // flat or thin scenes: a zero-extent axis gets a single cell
        let (mut ny, mut inv_y) = axis_cells(y1 - y0, wy);
        let (mut nz, mut inv_z) = axis_cells(z1 - z0, wz);
        // too many cells: widen them (a few rounds at most)
        while ny * nz > max_cells {
            let f = ((ny * nz) as f64 / max_cells as f64).sqrt().max(1.1);
            wy *= f;
            wz *= f;
            (ny, inv_y) = axis_cells(y1 - y0, wy);
            (nz, inv_z) = axis_cells(z1 - z0, wz);
        }
        Grid {
            y0,
            z0,
            inv_y,
            inv_z,
            ny,
            nz,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn brute(b: &Intervals) -> Vec<(usize, usize)> {
        brute_asleep(b, &[])
    }

    /// Brute-force pairs of non-empty, overlapping boxes that are not both asleep.
    fn brute_asleep(b: &Intervals, asleep: &[bool]) -> Vec<(usize, usize)> {
        let sleeping = |i: usize| asleep.get(i).copied().unwrap_or(false);
        let mut v = Vec::new();
        for i in 0..b.len() {
            for j in i + 1..b.len() {
                let (ri, rj) = (&b.bounds[i], &b.bounds[j]);
                let overlap =
                    (0..3).all(|a| ri[2 * a] <= rj[2 * a + 1] && rj[2 * a] <= ri[2 * a + 1]);
                let both_asleep = sleeping(i) && sleeping(j);
                if !is_empty(ri) && !is_empty(rj) && overlap && !both_asleep {
                    v.push((i, j));
                }
            }
        }
        v
    }

    /// Boxes of mixed kinds around `centre` with half-sizes `half`: 0 ordinary, 1 points,
    /// 2 long along y or z (spanning many grid cells, or all of them), 3 empty (inverted),
    /// 4 flat in z.
    fn mixed_boxes(spec: &[(u8, [f64; 3], [f64; 3])], shift: impl Fn(usize) -> f64) -> Intervals {
        let mut b = Intervals::default();
        for (k, (kind, c, h)) in spec.iter().enumerate() {
            let c = [c[0] + shift(k), c[1], c[2]];
            let h = match kind {
                1 => [0.0; 3],
                2 if k % 2 == 0 => [h[0], 1e3 * h[1], h[2]],
                2 => [h[0], h[1], 40.0 * h[2]],
                4 => [h[0], h[1], 0.0],
                _ => *h,
            };
            if *kind == 3 {
                b.push(
                    [c[0] + h[0], c[1] + h[1] + 0.1, c[2] + h[2]],
                    [c[0] - h[0], c[1] - h[1], c[2] - h[2]],
                );
            } else {
                b.push(
                    [c[0] - h[0], c[1] - h[1], c[2] - h[2]],
                    [c[0] + h[0], c[1] + h[1], c[2] + h[2]],
                );
            }
        }
        b
    }

    /// One sweep through three calls on `spec`: cold, after a small motion (order repaired),
    /// after a large one (order re-sorted); per call, (sweep's pairs sorted, brute force).
    #[allow(clippy::type_complexity)]
    fn three_calls(
        spec: &[(u8, [f64; 3], [f64; 3])],
        sleep: &[bool],
    ) -> Vec<(Vec<(usize, usize)>, Vec<(usize, usize)>)> {
        let mut sap = SweepAndPrune::default();
        let shifts: [&dyn Fn(usize) -> f64; 3] = [
            &|_| 0.0,
            &|k| ((k * 7919) % 13) as f64 * 0.01 - 0.06,
            &|k| ((k * 31) % 17) as f64 * 2.0 - 16.0,
        ];
        shifts
            .iter()
            .map(|shift| {
                let b = mixed_boxes(spec, shift);
                let mut got = Vec::new();
                sap.overlapping_pairs(&b, sleep, |i, j| got.push((i, j)));
                got.sort_unstable();
                (got, brute_asleep(&b, sleep))
            })
            .collect()
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

    proptest! {
        #[test]
        fn grid_sweep_equals_brute_force_on_mixed_boxes(
            spec in proptest::collection::vec(
                (0u8..5, prop::array::uniform3(-20.0..20.0f64), prop::array::uniform3(0.0..0.8f64)),
                0..700),
            sleep in proptest::collection::vec(any::<bool>(), 0..700),
            flat in any::<bool>(),
        ) {
            // flat scenes put every centre on z = 0 (a single cell along z)
            let spec: Vec<_> = spec
                .into_iter()
                .map(|(k, c, h)| (k, [c[0], c[1], if flat { 0.0 } else { c[2] }], h))
                .collect();
            for (step, (got, want)) in three_calls(&spec, &sleep).into_iter().enumerate() {
                prop_assert_eq!(got, want, "step {}", step);
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(6))]
        #[test]
        fn grid_cells_equal_brute_force_on_mixed_boxes(seed in 1u64.., flat in any::<bool>()) {
            // enough boxes for cells over (y, z) rather than strips
            let mut r = seed;
            let mut next = move || {
                r ^= r << 13;
                r ^= r >> 7;
                r ^= r << 17;
                (r >> 11) as f64 / (1u64 << 53) as f64
            };
            let spec: Vec<(u8, [f64; 3], [f64; 3])> = (0..STRIPS_BELOW + 500)
                .map(|_| {
                    let kind = if next() < 0.9 { 0 } else { (next() * 5.0) as u8 };
                    let c = [next() * 40.0, next() * 40.0, if flat { 0.0 } else { next() * 40.0 }];
                    (kind, c, [next() * 0.8, next() * 0.8, next() * 0.8])
                })
                .collect();
            let sleep: Vec<bool> = (0..spec.len()).map(|_| next() < 0.3).collect();
            for (step, (got, want)) in three_calls(&spec, &sleep).into_iter().enumerate() {
                prop_assert_eq!(got, want, "step {}", step);
            }
        }
    }

    #[test]
    fn boxes_spanning_every_cell_meet_all_they_overlap() {
        // 6000 small boxes on a grid of cells over (y, z), crossed by walls long along y and
        // along z and by one box holding everything
        let mut b = Intervals::default();
        let mut r = 0xDEAD_BEEF_1234_5678u64;
        let mut next = move || {
            r ^= r << 13;
            r ^= r >> 7;
            r ^= r << 17;
            (r >> 11) as f64 / (1u64 << 53) as f64
        };
        for _ in 0..6000 {
            let c = [next() * 30.0, next() * 30.0, next() * 30.0];
            let h = 0.1 + 0.4 * next();
            b.push(
                [c[0] - h, c[1] - h, c[2] - h],
                [c[0] + h, c[1] + h, c[2] + h],
            );
        }
        for k in 0..10 {
            let x = 3.0 * k as f64;
            b.push([x, -1.0, 10.0], [x + 0.5, 31.0, 10.5]);
            b.push([x, 10.0, -1.0], [x + 0.5, 10.5, 31.0]);
        }
        b.push([-1.0; 3], [31.0; 3]);
        let mut got = Vec::new();
        SweepAndPrune::default().overlapping_pairs(&b, &[], |i, j| got.push((i, j)));
        got.sort_unstable();
        let expect = brute(&b);
        // the big box alone overlaps everything
        assert!(expect.len() > 6020);
        assert_eq!(got, expect);
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
        assert!(!insertion_sort_within(&mut v, 50, |&x| x));
        let mut w = vec![1, 0, 2, 4, 3];
        assert!(insertion_sort_within(&mut w, 10, |&x| x));
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
