"""BFCL's own verdicts on replies, for tests/integration/bfcl_differential.rs.

Reads RECORDS (JSON Lines of {id, category, function, ground_truth}) and CASES (JSON Lines of
{case, id, replies: [[{name, arguments}]]}, `arguments` as the raw text a model sent) and writes one
line per case: {case, valid, error_type}. Each reply is judged the way bfcl-eval's evaluation runner
judges a function-calling model's single response (`_evaluate_single_ast_entry` and
`_evaluate_single_relevance_entry` in eval_checker/eval_runner.py): the first reply decoded as the
FC handlers' `decode_ast` does (`[{name: json.loads(arguments)}]`; a reply without calls is text,
which does not decode), then `is_empty_output` for relevance and irrelevance, and
`is_function_calling_format_output` plus `ast_checker` for every other category.

The checker, the decoding checks and the enums are bfcl-eval's own code, unchanged. One module is
replaced: `bfcl_eval.constants.model_config` imports every model handler and their SDKs, and the
checker reads it only in `convert_func_name`, to ask whether a model's API turned dots in names
into underscores; mcpick records names as the task shows them, so the answer is no.
"""

import collections
import json
import sys
import types

stub = types.ModuleType("bfcl_eval.constants.model_config")
stub.MODEL_CONFIG_MAPPING = collections.defaultdict(
    lambda: types.SimpleNamespace(underscore_to_dot=False)
)
sys.modules["bfcl_eval.constants.model_config"] = stub

from bfcl_eval.constants.enums import Language  # noqa: E402
from bfcl_eval.eval_checker.ast_eval.ast_checker import ast_checker  # noqa: E402
from bfcl_eval.utils import (  # noqa: E402
    is_empty_output,
    is_function_calling_format_output,
)


def decode(reply):
    """The OpenAI function-calling handler's decode_ast; text (no calls) raises like it does."""
    if not reply:
        raise ValueError("a text reply is not a list of calls")
    return [{call["name"]: json.loads(call["arguments"])} for call in reply]


def language(category):
    # bfcl_eval.utils.is_java / is_js read the category the same way.
    if category.endswith("javascript"):
        return Language.JAVASCRIPT
    if category.endswith("java"):
        return Language.JAVA
    return Language.PYTHON


def judge(record, replies):
    category = record["category"]
    first = replies[0] if replies else []
    if "relevance" in category:
        try:
            contains_call = not is_empty_output(decode(first))
        except Exception:
            contains_call = False
        valid = not contains_call if "irrelevance" in category else contains_call
        return valid, None if valid else "relevance"
    try:
        decoded = decode(first)
    except Exception:
        return False, "ast_decoder:decoder_failed"
    if not is_function_calling_format_output(decoded):
        return False, "ast_decoder:decoder_wrong_output_format"
    try:
        result = ast_checker(
            record["function"],
            decoded,
            record["ground_truth"],
            language(category),
            category,
            "mcpick",
        )
    except Exception as e:  # BFCL's own run would stop here; the test reports it.
        return False, f"exception:{type(e).__name__}"
    return result["valid"], result.get("error_type")


def main(records_path, cases_path):
    records = {}
    with open(records_path, encoding="utf-8") as f:
        for line in f:
            record = json.loads(line)
            records[record["id"]] = record
    out = sys.stdout
    with open(cases_path, encoding="utf-8") as f:
        for line in f:
            case = json.loads(line)
            valid, error_type = judge(records[case["id"]], case["replies"])
            out.write(json.dumps({"case": case["case"], "valid": valid, "error_type": error_type}))
            out.write("\n")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
