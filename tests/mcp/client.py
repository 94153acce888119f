"""An independent MCP client for `litindex mcp`: the official MCP Python SDK
(PyPI `mcp`, pinned in .ci/run) launches the real binary over stdio and checks
initialize, tools/list, a call of each tool, a bad argument, a write refused
without --allow-writes and accepted with it. Every tool declares an
outputSchema, and every structured result is validated against it with the
`jsonschema` package (Draft 2020-12).

usage: python3 tests/mcp/client.py LITINDEX_BINARY DATABASE [PDF]
With PDF (a real paper), it is ingested first and the full-text tools read it.
Prints `all checks passed` and exits 0, or raises.
"""

import asyncio
import json
import os
import subprocess
import sys
import tempfile

import jsonschema
from mcp import Client, StdioServerParameters

READ_TOOLS = ["context", "describe_index", "export", "gaps", "get_paper", "get_papers", "get_passage", "list_marks",
              "list_watches", "neighbors", "related", "screen_next", "screen_status", "search_papers", "search_passages",
              "verify_citations", "watch_new", "why"]
WRITE_TOOLS = ["mark", "unmark", "screen_label", "watch_add", "watch_check", "watch_remove"]

# Each tool's outputSchema, from tools/list.
SCHEMAS = {}
VALIDATED = set()


# PDFs ingested into the index before the checks (0 or 1).
PDFS = 0

# The server's working directory: a tool must never write into it.
WORKDIR = tempfile.mkdtemp(prefix="litindex-mcp-")


def server(binary, db, *extra):
    return StdioServerParameters(command=binary, args=["--db", db, "mcp", *extra], cwd=WORKDIR)


def text_of(result):
    return "".join(getattr(c, "text", "") for c in result.content)


async def ok(client, tool, args):
    result = await client.call_tool(tool, args)
    assert not result.is_error, f"{tool} {args}: {text_of(result)}"
    structured = result.structured_content
    assert isinstance(structured, dict), f"{tool}: no structured result"
    assert json.loads(text_of(result)) == structured, f"{tool}: the text fallback differs"
    schema = SCHEMAS[tool]
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.validate(structured, schema, cls=jsonschema.Draft202012Validator)
    VALIDATED.add(tool)
    return structured


def schemas_of(tools):
    for t in tools:
        assert t.output_schema is not None and t.output_schema["type"] == "object", t
        SCHEMAS[t.name] = t.output_schema


async def error(client, tool, args):
    result = await client.call_tool(tool, args)
    assert result.is_error, f"{tool} {args} should fail: {text_of(result)}"
    return text_of(result)


async def read_only(binary, db):
    async with Client(server(binary, db)) as client:
        assert client.server_info is None or client.server_info.name == "litindex", client.server_info
        print("protocol version", client.protocol_version)
        tools = (await client.list_tools()).tools
        names = sorted(t.name for t in tools)
        assert names == READ_TOOLS, names
        for t in tools:
            assert t.input_schema["type"] == "object", t
        schemas_of(tools)

        hits = (await ok(client, "search_papers", {"query": "sparse attention", "limit": 3}))["ranked"]
        assert len(hits) == 3, hits
        first = hits[0]["id"]
        for key in ("title", "final_score", "bm25_score", "snippet"):
            assert key in hits[0], (key, hits[0])
        page = await ok(client, "search_papers", {"query": "sparse attention", "limit": 3})
        nxt = await ok(client, "search_papers", {"query": "sparse attention", "limit": 3, "cursor": page["next_cursor"]})
        assert nxt["offset"] == 3 and {h["id"] for h in nxt["ranked"]}.isdisjoint(h["id"] for h in hits)

        paper = await ok(client, "get_paper", {"id": first})
        assert paper["id"] == first and paper["title"] == hits[0]["title"]
        hood = await ok(client, "neighbors", {"id": first, "hops": 1})
        assert hood["nodes"][0]["id"] == first and hood["nodes"][0]["distance"] == 0
        related = await ok(client, "related", {"ids": [first], "limit": 5})
        assert all(r["id"] != first for r in related["related"])
        gaps = await ok(client, "gaps", {})
        assert isinstance(gaps["gaps"], list)
        # Full text: the Rust test ingests one real PDF into the index when ../shared is there.
        found = await ok(client, "search_passages", {"query": "venous thrombosis prophylaxis", "limit": "2"})
        assert bool(found["passages"]) == bool(PDFS), found
        if found["passages"]:
            top = found["passages"][0]
            assert top["page_first"] >= 1 and top["spans"], top
            one = await ok(client, "get_passage", {"passage": str(top["passage"])})
            assert one["text"] == top["text"] and one["paper_id"] == top["paper_id"], one
            reason = await ok(client, "why", {"citing": top["paper_id"], "cited": first})
            assert reason["verdict"] == "not-cited", reason
        else:
            SCHEMAS.pop("get_passage")
            print("no PDF in the index: get_passage not called")
        reason = await ok(client, "why", {"citing": first, "cited": paper["id"]})
        assert reason["verdict"] == "no-full-text", reason
        # Titles beside the ids, a batch, the index described, numbers as strings.
        assert all("title" in r for r in paper["references"]), paper
        assert all("title" in n for n in hood["nodes"]), hood
        batch = await ok(client, "get_papers", {"ids": [first, "no-such-paper"]})
        assert [p["id"] for p in batch["papers"]] == [first] and batch["unknown"] == ["no-such-paper"], batch
        described = await ok(client, "describe_index", {})
        assert described["papers"] == 100 + PDFS and described["writes_allowed"] is False, described
        await ok(client, "list_marks", {})
        # Resources and the prompt, through the SDK.
        contents = (await client.read_resource("paper://" + first)).contents
        assert json.loads(contents[0].text)["id"] == first, contents
        prompts = (await client.list_prompts()).prompts
        assert [p.name for p in prompts] == ["prior_art_report"], prompts
        got = await client.get_prompt("prior_art_report", {"topic": "sparse attention"})
        assert "verify_citations" in got.messages[0].content.text, got
        strings = await ok(client, "search_papers", {"query": "sparse attention", "limit": "3"})
        assert strings["ranked"] == hits, "a number given as a string is the number"
        bib = await ok(client, "export", {"ids": [first]})
        assert bib["text"].startswith("@"), bib
        pack = await ok(client, "context", {"question": "sparse attention", "k": 3})
        assert [s["number"] for s in pack["sources"]] == [1, 2, 3], pack
        sentence = pack["sources"][0]["sentences"][0]
        checked = await ok(client, "verify_citations", {"answer": sentence + " [1]", "pack": pack})
        assert checked["outside_pack"] == 0 and checked["checks"][0]["judgment"] == "supported", checked
        outside = await ok(client, "verify_citations", {"answer": "Something else [9].", "pack": pack})
        assert outside["outside_pack"] == 1 and "outside the pack" in outside["error"], outside

        # Values that look like flags are values: no file written, no flag read.
        message = await error(client, "export", {"ids": ["--output=x.bib", first]})
        assert "unknown paper id `--output=x.bib`" in message, message
        assert os.listdir(WORKDIR) == [], os.listdir(WORKDIR)
        dashed = await ok(client, "context", {"question": "-fortran compiler", "k": 3})
        assert isinstance(dashed["sources"], list), dashed
        await ok(client, "search_papers", {"query": "sparse attention", "must": ["-x"]})

        # Bad arguments: tool errors, and the server goes on.
        message = await error(client, "search_papers", {"query": "attention", "hops": 7})
        assert "hops 7 is out of range" in message, message
        message = await error(client, "get_paper", {"id": "no-such-paper"})
        assert "unknown paper id `no-such-paper`" in message, message
        await error(client, "search_papers", {"query": "attention", "mode": "psychic"})
        message = await error(client, "mark", {"ids": [first], "label": "exclude"})
        assert "--allow-writes" in message, message
        assert (await ok(client, "search_papers", {"query": "sparse attention", "limit": 3}))["ranked"] == hits
    return first


async def writes(binary, db, first):
    async with Client(server(binary, db, "--allow-writes")) as client:
        tools = (await client.list_tools()).tools
        names = sorted(t.name for t in tools)
        assert names == sorted(READ_TOOLS + WRITE_TOOLS), names
        schemas_of(tools)
        marked = await ok(client, "mark", {"ids": [first], "label": "exclude"})
        assert first in marked["message"], marked
        listed = await ok(client, "list_marks", {"label": "exclude"})
        assert [m["stored_id"] for m in listed["marks"]] == [first], listed
        hits = (await ok(client, "search_papers", {"query": "sparse attention"}))["ranked"]
        assert first not in [h["id"] for h in hits], "an excluded paper is hidden"
        await ok(client, "unmark", {"ids": [first]})
        hits = (await ok(client, "search_papers", {"query": "sparse attention"}))["ranked"]
        assert hits[0]["id"] == first
        # A screening review made on the command line, screened through the tools.
        subprocess.run([binary, "--db", db, "screen", "new", "sdk", "--all"], check=True, capture_output=True)
        status = await ok(client, "screen_status", {"review": "sdk"})
        assert status["screened"] == 0 and status["candidates"] > 1, status
        proposed = (await ok(client, "screen_next", {"review": "sdk", "n": "2"}))["proposals"]
        assert len(proposed) == 2, proposed
        decided = await ok(client, "screen_label", {"review": "sdk", "id": proposed[0]["given_id"], "decision": "include"})
        assert decided["included"] == 1, decided
        status = await ok(client, "screen_status", {"review": "sdk"})
        assert status["screened"] == 1 and status["included"] == 1, status
        # A saved search: its first check is the baseline, the next finds nothing new until the index changes.
        added = await ok(client, "watch_add", {"name": "sdk", "query": "sparse attention", "limit": "5", "hops": 1})
        assert added["flags"] == ["--limit=5", "--hops=1"], added
        listed = (await ok(client, "list_watches", {}))["watches"]
        assert [(w["name"], w["last_checked"]) for w in listed] == [("sdk", None)], listed
        peek = (await ok(client, "watch_new", {"name": "sdk"}))["watches"][0]
        assert peek["baseline"] and len(peek["new"]) == peek["hits"] == 5, peek
        baseline = (await ok(client, "watch_check", {}))["watches"][0]
        assert [h["id"] for h in baseline["new"]] == [h["id"] for h in peek["new"]], baseline
        again = (await ok(client, "watch_new", {"name": "sdk"}))["watches"][0]
        assert not again["baseline"] and again["new"] == [] and again["hits"] == 5, again
        message = await error(client, "watch_add", {"name": "sdk", "query": "other"})
        assert "exists" in message, message
        await ok(client, "watch_remove", {"name": "sdk"})
        message = await error(client, "watch_new", {"name": "sdk"})
        assert "no saved search named `sdk`" in message, message


async def main(binary, db, pdf=None):
    global PDFS
    if pdf:
        subprocess.run([binary, "--db", db, "ingest", "--quiet", pdf], check=True, capture_output=True)
        PDFS = 1
    first = await read_only(binary, db)
    await writes(binary, db, first)
    missing = set(SCHEMAS) - VALIDATED
    assert not missing, f"tools whose result was not validated: {sorted(missing)}"
    print("all checks passed")


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:4]))
