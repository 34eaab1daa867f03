"""The OpenAI-compatible chat client against stub servers on 127.0.0.1: normal, slow (timeout
then retry), failing (5xx until retries run out; 401 stops everything), rate limiting (429 with
Retry-After), bounded concurrency, token and cost counts, configuration errors."""
from __future__ import annotations

import threading

import pytest

from finchunk_pipeline.enrichment.client import ChatClient, LLMConfigError, LLMRequestError, LLMSettings

from tests.llm_stub import Reply, StubLLM, env_for, ok

MESSAGES = [{"role": "user", "content": "hello"}]


def client_for(stub, sleeps=None, **extra) -> ChatClient:
    settings = LLMSettings.from_env("FINCHUNK_LLM", env=env_for(stub, **extra))
    return ChatClient(settings, sleep=(sleeps.append if sleeps is not None else lambda s: None))


def test_completion_counts_tokens_sends_the_model_and_key():
    with StubLLM(lambda n, req: Reply(content="  a context  ", prompt_tokens=40, completion_tokens=7)) as stub:
        client = client_for(stub, api_key="sk-test", price_input="2", price_output="10")
        c = client.complete(MESSAGES, max_tokens=50)
        assert c.text == "a context" and (c.prompt_tokens, c.completion_tokens) == (40, 7)
        req = stub.requests[0]
        assert req["path"] == "/v1/chat/completions"
        assert req["body"]["model"] == "stub-model" and req["body"]["max_tokens"] == 50
        assert req["body"]["messages"] == MESSAGES
        assert req["authorization"] == "Bearer sk-test"
        usage = client.usage.as_dict(client.settings)
        assert usage["requests"] == 1 and usage["prompt_tokens"] == 40 and usage["completion_tokens"] == 7
        assert usage["cost_usd"] == pytest.approx(40 * 2 / 1e6 + 7 * 10 / 1e6)


def test_cost_is_not_invented_without_prices():
    with StubLLM() as stub:
        client = client_for(stub)
        client.complete(MESSAGES)
        assert client.usage.as_dict(client.settings)["cost_usd"] is None


def test_rate_limited_429_waits_retry_after_then_succeeds():
    def behaviour(n, req):
        return Reply(status=429, headers={"Retry-After": "2"}) if n <= 2 else ok("after the limit")

    sleeps: list[float] = []
    with StubLLM(behaviour) as stub:
        client = client_for(stub, sleeps, max_backoff="60")
        assert client.complete(MESSAGES).text == "after the limit"
    assert len(stub.requests) == 3
    assert sleeps == [2.0, 2.0], "Retry-After is honoured (not the exponential backoff)"
    assert client.usage.rate_limited == 2 and client.usage.retries == 2


def test_slow_server_times_out_and_the_retry_succeeds():
    def behaviour(n, req):
        return Reply(delay=3.0) if n == 1 else ok("fast now")

    with StubLLM(behaviour) as stub:
        client = client_for(stub, timeout="0.3")
        assert client.complete(MESSAGES).text == "fast now"
    assert client.usage.timeouts == 1 and client.usage.retries == 1 and len(stub.requests) == 2


def test_failing_server_gives_up_with_an_error_naming_url_and_status():
    with StubLLM(lambda n, req: Reply(status=503)) as stub:
        client = client_for(stub, max_retries="2")
        with pytest.raises(LLMRequestError) as err:
            client.complete(MESSAGES)
    assert len(stub.requests) == 3
    assert "gave up after 3 attempts" in str(err.value) and "HTTP 503" in str(err.value)
    assert stub.base_url + "/chat/completions" in str(err.value)
    assert err.value.status == 503 and client.usage.server_errors == 3


def test_refused_key_is_not_retried_and_stops_the_remaining_jobs():
    with StubLLM(lambda n, req: Reply(status=401)) as stub:
        client = client_for(stub, concurrency="1")
        done, failed = client.complete_many([(f"k{i}", MESSAGES) for i in range(5)])
    assert not done and len(failed) == 5
    assert len(stub.requests) == 1, "a refused key is fatal: nothing else is sent"
    assert "FINCHUNK_LLM_API_KEY" in failed["k0"] and "HTTP 401" in failed["k0"]
    assert client.fatal_error is not None


def test_wrong_path_says_to_check_the_base_url():
    with StubLLM() as stub:
        settings = LLMSettings.from_env("FINCHUNK_LLM", env={**env_for(stub), "FINCHUNK_LLM_BASE_URL":
                                                             stub.base_url.replace("/v1", "/nope/x")})
        # base URL without /v1: the stub answers 404 for any other route than /v1/chat/completions
        with pytest.raises(LLMRequestError, match="FINCHUNK_LLM_BASE_URL"):
            ChatClient(settings, sleep=lambda s: None).complete(MESSAGES)


def test_not_a_chat_completion_is_an_error():
    with StubLLM(lambda n, req: Reply(raw=b'{"unexpected": true}')) as stub:
        with pytest.raises(LLMRequestError, match="not an OpenAI-compatible chat completion"):
            client_for(stub).complete(MESSAGES)


def test_complete_many_keeps_results_of_good_jobs_and_bounds_concurrency():
    active, peak, lock = [0], [0], threading.Lock()

    def behaviour(n, req):
        text = req["messages"][0]["content"]
        return Reply(status=500) if text == "bad" else Reply(content=f"re: {text}", delay=0.05)

    with StubLLM(behaviour) as stub:
        client = client_for(stub, concurrency="2", max_retries="1")
        original = client.complete

        def counting(*a, **k):
            with lock:
                active[0] += 1
                peak[0] = max(peak[0], active[0])
            try:
                return original(*a, **k)
            finally:
                with lock:
                    active[0] -= 1

        client.complete = counting
        jobs = [(f"k{i}", [{"role": "user", "content": "bad" if i == 3 else f"q{i}"}]) for i in range(8)]
        done, failed = client.complete_many(jobs)
    assert set(done) == {f"k{i}" for i in range(8)} - {"k3"} and set(failed) == {"k3"}
    assert done["k5"].text == "re: q5"
    assert peak[0] <= 2, "at most `concurrency` requests in flight"
    assert client.usage.failed == 1


@pytest.mark.parametrize("env, message", [
    ({}, "FINCHUNK_LLM_BASE_URL"),
    ({"FINCHUNK_LLM_BASE_URL": "127.0.0.1:8080"}, r"not an http\(s\) URL"),
    ({"FINCHUNK_LLM_BASE_URL": "http://127.0.0.1:9/v1"}, "FINCHUNK_LLM_MODEL"),
    ({"FINCHUNK_LLM_BASE_URL": "http://127.0.0.1:9/v1", "FINCHUNK_LLM_MODEL": "m", "FINCHUNK_LLM_RPS": "fast"},
     "FINCHUNK_LLM_RPS"),
])
def test_misconfiguration_is_a_clear_error(env, message):
    with pytest.raises(LLMConfigError, match=message):
        LLMSettings.from_env("FINCHUNK_LLM", env=env)


def test_settings_url_accepts_a_full_completions_url():
    s = LLMSettings.from_env("FINCHUNK_ANSWER", env={"FINCHUNK_ANSWER_BASE_URL": "http://127.0.0.1:1/v1/chat/completions/",
                                                     "FINCHUNK_ANSWER_MODEL": "m"})
    assert s.url == "http://127.0.0.1:1/v1/chat/completions" and s.prefix == "FINCHUNK_ANSWER"
