"""anthropic-python against the gateway's /v1/messages, for every upstream family: plain and streamed, tool use
and tool results, structured output through `messages.parse`, and token counting."""
import anthropic
import pytest

from conftest import EXPECTED_WEATHER, FAMILIES, MODELS, QUESTION, RESULT, Weather

TOOL = {"name": "get_weather", "description": "Weather in a city", "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}


@pytest.fixture(scope="module")
def client(servers):
    return anthropic.Anthropic(api_key=servers.key, base_url=servers.url, max_retries=0)


def text_of(message) -> str:
    return "".join(b.text for b in message.content if b.type == "text")


@pytest.mark.parametrize("family", FAMILIES)
class TestMessages:
    def test_plain(self, client, servers, family):
        message = client.messages.create(model=MODELS[family]["text"], max_tokens=200, messages=QUESTION)
        assert text_of(message) == servers.text(family, "messages")
        assert message.stop_reason == "end_turn"
        assert message.usage.output_tokens > 0

    def test_stream(self, client, servers, family):
        with client.messages.stream(model=MODELS[family]["text"], max_tokens=200, messages=QUESTION) as s:
            text = "".join(s.text_stream)
            message = s.get_final_message()
        assert text == servers.text(family, "messages")
        assert text_of(message) == text

    @pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
    def test_tools_call(self, client, family, stream):
        params = dict(model=MODELS[family]["tool"], max_tokens=200, messages=QUESTION, tools=[TOOL])
        if stream:
            with client.messages.stream(**params) as s:
                message = s.get_final_message()
        else:
            message = client.messages.create(**params)
        assert message.stop_reason == "tool_use"
        call = next(b for b in message.content if b.type == "tool_use")
        assert call.id
        assert call.name == "get_weather"
        assert call.input == {"city": "Paris"}

    def test_tools_result(self, client, family):
        messages = QUESTION + [
            {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris"}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": RESULT}]},
        ]
        message = client.messages.create(model=MODELS[family]["text"], max_tokens=200, messages=messages, tools=[TOOL])
        assert text_of(message).startswith("Result: ")
        assert '"temp":18' in text_of(message)

    def test_structured_parse(self, client, family):
        message = client.messages.parse(model=MODELS[family]["text"], max_tokens=500, messages=[{"role": "user", "content": "Weather in Paris as JSON"}], output_format=Weather)
        assert message.parsed_output == EXPECTED_WEATHER

    def test_structured_stream(self, client, family):
        with client.messages.stream(model=MODELS[family]["text"], max_tokens=500, messages=[{"role": "user", "content": "Weather in Paris as JSON"}], output_format=Weather) as s:
            message = s.get_final_message()
        assert message.parsed_output == EXPECTED_WEATHER

    def test_count_tokens(self, client, family):
        count = client.messages.count_tokens(model=MODELS[family]["text"], messages=QUESTION)
        assert count.input_tokens > 0


def test_wrong_key_is_an_authentication_error(servers):
    bad = anthropic.Anthropic(api_key="sk-wrong", base_url=servers.url, max_retries=0)
    with pytest.raises(anthropic.AuthenticationError):
        bad.messages.create(model=MODELS["anthropic"]["text"], max_tokens=10, messages=QUESTION)
