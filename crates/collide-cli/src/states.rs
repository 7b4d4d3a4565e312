//! `STATES.json`: `{"states":[{"qpos":[…], "mocap_pos":[[x,y,z],…]?, "mocap_quat":[[w,x,y,z],…]?},…]}`.
//! Other fields are ignored.

use collide::glam::{DQuat, DVec3};
use collide::math::quat_wxyz;
use collide::Model;
use serde_json::Value;

/// One configuration: generalized coordinates and optional mocap poses.
#[derive(Clone, Debug, PartialEq)]
pub struct State {
    /// Generalized coordinates.
    pub qpos: Vec<f64>,
    /// Mocap positions and orientations, if given.
    pub mocap: Option<(Vec<DVec3>, Vec<DQuat>)>,
}

impl State {
    /// The model's reference configuration, mocap bodies at their model poses.
    pub fn qpos0(model: &Model) -> State {
        State {
            qpos: model.qpos0.clone(),
            mocap: None,
        }
    }
}

fn numbers(v: &Value, what: &str) -> Result<Vec<f64>, String> {
    let arr = v
        .as_array()
        .ok_or_else(|| format!("{what} is not an array"))?;
    arr.iter()
        .enumerate()
        .map(|(i, x)| {
            x.as_f64()
                .ok_or_else(|| format!("{what}[{i}] is not a number"))
        })
        .collect()
}

fn rows<const N: usize>(v: &Value, what: &str) -> Result<Vec<[f64; N]>, String> {
    let arr = v
        .as_array()
        .ok_or_else(|| format!("{what} is not an array"))?;
    arr.iter()
        .enumerate()
        .map(|(i, r)| {
            let n = numbers(r, &format!("{what}[{i}]"))?;
            <[f64; N]>::try_from(n.as_slice()).map_err(|_| format!("{what}[{i}] needs {N} numbers"))
        })
        .collect()
}

/// Parses one state object.
pub fn parse_state(v: &Value, index: usize) -> Result<State, String> {
    let q = v
        .get("qpos")
        .ok_or_else(|| format!("states[{index}] has no qpos"))?;
    let qpos = numbers(q, &format!("states[{index}].qpos"))?;
    let mocap = match (v.get("mocap_pos"), v.get("mocap_quat")) {
        (Some(p), Some(q)) => {
            let p = rows::<3>(p, &format!("states[{index}].mocap_pos"))?;
            let q = rows::<4>(q, &format!("states[{index}].mocap_quat"))?;
            Some((
                p.into_iter().map(DVec3::from_array).collect(),
                q.into_iter()
                    .map(|q| quat_wxyz(q[0], q[1], q[2], q[3]))
                    .collect(),
            ))
        }
        _ => None,
    };
    Ok(State { qpos, mocap })
}

/// Parses a `STATES.json` document.
pub fn parse_states(text: &str) -> Result<Vec<State>, String> {
    let v: Value = serde_json::from_str(text).map_err(|e| format!("invalid JSON: {e}"))?;
    let arr = v
        .get("states")
        .and_then(Value::as_array)
        .ok_or("expected {\"states\":[…]}")?;
    arr.iter()
        .enumerate()
        .map(|(i, s)| parse_state(s, i))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_qpos_and_ignores_other_fields() {
        let s = parse_states(r#"{"states":[{"qpos":[1,2.5],"extra":3},{"qpos":[]}]}"#).unwrap();
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].qpos, vec![1.0, 2.5]);
        assert!(s[0].mocap.is_none());
    }

    #[test]
    fn rejects_bad_documents_with_a_message() {
        assert!(parse_states("{").unwrap_err().contains("invalid JSON"));
        assert!(parse_states(r#"{"x":1}"#).unwrap_err().contains("states"));
        assert!(parse_states(r#"{"states":[{"qpos":[1,"a"]}]}"#)
            .unwrap_err()
            .contains("qpos[1]"));
    }
}
