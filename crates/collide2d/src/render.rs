//! PNG and SVG pictures of a scene with its contacts.
//!
//! Both renderers draw the same picture: the pool border (water inside), every shape (circles,
//! boxes, polygons, segments, capsules, compound parts, fish parts), and for every
//! intersecting pair (sort-and-sweep broad phase, then [`crate::contact::contact`]) the manifold
//! points (red dots), the normal from A to B at the action point (green arrow, fixed length),
//! and the minimum translation vector (magenta arrow, to scale). Discs of the ball's radius
//! (0.058 m ± 10 %) are drawn orange as balls; other discs, boxes and polygons grey. World `y`
//! points up; the view fits the scene's bounding box with a 5 % margin, keeping the aspect
//! ratio.

use std::fmt::Write as _;

use glam::DVec2;
use thiserror::Error;

use crate::bounding::aabb;
use crate::scene::Scene;
use crate::shape::{Pose, Shape};

/// Largest image side accepted, pixels.
pub const MAX_SIDE: u32 = 16_384;
/// Largest image area accepted, pixels.
pub const MAX_PIXELS: u64 = 64 * 1024 * 1024;

/// Why an image could not be produced.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum RenderError {
    /// Zero or too large (see [`MAX_SIDE`], [`MAX_PIXELS`]).
    #[error("invalid image size {width}x{height} (each side 1..={MAX_SIDE}, at most {MAX_PIXELS} pixels)")]
    Size {
        /// Requested width.
        width: u32,
        /// Requested height.
        height: u32,
    },
    /// The PNG encoder failed.
    #[error("PNG encoding failed: {0}")]
    Encode(String),
}

type Rgba = [u8; 4];

/// Discs of this radius (± 10 %) are drawn as balls.
const BALL_RADIUS: f64 = 0.058;

const WATER: Rgba = [214, 236, 250, 255];
const BACKGROUND: Rgba = [245, 245, 240, 255];
const OUTLINE: Rgba = [40, 40, 40, 255];
const SEGMENT: Rgba = [20, 20, 20, 255];
const CONTACT: Rgba = [220, 20, 20, 255];
const NORMAL: Rgba = [0, 150, 60, 255];
const MTV: Rgba = [200, 0, 200, 255];
const PALETTE: [Rgba; 6] = [
    [255, 150, 40, 220],
    [120, 120, 130, 220],
    [70, 130, 220, 220],
    [230, 90, 90, 220],
    [90, 180, 120, 220],
    [170, 110, 210, 220],
];

/// A primitive in pixel coordinates.
enum Geom {
    Circle(DVec2, f64),
    Path(Vec<DVec2>, bool),
}

struct Item {
    geom: Geom,
    fill: Option<Rgba>,
    stroke: Option<(Rgba, f64)>,
}

/// World → pixel mapping (uniform scale, `y` flipped).
struct View {
    scale: f64,
    origin: DVec2,
    height: f64,
}

impl View {
    fn fit(scene: &Scene, width: u32, height: u32) -> View {
        let (mut lo, mut hi) = (DVec2::splat(f64::INFINITY), DVec2::splat(f64::NEG_INFINITY));
        for s in &scene.shapes {
            let b = aabb(&s.shape, &s.pose);
            if b.min.is_finite() && b.max.is_finite() {
                lo = lo.min(b.min);
                hi = hi.max(b.max);
            }
        }
        if !(lo.x <= hi.x && lo.y <= hi.y) {
            lo = DVec2::splat(-1.0);
            hi = DVec2::splat(1.0);
        }
        let size = (hi - lo).max(DVec2::splat(1e-6));
        let (lo, size) = (lo - 0.05 * size, 1.1 * size);
        let scale = (width as f64 / size.x).min(height as f64 / size.y);
        // centre the scene in the image
        let pad = DVec2::new(width as f64, height as f64) / scale - size;
        View {
            scale,
            origin: lo - 0.5 * pad,
            height: height as f64,
        }
    }

    fn px(&self, p: DVec2) -> DVec2 {
        let q = (p - self.origin) * self.scale;
        DVec2::new(q.x, self.height - q.y)
    }
}

fn capsule_outline(a: DVec2, b: DVec2, r: f64) -> Vec<DVec2> {
    let d = (b - a).try_normalize().unwrap_or(DVec2::X);
    let base = d.y.atan2(d.x);
    let mut pts = Vec::with_capacity(34);
    for k in 0..=16 {
        let t = base - std::f64::consts::FRAC_PI_2 + std::f64::consts::PI * k as f64 / 16.0;
        pts.push(b + r * DVec2::new(t.cos(), t.sin()));
    }
    for k in 0..=16 {
        let t = base + std::f64::consts::FRAC_PI_2 + std::f64::consts::PI * k as f64 / 16.0;
        pts.push(a + r * DVec2::new(t.cos(), t.sin()));
    }
    pts
}

fn shape_items(shape: &Shape, pose: &Pose, color: Rgba, v: &View, out: &mut Vec<Item>) {
    let solid = |pts: Vec<DVec2>| Item {
        geom: Geom::Path(pts.into_iter().map(|p| v.px(p)).collect(), true),
        fill: Some(color),
        stroke: Some((OUTLINE, 1.0)),
    };
    match shape {
        Shape::Circle { radius } => {
            out.push(Item {
                geom: Geom::Circle(v.px(pose.pos), radius * v.scale),
                fill: Some(color),
                stroke: Some((OUTLINE, 1.0)),
            });
            // a radius line shows the orientation
            let tip = pose.apply(DVec2::new(*radius, 0.0));
            out.push(Item {
                geom: Geom::Path(vec![v.px(pose.pos), v.px(tip)], false),
                fill: None,
                stroke: Some((OUTLINE, 1.0)),
            });
        }
        Shape::Box { poly, .. } | Shape::Polygon(poly) => {
            out.push(solid(poly.verts().iter().map(|p| pose.apply(*p)).collect()))
        }
        Shape::Segment { a, b } => out.push(Item {
            geom: Geom::Path(vec![v.px(pose.apply(*a)), v.px(pose.apply(*b))], false),
            fill: None,
            stroke: Some((SEGMENT, 2.5)),
        }),
        Shape::Capsule { a, b, radius } => out.push(solid(capsule_outline(
            pose.apply(*a),
            pose.apply(*b),
            *radius,
        ))),
        Shape::Border(border) => out.push(Item {
            geom: Geom::Path(
                border
                    .verts()
                    .iter()
                    .map(|p| v.px(pose.apply(*p)))
                    .collect(),
                true,
            ),
            fill: Some(WATER),
            stroke: Some((OUTLINE, 3.0)),
        }),
        Shape::Compound(parts) => {
            for (pp, ps) in parts {
                shape_items(ps, &pose.compose(*pp), color, v, out);
            }
        }
        Shape::Fish { fish, joints } => {
            let poses = fish.part_poses(*pose, *joints);
            for (poly, pp) in fish.parts().iter().zip(poses.iter()) {
                out.push(solid(poly.verts().iter().map(|p| pp.apply(*p)).collect()));
            }
        }
    }
}

fn arrow(from: DVec2, to: DVec2, color: Rgba, out: &mut Vec<Item>) {
    let d = to - from;
    let len = d.length();
    if len.is_nan() || len <= 0.5 {
        return;
    }
    let u = d / len;
    let head = len.min(8.0);
    let side = DVec2::new(-u.y, u.x) * head * 0.45;
    out.push(Item {
        geom: Geom::Path(vec![from, to - u * head * 0.5], false),
        fill: None,
        stroke: Some((color, 2.0)),
    });
    out.push(Item {
        geom: Geom::Path(vec![to, to - u * head + side, to - u * head - side], true),
        fill: Some(color),
        stroke: None,
    });
}

/// Everything to draw, in pixel coordinates, back to front.
fn picture(scene: &Scene, width: u32, height: u32) -> Vec<Item> {
    let v = View::fit(scene, width, height);
    let mut out = Vec::new();
    // borders first (water underneath everything)
    for s in scene
        .shapes
        .iter()
        .filter(|s| matches!(s.shape, Shape::Border(_)))
    {
        shape_items(&s.shape, &s.pose, WATER, &v, &mut out);
    }
    for (i, s) in scene
        .shapes
        .iter()
        .enumerate()
        .filter(|(_, s)| !matches!(s.shape, Shape::Border(_)))
    {
        let color = match s.shape {
            // balls (the pool ball's radius, 0.058 m, ± 10 %) orange, other discs grey
            Shape::Circle { radius } if (radius - BALL_RADIUS).abs() <= 0.1 * BALL_RADIUS => {
                PALETTE[0]
            }
            Shape::Circle { .. } => PALETTE[1],
            Shape::Box { .. } | Shape::Polygon(_) => PALETTE[1],
            Shape::Fish { .. } => PALETTE[2 + i % 4],
            _ => PALETTE[4],
        };
        shape_items(&s.shape, &s.pose, color, &v, &mut out);
    }
    for (_, _, c) in scene.intersecting_pairs() {
        let ap = v.px(c.action_point);
        let n = DVec2::new(c.normal.x, -c.normal.y);
        arrow(ap, ap + n * 30.0, NORMAL, &mut out);
        let m = DVec2::new(c.mtv.x, -c.mtv.y) * v.scale;
        arrow(ap, ap + m, MTV, &mut out);
        for p in &c.points {
            out.push(Item {
                geom: Geom::Circle(v.px(p.point), 3.0),
                fill: Some(CONTACT),
                stroke: None,
            });
        }
    }
    out
}

fn check_size(width: u32, height: u32) -> Result<(), RenderError> {
    if width == 0
        || height == 0
        || width > MAX_SIDE
        || height > MAX_SIDE
        || width as u64 * height as u64 > MAX_PIXELS
    {
        return Err(RenderError::Size { width, height });
    }
    Ok(())
}

/// Renders the scene to a PNG of `width × height` pixels.
pub fn render_png(scene: &Scene, width: u32, height: u32) -> Result<Vec<u8>, RenderError> {
    use tiny_skia::{Color, FillRule, Paint, PathBuilder, Pixmap, Stroke, Transform};
    check_size(width, height)?;
    let mut pm = Pixmap::new(width, height).ok_or(RenderError::Size { width, height })?;
    let [r, g, b, a] = BACKGROUND;
    pm.fill(Color::from_rgba8(r, g, b, a));
    for item in picture(scene, width, height) {
        let path = match &item.geom {
            Geom::Circle(c, rad) => {
                PathBuilder::from_circle(c.x as f32, c.y as f32, (*rad as f32).max(0.5))
            }
            Geom::Path(pts, closed) => {
                let mut pb = PathBuilder::new();
                for (k, p) in pts.iter().enumerate() {
                    if k == 0 {
                        pb.move_to(p.x as f32, p.y as f32);
                    } else {
                        pb.line_to(p.x as f32, p.y as f32);
                    }
                }
                if *closed {
                    pb.close();
                }
                pb.finish()
            }
        };
        let Some(path) = path else { continue };
        let mut paint = Paint {
            anti_alias: true,
            ..Paint::default()
        };
        if let Some([r, g, b, a]) = item.fill {
            paint.set_color_rgba8(r, g, b, a);
            pm.fill_path(
                &path,
                &paint,
                FillRule::Winding,
                Transform::identity(),
                None,
            );
        }
        if let Some(([r, g, b, a], w)) = item.stroke {
            paint.set_color_rgba8(r, g, b, a);
            let stroke = Stroke {
                width: w as f32,
                ..Stroke::default()
            };
            pm.stroke_path(&path, &paint, &stroke, Transform::identity(), None);
        }
    }
    pm.encode_png()
        .map_err(|e| RenderError::Encode(e.to_string()))
}

fn svg_paint(kind: &str, c: Rgba) -> String {
    format!(
        " {kind}=\"rgb({},{},{})\" {kind}-opacity=\"{:.3}\"",
        c[0],
        c[1],
        c[2],
        c[3] as f64 / 255.0
    )
}

fn paint_attrs(item: &Item) -> String {
    let mut s = match item.fill {
        Some(c) => svg_paint("fill", c),
        None => " fill=\"none\"".to_string(),
    };
    if let Some((c, w)) = item.stroke {
        s.push_str(&svg_paint("stroke", c));
        let _ = write!(s, " stroke-width=\"{w}\" stroke-linejoin=\"round\"");
    }
    s
}

/// Renders the scene as an SVG document of `width × height` user units (the same picture as
/// [`render_png`]). Sizes are clamped to at least 1.
pub fn render_svg(scene: &Scene, width: u32, height: u32) -> String {
    let (width, height) = (width.max(1), height.max(1));
    let mut s = String::new();
    let _ = writeln!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\">"
    );
    let [r, g, b, _] = BACKGROUND;
    let _ = writeln!(
        s,
        "<rect width=\"{width}\" height=\"{height}\" fill=\"rgb({r},{g},{b})\"/>"
    );
    for item in picture(scene, width, height) {
        match &item.geom {
            Geom::Circle(c, rad) => {
                let _ = writeln!(
                    s,
                    "<circle cx=\"{:.2}\" cy=\"{:.2}\" r=\"{:.2}\"{}/>",
                    c.x,
                    c.y,
                    rad.max(0.5),
                    paint_attrs(&item)
                );
            }
            Geom::Path(pts, closed) => {
                let mut d = String::new();
                for (k, p) in pts.iter().enumerate() {
                    let _ = write!(
                        d,
                        "{}{:.2} {:.2} ",
                        if k == 0 { "M" } else { "L" },
                        p.x,
                        p.y
                    );
                }
                if *closed {
                    d.push('Z');
                }
                let _ = writeln!(s, "<path d=\"{}\"{}/>", d.trim_end(), paint_attrs(&item));
            }
        }
    }
    s.push_str("</svg>\n");
    s
}
