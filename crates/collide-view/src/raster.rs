//! A CPU rasteriser: pictures of a [`Scene`] state without a GPU or a display.
//!
//! Triangles are clipped at the near plane, drawn with a z-buffer (depth interpolated as `1/z`)
//! and Gouraud-shaded by a light above the camera's left shoulder; planes are checkerboards.
//! Contacts are drawn over the geometry: a disc at the point (red when penetrating, blue within
//! the margin) and a line along the normal (`frame[0]`, from `geom[0]` to `geom[1]`) whose length
//! grows with the depth ([`Scene::normal_length`]); a contact hidden behind other geometry is
//! drawn a quarter transparent (one nearer than the contact by more than its depth plus 1% of the
//! scene's size). The picture is rendered at twice the size and averaged down (anti-aliasing).

use crate::scene::Scene;
use crate::ViewError;
use collide::glam::DVec3;

/// Supersampling factor per axis.
const SS: usize = 2;

/// Picture and camera settings. Angles in degrees; the camera orbits `lookat` at `distance`:
/// azimuth 0 looks along −x from +x, 90 looks along −y from +y; elevation is the angle above
/// the horizontal plane (positive: looking down).
#[derive(Clone, Debug, PartialEq)]
pub struct RenderOptions {
    /// State to draw.
    pub state: usize,
    /// Width in pixels (1 to 8192).
    pub width: u32,
    /// Height in pixels (1 to 8192).
    pub height: u32,
    /// Azimuth in degrees.
    pub azimuth: f64,
    /// Elevation in degrees, in (−90, 90).
    pub elevation: f64,
    /// Camera distance from `lookat`; `None` fits the drawn state's bounds ([`fit_distance`]).
    pub distance: Option<f64>,
    /// Point looked at; `None`: the centre of the drawn state's bounds.
    pub lookat: Option<DVec3>,
    /// Vertical field of view in degrees, in (1, 170).
    pub fov: f64,
}

impl Default for RenderOptions {
    fn default() -> Self {
        RenderOptions {
            state: 0,
            width: 1000,
            height: 700,
            azimuth: 55.0,
            elevation: 30.0,
            distance: None,
            lookat: None,
            fov: 40.0,
        }
    }
}

/// An RGB picture, row-major from the top-left corner, 3 bytes per pixel.
#[derive(Clone, Debug, PartialEq)]
pub struct Image {
    /// Width in pixels.
    pub width: usize,
    /// Height in pixels.
    pub height: usize,
    /// `width · height · 3` bytes.
    pub rgb: Vec<u8>,
}

impl Image {
    /// The colour at `(x, y)`.
    pub fn pixel(&self, x: usize, y: usize) -> [u8; 3] {
        let i = 3 * (y * self.width + x);
        [self.rgb[i], self.rgb[i + 1], self.rgb[i + 2]]
    }

    /// Encodes as PNG (8-bit RGB).
    pub fn to_png(&self) -> Result<Vec<u8>, ViewError> {
        let mut out = Vec::new();
        {
            let mut enc = png::Encoder::new(&mut out, self.width as u32, self.height as u32);
            enc.set_color(png::ColorType::Rgb);
            enc.set_depth(png::BitDepth::Eight);
            enc.set_compression(png::Compression::Best);
            let mut w = enc
                .write_header()
                .map_err(|e| ViewError::Png(e.to_string()))?;
            w.write_image_data(&self.rgb)
                .map_err(|e| ViewError::Png(e.to_string()))?;
        }
        Ok(out)
    }
}

/// Renders `opts.state` of `scene` and encodes it as PNG.
pub fn render_png(scene: &Scene, opts: &RenderOptions) -> Result<Vec<u8>, ViewError> {
    render(scene, opts)?.to_png()
}

/// The camera: eye, orthonormal axes and focal length in (supersampled) pixels.
struct Camera {
    eye: DVec3,
    right: DVec3,
    up: DVec3,
    fwd: DVec3,
    focal: f64,
    near: f64,
    cx: f64,
    cy: f64,
}

impl Camera {
    /// Camera-space `(x, y, z)`, `z` along the view direction.
    fn to_cam(&self, p: DVec3) -> DVec3 {
        let d = p - self.eye;
        DVec3::new(d.dot(self.right), d.dot(self.up), d.dot(self.fwd))
    }

    /// Screen position `(x, y)` and `1/z` of a camera-space point in front of the near plane.
    fn project(&self, c: DVec3) -> (f64, f64, f64) {
        let iz = 1.0 / c.z;
        (
            self.cx + c.x * iz * self.focal,
            self.cy - c.y * iz * self.focal,
            iz,
        )
    }
}

fn check(opts: &RenderOptions) -> Result<(), ViewError> {
    let bad = |name: &'static str, msg: String| Err(ViewError::Option { name, msg });
    if !(1..=8192).contains(&opts.width) {
        return bad("width", format!("{} is not in 1..=8192", opts.width));
    }
    if !(1..=8192).contains(&opts.height) {
        return bad("height", format!("{} is not in 1..=8192", opts.height));
    }
    if !opts.azimuth.is_finite() {
        return bad("azimuth", format!("{} is not finite", opts.azimuth));
    }
    if !(opts.elevation.is_finite() && opts.elevation.abs() < 90.0) {
        return bad(
            "elevation",
            format!("{} is not in (-90, 90)", opts.elevation),
        );
    }
    if !(opts.fov.is_finite() && opts.fov > 1.0 && opts.fov < 170.0) {
        return bad("fov", format!("{} is not in (1, 170)", opts.fov));
    }
    if let Some(d) = opts.distance {
        if !(d.is_finite() && d > 0.0) {
            return bad("distance", format!("{d} is not a positive number"));
        }
    }
    if let Some(l) = opts.lookat {
        if !l.is_finite() {
            return bad("lookat", format!("{l} is not finite"));
        }
    }
    Ok(())
}

/// Colour buffer and z-buffer (`1/z`, larger is nearer) at the supersampled size.
struct Canvas {
    w: usize,
    h: usize,
    rgb: Vec<[f32; 3]>,
    iz: Vec<f32>,
}

fn rgb_of(c: u32) -> DVec3 {
    DVec3::new(
        ((c >> 16) & 255) as f64 / 255.0,
        ((c >> 8) & 255) as f64 / 255.0,
        (c & 255) as f64 / 255.0,
    )
}

/// A vertex ready to rasterise: screen position, `1/z`, colour.
#[derive(Clone, Copy)]
struct SVert {
    x: f64,
    y: f64,
    iz: f64,
    c: DVec3,
}

impl Canvas {
    fn triangle(&mut self, v: [SVert; 3]) {
        let [a, b, c] = v;
        let area = (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x);
        if area.abs() < 1e-12 {
            return;
        }
        let x0 = a.x.min(b.x).min(c.x).floor().max(0.0) as usize;
        let x1 = (a.x.max(b.x).max(c.x).ceil() as isize).min(self.w as isize - 1);
        let y0 = a.y.min(b.y).min(c.y).floor().max(0.0) as usize;
        let y1 = (a.y.max(b.y).max(c.y).ceil() as isize).min(self.h as isize - 1);
        if x1 < 0 || y1 < 0 {
            return;
        }
        let inv = 1.0 / area;
        for y in y0..=y1 as usize {
            let py = y as f64 + 0.5;
            for x in x0..=x1 as usize {
                let px = x as f64 + 0.5;
                let w0 = ((b.x - px) * (c.y - py) - (b.y - py) * (c.x - px)) * inv;
                let w1 = ((c.x - px) * (a.y - py) - (c.y - py) * (a.x - px)) * inv;
                let w2 = 1.0 - w0 - w1;
                if w0 < 0.0 || w1 < 0.0 || w2 < 0.0 {
                    continue;
                }
                let iz = (w0 * a.iz + w1 * b.iz + w2 * c.iz) as f32;
                let k = y * self.w + x;
                if iz <= self.iz[k] {
                    continue;
                }
                self.iz[k] = iz;
                let col = a.c * w0 + b.c * w1 + c.c * w2;
                self.rgb[k] = [col.x as f32, col.y as f32, col.z as f32];
            }
        }
    }

    /// Blends a disc of radius `r` (pixels) at `(x, y)`.
    fn disc(&mut self, x: f64, y: f64, r: f64, col: DVec3, alpha: f64) {
        let (x0, x1) = ((x - r).floor().max(0.0), (x + r).ceil());
        let (y0, y1) = ((y - r).floor().max(0.0), (y + r).ceil());
        let mut py = y0;
        while py <= y1 && (py as usize) < self.h {
            let mut px = x0;
            while px <= x1 && (px as usize) < self.w {
                let d = ((px + 0.5 - x).powi(2) + (py + 0.5 - y).powi(2)).sqrt();
                if d <= r {
                    let k = py as usize * self.w + px as usize;
                    let old = self.rgb[k];
                    let mix = |o: f32, n: f64| (o as f64 * (1.0 - alpha) + n * alpha) as f32;
                    self.rgb[k] = [mix(old[0], col.x), mix(old[1], col.y), mix(old[2], col.z)];
                }
                px += 1.0;
            }
            py += 1.0;
        }
    }

    /// A thick line from `p` to `q` (pixels), as discs along it.
    fn line(&mut self, p: (f64, f64), q: (f64, f64), r: f64, col: DVec3, alpha: f64) {
        let len = ((q.0 - p.0).powi(2) + (q.1 - p.1).powi(2)).sqrt();
        let n = (len / (0.5 * r).max(0.5)).ceil().min(20_000.0) as usize;
        for i in 0..=n {
            let t = if n == 0 { 0.0 } else { i as f64 / n as f64 };
            self.disc(p.0 + t * (q.0 - p.0), p.1 + t * (q.1 - p.1), r, col, alpha);
        }
    }

    fn depth_at(&self, x: f64, y: f64) -> Option<f32> {
        if x < 0.0 || y < 0.0 || x >= self.w as f64 || y >= self.h as f64 {
            return None;
        }
        Some(self.iz[y as usize * self.w + x as usize])
    }
}

/// Clips a camera-space polygon (with colours) against `z >= near`.
fn clip_near(poly: &[(DVec3, DVec3)], near: f64, out: &mut Vec<(DVec3, DVec3)>) {
    out.clear();
    for i in 0..poly.len() {
        let (p, pc) = poly[i];
        let (q, qc) = poly[(i + 1) % poly.len()];
        let (pin, qin) = (p.z >= near, q.z >= near);
        if pin {
            out.push((p, pc));
        }
        if pin != qin {
            let t = (near - p.z) / (q.z - p.z);
            out.push((p + (q - p) * t, pc + (qc - pc) * t));
        }
    }
}

/// The smallest camera distance from `lookat` (with 6% to spare) at which the eight corners of
/// `bounds` fall inside the picture, for camera axes `[right, up, forward]`.
pub fn fit_distance(
    bounds: [DVec3; 2],
    lookat: DVec3,
    axes: [DVec3; 3],
    half_fov: f64,
    aspect: f64,
) -> f64 {
    let [lo, hi] = bounds;
    let (ty, tx) = (half_fov.tan(), half_fov.tan() * aspect);
    let mut d = 1e-6f64;
    for k in 0..8 {
        let c = DVec3::new(
            if k & 1 == 0 { lo.x } else { hi.x },
            if k & 2 == 0 { lo.y } else { hi.y },
            if k & 4 == 0 { lo.z } else { hi.z },
        ) - lookat;
        let (x, y, z) = (c.dot(axes[0]), c.dot(axes[1]), c.dot(axes[2]));
        d = d.max(x.abs() / tx - z).max(y.abs() / ty - z);
    }
    d * 1.06
}

/// Renders `opts.state` of `scene` to an RGB image.
///
/// Errors: a state index past the end, a size or camera option out of range.
pub fn render(scene: &Scene, opts: &RenderOptions) -> Result<Image, ViewError> {
    check(opts)?;
    let state = scene.state(opts.state)?;
    let (w, h) = (opts.width as usize * SS, opts.height as usize * SS);
    let [lo, hi] = state.bounds;
    let lookat = opts.lookat.unwrap_or((lo + hi) / 2.0);
    let half_fov = opts.fov.to_radians() / 2.0;
    let aspect = w as f64 / h as f64;
    let (az, el) = (opts.azimuth.to_radians(), opts.elevation.to_radians());
    let dir = DVec3::new(el.cos() * az.cos(), el.cos() * az.sin(), el.sin());
    let fwd = -dir;
    let right = fwd.cross(DVec3::Z).normalize_or(DVec3::X);
    let up = right.cross(fwd);
    let axes = [right, up, fwd];
    let mut lookat = lookat;
    let mut distance = opts
        .distance
        .unwrap_or_else(|| fit_distance([lo, hi], lookat, axes, half_fov, aspect));
    if opts.distance.is_none() && opts.lookat.is_none() {
        // centre the picture on the bounds' projection, then fit again
        for _ in 0..3 {
            let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
            for k in 0..8 {
                let c = DVec3::new(
                    if k & 1 == 0 { lo.x } else { hi.x },
                    if k & 2 == 0 { lo.y } else { hi.y },
                    if k & 4 == 0 { lo.z } else { hi.z },
                ) - (lookat + dir * distance);
                let z = c.dot(fwd).max(1e-9);
                (x0, x1) = (x0.min(c.dot(right) / z), x1.max(c.dot(right) / z));
                (y0, y1) = (y0.min(c.dot(up) / z), y1.max(c.dot(up) / z));
            }
            lookat += (right * (x0 + x1) / 2.0 + up * (y0 + y1) / 2.0) * distance;
            distance = fit_distance([lo, hi], lookat, axes, half_fov, aspect);
        }
    }
    let eye = lookat + dir * distance;
    let cam = Camera {
        eye,
        right,
        up,
        fwd,
        focal: (h as f64 / 2.0) / half_fov.tan(),
        near: distance * 1e-3,
        cx: w as f64 / 2.0,
        cy: h as f64 / 2.0,
    };
    let mut cv = Canvas {
        w,
        h,
        rgb: Vec::with_capacity(w * h),
        iz: vec![0.0; w * h],
    };
    let (top, bottom) = (rgb_of(0xf5f7fb), rgb_of(0xd5dbe5));
    for y in 0..h {
        let c = top + (bottom - top) * (y as f64 / h as f64);
        cv.rgb
            .extend(std::iter::repeat_n([c.x as f32, c.y as f32, c.z as f32], w));
    }

    let light = (-fwd * 0.55 + up * 0.7 - right * 0.45).normalize();
    let mut poly = Vec::with_capacity(8);
    let mut clipped = Vec::with_capacity(8);
    for (i, g) in scene.geoms.iter().enumerate() {
        let shape = &scene.shapes[g.shape];
        let (gp, gm) = (state.pos[i], state.mat[i]);
        let base = rgb_of(g.color);
        let cells = if shape.plane {
            ((shape.idx.len() / 6) as f64).sqrt().round() as usize
        } else {
            0
        };
        for (t, tri) in shape.idx.chunks_exact(3).enumerate() {
            let tint = if shape.plane && ((t / 2) / cells.max(1) + (t / 2) % cells.max(1)) % 2 == 1
            {
                0.88
            } else {
                1.0
            };
            poly.clear();
            for &vi in tri {
                let Some((p, n)) = shape.pos.get(vi as usize).zip(shape.nrm.get(vi as usize))
                else {
                    continue;
                };
                let wp = gp + gm * DVec3::new(p[0] as f64, p[1] as f64, p[2] as f64);
                let mut wn = gm * DVec3::new(n[0] as f64, n[1] as f64, n[2] as f64);
                if wn.dot(eye - wp) < 0.0 {
                    wn = -wn;
                }
                let diffuse = wn.dot(light).max(0.0);
                let sky = 0.5 + 0.5 * wn.z;
                let shade = 0.30 + 0.62 * diffuse + 0.12 * sky;
                poly.push((cam.to_cam(wp), base * (shade * tint)));
            }
            if poly.len() != 3 {
                continue;
            }
            clip_near(&poly, cam.near, &mut clipped);
            for k in 1..clipped.len().saturating_sub(1) {
                let sv = |(c, col): (DVec3, DVec3)| {
                    let (x, y, iz) = cam.project(c);
                    SVert { x, y, iz, c: col }
                };
                cv.triangle([sv(clipped[0]), sv(clipped[k]), sv(clipped[k + 1])]);
            }
        }
    }

    // contacts on top; hidden ones faded
    let px = (h as f64 / 700.0).max(1.5);
    for c in &state.contacts {
        let p = cam.to_cam(c.pos);
        if p.z < cam.near || !p.is_finite() {
            continue;
        }
        let (x, y, _) = cam.project(p);
        // hidden: a surface nearer than the contact by more than its depth and 1% of the scene
        let tol = (-c.dist).max(0.0) + 0.01 * scene.size();
        let hidden = cv
            .depth_at(x, y)
            .is_some_and(|d| d > 0.0 && 1.0 / (d as f64) < p.z - tol);
        let alpha = if hidden { 0.75 } else { 1.0 };
        let tip = c.pos + c.frame[0] * scene.normal_length(c.dist);
        let q = cam.to_cam(tip);
        if q.z >= cam.near {
            let (qx, qy, _) = cam.project(q);
            cv.line((x, y), (qx, qy), 1.6 * px, rgb_of(0x202020), alpha);
            cv.line((x, y), (qx, qy), 0.9 * px, rgb_of(0xffb000), alpha);
        }
        let col = if c.dist < 0.0 {
            rgb_of(0xe0102a)
        } else {
            rgb_of(0x1060e0)
        };
        cv.disc(x, y, 5.2 * px, rgb_of(0x101010), alpha);
        cv.disc(x, y, 4.0 * px, col, alpha);
    }

    // average down
    let (ow, oh) = (opts.width as usize, opts.height as usize);
    let mut rgb = Vec::with_capacity(ow * oh * 3);
    for y in 0..oh {
        for x in 0..ow {
            let mut s = [0.0f32; 3];
            for dy in 0..SS {
                for dx in 0..SS {
                    let c = cv.rgb[(y * SS + dy) * w + x * SS + dx];
                    for k in 0..3 {
                        s[k] += c[k];
                    }
                }
            }
            for v in s {
                rgb.push((v / (SS * SS) as f32 * 255.0).round().clamp(0.0, 255.0) as u8);
            }
        }
    }
    Ok(Image {
        width: ow,
        height: oh,
        rgb,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn canvas(w: usize, h: usize) -> Canvas {
        Canvas {
            w,
            h,
            rgb: vec![[0.0; 3]; w * h],
            iz: vec![0.0; w * h],
        }
    }

    fn v(x: f64, y: f64, z: f64, c: f64) -> SVert {
        SVert {
            x,
            y,
            iz: 1.0 / z,
            c: DVec3::splat(c),
        }
    }

    /// The triangle (0,0), (8,0), (0,8) covers pixel centres with x + y < 8 only.
    #[test]
    fn triangle_covers_exactly_its_pixels() {
        let mut cv = canvas(10, 10);
        cv.triangle([
            v(0.0, 0.0, 1.0, 1.0),
            v(8.0, 0.0, 1.0, 1.0),
            v(0.0, 8.0, 1.0, 1.0),
        ]);
        for y in 0..10 {
            for x in 0..10 {
                let inside = (x as f64 + 0.5) + (y as f64 + 0.5) <= 8.0;
                assert_eq!(cv.rgb[y * 10 + x][0] == 1.0, inside, "pixel {x},{y}");
            }
        }
    }

    /// Of two overlapping triangles the nearer one is seen, whatever the drawing order.
    #[test]
    fn z_buffer_keeps_the_nearer_triangle() {
        for near_first in [false, true] {
            let mut cv = canvas(4, 4);
            let far = [
                v(0.0, 0.0, 5.0, 0.2),
                v(4.0, 0.0, 5.0, 0.2),
                v(0.0, 4.0, 5.0, 0.2),
            ];
            let near = [
                v(0.0, 0.0, 2.0, 0.9),
                v(4.0, 0.0, 2.0, 0.9),
                v(0.0, 4.0, 2.0, 0.9),
            ];
            if near_first {
                cv.triangle(near);
                cv.triangle(far);
            } else {
                cv.triangle(far);
                cv.triangle(near);
            }
            assert_eq!(cv.rgb[0][0], 0.9);
            assert!((cv.iz[0] - 0.5).abs() < 1e-6);
        }
    }

    /// A triangle crossing the near plane keeps the part in front: a quad's worth of polygon.
    #[test]
    fn near_clipping_keeps_the_front_part() {
        let poly = [
            (DVec3::new(0.0, 0.0, -1.0), DVec3::ZERO),
            (DVec3::new(1.0, 0.0, 1.0), DVec3::ZERO),
            (DVec3::new(0.0, 1.0, 1.0), DVec3::ZERO),
        ];
        let mut out = Vec::new();
        clip_near(&poly, 0.5, &mut out);
        assert_eq!(out.len(), 4);
        assert!(out.iter().all(|(p, _)| p.z >= 0.5 - 1e-12));
    }
}
