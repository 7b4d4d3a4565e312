//! Broad phase at scale: sweep-and-prune on 1,000 to 1,000,000 moving boxes, printed as a
//! table (not a criterion bench). Boxes are random (half-sizes in [0.1, 0.5]) at a constant
//! density (about 0.2 overlapping pairs per box), in two layouts: a cube whose side grows as
//! n^(1/3) (`cube`), and a slab 2 deep whose sides grow as n^(1/2) (`slab`, a crowd on a
//! floor); between calls every box moves by up to 0.005 along each axis.
//! - cold: a fresh `SweepAndPrune` per call (allocation and full sort);
//! - warm: the same `SweepAndPrune` across calls (the previous order repaired).
//!
//! Times are the fastest of at least 5 calls (the least disturbed by other processes).
//!
//! Each size runs in a child process of its own so that its peak resident memory (`VmHWM`)
//! can be read; the memory of the sweep is the peak minus the resident size once the boxes are
//! built. Linux only for the memory columns (0 elsewhere).
//!
//! Run with `cargo bench -p collide --bench broad_scale [-- --json OUT] [-- --sizes 1000,10000]`.

mod common;

use std::process::Command;
use std::time::Instant;

use collide::broad::sweep_and_prune::{Intervals, SweepAndPrune};
use common::Rng;

/// Boxes per unit volume.
const DENSITY: f64 = 0.25;

/// `(VmRSS, VmHWM)` of this process in bytes (0 when unavailable).
fn memory() -> (u64, u64) {
    let text = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| -> u64 {
        text.lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse::<u64>().ok())
            .map_or(0, |kb| kb * 1024)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

struct Row {
    layout: String,
    n: usize,
    pairs: usize,
    cold_us: f64,
    warm_us: f64,
    base_bytes: u64,
    peak_bytes: u64,
}

/// Runs one size (in the child process) and prints its row as one line of numbers.
fn child(n: usize, layout: &str) {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ n as u64);
    let volume = n as f64 / DENSITY;
    let side = match layout {
        "slab" => [(volume / 2.0).sqrt(), (volume / 2.0).sqrt(), 2.0],
        _ => [volume.cbrt(); 3],
    };
    let mut centre: Vec<[f64; 3]> = (0..n)
        .map(|_| {
            [
                rng.next() * side[0],
                rng.next() * side[1],
                rng.next() * side[2],
            ]
        })
        .collect();
    let half: Vec<[f64; 3]> = (0..n)
        .map(|_| {
            [
                0.1 + 0.4 * rng.next(),
                0.1 + 0.4 * rng.next(),
                0.1 + 0.4 * rng.next(),
            ]
        })
        .collect();
    let bounds = |c: &[f64; 3], h: &[f64; 3]| {
        (
            [c[0] - h[0], c[1] - h[1], c[2] - h[2]],
            [c[0] + h[0], c[1] + h[1], c[2] + h[2]],
        )
    };
    let mut boxes = Intervals::default();
    for (c, h) in centre.iter().zip(&half) {
        let (lo, hi) = bounds(c, h);
        boxes.push(lo, hi);
    }
    let (base, _) = memory();
    // at least 5 calls and about 300,000 box updates per measurement; the fastest call
    // counts (the least disturbed by other processes)
    let calls = (300_000 / n).clamp(5, 2000);
    let mut pairs = 0usize;

    let mut cold = f64::INFINITY;
    for _ in 0..calls {
        let t = Instant::now();
        let mut count = 0usize;
        SweepAndPrune::default().overlapping_pairs(&boxes, &[], |_, _| count += 1);
        cold = cold.min(t.elapsed().as_secs_f64());
        pairs = std::hint::black_box(count);
    }

    let mut sap = SweepAndPrune::default();
    sap.overlapping_pairs(&boxes, &[], |_, _| {});
    let mut warm = f64::INFINITY;
    for _ in 0..calls {
        for (i, (c, h)) in centre.iter_mut().zip(&half).enumerate() {
            for x in c.iter_mut() {
                *x += (rng.next() - 0.5) * 0.01;
            }
            let (lo, hi) = bounds(c, h);
            boxes.set(i, lo, hi);
        }
        let t = Instant::now();
        let mut count = 0usize;
        sap.overlapping_pairs(&boxes, &[], |_, _| count += 1);
        warm = warm.min(t.elapsed().as_secs_f64());
        std::hint::black_box(count);
    }
    let (_, peak) = memory();
    println!("{n} {pairs} {} {} {base} {peak}", cold * 1e6, warm * 1e6);
}

fn run_size(n: usize, layout: &str) -> Row {
    let exe = std::env::current_exe().expect("own executable");
    let out = Command::new(exe)
        .args(["--child", &n.to_string(), "--layout", layout])
        .output()
        .expect("child runs");
    let text = String::from_utf8_lossy(&out.stdout);
    let v: Vec<f64> = text
        .split_whitespace()
        .filter_map(|x| x.parse().ok())
        .collect();
    assert!(v.len() == 6, "child output: {text}");
    Row {
        layout: layout.to_string(),
        n: v[0] as usize,
        pairs: v[1] as usize,
        cold_us: v[2],
        warm_us: v[3],
        base_bytes: v[4] as u64,
        peak_bytes: v[5] as u64,
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let arg = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
    };
    if let Some(n) = arg("--child") {
        child(
            n.parse().expect("--child N"),
            arg("--layout").map_or("cube", |s| s.as_str()),
        );
        return;
    }
    let sizes: Vec<usize> = arg("--sizes")
        .map(|s| s.split(',').filter_map(|x| x.parse().ok()).collect())
        .unwrap_or_else(|| vec![1_000, 3_000, 10_000, 30_000, 100_000, 300_000, 1_000_000]);
    let rows: Vec<Row> = ["cube", "slab"]
        .iter()
        .flat_map(|layout| sizes.iter().map(move |&n| run_size(n, layout)))
        .collect();

    println!(
        "{:>6} {:>9} {:>8} {:>11} {:>11} {:>11} {:>11} {:>8} {:>10} {:>9}",
        "layout",
        "boxes",
        "pairs/box",
        "cold_us",
        "cold_us/box",
        "warm_us",
        "warm_us/box",
        "warm_exp",
        "peak_MB",
        "sap_B/box"
    );
    let mut json = Vec::new();
    for (i, r) in rows.iter().enumerate() {
        let n = r.n as f64;
        // growth exponent of the warm time from the previous size (n log n: just above 1)
        let exp = if i > 0 && rows[i - 1].layout == r.layout {
            let p = &rows[i - 1];
            (r.warm_us / p.warm_us).ln() / (n / p.n as f64).ln()
        } else {
            f64::NAN
        };
        let sap_bytes = r.peak_bytes.saturating_sub(r.base_bytes) as f64 / n;
        println!(
            "{:>6} {:>9} {:>8.2} {:>11.1} {:>11.4} {:>11.1} {:>11.4} {:>8.2} {:>10.1} {:>9.0}",
            r.layout,
            r.n,
            r.pairs as f64 / n,
            r.cold_us,
            r.cold_us / n,
            r.warm_us,
            r.warm_us / n,
            exp,
            r.peak_bytes as f64 / 1e6,
            sap_bytes
        );
        json.push(format!(
            "{{\"layout\":\"{}\",\"n\":{},\"pairs\":{},\"cold_us\":{:.3},\"warm_us\":{:.3},\"base_bytes\":{},\"peak_bytes\":{}}}",
            r.layout, r.n, r.pairs, r.cold_us, r.warm_us, r.base_bytes, r.peak_bytes
        ));
    }
    if let Some(path) = arg("--json") {
        std::fs::write(path, format!("{{\"rows\":[{}]}}\n", json.join(",")))
            .expect("write --json file");
    }
}
