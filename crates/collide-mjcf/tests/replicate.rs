//! `<replicate>` naming, checked against MuJoCo 4.0.0.

use collide_mjcf::load_str;

const NESTED: &str = r#"
<mujoco>
  <worldbody>
    <replicate count="3" offset="1 0 0">
      <replicate count="2" offset="0 1 0">
        <body name="big"><freejoint/><geom name="ball" size=".1"/></body>
      </replicate>
    </replicate>
  </worldbody>
</mujoco>"#;

/// MuJoCo 4.0.0 names nested copies with the innermost replicate's index first: in
/// scenes/sphere_pile its bodies 1..=3 are `big000`, `big100`, `big010` (the inner replicate
/// of count 2 varies first, in the first digit).
#[test]
fn nested_replicate_names_put_the_innermost_index_first() {
    let m = load_str(NESTED, ".").unwrap();
    let names: Vec<&str> = m.body_name[1..].iter().map(String::as_str).collect();
    assert_eq!(
        names,
        ["big00", "big10", "big01", "big11", "big02", "big12"]
    );
    assert_eq!(m.geom_name[1], "ball10");
    // copy (inner 1, outer 2) sits at offset (2, 1, 0)
    let b = m.body_name.iter().position(|n| n == "big12").unwrap();
    assert_eq!(m.body_pos[b].to_array(), [2.0, 1.0, 0.0]);
}

/// An `<exclude>` naming a replicated body resolves to that copy.
#[test]
fn exclude_names_a_replicated_body() {
    let xml = NESTED.replace(
        "</worldbody>",
        r#"</worldbody><contact><exclude body1="big10" body2="big01"/></contact>"#,
    );
    let m = load_str(&xml, ".").unwrap();
    let id = |n: &str| m.body_name.iter().position(|x| x == n).unwrap() as u32;
    let (a, b) = (id("big10"), id("big01"));
    assert_eq!(m.exclude_signature, vec![(a.min(b) << 16) + a.max(b)]);
}
