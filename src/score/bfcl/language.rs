//! The source language of a BFCL category (`simple_java`, `simple_javascript`, Python for every
//! other), which decides how the checker reads a parameter — its type table and whether a list's
//! item type is read too — and, for the importer, the hint BFCL adds to each description.

use super::python_value::PyType;

/// The source language of a category, which decides how a parameter's value is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Language {
    Python,
    Java,
    JavaScript,
}

impl Language {
    pub fn of(category: &str) -> Language {
        if category.ends_with("javascript") {
            Language::JavaScript
        } else if category.ends_with("java") {
            Language::Java
        } else {
            Language::Python
        }
    }

    /// The sentence BFCL appends to each function's description for this language.
    pub fn hint(self) -> &'static str {
        match self {
            Language::Python => " Note that the provided function is in Python 3 syntax.",
            Language::Java => " Note that the provided function is in Java 8 SDK syntax.",
            Language::JavaScript => " Note that the provided function is in JavaScript syntax.",
        }
    }

    /// The language's name, as the importer's notes and BFCL's type notes write it.
    pub fn label(self) -> &'static str {
        match self {
            Language::Python => "Python",
            Language::Java => "Java",
            Language::JavaScript => "JavaScript",
        }
    }

    /// `PYTHON_TYPE_MAPPING`, `JAVA_TYPE_CONVERSION` or `JS_TYPE_CONVERSION`; `None` where the
    /// checker would raise `KeyError`.
    pub fn python_type(self, type_name: &str) -> Option<PyType> {
        match self {
            Language::Python => PyType::from_bfcl(type_name),
            Language::Java => Some(match type_name {
                "byte" | "short" | "integer" | "long" => PyType::Int,
                "float" | "double" => PyType::Float,
                "boolean" => PyType::Bool,
                "char" | "String" | "any" => PyType::Str,
                // `Set` maps to Python's set; its converter raises before any type is compared.
                "Array" | "ArrayList" | "Queue" | "Stack" | "Set" => PyType::List,
                "HashMap" | "Hashtable" => PyType::Dict,
                _ => return None,
            }),
            Language::JavaScript => Some(match type_name {
                "String" | "any" => PyType::Str,
                "integer" | "Bigint" => PyType::Int,
                "float" => PyType::Float,
                "Boolean" => PyType::Bool,
                "dict" => PyType::Dict,
                "array" => PyType::List,
                _ => return None,
            }),
        }
    }

    /// The declared types whose items' type is read too.
    pub fn has_item_type(self, type_name: &str) -> bool {
        match self {
            Language::Python => matches!(type_name, "array" | "tuple"),
            // BFCL's NESTED_CONVERSION_TYPE_LIST.
            Language::Java | Language::JavaScript => {
                matches!(type_name, "Array" | "ArrayList" | "array")
            }
        }
    }
}
