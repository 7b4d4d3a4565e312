//! The URDF loader: MuJoCo 4.0.0's translation rules on small hand-worked robots, the
//! `package://` rule, and bad input (errors name the file, line and element; never a panic).

use std::collections::HashMap;
use std::f64::consts::FRAC_1_SQRT_2;
use std::path::{Path, PathBuf};

use collide::glam::{DQuat, DVec3};
use collide::{GeomType, JointType, Model};
use collide_mjcf::urdf::{load_urdf, load_urdf_str, rpy_quat};
use collide_mjcf::{FileReader, FsReader, LoadOptions, MjcfError};

/// Serves files from memory.
struct MemFs(HashMap<PathBuf, Vec<u8>>);

impl FileReader for MemFs {
    fn read(&self, path: &Path) -> Result<Vec<u8>, String> {
        self.0
            .get(path)
            .cloned()
            .ok_or_else(|| format!("cannot read {}: no such file", path.display()))
    }
}

/// A unit tetrahedron as binary STL.
fn tetra_stl() -> Vec<u8> {
    let v = [
        [0.0f32, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [0.0, 1.0, 0.0],
        [0.0, 0.0, 1.0],
    ];
    let faces = [[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]];
    let mut out = vec![0u8; 80];
    out.extend_from_slice(&(faces.len() as u32).to_le_bytes());
    for f in faces {
        out.extend_from_slice(&[0u8; 12]);
        for i in f {
            for c in v[i] {
                out.extend_from_slice(&c.to_le_bytes());
            }
        }
        out.extend_from_slice(&[0u8; 2]);
    }
    out
}

fn load(urdf: &str) -> Model {
    load_urdf_str(urdf, Path::new("."), &FsReader, &LoadOptions::default())
        .unwrap_or_else(|e| panic!("{e}"))
}

fn err(urdf: &str) -> MjcfError {
    load_urdf_str(urdf, Path::new("."), &FsReader, &LoadOptions::default())
        .expect_err("expected a load error")
}

fn close(a: DVec3, b: DVec3) -> bool {
    (a - b).abs().max_element() < 1e-12
}

fn close_q(a: DQuat, b: DQuat) -> bool {
    a.dot(b).abs() > 1.0 - 1e-12
}

const SPHERE: &str = "<collision><geometry><sphere radius=\"0.1\"/></geometry></collision>";

#[test]
fn rpy_is_roll_then_pitch_then_yaw_about_fixed_axes() {
    // a quarter turn of yaw alone
    let q = rpy_quat([0.0, 0.0, std::f64::consts::FRAC_PI_2]);
    assert!(close_q(
        q,
        DQuat::from_xyzw(0.0, 0.0, FRAC_1_SQRT_2, FRAC_1_SQRT_2)
    ));
    // roll 90° then yaw 90° (fixed axes): x → y, z → x
    let q = rpy_quat([
        std::f64::consts::FRAC_PI_2,
        0.0,
        std::f64::consts::FRAC_PI_2,
    ]);
    assert!(close(q * DVec3::X, DVec3::Y));
    assert!(close(q * DVec3::Z, DVec3::X));
}

#[test]
fn links_joints_and_shapes_translate_as_mujoco_does() {
    let m = load(&format!(
        r#"<robot name="r">
  <link name="base"><collision><origin xyz="0.1 0.2 0.3"/><geometry><box size="0.2 0.4 0.6"/></geometry></collision>
    <collision><geometry><cylinder radius="0.1" length="0.5"/></geometry></collision>
    <visual><geometry><sphere radius="0.7"/></geometry></visual></link>
  <link name="b">{SPHERE}</link>
  <link name="a"><collision><geometry><capsule radius="0.05" length="0.3"/></geometry></collision></link>
  <joint name="ja" type="prismatic"><parent link="base"/><child link="a"/><origin xyz="1 0 0" rpy="0 0 1.5707963267948966"/><axis xyz="0 2 0"/></joint>
  <joint name="jb" type="continuous"><parent link="base"/><child link="b"/><origin xyz="0 1 0"/></joint>
</robot>"#
    ));
    // the root link fuses into the world (fusestatic); children in joint document order
    assert_eq!(m.body_name, vec!["world", "a", "b"]);
    assert_eq!(m.geom_type[..2], [GeomType::Box, GeomType::Cylinder]);
    assert!(close(m.geom_size[0], DVec3::new(0.1, 0.2, 0.3)));
    assert!(close(m.geom_pos[0], DVec3::new(0.1, 0.2, 0.3)));
    assert_eq!((m.geom_size[1].x, m.geom_size[1].y), (0.1, 0.25));
    assert_eq!(m.geom_type[2], GeomType::Capsule);
    assert_eq!((m.geom_size[2].x, m.geom_size[2].y), (0.05, 0.15));
    // visuals dropped (discardvisual), collision geoms collide with everything
    assert_eq!(m.ngeom(), 4);
    assert!(m.geom_contype.iter().all(|&c| c == 1));
    assert!(m.geom_conaffinity.iter().all(|&c| c == 1));
    assert_eq!(m.jnt_type, vec![JointType::Slide, JointType::Hinge]);
    assert!(close(m.jnt_axis[0], DVec3::Y));
    assert!(close(m.jnt_axis[1], DVec3::X));
    assert!(close(m.body_pos[1], DVec3::X));
    assert!(close_q(
        m.body_quat[1],
        DQuat::from_xyzw(0.0, 0.0, FRAC_1_SQRT_2, FRAC_1_SQRT_2)
    ));
}

#[test]
fn planar_joint_is_two_slides_in_the_plane_and_a_hinge_about_its_normal() {
    let m = load(&format!(
        r#"<robot name="r"><link name="w"/><link name="p">{SPHERE}</link>
  <joint name="pl" type="planar"><parent link="w"/><child link="p"/><axis xyz="0 1 0"/></joint></robot>"#
    ));
    assert_eq!(m.jnt_name, vec!["pl_TX", "pl_TY", "pl_RZ"]);
    assert_eq!(
        m.jnt_type,
        vec![JointType::Slide, JointType::Slide, JointType::Hinge]
    );
    // minimal rotation z → y is a quarter turn about -x: x stays, y goes to -z
    assert!(close(m.jnt_axis[0], DVec3::X));
    assert!(close(m.jnt_axis[1], -DVec3::Z));
    assert!(close(m.jnt_axis[2], DVec3::Y));
}

/// A revolute axis `1 1 0` is normalized once, by the compiler, as MuJoCo 4.0.0 does
/// (`scenes/urdf_features`): normalizing it in the URDF translation as well gave
/// `0.7071067811865476`, one ulp off, and moved contact positions by 5e-13.
#[test]
fn joint_axis_is_normalized_once_as_mujoco_does() {
    let m = load(&format!(
        r#"<robot name="r"><link name="w"/><link name="p">{SPHERE}</link>
  <joint name="h" type="continuous"><parent link="w"/><child link="p"/><axis xyz="1 1 0"/></joint></robot>"#
    ));
    assert_eq!(
        m.jnt_axis[0].to_array(),
        [0.7071067811865475, 0.7071067811865475, 0.0]
    );
}

/// A planar joint's slide axes, as MuJoCo 4.0.0's URDF parser computes them (the minimal
/// rotation from +z to the axis through atan2 and a half-angle quaternion, the compiler keeping
/// the near-unit columns as they are): bit for bit, including an axis along -z (a half turn
/// about +x). `scenes/urdf_features` became exact in every contact with this.
#[test]
fn planar_slide_axes_are_mujocos_bit_for_bit() {
    let planar = |axis: &str| {
        load(&format!(
            r#"<robot name="r"><link name="w"/><link name="p">{SPHERE}</link>
  <joint name="pl" type="planar"><parent link="w"/><child link="p"/><axis xyz="{axis}"/></joint></robot>"#
        ))
    };
    let m = planar("0.2 0.3 0.9");
    assert_eq!(
        m.jnt_axis[0].to_array(),
        [
            0.9779320374255119,
            -0.03310194386173198,
            -0.20628424925175873
        ]
    );
    assert_eq!(
        m.jnt_axis[1].to_array(),
        [
            -0.03310194386173198,
            0.9503470842074019,
            -0.30942637387763805
        ]
    );
    let m = planar("0 0 -1");
    assert_eq!(m.jnt_axis[0].to_array(), [1.0, 0.0, 0.0]);
    assert_eq!(
        m.jnt_axis[1].to_array(),
        [0.0, -1.0, 1.2246467991473532e-16]
    );
    assert_eq!(m.jnt_axis[2].to_array(), [0.0, 0.0, -1.0]);
}

#[test]
fn floating_and_spherical_joints_are_free_and_ball() {
    let m = load(&format!(
        r#"<robot name="r"><link name="base"/><link name="f">{SPHERE}</link><link name="s">{SPHERE}</link>
  <joint name="jf" type="floating"><parent link="base"/><child link="f"/></joint>
  <joint name="js" type="spherical"><parent link="f"/><child link="s"/></joint></robot>"#
    ));
    // `base` has no joint and fuses into the world, so the floating joint is top-level
    assert_eq!(m.jnt_type, vec![JointType::Free, JointType::Ball]);
    assert_eq!(m.nq(), 11);
}

#[test]
fn fixed_joint_fuses_the_child_and_adds_its_inertia() {
    // two 1 kg point-like masses 1 m apart: combined 2 kg at the midpoint
    let m = load(&format!(
        r#"<robot name="r"><link name="w"/>
  <link name="p"><inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>{SPHERE}</link>
  <link name="c"><inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>{SPHERE}</link>
  <joint name="j" type="continuous"><parent link="w"/><child link="p"/></joint>
  <joint name="f" type="fixed"><parent link="p"/><child link="c"/><origin xyz="0 0 1"/></joint></robot>"#
    ));
    assert_eq!(m.nbody(), 2);
    assert_eq!(m.body_geomnum[1], 2);
    assert!((m.body_mass[1] - 2.0).abs() < 1e-12);
    assert!(close(m.body_ipos[1], DVec3::new(0.0, 0.0, 0.5)));
    assert!(close(m.geom_pos[1], DVec3::new(0.0, 0.0, 1.0)));
}

#[test]
fn mujoco_extension_keeps_visuals_and_static_bodies() {
    let m = load(&format!(
        r#"<robot name="r"><mujoco><compiler discardvisual="false" fusestatic="false"/></mujoco>
  <link name="base"><visual><geometry><box size="1 1 1"/></geometry></visual>{SPHERE}</link></robot>"#
    ));
    assert_eq!(m.nbody(), 2);
    assert_eq!(m.geom_type, vec![GeomType::Box, GeomType::Sphere]);
    assert_eq!((m.geom_contype[0], m.geom_conaffinity[0]), (0, 0));
    assert_eq!((m.geom_contype[1], m.geom_conaffinity[1]), (1, 1));
}

fn mesh_robot(filename: &str, extra: &str) -> String {
    format!(
        r#"<robot name="r">{extra}<link name="base"><collision><geometry><mesh filename="{filename}" scale="2 2 2"/></geometry></collision>
  <collision><geometry><mesh filename="{filename}" scale="2 2 2"/></geometry></collision>
  <collision><geometry><mesh filename="{filename}"/></geometry></collision></link></robot>"#
    )
}

fn fs(files: &[(&str, Vec<u8>)]) -> MemFs {
    MemFs(
        files
            .iter()
            .map(|(p, b)| (PathBuf::from(p), b.clone()))
            .collect(),
    )
}

#[test]
fn meshes_are_one_asset_per_file_and_scale() {
    let reader = fs(&[
        ("robots/r.urdf", mesh_robot("m/tetra.stl", "").into_bytes()),
        ("robots/m/tetra.stl", tetra_stl()),
    ]);
    let m = load_urdf(Path::new("robots/r.urdf"), &reader, &LoadOptions::default()).unwrap();
    assert_eq!(m.mesh.len(), 2);
    assert_eq!(m.geom_dataid[..3], [Some(0), Some(0), Some(1)]);
    // scale 2 doubles the bounding radius
    assert!((m.geom_rbound[0] - 2.0 * m.geom_rbound[2]).abs() < 1e-6);
}

#[test]
fn package_urls_resolve_by_option_then_folder_tree() {
    let text = mesh_robot("package://arm_description/meshes/tetra.stl", "");
    // found above the URDF's folder
    let reader = fs(&[
        ("ws/arm_description/urdf/r.urdf", text.clone().into_bytes()),
        ("ws/arm_description/meshes/tetra.stl", tetra_stl()),
    ]);
    let path = Path::new("ws/arm_description/urdf/r.urdf");
    assert!(load_urdf(path, &reader, &LoadOptions::default()).is_ok());
    // a sibling folder named after the package
    let reader = fs(&[
        ("ws/urdf/r.urdf", text.clone().into_bytes()),
        ("ws/arm_description/meshes/tetra.stl", tetra_stl()),
    ]);
    assert!(load_urdf(
        Path::new("ws/urdf/r.urdf"),
        &reader,
        &LoadOptions::default()
    )
    .is_ok());
    // not found: the error names the URL and the option to give
    let reader = fs(&[
        ("x/r.urdf", text.clone().into_bytes()),
        ("elsewhere/meshes/tetra.stl", tetra_stl()),
    ]);
    let e = load_urdf(Path::new("x/r.urdf"), &reader, &LoadOptions::default()).unwrap_err();
    assert!(
        e.message
            .contains("package://arm_description/meshes/tetra.stl"),
        "{e}"
    );
    assert!(e.message.contains("--package arm_description=DIR"), "{e}");
    assert_eq!(e.location.line, 1, "{e}");
    // an explicit package folder
    let opts = LoadOptions {
        package_dirs: vec![("arm_description".into(), PathBuf::from("/elsewhere"))],
    };
    let reader = fs(&[
        ("x/r.urdf", text.into_bytes()),
        ("/elsewhere/meshes/tetra.stl", tetra_stl()),
    ]);
    assert!(load_urdf(Path::new("x/r.urdf"), &reader, &opts).is_ok());
}

#[test]
fn strippath_and_meshdir_apply_to_mesh_paths() {
    let text = mesh_robot(
        "package://whatever/deep/tetra.stl",
        r#"<mujoco><compiler strippath="true" meshdir="assets"/></mujoco>"#,
    );
    let reader = fs(&[
        ("d/r.urdf", text.into_bytes()),
        ("d/assets/tetra.stl", tetra_stl()),
    ]);
    let m = load_urdf(Path::new("d/r.urdf"), &reader, &LoadOptions::default()).unwrap();
    assert_eq!(m.mesh.len(), 2);
}

#[test]
fn collada_mesh_is_refused_naming_the_file() {
    let e = err(&mesh_robot("meshes/arm.dae", ""));
    assert!(e.message.contains("arm.dae"), "{e}");
    assert!(e.message.contains("Collada"), "{e}");
    assert_eq!(e.location.element, "mesh");
}

#[test]
fn missing_mesh_names_the_file_and_line() {
    let e = err(&mesh_robot("nope.stl", "\n"));
    assert!(e.message.contains("nope.stl"), "{e}");
    assert_eq!(e.location.line, 2, "{e}");
}

#[test]
fn malformed_xml_names_the_line() {
    let e = err("<robot name=\"r\">\n<link name=\"a\">\n</robot>");
    assert!(e.message.contains("malformed XML"), "{e}");
    assert!(e.location.line >= 2, "{e}");
}

#[test]
fn root_must_be_robot() {
    let e = err("<mujoco/>");
    assert!(e.message.contains("<robot>"), "{e}");
}

#[test]
fn joint_naming_unknown_link_is_an_error() {
    let e = err(
        "<robot name=\"r\"><link name=\"a\"/>\n<joint name=\"j\" type=\"fixed\"><parent link=\"a\"/>\n<child link=\"ghost\"/></joint></robot>",
    );
    assert!(e.message.contains("unknown link 'ghost'"), "{e}");
    assert_eq!((e.location.line, e.location.element.as_str()), (3, "child"));
}

#[test]
fn link_with_two_parents_is_an_error() {
    let e = err(
        r#"<robot name="r"><link name="a"/><link name="b"/><link name="c"/>
<joint name="j1" type="fixed"><parent link="a"/><child link="c"/></joint>
<joint name="j2" type="fixed"><parent link="b"/><child link="c"/></joint></robot>"#,
    );
    assert!(e.message.contains("two parents"), "{e}");
    assert!(e.message.contains("j1"), "{e}");
    assert_eq!(e.location.line, 3);
    assert_eq!(e.location.element, "joint name=\"j2\"");
}

#[test]
fn joint_cycle_is_an_error() {
    let e = err(
        r#"<robot name="r"><link name="root"/><link name="a"/><link name="b"/>
<joint name="j1" type="fixed"><parent link="a"/><child link="b"/></joint>
<joint name="j2" type="fixed"><parent link="b"/><child link="a"/></joint></robot>"#,
    );
    assert!(e.message.contains("cycle"), "{e}");
    assert!(e.location.line >= 2, "{e}");
}

#[test]
fn joint_to_itself_is_an_error() {
    let e = err(r#"<robot name="r"><link name="a"/>
<joint name="j" type="fixed"><parent link="a"/><child link="a"/></joint></robot>"#);
    assert!(e.message.contains("itself"), "{e}");
}

#[test]
fn missing_attributes_are_errors() {
    let e = err("<robot name=\"r\"><link/></robot>");
    assert!(e.message.contains("'name'"), "{e}");
    let e = err("<robot name=\"r\"><link name=\"a\"><collision><geometry><sphere/></geometry></collision></link></robot>");
    assert!(e.message.contains("'radius'"), "{e}");
    assert_eq!(e.location.element, "sphere");
    let e = err(
        r#"<robot name="r"><link name="a"/><link name="b"/><joint name="j"><parent link="a"/><child link="b"/></joint></robot>"#,
    );
    assert!(e.message.contains("'type'"), "{e}");
    let e = err(
        r#"<robot name="r"><link name="a"/><link name="b"/><joint name="j" type="fixed"><parent link="a"/></joint></robot>"#,
    );
    assert!(e.message.contains("<child>"), "{e}");
}

#[test]
fn non_finite_numbers_are_errors() {
    for bad in ["nan", "inf", "1e400", "x"] {
        let e = err(&format!(
            r#"<robot name="r"><link name="a"><collision><origin xyz="0 {bad} 0"/><geometry><sphere radius="1"/></geometry></collision></link></robot>"#
        ));
        assert!(e.message.contains("attribute 'xyz'"), "{bad}: {e}");
        assert_eq!(e.location.element, "origin");
    }
    // wrong count (pybullet's husky.urdf has `$(optenv …)` substitutions left in)
    let e = err(
        r#"<robot name="r"><link name="a"><collision><origin rpy="0 0 0 0"/><geometry><sphere radius="1"/></geometry></collision></link></robot>"#,
    );
    assert!(e.message.contains("needs 3 numbers"), "{e}");
}

#[test]
fn unknown_joint_type_and_geometry_are_errors() {
    let e = err(
        r#"<robot name="r"><link name="a"/><link name="b"/><joint name="j" type="hinge"><parent link="a"/><child link="b"/></joint></robot>"#,
    );
    assert!(e.message.contains("unknown joint type 'hinge'"), "{e}");
    let e = err(
        r#"<robot name="r"><link name="a"><collision><geometry><plane normal="0 0 1"/></geometry></collision></link></robot>"#,
    );
    assert!(e.message.contains("<plane>"), "{e}");
}

#[test]
fn floating_joint_below_a_moving_body_is_an_error() {
    let e = err(&format!(
        r#"<robot name="r"><link name="w"/><link name="a">{SPHERE}</link><link name="b">{SPHERE}</link>
<joint name="ja" type="continuous"><parent link="w"/><child link="a"/></joint>
<joint name="jb" type="floating"><parent link="a"/><child link="b"/></joint></robot>"#
    ));
    assert!(e.message.contains("free joint"), "{e}");
}

#[test]
fn urdf_extension_dispatches_in_load_file() {
    let dir = std::env::temp_dir().join(format!("collide_urdf_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("ROBOT.URDF");
    std::fs::write(
        &path,
        format!("<robot name=\"r\"><link name=\"a\">{SPHERE}</link></robot>"),
    )
    .unwrap();
    let m = collide_mjcf::load_file(&path).unwrap();
    assert_eq!(m.geom_type, vec![GeomType::Sphere]);
    std::fs::remove_dir_all(&dir).ok();
}

fn balance_robot(balance: &str) -> Model {
    // parent: 1 kg, moments (0.01, 0.01, 0.03) turned so the 0.03 axis is the body's y; a 1 kg
    // child fused 1 m above it; combined about the midpoint: x and y gain 0.5 each
    load(&format!(
        r#"<robot name="r"><mujoco><compiler balanceinertia="{balance}"/></mujoco><link name="w"/>
  <link name="p"><inertial><origin rpy="1.5707963267948966 0 0"/><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.03" ixy="0" ixz="0" iyz="0"/></inertial>{SPHERE}</link>
  <link name="c"><inertial><mass value="1"/><inertia ixx="1e-6" iyy="1e-6" izz="1e-6" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="j" type="continuous"><parent link="w"/><child link="p"/></joint>
  <joint name="f" type="fixed"><parent link="p"/><child link="c"/><origin xyz="0 0 1"/></joint></robot>"#
    ))
}

#[test]
fn balanceinertia_evens_out_unphysical_moments_before_fusing() {
    // unbalanced: y (0.53) is the largest principal axis
    let m = balance_robot("false");
    assert!((m.body_iquat[1] * DVec3::X).y.abs() > 1.0 - 1e-9);
    // balanced: the parent's moments become 0.05/3 each, x and y tie, no rotation
    let m = balance_robot("true");
    assert!((m.body_iquat[1] * DVec3::X).x.abs() > 1.0 - 1e-9);
    assert!(close(m.body_ipos[1], DVec3::new(0.0, 0.0, 0.5)));
}

/// A two-link robot, `link_a`, `inertial_extra` and `joint_extra` spliced into link `a`, its
/// inertial and the joint (each case measured on MuJoCo 4.0.0).
fn robot(link_a: &str, inertial_extra: &str, joint_extra: &str) -> String {
    let inertia = r#"<inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/>"#;
    format!(
        r#"<robot name="r">
          <link name="a"><inertial><mass value="1"/>{inertia}{inertial_extra}</inertial>{link_a}
            <collision><geometry><box size="1 1 1"/></geometry></collision></link>
          <link name="b"><inertial><mass value="1"/>{inertia}</inertial></link>
          <joint name="j" type="revolute"><parent link="a"/><child link="b"/><axis xyz="0 0 1"/>
            <limit lower="-1" upper="1" effort="1" velocity="1"/>{joint_extra}</joint>
        </robot>"#
    )
}

#[test]
fn repeated_elements_are_refused_as_in_mujoco() {
    // MuJoCo 4.0.0: "XML Error: repeated element: 'axis'" and so on
    load(&robot("", "", ""));
    let inertia = r#"<inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/>"#;
    for (link, inertial, joint, name) in [
        ("<inertial><mass value=\"1\"/></inertial>", "", "", "inertial"),
        ("", "<mass value=\"1\"/>", "", "mass"),
        ("", inertia, "", "inertia"),
        ("", "<origin/><origin/>", "", "origin"),
        ("<collision><origin/><origin/><geometry><box size=\"1 1 1\"/></geometry></collision>", "", "", "origin"),
        ("<collision><geometry><box size=\"1 1 1\"/></geometry><geometry><box size=\"1 1 1\"/></geometry></collision>", "", "", "geometry"),
        ("", "", "<axis xyz=\"0 1 0\"/>", "axis"),
        ("", "", "<parent link=\"a\"/>", "parent"),
        ("", "", "<limit lower=\"-1\" upper=\"1\" effort=\"1\" velocity=\"1\"/>", "limit"),
        ("", "", "<dynamics/><dynamics/>", "dynamics"),
        ("", "", "<origin/><origin/>", "origin"),
    ] {
        let e = err(&robot(link, inertial, joint));
        assert!(e.message.contains(&format!("repeated element <{name}>")), "{name}: {e}");
    }
}

#[test]
fn inertial_without_mass_and_malformed_limits_are_refused_as_in_mujoco() {
    // "missing element: 'mass'" (ManiSkill's TriFinger cubes)
    let no_mass = robot("", "", "").replacen("<mass value=\"1\"/>", "", 1);
    assert!(err(&no_mass).message.contains("<mass>"));
    // "bad format in attribute 'lower'" (pybullet_data's biped2d_pybullet.urdf: `-1.57.`)
    let bad = robot("", "", "").replace("lower=\"-1\"", "lower=\"-1.57.\"");
    assert!(err(&bad).message.contains("'lower'"));
}

/// A link whose `<inertial>` origin has an `rpy` and whose inertia has off-diagonal terms (the
/// two inertial-frame tests below).
const UPPER_LINK: &str = r#"
  <link name="upper">
    <inertial><origin xyz="0 0 0.15" rpy="0.1 -0.2 0.3"/><mass value="1.5"/>
      <inertia ixx="0.02" ixy="0.001" ixz="-0.002" iyy="0.03" iyz="0.0005" izz="0.01"/></inertial>
    <collision><geometry><sphere radius="0.04"/></geometry></collision></link>
"#;

/// An `<inertial>` whose origin has an `rpy` and whose inertia has off-diagonal terms: MuJoCo
/// 4.0.0 turns the tensor into the link frame (`R I Rᵀ`) and diagonalizes that, rather than
/// composing the `rpy` rotation with the principal frame of `I` (one to a few ulps apart).
/// `scenes/urdf_features` differed so; expected bits are MuJoCo's (its Python bindings).
#[test]
fn inertial_rpy_with_full_inertia_iquat_is_mujocos_bit_for_bit() {
    let m = load(&[
        r#"<robot name="r"><mujoco><compiler balanceinertia="true"/></mujoco><link name="base"/>"#,
        UPPER_LINK,
        r#"
  <joint name="j" type="continuous"><parent link="base"/><child link="upper"/>
    <origin xyz="-0.5 0 0.2" rpy="0 0.3 0"/><axis xyz="0 1 0"/></joint></robot>"#,
    ].concat());
    assert_eq!(m.body_ipos[1].to_array(), [0.0, 0.0, 0.15]);
    assert_eq!(
        collide::math::quat_to_wxyz(m.body_iquat[1]),
        [
            0.620438420725857,
            0.05274595599035485,
            -0.03931974266976743,
            0.7814908752188047
        ]
    );
}

/// Links fused through fixed joints add their inertia to their parent's as MuJoCo 4.0.0's
/// `mjCBody::AccumulateInertia` does: each inertial frame carried into the parent by
/// `mjuu_frameaccum`, each tensor rebuilt from its principal moments, summed with its
/// parallel-axis term, then diagonalized once; a fused link of zero mass leaves its parent's
/// frame untouched. `quadruped`, `minitaur_fixed_knees`, `panda_collision`, `laikago` and
/// `scenes/urdf_features` differed so; expected bits are MuJoCo's (its Python bindings).
#[test]
fn fused_link_inertial_frames_are_mujocos_bit_for_bit() {
    let m = load(&[
        r#"<robot name="r"><mujoco><compiler balanceinertia="true"/></mujoco><link name="base"/>"#,
        UPPER_LINK,
        r#"
  <link name="cover"><inertial><origin xyz="0.02 0 0"/><mass value="0.3"/>
    <inertia ixx="0.001" ixy="0" ixz="0" iyy="0.001" iyz="0" izz="0.0005"/></inertial></link>
  <link name="fore"><inertial><origin xyz="0 0 0.1"/><mass value="0.8"/>
    <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.03"/></inertial></link>
  <link name="hand">
    <collision><origin xyz="0.05 0.01 -0.03"/><geometry><box size="0.1 0.12 0.08"/></geometry></collision>
    <collision><origin xyz="-0.02 0.03 0.01"/><geometry><sphere radius="0.03"/></geometry></collision></link>
  <link name="hip"><inertial><origin xyz="-0.001568 0.008134 0.000864"/><mass value="1.096"/>
    <inertia ixx="0.000822113" ixy="4.982e-06" ixz="-3.672e-05" iyy="0.000983196" iyz="-2.811e-06"
      izz="0.000864753"/></inertial></link>
  <link name="shoulder"><collision><geometry><sphere radius="0.04"/></geometry></collision>
    <inertial><mass value="0"/><inertia ixx="0" ixy="0" ixz="0" iyy="0" iyz="0" izz="0"/></inertial></link>
  <joint name="j1" type="revolute"><parent link="base"/><child link="upper"/>
    <origin xyz="-0.5 0 0.2" rpy="0 0.3 0"/><axis xyz="0 1 0"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
  <joint name="f1" type="fixed"><parent link="upper"/><child link="cover"/>
    <origin xyz="0.05 0 0.1" rpy="0.3 0 0"/></joint>
  <joint name="j2" type="continuous"><parent link="upper"/><child link="fore"/>
    <origin xyz="0 0 0.3"/><axis xyz="1 1 0"/></joint>
  <joint name="f2" type="fixed"><parent link="fore"/><child link="hand"/>
    <origin xyz="0 0 0.3" rpy="0 0 1"/></joint>
  <joint name="j3" type="continuous"><parent link="base"/><child link="hip"/>
    <origin xyz="0.2 -0.08 0"/><axis xyz="1 0 0"/></joint>
  <joint name="f3" type="fixed"><parent link="hip"/><child link="shoulder"/>
    <origin xyz="0 -0.059 0"/></joint></robot>"#,
    ].concat());
    assert_eq!(m.nbody(), 4);
    let want_ipos = [
        [0.011666666666666667, 0.0, 0.14166666666666666],
        [
            0.007356377137194505,
            0.024295240056671327,
            0.19980818236993386,
        ],
        [-0.001568, 0.008134, 0.000864],
    ];
    let want_iquat = [
        [
            0.20952871073715312,
            0.7479071255263876,
            0.5292121637532056,
            0.3415657135886688,
        ],
        [
            0.49422487973191775,
            -0.03124148092248969,
            0.11691282879441903,
            0.8608699835556062,
        ],
        [
            0.6299526369096887,
            0.3501913095895729,
            0.35823025536599923,
            0.5934617140800951,
        ],
    ];
    for b in 1..4 {
        assert_eq!(m.body_ipos[b].to_array(), want_ipos[b - 1], "body {b}");
        assert_eq!(
            collide::math::quat_to_wxyz(m.body_iquat[b]),
            want_iquat[b - 1],
            "body {b}"
        );
    }
}

/// An `<origin rpy>` becomes MuJoCo 4.0.0's quaternion bit for bit: its URDF reader resolves
/// `rpy` as Euler angles of sequence `XYZ` in radians (`mjXURDF::Origin`), one left-multiplied
/// axis rotation at a time. A closed-form product of half-angle sines and cosines gave the same
/// values but `-0` where MuJoCo has `+0` (`urdf/erd/talos_left_arm`, a fused link turned by a
/// yaw of -4.71238898038). Expected bits are MuJoCo's (its Python bindings, `geom_quat`).
#[test]
fn rpy_quaternion_is_mujocos_bit_for_bit() {
    let m = load(
        r#"<robot name="r"><link name="base">
    <collision><origin rpy="0.0 0 -4.71238898038"/><geometry><box size="0.1 0.2 0.3"/></geometry></collision>
    <collision><origin rpy="0.3 -0.7 1.9"/><geometry><box size="0.1 0.2 0.3"/></geometry></collision>
    <collision><origin rpy="3.14159265358979 0 0"/><geometry><box size="0.1 0.2 0.3"/></geometry></collision>
  </link></robot>"#,
    );
    let bits = |g: usize| collide::math::quat_to_wxyz(m.geom_quat[g]).map(f64::to_bits);
    let mujoco: [[f64; 4]; 3] = [
        [-0.7071067811848895, 0.0, 0.0, -0.7071067811882056],
        [
            0.4986005015857463,
            0.3574420094160363,
            -0.08303243304197462,
            0.785326915867652,
        ],
        [1.6155445744325867e-15, 1.0, 0.0, 0.0],
    ];
    for (g, q) in mujoco.iter().enumerate() {
        assert_eq!(bits(g), q.map(f64::to_bits), "geom {g}");
    }
}
