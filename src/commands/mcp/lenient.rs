//! Numbers and booleans as a client may send them: `2` or `"2"`, `true` or
//! `"true"` (the Inspector CLI sends every `--tool-arg` value as a string).
//! The input schemas still say `integer` / `boolean`, with their ranges; a
//! string that is not a number is refused with the field's name.

use serde::de::{self, Deserializer, Unexpected, Visitor};

struct U64;

impl Visitor<'_> for U64 {
    type Value = u64;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a whole number >= 0 (as a number or a string of digits)")
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<u64, E> {
        Ok(v)
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<u64, E> {
        u64::try_from(v).map_err(|_| E::invalid_value(Unexpected::Signed(v), &self))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<u64, E> {
        if v.fract() == 0.0 && (0.0..=u64::MAX as f64).contains(&v) {
            Ok(v as u64)
        } else {
            Err(E::invalid_value(Unexpected::Float(v), &self))
        }
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<u64, E> {
        v.trim().parse().map_err(|_| E::invalid_value(Unexpected::Str(v), &self))
    }
}

struct Bool;

impl Visitor<'_> for Bool {
    type Value = bool;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("true or false (as a boolean or a string)")
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<bool, E> {
        Ok(v)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<bool, E> {
        match v.trim() {
            "true" => Ok(true),
            "false" => Ok(false),
            _ => Err(E::invalid_value(Unexpected::Str(v), &self)),
        }
    }
}

/// A whole number, given as a number or a string of digits.
pub(super) fn u64<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    d.deserialize_any(U64)
}

/// An optional whole number, given as a number or a string of digits.
pub(super) fn opt_u64<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    struct Opt;
    impl<'de> Visitor<'de> for Opt {
        type Value = Option<u64>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            U64.expecting(f)
        }
        fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_some<D2: Deserializer<'de>>(self, d: D2) -> Result<Self::Value, D2::Error> {
            d.deserialize_any(U64).map(Some)
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
            U64.visit_u64(v).map(Some)
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
            U64.visit_i64(v).map(Some)
        }
        fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
            U64.visit_f64(v).map(Some)
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
            U64.visit_str(v).map(Some)
        }
    }
    d.deserialize_any(Opt)
}

/// A boolean, given as one or as the string `true` / `false`.
pub(super) fn bool<'de, D: Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    d.deserialize_any(Bool)
}

/// An optional boolean, given as one or as the string `true` / `false`.
pub(super) fn opt_bool<'de, D: Deserializer<'de>>(d: D) -> Result<Option<bool>, D::Error> {
    struct Opt;
    impl<'de> Visitor<'de> for Opt {
        type Value = Option<bool>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            Bool.expecting(f)
        }
        fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_some<D2: Deserializer<'de>>(self, d: D2) -> Result<Self::Value, D2::Error> {
            d.deserialize_any(Bool).map(Some)
        }
        fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
            Ok(Some(v))
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
            Bool.visit_str(v).map(Some)
        }
    }
    d.deserialize_any(Opt)
}

/// An optional word or whole number, given as a string or a number, as
/// text (for a field that takes either, such as `fan_out`: `100` or `"all"`).
pub(super) fn opt_word<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    struct Opt;
    impl<'de> Visitor<'de> for Opt {
        type Value = Option<String>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a whole number or a word (as a number or a string)")
        }
        fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_some<D2: Deserializer<'de>>(self, d: D2) -> Result<Self::Value, D2::Error> {
            d.deserialize_any(Opt)
        }
        fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
            Ok(Some(v.to_string()))
        }
        fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
            Ok(Some(v.to_string()))
        }
        fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
            Ok(Some(v.to_string()))
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
            Ok(Some(v.to_string()))
        }
    }
    d.deserialize_any(Opt)
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Deserialize, Debug)]
    struct T {
        #[serde(default, deserialize_with = "super::opt_u64")]
        n: Option<u64>,
        #[serde(default, deserialize_with = "super::bool")]
        b: bool,
        #[serde(default, deserialize_with = "super::opt_bool")]
        o: Option<bool>,
        #[serde(default, deserialize_with = "super::opt_word")]
        w: Option<String>,
    }

    fn t(v: serde_json::Value) -> Result<T, String> {
        serde_json::from_value(v).map_err(|e| e.to_string())
    }

    #[test]
    fn numbers_and_booleans_as_strings() {
        assert_eq!(t(json!({"n": 2})).unwrap().n, Some(2));
        assert_eq!(t(json!({"n": "2"})).unwrap().n, Some(2));
        assert_eq!(t(json!({"n": " 17 "})).unwrap().n, Some(17));
        assert_eq!(t(json!({"n": 3.0})).unwrap().n, Some(3));
        assert_eq!(t(json!({"n": null})).unwrap().n, None);
        assert_eq!(t(json!({})).unwrap().n, None);
        assert!(t(json!({"n": "two"})).unwrap_err().contains("whole number"));
        assert!(t(json!({"n": -1})).is_err());
        assert!(t(json!({"n": 2.5})).is_err());
        assert!(t(json!({"b": "true", "o": "false"})).unwrap().b);
        assert_eq!(t(json!({"o": "false"})).unwrap().o, Some(false));
        assert!(t(json!({"b": "yes"})).is_err());
        assert_eq!(t(json!({"w": 100})).unwrap().w.as_deref(), Some("100"));
        assert_eq!(t(json!({"w": 3.0})).unwrap().w.as_deref(), Some("3"));
        assert_eq!(t(json!({"w": "all"})).unwrap().w.as_deref(), Some("all"));
        assert_eq!(t(json!({"w": null})).unwrap().w, None);
        assert!(t(json!({"w": [1]})).is_err());
    }
}
