//! `completions` and `man`: each shell's script names the subcommands, bash
//! accepts its script, the man page names every subcommand.

use super::*;

/// The subcommand names, from `litindex --help` (the binary's own list).
fn subcommands() -> Vec<String> {
    let o = litindex().arg("--help").output().unwrap();
    assert_success(&o);
    let help = stdout(&o);
    let names: Vec<String> = help
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .filter(|n| n != "help")
        .collect();
    for known in ["build", "search", "mcp", "completions", "man", "fetch"] {
        assert!(names.iter().any(|n| n == known), "{known} in {names:?}");
    }
    names
}

#[test]
fn completion_scripts_name_every_subcommand() {
    let names = subcommands();
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let o = litindex().args(["completions", shell]).output().unwrap();
        assert_success(&o);
        let script = stdout(&o);
        for name in &names {
            assert!(script.contains(name.as_str()), "{shell} script lacks `{name}`");
        }
    }
    let o = litindex().args(["completions", "tcsh"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2), "an unknown shell is a bad argument: {}", stderr(&o));
}

#[test]
fn bash_accepts_the_bash_script() {
    let dir = tempfile::tempdir().unwrap();
    let o = litindex().args(["completions", "bash"]).output().unwrap();
    assert_success(&o);
    let path = dir.path().join("litindex.bash");
    fs::write(&path, &o.stdout).unwrap();
    let check = std::process::Command::new("bash").arg("-n").arg(&path).output().expect("run bash");
    assert!(check.status.success(), "bash -n: {}", String::from_utf8_lossy(&check.stderr));
    // Sourced, it registers the completion function for litindex.
    let sourced = std::process::Command::new("bash")
        .arg("-c")
        .arg(format!("source {} && complete -p litindex", path.display()))
        .output()
        .unwrap();
    assert!(sourced.status.success(), "{}", String::from_utf8_lossy(&sourced.stderr));
    assert!(String::from_utf8_lossy(&sourced.stdout).contains("litindex"));
}

#[test]
fn man_page_names_every_subcommand_and_out_dir_writes_one_page_each() {
    let names = subcommands();
    let o = litindex().arg("man").output().unwrap();
    assert_success(&o);
    let page = stdout(&o);
    assert!(page.starts_with(".ie") || page.contains(".TH litindex"), "roff: {}", &page[..page.len().min(200)]);
    for name in &names {
        // roff writes a hyphen as `\-`.
        assert!(page.contains(&name.replace('-', "\\-")), "man page lacks `{name}`");
    }
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("man1");
    let o = litindex().arg("man").arg("--out-dir").arg(&out_dir).output().unwrap();
    assert_success(&o);
    assert!(out_dir.join("litindex.1").is_file());
    for name in &names {
        let file = out_dir.join(format!("litindex-{name}.1"));
        assert!(file.is_file(), "no page {}", file.display());
    }
}
