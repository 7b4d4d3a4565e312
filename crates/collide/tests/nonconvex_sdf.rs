//! The signed distance field baked per mesh (`mesh_exact::Sdf`) against analytic distances of
//! a sphere, a box and a torus, its sign across thin walls, and the deep-penetration contacts
//! it enables (a shape wholly inside a mesh, where no surface feature is near).

use crate::mesh_shapes;

use collide::glam::{DMat3, DVec3};
use collide::narrow::mesh_exact::{mesh_mesh, primitive_mesh, MeshScratch, Sdf, TriMesh};
use collide::narrow::{PreContact, Shape, MAX_PAIR_CONTACTS};
use collide::GeomType;
use mesh_shapes::*;

/// Every node of `sdf`, with its position.
fn nodes(sdf: &Sdf) -> impl Iterator<Item = (DVec3, f64)> + '_ {
    let [nx, ny, _] = sdf.dims;
    sdf.val.iter().enumerate().map(move |(n, &v)| {
        let (i, j, k) = (n % nx, n / nx % ny, n / (nx * ny));
        (
            sdf.lo + DVec3::new(i as f64, j as f64, k as f64) * sdf.cell,
            v,
        )
    })
}

/// Deterministic points spread over the grid's box (a fixed xorshift sequence).
fn points(sdf: &Sdf, n: usize) -> Vec<DVec3> {
    let hi = sdf.lo
        + (DVec3::new(sdf.dims[0] as f64, sdf.dims[1] as f64, sdf.dims[2] as f64) - 1.0) * sdf.cell;
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x >> 11) as f64 / (1u64 << 53) as f64
    };
    (0..n)
        .map(|_| sdf.lo + (hi - sdf.lo) * DVec3::new(next(), next(), next()))
        .collect()
}

/// Checks `mesh`'s field against the analytic signed distance `exact` of the shape it
/// tessellates (`tess`: largest distance between mesh and shape): nodes within `tess`, with
/// the right sign beyond it; interpolated values within [`Sdf::error_bound`] everywhere and
/// within half a cell near the surface; one to three cells outside, a unit gradient along the
/// analytic one.
fn check_field(mesh: &TriMesh, exact: impl Fn(DVec3) -> f64, tess: f64, gradient: bool) {
    let sdf = &mesh.sdf;
    for (p, v) in nodes(sdf) {
        let e = exact(p);
        assert!((v - e).abs() <= tess + 1e-9, "node {p}: {v} vs {e}");
        if e.abs() > tess + 1e-9 {
            assert_eq!(v < 0.0, e < 0.0, "sign at node {p}: {v} vs {e}");
        }
    }
    let half = 0.5 * sdf.cell;
    let mut near = 0;
    for p in points(sdf, 20_000) {
        let (v, e) = (sdf.value(p), exact(p));
        // everywhere within the Lipschitz bound; near the surface (within two cells, away
        // from medial axes) within half a cell
        assert!((v - e).abs() <= sdf.error_bound() + tess, "{p}: {v} vs {e}");
        if e.abs() < 2.0 * sdf.cell {
            assert!(
                (v - e).abs() < half + tess,
                "{p}: {v} vs {e} (cell {})",
                sdf.cell
            );
        }
        // outside only: inside a thin part the medial axis passes within a few cells
        if gradient && e > sdf.cell && e < 3.0 * sdf.cell {
            near += 1;
            let g = sdf.gradient(p);
            let h = 1e-6;
            let ge = DVec3::new(
                exact(p + DVec3::X * h) - exact(p - DVec3::X * h),
                exact(p + DVec3::Y * h) - exact(p - DVec3::Y * h),
                exact(p + DVec3::Z * h) - exact(p - DVec3::Z * h),
            ) / (2.0 * h);
            assert!(
                (g.length() - 1.0).abs() < 0.1,
                "|grad| at {p}: {}",
                g.length()
            );
            assert!(
                g.normalize().dot(ge.normalize()) > 0.99,
                "grad at {p}: {g} vs {ge}"
            );
        }
    }
    assert!(
        !gradient || near > 100,
        "only {near} points near the surface"
    );
}

#[test]
fn sdf_of_sphere_matches_analytic_distance() {
    let r = 0.5;
    let soup = sphere(r, 64, 128);
    let mesh = soup.mesh();
    // sagitta of the coarsest triangle: its circumradius is at most the longest edge
    let tess = soup
        .face
        .iter()
        .map(|t| {
            let [a, b, c] = t.map(|i| soup.vert[i as usize]);
            r - (b - a).cross(c - a).normalize().dot(a).abs()
        })
        .fold(0.0, f64::max);
    assert!(tess < 0.1 * mesh.sdf.cell);
    check_field(&mesh, |p| p.length() - r, tess, true);
}

/// Signed distance from `p` to the box of half-extents `h` about the origin.
fn box_distance(h: DVec3, p: DVec3) -> f64 {
    let q = p.abs() - h;
    q.max(DVec3::ZERO).length() + q.max_element().min(0.0)
}

#[test]
fn sdf_of_box_is_exact_at_nodes() {
    let h = DVec3::new(0.3, 0.2, 0.1);
    let mesh = box_mesh(h).mesh();
    let exact = |p: DVec3| box_distance(h, p);
    // gradients are not checked: the box's field has kinks on its medial planes and near edges
    check_field(&mesh, exact, 1e-12, false);
    assert!(mesh.closed);
}

/// `Sdf::node_bounds` holds the exact signed distance between its bounds and its magnitude
/// below `far`, on a box (field exact at the nodes) and a torus, and is tighter than the
/// interpolated value's error bound: it decides the side of most points `Sdf::classify` leaves
/// open (farther than a quarter cell from the surface).
#[test]
fn sdf_node_bounds_hold_the_exact_distance_and_beat_the_error_bound() {
    let h = DVec3::new(0.3, 0.2, 0.1);
    let (big, small) = (0.3, 0.1);
    let torus_distance = |p: DVec3| {
        let q = (p.x * p.x + p.y * p.y).sqrt() - big;
        (q * q + p.z * p.z).sqrt() - small
    };
    let (nu, nv) = (64, 32);
    let pi = std::f64::consts::PI;
    // the tessellation's distance from the analytic torus
    let tess =
        (big + small) * (1.0 - (pi / nu as f64).cos()) + small * (1.0 - (pi / nv as f64).cos());
    let box_mesh = box_mesh(h).mesh();
    let torus_mesh = torus(big, small, nu, nv).mesh();
    type Case<'a> = (&'a TriMesh, &'a dyn Fn(DVec3) -> f64, f64);
    let cases: [Case; 2] = [
        (&box_mesh, &|p| box_distance(h, p), 1e-12),
        (&torus_mesh, &torus_distance, tess),
    ];
    for (mesh, analytic, tol) in cases {
        let sdf = &mesh.sdf;
        let (mut open, mut decided, mut width) = (0, 0, 0.0);
        let pts = points(sdf, 10_000);
        for &p in &pts {
            let (lo, hi, far) = sdf.node_bounds(p).expect("points are inside the grid");
            let exact = analytic(p);
            assert!(
                lo <= exact + tol && exact <= hi + tol && exact.abs() <= far + tol,
                "{p}: {lo} {exact} {hi} {far}"
            );
            width += hi - lo;
            if sdf.classify(p, 0.0).is_none() && analytic(p).abs() > 0.25 * sdf.cell {
                open += 1;
                decided += usize::from(lo > 0.0 || hi < 0.0);
            }
        }
        // the interval is narrower on average than the two error bounds around the value
        assert!(
            width / (pts.len() as f64) < 2.0 * sdf.error_bound(),
            "{width}"
        );
        assert!(open > 300 && decided * 2 > open, "{decided} of {open}");
    }
}

#[test]
fn sdf_of_torus_matches_analytic_distance() {
    let (big, small, nu, nv) = (1.0, 0.3, 128, 64);
    let mesh = torus(big, small, nu, nv).mesh();
    let pi = std::f64::consts::PI;
    let tess =
        (big + small) * (1.0 - (pi / nu as f64).cos()) + small * (1.0 - (pi / nv as f64).cos());
    let exact = |p: DVec3| {
        let q = (p.x * p.x + p.y * p.y).sqrt() - big;
        (q * q + p.z * p.z).sqrt() - small
    };
    check_field(&mesh, exact, tess, true);
}

#[test]
fn sdf_sign_right_across_a_wall_two_cells_thick() {
    // a slab one cell either side of z = 0: cell = 1/32 of its longest side
    let cell = 1.0 / 32.0;
    let mesh = box_mesh(DVec3::new(0.5, 0.5, cell)).mesh();
    assert!((mesh.sdf.cell - cell).abs() < 1e-15);
    let mut inside = 0;
    for (p, v) in nodes(&mesh.sdf) {
        let inner = p.x.abs() < 0.5 && p.y.abs() < 0.5 && p.z.abs() < 0.5 * cell;
        if inner {
            inside += 1;
            assert!((v + cell).abs() < 1e-12, "{p}: {v}");
        } else if p.z.abs() > 1.5 * cell || p.x.abs() > 0.5 + 1e-9 || p.y.abs() > 0.5 + 1e-9 {
            assert!(v > 0.0, "{p}: {v}");
        }
    }
    assert!(inside > 900);
    // and the bowl's 0.2-thick shell (2.7 cells): the sign follows the solid at every node
    // farther than the tessellation from the surface
    let (r_in, r_out) = (1.0, 1.2);
    let soup = bowl(r_in, r_out, 24, 48);
    let mesh = soup.mesh();
    let tess = r_out * (1.0 - (std::f64::consts::PI / 48.0).cos()) + 1e-9;
    for (p, v) in nodes(&mesh.sdf) {
        let l = p.length();
        let d = if p.z < 0.0 {
            (l - r_out).max(r_in - l)
        } else {
            // above the rim plane: distance to the rim annulus
            let rho = (p.x * p.x + p.y * p.y).sqrt();
            let dr = (rho - r_out).max(r_in - rho).max(0.0);
            (dr * dr + p.z * p.z).sqrt()
        };
        if d.abs() > tess {
            assert_eq!(v < 0.0, d < 0.0, "{p}: {v} vs {d}");
        }
    }
}

#[test]
fn sdf_sign_by_winding_number_survives_a_hole() {
    // a sphere with one band of triangles removed near the pole: still inside at the centre,
    // outside beyond the shell
    let mut soup = sphere(0.5, 32, 64);
    soup.face.truncate(soup.face.len() - 64);
    let mesh = soup.mesh();
    assert!(!mesh.closed);
    assert!(mesh.sdf.value(DVec3::ZERO) < -0.4);
    assert!(mesh.sdf.value(DVec3::new(0.0, 0.0, -0.45)) < 0.0);
    assert!(mesh.sdf.value(DVec3::new(0.7, 0.0, 0.0)) > 0.0);
}

fn deepest(cs: &[PreContact]) -> PreContact {
    *cs.iter()
        .min_by(|a, b| a.dist.total_cmp(&b.dist))
        .expect("at least one contact")
}

fn at(pos: DVec3, size: DVec3) -> Shape {
    Shape {
        pos,
        mat: DMat3::IDENTITY,
        size,
    }
}

#[test]
fn sphere_wholly_inside_torus_tube_reports_its_depth() {
    let (big, small, nu, nv) = (1.0, 0.3, 64, 32);
    let mesh = torus(big, small, nu, nv).mesh();
    let pi = std::f64::consts::PI;
    let bound =
        (big + small) * (1.0 - (pi / nu as f64).cos()) + small * (1.0 - (pi / nv as f64).cos());
    let mut out = [PreContact::default(); MAX_PAIR_CONTACTS];
    let mut scratch = MeshScratch::new();
    // a 0.1 sphere at the tube's centre: depth 0.3 to the tube wall, plus its radius
    let n = primitive_mesh(
        GeomType::Sphere,
        &at(DVec3::new(0.0, big, 0.0), DVec3::new(0.1, 0.0, 0.0)),
        &at(DVec3::ZERO, DVec3::ZERO),
        &mesh,
        0.0,
        &mut scratch,
        &mut out,
    );
    assert_eq!(n, 1);
    let c = out[0];
    assert!((c.dist + 0.4).abs() <= bound, "{c:?}");
    // normal from the sphere to the torus: across the tube (no component along it, x here)
    assert!(c.normal.x.abs() < 0.05, "{c:?}");
    // outside the tube, inside the hole: nothing
    let n = primitive_mesh(
        GeomType::Sphere,
        &at(DVec3::ZERO, DVec3::new(0.1, 0.0, 0.0)),
        &at(DVec3::ZERO, DVec3::ZERO),
        &mesh,
        0.0,
        &mut scratch,
        &mut out,
    );
    assert_eq!(n, 0);
}

/// The corners behind the big box's faces are inside it: their depths are to the nearest face
/// (whether found by the faces' leaves or, if none is near, by the field).
#[test]
fn box_wholly_inside_a_box_mesh_reports_its_deepest_corner() {
    let big = box_mesh(DVec3::ONE).mesh();
    let mut out = [PreContact::default(); MAX_PAIR_CONTACTS];
    let mut scratch = MeshScratch::new();
    // corners at x 0.4..0.6: the deepest corner (x = 0.4) is 0.6 from the faces x = 1
    let n = primitive_mesh(
        GeomType::Box,
        &at(DVec3::new(0.5, 0.0, 0.0), DVec3::splat(0.1)),
        &at(DVec3::ZERO, DVec3::ZERO),
        &big,
        0.0,
        &mut scratch,
        &mut out,
    );
    let d = deepest(&out[..n]);
    assert!((d.dist + 0.6).abs() < 1e-12, "{d:?}");
    assert!((d.normal + DVec3::X).length() < 1e-12, "{d:?}");
}

#[test]
fn mesh_wholly_inside_mesh_found_both_ways() {
    let big = box_mesh(DVec3::ONE).mesh();
    let small = box_mesh(DVec3::splat(0.1)).mesh();
    let (pb, ps) = (
        at(DVec3::new(0.2, -0.1, 0.3), DVec3::ZERO),
        at(DVec3::new(0.7, -0.1, 0.3), DVec3::ZERO),
    );
    let mut out = [PreContact::default(); MAX_PAIR_CONTACTS];
    let mut scratch = MeshScratch::new();
    // the small box's inner corners are 0.6 from the big box's +x face
    let n = mesh_mesh(&pb, &big, &ps, &small, 0.0, &mut scratch, &mut out);
    let a = deepest(&out[..n]);
    assert!((a.dist + 0.6).abs() < 1e-12, "{a:?}");
    assert!((a.normal - DVec3::X).length() < 1e-12, "{a:?}");
    let n = mesh_mesh(&ps, &small, &pb, &big, 0.0, &mut scratch, &mut out);
    let b = deepest(&out[..n]);
    assert!(
        (b.dist - a.dist).abs() < 1e-12 && (b.normal + a.normal).length() < 1e-12,
        "{b:?}"
    );
    // apart: nothing
    let far = at(DVec3::new(3.0, 0.0, 0.0), DVec3::ZERO);
    assert_eq!(
        mesh_mesh(&pb, &big, &far, &small, 0.0, &mut scratch, &mut out),
        0
    );
}
