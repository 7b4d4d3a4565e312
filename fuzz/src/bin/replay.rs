//! Runs a target over files without AFL: `replay TARGET FILE...` (a crash reproduces as a
//! panic with the file name printed first).
fn main() {
    let mut args = std::env::args().skip(1);
    let target = args.next().expect("usage: replay TARGET FILE...");
    let f = collide_fuzz::TARGETS
        .iter()
        .find(|(n, _)| *n == target)
        .unwrap_or_else(|| panic!("unknown target {target}"))
        .1;
    for file in args {
        eprintln!("{file}");
        f(&std::fs::read(&file).expect("readable input"));
    }
}
