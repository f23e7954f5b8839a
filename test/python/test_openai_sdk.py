"""openai-python against the gateway, for every upstream family: Chat Completions and Responses, plain and
streamed, tool calls and tool results, and structured output through the SDK's own `parse` helpers."""
import json
import struct

import openai
import pytest
from pydantic import BaseModel, Field

from conftest import EXPECTED_WEATHER, FAMILIES, MODELS, QUESTION, RESULT, Weather

CHAT_TOOL = {"type": "function", "function": {"name": "get_weather", "description": "Weather in a city", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}
RESPONSES_TOOL = {"type": "function", "name": "get_weather", "description": "Weather in a city", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}, "strict": False}


@pytest.fixture(scope="module")
def client(servers):
    return openai.OpenAI(api_key=servers.key, base_url=f"{servers.url}/v1", max_retries=0)


@pytest.mark.parametrize("family", FAMILIES)
class TestChat:
    def test_plain(self, client, servers, family):
        completion = client.chat.completions.create(model=MODELS[family]["text"], messages=QUESTION)
        assert completion.choices[0].message.content == servers.text(family, "chat")
        assert completion.choices[0].finish_reason == "stop"
        assert completion.usage.total_tokens > 0

    def test_stream(self, client, servers, family):
        chunks = list(client.chat.completions.create(model=MODELS[family]["text"], messages=QUESTION, stream=True, stream_options={"include_usage": True}))
        text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
        assert text == servers.text(family, "chat")
        assert [c.choices[0].finish_reason for c in chunks if c.choices and c.choices[0].finish_reason] == ["stop"]
        assert chunks[-1].usage is not None and chunks[-1].usage.total_tokens > 0

    @pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
    def test_tools_call(self, client, family, stream):
        params = dict(model=MODELS[family]["tool"], messages=QUESTION, tools=[CHAT_TOOL])
        if stream:
            with client.chat.completions.stream(**params) as s:
                completion = s.get_final_completion()
        else:
            completion = client.chat.completions.create(**params)
        choice = completion.choices[0]
        assert choice.finish_reason == "tool_calls"
        call = choice.message.tool_calls[0]
        assert call.id
        assert call.function.name == "get_weather"
        assert json.loads(call.function.arguments) == {"city": "Paris"}

    def test_tools_result(self, client, family):
        messages = QUESTION + [
            {"role": "assistant", "content": None, "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'}}]},
            {"role": "tool", "tool_call_id": "call_1", "content": RESULT},
        ]
        completion = client.chat.completions.create(model=MODELS[family]["text"], messages=messages, tools=[CHAT_TOOL])
        assert completion.choices[0].message.content.startswith("Result: ")
        assert '"temp":18' in completion.choices[0].message.content

    def test_structured_parse(self, client, family):
        completion = client.chat.completions.parse(model=MODELS[family]["text"], messages=[{"role": "user", "content": "Weather in Paris as JSON"}], response_format=Weather)
        assert completion.choices[0].message.parsed == EXPECTED_WEATHER

    def test_structured_stream(self, client, family):
        with client.chat.completions.stream(model=MODELS[family]["text"], messages=[{"role": "user", "content": "Weather in Paris as JSON"}], response_format=Weather) as s:
            completion = s.get_final_completion()
        assert completion.choices[0].message.parsed == EXPECTED_WEATHER

    def test_structured_json_object(self, client, family):
        completion = client.chat.completions.create(model=MODELS[family]["text"], messages=[{"role": "user", "content": "Weather in Paris as a JSON object"}], response_format={"type": "json_object"})
        assert isinstance(json.loads(completion.choices[0].message.content), dict)


@pytest.mark.parametrize("family", FAMILIES)
class TestResponses:
    def test_plain(self, client, servers, family):
        response = client.responses.create(model=MODELS[family]["text"], input="Weather in Paris?")
        assert response.status == "completed"
        assert response.output_text == servers.text(family, "responses")

    def test_stream(self, client, servers, family):
        with client.responses.stream(model=MODELS[family]["text"], input="Weather in Paris?") as s:
            deltas = [e.delta for e in s if e.type == "response.output_text.delta"]
            response = s.get_final_response()
        assert "".join(deltas) == servers.text(family, "responses")
        assert response.output_text == servers.text(family, "responses")

    @pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
    def test_tools_call(self, client, family, stream):
        params = dict(model=MODELS[family]["tool"], input=QUESTION, tools=[RESPONSES_TOOL])
        if stream:
            with client.responses.stream(**params) as s:
                response = s.get_final_response()
        else:
            response = client.responses.create(**params)
        call = next(o for o in response.output if o.type == "function_call")
        assert call.name == "get_weather"
        assert call.call_id
        assert json.loads(call.arguments) == {"city": "Paris"}

    def test_tools_result(self, client, family):
        items = QUESTION + [
            {"type": "function_call", "call_id": "call_1", "name": "get_weather", "arguments": '{"city":"Paris"}'},
            {"type": "function_call_output", "call_id": "call_1", "output": RESULT},
        ]
        response = client.responses.create(model=MODELS[family]["text"], input=items, tools=[RESPONSES_TOOL])
        assert response.output_text.startswith("Result: ")
        assert '"temp":18' in response.output_text

    def test_structured_parse(self, client, family):
        response = client.responses.parse(model=MODELS[family]["text"], input="Weather in Paris as JSON", text_format=Weather)
        assert response.output_parsed == EXPECTED_WEATHER

    def test_structured_stream(self, client, family):
        with client.responses.stream(model=MODELS[family]["text"], input="Weather in Paris as JSON", text_format=Weather) as s:
            response = s.get_final_response()
        assert response.output_parsed == EXPECTED_WEATHER


class BoundedWeather(BaseModel):
    city: str = Field(max_length=40)
    celsius: int = Field(ge=-90, le=60)


@pytest.mark.parametrize("family", FAMILIES)
def test_structured_parse_with_bounds(client, family):
    """pydantic bounds become minimum/maximum/maxLength, which Anthropic does not decode: the gateway moves them."""
    completion = client.chat.completions.parse(model=MODELS[family]["text"], messages=[{"role": "user", "content": "Weather in Paris as JSON"}], response_format=BoundedWeather)
    assert completion.choices[0].message.parsed == BoundedWeather(city="Paris", celsius=21)


def test_wrong_key_is_an_authentication_error(servers):
    bad = openai.OpenAI(api_key="sk-wrong", base_url=f"{servers.url}/v1", max_retries=0)
    with pytest.raises(openai.AuthenticationError) as error:
        bad.chat.completions.create(model=MODELS["openai"]["text"], messages=QUESTION)
    assert error.value.status_code == 401


def test_schema_on_an_old_claude_model_is_a_bad_request(client):
    with pytest.raises(openai.BadRequestError) as error:
        client.chat.completions.parse(model="anthropic/claude-3-5-haiku-20241022", messages=QUESTION, response_format=Weather)
    assert error.value.code == "unsupported_parameter"


def test_models_list_names_every_family(client):
    ids = {m.id for m in client.models.list()}
    assert {"openai/gpt-4o", "anthropic/claude-sonnet-4-5", "gemini/gemini-2.5-flash"} <= ids


EMBEDDING_MODELS = {"openai": "openai/text-embedding-3-small", "gemini": "gemini/gemini-embedding-001"}


def as_float32(values):
    """Each value rounded to float32, as a base64 embedding carries it."""
    return [struct.unpack("<f", struct.pack("<f", v))[0] for v in values]


@pytest.mark.parametrize("family", list(EMBEDDING_MODELS))
def test_embeddings_base64_default_decodes_to_the_float_answer(client, family):
    """The SDK asks for base64 by default and decodes it: the same float32 values as the float answer, in input order."""
    texts = ["first", "second 🙂"]
    floats = client.embeddings.create(model=EMBEDDING_MODELS[family], input=texts, encoding_format="float")
    decoded = client.embeddings.create(model=EMBEDDING_MODELS[family], input=texts)
    assert [d.index for d in decoded.data] == [0, 1]
    assert floats.data[0].embedding != floats.data[1].embedding
    for plain, packed in zip(floats.data, decoded.data):
        assert as_float32(packed.embedding) == as_float32(plain.embedding)
    assert decoded.usage.prompt_tokens > 0


def test_embeddings_on_a_provider_without_them_is_a_bad_request(client):
    with pytest.raises(openai.BadRequestError) as error:
        client.embeddings.create(model=MODELS["anthropic"]["text"], input="x")
    assert error.value.code == "unsupported_endpoint"


def test_completions_fill_in_the_middle_and_stream(client):
    """Legacy completions: suffix reaches the provider (the mock fills the middle); a stream's text arrives whole."""
    filled = client.completions.create(model="openai/deepseek-coder", prompt="def add(a, b):\n    ", suffix="\n\nprint(add(1, 2))", max_tokens=32)
    assert filled.choices[0].text.startswith("<fill after ")
    text = "".join(chunk.choices[0].text for chunk in client.completions.create(model="openai/gpt-3.5-turbo-instruct", prompt="echo:Grüße 🙂", stream=True) if chunk.choices)
    assert text == "Grüße 🙂"


def test_completions_on_a_provider_without_them_is_a_bad_request(client):
    with pytest.raises(openai.BadRequestError) as error:
        client.completions.create(model=MODELS["gemini"]["text"], prompt="x")
    assert error.value.code == "unsupported_endpoint"
