# One GET per URL with httpx over HTTP/2 (Debian python3-httpx, python3-h2):
# prior knowledge for http:// (http1=False), ALPN for https:// (verify=CAFILE).
# Prints one JSON line per URL: {"url", "status", "http_version", "bytes",
# "error"} where error is the exception's class and first line, or null.
# Usage: h2-httpx-client.py CAFILE|- TIMEOUT_S URL...
import json
import sys

import httpx

cafile, timeout = sys.argv[1], float(sys.argv[2])
verify = cafile if cafile != '-' else True
for url in sys.argv[3:]:
    out = {'url': url, 'status': None, 'http_version': None, 'bytes': 0, 'error': None}
    try:
        with httpx.Client(http1=False, http2=True, verify=verify, timeout=timeout) as client:
            with client.stream('GET', url) as response:
                out['status'] = response.status_code
                out['http_version'] = response.http_version
                for chunk in response.iter_bytes():
                    out['bytes'] += len(chunk)
    except Exception as error:  # every failure is a cell: what the client said
        text = str(error).split('\n')[0]
        out['error'] = f'{type(error).__name__}: {text}' if text else type(error).__name__
    print(json.dumps(out), flush=True)
