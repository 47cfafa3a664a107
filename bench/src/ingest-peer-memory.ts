/**
 * The memory peer of the `ingest` benchmark: what a team writes on one box instead of flowrt. Express reads the raw
 * body, `stripe.webhooks.constructEvent` verifies the signature (the same secret and header as flowrt's
 * `alphaWebhookVerifier`, so the same delivery bytes verify on both) and parses the event, the event goes on an
 * in-process queue and the route answers 202; the queue runs the same instant handler (`ingest-handler.ts`) on each
 * event in turn, drained from `setImmediate` after the I/O that filled it. Nothing is durable: a crash loses the
 * queue.
 */
import express, { type Express } from "express";
import Stripe from "stripe";
import { recordPayment } from "./ingest-handler.js";
import { BENCH_SECRET } from "./webhooks-flowrt-app.js";

/** Where the peers take deliveries. */
export const PEER_PATH = "/webhooks/stripe";

/** A FIFO of jobs run one after another, each after the I/O callbacks that queued it. */
export class InProcessQueue<T> {
  private readonly items: (T | undefined)[] = [];
  private head = 0;
  private scheduled = false;

  constructor(
    private readonly run: (item: T) => Promise<unknown>,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** Jobs queued and not yet started. */
  get size(): number {
    return this.items.length - this.head;
  }

  push(item: T): void {
    this.items.push(item);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => void this.drain());
  }

  private async drain(): Promise<void> {
    while (this.head < this.items.length) {
      const item = this.items[this.head] as T;
      this.items[this.head++] = undefined;
      try {
        await this.run(item);
      } catch (error) {
        this.onError(error);
      }
    }
    this.items.length = 0;
    this.head = 0;
    this.scheduled = false;
  }
}

export function createMemoryPeerApp(): { app: Express; close(): Promise<void> } {
  // No API call is made: the client is only the home of `webhooks.constructEvent`.
  const stripe = new Stripe("sk_test_bench");
  const queue = new InProcessQueue<Stripe.Event>(recordPayment, (error) =>
    console.error("recordPayment failed", error),
  );
  const app = express();
  app.post(PEER_PATH, express.raw({ type: "application/json" }), (req, res) => {
    let event: Stripe.Event;
    try {
      event = stripe.webhooks.constructEvent(req.body, req.headers["stripe-signature"] ?? "", BENCH_SECRET);
    } catch {
      res.status(400).json({ error: "invalid signature" });
      return;
    }
    queue.push(event);
    res.status(202).json({ received: true });
  });
  return { app, close: async () => {} };
}
