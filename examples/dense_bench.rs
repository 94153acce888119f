//! Exact dense recall over synthetic unit vectors: how long one query's
//! top-k by cosine takes over N stored vectors (the `DenseIndex` scan that
//! `--mode dense` and `--mode hybrid` run), and how long filling the buffer
//! takes.
//!
//! ```sh
//! cargo run --release --example dense_bench -- [N ...] [--dim D] [--k K] [--queries Q]
//! cargo run --release --example dense_bench -- 100000 1000000
//! ```

use std::time::Instant;

use litindex::embed::DenseIndex;

fn main() {
    let mut sizes: Vec<usize> = Vec::new();
    let (mut dim, mut k, mut queries) = (384usize, 100usize, 50usize);
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = |name: &str| -> usize {
            args.next().and_then(|v| v.parse().ok()).unwrap_or_else(|| panic!("{name} needs a number"))
        };
        match a.as_str() {
            "--dim" => dim = value("--dim"),
            "--k" => k = value("--k"),
            "--queries" => queries = value("--queries"),
            n => sizes.push(n.parse().expect("a vector count")),
        }
    }
    if sizes.is_empty() {
        sizes = vec![100_000, 1_000_000];
    }
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let mut unit = |dim: usize| -> Vec<f32> {
        let v: Vec<f32> = (0..dim)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                (state >> 40) as f32 / (1u64 << 24) as f32 - 0.5
            })
            .collect();
        let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        v.into_iter().map(|x| x / n).collect()
    };
    println!("threads available: {}", std::thread::available_parallelism().map_or(1, |n| n.get()));
    for n in sizes {
        let started = Instant::now();
        let mut idx = DenseIndex::new(dim);
        for key in 0..n {
            idx.push(key as i64, &unit(dim));
        }
        let fill = started.elapsed().as_secs_f64();
        let qs: Vec<Vec<f32>> = (0..queries).map(|_| unit(dim)).collect();
        // One warm-up query, then the timed ones.
        let _ = idx.top_k(&qs[0], k);
        let mut times: Vec<f64> = Vec::with_capacity(queries);
        for q in &qs {
            let t = Instant::now();
            let top = idx.top_k(q, k);
            times.push(t.elapsed().as_secs_f64() * 1000.0);
            assert_eq!(top.len(), k.min(n));
        }
        times.sort_by(f64::total_cmp);
        let median = times[times.len() / 2];
        let p95 = times[(times.len() * 95 / 100).min(times.len() - 1)];
        let gb = (n * dim * 4) as f64 / 1e9;
        println!(
            "{n} vectors x {dim}-d ({gb:.2} GB): top-{k} median {median:.2} ms, p95 {p95:.2} ms over {queries} queries \
             ({:.1} GB/s); buffer filled in {fill:.1} s",
            gb / (median / 1000.0)
        );
    }
}
