//! The per-pair hot path allocates nothing but the manifold `Vec` (one allocation per returned
//! contact; none for `distance`), checked with a counting global allocator.

use collide2d::contact::{contact, contact_with_stats, Stats};
use collide2d::containment::contains;
use collide2d::distance::distance;
use collide2d::{Pose, Shape};
use glam::DVec2;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

struct Counting;
static ALLOCS: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::SeqCst);
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn count<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let before = ALLOCS.load(Ordering::SeqCst);
    let r = f();
    (r, ALLOCS.load(Ordering::SeqCst) - before)
}

#[test]
fn hot_path_allocations() {
    let v = DVec2::new;
    let shapes = vec![
        Shape::circle(0.5).unwrap(),
        Shape::rect(v(0.5, 0.3)).unwrap(),
        Shape::polygon(vec![v(0.0, 0.0), v(1.0, 0.0), v(0.3, 0.8)]).unwrap(),
        Shape::segment(v(-0.5, 0.0), v(0.5, 0.2)).unwrap(),
        Shape::capsule(v(-0.5, 0.0), v(0.5, 0.2), 0.2).unwrap(),
        Shape::compound(vec![
            (Pose::IDENTITY, Shape::circle(0.3).unwrap()),
            (
                Pose::new(v(0.5, 0.0), 0.2),
                Shape::rect(v(0.2, 0.2)).unwrap(),
            ),
        ])
        .unwrap(),
        Shape::fish([0.2, -0.3, 0.1]).unwrap(),
    ];
    let pool = Shape::border(vec![v(-1.0, -1.0), v(1.0, -1.0), v(1.0, 1.0), v(-1.0, 1.0)]).unwrap();
    let pb = Pose::new(v(0.2, 0.1), 0.7);
    for a in &shapes {
        for b in shapes.iter().chain(std::iter::once(&pool)) {
            let (c, n) = count(|| contact(a, &Pose::IDENTITY, b, &pb, 0.1));
            assert_eq!(n, usize::from(c.is_some()), "{a:?} vs {b:?}");
            let mut stats = Stats::default();
            let (c, n) = count(|| contact_with_stats(b, &pb, a, &Pose::IDENTITY, 0.1, &mut stats));
            assert_eq!(n, usize::from(c.is_some()));
            let (_, n) = count(|| distance(a, &Pose::IDENTITY, b, &pb));
            assert_eq!(n, 0);
            let (_, n) = count(|| contains(&pool, &Pose::IDENTITY, a, &pb));
            assert_eq!(n, 0);
        }
    }
}
