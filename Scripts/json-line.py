#!/usr/bin/env python3
"""Prints one JSON object made from KEY=VALUE arguments, for Scripts/bench.sh's rounds.

VALUE is JSON text (what the C baseline prints: a number or an object); VALUE:FIELD takes one
member of an object. A dotted KEY nests: `a.16=1 a.64=2` gives {"a": {"16": 1, "64": 2}}.
Bad JSON fails with the key and the text, instead of writing a line the report cannot read.
    Scripts/json-line.py raw_c_first_sound_ms=10.6 'raw_c_trigger.16={"cpu": 0.1}:cpu'
"""
import json
import sys


def main(arguments):
    result = {}
    for argument in arguments:
        key, separator, value = argument.partition("=")
        if not separator or not key:
            sys.exit(f"json-line: '{argument}' is not KEY=VALUE")
        field = None
        if value.rstrip().endswith("}") is False and ":" in value and value.rsplit(":", 1)[1].isidentifier():
            value, field = value.rsplit(":", 1)
        try:
            parsed = json.loads(value)
        except json.JSONDecodeError as error:
            sys.exit(f"json-line: {key}: '{value.strip()}' is not JSON ({error})")
        if field is not None:
            if not isinstance(parsed, dict) or field not in parsed:
                sys.exit(f"json-line: {key}: '{value.strip()}' has no member '{field}'")
            parsed = parsed[field]
        target = result
        *path, last = key.split(".")
        for part in path:
            target = target.setdefault(part, {})
        target[last] = parsed
    print(json.dumps(result))


if __name__ == "__main__":
    main(sys.argv[1:])
