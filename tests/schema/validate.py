#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# Validates files against shaderbake's JSON Schemas with an independent validator (python3-jsonschema).
#   validate.py trace SCHEMA TRACE...     every record of each trace (JSON Lines or {"records": [...]})
#   validate.py document SCHEMA FILE...   each file as one document
#   validate.py invalid-trace SCHEMA TRACE...   every record must be REJECTED by the schema
import json
import sys

import jsonschema


def records(path):
    with open(path, encoding="utf-8") as f:
        if path.endswith(".json"):
            yield from enumerate(json.load(f)["records"], 1)
        else:
            for number, line in enumerate(f, 1):
                if line.strip():
                    yield number, json.loads(line)


def main():
    mode, schema_path, files = sys.argv[1], sys.argv[2], sys.argv[3:]
    with open(schema_path, encoding="utf-8") as f:
        schema = json.load(f)
    validator_class = jsonschema.validators.validator_for(schema)
    validator_class.check_schema(schema)
    validator = validator_class(schema)
    passed = failed = 0
    for path in files:
        items = records(path) if mode != "document" else [(1, json.load(open(path, encoding="utf-8")))]
        for number, item in items:
            errors = list(validator.iter_errors(item))
            if mode == "invalid-trace":
                if errors:
                    passed += 1
                else:
                    failed += 1
                    print(f"{path}:{number}: accepted, but it is invalid")
            elif errors:
                failed += 1
                if failed <= 10:
                    print(f"{path}:{number}: {errors[0].message} (at {list(errors[0].absolute_path)})")
            else:
                passed += 1
    print(f"schema {schema_path.rsplit('/', 1)[-1]}: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
