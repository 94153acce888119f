"""The screening tools of `litindex mcp` through the official MCP Python SDK:
screen_status and screen_next read-only, screen_label refused without
--allow-writes (nothing changes) and accepted with it, then seen by
screen_status and screen_next.

usage: python3 tests/mcp/screen_client.py LITINDEX_BINARY DATABASE REVIEW
The review must have both an include and an exclude. Prints `all checks passed`.
"""

import asyncio
import sys

from client import error, ok, schemas_of, server
from mcp import Client


async def main(binary, db, review):
    async with Client(server(binary, db)) as client:
        schemas_of((await client.list_tools()).tools)
        before = await ok(client, "screen_status", {"review": review})
        assert before["screened"] >= 2, before
        props = (await ok(client, "screen_next", {"review": review, "n": 3}))["proposals"]
        assert len(props) == 3, props
        scores = [p["score"] for p in props]
        assert all(s is not None for s in scores) and scores == sorted(scores, reverse=True), scores
        assert all(p["model"].startswith(("all features", "text only")) for p in props), props[0]
        top = props[0]["given_id"]
        message = await error(client, "screen_label", {"review": review, "id": top, "decision": "include"})
        assert "--allow-writes" in message, message
        message = await error(client, "screen_next", {"review": review, "n": 0})
        assert "n must be 1 to 20" in message, message
        message = await error(client, "screen_status", {"review": "no-such-review"})
        assert "no review `no-such-review`" in message, message
        assert await ok(client, "screen_status", {"review": review}) == before, "a refused write changed nothing"
    async with Client(server(binary, db, "--allow-writes")) as client:
        schemas_of((await client.list_tools()).tools)
        done = await ok(client, "screen_label", {"review": review, "id": top, "decision": "include", "reason": "fits"})
        assert done["decided"] == [top], done
        after = await ok(client, "screen_status", {"review": review})
        assert after["screened"] == before["screened"] + 1 and after["included"] == before["included"] + 1, after
        props = (await ok(client, "screen_next", {"review": review, "n": 3}))["proposals"]
        assert top not in [p["given_id"] for p in props], props
        message = await error(client, "screen_label", {"review": review, "id": "W1", "decision": "exclude"})
        assert "no paper `W1`" in message, message
    print("all checks passed")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3]))
