/**
 * `python -m engram_ml serve` from the other side of the wire: openpi's own client (`openpi-client`
 * from PyPI, in the venv `.ci/run` creates: .ci/openpi-venv, or $ENGRAM_OPENPI_PYTHON) reads the
 * metadata frame and gets `infer` chunks, as a pi0 deploy script would. (The reverse, Engram's
 * openpi client against openpi's WebsocketPolicyServer, was checked by hand: see docs/remote-policy.md.)
 */
import assert from "node:assert/strict";
import { resolve } from "node:path";
import { after, before, test } from "node:test";
import { missingPython, runPython } from "../record/externalTools.js";
import { pythonServerMissing, startTinyServer, type TinyServer } from "./pythonServer.js";

const OPENPI_PYTHON = process.env.ENGRAM_OPENPI_PYTHON ?? resolve(".ci/openpi-venv/bin/python");
const missing = pythonServerMissing() ?? missingPython(OPENPI_PYTHON, ["openpi_client.websocket_client_policy"]);
let server: TinyServer | null = null;
before(async () => { if (!missing) server = await startTinyServer(); });
after(async () => { await server?.stop(); });

const CLIENT = `
import json, sys
import numpy as np
from openpi_client import websocket_client_policy
host, port = sys.argv[1], int(sys.argv[2])
client = websocket_client_policy.WebsocketClientPolicy(host=host, port=port)
meta = client.get_server_metadata()
obs = {f"observation/{c}": np.random.default_rng(0).random((3, meta["image"]["height"], meta["image"]["width"]), dtype=np.float32) - 0.5 for c in meta["cameras"]}
obs["observation/state"] = np.zeros(meta["state_dim"], np.float32)
obs["prompt"] = "press the button"
replies = [client.infer(obs) for _ in range(2)]
print(json.dumps({"name": meta["name"], "horizon": meta["horizon"], "action_dim": meta["action_dim"],
                  "actions": [[list(r["actions"].shape), str(r["actions"].dtype), bool(np.isfinite(r["actions"]).all())] for r in replies]}))
`;

test("openpi's own client (PyPI openpi-client) reads the metadata and gets infer chunks from engram_ml serve", { skip: missing ?? false, timeout: 60_000 }, () => {
  const url = new URL(server!.url);
  const out = JSON.parse(runPython(OPENPI_PYTHON, CLIENT, [url.hostname, url.port]).trim().split("\n").pop()!) as { name: string; horizon: number; action_dim: number; actions: [number[], string, boolean][] };
  assert.equal(out.horizon, 8);
  assert.equal(out.action_dim, 16);
  assert.deepEqual(out.actions, [[[8, 16], "float32", true], [[8, 16], "float32", true]]);
});
