//! Narrow-phase contacts with answers worked out by hand (to 1e-9): every shape pair, every
//! Voronoi region of circle vs box and circle vs segment, the degenerate cases, the border,
//! compounds and fish part ids.

use collide2d::contact::{contact, Contact, EPS_TOUCH, VERTEX_BIT};
use collide2d::{Pose, Shape};
use glam::DVec2;
use std::f64::consts::{FRAC_PI_2, FRAC_PI_4, SQRT_2};

const TOL: f64 = 1e-9;

fn v(x: f64, y: f64) -> DVec2 {
    DVec2::new(x, y)
}
fn at(x: f64, y: f64) -> Pose {
    Pose::new(v(x, y), 0.0)
}
fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= TOL * (1.0 + b.abs())
}
#[track_caller]
fn assert_f(a: f64, b: f64) {
    assert!(close(a, b), "got {a}, expected {b}");
}
#[track_caller]
fn assert_v(a: DVec2, b: DVec2) {
    assert!(
        close(a.x, b.x) && close(a.y, b.y),
        "got {a:?}, expected {b:?}"
    );
}
fn circle(r: f64) -> Shape {
    Shape::circle(r).unwrap()
}
fn rect(hx: f64, hy: f64) -> Shape {
    Shape::rect(v(hx, hy)).unwrap()
}
fn seg(a: DVec2, b: DVec2) -> Shape {
    Shape::segment(a, b).unwrap()
}
fn capsule(a: DVec2, b: DVec2, r: f64) -> Shape {
    Shape::capsule(a, b, r).unwrap()
}
fn edge(i: u32) -> u32 {
    i
}
fn vert(i: u32) -> u32 {
    i | VERTEX_BIT
}
fn feat(a: u32, b: u32) -> u32 {
    (a << 16) | b
}

/// Checks the invariants every contact satisfies, then the expected depth/normal/witnesses.
#[track_caller]
fn check(c: &Contact, depth: f64, normal: DVec2, wa: DVec2, wb: DVec2) {
    assert_f(c.depth, depth);
    assert_v(c.normal, normal);
    assert_v(c.witness_a, wa);
    assert_v(c.witness_b, wb);
    assert_v(c.mtv, depth * normal);
    assert_f(c.normal.length(), 1.0);
    assert_eq!(c.intersect, c.depth >= -EPS_TOUCH);
    assert_eq!(c.speculative, !c.intersect);
    assert!(!c.points.is_empty() && c.points.len() <= 2);
    if c.points.len() == 1 {
        assert_v(c.action_point, 0.5 * (wa + wb));
    }
}

// ---------------------------------------------------------------- circle–circle

#[test]
fn circle_circle_overlap() {
    let c = contact(
        &circle(1.0),
        &at(0.0, 0.0),
        &circle(0.5),
        &at(1.2, 0.0),
        0.0,
    )
    .unwrap();
    check(&c, 0.3, v(1.0, 0.0), v(1.0, 0.0), v(0.7, 0.0));
    assert!(c.intersect && !c.speculative);
    assert_v(c.action_point, v(0.85, 0.0));
    assert_eq!(c.points.len(), 1);
    assert_f(c.points[0].separation, -0.3);
    assert_eq!(c.points[0].feature, feat(vert(0), vert(0)));
    assert_eq!((c.part_a, c.part_b), (None, None));
}

#[test]
fn circle_circle_diagonal() {
    // centres 5 apart along (3, 4)/5, radii 2 + 4 => depth 1
    let c = contact(
        &circle(2.0),
        &at(1.0, 1.0),
        &circle(4.0),
        &at(4.0, 5.0),
        0.0,
    )
    .unwrap();
    check(&c, 1.0, v(0.6, 0.8), v(2.2, 2.6), v(1.6, 1.8));
}

#[test]
fn circle_circle_touching_counts_as_intersecting() {
    let c = contact(
        &circle(1.0),
        &at(0.0, 0.0),
        &circle(1.0),
        &at(2.0, 0.0),
        0.0,
    )
    .unwrap();
    check(&c, 0.0, v(1.0, 0.0), v(1.0, 0.0), v(1.0, 0.0));
    assert!(c.intersect && !c.speculative);
}

#[test]
fn circle_circle_speculative_and_culled() {
    let (a, b) = (circle(1.0), circle(1.0));
    // 0.01 apart
    let c = contact(&a, &at(0.0, 0.0), &b, &at(2.01, 0.0), 0.02).unwrap();
    check(&c, -0.01, v(1.0, 0.0), v(1.0, 0.0), v(1.01, 0.0));
    assert!(!c.intersect && c.speculative);
    assert_f(c.points[0].separation, 0.01);
    // outside the margin: no contact (Box2D would still report a point at 0.03 only without margin)
    assert!(contact(&a, &at(0.0, 0.0), &b, &at(2.03, 0.0), 0.02).is_none());
    assert!(contact(&a, &at(0.0, 0.0), &b, &at(2.01, 0.0), 0.0).is_none());
    // negative and NaN margins count as zero
    assert!(contact(&a, &at(0.0, 0.0), &b, &at(2.01, 0.0), -1.0).is_none());
    assert!(contact(&a, &at(0.0, 0.0), &b, &at(2.01, 0.0), f64::NAN).is_none());
}

#[test]
fn concentric_circles_normal_is_plus_x() {
    let c = contact(
        &circle(1.0),
        &Pose::new(v(3.0, 4.0), 0.7),
        &circle(2.0),
        &Pose::new(v(3.0, 4.0), -1.0),
        0.0,
    )
    .unwrap();
    check(&c, 3.0, v(1.0, 0.0), v(4.0, 4.0), v(1.0, 4.0));
    assert_eq!(c.normal, DVec2::X);
}

// ---------------------------------------------------------------- circle vs box: every Voronoi region
// box A: half (2, 1) at the origin. Edges: 0 bottom (normal -y), 1 right (+x), 2 top (+y), 3 left (-x).
// Vertices: 0 (-2,-1), 1 (2,-1), 2 (2,1), 3 (-2,1).

fn box_circle(c: DVec2, r: f64, margin: f64) -> Option<Contact> {
    contact(
        &rect(2.0, 1.0),
        &Pose::IDENTITY,
        &circle(r),
        &Pose::new(c, 0.3),
        margin,
    )
}

#[test]
fn circle_box_face_regions() {
    // right face
    let c = box_circle(v(2.3, 0.4), 0.5, 0.0).unwrap();
    check(&c, 0.2, v(1.0, 0.0), v(2.0, 0.4), v(1.8, 0.4));
    assert_eq!(c.points[0].feature, feat(edge(1), vert(0)));
    // top face
    let c = box_circle(v(-1.0, 1.25), 0.5, 0.0).unwrap();
    check(&c, 0.25, v(0.0, 1.0), v(-1.0, 1.0), v(-1.0, 0.75));
    assert_eq!(c.points[0].feature, feat(edge(2), vert(0)));
    // left face
    let c = box_circle(v(-2.4, -0.5), 0.5, 0.0).unwrap();
    check(&c, 0.1, v(-1.0, 0.0), v(-2.0, -0.5), v(-1.9, -0.5));
    // bottom face
    let c = box_circle(v(0.5, -1.45), 0.5, 0.0).unwrap();
    check(&c, 0.05, v(0.0, -1.0), v(0.5, -1.0), v(0.5, -0.95));
}

#[test]
fn circle_box_vertex_regions() {
    // vertex 2 (2, 1): centre offset (0.24, 0.32), length 0.4
    let c = box_circle(v(2.24, 1.32), 0.5, 0.0).unwrap();
    check(&c, 0.1, v(0.6, 0.8), v(2.0, 1.0), v(1.94, 0.92));
    assert_eq!(c.points[0].feature, feat(vert(2), vert(0)));
    // vertex 0 (-2, -1): offset (-0.3, -0.4)
    let c = box_circle(v(-2.3, -1.4), 0.6, 0.0).unwrap();
    check(&c, 0.1, v(-0.6, -0.8), v(-2.0, -1.0), v(-1.94, -0.92));
    assert_eq!(c.points[0].feature, feat(vert(0), vert(0)));
    // vertex 1 (2, -1), separated by 0.5 with margin 1: speculative
    let c = box_circle(v(2.6, -1.8), 0.5, 1.0).unwrap();
    check(&c, -0.5, v(0.6, -0.8), v(2.0, -1.0), v(2.3, -1.4));
    assert!(c.speculative && !c.intersect);
    // vertex 3 (-2, 1), separated beyond the margin
    assert!(box_circle(v(-2.6, 1.8), 0.5, 0.1).is_none());
}

#[test]
fn circle_box_inside() {
    // nearest face is the right one (distance 0.5): depth 0.5 + r
    let c = box_circle(v(1.5, 0.2), 0.5, 0.0).unwrap();
    check(&c, 1.0, v(1.0, 0.0), v(2.0, 0.2), v(1.0, 0.2));
    // nearest face is the bottom one (distance 0.1)
    let c = box_circle(v(-0.3, -0.9), 0.25, 0.0).unwrap();
    check(&c, 0.35, v(0.0, -1.0), v(-0.3, -1.0), v(-0.3, -0.65));
}

#[test]
fn circle_centre_on_edge_and_vertex() {
    // exactly on the right edge: face 1, depth = r
    let c = box_circle(v(2.0, 0.3), 0.5, 0.0).unwrap();
    check(&c, 0.5, v(1.0, 0.0), v(2.0, 0.3), v(1.5, 0.3));
    // exactly on vertex 2: faces 1 and 2 tie at separation 0 -> lowest index, face 1
    let c = box_circle(v(2.0, 1.0), 0.5, 0.0).unwrap();
    check(&c, 0.5, v(1.0, 0.0), v(2.0, 1.0), v(1.5, 1.0));
}

#[test]
fn circle_centre_at_polygon_centroid() {
    // square: all four faces tie -> edge 0 (bottom), normal -y
    let c = contact(
        &rect(1.0, 1.0),
        &Pose::IDENTITY,
        &circle(0.5),
        &Pose::IDENTITY,
        0.0,
    )
    .unwrap();
    check(&c, 1.5, v(0.0, -1.0), v(0.0, -1.0), v(0.0, 0.5));
    // swapped: circle A, box B: normal from the circle to the box is +y
    let c = contact(
        &circle(0.5),
        &Pose::IDENTITY,
        &rect(1.0, 1.0),
        &Pose::IDENTITY,
        0.0,
    )
    .unwrap();
    check(&c, 1.5, v(0.0, 1.0), v(0.0, 0.5), v(0.0, -1.0));
    // a triangle: vertices (0,0), (3,0), (0,3); centroid (1,1) is 1 from edges 0 and 2 and
    // 1/sqrt(2) from the hypotenuse (edge 1) -> edge 1
    let tri = Shape::polygon(vec![v(0.0, 0.0), v(3.0, 0.0), v(0.0, 3.0)]).unwrap();
    let c = contact(&tri, &Pose::IDENTITY, &circle(0.1), &at(1.0, 1.0), 0.0).unwrap();
    let s = 1.0 / SQRT_2;
    check(
        &c,
        s + 0.1,
        v(s, s),
        v(1.5, 1.5),
        v(1.0 - 0.1 * s, 1.0 - 0.1 * s),
    );
}

#[test]
fn circle_box_rotated() {
    // box rotated by 90 degrees: its local right face now faces +y
    let pa = Pose::new(v(1.0, 1.0), FRAC_PI_2);
    let c = contact(&rect(2.0, 1.0), &pa, &circle(0.5), &at(1.0, 3.3), 0.0).unwrap();
    check(&c, 0.2, v(0.0, 1.0), v(1.0, 3.0), v(1.0, 2.8));
    // rotated by 45 degrees: a unit square's corner points along +x at distance sqrt(2)
    let c = contact(
        &rect(1.0, 1.0),
        &Pose::new(DVec2::ZERO, FRAC_PI_4),
        &circle(1.0),
        &at(SQRT_2 + 0.75, 0.0),
        0.0,
    )
    .unwrap();
    check(&c, 0.25, v(1.0, 0.0), v(SQRT_2, 0.0), v(SQRT_2 - 0.25, 0.0));
}

// ---------------------------------------------------------------- circle vs segment: every region
// segment A: (0,0)-(4,0); edge 0 normal (0,-1), edge 1 normal (0,1).

fn seg_circle(c: DVec2, r: f64) -> Option<Contact> {
    contact(
        &seg(v(0.0, 0.0), v(4.0, 0.0)),
        &Pose::IDENTITY,
        &circle(r),
        &at(c.x, c.y),
        0.0,
    )
}

#[test]
fn circle_segment_regions() {
    // face region, above (edge 1)
    let c = seg_circle(v(1.0, 0.5), 1.0).unwrap();
    check(&c, 0.5, v(0.0, 1.0), v(1.0, 0.0), v(1.0, -0.5));
    assert_eq!(c.points[0].feature, feat(edge(1), vert(0)));
    // face region, below (edge 0)
    let c = seg_circle(v(3.0, -0.25), 1.0).unwrap();
    check(&c, 0.75, v(0.0, -1.0), v(3.0, 0.0), v(3.0, 0.75));
    assert_eq!(c.points[0].feature, feat(edge(0), vert(0)));
    // vertex a region
    let c = seg_circle(v(-0.3, 0.4), 1.0).unwrap();
    check(&c, 0.5, v(-0.6, 0.8), v(0.0, 0.0), v(0.3, -0.4));
    assert_eq!(c.points[0].feature, feat(vert(0), vert(0)));
    // vertex b region, on the segment's line beyond the end
    let c = seg_circle(v(4.5, 0.0), 1.0).unwrap();
    check(&c, 0.5, v(1.0, 0.0), v(4.0, 0.0), v(3.5, 0.0));
    assert_eq!(c.points[0].feature, feat(vert(1), vert(0)));
    // centre exactly on the segment: edge-0 normal (0,-1)
    let c = seg_circle(v(2.0, 0.0), 1.0).unwrap();
    check(&c, 1.0, v(0.0, -1.0), v(2.0, 0.0), v(2.0, 1.0));
    // centre exactly at an end: still the edge-0 normal
    let c = seg_circle(v(0.0, 0.0), 1.0).unwrap();
    check(&c, 1.0, v(0.0, -1.0), v(0.0, 0.0), v(0.0, 1.0));
    // far away
    assert!(seg_circle(v(2.0, 3.0), 1.0).is_none());
}

#[test]
fn circle_capsule() {
    let cap = capsule(v(0.0, 0.0), v(4.0, 0.0), 0.5);
    let c = contact(&cap, &Pose::IDENTITY, &circle(1.0), &at(2.0, 1.2), 0.0).unwrap();
    check(&c, 0.3, v(0.0, 1.0), v(2.0, 0.5), v(2.0, 0.2));
    // end cap region
    let c = contact(&cap, &Pose::IDENTITY, &circle(1.0), &at(-0.6, -0.8), 0.0).unwrap();
    check(&c, 0.5, v(-0.6, -0.8), v(-0.3, -0.4), v(0.0, 0.0));
    // a capsule with coincident ends is a circle: concentric -> +x
    let dot = capsule(v(1.0, 1.0), v(1.0, 1.0), 0.5);
    let c = contact(&circle(1.0), &at(1.0, 1.0), &dot, &Pose::IDENTITY, 0.0).unwrap();
    check(&c, 1.5, v(1.0, 0.0), v(2.0, 1.0), v(0.5, 1.0));
}

// ---------------------------------------------------------------- polygon–polygon (SAT + clipping)

#[test]
fn box_box_face_face_two_points() {
    let c = contact(
        &rect(1.0, 1.0),
        &Pose::IDENTITY,
        &rect(1.0, 1.0),
        &at(1.5, 0.5),
        0.0,
    )
    .unwrap();
    // witnesses: the first deepest clipped point (0.5, 1) of B and its projection on A's face
    check(&c, 0.5, v(1.0, 0.0), v(1.0, 1.0), v(0.5, 1.0));
    assert_eq!(c.points.len(), 2);
    assert_v(c.points[0].point, v(0.75, 1.0));
    assert_v(c.points[1].point, v(0.75, -0.5));
    assert_f(c.points[0].separation, -0.5);
    assert_f(c.points[1].separation, -0.5);
    // reference edge 1 of A, incident vertices 3 and 0 of B
    assert_eq!(c.points[0].feature, feat(edge(1), vert(3)));
    assert_eq!(c.points[1].feature, feat(edge(1), vert(0)));
    assert_v(c.action_point, v(0.75, 0.25));
}

#[test]
fn box_box_reference_on_b() {
    // B is the wider box: its bottom face is the reference (separation along B's normal is
    // larger: A's faces give -0.3 on top; B's bottom face gives -0.3 too -> tie goes to A).
    // Make B's face strictly better: A narrow tall box poking into B's bottom face.
    let a = rect(0.5, 2.0);
    let b = rect(3.0, 1.0);
    // A spans y in [-2, 2]; B at y = 2.7 spans [1.7, 3.7]: overlap 0.3 along y.
    let c = contact(&a, &Pose::IDENTITY, &b, &at(0.0, 2.7), 0.0).unwrap();
    check(&c, 0.3, v(0.0, 1.0), v(-0.5, 2.0), v(-0.5, 1.7));
    assert_eq!(c.points.len(), 2);
    // reference: B's bottom edge 0 ((-3,-1)->(3,-1) local), incident: A's top edge 2 (vertices 2, 3)
    let xs: Vec<f64> = c.points.iter().map(|p| p.point.x).collect();
    assert!(xs.contains(&0.5) || close(xs[0], 0.5) || close(xs[1], 0.5));
    for p in &c.points {
        assert_f(p.separation, -0.3);
        assert_f(p.point.y, 1.85);
    }
    // tie between A's top face (-0.3) and B's bottom face (-0.3): A's face is the reference
    assert_eq!(c.points[0].feature >> 16, edge(2));
}

#[test]
fn box_corner_into_face_one_point() {
    // B: unit square rotated 45 degrees; its left corner at x = 0.9 inside A's right face (x = 1)
    let pb = Pose::new(v(0.9 + SQRT_2, 0.0), FRAC_PI_4);
    let c = contact(&rect(1.0, 1.0), &Pose::IDENTITY, &rect(1.0, 1.0), &pb, 0.0).unwrap();
    check(&c, 0.1, v(1.0, 0.0), v(1.0, 0.0), v(0.9, 0.0));
    assert_eq!(
        c.points.len(),
        1,
        "the second clipped point is 0.9 away and culled"
    );
    assert_v(c.points[0].point, v(0.95, 0.0));
    // with a margin of 1 the far point is kept (speculative point of the manifold)
    let c = contact(&rect(1.0, 1.0), &Pose::IDENTITY, &rect(1.0, 1.0), &pb, 1.0).unwrap();
    assert_eq!(c.points.len(), 2);
    assert!(c.intersect);
}

#[test]
fn box_box_separated_vertex_vertex() {
    // corner (1,1) of A and corner (2,2.5) of B (B half (0.5,0.5) at (2.5,3)): gap (1,1.5)
    let c = contact(
        &rect(1.0, 1.0),
        &Pose::IDENTITY,
        &rect(0.5, 0.5),
        &at(2.5, 3.0),
        5.0,
    )
    .unwrap();
    let d = (1.0f64 + 2.25).sqrt();
    check(&c, -d, v(1.0, 1.5) / d, v(1.0, 1.0), v(2.0, 2.5));
    assert!(c.speculative);
    assert_eq!(c.points.len(), 1);
    assert_eq!(c.points[0].feature, feat(vert(2), vert(0)));
}

#[test]
fn box_box_separated_face_two_points() {
    // parallel faces 0.01 apart, margin 0.02: two speculative points (Box2D-style)
    let c = contact(
        &rect(1.0, 1.0),
        &Pose::IDENTITY,
        &rect(1.0, 0.5),
        &at(0.5, 1.51),
        0.02,
    )
    .unwrap();
    check(&c, -0.01, v(0.0, 1.0), c.witness_a, c.witness_b);
    assert_f(c.witness_b.y - c.witness_a.y, 0.01);
    assert_eq!(c.points.len(), 2);
    for p in &c.points {
        assert_f(p.separation, 0.01);
        assert_f(p.point.y, 1.005);
    }
    assert_v(c.action_point, v(0.25, 1.005));
}

#[test]
fn identical_boxes_same_pose() {
    // every face ties at -2: A's edge 0 (normal -y)
    let c = contact(
        &rect(1.0, 1.0),
        &at(3.0, 3.0),
        &rect(1.0, 1.0),
        &at(3.0, 3.0),
        0.0,
    )
    .unwrap();
    assert_f(c.depth, 2.0);
    assert_v(c.normal, v(0.0, -1.0));
}

#[test]
fn polygon_triangle_vs_box() {
    // triangle (0,0), (2,0), (1,1) pointing up into a box whose bottom face is at y = 0.8
    let tri = Shape::polygon(vec![v(0.0, 0.0), v(2.0, 0.0), v(1.0, 1.0)]).unwrap();
    let c = contact(&tri, &Pose::IDENTITY, &rect(2.0, 0.5), &at(1.0, 1.3), 0.0).unwrap();
    check(&c, 0.2, v(0.0, 1.0), v(1.0, 1.0), v(1.0, 0.8));
    assert_eq!(c.points.len(), 1);
}

// ---------------------------------------------------------------- segments and capsules

#[test]
fn segment_segment_crossing() {
    let c = contact(
        &seg(v(-1.0, 0.0), v(1.0, 0.0)),
        &Pose::IDENTITY,
        &seg(v(0.0, -1.0), v(0.0, 1.0)),
        &Pose::IDENTITY,
        0.0,
    )
    .unwrap();
    // all axes tie at -1: A's edge 0 (normal -y); the deepest point of B along +y is (0, 1)
    check(&c, 1.0, v(0.0, -1.0), v(0.0, 0.0), v(0.0, 1.0));
    assert_eq!(c.points.len(), 1);
    assert_v(c.points[0].point, v(0.0, 0.5));
}

#[test]
fn segment_segment_x_crossing_shallow() {
    // B crosses A near its top end: B from (0.5, -0.2) to (0.5, 3): depth along A's normal 0.2
    let c = contact(
        &seg(v(0.0, 0.0), v(2.0, 0.0)),
        &Pose::IDENTITY,
        &seg(v(0.5, -0.2), v(0.5, 3.0)),
        &Pose::IDENTITY,
        0.0,
    )
    .unwrap();
    check(&c, 0.2, v(0.0, 1.0), v(0.5, 0.0), v(0.5, -0.2));
}

#[test]
fn segment_segment_parallel_separated_two_points() {
    let c = contact(
        &seg(v(0.0, 0.0), v(2.0, 0.0)),
        &Pose::IDENTITY,
        &seg(v(0.5, 0.3), v(1.5, 0.3)),
        &Pose::IDENTITY,
        0.5,
    )
    .unwrap();
    assert_f(c.depth, -0.3);
    assert_v(c.normal, v(0.0, 1.0));
    assert!(c.speculative);
    assert_eq!(c.points.len(), 2);
    assert_v(c.points[0].point, v(0.5, 0.15));
    assert_v(c.points[1].point, v(1.5, 0.15));
}

#[test]
fn segment_segment_collinear() {
    let a = seg(v(0.0, 0.0), v(2.0, 0.0));
    // overlapping collinear: depth 0 with A's edge-0 normal (0,-1)
    let c = contact(
        &a,
        &Pose::IDENTITY,
        &seg(v(1.0, 0.0), v(3.0, 0.0)),
        &Pose::IDENTITY,
        0.0,
    )
    .unwrap();
    assert_f(c.depth, 0.0);
    assert_v(c.normal, v(0.0, -1.0));
    assert!(c.intersect);
    // collinear with a gap of 1: the end caps separate them exactly
    let c = contact(
        &a,
        &Pose::IDENTITY,
        &seg(v(3.0, 0.0), v(5.0, 0.0)),
        &Pose::IDENTITY,
        2.0,
    )
    .unwrap();
    check(&c, -1.0, v(1.0, 0.0), v(2.0, 0.0), v(3.0, 0.0));
    assert!(contact(
        &a,
        &Pose::IDENTITY,
        &seg(v(3.0, 0.0), v(5.0, 0.0)),
        &Pose::IDENTITY,
        0.5
    )
    .is_none());
}

#[test]
fn coincident_segments() {
    let a = seg(v(0.0, 0.0), v(1.0, 1.0));
    let c = contact(&a, &Pose::IDENTITY, &a, &Pose::IDENTITY, 0.0).unwrap();
    assert_f(c.depth, 0.0);
    // A's edge-0 normal: (b - a) rotated by -90 degrees
    assert_v(c.normal, v(1.0, -1.0) / SQRT_2);
    // same segment with reversed ends as B: still A's edge-0 normal
    let b = seg(v(1.0, 1.0), v(0.0, 0.0));
    let c = contact(&a, &Pose::IDENTITY, &b, &Pose::IDENTITY, 0.0).unwrap();
    assert_v(c.normal, v(1.0, -1.0) / SQRT_2);
}

#[test]
fn capsule_capsule_parallel_two_points() {
    let a = capsule(v(0.0, 0.0), v(2.0, 0.0), 0.5);
    let b = capsule(v(1.0, 0.8), v(3.0, 0.8), 0.5);
    let c = contact(&a, &Pose::IDENTITY, &b, &Pose::IDENTITY, 0.0).unwrap();
    assert_f(c.depth, 0.2);
    assert_v(c.normal, v(0.0, 1.0));
    assert_f(c.witness_a.y, 0.5);
    assert_f(c.witness_b.y, 0.3);
    assert_eq!(c.points.len(), 2);
    assert_v(c.points[0].point, v(1.0, 0.4));
    assert_v(c.points[1].point, v(2.0, 0.4));
    assert_v(c.action_point, v(1.5, 0.4));
}

#[test]
fn capsule_capsule_crossing() {
    // cores cross at the origin: SAT depth of the cores 1 (A's edge 0) plus both radii
    let a = capsule(v(-1.0, 0.0), v(1.0, 0.0), 0.25);
    let b = capsule(v(0.0, -1.0), v(0.0, 1.0), 0.5);
    let c = contact(&a, &Pose::IDENTITY, &b, &Pose::IDENTITY, 0.0).unwrap();
    check(&c, 1.75, v(0.0, -1.0), v(0.0, -0.25), v(0.0, 1.5));
}

#[test]
fn capsule_capsule_end_to_end() {
    // collinear capsules, cores 1 apart, radii 0.75 + 0.5
    let a = capsule(v(0.0, 0.0), v(2.0, 0.0), 0.75);
    let b = capsule(v(3.0, 0.0), v(5.0, 0.0), 0.5);
    let c = contact(&a, &Pose::IDENTITY, &b, &Pose::IDENTITY, 0.0).unwrap();
    check(&c, 0.25, v(1.0, 0.0), v(2.75, 0.0), v(2.5, 0.0));
}

#[test]
fn capsule_box_two_points() {
    let cap = capsule(v(-0.5, 1.3), v(0.5, 1.3), 0.5);
    let c = contact(&rect(1.0, 1.0), &Pose::IDENTITY, &cap, &Pose::IDENTITY, 0.0).unwrap();
    assert_f(c.depth, 0.2);
    assert_v(c.normal, v(0.0, 1.0));
    assert_eq!(c.points.len(), 2);
    assert_v(c.points[0].point, v(-0.5, 0.9));
    assert_v(c.points[1].point, v(0.5, 0.9));
    // capsule end poking into the box's right face
    let cap = capsule(v(1.2, 0.3), v(3.0, 0.3), 0.4);
    let c = contact(&rect(1.0, 1.0), &Pose::IDENTITY, &cap, &Pose::IDENTITY, 0.0).unwrap();
    check(&c, 0.2, v(1.0, 0.0), v(1.0, 0.3), v(0.8, 0.3));
}

#[test]
fn capsule_box_vertex_region_separated() {
    // capsule end near the box corner (1,1): core end (1.6, 1.8) -> gap 1, minus r 0.5
    let cap = capsule(v(1.6, 1.8), v(4.0, 5.0), 0.5);
    let c = contact(&rect(1.0, 1.0), &Pose::IDENTITY, &cap, &Pose::IDENTITY, 1.0).unwrap();
    check(&c, -0.5, v(0.6, 0.8), v(1.0, 1.0), v(1.3, 1.4));
}

#[test]
fn segment_box() {
    // a segment lying across the top of a box, 0.1 inside
    let s = seg(v(-3.0, 0.9), v(3.0, 0.9));
    let c = contact(&rect(1.0, 1.0), &Pose::IDENTITY, &s, &Pose::IDENTITY, 0.0).unwrap();
    assert_f(c.depth, 0.1);
    assert_v(c.normal, v(0.0, 1.0));
    assert_eq!(c.points.len(), 2);
    assert_v(c.points[0].point, v(-1.0, 0.95));
    assert_v(c.points[1].point, v(1.0, 0.95));
}

// ---------------------------------------------------------------- border

fn pool() -> Shape {
    Shape::border(vec![v(0.0, 0.0), v(10.0, 0.0), v(10.0, 5.0), v(0.0, 5.0)]).unwrap()
}

#[test]
fn border_circle_inside_touching_wall() {
    let c = contact(&pool(), &Pose::IDENTITY, &circle(0.5), &at(3.0, 0.3), 0.0).unwrap();
    check(&c, 0.2, v(0.0, 1.0), v(3.0, 0.0), v(3.0, -0.2));
    assert_eq!(c.points[0].feature >> 16, 0, "bottom edge");
    // swapped: normal from the circle to the border
    let c = contact(&circle(0.5), &at(3.0, 0.3), &pool(), &Pose::IDENTITY, 0.0).unwrap();
    check(&c, 0.2, v(0.0, -1.0), v(3.0, -0.2), v(3.0, 0.0));
    // clear of the walls
    assert!(contact(&pool(), &Pose::IDENTITY, &circle(0.5), &at(3.0, 2.0), 0.0).is_none());
    // speculative near the top wall
    let c = contact(&pool(), &Pose::IDENTITY, &circle(0.5), &at(3.0, 4.49), 0.02).unwrap();
    check(&c, -0.01, v(0.0, -1.0), v(3.0, 5.0), v(3.0, 4.99));
}

#[test]
fn border_circle_centre_outside() {
    // centre 0.2 behind the bottom wall: pushed up by 0.2 + r
    let c = contact(&pool(), &Pose::IDENTITY, &circle(0.5), &at(3.0, -0.2), 0.0).unwrap();
    check(&c, 0.7, v(0.0, 1.0), v(3.0, 0.0), v(3.0, -0.7));
    // centre exactly on the wall: depth r, inward normal
    let c = contact(&pool(), &Pose::IDENTITY, &circle(0.5), &at(3.0, 0.0), 0.0).unwrap();
    check(&c, 0.5, v(0.0, 1.0), v(3.0, 0.0), v(3.0, -0.5));
}

#[test]
fn border_circle_in_corner() {
    // circle in the bottom-left corner: 0.1 into the bottom wall, 0.3 into the left wall
    let c = contact(&pool(), &Pose::IDENTITY, &circle(0.5), &at(0.2, 0.4), 0.0).unwrap();
    check(&c, 0.3, v(1.0, 0.0), v(0.0, 0.4), v(-0.3, 0.4));
    assert_eq!(c.points[0].feature >> 16, 3, "left edge");
}

#[test]
fn border_box_crossing_wall_two_points() {
    let c = contact(
        &pool(),
        &Pose::IDENTITY,
        &rect(0.5, 0.5),
        &at(9.8, 2.5),
        0.0,
    )
    .unwrap();
    assert_f(c.depth, 0.3);
    assert_v(c.normal, v(-1.0, 0.0));
    assert_eq!(c.points.len(), 2);
    for p in &c.points {
        assert_f(p.separation, -0.3);
        assert_f(p.point.x, 10.15);
        assert_eq!(p.feature >> 16, 1, "right edge");
    }
    assert_v(c.action_point, v(10.15, 2.5));
}

#[test]
fn border_box_outside_behind_wall() {
    // fully behind the bottom wall, within its extent: pushed back by its deepest point
    let c = contact(
        &pool(),
        &Pose::IDENTITY,
        &rect(0.5, 0.5),
        &at(3.0, -2.0),
        0.0,
    )
    .unwrap();
    check(&c, 2.5, v(0.0, 1.0), v(2.5, 0.0), v(2.5, -2.5));
    assert_eq!(c.points.len(), 2);
    for p in &c.points {
        assert_f(p.separation, -2.5);
    }
}

#[test]
fn border_rotated_pose() {
    // the pool rotated by 90 degrees about the origin: its bottom wall becomes the line x = 0
    // with inward normal -x... (local (0,1) -> world (-1,0))
    let pc = Pose::new(DVec2::ZERO, FRAC_PI_2);
    let c = contact(&pool(), &pc, &circle(0.5), &at(-0.3, 3.0), 0.0).unwrap();
    check(&c, 0.2, v(-1.0, 0.0), v(0.0, 3.0), v(0.2, 3.0));
}

#[test]
fn border_vs_border_is_none() {
    assert!(contact(&pool(), &Pose::IDENTITY, &pool(), &Pose::IDENTITY, 1.0).is_none());
}

#[test]
fn border_nonconvex_reflex_corner() {
    // L-shaped pool; the reflex corner (2,2) points into the pool
    let l = Shape::border(vec![
        v(0.0, 0.0),
        v(4.0, 0.0),
        v(4.0, 2.0),
        v(2.0, 2.0),
        v(2.0, 4.0),
        v(0.0, 4.0),
    ])
    .unwrap();
    // circle near the reflex corner, inside the pool, offset (0.3, 0.4) down-left... the corner is
    // at (2,2); a centre at (2.3, 1.6) is in the pool (below y = 2 for x > 2): vertex region of
    // the corner with distance 0.5
    // (the wall region behind the corner is x > 2, y > 2; a centre at (1.7, 1.6) is in the
    // corner's vertex region, 0.5 away)
    let c = contact(&l, &Pose::IDENTITY, &circle(0.6), &at(1.7, 1.6), 0.0).unwrap();
    check(&c, 0.1, v(-0.6, -0.8), v(2.0, 2.0), v(2.06, 2.08));
    // a centre at (2.3, 1.6) is 0.4 below the edge y = 2 (x in [2, 4]): face region, depth 0.2
    let c = contact(&l, &Pose::IDENTITY, &circle(0.6), &at(2.3, 1.6), 0.0).unwrap();
    check(&c, 0.2, v(0.0, -1.0), v(2.3, 2.0), v(2.3, 2.2));
}

// ---------------------------------------------------------------- compounds and fish

#[test]
fn compound_part_ids() {
    let dumbbell = Shape::compound(vec![
        (at(-1.0, 0.0), circle(0.5)),
        (at(1.0, 0.0), circle(0.5)),
    ])
    .unwrap();
    let c = contact(&dumbbell, &Pose::IDENTITY, &circle(0.5), &at(1.8, 0.0), 0.0).unwrap();
    check(&c, 0.2, v(1.0, 0.0), v(1.5, 0.0), v(1.3, 0.0));
    assert_eq!((c.part_a, c.part_b), (Some(1), None));
    // swapped
    let c = contact(
        &circle(0.5),
        &at(-1.8, 0.0),
        &dumbbell,
        &Pose::IDENTITY,
        0.0,
    )
    .unwrap();
    check(&c, 0.2, v(1.0, 0.0), v(-1.3, 0.0), v(-1.5, 0.0));
    assert_eq!((c.part_a, c.part_b), (None, Some(0)));
    // rotated compound: part 1 now at (0, 1)
    let c = contact(
        &dumbbell,
        &Pose::new(DVec2::ZERO, FRAC_PI_2),
        &circle(0.5),
        &at(0.0, 1.9),
        0.0,
    )
    .unwrap();
    check(&c, 0.1, v(0.0, 1.0), v(0.0, 1.5), v(0.0, 1.4));
    assert_eq!(c.part_a, Some(1));
}

#[test]
fn compound_vs_compound_and_nesting() {
    let a = Shape::compound(vec![
        (at(-1.0, 0.0), circle(0.5)),
        (at(1.0, 0.0), circle(0.5)),
    ])
    .unwrap();
    let b = Shape::compound(vec![
        (at(0.0, 0.0), rect(0.2, 0.2)),
        (at(0.0, 2.0), circle(0.3)),
    ])
    .unwrap();
    let c = contact(&a, &Pose::IDENTITY, &b, &at(1.5, 0.0), 0.0).unwrap();
    check(&c, 0.2, v(1.0, 0.0), v(1.5, 0.0), v(1.3, 0.0));
    assert_eq!((c.part_a, c.part_b), (Some(1), Some(0)));
    // nested: leaves are numbered depth-first: [circle, [circle, box]] -> ids 0, 1, 2
    let nested = Shape::compound(vec![
        (at(-5.0, 0.0), circle(0.5)),
        (
            at(0.0, 0.0),
            Shape::compound(vec![
                (at(0.0, 0.0), circle(0.1)),
                (at(1.0, 0.0), rect(0.5, 0.5)),
            ])
            .unwrap(),
        ),
    ])
    .unwrap();
    let c = contact(&nested, &Pose::IDENTITY, &circle(0.5), &at(1.9, 0.0), 0.0).unwrap();
    check(&c, 0.1, v(1.0, 0.0), v(1.5, 0.0), v(1.4, 0.0));
    assert_eq!(c.part_a, Some(2));
}

#[test]
fn fish_part_ids() {
    let fish = Shape::fish([0.0, 0.0, 0.0]).unwrap();
    // nose vertex at (0.1, 0): a circle of radius 0.05 centred at (0.13, 0) -> body, depth 0.02
    let c = contact(&fish, &Pose::IDENTITY, &circle(0.05), &at(0.13, 0.0), 0.0).unwrap();
    check(&c, 0.02, v(1.0, 0.0), v(0.1, 0.0), v(0.08, 0.0));
    assert_eq!(c.part_a, Some(0));
    // caudal fin trailing edge at x = -0.32 (tail links 3 x 0.05 from x = -0.11, fin 0.06 long)
    let c = contact(&fish, &Pose::IDENTITY, &circle(0.05), &at(-0.36, 0.01), 0.0).unwrap();
    check(&c, 0.01, v(-1.0, 0.0), v(-0.32, 0.01), v(-0.31, 0.01));
    assert_eq!(c.part_a, Some(6));
    // left fin tip: fin frame at (0.01, 0.036); its vertex (-0.04, 0.056) -> world (-0.03, 0.092)
    // is the fin's highest point; a circle above it, offset straight up, touches that vertex
    let c = contact(
        &fish,
        &Pose::IDENTITY,
        &circle(0.05),
        &at(-0.03, 0.092 + 0.049),
        0.0,
    )
    .unwrap();
    assert_f(c.depth, 0.001);
    assert_eq!(c.part_a, Some(1));
    assert_v(c.witness_a, v(-0.03, 0.092));
    // fish as B keeps the part id on B
    let c = contact(&circle(0.05), &at(0.13, 0.0), &fish, &Pose::IDENTITY, 0.0).unwrap();
    assert_eq!((c.part_a, c.part_b), (None, Some(0)));
    assert_v(c.normal, v(-1.0, 0.0));
}

#[test]
fn fish_bent_tail_part_ids() {
    // tail joint 1 bent by 90 degrees: links 2, 3 and the caudal fin point along -y from (-0.16, 0)
    let fish = Shape::fish([0.0, FRAC_PI_2, 0.0]).unwrap();
    // caudal fin trailing edge is now the line y = -0.16 - 0.10... joint at (-0.16, 0), link 2
    // ends at (-0.16, 0.05)?  Rotation by +90 degrees maps local -x to world -y: link 2 runs to
    // (-0.16, -0.05), link 3 to (-0.16, -0.10), the caudal fin to (-0.16, -0.16).
    let c = contact(
        &fish,
        &Pose::IDENTITY,
        &circle(0.05),
        &at(-0.16, -0.20),
        0.0,
    )
    .unwrap();
    check(&c, 0.01, v(0.0, -1.0), v(-0.16, -0.16), v(-0.16, -0.15));
    assert_eq!(c.part_a, Some(6));
}

#[test]
fn fish_vs_fish_part_ids() {
    let fish = Shape::fish([0.0, 0.0, 0.0]).unwrap();
    // B turned around (facing -x) with its nose 0.01 inside A's nose: both bodies. The noses
    // are wedges with edge direction (0.05, 0.04), so the minimum translation is across the
    // edges: depth 0.01 * 0.04 / |(0.05, 0.04)|, normal (0.04, ±0.05)/|.| (edges 1 and 2
    // tie up to round-off, so either sign is a valid answer)
    let pb = Pose::new(v(0.19, 0.0), std::f64::consts::PI);
    let c = contact(&fish, &Pose::IDENTITY, &fish, &pb, 0.0).unwrap();
    let len = (0.05f64 * 0.05 + 0.04 * 0.04).sqrt();
    assert_f(c.depth, 0.01 * 0.04 / len);
    assert_eq!((c.part_a, c.part_b), (Some(0), Some(0)));
    assert_v(v(c.normal.x, c.normal.y.abs()), v(0.04, 0.05) / len);
    // B's caudal fin against A's nose: B facing +x behind... place B so its tail tip (-0.32)
    // overlaps A's nose (0.1) by 0.02: B at x = 0.1 + 0.32 - 0.02 = 0.40
    let c = contact(&fish, &Pose::IDENTITY, &fish, &at(0.40, 0.0), 0.0).unwrap();
    assert_f(c.depth, 0.02);
    assert_eq!((c.part_a, c.part_b), (Some(0), Some(6)));
}

#[test]
fn fish_crossing_pool_wall() {
    let fish = Shape::fish([0.0, 0.0, 0.0]).unwrap();
    // nose 0.05 through the right wall (x = 10)
    let c = contact(&pool(), &Pose::IDENTITY, &fish, &at(9.95, 2.5), 0.0).unwrap();
    check(&c, 0.05, v(-1.0, 0.0), v(10.0, 2.5), v(10.05, 2.5));
    assert_eq!((c.part_a, c.part_b), (None, Some(0)));
}

#[test]
fn border_capsule_lying_on_wall() {
    // a capsule along the bottom wall, core 0.3 above it, radius 0.4: 0.1 through, two points
    let cap = capsule(v(2.0, 0.3), v(4.0, 0.3), 0.4);
    let c = contact(&pool(), &Pose::IDENTITY, &cap, &Pose::IDENTITY, 0.0).unwrap();
    assert_f(c.depth, 0.1);
    assert_v(c.normal, v(0.0, 1.0));
    assert_eq!(c.points.len(), 2);
    let mut xs: Vec<f64> = c.points.iter().map(|p| p.point.x).collect();
    xs.sort_by(f64::total_cmp);
    assert_f(xs[0], 2.0);
    assert_f(xs[1], 4.0);
    for p in &c.points {
        assert_f(p.separation, -0.1);
        assert_f(p.point.y, -0.05);
        assert_eq!(p.feature >> 16, 0, "bottom edge");
    }
    assert_v(c.action_point, v(3.0, -0.05));
}

#[test]
fn flipped_contact_swaps_everything() {
    let a = rect(1.0, 1.0);
    let b = rect(1.0, 1.0);
    let pb = at(1.5, 0.5);
    let ab = contact(&a, &Pose::IDENTITY, &b, &pb, 0.0).unwrap();
    let ba = contact(&b, &pb, &a, &Pose::IDENTITY, 0.0).unwrap();
    let f = ab.flipped();
    assert_f(f.depth, ba.depth);
    assert_v(f.normal, ba.normal);
    assert_v(f.mtv, ba.mtv);
    assert_eq!(f.points.len(), ba.points.len());
    // the feature halves swap: A's reference edge becomes the low half
    assert_eq!(f.points[0].feature, ab.points[0].feature.rotate_left(16));
    assert_eq!(f.points[0].feature & 0xFFFF, 1);
}
