//! Paging and the token budget of a tool's result.
//!
//! A list result holds at most `limit` items from the cursor's offset, and
//! fewer when their JSON would pass `max_tokens`, estimated as the
//! characters of the result's JSON divided by 4 ([`CHARS_PER_TOKEN`]).
//! Items are dropped whole from the end, never cut inside; at least one is
//! kept so that a cursor always moves on (`note` says when that one alone is
//! over the budget). `next_cursor` is there whenever more items follow.
//!
//! A cursor is opaque to the caller: the next offset and a fingerprint of
//! the call's other arguments, so a cursor given to another query is refused.

use serde::Deserialize;
use serde_json::{Map, Value, json};

use litindex::api::limits::{self, MAX_OFFSET, PageSize};

/// The token estimate: characters of JSON per token.
pub(super) const CHARS_PER_TOKEN: usize = 4;
/// `max_tokens` when the caller gives none.
pub(super) const DEFAULT_MAX_TOKENS: usize = 4000;
/// The budget's bounds.
pub(super) const MIN_MAX_TOKENS: usize = 100;
pub(super) const MAX_MAX_TOKENS: usize = 100_000;

/// The paging arguments every list tool takes.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
pub(super) struct PageArgs {
    /// Where to continue: the `next_cursor` of the previous call with the same other arguments
    #[serde(default)]
    pub cursor: Option<String>,
    /// Upper bound on the result's size in tokens, measured as the characters of its JSON / 4 (100 to 100000; default 4000)
    #[serde(default, deserialize_with = "super::lenient::opt_u64")]
    #[schemars(range(min = 100, max = 100000))]
    pub max_tokens: Option<u64>,
}

/// A call's page: where it starts, its budget, and the fingerprint its cursors carry.
#[derive(Debug)]
pub(super) struct Page {
    pub offset: usize,
    pub max_tokens: usize,
    fingerprint: String,
}

impl Page {
    /// Reads the paging arguments of a call whose other arguments are
    /// `args` (the typed request, as `Debug` prints it, which the cursor's
    /// fingerprint covers).
    pub fn new(tool: &str, args: &str, page: &PageArgs) -> Result<Page, String> {
        let max_tokens = match page.max_tokens {
            None => DEFAULT_MAX_TOKENS,
            Some(n) if (MIN_MAX_TOKENS as u64..=MAX_MAX_TOKENS as u64).contains(&n) => n as usize,
            Some(n) => return Err(format!("max_tokens {n} is out of range: use {MIN_MAX_TOKENS} to {MAX_MAX_TOKENS}")),
        };
        let mut hasher = blake3::Hasher::new();
        hasher.update(tool.as_bytes());
        hasher.update(&(args.len() as u64).to_le_bytes());
        hasher.update(args.as_bytes());
        let fingerprint = hasher.finalize().to_hex()[..16].to_string();
        let offset = match &page.cursor {
            None => 0,
            Some(c) => {
                let (offset, fp) = c
                    .split_once('.')
                    .and_then(|(o, fp)| Some((o.parse::<usize>().ok()?, fp)))
                    .filter(|(o, _)| *o <= MAX_OFFSET)
                    .ok_or_else(|| format!("malformed cursor `{}`: pass a next_cursor as it was returned", short(c)))?;
                if fp != fingerprint {
                    return Err(format!(
                        "cursor `{}` belongs to another call: a cursor continues the call that returned it, with the same other arguments",
                        short(c)
                    ));
                }
                offset
            }
        };
        Ok(Page { offset, max_tokens, fingerprint })
    }

    /// This call's page of `size` items (the library's one paging type).
    pub fn page(&self, size: usize) -> litindex::api::Page {
        litindex::api::Page { offset: self.offset, size }
    }

    fn cursor(&self, offset: usize) -> String {
        format!("{offset}.{}", self.fingerprint)
    }

    /// The result: `body` with `items` from this page's offset under `key`,
    /// as many as the budget allows, and the paging fields. `more_after`:
    /// whether items exist beyond the ones given. The budget is a hard cap
    /// on the result's JSON (the text the client is sent): items are dropped
    /// whole from the end until it fits, and a result that does not fit
    /// with one item is an error saying how large a budget it needs.
    pub fn fit(
        &self,
        body: Map<String, Value>,
        key: &str,
        items: Vec<Value>,
        more_after: bool,
    ) -> Result<Value, String> {
        let budget = self.max_tokens * CHARS_PER_TOKEN;
        // A first guess from the items' sizes, then exact: the whole result measured.
        let base = json_len(&Value::Object(body.clone())) + key.len() + 400;
        let mut used = base;
        let mut keep = 0;
        for item in &items {
            let len = json_len(item) + 1;
            if keep > 0 && used + len > budget {
                break;
            }
            used += len;
            keep += 1;
        }
        loop {
            let value = self.build(&body, key, &items, keep, more_after);
            let len = json_len(&value);
            if len <= budget {
                return Ok(value);
            }
            if keep <= 1 {
                return Err(over_budget(
                    len,
                    self.max_tokens,
                    if keep == 1 { "with one item" } else { "with no item" },
                ));
            }
            keep -= 1;
        }
    }

    /// The result holding the first `keep` of `items`, its size measured into `estimated_tokens`.
    fn build(&self, body: &Map<String, Value>, key: &str, items: &[Value], keep: usize, more_after: bool) -> Value {
        let given = items.len();
        let cut = keep < given;
        let next = (cut || more_after).then(|| self.cursor(self.offset + keep));
        let mut body = body.clone();
        body.insert("offset".into(), json!(self.offset));
        body.insert("returned".into(), json!(keep));
        body.insert(key.into(), Value::Array(items[..keep].to_vec()));
        body.insert("truncated".into(), json!(cut));
        body.insert("next_cursor".into(), json!(next));
        if cut {
            let note = format!(
                "truncated to {keep} of {given} items to stay within max_tokens={}; pass next_cursor for the rest, or a larger max_tokens",
                self.max_tokens
            );
            body.insert("note".into(), json!(note));
        } else if more_after {
            body.insert("note".into(), json!("more results follow: pass next_cursor to get them"));
        }
        measured(Value::Object(body))
    }
}

/// `value` with `estimated_tokens`: its own JSON's length (that field
/// included) / [`CHARS_PER_TOKEN`], rounded up.
pub(super) fn measured(mut value: Value) -> Value {
    let mut tokens = 0;
    for _ in 0..4 {
        value["estimated_tokens"] = json!(tokens);
        let now = json_len(&value).div_ceil(CHARS_PER_TOKEN);
        if now == tokens {
            break;
        }
        tokens = now;
    }
    value["estimated_tokens"] = json!(tokens);
    value
}

/// The error of a result over its budget even at its smallest.
pub(super) fn over_budget(len: usize, max_tokens: usize, how: &str) -> String {
    format!(
        "the result is {} tokens ({len} characters of JSON / {CHARS_PER_TOKEN}) {how}, over max_tokens={max_tokens}: pass max_tokens of at least {} (at most {MAX_MAX_TOKENS})",
        len.div_ceil(CHARS_PER_TOKEN),
        len.div_ceil(CHARS_PER_TOKEN)
    )
}

pub(super) fn json_len(v: &Value) -> usize {
    serde_json::to_string(v).map_or(0, |s| s.len())
}

/// A string argument checked for length ([`limits::text`]).
pub(super) fn text(name: &str, value: &str) -> Result<String, String> {
    limits::text(name, value).map(str::to_string).map_err(|e| e.0)
}

/// A list of ids checked for count and length ([`limits::ids`]).
pub(super) fn ids(name: &str, values: &[String]) -> Result<(), String> {
    limits::ids(name, values, true).map_err(|e| e.0)
}

/// The page size: `limit` or the bound's default, 1 to its max ([`limits::limit`]).
pub(super) fn limit(value: Option<u64>, bound: PageSize) -> Result<usize, String> {
    limits::limit(value, bound).map_err(|e| e.0)
}

/// A bad cursor shown in an error, cut short.
fn short(s: &str) -> String {
    if s.chars().count() > 40 { format!("{}…", s.chars().take(40).collect::<String>()) } else { s.to_string() }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(cursor: Option<&str>, max_tokens: Option<u64>) -> Result<Page, String> {
        let args = PageArgs { cursor: cursor.map(str::to_string), max_tokens };
        Page::new("t", "q", &args)
    }

    #[test]
    fn budget_cuts_whole_items_and_gives_a_cursor() {
        let p = page(None, Some(100)).unwrap();
        let items: Vec<Value> = (0..50).map(|i| json!({"id": i, "text": "x".repeat(40)})).collect();
        let v = p.fit(Map::new(), "items", items, false).unwrap();
        let shown = v["items"].as_array().unwrap().len();
        assert!((1..50).contains(&shown), "{shown}");
        assert_eq!(v["truncated"], json!(true));
        let sent = serde_json::to_string(&v).unwrap().len();
        assert!(sent <= 100 * CHARS_PER_TOKEN, "{sent}");
        assert_eq!(v["estimated_tokens"], json!(sent.div_ceil(CHARS_PER_TOKEN)), "the estimate is the measure");
        let next = v["next_cursor"].as_str().unwrap();
        let p2 = page(Some(next), Some(100)).unwrap();
        assert_eq!(p2.offset, shown);
    }

    #[test]
    fn all_items_fit_no_cursor_unless_more_follow() {
        let p = page(None, None).unwrap();
        let v = p.fit(Map::new(), "items", vec![json!(1), json!(2)], false).unwrap();
        assert_eq!(v["returned"], json!(2));
        assert_eq!(v["next_cursor"], Value::Null);
        let v = p.fit(Map::new(), "items", vec![json!(1), json!(2)], true).unwrap();
        assert!(v["next_cursor"].is_string());
    }

    #[test]
    fn one_item_over_budget_is_an_error_naming_the_budget_it_needs() {
        let p = page(None, Some(100)).unwrap();
        let v = p.fit(Map::new(), "items", vec![json!("y".repeat(100)), json!("z".repeat(100))], false).unwrap();
        assert_eq!(v["returned"], json!(1));
        assert!(v["note"].as_str().unwrap().contains("truncated"));
        let e = p.fit(Map::new(), "items", vec![json!("y".repeat(2000))], false).unwrap_err();
        assert!(e.contains("over max_tokens=100") && e.contains("at least"), "{e}");
    }

    #[test]
    fn the_cap_holds_for_every_budget_and_item_size() {
        for max in [100u64, 137, 300, 1000] {
            let p = page(None, Some(max)).unwrap();
            for size in [1usize, 10, 57, 200] {
                let items: Vec<Value> = (0..40).map(|i| json!({"id": i, "t": "é".repeat(size)})).collect();
                if let Ok(v) = p.fit(Map::new(), "items", items, true) {
                    let sent = serde_json::to_string(&v).unwrap().len();
                    assert!(sent <= max as usize * CHARS_PER_TOKEN, "max {max} size {size}: {sent}");
                }
            }
        }
    }

    #[test]
    fn bad_cursors_and_budgets_are_refused() {
        assert!(page(Some("garbage"), None).unwrap_err().contains("malformed cursor"));
        assert!(page(Some("3.0000000000000000"), None).unwrap_err().contains("another call"));
        assert!(page(None, Some(5)).unwrap_err().contains("out of range"));
        let other = Page::new("t", "other", &PageArgs::default()).unwrap();
        assert!(page(Some(&other.cursor(3)), None).is_err());
    }
}
