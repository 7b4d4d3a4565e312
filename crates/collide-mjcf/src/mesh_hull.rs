//! MuJoCo's collision hull of a mesh (`mjCMesh::MakeGraph`, `MakePolygons` and
//! `MakePolygonNormals` in `user_mesh.cc`, `mesh_extrema` in `user_model.cc`, 4.0.0).
//!
//! What MuJoCo 4.0.0 does (verified against its output, see `tests/mesh_hull.rs`):
//! - qhull (`qhull Qt`, plus `Q9 TA<maxhullvert-4>`) runs on the vertices **as the file states
//!   them** (float values, before `refpos`/`refquat`/`scale` and the move to the principal frame),
//!   after a pre-check for colocated, collinear and coplanar sets with `mjMINVAL` tolerances;
//! - the graph keeps qhull's vertex list, each vertex's neighbours in the order of the facets
//!   around it, and the triangles with qhull's orientation;
//! - triangles whose normals round to the same spherical angles at 0.01 rad (file frame) are
//!   merged into polygons, traced into boundary paths, and emitted in the iteration order of a
//!   libc++ `std::unordered_map` keyed by the two rounded angles (hashed with a boost-style
//!   `hash_combine`);
//! - the polygon normal is Newell's area-weighted normal of the path in the final double frame,
//!   `(1, 0, 0)` below `mjEPS`;
//! - with a mirroring scale the triangles are flipped and each path is reversed after its first
//!   vertex, so both stay outward;
//! - `mesh_extrema` is the first hull vertex with the largest `f32` dot product for each of the 27
//!   directions `{-1, 0, 1}^3`.
//!
//! The hull is an emulation of qhull's incremental construction: the same initial simplex
//! (`qh_maxsimplex`), hyperplane arithmetic (`qh_sethyperplane_det`, Gaussian fallback), point
//! partition (`qh_partitionall`, `qh_findbest`, `qh_findbestnew`, `qh_findbesthorizon`),
//! processing order (`qh_nextfurthest`, `qh_furthestnext` for `Q9`, `TA` stop), cone construction
//! and list bookkeeping (facet list, vertex list, vertex ids). When qhull does not merge facets
//! (points in general position: scanned and organic meshes, random clouds) this reproduces
//! MuJoCo's graph, polygons and extrema exactly, orders included.
//!
//! qhull merges facets when points are exactly (within its roundoff) coplanar: boxes, prisms,
//! CAD parts, symmetric spheres (transiently), some nearly flat spots of scanned meshes. The
//! merges emulated are the ones these produce: a new facet whose horizon facet is coplanar with
//! the new point is merged into it (`qh_premerge` → `qh_mergecycle_all` with one-facet cycles →
//! `qh_mergefacet` → `qh_mergesimplex`), with qhull's ridges (`qh_makeridges`, `qh_setdel`
//! moving the last element into a deleted slot), the merged facet moved to the end of the facet
//! list, cones over merged visible facets (`qh_makenew_nonsimplicial`), vertex neighbour sets
//! maintained from the first merge on (`qh_vertexneighbors`, `qh_update_vertexneighbors_cone`),
//! and at the end `Qt`'s `qh_triangulate` (each merged facet a fan from its newest vertex over
//! its ridges, appended after the simplicial facets). The vertex bookkeeping of these merges is
//! emulated too: a vertex left on only the merged facet is deleted (`qh_mergevertex_del`), and
//! `qh_reducevertices` drops vertices in none of a merged facet's ridges
//! (`qh_remove_extravertices`) and renames a vertex of a deleted ridge that only two facets share
//! to a neighbour on their common ridges (`qh_rename_sharedvertex`, `qh_find_newvertex`,
//! `qh_renamevertex`, `qh_renameridgevertex`). After 50 merges qhull partitions every point with
//! `qh_findbestnew` and doubles `qh_DISToutside` (`qh_USEfindbestnew`), as here. When
//! `qh_getmergeset_initial` then finds exactly one concave, coplanar or concave-coplanar pair
//! (centrum tests within `qh.centrum_radius`), `qh_merge_nonconvex` is emulated too: each facet's
//! best neighbour by vertex distance (`qh_findbestneighbor`, `qh_getdistance`), the nearer one
//! merged into it (`qh_mergesimplex` without `qh_MERGEapex`: the vertex off their common ridge
//! joins the other facet by decreasing id), `qh.max_outside` raised to the merge's maxdist, and
//! `qh_getmergeset` on the merged facet finding nothing more (gymnasium-robotics' Fetch torso
//! needs this after its 21st merge). This reproduces MuJoCo's hull exactly on every recorded
//! case (`tests/mesh_hull.rs`, `tests/urdf_hull_polygons.rs`, checked against the stand-alone
//! qhull 8.0.2 too, see `conformance/mesh_hull_oracle.py --qhull-input`).
//!
//! Merges outside that set (cycles of several new facets on one horizon facet, more than one
//! non-convex pair found by `qh_getmergeset_initial` or a further one after it is merged, a
//! non-simplicial facet or one into a facet of more than 8 vertices merged as non-convex,
//! flipped facets, degenerate or redundant facets, duplicate ridges, dupridges, a narrow initial
//! simplex) are **not** emulated: the construction then continues without merging, coplanar
//! triangles are grouped, vertices inside a face or on an edge are dropped (as merging does) and
//! each face is re-triangulated as a fan from its newest vertex.
//! The vertex set, the polygons (as vertex sets and as oriented cycles), the polygon normals and
//! the support value of every extremum are then MuJoCo's; the orders, where a polygon's path
//! starts, the diagonals of faces with more than three vertices, and which of several tied
//! vertices an extremum names may differ. [`last_build_was_exact`] tells which path a build took.
//! Of these, the path starts are what changes collision results (the multi-contact code walks
//! the polygon paths).

//! Two entry points:
//! - [`build_hull_from_source`] takes the vertices as the file states them (what the compiler
//!   read, e.g. [`crate::mesh_file::RawMesh::vert`]) and the mesh settings: MuJoCo's frames.
//! - [`build_hull`] only has the compiled mesh. It recovers the asset-frame vertices
//!   (`pos + quat · v` rounded to `f32`, accepted if they map back to the compiled vertices
//!   exactly), which are the file vertices when the mesh has no `refpos`, `refquat` or `scale`;
//!   otherwise qhull runs on the compiled vertices, where exact coplanarity and the 0.01 rad
//!   polygon bins of the file frame are lost.

// NaN-aware comparisons (`!(x > y)`) are deliberate.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use crate::compile_math as cm;
use crate::mesh_compile::hull::Degenerate;
use crate::mesh_compile::MeshSettings;
use collide::math::{mat_to_rowmajor, quat_to_mat, quat_wxyz};
use collide::{ConvexHull, HullGraph, Mesh};
use glam::DVec3;
use std::collections::HashMap;

/// `mjMINVAL`.
const MINVAL: f64 = 1e-15;
/// `mjEPS`.
const MJEPS: f64 = 1e-14;
const NONE: usize = usize::MAX;

type P3 = [f64; 3];

/// MuJoCo's collision hull of a compiled mesh: hull vertices (subset of `mesh.vert`), vertex
/// adjacency, triangles, merged polygons with normals, 27 extrema seeds.
///
/// qhull runs on the asset-frame vertices recovered from `mesh.vert`, `mesh.pos` and
/// `mesh.quat` (the file vertices for meshes without `refpos`/`refquat`/`scale`), else on the
/// compiled vertices; prefer [`build_hull_from_source`] when the file vertices are available.
/// `maxhullvert` is `mesh/@maxhullvert` (`None` for MuJoCo's -1). Errors (fewer than 4
/// vertices, colocated, collinear or coplanar vertex sets, non-finite vertices, qhull failures)
/// name the mesh.
pub fn build_hull(mesh: &Mesh, maxhullvert: Option<usize>) -> Result<ConvexHull, String> {
    let pts: Vec<P3> = mesh.vert.iter().map(|v| [v.x, v.y, v.z]).collect();
    match reconstruct_asset_frame(mesh) {
        Some((asset, fin)) => build(&mesh.name, &asset, &fin, &mesh.vert, maxhullvert, false),
        None => build(&mesh.name, &pts, &pts, &mesh.vert, maxhullvert, false),
    }
}

/// The vertices in the asset frame (`pos + quat · v`, rounded to `f32`) and, from them, the
/// double-precision final vertices, if moving the asset vertices back into the mesh frame
/// reproduces every compiled vertex exactly. For a mesh without `refpos`, `refquat` and `scale`
/// the asset vertices are the file vertices qhull saw.
fn reconstruct_asset_frame(mesh: &Mesh) -> Option<(Vec<P3>, Vec<P3>)> {
    let pos = mesh.pos.to_array();
    let q = mesh.quat;
    if !pos.iter().all(|c| c.is_finite()) || !q.is_finite() {
        return None;
    }
    let m = mat_to_rowmajor(&quat_to_mat(q));
    let qinv = quat_wxyz(q.w, -q.x, -q.y, -q.z);
    let mi = mat_to_rowmajor(&quat_to_mat(qinv));
    let mut asset = Vec::with_capacity(mesh.vert.len());
    let mut fin = Vec::with_capacity(mesh.vert.len());
    for v in &mesh.vert {
        let r = [
            pos[0] + (m[0] * v.x + m[1] * v.y + m[2] * v.z),
            pos[1] + (m[3] * v.x + m[4] * v.y + m[5] * v.z),
            pos[2] + (m[6] * v.x + m[7] * v.y + m[8] * v.z),
        ];
        let r = [r[0] as f32 as f64, r[1] as f32 as f64, r[2] as f32 as f64];
        let c = [r[0] - pos[0], r[1] - pos[1], r[2] - pos[2]];
        let f = [
            mi[0] * c[0] + mi[1] * c[1] + mi[2] * c[2],
            mi[3] * c[0] + mi[4] * c[1] + mi[5] * c[2],
            mi[6] * c[0] + mi[7] * c[1] + mi[8] * c[2],
        ];
        let back = [f[0] as f32 as f64, f[1] as f32 as f64, f[2] as f32 as f64];
        if back != [v.x, v.y, v.z] || !r.iter().chain(&f).all(|c| c.is_finite()) {
            return None;
        }
        asset.push(r);
        fin.push(f);
    }
    Some((asset, fin))
}

/// MuJoCo's collision hull of a compiled mesh, computed as MuJoCo does from the vertices as the
/// file (or the `vertex` attribute) states them.
///
/// `source[i]` must be the file value of `mesh.vert[i]` (same indexing, e.g. the
/// [`crate::mesh_file::RawMesh::vert`] that [`crate::mesh_compile::compile_mesh`] compiled into
/// `mesh`); values are rounded to `f32` as MuJoCo stores them. `settings` are the mesh settings
/// used for the compilation (`scale`, `refpos`, `refquat`, `maxhullvert`); with `mesh.pos` and
/// `mesh.quat` they give the double-precision final vertices MuJoCo takes the polygon normals
/// from.
pub fn build_hull_from_source(
    mesh: &Mesh,
    source: &[DVec3],
    settings: &MeshSettings,
) -> Result<ConvexHull, String> {
    let name = &mesh.name;
    if source.len() != mesh.vert.len() {
        return Err(format!(
            "mesh '{name}': {} source vertices for {} compiled vertices",
            source.len(),
            mesh.vert.len()
        ));
    }
    let file: Vec<P3> = source
        .iter()
        .map(|v| [v.x as f32 as f64, v.y as f32 as f64, v.z as f32 as f64])
        .collect();
    let fin = final_vertices(&file, settings, mesh);
    let sc = settings.scale;
    let mirrored = !(sc.x * sc.y * sc.z > 0.0);
    build(
        name,
        &file,
        &fin,
        &mesh.vert,
        settings.maxhullvert,
        mirrored,
    )
}

/// The double-precision vertices of `mesh` in its frame, before MuJoCo rounds them to `f32`,
/// from the `source` vertices and `settings` it was compiled with (see
/// [`build_hull_from_source`]). The mesh octree and face tree are built on these.
pub fn double_vertices(mesh: &Mesh, source: &[DVec3], settings: &MeshSettings) -> Vec<DVec3> {
    let file: Vec<P3> = source
        .iter()
        .map(|v| [v.x as f32 as f64, v.y as f32 as f64, v.z as f32 as f64])
        .collect();
    final_vertices(&file, settings, mesh)
        .into_iter()
        .map(DVec3::from_array)
        .collect()
}

/// The double-precision final vertices (`ApplyTransformations`, then the move to the principal
/// frame), computed like [`crate::mesh_compile::compile_mesh`] does before rounding to `f32`.
fn final_vertices(file: &[P3], settings: &MeshSettings, mesh: &Mesh) -> Vec<P3> {
    let mut vert: Vec<P3> = file.to_vec();
    // a zero refquat cannot reach here (the mesh compiled)
    let _ = crate::mesh_compile::apply_transformations(&mut vert, settings);
    let com = mesh.pos.to_array();
    let m = cm::quat_mat(cm::conj(cm::wxyz(mesh.quat)));
    vert.iter()
        .map(|v| cm::mat_vec(&m, [v[0] - com[0], v[1] - com[1], v[2] - com[2]]))
        .collect()
}

/// Whether the last hull built on this thread followed qhull exactly (no facet merge was
/// needed, or only the merges emulated). For diagnostics and tests.
pub fn last_build_was_exact() -> bool {
    LAST_EXACT.with(|c| c.get())
}

thread_local! {
    static LAST_EXACT: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// The common path: `qpts` are the points qhull sees (and the polygons are keyed in), `fin` the
/// final double vertices (polygon normals), `stored` the compiled float vertices (extrema and
/// the hull's vertex positions).
fn build(
    name: &str,
    qpts: &[P3],
    fin: &[P3],
    stored: &[DVec3],
    maxhullvert: Option<usize>,
    mirrored: bool,
) -> Result<ConvexHull, String> {
    LAST_EXACT.with(|c| c.set(false));
    let n = qpts.len();
    if n < 4 {
        return Err(format!(
            "mesh '{name}': at least 4 vertices required, got {n}"
        ));
    }
    if n > i32::MAX as usize / 8 {
        return Err(format!("mesh '{name}': too many vertices ({n})"));
    }
    if qpts.iter().flatten().any(|c| !c.is_finite())
        || fin.iter().flatten().any(|c| !c.is_finite())
        || stored.iter().any(|v| !v.is_finite())
    {
        return Err(format!("mesh '{name}': vertex coordinates are not finite"));
    }
    if let Some(m) = maxhullvert {
        if m < 4 {
            return Err(format!(
                "mesh '{name}': maxhullvert must be larger than 3, got {m}"
            ));
        }
    }
    precheck(qpts).map_err(|d| match d.words() {
        Some((what, advice)) => format!(
            "mesh '{name}' has {what} vertices, cannot compute convex hull. Consider using \
             {advice} instead"
        ),
        None => format!("mesh '{name}': {}", d.message()),
    })?;

    let graph =
        hull_graph(qpts, maxhullvert).ok_or_else(|| format!("mesh '{name}': qhull error"))?;
    assemble(name, qpts, fin, stored, &graph, mirrored)
}

/// qhull's graph of `qpts` (emulated; on a merge, the unmerged construction is repaired; on a
/// topological failure of the emulation, a plain quickhull is repaired the same way). Records
/// in [`last_build_was_exact`] whether the emulation was exact. `None` on failure.
fn hull_graph(qpts: &[P3], maxhullvert: Option<usize>) -> Option<Graph> {
    match qhull::run(qpts, maxhullvert) {
        Ok(out) if out.exact && (!out.merged || closed_oriented(&out.graph)) => {
            LAST_EXACT.with(|c| c.set(true));
            Some(out.graph)
        }
        Ok(out) => repair::merge_coplanar(qpts, &out.graph, out.distround, maxhullvert.is_none())
            .filter(closed_oriented)
            .or_else(|| generic(qpts, maxhullvert, out.distround)),
        Err(qhull::Failure::Flat) => None,
        Err(qhull::Failure::Topology(distround)) => generic(qpts, maxhullvert, distround),
    }
}

/// The hull triangles MuJoCo 4.0.0 gets from qhull for `pts` (the vertices as the file states
/// them, `f32` values): qhull's facet order and orientation, indices into `pts`. They are the
/// faces of a mesh given without faces, and the volume of `inertia="convex"`; their order fixes
/// the rounding of the mesh's centre of mass and frame. Errors as MuJoCo's: fewer than 4 or
/// non-finite points and qhull failures ([`Degenerate::Failed`]), colocated, collinear or
/// coplanar sets by MuJoCo's pre-check.
pub(crate) fn qhull_triangles(
    pts: &[P3],
    maxhullvert: Option<usize>,
) -> Result<Vec<[usize; 3]>, Degenerate> {
    if pts.len() < 4 || pts.iter().flatten().any(|c| !c.is_finite()) {
        return Err(Degenerate::Failed);
    }
    precheck(pts)?;
    let graph = hull_graph(pts, maxhullvert).ok_or(Degenerate::Failed)?;
    Ok(graph.facets.iter().map(|f| f.face()).collect())
}

/// Whether the triangles of `g` form a closed, consistently oriented surface (every directed
/// edge once, with its reverse): the sanity check of a merged emulation.
fn closed_oriented(g: &Graph) -> bool {
    let mut edges = std::collections::HashSet::with_capacity(3 * g.facets.len());
    for f in &g.facets {
        let t = f.face();
        for k in 0..3 {
            if t[k] == t[(k + 1) % 3] || !edges.insert((t[k], t[(k + 1) % 3])) {
                return false;
            }
        }
    }
    edges.iter().all(|&(a, b)| edges.contains(&(b, a)))
}

/// Fallback when the emulation fails: the workspace quickhull, repaired like a merged hull.
fn generic(qpts: &[P3], maxhullvert: Option<usize>, distround: f64) -> Option<Graph> {
    let pts: Vec<DVec3> = qpts.iter().map(|p| DVec3::from_array(*p)).collect();
    let tris = crate::mesh_compile::hull::convex_hull(&pts, maxhullvert).ok()?;
    // vertex ids in order of first appearance; facets with vertices in decreasing id order
    let mut id = vec![NONE; qpts.len()];
    let mut order = Vec::new();
    for t in &tris {
        for &v in t {
            if id[v] == NONE {
                id[v] = order.len();
                order.push(v);
            }
        }
    }
    let mut facets = Vec::with_capacity(tris.len());
    for t in &tris {
        facets.push(Facet::from_outward(*t, |v| id[v]));
    }
    let ids: Vec<u32> = id
        .iter()
        .map(|&i| if i == NONE { 0 } else { i as u32 + 1 })
        .collect();
    let g = Graph {
        vertices: order,
        facets,
        vertex_id: ids,
        vertex_facets: None,
    };
    // When the coplanar repair cannot reproduce qhull's merged facets, the plain hull still
    // is the convex hull MuJoCo collides with (same extreme vertices; coplanar facets split
    // differently): better than refusing a mesh MuJoCo compiles.
    repair::merge_coplanar(qpts, &g, distround, maxhullvert.is_none())
        .filter(closed_oriented)
        .or(Some(g))
}

/// MuJoCo's check before qhull (`MakeGraph`): colocated, collinear and coplanar vertex sets, with
/// `mjMINVAL` tolerances relative to the first vertex.
fn precheck(v: &[P3]) -> Result<(), Degenerate> {
    let dist3 = |a: &P3, b: &P3| {
        ((a[0] - b[0]) * (a[0] - b[0])
            + (a[1] - b[1]) * (a[1] - b[1])
            + (a[2] - b[2]) * (a[2] - b[2]))
            .sqrt()
    };
    let mut v1 = NONE;
    let mut len1 = 0.0;
    for (i, p) in v.iter().enumerate().skip(1) {
        len1 = dist3(p, &v[0]);
        if len1 > MINVAL {
            v1 = i;
            break;
        }
    }
    if v1 == NONE {
        return Err(Degenerate::Colocated);
    }
    let edge1 = sub(&v[v1], &v[0]);
    let mut normal = [0.0; 3];
    let mut collinear = true;
    for (i, p) in v.iter().enumerate().skip(1) {
        if i == v1 {
            continue;
        }
        let edge2 = sub(p, &v[0]);
        let len2 = dot(&edge2, &edge2).sqrt();
        if len2 < MINVAL {
            continue;
        }
        normal = cross(&edge1, &edge2);
        let norm = dot(&normal, &normal).sqrt();
        if norm > MINVAL * len1 * len2 {
            for c in normal.iter_mut() {
                *c /= norm;
            }
            collinear = false;
            break;
        }
    }
    if collinear {
        return Err(Degenerate::Collinear);
    }
    let d = dot(&normal, &v[0]);
    if v.iter()
        .all(|p| !((dot(&normal, p) - d).abs() > MINVAL * len1))
    {
        return Err(Degenerate::Coplanar);
    }
    Ok(())
}

#[inline]
fn sub(a: &P3, b: &P3) -> P3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

/// `mjuu_dot3`.
#[inline]
fn dot(a: &P3, b: &P3) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// `mjuu_crossvec`.
#[inline]
fn cross(b: &P3, c: &P3) -> P3 {
    [
        b[1] * c[2] - b[2] * c[1],
        b[2] * c[0] - b[0] * c[2],
        b[0] * c[1] - b[1] * c[0],
    ]
}

/// A qhull facet as MakeGraph reads it: vertices (point ids) in qhull's order (decreasing vertex
/// id) and `toporient`.
#[derive(Clone, Debug, PartialEq)]
struct Facet {
    v: [usize; 3],
    toporient: bool,
}

impl Facet {
    /// MuJoCo's triangle for this facet (`face_globalid`): the first two vertices swapped when
    /// `toporient`.
    fn face(&self) -> [usize; 3] {
        if self.toporient {
            [self.v[1], self.v[0], self.v[2]]
        } else {
            self.v
        }
    }

    /// A facet from an outward (counter-clockwise) triangle, vertices sorted by decreasing id.
    fn from_outward(t: [usize; 3], id: impl Fn(usize) -> usize) -> Facet {
        let mut v = t;
        v.sort_by_key(|&x| std::cmp::Reverse(id(x)));
        // the sort is a permutation of t; it keeps the winding iff it is even
        let even = [[t[0], t[1], t[2]], [t[1], t[2], t[0]], [t[2], t[0], t[1]]].contains(&v);
        // face() = v when !toporient, and a swap (odd) when toporient
        Facet {
            v,
            toporient: !even,
        }
    }
}

/// qhull's output as MakeGraph reads it.
#[derive(Clone, Debug)]
struct Graph {
    /// `FORALLvertices`: point ids in vertex-list order.
    vertices: Vec<usize>,
    /// `FORALLfacets`, in facet-list order.
    facets: Vec<Facet>,
    /// qhull vertex id of each point (0 if not a vertex), for the triangulation apex.
    vertex_id: Vec<u32>,
    /// `v.neighbors` of each vertex (indices into `facets`) when qhull maintained them (after
    /// merges); otherwise MakeGraph's `qh_vertexneighbors` lists them in facet order.
    vertex_facets: Option<Vec<Vec<usize>>>,
}

/// Builds the [`ConvexHull`] from qhull's output: MakeGraph's neighbour lists, MakePolygons,
/// MakePolygonNormals and mesh_extrema. With a mirroring scale (`mirrored`), MuJoCo 4.0.0
/// flips the hull triangles (last two vertices swapped) and reverses each polygon path after
/// its first vertex, so that both are outward in the final frame.
fn assemble(
    name: &str,
    qpts: &[P3],
    fin: &[P3],
    stored: &[DVec3],
    g: &Graph,
    mirrored: bool,
) -> Result<ConvexHull, String> {
    let n = qpts.len();
    let nv = g.vertices.len();
    if nv < 4 || g.facets.len() < 4 {
        return Err(format!("mesh '{name}': qhull error"));
    }
    let mut local = vec![NONE; n];
    for (i, &p) in g.vertices.iter().enumerate() {
        if p >= n || local[p] != NONE {
            return Err(format!(
                "mesh '{name}': could not construct convex hull graph"
            ));
        }
        local[p] = i;
    }
    // qh_vertexneighbors: facets around each vertex in facet-list order (unless qhull kept
    // them since merging)
    let mut vfacets: Vec<Vec<usize>> = vec![Vec::new(); nv];
    for (fi, f) in g.facets.iter().enumerate() {
        for &p in &f.v {
            if p >= n || local[p] == NONE {
                return Err(format!("mesh '{name}': vertex id not found in convex hull"));
            }
            vfacets[local[p]].push(fi);
        }
    }
    if let Some(kept) = &g.vertex_facets {
        // the kept sets must hold the same facets (else the facet order stands)
        let same_sets = kept.len() == nv
            && kept.iter().zip(&vfacets).all(|(a, b)| {
                let mut a = a.clone();
                a.sort_unstable();
                a == *b
            });
        if same_sets {
            vfacets = kept.clone();
        }
    }
    // MakeGraph: per vertex, the other vertices of its facets, first occurrence order
    let mut adj_start = Vec::with_capacity(nv + 1);
    let mut adj: Vec<u32> = Vec::with_capacity(2 * 3 * g.facets.len());
    for (i, fl) in vfacets.iter().enumerate() {
        adj_start.push(adj.len() as u32);
        let start = adj.len();
        for &fi in fl {
            for &p in &g.facets[fi].v {
                let l = local[p] as u32;
                if l as usize != i && !adj[start..].contains(&l) {
                    adj.push(l);
                }
            }
        }
    }
    adj_start.push(adj.len() as u32);
    if adj.len() != 3 * g.facets.len() {
        // MuJoCo: "Wrong size in convex hull graph" (V - E + F = 2 with E = 3F/2)
        return Err(format!("mesh '{name}': wrong size in convex hull graph"));
    }
    let faces: Vec<[usize; 3]> = g.facets.iter().map(Facet::face).collect();
    let face: Vec<[u32; 3]> = faces
        .iter()
        .map(|f| {
            let f = if mirrored { [f[0], f[2], f[1]] } else { *f };
            [local[f[0]] as u32, local[f[1]] as u32, local[f[2]] as u32]
        })
        .collect();

    // MakePolygons (file frame) and MakePolygonNormals (final frame)
    let mut polys = polygons::make(qpts, &faces);
    if mirrored {
        for p in polys.iter_mut() {
            p[1..].reverse();
        }
    }
    let mut poly_start = Vec::with_capacity(polys.len() + 1);
    let mut poly_vert = Vec::new();
    let mut poly_normal = Vec::with_capacity(polys.len());
    for path in &polys {
        poly_start.push(poly_vert.len() as u32);
        for &p in path {
            poly_vert.push(local[p] as u32);
        }
        poly_normal.push(newell_normal(fin, path));
    }
    poly_start.push(poly_vert.len() as u32);

    let vert: Vec<DVec3> = g.vertices.iter().map(|&p| stored[p]).collect();
    let extrema = extrema(&vert);
    let Some(graph) = HullGraph::new(&vert, &adj_start, &adj) else {
        return Err(format!("mesh '{name}': invalid convex hull graph"));
    };
    let mut hull = ConvexHull {
        vert,
        mesh_index: g.vertices.iter().map(|&p| p as u32).collect(),
        mesh_nvert: stored.len() as u32,
        graph,
        face,
        poly_start,
        poly_vert,
        poly_normal,
        extrema,
        vert_poly_start: Vec::new(),
        vert_poly: Vec::new(),
    };
    hull.index_vertex_polygons();
    Ok(hull)
}

/// The polygon normal of MuJoCo 4.0.0 (`MakePolygonNormals`): Newell's area-weighted normal of
/// the path in the final frame (for a triangle, the normalized cross product); `(1, 0, 0)` when
/// its length is below `mjEPS` (measured: a 3e-15 triangle gets exactly `(1, 0, 0)`).
fn newell_normal(fin: &[P3], path: &[usize]) -> DVec3 {
    let m = path.len();
    let mut n = [0.0f64; 3];
    for i in 0..m {
        let a = &fin[path[i]];
        let b = &fin[path[(i + 1) % m]];
        n[0] += (a[1] - b[1]) * (a[2] + b[2]);
        n[1] += (a[2] - b[2]) * (a[0] + b[0]);
        n[2] += (a[0] - b[0]) * (a[1] + b[1]);
    }
    let len = dot(&n, &n).sqrt();
    if len >= MJEPS && len.is_finite() {
        DVec3::new(n[0] / len, n[1] / len, n[2] / len)
    } else {
        DVec3::X
    }
}

/// `mesh_extrema`: for each of the 27 directions `(cx, cy, cz)` (x slowest), the first hull
/// vertex (in hull order) with the largest dot product, computed in `f32`.
fn extrema(vert: &[DVec3]) -> [u32; 27] {
    let mut best = [f32::MIN; 27];
    let mut out = [0u32; 27];
    for (i, v) in vert.iter().enumerate() {
        let (x, y, z) = (v.x as f32, v.y as f32, v.z as f32);
        let mut k = 0;
        for cx in [-1.0f32, 0.0, 1.0] {
            for cy in [-1.0f32, 0.0, 1.0] {
                for cz in [-1.0f32, 0.0, 1.0] {
                    let d = x * cx + y * cy + z * cz;
                    if d > best[k] {
                        best[k] = d;
                        out[k] = i as u32;
                    }
                    k += 1;
                }
            }
        }
    }
    out
}

/// The qhull emulation (`libqhull_r`, 2019/2020 releases, options `Qt` and `Q9 TA<n>`): the
/// construction with the coplanar-horizon merges and the final triangulation.
mod qhull {
    use super::{Facet, Graph, NONE, P3};

    const REALEPS: f64 = f64::EPSILON;
    const REALMAX: f64 = f64::MAX;
    const REALMIN: f64 = f64::MIN_POSITIVE;
    /// `qh_RATIOmaxsimplex`.
    const RATIO_MAXSIMPLEX: f64 = 1.0e-3;
    /// `qh_MAXnarrow`.
    const MAXNARROW: f64 = -0.99999999;

    pub(super) struct Output {
        pub graph: Graph,
        /// False when qhull would have merged facets in a way not emulated (the graph is then
        /// unmerged).
        pub exact: bool,
        /// Facets were merged (and the output triangulated).
        pub merged: bool,
        /// `qh.DISTround`.
        pub distround: f64,
    }

    pub(super) enum Failure {
        /// qhull's initial simplex is flat or the input is less than 3-dimensional.
        Flat,
        /// The emulation reached a state qhull resolves by merging (e.g. a ridge with more than
        /// two facets); carries `qh.DISTround`.
        Topology(f64),
    }

    #[derive(Clone, Default)]
    struct QFacet {
        vertices: Vec<usize>,
        neighbors: Vec<usize>,
        toporient: bool,
        normal: P3,
        offset: f64,
        has_normal: bool,
        outside: Vec<usize>,
        furthestdist: f64,
        next: usize,
        prev: usize,
        visible: bool,
        newfacet: bool,
        flipped: bool,
        seen: bool,
        visitid: u32,
        replace: usize,
        /// `f.simplicial`: false once the facet has ridges of its own (`qh_makeridges`).
        simplicial: bool,
        /// `f.ridges` (indices into `Qh::r`), in qhull's set order.
        ridges: Vec<usize>,
        coplanarhorizon: bool,
        mergehorizon: bool,
        newmerge: bool,
        /// `f.nummerge`: how many merges made this facet (`qh_maybe_duplicateridge` skips 0).
        nummerge: u32,
    }

    /// A qhull ridge: its vertices (decreasing id) and the two facets, `top` oriented.
    #[derive(Clone)]
    struct QRidge {
        vertices: Vec<usize>,
        top: usize,
        bottom: usize,
    }

    #[derive(Clone, Default)]
    struct QVertex {
        point: usize,
        id: u32,
        next: usize,
        prev: usize,
        newfacet: bool,
        deleted: bool,
        partitioned: bool,
        visitid: u32,
        /// `v.neighbors` (facets), maintained once merging starts (`qh.VERTEXneighbors`).
        neighbors: Vec<usize>,
        /// `v.delridge`: on a ridge deleted since the last `qh_reducevertices`.
        delridge: bool,
    }

    struct Qh<'a> {
        p: &'a [P3],
        f: Vec<QFacet>,
        v: Vec<QVertex>,
        facet_list: usize,
        facet_tail: usize,
        facet_next: usize,
        newfacet_list: usize,
        visible_list: usize,
        vertex_list: usize,
        vertex_tail: usize,
        newvertex_list: usize,
        num_facets: usize,
        num_vertices: usize,
        num_visible: usize,
        vertex_id: u32,
        visit_id: u32,
        vertex_visit: u32,
        distround: f64,
        minvisible: f64,
        maxcoplanar: f64,
        minoutside: f64,
        max_outside: f64,
        near_zero: [f64; 3],
        maxwidth: f64,
        mindenom: f64,
        mindenom_1: f64,
        mindenom_2: f64,
        mindenom_1_2: f64,
        interior: P3,
        del_vertices: Vec<usize>,
        findbestnew: bool,
        findbest_notsharp: bool,
        pick_furthest: bool,
        stop_add: Option<usize>,
        exact: bool,
        coplanar_stack: Vec<usize>,
        r: Vec<QRidge>,
        /// A facet merge happened (the output is triangulated by `qh_triangulate`).
        merged: bool,
        /// `Ztotmerge`: facet merges so far.
        totmerge: usize,
        /// `qh.VERTEXneighbors`: vertex neighbour sets exist (from the first merge on).
        vneighbors: bool,
        /// Emulate the coplanar-horizon merges (else any merge clears `exact`).
        allow_merge: bool,
    }

    /// Runs the emulation. `maxhullvert` adds `Q9 TA<maxhullvert-4>`.
    /// When qhull merges facets in a way not emulated, the construction is run again without
    /// merging (`exact` false).
    pub(super) fn run(p: &[P3], maxhullvert: Option<usize>) -> Result<Output, Failure> {
        let merging = run_with(p, maxhullvert, true);
        match merging {
            Ok(out) if out.exact => Ok(out),
            _ => run_with(p, maxhullvert, false),
        }
    }

    fn run_with(p: &[P3], maxhullvert: Option<usize>, merge: bool) -> Result<Output, Failure> {
        let mut qh = Qh::new(p, maxhullvert);
        qh.allow_merge = merge;
        qh.initbuild()?;
        qh.buildhull()?;
        let distround = qh.distround;
        Ok(Output {
            graph: qh.output(),
            exact: qh.exact,
            merged: qh.merged,
            distround,
        })
    }

    impl<'a> Qh<'a> {
        fn new(p: &'a [P3], maxhullvert: Option<usize>) -> Self {
            Qh {
                p,
                f: Vec::new(),
                v: Vec::new(),
                facet_list: NONE,
                facet_tail: NONE,
                facet_next: NONE,
                newfacet_list: NONE,
                visible_list: NONE,
                vertex_list: NONE,
                vertex_tail: NONE,
                newvertex_list: NONE,
                num_facets: 0,
                num_vertices: 0,
                num_visible: 0,
                vertex_id: 0,
                visit_id: 0,
                vertex_visit: 0,
                distround: 0.0,
                minvisible: 0.0,
                maxcoplanar: 0.0,
                minoutside: 0.0,
                max_outside: 0.0,
                near_zero: [0.0; 3],
                maxwidth: 0.0,
                mindenom: 0.0,
                mindenom_1: 0.0,
                mindenom_2: 0.0,
                mindenom_1_2: 0.0,
                interior: [0.0; 3],
                del_vertices: Vec::new(),
                findbestnew: false,
                findbest_notsharp: false,
                pick_furthest: maxhullvert.is_some(),
                // 'TAn' sets qh.STOPadd = n + 1
                stop_add: maxhullvert.map(|m| m.saturating_sub(4) + 1),
                exact: true,
                coplanar_stack: Vec::new(),
                r: Vec::new(),
                merged: false,
                totmerge: 0,
                vneighbors: false,
                allow_merge: true,
            }
        }

        // ------------------------------------------------------------------ lists

        fn newfacet(&mut self) -> usize {
            self.f.push(QFacet {
                newfacet: true,
                next: NONE,
                prev: NONE,
                replace: NONE,
                simplicial: true,
                ..Default::default()
            });
            self.f.len() - 1
        }

        fn newvertex(&mut self, point: usize) -> usize {
            let id = self.vertex_id;
            self.vertex_id = self.vertex_id.wrapping_add(1);
            self.v.push(QVertex {
                point,
                id,
                next: NONE,
                prev: NONE,
                ..Default::default()
            });
            self.v.len() - 1
        }

        fn appendfacet(&mut self, facet: usize) {
            let tail = self.facet_tail;
            if tail == self.newfacet_list {
                self.newfacet_list = facet;
                if tail == self.visible_list {
                    self.visible_list = facet;
                }
            }
            if tail == self.facet_next {
                self.facet_next = facet;
            }
            let tp = self.f[tail].prev;
            self.f[facet].prev = tp;
            self.f[facet].next = tail;
            if tp != NONE {
                self.f[tp].next = facet;
            } else {
                self.facet_list = facet;
            }
            self.f[tail].prev = facet;
            self.num_facets += 1;
        }

        fn removefacet(&mut self, facet: usize) {
            let next = self.f[facet].next;
            let previous = self.f[facet].prev;
            if facet == self.newfacet_list {
                self.newfacet_list = next;
            }
            if facet == self.facet_next {
                self.facet_next = next;
            }
            if facet == self.visible_list {
                self.visible_list = next;
            }
            if previous != NONE {
                self.f[previous].next = next;
                self.f[next].prev = previous;
            } else {
                self.facet_list = next;
                self.f[next].prev = NONE;
            }
            self.num_facets -= 1;
        }

        /// Links `facet` into the facet list just before `list` (qhull's list insertion).
        fn link_facet_before(&mut self, facet: usize, list: usize) {
            let prevfacet = self.f[list].prev;
            self.f[facet].prev = prevfacet;
            if prevfacet != NONE {
                self.f[prevfacet].next = facet;
            }
            self.f[list].prev = facet;
            self.f[facet].next = list;
            if self.facet_list == list {
                self.facet_list = facet;
            }
        }

        /// `qh_prependfacet(facet, &qh.facet_next)`.
        fn prependfacet_next(&mut self, facet: usize) {
            if self.facet_next == NONE {
                self.facet_next = self.facet_tail;
            }
            let list = self.facet_next;
            self.link_facet_before(facet, list);
            self.facet_next = facet;
            self.num_facets += 1;
        }

        fn appendvertex(&mut self, vertex: usize) {
            let tail = self.vertex_tail;
            if tail == self.newvertex_list {
                self.newvertex_list = vertex;
            }
            self.v[vertex].newfacet = true;
            let tp = self.v[tail].prev;
            self.v[vertex].prev = tp;
            self.v[vertex].next = tail;
            if tp != NONE {
                self.v[tp].next = vertex;
            } else {
                self.vertex_list = vertex;
            }
            self.v[tail].prev = vertex;
            self.num_vertices += 1;
        }

        fn removevertex(&mut self, vertex: usize) {
            let next = self.v[vertex].next;
            let previous = self.v[vertex].prev;
            if vertex == self.newvertex_list {
                self.newvertex_list = next;
            }
            if previous != NONE {
                self.v[previous].next = next;
                self.v[next].prev = previous;
            } else {
                self.vertex_list = next;
                self.v[next].prev = NONE;
            }
            self.num_vertices -= 1;
        }

        /// Facets of a list up to (excluding) the tail sentinel (`FORALLfacet_`).
        fn facets_from(&self, start: usize) -> Vec<usize> {
            let mut out = Vec::new();
            let mut f = start;
            while f != NONE && self.f[f].next != NONE {
                out.push(f);
                f = self.f[f].next;
            }
            out
        }

        fn resetlists(&mut self) {
            let mut v = self.newvertex_list;
            while v != NONE && self.v[v].next != NONE {
                self.v[v].newfacet = false;
                v = self.v[v].next;
            }
            self.newvertex_list = NONE;
            for f in self.facets_from(self.newfacet_list) {
                self.f[f].newfacet = false;
            }
            self.newfacet_list = NONE;
            let mut f = self.visible_list;
            while f != NONE && self.f[f].visible {
                self.f[f].replace = NONE;
                self.f[f].visible = false;
                f = self.f[f].next;
            }
            self.num_visible = 0;
            self.visible_list = NONE;
        }

        // ------------------------------------------------------------------ geometry

        /// `qh_distplane`.
        #[inline]
        fn distplane(&self, point: &P3, facet: usize) -> f64 {
            let f = &self.f[facet];
            f.offset + point[0] * f.normal[0] + point[1] * f.normal[1] + point[2] * f.normal[2]
        }

        fn divzero(numer: f64, denom: f64, mindenom1: f64) -> (f64, bool) {
            if numer < mindenom1 && numer > -mindenom1 {
                if numer.abs() < denom.abs() {
                    (numer / denom, false)
                } else {
                    (0.0, true)
                }
            } else {
                let temp = denom / numer;
                if temp > mindenom1 || temp < -mindenom1 {
                    (numer / denom, false)
                } else {
                    (0.0, true)
                }
            }
        }

        /// `qh_normalize2` (dim 3, no minnorm).
        fn normalize2(&self, normal: &mut P3, toporient: bool) {
            let mut norm =
                (normal[0] * normal[0] + normal[1] * normal[1] + normal[2] * normal[2]).sqrt();
            if norm > self.mindenom {
                if !toporient {
                    norm = -norm;
                }
                normal[0] /= norm;
                normal[1] /= norm;
                normal[2] /= norm;
            } else if norm == 0.0 {
                let temp = (1.0f64 / 3.0).sqrt();
                *normal = [temp; 3];
            } else {
                if !toporient {
                    norm = -norm;
                }
                for k in 0..3 {
                    let (temp, zerodiv) = Self::divzero(normal[k], norm, self.mindenom_1);
                    if !zerodiv {
                        normal[k] = temp;
                    } else {
                        let mut maxk = 0;
                        let mut maxval = -REALMAX;
                        for (j, c) in normal.iter().enumerate() {
                            if c.abs() > maxval {
                                maxval = c.abs();
                                maxk = j;
                            }
                        }
                        let temp = if normal[maxk] * norm >= 0.0 {
                            1.0
                        } else {
                            -1.0
                        };
                        *normal = [0.0; 3];
                        normal[maxk] = temp;
                        return;
                    }
                }
            }
        }

        /// `qh_setfacetplane` with `qh_sethyperplane_det` (and the Gaussian fallback).
        fn setfacetplane(&mut self, facet: usize) {
            let vs = self.f[facet].vertices.clone();
            let toporient = self.f[facet].toporient;
            let rows: Vec<P3> = vs.iter().map(|&v| self.p[self.v[v].point]).collect();
            let point0 = rows[0];
            let (r0, r1, r2) = (rows[0], rows[1], rows[2]);
            let dx = |i: &P3, j: &P3| i[0] - j[0];
            let dy = |i: &P3, j: &P3| i[1] - j[1];
            let dz = |i: &P3, j: &P3| i[2] - j[2];
            let mut normal = [
                dy(&r2, &r0) * dz(&r1, &r0) - dz(&r2, &r0) * dy(&r1, &r0),
                dx(&r1, &r0) * dz(&r2, &r0) - dz(&r1, &r0) * dx(&r2, &r0),
                dx(&r2, &r0) * dy(&r1, &r0) - dy(&r2, &r0) * dx(&r1, &r0),
            ];
            self.normalize2(&mut normal, toporient);
            let mut offset =
                -(point0[0] * normal[0] + point0[1] * normal[1] + point0[2] * normal[2]);
            let mut nearzero = false;
            for i in (0..3).rev() {
                if vs[i] != vs[0] {
                    let p = &rows[i];
                    let dist = offset + (p[0] * normal[0] + p[1] * normal[1] + p[2] * normal[2]);
                    if dist > self.distround || dist < -self.distround {
                        nearzero = true;
                        break;
                    }
                }
            }
            if nearzero {
                // qh_sethyperplane_gauss on rows V_i - V_0
                let mut m: Vec<P3> = Vec::new();
                for (i, r) in rows.iter().enumerate() {
                    if vs[i] != vs[0] {
                        m.push([r[0] - point0[0], r[1] - point0[1], r[2] - point0[2]]);
                    }
                }
                if m.len() == 2 {
                    let mut sign = toporient;
                    let mut nz = false;
                    self.gausselim(&mut m, &mut sign, &mut nz);
                    for k in (0..2).rev() {
                        if m[k][k] < 0.0 {
                            sign = !sign;
                        }
                    }
                    normal = self.backnormal(&m, sign);
                    self.normalize2(&mut normal, true);
                    offset = -(point0[0] * normal[0]);
                    offset -= point0[1] * normal[1];
                    offset -= point0[2] * normal[2];
                    // a nearly singular elimination: qh_orientoutside
                    let d = self.interior[0] * normal[0]
                        + self.interior[1] * normal[1]
                        + self.interior[2] * normal[2];
                    if nz && offset + d > 0.0 {
                        normal = [-normal[0], -normal[1], -normal[2]];
                        offset = -offset;
                    }
                }
            }
            let f = &mut self.f[facet];
            f.normal = normal;
            f.offset = offset;
            f.has_normal = true;
            self.checkflipped(facet, true);
        }

        /// `qh_gausselim` for a 2 x 3 matrix.
        fn gausselim(&self, rows: &mut [P3], sign: &mut bool, nearzero: &mut bool) {
            let numrow = rows.len();
            *nearzero = false;
            for k in 0..numrow {
                let mut pivot_abs = rows[k][k].abs();
                let mut pivoti = k;
                for (i, r) in rows.iter().enumerate().skip(k + 1) {
                    let temp = r[k].abs();
                    if temp > pivot_abs {
                        pivot_abs = temp;
                        pivoti = i;
                    }
                }
                if pivoti != k {
                    rows.swap(pivoti, k);
                    *sign = !*sign;
                }
                if pivot_abs <= self.near_zero[k] {
                    *nearzero = true;
                    if pivot_abs == 0.0 {
                        continue;
                    }
                }
                let pivot = rows[k][k];
                for i in k + 1..numrow {
                    let n = rows[i][k] / pivot;
                    let pivotrow = rows[k];
                    for (j, p) in pivotrow.iter().enumerate().skip(k + 1) {
                        rows[i][j] -= n * p;
                    }
                }
            }
        }

        /// `qh_backnormal` for a 2 x 3 upper-triangular matrix.
        fn backnormal(&self, rows: &[P3], sign: bool) -> P3 {
            let numrow = rows.len();
            let numcol = 3;
            let mut normal = [0.0; 3];
            normal[numcol - 1] = if sign { -1.0 } else { 1.0 };
            for i in (0..numrow).rev() {
                let mut val = 0.0;
                for j in i + 1..numcol {
                    val -= rows[i][j] * normal[j];
                }
                let diagonal = rows[i][i];
                if diagonal.abs() > self.mindenom_2 {
                    normal[i] = val / diagonal;
                } else {
                    let (q, waszero) = Self::divzero(val, diagonal, self.mindenom_1_2);
                    if waszero {
                        normal[i] = if sign { -1.0 } else { 1.0 };
                        for c in normal.iter_mut().skip(i + 1) {
                            *c = 0.0;
                        }
                    } else {
                        normal[i] = q;
                    }
                }
            }
            normal
        }

        /// `qh_checkflipped(facet, NULL, allerror)`.
        fn checkflipped(&mut self, facet: usize, allerror: bool) -> bool {
            if self.f[facet].flipped {
                return false;
            }
            let dist = self.distplane(&self.interior, facet);
            if (allerror && dist >= -self.distround) || (!allerror && dist > 0.0) {
                self.f[facet].flipped = true;
                return false;
            }
            true
        }

        // ------------------------------------------------------------------ initial hull

        /// `qh_initbuild` up to the partition of the points.
        fn initbuild(&mut self) -> Result<(), Failure> {
            let maxpoints = self.maxmin();
            self.detroundoff();
            // sentinels
            let ft = self.newfacet();
            self.facet_list = ft;
            self.newfacet_list = ft;
            self.facet_tail = ft;
            self.num_facets = 0;
            self.num_vertices = 0;
            self.num_visible = 0;
            let vt = self.newvertex(NONE);
            self.vertex_list = vt;
            self.newvertex_list = vt;
            self.vertex_tail = vt;
            let simplex = self.maxsimplex(&maxpoints)?;
            let mut vertices = Vec::new();
            for &pt in &simplex {
                let v = self.newvertex(pt);
                vertices.insert(0, v);
            }
            self.initialhull(&vertices)?;
            self.partitionall(&vertices);
            self.resetlists();
            self.facet_next = self.facet_list;
            self.furthestnext();
            Ok(())
        }

        /// `qh_maxmin`: the min and max point per axis and the precision constants.
        fn maxmin(&mut self) -> Vec<usize> {
            let p = self.p;
            let mut set = Vec::with_capacity(6);
            let mut maxabs: f64 = 0.0;
            let mut maxsum = 0.0;
            self.maxwidth = -REALMAX;
            for k in 0..3 {
                let (mut minimum, mut maximum) = (0usize, 0usize);
                for (i, pt) in p.iter().enumerate() {
                    if p[maximum][k] < pt[k] {
                        maximum = i;
                    } else if p[minimum][k] > pt[k] {
                        minimum = i;
                    }
                }
                let maxcoord = p[maximum][k].max(-p[minimum][k]);
                let temp = p[maximum][k] - p[minimum][k];
                self.maxwidth = self.maxwidth.max(temp);
                maxabs = maxabs.max(maxcoord);
                maxsum += maxcoord;
                set.push(minimum);
                set.push(maximum);
                self.near_zero[k] = 80.0 * maxsum * REALEPS;
            }
            self.mindenom_1 = (1.0 / REALMAX).max(REALMIN);
            self.mindenom = self.mindenom_1 * maxabs;
            self.mindenom_1_2 = (self.mindenom_1 * 3.0).sqrt();
            self.mindenom_2 = self.mindenom_1_2 * maxabs;
            // qh_distround
            let maxdistsum = (3.0f64.sqrt() * maxabs).min(maxsum);
            self.distround = REALEPS * (3.0 * maxdistsum * 1.01 + maxabs);
            set
        }

        /// `qh_detroundoff` for 'C-0' pre-merging.
        fn detroundoff(&mut self) {
            let premerge_centrum = 2.0 * self.distround;
            self.minvisible = premerge_centrum;
            self.maxcoplanar = self.minvisible;
            self.minoutside = 2.0 * self.minvisible;
            self.max_outside = 0.0;
        }

        /// `qh_detsimplex`: determinant of the first `dim` coordinates of `simplex - apex`.
        fn detsimplex(&self, apex: usize, simplex: &[usize], dim: usize) -> (f64, bool) {
            let a = &self.p[apex];
            let row = |j: usize| {
                let s = &self.p[simplex[j]];
                [s[0] - a[0], s[1] - a[1], s[2] - a[2]]
            };
            if dim == 2 {
                let (r0, r1) = (row(0), row(1));
                let det = r0[0] * r1[1] - r0[1] * r1[0];
                (det, det.abs() < 10.0 * self.near_zero[1])
            } else {
                let (a, b, c) = (row(0), row(1), row(2));
                let det = a[0] * (b[1] * c[2] - b[2] * c[1]) - b[0] * (a[1] * c[2] - a[2] * c[1])
                    + c[0] * (a[1] * b[2] - a[2] * b[1]);
                (det, det.abs() < 10.0 * self.near_zero[2])
            }
        }

        /// `qh_maxsimplex` (initial simplex from the axis-extreme points).
        fn maxsimplex(&mut self, maxpoints: &[usize]) -> Result<Vec<usize>, Failure> {
            let p = self.p;
            let (mut maxcoord, mut mincoord) = (-REALMAX, REALMAX);
            let (mut maxx, mut minx) = (NONE, NONE);
            for &pt in maxpoints {
                if maxcoord < p[pt][0] {
                    maxcoord = p[pt][0];
                    maxx = pt;
                }
                if mincoord > p[pt][0] {
                    mincoord = p[pt][0];
                    minx = pt;
                }
            }
            let mut maxdet = maxcoord - mincoord;
            let mut simplex: Vec<usize> = Vec::with_capacity(4);
            if minx != NONE {
                simplex.push(minx);
            }
            if simplex.len() < 2 && maxx != NONE && !simplex.contains(&maxx) {
                simplex.push(maxx);
            }
            if simplex.len() < 2 {
                return Err(Failure::Flat);
            }
            for i in 2..4 {
                let prevdet = maxdet;
                let mut maxpoint = NONE;
                maxdet = -1.0;
                let mut maxnearzero = false;
                for &pt in maxpoints {
                    if !simplex.contains(&pt) && pt != maxpoint {
                        let (det, nz) = self.detsimplex(pt, &simplex, i);
                        let det = det.abs();
                        if det > maxdet {
                            maxdet = det;
                            maxpoint = pt;
                            maxnearzero = nz;
                        }
                    }
                }
                let mut maybe_falsenarrow = false;
                let targetdet = prevdet * self.maxwidth;
                let mindet = 10.0 * RATIO_MAXSIMPLEX * targetdet;
                if maxdet > 0.0 {
                    let ratio = maxdet / targetdet;
                    if ratio < RATIO_MAXSIMPLEX {
                        maybe_falsenarrow = true;
                    }
                }
                if maxpoint == NONE || maxnearzero || maybe_falsenarrow {
                    for pt in 0..p.len() {
                        if !maxpoints.contains(&pt) && !simplex.contains(&pt) {
                            let (det, nz) = self.detsimplex(pt, &simplex, i);
                            let det = det.abs();
                            if det > maxdet {
                                maxdet = det;
                                maxpoint = pt;
                                maxnearzero = nz;
                                if !maxnearzero && maxdet > mindet {
                                    break;
                                }
                            }
                        }
                    }
                }
                if maxpoint == NONE {
                    return Err(Failure::Flat);
                }
                simplex.push(maxpoint);
            }
            Ok(simplex)
        }

        /// `qh_createsimplex` and `qh_initialhull`.
        fn initialhull(&mut self, vertices: &[usize]) -> Result<(), Failure> {
            let mut toporient = true;
            let mut newfacets = Vec::with_capacity(4);
            for (i, &v) in vertices.iter().enumerate() {
                let nf = self.newfacet();
                let mut vs = vertices.to_vec();
                vs.remove(i);
                self.f[nf].vertices = vs;
                self.f[nf].toporient = toporient;
                self.appendfacet(nf);
                self.f[nf].newfacet = true;
                self.appendvertex(v);
                newfacets.push(nf);
                toporient = !toporient;
            }
            let list = self.facets_from(self.newfacet_list);
            for &nf in &list {
                let nb: Vec<usize> = list.iter().copied().filter(|&f| f != nf).take(3).collect();
                self.f[nf].neighbors = nb;
            }
            self.resetlists();
            self.facet_next = self.facet_list;
            // qh_getcenter
            let mut c = [0.0; 3];
            for (k, ck) in c.iter_mut().enumerate() {
                for &v in vertices {
                    *ck += self.p[self.v[v].point][k];
                }
                *ck /= vertices.len() as f64;
            }
            self.interior = c;
            let first = self.facet_list;
            self.setfacetplane(first);
            self.f[first].flipped = false;
            let dist = self.distplane(&self.interior, first);
            if dist > self.distround {
                for f in self.facets_from(self.facet_list) {
                    self.f[f].toporient = !self.f[f].toporient;
                }
                self.setfacetplane(first);
            }
            for f in self.facets_from(self.facet_list) {
                if f != first {
                    self.setfacetplane(f);
                }
            }
            let all = self.facets_from(self.facet_list);
            for &f in &all {
                self.f[f].flipped = false;
                let dist = self.distplane(&self.interior, f);
                if dist > self.distround {
                    for &g in &all {
                        self.f[g].flipped = false;
                        self.f[g].toporient = !self.f[g].toporient;
                        // qh_orientoutside
                        let d = self.distplane(&self.interior, g);
                        if d > 0.0 {
                            let fg = &mut self.f[g];
                            fg.normal = [-fg.normal[0], -fg.normal[1], -fg.normal[2]];
                            fg.offset = -fg.offset;
                        }
                    }
                    break;
                }
            }
            let mut minangle = REALMAX;
            for &f in &all {
                if !self.checkflipped(f, true) {
                    return Err(Failure::Flat);
                }
                for &nb in &self.f[f].neighbors {
                    let (a, b) = (&self.f[f].normal, &self.f[nb].normal);
                    let angle = a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
                    minangle = minangle.min(angle);
                }
            }
            if minangle < MAXNARROW {
                // qh.NARROWhull changes the partition rules; not emulated
                self.exact = false;
            }
            Ok(())
        }

        /// `qh_USEfindbestnew`: after 50 facet merges, points are always partitioned with
        /// `qh_findbestnew`, and `qh_DISToutside` doubles.
        fn use_findbestnew(&self) -> bool {
            self.totmerge > 50
        }

        /// `qh_DISToutside`.
        fn distoutside(&self) -> f64 {
            let scale = if self.use_findbestnew() { 2.0 } else { 1.0 };
            scale * (2.0 * self.minoutside).max(self.max_outside)
        }

        /// `qh_SEARCHdist`.
        fn searchdist(&self) -> f64 {
            self.max_outside + 2.0 * self.distround + self.minvisible.max(self.maxcoplanar)
        }

        /// `qh_partitionall`.
        fn partitionall(&mut self, vertices: &[usize]) {
            let n = self.p.len();
            let mut isvertex = vec![false; n];
            for &v in vertices {
                isvertex[self.v[v].point] = true;
            }
            let mut pointset: Vec<usize> = (0..n).filter(|&i| !isvertex[i]).collect();
            let distoutside = self.distoutside();
            for facet in self.facets_from(self.facet_list) {
                let mut bestpoint = NONE;
                let mut bestdist = -REALMAX;
                let mut keep = Vec::with_capacity(pointset.len());
                let mut outside = Vec::new();
                for &pt in &pointset {
                    let dist = self.distplane(&self.p[pt], facet);
                    if dist < distoutside {
                        keep.push(pt);
                    } else if bestpoint == NONE {
                        bestpoint = pt;
                        bestdist = dist;
                    } else if dist > bestdist {
                        outside.push(bestpoint);
                        bestpoint = pt;
                        bestdist = dist;
                    } else {
                        outside.push(pt);
                    }
                }
                if bestpoint != NONE {
                    outside.push(bestpoint);
                    self.f[facet].furthestdist = bestdist;
                }
                self.f[facet].outside = outside;
                pointset = keep;
            }
            // MERGING: the remaining points go through qh_partitionpoint with qh_findbestnew
            self.findbestnew = true;
            for pt in pointset {
                let start = self.facet_list;
                self.partitionpoint(pt, start);
            }
            self.findbestnew = false;
        }

        /// `qh_furthestnext`: makes the facet with the furthest outside point the next facet.
        fn furthestnext(&mut self) {
            let mut best = NONE;
            let mut bestdist = -REALMAX;
            for f in self.facets_from(self.facet_list) {
                if !self.f[f].outside.is_empty() && self.f[f].furthestdist > bestdist {
                    best = f;
                    bestdist = self.f[f].furthestdist;
                }
            }
            if best != NONE {
                self.removefacet(best);
                self.prependfacet_next(best);
            }
        }

        // ------------------------------------------------------------------ point location

        /// `qh_findbesthorizon(!qh_IScheckmax, ...)`.
        fn findbesthorizon(&mut self, point: &P3, startfacet: usize, bestdist: &mut f64) -> usize {
            let mut bestfacet = startfacet;
            let searchdist = self.searchdist();
            let mut minsearch = *bestdist - searchdist;
            let mut size = 0usize;
            self.visit_id = self.visit_id.wrapping_add(1);
            let visitid = self.visit_id;
            self.f[startfacet].visitid = visitid;
            let mut facet = startfacet;
            let mut nextfacet = NONE;
            let mut guard = 0usize;
            loop {
                guard += 1;
                if guard > 4 * self.f.len() + 16 {
                    self.exact = false;
                    break;
                }
                let neighbors = self.f[facet].neighbors.clone();
                for nb in neighbors {
                    if nb == NONE || self.f[nb].visitid == visitid {
                        continue;
                    }
                    self.f[nb].visitid = visitid;
                    if !self.f[nb].flipped {
                        let dist = self.distplane(point, nb);
                        if dist > *bestdist {
                            minsearch = dist - searchdist;
                            if dist > *bestdist + searchdist {
                                size = 0;
                            }
                            bestfacet = nb;
                            *bestdist = dist;
                        } else if dist < minsearch {
                            continue;
                        }
                    }
                    if nextfacet != NONE {
                        if size == 0 {
                            self.coplanar_stack.clear();
                        }
                        self.coplanar_stack.push(nextfacet);
                        size += 1;
                    }
                    nextfacet = nb;
                }
                facet = nextfacet;
                if facet != NONE {
                    nextfacet = NONE;
                } else if size == 0 {
                    break;
                } else {
                    size -= 1;
                    if size == 0 {
                        facet = self.coplanar_stack[0];
                        self.coplanar_stack.clear();
                    } else {
                        facet = self.coplanar_stack.pop().unwrap_or(NONE);
                        if facet == NONE {
                            break;
                        }
                    }
                }
            }
            bestfacet
        }

        /// `qh_findbestnew(point, startfacet, bestoutside)`: (best facet, distance, isoutside).
        fn findbestnew_at(
            &mut self,
            point: &P3,
            startfacet: usize,
            bestoutside: bool,
        ) -> (usize, f64, bool) {
            let mut bestdist = -REALMAX / 2.0;
            let mut bestfacet = NONE;
            self.visit_id = self.visit_id.wrapping_add(1);
            let visitid = self.visit_id;
            let isdistoutside = !bestoutside;
            let distoutside = self.distoutside();
            for i in 0..2 {
                let start = if i == 0 {
                    startfacet
                } else {
                    self.newfacet_list
                };
                let mut facet = start;
                while facet != NONE && self.f[facet].next != NONE {
                    if facet == startfacet && i == 1 {
                        break;
                    }
                    self.f[facet].visitid = visitid;
                    if !self.f[facet].flipped {
                        let dist = self.distplane(point, facet);
                        if dist > bestdist {
                            bestfacet = facet;
                            if isdistoutside && dist >= distoutside {
                                return (facet, dist, true);
                            }
                            bestdist = dist;
                        }
                    }
                    facet = self.f[facet].next;
                }
            }
            let start = if bestfacet != NONE {
                bestfacet
            } else {
                startfacet
            };
            let best = self.findbesthorizon(point, start, &mut bestdist);
            (best, bestdist, bestdist >= self.minoutside)
        }

        /// `qh_sharpnewfacets`.
        fn sharpnewfacets(&self) -> bool {
            let mut quadrant = [false; 3];
            for f in self.facets_from(self.newfacet_list) {
                let n = &self.f[f].normal;
                if f == self.newfacet_list {
                    for k in 0..3 {
                        quadrant[k] = n[k] > 0.0;
                    }
                } else {
                    for k in (0..3).rev() {
                        if quadrant[k] != (n[k] > 0.0) {
                            return true;
                        }
                    }
                }
            }
            false
        }

        /// `qh_findbest(point, startfacet, !bestoutside, qh_ISnewfacets, ...)`.
        fn findbest_new(&mut self, point: &P3, startfacet: usize) -> (usize, f64, bool) {
            let mut bestdist = -REALMAX / 2.0;
            let mut bestfacet = NONE;
            self.visit_id = self.visit_id.wrapping_add(1);
            let visitid = self.visit_id;
            let mut testhorizon = true;
            if !self.f[startfacet].flipped {
                let dist = self.distplane(point, startfacet);
                if dist >= self.minoutside {
                    return (startfacet, dist, true);
                }
                bestdist = dist;
                bestfacet = startfacet;
            }
            self.f[startfacet].visitid = visitid;
            let mut facet = startfacet;
            let mut guard = 0usize;
            while facet != NONE {
                guard += 1;
                if guard > self.f.len() + 16 {
                    self.exact = false;
                    break;
                }
                let mut next = NONE;
                let neighbors = self.f[facet].neighbors.clone();
                for nb in neighbors {
                    if nb == NONE || !self.f[nb].newfacet {
                        continue;
                    }
                    if self.f[nb].visitid == visitid {
                        continue;
                    }
                    self.f[nb].visitid = visitid;
                    if !self.f[nb].flipped {
                        let dist = self.distplane(point, nb);
                        if dist > bestdist {
                            if dist >= self.minoutside {
                                return (nb, dist, true);
                            }
                            bestfacet = nb;
                            bestdist = dist;
                            next = nb;
                            break;
                        }
                    }
                }
                facet = next;
            }
            if bestfacet == NONE {
                let nl = self.newfacet_list;
                let (bf, bd, _) = self.findbestnew_at(point, nl, false);
                bestfacet = bf;
                bestdist = bd;
                testhorizon = false;
            } else if !self.findbest_notsharp && bestdist < -self.distround {
                if self.sharpnewfacets() {
                    let (bf, bd, _) = self.findbestnew_at(point, bestfacet, false);
                    bestfacet = bf;
                    bestdist = bd;
                    testhorizon = false;
                    self.findbestnew = true;
                } else {
                    self.findbest_notsharp = true;
                }
            }
            if testhorizon {
                bestfacet = self.findbesthorizon(point, bestfacet, &mut bestdist);
            }
            (bestfacet, bestdist, bestdist >= self.minoutside)
        }

        /// `qh_partitionpoint`.
        fn partitionpoint(&mut self, pt: usize, facet: usize) {
            let point = self.p[pt];
            let (best, bestdist, isoutside) = if self.findbestnew {
                self.findbestnew_at(&point, facet, false)
            } else {
                self.findbest_new(&point, facet)
            };
            if best == NONE {
                self.exact = false;
                return;
            }
            if isoutside {
                let mut isnewoutside = false;
                if self.f[best].outside.is_empty() {
                    self.f[best].outside.push(pt);
                    isnewoutside = true;
                    self.f[best].furthestdist = bestdist;
                } else if self.f[best].furthestdist < bestdist {
                    self.f[best].outside.push(pt);
                    self.f[best].furthestdist = bestdist;
                } else {
                    let o = &mut self.f[best].outside;
                    let at = o.len() - 1;
                    o.insert(at, pt);
                }
                if isnewoutside && self.facet_next != best {
                    if self.f[best].newfacet {
                        if self.facet_next != NONE && self.f[self.facet_next].newfacet {
                            self.facet_next = self.newfacet_list;
                        }
                    } else {
                        self.removefacet(best);
                        self.appendfacet(best);
                        if self.newfacet_list != NONE {
                            self.f[best].newfacet = true;
                        }
                    }
                }
            } else if bestdist >= -self.maxcoplanar {
                // coplanar point: qh_partitioncoplanar only raises qh.max_outside here
                if bestdist > self.max_outside {
                    self.max_outside = bestdist;
                }
            }
        }

        // ------------------------------------------------------------------ construction

        /// `qh_buildhull`.
        fn buildhull(&mut self) -> Result<(), Failure> {
            self.facet_next = self.facet_list;
            let mut guard = 0usize;
            while let Some((pt, facet)) = self.nextfurthest() {
                guard += 1;
                if guard > self.p.len() + 8 {
                    return Err(Failure::Topology(self.distround));
                }
                if let Some(stop) = self.stop_add {
                    if self.num_vertices as i64 - 4 >= stop as i64 - 1 {
                        return Ok(());
                    }
                }
                self.addpoint(pt, facet)?;
            }
            Ok(())
        }

        /// `qh_nextfurthest`.
        fn nextfurthest(&mut self) -> Option<(usize, usize)> {
            let mut loopcount = 0usize;
            loop {
                let facet = self.facet_next;
                if facet == self.facet_tail || facet == NONE {
                    return None;
                }
                loopcount += 1;
                if loopcount > self.num_facets + 2 {
                    return None;
                }
                if self.f[facet].outside.is_empty() {
                    self.facet_next = self.f[facet].next;
                    continue;
                }
                let mut facet = facet;
                if self.pick_furthest {
                    self.furthestnext();
                    facet = self.facet_next;
                }
                let pt = self.f[facet].outside.pop()?;
                return Some((pt, facet));
            }
        }

        /// `qh_addpoint` without merging.
        fn addpoint(&mut self, pt: usize, facet: usize) -> Result<(), Failure> {
            self.findhorizon(pt, facet)?;
            let apex = self.makenewfacets(pt)?;
            let _ = apex;
            self.matchnewfacets()?;
            for f in self.facets_from(self.newfacet_list) {
                // qh_makenewplanes: facets to be merged into a coplanar horizon get none
                if !self.f[f].mergehorizon {
                    self.setfacetplane(f);
                }
            }
            self.update_vertexneighbors_cone();
            // qh_premerge: 'C-0' returns at once if the new facets are clearly convex
            if !self.checkzero() {
                if self.allow_merge {
                    self.premerge()?;
                } else {
                    self.exact = false;
                }
            }
            self.findbestnew = self.use_findbestnew()
                || self
                    .facets_from(self.newfacet_list)
                    .iter()
                    .any(|&f| !self.f[f].simplicial);
            self.partitionvisible();
            self.findbestnew = false;
            self.findbest_notsharp = false;
            self.deletevisible();
            self.resetlists();
            Ok(())
        }

        /// `qh_findhorizon`.
        fn findhorizon(&mut self, pt: usize, facet: usize) -> Result<(), Failure> {
            let point = self.p[pt];
            self.removefacet(facet);
            self.appendfacet(facet);
            self.num_visible = 1;
            self.visible_list = facet;
            self.f[facet].visible = true;
            self.f[facet].replace = NONE;
            self.visit_id = self.visit_id.wrapping_add(1);
            let visit = self.visit_id;
            let mut numhorizon = 0;
            let mut visible = self.visible_list;
            while visible != NONE && self.f[visible].visible {
                self.f[visible].visitid = visit;
                for nb in self.f[visible].neighbors.clone() {
                    if nb == NONE || self.f[nb].visitid == visit {
                        continue;
                    }
                    self.f[nb].visitid = visit;
                    let dist = self.distplane(&point, nb);
                    if dist > self.minvisible {
                        self.removefacet(nb);
                        self.appendfacet(nb);
                        self.f[nb].visible = true;
                        self.f[nb].replace = NONE;
                        self.num_visible += 1;
                    } else {
                        if dist >= -self.maxcoplanar {
                            // coplanar horizon: qh_premerge merges its new facets into it
                            self.f[nb].coplanarhorizon = self.allow_merge;
                            if !self.allow_merge {
                                self.exact = false;
                            }
                            if dist > 0.0 {
                                self.max_outside = self.max_outside.max(dist);
                            }
                        } else {
                            self.f[nb].coplanarhorizon = false;
                        }
                        numhorizon += 1;
                    }
                }
                visible = self.f[visible].next;
            }
            if numhorizon == 0 {
                return Err(Failure::Topology(self.distround));
            }
            Ok(())
        }

        /// `qh_makenewfacets`: a cone from the apex over the ridges of each visible facet
        /// (`qh_makenew_nonsimplicial` for facets with ridges, `qh_makenew_simplicial` for the
        /// neighbours without a ridge).
        fn makenewfacets(&mut self, pt: usize) -> Result<usize, Failure> {
            self.newfacet_list = self.facet_tail;
            self.newvertex_list = self.vertex_tail;
            let apex = self.newvertex(pt);
            self.appendvertex(apex);
            self.visit_id = self.visit_id.wrapping_add(1);
            // as in qhull, both carry over from one visible facet to the next
            let mut newfacet2 = NONE;
            let mut newfacet = NONE;
            let mut visible = self.visible_list;
            while visible != NONE && self.f[visible].visible {
                for nb in self.f[visible].neighbors.clone() {
                    if nb != NONE {
                        self.f[nb].seen = false;
                    }
                }
                if !self.f[visible].ridges.is_empty() {
                    self.f[visible].visitid = self.visit_id;
                    newfacet2 = self.makenew_nonsimplicial(visible, apex)?;
                }
                if self.f[visible].simplicial {
                    newfacet = self.makenew_simplicial(visible, apex)?;
                }
                if newfacet2 != NONE {
                    newfacet = newfacet2;
                }
                if newfacet != NONE {
                    self.f[visible].replace = newfacet;
                }
                self.f[visible].ridges.clear();
                self.f[visible].neighbors.clear();
                visible = self.f[visible].next;
            }
            Ok(apex)
        }

        /// `qh_makenew_nonsimplicial`: new facets over the ridges of a visible facet.
        fn makenew_nonsimplicial(&mut self, visible: usize, apex: usize) -> Result<usize, Failure> {
            let mut newfacet = NONE;
            for ridge in self.f[visible].ridges.clone() {
                let (top, bottom) = (self.r[ridge].top, self.r[ridge].bottom);
                let nb = if top == visible { bottom } else { top };
                if nb == NONE {
                    return Err(Failure::Topology(self.distround));
                }
                if !self.f[nb].visible {
                    let toporient = top == visible;
                    let mut vertices = vec![apex];
                    vertices.extend_from_slice(&self.r[ridge].vertices);
                    let nf = self.makenewfacet(vertices, toporient, nb);
                    newfacet = nf;
                    if self.f[nb].coplanarhorizon {
                        self.f[nf].mergehorizon = true;
                        if self.f[nb].seen {
                            // a cycle of several new facets (qh_mergecycle): not emulated
                            self.exact = false;
                        }
                    }
                    if self.f[nb].seen {
                        if self.f[nb].simplicial {
                            return Err(Failure::Topology(self.distround));
                        }
                        self.f[nb].neighbors.push(nf);
                    } else {
                        setreplace(&mut self.f[nb].neighbors, visible, nf);
                    }
                    if self.f[nb].simplicial {
                        setdel(&mut self.f[nb].ridges, ridge);
                    } else {
                        self.f[nf].ridges.push(ridge);
                        if toporient {
                            self.r[ridge].top = nf;
                        } else {
                            self.r[ridge].bottom = nf;
                        }
                    }
                }
                self.f[nb].seen = true;
            }
            Ok(newfacet)
        }

        /// `qh_makenew_simplicial`: new facets for the neighbours of a simplicial visible facet
        /// that are horizon facets without a ridge to it.
        fn makenew_simplicial(&mut self, visible: usize, apex: usize) -> Result<usize, Failure> {
            let mut newfacet = NONE;
            for nb in self.f[visible].neighbors.clone() {
                if nb == NONE || self.f[nb].seen || self.f[nb].visible {
                    continue;
                }
                if !self.f[nb].simplicial {
                    return Err(Failure::Topology(self.distround));
                }
                let horizonskip = self.f[nb]
                    .neighbors
                    .iter()
                    .position(|&x| x == visible)
                    .ok_or(Failure::Topology(self.distround))?;
                let mut vertices = Vec::with_capacity(3);
                vertices.push(apex);
                for (i, &v) in self.f[nb].vertices.iter().enumerate() {
                    if i != horizonskip {
                        vertices.push(v);
                    }
                }
                if vertices.len() != 3 {
                    return Err(Failure::Topology(self.distround));
                }
                let odd = horizonskip & 1 == 1;
                let toporient = if self.f[nb].toporient { odd } else { !odd };
                newfacet = self.makenewfacet(vertices, toporient, nb);
                if self.f[nb].coplanarhorizon {
                    self.f[newfacet].mergehorizon = true;
                }
                self.f[nb].neighbors[horizonskip] = newfacet;
            }
            Ok(newfacet)
        }

        fn makenewfacet(&mut self, vertices: Vec<usize>, toporient: bool, horizon: usize) -> usize {
            for &v in &vertices {
                if !self.v[v].newfacet {
                    self.removevertex(v);
                    self.appendvertex(v);
                }
            }
            let nf = self.newfacet();
            self.f[nf].vertices = vertices;
            self.f[nf].toporient = toporient;
            self.f[nf].neighbors = vec![horizon];
            self.appendfacet(nf);
            nf
        }

        /// `qh_matchnewfacets`: links the new facets around the apex. A ridge with more than two
        /// new facets (a "dupridge", merged by qhull) or mismatched orientations fail.
        fn matchnewfacets(&mut self) -> Result<(), Failure> {
            let list = self.facets_from(self.newfacet_list);
            let mut by_ridge: HashMapU = HashMapU::default();
            for &nf in &list {
                let h = self.f[nf].neighbors.first().copied().unwrap_or(NONE);
                self.f[nf].neighbors = vec![h, NONE, NONE];
                for skip in 1..3 {
                    // the ridge is the apex plus the vertex that is not skipped
                    let other = self.f[nf].vertices[3 - skip];
                    by_ridge.entry(other).or_default().push((nf, skip));
                }
            }
            for &nf in &list {
                for skip in 1..3 {
                    if self.f[nf].neighbors[skip] != NONE {
                        continue;
                    }
                    let other = self.f[nf].vertices[3 - skip];
                    let e = by_ridge.get(&other).cloned().unwrap_or_default();
                    if e.len() != 2 {
                        return Err(Failure::Topology(self.distround));
                    }
                    let (g, gskip) = if e[0].0 == nf { e[1] } else { e[0] };
                    if g == nf {
                        return Err(Failure::Topology(self.distround));
                    }
                    let same = (skip & 1) == (gskip & 1);
                    let ismatch = same == (self.f[nf].toporient ^ self.f[g].toporient);
                    if !ismatch || self.f[g].neighbors[gskip] != NONE {
                        return Err(Failure::Topology(self.distround));
                    }
                    self.f[g].neighbors[gskip] = nf;
                    self.f[nf].neighbors[skip] = g;
                }
            }
            Ok(())
        }

        /// `qh_checkzero(!qh_ALL)`: true if the new facets are clearly convex.
        fn checkzero(&mut self) -> bool {
            let list = self.facets_from(self.newfacet_list);
            for &f in &list {
                let horizon = self.f[f].neighbors.first().copied().unwrap_or(NONE);
                if self.f[f].flipped
                    || !self.f[f].has_normal
                    || horizon == NONE
                    || !self.f[horizon].simplicial
                {
                    return false;
                }
            }
            for &f in &list {
                self.vertex_visit = self.vertex_visit.wrapping_add(1);
                let vv = self.vertex_visit;
                let mut horizon = NONE;
                let neighbors = self.f[f].neighbors.clone();
                for (i, &nb) in neighbors.iter().enumerate() {
                    if i == 0 {
                        horizon = nb;
                        continue;
                    }
                    let v = self.f[f].vertices[i];
                    self.v[v].visitid = vv;
                    let dist = self.distplane(&self.p[self.v[v].point], nb);
                    if dist >= -2.0 * self.distround {
                        return false;
                    }
                }
                if horizon != NONE {
                    for &v in &self.f[horizon].vertices {
                        if self.v[v].visitid != vv {
                            let dist = self.distplane(&self.p[self.v[v].point], f);
                            if dist >= -2.0 * self.distround {
                                return false;
                            }
                            break;
                        }
                    }
                }
            }
            true
        }

        /// `qh_premerge` for the merges emulated: new facets merged into their coplanar horizon
        /// facet one at a time (`qh_mergecycle_all` with one-facet cycles, `qh_mergefacet`,
        /// `qh_mergesimplex`), then `qh_getmergeset_initial` finding nothing or one non-convex
        /// pair (`qh_all_merges` with one `qh_merge_nonconvex`), and `qh_reducevertices`.
        /// Anything else (cycles of several new facets, flipped facets, several non-convex
        /// pairs, degenerate or redundant facets) clears `exact`.
        fn premerge(&mut self) -> Result<(), Failure> {
            let mut facet = self.newfacet_list;
            let mut cycles = 0;
            while facet != NONE && self.f[facet].next != NONE {
                let next = self.f[facet].next;
                if !self.f[facet].has_normal {
                    if !self.f[facet].mergehorizon {
                        self.exact = false;
                        return Ok(());
                    }
                    let horizon = self.f[facet].neighbors.first().copied().unwrap_or(NONE);
                    if horizon == NONE || self.f[horizon].visible {
                        return Err(Failure::Topology(self.distround));
                    }
                    self.mergefacet(facet, horizon, true)?;
                    if !self.exact {
                        return Ok(());
                    }
                    cycles += 1;
                }
                facet = next;
            }
            let list = self.facets_from(self.newfacet_list);
            for &f in &list {
                self.f[f].coplanarhorizon = false;
                if self.f[f].flipped {
                    self.exact = false;
                    return Ok(());
                }
            }
            // qh_getmergeset_initial: centrum tests of each new facet against its neighbours
            let mut merges = Vec::new();
            self.visit_id = self.visit_id.wrapping_add(1);
            let visit = self.visit_id;
            for &f in &list {
                self.f[f].visitid = visit;
                for nb in self.f[f].neighbors.clone() {
                    if nb == NONE || !self.f[nb].has_normal {
                        self.exact = false;
                        return Ok(());
                    }
                    if self.f[nb].visitid != visit {
                        merges.extend(self.test_centrum_merge(f, nb));
                    }
                }
            }
            let mut nonconvex = false;
            match merges.as_slice() {
                [] => {}
                &[(facet1, facet2)] => {
                    // qh_all_merges with one merge: qh_merge_nonconvex, then qh_getmergeset on
                    // the merged facet (the only untested one)
                    let Some(merged) = self.merge_nonconvex(facet1, facet2)? else {
                        self.exact = false;
                        return Ok(());
                    };
                    for nb in self.f[merged].neighbors.clone() {
                        if nb == NONE || self.test_centrum_merge(merged, nb).is_some() {
                            self.exact = false;
                            return Ok(());
                        }
                    }
                    nonconvex = true;
                }
                // several merges: qh_compare_facetmerge's order and their interplay, not emulated
                _ => {
                    self.exact = false;
                    return Ok(());
                }
            }
            let list = self.facets_from(self.newfacet_list);
            if (cycles > 0 || nonconvex) && !self.reducevertices(&list) {
                self.exact = false;
            }
            Ok(())
        }

        /// `qh_test_centrum_merge` without angles: `Some((facet1, facet2))` (the merge as qhull
        /// records it) if either centrum is above or within `qh.centrum_radius` of the other
        /// facet (concave, coplanar or concave-coplanar).
        fn test_centrum_merge(&self, facet: usize, neighbor: usize) -> Option<(usize, usize)> {
            let radius = self.minvisible;
            let dist = self.distplane(&self.centrum(facet), neighbor);
            let dist2 = self.distplane(&self.centrum(neighbor), facet);
            let concave = dist > radius || dist2 > radius;
            let coplanar =
                (dist <= radius && dist >= -radius) || (dist2 <= radius && dist2 >= -radius);
            if concave && coplanar && !(dist > dist2) {
                Some((neighbor, facet))
            } else if concave || coplanar {
                Some((facet, neighbor))
            } else {
                None
            }
        }

        /// `qh_getdistance`: the extreme signed distances to `neighbor`'s plane of `facet`'s
        /// vertices not in `neighbor`, as `(max(maxdist, -mindist), mindist, maxdist)`.
        fn getdistance(&self, facet: usize, neighbor: usize) -> (f64, f64, f64) {
            let (mut mind, mut maxd) = (0.0f64, 0.0f64);
            for &v in &self.f[facet].vertices {
                if self.f[neighbor].vertices.contains(&v) {
                    continue;
                }
                let dist = self.distplane(&self.p[self.v[v].point], neighbor);
                if dist < mind {
                    mind = dist;
                } else if dist > maxd {
                    maxd = dist;
                }
            }
            (maxd.max(-mind), mind, maxd)
        }

        /// `qh_findbestneighbor` for facets of at most `qh_BESTnonconvex + 3` vertices (every
        /// neighbour tested by its vertex distances): the neighbour, dist, mindist, maxdist.
        /// `None` for larger facets (centrum or nonconvex-ridge tests, not emulated).
        fn findbestneighbor(&self, facet: usize) -> Option<(usize, f64, f64, f64)> {
            if self.f[facet].vertices.len() > 3 + 15 {
                return None;
            }
            let mut best: Option<(usize, f64, f64, f64)> = None;
            for &nb in &self.f[facet].neighbors {
                if nb == NONE || !self.f[nb].has_normal {
                    return None;
                }
                let (dist, mind, maxd) = self.getdistance(facet, nb);
                if best.is_none_or(|b| dist < b.1) {
                    best = Some((nb, dist, mind, maxd));
                }
            }
            best
        }

        /// `qh_merge_nonconvex` (without 'Q4'): the facet nearer to its best neighbour is merged
        /// into it (a new facet preferred as `facet1`). Returns the merged-into facet, or `None`
        /// if qhull would take a path not emulated (a non-simplicial facet merged, degenerate or
        /// redundant facets after the merge).
        fn merge_nonconvex(
            &mut self,
            facet1: usize,
            facet2: usize,
        ) -> Result<Option<usize>, Failure> {
            let (facet1, facet2) = if self.f[facet1].newfacet {
                (facet1, facet2)
            } else {
                (facet2, facet1)
            };
            let (Some(b1), Some(b2)) =
                (self.findbestneighbor(facet1), self.findbestneighbor(facet2))
            else {
                return Ok(None);
            };
            let (merging, (merged, _, _, maxdist)) = if b1.1 < b2.1 {
                (facet1, b1)
            } else {
                (facet2, b2)
            };
            // a simplicial facet into one small enough that qh_updatetested drops its centrum
            // (at most 3 + qh_MAXnewcentrum vertices): else qh_mergeneighbors or a kept
            // centrum, not emulated
            if self.f[merging].vertices.len() != 3
                || self.f[merged].vertices.len() > 3 + 5
                || self.f[merging].flipped
                || self.f[merged].flipped
            {
                return Ok(None);
            }
            self.max_outside = self.max_outside.max(maxdist);
            let merging_neighbors = self.f[merging].neighbors.clone();
            self.mergefacet(merging, merged, false)?;
            // qh_test_redundant_neighbors(merged), qh_test_degen_neighbors(merging),
            // qh_degen_redundant_facet(merged): any hit starts merges not emulated
            let nbs = &self.f[merged].neighbors;
            let redundant = nbs.len() < 3
                || nbs.iter().any(|&nb| {
                    self.f[nb]
                        .vertices
                        .iter()
                        .all(|v| self.f[merged].vertices.contains(v))
                });
            let degen = merging_neighbors
                .iter()
                .any(|&nb| !self.f[nb].visible && self.f[nb].neighbors.len() < 3);
            if redundant || degen || self.degen_redundant(merged) {
                return Ok(None);
            }
            Ok(Some(merged))
        }

        /// `qh_reducevertices` in 3-d: extra vertices leave the merged facets
        /// (`qh_remove_extravertices`), then each vertex of a deleted ridge that only two facets
        /// share is renamed to a neighbour on their common ridges (`qh_rename_sharedvertex`).
        /// False when qhull would go on with merges not emulated (a degenerate or redundant
        /// facet, a duplicate ridge).
        fn reducevertices(&mut self, list: &[usize]) -> bool {
            for &f in list {
                if self.f[f].newmerge && self.remove_extravertices(f) && self.degen_redundant(f) {
                    return false;
                }
            }
            for &f in list {
                if !self.f[f].newmerge {
                    continue;
                }
                self.f[f].newmerge = false;
                let mut i = 0;
                while i < self.f[f].vertices.len() {
                    let v = self.f[f].vertices[i];
                    if self.v[v].delridge {
                        match self.rename_sharedvertex(v, f) {
                            Some(true) => continue, // v left f.vertices: same index again
                            Some(false) => return false,
                            None => {}
                        }
                    }
                    i += 1;
                }
            }
            let mut v = self.newvertex_list;
            while v != NONE && self.v[v].next != NONE {
                if !self.v[v].deleted {
                    self.v[v].delridge = false;
                }
                v = self.v[v].next;
            }
            true
        }

        /// `qh_remove_extravertices`: drops the vertices of a merged facet that are in none of
        /// its ridges (deleted when no facet is left to them). True if it dropped any.
        fn remove_extravertices(&mut self, f: usize) -> bool {
            if self.f[f].simplicial {
                return false;
            }
            self.vertex_visit = self.vertex_visit.wrapping_add(1);
            let vv = self.vertex_visit;
            for &r in &self.f[f].ridges {
                for &rv in &self.r[r].vertices {
                    self.v[rv].visitid = vv;
                }
            }
            let mut found = false;
            let mut i = 0;
            while i < self.f[f].vertices.len() {
                let v = self.f[f].vertices[i];
                if self.v[v].visitid == vv {
                    i += 1;
                    continue;
                }
                found = true;
                self.f[f].vertices.remove(i);
                setdel(&mut self.v[v].neighbors, f);
                if self.v[v].neighbors.is_empty() {
                    self.v[v].deleted = true;
                    self.del_vertices.push(v);
                }
            }
            found
        }

        /// `qh_degen_redundant_facet`: whether `f` is contained in a neighbour or has fewer than
        /// three neighbours (qhull then merges it: not emulated).
        fn degen_redundant(&self, f: usize) -> bool {
            if self.f[f].flipped {
                return false;
            }
            for &nb in &self.f[f].neighbors {
                if self.f[nb].flipped {
                    continue;
                }
                let within = self.f[f]
                    .vertices
                    .iter()
                    .all(|v| self.f[nb].vertices.contains(v));
                if within {
                    return true;
                }
            }
            self.f[f].neighbors.len() < 3
        }

        /// `qh_rename_sharedvertex` (3-d): a vertex on exactly two facets, `f` and `other`, is
        /// renamed to one of their common vertices on the ridges through it, if that creates no
        /// duplicate ridge (`qh_find_newvertex`). `None` if not renamed, `Some(true)` if renamed,
        /// `Some(false)` if qhull would go on with merges not emulated.
        fn rename_sharedvertex(&mut self, v: usize, f: usize) -> Option<bool> {
            let nbs = &self.v[v].neighbors;
            if nbs.len() != 2 {
                return None;
            }
            let other = if nbs[0] == f { nbs[1] } else { nbs[0] };
            // the ridges of f to `other` through v, in f.ridges order (qh_vertexridges_facet)
            let ridges: Vec<usize> = self.f[f]
                .ridges
                .iter()
                .copied()
                .filter(|&r| {
                    let (t, b) = (self.r[r].top, self.r[r].bottom);
                    (if t == f { b } else { t }) == other && self.r[r].vertices.contains(&v)
                })
                .collect();
            // qh_vertexintersect_new (decreasing ids), then qh_setdel (the last moves in)
            let mut cands: Vec<usize> = self.f[f]
                .vertices
                .iter()
                .copied()
                .filter(|x| self.f[other].vertices.contains(x))
                .collect();
            setdel(&mut cands, v);
            let newv = self.find_newvertex(v, &mut cands, &ridges)?;
            Some(self.renamevertex_shared(v, newv, &ridges, f))
        }

        /// `qh_find_newvertex`: the first candidate, by number of `ridges` it is on (ties in set
        /// order), whose renaming of `oldv` duplicates no ridge.
        fn find_newvertex(
            &self,
            oldv: usize,
            cands: &mut Vec<usize>,
            ridges: &[usize],
        ) -> Option<usize> {
            let count = |c: usize| {
                ridges
                    .iter()
                    .filter(|&&r| self.r[r].vertices.contains(&c))
                    .count()
            };
            let mut i = 0;
            while i < cands.len() {
                if count(cands[i]) == 0 {
                    cands.swap_remove(i); // qh_setdelnth: the last moves in
                } else {
                    i += 1;
                }
            }
            // qsort with qh_comparevisit; glibc's merge sort keeps ties in order
            cands.sort_by_key(|&c| count(c));
            cands.iter().copied().find(|&c| {
                // a ridge through c that, with c for oldv, is one of `ridges`
                !self.v[c].neighbors.iter().any(|&nb| {
                    self.f[nb].ridges.iter().any(|&r| {
                        let rv = &self.r[r].vertices;
                        rv.contains(&c)
                            && ridges.iter().any(|&ra| {
                                ra != r && {
                                    let av = &self.r[ra].vertices;
                                    let a = av.iter().filter(|&&x| x != oldv);
                                    let b = rv.iter().filter(|&&x| x != c);
                                    a.eq(b)
                                }
                            })
                    })
                })
            })
        }

        /// `qh_renamevertex` for `qh_rename_sharedvertex`: `oldv` becomes `newv` in `ridges`
        /// (`qh_renameridgevertex`; a ridge that already has `newv` is deleted), then leaves its
        /// two facets and is deleted. False if qhull would then merge (degenerate or redundant
        /// facet, duplicate ridge).
        fn renamevertex_shared(
            &mut self,
            oldv: usize,
            newv: usize,
            ridges: &[usize],
            f: usize,
        ) -> bool {
            for &r in ridges {
                let oldnth = match self.r[r].vertices.iter().position(|&x| x == oldv) {
                    Some(k) => k,
                    None => return false,
                };
                self.r[r].vertices.remove(oldnth);
                if self.r[r].vertices.contains(&newv) {
                    // qh_delridge_merge
                    for k in 0..self.r[r].vertices.len() {
                        let x = self.r[r].vertices[k];
                        self.v[x].delridge = true;
                    }
                    let (t, b) = (self.r[r].top, self.r[r].bottom);
                    setdel(&mut self.f[t].ridges, r);
                    setdel(&mut self.f[b].ridges, r);
                    continue;
                }
                let id = self.v[newv].id;
                let nth = self.r[r]
                    .vertices
                    .iter()
                    .position(|&x| self.v[x].id < id)
                    .unwrap_or(self.r[r].vertices.len());
                self.r[r].vertices.insert(nth, newv);
                if oldnth.abs_diff(nth) % 2 == 1 {
                    let ridge = &mut self.r[r];
                    std::mem::swap(&mut ridge.top, &mut ridge.bottom);
                }
                let degenerate_after = |x: usize| {
                    let n = self.f[x].vertices.len();
                    n < 3 || (n == 3 && !self.f[x].simplicial && self.f[x].vertices.contains(&newv))
                };
                let (t, b) = (self.r[r].top, self.r[r].bottom);
                if !degenerate_after(t) && !degenerate_after(b) && self.duplicate_ridge(r) {
                    return false;
                }
            }
            for nb in self.v[oldv].neighbors.clone() {
                self.f[nb].vertices.retain(|&x| x != oldv);
                if self.degen_redundant(nb) {
                    return false;
                }
            }
            self.v[oldv].deleted = true;
            self.del_vertices.push(oldv);
            !self.degen_redundant(f)
        }

        /// `qh_maybe_duplicateridge`: whether a merged facet of ridge `ra` has another ridge with
        /// the same vertices (qhull then merges vertices: not emulated).
        fn duplicate_ridge(&self, ra: usize) -> bool {
            let rv = &self.r[ra].vertices;
            [self.r[ra].top, self.r[ra].bottom].iter().any(|&nb| {
                !self.f[nb].simplicial
                    && self.f[nb].nummerge > 0
                    && self.f[nb]
                        .ridges
                        .iter()
                        .any(|&r| r != ra && self.r[r].vertices == *rv)
            })
        }

        /// `qh_getcentrum`: the mean of the facet's vertices projected onto its plane.
        fn centrum(&self, f: usize) -> P3 {
            let vs = &self.f[f].vertices;
            let mut c = [0.0; 3];
            for (k, ck) in c.iter_mut().enumerate() {
                for &v in vs {
                    *ck += self.p[self.v[v].point][k];
                }
                *ck /= vs.len() as f64;
            }
            let d = self.distplane(&c, f);
            let n = self.f[f].normal;
            [c[0] - d * n[0], c[1] - d * n[1], c[2] - d * n[2]]
        }

        /// `qh_update_vertexneighbors_cone`: with vertex neighbour sets, the visible facets leave
        /// (`qh_setdelnth`, the last neighbour moving in) and the new facets join the sets of the
        /// new vertices; vertices of visible facets on no other facet are deleted.
        fn update_vertexneighbors_cone(&mut self) {
            if self.vneighbors {
                let mut v = self.newvertex_list;
                while v != NONE && self.v[v].next != NONE {
                    let mut i = 0;
                    while i < self.v[v].neighbors.len() {
                        if self.f[self.v[v].neighbors[i]].visible {
                            self.v[v].neighbors.swap_remove(i);
                        } else {
                            i += 1;
                        }
                    }
                    v = self.v[v].next;
                }
                for f in self.facets_from(self.newfacet_list) {
                    for v in self.f[f].vertices.clone() {
                        self.v[v].neighbors.push(f);
                    }
                }
            }
            let mut f = self.visible_list;
            while f != NONE && self.f[f].visible {
                for v in self.f[f].vertices.clone() {
                    if !self.v[v].newfacet && !self.v[v].deleted {
                        let outer = self.v[v].neighbors.iter().any(|&n| !self.f[n].visible);
                        if self.vneighbors && outer {
                            setdel(&mut self.v[v].neighbors, f);
                        } else {
                            self.v[v].deleted = true;
                            self.del_vertices.push(v);
                        }
                    }
                }
                f = self.f[f].next;
            }
        }

        /// `qh_vertexneighbors`: the vertex neighbour sets, in facet-list order.
        fn vertexneighbors(&mut self) {
            if self.vneighbors {
                return;
            }
            self.vneighbors = true;
            for f in self.facets_from(self.facet_list) {
                if self.f[f].visible {
                    continue;
                }
                for v in self.f[f].vertices.clone() {
                    self.v[v].neighbors.push(f);
                }
            }
        }

        /// `qh_makeridges`: ridges of a simplicial facet to the neighbours it has none with.
        fn makeridges(&mut self, facet: usize) {
            if !self.f[facet].simplicial {
                return;
            }
            self.f[facet].simplicial = false;
            for nb in self.f[facet].neighbors.clone() {
                self.f[nb].seen = false;
            }
            for r in self.f[facet].ridges.clone() {
                let other = if self.r[r].top == facet {
                    self.r[r].bottom
                } else {
                    self.r[r].top
                };
                self.f[other].seen = true;
            }
            let neighbors = self.f[facet].neighbors.clone();
            for (i, &nb) in neighbors.iter().enumerate() {
                if self.f[nb].seen {
                    continue;
                }
                let mut vertices = self.f[facet].vertices.clone();
                vertices.remove(i);
                let toporient = self.f[facet].toporient ^ (i & 1 == 1);
                let (top, bottom) = if toporient { (facet, nb) } else { (nb, facet) };
                self.r.push(QRidge {
                    vertices,
                    top,
                    bottom,
                });
                let r = self.r.len() - 1;
                self.f[facet].ridges.push(r);
                self.f[nb].ridges.push(r);
            }
        }

        /// `qh_mergefacet` of a simplicial `facet1` into `facet2` (`qh_mergesimplex`,
        /// `qh_willdelete`): with `apex` (`qh_MERGEapex`) a new facet into its coplanar horizon
        /// facet, else (a non-convex merge) the vertex of `facet1` off their common ridge joins
        /// `facet2`.
        fn mergefacet(&mut self, facet1: usize, facet2: usize, apex: bool) -> Result<(), Failure> {
            self.merged = true;
            self.totmerge += 1;
            self.vertexneighbors();
            self.makeridges(facet1);
            self.makeridges(facet2);
            self.f[facet2].newmerge = true;
            self.f[facet2].nummerge += self.f[facet1].nummerge + 1;
            let opposite;
            let isnew;
            if apex {
                opposite = self.f[facet1].vertices[0];
                for k in 1..self.f[facet1].vertices.len() {
                    let v = self.f[facet1].vertices[k];
                    self.v[v].delridge = true;
                }
                if !self.f[facet2].newfacet {
                    self.newvertices(facet2);
                }
                isnew = self.f[facet2].vertices.first() != Some(&opposite);
                if isnew {
                    self.f[facet2].vertices.insert(0, opposite);
                }
            } else {
                let common = self.f[facet1].ridges.iter().copied().find(|&r| {
                    let (t, b) = (self.r[r].top, self.r[r].bottom);
                    (if t == facet1 { b } else { t }) == facet2
                });
                let Some(common) = common else {
                    return Err(Failure::Topology(self.distround));
                };
                for k in 0..self.r[common].vertices.len() {
                    let v = self.r[common].vertices[k];
                    self.v[v].delridge = true;
                }
                let Some(&opp) = self.f[facet1]
                    .vertices
                    .iter()
                    .find(|v| !self.r[common].vertices.contains(v))
                else {
                    return Err(Failure::Topology(self.distround));
                };
                opposite = opp;
                // qh_addfacetvertex: inserted by decreasing id
                isnew = !self.f[facet2].vertices.contains(&opposite);
                if isnew {
                    let id = self.v[opposite].id;
                    let vs = &self.f[facet2].vertices;
                    let at = vs
                        .iter()
                        .position(|&x| self.v[x].id < id)
                        .unwrap_or(vs.len());
                    self.f[facet2].vertices.insert(at, opposite);
                }
                if !self.f[facet2].newfacet {
                    self.newvertices(facet2);
                } else if !self.v[opposite].newfacet {
                    self.removevertex(opposite);
                    self.appendvertex(opposite);
                }
            }
            for v in self.f[facet1].vertices.clone() {
                if v == opposite && isnew {
                    setreplace(&mut self.v[v].neighbors, facet1, facet2);
                } else {
                    setdel(&mut self.v[v].neighbors, facet1);
                    if self.v[v].neighbors.len() < 2 {
                        // qh_mergevertex_del: v is left inside facet2
                        self.f[facet2].vertices.retain(|&x| x != v);
                        self.v[v].deleted = true;
                        self.del_vertices.push(v);
                    }
                }
            }
            self.visit_id = self.visit_id.wrapping_add(1);
            let visit = self.visit_id;
            for nb in self.f[facet2].neighbors.clone() {
                self.f[nb].visitid = visit;
            }
            let mut i = 0;
            while i < self.f[facet1].ridges.len() {
                let ridge = self.f[facet1].ridges[i];
                let (top, bottom) = (self.r[ridge].top, self.r[ridge].bottom);
                let other = if top == facet1 { bottom } else { top };
                if other == facet2 {
                    // qh_delridge_merge: qh_setdel from both facets (the last ridge moves in)
                    setdel(&mut self.f[top].ridges, ridge);
                    setdel(&mut self.f[bottom].ridges, ridge);
                    setdel(&mut self.f[facet2].neighbors, facet1);
                    continue;
                }
                self.f[facet2].ridges.push(ridge);
                if self.f[other].visitid != visit {
                    self.f[facet2].neighbors.push(other);
                    setreplace(&mut self.f[other].neighbors, facet1, facet2);
                    self.f[other].visitid = visit;
                } else {
                    if self.f[other].simplicial {
                        self.makeridges(other);
                    }
                    if self.f[other].neighbors.first() == Some(&facet1) {
                        setdel(&mut self.f[other].neighbors, facet2);
                        setreplace(&mut self.f[other].neighbors, facet1, facet2);
                    } else {
                        setdel(&mut self.f[other].neighbors, facet1);
                    }
                }
                if self.r[ridge].top == facet1 {
                    self.r[ridge].top = facet2;
                } else {
                    self.r[ridge].bottom = facet2;
                }
                i += 1;
            }
            // facet2 becomes the last new facet
            self.removefacet(facet2);
            self.appendfacet(facet2);
            self.f[facet2].newfacet = true;
            // qh_willdelete(facet1, facet2)
            self.removefacet(facet1);
            self.prependfacet_visible(facet1);
            self.num_visible += 1;
            self.f[facet1].visible = true;
            self.f[facet1].replace = facet2;
            self.f[facet1].ridges.clear();
            self.f[facet1].neighbors.clear();
            Ok(())
        }

        /// `qh_newvertices`: the facet's vertices not yet new move to the end of the vertex list.
        fn newvertices(&mut self, facet: usize) {
            for v in self.f[facet].vertices.clone() {
                if !self.v[v].newfacet {
                    self.removevertex(v);
                    self.appendvertex(v);
                }
            }
        }

        /// `qh_prependfacet(facet, &qh.visible_list)`.
        fn prependfacet_visible(&mut self, facet: usize) {
            let list = if self.visible_list == NONE {
                self.facet_tail
            } else {
                self.visible_list
            };
            self.link_facet_before(facet, list);
            if self.facet_next == list {
                self.facet_next = facet;
            }
            if self.newfacet_list == list && self.visible_list == NONE {
                self.newfacet_list = facet;
            }
            self.visible_list = facet;
            self.num_facets += 1;
        }

        /// `qh_partitionvisible(!qh_ALL)`.
        fn partitionvisible(&mut self) {
            let mut visible = self.visible_list;
            while visible != NONE && self.f[visible].visible {
                let next = self.f[visible].next;
                if !self.f[visible].outside.is_empty() {
                    // qh_getreplacement
                    let mut newfacet = visible;
                    let mut count = 0;
                    while newfacet != NONE && self.f[newfacet].visible {
                        newfacet = self.f[newfacet].replace;
                        count += 1;
                        if count > self.f.len() {
                            newfacet = NONE;
                            break;
                        }
                    }
                    if newfacet == NONE {
                        newfacet = self.newfacet_list;
                    }
                    let pts = std::mem::take(&mut self.f[visible].outside);
                    for pt in pts {
                        self.partitionpoint(pt, newfacet);
                    }
                }
                visible = next;
            }
            // deleted vertices are partitioned as coplanar points: only qh.max_outside can change
            for v in self.del_vertices.clone() {
                if self.v[v].partitioned {
                    continue;
                }
                let point = self.p[self.v[v].point];
                let start = self.newfacet_list;
                if start != NONE {
                    let (_, bestdist, _) = self.findbestnew_at(&point, start, true);
                    if bestdist >= -self.maxcoplanar && bestdist > self.max_outside {
                        self.max_outside = bestdist;
                    }
                }
                self.v[v].partitioned = true;
            }
        }

        /// `qh_deletevisible`.
        fn deletevisible(&mut self) {
            let mut visible = self.visible_list;
            while visible != NONE && self.f[visible].visible {
                let next = self.f[visible].next;
                self.removefacet(visible);
                self.f[visible].next = NONE;
                self.f[visible].prev = NONE;
                visible = next;
            }
            self.num_visible = 0;
            for v in std::mem::take(&mut self.del_vertices) {
                self.removevertex(v);
            }
        }

        // ------------------------------------------------------------------ output

        /// The facets and vertices as MakeGraph reads them; after merges, `qh_triangulate`
        /// (option `Qt`) first: each non-simplicial facet, in facet-list order, becomes a fan from
        /// its first (newest) vertex over its ridges in `f.ridges` order (ridges through the apex
        /// give null facets, which are dropped), appended after the simplicial facets; the fan
        /// vertices move to the end of the vertex list.
        fn output(&mut self) -> Graph {
            // triangles of the fans: (apex, ridge vertices, toporient, null)
            let mut tris: Vec<(usize, usize, usize, bool, bool)> = Vec::new();
            let mut simplicial = Vec::new();
            let base = self.f.len();
            let mut gone = vec![false; base];
            let mut moved: Vec<usize> = Vec::new();
            if self.merged {
                let mut v = self.vertex_list;
                while v != NONE && self.v[v].next != NONE {
                    self.v[v].newfacet = false;
                    v = self.v[v].next;
                }
                self.newvertex_list = self.vertex_tail;
                for f in self.facets_from(self.facet_list) {
                    if self.f[f].simplicial {
                        simplicial.push(f);
                        continue;
                    }
                    gone[f] = true;
                    let apex = self.f[f].vertices[0];
                    for r in self.f[f].ridges.clone() {
                        let rv = self.r[r].vertices.clone();
                        if rv.len() != 2 {
                            self.exact = false;
                            continue;
                        }
                        let tri = [apex, rv[0], rv[1]];
                        for &v in &tri {
                            if !self.v[v].newfacet {
                                self.removevertex(v);
                                self.appendvertex(v);
                                moved.push(v);
                            }
                        }
                        // qh_update_vertexneighbors for the new facets (a null facet twice)
                        let k = base + tris.len();
                        for &v in &tri {
                            self.v[v].neighbors.push(k);
                        }
                        tris.push((apex, rv[0], rv[1], self.r[r].top == f, rv.contains(&apex)));
                    }
                }
                // qh_update_vertexneighbors on the triangulated vertices: the non-simplicial and
                // null facets leave (qh_setcompact keeps the order)
                for &v in &moved {
                    let nb = std::mem::take(&mut self.v[v].neighbors);
                    self.v[v].neighbors = nb
                        .into_iter()
                        .filter(|&x| {
                            if x < base {
                                !gone[x]
                            } else {
                                !tris[x - base].4
                            }
                        })
                        .collect();
                }
            } else {
                simplicial = self.facets_from(self.facet_list);
            }
            let mut vertices = Vec::new();
            let mut vertex_id = vec![0u32; self.p.len()];
            let mut v = self.vertex_list;
            while v != NONE && self.v[v].next != NONE {
                vertices.push(self.v[v].point);
                vertex_id[self.v[v].point] = self.v[v].id;
                v = self.v[v].next;
            }
            let mut facets: Vec<Facet> = simplicial
                .iter()
                .copied()
                .map(|f| {
                    let vs = &self.f[f].vertices;
                    Facet {
                        v: [
                            self.v[vs[0]].point,
                            self.v[vs[1]].point,
                            self.v[vs[2]].point,
                        ],
                        toporient: self.f[f].toporient,
                    }
                })
                .collect();
            // output index of each facet (simplicial ones, then the non-null triangles)
            let mut index = vec![NONE; base + tris.len()];
            for (i, &f) in simplicial.iter().enumerate() {
                index[f] = i;
            }
            for (k, &(a, b, c, toporient, null)) in tris.iter().enumerate() {
                if !null {
                    index[base + k] = facets.len();
                    facets.push(Facet {
                        v: [self.v[a].point, self.v[b].point, self.v[c].point],
                        toporient,
                    });
                }
            }
            let vertex_facets = if self.vneighbors {
                let mut out = Vec::new();
                let mut v = self.vertex_list;
                while v != NONE && self.v[v].next != NONE {
                    out.push(self.v[v].neighbors.iter().map(|&x| index[x]).collect());
                    v = self.v[v].next;
                }
                Some(out)
            } else {
                None
            };
            Graph {
                vertices,
                facets,
                vertex_id,
                vertex_facets,
            }
        }
    }

    type HashMapU = std::collections::HashMap<usize, Vec<(usize, usize)>>;

    /// `qh_setdel`: removes `x` from an unsorted set, the last element takes its place.
    fn setdel(set: &mut Vec<usize>, x: usize) {
        if let Some(i) = set.iter().position(|&y| y == x) {
            set.swap_remove(i);
        }
    }

    /// `qh_setreplace`: `old` replaced by `new` in place.
    fn setreplace(set: &mut [usize], old: usize, new: usize) {
        if let Some(y) = set.iter_mut().find(|y| **y == old) {
            *y = new;
        }
    }
}

/// Repair of an unmerged hull where qhull merges: coplanar triangles grouped into faces,
/// vertices inside faces or on edges dropped, faces re-triangulated as fans from their newest
/// vertex.
mod repair {
    use super::{cross, dot, sub, Facet, Graph, HashMap, NONE, P3};

    /// The merged and re-triangulated hull, or `None` if `g` is not a closed convex triangle
    /// mesh containing the points (within a multiple of `distround`).
    pub(super) fn merge_coplanar(
        p: &[P3],
        g: &Graph,
        distround: f64,
        contains_all: bool,
    ) -> Option<Graph> {
        let nf = g.facets.len();
        if nf < 4 {
            return None;
        }
        // planes (outward, unit) of the facets, from MuJoCo's outward triangles
        let faces: Vec<[usize; 3]> = g.facets.iter().map(Facet::face).collect();
        let mut planes = Vec::with_capacity(nf);
        for f in &faces {
            let n = cross(&sub(&p[f[1]], &p[f[0]]), &sub(&p[f[2]], &p[f[0]]));
            let len = dot(&n, &n).sqrt();
            let n = if len > 0.0 && len.is_finite() {
                [n[0] / len, n[1] / len, n[2] / len]
            } else {
                [0.0; 3]
            };
            let c = [
                (p[f[0]][0] + p[f[1]][0] + p[f[2]][0]) / 3.0,
                (p[f[0]][1] + p[f[1]][1] + p[f[2]][1]) / 3.0,
                (p[f[0]][2] + p[f[1]][2] + p[f[2]][2]) / 3.0,
            ];
            planes.push((n, dot(&n, &c)));
        }
        // edges: directed edge -> facet; a closed, consistently oriented manifold
        let mut edge: HashMap<(usize, usize), usize> = HashMap::with_capacity(3 * nf);
        for (fi, f) in faces.iter().enumerate() {
            for k in 0..3 {
                if edge.insert((f[k], f[(k + 1) % 3]), fi).is_some() {
                    return None;
                }
            }
        }
        for &(a, b) in edge.keys() {
            if !edge.contains_key(&(b, a)) {
                return None;
            }
        }
        // containment (qhull keeps points within its merge tolerance)
        let tol = 1000.0 * distround;
        for q in p.iter().filter(|_| contains_all) {
            for (n, d) in &planes {
                if dot(n, q) - d > tol.max(1e3 * f64::EPSILON * (d.abs() + 1.0)) {
                    return None;
                }
            }
        }
        // coplanar groups: union of adjacent facets whose centres are within the pre-merge
        // centrum radius (2 qh.DISTround) of each other's planes, or non-convex
        let radius = 2.0 * distround;
        let mut parent: Vec<usize> = (0..nf).collect();
        fn find(parent: &mut [usize], mut x: usize) -> usize {
            while parent[x] != x {
                parent[x] = parent[parent[x]];
                x = parent[x];
            }
            x
        }
        let centre = |f: &[usize; 3]| {
            [
                (p[f[0]][0] + p[f[1]][0] + p[f[2]][0]) / 3.0,
                (p[f[0]][1] + p[f[1]][1] + p[f[2]][1]) / 3.0,
                (p[f[0]][2] + p[f[1]][2] + p[f[2]][2]) / 3.0,
            ]
        };
        for (&(a, b), &fa) in &edge {
            if a > b {
                continue;
            }
            let &fb = edge.get(&(b, a))?;
            let ca = centre(&faces[fa]);
            let cb = centre(&faces[fb]);
            let da = dot(&planes[fb].0, &ca) - planes[fb].1;
            let db = dot(&planes[fa].0, &cb) - planes[fa].1;
            if da > -radius || db > -radius {
                let (ra, rb) = (find(&mut parent, fa), find(&mut parent, fb));
                if ra != rb {
                    parent[ra.max(rb)] = ra.min(rb);
                }
            }
        }
        let group: Vec<usize> = (0..nf).map(|f| find(&mut parent, f)).collect();
        // extreme vertices: on at least 3 faces
        let n = p.len();
        let mut groups_of: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (fi, f) in faces.iter().enumerate() {
            for &v in f {
                if !groups_of[v].contains(&group[fi]) {
                    groups_of[v].push(group[fi]);
                }
            }
        }
        let keep = |v: usize| groups_of[v].len() >= 3;
        // group sizes and whether a group needs re-triangulation
        let mut members: Vec<Vec<usize>> = vec![Vec::new(); nf];
        for fi in 0..nf {
            members[group[fi]].push(fi);
        }
        let mut out_facets = Vec::with_capacity(nf);
        let mut fans: Vec<usize> = Vec::new();
        for fi in 0..nf {
            let gi = group[fi];
            if members[gi].len() == 1 && faces[fi].iter().all(|&v| keep(v)) {
                out_facets.push(g.facets[fi].clone());
            } else if members[gi][0] == fi {
                fans.push(gi);
            }
        }
        for gi in fans {
            // boundary cycle of the group: directed edges whose twin is in another group
            let mut next: HashMap<usize, usize> = HashMap::new();
            for &fi in &members[gi] {
                let f = faces[fi];
                for k in 0..3 {
                    let (a, b) = (f[k], f[(k + 1) % 3]);
                    let tw = edge.get(&(b, a)).copied().unwrap_or(NONE);
                    if (tw == NONE || group[tw] != gi) && next.insert(a, b).is_some() {
                        return None;
                    }
                }
            }
            let &start = next.keys().min()?;
            let mut cycle = vec![start];
            let mut cur = start;
            loop {
                let nx = *next.get(&cur)?;
                if nx == start {
                    break;
                }
                cycle.push(nx);
                cur = nx;
                if cycle.len() > next.len() {
                    return None;
                }
            }
            if cycle.len() != next.len() {
                return None;
            }
            let poly: Vec<usize> = cycle.into_iter().filter(|&v| keep(v)).collect();
            if poly.len() < 3 {
                return None;
            }
            // fan from the newest vertex (qh_triangulate_facet's apex)
            let (ai, _) = poly
                .iter()
                .enumerate()
                .max_by_key(|(_, &v)| g.vertex_id[v])?;
            let m = poly.len();
            for k in 1..m - 1 {
                let b = poly[(ai + k) % m];
                let c = poly[(ai + k + 1) % m];
                out_facets.push(Facet::from_outward([poly[ai], b, c], |v| {
                    g.vertex_id[v] as usize
                }));
            }
        }
        let vertices: Vec<usize> = g.vertices.iter().copied().filter(|&v| keep(v)).collect();
        Some(Graph {
            vertices,
            facets: out_facets,
            vertex_id: g.vertex_id.clone(),
            vertex_facets: None,
        })
    }
}

/// `MakePolygons`: hull triangles grouped by rounded normal angles (in the file frame), each
/// group traced into boundary paths; the groups are visited in the order of libc++'s
/// `std::unordered_map<std::pair<double, double>, MeshPolygon, PairHash>`.
mod polygons {
    use super::{cross, dot, sub, P3};

    const ANGLE_TOL: f64 = 0.01;
    const NONE: usize = usize::MAX;

    /// `MeshPolygonKey`: rounded azimuthal and polar angles of the face normal.
    fn key(v1: &P3, v2: &P3, v3: &P3) -> Option<(f64, f64)> {
        let mut n = cross(&sub(v2, v1), &sub(v3, v1));
        let norm = dot(&n, &n).sqrt();
        if norm < super::MINVAL {
            return None;
        }
        for c in n.iter_mut() {
            *c = *c / norm + 0.0;
        }
        if n[2].abs() > 1.0 - 1e-7 {
            let rphi = if n[2] < 0.0 {
                (std::f64::consts::PI / ANGLE_TOL).round()
            } else {
                0.0
            };
            return Some((0.0, rphi));
        }
        Some((
            (n[1].atan2(n[0]) / ANGLE_TOL).round(),
            (n[2].acos() / ANGLE_TOL).round(),
        ))
    }

    /// `MeshPolygon`: boundary edges with island bookkeeping.
    struct MeshPolygon {
        edges: Vec<(usize, usize)>,
        islands: Vec<usize>,
        nisland: usize,
    }

    impl MeshPolygon {
        fn new(a: usize, b: usize, c: usize) -> Self {
            MeshPolygon {
                edges: vec![(a, b), (b, c), (c, a)],
                islands: vec![0, 0, 0],
                nisland: 1,
            }
        }

        fn combine(&mut self, i1: &mut usize, i2: &mut usize) {
            if *i2 < *i1 {
                std::mem::swap(i1, i2);
            }
            for k in self.islands.iter_mut() {
                if *k == *i2 {
                    *k = *i1;
                } else if *k > *i2 {
                    *k -= 1;
                }
            }
        }

        fn insert(&mut self, v1: usize, v2: usize, v3: usize) {
            let (mut add1, mut add2, mut add3) = (true, true, true);
            let mut island: Option<usize> = None;
            if let Some(i) = self.edges.iter().position(|e| *e == (v2, v1)) {
                add1 = false;
                island = Some(self.islands[i]);
                self.edges.remove(i);
                self.islands.remove(i);
            }
            for (edge, add) in [((v3, v2), &mut add2), ((v1, v3), &mut add3)] {
                if let Some(i) = self.edges.iter().position(|e| *e == edge) {
                    let mut other = self.islands[i];
                    match island {
                        None => island = Some(other),
                        Some(mut isl) if isl != other => {
                            self.nisland = self.nisland.saturating_sub(1);
                            self.combine(&mut isl, &mut other);
                            island = Some(isl);
                        }
                        _ => {}
                    }
                    *add = false;
                    self.edges.remove(i);
                    self.islands.remove(i);
                }
            }
            let island = match island {
                Some(i) => i,
                None => {
                    self.nisland += 1;
                    self.nisland - 1
                }
            };
            for (e, add) in [((v1, v2), add1), ((v2, v3), add2), ((v3, v1), add3)] {
                if add {
                    self.edges.push(e);
                    self.islands.push(island);
                }
            }
        }

        /// `MeshPolygon::Paths` (4.0.0 traces every island, also when three edges remain; the
        /// older storage-order shortcut for three edges could reverse a triangle).
        fn paths(&self) -> Vec<Vec<usize>> {
            let mut paths = Vec::new();
            for i in 0..self.nisland {
                let mut path = Vec::new();
                for (j, e) in self.edges.iter().enumerate() {
                    if self.islands[j] == i {
                        path.push(e.0);
                        path.push(e.1);
                        break;
                    }
                }
                if path.is_empty() {
                    continue;
                }
                let mut next = path[path.len() - 1];
                for _ in 0..self.edges.len() {
                    let mut finished = false;
                    for k in 1..self.edges.len() {
                        if self.islands[k] == i && self.edges[k].0 == next {
                            next = self.edges[k].1;
                            if next == path[0] {
                                paths.push(path.clone());
                                finished = true;
                                break;
                            }
                            path.push(next);
                            break;
                        }
                    }
                    if finished {
                        break;
                    }
                }
            }
            paths
        }
    }

    /// libc++ `std::hash<double>`: the bit pattern, 0 for both zeros.
    fn hash_double(x: f64) -> u64 {
        if x == 0.0 {
            0
        } else {
            x.to_bits()
        }
    }

    /// The key's hash: a boost-style `hash_combine` of the two `std::hash<double>` values
    /// (found to reproduce MuJoCo 4.0.0's polygon order).
    fn hash_key(k: (f64, f64)) -> u64 {
        let mut seed: u64 = 0;
        for h in [hash_double(k.0), hash_double(k.1)] {
            seed ^= h
                .wrapping_add(0x9e37_79b9)
                .wrapping_add(seed << 6)
                .wrapping_add(seed >> 2);
        }
        seed
    }

    fn constrain(h: u64, bc: usize) -> usize {
        let bc64 = bc as u64;
        if bc & (bc - 1) == 0 {
            (h & (bc64 - 1)) as usize
        } else if h < bc64 {
            h as usize
        } else {
            (h % bc64) as usize
        }
    }

    #[allow(clippy::manual_is_multiple_of)] // MSRV 1.85
    fn is_prime(n: usize) -> bool {
        if n < 2 {
            return false;
        }
        let mut d = 2;
        while d * d <= n {
            if n % d == 0 {
                return false;
            }
            d += 1;
        }
        true
    }

    fn next_prime(mut n: usize) -> usize {
        while !is_prime(n) {
            n += 1;
        }
        n
    }

    /// The node order of a libc++ `unordered_map` with unique keys after the given insertions
    /// (each key inserted once, in order): returns node indices in iteration order.
    fn libcxx_order(hashes: &[u64]) -> Vec<usize> {
        const BB: usize = usize::MAX - 1; // before-begin node
        let n = hashes.len();
        let mut next = vec![NONE; n];
        let mut first = NONE; // before-begin's next
        let mut buckets: Vec<usize> = Vec::new();
        let mut bc = 0usize;
        let get_next =
            |next: &Vec<usize>, first: usize, x: usize| if x == BB { first } else { next[x] };
        for (node, &h) in hashes.iter().enumerate() {
            let size = node;
            if bc == 0 || (size + 1) as f32 > bc as f32 {
                let is_pow2 = bc > 2 && bc & (bc - 1) == 0;
                let want = ((size + 1) as f32).ceil() as usize;
                let mut nbc = (2 * bc + usize::from(!is_pow2)).max(want);
                if nbc == 1 {
                    nbc = 2;
                } else if nbc & (nbc - 1) != 0 {
                    nbc = next_prime(nbc);
                }
                if nbc > bc {
                    // __do_rehash
                    buckets = vec![NONE; nbc];
                    bc = nbc;
                    let mut pp = BB;
                    let mut cp = first;
                    if cp != NONE {
                        let mut chash = constrain(hashes[cp], bc);
                        buckets[chash] = pp;
                        let mut phash = chash;
                        pp = cp;
                        cp = next[cp];
                        while cp != NONE {
                            chash = constrain(hashes[cp], bc);
                            if chash == phash {
                                pp = cp;
                            } else if buckets[chash] == NONE {
                                buckets[chash] = pp;
                                pp = cp;
                                phash = chash;
                            } else {
                                let np = cp;
                                // pp->next = np->next
                                let after = next[np];
                                if pp == BB {
                                    first = after;
                                } else {
                                    next[pp] = after;
                                }
                                let b = buckets[chash];
                                next[np] = get_next(&next, first, b);
                                if b == BB {
                                    first = cp;
                                } else {
                                    next[b] = cp;
                                }
                            }
                            cp = if pp == BB { first } else { next[pp] };
                        }
                    }
                }
            }
            let chash = constrain(h, bc);
            let pn = buckets[chash];
            if pn == NONE {
                next[node] = first;
                first = node;
                buckets[chash] = BB;
                if next[node] != NONE {
                    let b = constrain(hashes[next[node]], bc);
                    buckets[b] = node;
                }
            } else {
                next[node] = get_next(&next, first, pn);
                if pn == BB {
                    first = node;
                } else {
                    next[pn] = node;
                }
            }
        }
        let mut order = Vec::with_capacity(n);
        let mut x = first;
        while x != NONE && order.len() < n {
            order.push(x);
            x = next[x];
        }
        order
    }

    /// The polygons (paths of point ids) in MuJoCo's order.
    pub(super) fn make(pts: &[P3], faces: &[[usize; 3]]) -> Vec<Vec<usize>> {
        let mut keys: Vec<(f64, f64)> = Vec::new();
        let mut index: std::collections::HashMap<(u64, u64), usize> = Default::default();
        let mut polys: Vec<MeshPolygon> = Vec::new();
        for f in faces {
            let Some(k) = key(&pts[f[0]], &pts[f[1]], &pts[f[2]]) else {
                continue;
            };
            // std::pair<double, double> equality: -0.0 == 0.0
            let bits = ((k.0 + 0.0).to_bits(), (k.1 + 0.0).to_bits());
            match index.get(&bits) {
                Some(&i) => polys[i].insert(f[0], f[1], f[2]),
                None => {
                    index.insert(bits, keys.len());
                    keys.push(k);
                    polys.push(MeshPolygon::new(f[0], f[1], f[2]));
                }
            }
        }
        let hashes: Vec<u64> = keys.iter().map(|k| hash_key(*k)).collect();
        let mut out = Vec::new();
        for i in libcxx_order(&hashes) {
            for path in polys[i].paths() {
                if path.len() >= 3 {
                    out.push(path);
                }
            }
        }
        out
    }
}
