//! A triangle mesh prepared for exact collision: face normals, edge neighbours, vertex
//! neighbours (the normal cones of every feature) and a bounding-volume tree of triangles, all
//! in the mesh frame and built once.

use std::f64::consts::PI;

use glam::DVec3;
use thiserror::Error;

use super::sdf::Sdf;

/// Largest number of triangles in a tree leaf.
pub(super) const LEAF_SIZE: usize = 4;

/// Vertices per cluster of [`TriMesh::vorder`].
pub(super) const VERTEX_CLUSTER: usize = 16;

/// Why a triangle mesh could not be prepared.
#[derive(Debug, Error, PartialEq)]
pub enum TriMeshError {
    /// A vertex coordinate is NaN or infinite.
    #[error("mesh '{mesh}': vertex {vertex} is not finite")]
    NonFiniteVertex {
        /// Mesh name.
        mesh: String,
        /// Vertex index.
        vertex: usize,
    },
    /// A face refers to a vertex that does not exist.
    #[error("mesh '{mesh}': face {face} refers to vertex {vertex}, but the mesh has {nvert}")]
    BadIndex {
        /// Mesh name.
        mesh: String,
        /// Face index.
        face: usize,
        /// The out-of-range vertex index.
        vertex: u32,
        /// Number of vertices.
        nvert: usize,
    },
    /// The mesh has no triangle with a non-zero area.
    #[error("mesh '{mesh}' has no triangle with a non-zero area")]
    Empty {
        /// Mesh name.
        mesh: String,
    },
}

/// A node of the triangle tree: an axis-aligned box in the mesh frame and either two children
/// or a run of triangles (`order[first..first + count]`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Node {
    /// Lower corner of the box.
    pub lo: DVec3,
    /// Upper corner of the box.
    pub hi: DVec3,
    /// First child (inner node) or first entry of [`TriMesh::order`] (leaf).
    pub first: u32,
    /// Number of triangles (leaf), or 0 for an inner node whose children are `first` and
    /// `first + 1`.
    pub count: u32,
    /// Squared length of the box's diagonal.
    pub size2: f64,
}

/// A triangle mesh with its normal cones and triangle tree, in the mesh frame.
///
/// Conventions: triangles are counter-clockwise seen from outside (normal `(b-a)×(c-a)`,
/// normalised); edge `k` of a triangle runs from its vertex `k` to vertex `(k+1) % 3`.
/// Degenerate (zero-area) triangles are dropped. An edge shared by exactly two kept triangles
/// is interior (its cone spans the two face normals); any other edge is a boundary edge (its
/// cone is the half-space beyond it).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TriMesh {
    /// Vertices.
    pub vert: Vec<DVec3>,
    /// Kept triangles (vertex indices).
    pub tri: Vec<[u32; 3]>,
    /// Unit outward normal per triangle.
    pub normal: Vec<DVec3>,
    /// Per triangle and edge: the normal of the triangle across that edge, or `None` for a
    /// boundary edge.
    pub neighbour: Vec<[Option<DVec3>; 3]>,
    /// Per triangle and edge `k`: the unit direction from corner `k` to corner `(k + 1) % 3`.
    pub edge_dir: Vec<[DVec3; 3]>,
    /// Per triangle, how far the normal cones of its edges reach from its normal.
    pub bend: Vec<Bend>,
    /// Per triangle, the squared length of its longest edge.
    pub longest_edge2: Vec<f64>,
    /// Vertex neighbours: `vnbr[vnbr_start[v]..vnbr_start[v + 1]]` are the vertices joined to
    /// `v` by an edge.
    pub vnbr_start: Vec<u32>,
    /// Flattened vertex neighbour lists.
    pub vnbr: Vec<u32>,
    /// Sum of the unit normals of the triangles around each vertex (zero for unused vertices).
    pub vnormal: Vec<DVec3>,
    /// The common normal of all triangles around a vertex when they are coplanar.
    pub vflat: Vec<Option<DVec3>>,
    /// Lower corner of each triangle's box.
    pub tri_lo: Vec<DVec3>,
    /// Upper corner of each triangle's box.
    pub tri_hi: Vec<DVec3>,
    /// Triangle tree; node 0 is the root.
    pub nodes: Vec<Node>,
    /// Triangle indices in leaf order.
    pub order: Vec<u32>,
    /// The vertices of each leaf's triangles, once each: node `i`'s are
    /// `leaf_vert[leaf_vert_start[i]..leaf_vert_start[i + 1]]` (none for an inner node).
    pub leaf_vert: Vec<u32>,
    /// Per node, where its vertices start in [`TriMesh::leaf_vert`] (one more entry than nodes).
    pub leaf_vert_start: Vec<u32>,
    /// The vertices of the kept triangles in the order the tree's leaves first meet them
    /// (near one another in space), in runs of [`VERTEX_CLUSTER`].
    pub vorder: Vec<u32>,
    /// Per run of [`TriMesh::vorder`], a ball holding its vertices (centre, radius).
    pub vball: Vec<(DVec3, f64)>,
    /// Whether every edge is shared by exactly two kept triangles (then the sign of
    /// [`TriMesh::nearest`] and the winding number of the [`Sdf`] agree, and the field may
    /// answer inside tests).
    pub closed: bool,
    /// Whether the mesh bounds a convex solid: closed, connected, no edge folding inwards by
    /// more than [`CONVEX_TOL`] of the mesh's size, and no vertex whose triangles' corner
    /// angles sum above 2π (a closed, connected surface convex at every edge and vertex bounds
    /// a convex solid).
    pub convex: bool,
    /// The signed distance field baked from the triangles (negative inside).
    pub sdf: Sdf,
}

/// The widest angle (radians) between a triangle's normal and a direction in the normal cone
/// of one of its edges: the angle to the neighbour's normal across the edge, π at a boundary
/// edge (whose cone is a half-space), plus `BEND_SLACK` (1e-3), at most π; with its cosine and
/// sine.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Bend {
    /// The angle.
    pub angle: f64,
    /// Its cosine.
    pub cos: f64,
    /// Its sine.
    pub sin: f64,
}

/// Slack (radians) of a [`Bend`] over the angle between normals: covers the cone tests'
/// tolerance and the rounding of the directions tested, by orders of magnitude.
const BEND_SLACK: f64 = 1e-3;

/// The squared length of the longest edge of triangle `c`.
#[inline]
pub(super) fn longest_edge2(c: &[DVec3; 3]) -> f64 {
    (c[1] - c[0])
        .length_squared()
        .max((c[2] - c[0]).length_squared())
        .max((c[2] - c[1]).length_squared())
}

/// Two unit normals closer than this in `1 - cos` are treated as coplanar.
const FLAT_COS: f64 = 1e-9;

/// Relative tolerance of the convexity test ([`TriMesh::convex`]): an edge may fold inwards by
/// this fraction of the mesh's bounding-box diagonal (vertices rounded to `f32` leave flat
/// faces split in triangles about 1e-7 out of plane), and a vertex's angles may exceed 2π by
/// this many radians.
pub const CONVEX_TOL: f64 = 1e-6;

/// The root of triangle `f` in the union-find forest `parent` (paths halved on the way).
fn root(parent: &mut [u32], mut f: usize) -> usize {
    while parent[f] as usize != f {
        parent[f] = parent[parent[f] as usize];
        f = parent[f] as usize;
    }
    f
}

impl TriMesh {
    /// Prepares `face` over `vert`; `name` is used in errors.
    pub fn new(name: &str, vert: &[DVec3], face: &[[u32; 3]]) -> Result<TriMesh, TriMeshError> {
        for (i, v) in vert.iter().enumerate() {
            if !v.is_finite() {
                return Err(TriMeshError::NonFiniteVertex {
                    mesh: name.to_string(),
                    vertex: i,
                });
            }
        }
        let mut tri = Vec::with_capacity(face.len());
        let mut normal = Vec::with_capacity(face.len());
        for (f, t) in face.iter().enumerate() {
            for &i in t {
                if i as usize >= vert.len() {
                    return Err(TriMeshError::BadIndex {
                        mesh: name.to_string(),
                        face: f,
                        vertex: i,
                        nvert: vert.len(),
                    });
                }
            }
            let [a, b, c] = t.map(|i| vert[i as usize]);
            let n = (b - a).cross(c - a);
            let scale = (b - a).length_squared().max((c - a).length_squared());
            if n.length_squared() <= 1e-24 * scale * scale || scale == 0.0 {
                continue;
            }
            tri.push(*t);
            normal.push(n.normalize());
        }
        if tri.is_empty() {
            return Err(TriMeshError::Empty {
                mesh: name.to_string(),
            });
        }
        // edge neighbours: sort directed edges by their undirected key
        let mut edges: Vec<(u32, u32, u32, u8)> = Vec::with_capacity(3 * tri.len());
        for (f, t) in tri.iter().enumerate() {
            for k in 0..3 {
                let (a, b) = (t[k], t[(k + 1) % 3]);
                edges.push((a.min(b), a.max(b), f as u32, k as u8));
            }
        }
        edges.sort_unstable();
        let mut neighbour = vec![[None; 3]; tri.len()];
        // convexity: every edge shared by two triangles, none folding inwards, one component
        let (lo, hi) = vert
            .iter()
            .fold((DVec3::INFINITY, DVec3::NEG_INFINITY), |(lo, hi), v| {
                (lo.min(*v), hi.max(*v))
            });
        let fold_tol = CONVEX_TOL * (hi - lo).length();
        let mut convex = true;
        let mut component: Vec<u32> = (0..tri.len() as u32).collect();
        let mut i = 0;
        while i < edges.len() {
            let mut j = i + 1;
            while j < edges.len() && edges[j].0 == edges[i].0 && edges[j].1 == edges[i].1 {
                j += 1;
            }
            if j - i == 2 {
                let (f1, k1) = (edges[i].2 as usize, edges[i].3 as usize);
                let (f2, k2) = (edges[i + 1].2 as usize, edges[i + 1].3 as usize);
                neighbour[f1][k1] = Some(normal[f2]);
                neighbour[f2][k2] = Some(normal[f1]);
                // the corner of each triangle off the shared edge lies behind the other's plane
                let behind = |f: usize, k: usize, g: usize| {
                    let off = vert[tri[f][(k + 2) % 3] as usize];
                    (off - vert[tri[g][0] as usize]).dot(normal[g]) <= fold_tol
                };
                convex &= behind(f1, k1, f2) && behind(f2, k2, f1);
                let (r1, r2) = (root(&mut component, f1), root(&mut component, f2));
                component[r1.max(r2)] = r1.min(r2) as u32;
            } else {
                convex = false;
            }
            i = j;
        }
        convex &= (0..tri.len()).all(|f| root(&mut component, f) == 0);
        // vertex neighbours (unique edges) and normal sums
        let nv = vert.len();
        let mut pairs: Vec<(u32, u32)> = Vec::with_capacity(2 * edges.len());
        for &(a, b, _, _) in &edges {
            pairs.push((a, b));
            pairs.push((b, a));
        }
        pairs.sort_unstable();
        pairs.dedup();
        let mut vnbr_start = vec![0u32; nv + 1];
        for &(a, _) in &pairs {
            vnbr_start[a as usize + 1] += 1;
        }
        for v in 0..nv {
            vnbr_start[v + 1] += vnbr_start[v];
        }
        let vnbr = pairs.iter().map(|&(_, b)| b).collect();
        let mut vnormal = vec![DVec3::ZERO; nv];
        let mut vfirst: Vec<Option<DVec3>> = vec![None; nv];
        let mut vflat_ok = vec![true; nv];
        for (t, n) in tri.iter().zip(&normal) {
            for &v in t {
                let v = v as usize;
                vnormal[v] += *n;
                match vfirst[v] {
                    None => vfirst[v] = Some(*n),
                    Some(m) => vflat_ok[v] &= m.dot(*n) >= 1.0 - FLAT_COS,
                }
            }
        }
        let vflat = vfirst
            .iter()
            .zip(&vflat_ok)
            .map(|(n, &ok)| n.filter(|_| ok))
            .collect();
        let closed = neighbour.iter().flatten().all(Option::is_some);
        if convex {
            // a vertex of a convex solid is the apex of a convex cone: its angles sum to 2π at
            // most (more would be a surface wrapping round the vertex more than once)
            let mut angle_sum = vec![0.0; nv];
            for t in &tri {
                for k in 0..3 {
                    let [a, b, c] = [0, 1, 2].map(|d| vert[t[(k + d) % 3] as usize]);
                    angle_sum[t[k] as usize] += (b - a).angle_between(c - a);
                }
            }
            convex = angle_sum.iter().all(|&s| s <= 2.0 * PI + CONVEX_TOL);
        }
        let bend = normal
            .iter()
            .zip(&neighbour)
            .map(|(n1, across): (&DVec3, &[Option<DVec3>; 3])| {
                let widest = across
                    .iter()
                    .map(|n2| n2.map_or(PI, |n2| n1.dot(n2).clamp(-1.0, 1.0).acos()))
                    .fold(0.0, f64::max);
                let angle = (widest + BEND_SLACK).min(PI);
                Bend {
                    angle,
                    cos: angle.cos(),
                    sin: angle.sin(),
                }
            })
            .collect();
        let corners = |t: &[u32; 3]| t.map(|i| vert[i as usize]);
        let longest_edge2 = tri.iter().map(corners).map(|c| longest_edge2(&c)).collect();
        let edge_dir = tri
            .iter()
            .map(corners)
            .map(|c| [0, 1, 2].map(|k| (c[(k + 1) % 3] - c[k]).normalize()))
            .collect();
        let tri_lo = tri
            .iter()
            .map(corners)
            .map(|[a, b, c]| a.min(b).min(c))
            .collect();
        let tri_hi = tri
            .iter()
            .map(corners)
            .map(|[a, b, c]| a.max(b).max(c))
            .collect();
        let mut mesh = TriMesh {
            vert: vert.to_vec(),
            tri,
            normal,
            neighbour,
            edge_dir,
            bend,
            longest_edge2,
            vnbr_start,
            vnbr,
            vnormal,
            vflat,
            tri_lo,
            tri_hi,
            nodes: Vec::new(),
            order: Vec::new(),
            leaf_vert: Vec::new(),
            leaf_vert_start: Vec::new(),
            vorder: Vec::new(),
            vball: Vec::new(),
            closed,
            convex,
            sdf: Sdf::default(),
        };
        mesh.build_tree();
        mesh.list_leaf_vertices();
        mesh.cluster_vertices();
        mesh.sdf = Sdf::bake(&mesh);
        Ok(mesh)
    }

    /// Prepares a compiled [`crate::Mesh`].
    pub fn from_mesh(mesh: &crate::Mesh) -> Result<TriMesh, TriMeshError> {
        TriMesh::new(&mesh.name, &mesh.vert, &mesh.face)
    }

    /// Number of kept triangles.
    pub fn ntri(&self) -> usize {
        self.tri.len()
    }

    /// The three corners of triangle `t`.
    #[inline]
    pub fn corners(&self, t: usize) -> [DVec3; 3] {
        let [a, b, c] = self.tri[t];
        [
            self.vert[a as usize],
            self.vert[b as usize],
            self.vert[c as usize],
        ]
    }

    /// Neighbours of vertex `v`.
    #[inline]
    pub fn vertex_neighbours(&self, v: usize) -> &[u32] {
        &self.vnbr[self.vnbr_start[v] as usize..self.vnbr_start[v + 1] as usize]
    }

    fn build_tree(&mut self) {
        let cent: Vec<DVec3> = (0..self.tri.len())
            .map(|t| {
                let [a, b, c] = self.corners(t);
                (a + b + c) / 3.0
            })
            .collect();
        self.order = (0..self.tri.len() as u32).collect();
        self.nodes.clear();
        self.nodes.push(Node {
            lo: DVec3::ZERO,
            hi: DVec3::ZERO,
            first: 0,
            count: 0,
            size2: 0.0,
        });
        // explicit work list: (node, start, end)
        let mut work = vec![(0usize, 0usize, self.tri.len())];
        while let Some((node, s, e)) = work.pop() {
            let (mut lo, mut hi) = (DVec3::splat(f64::INFINITY), DVec3::splat(-f64::INFINITY));
            let (mut clo, mut chi) = (lo, hi);
            for &t in &self.order[s..e] {
                for p in self.corners(t as usize) {
                    lo = lo.min(p);
                    hi = hi.max(p);
                }
                clo = clo.min(cent[t as usize]);
                chi = chi.max(cent[t as usize]);
            }
            self.nodes[node].lo = lo;
            self.nodes[node].hi = hi;
            self.nodes[node].size2 = (hi - lo).length_squared();
            if e - s <= LEAF_SIZE {
                self.nodes[node].first = s as u32;
                self.nodes[node].count = (e - s) as u32;
                continue;
            }
            // median split along the axis whose halves have the least total box surface
            // (long sliver triangles make boxes long; this keeps them apart); ties broken by
            // triangle index, so the tree is deterministic
            let mid = (s + e) / 2;
            let ext = chi - clo;
            let (mut best, mut last) = ((f64::INFINITY, 0), None);
            for axis in (0..3).filter(|&k| ext[k] > 0.0) {
                self.median_split(&cent, s, mid, e, axis);
                let cost = self.box_area(s, mid) + self.box_area(mid, e);
                if cost < best.0 {
                    best = (cost, axis);
                }
                last = Some(axis);
            }
            if last != Some(best.1) {
                self.median_split(&cent, s, mid, e, best.1);
            }
            let child = self.nodes.len();
            for _ in 0..2 {
                self.nodes.push(Node {
                    lo: DVec3::ZERO,
                    hi: DVec3::ZERO,
                    first: 0,
                    count: 0,
                    size2: 0.0,
                });
            }
            self.nodes[node].first = child as u32;
            self.nodes[node].count = 0;
            work.push((child + 1, mid, e));
            work.push((child, s, mid));
        }
    }

    /// Fills [`TriMesh::leaf_vert`] and [`TriMesh::leaf_vert_start`] from the tree.
    fn list_leaf_vertices(&mut self) {
        self.leaf_vert.clear();
        self.leaf_vert_start.clear();
        for n in &self.nodes {
            self.leaf_vert_start.push(self.leaf_vert.len() as u32);
            let start = self.leaf_vert.len();
            let s = n.first as usize;
            for &t in &self.order[s..s + n.count as usize] {
                for v in self.tri[t as usize] {
                    if !self.leaf_vert[start..].contains(&v) {
                        self.leaf_vert.push(v);
                    }
                }
            }
        }
        self.leaf_vert_start.push(self.leaf_vert.len() as u32);
    }

    /// Fills [`TriMesh::vorder`] and [`TriMesh::vball`] from the tree's leaf order.
    fn cluster_vertices(&mut self) {
        let mut seen = vec![false; self.vert.len()];
        self.vorder.clear();
        for &t in &self.order {
            for v in self.tri[t as usize] {
                if !std::mem::replace(&mut seen[v as usize], true) {
                    self.vorder.push(v);
                }
            }
        }
        self.vball = self
            .vorder
            .chunks(VERTEX_CLUSTER)
            .map(|run| {
                let (mut lo, mut hi) = (DVec3::splat(f64::INFINITY), DVec3::splat(-f64::INFINITY));
                for &v in run {
                    lo = lo.min(self.vert[v as usize]);
                    hi = hi.max(self.vert[v as usize]);
                }
                let c = (lo + hi) * 0.5;
                let r = run
                    .iter()
                    .map(|&v| self.vert[v as usize].distance_squared(c))
                    .fold(0.0, f64::max)
                    .sqrt();
                (c, r)
            })
            .collect();
    }

    /// Reorders `order[s..e]` so that `order[mid]` is the median by centroid coordinate `axis`.
    fn median_split(&mut self, cent: &[DVec3], s: usize, mid: usize, e: usize, axis: usize) {
        self.order[s..e].select_nth_unstable_by(mid - s, |&a, &b| {
            cent[a as usize][axis]
                .total_cmp(&cent[b as usize][axis])
                .then(a.cmp(&b))
        });
    }

    /// Half the surface area of the box around triangles `order[s..e]`.
    fn box_area(&self, s: usize, e: usize) -> f64 {
        let (mut lo, mut hi) = (DVec3::splat(f64::INFINITY), DVec3::splat(-f64::INFINITY));
        for &t in &self.order[s..e] {
            for p in self.corners(t as usize) {
                lo = lo.min(p);
                hi = hi.max(p);
            }
        }
        let d = hi - lo;
        d.x * d.y + d.y * d.z + d.z * d.x
    }

    /// Appends to `out` the triangles whose boxes overlap the box `[lo, hi]` (mesh frame), in
    /// tree order; `stack` is scratch.
    pub fn query_box(&self, lo: DVec3, hi: DVec3, stack: &mut Vec<u32>, out: &mut Vec<u32>) {
        stack.clear();
        stack.push(0);
        while let Some(i) = stack.pop() {
            let n = &self.nodes[i as usize];
            if n.lo.cmpgt(hi).any() || n.hi.cmplt(lo).any() {
                continue;
            }
            if n.count > 0 {
                let s = n.first as usize;
                out.extend_from_slice(&self.order[s..s + n.count as usize]);
            } else {
                stack.push(n.first + 1);
                stack.push(n.first);
            }
        }
    }

    /// The closest surface point of `p` (mesh frame): `(distance, point, triangle, feature,
    /// inside)`, `inside` from the sign of `p` against the pseudo-normal of the closest feature
    /// (face normal; summed face normals at an edge or vertex). Found by a pruned descent of the
    /// tree; `stack` is scratch. Exact for closed meshes; on open meshes, points behind a face
    /// count as inside.
    pub(super) fn nearest(
        &self,
        p: DVec3,
        stack: &mut Vec<u32>,
    ) -> (f64, DVec3, usize, super::Feature, bool) {
        self.nearest_below(p, f64::INFINITY, stack)
    }

    /// [`TriMesh::nearest`] given `hint2`, the squared distance from `p` to some triangle
    /// (computed as [`TriMesh::nearest`] computes it, or infinite): the descent prunes from the
    /// smaller of it and the field's bound.
    pub(super) fn nearest_below(
        &self,
        p: DVec3,
        hint2: f64,
        stack: &mut Vec<u32>,
    ) -> (f64, DVec3, usize, super::Feature, bool) {
        // the field bounds the distance, so the descent prunes from the start; with nothing
        // found within the bound (it is conservative, so only by rounding), search unbounded.
        // The field's bound is never below two error bounds: a hint within that is the smaller
        let floor = 2.0 * self.sdf.error_bound();
        let bound2 = if hint2 <= floor * floor {
            hint2
        } else {
            let bound = self.sdf.distance_upper_bound(p);
            (bound * bound).min(hint2)
        } * (1.0 + 1e-9);
        self.nearest_within(p, bound2, stack)
            .or_else(|| self.nearest_within(p, f64::INFINITY, stack))
            .unwrap_or((f64::INFINITY, p, 0, super::Feature::Face, false))
    }

    /// [`TriMesh::nearest`] among triangles closer than `sqrt(bound2)` (`None` if there is
    /// none).
    fn nearest_within(
        &self,
        p: DVec3,
        bound2: f64,
        stack: &mut Vec<u32>,
    ) -> Option<(f64, DVec3, usize, super::Feature, bool)> {
        let mut best = (bound2, p, 0, super::Feature::Face, false);
        // a triangle whose plane is farther than the best distance by more than rounding (of
        // coordinates of the size of `p` and the mesh) cannot be nearer: skipped untested
        let slack = 1e-9 * (1.0 + p.abs().max_element() + self.sdf.cell * super::sdf::CELLS);
        let mut best_d = bound2.sqrt() + slack;
        let gap2 = |n: &Node| (n.lo - p).max(p - n.hi).max(DVec3::ZERO).length_squared();
        // depth first, the nearer child first so that the bound tightens early; a deferred
        // child is stacked as its index and its squared gap (two halves of the bits), so that
        // it is pruned against the bound of the time without measuring it again
        stack.clear();
        let mut next = (gap2(&self.nodes[0]) < best.0).then_some(0u32);
        loop {
            let i = match next.take() {
                Some(i) => i,
                None => {
                    let Some(lo) = stack.pop() else { break };
                    let (hi, i) = (stack.pop().unwrap_or(0), stack.pop().unwrap_or(0));
                    if f64::from_bits(u64::from(hi) << 32 | u64::from(lo)) >= best.0 {
                        continue;
                    }
                    i
                }
            };
            let n = &self.nodes[i as usize];
            if n.count > 0 {
                let s = n.first as usize;
                for &t in &self.order[s..s + n.count as usize] {
                    let t = t as usize;
                    let [a, b, c] = self.corners(t);
                    if (p - a).dot(self.normal[t]).abs() > best_d {
                        continue;
                    }
                    let (q, feat) = super::closest_on_triangle(p, a, b, c);
                    let d2 = p.distance_squared(q);
                    if d2 < best.0 {
                        let pseudo = match feat {
                            super::Feature::Face => self.normal[t],
                            super::Feature::Edge(k) => {
                                self.normal[t] + self.neighbour[t][k].unwrap_or(self.normal[t])
                            }
                            super::Feature::Vertex(k) => self.vnormal[self.tri[t][k] as usize],
                        };
                        best = (d2, q, t, feat, (p - q).dot(pseudo) < 0.0);
                        best_d = d2.sqrt() + slack;
                    }
                }
            } else {
                let (a, b) = (n.first, n.first + 1);
                let (ga, gb) = (gap2(&self.nodes[a as usize]), gap2(&self.nodes[b as usize]));
                let ((near, gn), (far, gf)) = if ga <= gb {
                    ((a, ga), (b, gb))
                } else {
                    ((b, gb), (a, ga))
                };
                // the farther child is no nearer than the nearer one: both pruned together
                if gn < best.0 {
                    let bits = gf.to_bits();
                    stack.extend([far, (bits >> 32) as u32, bits as u32]);
                    next = Some(near);
                }
            }
        }
        (best.0 < bound2).then(|| {
            best.0 = best.0.sqrt();
            best
        })
    }

    /// Whether `p` (mesh frame) is inside the mesh or within `tol` of its surface (see
    /// [`TriMesh::nearest`]; on a closed mesh, answered by the signed distance field when it is
    /// far enough from the surface); `stack` is scratch.
    pub fn inside_or_near(&self, p: DVec3, tol: f64, stack: &mut Vec<u32>) -> bool {
        if self.closed {
            if let Some(inside) = self.sdf.classify(p, tol) {
                return inside;
            }
        }
        let (d, _, _, _, inside) = self.nearest(p, stack);
        d <= tol || inside
    }
}
