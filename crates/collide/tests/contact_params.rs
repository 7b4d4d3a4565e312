//! The contact parameters the collider attaches (mixed per parameter class, or per pair when a
//! model has many classes) equal `contact::pair_params` bit for bit.

use collide::contact::pair_params;
use collide::{forward_kinematics, Collider, Model, Poses};

/// A floor and `n` free spheres in a row, each touching its neighbours and the floor; sphere
/// `k` gets parameter set `k % classes` (solmix, solref, solimp, friction, priority, condim
/// all vary with the set).
fn sphere_row(n: usize, classes: usize) -> (Model, Poses) {
    let mut xml =
        String::from("<mujoco><worldbody><geom type=\"plane\" size=\"5 5 .1\" solmix=\"0.3\"/>");
    for k in 0..n {
        let c = (k % classes) as f64;
        xml += &format!(
            "<body><freejoint/><geom type=\"sphere\" size=\".1\" solmix=\"{}\" \
             solref=\"{} 1\" solimp=\".9 .95 {} .5 2\" friction=\"{} .005 .0001\" \
             priority=\"{}\" condim=\"{}\"/></body>",
            0.5 + 0.37 * c,
            0.02 + 0.003 * c,
            0.001 + 0.0007 * c,
            0.5 + 0.11 * c,
            (k % classes) % 2,
            [3, 4, 6][(k % classes) % 3],
        );
    }
    xml += "</worldbody></mujoco>";
    let m = collide_mjcf::load_str(&xml, ".").expect("test model compiles");
    let mut qpos = Vec::new();
    for k in 0..n {
        qpos.extend([0.19 * k as f64, 0.0, 0.095, 1.0, 0.0, 0.0, 0.0]);
    }
    let mut p = Poses::new(&m);
    forward_kinematics(&m, &qpos, None, &mut p).expect("finite configuration");
    (m, p)
}

fn assert_params_mixed_per_pair(n: usize, classes: usize) {
    let (m, p) = sphere_row(n, classes);
    let mut c = Collider::new(&m).expect("collider");
    let mut out = Vec::new();
    c.detect(&p, &mut out);
    // every sphere touches the floor and each neighbour
    assert_eq!(out.len(), n + n - 1);
    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    for con in &out {
        let want = pair_params(&m, con.geom[0], con.geom[1], None);
        assert_eq!(con.includemargin.to_bits(), want.margin.to_bits());
        assert_eq!(bits(&con.friction), bits(&want.friction));
        assert_eq!(bits(&con.solref), bits(&want.solref));
        assert_eq!(bits(&con.solreffriction), bits(&want.solreffriction));
        assert_eq!(bits(&con.solimp), bits(&want.solimp));
        assert_eq!(con.adhesion.to_bits(), want.adhesion.to_bits());
        assert_eq!(con.dim, want.dim);
    }
}

#[test]
fn tabulated_parameter_classes_mix_like_pair_params() {
    assert_params_mixed_per_pair(12, 5);
}

#[test]
fn models_with_more_parameter_classes_than_the_table_mix_per_pair() {
    assert_params_mixed_per_pair(24, 24);
}
