// A WebSocket peer for squall's tests, on npm's `ws` package (scripts/bootstrap installs it
// into .cache/ws).
//
//     node websocket_peer.mjs server PORT [--compression]
//     node websocket_peer.mjs client URL [--compression]
//     node websocket_peer.mjs wait URL [--compression]
//
// Speaks as tests/http/websocket_peer.py does: its docstring has the commands and the lines
// printed.
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import path from "node:path";

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, "../../.cache/ws/node_modules/"));
const { WebSocket, WebSocketServer } = require("ws");

const [mode, target] = process.argv.slice(2);
const compression = process.argv.includes("--compression");
const maxPayload = 16 << 20;

function server(port) {
  const wss = new WebSocketServer({
    host: "127.0.0.1",
    port,
    maxPayload,
    perMessageDeflate: compression,
    handleProtocols: (offered) => (offered.has("echo.v2") ? "echo.v2" : false),
  });
  wss.on("listening", () => console.log("listening", port));
  wss.on("connection", (ws) => {
    ws.on("message", (data, isBinary) => {
      const text = isBinary ? null : data.toString();
      if (text !== null && text.startsWith("close:")) {
        const [, code, ...reason] = text.split(":");
        ws.close(Number(code), reason.join(":"));
      } else if (text !== null && text.startsWith("big:")) {
        ws.send("x".repeat(Number(text.slice(4))));
      } else if (text !== null && text.startsWith("ping:")) {
        ws.once("pong", () => ws.send("pong:" + text.slice(5)));
        ws.ping(text.slice(5));
      } else if (text === "subprotocol") {
        ws.send("subprotocol:" + ws.protocol);
      } else {
        ws.send(data, { binary: isBinary });
      }
    });
    ws.on("close", (code, reason) => console.log("closed", code, reason.toString()));
  });
}

// The next event of `name` on `ws`, as a promise.
const next = (ws, name) => new Promise((resolve) => ws.once(name, (...args) => resolve(args)));

async function client(url) {
  const ws = new WebSocket(url, ["echo.v1", "echo.v2"], {
    maxPayload,
    perMessageDeflate: compression,
  });
  await next(ws, "open");
  const reply = async (data, options) => {
    const answer = next(ws, "message");
    ws.send(data, options);
    return (await answer)[0];
  };
  console.log("text", (await reply("hello")).toString());
  console.log("binary", (await reply(Buffer.from([0, 1, 255]))).toString("hex"));
  const big = "x".repeat(1 << 20);
  console.log("big", (await reply(big)).toString() === big ? "True" : "False");
  const fragmented = next(ws, "message");
  ws.send("frag", { fin: false });
  ws.send("ment", { fin: false });
  ws.send("ed", { fin: true });
  console.log("fragments", (await fragmented)[0].toString());
  const pong = next(ws, "pong");
  ws.ping("hi");
  console.log("pong", (await pong)[0].toString());
  console.log("subprotocol", ws.protocol);
  const closed = next(ws, "close");
  ws.close(1000, "bye");
  console.log("closed", (await closed)[0]);
}

async function wait(url) {
  const ws = new WebSocket(url, { perMessageDeflate: compression });
  await next(ws, "open");
  console.log("open");
  const [code] = await next(ws, "close");
  console.log("closed", code);
}

if (mode === "server") server(Number(target));
else if (mode === "client") await client(target);
else if (mode === "wait") await wait(target);
else {
  console.error("usage: websocket_peer.mjs server PORT | client URL | wait URL [--compression]");
  process.exit(2);
}
