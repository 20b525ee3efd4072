#!/usr/bin/python3
"""The client benchmark's Tornado peer: the same load as examples/loadgen, over AsyncHTTPClient.

`concurrency` coroutines share one AsyncHTTPClient with max_clients = concurrency (Tornado's
default simple client, which opens a connection per request). Prints the same JSON line as
loadgen. Needs Debian's python3-tornado: run it with /usr/bin/python3.

    /usr/bin/python3 bench/client_tornado.py http://127.0.0.1:8080/1k.bin 20000 64
"""
import asyncio
import json
import sys
import time

from tornado.httpclient import AsyncHTTPClient


async def load(url, requests, concurrency):
    client = AsyncHTTPClient(force_instance=True, max_clients=concurrency)
    tally = {"started": 0, "done": 0, "errors": 0}

    async def worker():
        while tally["started"] < requests:
            tally["started"] += 1
            response = await client.fetch(url, raise_error=False)
            tally["done"] += 1
            if response.code != 200:
                if tally["errors"] == 0:
                    print(f"client_tornado: first error: {response.code} {response.error}",
                          file=sys.stderr)
                tally["errors"] += 1

    start = time.monotonic()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    seconds = time.monotonic() - start
    client.close()
    return tally, seconds


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: client_tornado.py URL REQUESTS CONCURRENCY")
    url, requests, concurrency = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    tally, seconds = asyncio.run(load(url, requests, concurrency))
    print(json.dumps({"requests": tally["done"], "errors": tally["errors"],
                      "concurrency": concurrency, "seconds": round(seconds, 6),
                      "requests_per_second": round(tally["done"] / seconds, 1)}))
    sys.exit(0 if tally["errors"] == 0 else 1)


if __name__ == "__main__":
    main()
