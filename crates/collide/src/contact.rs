//! Contacts as MuJoCo defines them (`mjContact`): geometry from the narrow phase plus the
//! mixed solver parameters (`mj_contactParam`, `mj_setContact`).

use glam::DVec3;

use crate::math::MINVAL;
use crate::model::{enable, Model};
use crate::narrow::PreContact;

/// MuJoCo's `mjMINMU`: the smallest friction coefficient a contact gets.
pub const MIN_MU: f64 = 1e-5;

/// One contact between two geoms.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Contact {
    /// `[geom1, geom2]`: geom 1 has the lower [`crate::GeomType`]; for equal types, the geom
    /// found first (the lower body, or document order).
    pub geom: [usize; 2],
    /// Signed distance between the surfaces (negative = penetration). Not inflated by margins.
    pub dist: f64,
    /// Midpoint between the two surfaces.
    pub pos: DVec3,
    /// Contact frame rows: `[normal (geom 1 → geom 2), tangent 1, tangent 2]`, right-handed.
    pub frame: [DVec3; 3],
    /// The active part of the margin (`margin`, not `margin + gap`).
    pub includemargin: f64,
    /// Friction: slide, slide, spin, roll, roll.
    pub friction: [f64; 5],
    /// Solver reference.
    pub solref: [f64; 2],
    /// Solver reference for frictional directions (`[0, 0]` = same as `solref`).
    pub solreffriction: [f64; 2],
    /// Solver impedance.
    pub solimp: [f64; 5],
    /// Adhesion.
    pub adhesion: f64,
    /// Contact dimensionality (1, 3, 4 or 6).
    pub dim: u32,
    /// In the gap (`dist >= includemargin`) and not adhesive: reported but inactive.
    pub exclude: bool,
}

impl Contact {
    /// The contact normal (the first row of the frame), from geom 1 to geom 2.
    pub fn normal(&self) -> DVec3 {
        self.frame[0]
    }
}

/// Contact parameters of one geom pair, before geometry.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PairParams {
    /// Active margin.
    pub margin: f64,
    /// Inactive gap beyond the margin.
    pub gap: f64,
    /// Dimensionality.
    pub dim: u32,
    /// Friction (5 coefficients).
    pub friction: [f64; 5],
    /// Solver reference.
    pub solref: [f64; 2],
    /// Frictional solver reference.
    pub solreffriction: [f64; 2],
    /// Solver impedance.
    pub solimp: [f64; 5],
    /// Adhesion.
    pub adhesion: f64,
}

/// Margin and gap of a geom pair (explicit pairs use their own; override uses `o_margin`).
pub fn pair_margin_gap(m: &Model, g1: usize, g2: usize, pair: Option<usize>) -> (f64, f64) {
    let (margin, gap) = match pair {
        Some(p) => (m.pair_margin[p], m.pair_gap[p]),
        None => (
            m.geom_margin[g1] + m.geom_margin[g2],
            m.geom_gap[g1] + m.geom_gap[g2],
        ),
    };
    if m.opt.enableflags & enable::OVERRIDE != 0 {
        (m.opt.o_margin, gap)
    } else {
        (margin, gap)
    }
}

/// Mixed contact parameters of geoms `g1`, `g2`, or those of explicit pair `pair`.
pub fn pair_params(m: &Model, g1: usize, g2: usize, pair: Option<usize>) -> PairParams {
    let (margin, gap) = pair_margin_gap(m, g1, g2, pair);
    let (a, b) = (GeomParams::of(m, g1), GeomParams::of(m, g2));
    pair_params_with(m, &a, &b, pair, margin, gap)
}

/// One geom's own contact parameters: the inputs of the mixing in [`pair_params`], gathered in
/// one record (the collider keeps one per geom).
#[derive(Clone, Copy, Debug)]
pub(crate) struct GeomParams {
    priority: i32,
    condim: u32,
    solmix: f64,
    friction: DVec3,
    solref: [f64; 2],
    solimp: [f64; 5],
    adhesion: f64,
}

impl GeomParams {
    /// The parameters of geom `g`.
    pub(crate) fn of(m: &Model, g: usize) -> GeomParams {
        GeomParams {
            priority: m.geom_priority[g],
            condim: m.geom_condim[g],
            solmix: m.geom_solmix[g],
            friction: m.geom_friction[g],
            solref: m.geom_solref[g],
            solimp: m.geom_solimp[g],
            adhesion: m.geom_adhesion[g],
        }
    }

    /// Equal bit for bit (then every mixing with a third geom gives the same bits).
    fn same_bits(&self, o: &GeomParams) -> bool {
        let eq = |a: &[f64], b: &[f64]| a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits());
        self.priority == o.priority
            && self.condim == o.condim
            && eq(
                &[
                    self.solmix,
                    self.adhesion,
                    self.friction.x,
                    self.friction.y,
                    self.friction.z,
                ],
                &[
                    o.solmix,
                    o.adhesion,
                    o.friction.x,
                    o.friction.y,
                    o.friction.z,
                ],
            )
            && eq(&self.solref, &o.solref)
            && eq(&self.solimp, &o.solimp)
    }
}

/// Most parameter classes a [`MixTable`] tabulates (`MAX_MIX_CLASSES²` mixed records).
const MAX_MIX_CLASSES: usize = 16;

/// The mixed contact parameters of every ordered pair of geom parameter classes, computed once
/// per model: geoms whose [`GeomParams`] are equal bit for bit share a class, so a geom pair's
/// mixing (without an explicit pair) is a table read giving exactly [`pair_params_with`]'s
/// bits. Models with more than `MAX_MIX_CLASSES` classes mix per pair.
#[derive(Clone, Debug)]
pub(crate) struct MixTable {
    /// Class of each geom (empty when the model has too many classes).
    class: Vec<u8>,
    nclass: usize,
    /// `mixed[c1 * nclass + c2]`: [`pair_params_with`] of the classes, margin and gap zero.
    mixed: Vec<PairParams>,
}

impl MixTable {
    /// Classes of the geoms with parameters `params` (one per geom of `m`) and their mixing.
    pub(crate) fn new(m: &Model, params: &[GeomParams]) -> MixTable {
        let mut reps: Vec<usize> = Vec::new();
        let mut class = Vec::with_capacity(params.len());
        for (g, p) in params.iter().enumerate() {
            let c = match reps.iter().position(|&r| params[r].same_bits(p)) {
                Some(c) => c,
                None if reps.len() < MAX_MIX_CLASSES => {
                    reps.push(g);
                    reps.len() - 1
                }
                None => {
                    return MixTable {
                        class: Vec::new(),
                        nclass: 0,
                        mixed: Vec::new(),
                    }
                }
            };
            class.push(c as u8);
        }
        let mixed = reps
            .iter()
            .flat_map(|&a| {
                reps.iter()
                    .map(move |&b| pair_params_with(m, &params[a], &params[b], None, 0.0, 0.0))
            })
            .collect();
        MixTable {
            class,
            nclass: reps.len(),
            mixed,
        }
    }

    /// [`pair_params_with`] for geoms `g1`, `g2` (parameters `params`, as given to
    /// [`MixTable::new`]) or explicit pair `pair`, with the pair's margin and gap.
    #[inline]
    pub(crate) fn pair_params(
        &self,
        m: &Model,
        params: &[GeomParams],
        (g1, g2): (usize, usize),
        pair: Option<usize>,
        margin: f64,
        gap: f64,
    ) -> PairParams {
        if pair.is_none() {
            if let (Some(&c1), Some(&c2)) = (self.class.get(g1), self.class.get(g2)) {
                if let Some(p) = self.mixed.get(c1 as usize * self.nclass + c2 as usize) {
                    return PairParams { margin, gap, ..*p };
                }
            }
        }
        pair_params_with(m, &params[g1], &params[g2], pair, margin, gap)
    }
}

/// [`pair_params`] of geoms with parameters `a` and `b` (or of explicit pair `pair`), with the
/// pair's margin and gap already known (from [`pair_margin_gap`]).
pub(crate) fn pair_params_with(
    m: &Model,
    a: &GeomParams,
    b: &GeomParams,
    pair: Option<usize>,
    margin: f64,
    gap: f64,
) -> PairParams {
    let mut p = match pair {
        Some(p) => PairParams {
            margin,
            gap,
            dim: m.pair_dim[p],
            friction: m.pair_friction[p],
            solref: m.pair_solref[p],
            solreffriction: m.pair_solreffriction[p],
            solimp: m.pair_solimp[p],
            adhesion: m.pair_adhesion[p],
        },
        None => mix_geoms(a, b, margin, gap),
    };
    if m.opt.enableflags & enable::OVERRIDE != 0 {
        p.solref = m.opt.o_solref;
        p.solimp = m.opt.o_solimp;
        p.friction = m.opt.o_friction;
    }
    for f in &mut p.friction {
        *f = f.max(MIN_MU);
    }
    p
}

fn mix_geoms(a: &GeomParams, b: &GeomParams, margin: f64, gap: f64) -> PairParams {
    if a.priority != b.priority {
        let g = if a.priority > b.priority { a } else { b };
        let f = g.friction;
        return PairParams {
            margin,
            gap,
            dim: g.condim,
            friction: [f.x, f.x, f.y, f.z, f.z],
            solref: g.solref,
            solreffriction: [0.0, 0.0],
            solimp: g.solimp,
            adhesion: g.adhesion,
        };
    }
    let (s1, s2) = (a.solmix, b.solmix);
    let mix = if s1 < MINVAL && s2 < MINVAL {
        0.5
    } else if s1 < MINVAL {
        0.0
    } else if s2 < MINVAL {
        1.0
    } else {
        s1 / (s1 + s2)
    };
    let (r1, r2) = (a.solref, b.solref);
    let solref = if r1[0] > 0.0 && r2[0] > 0.0 {
        [
            mix * r1[0] + (1.0 - mix) * r2[0],
            mix * r1[1] + (1.0 - mix) * r2[1],
        ]
    } else {
        [r1[0].min(r2[0]), r1[1].min(r2[1])]
    };
    let (i1, i2) = (a.solimp, b.solimp);
    let mut solimp = [0.0; 5];
    for k in 0..5 {
        solimp[k] = mix * i1[k] + (1.0 - mix) * i2[k];
    }
    let f = a.friction.max(b.friction);
    PairParams {
        margin,
        gap,
        dim: a.condim.max(b.condim),
        friction: [f.x, f.x, f.y, f.z, f.z],
        solref,
        solreffriction: [0.0, 0.0],
        solimp,
        adhesion: a.adhesion + b.adhesion,
    }
}

/// The contact frame from a normal and an optional tangent (MuJoCo's `mju_makeFrame`):
/// rows normal, tangent 1, tangent 2 = normal × tangent 1. The normal is scaled by the
/// reciprocal of its length whatever that length, as MuJoCo 4.0.0 does (a normal an ulp short of
/// unit length comes out changed); a normal or tangent shorter than `MINVAL` becomes +x.
pub fn make_frame(normal: DVec3, tangent: DVec3) -> [DVec3; 3] {
    // a normal of exactly unit squared length is its own normalization (sqrt(1) = 1 and
    // n * (1 / 1) = n, bit for bit)
    let len2 = normal.length_squared();
    let n = if len2 == 1.0 {
        normal
    } else {
        let len = len2.sqrt();
        if len < MINVAL {
            DVec3::X
        } else {
            normal * (1.0 / len)
        }
    };
    let mut t = tangent;
    if t.length_squared() < 0.25 {
        t = if n.y.abs() < 0.5 { DVec3::Y } else { DVec3::Z };
    }
    t -= n * n.dot(t);
    let tl2 = t.length_squared();
    // an exactly unit tangent (e.g. an axis-aligned normal) is its own normalization:
    // sqrt(1) = 1 and t * (1 / 1) = t, bit for bit
    let t = if tl2 == 1.0 {
        t
    } else {
        let tl = tl2.sqrt();
        if tl < MINVAL {
            DVec3::X
        } else {
            t * (1.0 / tl)
        }
    };
    [n, t, n.cross(t)]
}

/// Builds a contact from a narrow-phase result.
pub fn make_contact(geom: [usize; 2], pre: &PreContact, params: &PairParams) -> Contact {
    make_contact_framed(geom, pre, params, make_frame(pre.normal, pre.tangent))
}

/// Builds the contacts of one geom pair, appending them to `out`. Contacts whose normal and
/// tangent equal (bit for bit) those of the previous one share its frame instead of
/// recomputing it (face contacts of boxes and planes come in groups with one normal).
pub fn push_contacts(
    geom: [usize; 2],
    pres: &[PreContact],
    params: &PairParams,
    out: &mut Vec<Contact>,
) {
    let same = |a: DVec3, b: DVec3| {
        (a.x.to_bits() == b.x.to_bits())
            & (a.y.to_bits() == b.y.to_bits())
            & (a.z.to_bits() == b.z.to_bits())
    };
    out.reserve(pres.len());
    let mut prev: Option<&PreContact> = None;
    let mut frame = [DVec3::ZERO; 3];
    for pre in pres {
        if !prev.is_some_and(|p| same(p.normal, pre.normal) && same(p.tangent, pre.tangent)) {
            frame = make_frame(pre.normal, pre.tangent);
        }
        prev = Some(pre);
        out.push(make_contact_framed(geom, pre, params, frame));
    }
}

/// [`make_contact`] with the frame already built from `pre.normal` and `pre.tangent`.
fn make_contact_framed(
    geom: [usize; 2],
    pre: &PreContact,
    params: &PairParams,
    frame: [DVec3; 3],
) -> Contact {
    let adhesive = params.adhesion > 0.0;
    let in_gap = pre.dist >= params.margin;
    let exclude = in_gap && !adhesive;
    Contact {
        geom,
        dist: pre.dist,
        pos: pre.pos,
        frame,
        includemargin: params.margin,
        friction: params.friction,
        solref: params.solref,
        solreffriction: params.solreffriction,
        solimp: params.solimp,
        adhesion: params.adhesion,
        dim: if in_gap && adhesive { 1 } else { params.dim },
        exclude,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frame_is_orthonormal_and_right_handed() {
        for n in [DVec3::X, DVec3::Y, DVec3::new(0.3, -0.8, 0.5), DVec3::NEG_Z] {
            let f = make_frame(n, DVec3::ZERO);
            assert!((f[0] - n.normalize()).length() < 1e-15);
            assert!(f[0].dot(f[1]).abs() < 1e-15 && f[1].dot(f[2]).abs() < 1e-15);
            assert!((f[0].cross(f[1]) - f[2]).length() < 1e-15);
        }
    }

    #[test]
    fn frame_of_axis_normals_matches_the_normalizing_path() {
        // the unit-normal and unit-tangent shortcuts must give what sqrt and division give
        for n in [DVec3::Z, DVec3::NEG_Z, DVec3::X, DVec3::NEG_Y] {
            let f = make_frame(n, DVec3::ZERO);
            assert_eq!(f[0], n * (1.0 / n.length()));
            let mut t = if n.y.abs() < 0.5 { DVec3::Y } else { DVec3::Z };
            t -= n * n.dot(t);
            let t = t * (1.0 / t.length());
            assert_eq!(f[1], t);
            assert_eq!(f[2], n.cross(t));
        }
    }

    #[test]
    fn shared_frames_equal_frames_built_one_by_one() {
        let params = PairParams {
            margin: 0.0,
            gap: 0.0,
            dim: 3,
            friction: [1.0, 1.0, 0.005, 1e-4, 1e-4],
            solref: [0.02, 1.0],
            solreffriction: [0.0, 0.0],
            solimp: [0.9, 0.95, 0.001, 0.5, 2.0],
            adhesion: 0.0,
        };
        let tilted = DVec3::new(0.3, -0.8, 0.5).normalize();
        let pre = |normal: DVec3, x: f64| PreContact {
            dist: -0.01,
            pos: DVec3::new(x, 0.0, 0.0),
            normal,
            tangent: DVec3::ZERO,
        };
        // a run of equal normals, a different one, a signed zero (equal as floats, not as bits)
        let pres = [
            pre(tilted, 0.0),
            pre(tilted, 1.0),
            pre(DVec3::Z, 2.0),
            pre(DVec3::new(-0.0, 0.0, 1.0), 3.0),
            pre(tilted, 4.0),
        ];
        let mut out = Vec::new();
        push_contacts([1, 2], &pres, &params, &mut out);
        assert_eq!(out.len(), pres.len());
        for (c, p) in out.iter().zip(&pres) {
            let single = make_contact([1, 2], p, &params);
            assert_eq!(c, &single);
            let bits = |f: &[DVec3; 3]| f.map(|v| v.to_array().map(f64::to_bits));
            assert_eq!(bits(&c.frame), bits(&single.frame));
        }
    }

    /// cylinders_on_boxes, state 3, cylinder 2 on box 1: the second multi-contact normal is
    /// normalize(x1 - x2) = (0, 0, -0.9999999999999999); MuJoCo 4.0.0's frame has (0, 0, -1).
    #[test]
    fn frame_renormalizes_a_near_unit_normal_cylinders_on_boxes_s3() {
        let n = DVec3::new(0.0, 0.0, -0.9999999999999999);
        assert_ne!(n.length(), 1.0);
        assert_eq!(make_frame(n, DVec3::ZERO)[0], DVec3::NEG_Z);
        assert_eq!(make_frame(DVec3::ZERO, DVec3::ZERO)[0], DVec3::X);
    }

    #[test]
    fn frame_keeps_a_given_tangent() {
        let f = make_frame(DVec3::Z, DVec3::new(1.0, 0.0, 0.3));
        assert!((f[1] - DVec3::X).length() < 1e-15);
    }
}
