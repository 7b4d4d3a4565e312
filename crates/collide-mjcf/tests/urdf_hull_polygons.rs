//! Hulls of URDF corpus meshes on which qhull (in MuJoCo 4.0.0) renames or deletes vertices
//! while merging coplanar facets (`qh_rename_sharedvertex` on `l_finger.stl` and
//! `lower_leg_3.stl`, `qh_mergevertex_del` on `chassis_vhacd_mod_zup.obj`; `lower_leg_3.stl` also
//! passes 50 merges, after which qhull partitions with `qh_findbestnew`), against MuJoCo's
//! compiled hulls recorded in
//! `collide/tests/data/narrow/convex_urdf.json` (`conformance/narrow_convex.py urdf`).
//!
//! The build is exact ([`collide_mjcf::mesh_hull::last_build_was_exact`]) and the hull is
//! MuJoCo's in every order: hull vertices, adjacency lists, triangles, polygons with their path
//! starts, normals and extrema. The multi-contact step walks the polygon paths in order, so the
//! orders are what the corpus contacts of urdf/r2d2 (state 5, pair 0–12) and
//! urdf/laikago/laikago_toes_zup (state 7, pair 0–15) depend on
//! (`collide/tests/narrow_convex.rs`, `urdf_*_matches_mujoco_with_its_hull`).

use crate::common;

use collide::ConvexHull;
use common::*;

const DATA: &str = include_str!("../../collide/tests/data/narrow/convex_urdf.json");

/// Compiles `file` alone and checks its hull against MuJoCo's record `key`, orders included.
fn check(dir: &str, file: &str, key: &str) {
    let doc = parse_json(DATA);
    let rec = doc.get("meshes").get(key);
    let xml = format!(
        "<mujoco><asset><mesh name=\"m\" file=\"{file}\"/></asset>\
         <worldbody><geom type=\"mesh\" mesh=\"m\"/></worldbody></mujoco>"
    );
    let m = collide_mjcf::load_str(&xml, dir).expect("model");
    assert!(
        collide_mjcf::mesh_hull::last_build_was_exact(),
        "{file}: the build left qhull's path"
    );
    let hull: &ConvexHull = m.mesh[0].hull.as_ref().expect("hull");
    // the compiled vertices are MuJoCo's
    let verts: Vec<_> = rec.get("vert").arr().iter().map(Json::vec3).collect();
    assert_eq!(m.mesh[0].vert, verts, "{file}: vertices");
    // mesh_graph: [nv, nf, edgeadr[nv], globalid[nv], edges (each list ends with -1), faces]
    let graph: Vec<i64> = rec.get("graph").arr().iter().map(Json::int).collect();
    let (nv, nf) = (graph[0] as usize, graph[1] as usize);
    let global: Vec<u32> = graph[2 + nv..2 + 2 * nv]
        .iter()
        .map(|&x| x as u32)
        .collect();
    assert_eq!(hull.mesh_index, global, "{file}: hull vertices (order)");
    let edges = &graph[2 + 2 * nv..2 + 3 * nv + 3 * nf];
    for i in 0..nv {
        let a = graph[2 + i] as usize;
        let theirs: Vec<u32> = edges[a..]
            .iter()
            .take_while(|&&x| x >= 0)
            .map(|&x| x as u32)
            .collect();
        assert_eq!(
            hull.graph.neighbours(i),
            &theirs[..],
            "{file}: neighbours of {i}"
        );
    }
    let faces: Vec<[u32; 3]> = graph[2 + 3 * nv + 3 * nf..]
        .chunks_exact(3)
        .map(|c| [c[0] as u32, c[1] as u32, c[2] as u32])
        .collect();
    let ours: Vec<[u32; 3]> = hull
        .face
        .iter()
        .map(|t| t.map(|v| hull.mesh_index[v as usize]))
        .collect();
    assert_eq!(ours, faces, "{file}: triangles (order)");
    // polygons as paths (mesh indices), in order, with their normals
    let ours: Vec<Vec<u32>> = hull
        .polygons()
        .map(|p| p.iter().map(|&v| hull.mesh_index[v as usize]).collect())
        .collect();
    let theirs: Vec<Vec<u32>> = rec.get("polyvert").arr().iter().map(Json::u32s).collect();
    assert_eq!(ours, theirs, "{file}: polygon paths");
    let normals: Vec<_> = rec.get("polynormal").arr().iter().map(Json::vec3).collect();
    assert_eq!(
        hull.poly_normal.len(),
        normals.len(),
        "{file}: polygon count"
    );
    for (k, (a, b)) in hull.poly_normal.iter().zip(&normals).enumerate() {
        let d = (*a - *b).length();
        assert!(d < 1e-13, "{file}: polygon {k} normal off by {d:e}");
    }
    let extrema: Vec<u32> = rec.get("extrema").u32s();
    assert_eq!(hull.extrema.to_vec(), extrema, "{file}: extrema");
}

#[test]
fn urdf_r2d2_l_finger_hull_is_mujocos() {
    check(
        "../../conformance/corpus/urdf/pybullet_data",
        "l_finger.stl",
        "urdf/r2d2:l_finger",
    );
}

#[test]
fn urdf_laikago_toes_zup_chassis_hull_is_mujocos() {
    check(
        "../../conformance/corpus/urdf/pybullet_data/laikago",
        "chassis_vhacd_mod_zup.obj",
        "urdf/laikago/laikago_toes_zup:chassis_vhacd_mod_zup",
    );
}

#[test]
fn urdf_laikago_toes_zup_lower_leg_hull_is_mujocos() {
    check(
        "../../conformance/corpus/urdf/pybullet_data/laikago",
        "lower_leg_3.stl",
        "urdf/laikago/laikago_toes_zup:lower_leg_3",
    );
}
