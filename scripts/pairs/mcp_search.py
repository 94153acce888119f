#!/usr/bin/env python3
"""Times MCP's `search_papers` as an agent calls it: the official MCP Python SDK (PyPI `mcp`, as
.ci/run installs it into target/pydeps) starts `BIN --db DB mcp` over stdio and calls the tool
CALLS times in one session. Prints one JSON line: each call's wall seconds, the median of the
calls after the first, and the server's CPU seconds (utime + stime of the child process, read
from /proc before the session closes), in all and per call after the first.

usage: PYTHONPATH=target/pydeps python3 scripts/pairs/mcp_search.py BIN DB [CALLS] [MODE] [QUERY]
  CALLS default 10, MODE default hybrid, QUERY default "blam num" (query 21 of the 1M corpus).
Run two binaries in turns (A B A B ...) on a quiet machine (docs/PERFORMANCE.md, "The model loaded
once per process, and the web page's one search")."""
import asyncio
import json
import os
import statistics
import sys
import time

from mcp import Client, StdioServerParameters


def server_cpu():
    """utime + stime (s) of this process's children (the server), from /proc."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for task in os.listdir(f"/proc/{os.getpid()}/task"):
        with open(f"/proc/{os.getpid()}/task/{task}/children") as f:
            for pid in f.read().split():
                with open(f"/proc/{pid}/stat") as s:
                    fields = s.read().rsplit(")", 1)[1].split()
                total += (int(fields[11]) + int(fields[12])) / ticks
    return total


async def main(binary, db, calls=10, mode="hybrid", query="blam num"):
    times = []
    params = StdioServerParameters(command=binary, args=["--db", db, "mcp"])
    async with Client(params) as client:
        for i in range(int(calls)):
            start = time.perf_counter()
            result = await client.call_tool("search_papers", {"query": query, "mode": mode, "limit": 20})
            times.append(time.perf_counter() - start)
            assert not result.is_error, result
            assert result.structured_content["ranked"], "the search has hits"
            if i == 0:
                first_cpu = server_cpu()
        cpu = server_cpu()
    print(json.dumps({"binary": binary, "mode": mode, "calls": [round(t, 4) for t in times],
                      "median_after_first": round(statistics.median(times[1:]), 4), "server_cpu_s": round(cpu, 3),
                      "server_cpu_per_call_after_first_s": round((cpu - first_cpu) / max(1, int(calls) - 1), 4)}))


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:6]))
