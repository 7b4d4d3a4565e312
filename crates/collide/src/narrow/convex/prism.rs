//! Height-field prisms in the native solver: the GJK/EPA half of MuJoCo 4.0.0's
//! `mjc_ConvexHField`, matched bit for bit (`conformance/narrow_hfield.py`, and a direct
//! comparison with the 4.0.0 library's exported `mjc_ccd` on single prisms).
//!
//! A prism is its own kind of solver object ([`Object`] with `kind == HField` and `prism` set),
//! not a mesh:
//! - support: the best of the three vertices on the side of `dir.z` (bottom for `dir.z < 0`,
//!   else top; first maximum), plus `margin / 2` along `dir`;
//! - no vertex index: `vertindex` stays -1, so the discrete EPA's "repeated support vertex" stop
//!   fires as soon as the *geom's* support vertex repeats, whatever the prism vertex;
//! - centre (GJK's initial guess): the mean of the six vertices;
//! - discrete (exact GJK stop, EPA tolerance `mjMINVAL`) when the margin is 0, like boxes and
//!   meshes.
//!
//! With prisms the discrete EPA stops on ties of the geom's support (a box face, a mesh face),
//! so the answer depends on rounding at the last bit; the solver's arithmetic (shared by every
//! pair, see `gjk.rs`, `epa.rs`, `support.rs`) is 4.0.0's: GJK iterates on the origin's
//! projection on the reduced simplex, directions are `x_k * (1 / |x_k|)`, EPA keeps a face whose
//! first support bound is below it, and meshes are searched in MuJoCo's order.
//!
//! The geom object lives as long as the height-field query: as in MuJoCo, a mesh's six
//! bounding-box support queries run on it first (+x, -x, +y, -y, +z, -z), then its warm starts
//! (last mesh vertex, hill-climbing start) carry over from prism to prism. (Primitives skip
//! those queries: their support functions keep no state.)

use glam::{DMat3, DVec3};

use super::support::{Object, SIGNED_AXES};
use super::{normalize, solve, usable, CcdOptions, CcdReport, ConvexGeom};
use crate::model::GeomType;
use crate::narrow::PreContact;

/// GJK/EPA between the prisms of one height field and one convex geom, both in the height
/// field's frame.
pub(crate) struct PrismCollider<'a> {
    geom: Object<'a>,
    margin: f64,
    iterations: usize,
    tolerance: f64,
}

impl<'a> PrismCollider<'a> {
    /// A collider for the geom `g` (placed in the height field's frame) with detection margin
    /// `margin`; `None` if the geom cannot reach the solver (a plane, a height field, a mesh
    /// without hull, non-finite data).
    pub(crate) fn new(g: &ConvexGeom<'a>, margin: f64, opt: &CcdOptions) -> Option<Self> {
        if !usable(g) || !margin.is_finite() {
            return None;
        }
        let mut geom = Object::new(g.kind, g.pos, g.mat, g.size, g.hull, margin);
        // MuJoCo's six bounding-box queries: they only matter for a mesh (its warm start); a
        // primitive's support depends on the query direction alone
        if g.kind == GeomType::Mesh {
            for dir in SIGNED_AXES {
                geom.support_raw(dir);
            }
        }
        Some(PrismCollider {
            geom,
            margin,
            iterations: opt.iterations,
            tolerance: opt.tolerance,
        })
    }

    /// The single contact of one prism (vertices 0..3 bottom, 3..6 top, height-field frame)
    /// with the geom: normal from the prism to the geom, `dist` the signed distance (negative
    /// in penetration). `None` when GJK/EPA finds no overlap of the inflated shapes.
    pub(crate) fn collide(&mut self, vert: &[DVec3; 6]) -> Option<PreContact> {
        let mut centre = DVec3::ZERO;
        for v in vert {
            centre += *v;
        }
        centre *= 1.0 / 6.0;
        let mut prism = Object::new(
            GeomType::HField,
            centre,
            DMat3::IDENTITY,
            DVec3::ZERO,
            None,
            self.margin,
        );
        prism.prism = Some(vert);
        let mut rep = CcdReport::default();
        let single = solve::<false>(
            &mut prism,
            &mut self.geom,
            self.iterations,
            self.tolerance,
            None,
            &mut rep,
        )?;
        let c = PreContact {
            dist: self.margin + single.dist,
            pos: 0.5 * (single.x1 + single.x2),
            normal: normalize(single.x1 - single.x2),
            tangent: DVec3::ZERO,
        };
        (c.dist.is_finite() && c.pos.is_finite()).then_some(c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prism() -> [DVec3; 6] {
        let b = [
            DVec3::new(0.0, 0.0, -1.0),
            DVec3::new(1.0, 0.0, -1.0),
            DVec3::new(0.0, 1.0, -1.0),
        ];
        [
            b[0],
            b[1],
            b[2],
            DVec3::new(0.0, 0.0, 0.3),
            DVec3::new(1.0, 0.0, 0.1),
            DVec3::new(0.0, 1.0, 0.2),
        ]
    }

    #[test]
    fn prism_support_uses_the_side_of_dir_z_and_no_vertex_index() {
        let v = prism();
        let mut o = Object::new(
            GeomType::HField,
            DVec3::ZERO,
            DMat3::IDENTITY,
            DVec3::ZERO,
            None,
            0.0,
        );
        o.prism = Some(&v);
        assert!(o.discrete());
        // upward: best top vertex
        assert_eq!(o.support_raw(DVec3::new(0.6, 0.0, 0.8)), v[4]);
        // dir.z == 0 counts as upward (top vertices), even though the bottom ones tie
        assert_eq!(o.support_raw(DVec3::new(0.0, 1.0, 0.0)), v[5]);
        // downward: bottom vertices only, first maximum on ties
        assert_eq!(o.support_raw(DVec3::new(0.0, 0.0, -1.0)), v[0]);
        assert_eq!(o.support_raw(DVec3::new(-0.6, 0.0, -0.8)), v[0]);
        assert_eq!(o.vertindex, -1);
        o.margin = 0.1;
        assert!(!o.discrete());
    }

    #[test]
    fn box_sunk_into_a_prism_discrete_epa_stops_early() {
        let v = prism();
        let g = ConvexGeom {
            kind: GeomType::Box,
            pos: DVec3::new(0.2, 0.2, 0.74),
            mat: DMat3::IDENTITY,
            size: DVec3::new(0.05, 0.05, 0.5),
            hull: None,
            hfield: None,
        };
        // the top face is the plane z = 0.3 - 0.2 x - 0.1 y; the box corner deepest below it is
        // (0.15, 0.15, 0.24), 0.015 under it vertically
        let n = (v[4] - v[3]).cross(v[5] - v[3]).normalize();
        let depth = (v[3] - DVec3::new(0.15, 0.15, 0.24)).dot(n);
        // with a margin the shapes are smooth: EPA converges to the true depth and normal
        let m = 1e-3;
        let mut c = PrismCollider::new(&g, m, &CcdOptions::default()).unwrap();
        let k = c.collide(&v).unwrap();
        assert!((k.dist + depth).abs() < 1e-6, "{k:?} vs {depth}");
        assert!(k.normal.angle_between(n) < 1e-3, "{k:?}");
        // without, both are discrete and EPA stops as soon as a box corner repeats (the prism
        // has no vertex indices): a shallower depth, as MuJoCo reports it (0.01315 here)
        let mut c = PrismCollider::new(&g, 0.0, &CcdOptions::default()).unwrap();
        let k = c.collide(&v).unwrap();
        assert!(k.dist < 0.0 && k.dist > -depth + 1e-3, "{k:?} vs {depth}");
        // far above: nothing
        let far = ConvexGeom {
            pos: DVec3::new(0.2, 0.2, 3.0),
            ..g
        };
        let mut c = PrismCollider::new(&far, 0.0, &CcdOptions::default()).unwrap();
        assert!(c.collide(&v).is_none());
    }
}
