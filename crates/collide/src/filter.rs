//! Pair filters, exactly as MuJoCo applies them (`filterBodyPair`, `canCollide2`,
//! `filterCollisionPair`, `mj_filterSphere`).

use glam::{DMat3, DVec3};

use crate::model::{disable, Model};

/// Body-level filter (`filterBodyPair`): rejects bodies in one weld group, pairs of dof-less
/// weld groups (static, mocap), and parent–child weld groups unless `filterparent` is disabled.
pub fn body_pair_allowed(m: &Model, b1: usize, b2: usize) -> bool {
    let (w1, w2) = (m.body_weldid[b1], m.body_weldid[b2]);
    if w1 == w2 {
        return false;
    }
    if m.body_dofnum[w1] == 0 && m.body_dofnum[w2] == 0 {
        return false;
    }
    if m.opt.disableflags & disable::FILTERPARENT == 0 && w1 != 0 && w2 != 0 {
        let wp1 = m.body_weldid[m.body_parentid[w1]];
        let wp2 = m.body_weldid[m.body_parentid[w2]];
        if w1 == wp2 || w2 == wp1 {
            return false;
        }
    }
    true
}

/// Body-level bitmask test (`canCollide2`): OR-ed geom contypes against conaffinities.
#[inline]
pub fn bodies_can_collide(m: &Model, b1: usize, b2: usize) -> bool {
    (m.body_contype[b1] & m.body_conaffinity[b2]) != 0
        || (m.body_contype[b2] & m.body_conaffinity[b1]) != 0
}

/// Bounding-sphere test with threshold `margin` (MuJoCo's `mj_filterSphere`); `true` when the
/// geoms may be within `margin`. A plane (`rbound == 0`) is a half-space: anything below it
/// passes.
#[inline]
pub fn spheres_may_touch(
    rb1: f64,
    p1: DVec3,
    m1: &DMat3,
    rb2: f64,
    p2: DVec3,
    m2: &DMat3,
    margin: f64,
) -> bool {
    if rb1 == 0.0 {
        return m1.z_axis.dot(p2 - p1) <= rb2 + margin;
    }
    if rb2 == 0.0 {
        return m2.z_axis.dot(p1 - p2) <= rb1 + margin;
    }
    // squared, as MuJoCo compares (this decides exactly touching pairs)
    let r = rb1 + rb2 + margin;
    (p1 - p2).length_squared() <= r * r
}

/// Pair signature `(b1 << 16) + b2` with `b1 <= b2`.
#[inline]
pub fn signature(b1: usize, b2: usize) -> u32 {
    let (lo, hi) = if b1 <= b2 { (b1, b2) } else { (b2, b1) };
    ((lo as u32) << 16) + hi as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signature_puts_the_lower_body_first() {
        assert_eq!(signature(3, 1), (1 << 16) + 3);
        assert_eq!(signature(1, 3), (1 << 16) + 3);
    }

    #[test]
    fn plane_sphere_filter_is_one_sided() {
        let id = DMat3::IDENTITY;
        // a sphere far below a plane still passes; above it is rejected beyond its radius
        assert!(spheres_may_touch(
            0.0,
            DVec3::ZERO,
            &id,
            1.0,
            DVec3::new(0.0, 0.0, -100.0),
            &id,
            0.0
        ));
        assert!(spheres_may_touch(
            0.0,
            DVec3::ZERO,
            &id,
            1.0,
            DVec3::new(5.0, 0.0, 1.0),
            &id,
            0.0
        ));
        assert!(!spheres_may_touch(
            0.0,
            DVec3::ZERO,
            &id,
            1.0,
            DVec3::new(0.0, 0.0, 1.1),
            &id,
            0.05
        ));
        assert!(spheres_may_touch(
            0.0,
            DVec3::ZERO,
            &id,
            1.0,
            DVec3::new(0.0, 0.0, 1.1),
            &id,
            0.1
        ));
    }
}
