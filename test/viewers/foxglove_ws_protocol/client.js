// A foxglove.websocket.v1 client made of the protocol's own library (@foxglove/ws-protocol,
// the client Lichtblick's lineage uses), driven by test/test_foxglove_subprotocols.py.
//
//   node client.js URL TOPIC PUBLISH_TOPIC PUBLISH_SCHEMA PUBLISH_CDR_HEX
//
// Prints one JSON object a line: {"event":"open","protocol":...}, {"event":"serverInfo",...},
// {"event":"advertise","channels":[...]}, {"event":"message","subscriptionId":n,"data":base64}
// once subscribed to TOPIC, {"event":"status",...}. Once a message arrived it advertises
// PUBLISH_TOPIC (cdr, PUBLISH_SCHEMA) and sends the CDR bytes every 100 ms until stdin closes.
"use strict";
const { FoxgloveClient } = require("@foxglove/ws-protocol");
const WebSocket = require("ws");

const [url, topic, publishTopic, publishSchema, cdrHex] = process.argv.slice(2);
const say = (obj) => process.stdout.write(JSON.stringify(obj) + "\n");

const ws = new WebSocket(url, [FoxgloveClient.SUPPORTED_SUBPROTOCOL]);
const client = new FoxgloveClient({ ws });
let subscribed = false;
let publishing = null;

client.on("open", () => say({ event: "open", protocol: ws.protocol }));
client.on("error", (e) => say({ event: "error", error: String(e && e.message ? e.message : e) }));
client.on("close", (e) => {
  say({ event: "close", code: e.code });
  process.exit(0);
});
client.on("serverInfo", (info) => say({ event: "serverInfo", info }));
client.on("status", (s) => say({ event: "status", status: s }));
client.on("advertise", (channels) => {
  say({ event: "advertise", channels });
  const ch = channels.find((c) => c.topic === topic);
  if (ch && !subscribed) {
    subscribed = true;
    client.subscribe(ch.id);
  }
});
client.on("message", ({ subscriptionId, data }) => {
  say({
    event: "message",
    subscriptionId,
    data: Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString("base64"),
  });
  if (publishing === null) {
    const channel = client.advertise({ topic: publishTopic, encoding: "cdr", schemaName: publishSchema });
    const cdr = new Uint8Array(Buffer.from(cdrHex, "hex"));
    publishing = setInterval(() => client.sendMessage(channel, cdr), 100);
  }
});
process.stdin.on("end", () => {
  if (publishing !== null) clearInterval(publishing);
  client.close();
});
process.stdin.resume();
