#!/usr/bin/env python3
"""Validates every AgentLog document axt exports against the published JSON Schema.

The documents are the export golden snapshots, golden/export/agentlog/**/*.snap (an insta header,
then the JSON). The schema is reference material kept beside the repository, not in it:
../shared/agentlog/agentlog.schema.json, or AGENTLOG_SCHEMA. Exit 1 on any invalid document,
2 when the schema or the jsonschema module is missing.
"""
import glob
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
SCHEMA = os.environ.get(
    "AGENTLOG_SCHEMA", os.path.join(REPO, "..", "shared", "agentlog", "agentlog.schema.json")
)


def document(path):
    text = open(path, encoding="utf-8").read()
    if text.startswith("---\n"):
        # insta: "---\n<header>\n---\n<body>"
        text = text.split("\n---\n", 1)[1]
    return json.loads(text)


def main():
    try:
        import jsonschema
    except ImportError:
        print("validate-agentlog: the jsonschema module is missing (pip install jsonschema)", file=sys.stderr)
        return 2
    if not os.path.exists(SCHEMA):
        print(f"validate-agentlog: no AgentLog schema at {SCHEMA}; set AGENTLOG_SCHEMA", file=sys.stderr)
        return 2
    validator = jsonschema.Draft202012Validator(json.load(open(SCHEMA, encoding="utf-8")))
    files = sorted(glob.glob(os.path.join(REPO, "golden", "export", "agentlog", "**", "*.snap"), recursive=True))
    if not files:
        print("validate-agentlog: no export fixture under golden/export/agentlog", file=sys.stderr)
        return 1
    bad = 0
    for path in files:
        errors = list(validator.iter_errors(document(path)))
        for error in errors[:5]:
            where = "/".join(str(p) for p in error.absolute_path)
            print(f"{os.path.relpath(path, REPO)}: /{where}: {error.message[:300]}", file=sys.stderr)
        bad += bool(errors)
    print(f"validate-agentlog: {len(files) - bad}/{len(files)} documents valid against {os.path.normpath(SCHEMA)}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
