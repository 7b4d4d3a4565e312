//! Configurations checked per second by `collide::in_collision_batch` (forward kinematics and
//! an early-exit collision check per configuration) on a rayon pool of NTHREAD threads.
//! Usage: check_rate MODEL.xml STATES.txt NTHREAD [MIN_SECONDS]
//! (STATES.txt as for bench/mj_check_timer.c: "nstate nq 0" then nq values per state.)

use std::time::Instant;

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 4 {
        return Err("usage: check_rate MODEL.xml STATES.txt NTHREAD [MIN_SECONDS]".into());
    }
    let model = collide_mjcf::load_file(&args[1]).map_err(|e| e.to_string())?;
    let text = std::fs::read_to_string(&args[2]).map_err(|e| e.to_string())?;
    let nums: Vec<f64> = text
        .split_whitespace()
        .map(|x| x.parse::<f64>().map_err(|e| format!("{x}: {e}")))
        .collect::<Result<_, _>>()?;
    let (nstate, nq) = (nums[0] as usize, nums[1] as usize);
    let qpos = &nums[3..3 + nstate * nq];
    let threads: usize = args[3].parse().map_err(|e| format!("NTHREAD: {e}"))?;
    let min_seconds: f64 = args
        .get(4)
        .map_or(Ok(1.0), |s| s.parse())
        .map_err(|e| format!("{e}"))?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| e.to_string())?;
    let mut flags = vec![false; nstate];
    let mut passes = 1usize;
    let (mut t, mut hits);
    loop {
        let t0 = Instant::now();
        hits = 0;
        for _ in 0..passes {
            pool.install(|| collide::in_collision_batch(&model, qpos, &mut flags))
                .map_err(|e| e.to_string())?;
            hits += flags.iter().filter(|&&f| f).count();
        }
        t = t0.elapsed().as_secs_f64();
        if t >= min_seconds {
            break;
        }
        passes *= 2;
    }
    println!(
        "colliding_fraction: {:.4}",
        hits as f64 / (passes * nstate) as f64
    );
    println!("collide_configs_per_s: {:.0}", (passes * nstate) as f64 / t);
    println!("configs_checked: {}", passes * nstate);
    Ok(())
}
