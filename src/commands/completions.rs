//! `litindex completions SHELL` and `litindex man`: generated from the clap definition.

use std::io::Write;

use anyhow::Context;
use clap::CommandFactory;

use crate::cli::{Cli, CompletionsArgs, ManArgs};

pub fn run(args: &CompletionsArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let mut command = Cli::command();
    clap_complete::generate(args.shell, &mut command, "litindex", out);
    Ok(())
}

pub fn run_man(args: &ManArgs, out: &mut dyn Write) -> anyhow::Result<()> {
    let command = Cli::command();
    match &args.out_dir {
        None => clap_mangen::Man::new(command).render(out)?,
        Some(dir) => {
            std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
            clap_mangen::generate_to(command, dir)
                .with_context(|| format!("cannot write the pages into {}", dir.display()))?;
            let pages = std::fs::read_dir(dir)?
                .filter(|e| e.as_ref().is_ok_and(|e| e.path().extension().is_some_and(|x| x == "1")))
                .count();
            writeln!(out, "{pages} man pages in {}", dir.display())?;
        }
    }
    Ok(())
}
