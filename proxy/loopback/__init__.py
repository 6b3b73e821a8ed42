"""A loopback provider server speaking OpenAI's, Anthropic's and Gemini's wire protocols.

For tests, benchmarks and local trials. The requested model name picks the behaviour (its last
``-``/``/`` segment may carry it, e.g. ``claude-tools`` or ``loopback/drip``):

    echo (default)   a short deterministic text: message count and the last user words
    tools            two parallel tool calls (text instead once the last message is a tool result)
    error-500        HTTP 500 with the provider's error JSON
    error-429        HTTP 429 with Retry-After (``retry_after``)
    garbage          HTTP 200 with a body that is not JSON, or a broken SSE stream
    slow             waits ``slow_seconds`` before answering (stops waiting if the client goes)
    midstream-error  a few chunks, then the provider's in-stream error event
    abort            a few chunks (or half a body), then the connection is dropped
    drip             ``drip_chunks`` text chunks ``drip_delay`` seconds apart
    extract          a JSON reply in the LLM extractor's schema: each "Decided: …" of the
                     prompt as a grounded fact, plus one invented fact grounding must drop

Routes: POST /v1/chat/completions and GET /v1/models (OpenAI), POST /v1/messages (Anthropic),
POST /v1beta/models/{model}:generateContent and :streamGenerateContent?alt=sse (Gemini).
Prompt tokens in the usage it reports are ``memory.graph.tokens.count_messages`` of the request.
With ``strict`` (the default) it refuses what the real provider refuses: unpaired tool calls and
results, Anthropic requests without ``max_tokens`` or ``anthropic-version``, and the like.

    with LoopbackServer(drip_delay=0.01) as server:
        openai.OpenAI(base_url=server.url + "/v1", api_key="x")
        server.requests       # [{"method", "path", "query", "headers", "body"}, ...]
        server.cancelled      # streams whose client left before the end
        server.wait_cancelled(1); server.wait_requests(3); server.reset()

Knobs (constructor arguments and plain attributes, restored by ``reset()``): ``slow_seconds``
(10), ``drip_chunks`` (5), ``drip_delay`` (0.1 s), ``retry_after`` (1 s), ``strict`` (True).
``python -m proxy.loopback --port 8765`` runs it standalone.
"""

from proxy.loopback.replies import BEHAVIOURS, behaviour_of
from proxy.loopback.server import LoopbackApp, LoopbackServer

__all__ = ["BEHAVIOURS", "LoopbackApp", "LoopbackServer", "behaviour_of"]
