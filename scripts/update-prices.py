#!/usr/bin/env python3
"""Rewrites data/prices.json, the price table axt estimates costs from, from LiteLLM's.

    python3 scripts/update-prices.py LITELLM_JSON --source "litellm 1.110.2 (PyPI wheel)"

LITELLM_JSON is LiteLLM's `model_prices_and_context_window.json` (in its repository) or the
copy its Python package ships, `litellm/model_prices_and_context_window_backup.json`
(`pip download --no-deps litellm`, then unzip that one file). The models of the table are
the ones it already lists plus MODEL... given with --add; each is looked up under its own
name, else under the names in FALLBACKS (LiteLLM drops a model's first-party entry when the
provider retires it, and keeps its Bedrock or Vertex one, priced the same). A model LiteLLM
does not know is kept with its old prices and reported.

Prices are written in US dollars per million tokens (LiteLLM's are per token), rounded to
the nearest millionth of a dollar, per token kind: `input` (uncached input), `output`
(reasoning included, billed at the output price by every provider listed), `cache_read`,
`cache_write` (0 where the provider has no such price). The date is today's unless --date.
"""

import argparse
import datetime
import json
import pathlib
import sys

TABLE = pathlib.Path(__file__).resolve().parent.parent / "data" / "prices.json"

# model -> LiteLLM keys to try when the model's own name is absent.
FALLBACKS = {
    "claude-opus-4": ["anthropic.claude-opus-4-20250514-v1:0"],
    "claude-opus-4-1": ["anthropic.claude-opus-4-1-20250805-v1:0"],
    "claude-sonnet-4": ["anthropic.claude-sonnet-4-20250514-v1:0"],
    "claude-3-7-sonnet": ["anthropic.claude-3-7-sonnet-20250219-v1:0"],
    "claude-3-5-haiku": ["anthropic.claude-3-5-haiku-20241022-v1:0"],
    "codex-mini-latest": ["azure/codex-mini"],
    "grok-code-fast-1": ["xai/grok-code-fast-1"],
    "gemini-3-pro-preview": ["vertex_ai/gemini-3-pro-preview"],
}

KINDS = {
    "input": "input_cost_per_token",
    "output": "output_cost_per_token",
    "cache_read": "cache_read_input_token_cost",
    "cache_write": "cache_creation_input_token_cost",
}


def per_million(value):
    return round(float(value or 0) * 1_000_000, 6)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("litellm_json")
    parser.add_argument("--source", required=True, help="what LITELLM_JSON is, and its version")
    parser.add_argument("--date", default=datetime.date.today().isoformat())
    parser.add_argument("--add", nargs="*", default=[], metavar="MODEL")
    args = parser.parse_args()

    litellm = json.loads(pathlib.Path(args.litellm_json).read_text())
    table = json.loads(TABLE.read_text())
    models = sorted(set(table["models"]) | set(args.add))
    missing = []
    for model in models:
        keys = [model] + FALLBACKS.get(model, [])
        found = next((key for key in keys if key in litellm), None)
        if found is None:
            missing.append(model)
            continue
        entry = litellm[found]
        prices = {kind: per_million(entry.get(field)) for kind, field in KINDS.items()}
        if found != model:
            prices["litellm_key"] = found
        table["models"][model] = prices
    table["models"] = dict(sorted(table["models"].items()))
    table["date"] = args.date
    table["source"] = (
        f"LiteLLM's model_prices_and_context_window.json, from {args.source}"
    )
    TABLE.write_text(json.dumps(table, indent=2) + "\n")
    print(f"{TABLE}: {len(table['models'])} models, dated {args.date}")
    if missing:
        print("not in LiteLLM's table, kept as they were: " + ", ".join(missing), file=sys.stderr)


if __name__ == "__main__":
    main()
