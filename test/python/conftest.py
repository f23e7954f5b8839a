"""Starts the gateway and mock upstreams (test/python/serve.ts, under Bun) once per session."""
import json
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import pytest
from pydantic import BaseModel

ROOT = Path(__file__).resolve().parents[2]

# model selectors per upstream family: one that answers text, one that calls get_weather(city="Paris")
MODELS = {
    "openai": {"text": "openai/gpt-4o", "tool": "openai/tools"},
    "anthropic": {"text": "anthropic/claude-sonnet-4-5", "tool": "anthropic/tool"},
    "gemini": {"text": "gemini/gemini-2.5-flash", "tool": "gemini/gemini-2.5-flash-tool"},
}
FAMILIES = list(MODELS)

# What both SDK suites send and expect back: a tool result, the question, and the schema the mocks answer with a
# deterministic instance (test/helpers/schema-instance.ts).
RESULT = '{"temp":18}'
QUESTION = [{"role": "user", "content": "Weather in Paris?"}]


class Weather(BaseModel):
    city: str
    celsius: int
    sky: Literal["sunny", "cloudy"]
    tags: list[str]


EXPECTED_WEATHER = Weather(city="Paris", celsius=21, sky="sunny", tags=["Paris"])


@dataclass
class Servers:
    url: str
    key: str
    texts: dict

    def text(self, family: str, ingress: str) -> str:
        """What the mock of a family answers to a plain question on an ingress."""
        if family == "openai":
            return self.texts["responses"] if ingress == "responses" else self.texts["chat"]
        return self.texts[family]


@pytest.fixture(scope="session")
def servers():
    proc = subprocess.Popen(
        ["bun", "test/python/serve.ts"],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "NO_COLOR": "1"},
    )
    try:
        line = proc.stdout.readline()
        if not line:
            raise RuntimeError(f"serve.ts ended before it printed its URL (exit code {proc.wait(10)})")
        info = json.loads(line)
        yield Servers(url=info["url"], key=info["key"], texts=info["texts"])
    finally:
        proc.stdin.close()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
