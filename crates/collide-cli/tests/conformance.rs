//! The model compiler and kinematics against MuJoCo 4.0.0, on every corpus model.
//! Fixtures come from `conformance/harness.py`; this test needs no Python.

use std::path::PathBuf;
use std::sync::OnceLock;

use collide_cli::conformance::{
    check_corpus, check_model_passes, corpus_entries, format_contact_table, format_convex_table,
    format_table, ModelReport,
};

fn conformance_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../conformance")
}

/// The corpus run, once for all the tests of this file (each reads its own criteria from it).
fn corpus() -> &'static [ModelReport] {
    static REPORTS: OnceLock<Vec<ModelReport>> = OnceLock::new();
    REPORTS.get_or_init(|| check_corpus(&conformance_dir()).expect("corpus.json readable"))
}

#[test]
fn every_corpus_model_matches_mujoco_poses() {
    let reports = corpus();
    let table = format_table(reports);
    println!("{table}");
    assert!(
        reports.len() >= 30,
        "corpus has only {} models",
        reports.len()
    );
    let failed: Vec<_> = reports
        .iter()
        .filter(|r| !r.passed())
        .map(|r| r.name.as_str())
        .collect();
    assert!(
        failed.is_empty(),
        "models not matching MuJoCo: {failed:?}\n{table}"
    );
    let states: usize = reports.iter().map(|r| r.nstates).sum();
    assert!(
        states >= 4 * reports.len(),
        "too few states compared: {states}"
    );
}

#[test]
fn corpus_includes_meshes_and_heightfields() {
    let reports = corpus();
    let mut meshes = 0;
    let mut hfields = 0;
    for r in reports {
        if let Ok(m) = collide_mjcf::load_file(&r.path) {
            meshes += usize::from(!m.mesh.is_empty());
            hfields += usize::from(!m.hfield.is_empty());
        }
    }
    assert!(meshes >= 3, "only {meshes} corpus models with meshes");
    assert!(
        hfields >= 2,
        "only {hfields} corpus models with height fields"
    );
}

#[test]
fn analytic_contacts_match_mujoco_on_every_model() {
    let reports = corpus();
    let table = format_contact_table(reports);
    println!("{table}");
    let failed: Vec<_> = reports
        .iter()
        .filter(|r| r.load_error.is_none() && !r.contacts.passed())
        .map(|r| r.name.as_str())
        .collect();
    assert!(
        failed.is_empty(),
        "contacts differ from MuJoCo on {failed:?}\n{table}"
    );
    let pairs: usize = reports.iter().map(|r| r.contacts.pairs).sum();
    assert!(pairs > 5000, "only {pairs} colliding pairs compared");
}

#[test]
fn convex_pairs_are_found_with_mujocos_contact_counts() {
    // The convex collider against MuJoCo over the whole corpus: every colliding pair found
    // (pairs within 1e-6 of touching excepted), no extra pairs, equal contact counts. The
    // per-model accuracy of the deepest contact is in the printed table.
    let reports = corpus();
    println!("{}", collide_cli::conformance::format_convex_table(reports));
    let sum = |f: &dyn Fn(&collide_cli::conformance::ConvexReport) -> usize| -> usize {
        reports.iter().map(|r| f(&r.contacts.convex)).sum()
    };
    let pairs = sum(&|c| c.pairs);
    let touching = sum(&|c| c.missing_touching);
    let found = sum(&|c| c.found);
    let extra = sum(&|c| c.extra);
    let equal = sum(&|c| c.count_equal);
    assert!(pairs > 1000, "only {pairs} convex pairs in the corpus");
    let n = (pairs - touching) as f64;
    assert!(found as f64 >= 0.995 * n, "found {found} of {n}");
    assert!(extra as f64 <= 0.005 * n, "{extra} extra pairs");
    assert!(
        equal as f64 >= 0.9 * found as f64,
        "equal counts on {equal} of {found}"
    );
}

#[test]
fn convex_criteria_hold_on_every_model() {
    // Per model: pairs found, counts, the deepest contact's dist (1e-6), normal (1e-3 rad) and
    // position (1e-6, against MuJoCo's equally deep contacts) — the criteria of issue 4, with
    // the position added after the sdf contacts' `pos` was found off by |dist| unseen.
    let reports = corpus();
    let failed: Vec<_> = reports
        .iter()
        .filter(|r| r.load_error.is_none() && !r.contacts.convex.passed())
        .map(|r| r.name.as_str())
        .collect();
    assert!(
        failed.is_empty(),
        "convex criteria missed on {failed:?}\n{}",
        collide_cli::conformance::format_convex_table(reports)
    );
}

#[test]
fn every_contact_is_mujocos_bit_for_bit_except_on_known_models() {
    // Every contact of every state (analytic and convex, from a collider without warm starts),
    // against MuJoCo's recorded list: the same geoms, dist, pos and frame, bit for bit, at the
    // same index. The models listed in KNOWN are known not to be, each for a stated reason (none
    // is, today: every corpus model is exact); any other model that stops being exact fails here,
    // as does a listed one that becomes exact (so that the list shrinks). Found by this check: GJK's final support query on a tetrahedron
    // (`gjk_tetrahedron_makes_no_final_support_query`); the builtin sphere's f32 midpoints and
    // the cone's top ring (`builtin_generators_match_mujoco_user_arrays`); a URDF joint axis
    // normalized twice (`joint_axis_is_normalized_once_as_mujoco_does`) and a planar joint's
    // slide axes (`planar_slide_axes_are_mujocos_bit_for_bit`); the core distance's
    // radii and half margins summed before they are subtracted (`scenes/option_override`); the
    // capsule side line of multi-contact
    // (`dog_s7_capsule_side_line_on_cylinder_cap_is_mujocos_bit_for_bit`); the wedge builtin's
    // accumulated cell edges, which decide its near-zero coordinates (`scenes/builtin_lattice`,
    // `builtin_generators_match_mujoco_user_arrays`); the octree coefficients of mesh-backed sdf
    // geoms, MuJoCo's point–triangle distance and face-tree walk (`scenes/sdf_mesh_pile`,
    // `mug_octree_matches_mujoco`, `octree_coefficients_are_mujocos_bit_for_bit`).
    const KNOWN: [&str; 0] = [];
    let reports = corpus();
    let loaded = || reports.iter().filter(|r| r.load_error.is_none());
    let unexpected: Vec<_> = loaded()
        .filter(|r| r.contacts.all_bit_exact() == KNOWN.contains(&r.name.as_str()))
        .map(|r| {
            (
                r.name.as_str(),
                r.contacts.bit_exact,
                r.contacts.all_contacts,
            )
        })
        .collect();
    assert!(
        unexpected.is_empty(),
        "bit-for-bit status differs from the known list on {unexpected:?}"
    );
    let (exact, all) = loaded().fold((0, 0), |(e, a), r| {
        (e + r.contacts.bit_exact, a + r.contacts.all_contacts)
    });
    assert!(all > 20_000, "only {all} contacts compared");
    println!("{exact} of {all} contacts bit for bit");
}

#[test]
fn convex_criteria_hold_with_warm_starts_over_three_passes() {
    // The box and mesh scenes with their states taken three times over by one collider: the
    // touching cache's warm starts (EPA from the cached tetrahedron, depths proved by the cached
    // EPA surface) and its refusals after the jump from the last state back to the first, all
    // against MuJoCo's contacts.
    use rayon::prelude::*;
    let entries: Vec<_> = corpus_entries(&conformance_dir())
        .expect("corpus.json readable")
        .into_iter()
        .filter(|(name, _, _)| name.starts_with("scenes/mesh") || name.contains("box"))
        .collect();
    assert!(entries.len() >= 10, "only {} scenes", entries.len());
    let reports: Vec<ModelReport> = entries
        .into_par_iter()
        .map(|(n, p, f)| check_model_passes(&n, &p, &f, 3))
        .collect();
    let table = format_convex_table(&reports);
    println!("{table}");
    let failed: Vec<_> = reports
        .iter()
        .filter(|r| r.load_error.is_some() || !r.contacts.passed() || !r.contacts.convex.passed())
        .map(|r| r.name.as_str())
        .collect();
    assert!(failed.is_empty(), "criteria missed on {failed:?}\n{table}");
    let convex: usize = reports.iter().map(|r| r.contacts.convex.pairs).sum();
    assert!(convex > 1000, "only {convex} convex pairs compared");
}
