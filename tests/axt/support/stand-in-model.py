#!/usr/bin/env python3
"""A stand-in model for a real agent under test: an OpenAI Responses API server on loopback
that answers every `POST .../responses` with the same streamed answer (SSE), "There are 12
Rust files in src.", and usage. It prints its port on stdout, then serves until killed.

    stand-in-model.py [PORT]    (0, the default: any free port)
"""

import http.server
import json
import sys

ANSWER = ["There are 12 Rust", " files in src."]


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        self.rfile.read(length)
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()

        def event(kind, data):
            data["type"] = kind
            self.wfile.write(f"event: {kind}\ndata: {json.dumps(data)}\n\n".encode())
            self.wfile.flush()

        text = "".join(ANSWER)
        done = {"id": "msg_stand_in", "type": "message", "role": "assistant", "status": "completed",
                "content": [{"type": "output_text", "text": text, "annotations": []}]}
        event("response.created", {"response": {"id": "resp_stand_in", "object": "response",
                                                "status": "in_progress", "model": "stand-in", "output": []}})
        event("response.output_item.added", {"output_index": 0, "item": dict(done, status="in_progress", content=[])})
        event("response.content_part.added", {"item_id": "msg_stand_in", "output_index": 0, "content_index": 0,
                                              "part": {"type": "output_text", "text": "", "annotations": []}})
        for piece in ANSWER:
            event("response.output_text.delta", {"item_id": "msg_stand_in", "output_index": 0,
                                                 "content_index": 0, "delta": piece})
        event("response.output_item.done", {"output_index": 0, "item": done})
        event("response.completed", {"response": {
            "id": "resp_stand_in", "object": "response", "status": "completed", "model": "stand-in",
            "output": [done],
            "usage": {"input_tokens": 50, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 9,
                      "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 59}}})

    def do_GET(self):
        self.send_response(404)
        self.end_headers()


def main():
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
