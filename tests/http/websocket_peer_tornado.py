"""A WebSocket peer for squall's tests, on Tornado's websocket module (Debian's 6.x).

    websocket_peer_tornado.py server PORT [--compression]
    websocket_peer_tornado.py client URL [--compression]
    websocket_peer_tornado.py wait URL [--compression]

Speaks as tests/http/websocket_peer.py does (its docstring has the commands and the lines
printed), except that Tornado cannot send a message in fragments, so the client prints no
"fragments" line.
"""
import asyncio
import sys

import tornado.web
import tornado.websocket


class Echo(tornado.websocket.WebSocketHandler):
    compression = False

    def check_origin(self, origin):
        return True

    def get_compression_options(self):
        return {} if self.compression else None

    def select_subprotocol(self, subprotocols):
        return "echo.v2" if "echo.v2" in subprotocols else None

    async def on_message(self, message):
        if isinstance(message, str) and message.startswith("close:"):
            _, code, reason = message.split(":", 2)
            self.close(int(code), reason)
            return
        if isinstance(message, str) and message.startswith("big:"):
            await self.write_message("x" * int(message[4:]))
            return
        if isinstance(message, str) and message.startswith("ping:"):
            # Tornado reads no frame while on_message waits, so the pong is awaited elsewhere.
            self.pong_waiter = asyncio.get_running_loop().create_future()
            self.ping(message[5:].encode())
            asyncio.ensure_future(self.answer_pong(message[5:]))
            return
        if message == "subprotocol":
            await self.write_message("subprotocol:" + (self.selected_subprotocol or ""))
            return
        await self.write_message(message, binary=isinstance(message, bytes))

    async def answer_pong(self, data):
        await self.pong_waiter
        await self.write_message("pong:" + data)

    def on_pong(self, data):
        waiter = getattr(self, "pong_waiter", None)
        if waiter and not waiter.done():
            waiter.set_result(data)

    def on_close(self):
        print("closed", self.close_code, self.close_reason, flush=True)


async def client(url, compression):
    pong = asyncio.get_running_loop().create_future()

    async def answer_pong(self, data):
        await self.pong_waiter
        await self.write_message("pong:" + data)

    def on_pong(self, data):
        if not pong.done():
            pong.set_result(data)

    # websocket_connect makes the connection object itself: its on_pong is set on the class.
    tornado.websocket.WebSocketClientConnection.on_pong = on_pong
    ws = await tornado.websocket.websocket_connect(
        url, compression_options={} if compression else None, max_message_size=16 << 20,
        ping_interval=None, subprotocols=["echo.v1", "echo.v2"])
    await ws.write_message("hello")
    print("text", await ws.read_message(), flush=True)
    await ws.write_message(b"\x00\x01\xff", binary=True)
    print("binary", (await ws.read_message()).hex(), flush=True)
    big = "x" * (1 << 20)
    await ws.write_message(big)
    print("big", await ws.read_message() == big, flush=True)
    ws.ping(b"hi")
    print("pong", (await pong).decode(), flush=True)
    print("subprotocol", ws.selected_subprotocol, flush=True)
    ws.close(1000, "bye")
    while await ws.read_message() is not None:
        pass
    print("closed", ws.close_code, flush=True)


async def wait(url, compression):
    ws = await tornado.websocket.websocket_connect(
        url, compression_options={} if compression else None, ping_interval=None)
    print("open", flush=True)
    while await ws.read_message() is not None:
        pass
    print("closed", ws.close_code, flush=True)


async def main():
    mode = sys.argv[1]
    compression = "--compression" in sys.argv
    if mode == "client":
        await client(sys.argv[2], compression)
        return
    if mode == "wait":
        await wait(sys.argv[2], compression)
        return
    if mode != "server":
        sys.exit("usage: websocket_peer_tornado.py server PORT | client URL | wait URL"
                 " [--compression]")
    port = int(sys.argv[2])
    Echo.compression = compression
    app = tornado.web.Application([(r"/.*", Echo)], websocket_max_message_size=16 << 20)
    app.listen(port, "127.0.0.1")
    print("listening", port, flush=True)
    await asyncio.Future()


asyncio.run(main())
