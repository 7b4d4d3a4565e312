//! `collide distance` and `collide check`: signed geom distances (MuJoCo's `mj_geomDistance`)
//! and whole-configuration collision checks, as JSON.

use collide::{forward_kinematics, CollisionChecker, GeomDistance, Model, Poses};
use serde_json::{json, Value};

use crate::states::State;

/// Parses `PAIRS.json`, `[[g1, g2], …]` (geom ids), checking the ids against `model`.
pub fn parse_pairs(text: &str, model: &Model) -> Result<Vec<[usize; 2]>, String> {
    let v: Value = serde_json::from_str(text).map_err(|e| format!("invalid JSON: {e}"))?;
    let arr = v
        .as_array()
        .ok_or("expected an array of [geom1, geom2] pairs")?;
    arr.iter()
        .enumerate()
        .map(|(i, p)| {
            let ids: Vec<usize> = p
                .as_array()
                .filter(|a| a.len() == 2)
                .map(|a| {
                    a.iter()
                        .filter_map(Value::as_u64)
                        .map(|x| x as usize)
                        .collect()
                })
                .unwrap_or_default();
            match ids[..] {
                [a, b] if a < model.ngeom() && b < model.ngeom() => Ok([a, b]),
                [_, _] => Err(format!(
                    "pair {i}: {p} names a geom out of range (the model has {} geoms)",
                    model.ngeom()
                )),
                _ => Err(format!(
                    "pair {i}: {p} is not [geom1, geom2] with integer ids"
                )),
            }
        })
        .collect()
}

/// `{"states":[{"distances":[{"geom1","geom2","dist","fromto":[6]},…]},…]}`: the distance of
/// every pair (in the order given) at every state, capped at `distmax`.
pub fn distances_json(
    model: &Model,
    states: &[State],
    pairs: &[[usize; 2]],
    distmax: f64,
) -> Result<Value, String> {
    let mut poses = Poses::new(model);
    let mut query = GeomDistance::new(model);
    let mut out = Vec::with_capacity(states.len());
    for (i, s) in states.iter().enumerate() {
        let mocap = s.mocap.as_ref().map(|(p, q)| (p.as_slice(), q.as_slice()));
        forward_kinematics(model, &s.qpos, mocap, &mut poses)
            .map_err(|e| format!("state {i}: {e}"))?;
        let view = poses.view();
        let d = pairs
            .iter()
            .map(|&[a, b]| {
                let r = query
                    .distance(&view, a, b, distmax)
                    .map_err(|e| e.to_string())?;
                Ok(json!({"geom1": a, "geom2": b, "dist": r.dist, "fromto": r.fromto}))
            })
            .collect::<Result<Vec<_>, String>>()?;
        out.push(json!({ "distances": d }));
    }
    Ok(json!({ "states": out }))
}

/// `{"states":[{"in_collision":bool},…],"colliding":[state indices]}`.
pub fn check_json(model: &Model, states: &[State]) -> Result<Value, String> {
    let mut checker = CollisionChecker::new(model);
    let mut flags = Vec::with_capacity(states.len());
    for (i, s) in states.iter().enumerate() {
        let mocap = s.mocap.as_ref().map(|(p, q)| (p.as_slice(), q.as_slice()));
        let hit = checker.in_collision_mocap(&s.qpos, mocap).map_err(|e| {
            format!(
                "state {i}: {}",
                e.to_string().trim_start_matches("state 0: ")
            )
        })?;
        flags.push(hit);
    }
    let colliding: Vec<usize> = (0..flags.len()).filter(|&i| flags[i]).collect();
    let states: Vec<Value> = flags
        .iter()
        .map(|&f| json!({ "in_collision": f }))
        .collect();
    Ok(json!({ "states": states, "colliding": colliding }))
}
