//! The lint rules, one per principle or anti-pattern of the source chapter they enforce: each rule's
//! id, where in the chapter it comes from (in English, as findings cite it), and the chapter's own
//! words for it (`passage`, in the chapter's Chinese), which `mcpick lint --sources` shows.

use serde::Serialize;

/// The rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Rule {
    EmptyDescription,
    ShortDescription,
    NameNotVerbFirst,
    NameCharacters,
    NameTooLong,
    NestedName,
    ParamWithoutDescription,
    ParamDescriptionUninformative,
    OverlappingParams,
    OptionalWithoutDefault,
    NullDefault,
    DestructiveWithoutHint,
    ContradictoryHints,
    ReadOnlyWithoutHint,
    Deprecated,
    TooManyTools,
    Boilerplate,
    SimilarDescriptions,
    RegistryDescription,
    RegistryPromise,
}

impl Rule {
    pub const ALL: [Rule; 20] = [
        Rule::EmptyDescription,
        Rule::ShortDescription,
        Rule::NameNotVerbFirst,
        Rule::NameCharacters,
        Rule::NameTooLong,
        Rule::NestedName,
        Rule::ParamWithoutDescription,
        Rule::ParamDescriptionUninformative,
        Rule::OverlappingParams,
        Rule::OptionalWithoutDefault,
        Rule::NullDefault,
        Rule::DestructiveWithoutHint,
        Rule::ContradictoryHints,
        Rule::ReadOnlyWithoutHint,
        Rule::Deprecated,
        Rule::TooManyTools,
        Rule::Boilerplate,
        Rule::SimilarDescriptions,
        Rule::RegistryDescription,
        Rule::RegistryPromise,
    ];

    pub fn id(self) -> &'static str {
        match self {
            Rule::EmptyDescription => "empty-description",
            Rule::ShortDescription => "short-description",
            Rule::NameNotVerbFirst => "name-not-verb-first",
            Rule::NameCharacters => "name-characters",
            Rule::NameTooLong => "name-too-long",
            Rule::NestedName => "nested-name",
            Rule::ParamWithoutDescription => "param-without-description",
            Rule::ParamDescriptionUninformative => "param-description-uninformative",
            Rule::OverlappingParams => "overlapping-params",
            Rule::OptionalWithoutDefault => "optional-without-default",
            Rule::NullDefault => "null-default",
            Rule::DestructiveWithoutHint => "destructive-without-hint",
            Rule::ContradictoryHints => "contradictory-hints",
            Rule::ReadOnlyWithoutHint => "read-only-without-hint",
            Rule::Deprecated => "deprecated-tool",
            Rule::TooManyTools => "too-many-tools",
            Rule::Boilerplate => "boilerplate",
            Rule::SimilarDescriptions => "similar-descriptions",
            Rule::RegistryDescription => "registry-description",
            Rule::RegistryPromise => "registry-promise",
        }
    }

    /// The rule named by its id.
    pub fn by_id(id: &str) -> Option<Rule> {
        Rule::ALL.into_iter().find(|rule| rule.id() == id)
    }

    /// Where in the source chapter the rule comes from.
    pub fn source(self) -> &'static str {
        match self {
            Rule::EmptyDescription | Rule::ShortDescription => {
                "§5.2.3 and anti-pattern 1 (a description too short to pick by)"
            }
            Rule::NameNotVerbFirst => "principle 1 (names that start with a verb)",
            Rule::NameCharacters | Rule::NameTooLong => "§5.2.1 (SEP-986 tool names)",
            Rule::NestedName => "anti-pattern 2 (a long or hierarchical name)",
            Rule::ParamWithoutDescription | Rule::ParamDescriptionUninformative => {
                "principle 2 (a description for every parameter)"
            }
            Rule::OverlappingParams => "anti-pattern 3 (parameters that overlap in meaning)",
            Rule::OptionalWithoutDefault | Rule::NullDefault => {
                "principle 3 (defaults that serve the most common path)"
            }
            Rule::DestructiveWithoutHint | Rule::ContradictoryHints | Rule::ReadOnlyWithoutHint => {
                "principle 6 and anti-pattern 6 (honest annotations, destructiveHint)"
            }
            Rule::Deprecated => {
                "§5.2.3 (the description decides the pick: a deprecated tool still competes for it)"
            }
            Rule::TooManyTools => "§5.3.4 (how many tools a server exposes)",
            Rule::Boilerplate => {
                "§5.2.3 (the description decides the pick: text every tool repeats tells none apart)"
            }
            Rule::SimilarDescriptions => {
                "§5.2.3 (confusable neighbours: the description decides the pick)"
            }
            Rule::RegistryDescription => {
                "the MCP registry's server.json schema 2025-12-11 (description: 1 to 100 characters)"
            }
            Rule::RegistryPromise => {
                "the MCP registry's server.json (what its description says the server does)"
            }
        }
    }

    /// The chapter's own words for the rule.
    pub fn passage(self) -> &'static str {
        match self {
            Rule::EmptyDescription | Rule::ShortDescription => {
                "反模式 1：description 过短（如\"查数据\"）——LLM 无法选对；正确做法：明确输入、输出、边界、假设"
            }
            Rule::NameNotVerbFirst => {
                "1. 动词开头命名——get_weather、send_email、create_issue。动词让 LLM 快速理解这是一个\"做事\"的工具。"
            }
            Rule::NameCharacters | Rule::NameTooLong => "5.2.1 字段全景",
            Rule::NestedName => {
                "反模式 2：name 太长或含层级（`company.domain.tools.get_user_by_id_v2`）——LLM 分词成本高、误调；正确做法：用扁平且简洁的 name，最多一级分隔符"
            }
            Rule::ParamWithoutDescription | Rule::ParamDescriptionUninformative => {
                "2. 每个参数都加 description——LLM 不仅看工具 description，还看参数 description。别吝啬字数。"
            }
            Rule::OverlappingParams => {
                "反模式 3：参数语义重叠（`id` 和 `userId` 都存在）——LLM 不知该填哪个；正确做法：合并或重命名，避免歧义"
            }
            Rule::OptionalWithoutDefault | Rule::NullDefault => {
                "3. 默认值服务于\"最常见路径\"——timeout: 30 好过 timeout: null，因为 LLM 更愿意调用\"可以不填\"的工具。"
            }
            Rule::DestructiveWithoutHint | Rule::ContradictoryHints | Rule::ReadOnlyWithoutHint => {
                "6. 诚实标注 annotation——欺骗标注 = 让用户失去保护。这是信誉问题。／反模式 6：destructive 不标注 destructiveHint——Client 可能不弹确认；正确做法：诚实标注，用户更安全"
            }
            Rule::Deprecated | Rule::Boilerplate | Rule::SimilarDescriptions => {
                "5.2.3 \"description\" 的隐藏分量"
            }
            Rule::TooManyTools => "5.3.4 工具集规模的\"金发姑娘区\"",
            // Not the chapter's: the registry's own schema, which the source cites instead.
            Rule::RegistryDescription | Rule::RegistryPromise => "",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Findings cite the chapter in English; its Chinese is the passage, shown only when asked.
    #[test]
    fn sources_are_english_and_passages_the_chapters() {
        for rule in Rule::ALL {
            assert!(
                !rule.source().chars().any(crate::ranking::is_cjk),
                "{}",
                rule.id()
            );
            // A rule from the registry's schema has no passage of the chapter to show.
            let from_registry = rule.source().starts_with("the MCP registry");
            assert_eq!(
                rule.passage().chars().any(crate::ranking::is_cjk),
                !from_registry,
                "{}",
                rule.id()
            );
            assert_eq!(Rule::by_id(rule.id()), Some(rule));
        }
    }
}
