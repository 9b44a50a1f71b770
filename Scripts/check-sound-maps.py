#!/usr/bin/env python3
"""Checks sound maps against Foley's JSON Schema (Schemas/sound-map.schema.json).

    Scripts/check-sound-maps.py [--schema FILE] MAP.json...

Prints one JSON line per map: {"file": ..., "errors": ["path: message", ...]} (no errors: it
conforms), and exits 1 if any map does not. The schema is for editors and a first check; the
game's own parser (`foley-demo soundmap check FILE`) checks more (files exist and decode, ranges
run forwards, a switch's default is one of its cases). Needs python3-jsonschema (4.x).
"""
import json
import os
import sys

import jsonschema


def main(arguments):
    schema_path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Schemas", "sound-map.schema.json")
    if arguments[:1] == ["--schema"]:
        schema_path, arguments = arguments[1], arguments[2:]
    with open(schema_path, encoding="utf-8") as handle:
        schema = json.load(handle)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    failed = False
    for path in arguments:
        try:
            with open(path, encoding="utf-8") as handle:
                document = json.load(handle)
            errors = [
                "/".join(str(part) for part in error.absolute_path) + ": " + error.message
                for error in sorted(validator.iter_errors(document), key=lambda e: list(map(str, e.absolute_path)))
            ]
        except (OSError, ValueError) as error:
            errors = [f"not readable JSON: {error}"]
        failed = failed or bool(errors)
        print(json.dumps({"file": path, "errors": errors}))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
