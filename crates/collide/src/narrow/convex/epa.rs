//! EPA (expanding polytope algorithm): penetration depth, direction and witness points of two
//! overlapping shapes, grown from the final GJK simplex. Follows MuJoCo's
//! `engine_collision_gjk.c` (`polytope2/3/4`, `epa`, horizon construction).
//!
//! Measured differences from the 3.x source, matched here: new faces keep the projection of the
//! origin oriented away from the polytope centre; the loop stops when the *current* support
//! point's bound is within the tolerance of the closest face (not the running minimum of the
//! bounds, which still filters the faces entering the map); and the face budget is
//! `6 × ccd_iterations` (MuJoCo 4.0.0 warns "out of memory for faces" beyond it and keeps the
//! best face so far, as here). A face whose first support bound falls below it is kept (4.0.0
//! reports that contact; measured on height-field prisms and the generated-pair oracle).
//!
//! Read from 4.0.0's polytope buffer and witness points (bit for bit): a GJK triangle whose
//! apexes both pass one of its edges grows a bipyramid on that edge (`triangle_bipyramid`); a
//! GJK segment whose line runs through the ring of its hexahedron gets a ring vertex replaced
//! (`Polytope::straighten_ring`), and its centre is the mean of the five vertices; the witness
//! points use the face's signed sub-triangle areas (`face_barycentric`).
//!
//! Everything lives in fixed-size arrays: at most [`MAX_EPA_ITERATIONS`] expansions.

use glam::DVec3;

use super::coherence::{Surface, SURFACE_FACES, SURFACE_VERTS};
use super::gjk::{project_origin_plane, tri_affine};
use super::support::{minkowski_support, Object, Vertex, MINVAL};

/// Most EPA expansions: `ccd_iterations` is capped at this value (MuJoCo has no cap; the
/// default is 35).
pub const MAX_EPA_ITERATIONS: usize = 100;
const MAX_VERTS: usize = MAX_EPA_ITERATIONS + 6;
const MAX_FACES: usize = 6 * MAX_EPA_ITERATIONS;
const MINDIST: f64 = MINVAL * MINVAL;
// face vertices are stored as `u8`
const _: () = assert!(MAX_VERTS <= 256);
/// `i % 3` for `i < 5`.
const MOD3: [usize; 5] = [0, 1, 2, 0, 1];

/// Why EPA could not run (MuJoCo's `mjEPAStatus`); `Ok` when it did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum EpaStatus {
    /// EPA did not run (GJK found no overlap).
    #[default]
    NotRun,
    /// The polytope was built and expanded.
    Ok,
    /// The hexahedron grown around a GJK segment is not convex.
    P2NonConvex,
    /// The GJK triangle is degenerate.
    P3BadNormal,
    /// A support point grown from the GJK triangle lies in the triangle.
    P3InvalidVertex,
    /// The origin lies on a face of the initial hexahedron.
    P3OriginOnFace,
    /// The GJK tetrahedron does not contain the origin.
    P4MissingOrigin,
    /// The face buffer is full (cannot happen with MuJoCo's budget; kept for safety).
    OutOfMemory,
}

#[derive(Clone, Copy, Debug, Default)]
struct Face {
    /// Projection of the origin on the face's plane (pointing away from the polytope centre).
    v: DVec3,
    /// `v · v`, the squared distance of the face's plane from the origin.
    dist2: f64,
    /// Vertex indices (`MAX_VERTS` fits a `u8`).
    verts: [u8; 3],
    adj: [u16; 3],
    /// Slot in the map; -1 not in the map, -2 deleted.
    index: i32,
}

/// The expanding polytope and its scratch space.
pub(crate) struct Polytope {
    verts: [Vertex; MAX_VERTS],
    /// `verts[i].vert`, packed for the face projections; one slot per `u8` (only the first
    /// `MAX_VERTS` are used), so that indexing it with a face's vertex needs no bounds check.
    pts: [DVec3; 256],
    /// `verts[i]`'s feature ids packed by [`feature_key`], for the repeated-vertex test.
    keys: [u64; MAX_VERTS],
    nverts: usize,
    faces: [Face; MAX_FACES],
    nfaces: usize,
    /// Faces that may still be expanded, in MuJoCo's order (ties go to the first).
    map: [u16; MAX_FACES],
    /// `faces[map[i]].dist2`, packed for the search of the closest face.
    map_dist2: [f64; MAX_FACES],
    nmap: usize,
    center: DVec3,
    h_index: [u16; MAX_FACES],
    h_edge: [u8; MAX_FACES],
    nedges: usize,
    h_w: DVec3,
    /// Depth-first search of the horizon: edges still to follow (face, edge).
    stack: [(u16, u8); 2 * MAX_FACES],
    overflow: bool,
}

/// Output of EPA.
#[derive(Clone, Copy, Debug)]
pub(crate) struct EpaResult {
    /// Minus the penetration depth (0 when EPA found no usable face).
    pub dist: f64,
    /// Witness on shape 1.
    pub x1: DVec3,
    /// Witness on shape 2.
    pub x2: DVec3,
    /// The closest face's three vertices (for multi-contact), valid when `found`.
    pub face: [Vertex; 3],
    /// A face was found.
    pub found: bool,
    /// Expansions done.
    pub iterations: usize,
    /// The iteration budget ran out before convergence.
    pub exhausted: bool,
    /// Status of the polytope construction.
    pub status: EpaStatus,
}

impl Polytope {
    pub fn new() -> Self {
        Polytope {
            verts: [Vertex::default(); MAX_VERTS],
            pts: [DVec3::ZERO; 256],
            keys: [0; MAX_VERTS],
            nverts: 0,
            faces: [Face::default(); MAX_FACES],
            nfaces: 0,
            map: [0; MAX_FACES],
            map_dist2: [0.0; MAX_FACES],
            nmap: 0,
            center: DVec3::ZERO,
            h_index: [0; MAX_FACES],
            h_edge: [0; MAX_FACES],
            nedges: 0,
            h_w: DVec3::ZERO,
            stack: [(0, 0); 2 * MAX_FACES],
            overflow: false,
        }
    }

    fn reset(&mut self) {
        self.nverts = 0;
        self.nfaces = 0;
        self.nmap = 0;
        self.nedges = 0;
    }

    fn insert_vertex(&mut self, v: Vertex) -> usize {
        if self.nverts >= MAX_VERTS {
            self.overflow = true;
            return self.nverts - 1;
        }
        self.verts[self.nverts] = v;
        self.pts[self.nverts] = v.vert;
        self.keys[self.nverts] = feature_key(&v);
        self.nverts += 1;
        self.nverts - 1
    }

    fn support(&mut self, o1: &mut Object, o2: &mut Object, d: DVec3, dnorm: f64) -> usize {
        let dir = if dnorm > MINVAL { d / dnorm } else { DVec3::X };
        let v = minkowski_support(o1, o2, dir);
        self.insert_vertex(v)
    }

    /// Attaches the face `(v1, v2, v3)` with neighbours `(a1, a2, a3)` across its edges
    /// `(v1, v2)`, `(v2, v3)`, `(v3, v1)`; returns its squared distance to the origin (0 if
    /// degenerate). `outward` is `pts[v1] - center`: the face's projection of the origin is
    /// turned to point along it.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn attach(
        &mut self,
        v1: usize,
        v2: usize,
        v3: usize,
        a1: usize,
        a2: usize,
        a3: usize,
        outward: DVec3,
    ) -> f64 {
        if self.nfaces >= MAX_FACES {
            self.overflow = true;
            return 0.0;
        }
        let fi = self.nfaces;
        self.nfaces += 1;
        // vertex indices are below `MAX_VERTS`, so the `u8` casts are exact
        let verts = [v1 as u8, v2 as u8, v3 as u8];
        let (p1, p2, p3) = (
            self.pts[verts[0] as usize],
            self.pts[verts[1] as usize],
            self.pts[verts[2] as usize],
        );
        // a degenerate face gets distance 0, which ends EPA before its `v` is ever read
        let (v, dist2) = match project_origin_plane(p3, p2, p1) {
            Some(v) => {
                // `v · v` is the same for `-v`
                let dist2 = v.dot(v);
                // a finite `v · v` proves `v` finite; else `0 x` is ±0 for a finite `x` and NaN
                // otherwise
                if dist2 < f64::INFINITY || (v * 0.0).element_sum() == 0.0 {
                    (if v.dot(outward) < 0.0 { -v } else { v }, dist2)
                } else {
                    (DVec3::ZERO, 0.0)
                }
            }
            None => (DVec3::ZERO, 0.0),
        };
        self.faces[fi] = Face {
            v,
            dist2,
            verts,
            adj: [a1 as u16, a2 as u16, a3 as u16],
            index: -1,
        };
        dist2
    }

    /// [`Polytope::attach`] for a face of the initial polytope (`f`: vertices, then neighbours).
    #[inline(always)]
    fn attach_initial(&mut self, f: [usize; 6]) -> f64 {
        let outward = self.pts[f[0]] - self.center;
        self.attach(f[0], f[1], f[2], f[3], f[4], f[5], outward)
    }

    fn add_to_map(&mut self, fi: usize) {
        let i = self.nmap;
        self.map[i] = fi as u16;
        self.map_dist2[i] = self.faces[fi].dist2;
        self.faces[fi].index = i as i32;
        self.nmap += 1;
    }

    #[inline(always)]
    fn delete_face(&mut self, fi: usize) {
        let idx = self.faces[fi].index;
        if idx >= 0 {
            let idx = idx as usize;
            self.nmap -= 1;
            let last = self.map[self.nmap] as usize;
            self.map[idx] = last as u16;
            self.map_dist2[idx] = self.map_dist2[self.nmap];
            self.faces[last].index = idx as i32;
        }
        self.faces[fi].index = -2;
    }

    #[inline(always)]
    fn add_edge(&mut self, fi: usize, edge: usize) {
        if self.nedges >= MAX_FACES {
            self.overflow = true;
            return;
        }
        self.h_index[self.nedges] = fi as u16;
        self.h_edge[self.nedges] = edge as u8;
        self.nedges += 1;
    }

    #[inline(always)]
    fn edge_of(&self, fi: usize, vertex: u8) -> usize {
        // 0 if the first vertex matches, else 1 if the second does, else 2 (without branches)
        let f = &self.faces[fi];
        let (is0, is1) = (f.verts[0] == vertex, f.verts[1] == vertex);
        (1 - is0 as usize) * (2 - is1 as usize)
    }

    /// Is face `fi` visible from the new support point `h_w`?
    #[inline(always)]
    fn visible(&self, fi: usize) -> bool {
        let face = &self.faces[fi];
        face.v.dot(self.h_w) - face.dist2 > MINVAL
    }

    /// Deletes the faces visible from `h_w` reachable from `fi` (entered through its edge `e`),
    /// depth first, and records the horizon edges met on the way, in the order of MuJoCo's
    /// recursion: a visible face is deleted, then its two other edges are followed in turn
    /// (`e + 1`, then `e + 2`), each to its end before the next; an edge into a live face that is
    /// not visible is a horizon edge.
    fn horizon_from(&mut self, fi: usize, e: usize) {
        if !self.visible(fi) {
            self.add_edge(fi, e);
            return;
        }
        self.delete_face(fi);
        // edges still to follow (face, edge), the next on top: a deleted face's two other
        // edges go on in reverse order, so that everything beyond `e + 1` is done before `e + 2`
        self.stack[0] = (fi as u16, MOD3[e + 2] as u8);
        self.stack[1] = (fi as u16, MOD3[e + 1] as u8);
        let mut n = 2;
        while n > 0 {
            n -= 1;
            let (f, i) = self.stack[n];
            let face = &self.faces[f as usize];
            let i = i as usize;
            let adj = face.adj[i] as usize;
            let vertex = face.verts[MOD3[i + 1]];
            if adj < self.nfaces && self.faces[adj].index > -2 {
                let adj_edge = self.edge_of(adj, vertex);
                if self.visible(adj) {
                    self.delete_face(adj);
                    // each deleted face adds two entries: n + 2 <= 2 nfaces <= 2 MAX_FACES
                    self.stack[n] = (adj as u16, MOD3[adj_edge + 2] as u8);
                    self.stack[n + 1] = (adj as u16, MOD3[adj_edge + 1] as u8);
                    n += 2;
                } else {
                    self.add_edge(adj, adj_edge);
                }
            }
        }
    }

    fn horizon(&mut self, fi: usize) {
        self.delete_face(fi);
        let (fadj, fverts) = (self.faces[fi].adj, self.faces[fi].verts);
        for i in 0..3 {
            let adj = fadj[i] as usize;
            if adj >= self.nfaces {
                continue;
            }
            let adj_edge = self.edge_of(adj, fverts[(i + 1) % 3]);
            if i == 0 || self.faces[adj].index > -2 {
                self.horizon_from(adj, adj_edge);
            }
        }
    }

    fn map_all(&mut self, n: usize) {
        for i in 0..n {
            self.map[i] = i as u16;
            self.map_dist2[i] = self.faces[i].dist2;
            self.faces[i].index = i as i32;
        }
        self.nmap = n;
    }

    /// Initial polytope from a GJK segment: a hexahedron around it.
    fn init_segment(&mut self, s: &[Vertex; 4], o1: &mut Object, o2: &mut Object) -> EpaStatus {
        let v1 = s[0].vert;
        let v2 = s[1].vert;
        let diff = v2 - v1;
        let mut index = 0;
        let mut value = f64::MAX;
        for i in 0..3 {
            if diff[i].abs() < value {
                value = diff[i].abs();
                index = i;
            }
        }
        let mut e = DVec3::ZERO;
        e[index] = 1.0;
        let d1 = e.cross(diff);
        let r = rot120(diff);
        let d2 = r * d1;
        let d3 = r * d2;

        let v1i = self.insert_vertex(s[0]);
        let v2i = self.insert_vertex(s[1]);
        let v3i = self.support(o1, o2, d1, d1.length());
        let v4i = self.support(o1, o2, d2, d2.length());
        let v5i = self.support(o1, o2, d3, d3.length());
        self.straighten_ring(o1, o2, v1, v2, [v3i, v4i, v5i]);
        let [p3, p4, p5] = [v3i, v4i, v5i].map(|i| self.verts[i].vert);
        self.center = ((((v1 + v2) + p3) + p4) + p5) * 0.2;

        for f in bipyramid(v1i, v2i, [v3i, v4i, v5i]) {
            if self.attach_initial(f) < MINDIST {
                let t = [
                    self.verts[f[0]],
                    self.verts[f[1]],
                    self.verts[f[2]],
                    Vertex::default(),
                ];
                self.reset();
                return self.init_triangle(&t, o1, o2);
            }
        }
        let (p1, p2) = (self.verts[v1i].vert, self.verts[v2i].vert);
        let (p3, p4, p5) = (
            self.verts[v3i].vert,
            self.verts[v4i].vert,
            self.verts[v5i].vert,
        );
        if ray_triangle(p1, p2, p3, p4, p5) == 0 {
            return EpaStatus::P2NonConvex;
        }
        self.map_all(6);
        EpaStatus::Ok
    }

    /// MuJoCo 4.0.0's repair of the hexahedron grown around a GJK segment `p1 → p2`: when the
    /// segment's line does not cross the triangle of the three ring vertices `ring` clearly
    /// (the three signed volumes of [`ring_volumes`] not all beyond `1e-15 |p2 - p1|³` on one
    /// side, e.g. the line through a ring edge), the edge `(a, b)` of the smallest volume is
    /// pushed off the line: a support point along `(b - a) × (p2 - p1)` tilted by 1e-3 towards
    /// the segment end nearer the third vertex `c` replaces the first of `a`, `b`, `c` that
    /// makes the ring clear (none if no replacement does). Measured on MuJoCo's polytope buffer
    /// (ellipsoid_cylinder_pile, state 0, cylinders 36 and 37: the line runs through a ring edge).
    fn straighten_ring(
        &mut self,
        o1: &mut Object,
        o2: &mut Object,
        p1: DVec3,
        p2: DVec3,
        ring: [usize; 3],
    ) {
        let seg = p2 - p1;
        let seg2 = seg.dot(seg);
        let min_volume = seg2 * 1e-15 * seg2.sqrt();
        let clear = |vols: [f64; 3]| {
            vols.iter().all(|&v| v >= min_volume) || vols.iter().all(|&v| v <= -min_volume)
        };
        let points = ring.map(|i| self.verts[i].vert);
        let [vol1, vol2, vol3] = ring_volumes(p1, p2, points);
        if clear([vol1, vol2, vol3]) {
            return;
        }
        // the ring edge of the smallest volume, (a, b), and the third vertex c
        let (a, b, c) = if vol2 >= vol1 && vol3 >= vol1 {
            (0, 1, 2)
        } else if vol2 <= vol1 && vol2 <= vol3 {
            (1, 2, 0)
        } else {
            (2, 0, 1)
        };
        let edge = points[b] - points[a];
        let tilt = if 0.5 * seg2 <= seg.dot(points[c] - p1) {
            1e-3
        } else {
            -1e-3
        };
        let dir = seg * (edge.length() * tilt) + edge.cross(seg);
        let wi = self.support(o1, o2, dir, dir.length());
        let w = self.verts[wi];
        self.nverts = wi;
        for k in [a, b, c] {
            let mut trial = points;
            trial[k] = w.vert;
            if clear(ring_volumes(p1, p2, trial)) {
                self.verts[ring[k]] = w;
                self.pts[ring[k]] = w.vert;
                self.keys[ring[k]] = feature_key(&w);
                return;
            }
        }
    }

    /// Initial polytope from a GJK triangle: a hexahedron (two tetrahedra sharing it).
    fn init_triangle(&mut self, s: &[Vertex; 4], o1: &mut Object, o2: &mut Object) -> EpaStatus {
        let (v1, v2, v3) = (s[0].vert, s[1].vert, s[2].vert);
        self.center = (v1 + v2 + v3) * (1.0 / 3.0);
        let n = (v2 - v1).cross(v3 - v1);
        let n_norm = n.length();
        if n_norm.is_nan() || n_norm < MINVAL {
            return EpaStatus::P3BadNormal;
        }
        let v1i = self.insert_vertex(s[0]);
        let v2i = self.insert_vertex(s[1]);
        let v3i = self.insert_vertex(s[2]);
        let v5i = self.support(o1, o2, -n, n_norm);
        let v4i = self.support(o1, o2, n, n_norm);
        let p4 = self.verts[v4i].vert;
        let p5 = self.verts[v5i].vert;
        if tri_point_intersect(v1, v2, v3, p4) || tri_point_intersect(v1, v2, v3, p5) {
            return EpaStatus::P3InvalidVertex;
        }
        let faces = triangle_bipyramid([v1i, v2i, v3i], v5i, v4i, [v1, v2, v3], p5, p4);
        for f in faces {
            if self.attach_initial(f) < MINDIST {
                return EpaStatus::P3OriginOnFace;
            }
        }
        self.map_all(6);
        EpaStatus::Ok
    }

    /// Initial polytope from a GJK tetrahedron.
    fn init_tetrahedron(&mut self, s: &[Vertex; 4], o1: &mut Object, o2: &mut Object) -> EpaStatus {
        let v1 = self.insert_vertex(s[0]);
        let v2 = self.insert_vertex(s[1]);
        let v3 = self.insert_vertex(s[2]);
        let v4 = self.insert_vertex(s[3]);
        self.center = (s[0].vert + s[1].vert + s[2].vert + s[3].vert) * 0.25;
        let faces: [[usize; 6]; 4] = [
            [v1, v2, v3, 1, 3, 2],
            [v1, v4, v2, 2, 3, 0],
            [v1, v3, v4, 0, 3, 1],
            [v4, v3, v2, 2, 0, 1],
        ];
        for f in faces {
            if self.attach_initial(f) < MINDIST {
                let t = [
                    self.verts[f[0]],
                    self.verts[f[1]],
                    self.verts[f[2]],
                    Vertex::default(),
                ];
                self.reset();
                return self.init_triangle(&t, o1, o2);
            }
        }
        if !test_tetra(s[0].vert, s[1].vert, s[2].vert, s[3].vert) {
            return EpaStatus::P4MissingOrigin;
        }
        self.map_all(4);
        EpaStatus::Ok
    }

    /// The closed surface of the last EPA run (its faces not deleted) as feature ids into `out`,
    /// each face wound to turn its front away from the origin; false (and `out` emptied) when it
    /// has more than [`SURFACE_VERTS`] vertices or [`SURFACE_FACES`] faces, when the origin is
    /// not strictly inside every face, or when two neighbouring faces do not cross their shared
    /// edge in opposite directions (then the faces do not wrap the origin exactly once).
    pub(crate) fn surface(&self, out: &mut Surface) -> bool {
        out.nverts = 0;
        out.nfaces = 0;
        // faces ever made (deleted ones included): more means a large surface anyway
        const MOST_FACES: usize = 4 * SURFACE_FACES;
        if self.nfaces > MOST_FACES {
            return false;
        }
        // polytope vertex -> surface vertex (u8::MAX: unused so far)
        let mut remap = [u8::MAX; MAX_VERTS];
        // face -> wound vertices, for the neighbour test (only live faces are read)
        let mut wound = [[0u8; 3]; MOST_FACES];
        let (mut nv, mut nf) = (0usize, 0usize);
        for (fi, f) in self.faces[..self.nfaces].iter().enumerate() {
            if f.index == -2 {
                continue;
            }
            if nf == SURFACE_FACES {
                return false;
            }
            let [a, b, c] = f.verts.map(|k| self.pts[k as usize]);
            let det = (b - a).cross(c - a).dot(a);
            let w = if det > 0.0 {
                f.verts
            } else if det < 0.0 {
                [f.verts[0], f.verts[2], f.verts[1]]
            } else {
                return false;
            };
            wound[fi] = w;
            let mut face = [0u8; 3];
            for (slot, &k) in face.iter_mut().zip(&w) {
                let r = &mut remap[k as usize];
                if *r == u8::MAX {
                    if nv == SURFACE_VERTS {
                        return false;
                    }
                    let v = &self.verts[k as usize];
                    out.ids[nv] = [v.index1, v.index2];
                    *r = nv as u8;
                    nv += 1;
                }
                *slot = *r;
            }
            out.faces[nf] = face;
            nf += 1;
        }
        // every edge of a face, in its winding, must run the other way in the neighbour across it
        for (fi, f) in self.faces[..self.nfaces].iter().enumerate() {
            if f.index == -2 {
                continue;
            }
            for e in 0..3 {
                let (p, q) = (f.verts[e], f.verts[MOD3[e + 1]]);
                let (p, q) = if wound_has(&wound[fi], p, q) {
                    (p, q)
                } else {
                    (q, p)
                };
                let g = f.adj[e] as usize;
                if g >= self.nfaces || self.faces[g].index == -2 || !wound_has(&wound[g], q, p) {
                    return false;
                }
            }
        }
        if nf < 4 {
            return false;
        }
        out.nverts = nv as u8;
        out.nfaces = nf as u8;
        true
    }
}

/// The feature ids of a polytope vertex as one key: equal keys, equal `(index1, index2)`.
#[inline(always)]
fn feature_key(v: &Vertex) -> u64 {
    (u64::from(v.index1 as u32) << 32) | u64::from(v.index2 as u32)
}

/// Whether the wound triangle `w` runs along the edge from `p` to `q`.
fn wound_has(w: &[u8; 3], p: u8, q: u8) -> bool {
    (0..3).any(|i| w[i] == p && w[MOD3[i + 1]] == q)
}

/// Runs EPA from a GJK simplex of `n` (2, 3 or 4) vertices.
pub(crate) fn epa(
    pt: &mut Polytope,
    simplex: &[Vertex; 4],
    n: usize,
    o1: &mut Object,
    o2: &mut Object,
    max_iterations: usize,
    tolerance: f64,
) -> EpaResult {
    let mut res = EpaResult {
        dist: 0.0,
        x1: DVec3::ZERO,
        x2: DVec3::ZERO,
        face: [Vertex::default(); 3],
        found: false,
        iterations: 0,
        exhausted: false,
        status: EpaStatus::NotRun,
    };
    pt.reset();
    pt.overflow = false;
    let status = match n {
        2 => pt.init_segment(simplex, o1, o2),
        3 => pt.init_triangle(simplex, o1, o2),
        4 => pt.init_tetrahedron(simplex, o1, o2),
        _ => return res,
    };
    res.status = if pt.overflow {
        EpaStatus::OutOfMemory
    } else {
        status
    };
    if res.status != EpaStatus::Ok {
        return res;
    }

    let discrete = o1.discrete() && o2.discrete();
    let tolerance = if discrete { MINVAL } else { tolerance };
    let kmax = max_iterations.min(MAX_EPA_ITERATIONS);
    let max_faces = 6 * kmax;
    let mut upper = f64::MAX;
    let mut upper2 = f64::MAX;
    let mut face: Option<usize> = None;
    let mut k = 0;
    let mut converged = false;
    while k < kmax {
        let pface = face;
        let mut lower2 = f64::MAX;
        let mut slot = usize::MAX;
        // selects, not branches: where the nearest face lies in the map is unpredictable
        for (i, &d2) in pt.map_dist2[..pt.nmap].iter().enumerate() {
            let nearer = d2 < lower2;
            slot = std::hint::select_unpredictable(nearer, i, slot);
            lower2 = std::hint::select_unpredictable(nearer, d2, lower2);
        }
        if slot != usize::MAX {
            face = Some(pt.map[slot] as usize);
        }
        let Some(fi) = face else {
            converged = true;
            break;
        };
        if lower2 > upper2 {
            face = pface;
            converged = true;
            break;
        }
        if lower2 <= 0.0 {
            converged = true;
            break;
        }
        let lower = lower2.sqrt();
        let fv = pt.faces[fi].v;
        let wi = pt.support(o1, o2, fv, lower);
        if pt.overflow {
            break;
        }
        let w = &pt.verts[wi];
        let w_vert = w.vert;
        let upper_k = fv.dot(w_vert) / lower;
        if upper_k < upper {
            upper = upper_k;
            upper2 = upper * upper;
        }
        if upper_k - lower < tolerance {
            converged = true;
            // converged on the first expansion with the bound more than the tolerance below
            // the face: the support point lies behind the origin, the shapes are apart (a GJK
            // stopped early under a loose tolerance), and MuJoCo 4.0.0 returns no face
            // (`epa_first_bound_below_the_face_reports_no_penetration`)
            if k == 0 && upper < lower - tolerance {
                face = None;
            }
            break;
        }
        if discrete {
            // (an OR over all the earlier vertices, without an early exit: the compiler runs it
            // in vector lanes)
            let key = pt.keys[wi];
            let repeated = pt.keys[..wi].iter().fold(false, |hit, &k| hit | (k == key));
            if repeated {
                converged = true;
                break;
            }
        }

        pt.h_w = w_vert;
        pt.nedges = 0;
        pt.horizon(fi);
        if pt.nedges < 3 || pt.overflow {
            face = None;
            break;
        }
        let nfaces = pt.nfaces;
        let nedges = pt.nedges;
        let outward = w_vert - pt.center;
        // MuJoCo budgets 6 faces per iteration; out of room, it keeps the best face so far
        if nedges > max_faces.saturating_sub(pt.nfaces) {
            break;
        }
        for i in 0..nedges {
            let cur = nfaces + i;
            let prev = if i == 0 { nfaces + nedges - 1 } else { cur - 1 };
            let next = if i + 1 == nedges { nfaces } else { cur + 1 };
            let h_index = pt.h_index[i] as usize;
            let h_edge = pt.h_edge[i] as usize;
            let hface = &mut pt.faces[h_index];
            let v1 = hface.verts[h_edge] as usize;
            let v2 = hface.verts[MOD3[h_edge + 1]] as usize;
            hface.adj[h_edge] = cur as u16;
            let dist2 = pt.attach(wi, v2, v1, prev, h_index, next, outward);
            if dist2 == 0.0 {
                face = None;
                break;
            }
            if dist2 >= lower2 && dist2 <= upper2 {
                pt.add_to_map(pt.nfaces - 1);
            }
        }
        pt.nedges = 0;
        if pt.nmap == 0 || face.is_none() {
            if face.is_some() {
                converged = true;
            }
            break;
        }
        k += 1;
    }
    res.iterations = k;
    res.exhausted = !converged && k >= kmax;
    if let Some(fi) = face {
        let f = pt.faces[fi];
        let a = pt.verts[f.verts[0] as usize];
        let b = pt.verts[f.verts[1] as usize];
        let c = pt.verts[f.verts[2] as usize];
        let l = face_barycentric(a.vert, b.vert, c.vert, f.v);
        res.x1 = a.vert1 * l[0] + b.vert1 * l[1] + c.vert1 * l[2];
        res.x2 = a.vert2 * l[0] + b.vert2 * l[1] + c.vert2 * l[2];
        res.dist = -f.dist2.sqrt();
        res.face = [a, b, c];
        res.found = res.x1.is_finite() && res.x2.is_finite() && res.dist.is_finite();
        if !res.found {
            res.dist = 0.0;
        }
    }
    res
}

/// Barycentric coordinates of `p` (a point in the plane of the triangle `(a, b, c)`): the
/// signed areas of the sub-triangles `(p, b, c)`, `(p, c, a)`, `(p, a, b)` over their sum, in
/// the coordinate plane the triangle's normal is most aligned with (MuJoCo 4.0.0's EPA
/// witness; measured bit for bit on its witness points).
pub(super) fn face_barycentric(a: DVec3, b: DVec3, c: DVec3, p: DVec3) -> [f64; 3] {
    let n = (b - a).cross(c - a).abs();
    let (i, j) = if n.z <= n.x && n.y <= n.x {
        (1, 2)
    } else if n.y < n.z {
        (0, 1)
    } else {
        (0, 2)
    };
    let (ai, aj) = (a[i] - p[i], a[j] - p[j]);
    let (bi, bj) = (b[i] - p[i], b[j] - p[j]);
    let (ci, cj) = (c[i] - p[i], c[j] - p[j]);
    let u = bi * cj - ci * bj;
    let v = ci * aj - ai * cj;
    let w = ai * bj - bi * aj;
    let total = (u + v) + w;
    [u / total, v / total, w / total]
}

/// The six faces of the bipyramid with apexes `a`, `b` around the ring `r` (each face: its
/// vertices, then its neighbours across the edges `(v0, v1)`, `(v1, v2)`, `(v2, v0)`), in MuJoCo
/// 4.0.0's layout: `(a, r0, r1)`, `(a, r2, r0)`, `(a, r1, r2)`, `(b, r1, r0)`, `(b, r0, r2)`,
/// `(b, r2, r1)`. EPA's initial polytope around a GJK segment and around a GJK triangle.
fn bipyramid(a: usize, b: usize, r: [usize; 3]) -> [[usize; 6]; 6] {
    let [r0, r1, r2] = r;
    [
        [a, r0, r1, 1, 3, 2],
        [a, r2, r0, 2, 4, 0],
        [a, r1, r2, 0, 5, 1],
        [b, r1, r0, 5, 0, 4],
        [b, r0, r2, 3, 1, 5],
        [b, r2, r1, 4, 2, 3],
    ]
}

/// Faces of EPA's initial polytope grown from a GJK triangle `t` (indices, points `p`) and the
/// support points `lo` / `hi` along minus / plus its normal, MuJoCo 4.0.0's layout: a bipyramid.
/// Normally the two apexes pierce the triangle, and the polytope is the two tetrahedra sharing
/// it. When the apex–apex line passes beyond an edge `(a, b)` of the triangle (both apexes on
/// the far side of it), that edge becomes the axis and the opposite vertex `c` and the two
/// apexes the ring: the convex hull of the five points, faces laid out as from a GJK segment
/// (measured on MuJoCo's polytope buffer: edge `(0, 1)` gives `(0, 2, lo)`, `(0, hi, 2)`, ...).
fn triangle_bipyramid(
    t: [usize; 3],
    lo: usize,
    hi: usize,
    p: [DVec3; 3],
    plo: DVec3,
    phi: DVec3,
) -> [[usize; 6]; 6] {
    if ray_triangle(phi, plo, p[0], p[1], p[2]) == 0 {
        for e in 0..3 {
            let (a, b, c) = (e, (e + 1) % 3, (e + 2) % 3);
            if ray_triangle(p[a], p[b], p[c], plo, phi) != 0 {
                // faces (a, c, lo), (a, hi, c), (a, lo, hi), (b, lo, c), (b, c, hi), (b, hi, lo)
                return bipyramid(t[a], t[b], [t[c], lo, hi]);
            }
        }
    }
    // faces (hi, v1, v2), (hi, v3, v1), (hi, v2, v3), (lo, v2, v1), (lo, v1, v3), (lo, v3, v2)
    bipyramid(hi, lo, t)
}

/// Rotation by 120° about `axis`.
fn rot120(axis: DVec3) -> glam::DMat3 {
    let n = axis.length();
    let u = if n > 0.0 { axis / n } else { DVec3::Z };
    let s = 0.86602540378;
    let c = -0.5;
    let (u1, u2, u3) = (u.x, u.y, u.z);
    glam::DMat3::from_cols(
        DVec3::new(
            c + u1 * u1 * (1.0 - c),
            u2 * u1 * (1.0 - c) + u3 * s,
            u1 * u3 * (1.0 - c) - u2 * s,
        ),
        DVec3::new(
            u1 * u2 * (1.0 - c) - u3 * s,
            c + u2 * u2 * (1.0 - c),
            u2 * u3 * (1.0 - c) + u1 * s,
        ),
        DVec3::new(
            u1 * u3 * (1.0 - c) + u2 * s,
            u2 * u3 * (1.0 - c) - u1 * s,
            c + u3 * u3 * (1.0 - c),
        ),
    )
}

/// Signed volumes of the tetrahedra `(p1, p2)` × each edge of the ring `(r0, r1)`, `(r1, r2)`,
/// `(r2, r0)`: all of one sign when the line `p1 → p2` crosses the ring's triangle.
fn ring_volumes(p1: DVec3, p2: DVec3, ring: [DVec3; 3]) -> [f64; 3] {
    let d12 = p2 - p1;
    let [d13, d14, d15] = ring.map(|r| r - p1);
    [
        d13.dot(d14.cross(d12)),
        d14.dot(d15.cross(d12)),
        d15.dot(d13.cross(d12)),
    ]
}

/// 1 or -1 if the ray `v1 → v2` crosses the triangle `(v3, v4, v5)`, else 0.
fn ray_triangle(v1: DVec3, v2: DVec3, v3: DVec3, v4: DVec3, v5: DVec3) -> i32 {
    let [vol1, vol2, vol3] = ring_volumes(v1, v2, [v3, v4, v5]);
    if vol1 >= 0.0 && vol2 >= 0.0 && vol3 >= 0.0 {
        1
    } else if vol1 <= 0.0 && vol2 <= 0.0 && vol3 <= 0.0 {
        -1
    } else {
        0
    }
}

fn same_side(p0: DVec3, p1: DVec3, p2: DVec3, p3: DVec3) -> bool {
    let n = (p1 - p0).cross(p2 - p0);
    let dot1 = n.dot(p3 - p0);
    let dot2 = n.dot(-p0);
    (dot1 > 0.0 && dot2 > 0.0) || (dot1 < 0.0 && dot2 < 0.0)
}

fn test_tetra(p0: DVec3, p1: DVec3, p2: DVec3, p3: DVec3) -> bool {
    same_side(p0, p1, p2, p3)
        && same_side(p1, p2, p3, p0)
        && same_side(p2, p3, p0, p1)
        && same_side(p3, p0, p1, p2)
}

fn tri_point_intersect(v1: DVec3, v2: DVec3, v3: DVec3, p: DVec3) -> bool {
    let l = tri_affine(v1, v2, v3, p);
    if l[0] < 0.0 || l[1] < 0.0 || l[2] < 0.0 {
        return false;
    }
    let pr = v1 * l[0] + v2 * l[1] + v3 * l[2];
    (pr - p).length() < MINVAL
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bipyramid_neighbours_hold_the_reversed_edges() {
        // every face's neighbour across edge (u, v) is the one other face holding (v, u)
        let faces = bipyramid(10, 20, [30, 40, 50]);
        for (i, f) in faces.iter().enumerate() {
            for e in 0..3 {
                let (u, v) = (f[e], f[(e + 1) % 3]);
                let holders: Vec<usize> = (0..6)
                    .filter(|&j| (0..3).any(|k| faces[j][k] == v && faces[j][(k + 1) % 3] == u))
                    .collect();
                assert_eq!(holders, vec![f[3 + e]], "face {i} edge {e}");
            }
        }
    }
}
