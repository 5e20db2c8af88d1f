//! Diagnostics: what the generator reports about a document, located like a
//! compiler's messages.

use std::fmt;

/// Where in the source document a diagnostic points.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Location {
    /// A JSON pointer into the document, such as `#/paths/~1pets/get`.
    Pointer(String),
    /// A line and column (1-based), for errors found before the document is parsed.
    LineColumn { line: usize, column: usize },
    /// The document as a whole (unreadable file, unknown version).
    Document,
}

/// As a message names it: the pointer, `line:column`, or "the document".
impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::Pointer(p) => f.write_str(p),
            Location::LineColumn { line, column } => write!(f, "{line}:{column}"),
            Location::Document => f.write_str("the document"),
        }
    }
}

/// One problem in a document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    pub location: Location,
    pub message: String,
}

impl Diagnostic {
    pub fn at(pointer: &Pointer, message: impl Into<String>) -> Self {
        Diagnostic {
            location: Location::Pointer(pointer.to_string()),
            message: message.into(),
        }
    }
}

/// Every problem found in one run, with the file they belong to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostics {
    pub file: String,
    pub errors: Vec<Diagnostic>,
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, d) in self.errors.iter().enumerate() {
            if i > 0 {
                write!(f, "\n\n")?;
            }
            writeln!(f, "error: {}", d.message)?;
            match &d.location {
                Location::Pointer(p) => write!(f, "  --> {}{}", self.file, p)?,
                Location::LineColumn { line, column } => {
                    write!(f, "  --> {}:{line}:{column}", self.file)?
                }
                Location::Document => write!(f, "  --> {}", self.file)?,
            }
        }
        let n = self.errors.len();
        write!(
            f,
            "\n\n{n} error{} in {}",
            if n == 1 { "" } else { "s" },
            self.file
        )
    }
}

impl std::error::Error for Diagnostics {}

/// A JSON pointer under construction (RFC 6901), printed with a leading `#`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Pointer(String);

impl Pointer {
    pub fn root() -> Self {
        Pointer(String::new())
    }

    /// Parses the fragment of a local `$ref` (`#/components/schemas/Pet`).
    pub fn from_ref(reference: &str) -> Option<Self> {
        let fragment = reference.strip_prefix('#')?;
        if !(fragment.is_empty() || fragment.starts_with('/')) {
            return None;
        }
        Some(Pointer(fragment.to_string()))
    }

    /// The pointer one level down, escaping `~` and `/` in the segment.
    pub fn join(&self, segment: impl fmt::Display) -> Self {
        let segment = segment.to_string().replace('~', "~0").replace('/', "~1");
        Pointer(format!("{}/{}", self.0, segment))
    }

    /// The pointer one level up; the root's is the root.
    pub fn parent(&self) -> Self {
        Pointer(self.0.rfind('/').map_or("", |i| &self.0[..i]).to_string())
    }

    /// The unescaped segments.
    pub fn segments(&self) -> impl Iterator<Item = String> + '_ {
        self.0
            .split('/')
            .skip(1)
            .map(|s| s.replace("~1", "/").replace("~0", "~"))
    }
}

impl fmt::Display for Pointer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pointers_escape_slashes_and_tildes() {
        let p = Pointer::root().join("paths").join("/pets/{id}").join("a~b");
        assert_eq!(p.to_string(), "#/paths/~1pets~1{id}/a~0b");
        assert_eq!(
            p.segments().collect::<Vec<_>>(),
            ["paths", "/pets/{id}", "a~b"]
        );
    }

    #[test]
    fn refs_parse_only_when_local() {
        assert_eq!(
            Pointer::from_ref("#/components/schemas/Pet").unwrap(),
            Pointer::root()
                .join("components")
                .join("schemas")
                .join("Pet")
        );
        assert!(Pointer::from_ref("other.yaml#/Pet").is_none());
    }

    #[test]
    fn display_lists_every_error_with_its_location() {
        let d = Diagnostics {
            file: "spec.yaml".into(),
            errors: vec![
                Diagnostic::at(&Pointer::root().join("paths"), "first"),
                Diagnostic {
                    location: Location::LineColumn { line: 3, column: 7 },
                    message: "second".into(),
                },
            ],
        };
        assert_eq!(
            d.to_string(),
            "error: first\n  --> spec.yaml#/paths\n\nerror: second\n  --> spec.yaml:3:7\n\n2 errors in spec.yaml"
        );
    }
}
