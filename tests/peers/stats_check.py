"""Recompute an mcpick A/B report's statistics from its trials with scipy and statsmodels.

Usage: stats_check.py RUN_DIR

Reads RUN_DIR/trials.jsonl and RUN_DIR/summary.json. For every A/B comparison in the summary it
groups the trials by task (a task's repeats, sizes and seeds averaged into one rate per arm), then
recomputes, independently of mcpick's code:

- each arm's Wilson interval over tasks (statsmodels `proportion_confint`, when rates are 0 or 1);
- the picks' p-value: statsmodels' exact McNemar test on the discordant tasks when every rate is 0
  or 1, else the exact sign-flip permutation p on the per-task differences, counted with Python
  integers over every sign pattern by convolution;
- the Holm (or BH) adjustment over the comparisons (statsmodels `multipletests`);
- the exact McNemar test's power at the stated detectable difference (scipy `binomtest` for the
  rejection region, `binom` for the outcome probabilities): at least 80%, and below 80% a little
  under it.

Prints one JSON object: {"checked": N, "failures": [...]}; exits 1 when anything disagrees.
"""

import json
import sys
from collections import defaultdict
from fractions import Fraction
from functools import lru_cache

from scipy.stats import binom, binomtest
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import proportion_confint

ALPHA = 0.05


def close(a, b, rel=1e-9, abs_=1e-12):
    return abs(a - b) <= max(abs_, rel * max(abs(a), abs(b)))


def per_task_rates(trials, backend, arm_a, arm_b):
    """Per (suite, task): right picks over the trials scored on both sides, paired by condition."""
    by_condition = {}
    for t in trials:
        if t["backend"] != backend or t.get("variant") not in (arm_a, arm_b):
            continue
        key = (t["suite"], t["task"], t.get("exposure"), t.get("size"), t.get("sweep_seed", 0), t.get("repeat", 0))
        by_condition.setdefault(key, {})[t["variant"]] = t
    sums = defaultdict(lambda: [0, 0, 0])  # right under A, right under B, pairs
    for key, sides in by_condition.items():
        if arm_a not in sides or arm_b not in sides:
            continue
        a, b = sides[arm_a], sides[arm_b]
        if a["outcome"] == "error" or b["outcome"] == "error":
            continue
        task = (key[0], key[1], key[2])
        sums[task][0] += int(right_pick(a))
        sums[task][1] += int(right_pick(b))
        sums[task][2] += 1
    rates = [(Fraction(ra, n), Fraction(rb, n)) for ra, rb, n in sums.values() if n > 0]
    return rates


def right_pick(trial):
    """The pick: an acceptable first tool, or nothing called when nothing should be."""
    if trial.get("selection_correct") is not None:
        return bool(trial["selection_correct"])
    return trial["outcome"] == "correct_abstain"


def sign_flip_exact(differences):
    """P(|S| >= |s|) over every sign pattern, counted exactly with Fractions."""
    moving = [d for d in differences if d != 0]
    if not moving:
        return 1.0
    observed = abs(sum(moving))
    distribution = {Fraction(0): 1}
    for d in moving:
        step = defaultdict(int)
        for s, count in distribution.items():
            step[s + d] += count
            step[s - d] += count
        distribution = step
    extreme = sum(c for s, c in distribution.items() if abs(s) >= observed)
    return extreme / 2 ** len(moving)


@lru_cache(None)
def critical(d):
    k = -1
    for j in range(d // 2 + 1):
        if binomtest(j, d, 0.5).pvalue < ALPHA:
            k = j
        else:
            break
    return k


def mcnemar_power(n, psi, delta):
    q = (psi + delta) / (2 * psi)
    total = 0.0
    for d in range(1, n + 1):
        k = critical(d)
        if k < 0:
            continue
        total += binom.pmf(d, n, psi) * (binom.cdf(k, d, q) + binom.sf(d - k - 1, d, q))
    return total


def main():
    folder = sys.argv[1]
    trials = [json.loads(line) for line in open(f"{folder}/trials.jsonl") if line.strip()]
    summary = json.load(open(f"{folder}/summary.json"))
    comparisons = summary["experiments"]["ab"]
    failures, checked = [], 0
    raw_p = []
    for c in comparisons:
        rates = per_task_rates(trials, c["backend"], c["arm_a"], c["arm_b"])
        name = f'{c["backend"]} {c["arm_a"]}->{c["arm_b"]}'
        test = c["picks_test"]
        if len(rates) != c["tasks"]:
            failures.append(f"{name}: {len(rates)} tasks, report says {c['tasks']}")
        binary = all(r in (0, 1) for pair in rates for r in pair)
        if binary:
            only_a = sum(1 for a, b in rates if a > b)
            only_b = sum(1 for a, b in rates if b > a)
            both = sum(1 for a, b in rates if a == 1 and b == 1)
            table = [[both, only_a], [only_b, len(rates) - both - only_a - only_b]]
            p = mcnemar(table, exact=True).pvalue
            for arm, right in (("a", both + only_a), ("b", both + only_b)):
                low, high = proportion_confint(right, len(rates), alpha=0.05, method="wilson")
                if not (close(c[arm]["low"], low, 1e-9) and close(c[arm]["high"], high, 1e-9)):
                    failures.append(f"{name}: arm {arm} Wilson [{low}, {high}], report {c[arm]}")
                checked += 1
            detectable = c.get("picks_detectable")
            if detectable is not None:
                psi = (only_a + only_b) / len(rates)
                at = mcnemar_power(len(rates), psi, detectable)
                below = mcnemar_power(len(rates), psi, detectable * 0.98)
                if not (at >= 0.8 - 1e-9 and below < 0.8):
                    failures.append(f"{name}: power {at} at the stated {detectable}, {below} below it")
                checked += 1
        else:
            p = sign_flip_exact([b - a for a, b in rates])
        if test["test"].endswith("20,000 patterns"):
            ok = abs(test["p_value"] - p) < 0.01
        else:
            ok = close(test["p_value"], float(p), 1e-9)
        if not ok:
            failures.append(f"{name}: p {p} ({'McNemar' if binary else 'sign-flip'}), report {test['p_value']}")
        checked += 1
        raw_p.append(test["p_value"])
    methods = {"holm": "holm", "bh": "fdr_bh"}
    adjustment = comparisons[0]["adjustment"] if comparisons else "none"
    if comparisons and adjustment in methods:
        adjusted = multipletests(raw_p, method=methods[adjustment])[1]
        for c, a in zip(comparisons, adjusted):
            if not close(c["picks_test"]["p_adjusted"], float(a), 1e-12):
                failures.append(f'{c["arm_b"]}: adjusted p {a}, report {c["picks_test"]["p_adjusted"]}')
            checked += 1
    print(json.dumps({"checked": checked, "failures": failures}))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
