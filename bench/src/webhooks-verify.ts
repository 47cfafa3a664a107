/**
 * Verifications per second of each webhook preset beside a bare node:crypto HMAC + timingSafeEqual doing the
 * same cryptographic work (decode the received signature, HMAC the signed bytes, compare in constant time).
 * Synchronous loops timed in CPU time, interleaved in short rounds so that drift lands on both sides.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import {
  alphaWebhookVerifier,
  betaWebhookVerifier,
  createWebhookVerifier,
  gammaWebhookVerifier,
} from "@flowrt/webhooks";

const SECRET = "whsec_bench_verify";

export interface VerifyCase {
  preset: string;
  bytes: number;
  presetOps: number;
  bareOps: number;
  ratio: number;
}

interface Pair {
  preset: string;
  verify: () => unknown;
  bare: () => unknown;
}

function hmac(...parts: (string | Buffer)[]): Buffer {
  const h = createHmac("sha256", SECRET);
  for (const part of parts) h.update(part);
  return h.digest();
}

/**
 * A header value as `node:http` hands it over: a flat string. A template literal is a V8 cons string (its pieces,
 * joined lazily) and stays one, so a verifier reading it character by character would pay an indirection per
 * character that no real delivery costs. (The bare side decodes `…Hex` strings, which are flat already.)
 */
const received = (value: string) => Buffer.from(value, "latin1").toString("latin1");

/** A preset and its bare equivalent over one body; both are checked to accept the delivery first. */
function pairs(body: Buffer): Pair[] {
  const t = String(Math.floor(Date.now() / 1000));
  const alphaHex = hmac(`${t}.`, body).toString("hex");
  const alphaHeaders = { "stripe-signature": received(`t=${t},v1=${alphaHex}`) };
  const betaHex = hmac(body).toString("hex");
  const betaHeaders = { "x-hub-signature-256": received(`sha256=${betaHex}`) };
  const gammaHex = hmac(`v0:${t}:`, body).toString("hex");
  const gammaHeaders = { "x-slack-request-timestamp": t, "x-slack-signature": received(`v0=${gammaHex}`) };
  const customB64 = hmac(body).toString("base64");
  const customHeaders = { "x-shopify-hmac-sha256": customB64 };

  const alpha = alphaWebhookVerifier(SECRET);
  const beta = betaWebhookVerifier(SECRET);
  const gamma = gammaWebhookVerifier(SECRET);
  const custom = createWebhookVerifier({
    header: "x-shopify-hmac-sha256",
    secret: SECRET,
    format: "raw",
    encoding: "base64",
  });
  return [
    {
      preset: "alphaWebhookVerifier (Stripe)",
      verify: () => alpha(body, alphaHeaders),
      bare: () => timingSafeEqual(hmac(`${t}.`, body), Buffer.from(alphaHex, "hex")),
    },
    {
      preset: "betaWebhookVerifier (GitHub)",
      verify: () => beta(body, betaHeaders),
      bare: () => timingSafeEqual(hmac(body), Buffer.from(betaHex, "hex")),
    },
    {
      preset: "gammaWebhookVerifier (Slack)",
      verify: () => gamma(body, gammaHeaders),
      bare: () => timingSafeEqual(hmac(`v0:${t}:`, body), Buffer.from(gammaHex, "hex")),
    },
    {
      preset: "createWebhookVerifier raw/base64",
      verify: () => custom(body, customHeaders),
      bare: () => timingSafeEqual(hmac(body), Buffer.from(customB64, "base64")),
    },
  ];
}

/** CPU time of this thread in seconds (the whole process before Node 23.9): load from other processes is not counted. */
function cpuSeconds(): number {
  const threadCpu = (process as { threadCpuUsage?: () => NodeJS.CpuUsage }).threadCpuUsage;
  const usage = threadCpu ? threadCpu.call(process) : process.cpuUsage();
  return (usage.user + usage.system) / 1e6;
}

/**
 * Calls per CPU-second of `fn` over about `ms` milliseconds of wall time. CPU time, not wall time: on a shared
 * machine the wall clock also counts the time other processes held the core.
 */
function rate(fn: () => unknown, ms: number): { calls: number; seconds: number } {
  let calls = 0;
  const start = performance.now();
  const cpuStart = cpuSeconds();
  while (performance.now() - start < ms) {
    for (let i = 0; i < 32; i++) fn();
    calls += 32;
  }
  return { calls, seconds: cpuSeconds() - cpuStart };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/**
 * Each case runs `rounds` short back-to-back pairs (bare, preset — order alternating) and reports the median
 * of the per-pair ratios: on a busy machine a burst of load lands on both halves of a pair, and the median
 * drops the pairs it split.
 */
export function benchVerifiers(options: { rounds?: number; roundMs?: number } = {}): VerifyCase[] {
  const rounds = options.rounds ?? 15;
  const roundMs = options.roundMs ?? 60;
  const cases: VerifyCase[] = [];
  for (const bytes of [1024, 64 * 1024]) {
    const body = Buffer.from(randomBytes(bytes / 2).toString("hex"));
    for (const pair of pairs(body)) {
      if (pair.verify() !== true || pair.bare() !== true) {
        throw new Error(`${pair.preset} does not accept its own delivery; the figures would be meaningless`);
      }
      for (let i = 0; i < 500; i++) {
        pair.verify();
        pair.bare();
      }
      const ratios: number[] = [];
      const presetRates: number[] = [];
      const bareRates: number[] = [];
      for (let round = 0; round < rounds; round++) {
        const first = round % 2 === 0 ? pair.bare : pair.verify;
        const second = round % 2 === 0 ? pair.verify : pair.bare;
        const a = rate(first, roundMs);
        const b = rate(second, roundMs);
        const [bare, preset] = round % 2 === 0 ? [a, b] : [b, a];
        const presetOps = preset.calls / preset.seconds;
        const bareOps = bare.calls / bare.seconds;
        presetRates.push(presetOps);
        bareRates.push(bareOps);
        ratios.push(presetOps / bareOps);
      }
      cases.push({
        preset: pair.preset,
        bytes,
        presetOps: median(presetRates),
        bareOps: median(bareRates),
        ratio: median(ratios),
      });
    }
  }
  return cases;
}
