# One h2c upgrade per URL, by hand with the h2 library (Debian python3-h2;
# httpx has no h2c upgrade): an HTTP/1.1 GET with Upgrade: h2c and the
# HTTP2-Settings h2 makes (initiate_upgrade_connection), the 101 read, then
# the preface h2 prepared and stream 1's response read through h2's state
# machine. Prints one JSON line per URL: {"url", "upgrade" (the HTTP/1.1
# status, or null), "status" (stream 1's :status), "bytes", "error"} where
# error is the exception's or event's class and first line, or null.
# Usage: h2c-python-client.py TIMEOUT_S URL...
import json
import socket
import sys
from urllib.parse import urlsplit

import h2.config
import h2.connection
import h2.events


def upgrade(url, timeout):
    out = {'url': url, 'upgrade': None, 'status': None, 'bytes': 0, 'error': None}
    parts = urlsplit(url)
    target = parts.path + ('?' + parts.query if parts.query else '')
    conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
    settings = conn.initiate_upgrade_connection()
    with socket.create_connection((parts.hostname, parts.port), timeout=timeout) as sock:
        sock.sendall(b'GET ' + target.encode() + b' HTTP/1.1\r\nHost: ' + parts.netloc.encode()
                     + b'\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: ' + settings + b'\r\n\r\n')
        received = b''
        while b'\r\n\r\n' not in received:
            chunk = sock.recv(65536)
            if not chunk:
                out['error'] = 'closed before a response head'
                return out
            received += chunk
        head, _, data = received.partition(b'\r\n\r\n')
        out['upgrade'] = int(head.split(b' ')[1])
        if out['upgrade'] != 101:
            return out
        sock.sendall(conn.data_to_send())
        while True:
            try:
                events = conn.receive_data(data)
            except Exception as error:  # h2's protocol errors are the cell
                text = str(error).split('\n')[0]
                out['error'] = f'{type(error).__name__}: {text}' if text else type(error).__name__
                return out
            for event in events:
                if isinstance(event, h2.events.ResponseReceived) and event.stream_id == 1:
                    out['status'] = int(dict(event.headers).get(b':status', b'0'))
                elif isinstance(event, h2.events.DataReceived) and event.stream_id == 1:
                    out['bytes'] += len(event.data)
                    conn.acknowledge_received_data(event.flow_controlled_length, 1)
                elif isinstance(event, h2.events.StreamEnded) and event.stream_id == 1:
                    return out
                elif isinstance(event, (h2.events.StreamReset, h2.events.ConnectionTerminated)):
                    code = getattr(event, 'error_code', None)
                    out['error'] = f'{type(event).__name__} {getattr(code, "name", code)}'
                    return out
            sock.sendall(conn.data_to_send())
            data = sock.recv(65536)
            if not data:
                out['error'] = 'connection closed'
                return out


timeout = float(sys.argv[1])
for url in sys.argv[2:]:
    try:
        result = upgrade(url, timeout)
    except Exception as error:  # a timeout or a socket error is a cell too
        result = {'url': url, 'upgrade': None, 'status': None, 'bytes': 0, 'error': f'{type(error).__name__}: {error}'}
    print(json.dumps(result), flush=True)
