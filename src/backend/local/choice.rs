//! `score` mode: the local model's pick as multiple choice over the listed tools, then the winner's
//! arguments written under a grammar from its `inputSchema`.
//!
//! In the **native** style the candidates are the model's own call openings — for Qwen
//! `<tool_call>\n{"name": "TOOL",` — scored as continuations of the prompt its template renders.
//! The pick is the likeliest of the model's possible actions: answering in text (the probability
//! that its reply does not open with a call in any written form), or calling one tool (the
//! probability that it opens a call, times that of naming the tool). Text winning is an abstention.
//! The arguments then continue the same reply, as the model would write them.
//!
//! In the **instructed** style (templates without tools) every tool name, and `none`, is scored as
//! the whole reply to mcpick's choice prompt, minus half the log-probability the model gives the
//! same name when the request is left out — a prior that tempers a small model's taste for some
//! names regardless of the request. `none` winning is an abstention.
//!
//! With `action_probabilities` set, every candidate is scored (in the native style, to a floor of
//! 1e-4: `Scope::Mass`) and the reply carries each action's probability
//! (`crate::pick_distribution`): in the native style the model's own (text, or a call of each
//! tool, normalised over the tools shown); in the instructed style the softmax of the calibrated
//! scores. Otherwise only what can still win is scored (`Scope::Best`). With `pick_only` set, no
//! arguments are written: the pick goes out with `{}` (what `explain` measures is the pick).

use super::LocalBackend;
use super::engine::{ANY_JSON_OBJECT, Engine, Sampling, Scope};
use super::prompt::{CallSyntax, choice_prompt, native_messages, native_tools};
use crate::backend::hosted::parse_arguments;
use crate::backend::{BackendError, Reply, ToolCallRequest, Turn, last_user_text};
use crate::pick_distribution::{ActionProbability, TEXT_ACTION, normalised};
use llama_cpp_2::token::LlamaToken;
use serde_json::{Value, json};

/// With `action_probabilities`, names whose first token is less likely than this are not scored
/// to the end: their probability is below it (their first token's is an upper bound, and what they
/// get), which is also below what a trial keeps of its distribution (`pick_distribution::KEEP_ABOVE`).
const NAME_FLOOR: f64 = 1e-4;

/// How much of the instructed prior is subtracted. Measured with SmolLM2-135M on the shipped travel
/// and smart-home suites (110 tasks), selection accuracy was 19.4% with no calibration, 32.3% with
/// half the prior subtracted and about 20% with all of it: the full prior over-corrects towards
/// names the model finds unlikely on their own.
const PRIOR_WEIGHT: f64 = 0.5;

impl LocalBackend {
    pub(super) fn score_native(
        &self,
        engine: &mut Engine,
        turn: &Turn<'_>,
        syntax: &CallSyntax,
        sampling: Sampling,
    ) -> Result<Reply, BackendError> {
        let tools = native_tools(turn.tools);
        let names = tool_names(turn.tools);
        let prompt = self.prompt(engine, &native_messages(turn.messages), Some(&tools))?;
        // Each opening is scored up to the token that closes the name (`",` for Qwen): enough to
        // tell the names apart, and each extra token costs every candidate an evaluation.
        let openings: Vec<Vec<LlamaToken>> = names
            .iter()
            .map(|name| {
                engine.tokenize(
                    &format!("{}{name}{}", syntax.before_name, syntax.after_name),
                    false,
                )
            })
            .collect();
        let scored_ends: Vec<usize> = names
            .iter()
            .zip(&openings)
            .map(|(name, tokens)| {
                engine.tokens_covering(tokens, syntax.before_name.len() + name.len()) + 1
            })
            .collect();
        let shared_len = shared_prefix(
            &openings
                .iter()
                .zip(&scored_ends)
                .map(|(o, &end)| o[..end.min(o.len())].to_vec())
                .collect::<Vec<_>>(),
        );
        let shared = openings[0][..shared_len].to_vec();
        let own: Vec<Vec<LlamaToken>> = openings
            .iter()
            .zip(&scored_ends)
            .map(|(o, &end)| o[shared_len..end.min(o.len())].to_vec())
            .collect();
        let openers = self.call_openers(engine);
        let scope = if self.options.action_probabilities {
            Scope::Mass(NAME_FLOOR)
        } else {
            Scope::Best
        };
        let scored = engine.score_continuations(&prompt, &shared, &own, openers, scope)?;
        // The model's reply is text, or a call of one tool. The probability that it opens a call
        // in any written form (the template's tag, a fence, bare JSON) rather than with text, times
        // that of then naming a given tool, is the probability of calling that tool; the likeliest
        // of these actions is the model's pick. So it abstains when answering in text is likelier
        // than its likeliest call — which the opening alone hides: a small model opens a call
        // with p ≈ 0.9 after "Thanks!", then hesitates between names.
        let p_call = scored.opener_mass;
        let best = argmax(&scored.candidates);
        let p_best_call = p_call * scored.candidates[best].exp();
        tracing::debug!(p_call, p_best_call, "call decision");
        let input_tokens = prompt.len() as u64;
        let actions = if self.options.action_probabilities {
            // Every name was scored, to `NAME_FLOOR`: text, or a call of each tool.
            let raw = std::iter::once((TEXT_ACTION.to_string(), 1.0 - p_call))
                .chain(
                    names
                        .iter()
                        .zip(&scored.candidates)
                        .map(|(name, score)| (name.to_string(), p_call * score.exp())),
                )
                .collect();
            normalised(raw).unwrap_or_default()
        } else {
            Vec::new()
        };
        if p_best_call < 1.0 - p_call {
            return Ok(Reply {
                text: Some(format!(
                    "(no tool call: text is the likelier reply, p = {:.3}; the likeliest call, {}, p = {p_best_call:.3})",
                    1.0 - p_call,
                    names[best]
                )),
                input_tokens,
                actions,
                ..Reply::default()
            });
        }
        if self.options.pick_only {
            return Ok(picked_alone(names[best], input_tokens, actions));
        }
        let mut reply_so_far = prompt;
        reply_so_far.extend(&openings[best]);
        let (arguments, written) = engine.generate(
            &reply_so_far,
            Some(&argument_grammar(&turn.tools[best])),
            sampling,
        )?;
        Ok(Reply {
            calls: vec![ToolCallRequest {
                id: "call_1".into(),
                tool: names[best].to_string(),
                arguments: parse_arguments(&Value::String(arguments)),
            }],
            input_tokens,
            output_tokens: openings[best].len() as u64 + written,
            actions,
            ..Reply::default()
        })
    }

    pub(super) fn score_instructed(
        &self,
        engine: &mut Engine,
        turn: &Turn<'_>,
        sampling: Sampling,
    ) -> Result<Reply, BackendError> {
        let mut names = tool_names(turn.tools);
        names.push("none");
        let end = engine.end_of_turn();
        let candidates: Vec<Vec<LlamaToken>> = names
            .iter()
            .map(|name| {
                let mut tokens = engine.tokenize(name, false);
                tokens.push(end);
                tokens
            })
            .collect();
        let system = choice_prompt(turn.tools);
        let conversation = |request: &str| {
            vec![
                json!({"role": "system", "content": system}),
                json!({"role": "user", "content": request}),
            ]
        };
        let without_request = self.prompt(engine, &conversation(""), None)?;
        let prior_key = format!("{system}\u{0}instructed");
        let prior = match self.known_prior(&prior_key) {
            Some(prior) => prior,
            None => {
                let prior = engine
                    .score_continuations(&without_request, &[], &candidates, &[], Scope::All)?
                    .candidates;
                self.keep_prior(prior_key, &prior);
                prior
            }
        };
        let request = last_user_text(turn.messages);
        let prompt = self.prompt(engine, &conversation(request), None)?;
        let given = engine
            .score_continuations(&prompt, &[], &candidates, &[], Scope::All)?
            .candidates;
        let mut input_tokens = prompt.len() as u64;
        let calibrated: Vec<f64> = given
            .iter()
            .zip(&prior)
            .map(|(g, p)| g - PRIOR_WEIGHT * p)
            .collect();
        let best = argmax(&calibrated);
        let actions = if self.options.action_probabilities {
            instructed_actions(&names, &calibrated)
        } else {
            Vec::new()
        };
        if best == names.len() - 1 {
            return Ok(Reply {
                text: Some("No tool fits this request.".into()),
                input_tokens,
                actions,
                ..Reply::default()
            });
        }
        if self.options.pick_only {
            return Ok(picked_alone(names[best], input_tokens, actions));
        }
        let schema = &turn.tools[best]["inputSchema"];
        // The arguments are asked for as a follow-up in the same conversation, so the tool list
        // and the request already in the KV cache are not evaluated again.
        let follow_up = format!(
            "Now write the arguments for `{}` as one JSON object matching this JSON Schema, with values from my request:\n{}",
            names[best], schema
        );
        let mut messages = conversation(request);
        messages.push(json!({"role": "assistant", "content": names[best]}));
        messages.push(json!({"role": "user", "content": follow_up}));
        let follow_up_prompt = self.prompt(engine, &messages, None)?;
        let (text, output_tokens) = engine.generate(
            &follow_up_prompt,
            Some(&argument_grammar(&turn.tools[best])),
            sampling,
        )?;
        input_tokens += follow_up_prompt.len() as u64;
        Ok(Reply {
            text: None,
            calls: vec![ToolCallRequest {
                id: "call_1".into(),
                tool: names[best].to_string(),
                arguments: parse_arguments(&Value::String(text)),
            }],
            input_tokens,
            output_tokens,
            searches: Vec::new(),
            actions,
        })
    }

    fn known_prior(&self, key: &str) -> Option<Vec<f64>> {
        self.priors.lock().ok().and_then(|p| p.get(key).cloned())
    }

    fn keep_prior(&self, key: String, prior: &[f64]) {
        if let Ok(mut priors) = self.priors.lock() {
            priors.insert(key, prior.to_vec());
        }
    }
}

/// A call of `tool` with `{}` for arguments: the reply of `pick_only`.
fn picked_alone(tool: &str, input_tokens: u64, actions: Vec<ActionProbability>) -> Reply {
    Reply {
        calls: vec![ToolCallRequest {
            id: "call_1".into(),
            tool: tool.to_string(),
            arguments: parse_arguments(&Value::String("{}".into())),
        }],
        input_tokens,
        actions,
        ..Reply::default()
    }
}

fn tool_names(tools: &[Value]) -> Vec<&str> {
    tools
        .iter()
        .map(|t| t["name"].as_str().unwrap_or_default())
        .collect()
}

/// The grammar of a tool's arguments: its `inputSchema` as GBNF, or any JSON object where
/// llama.cpp's converter cannot take the schema. Whitespace is held to one optional space, as the
/// template writes calls (`{"city": "Paris"}`): the converter's default also allows newlines and
/// indentation, which a model writing pretty JSON spends half its tokens on.
fn argument_grammar(tool: &Value) -> String {
    let grammar = llama_cpp_2::json_schema_to_grammar(&tool["inputSchema"].to_string())
        .unwrap_or_else(|_| ANY_JSON_OBJECT.to_string());
    grammar
        .lines()
        .map(|line| {
            if line.starts_with("space ::=") {
                "space ::= | \" \""
            } else {
                line
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// How many leading tokens every sequence shares, leaving each at least one of its own.
fn shared_prefix(sequences: &[Vec<LlamaToken>]) -> usize {
    let Some((first, rest)) = sequences.split_first() else {
        return 0;
    };
    let common = rest.iter().fold(first.len(), |common, s| {
        first
            .iter()
            .zip(s)
            .take(common)
            .take_while(|(a, b)| a == b)
            .count()
    });
    let shortest = sequences.iter().map(Vec::len).min().unwrap_or(0);
    common.min(shortest.saturating_sub(1))
}

/// The instructed style's actions: the softmax of the calibrated scores, `none` standing for text.
/// The prior-tempered scores rank the names as the pick does, but they are not the probabilities
/// the model would sample its reply with (those are the uncalibrated ones), so a graded measure from
/// them is a measure of the pick's margin, not an expected right-pick rate.
fn instructed_actions(names: &[&str], calibrated: &[f64]) -> Vec<ActionProbability> {
    let top = calibrated.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let raw = names
        .iter()
        .zip(calibrated)
        .enumerate()
        .map(|(i, (name, score))| {
            let action = if i == names.len() - 1 {
                TEXT_ACTION.to_string()
            } else {
                name.to_string()
            };
            (action, (score - top).exp())
        })
        .collect();
    normalised(raw).unwrap_or_default()
}

/// The index of the highest score (the first, on a tie).
fn argmax(scores: &[f64]) -> usize {
    scores
        .iter()
        .enumerate()
        .fold((0, f64::NEG_INFINITY), |(bi, bs), (i, &s)| {
            if s > bs { (i, s) } else { (bi, bs) }
        })
        .0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shared_prefix_leaves_every_candidate_a_token_of_its_own() {
        let t = |ids: &[i32]| ids.iter().map(|&i| LlamaToken(i)).collect::<Vec<_>>();
        assert_eq!(shared_prefix(&[t(&[1, 2, 3]), t(&[1, 2, 4])]), 2);
        assert_eq!(shared_prefix(&[t(&[1, 2, 3])]), 2);
        assert_eq!(shared_prefix(&[t(&[1, 2]), t(&[1, 2, 3])]), 1);
        assert_eq!(shared_prefix(&[t(&[5]), t(&[6])]), 0);
        assert_eq!(shared_prefix(&[]), 0);
    }

    #[test]
    fn argument_grammars_allow_one_space_at_most() {
        let tool = json!({"name": "t", "inputSchema": {"type": "object",
            "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
            "required": ["city"]}});
        let grammar = argument_grammar(&tool);
        let space: Vec<&str> = grammar
            .lines()
            .filter(|l| l.starts_with("space ::="))
            .collect();
        assert_eq!(space, ["space ::= | \" \""]);
        assert!(grammar.contains("city"), "{grammar}");
    }

    #[test]
    fn argmax_takes_the_first_of_equals() {
        assert_eq!(argmax(&[0.1, 0.5, 0.5]), 1);
        assert_eq!(argmax(&[f64::NEG_INFINITY]), 0);
    }
}
