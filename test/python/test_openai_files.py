"""openai-python against the gateway's Files API: upload (the SDK sends the fields before the file), list with its
cursor, retrieve, download, delete; a file of another key is a 404 on every route and missing from its list."""
import hashlib
import json
import os
import urllib.request

import openai
import pytest


def new_key(servers, name: str) -> str:
    request = urllib.request.Request(
        f"{servers.url}/admin/keys",
        data=json.dumps({"name": name}).encode(),
        headers={"authorization": f"Bearer {servers.key}", "content-type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request) as answer:
        return json.load(answer)["key"]


@pytest.fixture(scope="module")
def alice(servers):
    return openai.OpenAI(api_key=new_key(servers, "py-files-alice"), base_url=f"{servers.url}/v1", max_retries=0)


@pytest.fixture(scope="module")
def bob(servers):
    return openai.OpenAI(api_key=new_key(servers, "py-files-bob"), base_url=f"{servers.url}/v1", max_retries=0)


def test_upload_list_download_delete(alice, tmp_path):
    data = os.urandom(2 * 1024 * 1024 + 3)
    path = tmp_path / "lines.jsonl"
    path.write_bytes(data)
    with path.open("rb") as f:
        created = alice.files.create(file=f, purpose="batch", expires_after={"anchor": "created_at", "seconds": 3600})
    assert (created.object, created.bytes, created.filename, created.purpose, created.status) == ("file", len(data), "lines.jsonl", "batch", "processed")
    assert created.expires_at == created.created_at + 3600
    assert alice.files.retrieve(created.id).id == created.id
    content = alice.files.content(created.id)
    assert hashlib.sha256(content.read()).hexdigest() == hashlib.sha256(data).hexdigest()
    assert created.id in [f.id for f in alice.files.list()]
    deleted = alice.files.delete(created.id)
    assert (deleted.id, deleted.deleted) == (created.id, True)
    with pytest.raises(openai.NotFoundError):
        alice.files.retrieve(created.id)


def test_list_pages(alice):
    ids = [alice.files.create(file=(f"{i}.txt", f"n{i}".encode()), purpose="user_data").id for i in range(3)]
    page = alice.files.list(limit=2, order="asc", purpose="user_data")
    assert page.has_more is True
    walked = [f.id for f in alice.files.list(limit=2, order="asc", purpose="user_data")]
    assert walked[-3:] == ids


def test_another_key_gets_404(alice, bob):
    file = alice.files.create(file=("secret.txt", b"alice only"), purpose="user_data")
    for call in (bob.files.retrieve, bob.files.content, bob.files.delete):
        with pytest.raises(openai.NotFoundError) as refused:
            call(file.id)
        assert refused.value.code == "file_not_found"
    assert file.id not in [f.id for f in bob.files.list()]
    assert alice.files.content(file.id).read() == b"alice only"


def test_bad_purpose_is_a_400(alice):
    with pytest.raises(openai.BadRequestError) as refused:
        alice.files.create(file=("x.txt", b"x"), purpose="nonsense")
    assert refused.value.param == "purpose"


def test_upload_file_chunked(alice, bob, tmp_path):
    data = os.urandom(3 * 1024 * 1024 + 11)
    path = tmp_path / "chunked.jsonl"
    path.write_bytes(data)
    upload = alice.uploads.upload_file_chunked(file=path, mime_type="application/jsonl", purpose="batch", part_size=1024 * 1024, md5=hashlib.md5(data).hexdigest())
    assert (upload.status, upload.file.bytes, upload.file.filename) == ("completed", len(data), "chunked.jsonl")
    assert hashlib.sha256(alice.files.content(upload.file.id).read()).hexdigest() == hashlib.sha256(data).hexdigest()
    with pytest.raises(openai.NotFoundError):
        bob.uploads.cancel(upload.id)
    pending = alice.uploads.create(bytes=4, filename="x.txt", mime_type="text/plain", purpose="user_data")
    assert alice.uploads.cancel(pending.id).status == "cancelled"
