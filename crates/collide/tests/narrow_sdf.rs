//! MuJoCo's `mjc_SDF` (gradient descent between SDFs) on cases with known answers, and its
//! symmetry properties. Differential tests against MuJoCo 4.0.0 are the corpus scenes
//! `scenes/sdf_*` (`collide conformance --only scenes/sdf_torus_rod …`).

use glam::{DQuat, DVec3};

use collide::narrow::sdf::{sdf_pair, Field, SdfGeom, SdfPlugin};
use collide::narrow::PreContact;
use collide::GeomType;

const TORUS: SdfPlugin = SdfPlugin::Torus {
    radius1: 0.35,
    radius2: 0.15,
};

/// The box MuJoCo 4.0.0's compiler gives the torus above (`geom_aabb`, from its
/// marching-cubes mesh).
const TORUS_AABB: [f64; 6] = [
    1.4901161193847656e-08,
    1.4901161193847656e-08,
    7.450580596923828e-09,
    0.49995069205760956,
    0.49995069205760956,
    0.1499999687075615,
];

fn geom(field: Field<'_>, aabb: [f64; 6], pos: DVec3, quat: DQuat) -> SdfGeom<'_> {
    SdfGeom {
        field,
        aabb,
        pos,
        quat,
    }
}

fn torus(pos: DVec3, quat: DQuat) -> SdfGeom<'static> {
    geom(Field::Plugin(TORUS), TORUS_AABB, pos, quat)
}

fn sphere(r: f64, pos: DVec3) -> SdfGeom<'static> {
    sphere_at(r, pos, DQuat::IDENTITY)
}

fn sphere_at(r: f64, pos: DVec3, quat: DQuat) -> SdfGeom<'static> {
    geom(
        Field::Primitive(GeomType::Sphere, DVec3::new(r, 0.0, 0.0)),
        [0.0, 0.0, 0.0, r, r, r],
        pos,
        quat,
    )
}

fn collide(g1: &SdfGeom, g2: &SdfGeom) -> Vec<PreContact> {
    let mut out = [PreContact::default(); 50];
    let n = sdf_pair(g1, g2, 10, 40, &mut out);
    out[..n].to_vec()
}

fn deepest(cs: &[PreContact]) -> PreContact {
    *cs.iter()
        .min_by(|a, b| a.dist.total_cmp(&b.dist))
        .expect("contacts")
}

/// Contacts of an overlap lens 0.02 deep whose deepest direction is `normal`: the deepest
/// `dist` is within a quarter of the optimum -0.01 of `max(A, B)` and never below it, with a
/// normal within 18° of `normal`.
fn assert_lens_of_depth_002(cs: &[PreContact], normal: DVec3) {
    assert!(!cs.is_empty());
    let d = deepest(cs);
    assert!(
        d.dist >= -0.01 - 1e-12 && d.dist < -0.0075,
        "deepest {}",
        d.dist
    );
    assert!(d.normal.dot(normal) > 0.95, "normal {}", d.normal);
}

/// A sphere of radius 0.1 sunk 0.02 into the top of the torus tube: the intersection lens is
/// 0.02 deep, and `mjc_SDF` minimises `max(A, B)`, whose minimum -0.01 (both distances equal,
/// at the lens's middle) bounds every reported `dist` from below; ten descent steps get within
/// a quarter of it (MuJoCo 4.0.0 reports the same values). Every normal points down into the
/// torus (geom 2).
#[test]
fn sphere_on_torus_reports_half_the_lens_depth() {
    let s = sphere(0.1, DVec3::new(0.35, 0.0, 0.15 + 0.1 - 0.02));
    let t = torus(DVec3::ZERO, DQuat::IDENTITY);
    let cs = collide(&s, &t);
    assert_lens_of_depth_002(&cs, -DVec3::Z);
    for c in &cs {
        assert!(c.dist <= 0.0 && c.dist >= -0.01 - 1e-12, "dist {}", c.dist);
        assert!(c.normal.dot(-DVec3::Z) > 0.9, "normal {}", c.normal);
        assert!((c.normal.length() - 1.0).abs() < 1e-12);
    }
}

/// The same sphere 1 mm above the torus: no point has `max(A, B) <= 0`.
#[test]
fn sphere_above_torus_has_no_contact() {
    let s = sphere(0.1, DVec3::new(0.35, 0.0, 0.15 + 0.1 + 0.001));
    let t = torus(DVec3::ZERO, DQuat::IDENTITY);
    assert!(collide(&s, &t).is_empty());
}

/// A capsule through the torus hole, touching nothing, then pushed 0.02 into the inner wall
/// of the tube: contacts appear only then, with normals pointing outward from the axis (+x).
#[test]
fn capsule_through_torus_hole_touches_only_the_inner_wall() {
    let t = torus(DVec3::ZERO, DQuat::IDENTITY);
    let capsule = |x: f64| {
        geom(
            Field::Primitive(GeomType::Capsule, DVec3::new(0.1, 0.5, 0.0)),
            [0.0, 0.0, 0.0, 0.1, 0.1, 0.6],
            DVec3::new(x, 0.0, 0.0),
            DQuat::IDENTITY,
        )
    };
    assert!(collide(&capsule(0.0), &t).is_empty());
    let cs = collide(&capsule(0.12), &t);
    assert_lens_of_depth_002(&cs, DVec3::X);
}

/// Rigid motion of both geoms together moves the contacts with them: same distances, normals
/// and positions rotated and translated (to rounding of the descent).
#[test]
fn contacts_follow_a_rigid_motion_of_the_pair() {
    let q = DQuat::from_axis_angle(DVec3::new(1.0, 2.0, 3.0).normalize(), 0.7);
    let shift = DVec3::new(0.3, -1.2, 2.0);
    let sp = DVec3::new(0.35, 0.0, 0.23);
    let a = collide(&sphere(0.1, sp), &torus(DVec3::ZERO, DQuat::IDENTITY));
    let b = collide(&sphere_at(0.1, q * sp + shift, q), &torus(shift, q));
    assert_eq!(a.len(), b.len());
    for (ca, cb) in a.iter().zip(&b) {
        assert!((ca.dist - cb.dist).abs() < 1e-9, "{} {}", ca.dist, cb.dist);
        assert!((q * ca.normal - cb.normal).length() < 1e-6);
        assert!((q * ca.pos + shift - cb.pos).length() < 1e-6);
    }
}

/// Two tori linked like chain links, each tube sunk into the other: swapping the geoms
/// (MuJoCo's descent starts from geom 1's frame, so contacts differ point by point) gives the
/// same deepest depth and the opposite normal, to the descent's accuracy.
#[test]
fn linked_tori_swap_gives_opposite_normals() {
    let a = torus(DVec3::ZERO, DQuat::IDENTITY);
    // the second torus stands in the x–z plane, its tube crossing the first one's at x = 0.35
    let q = DQuat::from_rotation_x(std::f64::consts::FRAC_PI_2);
    let b = torus(DVec3::new(0.35 + 0.3, 0.0, 0.0), q);
    let ab = deepest(&collide(&a, &b));
    let ba = deepest(&collide(&b, &a));
    assert!(ab.dist < 0.0 && ba.dist < 0.0);
    assert!(
        (ab.dist - ba.dist).abs() < 2e-3,
        "{} vs {}",
        ab.dist,
        ba.dist
    );
    assert!(
        ab.normal.dot(-ba.normal) > 0.99,
        "{} vs {}",
        ab.normal,
        ba.normal
    );
}

/// Start points come from the intersection of the two boxes: disjoint boxes give nothing,
/// and never more contacts than start points.
#[test]
fn disjoint_boxes_and_start_point_budget() {
    let t = torus(DVec3::ZERO, DQuat::IDENTITY);
    let far = sphere(0.1, DVec3::new(0.0, 0.0, 0.3));
    assert!(collide(&far, &t).is_empty());
    let deep = sphere(0.3, DVec3::new(0.35, 0.0, 0.0));
    let mut out = [PreContact::default(); 50];
    for n in [1, 5, 13, 40] {
        assert!(sdf_pair(&deep, &t, 10, n, &mut out) <= n);
    }
}

/// `scenes/sdf_bowl`, state 4: a box resting in `mujoco.sdf.bowl`, 1e-4 deep. The first
/// Halton start point is the box's corner, where the last bit of the box's frame decides
/// which face the box gradient sees and so where the descent ends. MuJoCo 4.0.0 builds the
/// frames of `mjc_SDF` from `geom_xquat` (here the free joint's normalised quaternion, not
/// `mat2Quat(geom_xmat)`, which differs in the last bits) and composes them by `mju_mulPose`,
/// which normalises (so the box frame relative to itself is exactly the identity). With
/// either one off, the descent found a different contact (dist -4.9e-5, normal 28° away).
/// Values from MuJoCo 4.0.0 on this model.
#[test]
fn box_corner_start_point_in_bowl_matches_mujoco() {
    let m = collide_mjcf::load_str(
        r#"<mujoco>
  <extension><plugin plugin="mujoco.sdf.bowl"><instance name="bowl"/></plugin></extension>
  <asset><mesh name="bowl"><plugin instance="bowl"/></mesh></asset>
  <worldbody>
    <body pos="0 0 1.05"><geom type="sdf" mesh="bowl"><plugin instance="bowl"/></geom></body>
    <body><freejoint/><geom type="box" size=".08 .06 .05"/></body>
  </worldbody>
</mujoco>"#,
        ".",
    )
    .expect("test model compiles");
    let qpos = [
        -0.15293896541847388,
        -0.23190550107527982,
        0.19319236048206373,
        0.8279630648379485,
        -0.47639885463498965,
        0.14598224807405447,
        -0.2573139673897784,
    ];
    let mut poses = collide::Poses::new(&m);
    collide::forward_kinematics(&m, &qpos, None, &mut poses).expect("finite qpos");
    let mut c = collide::Collider::new(&m).expect("collider");
    let mut out = Vec::new();
    c.detect(&poses, &mut out);
    assert_eq!(out.len(), 1, "{out:?}");
    let k = &out[0];
    assert_eq!(k.geom, [1, 0]);
    assert_eq!(k.dist, -8.529150260202062e-05);
    let pos = DVec3::new(
        -0.21706338709229783,
        -0.20353625511208698,
        0.11616678020783297,
    );
    let normal = DVec3::new(
        -0.049999371997446175,
        -0.007256138215880365,
        -0.9987228901242091,
    );
    assert!((k.pos - pos).length() < 1e-15, "{}", k.pos);
    assert!((k.normal() - normal).length() < 1e-15, "{}", k.normal());
}

/// MuJoCo 4.0.0's contacts of `sphere_on_torus_reports_half_the_lens_depth`'s pair: the first
/// contact's `dist`, normal and position.
/// MuJoCo 4.0.0 puts the position at the descent's end point moved by `dist/2` along the
/// normal (older releases, by `-dist/2`); a sign slip there moves it by `|dist|`.
#[test]
fn sphere_on_torus_contact_position_is_mujocos() {
    let t = torus(DVec3::ZERO, DQuat::IDENTITY);
    let s = sphere(0.1, DVec3::new(0.35, 0.0, 0.23));
    let cs = collide(&s, &t);
    assert_eq!(cs.len(), 40, "MuJoCo keeps all 40 start points here");
    let c = cs[0];
    assert!((c.dist - -0.003602321529663763).abs() < 1e-12, "{}", c.dist);
    let normal = DVec3::new(
        -0.003598982333861973,
        -0.2081623209621398,
        -0.9780876726847219,
    );
    assert!(
        (c.normal - normal).abs().max_element() < 1e-9,
        "{}",
        c.normal
    );
    let pos = DVec3::new(
        0.35249756747704564,
        -0.03918649699319562,
        0.14389133350483183,
    );
    assert!((c.pos - pos).abs().max_element() < 1e-9, "{}", c.pos);
}
