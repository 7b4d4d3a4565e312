//! `collide`: command-line front end of the collide engine.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use clap::{Parser, Subcommand};
use collide::{forward_kinematics, GeomType, Model, Poses};
use collide_cli::states::{parse_states, State};
use collide_cli::{conformance, poses_json, DEMO_XML};
use serde_json::json;

#[derive(Parser)]
#[command(
    name = "collide",
    version,
    about = "MuJoCo-compatible collision detection"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Print counts of bodies, geoms by type, meshes, height fields and pairs.
    Info {
        /// MJCF model file.
        model: PathBuf,
    },
    /// Print geom world poses as JSON, one entry per state.
    Poses {
        /// MJCF model file.
        model: PathBuf,
        /// `{"states":[{"qpos":[…]},…]}`; default: one state at the model's qpos0.
        #[arg(long)]
        states: Option<PathBuf>,
    },
    /// Run the main job on the embedded demo scene (needs no files).
    Demo,
    /// Compare the model compiler and kinematics with MuJoCo 4.0.0's recorded fixtures.
    Conformance {
        /// The conformance folder (holding corpus.json).
        #[arg(long, default_value = "conformance")]
        dir: PathBuf,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Info { model } => load(&model).map(|m| print!("{}", info_text(&m))),
        Command::Poses { model, states } => poses(&model, states.as_deref()),
        Command::Demo => demo(),
        Command::Conformance { dir } => conformance_report(&dir),
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
    collide_mjcf::load_file(path).map_err(|e| e.to_string())
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

fn poses(model_path: &Path, states: Option<&Path>) -> Result<(), String> {
    let model = load(model_path)?;
    let states = match states {
        Some(p) => {
            let text = std::fs::read_to_string(p)
                .map_err(|e| format!("cannot read {}: {e}", p.display()))?;
            parse_states(&text).map_err(|e| format!("{}: {e}", p.display()))?
        }
        None => vec![State::qpos0(&model)],
    };
    let mut poses = Poses::new(&model);
    let mut out = Vec::with_capacity(states.len());
    for (i, s) in states.iter().enumerate() {
        let mocap = s.mocap.as_ref().map(|(p, q)| (p.as_slice(), q.as_slice()));
        forward_kinematics(&model, &s.qpos, mocap, &mut poses)
            .map_err(|e| format!("state {i}: {e}"))?;
        out.push(poses_json(&poses));
    }
    println!("{}", json!({ "states": out }));
    Ok(())
}

fn demo() -> Result<(), String> {
    let t0 = Instant::now();
    let model = collide_mjcf::load_str(DEMO_XML, ".").map_err(|e| e.to_string())?;
    let compile = t0.elapsed();
    println!("collide demo: embedded scene");
    print!("{}", info_text(&model));
    println!("compiled in {:.1} ms", compile.as_secs_f64() * 1e3);

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
    println!(
        "kinematics: {n} states in {:.1} ms ({:.3} us per state); lowest geom centre z = {lowest:.4}",
        dt * 1e3,
        dt * 1e6 / n as f64
    );
    forward_kinematics(&model, &model.qpos0, None, &mut poses).map_err(|e| e.to_string())?;
    println!("geom poses at qpos0:");
    for g in 0..model.ngeom() {
        let p = poses.geom_xpos[g];
        let name = if model.geom_name[g].is_empty() {
            "-"
        } else {
            &model.geom_name[g]
        };
        println!(
            "  {g:>3} {:<9} {name:<8} ({:>8.4}, {:>8.4}, {:>8.4})",
            model.geom_type[g].name(),
            p.x,
            p.y,
            p.z
        );
    }
    Ok(())
}

fn conformance_report(dir: &Path) -> Result<(), String> {
    let reports = conformance::check_corpus(dir)?;
    print!("{}", conformance::format_table(&reports));
    if reports.iter().all(|r| r.passed()) {
        Ok(())
    } else {
        Err("some models do not match MuJoCo".into())
    }
}
