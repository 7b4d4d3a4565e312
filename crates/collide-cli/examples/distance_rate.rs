//! Times `collide::GeomDistance::distance` on the pairs of bench/coal_bench.py (the file format
//! of bench/coal_distance_timer.cpp): per pair, REPS repeated queries after a warm-up; prints
//! the median over pairs of the per-query time, over all pairs and over the pairs MuJoCo's
//! semantics send to GJK/EPA (the others use analytic colliders).
//! Usage: distance_rate PAIRS.txt [REPS]  (WARM=1: `set_warm_start`; FAST=1: the fast mode)

use std::time::Instant;

use collide::glam::{DQuat, DVec3};
use collide::{forward_kinematics, DistanceMode, GeomDistance, Poses};

const TYPES: [&str; 6] = ["sphere", "capsule", "ellipsoid", "cylinder", "box", "mesh"];

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().collect();
    let text = std::fs::read_to_string(args.get(1).ok_or("usage: distance_rate PAIRS.txt [REPS]")?)
        .map_err(|e| e.to_string())?;
    let reps: usize = args
        .get(2)
        .map_or(Ok(2000), |s| s.parse())
        .map_err(|e| format!("{e}"))?;
    let mut it = text.split_whitespace().map(|x| x.parse::<f64>().unwrap());
    let mut next = || it.next().expect("short file");
    let nmesh = next() as usize;
    let mut assets = String::new();
    for i in 0..nmesh {
        let n = next() as usize;
        let v: Vec<String> = (0..3 * n).map(|_| format!("{}", next())).collect();
        assets += &format!(r#"<mesh name="m{i}" vertex="{}"/>"#, v.join(" "));
    }
    let npair = next() as usize;
    let mut bodies = String::new();
    let mut qpos = Vec::new();
    let mut gjk = Vec::new();
    for _ in 0..npair {
        let mut types = [0usize; 2];
        for t in &mut types {
            *t = next() as usize;
            let s = [next(), next(), next()];
            let geom = match TYPES[*t] {
                "mesh" => format!(r#"<geom type="mesh" mesh="m{}"/>"#, s[0] as usize),
                ty => format!(r#"<geom type="{ty}" size="{} {} {}"/>"#, s[0], s[1], s[2]),
            };
            bodies += &format!("<body><freejoint/>{geom}</body>");
            qpos.extend((0..7).map(|_| next()));
        }
        let (a, b) = (types[0].min(types[1]), types[0].max(types[1]));
        // analytic in MuJoCo: sphere–sphere/capsule/cylinder/box, capsule–capsule/box
        let analytic = matches!((a, b), (0, 0) | (0, 1) | (0, 3) | (0, 4) | (1, 1) | (1, 4));
        gjk.push(!analytic);
    }
    let xml = format!("<mujoco><asset>{assets}</asset><worldbody>{bodies}</worldbody></mujoco>");
    let model = collide_mjcf::load_str(&xml, ".").map_err(|e| e.to_string())?;
    let mut poses = Poses::new(&model);
    forward_kinematics(&model, &qpos, None::<(&[DVec3], &[DQuat])>, &mut poses)
        .map_err(|e| e.to_string())?;
    let view = poses.view();
    let mut query = GeomDistance::new(&model);
    query.set_warm_start(std::env::var("WARM").is_ok_and(|v| v == "1"));
    if std::env::var("FAST").is_ok_and(|v| v == "1") {
        query.set_mode(DistanceMode::Fast);
    }
    let mut per = Vec::new();
    let mut checksum = 0.0;
    for (k, &through_gjk) in gjk.iter().enumerate() {
        let (g1, g2) = (2 * k, 2 * k + 1);
        for _ in 0..20 {
            checksum += query
                .distance(&view, g1, g2, 10.0)
                .map_err(|e| e.to_string())?
                .dist;
        }
        let t0 = Instant::now();
        for _ in 0..reps {
            checksum += query
                .distance(&view, g1, g2, 10.0)
                .map_err(|e| e.to_string())?
                .dist;
        }
        per.push((t0.elapsed().as_secs_f64() * 1e9 / reps as f64, through_gjk));
    }
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    println!(
        "collide_median_ns: {:.1}",
        median(per.iter().map(|p| p.0).collect())
    );
    println!(
        "collide_gjk_median_ns: {:.1}",
        median(per.iter().filter(|p| p.1).map(|p| p.0).collect())
    );
    eprintln!("checksum {checksum}");
    Ok(())
}
