"""openai-python on the Responses lifecycle: retrieve, input items, cancel, delete and the input token count, for a
response OpenAI made natively (asked upstream) and one the gateway translated for Anthropic (answered from the
gateway's thread store); and another key's 404 for every route, as for an id never made."""
import json
import urllib.request

import openai
import pytest

from conftest import MODELS

NATIVE, TRANSLATED = "openai", "anthropic"


@pytest.fixture(scope="module")
def client(servers):
    return openai.OpenAI(api_key=servers.key, base_url=f"{servers.url}/v1", max_retries=0)


def new_key(servers, name):
    request = urllib.request.Request(
        f"{servers.url}/admin/keys",
        data=json.dumps({"name": name}).encode(),
        headers={"authorization": f"Bearer {servers.key}", "content-type": "application/json"},
    )
    with urllib.request.urlopen(request) as res:
        assert res.status == 201
        key = json.load(res)["key"]
    return openai.OpenAI(api_key=key, base_url=f"{servers.url}/v1", max_retries=0)


@pytest.mark.parametrize("family", [NATIVE, TRANSLATED])
def test_retrieve_list_cancel_delete(client, family):
    created = client.responses.create(model=MODELS[family]["text"], input="Weather in Paris?")
    retrieved = client.responses.retrieve(created.id)
    assert retrieved.id == created.id
    assert retrieved.output_text == created.output_text

    items = client.responses.input_items.list(created.id)
    assert [(item.type, item.role, item.content[0].text) for item in items.data] == [("message", "user", "Weather in Paris?")]

    # Neither response was created with background=true: OpenAI refuses to cancel it, and so does the gateway.
    with pytest.raises(openai.BadRequestError) as refused:
        client.responses.cancel(created.id)
    assert "background=true" in refused.value.message

    client.responses.delete(created.id)
    with pytest.raises(openai.NotFoundError):
        client.responses.retrieve(created.id)


@pytest.mark.parametrize("family", [NATIVE, TRANSLATED])
def test_input_tokens(client, family):
    raw = client.responses.input_tokens.with_raw_response.count(model=MODELS[family]["text"], input="How many tokens is this?")
    count = raw.parse()
    assert count.object == "response.input_tokens"
    assert count.input_tokens > 0
    assert raw.headers.get("x-gateway-estimated") == (None if family == NATIVE else "true")


@pytest.mark.parametrize("family", [NATIVE, TRANSLATED])
def test_another_key_gets_the_404_of_an_unknown_id(servers, family):
    alice, bob = new_key(servers, f"alice-{family}"), new_key(servers, f"bob-{family}")
    mine = alice.responses.create(model=MODELS[family]["text"], input="my secret")
    with pytest.raises(openai.NotFoundError) as unknown:
        bob.responses.retrieve("resp_never_made")
    for attempt in (
        lambda: bob.responses.retrieve(mine.id),
        lambda: bob.responses.input_items.list(mine.id),
        lambda: bob.responses.cancel(mine.id),
        lambda: bob.responses.delete(mine.id),
    ):
        with pytest.raises(openai.NotFoundError) as error:
            attempt()
        assert (error.value.code, error.value.type) == (unknown.value.code, unknown.value.type)
    assert alice.responses.retrieve(mine.id).id == mine.id
