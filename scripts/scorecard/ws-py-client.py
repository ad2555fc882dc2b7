# One python3-websockets (Debian python3-websockets, 10.x) client run, for the
# WebSocket client cells (tests/integration/websocket/clients.test.ts) and the
# client scorecard's WebSocket table (scripts/scorecard/ws-clients.ts): connects
# to argv[1] (offering the subprotocol argv[2] when given), reads messages until
# 2 s pass without one, then closes; prints one JSON line: how far it got, what
# it raised (class and text), the close codes sent and received. With `-` as
# argv[1] it reads a JSON list of [url, protocol or null] from stdin, runs them
# all at once (one interpreter start for many cells) and prints a JSON list of
# reports in the same order.
import asyncio
import json
import sys

import websockets


async def run(url, protocol):
    report = {"open": False, "messages": 0, "error": None, "message": None, "rcvd": None, "sent": None}
    try:
        async with websockets.connect(url, subprotocols=[protocol] if protocol else None, open_timeout=10, close_timeout=2, max_size=2**20) as ws:
            report["open"] = True
            while True:
                try:
                    await asyncio.wait_for(ws.recv(), 2)
                    report["messages"] += 1
                except asyncio.TimeoutError:
                    break
    except websockets.exceptions.ConnectionClosed as error:
        report["error"] = type(error).__name__
        report["message"] = str(error)
        report["rcvd"] = error.rcvd.code if error.rcvd else None
        report["sent"] = error.sent.code if error.sent else None
    except Exception as error:  # the handshake failures: InvalidHandshake and its kin
        report["error"] = type(error).__name__
        report["message"] = str(error)
    return report


async def run_all(targets):
    return await asyncio.gather(*(run(url, protocol) for url, protocol in targets))


if sys.argv[1] == "-":
    print(json.dumps(asyncio.run(run_all(json.load(sys.stdin)))))
else:
    print(json.dumps(asyncio.run(run(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None))))
