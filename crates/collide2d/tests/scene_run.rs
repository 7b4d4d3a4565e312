//! The JSON scene contract of `collide 2d`: the demo, every shape and query, and errors.

use collide2d::scene::{parse_scene, run, Query, SceneError};
use collide2d::Shape;
use serde_json::Value;

const DEMO: &str = include_str!("../assets/demo_pool.json");

fn results(json: &str) -> Vec<Value> {
    let out = run(json).unwrap_or_else(|e| panic!("{e}"));
    let v: Value = serde_json::from_str(&out).unwrap();
    v["results"].as_array().unwrap().clone()
}

fn vec2(v: &Value) -> [f64; 2] {
    let a = v.as_array().unwrap_or_else(|| panic!("not a vector: {v}"));
    assert_eq!(a.len(), 2);
    [a[0].as_f64().unwrap(), a[1].as_f64().unwrap()]
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

#[test]
fn demo_scene_runs_with_every_op() {
    let scene = parse_scene(DEMO).unwrap();
    assert_eq!(scene.shapes.len(), 18);
    let count = |f: fn(&Shape) -> bool| scene.shapes.iter().filter(|s| f(&s.shape)).count();
    assert_eq!(count(|s| matches!(s, Shape::Fish { .. })), 4);
    assert_eq!(
        count(|s| matches!(s, Shape::Circle { radius } if (*radius - 0.058).abs() < 1e-12)),
        9
    );
    assert_eq!(count(|s| matches!(s, Shape::Border(_))), 1);
    assert_eq!(
        count(|s| matches!(s, Shape::Box { .. }))
            + count(|s| matches!(s, Shape::Circle { radius } if *radius > 0.07)),
        4
    );
    for op in ["contact", "distance", "contains", "toi"] {
        assert!(
            scene.queries.iter().any(|q| match q {
                Query::Contact { .. } => op == "contact",
                Query::Distance { .. } => op == "distance",
                Query::Contains { .. } => op == "contains",
                Query::Toi { .. } => op == "toi",
            }),
            "demo lacks a {op} query"
        );
    }

    let res = results(DEMO);
    assert_eq!(res.len(), scene.queries.len());
    for (q, r) in scene.queries.iter().zip(&res) {
        let keys: &[&str] = match q {
            Query::Contact { .. } => &[
                "intersect",
                "depth",
                "normal",
                "mtv",
                "action_point",
                "points",
                "part_a",
                "part_b",
            ],
            Query::Distance { .. } => &["distance", "normal", "point_a", "point_b"],
            Query::Contains { .. } => &["contained", "violation", "point", "normal"],
            Query::Toi { .. } => &["hit", "toi", "point", "normal"],
        };
        for k in keys {
            assert!(r.get(*k).is_some(), "{q:?}: missing {k} in {r}");
        }
        let [x, y] = vec2(&r["normal"]);
        assert!((x.hypot(y) - 1.0).abs() < 1e-9, "{q:?}: normal {r}");
    }
    // the demo has contacts: some intersecting, fish parts reported
    let hits = res
        .iter()
        .filter(|r| r["intersect"] == Value::Bool(true))
        .count();
    assert!(hits >= 4, "{hits} intersecting contact queries");
    assert!(
        res.iter()
            .any(|r| r["part_a"].is_u64() || r["part_b"].is_u64()),
        "a fish contact names its part"
    );
    assert!(res.iter().any(|r| r["contained"] == Value::Bool(false)));
    assert!(res.iter().any(|r| r["contained"] == Value::Bool(true)));
    assert!(res.iter().any(|r| r["hit"] == Value::Bool(true)));
    // and the broad + narrow phase finds the deliberate overlaps
    let pairs: Vec<(usize, usize)> = scene
        .intersecting_pairs()
        .iter()
        .map(|(i, j, _)| (*i, *j))
        .collect();
    for p in [(1, 5), (6, 7), (10, 14), (0, 9), (0, 4), (2, 17)] {
        assert!(pairs.contains(&p), "{p:?} not in {pairs:?}");
    }
}

#[test]
fn two_circles_every_query() {
    let json = r#"{"shapes":[
        {"type":"circle","radius":0.5,"pos":[0,0]},
        {"type":"circle","radius":0.5,"pos":[0.8,0]},
        {"type":"circle","radius":0.25,"pos":[3,0]}],
      "queries":[
        {"op":"contact","a":0,"b":1,"margin":0},
        {"op":"contact","a":0,"b":2},
        {"op":"contact","a":0,"b":2,"margin":3},
        {"op":"distance","a":0,"b":2},
        {"op":"toi","a":0,"b":2,"motion_a":{"vel":[10,0],"omega":0},"motion_b":{"vel":[-10,0]},"dt":0.1},
        {"op":"toi","a":0,"b":2,"dt":0.1}]}"#;
    let r = results(json);
    assert_eq!(r[0]["intersect"], true);
    assert!(close(r[0]["depth"].as_f64().unwrap(), 0.2));
    assert_eq!(vec2(&r[0]["normal"]), [1.0, 0.0]);
    let mtv = vec2(&r[0]["mtv"]);
    assert!(close(mtv[0], 0.2) && close(mtv[1], 0.0));
    assert!(close(vec2(&r[0]["action_point"])[0], 0.4));
    assert!(!r[0]["points"].as_array().unwrap().is_empty());
    assert!(r[0]["part_a"].is_null() && r[0]["part_b"].is_null());
    // separated beyond the margin: still a full result, with the signed distance
    assert_eq!(r[1]["intersect"], false);
    assert!(close(r[1]["depth"].as_f64().unwrap(), -2.25));
    assert_eq!(vec2(&r[1]["normal"]), [1.0, 0.0]);
    assert!(close(vec2(&r[1]["mtv"])[0], -2.25));
    assert!(close(vec2(&r[1]["action_point"])[0], 0.5 + 2.25 / 2.0));
    assert_eq!(r[1]["points"], serde_json::json!([]));
    // within a large margin: speculative, not intersecting
    assert_eq!(r[2]["intersect"], false);
    assert!(close(r[2]["depth"].as_f64().unwrap(), -2.25));
    assert!(close(r[3]["distance"].as_f64().unwrap(), 2.25));
    assert!(close(vec2(&r[3]["point_a"])[0], 0.5) && close(vec2(&r[3]["point_b"])[0], 2.75));
    // closing at 20 m/s over a 2.25 m gap: out of reach in 0.1 s
    assert_eq!(r[4]["hit"], false);
    assert!(close(r[4]["toi"].as_f64().unwrap(), 0.1));
    assert_eq!(r[5]["hit"], false);
}

#[test]
fn every_shape_type_parses_and_answers() {
    let json = r#"{"shapes":[
        {"type":"border","vertices":[[-2,-1],[2,-1],[2,1],[-2,1]]},
        {"type":"box","half":[0.1,0.2],"pos":[0.5,0],"angle":0.5},
        {"type":"polygon","vertices":[[0,0],[0.2,0],[0,0.2]],"pos":[-0.5,0],"angle":1},
        {"type":"segment","a":[-1,0.5],"b":[1,0.5]},
        {"type":"capsule","a":[-1,-0.5],"b":[1,-0.5],"radius":0.05},
        {"type":"compound","parts":[
            {"type":"circle","radius":0.1,"pos":[0.2,0]},
            {"type":"box","half":[0.1,0.1],"pos":[-0.2,0],"angle":0.3},
            {"type":"capsule","a":[0,-0.1],"b":[0,0.1],"radius":0.02}],"pos":[1.5,0.7],"angle":0.2},
        {"type":"fish","pos":[0,0],"angle":0.1,"joints":[0.1,0.2,0.3]},
        {"type":"fish"},
        {"type":"circle","radius":0.1,"pos":[1.96,0]}],
      "queries":[
        {"op":"contains","container":0,"shape":8},
        {"op":"contains","container":0,"shape":5},
        {"op":"contact","a":5,"b":3,"margin":0.5},
        {"op":"contact","a":6,"b":7},
        {"op":"distance","a":3,"b":4},
        {"op":"toi","a":8,"b":1,"motion_a":{"vel":[-20,0],"omega":0},"motion_b":{"vel":[0,0],"omega":3},"dt":0.1}]}"#;
    let scene = parse_scene(json).unwrap();
    assert!(matches!(scene.shapes[5].shape, Shape::Compound(ref p) if p.len() == 3));
    assert!(matches!(
        scene.shapes[6].shape,
        Shape::Fish {
            joints: [0.1, 0.2, 0.3],
            ..
        }
    ));
    assert_eq!(scene.shapes[7].pose, collide2d::Pose::IDENTITY);
    let r = results(json);
    assert_eq!(r.len(), 6);
    assert_eq!(r[0]["contained"], false);
    assert!(close(r[0]["violation"].as_f64().unwrap(), 0.06));
    assert_eq!(r[1]["contained"], true);
    assert!(r[1]["violation"].as_f64().unwrap() == 0.0);
    assert!(r[2]["part_a"].is_u64(), "compound part id: {}", r[2]);
    assert_eq!(r[3]["intersect"], true, "two fish at the origin overlap");
    assert!(r[3]["part_a"].is_u64() && r[3]["part_b"].is_u64());
    assert!(close(r[4]["distance"].as_f64().unwrap(), 0.95));
    assert_eq!(r[5]["hit"], true);
    let t = r[5]["toi"].as_f64().unwrap();
    assert!(t > 0.0 && t < 0.1);
}

fn err(json: &str) -> SceneError {
    let e = run(json).expect_err("must fail");
    assert_eq!(parse_scene(json).expect_err("must fail"), e);
    e
}

fn invalid_at(json: &str, path: &str, words: &str) {
    match err(json) {
        SceneError::Invalid { path: p, message } => {
            assert_eq!(p, path, "message: {message}");
            assert!(message.contains(words), "{message:?} lacks {words:?}");
        }
        e => panic!("expected an invalid-field error at {path}, got {e}"),
    }
}

#[test]
fn errors_name_the_shape_or_query_and_field() {
    // bad JSON, with its position
    match err("{\"shapes\": [\n {\"type\": \"circle\",, }]}") {
        SceneError::Json { line, .. } => assert_eq!(line, 2),
        e => panic!("{e}"),
    }
    assert!(matches!(err(""), SceneError::Json { .. }));
    assert!(matches!(
        err(r#"{"shapes":[{"type":"circle","radius":NaN}]}"#),
        SceneError::Json { .. }
    ));
    assert!(matches!(
        err(r#"{"shapes":[{"type":"circle","radius":1e999}]}"#),
        SceneError::Json { .. }
    ));
    invalid_at("[1,2]", "scene", "object");
    invalid_at("{}", "shapes", "missing");
    invalid_at(r#"{"shapes":{}}"#, "shapes", "array");
    invalid_at(
        r#"{"shapes":[{"type":"triangle"}]}"#,
        "shapes[0].type",
        "unknown shape type \"triangle\"",
    );
    invalid_at(r#"{"shapes":[{"radius":1}]}"#, "shapes[0].type", "missing");
    invalid_at(
        r#"{"shapes":[{"type":"circle","radius":1},{"type":"circle"}]}"#,
        "shapes[1].radius",
        "missing",
    );
    invalid_at(
        r#"{"shapes":[{"type":"circle","radius":"big"}]}"#,
        "shapes[0].radius",
        "number",
    );
    invalid_at(
        r#"{"shapes":[{"type":"circle","radius":-1}]}"#,
        "shapes[0].radius",
        "positive",
    );
    invalid_at(
        r#"{"shapes":[{"type":"circle","radius":1,"pos":[0]}]}"#,
        "shapes[0].pos",
        "[x, y]",
    );
    invalid_at(
        r#"{"shapes":[{"type":"box","half":[1,0],"pos":[0,0]}]}"#,
        "shapes[0].half",
        "positive",
    );
    invalid_at(
        r#"{"shapes":[{"type":"polygon","vertices":[[0,0],[0,1],[1,0]]}]}"#,
        "shapes[0].vertices",
        "counter-clockwise",
    );
    invalid_at(
        r#"{"shapes":[{"type":"polygon","vertices":[[0,0],[1,0]]}]}"#,
        "shapes[0].vertices",
        "at least 3",
    );
    invalid_at(
        r#"{"shapes":[{"type":"polygon","vertices":[[0,0],[1,0],[2,0]]}]}"#,
        "shapes[0].vertices",
        "collinear",
    );
    invalid_at(
        r#"{"shapes":[{"type":"polygon","vertices":[[0,0],[1,"x"],[2,0]]}]}"#,
        "shapes[0].vertices[1][1]",
        "number",
    );
    invalid_at(
        r#"{"shapes":[{"type":"segment","a":[0,0],"b":[0,0]}]}"#,
        "shapes[0].b",
        "coincident",
    );
    invalid_at(
        r#"{"shapes":[{"type":"border","vertices":[[0,0],[0,1],[1,1],[1,0]]}]}"#,
        "shapes[0].vertices",
        "clockwise",
    );
    invalid_at(
        r#"{"shapes":[{"type":"compound","parts":[]}]}"#,
        "shapes[0].parts",
        "at least one",
    );
    invalid_at(
        r#"{"shapes":[{"type":"compound","parts":[{"type":"fish"}]}]}"#,
        "shapes[0].parts[0].type",
        "cannot be a compound part",
    );
    invalid_at(
        r#"{"shapes":[{"type":"compound","parts":[{"type":"circle"}]}]}"#,
        "shapes[0].parts[0].radius",
        "missing",
    );
    invalid_at(
        r#"{"shapes":[{"type":"fish","joints":[0,0]}]}"#,
        "shapes[0].joints",
        "[j1, j2, j3]",
    );

    let one = r#"{"type":"circle","radius":1}"#;
    let q = |query: &str| {
        format!(r#"{{"shapes":[{one},{one}],"queries":[{{"op":"distance","a":0,"b":1}},{query}]}}"#)
    };
    invalid_at(
        &q(r#"{"op":"contact","a":0,"b":2}"#),
        "queries[1].b",
        "out of range",
    );
    invalid_at(
        &q(r#"{"op":"contact","a":-1,"b":0}"#),
        "queries[1].a",
        "index",
    );
    invalid_at(
        &q(r#"{"op":"contact","a":0.5,"b":0}"#),
        "queries[1].a",
        "index",
    );
    invalid_at(&q(r#"{"op":"contact","a":0}"#), "queries[1].b", "missing");
    invalid_at(
        &q(r#"{"op":"contact","a":0,"b":1,"margin":-0.1}"#),
        "queries[1].margin",
        ">= 0",
    );
    invalid_at(
        &q(r#"{"op":"intersect","a":0,"b":1}"#),
        "queries[1].op",
        "unknown op",
    );
    invalid_at(&q(r#"{"a":0,"b":1}"#), "queries[1].op", "missing");
    invalid_at(
        &q(r#"{"op":"contains","container":0}"#),
        "queries[1].shape",
        "missing",
    );
    invalid_at(
        &q(r#"{"op":"toi","a":0,"b":1}"#),
        "queries[1].dt",
        "missing",
    );
    invalid_at(
        &q(r#"{"op":"toi","a":0,"b":1,"dt":-1}"#),
        "queries[1].dt",
        ">= 0",
    );
    invalid_at(
        &q(r#"{"op":"toi","a":0,"b":1,"dt":1,"motion_a":{"vel":[1]}}"#),
        "queries[1].motion_a.vel",
        "[x, y]",
    );
    invalid_at(
        &q(r#"{"op":"toi","a":0,"b":1,"dt":1,"motion_b":{"omega":"fast"}}"#),
        "queries[1].motion_b.omega",
        "number",
    );
    invalid_at(&q(r#"7"#), "queries[1]", "object");
    // the message names the place
    let e = err(&q(r#"{"op":"contact","a":0,"b":9}"#)).to_string();
    assert!(
        e.starts_with("queries[1].b: index 9 out of range (2 shapes)"),
        "{e}"
    );
}

#[test]
fn empty_scene_and_no_queries() {
    assert_eq!(run(r#"{"shapes":[]}"#).unwrap(), r#"{"results":[]}"#);
    assert_eq!(
        run(r#"{"shapes":[],"queries":[]}"#).unwrap(),
        r#"{"results":[]}"#
    );
}
