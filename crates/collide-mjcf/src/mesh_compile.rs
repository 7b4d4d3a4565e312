//! MuJoCo's mesh compilation (`mjCMesh::Process` in `src/user/user_mesh.cc`, 4.0.0 behaviour).
//!
//! Steps, in MuJoCo's order:
//!
//! 1. Vertices are rounded to `f32` (MuJoCo stores user and file vertices as `float`) and must be
//!    finite; at least 4 are required; face indices must exist. Vertices are **not** merged here
//!    (4.0.0 merges only in the STL decoder, see [`crate::mesh_file`]).
//! 2. With `inertia="exact"`, a directed edge used twice (inconsistent winding) is an error.
//! 3. The convex hull is computed when there are no faces (the hull becomes the faces) or for
//!    `inertia="convex"`. Colocated, collinear or coplanar vertex sets (MuJoCo's pre-check) and
//!    sets qhull cannot build are errors. (MuJoCo also builds, and so validates, the hull of
//!    every mesh used by a collidable geom; the compiler does that when it builds the collision
//!    hulls.) The triangles
//!    are qhull's, from the emulation in [`crate::mesh_hull`] on the file vertices, in qhull's
//!    order and orientation: the order of the sums below, and so the last bits of the mesh
//!    frame, depend on it.
//! 4. A negative `scale` determinant swaps the winding of every face.
//! 5. Vertices are transformed: `v ← scale ⊙ (R(refquat)ᵀ (v − refpos))`, with the compiler's
//!    arithmetic (`compile_math`: `refquat` divided by its norm, its matrix summed left
//!    to right).
//! 6. Area-weighted face centroid `c_f` (surface area < `mjMINVAL` is an error); then volume and
//!    centre of mass by pyramids from `c_f` (volume `(c − c_f)·n A / 3` per triangle, absolute
//!    value in the legacy mode, hull triangles in the convex mode; the shell mode uses areas).
//! 7. Inertia tensor by pyramids from the centre of mass (this pass also recomputes the volume
//!    that is kept: in the legacy mode, a non-convex mesh gets a different volume than in 6),
//!    the compiler's `eig3` (Jacobi on a quaternion, relative tolerance 1e-7) for the principal
//!    moments and frame (bit-identical to MuJoCo 4.0.0 on the corpus), and the
//!    checks "eigenvalues positive" and "A + B ≥ C".
//! 8. Equivalent inertia box `boxsz`, vertices moved into the principal frame
//!    `v ← R(q)ᵀ (v − com)`, `aamm` over all vertices (in `f64`), vertices rounded to `f32`.

// NaN-aware comparisons (`!(x >= y)`) are deliberate throughout.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

use crate::compile_math as cm;
use crate::mesh_file::RawMesh;
use collide::math::MINVAL;
use collide::Mesh;
use glam::{DQuat, DVec3};

/// Mass-property mode of a mesh (`mesh/@inertia`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum MeshInertia {
    /// MuJoCo's default: pyramid volumes are taken in absolute value.
    #[default]
    Legacy,
    /// Signed pyramid volumes; requires consistently oriented faces.
    Exact,
    /// Volume of the convex hull.
    Convex,
    /// Mass on the surface (areas instead of volumes).
    Shell,
}

/// Mesh asset attributes that affect the compiled geometry.
#[derive(Clone, Debug)]
pub struct MeshSettings {
    /// `mesh/@scale`, applied last.
    pub scale: DVec3,
    /// `mesh/@refpos`, subtracted first.
    pub refpos: DVec3,
    /// `mesh/@refquat` as written, inverse-applied after `refpos` (normalized by
    /// [`compile_mesh`] the way MuJoCo's compiler does).
    pub refquat: DQuat,
    /// `mesh/@inertia`.
    pub inertia: MeshInertia,
    /// `mesh/@maxhullvert` (`None` = unlimited, MuJoCo's -1).
    pub maxhullvert: Option<usize>,
}

impl Default for MeshSettings {
    fn default() -> Self {
        Self {
            scale: DVec3::ONE,
            refpos: DVec3::ZERO,
            refquat: DQuat::IDENTITY,
            inertia: MeshInertia::Legacy,
            maxhullvert: None,
        }
    }
}

type V3 = [f64; 3];

/// MuJoCo's mesh processing: validate, transform, volume/centre of mass/inertia, principal
/// frame, vertices moved into it and rounded to `f32`, `aamm`, `boxsz`, volume, principal
/// inertia (per unit density).
///
/// Errors are messages naming the mesh and the problem, modelled on MuJoCo's.
pub fn compile_mesh(name: &str, raw: RawMesh, settings: &MeshSettings) -> Result<Mesh, String> {
    let fail = |msg: String| Err(format!("mesh '{name}': {msg}"));
    let inertia = settings.inertia;

    // ---- settings
    if !settings.scale.is_finite() {
        return fail(format!("scale {} is not finite", settings.scale));
    }
    if !settings.refpos.is_finite() {
        return fail(format!("refpos {} is not finite", settings.refpos));
    }
    let rq = settings.refquat;
    let rq = [rq.w, rq.x, rq.y, rq.z];
    if rq.iter().any(|c| !c.is_finite()) {
        return fail("refquat is not finite".into());
    }
    if let Some(n) = settings.maxhullvert {
        if n < 4 {
            return fail(format!("maxhullvert must be larger than 3, got {n}"));
        }
    }

    // ---- vertices (stored as float by MuJoCo) and faces
    let nvert = raw.vert.len();
    if nvert < 4 {
        return fail(format!("at least 4 vertices required, got {nvert}"));
    }
    if nvert > i32::MAX as usize {
        return fail(format!("too many vertices ({nvert})"));
    }
    let mut vert: Vec<V3> = Vec::with_capacity(nvert);
    for (i, v) in raw.vert.iter().enumerate() {
        let r = [v.x as f32 as f64, v.y as f32 as f64, v.z as f32 as f64];
        if r.iter().any(|c| !c.is_finite()) {
            return fail(format!("vertex coordinate {i} is not finite ({v})"));
        }
        vert.push(r);
    }
    let mut face: Vec<[usize; 3]> = Vec::with_capacity(raw.face.len());
    for (i, f) in raw.face.iter().enumerate() {
        for &k in f {
            if k as usize >= nvert {
                return fail(format!(
                    "in face {i}, vertex index {k} does not exist ({nvert} vertices)"
                ));
            }
        }
        face.push([f[0] as usize, f[1] as usize, f[2] as usize]);
    }

    // ---- winding consistency (fatal only for exact inertia)
    if inertia == MeshInertia::Exact {
        let mut halfedge: Vec<(usize, usize)> = Vec::with_capacity(3 * face.len());
        for f in &face {
            let (area, _, _) = triangle(&vert[f[0]], &vert[f[1]], &vert[f[2]]);
            if area > MINVAL.sqrt() {
                halfedge.extend([(f[0], f[1]), (f[1], f[2]), (f[2], f[0])]);
            }
        }
        halfedge.sort_unstable();
        if let Some(w) = halfedge.windows(2).find(|w| w[0] == w[1]) {
            return fail(format!(
                "faces have inconsistent orientation. Please check the faces containing the \
                 vertices {} and {}.",
                w[0].0 + 1,
                w[0].1 + 1
            ));
        }
    }

    // ---- transformations: refpos, then refquat, then scale (the file vertices kept for qhull)
    let needs_hull = face.is_empty() || inertia == MeshInertia::Convex;
    let file_vert = if needs_hull { vert.clone() } else { Vec::new() };
    if let Err(e) = apply_transformations(&mut vert, settings) {
        return fail(e);
    }
    let sc = settings.scale.to_array();
    if vert.iter().flatten().any(|c| !c.is_finite()) {
        return fail("transformed vertices are not finite (scale too large?)".into());
    }

    // ---- convex hull: needed without faces and for convex inertia. MuJoCo takes qhull's
    // triangles on the file vertices (their order fixes the rounding of the mass properties),
    // after its pre-check for colocated, collinear and coplanar sets, and flips them with the
    // other faces for a mirroring scale.
    let mirrored = sc[0] * sc[1] * sc[2] <= 0.0;
    let hull = if needs_hull {
        match crate::mesh_hull::qhull_triangles(&file_vert, settings.maxhullvert) {
            Ok(mut t) => {
                if mirrored {
                    t.iter_mut().for_each(|f| f.swap(1, 2));
                }
                Some(t)
            }
            Err(e) => return fail(e.message()),
        }
    } else {
        None
    };
    let from_hull = face.is_empty();
    if from_hull {
        face = hull.clone().unwrap_or_default();
    } else if mirrored {
        // restore outward winding
        for f in face.iter_mut() {
            f.swap(1, 2);
        }
    }
    let mass_faces: &[[usize; 3]] = match (inertia, &hull) {
        (MeshInertia::Convex, Some(h)) => h,
        _ => &face,
    };

    // ---- area-weighted centroid of the faces
    let mut facecen = [0.0; 3];
    let mut total_area = 0.0;
    for f in &face {
        let (area, _, center) = triangle(&vert[f[0]], &vert[f[1]], &vert[f[2]]);
        for k in 0..3 {
            facecen[k] += area * center[k];
        }
        total_area += area;
    }
    if total_area >= MINVAL {
        for c in facecen.iter_mut() {
            *c /= total_area;
        }
    }
    if !(total_area >= MINVAL) {
        return fail("mesh surface area is too small".into());
    }

    // ---- volume (or area) and centre of mass
    let mut com = [0.0; 3];
    if inertia == MeshInertia::Shell {
        let mut surface = 0.0;
        for f in &face {
            let (area, _, center) = triangle(&vert[f[0]], &vert[f[1]], &vert[f[2]]);
            surface += area;
            for k in 0..3 {
                com[k] += area * (center[k] * 3.0 / 4.0 + facecen[k] / 4.0);
            }
        }
        if surface >= MINVAL {
            for c in com.iter_mut() {
                *c /= surface;
            }
        }
        if !(surface >= MINVAL) {
            return fail("mesh surface area is too small".into());
        }
    } else {
        let mut volume = 0.0;
        for f in mass_faces {
            let (area, normal, center) = triangle(&vert[f[0]], &vert[f[1]], &vert[f[2]]);
            let vec = [
                center[0] - facecen[0],
                center[1] - facecen[1],
                center[2] - facecen[2],
            ];
            let mut vol = dot(&vec, &normal) * area / 3.0;
            if inertia == MeshInertia::Legacy {
                vol = vol.abs();
            }
            volume += vol;
            for k in 0..3 {
                com[k] += vol * (center[k] * 3.0 / 4.0 + facecen[k] / 4.0);
            }
        }
        if volume >= MINVAL {
            for c in com.iter_mut() {
                *c /= volume;
            }
        }
        if !(volume >= MINVAL) {
            if volume < 0.0 {
                return fail("mesh volume is negative (misoriented triangles)".into());
            }
            return fail("mesh volume is too small. Try setting inertia to shell".into());
        }
    }

    // ---- inertia about the centre of mass; recomputes the volume (or area)
    let centered: Vec<V3> = vert
        .iter()
        .map(|v| [v[0] - com[0], v[1] - com[1], v[2] - com[2]])
        .collect();
    const K: [[usize; 2]; 6] = [[0, 0], [1, 1], [2, 2], [0, 1], [0, 2], [1, 2]];
    let mut p = [0.0; 6];
    let mut total = 0.0;
    let ctri = if inertia == MeshInertia::Shell {
        12.0
    } else {
        20.0
    };
    for f in mass_faces {
        let (d, e, g) = (&centered[f[0]], &centered[f[1]], &centered[f[2]]);
        let (area, normal, center) = triangle(d, e, g);
        let mut vol = if inertia == MeshInertia::Shell {
            area
        } else {
            dot(&center, &normal) * area / 3.0
        };
        if inertia == MeshInertia::Legacy {
            vol = vol.abs();
        }
        total += vol;
        for (j, &[a, b]) in K.iter().enumerate() {
            p[j] += vol / ctri
                * (2.0 * (d[a] * d[b] + e[a] * e[b] + g[a] * g[b])
                    + d[a] * e[b]
                    + d[b] * e[a]
                    + d[a] * g[b]
                    + d[b] * g[a]
                    + e[a] * g[b]
                    + e[b] * g[a]);
        }
    }
    let inert = [p[1] + p[2], p[0] + p[2], p[0] + p[1], -p[3], -p[4], -p[5]];
    let full = [
        inert[0], inert[3], inert[4], inert[3], inert[1], inert[5], inert[4], inert[5], inert[2],
    ];
    if !(total >= MINVAL) || !inert.iter().all(|c| c.is_finite()) {
        return fail("mesh volume is too small. Try setting inertia to shell".into());
    }
    let (ev, q) = cm::eig3(&full, cm::MESH_EIG_RELTOL);
    let quat = cm::from_wxyz(q);
    let eigval = DVec3::from_array(ev);
    if !(ev[2] > 0.0) {
        return fail("eigenvalue of mesh inertia must be positive".into());
    }
    const RTOL: f64 = 1e-6;
    const ATOL: f64 = 1e-9;
    if ev[0] + ev[1] < ev[2] * (1.0 - RTOL) - ATOL
        || ev[0] + ev[2] < ev[1] * (1.0 - RTOL) - ATOL
        || ev[1] + ev[2] < ev[0] * (1.0 - RTOL) - ATOL
    {
        return fail("eigenvalues of mesh inertia violate A + B >= C".into());
    }

    // ---- equivalent inertia box (clamped at 0 where MuJoCo's tolerance would give a NaN)
    let boxsz = DVec3::new(
        0.5 * (6.0 * (ev[1] + ev[2] - ev[0]) / total).max(0.0).sqrt(),
        0.5 * (6.0 * (ev[0] + ev[2] - ev[1]) / total).max(0.0).sqrt(),
        0.5 * (6.0 * (ev[0] + ev[1] - ev[2]) / total).max(0.0).sqrt(),
    );

    // ---- vertices into the principal frame, aamm in double, then float
    let m = cm::quat_mat(cm::conj(q));
    let mut aamm: [f64; 6] = [1e10, 1e10, 1e10, -1e10, -1e10, -1e10];
    let mut out = Vec::with_capacity(nvert);
    for v in &centered {
        let r = cm::mat_vec(&m, *v);
        for k in 0..3 {
            aamm[k] = aamm[k].min(r[k]);
            aamm[k + 3] = aamm[k + 3].max(r[k]);
        }
        out.push(DVec3::new(
            r[0] as f32 as f64,
            r[1] as f32 as f64,
            r[2] as f32 as f64,
        ));
    }

    let finite = com.iter().all(|c| c.is_finite())
        && quat.is_finite()
        && aamm.iter().all(|c| c.is_finite())
        && boxsz.is_finite()
        && total.is_finite()
        && eigval.is_finite()
        && out.iter().all(|v| v.is_finite());
    if !finite {
        return fail("numerical overflow in mass properties (coordinates too large)".into());
    }

    Ok(Mesh {
        name: name.to_string(),
        vert: out,
        face: face
            .iter()
            .map(|f| [f[0] as u32, f[1] as u32, f[2] as u32])
            .collect(),
        pos: DVec3::from_array(com),
        quat,
        aamm,
        boxsz,
        volume: total,
        inertia: eigval,
        hull: None,
        face_bvh: None,
    })
}

/// MuJoCo's `ApplyTransformations`: `v ← scale ⊙ (R(refquat)ᵀ (v − refpos))`, each step
/// skipped when it is the identity; `refquat` is normalized the compiler's way first. Errors
/// on a zero `refquat`.
pub(crate) fn apply_transformations(
    vert: &mut [V3],
    settings: &MeshSettings,
) -> Result<(), String> {
    let rp = settings.refpos.to_array();
    if rp != [0.0; 3] {
        for v in vert.iter_mut() {
            for k in 0..3 {
                v[k] -= rp[k];
            }
        }
    }
    let mut rq = cm::wxyz(settings.refquat);
    if rq != [1.0, 0.0, 0.0, 0.0] {
        if cm::normalize(&mut rq) == 0.0 {
            return Err("refquat has zero norm".into());
        }
        let m = cm::quat_mat(rq);
        for v in vert.iter_mut() {
            *v = cm::mat_t_vec(&m, *v);
        }
    }
    let sc = settings.scale.to_array();
    if sc != [1.0; 3] {
        for v in vert.iter_mut() {
            for k in 0..3 {
                v[k] *= sc[k];
            }
        }
    }
    Ok(())
}

/// MuJoCo's `triangle()`: area, unit normal `(v2−v1)×(v3−v1)` and centroid. Triangles with a
/// cross product shorter than `mjMINVAL` have zero area (and an unnormalized normal).
fn triangle(v1: &V3, v2: &V3, v3: &V3) -> (f64, V3, V3) {
    let center = [
        (v1[0] + v2[0] + v3[0]) / 3.0,
        (v1[1] + v2[1] + v3[1]) / 3.0,
        (v1[2] + v2[2] + v3[2]) / 3.0,
    ];
    let b = [v2[0] - v1[0], v2[1] - v1[1], v2[2] - v1[2]];
    let c = [v3[0] - v1[0], v3[1] - v1[1], v3[2] - v1[2]];
    let mut n = [
        b[1] * c[2] - b[2] * c[1],
        b[2] * c[0] - b[0] * c[2],
        b[0] * c[1] - b[1] * c[0],
    ];
    let len = dot(&n, &n).sqrt();
    if !(len >= MINVAL) {
        return (0.0, n, center);
    }
    for x in n.iter_mut() {
        *x /= len;
    }
    (0.5 * len, n, center)
}

#[inline]
fn dot(a: &V3, b: &V3) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// A 3-D convex hull (quickhull with conflict lists) in `f64`, used where MuJoCo calls qhull.
///
/// The triangles are outward. Coplanar hull facets are triangulated arbitrarily (qhull's `Qt`
/// also triangulates, possibly differently), which changes the face list but not the volume or
/// inertia beyond rounding.
pub mod hull {
    use glam::DVec3;
    use std::collections::HashMap;

    /// Why a point set has no 3-D hull.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub enum Degenerate {
        /// All points coincide.
        Colocated,
        /// All points lie on a line.
        Collinear,
        /// All points lie in a plane.
        Coplanar,
        /// The construction hit an inconsistent (non-manifold) state.
        Failed,
    }

    impl Degenerate {
        /// What the vertex set is and MuJoCo's advice (`None` for [`Degenerate::Failed`]).
        pub fn words(self) -> Option<(&'static str, &'static str)> {
            match self {
                Degenerate::Colocated => Some(("colocated", "a small sphere")),
                Degenerate::Collinear => Some(("collinear", "a thin capsule")),
                Degenerate::Coplanar => {
                    Some(("coplanar", "a primitive geom type (plane or thin box)"))
                }
                Degenerate::Failed => None,
            }
        }

        /// Message in MuJoCo's words.
        pub fn message(self) -> String {
            match self.words() {
                Some((what, advice)) => format!(
                    "mesh has {what} vertices, cannot compute convex hull. Consider using \
                     {advice} instead"
                ),
                None => "qhull error (could not construct the convex hull)".into(),
            }
        }
    }

    struct Face {
        v: [usize; 3],
        n: DVec3,
        alive: bool,
        outside: Vec<usize>,
    }

    fn make_face(p: &[DVec3], v: [usize; 3]) -> Face {
        let n = (p[v[1]] - p[v[0]]).cross(p[v[2]] - p[v[0]]);
        let len = n.length();
        let n = if len > 0.0 && len.is_finite() {
            n / len
        } else {
            DVec3::ZERO
        };
        Face {
            v,
            n,
            alive: true,
            outside: Vec::new(),
        }
    }

    #[inline]
    fn dist(p: &[DVec3], f: &Face, q: usize) -> f64 {
        f.n.dot(p[q] - p[f.v[0]])
    }

    /// The alive face from `faces[from..]` that `q` is furthest above (by more than `eps`).
    fn best_face(p: &[DVec3], faces: &[Face], from: usize, q: usize, eps: f64) -> Option<usize> {
        let mut best = None;
        let mut far = eps;
        for (fi, f) in faces.iter().enumerate().skip(from) {
            if !f.alive {
                continue;
            }
            let d = dist(p, f, q);
            if d > far {
                (best, far) = (Some(fi), d);
            }
        }
        best
    }

    /// The furthest point of a face's outside set and its distance.
    fn furthest(p: &[DVec3], f: &Face) -> Option<(usize, f64)> {
        let mut best: Option<(usize, f64)> = None;
        for &q in &f.outside {
            let d = dist(p, f, q);
            if best.is_none_or(|b| d > b.1) {
                best = Some((q, d));
            }
        }
        best
    }

    /// Convex hull of `p` (indices into `p`), stopping after `maxvert` hull vertices if given.
    pub fn convex_hull(p: &[DVec3], maxvert: Option<usize>) -> Result<Vec<[usize; 3]>, Degenerate> {
        let n = p.len();
        if n < 4 {
            return Err(Degenerate::Coplanar);
        }
        // work on points scaled by a power of two (exact) so that squared lengths cannot
        // overflow or underflow
        let amax = p.iter().fold(0.0f64, |m, q| m.max(q.abs().max_element()));
        if !amax.is_finite() {
            return Err(Degenerate::Failed);
        }
        if amax == 0.0 {
            return Err(Degenerate::Colocated);
        }
        let inv = 2f64.powi((-amax.log2().ceil()).clamp(-1000.0, 1000.0) as i32);
        let scaled: Vec<DVec3> = p.iter().map(|q| *q * inv).collect();
        let p = &scaled[..];
        let (mut lo, mut hi) = (p[0], p[0]);
        for q in p {
            lo = lo.min(*q);
            hi = hi.max(*q);
        }
        let extent = (hi - lo).length();
        if !extent.is_finite() {
            return Err(Degenerate::Failed);
        }
        let scale = lo.abs().max(hi.abs()).element_sum().max(extent);
        let eps = scale * 1e-11;
        if extent <= eps {
            return Err(Degenerate::Colocated);
        }

        // initial simplex as qhull's `qh_maxsimplex` picks it: the points with the smallest and
        // largest x, then the axis-extreme points spanning the largest triangle and the largest
        // tetrahedron (any point if the extremes are degenerate)
        let arg = |k: usize, larger: bool| {
            let mut best = 0;
            for q in 1..n {
                let better = if larger {
                    p[q][k] > p[best][k]
                } else {
                    p[q][k] < p[best][k]
                };
                if better {
                    best = q;
                }
            }
            best
        };
        let mut ext: Vec<usize> = Vec::with_capacity(6);
        for k in 0..3 {
            for larger in [false, true] {
                let q = arg(k, larger);
                if !ext.contains(&q) {
                    ext.push(q);
                }
            }
        }
        let (mut i0, mut i1) = (arg(0, false), arg(0, true));
        if p[i0].distance(p[i1]) <= eps {
            let mut best = -1.0;
            for &a in &ext {
                for &b in &ext {
                    let d = p[a].distance_squared(p[b]);
                    if d > best {
                        (i0, i1, best) = (a, b, d);
                    }
                }
            }
        }
        let u = (p[i1] - p[i0]).normalize();
        let line_dist = |q: usize| (p[q] - p[i0]).cross(u).length();
        let pick = |cands: &mut dyn Iterator<Item = usize>, f: &dyn Fn(usize) -> f64| {
            let mut best = (usize::MAX, -1.0);
            for q in cands {
                let d = f(q);
                if d > best.1 {
                    best = (q, d);
                }
            }
            best
        };
        let (mut i2, mut d2) = pick(
            &mut ext.iter().copied().filter(|&q| q != i0 && q != i1),
            &line_dist,
        );
        if !(d2 > eps) {
            (i2, d2) = pick(&mut (0..n), &line_dist);
        }
        if !(d2 > eps) || i2 == usize::MAX {
            return Err(Degenerate::Collinear);
        }
        let pn = (p[i1] - p[i0]).cross(p[i2] - p[i0]).normalize();
        let plane_dist = |q: usize| pn.dot(p[q] - p[i0]).abs();
        let (mut i3, mut d3) = pick(
            &mut ext
                .iter()
                .copied()
                .filter(|&q| q != i0 && q != i1 && q != i2),
            &plane_dist,
        );
        if !(d3 > eps) {
            (i3, d3) = pick(&mut (0..n), &plane_dist);
        }
        if !(d3 > eps) || i3 == usize::MAX {
            return Err(Degenerate::Coplanar);
        }

        let mut faces: Vec<Face> = Vec::new();
        let simplex = [i0, i1, i2, i3];
        for (tri, opp) in [
            ([i0, i1, i2], i3),
            ([i0, i1, i3], i2),
            ([i0, i2, i3], i1),
            ([i1, i2, i3], i0),
        ] {
            let mut f = make_face(p, tri);
            if dist(p, &f, opp) > 0.0 {
                f = make_face(p, [tri[0], tri[2], tri[1]]);
            }
            faces.push(f);
        }
        let mut edges: HashMap<(usize, usize), usize> = HashMap::new();
        for (fi, f) in faces.iter().enumerate() {
            for k in 0..3 {
                edges.insert((f.v[k], f.v[(k + 1) % 3]), fi);
            }
        }
        for q in 0..n {
            if simplex.contains(&q) {
                continue;
            }
            if let Some(fi) = best_face(p, &faces, 0, q, eps) {
                faces[fi].outside.push(q);
            }
        }

        let mut nvert = 4usize;
        let mut cursor = 0usize;
        let mut mark: Vec<u8> = Vec::new();
        loop {
            if maxvert.is_some_and(|m| nvert >= m) {
                break;
            }
            let (face_id, apex) = if maxvert.is_some() {
                // like qhull's Q9: the furthest of all the faces' furthest points
                let mut best: Option<(usize, usize, f64)> = None;
                for (fi, f) in faces.iter().enumerate() {
                    if !f.alive {
                        continue;
                    }
                    if let Some((q, d)) = furthest(p, f) {
                        if best.is_none_or(|b| d > b.2) {
                            best = Some((fi, q, d));
                        }
                    }
                }
                match best {
                    Some((fi, q, _)) => (fi, q),
                    None => break,
                }
            } else {
                if cursor >= faces.len() {
                    break;
                }
                if !faces[cursor].alive {
                    cursor += 1;
                    continue;
                }
                match furthest(p, &faces[cursor]) {
                    Some((q, _)) => (cursor, q),
                    None => {
                        cursor += 1;
                        continue;
                    }
                }
            };

            // visible region by flood fill from this face
            // mark: 0 = not examined, 1 = visible, 2 = examined and not visible
            mark.clear();
            mark.resize(faces.len(), 0);
            let mut visible = vec![face_id];
            mark[face_id] = 1;
            let mut s = 0;
            while s < visible.len() {
                let fi = visible[s];
                s += 1;
                let fv = faces[fi].v;
                for k in 0..3 {
                    let (a, b) = (fv[k], fv[(k + 1) % 3]);
                    let Some(&tw) = edges.get(&(b, a)) else {
                        return Err(Degenerate::Failed);
                    };
                    if mark[tw] != 0 {
                        continue;
                    }
                    if dist(p, &faces[tw], apex) > eps {
                        mark[tw] = 1;
                        visible.push(tw);
                    } else {
                        mark[tw] = 2;
                    }
                }
            }
            // horizon edges, orphaned points
            let mut horizon: Vec<(usize, usize)> = Vec::new();
            let mut orphans: Vec<usize> = Vec::new();
            for &fi in &visible {
                let fv = faces[fi].v;
                for k in 0..3 {
                    let (a, b) = (fv[k], fv[(k + 1) % 3]);
                    let tw = edges.get(&(b, a)).copied();
                    if tw.is_none_or(|t| mark[t] != 1) {
                        horizon.push((a, b));
                    }
                }
                orphans.append(&mut faces[fi].outside);
                faces[fi].alive = false;
            }
            for &fi in &visible {
                let fv = faces[fi].v;
                for k in 0..3 {
                    edges.remove(&(fv[k], fv[(k + 1) % 3]));
                }
            }
            let first_new = faces.len();
            for &(a, b) in &horizon {
                let fi = faces.len();
                faces.push(make_face(p, [a, b, apex]));
                for e in [(a, b), (b, apex), (apex, a)] {
                    if edges.insert(e, fi).is_some() {
                        return Err(Degenerate::Failed);
                    }
                }
            }
            nvert += 1;
            for q in orphans {
                if q == apex {
                    continue;
                }
                if let Some(fi) = best_face(p, &faces, first_new, q, eps) {
                    faces[fi].outside.push(q);
                }
            }
        }
        let hull: Vec<[usize; 3]> = faces.iter().filter(|f| f.alive).map(|f| f.v).collect();
        if hull.len() < 4 {
            return Err(Degenerate::Failed);
        }
        Ok(hull)
    }
}
