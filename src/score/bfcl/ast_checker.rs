//! A port of BFCL's `ast_checker` (`bfcl_eval/eval_checker/ast_eval/ast_checker.py`, bfcl-eval
//! 2026.3.23), function for function and quirk for quirk — Java and JavaScript parameters read
//! through ports of BFCL's type converters (`java_values`, `javascript_values`) — so a
//! reply is valid here exactly when it is valid there (`tests/integration/bfcl_differential.rs` holds the two
//! against each other). Among the quirks kept: parallel calls are matched greedily, in answer order;
//! a list's items are type-checked one level deep only; strings are normalised at the top level,
//! in a list's items and in a dict's values, but not deeper; a dict inside a dict is compared by
//! Python equality. Where Python would raise (an unknown type name, a missing function), the reply is
//! invalid with `error_type` `checker_exception` — BFCL's run would stop there.

use super::failure::{CheckFailure, exception, fail};
use super::java_values::java_type_converter;
use super::javascript_values::js_type_converter;
use super::language::Language;
use super::python_value::{PyType, float_value, iterate, py_in, standardize};
use serde_json::{Map, Value};

type Check = Result<(), CheckFailure>;

/// One decoded call: `{name: arguments}` in BFCL's model output.
pub type DecodedCall<'a> = (&'a str, &'a Map<String, Value>);

/// `ast_checker(func_description, model_output, possible_answer, language, test_category, model)`.
pub fn ast_checker(
    functions: &[Value],
    output: &[DecodedCall<'_>],
    answers: &[Value],
    category: &str,
) -> Check {
    let language = Language::of(category);
    if category.contains("parallel") {
        parallel_no_order(functions, output, answers, language)
    } else if category.contains("multiple") {
        multiple(functions, output, answers, language)
    } else {
        if output.len() != 1 {
            return Err(fail(
                "simple_function_checker:wrong_count",
                "Wrong number of functions.",
            ));
        }
        let function = functions
            .first()
            .ok_or_else(|| exception("the record has no function"))?;
        let answer = answers
            .first()
            .ok_or_else(|| exception("the record has no possible answer"))?;
        simple_function(function, output[0], answer, language)
    }
}

fn find_description<'a>(functions: &'a [Value], name: &str) -> Option<&'a Value> {
    functions.iter().find(|f| f["name"].as_str() == Some(name))
}

/// The answer's only function name and its parameters.
fn answer_entry(answer: &Value) -> Result<(&str, &Map<String, Value>), CheckFailure> {
    let entry = answer
        .as_object()
        .and_then(|a| a.iter().next())
        .ok_or_else(|| exception("a possible answer is not `{function: {...}}`"))?;
    let params = entry
        .1
        .as_object()
        .ok_or_else(|| exception("a possible answer's parameters are not a dict"))?;
    Ok((entry.0.as_str(), params))
}

fn multiple(
    functions: &[Value],
    output: &[DecodedCall<'_>],
    answers: &[Value],
    language: Language,
) -> Check {
    if output.len() != answers.len() {
        return Err(fail(
            "multiple_function_checker:wrong_count",
            "Wrong number of functions.",
        ));
    }
    let answer = answers
        .first()
        .ok_or_else(|| exception("the record has no possible answer"))?;
    let (name, _) = answer_entry(answer)?;
    let function = find_description(functions, name)
        .ok_or_else(|| exception(format!("no function is named {name:?}")))?;
    simple_function(function, output[0], answer, language)
}

fn parallel_no_order(
    functions: &[Value],
    output: &[DecodedCall<'_>],
    answers: &[Value],
    language: Language,
) -> Check {
    if output.len() != answers.len() {
        return Err(fail(
            "parallel_function_checker_no_order:wrong_count",
            "Wrong number of functions.",
        ));
    }
    let mut matched: Vec<usize> = Vec::new();
    for (i, answer) in answers.iter().enumerate() {
        let (name, _) = answer_entry(answer)?;
        let function = find_description(functions, name)
            .ok_or_else(|| exception(format!("no function is named {name:?}")))?;
        // Python leaves `result` at the last call checked, and an empty search leaves it unset.
        let mut last: Option<Check> = None;
        for (index, call) in output.iter().enumerate() {
            if matched.contains(&index) {
                continue;
            }
            let result = simple_function(function, *call, answer, language);
            let valid = result.is_ok();
            last = Some(result);
            if valid {
                matched.push(index);
                break;
            }
        }
        match last {
            Some(Ok(())) => {}
            Some(Err(_)) => {
                return Err(fail(
                    "parallel_function_checker_no_order:cannot_find_match",
                    format!(
                        "Could not find a matching function among the unmatched calls for index {i} of possible answers."
                    ),
                ));
            }
            None => return Err(exception("`result` referenced before assignment")),
        }
    }
    Ok(())
}

fn simple_function(
    function: &Value,
    call: DecodedCall<'_>,
    answer: &Value,
    language: Language,
) -> Check {
    let (_, possible) = answer_entry(answer)?;
    let name = function["name"]
        .as_str()
        .ok_or_else(|| exception("a function has no name"))?;
    let details = function["parameters"]["properties"]
        .as_object()
        .ok_or_else(|| exception(format!("{name}: no parameters.properties")))?;
    let required = function["parameters"]["required"]
        .as_array()
        .ok_or_else(|| exception(format!("{name}: no parameters.required")))?;
    let (called, params) = call;
    if called != name {
        return Err(fail(
            "simple_function_checker:wrong_func_name",
            format!("Function name {name:?} not found in model output."),
        ));
    }
    for param in required {
        if !param.as_str().is_some_and(|p| params.contains_key(p)) {
            return Err(fail(
                "simple_function_checker:missing_required",
                format!("Missing required parameter: {param}."),
            ));
        }
    }
    for (param, value) in params {
        let (Some(detail), Some(acceptable)) = (details.get(param), possible.get(param)) else {
            return Err(fail(
                "simple_function_checker:unexpected_param",
                format!("Unexpected parameter: {param:?}."),
            ));
        };
        check_parameter(param, value, detail, acceptable, language)?;
    }
    for (param, acceptable) in possible {
        if !params.contains_key(param) && !contains_empty_string(acceptable) {
            return Err(fail(
                "simple_function_checker:missing_optional",
                format!("Optional parameter {param:?} not provided and not marked as optional."),
            ));
        }
    }
    Ok(())
}

/// `"" in value`: membership for a list, substring for a string.
fn contains_empty_string(value: &Value) -> bool {
    match value {
        Value::Array(items) => items.iter().any(|i| i == ""),
        Value::String(_) => true,
        _ => false,
    }
}

/// One parameter of a call: the body of `simple_function_checker`'s loop.
fn check_parameter(
    param: &str,
    value: &Value,
    detail: &Value,
    acceptable: &Value,
    language: Language,
) -> Check {
    let type_name = detail["type"]
        .as_str()
        .ok_or_else(|| exception(format!("{param}: no type")))?;
    let key_error = |name: &str| exception(format!("{param}: KeyError {name:?}"));
    let expected = language
        .python_type(type_name)
        .ok_or_else(|| key_error(type_name))?;
    let (nested_name, nested) = if language.has_item_type(type_name) {
        let nested_name = detail["items"]["type"]
            .as_str()
            .ok_or_else(|| exception(format!("{param}: no items.type")))?;
        let nested = language
            .python_type(nested_name)
            .ok_or_else(|| key_error(nested_name))?;
        (Some(nested_name), Some(nested))
    } else {
        (None, None)
    };
    let converted;
    let value = match (language, value) {
        (Language::Java | Language::JavaScript, Value::String(text)) => {
            converted = if language == Language::Java {
                java_type_converter(text, type_name, nested_name)?
            } else {
                js_type_converter(text, type_name, nested_name)?
            };
            &converted
        }
        (Language::Java | Language::JavaScript, other) => {
            return Err(fail(
                if language == Language::Java {
                    "type_error:java"
                } else {
                    "type_error:js"
                },
                format!(
                    "Incorrect type for parameter {param:?}. Expected type String, got {}. Parameter value: {other}.",
                    PyType::of(other).name()
                ),
            ));
        }
        // "Allow python auto conversion from int to float."
        (Language::Python, Value::Number(n))
            if type_name == "float" && PyType::of(value) == PyType::Int =>
        {
            converted = n.as_f64().map_or(Value::Null, float_value);
            &converted
        }
        (Language::Python, _) => value,
    };
    let acceptable_items =
        iterate(acceptable).ok_or_else(|| exception(format!("{param}: answer not iterable")))?;
    let is_variable = type_checker(param, value, &acceptable_items, type_name, expected, nested)?;
    if !is_variable {
        match (expected, nested) {
            (PyType::Dict, _) => return dict_checker(param, value, &acceptable_items),
            (PyType::List, Some(PyType::Dict)) => {
                return list_dict_checker(param, value, &acceptable_items);
            }
            (PyType::Str, _) => return string_checker(param, value, &acceptable_items),
            (PyType::List, _) => return list_checker(param, value, &acceptable_items),
            _ => {}
        }
    }
    if !py_in(value, &acceptable_items) {
        return Err(fail(
            "value_error:others",
            format!(
                "Invalid value for parameter {param:?}: {value}. Expected one of {acceptable}."
            ),
        ));
    }
    Ok(())
}

/// The type of the first acceptable value that is not `""`.
fn possible_answer_type(acceptable: &[Value]) -> Option<PyType> {
    acceptable.iter().find(|a| *a != "").map(PyType::of)
}

/// BFCL's `type_checker`: `Ok(is_variable)` or the type error.
fn type_checker(
    param: &str,
    value: &Value,
    acceptable: &[Value],
    type_name: &str,
    expected: PyType,
    nested: Option<PyType>,
) -> Result<bool, CheckFailure> {
    let answer_type = possible_answer_type(acceptable);
    let is_variable = answer_type.is_some_and(|t| t != expected);
    if PyType::of(value) == expected {
        let Some(nested) = nested else {
            return Ok(is_variable);
        };
        for item in acceptable {
            let mut flag = true;
            if let Value::Array(item_values) = item {
                let values = iterate(value).unwrap_or_default();
                for value_item in &values {
                    if type_checker(param, value_item, item_values, nested.name(), nested, None)
                        .is_err()
                    {
                        flag = false;
                        break;
                    }
                }
            }
            if flag {
                return Ok(is_variable);
            }
        }
        // Python has already marked its result invalid here; the "variable" exit below returns
        // that same result, so a failed nested check stays a failure either way.
        return Err(fail(
            "type_error:nested",
            format!(
                "Nested type checking failed for parameter {param:?}. Expected outer type {type_name} with inner type {}. Parameter value: {value}.",
                nested.name()
            ),
        ));
    }
    if answer_type.is_some_and(|t| PyType::of(value) == t) {
        return Ok(true);
    }
    Err(fail(
        "type_error:simple",
        format!(
            "Incorrect type for parameter {param:?}. Expected type {type_name}, got {}. Parameter value: {value}.",
            PyType::of(value).name()
        ),
    ))
}

fn standardized(value: &Value) -> Value {
    match value {
        Value::String(text) => Value::String(standardize(text)),
        other => other.clone(),
    }
}

fn string_checker(param: &str, value: &Value, acceptable: &[Value]) -> Check {
    let candidates: Vec<Value> = acceptable
        .iter()
        .filter(|a| a.is_string())
        .map(standardized)
        .collect();
    if !py_in(&standardized(value), &candidates) {
        return Err(fail(
            "value_error:string",
            format!("Invalid value for parameter {param:?}: {value}. Case insensitive."),
        ));
    }
    Ok(())
}

fn list_checker(param: &str, value: &Value, acceptable: &[Value]) -> Check {
    let output = Value::Array(
        iterate(value)
            .unwrap_or_default()
            .iter()
            .map(standardized)
            .collect(),
    );
    let mut candidates = Vec::with_capacity(acceptable.len());
    for answer in acceptable {
        let items = iterate(answer)
            .ok_or_else(|| exception(format!("{param}: len() of a non-list answer")))?;
        // Python appends only the string items standardised and keeps the others as they are.
        candidates.push(Value::Array(items.iter().map(standardized).collect()));
    }
    if !py_in(&output, &candidates) {
        return Err(fail(
            "value_error:list/tuple",
            format!("Invalid value for parameter {param:?}: {value}."),
        ));
    }
    Ok(())
}

fn dict_checker(param: &str, value: &Value, acceptable: &[Value]) -> Check {
    let output = value
        .as_object()
        .ok_or_else(|| exception(format!("{param}: .items() of a non-dict")))?;
    let mut result = Err(fail("dict_checker:unclear", ""));
    for answer in acceptable {
        if answer == "" {
            continue;
        }
        let answer = answer
            .as_object()
            .ok_or_else(|| exception(format!("{param}: a dict answer is not a dict")))?;
        result = dict_against(output, answer);
        if result.is_ok() {
            return result;
        }
    }
    result
}

/// One pass of `dict_checker`'s loop: the first failure, as Python records it.
fn dict_against(output: &Map<String, Value>, answer: &Map<String, Value>) -> Check {
    for (key, value) in output {
        let Some(listed) = answer.get(key) else {
            return Err(fail(
                "value_error:dict_key",
                format!("Unexpected dict key parameter: '{key}'."),
            ));
        };
        let candidates: Vec<Value> = iterate(listed)
            .ok_or_else(|| exception(format!("{key}: len() of a non-list answer")))?
            .iter()
            .map(standardized)
            .collect();
        if !py_in(&standardized(value), &candidates) {
            return Err(fail(
                "value_error:dict_value",
                format!("Invalid value for parameter '{key}': {value}."),
            ));
        }
    }
    for (key, listed) in answer {
        if !output.contains_key(key) && !contains_empty_string(listed) {
            return Err(fail(
                "value_error:dict_key",
                format!("Missing dict key parameter: '{key}'."),
            ));
        }
    }
    Ok(())
}

fn list_dict_checker(param: &str, value: &Value, acceptable: &[Value]) -> Check {
    let output = iterate(value).unwrap_or_default();
    let mut result = Err(fail("list_dict_checker:unclear", ""));
    for answer in acceptable {
        let dicts = iterate(answer)
            .ok_or_else(|| exception(format!("{param}: len() of a non-list answer")))?;
        if output.len() != dicts.len() {
            result = Err(fail(
                "value_error:list_dict_count",
                "Wrong number of dictionaries in the list.",
            ));
            continue;
        }
        let mut flag = true;
        for (item, dict) in output.iter().zip(&dicts) {
            result = dict_checker(param, item, std::slice::from_ref(dict));
            if result.is_err() {
                flag = false;
                break;
            }
        }
        if flag {
            return Ok(());
        }
    }
    result
}
