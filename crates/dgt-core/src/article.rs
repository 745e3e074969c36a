//! An article of a set of rules (the FIDE Laws, a bughouse regulation), as the alerts cite
//! it: "7.5.5", "A.5.2", "5.4, 10.5". A type of its own so that a verdict names its article
//! as data, compared and matched as such, and written as the same text in the event JSON
//! (`article`, contract §3).

use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Article(&'static str);

impl Article {
    /// The article as printed in its rules.
    pub const fn new(number: &'static str) -> Self {
        Article(number)
    }

    pub const fn as_str(self) -> &'static str {
        self.0
    }
}

impl fmt::Display for Article {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

impl From<Article> for String {
    fn from(a: Article) -> String {
        a.0.to_string()
    }
}

impl PartialEq<&str> for Article {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}

impl PartialEq<str> for Article {
    fn eq(&self, other: &str) -> bool {
        self.0 == other
    }
}

impl serde::Serialize for Article {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_article_reads_and_serialises_as_printed() {
        let a = Article::new("A.5.2");
        assert_eq!(a.to_string(), "A.5.2");
        assert_eq!(String::from(a), "A.5.2");
        assert_eq!(serde_json::to_value(a).unwrap(), "A.5.2");
        assert_eq!(a, "A.5.2");
    }
}
