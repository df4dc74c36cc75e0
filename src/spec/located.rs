//! `Located<T>`: a parsed value together with the byte range it came from, so that checks made after
//! parsing (duplicate names, unknown tools, bad schemas) can still name a line and column.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::cell::Cell;
use std::ops::Range;

/// A value and, when the file format records them, the bytes of the source it was read from.
#[derive(Debug, Clone)]
pub struct Located<T> {
    pub value: T,
    pub span: Option<Range<usize>>,
}

impl<T> Located<T> {
    pub fn new(value: T) -> Self {
        Located { value, span: None }
    }
}

impl<T> std::ops::Deref for Located<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.value
    }
}

impl<T: PartialEq> PartialEq for Located<T> {
    fn eq(&self, other: &Self) -> bool {
        self.value == other.value
    }
}
impl<T: Eq> Eq for Located<T> {}
impl<T: PartialOrd> PartialOrd for Located<T> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        self.value.partial_cmp(&other.value)
    }
}
impl<T: Ord> Ord for Located<T> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.value.cmp(&other.value)
    }
}

thread_local! {
    // Only the `toml` deserializer understands `toml::Spanned`; serde_json rejects it. The loader knows
    // which format it is reading, so it flips this for the duration of one TOML parse instead of every
    // spec struct existing twice.
    static RECORD_SPANS: Cell<bool> = const { Cell::new(false) };
}

/// Runs `parse` with span recording on: use it around `toml::from_str` and nothing else.
pub fn with_toml_spans<R>(parse: impl FnOnce() -> R) -> R {
    struct Reset(bool);
    impl Drop for Reset {
        fn drop(&mut self) {
            RECORD_SPANS.with(|c| c.set(self.0));
        }
    }
    let _reset = Reset(RECORD_SPANS.with(|c| c.replace(true)));
    parse()
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Located<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        if RECORD_SPANS.with(Cell::get) {
            let spanned = toml::Spanned::<T>::deserialize(deserializer)?;
            let span = spanned.span();
            Ok(Located {
                value: spanned.into_inner(),
                span: Some(span),
            })
        } else {
            Ok(Located::new(T::deserialize(deserializer)?))
        }
    }
}

impl<T: Serialize> Serialize for Located<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.value.serialize(serializer)
    }
}
