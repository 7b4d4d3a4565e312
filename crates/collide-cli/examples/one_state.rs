//! The Rust side of the one-state overhead benchmark (`bench/python_bench.py`): per call,
//! `forward_kinematics` then `Collider::detect` on one state, cycling over the states of a
//! raw float64 file, best of `REPEATS` passes.
//! Usage: one_state MODEL.xml QPOS.bin NSTATE REPEATS; prints `rust_us_per_call: X`.

use std::time::Instant;

use collide::{forward_kinematics, Collider, Poses};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 5 {
        return Err("usage: one_state MODEL.xml QPOS.bin NSTATE REPEATS".into());
    }
    let model = collide_mjcf::load_file(&args[1])?;
    let bytes = std::fs::read(&args[2])?;
    let nstate: usize = args[3].parse()?;
    let repeats: usize = args[4].parse()?;
    let qpos: Vec<f64> = bytes
        .chunks_exact(8)
        .map(|b| f64::from_ne_bytes(b.try_into().unwrap_or([0; 8])))
        .collect();
    let nq = model.nq();
    if qpos.len() != nstate * nq {
        return Err(format!("{} values, expected {} x {nq}", qpos.len(), nstate).into());
    }
    let mut poses = Poses::new(&model);
    let mut collider = Collider::new(&model)?;
    let mut contacts = Vec::new();
    let mut best = f64::INFINITY;
    let mut ncon = 0;
    for _ in 0..repeats {
        let t = Instant::now();
        ncon = 0;
        for q in qpos.chunks_exact(nq.max(1)).take(nstate) {
            forward_kinematics(&model, q, None, &mut poses)?;
            collider.detect(&poses, &mut contacts);
            ncon += contacts.len();
        }
        best = best.min(t.elapsed().as_secs_f64());
    }
    println!("ncon: {ncon}");
    println!("rust_us_per_call: {:.4}", best * 1e6 / nstate as f64);
    Ok(())
}
