//! Unit tests of the generator.

use super::*;

#[test]
fn rng_is_deterministic_and_streams_differ() {
    let a: Vec<u64> = (0..4)
        .map({
            let mut r = Rng::new(7, 1);
            move |_| r.next_u64()
        })
        .collect();
    let mut r = Rng::new(7, 1);
    assert_eq!(a, (0..4).map(|_| r.next_u64()).collect::<Vec<_>>());
    assert_ne!(Rng::new(7, 1).next_u64(), Rng::new(7, 2).next_u64());
    assert_ne!(Rng::new(7, 1).next_u64(), Rng::new(8, 1).next_u64());
    let mut r = Rng::new(1, 0);
    for _ in 0..1000 {
        assert!(r.below(10) < 10);
        let x = r.f64();
        assert!((0.0..1.0).contains(&x));
    }
}

#[test]
fn zipf_prefers_low_ranks_and_respects_ranges() {
    let z = Zipf::new(1000, 1.07);
    let mut r = Rng::new(3, 0);
    let mut first = 0;
    for _ in 0..10_000 {
        let k = z.sample(&mut r);
        assert!(k < 1000);
        first += usize::from(k == 0);
        let k = z.sample_in(&mut r, 10, 20);
        assert!((10..20).contains(&k));
    }
    // P(rank 0) = 1/H(1000, 1.07) ≈ 0.15.
    assert!((1000..2200).contains(&first), "{first}");
}

#[test]
fn vocabulary_is_unique_and_starts_with_function_words() {
    let v = Vocabulary::new(5, 5_000);
    assert_eq!(v.words.len(), 5_000);
    assert_eq!(v.words[0], "the");
    let set: HashSet<&String> = v.words.iter().collect();
    assert_eq!(set.len(), v.words.len());
    assert!(v.words.iter().all(|w| w.chars().all(|c| c.is_ascii_lowercase())));
}

#[test]
fn years_grow_towards_the_end() {
    let y = YearTable::new();
    assert_eq!(y.year_at(0.0), FIRST_YEAR);
    assert_eq!(y.year_at(1.0), LAST_YEAR);
    assert!(y.year_at(0.5) > 2010);
}
