//! Rendering the demo pool: PNG size and content, SVG structure, bad sizes.

use collide2d::render::{render_png, render_svg, RenderError};
use collide2d::scene::{parse_scene, Scene};

const DEMO: &str = include_str!("../assets/demo_pool.json");

fn decode(png: &[u8]) -> tiny_skia::Pixmap {
    tiny_skia::Pixmap::decode_png(png).expect("a valid PNG")
}

#[test]
fn demo_png_has_size_and_drawing() {
    let scene = parse_scene(DEMO).unwrap();
    let png = render_png(&scene, 900, 600).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    let pm = decode(&png);
    assert_eq!((pm.width(), pm.height()), (900, 600));
    let px = pm.pixels();
    let count = |f: &dyn Fn(u8, u8, u8) -> bool| {
        px.iter()
            .filter(|p| f(p.red(), p.green(), p.blue()))
            .count()
    };
    // background corner, water in the middle of the pool
    let corner = px[0];
    assert_eq!(
        (corner.red(), corner.green(), corner.blue()),
        (245, 245, 240)
    );
    let water = count(&|r, g, b| (r, g, b) == (214, 236, 250));
    assert!(water > px.len() / 3, "water pixels: {water}");
    // balls (orange), outlines (dark), contact points (red), normals (green)
    assert!(
        count(&|r, g, b| r > 200 && (120..190).contains(&g) && b < 90) > 500,
        "ball pixels"
    );
    assert!(
        count(&|r, g, b| r < 70 && g < 70 && b < 70) > 1000,
        "outline pixels"
    );
    assert!(
        count(&|r, g, b| r > 190 && g < 60 && b < 60) > 20,
        "contact points"
    );
    assert!(
        count(&|r, g, b| r < 40 && g > 120 && b < 90) > 20,
        "normal arrows"
    );
    // the picture is not symmetric noise: distinct colours abound
    let distinct: std::collections::HashSet<_> =
        px.iter().map(|p| (p.red(), p.green(), p.blue())).collect();
    assert!(distinct.len() > 20);
}

#[test]
fn demo_svg_has_shapes_and_contacts() {
    let scene = parse_scene(DEMO).unwrap();
    let svg = render_svg(&scene, 900, 600);
    assert!(
        svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"900\" height=\"600\"")
    );
    assert!(svg.trim_end().ends_with("</svg>"));
    // 11 discs (9 balls, 2 round obstacles) + at least one red contact dot per intersecting pair
    let pairs = scene.intersecting_pairs().len();
    assert!(pairs >= 4);
    assert!(svg.matches("<circle").count() >= 11 + pairs);
    // border + 4 fish × 7 parts + 2 boxes, plus arrows
    assert!(svg.matches("<path").count() >= 1 + 28 + 2 + 2 * pairs);
    assert!(svg.contains("fill=\"rgb(214,236,250)\""), "water");
    assert!(svg.contains("rgb(0,150,60)"), "normal arrows");
    assert!(!svg.contains("NaN") && !svg.contains("inf"));
}

#[test]
fn bad_sizes_and_empty_scene() {
    let scene = Scene::default();
    assert_eq!(
        render_png(&scene, 0, 10),
        Err(RenderError::Size {
            width: 0,
            height: 10
        })
    );
    assert!(matches!(
        render_png(&scene, 100_000, 100_000),
        Err(RenderError::Size { .. })
    ));
    let pm = decode(&render_png(&scene, 16, 8).unwrap());
    assert_eq!((pm.width(), pm.height()), (16, 8));
    assert!(render_svg(&scene, 0, 0).contains("width=\"1\""));
    // a single segment and a capsule render without panicking
    let s = parse_scene(r#"{"shapes":[{"type":"segment","a":[0,0],"b":[1,0]},{"type":"capsule","a":[0,1],"b":[0,1],"radius":0.1}]}"#).unwrap();
    assert!(render_png(&s, 64, 64).is_ok());
    assert!(render_svg(&s, 64, 64).contains("<path"));
}
