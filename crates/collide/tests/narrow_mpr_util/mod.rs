//! Shared helpers of the MPR, plane–convex and height-field oracle tests: the oracle file
//! layout (geoms, mesh hulls, height fields) and the tolerance-based comparison with its report.
#![allow(dead_code)]

use collide::glam::{DMat3, DVec3};
use collide::narrow::convex::{CcdOptions, ConvexGeom};
use collide::narrow::PreContact;
use collide::{ConvexHull, GeomType, HField, HullGraph};

use crate::common;
pub use common::{mat_rowmajor, parse_json, Json};

pub fn hull(j: &Json) -> ConvexHull {
    let ext = j.get("extrema").u32s();
    let mut extrema = [0u32; 27];
    extrema.copy_from_slice(&ext);
    let vert: Vec<_> = j.get("vert").arr().iter().map(Json::vec3).collect();
    let graph = HullGraph::new(&vert, &j.get("adj_start").u32s(), &j.get("adj").u32s())
        .expect("valid hull graph");
    ConvexHull {
        vert,
        mesh_index: j.get("mesh_index").u32s(),
        mesh_nvert: 0,
        graph,
        face: j
            .get("face")
            .arr()
            .iter()
            .map(|f| {
                let v = f.u32s();
                [v[0], v[1], v[2]]
            })
            .collect(),
        poly_start: j.get("poly_start").u32s(),
        poly_vert: j.get("poly_vert").u32s(),
        poly_normal: j.get("poly_normal").arr().iter().map(Json::vec3).collect(),
        extrema,
        vert_poly_start: Vec::new(),
        vert_poly: Vec::new(),
    }
}

pub fn hfield(j: &Json) -> HField {
    let s = j.get("size").nums();
    HField {
        name: String::new(),
        size: [s[0], s[1], s[2], s[3]],
        nrow: j.get("nrow").int() as usize,
        ncol: j.get("ncol").int() as usize,
        data: j.get("data").nums().into_iter().map(|x| x as f32).collect(),
    }
}

pub struct Doc {
    pub json: Json,
    pub meshes: Vec<ConvexHull>,
    pub hfields: Vec<HField>,
}

pub fn load(text: &str) -> Doc {
    let json = parse_json(text);
    assert_eq!(json.get("mujoco_version").str(), "4.0.0");
    let meshes = json
        .opt("meshes")
        .map(|m| m.arr().iter().map(hull).collect())
        .unwrap_or_default();
    let hfields = json
        .opt("hfields")
        .map(|m| m.arr().iter().map(hfield).collect())
        .unwrap_or_default();
    Doc {
        json,
        meshes,
        hfields,
    }
}

pub fn geom<'a>(j: &Json, doc: &'a Doc) -> ConvexGeom<'a> {
    let kind = GeomType::from_name(j.get("type").str()).expect("geom type");
    let mesh = j.get("mesh").int();
    let hf = j.opt("hfield").map_or(-1, Json::int);
    ConvexGeom {
        kind,
        pos: j.get("pos").vec3(),
        mat: mat_rowmajor(&j.get("mat").nums()),
        size: j.get("size").vec3(),
        hull: (mesh >= 0).then(|| &doc.meshes[mesh as usize]),
        hfield: (hf >= 0).then(|| &doc.hfields[hf as usize]),
    }
}

pub fn contacts(j: &Json) -> Vec<PreContact> {
    j.arr()
        .iter()
        .map(|c| PreContact {
            dist: c.get("dist").num(),
            pos: c.get("pos").vec3(),
            normal: c.get("normal").vec3(),
            tangent: DVec3::ZERO,
        })
        .collect()
}

pub fn ccd_options(native: bool, multi: bool) -> CcdOptions {
    CcdOptions {
        iterations: 35,
        tolerance: 1e-6,
        native,
        multi,
    }
}

pub fn angle(a: DVec3, b: DVec3) -> f64 {
    a.cross(b).length().atan2(a.dot(b))
}

// ------------------------------------------------------------------------------------------
// comparison (issue 4 criteria) and report
// ------------------------------------------------------------------------------------------

/// Tolerances of the pair-level comparison.
#[derive(Clone, Copy, Debug)]
pub struct Tol {
    /// Pairs within this of touching (deepest `dist` within this of `margin`) may disagree on
    /// whether a contact exists.
    pub touch: f64,
    /// Deepest `dist`.
    pub dist: f64,
    /// Normal of the deepest contact, radians.
    pub angle: f64,
}

pub const ISSUE4: Tol = Tol {
    touch: 1e-6,
    dist: 1e-6,
    angle: 1e-3,
};

#[derive(Default, Debug)]
pub struct Stats {
    pub cases: usize,
    pub both: usize,
    pub neither: usize,
    /// Existence disagreements excused as touching.
    pub touching: usize,
    /// Existence disagreements that are failures.
    pub found_mismatch: usize,
    pub count_equal: usize,
    pub dist_fail: usize,
    pub angle_fail: usize,
    pub worst_dist: f64,
    pub worst_angle: f64,
    pub worst_dist_case: String,
    pub worst_angle_case: String,
    pub failures: Vec<String>,
}

fn deepest(c: &[PreContact]) -> Option<&PreContact> {
    c.iter().min_by(|a, b| a.dist.total_cmp(&b.dist))
}

impl Stats {
    /// Compares one pair. `scale` divides the distance error (1 for absolute errors).
    pub fn add(
        &mut self,
        name: &str,
        got: &[PreContact],
        want: &[PreContact],
        margin: f64,
        tol: Tol,
        scale: f64,
    ) {
        self.cases += 1;
        if got.len() == want.len() {
            self.count_equal += 1;
        }
        for c in got {
            assert!(
                c.dist.is_finite() && c.pos.is_finite() && c.normal.is_finite(),
                "{name}: non-finite contact {c:?}"
            );
            assert!(
                c.dist <= margin,
                "{name}: dist {} beyond margin {margin}",
                c.dist
            );
        }
        match (deepest(got), deepest(want)) {
            (None, None) => self.neither += 1,
            (Some(g), None) | (None, Some(g)) => {
                if g.dist >= margin - tol.touch * scale {
                    self.touching += 1;
                } else {
                    self.found_mismatch += 1;
                    self.failures.push(format!(
                        "{name}: got {} contacts, MuJoCo {} (deepest {:.3e}, margin {margin:.3e})",
                        got.len(),
                        want.len(),
                        g.dist
                    ));
                }
            }
            (Some(g), Some(w)) => {
                self.both += 1;
                let dd = (g.dist - w.dist).abs() / scale;
                let da = angle(g.normal, w.normal);
                if dd > self.worst_dist {
                    self.worst_dist = dd;
                    self.worst_dist_case = name.to_owned();
                }
                if da > self.worst_angle {
                    self.worst_angle = da;
                    self.worst_angle_case = name.to_owned();
                }
                if dd.is_nan() || dd > tol.dist {
                    self.dist_fail += 1;
                    self.failures.push(format!(
                        "{name}: deepest dist {:.9e} vs MuJoCo {:.9e} (err {dd:.2e})",
                        g.dist, w.dist
                    ));
                }
                // a normal is only meaningful when the contact is not exactly touching
                if da.is_nan() || da > tol.angle {
                    self.angle_fail += 1;
                    self.failures.push(format!(
                        "{name}: deepest normal {:?} vs MuJoCo {:?} ({da:.2e} rad)",
                        g.normal, w.normal
                    ));
                }
            }
        }
    }

    pub fn report(&self, label: &str) -> String {
        let pct = |n: usize| 100.0 * n as f64 / self.cases.max(1) as f64;
        format!(
            "{label}: {} pairs ({} with contacts on both sides, {} on neither); existence \
             mismatches {} (+{} within touching tolerance); equal counts {:.1}%; deepest \
             dist failures {} (worst {:.2e} in {}), normal failures {} (worst {:.2e} rad in {})",
            self.cases,
            self.both,
            self.neither,
            self.found_mismatch,
            self.touching,
            pct(self.count_equal),
            self.dist_fail,
            self.worst_dist,
            self.worst_dist_case,
            self.angle_fail,
            self.worst_angle,
            self.worst_angle_case,
        )
    }

    pub fn count_rate(&self) -> f64 {
        self.count_equal as f64 / self.cases.max(1) as f64
    }

    pub fn failure_text(&self, n: usize) -> String {
        self.failures
            .iter()
            .take(n)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    }
}

// ------------------------------------------------------------------------------------------
// fuzz helpers
// ------------------------------------------------------------------------------------------

/// A small deterministic generator (xorshift64) for the fuzz tests.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
    pub fn range(&mut self, a: f64, b: f64) -> f64 {
        a + (b - a) * self.next()
    }
    pub fn unit(&mut self) -> DVec3 {
        loop {
            let v = DVec3::new(
                self.range(-1.0, 1.0),
                self.range(-1.0, 1.0),
                self.range(-1.0, 1.0),
            );
            let l = v.length();
            if l > 0.1 && l <= 1.0 {
                return v / l;
            }
        }
    }
    pub fn rot(&mut self) -> DMat3 {
        DMat3::from_axis_angle(self.unit(), self.range(0.0, std::f64::consts::TAU))
    }
}

/// Support value `h(u)` of a geom along world direction `u` (centre included).
pub fn support(g: &ConvexGeom, u: DVec3) -> f64 {
    let l = g.mat.transpose() * u;
    let s = g.size;
    let local = match g.kind {
        GeomType::Sphere => s.x,
        GeomType::Capsule => s.x + s.y * l.z.abs(),
        GeomType::Ellipsoid => (s * l).length(),
        GeomType::Cylinder => s.x * (l.x * l.x + l.y * l.y).sqrt() + s.y * l.z.abs(),
        GeomType::Box => l.abs().dot(s),
        GeomType::Mesh => g
            .hull
            .unwrap()
            .vert
            .iter()
            .map(|v| v.dot(l))
            .fold(f64::NEG_INFINITY, f64::max),
        _ => unreachable!(),
    };
    local + u.dot(g.pos)
}

/// Largest violation of `u·p <= h(u)` over 64 sampled directions (support-based
/// containment of `p` in the shape).
pub fn outside_by(g: &ConvexGeom, p: DVec3, rng: &mut Rng) -> f64 {
    (0..64)
        .map(|_| {
            let u = rng.unit();
            u.dot(p) - support(g, u)
        })
        .fold(f64::NEG_INFINITY, f64::max)
}
