#!/usr/bin/env bash
# Runs the documentation's demo blocks against a litindex binary, so that the
# commands the README and docs/ show keep working.
#
#   scripts/docs_commands.sh [FILE.md ...]      (default: README.md docs/*.md)
#
# A demo block is a fenced block whose info string is `sh demo`,
# `console demo` or `python demo`:
#   ```sh demo        every line is shell, run as it stands;
#   ```console demo   the lines starting with `$ ` are the commands (the rest
#                     is their output as shown, not compared);
#   ```python demo    the block is a python3 program.
# Demo blocks use only the built-in demo corpus, the repository's
# tests/fixtures and what earlier demo blocks of the same file made: the
# blocks of one file run in order, each in `bash -euo pipefail`, in one fresh
# temporary directory that holds the demo index (`litindex build`, so
# ./litindex.db exists) and a link `tests` to the repository's tests/. A
# command expected to fail is written `cmd || echo "exit $?"`; any other
# non-zero exit fails the script, naming the file, the block's line and the
# command's output. Outputs are not compared (they hold timings, and defaults
# move them): the tests pin what must not change.
#
# `litindex` on PATH is $LITINDEX_BIN (default target/release/litindex:
# `cargo build --release` first), and `cargo run --release -- ARGS` is run as
# `litindex ARGS`. LITINDEX_DB is unset and NO_COLOR set.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
bin=${LITINDEX_BIN:-$root/target/release/litindex}
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
if [ ! -x "$bin" ]; then
  echo "docs_commands: no litindex binary at $bin; run \`cargo build --release\` or set LITINDEX_BIN" >&2
  exit 2
fi

if [ $# -eq 0 ]; then
  set -- "$root/README.md" "$root"/docs/*.md
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/litindex-docs.XXXXXX")
trap 'rm -rf "$work"' EXIT

# `litindex` and the one `cargo` form the docs use, on PATH.
mkdir "$work/bin"
ln -s "$bin" "$work/bin/litindex"
cat >"$work/bin/cargo" <<'SHIM'
#!/usr/bin/env bash
if [ "${1:-}" = run ] && [ "${2:-}" = --release ] && [ "${3:-}" = -- ]; then
  shift 3
  exec litindex "$@"
fi
echo "docs_commands: only \`cargo run --release -- ARGS\` runs in a demo block (got: cargo $*)" >&2
exit 1
SHIM
chmod +x "$work/bin/cargo"
export PATH="$work/bin:$PATH" NO_COLOR=1
unset LITINDEX_DB

# Writes the demo blocks of markdown file $1 into directory $2 as
# NNN.sh files, each starting with a comment naming the file and line.
extract() {
  awk -v out="$2" -v name="$1" '
    /^```/ {
      bare = ($0 ~ /^```[ \t]*$/)
      if (kind != "") {
        if (bare) { if (kind == "python") print "DOCS_PYTHON_DEMO" > file; kind = ""; close(file) }
        next
      }
      if (inother) { if (bare) inother = 0; next }
      if ($0 ~ /^```(sh|console|python)[ \t]+demo[ \t]*$/) {
        kind = $0; sub(/^```/, "", kind); sub(/[ \t].*/, "", kind)
        n++; file = sprintf("%s/%03d.sh", out, n)
        printf "# %s:%d\n", name, NR > file
        if (kind == "python") print "python3 - <<'"'"'DOCS_PYTHON_DEMO'"'"'" > file
      } else inother = 1
      next
    }
    kind == "sh" || kind == "python" { print > file; next }
    kind == "console" && /^\$ / { print substr($0, 3) > file; next }
  ' "$1"
}

status=0
blocks=0
for md in "$@"; do
  rel=${md#"$root"/}
  dir="$work/$(echo "$rel" | tr '/' '_')"
  mkdir -p "$dir/blocks" "$dir/run"
  extract "$md" "$dir/blocks"
  shopt -s nullglob
  scripts=("$dir"/blocks/*.sh)
  shopt -u nullglob
  [ ${#scripts[@]} -eq 0 ] && continue
  ln -s "$root/tests" "$dir/run/tests"
  if ! (cd "$dir/run" && litindex build --quiet >"$dir/build.log" 2>&1); then
    echo "FAIL $rel: litindex build (the demo index) failed:" >&2
    cat "$dir/build.log" >&2
    exit 1
  fi
  for s in "${scripts[@]}"; do
    where=$(head -1 "$s" | sed 's/^# //')
    where=${where#"$root"/}
    commands=$(grep -cv '^[[:space:]]*\(#\|$\)' "$s" || true)
    blocks=$((blocks + 1))
    if (cd "$dir/run" && bash -euo pipefail "$s") >"$s.log" 2>&1; then
      echo "ok   $where ($commands lines)"
    else
      code=$?
      echo "FAIL $where: exit $code; its output:" >&2
      tail -n 20 "$s.log" | sed 's/^/     /' >&2
      status=1
    fi
  done
done

if [ "$status" -ne 0 ]; then
  echo "docs_commands: some demo blocks failed" >&2
  exit 1
fi
echo "docs_commands: $blocks demo blocks ran, every command exited as written"
