"""openai-python against the gateway's speech-to-text endpoints (a multipart upload streamed through to the mock
OpenAI upstream, which parses the form as OpenAI does): the transcript names the file's size and SHA-256 as the
upstream received them, verbose_json, the transcript stream, translations, and the gateway's refusals."""
import hashlib
import os

import openai
import pytest

AUDIO = os.urandom(512 * 1024 + 3)


def heard(filename: str, data: bytes) -> str:
    """test/helpers/mock-openai-media.ts transcriptOf: what the mock says it received."""
    return f"heard {filename} ({len(data)} bytes, {hashlib.sha256(data).hexdigest()[:12]})"


@pytest.fixture(scope="module")
def client(servers):
    return openai.OpenAI(api_key=servers.key, base_url=f"{servers.url}/v1", max_retries=0)


def test_transcription_json(client):
    answer = client.audio.transcriptions.create(model="openai/whisper-1", file=("speech.mp3", AUDIO, "audio/mpeg"), language="en")
    assert answer.text == heard("speech.mp3", AUDIO)


def test_transcription_verbose_json(client):
    answer = client.audio.transcriptions.create(model="openai/whisper-1", file=("speech.mp3", AUDIO), response_format="verbose_json", timestamp_granularities=["segment"])
    assert answer.duration == 12.5
    assert answer.segments[0].end == 12.5


def test_transcription_stream(client):
    events = list(client.audio.transcriptions.create(model="openai/gpt-4o-transcribe", file=("speech.mp3", AUDIO), stream=True))
    assert events[-1].type == "transcript.text.done"
    assert "".join(e.delta for e in events if e.type == "transcript.text.delta") == events[-1].text == heard("speech.mp3", AUDIO)


def test_translation(client):
    answer = client.audio.translations.create(model="openai/whisper-1", file=("rede.mp3", AUDIO))
    assert answer.text == heard("rede.mp3", AUDIO)


def test_upstream_refusal(client):
    with pytest.raises(openai.BadRequestError) as refused:
        client.audio.transcriptions.create(model="openai/gpt-4o-transcribe", file=("speech.mp3", AUDIO), response_format="verbose_json")
    assert "not compatible" in refused.value.message


def test_transcription_text_and_srt(client):
    # The SDK hands a text/plain answer back as the string it is.
    text = client.audio.transcriptions.create(model="openai/whisper-1", file=("speech.mp3", AUDIO), response_format="text")
    assert text == heard("speech.mp3", AUDIO) + "\n"
    srt = client.audio.transcriptions.create(model="openai/whisper-1", file=("speech.mp3", AUDIO), response_format="srt")
    assert srt == f"1\n00:00:00,000 --> 00:00:12,500\n{heard('speech.mp3', AUDIO)}\n\n"


def test_translation_vtt(client):
    vtt = client.audio.translations.create(model="openai/whisper-1", file=("rede.mp3", AUDIO), response_format="vtt")
    assert vtt == f"WEBVTT\n\n00:00:00.000 --> 00:00:12.500\n{heard('rede.mp3', AUDIO)}\n\n"
