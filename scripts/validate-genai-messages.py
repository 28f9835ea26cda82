#!/usr/bin/env python3
"""Validates the message attributes of every OTLP export snapshot against the GenAI
semantic conventions' JSON schemas.

The documents are golden/export/otlp/**/*.snap (an insta header, then OTLP/JSON). Each
span's gen_ai.input.messages, gen_ai.output.messages and gen_ai.system_instructions (JSON
text) is checked against gen-ai-input-messages.json, gen-ai-output-messages.json and
gen-ai-system-instructions.json, and so is each span event's (the content capture setting's
event); the newest stored schema is used, model-gen-ai/ before the top level. The schemas are reference material kept beside the
repository, not in it (like ../shared/agentlog): OTEL_GENAI_SCHEMAS names their directory,
else ../shared/otel-genai/. They are published by OpenTelemetry (Apache-2.0) in
open-telemetry/semantic-conventions-genai, docs/gen-ai/ (earlier in
open-telemetry/semantic-conventions, docs/gen-ai/, until its commit c9e48b1 moved them).

Exit 0 when every attribute is valid and at least one was checked, 1 on an invalid one
or none checked, 2 when the schemas or the jsonschema module are missing.
"""
import glob
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
SCHEMAS = os.environ.get("OTEL_GENAI_SCHEMAS", os.path.join(REPO, "..", "shared", "otel-genai"))
ATTRIBUTES = {
    "gen_ai.input.messages": "gen-ai-input-messages.json",
    "gen_ai.output.messages": "gen-ai-output-messages.json",
    "gen_ai.system_instructions": "gen-ai-system-instructions.json",
}


def document(path):
    text = open(path, encoding="utf-8").read()
    if text.startswith("---\n"):
        text = text.split("\n---\n", 1)[1]
    return json.loads(text)


def main():
    try:
        import jsonschema
    except ImportError:
        print("validate-genai-messages: the jsonschema module is missing (pip install jsonschema)", file=sys.stderr)
        return 2
    validators = {}
    for attribute, name in ATTRIBUTES.items():
        # The newest schema stored: model/gen-ai/ where the conventions now generate them
        # (only the input messages' is stored there, at PR #584's state), else docs/gen-ai/'s.
        newest = os.path.join(SCHEMAS, "model-gen-ai", name)
        path = newest if os.path.exists(newest) else os.path.join(SCHEMAS, name)
        if not os.path.exists(path):
            print(f"validate-genai-messages: no schema {name} in {SCHEMAS}; set OTEL_GENAI_SCHEMAS", file=sys.stderr)
            return 2
        schema = json.load(open(path, encoding="utf-8"))
        validators[attribute] = jsonschema.validators.validator_for(schema)(schema)
    files = sorted(glob.glob(os.path.join(REPO, "golden", "export", "otlp", "**", "*.snap"), recursive=True))
    checked, invalid = 0, 0
    for path in files:
        for resource in document(path).get("resourceSpans", []):
            for scope in resource.get("scopeSpans", []):
                for span in scope.get("spans", []):
                    # The span's attributes, and those of its events (the content capture
                    # setting's gen_ai.client.inference.operation.details).
                    places = [(span["name"], span.get("attributes", []))] + [
                        (f"{span['name']} / {event['name']}", event.get("attributes", []))
                        for event in span.get("events", [])
                    ]
                    for name, attributes in places:
                        for attribute in attributes:
                            validator = validators.get(attribute["key"])
                            if validator is None:
                                continue
                            value = json.loads(attribute["value"]["stringValue"])
                            checked += 1
                            for error in validator.iter_errors(value):
                                invalid += 1
                                where = "/".join(str(p) for p in error.absolute_path)
                                print(f"{os.path.relpath(path, REPO)}: {name}: {attribute['key']} /{where}: {error.message}")
    print(f"validate-genai-messages: {checked} attributes in {len(files)} documents, {invalid} errors")
    if checked == 0:
        print("validate-genai-messages: no message attribute found: nothing was validated", file=sys.stderr)
        return 1
    return 1 if invalid else 0


if __name__ == "__main__":
    sys.exit(main())
