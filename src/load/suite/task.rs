//! One task checked, from a suite's `[[task]]` or a task file's record: a unique id, a prompt or
//! conversation, its own tool list, and exactly one expectation whose tools exist (in the toolset
//! and every variant of it) and whose acceptable values satisfy their parameter's schema.

use super::place::Place;
use super::satisfiable::{ArgumentContext, Meetable, check_matcher};
use crate::gold_arguments::budget::STEPS_PER_CALL;
use crate::gold_arguments::{NoCall, SearchBudget, gold_call_within};
use crate::load::Diagnostic;
use crate::load::diagnostic::closest_name;
use crate::load::toolset::parameters_help;
use crate::load::variant::LoadedVariant;
use crate::model::{
    ArgMatcher, BfclRecord, Expectation, ExpectedCall, Review, Role, ScoringProfile, Task,
    TaskInput, TaskTool, Toolset,
};
use crate::spec::{ExpectedCallSpec, Located, TaskSpec, toml_datetimes_as_strings};
use std::collections::{BTreeMap, HashMap};
use std::ops::Range;

/// The expectation fields of a task as written (exactly one may be given).
struct Written {
    expect: Option<Vec<Located<ExpectedCallSpec>>>,
    any_of: Option<Vec<Located<ExpectedCallSpec>>>,
    all_of: Option<Vec<Located<ExpectedCallSpec>>>,
    no_call: Option<Located<bool>>,
}

pub struct TaskChecks<'a> {
    pub toolset: &'a Toolset,
    pub variants: &'a [&'a LoadedVariant],
    /// Task id → where it was first defined, for duplicate reports.
    pub first_seen: HashMap<String, String>,
    /// The work the searches for satisfying arguments may still do in this load.
    pub search: SearchBudget,
}

impl TaskChecks<'_> {
    pub fn task(
        &mut self,
        spec: TaskSpec,
        place: &Place<'_>,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Option<Task> {
        let errors_before = diagnostics.iter().filter(|d| d.is_error()).count();
        let id = spec.id.value.clone();
        let id_span = spec.id.span.as_ref();
        let hidden = crate::untrusted_text::hidden_characters(&id);
        if id.trim().is_empty() {
            diagnostics.push(place.error(
                id_span,
                "task id must not be empty".into(),
                "give every task a short unique id such as \"weather-paris-now\"".into(),
            ));
        } else if !hidden.is_empty() || id.contains(['\n', '\t']) {
            diagnostics.push(place.error(
                id_span,
                format!(
                    "task id \"{}\" holds a control or line-breaking character: an id is a name people read, and every report file holds it",
                    crate::untrusted_text::escaped(&id)
                        .replace('\n', "\\n")
                        .replace('\t', "\\t")
                ),
                "use letters, digits, '-' and '_', such as \"weather-paris-now\"".into(),
            ));
        } else if let Some(first) = self.first_seen.get(&id) {
            diagnostics.push(place.error(
                id_span,
                format!("duplicate task id {id:?} (first defined at {first})"),
                "task ids must be unique within a suite; rename one".into(),
            ));
        } else {
            self.first_seen.insert(id.clone(), place.describe(id_span));
        }

        let input = match (spec.prompt, spec.messages) {
            (Some(prompt), None) if !prompt.trim().is_empty() => Some(TaskInput::Prompt(prompt)),
            (Some(_), None) => {
                diagnostics.push(place.error(
                    id_span,
                    format!("task {id:?}: `prompt` is empty"),
                    "write the user's request".into(),
                ));
                None
            }
            (None, Some(messages)) => self
                .messages(&id, messages, place, id_span, diagnostics)
                .map(TaskInput::Messages),
            (Some(_), Some(_)) => {
                diagnostics.push(
                    place.error(
                        id_span,
                        format!("task {id:?} has both `prompt` and `messages`"),
                        "keep one: `prompt` for a single user turn, `messages` for a conversation"
                            .into(),
                    ),
                );
                None
            }
            (None, None) => {
                diagnostics.push(place.error(
                    id_span,
                    format!("task {id:?} has neither `prompt` nor `messages`"),
                    "add `prompt = \"...\"`".into(),
                ));
                None
            }
        };

        let expects_no_call = spec.expect_no_call.as_ref().is_some_and(|b| b.value);
        let tools = spec.tools.map(|written| {
            self.task_tools(&id, written, expects_no_call, place, id_span, diagnostics)
        });
        let expectation = self.expectation(
            &id,
            Written {
                expect: spec.expect,
                any_of: spec.expect_any_of,
                all_of: spec.expect_all_of,
                no_call: spec.expect_no_call,
            },
            tools.as_deref(),
            place,
            id_span,
            diagnostics,
        );
        let bfcl = spec
            .bfcl
            .map(serde_json::from_value::<BfclRecord>)
            .transpose()
            .unwrap_or_else(|e| {
                diagnostics.push(place.error(
                    id_span,
                    format!("task {id:?}: `bfcl`: {e}"),
                    "`bfcl` is {category, function, ground_truth} as `mcpick import-bfcl` writes it"
                        .into(),
                ));
                None
            });
        let own_system = matches!(&input, Some(TaskInput::Messages(m)) if m.iter().any(|m| m.role == Role::System));
        if spec.replace_system == Some(true) && !own_system {
            diagnostics.push(place.warning(
                id_span,
                format!("task {id:?}: `replace_system = true`, but the task has no system message"),
                "add a system message to `messages`, or drop `replace_system`".into(),
            ));
        }
        let review = spec.review.as_ref().and_then(|written| {
            let review = Review::parse(&written.value);
            if review.is_none() {
                diagnostics.push(place.error(
                    written.span.as_ref().or(id_span),
                    format!(
                        "task {id:?}: `review = {:?}` is not a review state",
                        written.value
                    ),
                    "write draft, doubtful or accepted (`mcpick review` sets it)".into(),
                ));
            }
            review
        });
        let errors_after = diagnostics.iter().filter(|d| d.is_error()).count();
        if errors_after > errors_before {
            return None;
        }
        Some(Task {
            id,
            input: input?,
            tags: spec.tags,
            lang: spec.lang.unwrap_or_else(|| "en".to_string()),
            expectation: expectation?,
            tools,
            source: place.path().to_path_buf(),
            line: place.line(id_span),
            scoring: ScoringProfile::Mcp,
            bfcl,
            today: None,
            replace_system: spec.replace_system.unwrap_or(false),
            review,
            drafted_by: None,
        })
    }

    fn expectation(
        &mut self,
        id: &str,
        written: Written,
        tools: Option<&[TaskTool]>,
        place: &Place<'_>,
        id_span: Option<&Range<usize>>,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Option<Expectation> {
        let Written {
            expect,
            any_of,
            all_of,
            no_call,
        } = written;
        let no_call_set = no_call.as_ref().is_some_and(|b| b.value);
        let given = usize::from(expect.is_some())
            + usize::from(any_of.is_some())
            + usize::from(all_of.is_some())
            + usize::from(no_call.is_some());
        if given != 1 || (no_call.is_some() && !no_call_set) {
            let help = "give exactly one of `expect = [...]`, `expect_any_of = [...]`, `expect_all_of = [...]` or `expect_no_call = true`";
            let message = if given == 0 || (given == 1 && !no_call_set && no_call.is_some()) {
                format!("task {id:?} says nothing about what a good answer does")
            } else {
                format!(
                    "task {id:?} has more than one of expect / expect_any_of / expect_all_of / expect_no_call"
                )
            };
            diagnostics.push(place.error(id_span, message, help.into()));
            return None;
        }
        if no_call_set {
            return Some(Expectation::NoCall);
        }
        let (calls, kind) = match (expect, any_of, all_of) {
            (Some(calls), None, None) => (calls, "expect"),
            (None, Some(calls), None) => (calls, "expect_any_of"),
            (None, None, Some(calls)) => (calls, "expect_all_of"),
            _ => return None,
        };
        if calls.is_empty() || (kind == "expect_any_of" && calls.len() < 2) {
            let help = if kind == "expect_any_of" {
                "list two or more alternatives, or use `expect` for a single right answer"
            } else {
                "list at least one call, or use `expect_no_call = true`"
            };
            diagnostics.push(place.error(
                id_span,
                format!("task {id:?}: {kind} is too short"),
                help.into(),
            ));
            return None;
        }
        let mut checked = Vec::with_capacity(calls.len());
        let mut unmet = Vec::new();
        for call in calls {
            if let Some((call, problem)) = self.expected_call(id, call, tools, place, diagnostics) {
                checked.push(call);
                unmet.extend(problem);
            }
        }
        // Of alternatives, one that can never be met beside others that can is only dead.
        let some_met = kind == "expect_any_of" && unmet.len() < checked.len();
        for mut problem in unmet {
            if some_met {
                problem.severity = crate::load::Severity::Warning;
                problem.message = format!("{} (a dead alternative)", problem.message);
            }
            diagnostics.push(problem);
        }
        Some(match kind {
            "expect_any_of" => Expectation::AnyOf(checked),
            "expect_all_of" => Expectation::AllOf(checked),
            _ => Expectation::Calls(checked),
        })
    }

    fn expected_call(
        &mut self,
        id: &str,
        call: Located<ExpectedCallSpec>,
        tools: Option<&[TaskTool]>,
        place: &Place<'_>,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Option<(ExpectedCall, Option<Diagnostic>)> {
        let spec = call.value;
        let tool_span = spec.tool.span.as_ref().or(call.span.as_ref());
        // With its own list, a task calls tools by the names it shows them under.
        let (toolset_name, known): (Option<&str>, Vec<&str>) = match tools {
            Some(tools) => (
                tools
                    .iter()
                    .find(|t| t.name == *spec.tool)
                    .map(|t| t.tool.as_str()),
                tools.iter().map(|t| t.name.as_str()).collect(),
            ),
            None => (
                Some(spec.tool.value.as_str()),
                self.toolset.tools.iter().map(|t| t.name.as_str()).collect(),
            ),
        };
        let Some(tool) = toolset_name.and_then(|name| self.toolset.tool(name)) else {
            let (holder, help) = match (tools, closest_name(&spec.tool, known.into_iter())) {
                (Some(_), Some(near)) => (
                    "the task's `tools` list".to_string(),
                    format!("did you mean {near:?}?"),
                ),
                (Some(_), None) => (
                    "the task's `tools` list".to_string(),
                    "add the tool to the task's `tools`, or expect one it lists".to_string(),
                ),
                (None, Some(near)) => (
                    format!("toolset {:?}", self.toolset.name),
                    format!(
                        "did you mean {near:?}? `mcpick lint {}` lists the toolset",
                        self.toolset.name
                    ),
                ),
                (None, None) => (
                    format!("toolset {:?}", self.toolset.name),
                    format!(
                        "add the tool to toolset {:?} or expect one it has",
                        self.toolset.name
                    ),
                ),
            };
            diagnostics.push(place.error(
                tool_span,
                format!(
                    "task {id:?} expects tool {:?}, which {holder} does not have",
                    spec.tool.value
                ),
                help,
            ));
            return None;
        };
        for variant in self.variants {
            if variant.map_tool(&tool.name).is_none() {
                diagnostics.push(place.error(
                    tool_span,
                    format!(
                        "task {id:?} expects tool {:?}, which variant {:?} removes",
                        tool.name, variant.name
                    ),
                    format!(
                        "keep the tool in {} or drop it from the variant's `remove`",
                        variant.source.display()
                    ),
                ));
            }
        }
        let parameters: Vec<String> = tool.parameters().map(|(k, _)| k.clone()).collect();
        let mut args = BTreeMap::new();
        let mut meetable = Meetable::Yes;
        for (name, mut written) in spec.args {
            toml_datetimes_as_strings(&mut written);
            let span = name.span.as_ref().or(tool_span);
            if !parameters.contains(&name.value) {
                diagnostics.push(place.error(
                    span,
                    format!(
                        "task {id:?} expects argument {:?}, but tool {:?} has no such parameter",
                        name.value, tool.name
                    ),
                    parameters_help(&parameters),
                ));
                continue;
            }
            let mut matcher = match ArgMatcher::parse(&written) {
                Ok(m) => m,
                Err(e) => {
                    diagnostics.push(place.error(
                        span,
                        format!("task {id:?}: argument {:?}: {e}", name.value),
                        "see the argument matchers in tasks/README.md".into(),
                    ));
                    continue;
                }
            };
            let property = tool.input_schema["properties"][&name.value].clone();
            matcher.set_comparisons(&name.value, &property);
            let context = ArgumentContext {
                task: id,
                tool,
                name: &name.value,
                place,
                span,
            };
            let mut allotted = self.search.allot(STEPS_PER_CALL);
            let checked = check_matcher(&context, &matcher, diagnostics, &mut allotted);
            self.search.settle(STEPS_PER_CALL, &allotted);
            match checked {
                Meetable::Yes => {}
                Meetable::No => meetable = Meetable::No,
                Meetable::CannotTell if meetable == Meetable::Yes => {
                    meetable = Meetable::CannotTell
                }
                Meetable::CannotTell => {}
            }
            args.insert(name.value, matcher);
        }
        let call = ExpectedCall {
            tool: spec.tool.value,
            args,
            refused: spec.refused,
        };
        // Each argument can be met: then the call as a whole, against the schema and the tool's
        // simulated behaviour. Whether that is an error is the expectation's to say; a search
        // that could not finish is said here, as a warning, and is no error anywhere.
        let mut unmet = None;
        if meetable == Meetable::Yes {
            let mut allotted = self.search.allot(STEPS_PER_CALL);
            let found = gold_call_within(&call, tool, &mut allotted);
            self.search.settle(STEPS_PER_CALL, &allotted);
            match found {
                Ok(_) => {}
                Err(NoCall::Impossible(why)) => unmet = Some(place.error(
                    tool_span,
                    format!("task {id:?}: no call to {:?} meets this expectation: {why}", tool.name),
                    "fix the expected values, or, if the task tests that the tool refuses this call, add `refused = true` to the expected call".into(),
                )),
                Err(NoCall::Undecided(why)) => diagnostics.push(place.warning(
                    tool_span,
                    format!("task {id:?}: cannot tell whether a call to {:?} meets this expectation: {why}", tool.name),
                    "the check stopped before it could decide; if the task is right, nothing needs doing, else simplify the tool's schema or the expected values".into(),
                )),
            }
        }
        Some((call, unmet))
    }
}
