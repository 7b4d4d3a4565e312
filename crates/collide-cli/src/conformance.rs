//! Conformance against MuJoCo 4.0.0: compares our compiled model and world poses with the
//! fixtures recorded by `conformance/harness.py` (see `conformance/README.md`).
//!
//! Tolerances: 1e-9 on geom positions and rotation-matrix entries; 1e-6 for geoms whose frame
//! comes from a mesh (MuJoCo stores mesh vertices as `f32` and derives the mesh frame from
//! them, so our principal axes agree only to about single precision), including geoms whose
//! frame MuJoCo copies from a mesh-dependent inertial frame (`geom_sameframe`).

use std::path::{Path, PathBuf};

use collide::glam::DVec3;
use collide::math::mat_to_rowmajor;
use std::collections::BTreeMap;

use collide::collider::is_analytic;
use collide::glam::DVec3 as V3;
use collide::{forward_kinematics, Collider, Contact, GeomType, Model, Poses, SameFrame};
use serde_json::Value;

use crate::states::{detect_state, parse_state};

/// Pose tolerance for geoms not derived from meshes.
pub const POSE_TOL: f64 = 1e-9;
/// Pose tolerance for geoms whose frame includes a mesh frame.
pub const MESH_POSE_TOL: f64 = 1e-6;

/// One corpus model's comparison.
#[derive(Clone, Debug)]
pub struct ModelReport {
    /// Corpus name, e.g. `dm_control/cartpole`.
    pub name: String,
    /// Path of the MJCF file.
    pub path: PathBuf,
    /// Load error, if our loader failed.
    pub load_error: Option<String>,
    /// Number of geoms (ours).
    pub ngeom: usize,
    /// Number of states compared.
    pub nstates: usize,
    /// Worst geom position error over all states.
    pub max_pos_err: f64,
    /// Worst geom rotation-matrix entry error over all states.
    pub max_mat_err: f64,
    /// Worst error relative to the geom's tolerance (≤ 1 passes).
    pub worst_ratio: f64,
    /// Where the worst error is: (state, geom, geom type).
    pub worst_at: Option<(usize, usize, GeomType)>,
    /// Mismatches in compiled (state-independent) data, e.g. `"geom_rbound[3]: 0.1 vs 0.2"`.
    pub model_mismatches: Vec<String>,
    /// Worst difference of body inertial frames (position, or `1 - |q·q'|` for the
    /// orientation) from MuJoCo's; the mid phase builds its trees in these frames.
    pub inertial_err: f64,
    /// Contact comparison over all states.
    pub contacts: ContactReport,
}

/// Contact tolerance on `dist` and `pos` (scaled by the position's magnitude when above 1).
pub const CONTACT_TOL: f64 = 1e-9;
/// Contact tolerance on the normal's direction, in radians.
pub const NORMAL_TOL: f64 = 1e-9;

/// Contacts compared with MuJoCo's, per state and geom pair. Pairs that MuJoCo sends to its
/// general convex collider are only counted (`convex_pairs`) until that collider exists.
#[derive(Clone, Debug, Default)]
pub struct ContactReport {
    /// Colliding geom pairs (pair × state) in MuJoCo's output with an analytic collider.
    pub pairs: usize,
    /// MuJoCo's contacts on those pairs.
    pub contacts: usize,
    /// Colliding pairs MuJoCo has and we do not.
    pub missing: usize,
    /// Colliding pairs we have and MuJoCo does not.
    pub extra: usize,
    /// Pairs found by both with different contact counts.
    pub count_mismatch: usize,
    /// Worst `dist` difference.
    pub max_dist_err: f64,
    /// Worst `pos` difference.
    pub max_pos_err: f64,
    /// Worst normal angle, radians.
    pub max_normal_err: f64,
    /// Contacts whose mixed parameters (dim, friction, solref, solimp, includemargin, exclude)
    /// differ.
    pub param_mismatch: usize,
    /// States whose analytic contacts come in a different order than MuJoCo's.
    pub order_mismatch: usize,
    /// Colliding pairs (pair × state) that need the convex collider.
    pub convex_pairs: usize,
    /// Those convex pairs compared with solver tolerances.
    pub convex: ConvexReport,
    /// MuJoCo's contacts of every kind (analytic and convex), all states.
    pub all_contacts: usize,
    /// Those equal to ours bit for bit, in MuJoCo's order: the same geoms, `dist`, `pos` and
    /// frame at the same index of the state's list.
    pub bit_exact: usize,
    /// First few differences, for the report.
    pub examples: Vec<String>,
}

impl ContactReport {
    /// Every contact of every state is MuJoCo's, bit for bit and in order.
    pub fn all_bit_exact(&self) -> bool {
        self.bit_exact == self.all_contacts
    }

    /// Every analytic pair found, with MuJoCo's counts, geometry within tolerance, parameters
    /// and order equal.
    pub fn passed(&self) -> bool {
        self.missing == 0
            && self.extra == 0
            && self.count_mismatch == 0
            && self.param_mismatch == 0
            && self.order_mismatch == 0
            && self.max_dist_err <= CONTACT_TOL
            && self.max_pos_err <= CONTACT_TOL
            && self.max_normal_err <= NORMAL_TOL
    }

    fn note(&mut self, s: String) {
        if self.examples.len() < 5 {
            self.examples.push(s);
        }
    }
}

fn angle(a: V3, b: V3) -> f64 {
    a.cross(b).length().atan2(a.dot(b))
}

/// Compares our contacts for one state with MuJoCo's recorded ones.
fn compare_contacts(
    m: &Model,
    state: usize,
    ours: &[Contact],
    theirs: &[Value],
    r: &mut ContactReport,
) {
    let key = |g1: usize, g2: usize| (g1, g2);
    let analytic = |g1: usize, g2: usize| is_analytic(m.geom_type[g1], m.geom_type[g2]);
    let mut mj: BTreeMap<(usize, usize), Vec<&Value>> = BTreeMap::new();
    let mut mj_order = Vec::new();
    for c in theirs {
        let g1 = c.get("geom1").and_then(Value::as_u64).unwrap_or(0) as usize;
        let g2 = c.get("geom2").and_then(Value::as_u64).unwrap_or(0) as usize;
        if g1 >= m.ngeom() || g2 >= m.ngeom() {
            continue;
        }
        if analytic(g1, g2) {
            mj.entry(key(g1, g2)).or_default().push(c);
            mj_order.push(key(g1, g2));
        }
    }
    let mut us: BTreeMap<(usize, usize), Vec<&Contact>> = BTreeMap::new();
    let mut us_order = Vec::new();
    for c in ours.iter().filter(|c| analytic(c.geom[0], c.geom[1])) {
        us.entry(key(c.geom[0], c.geom[1])).or_default().push(c);
        us_order.push(key(c.geom[0], c.geom[1]));
    }
    let convex: std::collections::BTreeSet<(usize, usize)> = theirs
        .iter()
        .filter_map(|c| {
            let g1 = c.get("geom1")?.as_u64()? as usize;
            let g2 = c.get("geom2")?.as_u64()? as usize;
            (g1 < m.ngeom() && g2 < m.ngeom() && !analytic(g1, g2)).then_some((g1, g2))
        })
        .collect();
    r.convex_pairs += convex.len();
    if mj_order != us_order {
        r.order_mismatch += 1;
    }
    for (k, list) in &mj {
        r.pairs += 1;
        r.contacts += list.len();
        let Some(mine) = us.get(k) else {
            r.missing += 1;
            r.note(format!(
                "state {state}: pair {k:?} missing ({} MuJoCo contacts)",
                list.len()
            ));
            continue;
        };
        if mine.len() != list.len() {
            r.count_mismatch += 1;
            r.note(format!(
                "state {state}: pair {k:?}: {} contacts vs MuJoCo's {}",
                mine.len(),
                list.len()
            ));
            continue;
        }
        for (a, b) in mine.iter().zip(list) {
            let dist = b.get("dist").and_then(Value::as_f64).unwrap_or(f64::NAN);
            let pos = b.get("pos").map(f64s).unwrap_or_default();
            let normal = b.get("normal").map(f64s).unwrap_or_default();
            if pos.len() != 3 || normal.len() != 3 {
                continue;
            }
            let pos = V3::new(pos[0], pos[1], pos[2]);
            let normal = V3::new(normal[0], normal[1], normal[2]);
            let scale = 1.0f64.max(pos.abs().max_element());
            let de = (a.dist - dist).abs() / scale;
            let pe = (a.pos - pos).abs().max_element() / scale;
            let ne = angle(a.normal(), normal);
            if de.max(pe) > CONTACT_TOL || ne > NORMAL_TOL {
                r.note(format!(
                    "state {state}: pair {k:?}: dist {} vs {dist}, pos err {pe:.1e}, normal err {ne:.1e}",
                    a.dist
                ));
            }
            r.max_dist_err = r
                .max_dist_err
                .max(if de.is_nan() { f64::INFINITY } else { de });
            r.max_pos_err = r
                .max_pos_err
                .max(if pe.is_nan() { f64::INFINITY } else { pe });
            r.max_normal_err = r
                .max_normal_err
                .max(if ne.is_nan() { f64::INFINITY } else { ne });
            let num = |k: &str| b.get(k).and_then(Value::as_f64).unwrap_or(f64::NAN);
            let arr = |k: &str| b.get(k).map(f64s).unwrap_or_default();
            let close = |x: &[f64], y: &[f64]| {
                x.len() == y.len() && x.iter().zip(y).all(|(p, q)| (p - q).abs() <= 1e-12)
            };
            let params_ok = a.dim as f64 == num("dim")
                && close(&a.friction, &arr("friction"))
                && close(&a.solref, &arr("solref"))
                && close(&a.solimp, &arr("solimp"))
                && (a.includemargin - num("includemargin")).abs() <= 1e-12
                // the flag steps at dist == includemargin: a tie within tolerance may go either way
                && (f64::from(u8::from(a.exclude)) == num("exclude")
                    || (dist - num("includemargin")).abs() <= CONTACT_TOL * scale);
            if !params_ok {
                r.param_mismatch += 1;
                r.note(format!(
                    "state {state}: pair {k:?}: contact parameters differ"
                ));
            }
        }
    }
    for k in us.keys() {
        if !mj.contains_key(k) {
            r.extra += 1;
            r.note(format!(
                "state {state}: extra pair {k:?} (dist {:.3e})",
                us[k][0].dist
            ));
        }
    }
    compare_convex(m, state, ours, theirs, &mut r.convex);
}

/// Counts MuJoCo's contacts of one state and those of `ours` (a collider without warm starts,
/// whose contacts depend on the poses alone, as MuJoCo's do) equal to them bit for bit.
fn count_bit_exact(ours: &[Contact], theirs: &[Value], r: &mut ContactReport) {
    r.all_contacts += theirs.len();
    if ours.len() == theirs.len() {
        r.bit_exact += ours
            .iter()
            .zip(theirs)
            .filter(|(a, b)| same_bits(a, b))
            .count();
    }
}

/// Our contact and MuJoCo's recorded one have the same geoms, `dist`, `pos` and frame, bit for
/// bit.
fn same_bits(a: &Contact, b: &Value) -> bool {
    let geom = |k: &str| b.get(k).and_then(Value::as_u64).map(|g| g as usize);
    let pos = b.get("pos").map(f64s).unwrap_or_default();
    // (fixtures recorded before the frame was kept hold the normal alone)
    let frame = b
        .get("frame")
        .or_else(|| b.get("normal"))
        .map(f64s)
        .unwrap_or_default();
    let ours_frame = a.frame.iter().flat_map(|r| [r.x, r.y, r.z]);
    geom("geom1") == Some(a.geom[0])
        && geom("geom2") == Some(a.geom[1])
        && b.get("dist").and_then(Value::as_f64).map(f64::to_bits) == Some(a.dist.to_bits())
        && pos.len() == 3
        && pos
            .iter()
            .zip(a.pos.to_array())
            .all(|(p, q)| p.to_bits() == q.to_bits())
        && (frame.len() == 9 || frame.len() == 3)
        && frame
            .iter()
            .zip(ours_frame)
            .all(|(p, q)| p.to_bits() == q.to_bits())
}

/// Convex pairs: tolerance on the deepest contact's position (length units), as on `dist`.
pub const CONVEX_POS_TOL: f64 = 1e-6;

/// Tolerance for "within touching" exceptions of the convex criteria.
pub const TOUCH_TOL: f64 = 1e-6;

/// Convex pairs (those MuJoCo sends to its general convex collider) compared with the
/// criteria of a solver tolerance rather than exactly.
#[derive(Clone, Debug, Default)]
pub struct ConvexReport {
    /// Colliding convex pairs (pair × state) in MuJoCo's output.
    pub pairs: usize,
    /// Of those, found by us.
    pub found: usize,
    /// Missing pairs whose MuJoCo distance is within `TOUCH_TOL` of the detection threshold.
    pub missing_touching: usize,
    /// Pairs we report that MuJoCo does not (beyond the touching exception).
    pub extra: usize,
    /// Pairs found by both with equal contact counts.
    pub count_equal: usize,
    /// Worst difference of the deepest `dist`.
    pub max_dist_err: f64,
    /// Worst angle between the deepest contacts' normals.
    pub max_normal_err: f64,
    /// Worst distance between our deepest contact's `pos` and MuJoCo's (among MuJoCo's
    /// contacts of the pair as deep as its deepest, which tie on a face).
    pub max_pos_err: f64,
    /// Where the worst `pos` difference is: (state, geom 1, geom 2).
    pub worst_pos_at: Option<(usize, usize, usize)>,
    /// Where the worst `dist` difference is: (state, geom 1, geom 2).
    pub worst_dist_at: Option<(usize, usize, usize)>,
    /// Where the worst normal angle is: (state, geom 1, geom 2).
    pub worst_normal_at: Option<(usize, usize, usize)>,
}

impl ConvexReport {
    /// Issue-4 criteria: at least 99.5% found, at most 0.5% extra, deepest dist within 1e-6,
    /// normal within 1e-3 rad, equal counts on at least 90% of pairs; and the deepest contact's
    /// `pos` within [`CONVEX_POS_TOL`] of one of MuJoCo's equally deep contacts. True without
    /// convex pairs.
    pub fn passed(&self) -> bool {
        let n = self.pairs.saturating_sub(self.missing_touching).max(1) as f64;
        self.pairs == 0
            || (self.found as f64 >= 0.995 * n
                && self.extra as f64 <= 0.005 * n
                && self.max_dist_err <= 1e-6
                && self.max_normal_err <= 1e-3
                && self.max_pos_err <= CONVEX_POS_TOL
                && self.count_equal as f64 >= 0.9 * self.found.max(1) as f64)
    }
}

/// Per pair: contact count, deepest `dist`, that contact's normal, and the positions of the
/// contacts as deep as the deepest (several on a face; the first is the deepest's).
type PairSummary = BTreeMap<(usize, usize), (usize, f64, V3, Vec<V3>)>;

/// Contacts whose `dist` differs from the deepest by no more than this tie on depth.
const DEPTH_TIE: f64 = 1e-12;

fn summarize(entries: impl Iterator<Item = ((usize, usize), f64, V3, V3)>) -> PairSummary {
    let mut map = PairSummary::new();
    for (k, d, n, p) in entries {
        let e = map
            .entry(k)
            .or_insert((0, f64::INFINITY, V3::ZERO, Vec::new()));
        e.0 += 1;
        if d < e.1 - DEPTH_TIE {
            e.3.clear();
        }
        if d <= e.1 + DEPTH_TIE {
            e.3.push(p);
        }
        if d < e.1 {
            e.1 = d;
            e.2 = n;
            // the deepest's position first
            let last = e.3.len() - 1;
            e.3.swap(0, last);
        }
    }
    map
}

fn compare_convex(
    m: &Model,
    state: usize,
    ours: &[Contact],
    theirs: &[Value],
    r: &mut ConvexReport,
) {
    let convex = |g1: usize, g2: usize| {
        g1 < m.ngeom() && g2 < m.ngeom() && !is_analytic(m.geom_type[g1], m.geom_type[g2])
    };
    let threshold = |(g1, g2): (usize, usize)| {
        let (margin, gap) = collide::contact::pair_margin_gap(m, g1, g2, None);
        margin + gap
    };
    let mj = summarize(theirs.iter().filter_map(|c| {
        let g1 = c.get("geom1")?.as_u64()? as usize;
        let g2 = c.get("geom2")?.as_u64()? as usize;
        let n = c.get("normal").map(f64s).filter(|n| n.len() == 3)?;
        let d = c.get("dist")?.as_f64()?;
        let p = c.get("pos").map(f64s).filter(|p| p.len() == 3)?;
        let (n, p) = (V3::new(n[0], n[1], n[2]), V3::new(p[0], p[1], p[2]));
        convex(g1, g2).then_some(((g1, g2), d, n, p))
    }));
    let us = summarize(
        ours.iter()
            .filter(|c| convex(c.geom[0], c.geom[1]))
            .map(|c| ((c.geom[0], c.geom[1]), c.dist, c.normal(), c.pos)),
    );
    for (&k, (n, d, normal, tied)) in &mj {
        let (n, d, normal) = (*n, *d, *normal);
        r.pairs += 1;
        match us.get(&k) {
            None if d > threshold(k) - TOUCH_TOL => r.missing_touching += 1,
            None => {}
            Some((n2, d2, normal2, ours_tied)) => {
                let (n2, d2, normal2) = (*n2, *d2, *normal2);
                r.found += 1;
                // our deepest against the nearest of MuJoCo's equally deep contacts
                let pe = tied
                    .iter()
                    .map(|p| p.distance(ours_tied[0]))
                    .fold(f64::INFINITY, f64::min);
                if pe > r.max_pos_err {
                    r.max_pos_err = pe;
                    r.worst_pos_at = Some((state, k.0, k.1));
                }
                r.count_equal += usize::from(n == n2);
                if (d - d2).abs() > r.max_dist_err {
                    r.max_dist_err = (d - d2).abs();
                    r.worst_dist_at = Some((state, k.0, k.1));
                }
                let a = angle(normal, normal2);
                if a > r.max_normal_err {
                    r.max_normal_err = a;
                    r.worst_normal_at = Some((state, k.0, k.1));
                }
            }
        }
    }
    for (&k, &(_, d, ..)) in &us {
        if !mj.contains_key(&k) && d <= threshold(k) - TOUCH_TOL {
            r.extra += 1;
        }
    }
}

/// A fixed-width table of the convex-pair comparison (issue-4 criteria).
pub fn format_convex_table(reports: &[ModelReport]) -> String {
    let mut s = format!(
        "{:<40} {:>6} {:>8} {:>6} {:>6} {:>8} {:>9} {:>9} {:>9}  {}\n",
        "model",
        "pairs",
        "found %",
        "touch",
        "extra",
        "count %",
        "dist err",
        "nrm err",
        "pos err",
        "status"
    );
    let at = |w: Option<(usize, usize, usize)>| {
        w.map_or(String::new(), |(s, a, b)| {
            format!("state {s} pair ({a},{b})")
        })
    };
    for r in reports.iter().filter(|r| r.contacts.convex.pairs > 0) {
        let c = &r.contacts.convex;
        let n = c.pairs.saturating_sub(c.missing_touching).max(1) as f64;
        s.push_str(&format!(
            "{:<40} {:>6} {:>8.2} {:>6} {:>6} {:>8.1} {:>9.1e} {:>9.1e} {:>9.1e}  {}\n",
            r.name,
            c.pairs,
            100.0 * c.found as f64 / n,
            c.missing_touching,
            c.extra,
            100.0 * c.count_equal as f64 / c.found.max(1) as f64,
            c.max_dist_err,
            c.max_normal_err,
            c.max_pos_err,
            if c.passed() {
                "ok".to_owned()
            } else {
                let mut why = Vec::new();
                if c.max_dist_err > 1e-6 {
                    why.push(format!("dist: {}", at(c.worst_dist_at)));
                }
                if c.max_normal_err > 1e-3 {
                    why.push(format!("normal: {}", at(c.worst_normal_at)));
                }
                if c.max_pos_err > CONVEX_POS_TOL {
                    why.push(format!("pos: {}", at(c.worst_pos_at)));
                }
                format!("FAIL  {}", why.join("; "))
            }
        ));
    }
    s
}

impl ModelReport {
    /// Loaded, all poses within tolerance, compiled data equal, inertial frames within the
    /// mesh tolerance.
    pub fn passed(&self) -> bool {
        self.load_error.is_none()
            && self.worst_ratio <= 1.0
            && self.model_mismatches.is_empty()
            && self.inertial_err <= MESH_POSE_TOL
    }
}

/// Reads `corpus.json` in `dir` and returns (name, model path, fixture path) per model.
pub fn corpus_entries(dir: &Path) -> Result<Vec<(String, PathBuf, PathBuf)>, String> {
    let path = dir.join("corpus.json");
    let text = std::fs::read_to_string(&path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let v: Value = serde_json::from_str(&text)
        .map_err(|e| format!("{}: invalid JSON: {e}", path.display()))?;
    let models = v
        .get("models")
        .and_then(Value::as_array)
        .ok_or("corpus.json has no models array")?;
    models
        .iter()
        .map(|m| {
            let s = |k: &str| {
                m.get(k)
                    .and_then(Value::as_str)
                    .ok_or(format!("corpus entry without '{k}'"))
            };
            Ok((
                s("name")?.to_string(),
                dir.join(s("path")?),
                dir.join(s("fixture")?),
            ))
        })
        .collect()
}

fn f64s(v: &Value) -> Vec<f64> {
    match v {
        Value::Array(a) => a.iter().flat_map(f64s).collect(),
        Value::Number(n) => vec![n.as_f64().unwrap_or(f64::NAN)],
        Value::Bool(b) => vec![f64::from(u8::from(*b))],
        _ => vec![],
    }
}

/// Which geoms get the mesh tolerance: mesh geoms, primitives fitted to meshes, and geoms
/// whose frame MuJoCo copies from an inertial frame that a mesh contributes to.
fn mesh_derived(model: &Model, fixture: &Value) -> Vec<bool> {
    let dataid = fixture.get("geom_dataid").map(f64s).unwrap_or_default();
    let from_mesh: Vec<bool> = (0..model.ngeom())
        .map(|g| {
            model.geom_type[g] == GeomType::Mesh
                || (model.geom_type[g] != GeomType::HField
                    && dataid.get(g).is_some_and(|&d| d >= 0.0))
        })
        .collect();
    let mut body_has_mesh = vec![false; model.nbody()];
    for g in 0..model.ngeom() {
        body_has_mesh[model.geom_bodyid[g]] |= from_mesh[g];
    }
    (0..model.ngeom())
        .map(|g| {
            let copies_inertia = matches!(
                model.geom_sameframe[g],
                SameFrame::Inertia | SameFrame::InertiaRot
            );
            from_mesh[g] || (copies_inertia && body_has_mesh[model.geom_bodyid[g]])
        })
        .collect()
}

/// Compares one compiled array with the fixture's; pushes readable mismatches.
fn compare_array(
    out: &mut Vec<String>,
    fixture: &Value,
    key: &str,
    ours: &[f64],
    tol: impl Fn(usize) -> f64,
    per: usize,
) {
    let Some(theirs) = fixture.get(key).map(f64s) else {
        return;
    };
    if theirs.len() != ours.len() {
        out.push(format!(
            "{key}: {} values vs MuJoCo's {}",
            ours.len(),
            theirs.len()
        ));
        return;
    }
    for (i, (a, b)) in ours.iter().zip(&theirs).enumerate() {
        let t = tol(i / per.max(1)) * b.abs().max(1.0);
        if (a - b).abs() > t || a.is_nan() != b.is_nan() {
            out.push(format!("{key}[{}]: ours {a} vs MuJoCo {b}", i / per.max(1)));
            return;
        }
    }
}

/// Compares compiled data with the fixture.
pub fn compare_model(model: &Model, fixture: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let mesh = mesh_derived(model, fixture);
    let exact = |_: usize| 0.0;
    let geom_tol = |g: usize| {
        if mesh.get(g).copied().unwrap_or(false) {
            MESH_POSE_TOL
        } else {
            POSE_TOL
        }
    };
    let usz = |v: &[usize]| v.iter().map(|&x| x as f64).collect::<Vec<_>>();
    let u32s = |v: &[u32]| v.iter().map(|&x| x as f64).collect::<Vec<_>>();
    for (key, n) in [
        ("nbody", model.nbody()),
        ("ngeom", model.ngeom()),
        ("nq", model.nq()),
        ("nmocap", model.nmocap()),
    ] {
        if let Some(t) = fixture.get(key).and_then(Value::as_u64) {
            if t as usize != n {
                out.push(format!("{key}: ours {n} vs MuJoCo {t}"));
            }
        }
    }
    if !out.is_empty() {
        return out;
    }
    compare_array(
        &mut out,
        fixture,
        "body_parentid",
        &usz(&model.body_parentid),
        exact,
        1,
    );
    compare_array(
        &mut out,
        fixture,
        "body_weldid",
        &usz(&model.body_weldid),
        exact,
        1,
    );
    compare_array(
        &mut out,
        fixture,
        "body_rootid",
        &usz(&model.body_rootid),
        exact,
        1,
    );
    compare_array(
        &mut out,
        fixture,
        "body_dofnum",
        &usz(&model.body_dofnum),
        exact,
        1,
    );
    compare_array(
        &mut out,
        fixture,
        "body_contype",
        &u32s(&model.body_contype),
        exact,
        1,
    );
    compare_array(
        &mut out,
        fixture,
        "body_conaffinity",
        &u32s(&model.body_conaffinity),
        exact,
        1,
    );
    compare_array(
        &mut out,
        fixture,
        "body_margin",
        &model.body_margin,
        |_| POSE_TOL,
        1,
    );
    compare_array(
        &mut out,
        fixture,
        "jnt_qposadr",
        &usz(&model.jnt_qposadr),
        exact,
        1,
    );
    compare_array(&mut out, fixture, "qpos0", &model.qpos0, |_| POSE_TOL, 1);
    let gtype: Vec<f64> = model.geom_type.iter().map(|&t| t as u8 as f64).collect();
    compare_array(&mut out, fixture, "geom_type", &gtype, exact, 1);
    compare_array(
        &mut out,
        fixture,
        "geom_bodyid",
        &usz(&model.geom_bodyid),
        exact,
        1,
    );
    compare_array(
        &mut out,
        fixture,
        "geom_contype",
        &u32s(&model.geom_contype),
        exact,
        1,
    );
    compare_array(
        &mut out,
        fixture,
        "geom_conaffinity",
        &u32s(&model.geom_conaffinity),
        exact,
        1,
    );
    compare_array(
        &mut out,
        fixture,
        "geom_condim",
        &u32s(&model.geom_condim),
        exact,
        1,
    );
    let prio: Vec<f64> = model.geom_priority.iter().map(|&p| p as f64).collect();
    compare_array(&mut out, fixture, "geom_priority", &prio, exact, 1);
    let v3 = |v: &[DVec3]| v.iter().flat_map(|x| x.to_array()).collect::<Vec<_>>();
    compare_array(
        &mut out,
        fixture,
        "geom_size",
        &v3(&model.geom_size),
        geom_tol,
        3,
    );
    compare_array(
        &mut out,
        fixture,
        "geom_rbound",
        &model.geom_rbound,
        geom_tol,
        1,
    );
    let aabb: Vec<f64> = model.geom_aabb.iter().flatten().copied().collect();
    compare_array(&mut out, fixture, "geom_aabb", &aabb, geom_tol, 6);
    compare_array(
        &mut out,
        fixture,
        "geom_friction",
        &v3(&model.geom_friction),
        |_| POSE_TOL,
        3,
    );
    compare_array(
        &mut out,
        fixture,
        "geom_solmix",
        &model.geom_solmix,
        |_| POSE_TOL,
        1,
    );
    let solref: Vec<f64> = model.geom_solref.iter().flatten().copied().collect();
    compare_array(&mut out, fixture, "geom_solref", &solref, |_| POSE_TOL, 2);
    let solimp: Vec<f64> = model.geom_solimp.iter().flatten().copied().collect();
    compare_array(&mut out, fixture, "geom_solimp", &solimp, |_| POSE_TOL, 5);
    compare_array(
        &mut out,
        fixture,
        "geom_margin",
        &model.geom_margin,
        |_| POSE_TOL,
        1,
    );
    compare_array(
        &mut out,
        fixture,
        "geom_gap",
        &model.geom_gap,
        |_| POSE_TOL,
        1,
    );
    compare_array(
        &mut out,
        fixture,
        "pair_geom1",
        &usz(&model.pair_geom1),
        exact,
        1,
    );
    compare_array(
        &mut out,
        fixture,
        "pair_geom2",
        &usz(&model.pair_geom2),
        exact,
        1,
    );
    compare_array(
        &mut out,
        fixture,
        "pair_signature",
        &u32s(&model.pair_signature),
        exact,
        1,
    );
    compare_array(
        &mut out,
        fixture,
        "pair_dim",
        &u32s(&model.pair_dim),
        exact,
        1,
    );
    compare_array(
        &mut out,
        fixture,
        "pair_margin",
        &model.pair_margin,
        |_| POSE_TOL,
        1,
    );
    compare_array(
        &mut out,
        fixture,
        "pair_gap",
        &model.pair_gap,
        |_| POSE_TOL,
        1,
    );
    let pf: Vec<f64> = model.pair_friction.iter().flatten().copied().collect();
    compare_array(&mut out, fixture, "pair_friction", &pf, |_| POSE_TOL, 5);
    compare_array(
        &mut out,
        fixture,
        "exclude_signature",
        &u32s(&model.exclude_signature),
        exact,
        1,
    );
    out
}

/// Worst inertial-frame difference (see [`ModelReport::inertial_err`]).
fn inertial_error(model: &Model, fixture: &Value) -> f64 {
    let ipos = fixture.get("body_ipos").map(f64s).unwrap_or_default();
    let iquat = fixture.get("body_iquat").map(f64s).unwrap_or_default();
    if ipos.len() != 3 * model.nbody() || iquat.len() != 4 * model.nbody() {
        return f64::INFINITY;
    }
    let mut worst = 0.0f64;
    for b in 0..model.nbody() {
        let p = model.body_ipos[b].to_array();
        let q = collide::math::quat_to_wxyz(model.body_iquat[b]);
        let ep = (0..3)
            .map(|k| (p[k] - ipos[3 * b + k]).abs())
            .fold(0.0, f64::max);
        let dot: f64 = (0..4).map(|k| q[k] * iquat[4 * b + k]).sum();
        worst = worst.max(ep).max(1.0 - dot.abs());
    }
    worst
}

/// Loads the model at `path` and compares it and its poses with `fixture_path`: one collider
/// (default options, so warm starts on) over the fixture's states in order.
pub fn check_model(name: &str, path: &Path, fixture_path: &Path) -> ModelReport {
    check_model_passes(name, path, fixture_path, 1)
}

/// [`check_model`] with the collider taken `passes` times over the states in order, without
/// being rebuilt: from the second pass on, each pair starts from what the previous state (the
/// last state, for the first state) left in the collider's caches, so the warm starts' answers
/// are compared with MuJoCo's too. Every pass is counted in the report.
pub fn check_model_passes(
    name: &str,
    path: &Path,
    fixture_path: &Path,
    passes: usize,
) -> ModelReport {
    let mut r = ModelReport {
        name: name.to_string(),
        path: path.to_path_buf(),
        load_error: None,
        ngeom: 0,
        nstates: 0,
        max_pos_err: 0.0,
        max_mat_err: 0.0,
        worst_ratio: 0.0,
        worst_at: None,
        model_mismatches: Vec::new(),
        inertial_err: 0.0,
        contacts: ContactReport::default(),
    };
    let fixture: Value = match std::fs::read_to_string(fixture_path)
        .map_err(|e| e.to_string())
        .and_then(|t| serde_json::from_str(&t).map_err(|e| e.to_string()))
    {
        Ok(v) => v,
        Err(e) => {
            r.load_error = Some(format!("fixture {}: {e}", fixture_path.display()));
            return r;
        }
    };
    let model = match collide_mjcf::load_file(path) {
        Ok(m) => m,
        Err(e) => {
            r.load_error = Some(e.to_string());
            return r;
        }
    };
    r.ngeom = model.ngeom();
    r.model_mismatches = compare_model(&model, &fixture);
    r.inertial_err = inertial_error(&model, &fixture);
    if model.ngeom() as u64 != fixture.get("ngeom").and_then(Value::as_u64).unwrap_or(0) {
        return r;
    }
    let mesh = mesh_derived(&model, &fixture);
    let mut poses = Poses::new(&model);
    let mut collider = match Collider::new(&model) {
        Ok(c) => Some(c),
        Err(e) => {
            r.load_error = Some(e.to_string());
            None
        }
    };
    // (a second collider without warm starts for the bit-for-bit count: the first keeps the
    // default options, whose warm starts may move the last bits within the criteria)
    let mut fresh = collider.as_ref().and_then(|_| {
        let options = collide::ColliderOptions {
            warm_start: false,
            ..Default::default()
        };
        Collider::with_options(&model, options).ok()
    });
    let mut contacts = Vec::new();
    let mut fresh_contacts = Vec::new();
    let states = fixture
        .get("states")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    for (visit, (si, s)) in std::iter::repeat_n(states.iter().enumerate(), passes)
        .flatten()
        .enumerate()
    {
        let state = match parse_state(s, si) {
            Ok(st) => st,
            Err(e) => {
                r.model_mismatches.push(format!("fixture state {si}: {e}"));
                continue;
            }
        };
        let mocap = state
            .mocap
            .as_ref()
            .map(|(p, q)| (p.as_slice(), q.as_slice()));
        if let Err(e) = forward_kinematics(&model, &state.qpos, mocap, &mut poses) {
            r.model_mismatches.push(format!("state {si}: {e}"));
            continue;
        }
        r.nstates += 1;
        let asleep = match state.asleep_flags(&model) {
            Ok(a) => a,
            Err(e) => {
                r.model_mismatches.push(format!("state {si}: {e}"));
                None
            }
        };
        if let Some(c) = collider.as_mut() {
            detect_state(c, &poses, asleep.as_deref(), &mut contacts);
            let theirs = s
                .get("contacts")
                .and_then(Value::as_array)
                .map(Vec::as_slice)
                .unwrap_or(&[]);
            compare_contacts(&model, si, &contacts, theirs, &mut r.contacts);
            // (the first pass only: the count is per state)
            if let Some(f) = fresh.as_mut().filter(|_| visit < states.len()) {
                detect_state(f, &poses, asleep.as_deref(), &mut fresh_contacts);
                count_bit_exact(&fresh_contacts, theirs, &mut r.contacts);
            }
        }
        let xpos = s.get("geom_xpos").map(f64s).unwrap_or_default();
        let xmat = s.get("geom_xmat").map(f64s).unwrap_or_default();
        for (g, &from_mesh) in mesh.iter().enumerate() {
            let tol = if from_mesh { MESH_POSE_TOL } else { POSE_TOL };
            let p = poses.geom_xpos[g].to_array();
            let m = mat_to_rowmajor(&poses.geom_xmat[g]);
            let scale = 1.0f64.max(poses.geom_xpos[g].abs().max_element());
            let ep = (0..3)
                .map(|k| (p[k] - xpos.get(3 * g + k).copied().unwrap_or(f64::NAN)).abs())
                .fold(0.0, f64::max);
            let em = (0..9)
                .map(|k| (m[k] - xmat.get(9 * g + k).copied().unwrap_or(f64::NAN)).abs())
                .fold(0.0, f64::max);
            let ep = if ep.is_nan() { f64::INFINITY } else { ep };
            let em = if em.is_nan() { f64::INFINITY } else { em };
            r.max_pos_err = r.max_pos_err.max(ep);
            r.max_mat_err = r.max_mat_err.max(em);
            let ratio = (ep / scale).max(em) / tol;
            if ratio > r.worst_ratio {
                r.worst_ratio = ratio;
                r.worst_at = Some((si, g, model.geom_type[g]));
            }
        }
    }
    r
}

/// Runs every corpus model in `dir` (the `conformance/` folder), models in parallel on
/// rayon's threads; reports in corpus order.
pub fn check_corpus(dir: &Path) -> Result<Vec<ModelReport>, String> {
    use rayon::prelude::*;
    Ok(corpus_entries(dir)?
        .into_par_iter()
        .map(|(n, p, f)| check_model(&n, &p, &f))
        .collect())
}

/// A fixed-width table of the contact comparison.
pub fn format_contact_table(reports: &[ModelReport]) -> String {
    let mut s = format!(
        "{:<40} {:>6} {:>7} {:>5} {:>5} {:>5} {:>8} {:>8} {:>8} {:>6} {:>6}  {}\n",
        "model",
        "pairs",
        "contacts",
        "miss",
        "extra",
        "count",
        "dist err",
        "pos err",
        "nrm err",
        "convex",
        "status",
        "detail"
    );
    for r in reports {
        let c = &r.contacts;
        let status = if r.load_error.is_some() {
            "n/a"
        } else if c.passed() {
            "ok"
        } else {
            "FAIL"
        };
        let mut detail = c.examples.first().cloned().unwrap_or_default();
        if c.param_mismatch > 0 {
            detail = format!("{} param mismatches; {detail}", c.param_mismatch);
        }
        if c.order_mismatch > 0 {
            detail = format!("order differs in {} states; {detail}", c.order_mismatch);
        }
        s.push_str(&format!(
            "{:<40} {:>6} {:>7} {:>5} {:>5} {:>5} {:>8.1e} {:>8.1e} {:>8.1e} {:>6} {:>6}  {}\n",
            r.name,
            c.pairs,
            c.contacts,
            c.missing,
            c.extra,
            c.count_mismatch,
            c.max_dist_err,
            c.max_pos_err,
            c.max_normal_err,
            c.convex_pairs,
            status,
            detail
        ));
    }
    let ok = reports
        .iter()
        .filter(|r| r.load_error.is_none() && r.contacts.passed())
        .count();
    let pairs: usize = reports.iter().map(|r| r.contacts.pairs).sum();
    let convex: usize = reports.iter().map(|r| r.contacts.convex_pairs).sum();
    s.push_str(&format!(
        "{ok} of {} models match MuJoCo 4.0.0's analytic contacts ({pairs} analytic colliding pairs compared; {convex} convex pairs compared separately)\n",
        reports.len()
    ));
    let loaded = reports.iter().filter(|r| r.load_error.is_none());
    let (exact, all) = loaded.clone().fold((0, 0), |(e, a), r| {
        (e + r.contacts.bit_exact, a + r.contacts.all_contacts)
    });
    let models = loaded
        .clone()
        .filter(|r| r.contacts.all_bit_exact())
        .count();
    s.push_str(&format!(
        "every contact, analytic and convex: {exact} of {all} bit for bit and in MuJoCo's order; {models} of {} models exact in every contact\n",
        loaded.clone().count()
    ));
    let inexact: Vec<String> = loaded
        .filter(|r| !r.contacts.all_bit_exact())
        .map(|r| {
            format!(
                "{} ({} of {})",
                r.name, r.contacts.bit_exact, r.contacts.all_contacts
            )
        })
        .collect();
    if !inexact.is_empty() {
        s.push_str(&format!(
            "not exact in every contact: {}\n",
            inexact.join(", ")
        ));
    }
    s
}

/// A fixed-width table of the reports.
pub fn format_table(reports: &[ModelReport]) -> String {
    let mut s = format!(
        "{:<44} {:>6} {:>6} {:>10} {:>10} {:>10} {:>7}  {}\n",
        "model", "ngeom", "states", "pos err", "mat err", "inertial", "status", "detail"
    );
    for r in reports {
        let status = if r.passed() { "ok" } else { "FAIL" };
        let detail = if let Some(e) = &r.load_error {
            format!("load error: {e}")
        } else if let Some(m) = r.model_mismatches.first() {
            format!("{m} (+{} more)", r.model_mismatches.len() - 1)
        } else if r.worst_ratio > 1.0 {
            let (s, g, t) = r.worst_at.unwrap_or((0, 0, GeomType::Sphere));
            format!("worst: state {s} geom {g} ({})", t.name())
        } else {
            String::new()
        };
        s.push_str(&format!(
            "{:<44} {:>6} {:>6} {:>10.2e} {:>10.2e} {:>10.2e} {:>7}  {}\n",
            r.name,
            r.ngeom,
            r.nstates,
            r.max_pos_err,
            r.max_mat_err,
            r.inertial_err,
            status,
            detail
        ));
    }
    let ok = reports.iter().filter(|r| r.passed()).count();
    s.push_str(&format!(
        "{ok} of {} models match MuJoCo 4.0.0\n",
        reports.len()
    ));
    s
}
