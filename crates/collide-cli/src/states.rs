//! `STATES.json`: `{"states":[{"qpos":[…], "mocap_pos":[[x,y,z],…]?, "mocap_quat":[[w,x,y,z],…]?,
//! "body_awake":[…]?},…]}`. `body_awake` is MuJoCo's `mjData.body_awake` (one per body: 1 awake,
//! 0 asleep, -1 static); it applies only to models that enable sleeping
//! (`<option><flag sleep="enable"/>`). Other fields are ignored.

use collide::glam::{DQuat, DVec3};
use collide::math::quat_wxyz;
use collide::{Collider, Contact, Model, Poses, Stats};
use serde_json::Value;

/// One configuration: generalized coordinates and optional mocap poses.
#[derive(Clone, Debug, PartialEq)]
pub struct State {
    /// Generalized coordinates.
    pub qpos: Vec<f64>,
    /// Mocap positions and orientations, if given.
    pub mocap: Option<(Vec<DVec3>, Vec<DQuat>)>,
    /// MuJoCo's sleep state per body (1 awake, 0 asleep, -1 static), if given.
    pub body_awake: Option<Vec<i8>>,
}

impl State {
    /// The model's reference configuration, mocap bodies at their model poses.
    pub fn qpos0(model: &Model) -> State {
        State {
            qpos: model.qpos0.clone(),
            mocap: None,
            body_awake: None,
        }
    }

    /// The per-body "asleep" flags for [`collide::Collider::set_asleep`]: `Some` when the model
    /// enables sleeping and the state carries `body_awake` (asleep = 0, as MuJoCo's collision
    /// reads it), `None` otherwise (everything awake). Errors when `body_awake` does not have
    /// one entry per body.
    pub fn asleep_flags(&self, model: &Model) -> Result<Option<Vec<bool>>, String> {
        let Some(aw) = self.body_awake.as_ref() else {
            return Ok(None);
        };
        if aw.len() != model.nbody() {
            return Err(format!(
                "body_awake has {} entries, the model has {} bodies",
                aw.len(),
                model.nbody()
            ));
        }
        if model.opt.enableflags & collide::model::enable::SLEEP == 0 {
            return Ok(None);
        }
        Ok(Some(aw.iter().map(|&a| a == 0).collect()))
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
    let body_awake = match v.get("body_awake") {
        None | Some(Value::Null) => None,
        Some(a) => {
            let what = format!("states[{index}].body_awake");
            let arr = a
                .as_array()
                .ok_or_else(|| format!("{what} is not an array"))?;
            let flags = arr
                .iter()
                .enumerate()
                .map(|(i, x)| match x.as_i64() {
                    Some(k @ -1..=1) => Ok(k as i8),
                    _ => Err(format!(
                        "{what}[{i}] is {x}, expected 1 (awake), 0 (asleep) or -1 (static)"
                    )),
                })
                .collect::<Result<Vec<i8>, String>>()?;
            Some(flags)
        }
    };
    Ok(State {
        qpos,
        mocap,
        body_awake,
    })
}

/// Detects the contacts of one independent state with MuJoCo's sleep semantics: `asleep`
/// (from [`State::asleep_flags`]) marks sleeping bodies, `None` wakes every body.
///
/// `Collider::set_asleep` forgets the boxes kept from earlier calls, so the sleeping bodies'
/// boxes are computed at these poses, not carried over from an unrelated state.
pub fn detect_state(
    collider: &mut Collider,
    poses: &Poses,
    asleep: Option<&[bool]>,
    out: &mut Vec<Contact>,
) -> Stats {
    match asleep {
        Some(flags) if flags.iter().any(|&s| s) => {
            collider.set_asleep(flags);
            let stats = collider.detect(poses, out);
            collider.set_asleep(&[]);
            stats
        }
        _ => collider.detect(poses, out),
    }
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

    #[test]
    fn parses_body_awake_values() {
        let s = parse_states(r#"{"states":[{"qpos":[],"body_awake":[-1,0,1]}]}"#).unwrap();
        assert_eq!(s[0].body_awake, Some(vec![-1, 0, 1]));
    }

    #[test]
    fn rejects_bad_body_awake_with_a_message() {
        for (doc, want) in [
            (
                r#"{"states":[{"qpos":[],"body_awake":[1,2]}]}"#,
                "body_awake[1] is 2",
            ),
            (
                r#"{"states":[{"qpos":[],"body_awake":[0.5]}]}"#,
                "body_awake[0] is 0.5",
            ),
            (
                r#"{"states":[{"qpos":[],"body_awake":[true]}]}"#,
                "body_awake[0] is true",
            ),
            (
                r#"{"states":[{"qpos":[],"body_awake":3}]}"#,
                "body_awake is not an array",
            ),
        ] {
            let e = parse_states(doc).unwrap_err();
            assert!(e.contains(want), "{doc}: {e}");
        }
    }
}
