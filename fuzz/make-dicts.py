#!/usr/bin/env python3
"""Writes fuzz/dict/<name>.dict, libFuzzer dictionaries, from the corpus.

Each dictionary holds the JSON tokens every target needs, then the words of its format taken
from the fixtures themselves: every object key, and every short string value of a key that
names a kind (`type`, `subtype`, `role`, `status`, ...), each quoted as it appears on the
wire. So a new record type in the corpus reaches the fuzzer by re-running this script
(`make fuzz-dicts`), and nothing is made up. The few framing words the fixtures cannot show
as keys (SSE fields, `[DONE]`) are listed below, from ../shared/reference/provider-formats.md.
Deterministic: sorted, so re-running changes nothing unless the corpus did.
"""
import json
import re
import pathlib

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "fuzz" / "dict"

# Keys whose string values are vocabulary (record kinds, roles, states), not content.
KIND_KEYS = {
    "type", "subtype", "role", "status", "event", "item_type", "stop_reason",
    "finish_reason", "object", "fidelity", "kind", "level", "outcome", "decision",
    "state", "channel", "format", "operation",
}
MAX_VALUE = 40  # longer strings are content, not vocabulary
# A key that is a name, not data used as a key (file paths in `changes`, ids in maps).
NAME = re.compile(r"[A-Za-z_$][A-Za-z0-9_.$-]{0,39}\Z")

JSON_TOKENS = [
    b"{", b"}", b"[", b"]", b":", b",", b'"', b'\\"', b"\\\\", b"\\n", b"\\u0000",
    b"\\u001b", b"\\ud83d\\ude00", b"\\ud800", b"\x00", b"\r\n", b"\n", b"\xef\xbb\xbf",
    b"\xe2\x80\xa8", b"\xc3", b"null", b"true", b"false", b"-1", b"0", b"1e400",
    b"18446744073709551616", b"1.5", b'""', b"{}", b"[]",
]

# Framing words (provider-formats.md, sections 0 and 5) that are no JSON key or kind.
SSE = [b"data: ", b"data:", b"event: ", b"id: ", b"retry: ", b": ping", b"[DONE]",
       b"\n\n", b"\r\n\r\n", b"\r"]

# AWS event-stream framing words (binary: a header is its name's length, the name, type 7
# and a 2-byte length before a string value), for the corpora that have binary streams and
# the eventstream_framer target.
EVENTSTREAM = [b"\x0b:event-type\x07", b"\x0d:message-type\x07\x00\x05event",
               b"\x0d:message-type\x07\x00\x09exception", b"\x0d:content-type\x07",
               b"\x0f:exception-type\x07", b"\x0b:error-code\x07", b"application/json",
               b"chunk", b"\x00\x00\x00"]


def quoted(word):
    return b'"' + word.encode() + b'"'


def walk(value, words):
    if isinstance(value, dict):
        for key, item in value.items():
            if NAME.match(key) and not re.search(r"[0-9a-f]{8}", key):
                words.add(quoted(key))
            if key in KIND_KEYS and isinstance(item, str) and 0 < len(item) <= MAX_VALUE:
                words.add(quoted(item))
            walk(item, words)
    elif isinstance(value, list):
        for item in value:
            walk(item, words)


def documents(path):
    """The JSON documents of a fixture: one whole file, or one per line (SSE data too)."""
    text = path.read_bytes().decode("utf-8", "replace")
    try:
        yield json.loads(text)
        return
    except ValueError:
        pass
    for line in text.splitlines():
        if line.startswith("data:"):
            line = line[5:]
        try:
            yield json.loads(line)
        except ValueError:
            continue


def escape(token):
    out = []
    for byte in token:
        if 0x20 <= byte < 0x7F and byte not in (0x22, 0x5C):
            out.append(chr(byte))
        else:
            out.append(f"\\x{byte:02x}")
    return '"' + "".join(out) + '"'


FRAMING_NAMES = {"sse": "SSE", "eventstream": "AWS event-stream"}


def write(name, dirs, extra=()):
    words = set()
    for directory in dirs:
        for path in sorted((ROOT / directory).rglob("*")):
            if path.suffix in (".jsonl", ".json", ".sse"):
                for document in documents(path):
                    walk(document, words)
    tokens = JSON_TOKENS + list(extra)
    tokens += sorted(words - set(tokens))
    lines = [f"# {name}: JSON tokens, then the keys and kinds of {', '.join(dirs) or FRAMING_NAMES[name] + ' framing'}",
             "# (written by fuzz/make-dicts.py from the corpus; do not edit, re-run it)"]
    lines += [escape(token) for token in tokens]
    (OUT / f"{name}.dict").write_text("\n".join(lines) + "\n")
    print(f"fuzz/dict/{name}.dict: {len(tokens)} tokens")


def main():
    OUT.mkdir(exist_ok=True)
    # One dictionary per provider corpus (every provider has one); SSE field names for
    # those whose corpus has SSE streams.
    for corpus in sorted(path for path in (ROOT / "corpus/normalize").iterdir() if path.is_dir()):
        sse = any(corpus.rglob("*.sse"))
        binary = any(corpus.rglob("*.eventstream"))
        extra = (SSE if sse else []) + (EVENTSTREAM if binary else [])
        write(corpus.name, [f"corpus/normalize/{corpus.name}"], extra)
    write("transcript", ["corpus/read/transcript"])
    write("claude-code", ["corpus/import/claude-code"])
    write("sse", [], SSE)
    # inflated: every provider's words, and the inflation tokens (check.rs's `inflate`):
    # a byte repeated 64 KiB to 16 MiB times, 4 to 1,024 brackets opened or closed.
    providers = sorted(path.name for path in (ROOT / "corpus/normalize").iterdir() if path.is_dir())
    write("inflated", [f"corpus/normalize/{p}" for p in providers],
          SSE + [bytes([0xF5, n]) for n in (0, 63, 255)] + [bytes([t, n]) for t in (0xF6, 0xF7) for n in (7, 31, 32, 255)])
    write("eventstream", [], EVENTSTREAM)


if __name__ == "__main__":
    main()
