//! The octree distance field MuJoCo 4.0.0 compiles for the mesh of a mesh-backed sdf geom
//! (`<geom type="sdf" mesh="…"/>`, `mesh.needsdf` in `user_mesh.cc`), reproduced node for node.
//!
//! Construction, in the mesh frame on the double-precision vertices (before MuJoCo rounds
//! them to `f32`):
//! 1. The root box is the mesh's bounding box scaled by 1.1 about its centre.
//! 2. Breadth first, a node whose box overlaps a triangle (Schwarz and Seidel's box–triangle
//!    test, run on the triangles overlapping its parent) is split into 8 children, up to depth
//!    6. Children are numbered `4z + 2y + x` (bit set: upper half) and appended in that order.
//! 3. Balancing: while some leaf has a face neighbour two or more levels finer or coarser, the
//!    coarser leaf is split (new nodes appended, leaves scanned in index order each pass).
//! 4. Corners shared by nodes are one vertex. A vertex lying on the face of a coarser
//!    neighbour leaf ("hanging") takes the mean of that face's 4 corners, or of the 2 ends of
//!    the edge it lies on; every other vertex takes the mesh's signed distance, in MuJoCo's
//!    arithmetic (`mjCOctree::ComputeSdfCoeffs`, read from its machine code): the nearest
//!    triangle by a walk over the mesh's face tree, Ericson's point–triangle test, `√|p − q|²`
//!    to the nearest point `q`, sign from the angle-weighted pseudonormal of the nearest vertex
//!    or edge or the face's normal (see `MeshDistance`). Values are assigned breadth first from
//!    the root.
//!
//! The result is [`collide::narrow::sdf::Octree`]; it is queried there.

use std::collections::{HashMap, VecDeque};

use collide::narrow::sdf::face_bvh::NONE;
use collide::narrow::sdf::{FaceBvh, Octree};
use glam::DVec3;

/// Deepest level MuJoCo subdivides to.
const MAX_DEPTH: u32 = 6;

type Tri = [DVec3; 3];

/// A node under construction: its box as `[min; max]`, children, corner vertices.
#[derive(Clone)]
struct Node {
    aamm: [f64; 6],
    child: [i32; 8],
    vert: [usize; 8],
    level: u32,
    parent: Option<usize>,
    slot: usize,
}

struct Builder {
    node: Vec<Node>,
    vert: Vec<DVec3>,
    vert_id: HashMap<[u64; 3], usize>,
}

/// Schwarz and Seidel's box–triangle overlap test ("Fast Parallel Surface and Solid
/// Voxelization on GPUs"), in MuJoCo's arithmetic: bounding boxes, then the triangle's plane
/// against the box's extreme corners, then the three axis-aligned 2D edge projections.
fn box_triangle(v: &Tri, aamm: &[f64; 6]) -> bool {
    for i in 0..3 {
        if v.iter().all(|p| p[i] < aamm[i]) || v.iter().all(|p| p[i] > aamm[i + 3]) {
            return false;
        }
    }
    let e = [v[1] - v[0], v[2] - v[1], v[0] - v[2]];
    let n = DVec3::new(
        e[0].y * e[1].z - e[0].z * e[1].y,
        e[0].z * e[1].x - e[0].x * e[1].z,
        e[0].x * e[1].y - e[0].y * e[1].x,
    );
    let dot = |a: DVec3, b: DVec3| a.x * b.x + a.y * b.y + a.z * b.z;
    let size = DVec3::new(aamm[3] - aamm[0], aamm[4] - aamm[1], aamm[5] - aamm[2]);
    let crit = DVec3::new(
        if n.x > 0.0 { size.x } else { 0.0 },
        if n.y > 0.0 { size.y } else { 0.0 },
        if n.z > 0.0 { size.z } else { 0.0 },
    );
    let lo = DVec3::new(aamm[0], aamm[1], aamm[2]);
    let c1 = crit - v[0];
    let c2 = DVec3::new(
        size.x - crit.x - v[0].x,
        size.y - crit.y - v[0].y,
        size.z - crit.z - v[0].z,
    );
    if (dot(n, lo) + dot(n, c1)) * (dot(n, lo) + dot(n, c2)) > 0.0 {
        return false;
    }
    for a in 0..3 {
        let (b, c) = ((a + 1) % 3, (a + 2) % 3);
        let sign = if n[a] >= 0.0 { 1.0 } else { -1.0 };
        for i in 0..3 {
            let ne = [-e[i][c] * sign, e[i][b] * sign];
            let d = -(ne[0] * v[i][b] + ne[1] * v[i][c])
                + f64::max(0.0, size[b] * ne[0])
                + f64::max(0.0, size[c] * ne[1]);
            if ne[0] * aamm[b] + ne[1] * aamm[c] + d < 0.0 {
                return false;
            }
        }
    }
    true
}

/// Hash key of a point (`-0.0` and `0.0` are one point).
fn key(p: DVec3) -> [u64; 3] {
    [
        (p.x + 0.0).to_bits(),
        (p.y + 0.0).to_bits(),
        (p.z + 0.0).to_bits(),
    ]
}

impl Builder {
    /// Appends node `n` (child `slot` of `parent`, or the root with box `root`), sharing
    /// corner vertices with earlier nodes.
    fn push(&mut self, parent: Option<usize>, slot: usize, root: [f64; 6]) -> usize {
        let index = self.node.len();
        let (aamm, level) = match parent {
            None => (root, 0),
            Some(p) => {
                let q = &self.node[p].aamm;
                let mut a = [0.0; 6];
                for k in 0..3 {
                    let mid_lo = (q[k + 3] + q[k]) / 2.0;
                    let mid_hi = (q[k] + q[k + 3]) / 2.0;
                    if slot & (1 << k) != 0 {
                        a[k] = mid_lo;
                        a[k + 3] = q[k + 3];
                    } else {
                        a[k] = q[k];
                        a[k + 3] = mid_hi;
                    }
                }
                self.node[p].child[slot] = index as i32;
                (a, self.node[p].level + 1)
            }
        };
        let mut vert = [0; 8];
        for (i, id) in vert.iter_mut().enumerate() {
            let p = DVec3::new(
                if i & 1 != 0 { aamm[3] } else { aamm[0] },
                if i & 2 != 0 { aamm[4] } else { aamm[1] },
                if i & 4 != 0 { aamm[5] } else { aamm[2] },
            );
            let next = self.vert.len();
            *id = *self.vert_id.entry(key(p)).or_insert(next);
            if *id == next {
                self.vert.push(p);
            }
        }
        self.node.push(Node {
            aamm,
            child: [-1; 8],
            vert,
            level,
            parent,
            slot,
        });
        index
    }

    fn is_leaf(&self, n: usize) -> bool {
        self.node[n].child[0] == -1
    }

    /// The neighbour of `n` across its face `dir` (axis `dir / 2`, upper side when `dir` is
    /// odd) at `n`'s level or coarser: a sibling, or found through the ancestors.
    fn coarse_neighbor(&self, n: usize, dir: usize) -> Option<usize> {
        let parent = self.node[n].parent?;
        let slot = self.node[n].slot;
        let bit = 1 << (dir / 2);
        let upper = dir % 2 == 1;
        if upper != (slot & bit != 0) {
            usize::try_from(self.node[parent].child[slot ^ bit]).ok()
        } else {
            self.coarse_neighbor(parent, dir)
        }
    }

    /// The leaf across face `dir` of `n` touching `n`'s centre line (MuJoCo's `FindNeighbor`).
    fn neighbor(&self, n: usize, dir: usize) -> Option<usize> {
        let mut r = self.coarse_neighbor(n, dir)?;
        let centre = |a: &[f64; 6]| {
            DVec3::new(
                (a[0] + a[3]) / 2.0,
                (a[1] + a[4]) / 2.0,
                (a[2] + a[5]) / 2.0,
            )
        };
        let c = centre(&self.node[n].aamm);
        let bit = 1 << (dir / 2);
        while !self.is_leaf(r) {
            let rc = centre(&self.node[r].aamm);
            let mut slot = 0;
            for k in 0..3 {
                if c[k] > rc[k] {
                    slot |= 1 << k;
                }
            }
            // the child on the side facing n
            slot &= !bit;
            if dir.is_multiple_of(2) {
                slot |= bit;
            }
            r = usize::try_from(self.node[r].child[slot]).ok()?;
        }
        Some(r)
    }

    fn subdivide(&mut self, n: usize) {
        for slot in 0..8 {
            self.push(Some(n), slot, [0.0; 6]);
        }
    }

    fn leaves(&self) -> Vec<usize> {
        (0..self.node.len()).filter(|&i| self.is_leaf(i)).collect()
    }

    /// Splits leaves until face neighbours differ by at most one level.
    fn balance(&mut self) {
        loop {
            let mut split = Vec::new();
            for leaf in self.leaves() {
                for dir in 0..6 {
                    let Some(nb) = self.neighbor(leaf, dir) else {
                        continue;
                    };
                    let (ln, lb) = (self.node[leaf].level, self.node[nb].level);
                    if lb > ln + 1 {
                        split.push(leaf);
                    }
                    if ln > lb + 1 {
                        split.push(nb);
                    }
                }
            }
            if split.is_empty() {
                return;
            }
            for n in split {
                if self.is_leaf(n) {
                    self.subdivide(n);
                }
            }
        }
    }

    /// For each vertex, the vertices its value is the mean of (empty: its own distance).
    fn hanging(&self) -> Vec<Vec<usize>> {
        let mut hang = vec![Vec::new(); self.vert.len()];
        for leaf in self.leaves() {
            for dir in 0..6 {
                let Some(nb) = self.neighbor(leaf, dir) else {
                    continue;
                };
                if self.node[nb].level >= self.node[leaf].level {
                    continue;
                }
                let (dim, side) = (dir / 2, dir % 2);
                let (d1, d2) = ((dim + 1) % 3, (dim + 2) % 3);
                for i in 0..4 {
                    let corner = (side << dim) | ((i & 1) << d1) | (((i >> 1) & 1) << d2);
                    let hv = self.node[leaf].vert[corner];
                    if !hang[hv].is_empty() {
                        continue;
                    }
                    let p = self.vert[hv];
                    let a = &self.node[nb].aamm;
                    let at_min: [bool; 3] = std::array::from_fn(|d| (p[d] - a[d]).abs() < 1e-9);
                    let at_max: [bool; 3] = std::array::from_fn(|d| (p[d] - a[d + 3]).abs() < 1e-9);
                    let on = (0..3).filter(|&d| at_min[d] || at_max[d]).count();
                    let nv = |bits: [usize; 3]| {
                        self.node[nb].vert[bits[0] | bits[1] << 1 | bits[2] << 2]
                    };
                    if on == 2 {
                        // on an edge of the neighbour: the mean of its two ends
                        let Some(mid) = (0..3).find(|&d| !at_min[d] && !at_max[d]) else {
                            continue;
                        };
                        let mut bits = [0; 3];
                        for d in [(mid + 1) % 3, (mid + 2) % 3] {
                            bits[d] = usize::from(at_max[d]);
                        }
                        hang[hv].push(nv(bits));
                        bits[mid] = 1;
                        hang[hv].push(nv(bits));
                    } else if on == 1 {
                        // inside a face of the neighbour: the mean of its four corners
                        let Some(face) = (0..3).find(|&d| at_min[d] || at_max[d]) else {
                            continue;
                        };
                        let mut bits = [0; 3];
                        bits[face] = usize::from(at_max[face]);
                        for j in 0..4 {
                            bits[(face + 1) % 3] = j & 1;
                            bits[(face + 2) % 3] = (j >> 1) & 1;
                            hang[hv].push(nv(bits));
                        }
                    }
                }
            }
        }
        hang
    }
}

/// The octree of a mesh (vertices and counter-clockwise triangles in the mesh frame, bounds
/// `aamm` = `[min; max]` of the vertices), as MuJoCo 4.0.0 builds it (see the module docs).
/// Errors on a mesh without triangles, with a non-finite vertex, or whose values cannot be
/// assigned.
pub fn build_octree(vert: &[DVec3], face: &[[u32; 3]], aamm: [f64; 6]) -> Result<Octree, String> {
    if face.is_empty() {
        return Err(
            "the octree of a mesh-backed sdf geom needs a mesh with triangles (a plugin \
                    mesh needs the geom to name the plugin instance too)"
                .into(),
        );
    }
    if vert.iter().any(|v| !v.is_finite()) || aamm.iter().any(|a| !a.is_finite()) {
        return Err("mesh has a non-finite vertex".into());
    }
    let tris: Vec<Tri> = face
        .iter()
        .map(|f| {
            let v = |k: usize| vert.get(f[k] as usize).copied();
            match (v(0), v(1), v(2)) {
                (Some(a), Some(b), Some(c)) => Ok([a, b, c]),
                _ => Err(format!("face {f:?} indexes a missing vertex")),
            }
        })
        .collect::<Result<_, _>>()?;

    let c = [
        (aamm[0] + aamm[3]) / 2.0,
        (aamm[1] + aamm[4]) / 2.0,
        (aamm[2] + aamm[5]) / 2.0,
    ];
    let h = [
        (aamm[3] - aamm[0]) / 2.0,
        (aamm[4] - aamm[1]) / 2.0,
        (aamm[5] - aamm[2]) / 2.0,
    ];
    let root = [
        c[0] - 1.1 * h[0],
        c[1] - 1.1 * h[1],
        c[2] - 1.1 * h[2],
        c[0] + 1.1 * h[0],
        c[1] + 1.1 * h[1],
        c[2] + 1.1 * h[2],
    ];
    let mut b = Builder {
        node: Vec::new(),
        vert: Vec::new(),
        vert_id: HashMap::new(),
    };
    b.push(None, 0, root);

    // breadth-first subdivision of the boxes the surface crosses
    let mut queue: VecDeque<(usize, Vec<u32>)> = VecDeque::new();
    queue.push_back((0, (0..tris.len() as u32).collect()));
    while let Some((n, elems)) = queue.pop_front() {
        let aamm = b.node[n].aamm;
        let hit: Vec<u32> = elems
            .into_iter()
            .filter(|&t| box_triangle(&tris[t as usize], &aamm))
            .collect();
        if hit.is_empty() || b.node[n].level >= MAX_DEPTH {
            continue;
        }
        for slot in 0..8 {
            let child = b.push(Some(n), slot, root);
            queue.push_back((child, hit.clone()));
        }
    }
    b.balance();
    let hang = b.hanging();

    // vertex values, breadth first from the root
    let dist = MeshDistance::new(vert, face, &tris)?;
    let mut value = vec![0.0; b.vert.len()];
    let mut done = vec![false; b.vert.len()];
    let mut queue = VecDeque::from([0usize]);
    while let Some(n) = queue.pop_front() {
        for &v in &b.node[n].vert {
            if done[v] {
                continue;
            }
            value[v] = if hang[v].is_empty() {
                dist.signed(b.vert[v])
            } else {
                if hang[v].iter().any(|&d| !done[d]) {
                    return Err("sdf coefficient computation failed".into());
                }
                hang[v].iter().map(|&d| value[d]).sum::<f64>() / hang[v].len() as f64
            };
            done[v] = true;
        }
        queue.extend(
            b.node[n]
                .child
                .iter()
                .filter_map(|&k| usize::try_from(k).ok()),
        );
    }

    Ok(Octree {
        child: b.node.iter().map(|n| n.child).collect(),
        aabb: b
            .node
            .iter()
            .map(|n| {
                let a = &n.aamm;
                [
                    (a[0] + a[3]) / 2.0,
                    (a[1] + a[4]) / 2.0,
                    (a[2] + a[5]) / 2.0,
                    (a[3] - a[0]) / 2.0,
                    (a[4] - a[1]) / 2.0,
                    (a[5] - a[2]) / 2.0,
                ]
            })
            .collect(),
        coeff: b
            .node
            .iter()
            .map(|n| std::array::from_fn(|j| value[n.vert[j]]))
            .collect(),
        depth: b.node.iter().map(|n| n.level).collect(),
    })
}

/// Which feature of a triangle `(a, b, c)` is nearest a point: a vertex, an edge (by its end
/// vertices, local indices) or the face.
#[derive(Clone, Copy)]
enum Feature {
    Vertex(usize),
    Edge(usize, usize),
    Face,
}

/// The point of triangle `t` nearest `p`, in MuJoCo 4.0.0's arithmetic (its compiler's
/// `queryClosestBVHWithFace`, read from the machine code): Ericson's Voronoi-region test
/// (*Real-Time Collision Detection* §5.1.5) on `ab = b − a`, `ac = c − a` and the dot
/// products `d1 … d6`, then the squared distance `|p − q|²` to the nearest point `q` itself
/// (`(x² + y²) + z²`). Returns that squared distance, `q`'s coordinates `(v, w)` in
/// `a + v·ab + w·ac` and the feature.
fn point_triangle(p: DVec3, t: &Tri) -> (f64, f64, f64, Feature) {
    use Feature::{Edge, Face, Vertex};
    let [a, b, c] = *t;
    let dot = |u: DVec3, v: DVec3| u.x * v.x + u.y * v.y + u.z * v.z;
    let sq = |q: DVec3| {
        let d = p - q;
        d.x * d.x + d.y * d.y + d.z * d.z
    };
    let (ab, ac) = (b - a, c - a);
    let ap = p - a;
    let (d1, d2) = (dot(ab, ap), dot(ac, ap));
    if d1 <= 0.0 && d2 <= 0.0 {
        return (sq(a), 0.0, 0.0, Vertex(0));
    }
    let bp = p - b;
    let (d3, d4) = (dot(ab, bp), dot(ac, bp));
    if d3 >= 0.0 && d4 <= d3 {
        return (sq(b), 1.0, 0.0, Vertex(1));
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        let v = d1 / (d1 - d3);
        return (sq(v * ab + a), v, 0.0, Edge(0, 1));
    }
    let cp = p - c;
    let (d5, d6) = (dot(ab, cp), dot(ac, cp));
    if d6 >= 0.0 && d5 <= d6 {
        return (sq(c), 0.0, 1.0, Vertex(2));
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        let w = d2 / (d2 - d6);
        return (sq(w * ac + a), 0.0, w, Edge(0, 2));
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0 {
        let w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        return (sq(w * (c - b) + b), 1.0 - w, w, Edge(1, 2));
    }
    let denom = 1.0 / ((va + vb) + vc);
    let (v, w) = (vb * denom, vc * denom);
    (sq(v * ab + a + w * ac), v, w, Face)
}

/// Signed distance to a triangle mesh, as MuJoCo 4.0.0's compiler computes an octree's
/// coefficients (`mjCOctree::ComputeSdfCoeffs`): the nearest triangle by a walk over the
/// mesh's face tree ([`FaceBvh`], depth first, child 0 before child 1, a node skipped when
/// the squared distance to its box is not below the best so far, a triangle kept only when
/// strictly nearer), the magnitude `√|p − q|²` of [`point_triangle`], and the sign of
/// `(p − q) · n` for the angle-weighted pseudonormal `n` (Bærentzen and Aanæs) of the nearest
/// vertex or edge, or the face's unnormalised normal (`+` when `>= 0`).
struct MeshDistance<'a> {
    tris: &'a [Tri],
    face: &'a [[u32; 3]],
    vert_normal: Vec<DVec3>,
    /// Per triangle, the pseudonormals of its edges 0–1, 1–2, 0–2.
    edge_normal: Vec<[DVec3; 3]>,
    tree: FaceBvh,
}

/// The best triangle so far of a [`MeshDistance`] walk: squared distance, triangle,
/// coordinates of the nearest point and feature.
struct Nearest {
    d2: f64,
    hit: Option<(usize, f64, f64, Feature)>,
}

fn normalized(v: DVec3) -> DVec3 {
    let n = v.length();
    if n > 0.0 {
        v / n
    } else {
        v
    }
}

impl<'a> MeshDistance<'a> {
    fn new(vert: &[DVec3], face: &'a [[u32; 3]], tris: &'a [Tri]) -> Result<Self, String> {
        let mut vert_normal = vec![DVec3::ZERO; vert.len()];
        let mut edge_sum: HashMap<(u32, u32), DVec3> = HashMap::new();
        let ekey = |a: u32, b: u32| (a.min(b), a.max(b));
        for (f, t) in face.iter().zip(tris) {
            let n = normalized((t[1] - t[0]).cross(t[2] - t[0]));
            for k in 0..3 {
                let (a, b) = (t[(k + 1) % 3] - t[k], t[(k + 2) % 3] - t[k]);
                let angle = normalized(a).dot(normalized(b)).acos();
                vert_normal[f[k] as usize] += angle * n;
            }
            for (i, j) in [(0, 1), (1, 2), (0, 2)] {
                *edge_sum.entry(ekey(f[i], f[j])).or_insert(DVec3::ZERO) += n;
            }
        }
        for n in &mut vert_normal {
            *n = normalized(*n);
        }
        let edge_normal = face
            .iter()
            .map(|f| {
                let e = |i: usize, j: usize| normalized(edge_sum[&ekey(f[i], f[j])]);
                [e(0, 1), e(1, 2), e(0, 2)]
            })
            .collect();
        Ok(MeshDistance {
            tris,
            face,
            vert_normal,
            edge_normal,
            tree: FaceBvh::build(vert, face)?,
        })
    }

    /// MuJoCo's walk from node `node` (see [`MeshDistance`]).
    fn nearest(&self, p: DVec3, mut node: u32, best: &mut Nearest) {
        loop {
            let Some(n) = self.tree.nodes.get(node as usize) else {
                return;
            };
            let mut box_d2 = 0.0;
            for k in 0..3 {
                let (lo, hi) = (n.center[k] - n.half[k], n.center[k] + n.half[k]);
                if lo > p[k] {
                    box_d2 += (lo - p[k]) * (lo - p[k]);
                } else if p[k] > hi {
                    box_d2 += (p[k] - hi) * (p[k] - hi);
                }
            }
            if box_d2 >= best.d2 {
                return;
            }
            let [c0, c1] = n.child;
            if c0 == NONE && c1 == NONE {
                let Some(tri) = self.tris.get(n.face as usize) else {
                    return;
                };
                let (d2, v, w, f) = point_triangle(p, tri);
                if best.d2 > d2 {
                    *best = Nearest {
                        d2,
                        hit: Some((n.face as usize, v, w, f)),
                    };
                }
                return;
            }
            if c0 != NONE {
                self.nearest(p, c0, best);
            }
            if c1 == NONE {
                return;
            }
            node = c1;
        }
    }

    /// Signed distance at `p` (negative inside).
    fn signed(&self, p: DVec3) -> f64 {
        let mut best = Nearest {
            d2: 1e20,
            hit: None,
        };
        self.nearest(p, 0, &mut best);
        let d = best.d2.sqrt();
        let Some((t, v, w, f)) = best.hit else {
            return d;
        };
        let [a, b, c] = self.tris[t];
        let normal = match f {
            Feature::Face => (b - a).cross(c - a),
            Feature::Vertex(k) => self.vert_normal[self.face[t][k] as usize],
            Feature::Edge(0, 1) => self.edge_normal[t][0],
            Feature::Edge(1, 2) => self.edge_normal[t][1],
            Feature::Edge(_, _) => self.edge_normal[t][2],
        };
        let q = (v * (b - a) + a) + w * (c - a);
        let r = p - q;
        if r.x * normal.x + r.y * normal.y + r.z * normal.z >= 0.0 {
            d
        } else {
            -d
        }
    }
}
