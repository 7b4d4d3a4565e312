//! Documents are checked against MuJoCo 4.0.0's schema (`mujoco.mj_printSchema`): what MuJoCo
//! refuses for an unknown element or attribute or a repeated unique element is refused, with
//! the line and element; what it accepts loads. Each case was run through MuJoCo 4.0.0.

use collide_mjcf::{load_str, MjcfError};

fn err(xml: &str) -> MjcfError {
    load_str(xml, ".").expect_err("expected a schema error")
}

fn loads(xml: &str) {
    if let Err(e) = load_str(xml, ".") {
        panic!("refused: {e}");
    }
}

#[test]
fn misspelled_geom_attribute_is_refused_with_the_nearest_name() {
    // MuJoCo: "Schema violation: unrecognized attribute: 'conaffinty'"; ignoring it would make
    // the geom collide with everything
    let e = err(
        "<mujoco><worldbody>\n<geom name=\"g\" size=\".1\" conaffinty=\"0\"/></worldbody></mujoco>",
    );
    assert_eq!(e.location.line, 2, "{e}");
    assert!(e.location.element.contains("geom name=\"g\""), "{e}");
    assert!(
        e.message.contains("unrecognized attribute 'conaffinty'"),
        "{e}"
    );
    assert!(e.message.contains("did you mean 'conaffinity'"), "{e}");
}

#[test]
fn unknown_element_is_refused() {
    let e = err("<mujoco><worldbody>\n<geoms size=\".1\"/></worldbody></mujoco>");
    assert!(e.message.contains("unrecognized element <geoms>"), "{e}");
    assert!(e.message.contains("did you mean 'geom'"), "{e}");
    // an element valid elsewhere but not here: a frame in <asset>, a child of a geom
    err("<mujoco><asset><frame/></asset></mujoco>");
    err("<mujoco><worldbody><geom size=\"1\"><frame/></geom></worldbody></mujoco>");
}

#[test]
fn attribute_of_another_element_is_refused() {
    // `group` belongs to the classes' elements, not to <default>; a default geom takes no class
    let e = err("<mujoco><default><default class=\"a\" group=\"1\"/></default></mujoco>");
    assert!(e.message.contains("unrecognized attribute 'group'"), "{e}");
    err("<mujoco><default><geom class=\"x\"/></default></mujoco>");
    err("<mujoco bogus=\"1\"><worldbody/></mujoco>");
}

#[test]
fn world_body_with_attributes_is_refused() {
    let e = err("<mujoco><worldbody pos=\"1 0 0\"><geom size=\".1\"/></worldbody></mujoco>");
    assert!(
        e.message.contains("world body cannot have attributes"),
        "{e}"
    );
}

#[test]
fn repeated_unique_element_is_refused() {
    let e = err("<mujoco><worldbody><body>\n<inertial mass=\"1\" diaginertia=\"1 1 1\"/>\n<inertial mass=\"1\" diaginertia=\"1 1 1\"/></body></worldbody></mujoco>");
    assert_eq!(e.location.line, 3, "{e}");
    assert!(e.message.contains("found 2 times"), "{e}");
    err("<mujoco><default><geom size=\"1\"/><geom size=\"2\"/></default></mujoco>");
}

#[test]
fn what_mujoco_accepts_loads() {
    // repeated sections, nested classes and bodies, plugins with config, comments
    loads("<mujoco><option/><option/><worldbody/><worldbody/></mujoco>");
    loads("<mujoco><default><default class=\"a\"><default class=\"b\"><geom size=\"1\"/></default></default></default><worldbody><body childclass=\"b\"><body><geom/></body></body></worldbody></mujoco>");
    loads("<mujoco><extension><plugin plugin=\"mujoco.sdf.torus\"><instance name=\"t\"><config key=\"radius1\" value=\".1\"/></instance></plugin></extension><worldbody><!-- c --><geom size=\".1\"/></worldbody></mujoco>");
    // MuJoCo 4.0.0 checks nothing inside a frame or a replicate under the top level or a body
    loads("<mujoco><worldbody><frame bogus=\"1\"><frame><geom size=\".1\" bogus=\"2\"/></frame></frame></worldbody></mujoco>");
    loads("<mujoco><worldbody><replicate count=\"2\" offset=\"1 0 0\"><body><geom size=\".1\"/></body></replicate></worldbody></mujoco>");
    loads("<mujoco><frame/><worldbody/></mujoco>");
}

#[test]
fn body_directly_under_mujoco_is_checked_as_a_body_and_ignored() {
    // gym_xarm's `xarm.xml` (an include fragment of bodies with no <worldbody>) loads in MuJoCo
    // 4.0.0 as an empty model: the top-level `(world)body` schema entry matches `body` too, the
    // element is checked as a body, and the compiler never reads it (nor its classes)
    let model = load_str(
        "<mujoco><body name=\"a\" mocap=\"true\" childclass=\"nope\">\
         <geom class=\"nope\" size=\"1\"/><body><geom size=\"1\"/></body></body>\
         <worldbody><geom size=\"2\"/></worldbody></mujoco>",
        ".",
    )
    .expect("MuJoCo loads it");
    assert_eq!(model.ngeom(), 1);
    assert_eq!(model.nbody(), 1);
    // checked as a body, as MuJoCo does: "unrecognized attribute: 'foo'", "unrecognized element"
    let e = err("<mujoco><body foo=\"1\"/></mujoco>");
    assert!(e.message.contains("unrecognized attribute 'foo'"), "{e}");
    err("<mujoco><body><geom foo=\"1\"/></body></mujoco>");
    err("<mujoco><body><worldbody/></body></mujoco>");
    // only at the top level
    err("<mujoco><worldbody><body><worldbody/></body></worldbody></mujoco>");
    err("<mujoco><asset><body/></asset></mujoco>");
}
