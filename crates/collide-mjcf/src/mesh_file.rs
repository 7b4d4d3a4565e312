//! Mesh file decoders: binary and ASCII STL, Wavefront OBJ and MuJoCo's binary `.msh`.
//!
//! The decoders reproduce what MuJoCo 4.0.0 hands to its mesh compiler:
//!
//! - **STL** (MuJoCo's `stl_decoder` plugin): binary only in MuJoCo; 1 to 200000 triangles, the
//!   exact size `84 + 50 n`, coordinates bounded by 2^30. Vertices are merged when their `f32`
//!   bit patterns are equal, numbered in order of first appearance. ASCII STL (which MuJoCo does
//!   not read) is accepted as an extension, with the same merging.
//! - **OBJ** (MuJoCo's `obj_decoder` plugin on tinyobjloader with `triangulate = true`): every
//!   `v` line is a vertex (no merging); only the faces of the *first shape* are used (shapes are
//!   separated by `o` and `g` lines); quads are split along the shorter diagonal (computed in
//!   `f32`, ties go to diagonal 1–3), larger polygons are ear-clipped as tinyobjloader does.
//! - **MSH**: `int32 nvertex, nnormal, ntexcoord, nface`, then `float32` vertices, normals,
//!   texture coordinates and `int32` faces, with an exact size check. No merging.
//!
//! Winding is left as in the file: the flip for a negative-determinant `scale` happens in
//! [`crate::mesh_compile::compile_mesh`], as in MuJoCo 4.0.0.
//!
//! No input can make these functions panic: every read is bounds-checked and sizes use checked
//! arithmetic.

use glam::DVec3;
use std::collections::HashMap;

/// Vertices and triangles as read from a file, in file coordinates (no transformation).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RawMesh {
    /// Vertex positions (values read as `f32` are exact in `f64`).
    pub vert: Vec<DVec3>,
    /// Triangles as indices into `vert`.
    pub face: Vec<[u32; 3]>,
}

/// MuJoCo's limit on the number of triangles in a binary STL file.
const STL_MAX_FACES: u32 = 200_000;

/// Decodes a mesh file by extension or content type: binary and ASCII STL (`.stl`), Wavefront
/// OBJ (`.obj`, polygons triangulated as MuJoCo does), MuJoCo `.msh`. `name` is the file name
/// (or a content type `model/stl`, `model/obj`, `model/vnd.mujoco.msh`) used for the format and
/// in messages. Without a known extension the format is guessed from the content.
pub fn decode_mesh(name: &str, bytes: &[u8]) -> Result<RawMesh, String> {
    match detect_format(name, bytes) {
        Some(Format::Stl) => decode_stl(name, bytes),
        Some(Format::Obj) => decode_obj(name, bytes),
        Some(Format::Msh) => decode_msh(name, bytes),
        None => Err(format!(
            "unknown or unsupported mesh file '{name}': expected extension .stl, .obj or .msh"
        )),
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    Stl,
    Obj,
    Msh,
}

fn detect_format(name: &str, bytes: &[u8]) -> Option<Format> {
    let lower = name.to_ascii_lowercase();
    match lower.as_str() {
        "model/stl" => return Some(Format::Stl),
        "model/obj" => return Some(Format::Obj),
        "model/vnd.mujoco.msh" => return Some(Format::Msh),
        _ => {}
    }
    if let Some(dot) = lower.rfind('.') {
        match &lower[dot + 1..] {
            "stl" => return Some(Format::Stl),
            "obj" => return Some(Format::Obj),
            "msh" => return Some(Format::Msh),
            _ => {}
        }
    }
    // sniff the content
    if binary_stl_count(bytes).is_some() {
        return Some(Format::Stl);
    }
    if msh_layout(bytes).is_ok() {
        return Some(Format::Msh);
    }
    let text = trim_ascii_start(bytes);
    if text.starts_with(b"solid") {
        return Some(Format::Stl);
    }
    if text
        .first()
        .is_some_and(|c| matches!(c, b'v' | b'f' | b'#' | b'o' | b'g' | b'm' | b'u'))
    {
        return Some(Format::Obj);
    }
    None
}

fn trim_ascii_start(b: &[u8]) -> &[u8] {
    let start = b
        .iter()
        .position(|c| !c.is_ascii_whitespace())
        .unwrap_or(b.len());
    &b[start..]
}

fn read_u32(bytes: &[u8], at: usize) -> Option<u32> {
    let s = bytes.get(at..at.checked_add(4)?)?;
    Some(u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
}

fn read_i32(bytes: &[u8], at: usize) -> Option<i32> {
    read_u32(bytes, at).map(|u| u as i32)
}

fn read_f32(bytes: &[u8], at: usize) -> Option<f32> {
    read_u32(bytes, at).map(f32::from_bits)
}

// ------------------------------------------------------------------------------------------------
// STL

/// Number of triangles if `bytes` is a well-formed binary STL (size exactly `84 + 50 n`, n ≥ 1).
fn binary_stl_count(bytes: &[u8]) -> Option<u32> {
    let n = read_u32(bytes, 80)?;
    let expect = (n as u64).checked_mul(50)?.checked_add(84)?;
    (n >= 1 && expect == bytes.len() as u64).then_some(n)
}

fn decode_stl(name: &str, bytes: &[u8]) -> Result<RawMesh, String> {
    if bytes.is_empty() {
        return Err(format!("STL file '{name}' is empty"));
    }
    if binary_stl_count(bytes).is_none() && trim_ascii_start(bytes).starts_with(b"solid") {
        return decode_ascii_stl(name, bytes);
    }
    if bytes.len() < 84 {
        return Err(format!(
            "invalid header in STL file '{name}': {} bytes, a binary STL needs at least 84",
            bytes.len()
        ));
    }
    let n = read_u32(bytes, 80).unwrap_or(0);
    if !(1..=STL_MAX_FACES).contains(&n) {
        return Err(format!(
            "number of faces should be between 1 and {STL_MAX_FACES} in STL file '{name}', \
             got {n}; perhaps this is an ASCII file?"
        ));
    }
    let expect = 84 + 50 * n as u64;
    if expect != bytes.len() as u64 {
        return Err(format!(
            "truncated binary STL '{name}': expected 84+50*{n} = {expect} bytes, got {}",
            bytes.len()
        ));
    }
    let mut builder = StlBuilder::default();
    for i in 0..n as usize {
        let mut tri = [[0f32; 3]; 3];
        for (j, v) in tri.iter_mut().enumerate() {
            for (k, c) in v.iter_mut().enumerate() {
                let at = 84 + 50 * i + 12 * (j + 1) + 4 * k;
                *c = read_f32(bytes, at)
                    .ok_or_else(|| format!("truncated binary STL '{name}' in triangle {i}"))?;
            }
        }
        builder.add(name, tri)?;
    }
    Ok(builder.finish())
}

fn decode_ascii_stl(name: &str, bytes: &[u8]) -> Result<RawMesh, String> {
    let mut tokens = bytes
        .split(|c| c.is_ascii_whitespace())
        .filter(|t| !t.is_empty());
    let mut builder = StlBuilder::default();
    let mut pending: Vec<[f32; 3]> = Vec::with_capacity(3);
    let mut nvertex = 0usize;
    while let Some(tok) = tokens.next() {
        if !tok.eq_ignore_ascii_case(b"vertex") {
            continue;
        }
        nvertex += 1;
        let mut v = [0f32; 3];
        for c in v.iter_mut() {
            let t = tokens.next().ok_or_else(|| {
                format!("ASCII STL '{name}': vertex {nvertex} has fewer than 3 coordinates")
            })?;
            *c = std::str::from_utf8(t)
                .ok()
                .and_then(|s| s.parse::<f32>().ok())
                .ok_or_else(|| {
                    format!(
                        "ASCII STL '{name}': invalid coordinate '{}' in vertex {nvertex}",
                        String::from_utf8_lossy(t)
                    )
                })?;
        }
        pending.push(v);
        if pending.len() == 3 {
            builder.add(name, [pending[0], pending[1], pending[2]])?;
            pending.clear();
        }
    }
    if !pending.is_empty() {
        return Err(format!(
            "ASCII STL '{name}': {nvertex} vertices is not a multiple of 3 (incomplete facet)"
        ));
    }
    if builder.face.is_empty() {
        return Err(format!("ASCII STL '{name}' contains no facets"));
    }
    Ok(builder.finish())
}

/// Merges vertices with identical `f32` bit patterns, in order of first appearance.
#[derive(Default)]
struct StlBuilder {
    map: HashMap<[u32; 3], u32>,
    vert: Vec<DVec3>,
    face: Vec<[u32; 3]>,
}

impl StlBuilder {
    fn add(&mut self, name: &str, tri: [[f32; 3]; 3]) -> Result<(), String> {
        const BOUND: f32 = 1_073_741_824.0; // 2^30
        let mut f = [0u32; 3];
        for (j, v) in tri.iter().enumerate() {
            if v.iter().any(|c| c.abs() > BOUND) {
                return Err(format!(
                    "vertex in STL file '{name}' exceeds maximum bounds (2^30)"
                ));
            }
            let key = [v[0].to_bits(), v[1].to_bits(), v[2].to_bits()];
            let next = self.vert.len() as u32;
            let id = *self.map.entry(key).or_insert(next);
            if id == next {
                self.vert
                    .push(DVec3::new(v[0] as f64, v[1] as f64, v[2] as f64));
            }
            f[j] = id;
        }
        self.face.push(f);
        Ok(())
    }

    fn finish(self) -> RawMesh {
        RawMesh {
            vert: self.vert,
            face: self.face,
        }
    }
}

// ------------------------------------------------------------------------------------------------
// MSH

struct MshLayout {
    nv: usize,
    nf: usize,
    vert_at: usize,
    face_at: usize,
}

fn msh_layout(bytes: &[u8]) -> Result<MshLayout, String> {
    if bytes.len() < 16 {
        return Err(format!(
            "missing header: {} bytes, need at least 16",
            bytes.len()
        ));
    }
    let nv = read_i32(bytes, 0).unwrap_or(-1);
    let nn = read_i32(bytes, 4).unwrap_or(-1);
    let nt = read_i32(bytes, 8).unwrap_or(-1);
    let nf = read_i32(bytes, 12).unwrap_or(-1);
    if nv < 4 || nf < 0 || nn < 0 || nt < 0 || (nn > 0 && nn != nv) || (nt > 0 && nt != nv) {
        return Err(format!(
            "invalid sizes (nvertex {nv}, nnormal {nn}, ntexcoord {nt}, nface {nf}): need \
             nvertex >= 4, nface >= 0, and nnormal, ntexcoord each 0 or nvertex"
        ));
    }
    let (nv, nn, nt, nf) = (nv as u64, nn as u64, nt as u64, nf as u64);
    // all counts are < 2^31, so these products cannot overflow u64
    let expect = 16 + 12 * nv + 12 * nn + 8 * nt + 12 * nf;
    if expect != bytes.len() as u64 {
        return Err(format!(
            "unexpected file size: expected 16+12*{nv}+12*{nn}+8*{nt}+12*{nf} = {expect} bytes, got {}",
            bytes.len()
        ));
    }
    let vert_at = 16usize;
    let face_at = (16 + 12 * nv + 12 * nn + 8 * nt) as usize;
    Ok(MshLayout {
        nv: nv as usize,
        nf: nf as usize,
        vert_at,
        face_at,
    })
}

fn decode_msh(name: &str, bytes: &[u8]) -> Result<RawMesh, String> {
    if bytes.is_empty() {
        return Err(format!("MSH file '{name}' is empty"));
    }
    let layout = msh_layout(bytes).map_err(|e| format!("MSH file '{name}': {e}"))?;
    let truncated = || format!("MSH file '{name}' is truncated");
    let mut vert = Vec::with_capacity(layout.nv);
    for i in 0..layout.nv {
        let at = layout.vert_at + 12 * i;
        let x = read_f32(bytes, at).ok_or_else(truncated)?;
        let y = read_f32(bytes, at + 4).ok_or_else(truncated)?;
        let z = read_f32(bytes, at + 8).ok_or_else(truncated)?;
        vert.push(DVec3::new(x as f64, y as f64, z as f64));
    }
    let mut face = Vec::with_capacity(layout.nf);
    for i in 0..layout.nf {
        let mut f = [0u32; 3];
        for (j, idx) in f.iter_mut().enumerate() {
            let k = read_i32(bytes, layout.face_at + 12 * i + 4 * j).ok_or_else(truncated)?;
            if k < 0 || k as usize >= layout.nv {
                return Err(format!(
                    "MSH file '{name}': in face {i}, vertex index {k} does not exist ({} vertices)",
                    layout.nv
                ));
            }
            *idx = k as u32;
        }
        face.push(f);
    }
    Ok(RawMesh { vert, face })
}

// ------------------------------------------------------------------------------------------------
// OBJ

fn decode_obj(name: &str, bytes: &[u8]) -> Result<RawMesh, String> {
    // tinyobjloader skips a UTF-8 byte order mark
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let mut vert_f32: Vec<[f32; 3]> = Vec::new();
    // polygons of each shape; a shape ends at an `o` or `g` line
    let mut shapes: Vec<Vec<Vec<usize>>> = vec![Vec::new()];
    for (lineno, raw_line) in bytes.split(|&c| c == b'\n').enumerate() {
        let lineno = lineno + 1;
        let line = trim_ascii_start(raw_line);
        let mut tokens = line
            .split(|c| c.is_ascii_whitespace())
            .filter(|t| !t.is_empty());
        let Some(key) = tokens.next() else { continue };
        match key {
            b"v" => {
                let mut v = [0f32; 3];
                for c in v.iter_mut() {
                    match tokens.next() {
                        Some(t) => *c = parse_obj_real(t).ok_or_else(|| {
                            format!(
                                "could not parse OBJ file '{name}': invalid number '{}' in line {lineno}",
                                String::from_utf8_lossy(t)
                            )
                        })?,
                        None => break, // tinyobjloader defaults missing coordinates to 0
                    }
                }
                vert_f32.push(v);
            }
            b"f" => {
                let mut poly = Vec::new();
                for t in tokens {
                    let idx = parse_obj_index(t, vert_f32.len()).ok_or_else(|| {
                        format!(
                            "could not parse OBJ file '{name}': invalid face index '{}' in line {lineno}",
                            String::from_utf8_lossy(t)
                        )
                    })?;
                    poly.push(idx);
                }
                // tinyobjloader drops faces with fewer than 3 vertices (with a warning)
                if poly.len() >= 3 {
                    if let Some(shape) = shapes.last_mut() {
                        shape.push(poly);
                    }
                }
            }
            b"o" | b"g" if shapes.last().is_some_and(|s| !s.is_empty()) => {
                shapes.push(Vec::new());
            }
            _ => {} // vn, vt, l, p, s, usemtl, mtllib, comments, ...
        }
    }
    let nv = vert_f32.len();
    if nv > u32::MAX as usize {
        return Err(format!("OBJ file '{name}' has too many vertices"));
    }
    let mut face = Vec::new();
    if let Some(polys) = shapes.into_iter().find(|s| !s.is_empty()) {
        for poly in &polys {
            if let Some(&bad) = poly.iter().find(|&&i| i >= nv) {
                return Err(format!(
                    "OBJ file '{name}': vertex index {} does not exist ({nv} vertices)",
                    bad + 1
                ));
            }
            triangulate_tinyobj(poly, &vert_f32, &mut face);
        }
    }
    let vert = vert_f32
        .iter()
        .map(|v| DVec3::new(v[0] as f64, v[1] as f64, v[2] as f64))
        .collect();
    let face = face
        .into_iter()
        .map(|[a, b, c]| [a as u32, b as u32, c as u32])
        .collect::<Vec<_>>();
    Ok(RawMesh { vert, face })
}

/// Parses an OBJ number (tinyobjloader reads a double and stores it as `float`).
fn parse_obj_real(t: &[u8]) -> Option<f32> {
    let s = std::str::from_utf8(t).ok()?;
    let x: f64 = s.parse().ok()?;
    Some(x as f32)
}

/// Parses the vertex part of an OBJ face token (`v`, `v/vt`, `v//vn`, `v/vt/vn`) into a zero-based
/// index. Negative indices count back from the last vertex defined so far; zero is invalid.
fn parse_obj_index(t: &[u8], nv_so_far: usize) -> Option<usize> {
    let first = t.split(|&c| c == b'/').next()?;
    let i: i64 = std::str::from_utf8(first).ok()?.parse().ok()?;
    if i > 0 {
        usize::try_from(i - 1).ok()
    } else if i < 0 {
        let back = usize::try_from(i.checked_neg()?).ok()?;
        nv_so_far.checked_sub(back)
    } else {
        None
    }
}

/// Triangulates one polygon like tinyobjloader (`triangulate = true`, built-in ear clipping).
/// All indices of `poly` are valid indices into `v`.
fn triangulate_tinyobj(poly: &[usize], v: &[[f32; 3]], out: &mut Vec<[usize; 3]>) {
    let n = poly.len();
    let p = |i: usize| v.get(i).copied().unwrap_or([0.0; 3]);
    if n == 3 {
        out.push([poly[0], poly[1], poly[2]]);
        return;
    }
    if n == 4 {
        let (v0, v1, v2, v3) = (p(poly[0]), p(poly[1]), p(poly[2]), p(poly[3]));
        let sq = |a: [f32; 3], b: [f32; 3]| {
            let d = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
            d[0] * d[0] + d[1] * d[1] + d[2] * d[2]
        };
        if sq(v0, v2) < sq(v1, v3) {
            out.push([poly[0], poly[1], poly[2]]);
            out.push([poly[0], poly[2], poly[3]]);
        } else {
            out.push([poly[0], poly[1], poly[3]]);
            out.push([poly[1], poly[2], poly[3]]);
        }
        return;
    }

    // choose the two projection axes from the first corner with a non-negligible cross product
    let mut axes = [1usize, 2usize];
    for k in 0..n {
        let a = p(poly[k % n]);
        let b = p(poly[(k + 1) % n]);
        let c = p(poly[(k + 2) % n]);
        let e0 = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
        let e1 = [c[0] - b[0], c[1] - b[1], c[2] - b[2]];
        let cx = (e0[1] * e1[2] - e0[2] * e1[1]).abs();
        let cy = (e0[2] * e1[0] - e0[0] * e1[2]).abs();
        let cz = (e0[0] * e1[1] - e0[1] * e1[0]).abs();
        if cx > f32::EPSILON || cy > f32::EPSILON || cz > f32::EPSILON {
            if !(cx > cy && cx > cz) {
                axes[0] = 0;
                if cz > cx && cz > cy {
                    axes[1] = 1;
                }
            }
            break;
        }
    }

    let mut remaining: Vec<usize> = poly.to_vec();
    let mut guess = 0usize;
    let mut iterations_left = n;
    let mut previous_len = n;
    while remaining.len() > 3 && iterations_left > 0 {
        let m = remaining.len();
        if guess >= m {
            guess -= m;
        }
        if previous_len != m {
            previous_len = m;
            iterations_left = m;
        } else {
            iterations_left -= 1;
        }
        let mut ind = [0usize; 3];
        let mut vx = [0f32; 3];
        let mut vy = [0f32; 3];
        for k in 0..3 {
            ind[k] = remaining[(guess + k) % m];
            let q = p(ind[k]);
            vx[k] = q[axes[0]];
            vy[k] = q[axes[1]];
        }
        let e0x = vx[1] - vx[0];
        let e0y = vy[1] - vy[0];
        let e1x = vx[2] - vx[1];
        let e1y = vy[2] - vy[1];
        let cross = e0x * e1y - e0y * e1x;
        let area = (vx[0] * vy[1] - vy[0] * vx[1]) * 0.5;
        if cross * area < 0.0 {
            guess += 1;
            continue;
        }
        let mut overlap = false;
        for other in 3..m {
            let q = p(remaining[(guess + other) % m]);
            if point_in_triangle(&vx, &vy, q[axes[0]], q[axes[1]]) {
                overlap = true;
                break;
            }
        }
        if overlap {
            guess += 1;
            continue;
        }
        out.push(ind);
        remaining.remove((guess + 1) % m);
    }
    if remaining.len() == 3 {
        out.push([remaining[0], remaining[1], remaining[2]]);
    }
}

/// Crossing-number point-in-polygon test (`pnpoly`) for a triangle.
fn point_in_triangle(vx: &[f32; 3], vy: &[f32; 3], tx: f32, ty: f32) -> bool {
    let mut inside = false;
    let mut j = 2;
    for i in 0..3 {
        if ((vy[i] > ty) != (vy[j] > ty))
            && (tx < (vx[j] - vx[i]) * (ty - vy[i]) / (vy[j] - vy[i]) + vx[i])
        {
            inside = !inside;
        }
        j = i;
    }
    inside
}
