//! The instruction-set extensions a build was compiled for, checked against the CPU it runs on.
//!
//! On x86-64 the workspace builds for `x86-64-v3` (AVX2, FMA, BMI1/2, …; every x86-64 CPU since
//! 2013 for Intel, 2015 for AMD: see `.cargo/config.toml`), as MuJoCo's wheels build with AVX.
//! Running such a binary on an older CPU would die on an illegal instruction, so the CLI and the
//! Python package call [`missing_cpu_features`] first and report what is missing instead.
//! Results do not depend on the level: Rust never fuses `a * b + c` into an FMA by itself, so
//! every level computes the same bits (the corpus's contacts are byte-identical).

/// One x86-64 extension: its `target_feature` name, whether this build was compiled assuming
/// it, and whether the running CPU has it.
type Extension = (&'static str, bool, bool);

/// The x86-64 extensions above the baseline that a build may assume (those of x86-64-v3).
#[cfg(target_arch = "x86_64")]
fn extensions() -> [Extension; 13] {
    macro_rules! list {
        ($($f:tt),*) => {
            [$(($f, cfg!(target_feature = $f), std::arch::is_x86_feature_detected!($f))),*]
        };
    }
    list!(
        "sse3", "ssse3", "sse4.1", "sse4.2", "popcnt", "avx", "avx2", "fma", "bmi1", "bmi2",
        "lzcnt", "movbe", "f16c"
    )
}

/// The names of the extensions in `list` that the build assumes and the CPU lacks, in order.
fn missing_of(list: &[Extension]) -> Vec<&'static str> {
    list.iter()
        .filter(|&&(_, assumed, present)| assumed && !present)
        .map(|&(f, _, _)| f)
        .collect()
}

/// The instruction-set extensions this build assumes and the running CPU lacks (empty when the
/// build can run here; always empty off x86-64). Call it before any detection: code compiled
/// for a missing extension stops the process with an illegal instruction.
pub fn missing_cpu_features() -> Vec<&'static str> {
    #[cfg(target_arch = "x86_64")]
    {
        missing_of(&extensions())
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        missing_of(&[])
    }
}

/// The message the CLI and the Python package give for [`missing_cpu_features`]' list.
pub fn cpu_error_message(missing: &[&str]) -> String {
    format!(
        "this build of collide uses the CPU extensions {} (x86-64-v3), which this CPU lacks; \
         build collide from source for this CPU with RUSTFLAGS=\"-C target-cpu=native\" \
         (it gives the same results, more slowly)",
        missing.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_machine_runs_this_build() {
        assert_eq!(missing_cpu_features(), Vec::<&str>::new());
    }

    #[test]
    fn only_assumed_and_absent_extensions_are_missing() {
        let list = [
            ("avx", true, true),
            ("avx2", true, false),
            ("fma", false, false),
            ("bmi2", true, false),
        ];
        assert_eq!(missing_of(&list), ["avx2", "bmi2"]);
        assert!(missing_of(&list.map(|(f, a, _)| (f, a, true))).is_empty());
        assert_eq!(
            missing_of(&list.map(|(f, a, _)| (f, a, false))),
            ["avx", "avx2", "bmi2"]
        );
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn the_workspace_builds_for_x86_64_v3() {
        // set by .cargo/config.toml (fails if that file is lost or overridden by RUSTFLAGS)
        for (f, assumed, _) in extensions() {
            assert!(assumed, "{f} not enabled: is .cargo/config.toml in effect?");
        }
    }

    #[test]
    fn the_message_names_the_missing_extensions() {
        let m = cpu_error_message(&["avx2", "fma"]);
        assert!(
            m.contains("avx2, fma") && m.contains("target-cpu=native"),
            "{m}"
        );
    }
}
