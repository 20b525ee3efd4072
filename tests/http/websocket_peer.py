"""A WebSocket peer for squall's tests, on Python's `websockets` library (Debian's 10.x).

    websocket_peer.py server PORT [--compression]
    websocket_peer.py client URL [--compression]

The server serves ws://127.0.0.1:PORT/ and echoes every message (text as text, binary as
binary). A text message that is a command does something else instead:
    close:CODE:REASON   closes with that code and reason
    big:N               sends one text message of N bytes
    ping:DATA           pings with DATA, waits for the pong, then sends "pong:DATA"
    subprotocol         sends "subprotocol:NAME", the one agreed ("echo.v2" when offered)
Each connection's end is printed as "closed CODE REASON" (the code the peer sent), flushed, so a
test can read how its side closed.

The client connects to an echo server at URL, offering the subprotocols echo.v1 and echo.v2, and
prints what came back, a line each: "text hello", "binary 0001ff" (in hex), "big True" (1 MiB
of text), "fragments fragmented" (a message sent in three fragments), "pong hi" (the pong to its
ping), "subprotocol echo.v2", then "closed CODE" after the close it starts with 1000 "bye".

    websocket_peer.py wait URL

connects to URL, prints "open", reads until the server closes the connection and prints
"closed CODE" (the code of the server's close frame).

tests/http/websocket_peer_tornado.py (Tornado) and websocket_peer.mjs (npm's ws) do the same.
"""
import asyncio
import sys

import websockets


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
            if message == "subprotocol":
                await ws.send("subprotocol:" + (ws.subprotocol or ""))
                continue
            await ws.send(message)
    except websockets.ConnectionClosed:
        pass
    await ws.wait_closed()
    print("closed", ws.close_code, ws.close_reason, flush=True)


async def client(url, compression):
    async with websockets.connect(url, compression=compression, max_size=16 << 20,
                                  ping_interval=None, subprotocols=["echo.v1", "echo.v2"]) as ws:
        await ws.send("hello")
        print("text", await ws.recv(), flush=True)
        await ws.send(b"\x00\x01\xff")
        print("binary", (await ws.recv()).hex(), flush=True)
        big = "x" * (1 << 20)
        await ws.send(big)
        print("big", await ws.recv() == big, flush=True)
        await ws.send(["frag", "ment", "ed"])
        print("fragments", await ws.recv(), flush=True)
        await (await ws.ping(b"hi"))
        print("pong hi", flush=True)
        print("subprotocol", ws.subprotocol, flush=True)
        await ws.close(1000, "bye")
        print("closed", ws.close_code, flush=True)


async def wait(url, compression):
    async with websockets.connect(url, compression=compression, ping_interval=None) as ws:
        print("open", flush=True)
        async for _ in ws:
            pass
        print("closed", ws.close_code, flush=True)


async def main():
    mode = sys.argv[1]
    compression = "deflate" if "--compression" in sys.argv else None
    if mode == "client":
        await client(sys.argv[2], compression)
        return
    if mode == "wait":
        await wait(sys.argv[2], compression)
        return
    if mode != "server":
        sys.exit("usage: websocket_peer.py server PORT | client URL | wait URL [--compression]")
    port = int(sys.argv[2])
    async with websockets.serve(handle, "127.0.0.1", port, compression=compression,
                                max_size=16 << 20, ping_interval=None,
                                subprotocols=["echo.v2"]):
        print("listening", port, flush=True)
        await asyncio.Future()


asyncio.run(main())
