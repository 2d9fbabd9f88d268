/**
 * `wss://` for a policy server across a network (issue 13): the Python reference server serves TLS
 * with a certificate made at test time by the openssl CLI; the client trusts it through the
 * bundle's `ca_file` and sends the token header. A certificate the client does not trust (no
 * ca_file, or another CA) fails with an error naming the URL and the TLS cause.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { loadRemotePolicy } from "../../src/policy/remote/definition.js";
import { loadRobotProfile } from "../../src/robot/loadRobotProfile.js";
import { pythonServerMissing, startTinyServer, type TinyServer } from "./pythonServer.js";
import { writeRemoteBundle } from "./remoteBundle.js";

const openssl = spawnSync("openssl", ["version"], { encoding: "utf8" });
const missing = openssl.error || openssl.status !== 0 ? "the openssl CLI is not installed (apt: openssl): cannot make a test certificate" : pythonServerMissing();
const robot = loadRobotProfile("robots/x-one.yaml").profile;
const episode = { task: "put-back-block", episode: 0, seed: 1, instruction: "press the button" };
const TOKEN = { ENGRAM_TEST_POLICY_TOKEN: "tls-s3cret" };

/** A self-signed certificate for 127.0.0.1 (its own CA) and its key, in `dir`. */
function selfSigned(dir: string, name: string): { cert: string; key: string } {
  const cert = join(dir, `${name}.pem`), key = join(dir, `${name}.key`);
  const r = spawnSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days", "1",
    "-subj", `/CN=${name}`, "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`openssl req failed: ${r.stderr}`);
  return { cert, key };
}

let dir = "";
let server: TinyServer | null = null;
let certs: { cert: string; key: string };
before(async () => {
  if (missing) return;
  dir = mkdtempSync(join(tmpdir(), "engram-tls-"));
  certs = selfSigned(dir, "policy-server");
  server = await startTinyServer(["--cert", certs.cert, "--key", certs.key, "--token-env", "ENGRAM_TEST_POLICY_TOKEN"], TOKEN);
});
after(async () => {
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test("wss://: the Python server serves TLS; ca_file + token: reset, observe and act go through", { skip: missing ?? false, timeout: 60_000 }, async () => {
  assert.match(server!.url, /^wss:\/\/127\.0\.0\.1:\d+$/);
  const bundle = writeRemoteBundle(server!.url, { token_env: "ENGRAM_TEST_POLICY_TOKEN", ca_file: certs.cert });
  const policy = loadRemotePolicy(bundle, { robot, env: TOKEN });
  try {
    await policy.reset(episode);
    policy.setInstruction("press the button");
    const image = new Float32Array(3 * 24 * 32).map((_, i) => Math.cos(i) * 0.5);
    const observed = await policy.observe({ stampNs: 0n, images: { head: image, left_wrist: image, right_wrist: image }, state: new Float64Array(16) });
    assert.ok(Number.isFinite(observed.logit));
    const chunk = await policy.act();
    assert.equal(chunk.horizon, 8);
    assert.ok(chunk.actions.every(Number.isFinite));
  } finally {
    await policy.close();
    rmSync(bundle, { recursive: true, force: true });
  }
});

test("wss://: an untrusted certificate fails naming the URL and the TLS cause; the token alone does not help", { skip: missing ?? false, timeout: 60_000 }, async () => {
  const other = selfSigned(dir, "another-ca");
  const cases: Array<[string, Record<string, unknown>]> = [["no ca_file (system CAs)", {}], ["another CA's certificate", { ca_file: other.cert }]];
  for (const [what, over] of cases) {
    const bundle = writeRemoteBundle(server!.url, { token_env: "ENGRAM_TEST_POLICY_TOKEN", reconnect: { give_up_s: 0.2 }, ...over });
    const policy = loadRemotePolicy(bundle, { robot, env: TOKEN });
    try {
      await assert.rejects(policy.reset(episode), (err: Error) => {
        assert.ok(err.message.includes(`policy server ${server!.url} unreachable: TLS: `), `${what}: ${err.message}`);
        assert.match(err.message, /self-signed certificate|SELF_SIGNED|unable to verify/i, what);
        assert.match(err.message, /give its CA \(or the self-signed certificate\) in the bundle's ca_file/, what);
        return true;
      });
    } finally {
      await policy.close();
      rmSync(bundle, { recursive: true, force: true });
    }
  }
});

test("ca_file that is not there or holds no certificate: an error naming the manifest and the file", { skip: missing ?? false }, () => {
  const notPem = join(dir, "not-a-cert.txt");
  writeFileSync(notPem, "hello\n");
  for (const [caFile, cause] of [[join(dir, "absent.pem"), /ca_file: cannot read .*absent\.pem: ENOENT/], [notPem, /ca_file: .*not-a-cert\.txt holds no PEM certificate/]] as const) {
    const bundle = writeRemoteBundle(server!.url, { ca_file: caFile });
    try {
      assert.throws(() => loadRemotePolicy(bundle, { robot }), (err: Error) => err.message.includes(join(bundle, "policy.yaml")) && cause.test(err.message));
    } finally {
      rmSync(bundle, { recursive: true, force: true });
    }
  }
});
