//! Triangle meshes of the collision shapes, in the geom's local frame (MuJoCo's conventions:
//! capsules and cylinders along local z, planes with normal +z, height fields over x–y).

use crate::scene::Shape;
use collide::glam::DVec3;
use collide::{HField, Mesh};
use std::f64::consts::PI;

/// Longitude segments of round shapes.
const NLON: usize = 24;
/// Latitude segments of a full sphere (even).
const NLAT: usize = 14;

/// Shape under construction.
#[derive(Default)]
struct Builder {
    pos: Vec<DVec3>,
    nrm: Vec<DVec3>,
    idx: Vec<u32>,
}

impl Builder {
    fn vert(&mut self, p: DVec3, n: DVec3) -> u32 {
        self.pos.push(p);
        self.nrm.push(n.normalize_or_zero());
        (self.pos.len() - 1) as u32
    }

    fn tri(&mut self, a: u32, b: u32, c: u32) {
        self.idx.extend_from_slice(&[a, b, c]);
    }

    /// A flat triangle with its own three vertices.
    fn flat(&mut self, a: DVec3, b: DVec3, c: DVec3) {
        let n = (b - a).cross(c - a);
        let i = self.vert(a, n);
        self.vert(b, n);
        self.vert(c, n);
        self.tri(i, i + 1, i + 2);
    }

    fn finish(self, plane: bool) -> Shape {
        let f = |v: &DVec3| [v.x as f32, v.y as f32, v.z as f32];
        Shape {
            pos: self.pos.iter().map(f).collect(),
            nrm: self.nrm.iter().map(f).collect(),
            idx: self.idx,
            plane,
        }
    }
}

/// A grid of rings: ring `i` at height `z(i)` with radius `r(i)`, normals from `n(i, angle)`;
/// consecutive rings are joined by quads.
fn rings(
    b: &mut Builder,
    count: usize,
    ring: impl Fn(usize) -> (f64, f64, f64),
    scale: DVec3,
    normal_scale: DVec3,
) {
    let start = b.pos.len() as u32;
    for i in 0..count {
        let (z, r, nz) = ring(i);
        for j in 0..=NLON {
            let a = 2.0 * PI * j as f64 / NLON as f64;
            let (s, c) = a.sin_cos();
            let p = DVec3::new(r * c, r * s, z) * scale;
            let nr = (1.0 - nz * nz).max(0.0).sqrt();
            let n = DVec3::new(nr * c, nr * s, nz) * normal_scale;
            b.vert(p, n);
        }
    }
    let w = (NLON + 1) as u32;
    for i in 0..count as u32 - 1 {
        for j in 0..NLON as u32 {
            let a = start + i * w + j;
            let c = a + w;
            b.tri(a, a + 1, c + 1);
            b.tri(a, c + 1, c);
        }
    }
}

/// Ellipsoid with semi-axes `size` (a sphere when they are equal).
pub fn ellipsoid(size: DVec3) -> Shape {
    let mut b = Builder::default();
    let ring = |i: usize| {
        let t = PI * i as f64 / NLAT as f64 - PI / 2.0;
        (t.sin(), t.cos(), t.sin())
    };
    rings(&mut b, NLAT + 1, ring, size, size.recip());
    b.finish(false)
}

/// Capsule of radius `r` and half-length `h` along z.
pub fn capsule(r: f64, h: f64) -> Shape {
    let mut b = Builder::default();
    let half = NLAT / 2;
    // rings 0..=half: lower hemisphere, half+1..=2half+1: upper hemisphere
    let ring = |i: usize| {
        let (k, zc) = if i <= half { (i, -h) } else { (i - 1, h) };
        let t = PI * k as f64 / NLAT as f64 - PI / 2.0;
        (zc + r * t.sin(), r * t.cos(), t.sin())
    };
    rings(&mut b, NLAT + 2, ring, DVec3::ONE, DVec3::ONE);
    b.finish(false)
}

/// Cylinder of radius `r` and half-height `h` along z.
pub fn cylinder(r: f64, h: f64) -> Shape {
    let mut b = Builder::default();
    rings(
        &mut b,
        2,
        |i| (if i == 0 { -h } else { h }, r, 0.0),
        DVec3::ONE,
        DVec3::ONE,
    );
    for (z, s) in [(h, 1.0), (-h, -1.0)] {
        let n = DVec3::new(0.0, 0.0, s);
        let c = b.vert(DVec3::new(0.0, 0.0, z), n);
        for j in 0..=NLON {
            let a = 2.0 * PI * j as f64 / NLON as f64;
            b.vert(DVec3::new(r * a.cos(), r * a.sin(), z), n);
        }
        for j in 0..NLON as u32 {
            if s > 0.0 {
                b.tri(c, c + 1 + j, c + 2 + j);
            } else {
                b.tri(c, c + 2 + j, c + 1 + j);
            }
        }
    }
    b.finish(false)
}

/// Box with half-sizes `s`.
pub fn cuboid(s: DVec3) -> Shape {
    let mut b = Builder::default();
    for axis in 0..3 {
        for sign in [-1.0, 1.0] {
            let mut n = DVec3::ZERO;
            n[axis] = sign;
            let (u, v) = ((axis + 1) % 3, (axis + 2) % 3);
            let corner = |cu: f64, cv: f64| {
                let mut p = DVec3::ZERO;
                p[axis] = sign * s[axis];
                p[u] = cu * s[u];
                p[v] = cv * s[v];
                p
            };
            let i = b.vert(corner(-1.0, -1.0), n);
            b.vert(corner(1.0, -1.0), n);
            b.vert(corner(1.0, 1.0), n);
            b.vert(corner(-1.0, 1.0), n);
            if sign > 0.0 {
                b.tri(i, i + 1, i + 2);
                b.tri(i, i + 2, i + 3);
            } else {
                b.tri(i, i + 2, i + 1);
                b.tri(i, i + 3, i + 2);
            }
        }
    }
    b.finish(false)
}

/// Plane rectangle of half-sizes `hx`, `hy`, split into `n × n` cells (two triangles per cell,
/// cell by cell, row-major: the rasteriser draws a checkerboard from that order).
pub fn plane(hx: f64, hy: f64, n: usize) -> Shape {
    let mut b = Builder::default();
    let z = DVec3::Z;
    for i in 0..n {
        for j in 0..n {
            let x0 = -hx + 2.0 * hx * j as f64 / n as f64;
            let x1 = -hx + 2.0 * hx * (j + 1) as f64 / n as f64;
            let y0 = -hy + 2.0 * hy * i as f64 / n as f64;
            let y1 = -hy + 2.0 * hy * (i + 1) as f64 / n as f64;
            let a = b.vert(DVec3::new(x0, y0, 0.0), z);
            b.vert(DVec3::new(x1, y0, 0.0), z);
            b.vert(DVec3::new(x1, y1, 0.0), z);
            b.vert(DVec3::new(x0, y1, 0.0), z);
            b.tri(a, a + 1, a + 2);
            b.tri(a, a + 2, a + 3);
        }
    }
    b.finish(true)
}

/// A mesh geom: its convex hull's triangles when it has one (what collides), else the mesh.
pub fn mesh(m: &Mesh) -> Shape {
    let mut b = Builder::default();
    match &m.hull {
        Some(h) if !h.face.is_empty() => {
            for f in &h.face {
                let [p, q, r] = f.map(|i| h.vert.get(i as usize).copied().unwrap_or_default());
                b.flat(p, q, r);
            }
        }
        _ => {
            for f in &m.face {
                let [p, q, r] = f.map(|i| m.vert.get(i as usize).copied().unwrap_or_default());
                b.flat(p, q, r);
            }
        }
    }
    b.finish(false)
}

/// A height field: the elevation grid (row 0 at −y, column 0 at −x, `z = data · size[2]`), its
/// four sides and its base at `z = −size[3]`. Grids over 160 on a side are subsampled.
pub fn hfield(h: &HField) -> Shape {
    let mut b = Builder::default();
    let (nr, nc) = (h.nrow, h.ncol);
    if nr < 2 || nc < 2 || h.data.len() < nr * nc {
        return b.finish(false);
    }
    let [sx, sy, sz, base] = h.size;
    let step = nr.max(nc).div_ceil(160);
    let rows: Vec<usize> = (0..nr).step_by(step).chain([nr - 1]).collect::<Vec<_>>();
    let cols: Vec<usize> = (0..nc).step_by(step).chain([nc - 1]).collect::<Vec<_>>();
    let dedup = |mut v: Vec<usize>| {
        v.dedup();
        v
    };
    let (rows, cols) = (dedup(rows), dedup(cols));
    let at = |r: usize, c: usize| {
        DVec3::new(
            -sx + 2.0 * sx * c as f64 / (nc - 1) as f64,
            -sy + 2.0 * sy * r as f64 / (nr - 1) as f64,
            h.data[r * nc + c] as f64 * sz,
        )
    };
    // top surface, smooth normals from central differences
    let start = b.pos.len() as u32;
    for (ri, &r) in rows.iter().enumerate() {
        for (ci, &c) in cols.iter().enumerate() {
            let p = at(r, c);
            let xm = at(r, cols[ci.saturating_sub(1)]);
            let xp = at(r, cols[(ci + 1).min(cols.len() - 1)]);
            let ym = at(rows[ri.saturating_sub(1)], c);
            let yp = at(rows[(ri + 1).min(rows.len() - 1)], c);
            b.vert(p, (xp - xm).cross(yp - ym));
        }
    }
    let w = cols.len() as u32;
    for i in 0..rows.len() as u32 - 1 {
        for j in 0..w - 1 {
            let a = start + i * w + j;
            b.tri(a, a + 1, a + w + 1);
            b.tri(a, a + w + 1, a + w);
        }
    }
    // sides and base, each triangle wound to face `out`
    let bottom = |p: DVec3| DVec3::new(p.x, p.y, -base);
    let facing = |b: &mut Builder, p: DVec3, q: DVec3, r: DVec3, out: DVec3| {
        if (q - p).cross(r - p).dot(out) >= 0.0 {
            b.flat(p, q, r);
        } else {
            b.flat(p, r, q);
        }
    };
    let (r0, r1, c0, c1) = (rows[0], nr - 1, cols[0], nc - 1);
    let sides: [(Vec<DVec3>, DVec3); 4] = [
        (cols.iter().map(|&c| at(r0, c)).collect(), -DVec3::Y),
        (cols.iter().map(|&c| at(r1, c)).collect(), DVec3::Y),
        (rows.iter().map(|&r| at(r, c0)).collect(), -DVec3::X),
        (rows.iter().map(|&r| at(r, c1)).collect(), DVec3::X),
    ];
    for (pts, out) in sides {
        for k in 0..pts.len() - 1 {
            let (p, q) = (pts[k], pts[k + 1]);
            facing(&mut b, p, bottom(p), bottom(q), out);
            facing(&mut b, p, bottom(q), q, out);
        }
    }
    let (p0, p1) = (DVec3::new(-sx, -sy, -base), DVec3::new(sx, sy, -base));
    facing(&mut b, p0, DVec3::new(p1.x, p0.y, p0.z), p1, -DVec3::Z);
    facing(&mut b, p0, p1, DVec3::new(p0.x, p1.y, p0.z), -DVec3::Z);
    b.finish(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every vertex of a sphere of radius 2 lies on it, with its normal pointing outward.
    #[test]
    fn sphere_vertices_on_surface() {
        let s = ellipsoid(DVec3::splat(2.0));
        for (p, n) in s.pos.iter().zip(&s.nrm) {
            let p = DVec3::new(p[0] as f64, p[1] as f64, p[2] as f64);
            assert!((p.length() - 2.0).abs() < 1e-5);
            let n = DVec3::new(n[0] as f64, n[1] as f64, n[2] as f64);
            assert!(n.dot(p) > 1.9);
        }
    }

    /// A capsule of radius 0.5 and half-length 1 spans z in [-1.5, 1.5] and never leaves the
    /// radius around its axis.
    #[test]
    fn capsule_extent() {
        let s = capsule(0.5, 1.0);
        let zmax = s.pos.iter().map(|p| p[2]).fold(f32::MIN, f32::max);
        let zmin = s.pos.iter().map(|p| p[2]).fold(f32::MAX, f32::min);
        assert!((zmax - 1.5).abs() < 1e-6 && (zmin + 1.5).abs() < 1e-6);
        assert!(s
            .pos
            .iter()
            .all(|p| (p[0] * p[0] + p[1] * p[1]).sqrt() <= 0.5 + 1e-6));
    }

    /// Box triangles wind counter-clockwise seen from outside: each face normal points away
    /// from the centre.
    #[test]
    fn box_winding_outward() {
        let s = cuboid(DVec3::new(1.0, 2.0, 3.0));
        for t in s.idx.chunks(3) {
            let v = |i: u32| {
                let p = s.pos[i as usize];
                DVec3::new(p[0] as f64, p[1] as f64, p[2] as f64)
            };
            let (a, b, c) = (v(t[0]), v(t[1]), v(t[2]));
            assert!((b - a).cross(c - a).dot((a + b + c) / 3.0) > 0.0);
        }
    }
}
