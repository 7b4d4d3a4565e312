//! `<mesh builtin=… params=…>` against MuJoCo 4.0.0: the generated vertices and faces equal
//! MjSpec's `uservert`/`userface`, the compiled mesh equals `mesh_vert`/`mesh_face`/`mesh_pos`/
//! `mesh_quat`, and MuJoCo's refusals are errors naming the mesh. Expected values are in
//! `tests/data/builtin/builtin.json`, written by `gen_builtin.py` next to it.

use collide_mjcf::load_str;
use collide_mjcf::mesh_builtin::builtin_mesh;
use serde_json::Value;

fn fixture() -> Value {
    let text = include_str!("data/builtin/builtin.json");
    serde_json::from_str(text).unwrap()
}

fn floats(v: &Value) -> Vec<f64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect()
}

fn ints(v: &Value) -> Vec<u32> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap() as u32)
        .collect()
}

fn params(c: &Value) -> Vec<f64> {
    c["params"]
        .as_str()
        .unwrap()
        .split_whitespace()
        .map(|t| t.parse().unwrap())
        .collect()
}

fn xml(kind: &str, params: &str) -> String {
    format!(
        r#"<mujoco><asset><mesh name="m" builtin="{kind}" params="{params}"/></asset>
        <worldbody><geom type="mesh" mesh="m"/></worldbody></mujoco>"#
    )
}

/// Asserts `got` equals the flat coordinate list `want` within `tol` per coordinate.
fn assert_vertices(label: &str, what: &str, got: &[collide::glam::DVec3], want: &[f64], tol: f64) {
    assert_eq!(got.len() * 3, want.len(), "{label}: {what} count");
    for (i, v) in got.iter().enumerate() {
        for k in 0..3 {
            let d = (v[k] - want[3 * i + k]).abs();
            assert!(
                d < tol,
                "{label}: {what} {i}[{k}] {} vs {}",
                v[k],
                want[3 * i + k]
            );
        }
    }
}

/// Asserts `got` equals the flat coordinate list `want` bit for bit (`0.0` and `-0.0` differ).
fn assert_bits(label: &str, got: &[collide::glam::DVec3], want: &[f64]) {
    assert_eq!(got.len() * 3, want.len(), "{label}: vertex count");
    for (i, v) in got.iter().enumerate() {
        for k in 0..3 {
            assert_eq!(
                v[k].to_bits(),
                want[3 * i + k].to_bits(),
                "{label}: vertex {i}[{k}] {:e} vs {:e}",
                v[k],
                want[3 * i + k]
            );
        }
    }
}

#[test]
fn builtin_generators_match_mujoco_user_arrays() {
    let fx = fixture();
    let cases = fx["cases"].as_array().unwrap();
    assert!(cases.len() >= 35);
    for c in cases {
        let kind = c["kind"].as_str().unwrap();
        let label = format!("{kind} {}", c["params"]);
        let want_v = floats(&c["uservert"]);
        let want_f = ints(&c["userface"]);
        let got = builtin_mesh(kind, &params(c)).unwrap_or_else(|e| panic!("{label}: {e}"));
        // MuJoCo generates in f32: the same `f32` values, bit for bit (the wedge's
        // coordinates that should be 0 included)
        let got_f32: Vec<collide::glam::DVec3> =
            got.vert.iter().map(|v| v.as_vec3().as_dvec3()).collect();
        assert_bits(&label, &got_f32, &want_v);
        let flat: Vec<u32> = got.face.iter().flatten().copied().collect();
        assert_eq!(flat, want_f, "{label}: faces");
    }
}

#[test]
fn builtin_meshes_compile_as_mujoco() {
    let fx = fixture();
    for c in fx["cases"].as_array().unwrap() {
        let kind = c["kind"].as_str().unwrap();
        let p = c["params"].as_str().unwrap();
        let label = format!("{kind} {p}");
        let res = load_str(&xml(kind, p), ".");
        if c.get("error").is_some() {
            let e = res.expect_err(&label).to_string();
            assert!(e.contains("'m'"), "{label}: error must name the mesh: {e}");
            continue;
        }
        let model = res.unwrap_or_else(|e| panic!("{label}: {e}"));
        let mesh = &model.mesh[0];
        let want_v = floats(&c["mesh_vert"]);
        assert_vertices(&label, "mesh_vert", &mesh.vert, &want_v, 1e-6);
        let flat: Vec<u32> = mesh.face.iter().flatten().copied().collect();
        let want_f = ints(&c["mesh_face"]);
        if c["userface"].as_array().unwrap().is_empty() {
            // Faces come from the convex hull: qhull's triangulation of coplanar facets (the
            // cone's caps and sides) is its own, so only the count and the vertices used agree.
            assert_eq!(flat.len(), want_f.len(), "{label}: hull face count");
            let used = |f: &[u32]| {
                let mut u: Vec<u32> = f.to_vec();
                u.sort_unstable();
                u.dedup();
                u
            };
            assert_eq!(used(&flat), used(&want_f), "{label}: hull vertices");
        } else {
            assert_eq!(flat, want_f, "{label}: mesh_face");
        }
        let pos = floats(&c["mesh_pos"]);
        let q = floats(&c["mesh_quat"]);
        let got_q = [mesh.quat.w, mesh.quat.x, mesh.quat.y, mesh.quat.z];
        for (k, want) in pos.iter().enumerate() {
            assert!(
                (mesh.pos[k] - want).abs() < 1e-6,
                "{label}: mesh_pos {:?}",
                mesh.pos
            );
        }
        // A quaternion and its negation are the same frame.
        let same = (0..4).all(|k| (got_q[k] - q[k]).abs() < 1e-6);
        let neg = (0..4).all(|k| (got_q[k] + q[k]).abs() < 1e-6);
        assert!(same || neg, "{label}: mesh_quat {got_q:?} vs {q:?}");
    }
}

/// Planar builtins (plate, square, disc, dim-2 grid) in a geom that does not collide need no
/// hull: MuJoCo compiles them, with the generated faces.
#[test]
fn planar_builtins_compile_in_non_colliding_geoms() {
    let fx = fixture();
    let cases = fx["visual"].as_array().unwrap();
    assert_eq!(cases.len(), 4);
    for c in cases {
        let kind = c["kind"].as_str().unwrap();
        let p = c["params"].as_str().unwrap();
        let label = format!("{kind} {p}");
        let text = format!(
            r#"<mujoco><asset><mesh name="m" builtin="{kind}" params="{p}"/></asset>
            <worldbody><body><inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/>
            <geom type="mesh" mesh="m" contype="0" conaffinity="0"/></body></worldbody></mujoco>"#
        );
        let model = load_str(&text, ".").unwrap_or_else(|e| panic!("{label}: {e}"));
        let mesh = &model.mesh[0];
        let want_v = floats(&c["mesh_vert"]);
        assert_vertices(&label, "mesh_vert", &mesh.vert, &want_v, 1e-6);
        let flat: Vec<u32> = mesh.face.iter().flatten().copied().collect();
        assert_eq!(flat, ints(&c["mesh_face"]), "{label}: mesh_face");
        assert!(
            mesh.hull.is_none(),
            "{label}: no collision hull for a non-colliding geom"
        );
    }
}

#[test]
fn builtin_bad_params_are_errors_naming_the_mesh() {
    let fx = fixture();
    let bad = fx["bad"].as_array().unwrap();
    assert!(bad.len() >= 10);
    for c in bad {
        let kind = c["kind"].as_str().unwrap();
        let p = c["params"].as_str().unwrap();
        let e = load_str(&xml(kind, p), ".")
            .expect_err(&format!(
                "{kind} {p} must be refused (MuJoCo: {})",
                c["error"]
            ))
            .to_string();
        assert!(
            e.contains("'m'") || e.contains("builtin"),
            "{kind} {p}: {e}"
        );
    }
}

#[test]
fn builtin_without_params_or_with_nan_is_an_error() {
    let e = load_str(
        r#"<mujoco><asset><mesh name="ball" builtin="sphere"/></asset></mujoco>"#,
        ".",
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("ball") && e.contains("params"), "{e}");
    let e = load_str(
        r#"<mujoco><asset><mesh name="c" builtin="cone" params="3 nan"/></asset></mujoco>"#,
        ".",
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("not finite") || e.contains("nan"), "{e}");
}
