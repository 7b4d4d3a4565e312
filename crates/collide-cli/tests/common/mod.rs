//! Shared by the CLI tests: the binary, the conformance folder, and a run that must succeed.
#![allow(dead_code)] // each test binary uses a part

use std::path::PathBuf;
use std::process::{Command, Output};

/// The `collide` binary under test.
pub fn collide() -> Command {
    Command::new(env!("CARGO_BIN_EXE_collide"))
}

/// The repository's `conformance/` folder.
pub fn conformance() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../conformance")
}

/// Runs a command that must exit successfully (its stderr in the failure message).
pub trait RunOk {
    /// The command's output, after asserting it succeeded.
    fn run_ok(&mut self) -> Output;
}

impl RunOk for Command {
    fn run_ok(&mut self) -> Output {
        let out = self.output().expect("the command starts");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        out
    }
}
