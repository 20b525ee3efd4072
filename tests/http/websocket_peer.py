"""A WebSocket peer for squall's tests, on Python's `websockets` library (Debian's 10.x).

    websocket_peer.py server PORT [--compression]

serves ws://127.0.0.1:PORT/ and echoes every message (text as text, binary as binary). A text
message that is a command does something else instead:
    close:CODE:REASON   closes with that code and reason
    big:N               sends one text message of N bytes
    ping:DATA           pings with DATA, waits for the pong, then sends "pong:DATA"
Each connection's end is printed as "closed CODE REASON" (the code the peer sent), flushed, so a
test can read how its side closed.
"""
import asyncio
import sys

import websockets
import logging, os
if os.environ.get("WS_DEBUG"): logging.basicConfig(level=logging.DEBUG)


async def handle(ws, path=None):
    try:
        async for message in ws:
            if isinstance(message, str) and message.startswith("close:"):
                _, code, reason = message.split(":", 2)
                await ws.close(int(code), reason)
                break
            if isinstance(message, str) and message.startswith("big:"):
                await ws.send("x" * int(message[4:]))
                continue
            if isinstance(message, str) and message.startswith("ping:"):
                waiter = await ws.ping(message[5:])
                await waiter
                await ws.send("pong:" + message[5:])
                continue
            await ws.send(message)
    except websockets.ConnectionClosed:
        pass
    await ws.wait_closed()
    print("closed", ws.close_code, ws.close_reason, flush=True)


async def main():
    mode, port = sys.argv[1], int(sys.argv[2])
    compression = "deflate" if "--compression" in sys.argv else None
    if mode != "server":
        sys.exit("usage: websocket_peer.py server PORT [--compression]")
    async with websockets.serve(handle, "127.0.0.1", port, compression=compression,
                                max_size=16 << 20, ping_interval=None):
        print("listening", port, flush=True)
        await asyncio.Future()


asyncio.run(main())
