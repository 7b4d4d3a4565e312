//! Sweep-and-prune at scale: 1,000 to 1,000,000 moving spheres at constant density, sorted
//! from scratch every step (cold) or repaired from the previous step's order (warm start).
//! Run with `cargo bench -p collide --bench broad_phase`.

use collide::broad::sweep_and_prune::{Intervals, SweepAndPrune};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// `n` spheres of radius 0.5 on a plane-like slab, about 0.3 neighbours each.
fn spheres(n: usize, rng: &mut Rng) -> Vec<[f64; 3]> {
    let side = (n as f64 * 4.0).sqrt();
    (0..n)
        .map(|_| [rng.next() * side, rng.next() * side, rng.next() * 2.0])
        .collect()
}

fn boxes(c: &[[f64; 3]]) -> Intervals {
    let mut b = Intervals::default();
    for p in c {
        b.push(
            [p[0] - 0.5, p[1] - 0.5, p[2] - 0.5],
            [p[0] + 0.5, p[1] + 0.5, p[2] + 0.5],
        );
    }
    b
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("sweep_and_prune");
    g.sample_size(10);
    for n in [1_000usize, 10_000, 100_000, 1_000_000] {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        let mut centres = spheres(n, &mut rng);
        g.throughput(Throughput::Elements(n as u64));
        g.bench_with_input(BenchmarkId::new("cold", n), &n, |bch, _| {
            let b = boxes(&centres);
            bch.iter(|| {
                let mut pairs = 0usize;
                SweepAndPrune::default().overlapping_pairs(&b, &[], |_, _| pairs += 1);
                pairs
            })
        });
        g.bench_with_input(BenchmarkId::new("warm", n), &n, |bch, _| {
            let mut sap = SweepAndPrune::default();
            let mut pairs = 0usize;
            sap.overlapping_pairs(&boxes(&centres), &[], |_, _| pairs += 1);
            let mut b = boxes(&centres);
            bch.iter(|| {
                // every sphere moves by up to 1% of its radius per step
                for (i, p) in centres.iter_mut().enumerate() {
                    p[0] += (rng.next() - 0.5) * 0.01;
                    p[1] += (rng.next() - 0.5) * 0.01;
                    b.set(
                        i,
                        [p[0] - 0.5, p[1] - 0.5, p[2] - 0.5],
                        [p[0] + 0.5, p[1] + 0.5, p[2] + 0.5],
                    );
                }
                let mut pairs = 0usize;
                sap.overlapping_pairs(&b, &[], |_, _| pairs += 1);
                pairs
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
