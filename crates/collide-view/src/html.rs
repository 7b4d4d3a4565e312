//! One self-contained HTML page showing a [`Scene`]: three.js 0.170.0 (MIT, vendored from npm
//! under `assets/`) and the scene data are embedded, so the page opens from `file://` with no
//! network.
//!
//! The scene travels as JSON holding base64 little-endian arrays: per shape `pos`, `nrm`
//! (`f32 × 3` per vertex) and `idx` (`u32`); `poses` (`f32 × 7` per state and drawn geom:
//! position, then quaternion `w x y z`); contacts as `cstart` (offsets per state, `nstate + 1`),
//! `cgeom` (`u32 × 2`: model geom indices) and `cdata` (`f32 × 7`: dist, point, normal).

use crate::scene::Scene;
use serde_json::json;

/// three.js, ES module build (minified).
pub const THREE_JS: &str = include_str!("../assets/three.module.min.js");
/// three.js orbit controls (imports `three`).
pub const ORBIT_CONTROLS_JS: &str = include_str!("../assets/OrbitControls.js");
/// The page template: `{{TITLE}}`, `{{THREE}}`, `{{ORBIT}}`, `{{DATA}}` are filled in.
const TEMPLATE: &str = include_str!("../assets/viewer.html");

/// Standard base64 with padding.
pub fn base64(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut s = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for ch in bytes.chunks(3) {
        let b = [ch[0], *ch.get(1).unwrap_or(&0), *ch.get(2).unwrap_or(&0)];
        let n = (b[0] as u32) << 16 | (b[1] as u32) << 8 | b[2] as u32;
        for k in 0..4 {
            if k <= ch.len() {
                s.push(A[(n >> (18 - 6 * k) & 63) as usize] as char);
            } else {
                s.push('=');
            }
        }
    }
    s
}

fn b64_f32(v: impl IntoIterator<Item = f32>) -> String {
    base64(&v.into_iter().flat_map(f32::to_le_bytes).collect::<Vec<_>>())
}

fn b64_u32(v: impl IntoIterator<Item = u32>) -> String {
    base64(&v.into_iter().flat_map(u32::to_le_bytes).collect::<Vec<_>>())
}

/// HTML text escaping for the title.
fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The scene data as JSON text, safe inside a `<script>` element (`<` written as `\u003c`).
pub fn scene_json(scene: &Scene) -> String {
    let shapes: Vec<_> = scene
        .shapes
        .iter()
        .map(|s| {
            json!({
                "pos": b64_f32(s.pos.iter().flatten().copied()),
                "nrm": b64_f32(s.nrm.iter().flatten().copied()),
                "idx": b64_u32(s.idx.iter().copied()),
                "plane": s.plane,
            })
        })
        .collect();
    let g = &scene.geoms;
    let mut poses = Vec::with_capacity(scene.nstate() * g.len() * 7);
    for (k, st) in scene.states.iter().enumerate() {
        for i in 0..g.len() {
            let q = scene.quat(k, i);
            let p = st.pos[i];
            poses.extend([p.x, p.y, p.z, q.w, q.x, q.y, q.z].map(|v| v as f32));
        }
    }
    let mut cstart = vec![0usize];
    let (mut cgeom, mut cdata) = (Vec::new(), Vec::new());
    for st in &scene.states {
        for c in &st.contacts {
            cgeom.extend(c.geom.map(|x| x as u32));
            let n = c.frame[0];
            cdata.extend([c.dist, c.pos.x, c.pos.y, c.pos.z, n.x, n.y, n.z].map(|v| v as f32));
        }
        cstart.push(cgeom.len() / 2);
    }
    let [lo, hi] = scene.bounds;
    let (base, gain) = scene.normal_scale();
    let data = json!({
        "shapes": shapes,
        "geoms": {
            "id": g.iter().map(|x| x.id).collect::<Vec<_>>(),
            "name": g.iter().map(|x| x.name.as_str()).collect::<Vec<_>>(),
            "type": g.iter().map(|x| x.kind.name()).collect::<Vec<_>>(),
            "body": g.iter().map(|x| x.body).collect::<Vec<_>>(),
            "shape": g.iter().map(|x| x.shape).collect::<Vec<_>>(),
            "color": g.iter().map(|x| x.color).collect::<Vec<_>>(),
        },
        "bodies": scene.body_names,
        "nstate": scene.nstate(),
        "poses": b64_f32(poses),
        "cstart": cstart,
        "cgeom": b64_u32(cgeom),
        "cdata": b64_f32(cdata),
        "bounds": [lo.x, lo.y, lo.z, hi.x, hi.y, hi.z],
        "normal_scale": [base, gain],
    });
    data.to_string().replace('<', "\\u003c")
}

/// Fills `{{NAME}}` markers of `template` in one pass (inserted text is not scanned again).
fn fill(template: &str, values: &[(&str, &str)]) -> String {
    let extra: usize = values.iter().map(|(_, v)| v.len()).sum();
    let mut out = String::with_capacity(template.len() + extra);
    let mut rest = template;
    while let Some(i) = rest.find("{{") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 2..];
        match after.find("}}").and_then(|j| {
            values
                .iter()
                .find(|(k, _)| *k == &after[..j])
                .map(|v| (j, v))
        }) {
            Some((j, (_, v))) => {
                out.push_str(v);
                rest = &after[j + 2..];
            }
            None => {
                out.push_str("{{");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The page: a title (escaped) and the scene. The result holds no external reference.
pub fn to_html(scene: &Scene, title: &str) -> String {
    let title = escape(title);
    let data = scene_json(scene);
    fill(
        TEMPLATE,
        &[
            ("TITLE", &title),
            ("THREE", THREE_JS),
            ("ORBIT", ORBIT_CONTROLS_JS),
            ("DATA", &data),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 4648 test vectors.
    #[test]
    fn base64_rfc4648_vectors() {
        let cases = [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ];
        for (i, o) in cases {
            assert_eq!(base64(i.as_bytes()), o);
        }
    }

    /// A marker inside an inserted value is left as it is.
    #[test]
    fn fill_does_not_rescan_inserted_text() {
        let t = fill("a{{X}}b{{Y}}c{{Z}}", &[("X", "{{Y}}"), ("Y", "y")]);
        assert_eq!(t, "a{{Y}}byc{{Z}}");
    }

    /// The vendored three.js cannot end its `<script>` element early.
    #[test]
    fn vendored_scripts_hold_no_script_end_tag() {
        for s in [THREE_JS, ORBIT_CONTROLS_JS] {
            assert!(!s.to_ascii_lowercase().contains("</script"));
            assert!(!s.contains("<!--"));
        }
        assert!(THREE_JS.contains("const t=\"170\""));
    }
}
