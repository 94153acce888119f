//! What an agent needs of the MCP server (issue 27): titles beside every id,
//! a batch lookup, the marks read back, the index described, an output
//! schema for every tool, ranges in the input schemas, numbers given as
//! strings, `max_tokens` as a hard cap on what is sent, a JSON-RPC error
//! for a request line over the limit, the protocol versions negotiated, and
//! the walk's fan-out as the CLI takes it.

use serde_json::{Value, json};

use super::{READ_TOOLS, Server, build_mock, cli_error, cli_json, ids};

/// The text block a tool's result sends (the JSON of its structured result).
fn sent(r: &Value) -> usize {
    r["content"][0]["text"].as_str().unwrap().len()
}

#[test]
fn mcp_ids_come_with_titles_batches_marks_and_the_index_described() {
    let dir = tempfile::tempdir().unwrap();
    let db = build_mock(dir.path());
    let mut s = Server::start(&db, &["--allow-writes"]);

    // get_paper: each reference and citation with its title, year and first author.
    let paper = s.ok("get_paper", json!({"id": "p001"}));
    let refs = paper["references"].as_array().unwrap();
    assert!(!refs.is_empty(), "{paper}");
    for r in refs.iter().chain(paper["citations"].as_array().unwrap()) {
        let id = r["id"].as_str().unwrap();
        if r["indexed"] == json!(true) {
            let cli = cli_json(&db, &["paper", id, "--format", "json"]);
            assert_eq!(r["title"], cli["title"], "{r}");
            assert_eq!(r["year"], cli["year"], "{r}");
            assert_eq!(r["first_author"], cli["authors"][0], "{r}");
        } else {
            assert_eq!(r["title"], Value::Null, "a dangling id has no title: {r}");
        }
    }
    // neighbors: every node titled.
    let hood = s.ok("neighbors", json!({"id": "p001", "hops": 1}));
    let p002 = hood["nodes"].as_array().unwrap().iter().find(|n| n["id"] == "p002").expect("p001 cites p002");
    assert_eq!(p002["title"], cli_json(&db, &["paper", "p002", "--format", "json"])["title"]);

    // get_papers: the batch, unknown ids listed, repeats once.
    let batch = s.ok("get_papers", json!({"ids": ["p003", "no-such", "p001", "p003"]}));
    assert_eq!(ids(&batch["papers"]), ["p003", "p001"]);
    assert_eq!(batch["unknown"], json!(["no-such"]));
    let one = cli_json(&db, &["paper", "p001", "--format", "json"]);
    assert_eq!(batch["papers"][1]["abstract"], one["abstract"]);
    assert_eq!(batch["papers"][1]["references_total"], one["references"].as_array().unwrap().len());
    let many: Vec<String> = (0..101).map(|i| format!("p{i:03}")).collect();
    assert!(s.tool_error("get_papers", json!({"ids": many})).contains("at most 100"));
    // The whole corpus in pages a small budget cuts, gathered by the cursor.
    let all: Vec<String> = (1..=100).map(|i| format!("p{i:03}")).collect();
    let (mut seen, mut cursor) = (Vec::new(), None::<String>);
    loop {
        let mut args = json!({"ids": all, "max_tokens": 2000});
        if let Some(c) = &cursor {
            args["cursor"] = json!(c);
        }
        let r = s.call("get_papers", args);
        assert!(sent(&r) <= 2000 * 4, "{}", sent(&r));
        let page = r["structuredContent"].clone();
        seen.extend(ids(&page["papers"]));
        match page["next_cursor"].as_str() {
            Some(c) => cursor = Some(c.to_string()),
            None => break,
        }
    }
    assert_eq!(seen, all, "the pages hold every paper once, in order");

    // list_marks: what mark wrote, read back with titles; filters.
    assert_eq!(s.ok("list_marks", json!({}))["total"], 0);
    s.ok("mark", json!({"ids": ["p002"], "label": "favorite", "note": "the key paper"}));
    s.ok("mark", json!({"ids": ["p005"], "tags": ["later"]}));
    let marks = s.ok("list_marks", json!({}));
    assert_eq!(marks["total"], 2, "{marks}");
    let fav = &marks["marks"][0];
    assert_eq!((fav["stored_id"].as_str(), fav["labels"][0]["label"].as_str()), (Some("p002"), Some("favorite")));
    assert_eq!(fav["labels"][0]["note"], "the key paper");
    assert_eq!(fav["title"], p002["title"]);
    let tagged = s.ok("list_marks", json!({"tag": "later"}));
    assert_eq!(tagged["marks"].as_array().unwrap().len(), 1);
    assert_eq!(tagged["marks"][0]["tags"], json!(["later"]));
    assert_eq!(s.ok("list_marks", json!({"label": "exclude"}))["total"], 0);

    // describe_index: the counts `stats` gives, the modes, the marks.
    let d = s.ok("describe_index", json!({}));
    let stats = cli_json(&db, &["stats", "--format", "json"]);
    for k in ["papers", "edges", "dangling_edges", "analyzer", "year_min", "year_max"] {
        assert_eq!(d[k], stats[k], "{k}: {d}");
    }
    assert_eq!(d["model"], Value::Null, "the mock index has no vectors");
    assert_eq!(d["modes"], json!(["bm25"]));
    assert_eq!(d["marks"]["favorite"], 1);
    assert_eq!(d["writes_allowed"], true);
    assert!(d["tools"]["search_papers"].as_str().unwrap().contains("no vectors"), "{d}");
    s.finish();
}

#[test]
fn mcp_schemas_declare_outputs_ranges_and_enums_and_numbers_may_be_strings() {
    let dir = tempfile::tempdir().unwrap();
    let db = build_mock(dir.path());
    let mut s = Server::start(&db, &["--allow-writes"]);
    let tools = s.request("tools/list", json!({}))["result"]["tools"].as_array().unwrap().clone();
    assert_eq!(
        tools.len(),
        READ_TOOLS.len() + 6,
        "the read tools, mark, unmark, screen_label, watch_add, watch_check and watch_remove"
    );
    for t in &tools {
        assert_eq!(t["outputSchema"]["type"], "object", "every tool declares its output: {t}");
    }
    let tool = |name: &str| tools.iter().find(|t| t["name"] == name).unwrap()["inputSchema"]["properties"].clone();
    let search = tool("search_papers");
    assert_eq!((search["limit"]["minimum"].as_u64(), search["limit"]["maximum"].as_u64()), (Some(1), Some(50)));
    assert_eq!((search["hops"]["minimum"].as_u64(), search["hops"]["maximum"].as_u64()), (Some(0), Some(2)));
    assert_eq!(search["max_tokens"]["minimum"], 100);
    assert!(search.to_string().contains("hybrid"), "the modes are an enum: {search}");
    assert_eq!(tool("neighbors")["limit"]["maximum"], 500);
    assert_eq!(tool("neighbors")["hops"]["maximum"], 10);
    assert_eq!(tool("get_papers")["ids"]["maxItems"], 100);
    assert!(tool("mark").to_string().contains("to-read"), "the labels are an enum");
    // The minimum said is the minimum enforced.
    assert!(s.tool_error("search_papers", json!({"query": "a", "limit": 0})).contains("use 1 to 50"));
    assert!(s.tool_error("search_papers", json!({"query": "a", "limit": 51})).contains("use 1 to 50"));

    // Numbers and booleans as strings (as the Inspector CLI sends them) are the numbers.
    let as_numbers = s.ok("search_papers", json!({"query": "sparse attention", "limit": 2, "hops": 1}));
    let as_strings = s.ok("search_papers", json!({"query": "sparse attention", "limit": "2", "hops": "1"}));
    assert_eq!(as_strings["ranked"], as_numbers["ranked"]);
    assert_eq!(as_strings["returned"], 2);
    let off = s.ok("search_papers", json!({"query": "sparse attention", "feedback": "false", "show_excluded": "true"}));
    assert!(off["ranked"].is_array());
    assert_eq!(s.ok("neighbors", json!({"id": "p001", "limit": "3"}))["returned"], 3);
    s.finish();
}

#[test]
fn mcp_max_tokens_is_a_hard_cap_on_what_is_sent() {
    let dir = tempfile::tempdir().unwrap();
    let db = build_mock(dir.path());
    let mut s = Server::start(&db, &[]);
    let calls = [
        ("search_papers", json!({"query": "attention", "limit": 50})),
        ("neighbors", json!({"id": "p001", "hops": 3, "limit": 500})),
        ("related", json!({"ids": ["p001"], "limit": 100})),
        ("gaps", json!({"limit": 100})),
        ("get_paper", json!({"id": "p002"})),
        ("get_papers", json!({"ids": ["p001", "p002", "p003", "p004", "p005", "p006"]})),
        ("context", json!({"question": "sparse attention", "k": 8})),
        ("export", json!({"ids": ["p001", "p002", "p003"]})),
    ];
    let mut fitted = 0;
    for (tool, args) in calls {
        for max in [100u64, 300, 500, 777, 2000] {
            let mut a = args.clone();
            a["max_tokens"] = json!(max);
            let r = s.call(tool, a);
            let text = r["content"][0]["text"].as_str().unwrap();
            if r["isError"] == json!(true) {
                // Over the budget at its smallest: said, with the budget it needs.
                assert!(
                    text.contains(&format!("max_tokens={max}")) || text.contains("over max_tokens"),
                    "{tool} {max}: {text}"
                );
                continue;
            }
            assert!(text.len() <= max as usize * 4, "{tool} max_tokens={max}: {} characters sent", text.len());
            let v: Value = serde_json::from_str(text).unwrap();
            if let Some(e) = v.get("estimated_tokens").filter(|_| tool != "context") {
                assert_eq!(e.as_u64().unwrap() as usize, text.len().div_ceil(4), "{tool}: the estimate is the measure");
            }
            fitted += 1;
        }
    }
    assert!(fitted >= 25, "most calls fit their budget: {fitted}");
    // The issue's two: max_tokens 300 and a pack of budget 500.
    let r = s.call("search_papers", json!({"query": "attention", "max_tokens": 300}));
    assert!(r["isError"] == json!(true) || sent(&r) <= 1200, "{r}");
    let r = s.call("context", json!({"question": "sparse attention", "max_tokens": 500}));
    assert!(sent(&r) <= 2000, "{}", sent(&r));
    s.finish();
}

#[test]
fn mcp_a_request_line_over_the_limit_gets_a_json_rpc_error_and_the_server_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let db = build_mock(dir.path());
    let mut s = Server::start(&db, &[]);
    // 17 MiB in one argument: over the 16 MiB cap.
    let big = "x".repeat(17 << 20);
    let line = json!({"jsonrpc": "2.0", "id": 4242, "method": "tools/call",
                      "params": {"name": "search_papers", "arguments": {"query": big}}});
    s.send(&line.to_string());
    let v = s.read();
    assert_eq!(v["id"], 4242, "the error answers the request: {v}");
    assert_eq!(v["error"]["code"], -32600, "{v}");
    assert!(v["error"]["message"].as_str().unwrap().contains("over the limit of 16777216 bytes"), "{v}");
    // The id at the end of the line (as a TypeScript client orders the fields).
    let tail = format!(
        r#"{{"method":"tools/call","params":{{"name":"search_papers","arguments":{{"query":"{big}"}}}},"jsonrpc":"2.0","id":"last"}}"#
    );
    s.send(&tail);
    let v = s.read();
    assert_eq!((v["id"].as_str(), v["error"]["code"].as_i64()), (Some("last"), Some(-32600)), "{v}");
    // Just under the cap: read, and refused by the argument's own limit.
    let under = "y".repeat((16 << 20) - 200);
    let e = s.tool_error("search_papers", json!({"query": under}));
    assert!(e.contains("at most 4096"), "{e}");
    assert!(!ids(&s.ok("search_papers", json!({"query": "attention"}))["ranked"]).is_empty());
    s.finish();
}

#[test]
fn mcp_negotiates_the_newest_protocol_with_and_without_initialize() {
    let dir = tempfile::tempdir().unwrap();
    let db = build_mock(dir.path());
    // initialize: the newest revision that has an initialize handshake.
    let init = |version: &str| {
        let mut child = crate::common::litindex()
            .arg("--db")
            .arg(&db)
            .arg("mcp")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let req = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                         "params": {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}});
        let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}});
        let inline = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                            "params": {"_meta": meta, "name": "describe_index", "arguments": {}}});
        let first = if version.is_empty() { inline } else { req };
        std::io::Write::write_all(child.stdin.as_mut().unwrap(), format!("{first}\n").as_bytes()).unwrap();
        drop(child.stdin.take());
        let out = child.wait_with_output().unwrap();
        let line = String::from_utf8(out.stdout).unwrap();
        serde_json::from_str::<Value>(line.lines().next().unwrap()).unwrap()
    };
    assert_eq!(init("2025-11-25")["result"]["protocolVersion"], "2025-11-25");
    assert_eq!(init("2025-06-18")["result"]["protocolVersion"], "2025-06-18", "an older client gets its own");
    assert_eq!(
        init("2026-07-28")["result"]["protocolVersion"],
        "2025-11-25",
        "2026-07-28 has no initialize: the handshake answers the newest that has one"
    );
    // 2026-07-28 itself: no handshake, the version in each request's _meta.
    let v = init("");
    assert_eq!(v["result"]["structuredContent"]["papers"], 100, "{v}");
}

#[test]
fn mcp_serves_paper_and_marks_resources_and_the_prior_art_prompt() {
    let dir = tempfile::tempdir().unwrap();
    let db = build_mock(dir.path());
    let o = crate::common::litindex().arg("--db").arg(&db).args(["mark", "p002", "favorite"]).output().unwrap();
    assert!(o.status.success());
    let mut s = Server::start(&db, &[]);
    let t = s.request("resources/templates/list", json!({}));
    let uris: Vec<&str> = t["result"]["resourceTemplates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["uriTemplate"].as_str().unwrap())
        .collect();
    assert_eq!(uris, ["paper://{id}", "marks://{label}"]);
    // paper://ID: the paper as `paper --format json` prints it.
    let r = s.request("resources/read", json!({"uri": "paper://p001"}));
    let c = &r["result"]["contents"][0];
    assert_eq!(c["mimeType"], "application/json");
    let paper: Value = serde_json::from_str(c["text"].as_str().unwrap()).unwrap();
    assert_eq!(paper, cli_json(&db, &["paper", "p001", "--format", "json"]));
    // marks://favorite: the favorite with its title.
    let r = s.request("resources/read", json!({"uri": "marks://favorite"}));
    let marks: Value = serde_json::from_str(r["result"]["contents"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(marks["marks"][0]["stored_id"], "p002", "{marks}");
    assert!(marks["marks"][0]["title"].is_string());
    for bad in ["paper://no-such", "marks://bogus", "file:///etc/passwd"] {
        let r = s.request("resources/read", json!({"uri": bad}));
        assert_eq!(r["error"]["code"], -32002, "{bad}: {r}");
        assert!(!r.to_string().contains("root:"), "{r}");
    }
    // The prompt: listed, and its text names the tools in order.
    let p = s.request("prompts/list", json!({}));
    assert_eq!(p["result"]["prompts"][0]["name"], "prior_art_report");
    let g = s.request("prompts/get", json!({"name": "prior_art_report", "arguments": {"topic": "sparse attention"}}));
    let text = g["result"]["messages"][0]["content"]["text"].as_str().unwrap();
    let order = ["search_papers", "related", "gaps", "context", "verify_citations"];
    let at: Vec<usize> = order.iter().map(|t| text.find(t).unwrap_or_else(|| panic!("{t} in {text}"))).collect();
    assert!(at.windows(2).all(|w| w[0] < w[1]), "search, evidence, related, gaps, a cited summary, checked: {text}");
    let e = s.request("prompts/get", json!({"name": "prior_art_report"}));
    assert!(e["error"]["message"].as_str().unwrap().contains("topic"), "{e}");
    s.finish();
}

/// `fan_out` as the CLI's `--fan-out`: a hub cited by five papers, walked
/// with a fan-out of 2, gives the CLI's hits with their `graph_via`; `"all"`
/// (or the default's 100) follows every link; 0 is refused with the CLI's
/// message; the input schema says "a number from 1 up, or all".
#[test]
fn mcp_fan_out_cuts_a_hub_as_the_cli_does() {
    let dir = tempfile::tempdir().unwrap();
    let db = crate::common::hub_index(dir.path());

    let mut s = Server::start(&db, &[]);
    let tools = s.request("tools/list", json!({}))["result"]["tools"].as_array().unwrap().clone();
    let search = tools.iter().find(|t| t["name"] == "search_papers").unwrap();
    let schema = &search["inputSchema"]["properties"]["fan_out"];
    assert_eq!(schema["anyOf"], json!([{"type": "integer", "minimum": 1}, {"type": "string", "enum": ["all"]}]));
    assert!(schema["description"].as_str().is_some_and(|d| d.contains("default 100")), "{schema}");

    let cli = cli_json(&db, &["search", "sparse attention", "--fan-out", "2", "--format", "json"]);
    for fan_out in [json!(2), json!("2")] {
        let cut = s.ok("search_papers", json!({"query": "sparse attention", "fan_out": fan_out}));
        assert_eq!(cut["hit_count"], 3, "the hub and two of its citers: {cut}");
        assert_eq!(ids(&cut["ranked"]), ids(&cli["ranked"]));
        let vias: Vec<&Value> = cut["ranked"].as_array().unwrap().iter().filter_map(|h| h.get("graph_via")).collect();
        assert_eq!(vias.len(), 2, "{cut}");
        for v in vias {
            assert_eq!(v, &json!({"paper": "hub", "direction": "citations", "followed": 2, "total": 5}));
        }
    }
    for all in [json!({"fan_out": "all"}), json!({"fan_out": "ALL"}), json!({})] {
        let mut args = all.clone();
        args["query"] = json!("sparse attention");
        let r = s.ok("search_papers", args);
        assert_eq!(r["hit_count"], 6, "{all}: {r}");
        assert!(r["ranked"].as_array().unwrap().iter().all(|h| h.get("graph_via").is_none()), "{r}");
    }
    let refusal = "is not a fan-out: use a number from 1 up, or `all`";
    let cli = cli_error(&db, &["search", "sparse attention", "--fan-out", "0"]);
    assert!(cli.contains(refusal), "{cli}");
    for bad in [json!(0), json!("none"), json!(-1), json!(2.5)] {
        let e = s.tool_error("search_papers", json!({"query": "sparse attention", "fan_out": bad}));
        assert!(e.contains(refusal), "{bad}: {e}");
    }
    s.finish();
}
