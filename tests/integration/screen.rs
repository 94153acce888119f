//! `screen`: reviews and decisions from the real binary on SYNERGY reviews
//! (../shared/data/synergy), bad input changing nothing, a merged paper
//! keeping both record ids, and the simulation's orders.

use std::path::Path;

use serde_json::Value;

use crate::common::{litindex, shared_data, stderr, stdout};

fn run(db: &Path, args: &[&str]) -> std::process::Output {
    litindex().arg("--db").arg(db).args(args).output().expect("run litindex")
}

fn ok(db: &Path, args: &[&str]) -> String {
    let o = run(db, args);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    stdout(&o)
}

fn fails(db: &Path, args: &[&str]) -> String {
    let o = run(db, args);
    assert!(!o.status.success(), "{args:?} should fail: {}", stdout(&o));
    stderr(&o)
}

fn ingest(dir: &Path, review: &Path) -> std::path::PathBuf {
    let db = dir.join("r.db");
    let works = review.join("works.jsonl.gz");
    ok(&db, &["ingest", "-q", "--format", "openalex", works.to_str().unwrap()]);
    db
}

#[test]
fn a_review_from_labels_decisions_next_status_export_and_bad_input() {
    let Some(sep) = shared_data("synergy/Sep_2021") else { return };
    let dir = tempfile::tempdir().unwrap();
    let db = ingest(dir.path(), &sep);
    let labels = sep.join("labels.csv");
    let text = std::fs::read_to_string(&labels).unwrap();
    let rows: Vec<(&str, &str)> = text.lines().skip(1).map(|l| l.split_once(',').unwrap()).collect();
    let out = ok(&db, &["screen", "new", "sep", "--ids-from", labels.to_str().unwrap(), "--format", "json"]);
    let created: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(created["candidates"], 271);

    // Before any decision: the candidates in the file's order, no score.
    let next: Value = serde_json::from_str(&ok(&db, &["screen", "next", "sep", "--format", "json"])).unwrap();
    assert_eq!(next[0]["given_id"], rows[0].0);
    assert!(next[0]["score"].is_null());

    // Import the first 60 decisions.
    let first: String =
        rows[..60].iter().map(|(id, l)| format!("{id},{}\n", if *l == "1" { "include" } else { "exclude" })).collect();
    let imp = dir.path().join("first.csv");
    std::fs::write(&imp, format!("id,label\n{first}")).unwrap();
    let d: Value =
        serde_json::from_str(&ok(&db, &["screen", "import", "sep", imp.to_str().unwrap(), "--format", "json"]))
            .unwrap();
    let inc = rows[..60].iter().filter(|r| r.1 == "1").count();
    assert_eq!(d["included"], inc);
    assert_eq!(d["excluded"], 60 - inc);

    // The model's proposals: undecided, scored, ranked, explained.
    let next: Value =
        serde_json::from_str(&ok(&db, &["screen", "next", "sep", "-n", "5", "--format", "json"])).unwrap();
    let decided: std::collections::HashSet<&str> = rows[..60].iter().map(|r| r.0).collect();
    let props = next.as_array().unwrap();
    assert_eq!(props.len(), 5);
    let scores: Vec<f64> = props.iter().map(|p| p["score"].as_f64().unwrap()).collect();
    assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{scores:?}");
    for p in props {
        assert!(!decided.contains(p["given_id"].as_str().unwrap()));
    }
    assert!(!props[0]["top_terms"].as_array().unwrap().is_empty());
    // Which model scored them (all features, or text only when it cross-validates better).
    let model = props[0]["model"].as_str().unwrap();
    assert!(model.starts_with("all features") || model.starts_with("text only"), "{model}");
    assert!(ok(&db, &["screen", "next", "sep", "-n", "1"]).contains(&format!("    model: {model}\n")));
    // Of the five, the included ones among them beat the base rate of the rest.
    let truth: std::collections::HashMap<&str, &str> = rows.iter().copied().collect();
    let hits = props.iter().filter(|p| truth[p["given_id"].as_str().unwrap()] == "1").count();
    assert!(hits >= 2, "{hits} of the model's first 5 are included (base rate 0.14)");

    let st: Value = serde_json::from_str(&ok(&db, &["screen", "status", "sep", "--format", "json"])).unwrap();
    assert_eq!(st["screened"], 60);
    assert_eq!(st["included"], inc);
    assert_eq!(st["undecided"], 211);
    assert_eq!(st["estimate"]["method"], "recent-rate");

    // A decision by another alias of the paper (its DOI) lands on the given id.
    let (id, _) = rows[60];
    let doi = next_paper_id(&db, id);
    let d: Value = serde_json::from_str(&ok(
        &db,
        &["screen", "label", "sep", &doi, "exclude", "--reason", "wrong-task", "--format", "json"],
    ))
    .unwrap();
    assert_eq!(d["decided"][0], id);
    let csv = ok(&db, &["screen", "export", "sep", "--format", "csv"]);
    assert_eq!(csv.lines().count(), 1 + 61);
    assert!(csv.contains(&format!("{id},{doi},exclude,wrong-task,")), "{csv}");
    let ris = ok(&db, &["screen", "export", "sep", "--format", "ris"]);
    assert_eq!(ris.matches("\nER  -").count() + usize::from(ris.starts_with("ER  -")), inc);

    // Bad input: one clear error, nothing changed.
    let bad = |name: &str, body: &str| {
        let p = dir.path().join(name);
        std::fs::write(&p, body).unwrap();
        p
    };
    let header = bad("header.csv", "paper,decision\nW1,1\n");
    let e = fails(&db, &["screen", "import", "sep", header.to_str().unwrap()]);
    assert!(e.contains("header.csv:1: the header"), "{e}");
    let dup = bad("dup.csv", &format!("id,label\n{},include\n{},exclude\n", rows[100].0, rows[100].0));
    let e = fails(&db, &["screen", "import", "sep", dup.to_str().unwrap()]);
    assert!(e.contains("dup.csv:3:") && e.contains("already on line 2"), "{e}");
    let unknown = bad("unknown.csv", &format!("id,label\n{},include\nW1,exclude\n", rows[100].0));
    let e = fails(&db, &["screen", "import", "sep", unknown.to_str().unwrap()]);
    assert!(e.contains("unknown.csv:3: no paper `W1`"), "{e}");
    assert_eq!(ok(&db, &["screen", "export", "sep", "--format", "csv"]), csv, "a failed import changed the decisions");
    // A review over a subset: a paper outside it is no candidate.
    let subset = bad("subset.txt", &format!("{}\n{}\n", rows[0].0, rows[1].0));
    ok(&db, &["screen", "new", "small", "--ids-from", subset.to_str().unwrap()]);
    let e = fails(&db, &["screen", "label", "small", rows[5].0, "include"]);
    assert!(e.contains("is not a candidate of review `small`"), "{e}");
    let e = fails(&db, &["screen", "new", "small", "--all"]);
    assert!(e.contains("exists already"), "{e}");
    let e = fails(&db, &["screen", "new", "other", "--ids-from", unknown.to_str().unwrap()]);
    assert!(e.contains("unknown.csv:3: no paper `W1`"), "{e}");
    let e = fails(&db, &["screen", "status", "other"]);
    assert!(e.contains("no review `other`"), "{e}");
    assert!(ok(&db, &["check"]).contains("check passed"));

    // Kept across a rebuild.
    let jsonl = dir.path().join("all.jsonl");
    ok(&db, &["export", "--format", "jsonl", "-o", jsonl.to_str().unwrap()]);
    ok(&db, &["build", "-q", "--jsonl", jsonl.to_str().unwrap()]);
    assert_eq!(ok(&db, &["screen", "export", "sep", "--format", "csv"]), csv);
}

fn next_paper_id(db: &Path, given: &str) -> String {
    let p: Value = serde_json::from_str(&ok(db, &["paper", given, "--format", "json"])).unwrap();
    p["id"].as_str().or_else(|| p["paper"]["id"].as_str()).expect("paper id").to_string()
}

#[test]
fn a_merged_paper_keeps_both_record_ids() {
    let Some(vdv) = shared_data("synergy/van_der_Valk_2021") else { return };
    let dir = tempfile::tempdir().unwrap();
    let db = ingest(dir.path(), &vdv);
    let labels = vdv.join("labels.csv");
    let created: Value = serde_json::from_str(&ok(
        &db,
        &["screen", "new", "v", "--ids-from", labels.to_str().unwrap(), "--format", "json"],
    ))
    .unwrap();
    assert_eq!(created["candidates"], 725);
    assert_eq!(created["same_paper"], 1);
    ok(&db, &["screen", "label", "v", "W2144654941", "include"]);
    ok(&db, &["screen", "label", "v", "W2804891349", "exclude"]);
    let csv = ok(&db, &["screen", "export", "v", "--format", "csv"]);
    assert!(csv.contains("\nW2144654941,") && csv.contains(",include,"), "{csv}");
    assert!(csv.contains("\nW2804891349,") && csv.contains(",exclude,"), "{csv}");
}

#[test]
fn simulate_writes_every_labelled_id_once_priors_first_and_beats_random() {
    let Some(sep) = shared_data("synergy/Sep_2021") else { return };
    let dir = tempfile::tempdir().unwrap();
    let labels = sep.join("labels.csv");
    let out = dir.path().join("out");
    let o = litindex()
        .args(["screen", "simulate", "--seeds", "1,2", "--name", "sep", "--works"])
        .arg(sep.join("works.jsonl.gz"))
        .arg("--labels")
        .arg(&labels)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&labels).unwrap();
    let truth: std::collections::HashMap<&str, bool> =
        text.lines().skip(1).map(|l| l.split_once(',').unwrap()).map(|(i, l)| (i, l == "1")).collect();
    for seed in [1, 2] {
        let order = std::fs::read_to_string(out.join(format!("sep_s{seed}.txt"))).unwrap();
        let ids: Vec<&str> = order.lines().collect();
        assert_eq!(ids.len(), truth.len());
        assert_eq!(ids.iter().collect::<std::collections::HashSet<_>>().len(), truth.len());
        assert!(truth[ids[0]] && !truth[ids[1]], "priors: one included, then one excluded");
        // recall@10 %: N = 269, R = 39, the first 26 after the priors; random finds about 3.9.
        let found = ids[2..2 + 26].iter().filter(|i| truth[**i]).count();
        assert!(found >= 8, "seed {seed}: {found} of 39 included in the first 10 %");
    }
    // The same seed gives the same order.
    let again = dir.path().join("again");
    let o = litindex()
        .args(["screen", "simulate", "--seeds", "1", "--name", "sep", "--works"])
        .arg(sep.join("works.jsonl.gz"))
        .arg("--labels")
        .arg(&labels)
        .arg("--out")
        .arg(&again)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(std::fs::read(again.join("sep_s1.txt")).unwrap(), std::fs::read(out.join("sep_s1.txt")).unwrap());
}

/// The MCP tools through the official Python SDK (`tests/mcp/screen_client.py`).
#[test]
fn mcp_screen_tools_with_the_python_sdk() {
    let Some(sep) = shared_data("synergy/Sep_2021") else { return };
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut pythonpath = root.join("target/pydeps").into_os_string();
    pythonpath.push(":");
    pythonpath.push(root.join("tests/mcp"));
    let probe =
        std::process::Command::new("python3").args(["-c", "import mcp"]).env("PYTHONPATH", &pythonpath).output();
    if !probe.is_ok_and(|o| o.status.success()) {
        crate::common::skip(
            crate::common::Need::McpClient,
            "the MCP Python SDK is not importable (python3 -m pip install --target target/pydeps mcp==2.3.0)",
        );
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let db = ingest(dir.path(), &sep);
    let labels = sep.join("labels.csv");
    ok(&db, &["screen", "new", "sep", "--ids-from", labels.to_str().unwrap()]);
    let text = std::fs::read_to_string(&labels).unwrap();
    let first: Vec<&str> = text.lines().take(31).collect();
    let imp = dir.path().join("first.csv");
    std::fs::write(&imp, first.join("\n")).unwrap();
    ok(&db, &["screen", "import", "sep", imp.to_str().unwrap()]);
    let o = std::process::Command::new("python3")
        .arg(root.join("tests/mcp/screen_client.py"))
        .arg(env!("CARGO_BIN_EXE_litindex"))
        .arg(&db)
        .arg("sep")
        .env("PYTHONPATH", &pythonpath)
        .env_remove("LITINDEX_DB")
        .output()
        .unwrap();
    let (out, err) = (stdout(&o), stderr(&o));
    assert!(o.status.success(), "screen_client.py failed:\nstdout:\n{out}\nstderr:\n{err}");
    assert!(out.contains("all checks passed"), "{out}");
}

/// The screening page in headless Chromium (`tests/browser/screen.mjs`).
#[test]
fn the_screening_page_in_a_real_browser() {
    let Some(sep) = shared_data("synergy/Sep_2021") else { return };
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = root.join("tests/browser");
    let chromium = std::env::var_os("LITINDEX_CHROMIUM")
        .map_or_else(|| std::path::PathBuf::from("/usr/bin/chromium"), std::path::PathBuf::from);
    let node = std::process::Command::new("node").arg("--version").output().is_ok_and(|o| o.status.success());
    if !node || !chromium.is_file() || !dir.join("node_modules/playwright-core").is_dir() {
        crate::common::skip(
            crate::common::Need::Browser,
            "the screening browser test needs node, Chromium and playwright-core (npm ci in tests/browser)",
        );
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let db = ingest(tmp.path(), &sep);
    let labels = sep.join("labels.csv");
    ok(&db, &["screen", "new", "sep", "--ids-from", labels.to_str().unwrap()]);
    let text = std::fs::read_to_string(&labels).unwrap();
    let imp = tmp.path().join("first.csv");
    std::fs::write(&imp, text.lines().take(31).collect::<Vec<_>>().join("\n")).unwrap();
    ok(&db, &["screen", "import", "sep", imp.to_str().unwrap()]);
    let server = crate::serve::Server::start(&db, &["--allow-writes"]);
    let out = root.join("target/browser-test/screen");
    let run = std::process::Command::new("node")
        .arg(dir.join("screen.mjs"))
        .arg(server.url())
        .arg("sep")
        .arg(&out)
        .env("LITINDEX_CHROMIUM", &chromium)
        .output()
        .unwrap();
    let so = String::from_utf8_lossy(&run.stdout);
    assert!(run.status.success(), "screen.mjs failed:\n{so}\n{}", String::from_utf8_lossy(&run.stderr));
    let done: Value = serde_json::from_str(so.lines().last().unwrap_or("")).unwrap();
    drop(server);
    let csv = ok(&db, &["screen", "export", "sep", "--format", "csv"]);
    let line = |id: &str| csv.lines().find(|l| l.starts_with(&format!("{id},"))).map(String::from);
    assert!(line(done["included"].as_str().unwrap()).unwrap().contains(",include,"), "{csv}");
    assert!(line(done["excluded"].as_str().unwrap()).unwrap().contains(",exclude,"), "{csv}");
    assert!(line(done["skipped"].as_str().unwrap()).is_none(), "a skipped candidate stays undecided");
}

/// A long-lived process's kept models (`screen::next::Models`, the page's and
/// MCP's): decisions made by another process are followed without a rebuild
/// (they leave the index's generation alone, as a mark does), and an ingest
/// that changes a candidate's text moves the generation on and is seen.
#[test]
fn kept_models_follow_decisions_and_rebuild_after_an_ingest() {
    use crate::common::{Paper, build_papers};
    use litindex::screen::next::{Models, model};
    use litindex::screen::{SvmParams, Weights};

    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("k.db");
    let topic = |t: &str, i: usize| -> Paper {
        let (title, abs) = if t == "a" {
            ("sparse attention transformers", "sparse attention heads route tokens in long transformers")
        } else {
            ("protein folding kinetics", "folding pathways of small proteins measured by kinetics")
        };
        Paper { id: format!("{t}{i}"), title: format!("{title} {i}"), abstract_: abs.into(), ..Paper::default() }
    };
    let papers: Vec<Paper> = (0..12).flat_map(|i| [topic("a", i), topic("b", i)]).collect();
    let store = build_papers(&db, &papers, litindex::bm25::Bm25::default());
    ok(&db, &["screen", "new", "r", "--all"]);
    ok(&db, &["screen", "label", "r", "a0", "include"]);
    ok(&db, &["screen", "label", "r", "b0", "exclude"]);
    let ids = |p: Vec<litindex::screen::next::Proposal>| -> Vec<String> { p.into_iter().map(|p| p.given_id).collect() };
    let (w, s) = (Weights::default(), SvmParams::default());
    let models = Models::default();
    let kept = models.with(&store, "r", w, s, |m| m.next(&store, 30)).unwrap();
    assert_eq!(ids(kept.clone()), ids(model(&store, "r", w, s).unwrap().next(&store, 30).unwrap()));
    assert!(kept[..11].iter().all(|p| p.given_id.starts_with('a')), "{:?}", ids(kept));

    let generation = store.generation().unwrap();
    ok(&db, &["screen", "label", "r", "a1", "include"]);
    ok(&db, &["screen", "label", "r", "b1", "exclude"]);
    ok(&db, &["mark", "a2", "favorite"]);
    assert_eq!(store.generation().unwrap(), generation, "decisions and marks are not content");
    let kept = ids(models.with(&store, "r", w, s, |m| m.next(&store, 30)).unwrap());
    assert_eq!(kept.len(), 20, "the two new decisions are followed: {kept:?}");
    assert!(!kept.iter().any(|id| id == "a1" || id == "b1"));
    assert!(kept[..10].iter().all(|id| id.starts_with('a')), "{kept:?}");

    // b5's text becomes topic a's: only a rebuilt model ranks it with them.
    let changed = dir.path().join("changed.jsonl");
    let b5 = Paper { id: "b5".into(), ..topic("a", 5) };
    std::fs::write(&changed, serde_json::to_string(&b5).unwrap()).unwrap();
    ok(&db, &["ingest", "-q", "--format", "paper", changed.to_str().unwrap()]);
    assert_ne!(store.generation().unwrap(), generation, "an ingest is content");
    let kept = models.with(&store, "r", w, s, |m| m.next(&store, 30)).unwrap();
    let at = kept.iter().position(|p| p.given_id == "b5").unwrap();
    assert!(kept[at].top_terms.iter().any(|(t, _)| t == "attention"), "{:?}", kept[at]);
    assert!(at < 11, "b5 now reads as topic a: {:?}", ids(kept));
}
