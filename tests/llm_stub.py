"""A stub OpenAI-compatible chat endpoint on 127.0.0.1 (never an outside address).

``StubLLM(behaviour)`` serves ``POST /v1/chat/completions``; ``behaviour(n, request)`` gets
the 1-based request number and the decoded JSON body and returns a ``Reply`` (status,
content, headers, delay before answering). Every request is recorded in ``requests``.
"""
from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable


@dataclass
class Reply:
    status: int = 200
    content: str = "stub answer"
    headers: dict = field(default_factory=dict)
    delay: float = 0.0
    prompt_tokens: int = 11
    completion_tokens: int = 3
    raw: bytes | None = None   # a body to send instead of a completion


def ok(content: str = "stub answer") -> Reply:
    return Reply(content=content)


class StubLLM:
    def __init__(self, behaviour: Callable[[int, dict], Reply] | None = None):
        self.behaviour = behaviour or (lambda n, req: ok())
        self.requests: list[dict] = []
        self._lock = threading.Lock()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # quiet
                pass

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                with stub._lock:
                    stub.requests.append({"path": self.path, "body": body,
                                          "authorization": self.headers.get("Authorization")})
                    n = len(stub.requests)
                if self.path != "/v1/chat/completions":
                    reply = Reply(status=404, raw=b'{"error": {"message": "no such route"}}')
                else:
                    reply = stub.behaviour(n, body)
                if reply.delay:
                    time.sleep(reply.delay)
                if reply.raw is not None:
                    payload = reply.raw
                elif reply.status == 200:
                    payload = json.dumps({
                        "id": f"stub-{n}", "object": "chat.completion", "model": body.get("model"),
                        "choices": [{"index": 0, "message": {"role": "assistant", "content": reply.content},
                                     "finish_reason": "stop"}],
                        "usage": {"prompt_tokens": reply.prompt_tokens, "completion_tokens": reply.completion_tokens,
                                  "total_tokens": reply.prompt_tokens + reply.completion_tokens}}).encode()
                else:
                    payload = json.dumps({"error": {"message": f"stub status {reply.status}"}}).encode()
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    for k, v in reply.headers.items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):  # the client timed out and left
                    pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def __enter__(self) -> "StubLLM":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()


def env_for(stub: StubLLM, prefix: str = "FINCHUNK_LLM", **extra) -> dict[str, str]:
    """Settings pointing at the stub, with fast retries (tests never wait long)."""
    env = {f"{prefix}_BASE_URL": stub.base_url, f"{prefix}_MODEL": "stub-model", f"{prefix}_RPS": "1000",
           f"{prefix}_BACKOFF": "0.01", f"{prefix}_MAX_BACKOFF": "2", f"{prefix}_MAX_RETRIES": "3",
           f"{prefix}_TIMEOUT": "5", f"{prefix}_CONCURRENCY": "4"}
    env.update({f"{prefix}_{k.upper()}": str(v) for k, v in extra.items()})
    return env
