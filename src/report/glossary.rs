//! What each column of the report means, said once: `report.html` puts a term's definition on every
//! header cell of that name (a hover) and lists the terms its tables use in a glossary at the end,
//! so a table and the glossary cannot disagree. Each definition says how the number is computed
//! (`analysis::summary`, `analysis::per_tool`, `score::Tally`), and where two measures sound alike
//! — the summary's `selection` and the `right picks` of the per-tool table and of `mcpick compare` —
//! how they differ.

/// (term as it heads a column, what it means).
const TERMS: &[(&str, &str)] = &[
    (
        "tool",
        "The tool a task expects first: the first of its expected calls. \"(no call expected)\" \
         collects the tasks where answering without a call is right.",
    ),
    (
        "tasks",
        "Tasks of this row with at least one judged trial (a trial that ended in a backend error \
         is not judged). Every rate here counts tasks: a task's repeats, sizes and seeds are \
         averaged into one rate first.",
    ),
    (
        "right picks",
        "Share of tasks whose first action was right: an acceptable tool called first, or no call \
         where none is right; arguments are not judged. In the per-tool table, over the tasks that \
         expect that tool, with a 95% interval over tasks (Wilson's, or a bootstrap over tasks when \
         a task's trials disagree). `mcpick compare` reports right picks over all tasks, no-call \
         tasks included, and only over trials judged in both runs — so it differs from the \
         summary's selection, which leaves the no-call tasks out.",
    ),
    (
        "right pick",
        "Share of tasks whose first action was right (an acceptable tool called first, or no call \
         where none is right), with a Wilson 95% interval over tasks; arguments are not judged.",
    ),
    (
        "p_right",
        "The probability the model gave to a right first action, for backends that score every \
         action (local in score mode with --graded): the mean over the row's tasks. It is the \
         right-pick rate the same model would have sampling at temperature 1; blank when the \
         backend reports no distribution.",
    ),
    (
        "picked instead",
        "What was called first when the pick was wrong, in trials: another tool; (none) when \
         nothing was called; \"(unparseable)\" when the call's arguments did not parse; \"(not \
         offered)\" for a tool that was not in the list shown. The link opens those requests.",
    ),
    (
        "task",
        "The task's id in its suite (suite/task when the run has several suites).",
    ),
    (
        "request",
        "What the model was asked: the task's last user message, as trials.jsonl stores it.",
    ),
    (
        "picked by series",
        "Each series (backend, with its description arm and exposure strategy when the run has \
         them) that got the request wrong, and what it called first; with several trials of the \
         task, each pick with its count, of the trials judged.",
    ),
    (
        "backend",
        "What picked the tools: a model, or an offline baseline (bm25 ranks tools by the request; \
         random picks at random; oracle is given the answers).",
    ),
    (
        "suite",
        "The task file; (all) pools every suite. With description arms or exposure strategies, \
         each gets a cell of its own (suite · arm · strategy).",
    ),
    (
        "trials",
        "How many trials the row counts — in the summary, every trial run in the cell, backend \
         errors included — except in the size and position tables, where it is the tasks behind \
         the rate (each task's trials averaged first).",
    ),
    (
        "accuracy",
        "Share of tasks answered right: the right tool with the right arguments, or no call where \
         none is right (outcomes correct and correct_abstain), over every task, no-call tasks \
         included; backend errors left out. 95% interval over tasks.",
    ),
    (
        "selection",
        "Among tasks that expect a call: the share whose first call picked an acceptable tool \
         (arguments not judged). No-call tasks are left out — the difference from right picks, \
         which counts them. 95% interval over tasks.",
    ),
    (
        "tool + args",
        "Among tasks that expect a call: the share whose first pick was right and whose arguments \
         were right too (outcome correct). 95% interval over tasks.",
    ),
    (
        "abstention P / R",
        "Precision: of the trials that called nothing, the share where nothing was right. Recall: \
         of the trials where nothing was right, the share that called nothing. Over trials.",
    ),
    (
        "calls / task",
        "Tool calls made per trial, on average (searches for tools are not calls).",
    ),
    (
        "errors",
        "Trials that ended in a backend error: counted here, left out of every rate.",
    ),
    (
        "scoring",
        "The scoring profile the trials were judged under: mcp (mcpick's rules, every turn), or \
         bfcl (the first reply only).",
    ),
    (
        "latency p50 / p95",
        "Wall time of a trial (every turn, backend and tool calls), median and 95th percentile \
         (nearest rank), in milliseconds.",
    ),
    (
        "tokens in / out",
        "Prompt and completion tokens the backend reported, summed (0 for offline baselines).",
    ),
    (
        "cost",
        "Estimated spend in US dollars, from the prices the run was given.",
    ),
    (
        "tool A",
        "One tool of a pair that take each other's picks (expected → picked first, both ways).",
    ),
    ("tool B", "The other tool of the pair."),
    (
        "A→B",
        "Trials where tool A was expected and tool B was called first.",
    ),
    (
        "B→A",
        "Trials where tool B was expected and tool A was called first.",
    ),
    (
        "lint",
        "`mcpick lint` findings on either tool's name or description: the descriptions to fix \
         first.",
    ),
    (
        "expected",
        "The tool the trials expected first (a heat map row not drawn).",
    ),
    ("picked", "The tool called first instead ((none): no call)."),
    ("N", "Tools shown to the model in this condition."),
    (
        "series",
        "A backend, with its description arm and exposure strategy when the run has them.",
    ),
    ("tools shown", "Mean number of tools listed to the model."),
    (
        "prompt tokens",
        "Mean prompt tokens per request, as the backend counted them.",
    ),
    (
        "position",
        "The 1-based position of the expected tool in the list shown, in buckets.",
    ),
    (
        "fit",
        "The logistic fit of right picks in ln N (the number of tools shown).",
    ),
    (
        "accuracy at smallest N",
        "The fitted right-pick rate at the smallest number of tools measured.",
    ),
    (
        "N at 90%",
        "The number of tools at which the fitted rate falls to 90% of its value at the smallest \
         N (* beyond the largest N measured), with a 95% interval from tasks resampled whole.",
    ),
    (
        "N at 50%",
        "The number of tools at which the fitted rate falls to half its value at the smallest N.",
    ),
    (
        "measure",
        "What the row compares: right picks, or the graded measure (p_right, or a sampled \
         backend's right picks over its repeats).",
    ),
    ("n", "The tasks compared (and the trial pairs behind them)."),
    (
        "B − A [95% CI]",
        "The paired difference, arm B minus arm A, in percentage points, with its 95% interval.",
    ),
    (
        "test",
        "The paired test behind p, and the discordant tasks it rests on (A better / B better).",
    ),
    (
        "p",
        "The test's p-value, raw, then adjusted over the comparisons of the table (Holm's unless \
         the run said --adjust); the verdict follows the adjusted one.",
    ),
    (
        "detectable (80% power)",
        "The smallest difference the test would find four times in five on these tasks.",
    ),
    (
        "verdict",
        "What the comparison says, from the adjusted p-value; \"(decides)\" marks the measure \
         that decides.",
    ),
    (
        "A",
        "Arm A, the first description arm: the first column so named holds its name, the second \
         its rate (right picks with a 95% interval over tasks, or the graded measure's mean).",
    ),
    (
        "B",
        "Arm B, the arm compared with A: its name, then its rate, as for A.",
    ),
    ("A → B", "The two arms compared: from arm A to arm B."),
    ("action", "A tool, or answering in text."),
    (
        "own tasks",
        "Tasks where this action is an acceptable first pick.",
    ),
    (
        "own mass",
        "The mean probability mass the action draws on its own tasks, arm A → arm B (a backend \
         without probabilities counts its picks).",
    ),
    ("own gain", "Expected picks gained on its own tasks, B − A."),
    (
        "other tasks",
        "Tasks where this action is not an acceptable first pick.",
    ),
    (
        "mass taken",
        "The mean probability mass the action draws on other actions' tasks, arm A → arm B.",
    ),
    (
        "taken gain",
        "Expected picks taken from other actions' tasks, B − A.",
    ),
    (
        "server",
        "A bystander server shown beside the suite (`--bystanders`), or \"(all bystanders)\": \
         every one together.",
    ),
    (
        "picks taken",
        "Of the trials whose task expects a call, those whose first call went to this bystander \
         server's tools, in trials.",
    ),
    (
        "share of picks",
        "Picks taken over the trials whose task expects a call, with a Wilson 95% interval when \
         each task ran once (with repeats the trials are not independent and no interval is \
         given).",
    ),
    (
        "false calls (no-call tasks)",
        "Of the trials whose task expects no call, those whose first call went to this bystander \
         server's tools.",
    ),
    (
        "its tools called first",
        "The bystander server's tools that were called first, on either kind of task, each with \
         its count of trials (names as served: SERVER__TOOL where a clash renamed it).",
    ),
    (
        "flag",
        "\"takes over\": B's description takes picks from other tools' tasks, more than it gains \
         on its own.",
    ),
];

/// Every term with its definition, in reading order.
pub fn glossary() -> Vec<(String, String)> {
    TERMS
        .iter()
        .map(|(term, meaning)| (term.to_string(), meaning.to_string()))
        .collect()
}
