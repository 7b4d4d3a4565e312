//! Broad phase (MuJoCo's `mj_broadphase`): one box per collidable body in the principal frame of
//! the geom centres, sweep-and-prune on them, plus "always-colliding" bodies (the world and
//! dof-less weld groups owning a plane, whose boxes would degenerate) paired with every body.
//! Output: body pair signatures `(b1 << 16) + b2`, sorted and unique, after the body filters.
//!
//! Three sweeps give the same pairs at different costs: [`small_sweep`] for a few bodies (one
//! robot), [`tree_sweep`] for many kinematic trees of several bodies (a crowd), and
//! [`sweep_and_prune`] otherwise (many free bodies).

pub mod small_sweep;
pub mod sweep_and_prune;
pub mod tree_sweep;

use glam::{DMat3, DVec3};

use crate::filter::{bodies_can_collide, body_pair_allowed, signature};
use crate::kinematics::PoseView;
use crate::math::{eig3, quat_to_mat};
use crate::model::{disable, enable, GeomType, Model};
use small_sweep::SmallSweep;
use sweep_and_prune::{Intervals, SweepAndPrune};
use tree_sweep::TreeSweep;

/// Broad-phase state built once per model; buffers are reused across calls.
#[derive(Clone, Debug, Default)]
pub struct BroadPhase {
    /// Collidable bodies that go through sweep-and-prune.
    swept: Vec<usize>,
    /// The body filters of `swept[k]`, packed (read per candidate pair of the sweep).
    swept_filter: Vec<BodyFilter>,
    /// Bodies paired with everything directly.
    always: Vec<usize>,
    /// All collidable bodies.
    collidable: Vec<usize>,
    /// Signatures of the `always` bodies' pairs that pass the body filters, sorted and unique.
    always_pairs: Vec<u32>,
    /// Collidable geoms of all bodies, body by body: those of body `b` are
    /// `geoms[geoms_start[b]..geoms_start[b + 1]]`.
    geoms: Vec<usize>,
    geoms_start: Vec<usize>,
    /// The box inputs of `geoms[k]`, in the same order.
    geom_boxes: Vec<GeomBox>,
    boxes: Intervals,
    sap: SweepAndPrune,
    /// The two-level sweep of models made of many kinematic trees (used instead of `sap`).
    trees: Option<TreeSweep>,
    /// The sweep of models with few swept bodies (world axes, or MuJoCo's frame when
    /// `mujoco_frame` is set); used while no body sleeps.
    small: Option<SmallSweep>,
    /// Per body: marked asleep by the caller (see [`BroadPhase::set_asleep`]).
    asleep: Vec<bool>,
    /// Whether any body is asleep.
    any_asleep: bool,
    /// Per swept box: asleep (its box is kept from an earlier call, not recomputed).
    box_asleep: Vec<bool>,
    /// Sweep frame of the previous call, kept while the principal axis stays within ~8° so
    /// that the sweep order stays nearly sorted between calls (warm start); never kept when
    /// `mujoco_frame` is set.
    axes: Option<[DVec3; 3]>,
    /// The boxes do not bound every contact (see `boxes_bound_contacts`), so the pairs depend
    /// on the sweep frame: sweep in MuJoCo's frame of the current poses, with the first axis's
    /// bounds rounded to `f32` as MuJoCo's sort keys are.
    mujoco_frame: bool,
    /// Whether this call kept the previous sweep frame.
    axes_kept: bool,
    pairs: Vec<u32>,
    /// Scratch of the counting sort of `pairs`.
    scratch: Vec<u32>,
    counts: Vec<u32>,
}

/// What the body filters read of one body, in one record: `body_pair_allowed` and
/// `bodies_can_collide` of two bodies are [`BodyFilter::allows`] of their records.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct BodyFilter {
    /// Weld group (`body_weldid`).
    weld: usize,
    /// The weld group of the weld body's parent when the parent filter applies to this body
    /// (`filterparent` on, neither group the world), else `usize::MAX` (matches no group).
    parent_weld: usize,
    /// The weld group has no dofs (static or mocap).
    fixed: bool,
    contype: u32,
    conaffinity: u32,
}

impl BodyFilter {
    fn of(m: &Model, b: usize) -> BodyFilter {
        let w = m.body_weldid[b];
        let wp = m.body_weldid[m.body_parentid[w]];
        let parent_filter = m.opt.disableflags & disable::FILTERPARENT == 0 && w != 0 && wp != 0;
        BodyFilter {
            weld: w,
            parent_weld: if parent_filter { wp } else { usize::MAX },
            fixed: m.body_dofnum[w] == 0,
            contype: m.body_contype[b],
            conaffinity: m.body_conaffinity[b],
        }
    }

    /// `body_pair_allowed(a, b) && bodies_can_collide(a, b)` (see [`crate::filter`]).
    #[inline]
    fn allows(&self, o: &BodyFilter) -> bool {
        self.weld != o.weld
            && !(self.fixed && o.fixed)
            && self.weld != o.parent_weld
            && o.weld != self.parent_weld
            && ((self.contype & o.conaffinity) != 0 || (o.contype & self.conaffinity) != 0)
    }
}

/// The sweep frame: the principal axes of the geom-centre covariance, largest variance first,
/// so that the sweep runs along the direction that separates bodies best. These are the
/// columns of `mju_eig3`'s eigenvector matrix, the frame MuJoCo 4.0.0 sweeps in (measured:
/// where the pairs depend on the frame, see `boxes_bound_contacts`, its pairs are those of the
/// columns, not of the rows as MuJoCo's older source reads); where the boxes bound every
/// contact any orthonormal frame gives the same pairs, the principal one just prunes more.
pub fn principal_axes(m: &Model, poses: &PoseView) -> [DVec3; 3] {
    let mut n = 0usize;
    let mut cen = DVec3::ZERO;
    for g in 0..m.ngeom() {
        if m.geom_bodyid[g] != 0 {
            cen += poses.geom_xpos[g];
            n += 1;
        }
    }
    if n == 0 {
        return [DVec3::X, DVec3::Y, DVec3::Z];
    }
    cen /= n as f64;
    let mut cov = DMat3::ZERO;
    for g in 0..m.ngeom() {
        if m.geom_bodyid[g] != 0 {
            let d = poses.geom_xpos[g] - cen;
            cov += DMat3::from_cols(d * d.x, d * d.y, d * d.z);
        }
    }
    cov *= 1.0 / n as f64;
    let (_, q) = eig3(&cov);
    let f = quat_to_mat(q);
    [f.x_axis, f.y_axis, f.z_axis]
}

/// The top-level body (child of the world) of the kinematic tree holding body `b` (the world
/// for the world; a malformed parent chain stops after `nbody` steps).
fn tree_root(m: &Model, b: usize) -> usize {
    let mut r = b;
    for _ in 0..m.nbody() {
        match m.body_parentid.get(r) {
            Some(&p) if p != 0 && p != r => r = p,
            _ => break,
        }
    }
    r
}

/// Whether every contact the narrow phase can report lies within the boxes of [`body_box`], in
/// any frame: then the body pairs of any frame's sweep give MuJoCo's contacts, and the frame
/// is free. The boxes hold every geom grown by its pair threshold's share, and the narrow
/// phases report contacts only within the threshold of the true distance, with one exception:
/// box–box measures the separation along its best separating axis, a lower bound of the
/// distance, so two boxes with a positive threshold (margins, gaps or the override margin) can
/// touch at a `dist` 0.2043 under a 0.205 threshold while their boxes are apart along other
/// axes (scene 103 of `scene_fuzz --seed 2`). Nor does it hold when the override margin is on
/// while geoms have gaps (the boxes leave the gaps out while the narrow phase adds them), nor
/// for a plane on a moving body (its box is a point). Models where it fails sweep in MuJoCo's
/// own frame ([`BroadPhase::run`]), pair for pair.
fn boxes_bound_contacts<'a>(
    m: &Model,
    swept: &[usize],
    geoms_of: impl Fn(usize) -> &'a [usize],
) -> bool {
    let override_on = m.opt.enableflags & enable::OVERRIDE != 0;
    let mut positive = override_on && m.opt.o_margin != 0.0;
    let mut boxes = 0;
    for &b in swept {
        for &g in geoms_of(b) {
            if m.geom_type[g] == GeomType::Plane || (override_on && m.geom_gap[g] != 0.0) {
                return false;
            }
            boxes += usize::from(m.geom_type[g] == GeomType::Box);
            positive |= m.geom_gap[g] != 0.0 || (!override_on && m.geom_margin[g] != 0.0);
        }
    }
    !(positive && boxes >= 2)
}

/// The growth of every geom box under the override: half of `o_margin`, when the override is
/// on and `o_margin` is nonzero. MuJoCo's `makeAAMM` tests the half margin for zero, so with
/// `o_margin = 0` the boxes grow by each geom's own `margin + gap`, as without the override.
fn override_half_margin(m: &Model) -> Option<f64> {
    let half = 0.5 * m.opt.o_margin;
    (m.opt.enableflags & enable::OVERRIDE != 0 && half != 0.0).then_some(half)
}

/// What [`body_box`] needs of a geom besides its pose, gathered in one record per geom.
#[derive(Clone, Copy, Debug)]
struct GeomBox {
    geom: usize,
    /// Growth of the box: the geom's `margin + gap`, or half the override margin when nonzero,
    /// plus [`BOX_SLACK`]'s growth when the sweep is not in MuJoCo's frame.
    margin: f64,
    rbound: f64,
    /// Local AABB centre and half sizes.
    aabb: [f64; 6],
    /// The local AABB is centred on the geom's origin (primitives): its centre in the frame is
    /// the geom's position (the same value as placing the zero offset, up to the sign of a zero
    /// coordinate, which no interval comparison sees).
    centred: bool,
}

impl GeomBox {
    fn new(m: &Model, g: usize) -> GeomBox {
        let margin = match override_half_margin(m) {
            Some(half) => half,
            None => m.geom_margin[g] + m.geom_gap[g],
        };
        GeomBox {
            geom: g,
            margin,
            rbound: m.geom_rbound[g],
            aabb: m.geom_aabb[g],
            centred: m.geom_aabb[g][..3] == [0.0; 3],
        }
    }
}

/// Growth of boxes swept in a frame other than MuJoCo's, per unit of the model's largest
/// bounding radius plus one. In exact arithmetic any frame gives the same contacts
/// (`boxes_bound_contacts`), but two geoms placed exactly face to face (a box resting on a box
/// at margin 0) touch at a `dist` of 0 that MuJoCo reports when its own rounded boxes overlap,
/// and it sweeps its first axis in `f32`, where they nearly always do; in another frame, in
/// `f64`, they can miss by one unit in the last place. Grown by this slack (far above the
/// rounding of [`body_box`] for coordinates up to 10⁵ such units, far below any gap the narrow
/// phases report a contact across) they are paired, and the narrow phase decides.
const BOX_SLACK: f64 = 1e-10;

/// The box of a body's collidable geoms (`geoms`) along three orthonormal axes, where
/// `to_frame(v)` gives the components of `v` along the axes: per geom, the tighter of its
/// bounding sphere and its oriented box on each axis, grown by the geom's margin and gap (half
/// the override margin when the override is on; see [`GeomBox::margin`]). Returns the lower
/// and upper corners.
#[inline(always)]
fn body_box(
    poses: &PoseView,
    geoms: &[GeomBox],
    to_frame: impl Fn(DVec3) -> DVec3,
) -> ([f64; 3], [f64; 3]) {
    let mut lo = DVec3::INFINITY;
    let mut hi = DVec3::NEG_INFINITY;
    for gb in geoms {
        let (g, a, margin) = (gb.geom, &gb.aabb, gb.margin);
        let r = &poses.geom_xmat[g];
        let p = to_frame(poses.geom_xpos[g]);
        let acen = if gb.centred {
            p
        } else {
            to_frame(poses.geom_xpos[g] + *r * DVec3::new(a[0], a[1], a[2]))
        };
        let ah = (to_frame(r.x_axis) * a[3]).abs()
            + (to_frame(r.y_axis) * a[4]).abs()
            + (to_frame(r.z_axis) * a[5]).abs();
        let rb = DVec3::splat(gb.rbound);
        lo = lo.min((p - rb).max(acen - ah) - margin);
        hi = hi.max((p + rb).min(acen + ah) + margin);
    }
    (lo.to_array(), hi.to_array())
}

/// Sorts body pair signatures `(b1 << 16) + b2` (both ids below `nbody`) with two stable
/// counting passes, by `b2` then by `b1`: O(pairs + bodies), no comparisons.
fn sort_signatures(
    pairs: &mut Vec<u32>,
    scratch: &mut Vec<u32>,
    counts: &mut Vec<u32>,
    nbody: usize,
) {
    if pairs.len() < 64 {
        pairs.sort_unstable();
        return;
    }
    scratch.clear();
    scratch.resize(pairs.len(), 0);
    for shift in [0u32, 16] {
        counts.clear();
        counts.resize(nbody + 1, 0);
        for &p in pairs.iter() {
            counts[((p >> shift) & 0xFFFF) as usize + 1] += 1;
        }
        for b in 0..nbody {
            counts[b + 1] += counts[b];
        }
        for &p in pairs.iter() {
            let d = ((p >> shift) & 0xFFFF) as usize;
            scratch[counts[d] as usize] = p;
            counts[d] += 1;
        }
        std::mem::swap(pairs, scratch);
    }
}

impl BroadPhase {
    /// Prepares the body lists of `m`.
    pub fn new(m: &Model) -> BroadPhase {
        let nb = m.nbody();
        let mut body_geoms = vec![Vec::new(); nb];
        let mut has_plane = vec![false; nb];
        for g in 0..m.ngeom() {
            if m.geom_contype[g] != 0 || m.geom_conaffinity[g] != 0 {
                let b = m.geom_bodyid[g];
                body_geoms[b].push(g);
                has_plane[b] |= m.geom_type[g] == GeomType::Plane;
            }
        }
        let mut bp = BroadPhase {
            geoms_start: std::iter::once(0)
                .chain(body_geoms.iter().scan(0, |n, v| {
                    *n += v.len();
                    Some(*n)
                }))
                .collect(),
            geoms: body_geoms.concat(),
            geom_boxes: body_geoms
                .iter()
                .flatten()
                .map(|&g| GeomBox::new(m, g))
                .collect(),
            ..Default::default()
        };
        for (b, &plane) in has_plane.iter().enumerate() {
            if m.body_contype[b] == 0 && m.body_conaffinity[b] == 0 {
                continue;
            }
            bp.collidable.push(b);
            let static_plane = plane && m.body_dofnum[m.body_weldid[b]] == 0;
            if (b == 0 && m.body_geomnum[0] > 0) || static_plane {
                bp.always.push(b);
            } else if !body_geoms[b].is_empty() {
                bp.swept.push(b);
            }
        }
        bp.swept_filter = bp.swept.iter().map(|&b| BodyFilter::of(m, b)).collect();
        bp.update_always_pairs(m);
        let roots: Vec<usize> = bp.swept.iter().map(|&b| tree_root(m, b)).collect();
        let filter = &bp.swept_filter;
        bp.trees = TreeSweep::new(&roots, |i, j| filter[i].allows(&filter[j]));
        bp.small = SmallSweep::new(filter.len(), |i, j| filter[i].allows(&filter[j]));
        bp.mujoco_frame = !boxes_bound_contacts(m, &bp.swept, |b| bp.body_geoms(b));
        if !bp.mujoco_frame {
            let largest = bp.geom_boxes.iter().map(|g| g.rbound).fold(0.0, f64::max);
            let slack = BOX_SLACK * (1.0 + largest);
            for gb in &mut bp.geom_boxes {
                gb.margin += slack;
            }
        }
        bp
    }

    /// Pairs of the always-colliding bodies with every collidable body that pass the body
    /// filters (they depend on the model and the sleep flags only, not on the poses).
    fn update_always_pairs(&mut self, m: &Model) {
        let asleep = &self.asleep;
        let sleeping = |b: usize| asleep.get(b).copied().unwrap_or(false);
        let sleep_skip = |b1: usize, b2: usize| {
            (sleeping(b1) && m.body_weldid[b2] == 0) || (sleeping(b2) && m.body_weldid[b1] == 0)
        };
        self.always_pairs.clear();
        for &a in &self.always {
            for &b in &self.collidable {
                let both = sleeping(a) && sleeping(b);
                if a != b
                    && !both
                    && !sleep_skip(a, b)
                    && body_pair_allowed(m, a, b)
                    && bodies_can_collide(m, a, b)
                {
                    self.always_pairs.push(signature(a, b));
                }
            }
        }
        self.always_pairs.sort_unstable();
        self.always_pairs.dedup();
    }

    /// Finds the candidate body pairs for the current poses (see [`BroadPhase::pairs`]).
    pub fn run(&mut self, m: &Model, poses: &PoseView) {
        self.pairs.clear();
        if let Some(small) = self.small.as_mut().filter(|_| !self.any_asleep) {
            if self.mujoco_frame {
                // the same boxes as the sweep below in MuJoCo's frame; the small sweep reports
                // the same overlapping pairs as that sweep, at less cost for a few boxes
                let axes = principal_axes(m, poses);
                let frame = |v: DVec3| DVec3::new(v.dot(axes[0]), v.dot(axes[1]), v.dot(axes[2]));
                for (k, &b) in self.swept.iter().enumerate() {
                    let geoms = &self.geom_boxes[self.geoms_start[b]..self.geoms_start[b + 1]];
                    let (mut lo, mut hi) = body_box(poses, geoms, frame);
                    lo[0] = lo[0] as f32 as f64;
                    hi[0] = hi[0] as f32 as f64;
                    small.set(k, lo, hi);
                }
            } else {
                let world = |v: DVec3| v;
                for (k, &b) in self.swept.iter().enumerate() {
                    let geoms = &self.geom_boxes[self.geoms_start[b]..self.geoms_start[b + 1]];
                    let (lo, hi) = body_box(poses, geoms, world);
                    small.set(k, lo, hi);
                }
            }
            // `swept` is in body order, so pairs reported in `(i, j)` order have sorted
            // signatures
            let (swept, pairs) = (&self.swept, &mut self.pairs);
            small.overlapping_pairs(|i, j| pairs.push(signature(swept[i], swept[j])));
            // the principal-frame boxes were not updated
            self.axes = None;
            self.merge_always_pairs();
            return;
        }
        let fresh = principal_axes(m, poses);
        let axes = match self.axes {
            _ if self.mujoco_frame => fresh,
            Some(old) if old[0].dot(fresh[0]).abs() > 0.99 => old,
            _ => fresh,
        };
        self.axes_kept = self.axes == Some(axes);
        self.axes = Some(axes);

        // boxes of sleeping bodies are kept unless the sweep frame changed
        let nswept = self.swept.len();
        let reuse = self.axes_kept && self.boxes.len() == nswept;
        if !reuse {
            self.boxes.resize(nswept);
        }
        self.box_asleep.clear();
        self.box_asleep.resize(nswept, false);
        let frame = |v: DVec3| DVec3::new(v.dot(axes[0]), v.dot(axes[1]), v.dot(axes[2]));
        for (k, &b) in self.swept.iter().enumerate() {
            let asleep = self.asleep.get(b).copied().unwrap_or(false);
            self.box_asleep[k] = asleep;
            if asleep && reuse {
                continue;
            }
            let geoms = &self.geom_boxes[self.geoms_start[b]..self.geoms_start[b + 1]];
            let (mut lo, mut hi) = body_box(poses, geoms, frame);
            if self.mujoco_frame {
                lo[0] = lo[0] as f32 as f64;
                hi[0] = hi[0] as f32 as f64;
            }
            self.boxes.set(k, lo, hi);
        }

        let (swept, filter) = (&self.swept, &self.swept_filter);
        let pairs = &mut self.pairs;
        let asleep = &self.box_asleep;
        let mut keep = |i: usize, j: usize| {
            let (f1, f2) = (&filter[i], &filter[j]);
            // a sleeping body does not meet static geometry
            let sleep_skip = (asleep[i] && f2.weld == 0) || (asleep[j] && f1.weld == 0);
            if !sleep_skip && f1.allows(f2) {
                pairs.push(signature(swept[i], swept[j]));
            }
        };
        match self.trees.as_mut() {
            Some(trees) => {
                let sleeping: &[bool] = if self.any_asleep { asleep } else { &[] };
                for &(i, j) in trees.overlapping_pairs(&self.boxes, sleeping) {
                    keep(i as usize, j as usize);
                }
            }
            None => self.sap.overlapping_pairs(&self.boxes, asleep, keep),
        }
        self.finish_pairs(m);
    }

    /// Merges the always-colliding pairs into the sorted, unique swept ones (no body is both
    /// swept and always-colliding; a signature in both lists is kept once all the same).
    fn merge_always_pairs(&mut self) {
        let (swept, always) = (&self.pairs, &self.always_pairs);
        if always.is_empty() {
            return;
        }
        let merged = &mut self.scratch;
        merged.clear();
        let (mut i, mut j) = (0, 0);
        while let (Some(&a), Some(&b)) = (swept.get(i), always.get(j)) {
            merged.push(a.min(b));
            i += usize::from(a <= b);
            j += usize::from(b <= a);
        }
        merged.extend_from_slice(&swept[i..]);
        merged.extend_from_slice(&always[j..]);
        std::mem::swap(&mut self.pairs, &mut self.scratch);
    }

    /// Adds the always-colliding pairs to the swept ones, then sorts and deduplicates.
    fn finish_pairs(&mut self, m: &Model) {
        self.pairs.extend_from_slice(&self.always_pairs);
        sort_signatures(
            &mut self.pairs,
            &mut self.scratch,
            &mut self.counts,
            m.nbody(),
        );
        self.pairs.dedup();
    }

    /// Candidate body pairs of the last [`BroadPhase::run`]: sorted, unique signatures that
    /// passed the body-pair filter and the body-level bitmask.
    pub fn pairs(&self) -> &[u32] {
        &self.pairs
    }

    /// Marks bodies asleep (`asleep[b]`, one flag per body; an empty slice wakes all). Mocap
    /// bodies and static bodies (world weld group) are never asleep. A sleeping body keeps the
    /// box it had when it fell asleep, and pairs of two sleeping bodies are never tested.
    /// Boxes kept from earlier calls are forgotten here: the next call computes every box from
    /// its poses (so a collider reused across the worlds of a batch never carries one world's
    /// box into another), and later calls keep the sleeping bodies' boxes.
    pub fn set_asleep(&mut self, m: &Model, asleep: &[bool]) {
        self.boxes.clear();
        self.asleep.clear();
        self.asleep.resize(m.nbody(), false);
        for (b, &s) in asleep.iter().enumerate().take(m.nbody()) {
            let w = m.body_weldid[b];
            self.asleep[b] = s && w != 0 && m.body_mocapid[w].is_none();
        }
        self.any_asleep = self.asleep.iter().any(|&s| s);
        self.update_always_pairs(m);
    }

    /// Whether body `b` is asleep.
    pub fn is_asleep(&self, b: usize) -> bool {
        self.asleep.get(b).copied().unwrap_or(false)
    }

    /// Collidable geoms (contype or conaffinity nonzero) of body `b`.
    pub fn body_geoms(&self, b: usize) -> &[usize] {
        &self.geoms[self.geoms_start[b]..self.geoms_start[b + 1]]
    }
}

#[cfg(test)]
mod tests {
    use super::{sort_signatures, BodyFilter, BroadPhase};
    use crate::filter::{bodies_can_collide, body_pair_allowed};
    use crate::model::{disable, Model};

    #[test]
    fn packed_body_filters_match_the_model_filters() {
        // world 0; static body 1 welded to it; a free chain 2 -> 3 (hinge) -> 4 (welded to 3);
        // a mocap body 5 (no dofs, its own weld group); a free body 6 under 4; bitmasks that
        // exclude some pairs
        let mut m = Model {
            body_parentid: vec![0, 0, 0, 2, 3, 0, 4],
            body_weldid: vec![0, 0, 2, 3, 3, 5, 6],
            body_dofnum: vec![0, 0, 6, 1, 0, 0, 6],
            body_contype: vec![1, 1, 1, 2, 1, 1, 4],
            body_conaffinity: vec![1, 1, 1, 1, 2, 1, 1],
            ..Default::default()
        };
        let mut kept = [0usize; 2];
        for flags in [0, disable::FILTERPARENT] {
            m.opt.disableflags = flags;
            let f: Vec<BodyFilter> = (0..7).map(|b| BodyFilter::of(&m, b)).collect();
            for a in 0..7 {
                for b in 0..7 {
                    let expect = body_pair_allowed(&m, a, b) && bodies_can_collide(&m, a, b);
                    assert_eq!(f[a].allows(&f[b]), expect, "bodies {a}, {b}, flags {flags}");
                    kept[usize::from(flags != 0)] += usize::from(expect);
                }
            }
        }
        // the parent filter removes 2–3, 2–4 (3 and 4 are one weld group) and 4–6, both ways
        // (3–6 fails the bitmasks)
        assert_eq!(kept[1] - kept[0], 6);
    }

    #[test]
    fn always_pairs_merge_into_sorted_swept_pairs() {
        let sig = |a: u32, b: u32| (a << 16) + b;
        let mut bp = BroadPhase {
            pairs: vec![sig(1, 2), sig(2, 5), sig(3, 4), sig(4, 6)],
            // a static plane body (3) pairs with bodies below and above it
            always_pairs: vec![sig(0, 1), sig(0, 2), sig(1, 3), sig(3, 5), sig(3, 6)],
            ..Default::default()
        };
        bp.merge_always_pairs();
        let mut expect = [
            bp.always_pairs.clone(),
            vec![sig(1, 2), sig(2, 5), sig(3, 4), sig(4, 6)],
        ]
        .concat();
        expect.sort_unstable();
        assert_eq!(bp.pairs(), expect);
        // nothing swept: the always pairs alone
        bp.pairs.clear();
        bp.merge_always_pairs();
        assert_eq!(bp.pairs(), bp.always_pairs);
    }

    #[test]
    fn counting_sort_orders_signatures() {
        let mut r = 0x9E37_79B9u32;
        let mut pairs: Vec<u32> = (0..5000)
            .map(|_| {
                r ^= r << 13;
                r ^= r >> 17;
                r ^= r << 5;
                let (a, b) = (r % 3000, (r >> 12) % 3000);
                (a.min(b) << 16) + a.max(b)
            })
            .collect();
        let mut expect = pairs.clone();
        expect.sort_unstable();
        sort_signatures(&mut pairs, &mut Vec::new(), &mut Vec::new(), 3000);
        assert_eq!(pairs, expect);
    }
}
