"""A test "answerer" for ``scaleenv relay``: a thread that reads each pending request file, in
the order the relay numbered them, and writes an answer file the way a person or a model
outside the machine would (temp file, then rename).

What it answers comes from the scripted pet-care world of tests/support_llm_server.py
(``FakeLLM.answer``, by role and marker, never by prompt text), unless ``override`` returns a
text for that request (bad input: not JSON, cut, tools that do not exist) or ``skip`` says
to leave it unanswered (an answer that never comes).
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.support_llm_server import FakeLLM

__all__ = ["Answerer", "answering"]

Request = dict[str, Any]


def scripted_answer(request: Request) -> str:
    """The fake world's answer to one pending request, as JSON text."""
    messages = request["messages"]
    user = messages[-1]["content"] if messages[-1]["role"] == "user" else ""
    kind = "repair" if user.startswith("REPAIR:") else "continue" if user.startswith("CONTINUE:") else "first"
    marker = request["marker"].split(": ", 1)[1] if request["marker"] else None
    return json.dumps(FakeLLM().answer(request["role"], marker, kind, user, messages), indent=1, sort_keys=True)


@dataclass
class Answerer:
    folder: Path
    override: Callable[[Request], str | None] = lambda request: None
    skip: Callable[[Request], bool] = lambda request: False
    answered: list[Request] = field(default_factory=list)
    _stop: threading.Event = field(default_factory=threading.Event)

    def step(self) -> None:
        for path in sorted((self.folder / "pending").glob("*.json")):
            answer = self.folder / "answers" / path.name
            if answer.exists():
                continue
            try:
                request = json.loads(path.read_text())
            except (OSError, ValueError):
                continue  # moved to done/ meanwhile
            if self.skip(request):
                continue
            text = self.override(request)
            text = scripted_answer(request) if text is None else text
            temp = answer.with_name(f".{answer.name}.tmp")
            temp.write_text(text)
            os.replace(temp, answer)
            self.answered.append(request)

    def run(self) -> None:
        while not self._stop.is_set():
            self.step()
            time.sleep(0.02)


@contextlib.contextmanager
def answering(answerer: Answerer) -> Iterator[Answerer]:
    thread = threading.Thread(target=answerer.run, daemon=True)
    thread.start()
    try:
        yield answerer
    finally:
        answerer._stop.set()
        thread.join(timeout=5)
