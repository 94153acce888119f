//! `litindex run`: not implemented yet.

use std::io::Write;

use crate::cli::RunArgs;
use crate::store::Store;

pub fn run(_args: &RunArgs, _store: &Store, _out: &mut dyn Write) -> anyhow::Result<()> {
    anyhow::bail!("`run` is not implemented yet")
}
