//! The octree distance field MuJoCo 4.0.0 compiles for the mesh of a mesh-backed sdf geom
//! (`<geom type="sdf" mesh="…"/>`, `mesh.needsdf` in `user_mesh.cc`), reproduced node for node.
//!
//! Construction, in the mesh frame on the float-narrowed vertices:
//! 1. The root box is the mesh's bounding box scaled by 1.1 about its centre.
//! 2. Breadth first, a node whose box overlaps a triangle (Schwarz and Seidel's box–triangle
//!    test, run on the triangles overlapping its parent) is split into 8 children, up to depth
//!    6. Children are numbered `4z + 2y + x` (bit set: upper half) and appended in that order.
//! 3. Balancing: while some leaf has a face neighbour two or more levels finer or coarser, the
//!    coarser leaf is split (new nodes appended, leaves scanned in index order each pass).
//! 4. Corners shared by nodes are one vertex. A vertex lying on the face of a coarser
//!    neighbour leaf ("hanging") takes the mean of that face's 4 corners, or of the 2 ends of
//!    the edge it lies on; every other vertex takes the mesh's signed distance (exact point–
//!    triangle distance, sign from the angle-weighted pseudonormal of the nearest vertex, edge
//!    or face). Values are assigned breadth first from the root.
//!
//! The result is [`collide::narrow::sdf::Octree`]; it is queried there.

use std::collections::{HashMap, VecDeque};

use collide::narrow::sdf::Octree;
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
    let dist = MeshDistance::new(vert, face, &tris);
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

/// Which feature of a triangle is nearest a point: a vertex, an edge (by its end vertices,
/// local indices) or the face.
#[derive(Clone, Copy)]
enum Feature {
    Vertex(usize),
    Edge(usize, usize),
    Face,
}

/// Squared distance from `p` to triangle `t`, the nearest point and feature (the region
/// analysis of Eberly's "Distance Between Point and Triangle in 3D", on `t[0] + s e0 + t e1`).
fn point_triangle(p: DVec3, t: &Tri) -> (f64, DVec3, Feature) {
    use Feature::{Edge, Face, Vertex};
    let d = t[0] - p;
    let (e0, e1) = (t[1] - t[0], t[2] - t[0]);
    let a00 = e0.dot(e0);
    let a01 = e0.dot(e1);
    let a11 = e1.dot(e1);
    let b0 = d.dot(e0);
    let b1 = d.dot(e1);
    let c = d.dot(d);
    let det = (a00 * a11 - a01 * a01).abs();
    let s = a01 * b1 - a11 * b0;
    let u = a01 * b0 - a00 * b1;
    // squared distances to the vertices, and on the face at (s, u)
    let v0 = c;
    let v1 = a00 + 2.0 * b0 + c;
    let v2 = a11 + 2.0 * b1 + c;
    let quad = |s: f64, u: f64| {
        s * (a00 * s + a01 * u + 2.0 * b0) + u * (a01 * s + a11 * u + 2.0 * b1) + c
    };
    // nearest on edge 0–1 (u = 0) or edge 0–2 (s = 0): (s, u, squared distance, feature)
    let on_e01 = || {
        if b0 >= 0.0 {
            (0.0, 0.0, v0, Vertex(0))
        } else if -b0 >= a00 {
            (1.0, 0.0, v1, Vertex(1))
        } else {
            let s = -b0 / a00;
            (s, 0.0, b0 * s + c, Edge(0, 1))
        }
    };
    let on_e02 = || {
        if b1 >= 0.0 {
            (0.0, 0.0, v0, Vertex(0))
        } else if -b1 >= a11 {
            (0.0, 1.0, v2, Vertex(2))
        } else {
            let u = -b1 / a11;
            (0.0, u, b1 * u + c, Edge(0, 2))
        }
    };
    // nearest on edge 1–2 given `numer` (> 0), parametrised from v2 by s, or from v1 by u
    let on_e12 = |numer: f64, by_u: bool| {
        let denom = a00 - 2.0 * a01 + a11;
        if numer >= denom {
            if by_u {
                (0.0, 1.0, v2, Vertex(2))
            } else {
                (1.0, 0.0, v1, Vertex(1))
            }
        } else {
            let k = numer / denom;
            let (s, u) = if by_u { (1.0 - k, k) } else { (k, 1.0 - k) };
            (s, u, quad(s, u), Edge(1, 2))
        }
    };
    let (s, u, d2, feature) = if s + u <= det {
        if s < 0.0 {
            if u < 0.0 && b0 < 0.0 {
                on_e01()
            } else {
                on_e02()
            }
        } else if u < 0.0 {
            on_e01()
        } else {
            let inv = 1.0 / det;
            let (s, u) = (s * inv, u * inv);
            (s, u, quad(s, u), Face)
        }
    } else if s < 0.0 {
        let (t0, t1) = (a01 + b0, a11 + b1);
        if t1 > t0 {
            on_e12(t1 - t0, false)
        } else if t1 <= 0.0 {
            (0.0, 1.0, v2, Vertex(2))
        } else {
            on_e02()
        }
    } else if u < 0.0 {
        let (t0, t1) = (a01 + b1, a00 + b0);
        if t1 > t0 {
            on_e12(t1 - t0, true)
        } else if t1 <= 0.0 {
            (1.0, 0.0, v1, Vertex(1))
        } else {
            on_e01()
        }
    } else {
        let numer = a11 + b1 - a01 - b0;
        if numer <= 0.0 {
            (0.0, 1.0, v2, Vertex(2))
        } else {
            on_e12(numer, false)
        }
    };
    (d2.max(0.0), t[0] + s * e0 + u * e1, feature)
}

/// Signed distance to a triangle mesh: nearest triangle by a bounding-box tree, sign from the
/// angle-weighted pseudonormal (Bærentzen and Aanæs) of the nearest feature.
struct MeshDistance<'a> {
    tris: &'a [Tri],
    face: &'a [[u32; 3]],
    face_normal: Vec<DVec3>,
    vert_normal: Vec<DVec3>,
    /// Per triangle, the pseudonormals of its edges 0–1, 1–2, 0–2.
    edge_normal: Vec<[DVec3; 3]>,
    /// Tree nodes: box and either two children or one triangle.
    tree: Vec<(DVec3, DVec3, TreeKids)>,
}

#[derive(Clone, Copy)]
enum TreeKids {
    Inner(usize, usize),
    Leaf(usize),
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
    fn new(vert: &[DVec3], face: &'a [[u32; 3]], tris: &'a [Tri]) -> Self {
        let mut face_normal = Vec::with_capacity(tris.len());
        let mut vert_normal = vec![DVec3::ZERO; vert.len()];
        let mut edge_sum: HashMap<(u32, u32), DVec3> = HashMap::new();
        let ekey = |a: u32, b: u32| (a.min(b), a.max(b));
        for (f, t) in face.iter().zip(tris) {
            let n = normalized((t[1] - t[0]).cross(t[2] - t[0]));
            face_normal.push(n);
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
        let mut md = MeshDistance {
            tris,
            face,
            face_normal,
            vert_normal,
            edge_normal,
            tree: Vec::new(),
        };
        let mut order: Vec<usize> = (0..tris.len()).collect();
        md.build(&mut order);
        md
    }

    fn build(&mut self, ids: &mut [usize]) -> usize {
        let (mut lo, mut hi) = (DVec3::splat(f64::INFINITY), DVec3::splat(f64::NEG_INFINITY));
        for &i in ids.iter() {
            for p in &self.tris[i] {
                lo = lo.min(*p);
                hi = hi.max(*p);
            }
        }
        let index = self.tree.len();
        if ids.len() == 1 {
            self.tree.push((lo, hi, TreeKids::Leaf(ids[0])));
            return index;
        }
        self.tree.push((lo, hi, TreeKids::Leaf(0)));
        let ext = hi - lo;
        let axis = if ext.x >= ext.y && ext.x >= ext.z {
            0
        } else if ext.y >= ext.z {
            1
        } else {
            2
        };
        let centre = |i: usize| {
            let t = &self.tris[i];
            t[0][axis] + t[1][axis] + t[2][axis]
        };
        ids.sort_by(|&a, &b| centre(a).total_cmp(&centre(b)));
        let mid = ids.len() / 2;
        let (l, r) = ids.split_at_mut(mid);
        let left = self.build(l);
        let right = self.build(r);
        self.tree[index].2 = TreeKids::Inner(left, right);
        index
    }

    /// Signed distance at `p` (negative inside).
    fn signed(&self, p: DVec3) -> f64 {
        let box_d2 = |lo: DVec3, hi: DVec3| {
            let d = (lo - p).max(p - hi).max(DVec3::ZERO);
            d.dot(d)
        };
        let mut best = (f64::INFINITY, DVec3::ZERO, 0usize, Feature::Face);
        let mut stack = vec![0usize];
        while let Some(n) = stack.pop() {
            let (lo, hi, kids) = self.tree[n];
            if box_d2(lo, hi) > best.0 {
                continue;
            }
            match kids {
                TreeKids::Leaf(t) => {
                    let (d2, q, f) = point_triangle(p, &self.tris[t]);
                    if d2 < best.0 {
                        best = (d2, q, t, f);
                    }
                }
                TreeKids::Inner(l, r) => {
                    let (dl, dr) = (
                        box_d2(self.tree[l].0, self.tree[l].1),
                        box_d2(self.tree[r].0, self.tree[r].1),
                    );
                    // nearer child last: searched first
                    if dl < dr {
                        stack.extend([r, l]);
                    } else {
                        stack.extend([l, r]);
                    }
                }
            }
        }
        let (d2, q, t, f) = best;
        let normal = match f {
            Feature::Face => self.face_normal[t],
            Feature::Vertex(k) => self.vert_normal[self.face[t][k] as usize],
            Feature::Edge(0, 1) => self.edge_normal[t][0],
            Feature::Edge(1, 2) => self.edge_normal[t][1],
            Feature::Edge(_, _) => self.edge_normal[t][2],
        };
        let d = d2.sqrt();
        if (p - q).dot(normal) >= 0.0 {
            d
        } else {
            -d
        }
    }
}
