//! `litindex bench`: not implemented yet.

use std::io::Write;

use crate::cli::BenchArgs;

pub fn run(_args: &BenchArgs, _out: &mut dyn Write) -> anyhow::Result<()> {
    anyhow::bail!("`bench` is not implemented yet")
}
