//! The collider's per-pair caches. The separating-direction cache: a convex pair found separated
//! at one call is skipped at the next when the cached direction still proves it, and the
//! contacts never depend on it (a collider that saw earlier poses returns exactly what a fresh
//! one returns). The touching cache (boxes and meshes at zero margin): EPA starts from the
//! pair's GJK tetrahedron of an earlier call while it encloses the origin; the contacts then
//! match a fresh collider's to rounding (same count, deepest depth and normal), not bit for bit.

use collide::collider::is_analytic;
use std::f64::consts::FRAC_PI_4;

use collide::glam::{DQuat, DVec3};
use collide::{
    forward_kinematics, Collider, ColliderOptions, Contact, GeomType, Model, Poses, Stats,
};

/// Regular icosahedron (12 hull vertices: hill-climbed by the cache).
const ICO: &str = "0 1 1.618  0 -1 1.618  0 1 -1.618  0 -1 -1.618  \
                   1 1.618 0  -1 1.618 0  1 -1.618 0  -1 -1.618 0  \
                   1.618 0 1  -1.618 0 1  1.618 0 -1  -1.618 0 -1";
/// Irregular tetrahedron (4 hull vertices: scanned by the cache).
const TET: &str = "1 0.2 -0.4  -0.8 1 -0.3  -0.5 -1 -0.2  0.1 0 1.3";

/// A geom of the test models: `(type, attributes)`.
type GeomSpec = (&'static str, &'static str);

/// The convex geoms the tests draw from (every pair of them that is not analytic goes to the
/// native convex solver).
const GEOMS: [GeomSpec; 7] = [
    ("sphere", r#"size="0.3""#),
    ("capsule", r#"size="0.2 0.35""#),
    ("ellipsoid", r#"size="0.4 0.25 0.3""#),
    ("cylinder", r#"size="0.3 0.25""#),
    ("box", r#"size="0.35 0.25 0.2""#),
    ("mesh", r#"mesh="ico""#),
    ("mesh", r#"mesh="tet""#),
];

/// Two free bodies, one geom each, with margin `margin` on both geoms.
fn pair_model(a: GeomSpec, b: GeomSpec, margin: f64) -> Model {
    let geom = |(t, attr): GeomSpec| format!(r#"<geom type="{t}" {attr} margin="{margin}"/>"#);
    let xml = format!(
        r#"<mujoco>
  <asset>
    <mesh name="ico" vertex="{ICO}" scale="0.2 0.2 0.2"/>
    <mesh name="tet" vertex="{TET}" scale="0.35 0.35 0.35"/>
  </asset>
  <worldbody>
    <body name="a" pos="0 0 1"><freejoint/>{}</body>
    <body name="b" pos="1 0 1"><freejoint/>{}</body>
  </worldbody>
</mujoco>"#,
        geom(a),
        geom(b)
    );
    collide_mjcf::load_str(&xml, ".").expect("test model compiles")
}

/// World poses with body `a` at `(pa, qa)` and body `b` at `(pb, qb)`.
fn poses(m: &Model, [pa, pb]: [DVec3; 2], [qa, qb]: [DQuat; 2]) -> Poses {
    let mut qpos = Vec::with_capacity(14);
    for (p, q) in [(pa, qa), (pb, qb)] {
        qpos.extend([p.x, p.y, p.z, q.w, q.x, q.y, q.z]);
    }
    let mut out = Poses::new(m);
    forward_kinematics(m, &qpos, None, &mut out).expect("finite configuration");
    out
}

/// Contacts and counts of one call.
fn detect(c: &mut Collider, p: &Poses) -> (Vec<Contact>, Stats) {
    let mut out = Vec::new();
    let stats = c.detect(p, &mut out);
    (out, stats)
}

/// The contacts as text: `Debug` prints every `f64` with round-trip precision (and the sign of
/// zero), so equal text means equal bits.
fn bits(cs: &[Contact]) -> String {
    format!("{cs:?}")
}

/// Angle between two vectors (radians).
fn angle(a: DVec3, b: DVec3) -> f64 {
    a.cross(b).length().atan2(a.dot(b))
}

/// The deepest contact of a list (the first of equal depths).
fn deepest(cs: &[Contact]) -> Option<&Contact> {
    cs.iter()
        .fold(None, |best: Option<&Contact>, c| match best {
            Some(b) if b.dist <= c.dist => Some(b),
            _ => Some(c),
        })
}

/// `cached` (from a collider that saw earlier poses) against `fresh`: bit for bit unless EPA
/// was warm-started, else the same count and the deepest contacts' depths within 1e-9 and
/// normals within 1e-6 rad.
fn assert_matches_fresh(cached: &[Contact], fresh: &[Contact], warm: bool, what: &str) {
    if !warm {
        assert_eq!(bits(cached), bits(fresh), "{what}");
        return;
    }
    assert_eq!(cached.len(), fresh.len(), "{what}");
    if let (Some(a), Some(b)) = (deepest(cached), deepest(fresh)) {
        assert!(
            (a.dist - b.dist).abs() <= 1e-9,
            "{what}: {} vs {}",
            a.dist,
            b.dist
        );
        let e = angle(a.normal(), b.normal());
        assert!(e <= 1e-6, "{what}: normals {e} rad apart");
    }
}

/// What a collider with an empty cache returns at `p`.
fn uncached(m: &Model, p: &Poses) -> Vec<Contact> {
    let mut c = Collider::new(m).expect("collider");
    detect(&mut c, p).0
}

#[test]
fn separated_ellipsoid_box_pair_is_skipped_at_the_second_call() {
    let m = pair_model(GEOMS[2], GEOMS[4], 0.0);
    // the box turned by 45 degrees, on the diagonal: the bounding boxes overlap, the shapes
    // are about 0.06 apart along the diagonal
    let q = [DQuat::IDENTITY, DQuat::from_rotation_z(FRAC_PI_4)];
    let p1 = poses(
        &m,
        [DVec3::new(0.0, 0.0, 1.0), DVec3::new(0.6, 0.45, 1.0)],
        q,
    );
    let p2 = poses(
        &m,
        [DVec3::new(0.0, 0.0, 1.0), DVec3::new(0.59, 0.46, 1.0)],
        q,
    );
    let mut c = Collider::new(&m).expect("collider");
    let (out1, s1) = detect(&mut c, &p1);
    assert_eq!((out1.len(), s1.geom_pairs, s1.separation_skips), (0, 1, 0));
    let (out2, s2) = detect(&mut c, &p2);
    assert_eq!((s2.geom_pairs, s2.separation_skips), (1, 1));
    assert!(out2.is_empty());
    assert_eq!(bits(&out2), bits(&uncached(&m, &p2)));
}

#[test]
fn stale_direction_of_cylinder_mesh_pair_moved_into_contact_is_not_trusted() {
    let m = pair_model(GEOMS[3], GEOMS[5], 0.0);
    let q = [DQuat::IDENTITY, DQuat::from_rotation_z(0.3)];
    // separated by at least 0.07 along the diagonal, then overlapping
    let p1 = poses(
        &m,
        [DVec3::new(0.0, 0.0, 1.0), DVec3::new(0.6, 0.45, 1.0)],
        q,
    );
    let p2 = poses(
        &m,
        [DVec3::new(0.0, 0.0, 1.0), DVec3::new(0.4, 0.3, 1.0)],
        q,
    );
    let mut c = Collider::new(&m).expect("collider");
    let (out1, s1) = detect(&mut c, &p1);
    assert_eq!((out1.len(), s1.geom_pairs), (0, 1));
    let (out2, s2) = detect(&mut c, &p2);
    assert_eq!(s2.separation_skips, 0);
    assert!(!out2.is_empty(), "the pair overlaps at the second call");
    assert_eq!(bits(&out2), bits(&uncached(&m, &p2)));
}

/// Deterministic pseudo-random numbers in `[0, 1)` (64-bit LCG, top 53 bits).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
    fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.next()
    }
    fn unit(&mut self) -> DVec3 {
        loop {
            let v = DVec3::new(
                self.range(-1.0, 1.0),
                self.range(-1.0, 1.0),
                self.range(-1.0, 1.0),
            );
            let n = v.length();
            if n > 0.1 && n <= 1.0 {
                return v / n;
            }
        }
    }
    fn rotation(&mut self, max_angle: f64) -> DQuat {
        let axis = self.unit();
        DQuat::from_axis_angle(axis, self.range(-max_angle, max_angle))
    }
}

fn geom_type(name: &str) -> GeomType {
    match name {
        "sphere" => GeomType::Sphere,
        "capsule" => GeomType::Capsule,
        "ellipsoid" => GeomType::Ellipsoid,
        "cylinder" => GeomType::Cylinder,
        "box" => GeomType::Box,
        _ => GeomType::Mesh,
    }
}

#[test]
fn cached_contacts_match_uncached_ones_on_random_convex_pairs_in_small_motions() {
    let mut rng = Lcg(0x5eed_cafe);
    let (mut calls, mut skips, mut stale_contacts, mut warm) = (0, 0, 0, 0);
    for margin in [0.0, 0.04] {
        for (i, &a) in GEOMS.iter().enumerate() {
            for &b in &GEOMS[i..] {
                if is_analytic(geom_type(a.0), geom_type(b.0)) {
                    continue;
                }
                let m = pair_model(a, b, margin);
                for _ in 0..40 {
                    // one collider follows the pair through a few small rigid motions
                    let mut c = Collider::new(&m).expect("collider");
                    let mut pos = [DVec3::new(0.0, 0.0, 1.0), DVec3::ZERO];
                    pos[1] = pos[0] + rng.unit() * rng.range(0.35, 0.9);
                    let mut rot = [rng.rotation(3.2), rng.rotation(3.2)];
                    let mut separated_before = false;
                    for _ in 0..5 {
                        let p = poses(&m, pos, rot);
                        let (out, stats) = detect(&mut c, &p);
                        assert_matches_fresh(
                            &out,
                            &uncached(&m, &p),
                            stats.warm_starts > 0,
                            &format!("{a:?} {b:?} margin {margin} at {pos:?} {rot:?}"),
                        );
                        calls += 1;
                        skips += stats.separation_skips;
                        warm += stats.warm_starts;
                        if separated_before && !out.is_empty() {
                            stale_contacts += 1;
                        }
                        separated_before = out.is_empty() && stats.geom_pairs == 1;
                        // body b drifts towards or away from body a and both turn a little
                        let k = rng.range(-0.08, 0.06);
                        pos[1] += (pos[1] - pos[0]).normalize() * k + rng.unit() * 0.02;
                        rot = [rng.rotation(0.15) * rot[0], rng.rotation(0.15) * rot[1]];
                    }
                }
            }
        }
    }
    // the cache was exercised both ways: pairs skipped, and stale entries overtaken by contact
    assert!(skips * 5 > calls, "{skips} skips in {calls} calls");
    // and touching box and mesh pairs started EPA from their cached tetrahedra
    assert!(warm * 50 > calls, "{warm} warm starts in {calls} calls");
    assert!(stale_contacts > 10, "{stale_contacts} stale entries");
}

#[test]
fn touching_cache_matches_a_fresh_collider_within_tolerance() {
    let mut rng = Lcg(0x7e74a);
    // box–mesh, mesh–mesh (icosahedron and tetrahedron, two icosahedra): overlapping pairs
    // drifting by small steps, as in a resting pile
    for (a, b) in [
        (GEOMS[4], GEOMS[5]),
        (GEOMS[5], GEOMS[6]),
        (GEOMS[5], GEOMS[5]),
    ] {
        let m = pair_model(a, b, 0.0);
        let mut c = Collider::new(&m).expect("collider");
        let mut pos = [DVec3::new(0.0, 0.0, 1.0), DVec3::new(0.3, 0.1, 1.05)];
        let mut rot = [DQuat::IDENTITY, DQuat::from_rotation_z(0.4)];
        let mut warm = 0;
        for call in 0..20 {
            let p = poses(&m, pos, rot);
            let (out, stats) = detect(&mut c, &p);
            let fresh = uncached(&m, &p);
            assert!(
                !fresh.is_empty(),
                "{a:?} {b:?} call {call}: the pair overlaps"
            );
            assert_matches_fresh(
                &out,
                &fresh,
                stats.warm_starts > 0,
                &format!("{a:?} {b:?} call {call}"),
            );
            warm += stats.warm_starts;
            pos[1] += rng.unit() * 0.002;
            rot[1] = rng.rotation(0.01) * rot[1];
        }
        // every call after the first starts EPA from the cached tetrahedron
        assert_eq!(warm, 19, "{a:?} {b:?}");
    }
}

/// The cached EPA surface proves the depth only while it holds: pairs drifting by small steps,
/// every sixth call a jump (a turn of up to 1.5 rad and a new offset), after which the old
/// surface no longer wraps the origin or a new vertex lies beyond its nearest face. Every call
/// matches a fresh collider; the surface proves many drifting calls (not the first after a
/// jump, which warm-starts EPA from the tetrahedron and keeps its surface) and is refused after
/// jumps.
#[test]
fn cached_epa_surface_proves_the_depth_only_while_it_holds() {
    let mut rng = Lcg(0x5e7f);
    let box_ = GEOMS[4];
    let (ico, tet) = (GEOMS[5], GEOMS[6]);
    let (mut proofs, mut drift_calls, mut jump_calls, mut jump_proofs) = (0, 0, 0, 0);
    for (a, b) in [
        (box_, box_),
        (box_, ico),
        (ico, ico),
        (ico, tet),
        (box_, tet),
    ] {
        let m = pair_model(a, b, 0.0);
        let mut c = Collider::new(&m).expect("collider");
        let mut pos = [DVec3::new(0.0, 0.0, 1.0), DVec3::new(0.2, 0.1, 1.05)];
        let mut rot = [DQuat::IDENTITY, DQuat::from_rotation_z(0.4)];
        for call in 0..120 {
            let jump = call % 6 == 0;
            if jump {
                rot[1] = rng.rotation(1.5) * rot[1];
                pos[1] = pos[0] + rng.unit() * rng.range(0.05, 0.3);
            } else {
                pos[1] += rng.unit() * 0.002;
                rot[1] = rng.rotation(0.01) * rot[1];
            }
            let p = poses(&m, pos, rot);
            let (out, stats) = detect(&mut c, &p);
            let fresh = uncached(&m, &p);
            let what = format!("{a:?} {b:?} call {call}");
            assert_matches_fresh(&out, &fresh, stats.warm_starts > 0, &what);
            assert!(stats.surface_proofs <= stats.warm_starts, "{what}");
            if fresh.is_empty() || call == 0 {
                continue;
            }
            proofs += stats.surface_proofs;
            if jump {
                jump_calls += 1;
                jump_proofs += stats.surface_proofs;
            } else {
                drift_calls += 1;
            }
        }
    }
    assert!(
        proofs * 3 > drift_calls,
        "{proofs} proofs in {drift_calls} drifting calls"
    );
    assert!(
        jump_proofs * 2 < jump_calls,
        "{jump_proofs} proofs in {jump_calls} calls after jumps"
    );
}

/// With `warm_start: false` the same drifting pairs never warm-start, and every call equals a
/// fresh collider's answer bit for bit (the separation cache stays: it is exact).
#[test]
fn warm_start_off_gives_a_fresh_colliders_bits_after_any_history() {
    let mut rng = Lcg(0x7e74a);
    let opts = ColliderOptions {
        warm_start: false,
        ..Default::default()
    };
    for (a, b) in [(GEOMS[4], GEOMS[5]), (GEOMS[5], GEOMS[6])] {
        let m = pair_model(a, b, 0.0);
        let mut c = Collider::with_options(&m, opts).expect("collider");
        assert!(!c.options().warm_start);
        let mut pos = [DVec3::new(0.0, 0.0, 1.0), DVec3::new(0.3, 0.1, 1.05)];
        let mut rot = [DQuat::IDENTITY, DQuat::from_rotation_z(0.4)];
        for call in 0..20 {
            let p = poses(&m, pos, rot);
            let (out, stats) = detect(&mut c, &p);
            assert_eq!(stats.warm_starts, 0, "{a:?} {b:?} call {call}");
            assert_eq!(
                bits(&out),
                bits(&uncached(&m, &p)),
                "{a:?} {b:?} call {call}"
            );
            pos[1] += rng.unit() * 0.002;
            rot[1] = rng.rotation(0.01) * rot[1];
        }
        // `another` keeps the option
        assert!(!c.another().expect("collider").options().warm_start);
    }
}

#[test]
fn cached_tetrahedron_of_mesh_pair_moved_apart_gives_no_contact() {
    let m = pair_model(GEOMS[5], GEOMS[6], 0.0);
    let q = [DQuat::IDENTITY; 2];
    let at = |x: f64| poses(&m, [DVec3::new(0.0, 0.0, 1.0), DVec3::new(x, 0.1, 1.05)], q);
    let mut c = Collider::new(&m).expect("collider");
    let (out1, _) = detect(&mut c, &at(0.3));
    assert!(!out1.is_empty());
    // apart, within the bounding spheres: the cached tetrahedron no longer encloses the origin
    let (out2, s2) = detect(&mut c, &at(0.7));
    assert_eq!((out2.len(), s2.geom_pairs, s2.warm_starts), (0, 1, 0));
    assert_eq!(bits(&out2), bits(&uncached(&m, &at(0.7))));
    // and back: a fresh solve, exactly the uncached contacts
    let (out3, s3) = detect(&mut c, &at(0.3));
    assert_eq!(s3.warm_starts, 0);
    assert_eq!(bits(&out3), bits(&uncached(&m, &at(0.3))));
}
