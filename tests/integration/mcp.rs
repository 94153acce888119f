//! `litindex mcp`: the real binary over pipes, spoken to in JSON-RPC
//! (initialize, tools/list, tools/call), and the official MCP Python SDK
//! (`tests/mcp/client.py`) as an independent client.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

use serde_json::{Value, json};

use crate::common::{data_required, litindex, shared_data, stderr, stdout};

mod agent;
mod hostile;
mod inspector;

/// A server process and its two pipes; every stdout line is kept.
struct Server {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    next_id: u64,
}

impl Server {
    fn start(db: &Path, extra: &[&str]) -> Server {
        let mut child = litindex()
            .current_dir(db.parent().unwrap())
            .arg("--db")
            .arg(db)
            .arg("mcp")
            .args(extra)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start litindex mcp");
        let stdin = child.stdin.take().unwrap();
        let out = child.stdout.take().unwrap();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut s = Server { child, stdin, lines, next_id: 1 };
        let init = s.request(
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "litindex-test", "version": "0"}}),
        );
        assert_eq!(init["result"]["serverInfo"]["name"], "litindex", "{init}");
        assert!(init["result"]["capabilities"]["tools"].is_object(), "{init}");
        s.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string());
        s
    }

    fn send(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// The next stdout line, which must be a JSON-RPC 2.0 message.
    fn read(&mut self) -> Value {
        let line = self.lines.recv_timeout(Duration::from_secs(60)).expect("the server answered within 60 s");
        let v: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {line}"));
        assert_eq!(v["jsonrpc"], "2.0", "{line}");
        v
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string());
        loop {
            let v = self.read();
            if v["id"] == json!(id) {
                return v;
            }
        }
    }

    /// tools/call: the result (asserting it is one, not a protocol error).
    fn call(&mut self, tool: &str, args: Value) -> Value {
        let v = self.request("tools/call", json!({"name": tool, "arguments": args}));
        assert!(v.get("error").is_none(), "{tool}: a protocol error instead of a result: {v}");
        v["result"].clone()
    }

    /// A successful call's structured result, checked against its text fallback.
    fn ok(&mut self, tool: &str, args: Value) -> Value {
        let r = self.call(tool, args.clone());
        assert_ne!(r["isError"], json!(true), "{tool} {args}: {r}");
        let text: Value = serde_json::from_str(r["content"][0]["text"].as_str().unwrap()).unwrap();
        assert_eq!(text, r["structuredContent"], "the text fallback is the structured result");
        r["structuredContent"].clone()
    }

    /// A failed call's one-line message.
    fn tool_error(&mut self, tool: &str, args: Value) -> String {
        let r = self.call(tool, args.clone());
        assert_eq!(r["isError"], json!(true), "{tool} {args} should be a tool error: {r}");
        let text = r["content"][0]["text"].as_str().unwrap().to_string();
        assert_eq!(text.lines().count(), 1, "one line: {text}");
        text
    }

    fn tool_names(&mut self) -> Vec<String> {
        let v = self.request("tools/list", json!({}));
        v["result"]["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap().to_string()).collect()
    }

    /// Closes stdin and waits: the server exits 0 and printed no panic.
    fn finish(mut self) {
        drop(self.stdin);
        let status = self.child.wait().unwrap();
        let mut err = String::new();
        std::io::Read::read_to_string(self.child.stderr.as_mut().unwrap(), &mut err).unwrap();
        assert!(status.success(), "mcp exited {status:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}

fn build_mock(dir: &Path) -> PathBuf {
    let db = dir.join("mock.db");
    let o = litindex().current_dir(dir).arg("--db").arg(&db).arg("build").output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    db
}

/// The CLI's JSON for `args` on `db`.
fn cli_json(db: &Path, args: &[&str]) -> Value {
    let o = litindex().arg("--db").arg(db).args(args).output().unwrap();
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    serde_json::from_str(&stdout(&o)).unwrap()
}

/// The CLI's error line for `args`, without `litindex: error: `.
fn cli_error(db: &Path, args: &[&str]) -> String {
    let o = litindex().arg("--db").arg(db).args(args).output().unwrap();
    assert!(!o.status.success());
    stderr(&o).trim().trim_start_matches("litindex: error: ").to_string()
}

fn ids(list: &Value) -> Vec<String> {
    list.as_array().unwrap().iter().map(|h| h["id"].as_str().unwrap().to_string()).collect()
}

const READ_TOOLS: [&str; 18] = [
    "context",
    "describe_index",
    "export",
    "gaps",
    "get_paper",
    "get_papers",
    "get_passage",
    "list_marks",
    "list_watches",
    "neighbors",
    "related",
    "screen_next",
    "screen_status",
    "search_papers",
    "search_passages",
    "verify_citations",
    "watch_new",
    "why",
];

#[test]
fn mcp_lists_the_read_tools_and_answers_as_the_cli_does() {
    let dir = tempfile::tempdir().unwrap();
    let db = build_mock(dir.path());
    let mut s = Server::start(&db, &[]);
    let tools = s.request("tools/list", json!({}));
    let tools = tools["result"]["tools"].as_array().unwrap().clone();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, READ_TOOLS, "read-only by default: mark/unmark not listed");
    for t in &tools {
        assert_eq!(t["inputSchema"]["type"], "object", "{t}");
        assert!(t["description"].as_str().is_some_and(|d| !d.is_empty()));
        assert_eq!(t["annotations"]["readOnlyHint"], true, "{t}");
    }
    let search = tools.iter().find(|t| t["name"] == "search_papers").unwrap();
    for arg in [
        "query",
        "limit",
        "mode",
        "author",
        "year",
        "venue",
        "must",
        "not",
        "hops",
        "fan_out",
        "feedback",
        "show_excluded",
        "cursor",
        "max_tokens",
    ] {
        assert!(search["inputSchema"]["properties"][arg].is_object(), "search_papers takes {arg}: {search}");
    }

    // search_papers: the CLI's ranking, in pages.
    let cli = cli_json(&db, &["search", "sparse attention", "--format", "json", "--limit", "6"]);
    let want = ids(&cli["ranked"]);
    assert_eq!(want.len(), 6, "the mock corpus has 6 hits for the query: {cli}");
    let first = s.ok("search_papers", json!({"query": "sparse attention", "limit": 3}));
    assert_eq!(ids(&first["ranked"]), want[..3]);
    assert_eq!(first["ranked"][0]["final_score"], cli["ranked"][0]["final_score"]);
    assert_eq!(first["truncated"], false);
    let cursor = first["next_cursor"].as_str().expect("a next_cursor when more hits follow").to_string();
    let second = s.ok("search_papers", json!({"query": "sparse attention", "limit": 3, "cursor": cursor}));
    assert_eq!(ids(&second["ranked"]), want[3..6]);
    assert_eq!(second["offset"], 3);
    // A cursor continues only its own call.
    let e = s.tool_error("search_papers", json!({"query": "graph", "limit": 3, "cursor": cursor}));
    assert!(e.contains("belongs to another call"), "{e}");

    // Filters reach the search as the CLI's flags.
    let cli = cli_json(&db, &["search", "attention", "--format", "json", "--year", "2021..", "--limit", "10"]);
    let got = s.ok("search_papers", json!({"query": "attention", "year": "2021.."}));
    assert_eq!(ids(&got["ranked"]), ids(&cli["ranked"]));
    assert!(got["ranked"].as_array().unwrap().iter().all(|h| h["year"].as_i64().unwrap() >= 2021));

    // get_paper, neighbors, related, gaps: the CLI's answers.
    let paper = s.ok("get_paper", json!({"id": "p001"}));
    let cli = cli_json(&db, &["paper", "p001", "--format", "json"]);
    assert_eq!(paper["title"], cli["title"]);
    assert_eq!(
        ids(&paper["references"]),
        cli["references"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect::<Vec<_>>()
    );
    assert_eq!(paper["references_total"], cli["references"].as_array().unwrap().len());
    let hood = s.ok("neighbors", json!({"id": "p001", "hops": 2}));
    let cli = cli_json(&db, &["neighbors", "p001", "--hops", "2", "--format", "json"]);
    let strip = |nodes: &Value| -> Vec<Value> {
        nodes.as_array().unwrap().iter().map(|n| json!([n["id"], n["distance"], n["indexed"]])).collect()
    };
    assert_eq!(strip(&hood["nodes"]), strip(&cli["nodes"]), "the CLI's nodes (MCP adds titles)");
    assert_eq!(hood["total"], cli["nodes"].as_array().unwrap().len());
    let rel = s.ok("related", json!({"ids": ["p001"], "limit": 5}));
    let cli = cli_json(&db, &["related", "p001", "--limit", "5", "--format", "json"]);
    assert_eq!(ids(&rel["related"]), ids(&cli["related"]));
    let gaps = s.ok("gaps", json!({}));
    let cli = cli_json(&db, &["gaps", "--all", "--format", "json"]);
    assert_eq!(gaps["gaps"], cli);
    s.finish();
}

/// Page 2 of `search_papers` (limit 10, through the cursor) is hits 11 to 20
/// of one CLI search of limit 20, every field but the wall time (snippets
/// included: the page builds its own), on a `gen` index of 1,500 papers.
#[test]
fn mcp_page_two_is_hits_11_to_20_of_one_search_of_limit_20() {
    let dir = tempfile::tempdir().unwrap();
    let o = litindex().args(["gen", "--papers", "1500", "--seed", "5"]).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let corpus = dir.path().join("corpus.jsonl");
    std::fs::write(&corpus, &o.stdout).unwrap();
    let db = dir.path().join("gen.db");
    let o = litindex().arg("--db").arg(&db).args(["build", "--quiet", "--jsonl"]).arg(&corpus).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let strip = |hits: &Value| -> Vec<Value> { hits.as_array().unwrap().clone() };
    let mut s = Server::start(&db, &[]);
    let mut checked = 0;
    for query in ["nu male", "bam da", "gi spytkaph", "ka ta"] {
        let cli = cli_json(&db, &["search", "--format", "json", "--limit", "20", "--", query]);
        let want = strip(&cli["ranked"]);
        if want.len() < 20 {
            continue;
        }
        let args = json!({"query": query, "limit": 10, "max_tokens": 100000});
        let first = s.ok("search_papers", args.clone());
        assert_eq!(first["truncated"], false, "{first}");
        assert_eq!(strip(&first["ranked"]), want[..10], "{query}: page 1");
        let mut next = args;
        next["cursor"] = first["next_cursor"].clone();
        let second = s.ok("search_papers", next);
        assert_eq!(second["offset"], 10);
        assert_eq!(strip(&second["ranked"]), want[10..], "{query}: page 2 is hits 11 to 20");
        assert!(want[10..].iter().any(|h| !h["snippet"].as_str().unwrap().is_empty()), "{query}: with snippets");
        assert_eq!(second["hit_count"], cli["hit_count"]);
        checked += 1;
    }
    assert!(checked >= 2, "queries with two pages: {checked}");
    s.finish();
}

#[test]
fn mcp_budget_truncates_whole_items_and_the_cursor_gets_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let db = build_mock(dir.path());
    let mut s = Server::start(&db, &[]);
    let all = s.ok("search_papers", json!({"query": "attention", "limit": 20}));
    let all_ids = ids(&all["ranked"]);
    assert!(all_ids.len() >= 4, "{all}");
    // A budget that holds a few hits only: whole hits, a note, a cursor.
    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..all_ids.len() {
        let mut args = json!({"query": "attention", "limit": 20, "max_tokens": 1500});
        if let Some(c) = &cursor {
            args["cursor"] = json!(c);
        }
        let page = s.ok("search_papers", args);
        let got = ids(&page["ranked"]);
        assert!(!got.is_empty());
        let len = serde_json::to_string(&page).unwrap().len();
        assert!(len <= 1500 * 4, "{len} chars for {} hits: max_tokens is a hard cap", got.len());
        seen.extend(got);
        cursor = page["next_cursor"].as_str().map(str::to_string);
        if cursor.is_none() || seen.len() >= all_ids.len() {
            break;
        }
        assert!(page["note"].as_str().unwrap().contains("next_cursor"));
    }
    // (more hits follow the first 20: the pages go on; the first 20 are compared)
    assert_eq!(seen[..all_ids.len()], all_ids, "the pages together are the list, in order, once");
    s.finish();
}

#[test]
fn mcp_bad_arguments_are_tool_errors_with_the_library_message_and_the_server_keeps_serving() {
    let dir = tempfile::tempdir().unwrap();
    let db = build_mock(dir.path());
    let mut s = Server::start(&db, &[]);
    // The library's line for a bad value (the CLI's ends with it) and an unknown id.
    let e = s.tool_error("search_papers", json!({"query": "attention", "hops": 7}));
    assert!(e.starts_with("hops 7 is out of range for search"), "{e}");
    assert!(cli_error(&db, &["search", "attention", "--hops", "7"]).ends_with(&e), "{e}");
    let e = s.tool_error("get_paper", json!({"id": "no-such-paper"}));
    assert_eq!(e, cli_error(&db, &["paper", "no-such-paper"]));
    let e = s.tool_error("search_papers", json!({"query": "year:20x1"}));
    assert_eq!(e, cli_error(&db, &["search", "year:20x1"]));
    // Malformed (wrong type, unknown value, missing) and oversized arguments.
    // (serde's message names the bad value and the type wanted, not the field)
    // (a number given as a string is read as the number; a word is not)
    let e = s.tool_error("search_papers", json!({"query": "a", "hops": "two"}));
    assert!(e.contains("invalid value") && e.contains("two") && e.contains("whole number"), "{e}");
    let e = s.tool_error("search_papers", json!({"query": "a", "hops": [1]}));
    assert!(e.contains("invalid type"), "{e}");
    assert!(s.tool_error("search_papers", json!({"query": "a", "mode": "psychic"})).contains("psychic"));
    assert!(s.tool_error("neighbors", json!({})).contains("id"));
    let e = s.tool_error("search_papers", json!({"query": "x".repeat(5000)}));
    assert!(e.contains("at most 4096"), "{e}");
    let many: Vec<String> = (0..101).map(|i| format!("p{i:03}")).collect();
    assert!(s.tool_error("related", json!({"ids": many})).contains("at most 100"));
    assert!(s.tool_error("search_papers", json!({"query": "a", "max_tokens": 10})).contains("max_tokens"));
    assert!(s.tool_error("search_papers", json!({"query": "a", "limit": 0})).contains("limit"));
    assert!(
        s.tool_error("search_papers", json!({"query": "a", "cursor": "not-a-cursor"})).contains("malformed cursor")
    );
    // Protocol garbage: the server still serves. (rmcp's stdio transport
    // drops a line it cannot decode without answering it: `request` skips
    // nothing here, so the next answer is the next request's.)
    s.send("this is not JSON-RPC {");
    s.send("{\"jsonrpc\": \"2.0\", \"id\": \"x\", \"method\": 12}");
    let v = s.request("no/such/method", json!({}));
    assert!(v["error"]["code"].is_i64(), "{v}");
    assert_eq!(s.tool_names(), READ_TOOLS);
    assert!(!ids(&s.ok("search_papers", json!({"query": "attention"}))["ranked"]).is_empty());
    s.finish();
}

#[test]
fn mcp_writes_only_with_allow_writes() {
    let dir = tempfile::tempdir().unwrap();
    let db = build_mock(dir.path());
    let marks = |db: &Path| cli_json(db, &["marks", "--format", "json"]);
    let before = marks(&db);
    let mut s = Server::start(&db, &[]);
    let e = s.tool_error("mark", json!({"ids": ["p001"], "label": "exclude"}));
    assert!(e.contains("--allow-writes"), "{e}");
    let e = s.tool_error("unmark", json!({"ids": ["p001"]}));
    assert!(e.contains("--allow-writes"), "{e}");
    s.finish();
    assert_eq!(marks(&db), before, "a refused write changed nothing");

    let mut s = Server::start(&db, &["--allow-writes"]);
    let names = s.tool_names();
    assert!(names.contains(&"mark".to_string()) && names.contains(&"unmark".to_string()), "{names:?}");
    let hits = ids(&s.ok("search_papers", json!({"query": "sparse attention"}))["ranked"]);
    let top = hits[0].clone();
    let r = s.ok("mark", json!({"ids": [top], "label": "exclude", "note": "off topic"}));
    assert!(r["message"].as_str().unwrap().contains(&top), "{r}");
    assert!(marks(&db).to_string().contains(&top), "the CLI sees the mark");
    let after = ids(&s.ok("search_papers", json!({"query": "sparse attention"}))["ranked"]);
    assert!(!after.contains(&top), "an excluded paper is no longer shown: {after:?}");
    let e = s.tool_error("mark", json!({"ids": ["no-such-paper"], "label": "read"}));
    assert_eq!(e, cli_error(&db, &["mark", "no-such-paper", "read"]));
    s.ok("unmark", json!({"ids": [top]}));
    assert_eq!(ids(&s.ok("search_papers", json!({"query": "sparse attention"}))["ranked"]), hits);
    s.finish();
}

#[test]
fn mcp_holds_no_lock_while_idle_an_ingest_runs_and_its_papers_are_seen() {
    let dir = tempfile::tempdir().unwrap();
    let db = build_mock(dir.path());
    let mut s = Server::start(&db, &[]);
    assert_eq!(s.ok("search_papers", json!({"query": "zymurgy"}))["ranked"], json!([]));
    let file = dir.path().join("new.jsonl");
    let paper =
        json!({"id": "new001", "title": "Zymurgy of sparse attention", "abstract": "Brewing kinetics.", "year": 2024});
    std::fs::write(&file, format!("{paper}\n")).unwrap();
    // The server is up and has answered: a writer gets the lock at once.
    let o = litindex()
        .arg("--db")
        .arg(&db)
        .args(["ingest", "--quiet"])
        .arg(&file)
        .env("LITINDEX_BUSY_TIMEOUT_MS", "0")
        .output()
        .unwrap();
    assert!(o.status.success(), "ingest beside a running server: {}", stderr(&o));
    let hits = s.ok("search_papers", json!({"query": "zymurgy"}));
    assert_eq!(ids(&hits["ranked"]), ["new001"]);
    s.finish();
}

/// The official MCP Python SDK as the client (`tests/mcp/client.py`).
#[test]
fn mcp_python_sdk_client() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let pydeps = root.join("target/pydeps");
    let mut pythonpath = pydeps.into_os_string();
    if let Some(p) = std::env::var_os("PYTHONPATH") {
        pythonpath.push(":");
        pythonpath.push(p);
    }
    let probe = Command::new("python3").args(["-c", "import mcp"]).env("PYTHONPATH", &pythonpath).output();
    if !probe.is_ok_and(|o| o.status.success()) {
        let must = data_required() || std::env::var("LITINDEX_REQUIRE_MCP_CLIENT").is_ok_and(|v| v == "1");
        let what = "the MCP Python SDK is not importable (python3 -m pip install --target target/pydeps mcp==2.3.0)";
        assert!(!must, "LITINDEX_REQUIRE_DATA=1 or LITINDEX_REQUIRE_MCP_CLIENT=1, but {what}");
        eprintln!("skipping: {what}");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let db = build_mock(dir.path());
    // One real PDF, so the full-text tools have passages to return.
    let pdf = shared_data("pdfs").map(|p| p.join("cermine_test1.pdf"));
    let o = Command::new("python3")
        .arg(root.join("tests/mcp/client.py"))
        .arg(env!("CARGO_BIN_EXE_litindex"))
        .arg(&db)
        .args(pdf.iter())
        .env("PYTHONPATH", &pythonpath)
        .env_remove("LITINDEX_DB")
        .output()
        .unwrap();
    let (out, err) = (stdout(&o), stderr(&o));
    assert!(o.status.success(), "client.py failed:\nstdout:\n{out}\nstderr:\n{err}");
    assert!(out.contains("all checks passed"), "{out}");
}

#[test]
fn mcp_exports_packs_and_checks_citations_as_the_cli_does() {
    let dir = tempfile::tempdir().unwrap();
    let db = build_mock(dir.path());
    let mut s = Server::start(&db, &[]);

    // export: the text of `litindex export`, and a budget it must fit.
    let cli = std::process::Command::new(env!("CARGO_BIN_EXE_litindex"))
        .args(["--db", db.to_str().unwrap(), "export", "p001", "p002", "--format", "bibtex"])
        .output()
        .unwrap();
    assert!(cli.status.success());
    let bib = s.ok("export", json!({"ids": ["p001", "p002"]}));
    assert_eq!(bib["text"].as_str().unwrap(), String::from_utf8(cli.stdout).unwrap());
    assert_eq!(bib["format"], "bibtex");
    let ris = s.ok("export", json!({"ids": ["p001"], "format": "ris"}));
    assert!(ris["text"].as_str().unwrap().starts_with("TY  - "), "{ris}");
    let e = s.tool_error("export", json!({"ids": ["p001", "p002", "p003"], "max_tokens": 100}));
    assert!(e.contains("over max_tokens"), "{e}");
    let e = s.tool_error("export", json!({"ids": ["no-such-paper"]}));
    assert!(e.contains("no-such-paper"), "{e}");

    // context: the CLI's pack.
    let want =
        cli_json(&db, &["context", "sparse attention", "--k", "3", "--budget-tokens", "4000", "--format", "json"]);
    let pack = s.ok("context", json!({"question": "sparse attention", "k": 3}));
    assert_eq!(pack, want);
    assert_eq!(pack["sources"][0]["number"], 1);

    // verify_citations: an answer citing [1] is judged; one citing [9] is
    // reported outside the pack, with the CLI's error line beside the report.
    let first = pack["sources"][0]["sentences"][0].as_str().unwrap().to_string();
    let ok = s.ok("verify_citations", json!({"answer": format!("{first} [1]"), "pack": pack}));
    assert_eq!(ok["citing_sentences"], 1, "{ok}");
    assert_eq!(ok["outside_pack"], 0, "{ok}");
    assert_eq!(ok["checks"][0]["judgment"], "supported", "the pack's own sentence supports itself: {ok}");
    assert!(ok.get("error").is_none(), "{ok}");
    let out = s.ok("verify_citations", json!({"answer": "Something else [9].", "pack": pack}));
    assert_eq!(out["outside_pack"], 1, "{out}");
    assert!(out["error"].as_str().unwrap().contains("outside the pack"), "{out}");
    let e = s.tool_error("verify_citations", json!({"answer": "x [1]", "pack": "not a pack"}));
    assert!(e.contains("pack must be"), "{e}");
}

/// The full-text tools on a real PDF: passages with pages, one passage by
/// id, why; bad arguments are tool errors.
#[test]
fn mcp_full_text_tools_read_a_real_pdf() {
    let Some(pdfs) = shared_data("pdfs") else { return };
    let dir = tempfile::tempdir().unwrap();
    let db = build_mock(dir.path());
    let o = litindex().arg("--db").arg(&db).arg("ingest").arg(pdfs.join("cermine_test1.pdf")).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let mut s = Server::start(&db, &[]);
    let found = s.ok("search_passages", json!({"query": "pulmonary embolism", "limit": 3}));
    let cli = cli_json(&db, &["search", "--passages", "pulmonary embolism", "--limit", "3", "--format", "json"]);
    let ids = |v: &Value, key: &str| -> Vec<i64> {
        v[key].as_array().unwrap().iter().map(|h| h["passage"].as_i64().unwrap()).collect()
    };
    assert_eq!(ids(&found, "passages"), ids(&cli, "hits"), "MCP pages the CLI's passages");
    assert_eq!(found["total"], cli["total"]);
    let top = found["passages"][0].clone();
    assert!(top["title"].as_str().unwrap().contains("venous thrombosis"), "{top}");
    let one = s.ok("get_passage", json!({"passage": top["passage"]}));
    assert_eq!((one["text"].clone(), one["page_first"].clone()), (top["text"].clone(), top["page_first"].clone()));
    let paper = top["paper_id"].as_str().unwrap();
    let why = s.ok("why", json!({"citing": paper, "cited": "p001"}));
    assert_eq!(why["verdict"], "not-cited", "{why}");
    assert!(why["reference_entries"].as_u64().unwrap() > 0, "{why}");
    assert!(s.tool_error("get_passage", json!({"passage": 999_999})).contains("no passage 999999"));
    assert!(s.tool_error("search_passages", json!({"query": " "})).contains("empty"));
    assert!(s.tool_error("why", json!({"citing": "no-such", "cited": "p001"})).contains("no-such"));
    s.finish();
}
