//! `litindex eval`: not implemented yet.

use std::io::Write;

use crate::cli::EvalArgs;
use crate::store::Store;

pub fn run(_args: &EvalArgs, _store: &Store, _out: &mut dyn Write) -> anyhow::Result<()> {
    anyhow::bail!("`eval` is not implemented yet")
}
