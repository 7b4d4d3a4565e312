//! `collide`: command-line front end of the collide engine.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use clap::{Parser, Subcommand};
use collide::{
    forward_kinematics, BatchCollider, BatchPoses, Collider, GeomType, Model, Poses, Stats,
};
use collide_cli::states::{detect_state, parse_states, State};
use collide_cli::{conformance, contact_json, poses_json, DEMO_XML};
use serde_json::json;

/// `print!` that returns an error instead of panicking when standard output fails, and ends the
/// program quietly when the reader has closed the pipe (`collide contacts … | head`).
macro_rules! out {
    ($($arg:tt)*) => {
        write_stdout(format_args!($($arg)*))
    };
}

/// [`out!`] with a newline.
macro_rules! outln {
    ($($arg:tt)*) => {
        write_stdout(format_args!("{}\n", format_args!($($arg)*)))
    };
}

#[derive(Parser)]
#[command(
    name = "collide",
    version,
    about = "MuJoCo-compatible collision detection"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// URDF `package://NAME/…` folder, as NAME=DIR (repeatable); see docs/urdf.md.
    #[arg(long = "package", value_name = "NAME=DIR", global = true)]
    packages: Vec<String>,
}

/// Model loading options from the command line (set once in `main`).
static LOAD_OPTIONS: std::sync::OnceLock<collide_mjcf::LoadOptions> = std::sync::OnceLock::new();

#[derive(Subcommand)]
enum Command {
    /// Print counts of bodies, geoms by type, meshes, height fields and pairs.
    Info {
        /// MJCF or URDF model file.
        model: PathBuf,
    },
    /// Print geom world poses as JSON, one entry per state.
    Poses {
        /// MJCF or URDF model file.
        model: PathBuf,
        /// `{"states":[{"qpos":[…]},…]}`; default: one state at the model's qpos0.
        #[arg(long)]
        states: Option<PathBuf>,
    },
    /// Print the contacts of each state as JSON.
    Contacts {
        /// MJCF or URDF model file.
        model: PathBuf,
        /// `{"states":[{"qpos":[…]},…]}`; default: one state at the model's qpos0.
        #[arg(long)]
        states: Option<PathBuf>,
        /// Meshes collide as their convex hulls (MuJoCo) or by their triangles.
        #[arg(long, default_value = "hull", value_parser = ["hull", "exact"])]
        mesh: String,
    },
    /// Signed geom distances (MuJoCo's `mj_geomDistance`) per state, in the order of the pairs.
    Distance {
        /// MJCF model file.
        model: PathBuf,
        /// `{"states":[{"qpos":[…]},…]}`; default: one state at the model's qpos0.
        #[arg(long)]
        states: Option<PathBuf>,
        /// `[[geom1, geom2], …]` (geom ids).
        #[arg(long)]
        pairs: PathBuf,
        /// Distances are capped here (then `fromto` is zero).
        #[arg(long, default_value_t = 1.0, allow_negative_numbers = true)]
        distmax: f64,
    },
    /// Which states have a contact (the model's filters and margins), as JSON.
    Check {
        /// MJCF model file.
        model: PathBuf,
        /// `{"states":[{"qpos":[…]},…]}`; default: one state at the model's qpos0.
        #[arg(long)]
        states: Option<PathBuf>,
    },
    /// Time collision detection alone (world poses precomputed, like MuJoCo's `mj_collision`).
    Bench {
        /// MJCF or URDF model file.
        model: PathBuf,
        /// `{"states":[{"qpos":[…]},…]}`; default: one state at the model's qpos0.
        #[arg(long)]
        states: Option<PathBuf>,
        /// Passes over all states (0: as many as fit in about one second).
        #[arg(long, default_value_t = 0)]
        iters: usize,
        /// Detect in this many worlds at once (world w takes state w mod nstates), in parallel.
        #[arg(long, default_value_t = 1)]
        worlds: usize,
        /// Meshes collide as their convex hulls (MuJoCo) or by their triangles.
        #[arg(long, default_value = "hull", value_parser = ["hull", "exact"])]
        mesh: String,
        /// Solve every touching pair from scratch (no warm starts from the previous state):
        /// every state's contacts then equal a fresh collider's, as in `collide contacts`.
        #[arg(long)]
        no_warm_start: bool,
    },
    /// Run the main job on the embedded demo scene (needs no files): contacts per pair over a few
    /// states, time per detection, and a viewer page and picture under `target/`.
    Demo,
    /// Write one self-contained HTML page (three.js embedded) showing the collision geoms and the
    /// contacts of every state, with a slider, names on hover and a filter.
    View {
        /// Model file (as for `collide contacts`).
        model: PathBuf,
        /// `{"states":[{"qpos":[…]},…]}`; default: one state at the model's qpos0.
        #[arg(long)]
        states: Option<PathBuf>,
        /// Output HTML file.
        #[arg(short, long)]
        output: PathBuf,
        /// Meshes collide as their convex hulls (MuJoCo) or by their triangles.
        #[arg(long, default_value = "hull", value_parser = ["hull", "exact"])]
        mesh: String,
    },
    /// Draw one state's collision geoms and contacts to a PNG picture (CPU, no display needed).
    Render {
        /// Model file (as for `collide contacts`).
        model: PathBuf,
        /// `{"states":[{"qpos":[…]},…]}`; default: one state at the model's qpos0.
        #[arg(long)]
        states: Option<PathBuf>,
        /// Output PNG file.
        #[arg(short, long)]
        output: PathBuf,
        /// Index of the state to draw.
        #[arg(long, default_value_t = 0)]
        state: usize,
        /// Meshes collide as their convex hulls (MuJoCo) or by their triangles.
        #[arg(long, default_value = "hull", value_parser = ["hull", "exact"])]
        mesh: String,
        /// Image width in pixels.
        #[arg(long, default_value_t = 1000)]
        width: u32,
        /// Image height in pixels.
        #[arg(long, default_value_t = 700)]
        height: u32,
        /// Camera azimuth in degrees (0: looking along -x).
        #[arg(long, default_value_t = 55.0, allow_negative_numbers = true)]
        azimuth: f64,
        /// Camera elevation in degrees above the horizontal.
        #[arg(long, default_value_t = 30.0, allow_negative_numbers = true)]
        elevation: f64,
        /// Camera distance from the point looked at (default: fit the scene).
        #[arg(long)]
        distance: Option<f64>,
        /// Point looked at, `x,y,z` (default: the scene's centre).
        #[arg(long, value_delimiter = ',', allow_negative_numbers = true)]
        lookat: Option<Vec<f64>>,
        /// Vertical field of view in degrees.
        #[arg(long, default_value_t = 40.0)]
        fov: f64,
    },
    /// 2D collision queries on a JSON scene (the robot-fish pool), or a picture of the scene.
    #[command(name = "2d", args_conflicts_with_subcommands = true)]
    TwoD {
        #[command(subcommand)]
        action: Option<TwoDAction>,
        /// `{"shapes":[…],"queries":[…]}`: prints `{"results":[…]}`, one result per query.
        scene: Option<PathBuf>,
    },
    /// Compare the model compiler and kinematics with MuJoCo 4.0.0's recorded fixtures.
    Conformance {
        /// The conformance folder (holding corpus.json).
        #[arg(long, default_value = "conformance")]
        dir: PathBuf,
        /// Check only these corpus models (names as in corpus.json, e.g. `scenes/box_pile`).
        #[arg(long, num_args = 1..)]
        only: Vec<String>,
    },
}

#[derive(Subcommand)]
enum TwoDAction {
    /// Draw the scene's shapes, contacts, normals and MTVs to a PNG or SVG file.
    Render {
        /// The scene JSON.
        scene: PathBuf,
        /// Output file; `.svg` writes SVG, anything else PNG.
        #[arg(short, long)]
        output: PathBuf,
        /// Image width in pixels.
        #[arg(long, default_value_t = 1200)]
        width: u32,
        /// Image height in pixels.
        #[arg(long, default_value_t = 800)]
        height: u32,
    },
}

fn main() -> ExitCode {
    let missing = collide::missing_cpu_features();
    if !missing.is_empty() {
        eprintln!("error: {}", collide::cpu_error_message(&missing));
        return ExitCode::FAILURE;
    }
    let cli = Cli::parse();
    let mut opts = collide_mjcf::LoadOptions::default();
    for p in &cli.packages {
        match p.split_once('=') {
            Some((n, d)) if !n.is_empty() && !d.is_empty() => {
                opts.package_dirs.push((n.to_string(), PathBuf::from(d)))
            }
            _ => {
                eprintln!("error: --package '{p}': expected NAME=DIR");
                return ExitCode::FAILURE;
            }
        }
    }
    LOAD_OPTIONS.get_or_init(|| opts);
    let result = match cli.command {
        Command::Info { model } => load(&model).and_then(|m| out!("{}", info_text(&m))),
        Command::Poses { model, states } => poses(&model, states.as_deref()),
        Command::Contacts {
            model,
            states,
            mesh,
        } => contacts(&model, states.as_deref(), &mesh),
        Command::Bench {
            model,
            states,
            iters,
            worlds,
            mesh,
            no_warm_start,
        } if worlds > 1 => bench_worlds(
            &model,
            states.as_deref(),
            iters,
            worlds,
            &mesh,
            !no_warm_start,
        ),
        Command::Bench {
            model,
            states,
            iters,
            mesh,
            no_warm_start,
            ..
        } => bench(&model, states.as_deref(), iters, &mesh, !no_warm_start),
        Command::Distance {
            model,
            states,
            pairs,
            distmax,
        } => (|| {
            let m = load(&model)?;
            let p = collide_cli::distance_cmd::parse_pairs(&read_text(&pairs)?, &m)
                .map_err(|e| format!("{}: {e}", pairs.display()))?;
            let s = read_states(&m, states.as_deref())?;
            outln!(
                "{}",
                collide_cli::distance_cmd::distances_json(&m, &s, &p, distmax)?
            )
        })(),
        Command::Check { model, states } => load(&model).and_then(|m| {
            let s = read_states(&m, states.as_deref())?;
            outln!("{}", collide_cli::distance_cmd::check_json(&m, &s)?)
        }),
        Command::Demo => demo(),
        Command::View {
            model,
            states,
            output,
            mesh,
        } => view_scene(&model, states.as_deref(), &mesh).and_then(|sc| {
            let title = model
                .file_stem()
                .map_or("scene".into(), |s| s.to_string_lossy());
            write_file(&output, collide_view::to_html(&sc, &title).as_bytes())
        }),
        Command::Render {
            model,
            states,
            output,
            state,
            width,
            height,
            azimuth,
            elevation,
            distance,
            lookat,
            fov,
            mesh,
        } => view_scene(&model, states.as_deref(), &mesh).and_then(|sc| {
            let lookat = match lookat.as_deref() {
                None => None,
                Some(&[x, y, z]) => Some(collide::glam::DVec3::new(x, y, z)),
                Some(_) => return Err("--lookat needs three numbers x,y,z".into()),
            };
            let opts = collide_view::RenderOptions {
                state,
                width,
                height,
                azimuth,
                elevation,
                distance,
                lookat,
                fov,
            };
            write_file(
                &output,
                &collide_view::render_png(&sc, &opts).map_err(|e| e.to_string())?,
            )
        }),
        Command::TwoD {
            action:
                Some(TwoDAction::Render {
                    scene,
                    output,
                    width,
                    height,
                }),
            ..
        } => render_2d(&scene, &output, width, height),
        Command::TwoD {
            action: None,
            scene: Some(scene),
        } => run_2d(&scene),
        Command::TwoD {
            action: None,
            scene: None,
        } => Err("collide 2d needs SCENE.json (or `render`)".into()),
        Command::Conformance { dir, only } => conformance_report(&dir, &only),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn load(path: &Path) -> Result<Model, String> {
    let opts = LOAD_OPTIONS.get_or_init(Default::default);
    collide_mjcf::load_file_opts(path, opts).map_err(|e| e.to_string())
}

fn info_text(m: &Model) -> String {
    let mut s = format!(
        "bodies: {}\njoints: {}\nnq: {}\nnv: {}\nmocap: {}\ngeoms: {}\n",
        m.nbody(),
        m.njnt(),
        m.nq(),
        m.nv(),
        m.nmocap(),
        m.ngeom()
    );
    for t in GeomType::ALL {
        let n = m.geom_type.iter().filter(|&&g| g == t).count();
        if n > 0 {
            s.push_str(&format!("  {}: {n}\n", t.name()));
        }
    }
    s.push_str(&format!(
        "meshes: {} ({} vertices, {} faces)\nhfields: {}\npairs: {}\nexcludes: {}\nkeyframes: {}\n",
        m.mesh.len(),
        m.mesh.iter().map(|x| x.vert.len()).sum::<usize>(),
        m.mesh.iter().map(|x| x.face.len()).sum::<usize>(),
        m.hfield.len(),
        m.npair(),
        m.exclude_signature.len(),
        m.key_qpos.len()
    ));
    s
}

fn read_states(model: &Model, states: Option<&Path>) -> Result<Vec<State>, String> {
    match states {
        Some(p) => {
            let text = std::fs::read_to_string(p)
                .map_err(|e| format!("cannot read {}: {e}", p.display()))?;
            parse_states(&text).map_err(|e| format!("{}: {e}", p.display()))
        }
        None => Ok(vec![State::qpos0(model)]),
    }
}

/// World poses of every state.
fn all_poses(model: &Model, states: &[State]) -> Result<Vec<Poses>, String> {
    states
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let mut poses = Poses::new(model);
            let mocap = s.mocap.as_ref().map(|(p, q)| (p.as_slice(), q.as_slice()));
            forward_kinematics(model, &s.qpos, mocap, &mut poses)
                .map_err(|e| format!("state {i}: {e}"))?;
            Ok(poses)
        })
        .collect()
}

/// The sleep flags of every state (see `State::asleep_flags`).
fn all_asleep(model: &Model, states: &[State]) -> Result<Vec<Option<Vec<bool>>>, String> {
    states
        .iter()
        .enumerate()
        .map(|(i, s)| s.asleep_flags(model).map_err(|e| format!("state {i}: {e}")))
        .collect()
}

fn poses(model_path: &Path, states: Option<&Path>) -> Result<(), String> {
    let model = load(model_path)?;
    let states = read_states(&model, states)?;
    let out: Vec<_> = all_poses(&model, &states)?.iter().map(poses_json).collect();
    outln!("{}", json!({ "states": out }))?;
    Ok(())
}

/// Collider options from the `--mesh` flag (`hull` or `exact`, checked by clap). Commands that
/// print or draw contacts run without warm starts, so that each state's contacts are a function
/// of that state alone (bit for bit the same whatever the states before it); `bench` keeps them.
fn mesh_options(mesh: &str, warm_start: bool) -> collide::ColliderOptions {
    collide::ColliderOptions {
        mesh_collision: if mesh == "exact" {
            collide::MeshCollision::Exact
        } else {
            collide::MeshCollision::Hull
        },
        warm_start,
    }
}

fn contacts(model_path: &Path, states: Option<&Path>, mesh: &str) -> Result<(), String> {
    let model = load(model_path)?;
    let states = read_states(&model, states)?;
    let mut collider =
        Collider::with_options(&model, mesh_options(mesh, false)).map_err(|e| e.to_string())?;
    let mut buf = Vec::new();
    let mut out = Vec::with_capacity(states.len());
    let asleep = all_asleep(&model, &states)?;
    for (poses, asleep) in all_poses(&model, &states)?.iter().zip(&asleep) {
        let stats = detect_state(&mut collider, poses, asleep.as_deref(), &mut buf);
        let unsupported: Vec<_> = collider
            .unsupported_pairs()
            .iter()
            .map(|&(a, b)| json!([a, b]))
            .collect();
        out.push(json!({
            "contacts": buf.iter().map(contact_json).collect::<Vec<_>>(),
            "body_pairs": stats.body_pairs,
            "geom_pairs": stats.geom_pairs,
            "unsupported_pairs": unsupported,
            "ccd_exhausted": stats.ccd_exhausted,
        }));
        if stats.unsupported > 0 {
            eprintln!(
                "warning: {} geom pairs involve a mesh without a collision hull; their contacts are missing",
                stats.unsupported
            );
        }
    }
    outln!("{}", json!({ "states": out }))?;
    Ok(())
}

fn bench(
    model_path: &Path,
    states: Option<&Path>,
    iters: usize,
    mesh: &str,
    warm_start: bool,
) -> Result<(), String> {
    let model = load(model_path)?;
    let states = read_states(&model, states)?;
    let poses = all_poses(&model, &states)?;
    let asleep = all_asleep(&model, &states)?;
    let sleeping = asleep.iter().any(Option::is_some);
    let mut collider = Collider::with_options(&model, mesh_options(mesh, warm_start))
        .map_err(|e| e.to_string())?;
    let mut buf = Vec::new();
    // warm up (sizes the buffers) and count
    let mut stats = collide::Stats::default();
    for (p, a) in poses.iter().zip(&asleep) {
        let s = detect_state(&mut collider, p, a.as_deref(), &mut buf);
        stats += s;
    }
    // One timed call per state: with sleep states, the state's flags are set first (MuJoCo's
    // collision reads `body_awake` as it is).
    let once = |collider: &mut Collider, k: usize, buf: &mut Vec<collide::Contact>| {
        if sleeping {
            collider.set_asleep(asleep[k].as_deref().unwrap_or(&[]));
        }
        std::hint::black_box(collider.detect(std::hint::black_box(&poses[k]), buf))
    };
    let iters = if iters > 0 {
        iters
    } else {
        let t = Instant::now();
        for k in 0..poses.len() {
            once(&mut collider, k, &mut buf);
        }
        let once = t.elapsed().as_secs_f64().max(1e-9);
        ((1.0 / once) as usize).clamp(1, 1_000_000)
    };
    let t = Instant::now();
    for _ in 0..iters {
        for k in 0..poses.len() {
            once(&mut collider, k, &mut buf);
        }
    }
    if sleeping {
        collider.set_asleep(&[]);
    }
    let us = t.elapsed().as_secs_f64() * 1e6 / (iters * poses.len()) as f64;
    let n = poses.len() as f64;
    outln!("model: {}", model_path.display())?;
    outln!(
        "states: {}  iterations: {iters}  ngeom: {}",
        poses.len(),
        model.ngeom()
    )?;
    outln!(
        "per state: {:.1} body pairs, {:.1} geom pairs, {:.1} contacts, {:.1} unsupported pairs",
        stats.body_pairs as f64 / n,
        stats.geom_pairs as f64 / n,
        stats.contacts as f64 / n,
        stats.unsupported as f64 / n
    )?;
    // the pair caches' hit rates in the steady state of the timed loop
    let (mut skips, mut warm, mut proofs) = (0, 0, 0);
    for p in &poses {
        let s = collider.detect(p, &mut buf);
        (skips, warm) = (skips + s.separation_skips, warm + s.warm_starts);
        proofs += s.surface_proofs;
    }
    outln!(
        "separation cache: {:.1} convex pairs skipped per state; touching cache: {:.1} warm starts per state ({:.1} proved by the cached EPA surface)",
        skips as f64 / n,
        warm as f64 / n,
        proofs as f64 / n
    )?;
    outln!("collide_us_per_state: {us:.3}")?;
    Ok(())
}

fn bench_worlds(
    model_path: &Path,
    states: Option<&Path>,
    iters: usize,
    nworld: usize,
    mesh: &str,
    warm_start: bool,
) -> Result<(), String> {
    let model = load(model_path)?;
    let states = read_states(&model, states)?;
    // call `i` puts world `w` at state `(w + i) mod nstates` (poses precomputed for up to
    // `MAX_SHIFTS` shifts), so each world steps through the states in order, as a world of a
    // batched simulation replaying them would, and its cache sees that sequence
    const MAX_SHIFTS: usize = 16;
    let nshift = states.len().min(MAX_SHIFTS);
    let mut shifted = Vec::with_capacity(nshift);
    for i in 0..nshift {
        let qpos: Vec<f64> = (0..nworld)
            .flat_map(|w| states[(w + i) % states.len()].qpos.iter().copied())
            .collect();
        let mut poses = BatchPoses::new(&model, nworld);
        poses.compute(&model, &qpos).map_err(|e| e.to_string())?;
        shifted.push(poses);
    }
    let mut batch = BatchCollider::with_options(
        &model,
        rayon::current_num_threads(),
        mesh_options(mesh, warm_start),
    )
    .map_err(|e| e.to_string())?;
    let mut out = vec![Vec::new(); nworld];
    let stats = batch.detect(&shifted[0], &mut out);
    let iters = if iters > 0 {
        iters
    } else {
        let t = Instant::now();
        batch.detect(&shifted[1 % nshift], &mut out);
        ((1.0 / t.elapsed().as_secs_f64().max(1e-9)) as usize).clamp(1, 1_000_000)
    };
    batch.reset();
    let mut warm = Stats::default();
    let t = Instant::now();
    for i in 0..iters {
        let s = batch.detect(std::hint::black_box(&shifted[i % nshift]), &mut out);
        warm += std::hint::black_box(s);
    }
    let secs = t.elapsed().as_secs_f64();
    let per = secs / (iters * nworld) as f64;
    outln!("model: {}", model_path.display())?;
    outln!(
        "worlds: {nworld}  threads: {}  iterations: {iters}  contacts per world: {:.1}",
        rayon::current_num_threads(),
        stats.contacts as f64 / nworld as f64
    )?;
    let calls = (iters * nworld) as f64;
    outln!(
        "per world-state: {:.1} separation skips, {:.1} warm starts ({:.1} proved by the cached EPA surface); caches {:.1} kB per world",
        warm.separation_skips as f64 / calls,
        warm.warm_starts as f64 / calls,
        warm.surface_proofs as f64 / calls,
        batch.cache_bytes() as f64 / 1e3 / nworld as f64
    )?;
    outln!("world_states_per_second: {:.0}", 1.0 / per)?;
    outln!("collide_us_per_state: {:.3}", per * 1e6)?;
    Ok(())
}

fn demo() -> Result<(), String> {
    let t0 = Instant::now();
    let model = collide_mjcf::load_str(DEMO_XML, ".").map_err(|e| e.to_string())?;
    let compile = t0.elapsed();
    outln!("collide demo: embedded scene")?;
    out!("{}", info_text(&model))?;
    outln!("compiled in {:.1} ms", compile.as_secs_f64() * 1e3)?;

    // a deterministic sweep of configurations around qpos0
    let mut poses = Poses::new(&model);
    let mut rng = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        (rng >> 11) as f64 / (1u64 << 53) as f64 - 0.5
    };
    let n = 100_000;
    let mut qpos = model.qpos0.clone();
    let t1 = Instant::now();
    let mut lowest = f64::INFINITY;
    for _ in 0..n {
        for (q, q0) in qpos.iter_mut().zip(&model.qpos0) {
            *q = q0 + 0.1 * next();
        }
        forward_kinematics(&model, &qpos, None, &mut poses).map_err(|e| e.to_string())?;
        for g in 0..model.ngeom() {
            if model.geom_type[g] != GeomType::Plane {
                lowest = lowest.min(poses.geom_xpos[g].z);
            }
        }
    }
    let dt = t1.elapsed().as_secs_f64();
    outln!(
        "kinematics: {n} states in {:.1} ms ({:.3} us per state); lowest geom centre z = {lowest:.4}",
        dt * 1e3,
        dt * 1e6 / n as f64
    )?;
    // five states: qpos0, then ever larger deterministic offsets (bricks sink and tilt)
    let states: Vec<State> = (0..5)
        .map(|k| State {
            qpos: (model.qpos0.iter())
                .map(|q0| q0 + 0.04 * k as f64 * next())
                .collect(),
            mocap: None,
            body_awake: None,
        })
        .collect();
    let poses = all_poses(&model, &states)?;
    let scene = collide_view::Scene::build(&model, &poses).map_err(|e| e.to_string())?;
    for k in 0..scene.nstate() {
        out!(
            "{}",
            collide_view::report::pair_table(&scene, k).map_err(|e| e.to_string())?
        )?;
    }
    let us =
        collide_view::report::detection_time_us(&model, &poses, 0.2).map_err(|e| e.to_string())?;
    outln!("collision detection: {us:.2} us per state")?;
    std::fs::create_dir_all("target").map_err(|e| format!("cannot create target/: {e}"))?;
    let html = Path::new("target/collide-demo.html");
    write_file(
        html,
        collide_view::to_html(&scene, "collide demo").as_bytes(),
    )?;
    let opts = collide_view::RenderOptions {
        state: scene.nstate() - 1,
        ..Default::default()
    };
    let png = collide_view::render_png(&scene, &opts).map_err(|e| e.to_string())?;
    write_file(Path::new("target/collide-demo.png"), &png)?;
    outln!(
        "open the viewer: file://{}",
        std::fs::canonicalize(html)
            .map_err(|e| e.to_string())?
            .display()
    )?;
    Ok(())
}

/// The viewer's scene of a model file in the given states.
fn view_scene(
    model_path: &Path,
    states: Option<&Path>,
    mesh: &str,
) -> Result<collide_view::Scene, String> {
    let model = load(model_path)?;
    let states = read_states(&model, states)?;
    collide_view::Scene::build_with(
        &model,
        &all_poses(&model, &states)?,
        mesh_options(mesh, false),
    )
    .map_err(|e| e.to_string())
}

fn write_file(path: &Path, bytes: &[u8]) -> Result<(), String> {
    std::fs::write(path, bytes).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    outln!("wrote {}", path.display())
}

fn read_text(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}

fn run_2d(scene: &Path) -> Result<(), String> {
    let out = collide2d::scene::run(&read_text(scene)?)
        .map_err(|e| format!("{}: {e}", scene.display()))?;
    outln!("{out}")?;
    Ok(())
}

fn render_2d(scene: &Path, output: &Path, width: u32, height: u32) -> Result<(), String> {
    let parsed = collide2d::scene::parse_scene(&read_text(scene)?)
        .map_err(|e| format!("{}: {e}", scene.display()))?;
    let svg = output
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("svg"));
    let bytes = if svg {
        collide2d::render::render_svg(&parsed, width, height).into_bytes()
    } else {
        collide2d::render::render_png(&parsed, width, height).map_err(|e| e.to_string())?
    };
    std::fs::write(output, bytes).map_err(|e| format!("cannot write {}: {e}", output.display()))?;
    outln!("wrote {}", output.display())?;
    Ok(())
}

fn conformance_report(dir: &Path, only: &[String]) -> Result<(), String> {
    use std::io::{IsTerminal, Write};
    let mut entries = conformance::corpus_entries(dir)?;
    if !only.is_empty() {
        if let Some(missing) = only.iter().find(|n| !entries.iter().any(|e| &e.0 == *n)) {
            return Err(format!("--only: no corpus model named '{missing}'"));
        }
        entries.retain(|e| only.contains(&e.0));
    }
    // a progress bar on standard error, only when it is a terminal
    let tty = std::io::stderr().is_terminal();
    let n = entries.len();
    let mut reports = Vec::with_capacity(n);
    for (i, (name, path, fixture)) in entries.into_iter().enumerate() {
        if tty {
            let done = 30 * i / n.max(1);
            let mut err = std::io::stderr().lock();
            let _ = write!(
                err,
                "\r\x1b[2K[{}{}] {i}/{n} {name}",
                "#".repeat(done),
                ".".repeat(30 - done)
            );
            let _ = err.flush();
        }
        reports.push(conformance::check_model(&name, &path, &fixture));
    }
    if tty {
        eprint!("\r\x1b[2K");
    }
    outln!("== model compiler and kinematics")?;
    out!("{}", conformance::format_table(&reports))?;
    outln!("\n== analytic contacts")?;
    out!("{}", conformance::format_contact_table(&reports))?;
    outln!("\n== convex pairs (criteria: found >= 99.5%, extra <= 0.5%, dist 1e-6, normal 1e-3 rad, pos 1e-6, counts >= 90%)")?;
    out!("{}", conformance::format_convex_table(&reports))?;
    if reports.iter().all(|r| r.passed() && r.contacts.passed()) {
        Ok(())
    } else {
        Err("some models do not match MuJoCo".into())
    }
}

/// Writes to standard output; a closed pipe ends the program quietly with success, as Unix tools
/// do, any other failure is an error.
fn write_stdout(args: std::fmt::Arguments) -> Result<(), String> {
    use std::io::Write;
    match std::io::stdout().lock().write_fmt(args) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => std::process::exit(0),
        Err(e) => Err(format!("cannot write to standard output: {e}")),
    }
}
