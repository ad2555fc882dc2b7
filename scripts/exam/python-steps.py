# Takes the steps of a client exam (docs/exam.md) with one of Python's HTTP
# clients, used as an application uses it: the client's defaults, plus only
# what a step asks of the caller (a 2 s timeout in the client's own terms, a
# second call, a POST body, an Authorization header, Last-Event-ID on the
# reconnection). One client object (session, opener) for every step, so its
# connection pool and cookie jar are the ones an application would have.
# Reads `name url` lines on stdin; scripts/exam/run.ts opens the exam, feeds
# them and prints the grade:
#   node dist/scripts/exam/run.js urllib|requests|httpx|aiohttp [profile] [hub URL]
# Needs Debian's /usr/bin/python3 with python3-requests, python3-httpx, python3-aiohttp.
import os
import socket
import ssl
import sys
import threading
import time

# The caller's deadline, for the steps that ask for one (stall, slow-headers, drip).
TIMEOUT_S = 2
FORM = {"content-type": "application/x-www-form-urlencoded"}
CA_FILE = os.environ.get("EXAM_CA_FILE") or None

# *.localhost names are the loopback (RFC 6761 §6.3), as curl and browsers
# resolve them by themselves; glibc here does not, so the runner does, for
# every client: each (urllib, requests, httpx, aiohttp's threaded resolver)
# connects through socket.getaddrinfo.
_system_getaddrinfo = socket.getaddrinfo


def _loopback_getaddrinfo(host, *args, **kwargs):
    name = host.decode() if isinstance(host, bytes) else host
    if isinstance(name, str) and name.endswith(".localhost"):
        host = "127.0.0.1"
    return _system_getaddrinfo(host, *args, **kwargs)


socket.getaddrinfo = _loopback_getaddrinfo


def urllib_client():
    import http.cookiejar
    import urllib.request

    handlers = [urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar())]
    if CA_FILE:
        handlers.append(urllib.request.HTTPSHandler(context=ssl.create_default_context(cafile=CA_FILE)))
    opener = urllib.request.build_opener(*handlers)

    def call(method, url, headers, body, timeout, on_chunk):
        request = urllib.request.Request(url, data=body.encode() if body else None, headers=headers, method=method)
        try:
            response = opener.open(request, timeout=timeout) if timeout else opener.open(request)
        except urllib.error.HTTPError as error:  # a 4xx/5xx is raised, with its body to read
            response = error
        with response:
            while True:
                chunk = response.read1(4096) if hasattr(response, "read1") else response.read(4096)
                if not chunk:
                    return
                on_chunk(chunk)

    return call, lambda: None


def requests_client():
    import requests

    session = requests.Session()
    # The root per request: REQUESTS_CA_BUNDLE (or CURL_CA_BUNDLE) in the environment wins over Session.verify (psf/requests#3829).
    trust = {"verify": CA_FILE} if CA_FILE else {}

    def call(method, url, headers, body, timeout, on_chunk):
        with session.request(method, url, headers=headers, data=body, timeout=timeout, stream=True, **trust) as response:
            for chunk in response.iter_content(4096):
                on_chunk(chunk)

    return call, session.close


def httpx_client():
    import httpx

    # httpx follows no redirect by default: the redirect steps ask the caller to follow.
    client = httpx.Client(follow_redirects=True, verify=CA_FILE or True)

    def call(method, url, headers, body, timeout, on_chunk):
        options = {"timeout": timeout} if timeout else {}
        with client.stream(method, url, headers=headers, content=body, **options) as response:
            for chunk in response.iter_raw():
                on_chunk(chunk)

    return call, client.close


def aiohttp_client():
    import asyncio

    import aiohttp

    # One ClientSession on one event loop, as an asyncio application has; the steps' threads submit to it.
    loop = asyncio.new_event_loop()
    threading.Thread(target=loop.run_forever, daemon=True).start()

    async def open_session():
        return aiohttp.ClientSession()

    session = asyncio.run_coroutine_threadsafe(open_session(), loop).result()
    context = ssl.create_default_context(cafile=CA_FILE) if CA_FILE else None

    async def request(method, url, headers, body, timeout, on_chunk):
        options = {}
        if timeout:
            options["timeout"] = aiohttp.ClientTimeout(total=timeout)
        if context:
            options["ssl"] = context
        async with session.request(method, url, headers=headers, data=body, **options) as response:
            async for chunk in response.content.iter_any():
                on_chunk(chunk)

    def call(method, url, headers, body, timeout, on_chunk):
        asyncio.run_coroutine_threadsafe(request(method, url, headers, body, timeout, on_chunk), loop).result()

    def close():
        asyncio.run_coroutine_threadsafe(session.close(), loop).result()

    return call, close


CLIENTS = {"urllib": urllib_client, "requests": requests_client, "httpx": httpx_client, "aiohttp": aiohttp_client}


def take(call, name, url):
    def send(method="GET", headers=None, body=None, timeout=None, on_chunk=lambda chunk: None):
        # Errors are the client's answer to a lie: the service records what happened.
        try:
            call(method, url, headers or {}, body, timeout, on_chunk)
        except Exception:
            pass

    if name in ("redirect-302", "redirect-303", "redirect-307", "redirect-308"):
        send("POST", FORM, "a=1&b=2")
    elif name == "post-503":
        send("POST", FORM, "a=1")
    elif name in ("cross-host-authorization", "https-downgrade"):
        send(headers={"authorization": "Bearer exam-token"})
    elif name in ("stall", "slow-headers", "drip"):
        send(timeout=TIMEOUT_S)
    elif name in ("keepalive-lie", "etag", "last-modified", "no-store"):
        send()
        send()
    elif name == "vary":
        send(headers={"accept-encoding": "gzip"})
        send(headers={"accept-encoding": "identity"})
    elif name == "sse-resume":
        # No SSE client here: read the stream, then reconnect once as the caller must.
        stream = {"buffer": b"", "pending": None, "last": None, "retry": 3000}

        def on_chunk(chunk):
            stream["buffer"] += chunk
            while b"\n" in stream["buffer"]:
                line, stream["buffer"] = stream["buffer"].split(b"\n", 1)
                line = line.decode("utf-8", "replace").rstrip("\r")
                if line == "":
                    # Only a dispatched event's id becomes the last event id.
                    if stream["pending"] is not None:
                        stream["last"] = stream["pending"]
                elif line.startswith("id:"):
                    stream["pending"] = line[3:].strip()
                elif line.startswith("retry:") and line[6:].strip().isdigit():
                    stream["retry"] = int(line[6:].strip())

        send(headers={"accept": "text/event-stream"}, on_chunk=on_chunk)
        time.sleep(stream["retry"] / 1000 + 0.05)
        resume = {"last-event-id": stream["last"]} if stream["last"] is not None else {}
        send(headers={"accept": "text/event-stream", **resume})
    else:
        # The retry steps, the loop, the cookie hop, the download: the client as it is.
        send()


def main():
    call, close = CLIENTS[sys.argv[1]]()
    steps = [line.split() for line in sys.stdin if len(line.split()) == 2]
    threads = [threading.Thread(target=take, args=(call, name, url)) for name, url in steps]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    close()


main()
