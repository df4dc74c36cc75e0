//! `random`: the floor. Each trial draws, with a seed derived from the task, one of the listed tools or
//! no call at all, uniformly, and calls it with no arguments. Any model worth using beats it.

use super::{Reply, ToolCallRequest, Turn, tool_results};
use crate::hashing::splitmix64;
use crate::observation::CallArguments;

#[derive(Debug, Clone)]
pub struct RandomBackend {
    pub seed: u64,
}

impl RandomBackend {
    pub fn new(seed: u64) -> RandomBackend {
        RandomBackend { seed }
    }

    pub fn complete(&self, turn: Turn<'_>) -> Reply {
        if tool_results(turn.messages) > 0 || turn.tools.is_empty() {
            return Reply {
                text: Some("Done.".into()),
                ..Reply::default()
            };
        }
        let draw = splitmix64(turn.seed ^ self.seed.wrapping_mul(0x9E37_79B9_7F4A_7C15))
            % (turn.tools.len() as u64 + 1);
        let Some(tool) = turn
            .tools
            .get(draw as usize)
            .and_then(|t| t["name"].as_str())
        else {
            return Reply {
                text: Some("I will not call a tool for this.".into()),
                ..Reply::default()
            };
        };
        let call = ToolCallRequest {
            id: "call_1".into(),
            tool: tool.to_string(),
            arguments: CallArguments::Parsed(Default::default()),
        };
        Reply {
            calls: vec![call],
            ..Reply::default()
        }
    }
}
