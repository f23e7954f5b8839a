"""openai-python against the gateway's media endpoints (mock OpenAI upstream): image generation as base64 and as
URLs, the GPT image models' streamed partial images, image edits (several images and a mask uploaded, streamed), images through Google's models (Imagen, Gemini), speech in several formats (whole and streamed), and the upstream's
refusals as the SDK's own errors; moderations of text and images, and rerank through the SDK's generic post."""
import base64

import openai
import pytest

# test/helpers/mock-openai-media.ts: the bytes of every mock image.
MOCK_IMAGE = bytes([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3, 4])


@pytest.fixture(scope="module")
def client(servers):
    return openai.OpenAI(api_key=servers.key, base_url=f"{servers.url}/v1", max_retries=0)


def test_image_b64(client):
    answer = client.images.generate(model="openai/dall-e-3", prompt="a lighthouse", size="1792x1024", quality="hd", response_format="b64_json")
    assert base64.b64decode(answer.data[0].b64_json) == MOCK_IMAGE
    assert answer.data[0].revised_prompt == "A picture of a lighthouse"


def test_image_urls(client):
    answer = client.images.generate(model="openai/dall-e-2", prompt="a cat", n=2, response_format="url")
    assert [d.url.split("?")[0] for d in answer.data] == [f"https://oaidalleapiprodscus.blob.core.windows.net/private/img-{i}.png" for i in range(2)]


def test_image_stream(client):
    events = list(client.images.generate(model="openai/gpt-image-1", prompt="a fox", stream=True, partial_images=2))
    assert [e.type for e in events] == ["image_generation.partial_image", "image_generation.partial_image", "image_generation.completed"]
    assert base64.b64decode(events[-1].b64_json) == MOCK_IMAGE
    assert events[-1].usage.output_tokens == 4160


def test_image_edit_several_images_and_mask(client):
    images = [("a.png", b"\x89PNG first" * 1000, "image/png"), ("b.png", b"\x89PNG second" * 3000, "image/png")]
    answer = client.images.edit(model="openai/gpt-image-1", prompt="both in one", image=images, mask=("mask.png", b"\x89PNG mask", "image/png"), n=2, input_fidelity="high")
    assert [base64.b64decode(d.b64_json) for d in answer.data] == [MOCK_IMAGE, MOCK_IMAGE]
    assert answer.usage.output_tokens == 4160 * 2


def test_image_edit_stream(client):
    events = list(client.images.edit(model="openai/gpt-image-1", prompt="a hat", image=("cat.png", b"\x89PNG cat", "image/png"), stream=True, partial_images=1))
    assert [e.type for e in events] == ["image_edit.partial_image", "image_edit.completed"]
    assert base64.b64decode(events[-1].b64_json) == MOCK_IMAGE


def test_image_edit_refused(client):
    with pytest.raises(openai.BadRequestError) as refused:
        client.images.edit(model="openai/dall-e-2", prompt="x", image=[("a.png", b"a", "image/png"), ("b.png", b"b", "image/png")])
    assert refused.value.code == "invalid_value"


# test/helpers/mock-gemini-upstream.ts: the bytes of every mock Google image.
GOOGLE_IMAGE = bytes([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 7, 7, 7])


def test_image_through_google(client):
    imagen = client.images.generate(model="gemini/imagen-4.0-generate-001", prompt="a lighthouse", n=2, size="1792x1024")
    assert [base64.b64decode(d.b64_json) for d in imagen.data] == [GOOGLE_IMAGE, GOOGLE_IMAGE]
    gemini = client.images.generate(model="gemini/gemini-2.5-flash-image", prompt="a fox")
    assert base64.b64decode(gemini.data[0].b64_json) == GOOGLE_IMAGE
    assert gemini.usage.output_tokens == 1290
    edited = client.images.edit(model="gemini/gemini-2.5-flash-image", prompt="a hat", image=("cat.png", b"\x89PNG\r\n\x1a\ncat", "image/png"))
    assert base64.b64decode(edited.data[0].b64_json) == GOOGLE_IMAGE


def test_image_refused(client):
    with pytest.raises(openai.BadRequestError) as refused:
        client.images.generate(model="openai/image-refused", prompt="something")
    assert refused.value.code == "content_policy_violation"


# test/helpers/mock-openai-media.ts: every audio answer is 12 chunks of 16 KiB, chunk i filled with i + 1.
MOCK_AUDIO = b"".join(bytes([i + 1]) * 16384 for i in range(12))


@pytest.mark.parametrize("response_format,content_type", [("mp3", "audio/mpeg"), ("opus", "audio/opus"), ("wav", "audio/wav"), ("pcm", "audio/pcm")])
def test_speech(client, response_format, content_type):
    answer = client.audio.speech.create(model="openai/tts-1", input="Hello", voice="alloy", response_format=response_format)
    assert answer.response.headers["content-type"] == content_type
    assert answer.content == MOCK_AUDIO


def test_speech_streamed(client):
    with client.audio.speech.with_streaming_response.create(model="openai/tts-1", input="Hello", voice="alloy") as answer:
        assert b"".join(answer.iter_bytes()) == MOCK_AUDIO


def test_speech_refused(client):
    with pytest.raises(openai.BadRequestError) as refused:
        client.audio.speech.create(model="openai/tts-1", input="Hello", voice="nobody")
    assert refused.value.code == "invalid_value"


def test_moderations(client):
    answer = client.moderations.create(model="openai/omni-moderation-latest", input=["hello", "kill it"])
    assert [r.flagged for r in answer.results] == [False, True]
    assert answer.results[1].categories.violence is True
    both = client.moderations.create(
        model="openai/omni-moderation-latest",
        input=[{"type": "text", "text": "a picture"}, {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}],
    )
    assert both.results[0].category_applied_input_types.sexual == ["text", "image"]


def test_rerank(client):
    # No rerank method in the SDK: its generic post, as a client of the shared rerank shape would send it.
    answer = client.post(
        "/rerank",
        body={"model": "openai/jina-reranker-v2-base-multilingual", "query": "lighthouse in Paris", "documents": ["The weather in Paris is mild", "A lighthouse keeper in Paris"], "top_n": 1},
        cast_to=object,
    )
    assert [r["index"] for r in answer["results"]] == [1]
    assert answer["results"][0]["document"] == {"text": "A lighthouse keeper in Paris"}
    assert answer["usage"]["total_tokens"] > 0
