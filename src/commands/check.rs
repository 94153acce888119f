//! `litindex check`: not implemented yet.

use std::io::Write;

use crate::cli::CheckArgs;
use crate::store::Store;

pub fn run(_args: &CheckArgs, _store: &Store, _out: &mut dyn Write) -> anyhow::Result<()> {
    anyhow::bail!("`check` is not implemented yet")
}
