//! A signed distance field baked once per mesh: a uniform grid over the mesh box (padded by
//! [`PAD_CELLS`] cells on every side, [`CELLS`] cells along the longest side), each node holding
//! the exact distance to the nearest triangle (found in the triangle tree), negative inside.
//! Inside means a generalised winding number above ½ (the solid angles of all triangles summed,
//! far groups of triangles by their dipole), so meshes with holes, flipped patches or several
//! overlapping shells still get a sensible inside.
//!
//! Between nodes the field is trilinear. A distance is 1-Lipschitz, so the interpolated value
//! is within [`Sdf::error_bound`] (`√3/2` of a cell) of the true signed distance wherever the
//! sign does not change inside the cell: a value beyond that bound decides inside or outside
//! without touching a triangle.

use glam::DVec3;

use super::TriMesh;

/// Cells along the longest side of the mesh box.
pub const CELLS: f64 = 32.0;

/// Cells of padding around the mesh box on every side.
pub const PAD_CELLS: f64 = 2.0;

/// Far-field factor of the winding number: a tree node whose triangles lie within radius `r`
/// of their centroid counts as one dipole from points farther than `WINDING_FAR * r`.
const WINDING_FAR: f64 = 2.0;

/// A signed distance field on a grid in the mesh frame (negative inside).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Sdf {
    /// Position of node `(0, 0, 0)`.
    pub lo: DVec3,
    /// Position of the last node, `lo + (dims - 1) * cell`.
    pub hi: DVec3,
    /// Edge length of a (cubic) cell.
    pub cell: f64,
    /// Nodes per axis.
    pub dims: [usize; 3],
    /// Values, x fastest: node `(i, j, k)` at `i + dims[0] * (j + dims[1] * k)`.
    pub val: Vec<f64>,
    /// Padding between the grid's box and the mesh box.
    pub pad: f64,
}

/// Per tree node: summed area vector (`½ Σ (b-a)×(c-a)`), area-weighted centroid, total area,
/// and a radius around the centroid holding all of its triangles.
type Dipole = (DVec3, DVec3, f64, f64);

impl Sdf {
    /// Bakes the field of `mesh` (its tree must be built).
    pub(super) fn bake(mesh: &TriMesh) -> Sdf {
        let root = mesh.nodes[0];
        let ext = root.hi - root.lo;
        // a kept triangle has an area, so the box has a positive side
        let cell = ext.max_element() / CELLS;
        let pad = cell * PAD_CELLS;
        let lo = root.lo - DVec3::splat(pad);
        let dims = [0, 1, 2].map(|k| ((ext[k] + 2.0 * pad) / cell).ceil() as usize + 1);
        let dip = dipoles(mesh);
        let mut stack = Vec::new();
        let mut val = Vec::with_capacity(dims[0] * dims[1] * dims[2]);
        for k in 0..dims[2] {
            for j in 0..dims[1] {
                for i in 0..dims[0] {
                    let p = lo + DVec3::new(i as f64, j as f64, k as f64) * cell;
                    let (d, ..) = mesh.nearest(p, &mut stack);
                    let inside = winding_number(mesh, &dip, p, &mut stack) > 0.5;
                    val.push(if inside { -d } else { d });
                }
            }
        }
        Sdf {
            lo,
            hi: lo
                + DVec3::new(
                    (dims[0] - 1) as f64,
                    (dims[1] - 1) as f64,
                    (dims[2] - 1) as f64,
                ) * cell,
            cell,
            dims,
            val,
            pad,
        }
    }

    /// Largest difference between [`Sdf::value`] and the true signed distance at a point whose
    /// cell lies on one side of the surface (`√3/2` cell).
    #[inline]
    pub fn error_bound(&self) -> f64 {
        0.8660254037844387 * self.cell
    }

    /// The cell of `p` and the fractions within it, `p` clamped to the grid; also the distance
    /// from `p` to the grid's box.
    #[inline]
    fn locate(&self, p: DVec3) -> ([usize; 3], DVec3, f64) {
        let q = p.clamp(self.lo, self.hi);
        let g = (q - self.lo) / self.cell;
        // `g` is not negative (`q` is clamped) and finite, so truncation is the floor
        let axis = |g: f64, n: usize| {
            let i = (g as i64 as usize).min(n.saturating_sub(2));
            (i, (g - i as f64).clamp(0.0, 1.0))
        };
        let (ix, fx) = axis(g.x, self.dims[0]);
        let (iy, fy) = axis(g.y, self.dims[1]);
        let (iz, fz) = axis(g.z, self.dims[2]);
        let out = if q == p { 0.0 } else { p.distance(q) };
        ([ix, iy, iz], DVec3::new(fx, fy, fz), out)
    }

    /// The eight corner values of cell `idx`, corner `c` at offset bit `k` of `c` along axis `k`.
    #[inline]
    fn corners(&self, idx: [usize; 3]) -> [f64; 8] {
        let (nx, ny) = (self.dims[0], self.dims[1]);
        let base = idx[0] + nx * (idx[1] + ny * idx[2]);
        let sx = usize::from(self.dims[0] > 1);
        let sy = if self.dims[1] > 1 { nx } else { 0 };
        let sz = if self.dims[2] > 1 { nx * ny } else { 0 };
        std::array::from_fn(|c| {
            self.val[base + (c & 1) * sx + (c >> 1 & 1) * sy + (c >> 2 & 1) * sz]
        })
    }

    /// The interpolated signed distance at `p` (mesh frame). Outside the grid's box: the
    /// distance to that box plus the padding plus [`Sdf::error_bound`], so that `value -
    /// error_bound` stays a lower bound of the true distance there.
    #[inline]
    pub fn value(&self, p: DVec3) -> f64 {
        let (idx, f, out) = self.locate(p);
        if out > 0.0 {
            return out + self.pad + self.error_bound();
        }
        trilinear(&self.corners(idx), f)
    }

    /// [`Sdf::value`] at `p`, and [`Sdf::node_bounds`] too when the value is below `below`
    /// (from one lookup of the cell).
    #[inline]
    pub fn value_and_bounds(&self, p: DVec3, below: f64) -> (f64, Option<(f64, f64, f64)>) {
        let (idx, f, out) = self.locate(p);
        if out > 0.0 {
            return (out + self.pad + self.error_bound(), None);
        }
        let v = self.corners(idx);
        let value = trilinear(&v, f);
        if value < below {
            (value, Some(self.bounds_of(idx, &v, p)))
        } else {
            (value, None)
        }
    }

    /// The gradient of the interpolated field at `p` (mesh frame; `p` clamped to the grid).
    pub fn gradient(&self, p: DVec3) -> DVec3 {
        let (idx, f, _) = self.locate(p);
        let v = self.corners(idx);
        let mut g = DVec3::ZERO;
        for (c, &vc) in v.iter().enumerate() {
            let b = [c & 1, c >> 1 & 1, c >> 2 & 1];
            let w = |k: usize| if b[k] == 1 { f[k] } else { 1.0 - f[k] };
            let s = |k: usize| if b[k] == 1 { 1.0 } else { -1.0 };
            g.x += vc * s(0) * w(1) * w(2);
            g.y += vc * w(0) * s(1) * w(2);
            g.z += vc * w(0) * w(1) * s(2);
        }
        g / self.cell
    }

    /// Bounds of the signed distance at `p` from the exact node values of its cell, the distance
    /// being 1-Lipschitz (`None` outside the grid): `(lo, hi, far)` with `lo <= d(p) <= hi` and
    /// `|d(p)| <= far`. Tighter than the interpolated value's [`Sdf::error_bound`] near a node.
    /// For meshes whose winding sign is the geometric one (closed meshes).
    pub fn node_bounds(&self, p: DVec3) -> Option<(f64, f64, f64)> {
        let (idx, _, out) = self.locate(p);
        if out > 0.0 {
            return None;
        }
        Some(self.bounds_of(idx, &self.corners(idx), p))
    }

    /// [`Sdf::node_bounds`] at `p` in cell `idx` of corner values `v`.
    #[inline]
    fn bounds_of(&self, idx: [usize; 3], v: &[f64; 8], p: DVec3) -> (f64, f64, f64) {
        let base = self.lo + DVec3::new(idx[0] as f64, idx[1] as f64, idx[2] as f64) * self.cell;
        let (mut lo, mut hi, mut far) = (f64::NEG_INFINITY, f64::INFINITY, f64::INFINITY);
        for (c, &vc) in v.iter().enumerate() {
            let node = base
                + DVec3::new((c & 1) as f64, (c >> 1 & 1) as f64, (c >> 2 & 1) as f64) * self.cell;
            let r = node.distance(p);
            lo = lo.max(vc - r);
            hi = hi.min(vc + r);
            far = far.min(vc.abs() + r);
        }
        // the node values and the distance here round alike; a hair for safety
        let tol = 1e-9 * (self.cell + p.abs().max_element());
        (lo - tol, hi + tol, far + tol)
    }

    /// A lower bound of the distance from `p` (mesh frame) to the surface: the exact distance
    /// at the grid node nearest `p` less the distance to that node (the distance is
    /// 1-Lipschitz); outside the grid, the distance to the grid's box plus the padding. One
    /// node read, and at least as tight as `|value| - error_bound` near a node.
    #[inline]
    pub fn distance_lower_bound(&self, p: DVec3) -> f64 {
        self.nearest_node_bound(p, f64::abs)
    }

    /// A lower bound of the signed distance at `p` (mesh frame) as [`Sdf::distance_lower_bound`]
    /// bounds the distance (the signed distance of a closed mesh is 1-Lipschitz too): positive
    /// only where `p` is surely outside, by more than the bound. For meshes whose winding sign
    /// is the geometric one (closed meshes).
    #[inline]
    pub fn signed_lower_bound(&self, p: DVec3) -> f64 {
        self.nearest_node_bound(p, |v| v)
    }

    /// The value of the grid node nearest `p`, through `f`, less the distance to it and a hair
    /// (outside the grid, the distance to its box plus the padding).
    #[inline(always)]
    fn nearest_node_bound(&self, p: DVec3, f: impl Fn(f64) -> f64) -> f64 {
        let q = p.clamp(self.lo, self.hi);
        if q != p {
            return p.distance(q) + self.pad;
        }
        let g = (q - self.lo) / self.cell;
        // `g` is not negative and finite: adding ½ and truncating rounds to the nearest node
        let (i, j, k) = (
            ((g.x + 0.5) as usize).min(self.dims[0].saturating_sub(1)),
            ((g.y + 0.5) as usize).min(self.dims[1].saturating_sub(1)),
            ((g.z + 0.5) as usize).min(self.dims[2].saturating_sub(1)),
        );
        let v = self.val[i + self.dims[0] * (j + self.dims[1] * k)];
        let node = self.lo + DVec3::new(i as f64, j as f64, k as f64) * self.cell;
        // the node values and the distance here round alike; a hair for safety
        let tol = 1e-9 * (self.cell + p.abs().max_element());
        f(v) - node.distance(p) - tol
    }

    /// An upper bound of the distance from `p` to the surface (infinite outside the grid or
    /// before the field is baked): the interpolated magnitude plus `√3` cells, which also
    /// covers cells the surface crosses.
    #[inline]
    pub fn distance_upper_bound(&self, p: DVec3) -> f64 {
        if self.val.is_empty() {
            return f64::INFINITY;
        }
        let (_, _, out) = self.locate(p);
        if out > 0.0 {
            return f64::INFINITY;
        }
        self.value(p).abs() + 2.0 * self.error_bound()
    }

    /// Whether `p` is certainly inside (`Some(true)`), certainly outside by more than `tol`
    /// (`Some(false)`), or too close to the surface to tell from the grid (`None`).
    #[inline]
    pub fn classify(&self, p: DVec3, tol: f64) -> Option<bool> {
        let v = self.value(p);
        let e = self.error_bound();
        if v > e + tol {
            Some(false)
        } else if v < -e {
            Some(true)
        } else {
            None
        }
    }
}

/// The trilinear interpolation of corner values `v` (as [`Sdf::corners`] orders them) at the
/// fractions `f` within the cell.
#[inline(always)]
fn trilinear(v: &[f64; 8], f: DVec3) -> f64 {
    let lx = |a: f64, b: f64| a + (b - a) * f.x;
    let y0 = lx(v[0], v[1]) + (lx(v[2], v[3]) - lx(v[0], v[1])) * f.y;
    let y1 = lx(v[4], v[5]) + (lx(v[6], v[7]) - lx(v[4], v[5])) * f.y;
    y0 + (y1 - y0) * f.z
}

/// The solid angle of triangle `abc` seen from `p`, positive when `p` is behind it (on the side
/// opposite its normal).
fn solid_angle(p: DVec3, a: DVec3, b: DVec3, c: DVec3) -> f64 {
    let (a, b, c) = (a - p, b - p, c - p);
    let (la, lb, lc) = (a.length(), b.length(), c.length());
    let num = a.dot(b.cross(c));
    let den = la * lb * lc + a.dot(b) * lc + b.dot(c) * la + c.dot(a) * lb;
    2.0 * num.atan2(den)
}

/// The dipole of every tree node, children before parents (a child's index exceeds its
/// parent's).
fn dipoles(mesh: &TriMesh) -> Vec<Dipole> {
    let mut dip = vec![(DVec3::ZERO, DVec3::ZERO, 0.0, 0.0); mesh.nodes.len()];
    for i in (0..mesh.nodes.len()).rev() {
        let n = mesh.nodes[i];
        let (mut an, mut c, mut area) = (DVec3::ZERO, DVec3::ZERO, 0.0);
        if n.count > 0 {
            let s = n.first as usize;
            for &t in &mesh.order[s..s + n.count as usize] {
                let [a, b, cc] = mesh.corners(t as usize);
                let v = (b - a).cross(cc - a) * 0.5;
                let w = v.length();
                an += v;
                c += (a + b + cc) / 3.0 * w;
                area += w;
            }
        } else {
            for ch in [n.first as usize, n.first as usize + 1] {
                let (van, vc, w, _) = dip[ch];
                an += van;
                c += vc * w;
                area += w;
            }
        }
        let centre = if area > 0.0 {
            c / area
        } else {
            (n.lo + n.hi) * 0.5
        };
        // every triangle lies in the node's box: its farthest corner bounds the radius
        let r = (centre - n.lo).abs().max((n.hi - centre).abs()).length();
        dip[i] = (an, centre, area, r);
    }
    dip
}

/// The generalised winding number of `mesh` at `p`: 1 inside a closed outward-facing mesh, 0
/// outside, fractional near holes. Far nodes count as dipoles.
fn winding_number(mesh: &TriMesh, dip: &[Dipole], p: DVec3, stack: &mut Vec<u32>) -> f64 {
    let mut w = 0.0;
    stack.clear();
    stack.push(0);
    while let Some(i) = stack.pop() {
        let i = i as usize;
        let (an, c, _, r) = dip[i];
        let d = c - p;
        let l = d.length();
        if l > WINDING_FAR * r {
            w += an.dot(d) / (l * l * l);
            continue;
        }
        let n = mesh.nodes[i];
        if n.count > 0 {
            let s = n.first as usize;
            for &t in &mesh.order[s..s + n.count as usize] {
                let [a, b, cc] = mesh.corners(t as usize);
                w += solid_angle(p, a, b, cc);
            }
        } else {
            stack.push(n.first);
            stack.push(n.first + 1);
        }
    }
    w / (4.0 * std::f64::consts::PI)
}
