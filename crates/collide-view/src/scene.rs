//! Scene export: the collision geoms of a model as shared triangle meshes, their poses in each
//! state, and the contacts the library finds in each state.

use crate::{tess, ViewError};
use collide::glam::{DMat3, DQuat, DVec3};
use collide::{Collider, Contact, GeomType, Model, Poses};
use std::collections::HashMap;

/// A triangle mesh in a geom's local frame, shared by every geom of the same type and size.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Shape {
    /// Vertex positions.
    pub pos: Vec<[f32; 3]>,
    /// Unit vertex normals (outward).
    pub nrm: Vec<[f32; 3]>,
    /// Triangles, three indices each, counter-clockwise seen from outside.
    pub idx: Vec<u32>,
    /// A plane, drawn as a checkerboard of cells (two triangles each) rather than a solid.
    pub plane: bool,
}

/// One drawn geom.
#[derive(Clone, Debug, PartialEq)]
pub struct GeomInfo {
    /// Geom index in the model.
    pub id: usize,
    /// Display name: the geom's name, else `body/geom#id`.
    pub name: String,
    /// Geom type.
    pub kind: GeomType,
    /// Body index.
    pub body: usize,
    /// Index into [`Scene::shapes`].
    pub shape: usize,
    /// Colour as `0xRRGGBB`.
    pub color: u32,
}

/// One state: geom world poses (indexed like [`Scene::geoms`]) and contacts.
#[derive(Clone, Debug, Default)]
pub struct StateData {
    /// World position of each drawn geom.
    pub pos: Vec<DVec3>,
    /// World orientation of each drawn geom (columns are the local axes).
    pub mat: Vec<DMat3>,
    /// Contacts found by [`Collider::detect`], in its order.
    pub contacts: Vec<Contact>,
    /// Axis-aligned bounds `[min, max]` of this state's non-plane geoms and contact points.
    pub bounds: [DVec3; 2],
}

/// A model's collision geoms over several states, ready to draw.
#[derive(Clone, Debug, Default)]
pub struct Scene {
    /// Distinct shapes.
    pub shapes: Vec<Shape>,
    /// Drawn geoms: the collision geoms (nonzero `contype` or `conaffinity`, or named in a
    /// `<pair>`), in model order.
    pub geoms: Vec<GeomInfo>,
    /// Body names, indexed by body.
    pub body_names: Vec<String>,
    /// The states.
    pub states: Vec<StateData>,
    /// Axis-aligned bounds `[min, max]` of the non-plane geoms' bounding spheres over all
    /// states and of all contact points (a unit box around the origin for an empty scene).
    pub bounds: [DVec3; 2],
    /// Largest penetration depth (`-dist`, at least 0) over all contacts of all states.
    pub max_depth: f64,
}

/// Colours of bodies (world geoms are grey).
const PALETTE: [u32; 10] = [
    0x4e79a7, 0xf28e2b, 0x59a14f, 0xb07aa1, 0x76b7b2, 0xedc948, 0x9c755f, 0xff9da7, 0xe15759,
    0x8cd17d,
];

/// Whether a geom takes part in collisions (MuJoCo's visual-only geoms have `contype` and
/// `conaffinity` 0 and appear in no `<pair>`).
pub fn is_collision_geom(m: &Model, g: usize) -> bool {
    m.geom_contype[g] != 0
        || m.geom_conaffinity[g] != 0
        || m.pair_geom1.contains(&g)
        || m.pair_geom2.contains(&g)
}

/// Display name of geom `g`.
pub fn geom_label(m: &Model, g: usize) -> String {
    if !m.geom_name[g].is_empty() {
        return m.geom_name[g].clone();
    }
    let body = m.body_name.get(m.geom_bodyid[g]).map_or("", |s| s.as_str());
    if body.is_empty() {
        format!("geom#{g}")
    } else {
        format!("{body}/geom#{g}")
    }
}

impl Scene {
    /// Builds the scene of `model` in the given states (world poses from
    /// [`collide::forward_kinematics`]), detecting contacts with a [`Collider`].
    ///
    /// Errors: no states, poses of another model, non-finite poses, a model the collider rejects.
    pub fn build(model: &Model, poses: &[Poses]) -> Result<Scene, ViewError> {
        Scene::build_with(model, poses, collide::ColliderOptions::default())
    }

    /// [`Scene::build`] with the collider built with `options` (e.g. exact meshes).
    pub fn build_with(
        model: &Model,
        poses: &[Poses],
        options: collide::ColliderOptions,
    ) -> Result<Scene, ViewError> {
        if poses.is_empty() {
            return Err(ViewError::NoStates);
        }
        let ngeom = model.ngeom();
        for (s, p) in poses.iter().enumerate() {
            if p.geom_xpos.len() != ngeom || p.geom_xmat.len() != ngeom {
                return Err(ViewError::PoseCount {
                    state: s,
                    got: p.geom_xpos.len().min(p.geom_xmat.len()),
                    want: ngeom,
                });
            }
            for g in 0..ngeom {
                let m = p.geom_xmat[g];
                let finite = p.geom_xpos[g].is_finite()
                    && m.x_axis.is_finite()
                    && m.y_axis.is_finite()
                    && m.z_axis.is_finite();
                if !finite {
                    return Err(ViewError::NonFinitePose {
                        state: s,
                        geom: g,
                        name: model.geom_name[g].clone(),
                    });
                }
            }
        }
        let drawn: Vec<usize> = (0..ngeom)
            .filter(|&g| is_collision_geom(model, g))
            .collect();

        // shapes, shared by geoms of one type and size; planes wait for the scene's bounds
        let mut shapes: Vec<Shape> = Vec::new();
        let mut keys: HashMap<String, usize> = HashMap::new();
        let mut geoms = Vec::with_capacity(drawn.len());
        for &g in &drawn {
            let t = model.geom_type[g];
            let s = model.geom_size[g];
            let key = match t {
                GeomType::Plane => String::new(),
                GeomType::Mesh | GeomType::HField => {
                    format!("{}:{:?}", t.name(), model.geom_dataid[g])
                }
                _ => format!("{}:{:e}:{:e}:{:e}", t.name(), s.x, s.y, s.z),
            };
            let shape = if t == GeomType::Plane {
                usize::MAX
            } else {
                *keys.entry(key).or_insert_with(|| {
                    shapes.push(match t {
                        GeomType::HField => model.geom_dataid[g]
                            .and_then(|i| model.hfield.get(i))
                            .map(tess::hfield)
                            .unwrap_or_default(),
                        GeomType::Sphere => tess::ellipsoid(DVec3::splat(s.x)),
                        GeomType::Capsule => tess::capsule(s.x, s.y),
                        GeomType::Ellipsoid => tess::ellipsoid(s),
                        GeomType::Cylinder => tess::cylinder(s.x, s.y),
                        GeomType::Box => tess::cuboid(s),
                        _ => model.geom_dataid[g]
                            .and_then(|i| model.mesh.get(i))
                            .map(tess::mesh)
                            .unwrap_or_default(),
                    });
                    shapes.len() - 1
                })
            };
            let body = model.geom_bodyid[g];
            let color = match t {
                GeomType::Plane => 0xb8bcc4,
                GeomType::HField => 0x9a8f6e,
                _ if body == 0 => 0x8a8f99,
                _ => PALETTE[body % PALETTE.len()],
            };
            geoms.push(GeomInfo {
                id: g,
                name: geom_label(model, g),
                kind: t,
                body,
                shape,
                color,
            });
        }
        // local bounding boxes of the shapes
        let local: Vec<[DVec3; 2]> = shapes
            .iter()
            .map(|sh| {
                sh.pos.iter().fold(
                    [DVec3::splat(f64::INFINITY), DVec3::splat(f64::NEG_INFINITY)],
                    |[lo, hi], p| {
                        let p = DVec3::new(p[0] as f64, p[1] as f64, p[2] as f64);
                        [lo.min(p), hi.max(p)]
                    },
                )
            })
            .collect();

        // contacts and bounds (shape boxes' corners in every state, contact points)
        let mut collider = Collider::with_options(model, options)?;
        let mut states = Vec::with_capacity(poses.len());
        let mut lo = DVec3::splat(f64::INFINITY);
        let mut hi = DVec3::splat(f64::NEG_INFINITY);
        let mut max_depth = 0.0f64;
        for p in poses {
            let mut contacts = Vec::new();
            collider.detect(p, &mut contacts);
            let mut slo = DVec3::splat(f64::INFINITY);
            let mut shi = DVec3::splat(f64::NEG_INFINITY);
            for c in &contacts {
                if c.pos.is_finite() {
                    slo = slo.min(c.pos);
                    shi = shi.max(c.pos);
                }
                if c.dist.is_finite() {
                    max_depth = max_depth.max(-c.dist);
                }
            }
            for gi in &geoms {
                let Some([a, b]) = local.get(gi.shape) else {
                    continue;
                };
                if !(a.is_finite() && b.is_finite()) {
                    continue;
                }
                let (gp, gm) = (p.geom_xpos[gi.id], p.geom_xmat[gi.id]);
                for k in 0..8 {
                    let c = DVec3::new(
                        if k & 1 == 0 { a.x } else { b.x },
                        if k & 2 == 0 { a.y } else { b.y },
                        if k & 4 == 0 { a.z } else { b.z },
                    );
                    let w = gp + gm * c;
                    slo = slo.min(w);
                    shi = shi.max(w);
                }
            }
            if !slo.is_finite() || !shi.is_finite() {
                (slo, shi) = (DVec3::splat(-1.0), DVec3::splat(1.0));
            }
            lo = lo.min(slo);
            hi = hi.max(shi);
            states.push(StateData {
                pos: drawn.iter().map(|&g| p.geom_xpos[g]).collect(),
                mat: drawn.iter().map(|&g| p.geom_xmat[g]).collect(),
                contacts,
                bounds: [slo, shi],
            });
        }
        if !lo.is_finite() || !hi.is_finite() {
            lo = DVec3::splat(-1.0);
            hi = DVec3::splat(1.0);
        }
        // planes: finite ones at their size, infinite ones as squares reaching past the scene
        let span = (hi - lo).max_element().max(1e-3);
        let centre = (lo + hi) / 2.0;
        for gi in geoms.iter_mut().filter(|x| x.kind == GeomType::Plane) {
            let s = model.geom_size[gi.id];
            let far = (poses[0].geom_xpos[gi.id] - centre).length() + span;
            let h = |v: f64| if v > 0.0 { v.min(1e6) } else { far };
            let (hx, hy) = (h(s.x), h(s.y));
            let n = ((2.0 * hx.max(hy) / (span / 6.0)).round() as usize).clamp(2, 24);
            gi.shape = *keys
                .entry(format!("plane:{hx:e}:{hy:e}:{n}"))
                .or_insert_with(|| {
                    shapes.push(tess::plane(hx, hy, n));
                    shapes.len() - 1
                });
        }
        Ok(Scene {
            shapes,
            geoms,
            body_names: model.body_name.clone(),
            states,
            bounds: [lo, hi],
            max_depth,
        })
    }

    /// Number of states.
    pub fn nstate(&self) -> usize {
        self.states.len()
    }

    /// The state at `k`, or an error naming the index.
    pub fn state(&self, k: usize) -> Result<&StateData, ViewError> {
        self.states.get(k).ok_or(ViewError::StateIndex {
            index: k,
            count: self.states.len(),
        })
    }

    /// Length of a drawn contact normal: `base + gain · depth` with `base` 4% of the scene's
    /// size and `gain` chosen so the deepest contact of all states gets 12%.
    pub fn normal_length(&self, dist: f64) -> f64 {
        let (base, gain) = self.normal_scale();
        base + gain * (-dist).max(0.0)
    }

    /// `(base, gain)` of [`Scene::normal_length`].
    pub fn normal_scale(&self) -> (f64, f64) {
        let size = self.size();
        let base = 0.04 * size;
        let gain = if self.max_depth > 0.0 {
            0.08 * size / self.max_depth
        } else {
            0.0
        };
        (base, gain)
    }

    /// Largest side of [`Scene::bounds`].
    pub fn size(&self) -> f64 {
        (self.bounds[1] - self.bounds[0]).max_element().max(1e-6)
    }

    /// Orientation of drawn geom `i` in state `k` as a unit quaternion.
    pub fn quat(&self, k: usize, i: usize) -> DQuat {
        DQuat::from_mat3(&self.states[k].mat[i]).normalize()
    }
}
