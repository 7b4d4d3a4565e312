//! The compiled model: struct-of-arrays, numbered exactly as MuJoCo numbers it.
//!
//! Bodies are in depth-first order (body 0 is the world), geoms in document order within
//! their body, joints in document order. All frames are relative to the parent body, with the
//! mesh frame (centre of mass and principal axes) already folded into mesh geoms, as in
//! MuJoCo's `mjModel`.

use glam::{DQuat, DVec3};

/// Geometry type, numbered as MuJoCo's `mjtGeom` (the numbering orders contact pairs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum GeomType {
    /// Infinite plane; its normal is the geom's local +z.
    Plane = 0,
    /// Height field, see [`HField`].
    HField = 1,
    /// Sphere of radius `size[0]`.
    Sphere = 2,
    /// Capsule of radius `size[0]` and half-length `size[1]` along local z.
    Capsule = 3,
    /// Ellipsoid with semi-axes `size`.
    Ellipsoid = 4,
    /// Cylinder of radius `size[0]` and half-height `size[1]` along local z.
    Cylinder = 5,
    /// Box with half-sizes `size`.
    Box = 6,
    /// Mesh, see [`Mesh`]; collides as its convex hull.
    Mesh = 7,
    /// Signed distance field (MuJoCo's `type="sdf"`): the field is [`Model::geom_sdf`] (a
    /// plugin) or, without one, the octree of the mesh [`Model::geom_dataid`]; that mesh
    /// gives the box, bounding sphere and size.
    Sdf = 8,
}

impl GeomType {
    /// All types, in `mjtGeom` order.
    pub const ALL: [GeomType; 9] = [
        GeomType::Plane,
        GeomType::HField,
        GeomType::Sphere,
        GeomType::Capsule,
        GeomType::Ellipsoid,
        GeomType::Cylinder,
        GeomType::Box,
        GeomType::Mesh,
        GeomType::Sdf,
    ];

    /// MJCF name of the type (`"box"`, `"hfield"`, …).
    pub fn name(self) -> &'static str {
        match self {
            GeomType::Plane => "plane",
            GeomType::HField => "hfield",
            GeomType::Sphere => "sphere",
            GeomType::Capsule => "capsule",
            GeomType::Ellipsoid => "ellipsoid",
            GeomType::Cylinder => "cylinder",
            GeomType::Box => "box",
            GeomType::Mesh => "mesh",
            GeomType::Sdf => "sdf",
        }
    }

    /// Parses an MJCF type name; `None` for unknown names.
    pub fn from_name(s: &str) -> Option<GeomType> {
        GeomType::ALL.into_iter().find(|t| t.name() == s)
    }
}

/// Joint type, numbered as MuJoCo's `mjtJoint`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum JointType {
    /// Six dofs; qpos = position (3) then unit quaternion (4, w first).
    Free = 0,
    /// Three rotational dofs; qpos = unit quaternion (4, w first).
    Ball = 1,
    /// Translation along the joint axis; qpos = displacement (1).
    Slide = 2,
    /// Rotation about the joint axis through the joint position; qpos = angle in radians (1).
    Hinge = 3,
}

impl JointType {
    /// Number of `qpos` entries of the joint.
    pub fn nq(self) -> usize {
        match self {
            JointType::Free => 7,
            JointType::Ball => 4,
            JointType::Slide | JointType::Hinge => 1,
        }
    }
    /// Number of degrees of freedom of the joint.
    pub fn nv(self) -> usize {
        match self {
            JointType::Free => 6,
            JointType::Ball => 3,
            JointType::Slide | JointType::Hinge => 1,
        }
    }
}

/// Disable flags (`option/flag`, MuJoCo's `mjtDisableBit`), bit positions as in 4.0.0.
pub mod disable {
    /// Contacts and other constraints.
    pub const CONSTRAINT: u32 = 1 << 0;
    /// Equality constraints.
    pub const EQUALITY: u32 = 1 << 1;
    /// Joint and tendon friction loss.
    pub const FRICTIONLOSS: u32 = 1 << 2;
    /// Joint and tendon limits.
    pub const LIMIT: u32 = 1 << 3;
    /// Contacts.
    pub const CONTACT: u32 = 1 << 4;
    /// Spring forces.
    pub const SPRING: u32 = 1 << 5;
    /// Damping forces.
    pub const DAMPER: u32 = 1 << 6;
    /// Gravity.
    pub const GRAVITY: u32 = 1 << 7;
    /// Clamping of controls.
    pub const CLAMPCTRL: u32 = 1 << 8;
    /// Solver warm start.
    pub const WARMSTART: u32 = 1 << 9;
    /// Parent–child body filtering of contacts.
    pub const FILTERPARENT: u32 = 1 << 10;
    /// Actuation.
    pub const ACTUATION: u32 = 1 << 11;
    /// Reference acceleration.
    pub const REFSAFE: u32 = 1 << 12;
    /// Sensors.
    pub const SENSOR: u32 = 1 << 13;
    /// The body BVH mid phase.
    pub const MIDPHASE: u32 = 1 << 14;
    /// Euler damping.
    pub const EULERDAMP: u32 = 1 << 15;
    /// Automatic reset on divergence.
    pub const AUTORESET: u32 = 1 << 16;
    /// MuJoCo's native convex collider (off = libccd MPR).
    pub const NATIVECCD: u32 = 1 << 17;
    /// Island discovery.
    pub const ISLAND: u32 = 1 << 18;
    /// Multi-point convex contacts.
    pub const MULTICCD: u32 = 1 << 19;
}

/// Enable flags (`option/flag`, MuJoCo's `mjtEnableBit`), bit positions as in 4.0.0.
pub mod enable {
    /// Contact override (`o_margin`, `o_solref`, `o_solimp`, `o_friction`).
    pub const OVERRIDE: u32 = 1 << 0;
    /// Energy computation.
    pub const ENERGY: u32 = 1 << 1;
    /// Forward/inverse comparison.
    pub const FWDINV: u32 = 1 << 2;
    /// Discrete-time inverse dynamics.
    pub const INVDISCRETE: u32 = 1 << 3;
    /// Sleeping (hibernation).
    pub const SLEEP: u32 = 1 << 4;
    /// Exact diagonal approximation.
    pub const DIAGEXACT: u32 = 1 << 5;
    /// Incremental potential contact.
    pub const IPC: u32 = 1 << 6;
    /// Speculative contacts.
    pub const SPECULATIVE: u32 = 1 << 7;
}

/// How a geom's (or a body's inertial) frame relates to its body frame, as MuJoCo's
/// `mjtSameFrame`. Kinematics copies frames that coincide (within 1e-6) instead of
/// multiplying, which is what makes world poses agree with MuJoCo to rounding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[repr(u8)]
pub enum SameFrame {
    /// An independent frame.
    #[default]
    None = 0,
    /// Same as the body frame.
    Body = 1,
    /// Same as the body's inertial frame.
    Inertia = 2,
    /// Same orientation as the body frame.
    BodyRot = 3,
    /// Same orientation as the body's inertial frame.
    InertiaRot = 4,
}

/// Simulation options that affect collision (`<option>`), with MuJoCo's defaults.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// Override margin (used when [`enable::OVERRIDE`] is set).
    pub o_margin: f64,
    /// Override solref.
    pub o_solref: [f64; 2],
    /// Override solimp.
    pub o_solimp: [f64; 5],
    /// Override friction (5 coefficients).
    pub o_friction: [f64; 5],
    /// Maximum iterations of the convex solver.
    pub ccd_iterations: usize,
    /// Convergence tolerance of the convex solver.
    pub ccd_tolerance: f64,
    /// SDF solver iterations.
    pub sdf_iterations: usize,
    /// SDF solver starting points.
    pub sdf_initpoints: usize,
    /// Velocity below which a tree may sleep.
    pub sleep_tolerance: f64,
    /// Disable bits, see [`disable`].
    pub disableflags: u32,
    /// Enable bits, see [`enable`].
    pub enableflags: u32,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            o_margin: 0.0,
            o_solref: [0.02, 1.0],
            o_solimp: [0.9, 0.95, 0.001, 0.5, 2.0],
            o_friction: [1.0, 1.0, 0.005, 0.0001, 0.0001],
            ccd_iterations: 35,
            ccd_tolerance: 1e-6,
            sdf_iterations: 10,
            sdf_initpoints: 40,
            sleep_tolerance: 1e-3,
            disableflags: 0,
            enableflags: 0,
        }
    }
}

/// A compiled mesh: vertices in the mesh's own frame (centre of mass at the origin, principal
/// axes along x, y, z), rounded to `f32` as MuJoCo stores them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Mesh {
    /// Asset name.
    pub name: String,
    /// Vertices in the mesh frame (values are exactly representable as `f32`).
    pub vert: Vec<DVec3>,
    /// Triangles, counter-clockwise seen from outside.
    pub face: Vec<[u32; 3]>,
    /// Position of the mesh frame in the asset's coordinates (after `scale`, `refpos`, `refquat`).
    pub pos: DVec3,
    /// Orientation of the mesh frame in the asset's coordinates.
    pub quat: DQuat,
    /// Axis-aligned bounds of the vertices in the mesh frame: `[min x, min y, min z, max x, max y, max z]`.
    pub aamm: [f64; 6],
    /// Half-sizes of the box with the same inertia (used to fit primitives to meshes).
    pub boxsz: DVec3,
    /// Volume (or area for shell inertia) used for mass computation.
    pub volume: f64,
    /// Principal moments of inertia per unit density, in decreasing order.
    pub inertia: DVec3,
    /// Convex hull used for collisions (MuJoCo collides meshes as their hulls); `None` when the
    /// mesh is not used by any collidable geom or pair.
    pub hull: Option<ConvexHull>,
    /// MuJoCo's face tree, walked when a mesh geom meets an SDF geom (`mjc_MeshSDF`); `None`
    /// when the model has no SDF geom or no collidable mesh geom uses the mesh.
    pub face_bvh: Option<crate::narrow::sdf::FaceBvh>,
    /// Octree distance field (MuJoCo's `oct_*`), built for meshes of mesh-backed sdf geoms
    /// (`<geom type="sdf" mesh="…"/>` without a plugin); `None` otherwise.
    pub octree: Option<crate::narrow::sdf::Octree>,
}

/// The convex hull of a mesh, in the mesh frame, with the data the convex narrow phase needs:
/// hill-climbing adjacency, merged polygon faces for face clipping, and direction seeds.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ConvexHull {
    /// Hull vertices (a subset of the mesh vertices; exactly representable as `f32`).
    pub vert: Vec<DVec3>,
    /// Index of each hull vertex in [`Mesh::vert`].
    pub mesh_index: Vec<u32>,
    /// Number of vertices of the mesh (MuJoCo's `mesh_vertnum`, repeated vertices included),
    /// which chooses MuJoCo's support search: a scan of every vertex below 10, else the hill
    /// climb. 0 when unknown (a hull built by hand): one more than the largest
    /// [`ConvexHull::mesh_index`] then stands in for it.
    pub mesh_nvert: u32,
    /// Vertex graph (hull edges) for the hill-climbing support search; empty when not built
    /// (the support then scans every vertex).
    pub graph: HullGraph,
    /// Hull triangles (hull indices), counter-clockwise seen from outside.
    pub face: Vec<[u32; 3]>,
    /// Coplanar triangles merged into polygons: vertices (hull indices) of polygon `p` are
    /// `poly_vert[poly_start[p]..poly_start[p + 1]]`, counter-clockwise seen from outside.
    pub poly_start: Vec<u32>,
    /// Flattened polygon vertex lists.
    pub poly_vert: Vec<u32>,
    /// Outward unit normal of each polygon.
    pub poly_normal: Vec<DVec3>,
    /// For each of the 27 directions `(cx, cy, cz)` in `{-1, 0, 1}³` (index `9(cx+1) + 3(cy+1)
    /// + (cz+1)`), the hull vertex maximizing the dot product (MuJoCo's `mesh_extrema`).
    pub extrema: [u32; 27],
    /// Polygons containing hull vertex `i`, in polygon order, each once:
    /// `vert_poly[vert_poly_start[i]..vert_poly_start[i + 1]]`. Built from the polygons by
    /// [`ConvexHull::index_vertex_polygons`]; when empty (not built) the narrow phase scans the
    /// polygons instead, with the same result.
    pub vert_poly_start: Vec<u32>,
    /// Flattened vertex-to-polygon lists.
    pub vert_poly: Vec<u32>,
}

impl ConvexHull {
    /// Vertex list of each polygon in order (`poly_vert[poly_start[p]..poly_start[p + 1]]`,
    /// ranges clamped to `poly_vert`, an inverted range read as empty).
    pub fn polygons(&self) -> impl Iterator<Item = &[u32]> {
        let n = self.poly_vert.len();
        self.poly_start.windows(2).map(move |w| {
            let a = (w[0] as usize).min(n);
            let b = (w[1] as usize).min(n).max(a);
            &self.poly_vert[a..b]
        })
    }

    /// Fills [`ConvexHull::vert_poly_start`] and [`ConvexHull::vert_poly`] from the polygons
    /// (call again after changing them). Polygon entries that are not hull vertices are ignored.
    pub fn index_vertex_polygons(&mut self) {
        let n = self.vert.len();
        let mut lists: Vec<Vec<u32>> = vec![Vec::new(); n];
        for (p, poly) in self.polygons().enumerate() {
            for &v in poly {
                if let Some(l) = lists.get_mut(v as usize) {
                    if l.last() != Some(&(p as u32)) {
                        l.push(p as u32);
                    }
                }
            }
        }
        self.vert_poly_start = Vec::with_capacity(n + 1);
        self.vert_poly = Vec::with_capacity(lists.iter().map(Vec::len).sum());
        for l in &lists {
            self.vert_poly_start.push(self.vert_poly.len() as u32);
            self.vert_poly.extend_from_slice(l);
        }
        self.vert_poly_start.push(self.vert_poly.len() as u32);
    }

    /// Calls `f` with each polygon containing hull vertex `v`, in polygon order, until it
    /// breaks: read from the vertex-to-polygon index when it is built, else found by scanning
    /// the polygons (the same polygons in the same order). Nothing for a `v` out of range.
    pub(crate) fn polygons_of_vertex(
        &self,
        v: i32,
        mut f: impl FnMut(usize) -> std::ops::ControlFlow<()>,
    ) {
        let n = self.vert.len();
        if self.vert_poly_start.len() == n + 1 {
            let Some(i) = usize::try_from(v).ok().filter(|&i| i < n) else {
                return;
            };
            let (a, b) = (self.vert_poly_start[i], self.vert_poly_start[i + 1]);
            for &p in self.vert_poly.get(a as usize..b as usize).unwrap_or(&[]) {
                if f(p as usize).is_break() {
                    return;
                }
            }
            return;
        }
        for (p, poly) in self.polygons().enumerate() {
            if poly.iter().any(|&x| x as i32 == v) && f(p).is_break() {
                return;
            }
        }
    }
}

/// Neighbours per [`NeighbourBlock`] (with `f32` coordinates, one 64-byte cache line).
const BLOCK: usize = 4;

/// Coordinates and indices of [`BLOCK`] neighbours of one vertex, so that their dot products
/// with a direction are computed side by side. A vertex whose degree is not a multiple of
/// [`BLOCK`] repeats its last neighbour: the copy never wins the strict `>` comparison the
/// search makes, so the result is that of the plain list. Coordinates are stored as `f32`
/// (one cache line per block) when every hull vertex is exactly an `f32`, as MuJoCo's mesh
/// vertices are, else as `f64`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(C, align(64))]
struct NeighbourBlock<T> {
    x: [T; BLOCK],
    y: [T; BLOCK],
    z: [T; BLOCK],
    id: [u32; BLOCK],
}

/// A coordinate type of [`NeighbourBlock`]: converts exactly to `f64`.
trait Coord: Copy + Default + Into<f64> {
    /// The coordinate `c`, if exactly representable.
    fn exact(c: f64) -> Option<Self>;

    /// `dir · v` for the block's neighbours `v`, as `dir.x * v.x + dir.y * v.y + dir.z * v.z`
    /// left to right (MuJoCo's order).
    #[inline(always)]
    fn dots(blk: &NeighbourBlock<Self>, dir: DVec3) -> [f64; BLOCK] {
        std::array::from_fn(|k| {
            dir.x * blk.x[k].into() + dir.y * blk.y[k].into() + dir.z * blk.z[k].into()
        })
    }
}

impl Coord for f32 {
    fn exact(c: f64) -> Option<f32> {
        let r = c as f32;
        (f64::from(r) == c).then_some(r)
    }

    /// The four dot products in the four `f64` lanes of AVX (the same operations lane by
    /// lane, so the same bits as the scalar default).
    #[cfg(all(target_arch = "x86_64", target_feature = "avx"))]
    #[inline(always)]
    fn dots(blk: &NeighbourBlock<f32>, dir: DVec3) -> [f64; BLOCK] {
        use core::arch::x86_64::*;
        let mut out = [0.0; BLOCK];
        // SAFETY: the build enables AVX (the `cfg` above); each load reads one of the block's
        // own four-float arrays and the store writes `out`'s four doubles
        unsafe {
            let lanes = |c: &[f32; BLOCK]| _mm256_cvtps_pd(_mm_loadu_ps(c.as_ptr()));
            let x = _mm256_mul_pd(_mm256_set1_pd(dir.x), lanes(&blk.x));
            let y = _mm256_mul_pd(_mm256_set1_pd(dir.y), lanes(&blk.y));
            let z = _mm256_mul_pd(_mm256_set1_pd(dir.z), lanes(&blk.z));
            _mm256_storeu_pd(out.as_mut_ptr(), _mm256_add_pd(_mm256_add_pd(x, y), z));
        }
        out
    }
}

impl Coord for f64 {
    fn exact(c: f64) -> Option<f64> {
        Some(c)
    }
}

/// The neighbour blocks of every vertex, one after the other, in the precision their
/// coordinates allow.
#[derive(Clone, Debug, PartialEq)]
enum Blocks {
    F32(Vec<NeighbourBlock<f32>>),
    F64(Vec<NeighbourBlock<f64>>),
}

impl Default for Blocks {
    fn default() -> Self {
        Blocks::F32(Vec::new())
    }
}

/// The blocks of the neighbour lists `adj[adj_start[i]..adj_start[i + 1]]` (valid indices
/// into `vert`) and each vertex's first block (`n + 1` offsets); `None` if a coordinate is
/// not exactly a `T` or the blocks overflow `u32` offsets.
fn pack<T: Coord>(
    vert: &[DVec3],
    adj_start: &[u32],
    adj: &[u32],
) -> Option<(Vec<u32>, Vec<NeighbourBlock<T>>)> {
    let mut block_start = Vec::with_capacity(adj_start.len());
    let mut blocks = Vec::new();
    block_start.push(0);
    for w in adj_start.windows(2) {
        for chunk in adj[w[0] as usize..w[1] as usize].chunks(BLOCK) {
            let mut b = NeighbourBlock::<T>::default();
            for k in 0..BLOCK {
                // pad with the last neighbour (never a strict improvement on itself)
                let j = chunk[k.min(chunk.len() - 1)];
                let v = vert[j as usize];
                (b.x[k], b.y[k], b.z[k]) = (T::exact(v.x)?, T::exact(v.y)?, T::exact(v.z)?);
                b.id[k] = j;
            }
            blocks.push(b);
        }
        block_start.push(u32::try_from(blocks.len()).ok()?);
    }
    Some((block_start, blocks))
}

/// The vertex graph of a convex hull (each vertex's neighbours along hull edges, in MuJoCo's
/// order), validated once when built and laid out for the hill-climbing support search: the
/// neighbours' coordinates are stored with the lists, so the search reads no vertex array and
/// checks no index. [`HullGraph::default`] is the empty graph (no graph built).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HullGraph {
    /// Neighbours of vertex `i`: `adj[adj_start[i]..adj_start[i + 1]]` (`n + 1` offsets).
    adj_start: Vec<u32>,
    /// Flattened neighbour lists (every entry below `n`).
    adj: Vec<u32>,
    /// The blocks of vertex `i`: `blocks[block_start[i]..block_start[i + 1]]`.
    block_start: Vec<u32>,
    /// Every vertex's neighbour list packed in blocks.
    blocks: Blocks,
}

impl HullGraph {
    /// The graph of the vertices `vert` with the neighbour lists
    /// `adj[adj_start[i]..adj_start[i + 1]]` (vertex indices). `None` unless `adj_start` has
    /// `vert.len() + 1` non-decreasing offsets ending at `adj.len()`, starting at 0, and every
    /// neighbour is a vertex index.
    pub fn new(vert: &[DVec3], adj_start: &[u32], adj: &[u32]) -> Option<Self> {
        let n = vert.len();
        let valid = adj_start.len() == n + 1
            && adj_start.first() == Some(&0)
            && adj_start.last().is_some_and(|&e| e as usize == adj.len())
            && adj_start.windows(2).all(|w| w[0] <= w[1])
            && adj.iter().all(|&j| (j as usize) < n);
        if !valid {
            return None;
        }
        let (block_start, blocks) = match pack::<f32>(vert, adj_start, adj) {
            Some((s, b)) => (s, Blocks::F32(b)),
            None => {
                let (s, b) = pack::<f64>(vert, adj_start, adj)?;
                (s, Blocks::F64(b))
            }
        };
        Some(HullGraph {
            adj_start: adj_start.to_vec(),
            adj: adj.to_vec(),
            block_start,
            blocks,
        })
    }

    /// Number of vertices (0 for the empty graph).
    pub fn len(&self) -> usize {
        self.adj_start.len().saturating_sub(1)
    }

    /// True for the empty graph (none built).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Neighbours of vertex `i`, in order (empty if `i` is not a vertex).
    pub fn neighbours(&self, i: usize) -> &[u32] {
        match self.adj_start.get(i..i + 2) {
            Some(&[a, b]) => &self.adj[a as usize..b as usize],
            _ => &[],
        }
    }

    /// Hill climb for the vertex maximizing `dir · v`, from vertex `start` whose dot product is
    /// `start_dot`: move to the first neighbour with the largest dot product, if it beats the
    /// current one, until none does or `n + 1` moves were made. Dot products are
    /// `dir.x * v.x + dir.y * v.y + dir.z * v.z`, left to right, as MuJoCo computes them.
    pub(crate) fn climb(&self, dir: DVec3, start: usize, start_dot: f64) -> usize {
        match &self.blocks {
            Blocks::F32(b) => self.climb_in(b, dir, start, start_dot),
            Blocks::F64(b) => self.climb_in(b, dir, start, start_dot),
        }
    }

    fn climb_in<T: Coord>(
        &self,
        blocks: &[NeighbourBlock<T>],
        dir: DVec3,
        start: usize,
        start_dot: f64,
    ) -> usize {
        let (mut cur, mut max) = (start, start_dot);
        for _ in 0..self.len() + 1 {
            let prev = cur;
            (cur, max) = self.step(blocks, dir, cur, max);
            if cur == prev {
                break;
            }
        }
        cur
    }

    /// Two independent [`HullGraph::climb`]s, `(graph, dir, start, start_dot)` each, stepped in
    /// lockstep so that the processor overlaps their memory reads; the same two answers (a
    /// climb that has stopped stays where it is: a step from a vertex no neighbour beats
    /// returns that vertex).
    pub(crate) fn climb_pair(
        a: (&HullGraph, DVec3, usize, f64),
        b: (&HullGraph, DVec3, usize, f64),
    ) -> (usize, usize) {
        match (&a.0.blocks, &b.0.blocks) {
            (Blocks::F32(ba), Blocks::F32(bb)) => Self::climb_pair_in(a, ba, b, bb),
            (Blocks::F32(ba), Blocks::F64(bb)) => Self::climb_pair_in(a, ba, b, bb),
            (Blocks::F64(ba), Blocks::F32(bb)) => Self::climb_pair_in(a, ba, b, bb),
            (Blocks::F64(ba), Blocks::F64(bb)) => Self::climb_pair_in(a, ba, b, bb),
        }
    }

    fn climb_pair_in<A: Coord, B: Coord>(
        (ga, da, mut ca, mut ma): (&HullGraph, DVec3, usize, f64),
        ba: &[NeighbourBlock<A>],
        (gb, db, mut cb, mut mb): (&HullGraph, DVec3, usize, f64),
        bb: &[NeighbourBlock<B>],
    ) -> (usize, usize) {
        let (na, nb) = (ga.len() + 1, gb.len() + 1);
        for it in 0..na.max(nb) {
            let (pa, pb) = (ca, cb);
            if it < na {
                (ca, ma) = ga.step(ba, da, ca, ma);
            }
            if it < nb {
                (cb, mb) = gb.step(bb, db, cb, mb);
            }
            if ca == pa && cb == pb {
                break;
            }
        }
        (ca, cb)
    }

    /// One move of the climb: the first neighbour of `cur` whose dot product beats `max`
    /// (strictly) and is the largest, with that dot product; `(cur, max)` if none.
    #[inline(always)]
    fn step<T: Coord>(
        &self,
        blocks: &[NeighbourBlock<T>],
        dir: DVec3,
        mut cur: usize,
        mut max: f64,
    ) -> (usize, f64) {
        let (Some(&a), Some(&b)) = (self.block_start.get(cur), self.block_start.get(cur + 1))
        else {
            return (cur, max);
        };
        for blk in blocks.get(a as usize..b as usize).unwrap_or(&[]) {
            let d = T::dots(blk, dir);
            // a branch past the blocks without a better neighbour (most blocks: the processor
            // runs ahead on its guess), then selects, not branches, within a block: which
            // neighbour wins is unpredictable (a branch per neighbour mispredicted about one
            // time in seven on random hand poses)
            if !d.iter().any(|&dk| dk > max) {
                continue;
            }
            for (k, &dk) in d.iter().enumerate() {
                let better = dk > max;
                max = std::hint::select_unpredictable(better, dk, max);
                cur = std::hint::select_unpredictable(better, blk.id[k] as usize, cur);
            }
        }
        (cur, max)
    }
}

/// A compiled height field over the geom's x–y plane.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HField {
    /// Asset name.
    pub name: String,
    /// `[x half-extent, y half-extent, elevation z, base z]`, all positive.
    pub size: [f64; 4],
    /// Number of rows (along y; row 0 is at −y).
    pub nrow: usize,
    /// Number of columns (along x).
    pub ncol: usize,
    /// Normalized elevations in [0, 1], row-major, `nrow * ncol` values.
    pub data: Vec<f32>,
}

/// The compiled model. Every `Vec` named `body_*`, `jnt_*`, `geom_*`, `pair_*` has one entry per
/// body, joint, geom or pair.
#[derive(Clone, Debug, Default)]
pub struct Model {
    /// Collision options.
    pub opt: Options,

    /// Body names (empty string when unnamed; body 0 is `"world"`).
    pub body_name: Vec<String>,
    /// Parent body (the world is its own parent).
    pub body_parentid: Vec<usize>,
    /// Root of the body's weld group: the nearest ancestor-or-self with joints or mocap; 0 = world.
    pub body_weldid: Vec<usize>,
    /// Top-level ancestor below the world (0 for the world).
    pub body_rootid: Vec<usize>,
    /// First joint of the body.
    pub body_jntadr: Vec<usize>,
    /// Number of joints of the body.
    pub body_jntnum: Vec<usize>,
    /// Number of degrees of freedom of the body's own joints.
    pub body_dofnum: Vec<usize>,
    /// Mocap index, if the body is a mocap body.
    pub body_mocapid: Vec<Option<usize>>,
    /// Position relative to the parent body frame.
    pub body_pos: Vec<DVec3>,
    /// Orientation relative to the parent body frame.
    pub body_quat: Vec<DQuat>,
    /// Position of the inertial frame in the body frame.
    pub body_ipos: Vec<DVec3>,
    /// Orientation of the inertial frame in the body frame.
    pub body_iquat: Vec<DQuat>,
    /// Body mass.
    pub body_mass: Vec<f64>,
    /// Whether the inertial frame coincides with the body frame ([`SameFrame::Body`],
    /// [`SameFrame::BodyRot`] or [`SameFrame::None`]).
    pub body_sameframe: Vec<SameFrame>,
    /// First geom of the body.
    pub body_geomadr: Vec<usize>,
    /// Number of geoms of the body.
    pub body_geomnum: Vec<usize>,
    /// OR of the body's geom contypes.
    pub body_contype: Vec<u32>,
    /// OR of the body's geom conaffinities.
    pub body_conaffinity: Vec<u32>,
    /// Maximum over the body's geoms of `margin + gap`.
    pub body_margin: Vec<f64>,

    /// Joint names.
    pub jnt_name: Vec<String>,
    /// Joint type.
    pub jnt_type: Vec<JointType>,
    /// Body the joint belongs to.
    pub jnt_bodyid: Vec<usize>,
    /// First `qpos` entry of the joint.
    pub jnt_qposadr: Vec<usize>,
    /// Anchor in the body frame.
    pub jnt_pos: Vec<DVec3>,
    /// Unit axis in the body frame.
    pub jnt_axis: Vec<DVec3>,

    /// Reference configuration (joint `ref` values; identity quaternions; free joints at the body pose).
    pub qpos0: Vec<f64>,

    /// Geom names.
    pub geom_name: Vec<String>,
    /// Geom type.
    pub geom_type: Vec<GeomType>,
    /// Body the geom belongs to.
    pub geom_bodyid: Vec<usize>,
    /// Mesh id (mesh and sdf geoms) or height-field id (hfield geoms).
    pub geom_dataid: Vec<Option<usize>>,
    /// SDF plugin of each plugin-backed sdf geom (`None` for other geoms, mesh-backed sdf geoms
    /// included: their field is [`Mesh::octree`]; a missing entry reads as `None`). Evaluated
    /// in the mesh's asset frame, which MuJoCo does not recentre for plugin meshes.
    pub geom_sdf: Vec<Option<crate::narrow::sdf::SdfPlugin>>,
    /// Size parameters, see [`GeomType`].
    pub geom_size: Vec<DVec3>,
    /// Position in the body frame.
    pub geom_pos: Vec<DVec3>,
    /// Orientation in the body frame.
    pub geom_quat: Vec<DQuat>,
    /// How the geom frame relates to the body and inertial frames.
    pub geom_sameframe: Vec<SameFrame>,
    /// Bounding-sphere radius about the geom centre (0 for planes).
    pub geom_rbound: Vec<f64>,
    /// Local AABB `[centre x, y, z, half x, y, z]` in the geom frame.
    pub geom_aabb: Vec<[f64; 6]>,
    /// Contact type bitmask.
    pub geom_contype: Vec<u32>,
    /// Contact affinity bitmask.
    pub geom_conaffinity: Vec<u32>,
    /// Contact dimensionality (1, 3, 4 or 6).
    pub geom_condim: Vec<u32>,
    /// Contact priority.
    pub geom_priority: Vec<i32>,
    /// Friction: slide, spin, roll.
    pub geom_friction: Vec<DVec3>,
    /// Solver parameter mixing weight.
    pub geom_solmix: Vec<f64>,
    /// Solver reference.
    pub geom_solref: Vec<[f64; 2]>,
    /// Solver impedance.
    pub geom_solimp: Vec<[f64; 5]>,
    /// Detection margin.
    pub geom_margin: Vec<f64>,
    /// Inactive part of the margin.
    pub geom_gap: Vec<f64>,
    /// Adhesion.
    pub geom_adhesion: Vec<f64>,

    /// Meshes.
    pub mesh: Vec<Mesh>,
    /// Height fields.
    pub hfield: Vec<HField>,

    /// First geom of each explicit `<pair>` (the one on the lower body id).
    pub pair_geom1: Vec<usize>,
    /// Second geom of each explicit pair.
    pub pair_geom2: Vec<usize>,
    /// `(body1 << 16) + body2` with `body1 <= body2`; pairs are sorted by it (stable).
    pub pair_signature: Vec<u32>,
    /// Contact dimensionality of the pair.
    pub pair_dim: Vec<u32>,
    /// Friction (5 coefficients).
    pub pair_friction: Vec<[f64; 5]>,
    /// Solver reference.
    pub pair_solref: Vec<[f64; 2]>,
    /// Solver reference for friction.
    pub pair_solreffriction: Vec<[f64; 2]>,
    /// Solver impedance.
    pub pair_solimp: Vec<[f64; 5]>,
    /// Detection margin.
    pub pair_margin: Vec<f64>,
    /// Inactive part of the margin.
    pub pair_gap: Vec<f64>,
    /// Adhesion.
    pub pair_adhesion: Vec<f64>,

    /// Excluded body pairs, `(body1 << 16) + body2` with `body1 <= body2`, sorted.
    pub exclude_signature: Vec<u32>,

    /// Keyframe names.
    pub key_name: Vec<String>,
    /// Keyframe `qpos` vectors (`nq` each).
    pub key_qpos: Vec<Vec<f64>>,
    /// Keyframe mocap positions (`nmocap` each).
    pub key_mpos: Vec<Vec<DVec3>>,
    /// Keyframe mocap orientations (`nmocap` each).
    pub key_mquat: Vec<Vec<DQuat>>,
}

impl Model {
    /// Number of bodies, including the world.
    pub fn nbody(&self) -> usize {
        self.body_parentid.len()
    }
    /// Number of joints.
    pub fn njnt(&self) -> usize {
        self.jnt_type.len()
    }
    /// Number of geoms.
    pub fn ngeom(&self) -> usize {
        self.geom_type.len()
    }
    /// Number of generalized coordinates.
    pub fn nq(&self) -> usize {
        self.qpos0.len()
    }
    /// Number of degrees of freedom.
    pub fn nv(&self) -> usize {
        self.jnt_type.iter().map(|t| t.nv()).sum()
    }
    /// Number of mocap bodies.
    pub fn nmocap(&self) -> usize {
        self.body_mocapid.iter().filter(|m| m.is_some()).count()
    }
    /// Number of explicit contact pairs.
    pub fn npair(&self) -> usize {
        self.pair_geom1.len()
    }

    /// The mocap bodies' model poses, indexed by mocap id (the default `mocap_pos`/`mocap_quat`).
    pub fn mocap_defaults(&self) -> (Vec<DVec3>, Vec<DQuat>) {
        let n = self.nmocap();
        let mut pos = vec![DVec3::ZERO; n];
        let mut quat = vec![DQuat::IDENTITY; n];
        for (b, m) in self.body_mocapid.iter().enumerate() {
            if let Some(m) = *m {
                pos[m] = self.body_pos[b];
                quat[m] = self.body_quat[b];
            }
        }
        (pos, quat)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cube `c + [-1, 1]³`, vertex `i` at `c + (±1, ±1, ±1)` by the bits of `i` (1 x, 2 y,
    /// 4 z), each joined to the three vertices one bit away: odd degree, so blocks are padded.
    fn cube(c: DVec3) -> (Vec<DVec3>, Vec<u32>, Vec<u32>) {
        let sign = |b: bool| if b { 1.0 } else { -1.0 };
        let vert = (0..8)
            .map(|i| c + DVec3::new(sign(i & 1 != 0), sign(i & 2 != 0), sign(i & 4 != 0)))
            .collect();
        let adj: Vec<u32> = (0..8u32).flat_map(|i| [i ^ 1, i ^ 2, i ^ 4]).collect();
        let adj_start = (0..=8).map(|i| 3 * i).collect();
        (vert, adj_start, adj)
    }

    #[test]
    fn hull_graph_rejects_invalid_lists() {
        let (vert, start, adj) = cube(DVec3::ZERO);
        let g = HullGraph::new(&vert, &start, &adj).expect("valid");
        assert_eq!(g.len(), 8);
        assert_eq!(g.neighbours(5), [4, 7, 1]);
        assert!(g.neighbours(8).is_empty());
        // a neighbour that is not a vertex
        let mut bad = adj.clone();
        bad[4] = 8;
        assert!(HullGraph::new(&vert, &start, &bad).is_none());
        // offsets: too few, decreasing, not ending at the list's end, not starting at 0
        assert!(HullGraph::new(&vert, &start[..8], &adj).is_none());
        let mut s = start.clone();
        s.swap(2, 3);
        assert!(HullGraph::new(&vert, &s, &adj).is_none());
        assert!(HullGraph::new(&vert, &start, &adj[..23]).is_none());
        let s: Vec<u32> = start.iter().map(|&o| o + 1).collect();
        assert!(HullGraph::new(&vert, &s, &adj).is_none());
        assert!(HullGraph::default().is_empty());
    }

    #[test]
    fn hull_graph_keeps_f64_coordinates_not_exact_in_f32() {
        let (mut vert, start, adj) = cube(DVec3::ZERO);
        let g = HullGraph::new(&vert, &start, &adj).expect("valid");
        assert!(matches!(g.blocks, Blocks::F32(_)));
        // vertex 3 (1, 1, -1) moved by 1e-9 along y: no longer an f32, and still the maximum
        // along +x+y, reached through vertex 1
        vert[3].y += 1e-9;
        let g = HullGraph::new(&vert, &start, &adj).expect("valid");
        let Blocks::F64(b) = &g.blocks else {
            panic!("f32 blocks for f64 coordinates");
        };
        assert_eq!(b[1].y[1], vert[3].y);
        let d = DVec3::new(1.0, 1.0, 0.0);
        assert_eq!(g.climb(d, 0, -2.0), 3);
    }

    /// A bipyramid over a regular `n`-gon in the x–y plane, shifted by `c` (a multiple of 1/16),
    /// coordinates rounded to `f32`: ring vertices `0..n`, apexes `n` (+z) and `n + 1` (−z).
    /// The apexes have degree `n` (several blocks, the last padded), the ring vertices degree
    /// 4 (one block).
    fn bipyramid(n: u32, c: DVec3) -> (Vec<DVec3>, Vec<u32>, Vec<u32>) {
        let round = |x: f64| f64::from(x as f32);
        let mut vert: Vec<DVec3> = (0..n)
            .map(|i| {
                let a = std::f64::consts::TAU * f64::from(i) / f64::from(n);
                DVec3::new(round(c.x + a.cos()), round(c.y + a.sin()), c.z)
            })
            .collect();
        vert.push(c + DVec3::new(0.0, 0.0, 1.5));
        vert.push(c + DVec3::new(0.0, 0.0, -1.5));
        let mut adj = Vec::new();
        let mut start = vec![0];
        for i in 0..n {
            adj.extend([(i + n - 1) % n, (i + 1) % n, n, n + 1]);
            start.push(adj.len() as u32);
        }
        for _ in 0..2 {
            adj.extend(0..n);
            start.push(adj.len() as u32);
        }
        (vert, start, adj)
    }

    proptest::proptest! {
        /// A block's dot products (in SIMD lanes where the build has them) are the scalar
        /// `dir.x * v.x + dir.y * v.y + dir.z * v.z`, bit for bit, in both precisions.
        #[test]
        fn block_dots_are_the_scalar_dots(
            c in proptest::collection::vec(-1e3f32..1e3, 12),
            (dx, dy, dz) in (-1.0..1.0f64, -1.0..1.0f64, -1.0..1.0f64),
        ) {
            let dir = DVec3::new(dx, dy, dz);
            let mut b32 = NeighbourBlock::<f32>::default();
            let mut b64 = NeighbourBlock::<f64>::default();
            for k in 0..BLOCK {
                (b32.x[k], b32.y[k], b32.z[k]) = (c[k], c[k + 4], c[k + 8]);
                (b64.x[k], b64.y[k], b64.z[k]) =
                    (f64::from(c[k]), f64::from(c[k + 4]), f64::from(c[k + 8]));
            }
            let scalar: [f64; BLOCK] = std::array::from_fn(|k| {
                dir.x * b64.x[k] + dir.y * b64.y[k] + dir.z * b64.z[k]
            });
            let bits = |d: [f64; BLOCK]| d.map(f64::to_bits);
            proptest::prop_assert_eq!(bits(f32::dots(&b32, dir)), bits(scalar));
            proptest::prop_assert_eq!(bits(f64::dots(&b64, dir)), bits(scalar));
        }

        /// Two climbs in lockstep give each climb's own answer, a maximizer of the dot product,
        /// whichever of the two needs more moves.
        #[test]
        fn climb_pair_gives_each_climbs_answer(
            (ax, ay, az) in (-1.0..1.0f64, -1.0..1.0f64, -1.0..1.0f64),
            (bx, by, bz) in (-1.0..1.0f64, -1.0..1.0f64, -1.0..1.0f64),
            sa in 0usize..19, sb in 0usize..8, shift in -48i32..48,
        ) {
            let shift = f64::from(shift) / 16.0;
            let (va, start_a, adj_a) = bipyramid(17, DVec3::splat(shift));
            let (vb, start_b, adj_b) = cube(DVec3::new(shift, 1.0, -2.0));
            let ga = HullGraph::new(&va, &start_a, &adj_a).expect("valid");
            let gb = HullGraph::new(&vb, &start_b, &adj_b).expect("valid");
            let (da, db) = (DVec3::new(ax, ay, az), DVec3::new(bx, by, bz));
            let dot = |d: DVec3, v: DVec3| d.x * v.x + d.y * v.y + d.z * v.z;
            let a = (&ga, da, sa, dot(da, va[sa]));
            let b = (&gb, db, sb, dot(db, vb[sb]));
            let one_by_one = (ga.climb(a.1, a.2, a.3), gb.climb(b.1, b.2, b.3));
            proptest::prop_assert_eq!(HullGraph::climb_pair(a, b), one_by_one);
            proptest::prop_assert_eq!(HullGraph::climb_pair(b, a), (one_by_one.1, one_by_one.0));
            let best = |d: DVec3, v: &[DVec3]| v.iter().map(|&p| dot(d, p)).fold(f64::MIN, f64::max);
            proptest::prop_assert_eq!(dot(da, va[one_by_one.0]), best(da, &va));
            proptest::prop_assert_eq!(dot(db, vb[one_by_one.1]), best(db, &vb));
        }
    }

    #[test]
    fn hull_graph_climb_keeps_first_maximum_of_padded_lists() {
        let (vert, start, adj) = cube(DVec3::ZERO);
        let g = HullGraph::new(&vert, &start, &adj).expect("valid");
        let dot = |d: DVec3, i: usize| d.x * vert[i].x + d.y * vert[i].y + d.z * vert[i].z;
        // +x from vertex 0: vertex 1; its neighbours 3 and 5 only tie, so the climb stops there
        let d = DVec3::X;
        assert_eq!(g.climb(d, 0, dot(d, 0)), 1);
        // +x+y: 1 and 2 tie from 0, the first listed (1) is taken, then 3
        let d = DVec3::new(1.0, 1.0, 0.0).normalize();
        assert_eq!(g.climb(d, 0, dot(d, 0)), 3);

        // far from the origin every dot product is negative: a padding slot that is not a
        // copy of a real neighbour (say vertex 0 at the origin) would win
        let (vert, start, adj) = cube(DVec3::splat(-5.0));
        let g = HullGraph::new(&vert, &start, &adj).expect("valid");
        let dot = |d: DVec3, i: usize| d.x * vert[i].x + d.y * vert[i].y + d.z * vert[i].z;
        for k in 0..64 {
            let t = 0.1 + k as f64 * 0.37;
            let d = DVec3::new(t.cos(), (1.7 * t).sin(), (0.3 + t).cos()).normalize();
            // the corner of the direction's octant, reached from every vertex
            let best =
                (d.x > 0.0) as usize | ((d.y > 0.0) as usize) << 1 | ((d.z > 0.0) as usize) << 2;
            for s in 0..8 {
                assert_eq!(g.climb(d, s, dot(d, s)), best, "{d} from {s}");
            }
        }
    }
}
