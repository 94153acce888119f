//! `litindex gen`: not implemented yet.

use std::io::Write;

use crate::cli::GenArgs;

pub fn run(_args: &GenArgs, _out: &mut dyn Write) -> anyhow::Result<()> {
    anyhow::bail!("`gen` is not implemented yet")
}
