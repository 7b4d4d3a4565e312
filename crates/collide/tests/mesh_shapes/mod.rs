//! Test and benchmark meshes built in code: each face is oriented by a rule giving the
//! outward direction at its centroid, so the windings are right by construction.

#![allow(dead_code)]

use collide::glam::{DMat3, DVec3};
use collide::narrow::mesh_exact::TriMesh;
use std::f64::consts::PI;

/// Vertices and triangles.
pub struct Soup {
    pub vert: Vec<DVec3>,
    pub face: Vec<[u32; 3]>,
}

impl Soup {
    fn new() -> Soup {
        Soup {
            vert: Vec::new(),
            face: Vec::new(),
        }
    }

    fn add(&mut self, p: DVec3) -> u32 {
        self.vert.push(p);
        (self.vert.len() - 1) as u32
    }

    /// Adds triangle `t`, wound so that its normal points along `outward(centroid)`.
    fn tri(&mut self, t: [u32; 3], outward: impl Fn(DVec3) -> DVec3) {
        let [a, b, c] = t.map(|i| self.vert[i as usize]);
        let n = (b - a).cross(c - a);
        if n.dot(outward((a + b + c) / 3.0)) < 0.0 {
            self.face.push([t[0], t[2], t[1]]);
        } else {
            self.face.push(t);
        }
    }

    fn quad(&mut self, q: [u32; 4], outward: impl Fn(DVec3) -> DVec3 + Copy) {
        self.tri([q[0], q[1], q[2]], outward);
        self.tri([q[0], q[2], q[3]], outward);
    }

    /// Prepared mesh.
    pub fn mesh(&self) -> TriMesh {
        TriMesh::new("test", &self.vert, &self.face).expect("valid test mesh")
    }

    /// The same soup with every vertex mapped by `f`.
    pub fn mapped(&self, f: impl Fn(DVec3) -> DVec3) -> Soup {
        Soup {
            vert: self.vert.iter().map(|&p| f(p)).collect(),
            face: self.face.clone(),
        }
    }
}

/// Unit direction at polar angle `phi` (from +z) and azimuth `lam`.
pub fn dir(phi: f64, lam: f64) -> DVec3 {
    DVec3::new(phi.sin() * lam.cos(), phi.sin() * lam.sin(), phi.cos())
}

/// A hemispherical bowl, open upwards: the solid between spheres of radii `r_in` and `r_out`
/// about the origin, below `z = 0`; `nlat` rings from the rim to the pole, `nlon` segments.
/// Vertices lie exactly on the spheres.
pub fn bowl(r_in: f64, r_out: f64, nlat: usize, nlon: usize) -> Soup {
    let mut s = Soup::new();
    let ring = |s: &mut Soup, r: f64| -> Vec<Vec<u32>> {
        (0..nlat)
            .map(|i| {
                let phi = PI / 2.0 + (i as f64) * (PI / 2.0) / nlat as f64;
                (0..nlon)
                    .map(|j| s.add(dir(phi, 2.0 * PI * j as f64 / nlon as f64) * r))
                    .collect()
            })
            .collect()
    };
    let outer = ring(&mut s, r_out);
    let inner = ring(&mut s, r_in);
    let po = s.add(DVec3::new(0.0, 0.0, -r_out));
    let pi = s.add(DVec3::new(0.0, 0.0, -r_in));
    for (rings, pole, sign) in [(&outer, po, 1.0), (&inner, pi, -1.0)] {
        let out = move |c: DVec3| c * sign;
        for i in 0..nlat {
            for j in 0..nlon {
                let j2 = (j + 1) % nlon;
                if i + 1 < nlat {
                    s.quad(
                        [rings[i][j], rings[i][j2], rings[i + 1][j2], rings[i + 1][j]],
                        out,
                    );
                } else {
                    s.tri([rings[i][j], rings[i][j2], pole], out);
                }
            }
        }
    }
    for j in 0..nlon {
        let j2 = (j + 1) % nlon;
        s.quad(
            [outer[0][j], outer[0][j2], inner[0][j2], inner[0][j]],
            |_| DVec3::Z,
        );
    }
    s
}

/// A torus about the z axis: tube centre radius `big`, tube radius `small`; `nu` segments
/// around the axis (one vertex ring at azimuth 0), `nv` around the tube (one ring on the inner
/// equator).
pub fn torus(big: f64, small: f64, nu: usize, nv: usize) -> Soup {
    let mut s = Soup::new();
    let idx: Vec<Vec<u32>> = (0..nu)
        .map(|i| {
            let u = 2.0 * PI * i as f64 / nu as f64;
            (0..nv)
                .map(|j| {
                    let v = 2.0 * PI * j as f64 / nv as f64;
                    let rr = big + small * v.cos();
                    s.add(DVec3::new(rr * u.cos(), rr * u.sin(), small * v.sin()))
                })
                .collect()
        })
        .collect();
    let out = move |c: DVec3| {
        let h = DVec3::new(c.x, c.y, 0.0).normalize() * big;
        c - h
    };
    for i in 0..nu {
        for j in 0..nv {
            let (i2, j2) = ((i + 1) % nu, (j + 1) % nv);
            s.quad([idx[i][j], idx[i2][j], idx[i2][j2], idx[i][j2]], out);
        }
    }
    s
}

/// A sphere of radius `r` about the origin: `nlat` bands from pole to pole, `nlon` segments;
/// vertices lie exactly on the sphere.
pub fn sphere(r: f64, nlat: usize, nlon: usize) -> Soup {
    let mut s = Soup::new();
    let top = s.add(DVec3::Z * r);
    let rings: Vec<Vec<u32>> = (1..nlat)
        .map(|i| {
            let phi = PI * i as f64 / nlat as f64;
            (0..nlon)
                .map(|j| s.add(dir(phi, 2.0 * PI * j as f64 / nlon as f64) * r))
                .collect()
        })
        .collect();
    let bottom = s.add(-DVec3::Z * r);
    let out = |c: DVec3| c;
    for j in 0..nlon {
        let j2 = (j + 1) % nlon;
        s.tri([top, rings[0][j], rings[0][j2]], out);
        s.tri([bottom, rings[nlat - 2][j], rings[nlat - 2][j2]], out);
        for i in 0..nlat - 2 {
            s.quad(
                [rings[i][j], rings[i][j2], rings[i + 1][j2], rings[i + 1][j]],
                out,
            );
        }
    }
    s
}

/// A box `[-h, h]` as 12 triangles.
pub fn box_mesh(h: DVec3) -> Soup {
    let mut s = Soup::new();
    for i in 0..8 {
        let sg = |k: usize| if i >> k & 1 == 1 { 1.0 } else { -1.0 };
        s.add(DVec3::new(sg(0) * h.x, sg(1) * h.y, sg(2) * h.z));
    }
    let out = |c: DVec3| c;
    for k in 0..3 {
        let (a, b) = ((k + 1) % 3, (k + 2) % 3);
        for side in [0u32, 1] {
            let v = |i: u32, j: u32| (side << k) | (i << a) | (j << b);
            s.quad([v(0, 0), v(1, 0), v(1, 1), v(0, 1)], out);
        }
    }
    s
}

/// A flat square sheet `[-half, half]²` at `z = 0`, facing +z, `n × n` cells of two triangles
/// with alternating diagonals.
pub fn grid(half: f64, n: usize) -> Soup {
    let mut s = Soup::new();
    let step = 2.0 * half / n as f64;
    for i in 0..=n {
        for j in 0..=n {
            s.add(DVec3::new(
                -half + step * i as f64,
                -half + step * j as f64,
                0.0,
            ));
        }
    }
    let id = |i: usize, j: usize| (i * (n + 1) + j) as u32;
    for i in 0..n {
        for j in 0..n {
            let q = [id(i, j), id(i + 1, j), id(i + 1, j + 1), id(i, j + 1)];
            if (i + j) % 2 == 0 {
                s.quad(q, |_| DVec3::Z);
            } else {
                s.quad([q[1], q[2], q[3], q[0]], |_| DVec3::Z);
            }
        }
    }
    s
}

/// A square plate `[-outer, outer]² × [-half_t, half_t]` with a square hole
/// `[-inner, inner]²` through it along z.
pub fn plate_with_hole(outer: f64, inner: f64, half_t: f64) -> Soup {
    let mut s = Soup::new();
    let sq = [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)];
    let mut v = [[[0u32; 4]; 2]; 2]; // [top/bottom][outer/inner][corner]
    for (zi, z) in [half_t, -half_t].into_iter().enumerate() {
        for (ri, r) in [outer, inner].into_iter().enumerate() {
            for (k, (x, y)) in sq.iter().enumerate() {
                v[zi][ri][k] = s.add(DVec3::new(x * r, y * r, z));
            }
        }
    }
    let horizontal = |c: DVec3| {
        if c.x.abs() > c.y.abs() {
            DVec3::new(c.x.signum(), 0.0, 0.0)
        } else {
            DVec3::new(0.0, c.y.signum(), 0.0)
        }
    };
    for k in 0..4 {
        let k2 = (k + 1) % 4;
        s.quad([v[0][0][k], v[0][0][k2], v[0][1][k2], v[0][1][k]], |_| {
            DVec3::Z
        });
        s.quad([v[1][0][k], v[1][0][k2], v[1][1][k2], v[1][1][k]], |_| {
            -DVec3::Z
        });
        s.quad(
            [v[0][0][k], v[0][0][k2], v[1][0][k2], v[1][0][k]],
            horizontal,
        );
        s.quad(
            [v[0][1][k], v[0][1][k2], v[1][1][k2], v[1][1][k]],
            move |c| -horizontal(c),
        );
    }
    s
}

/// Rotation by `angle` about unit `axis`.
pub fn rot(axis: DVec3, angle: f64) -> DMat3 {
    DMat3::from_axis_angle(axis.normalize(), angle)
}
