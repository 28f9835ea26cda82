"""The real openai and anthropic SDKs as clients of `axt proxy` (tests/axt/proxy.rs).

Usage: python proxy-sdk-clients.py http://ADDR. The keys come from OPENAI_API_KEY and
ANTHROPIC_API_KEY, as an executor sets them. Each SDK makes one streaming and one plain
call through the proxy, and what it read is printed as one JSON object for the test to
compare: the SDKs' own parsing of the answers, not the bytes.
"""

import json
import sys

import anthropic
import openai

base = sys.argv[1]
said = {}

client = openai.OpenAI(base_url=base + "/v1", max_retries=0)
names = {}
stream = client.chat.completions.create(
    model="gpt-4.1",
    messages=[{"role": "user", "content": "Weather in Paris and Tokyo?"}],
    stream=True,
)
for chunk in stream:
    for choice in chunk.choices:
        for call in choice.delta.tool_calls or []:
            if call.function and call.function.name:
                names[call.index] = call.function.name
said["openai-stream"] = {"tool_calls": [names[i] for i in sorted(names)]}

body = client.chat.completions.create(
    model="grok-4",
    messages=[{"role": "user", "content": "Is 101 prime?"}],
)
said["openai-body"] = {"text_starts": body.choices[0].message.content[:11]}

client = anthropic.Anthropic(base_url=base, max_retries=0)
uses = []
with client.messages.stream(
    model="claude-sonnet-4-5",
    max_tokens=1024,
    messages=[{"role": "user", "content": "What is 2+3 and 4*5?"}],
) as stream:
    for event in stream:
        if event.type == "content_block_start" and event.content_block.type == "tool_use":
            uses.append(event.content_block.name)
said["anthropic-stream"] = {"tool_uses": uses}

message = client.messages.create(
    model="claude-sonnet-4-5",
    max_tokens=1024,
    messages=[{"role": "user", "content": "Weather?"}],
)
said["anthropic-body"] = {
    "tool_uses": [block.name for block in message.content if block.type == "tool_use"]
}

print(json.dumps(said))
