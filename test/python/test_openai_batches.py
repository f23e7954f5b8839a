"""openai-python against the gateway's Batches API: a JSONL file uploaded, a batch created over lines for each
provider family (run by the gateway against the mock upstreams), polled to completion, its output and error files
downloaded and matched by custom_id; a cancelled batch; another key told the batch does not exist."""
import json
import time

import openai
import pytest

from conftest import MODELS


@pytest.fixture(scope="module")
def client(servers):
    return openai.OpenAI(api_key=servers.key, base_url=f"{servers.url}/v1", max_retries=0)


def line(custom_id, model, content):
    return {"custom_id": custom_id, "method": "POST", "url": "/v1/chat/completions", "body": {"model": model, "max_tokens": 20, "messages": [{"role": "user", "content": content}]}}


def upload(client, lines):
    text = "".join(json.dumps(l) + "\n" for l in lines)
    return client.files.create(file=("input.jsonl", text.encode()), purpose="batch")


def wait(client, batch_id, timeout=20):
    deadline = time.time() + timeout
    while True:
        batch = client.batches.retrieve(batch_id)
        if batch.status in ("completed", "failed", "expired", "cancelled"):
            return batch
        assert time.time() < deadline, f"batch still {batch.status}"
        time.sleep(0.05)


def read(client, file_id):
    if not file_id:
        return []
    return [json.loads(l) for l in client.files.content(file_id).text.splitlines() if l]


def test_batch_over_every_family(client, servers):
    lines = [line(f"{family}-1", MODELS[family]["text"], "hello") for family in MODELS] + [line("unknown-model", "nowhere/model", "hi")]
    input_file = upload(client, lines)
    batch = client.batches.create(input_file_id=input_file.id, endpoint="/v1/chat/completions", completion_window="24h", metadata={"run": "python"})
    assert batch.id.startswith("batch_")
    assert batch.metadata == {"run": "python"}
    done = wait(client, batch.id)
    assert done.status == "completed"
    assert done.request_counts.total == 4
    assert done.request_counts.completed == 3
    assert done.request_counts.failed == 1
    output = {l["custom_id"]: l for l in read(client, done.output_file_id)}
    assert sorted(output) == sorted(f"{family}-1" for family in MODELS)
    for family in MODELS:
        assert output[f"{family}-1"]["response"]["status_code"] == 200
        assert output[f"{family}-1"]["response"]["body"]["choices"][0]["message"]["content"] == servers.text(family, "chat")
    errors = read(client, done.error_file_id)
    assert [e["custom_id"] for e in errors] == ["unknown-model"]
    assert errors[0]["response"]["status_code"] == 404
    assert client.batches.list(limit=100).data[0].id == batch.id


def test_invalid_input_file_fails_the_batch(client):
    input_file = upload(client, [line("same", MODELS["openai"]["text"], "a"), line("same", MODELS["openai"]["text"], "b")])
    batch = client.batches.create(input_file_id=input_file.id, endpoint="/v1/chat/completions", completion_window="24h")
    assert batch.status == "failed"
    assert [(e.code, e.line) for e in batch.errors.data] == [("duplicate_custom_id", 2)]


def test_cancel_and_foreign_key(client, servers):
    slow = [
        {"custom_id": f"slow-{i}", "method": "POST", "url": "/v1/chat/completions", "body": {"model": "openai/slow-first-byte", "metadata": {"delay_ms": "200"}, "messages": [{"role": "user", "content": "hi"}]}}
        for i in range(12)
    ]
    batch = client.batches.create(input_file_id=upload(client, slow).id, endpoint="/v1/chat/completions", completion_window="24h")
    cancelling = client.batches.cancel(batch.id)
    assert cancelling.status in ("cancelling", "cancelled")
    done = wait(client, batch.id)
    assert done.status == "cancelled"
    assert done.request_counts.completed + done.request_counts.failed == 12
    assert {e["error"]["code"] for e in read(client, done.error_file_id)} == {"batch_cancelled"}

    import urllib.request

    request = urllib.request.Request(
        f"{servers.url}/admin/keys", data=json.dumps({"name": "python other tenant"}).encode(), headers={"authorization": f"Bearer {servers.key}", "content-type": "application/json"}
    )
    other_key = json.loads(urllib.request.urlopen(request).read())["key"]
    other = openai.OpenAI(api_key=other_key, base_url=f"{servers.url}/v1", max_retries=0)
    with pytest.raises(openai.NotFoundError):
        other.batches.retrieve(batch.id)
