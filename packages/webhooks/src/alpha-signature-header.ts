export interface AlphaSignatureHeader {
  /** The literal timestamp text, signed as is. */
  timestamp: string;
  signatures: string[];
}

/**
 * Parses `t=<timestamp>,v1=<signature>[,v1=<signature>...]`. Several `v1` entries are allowed (a provider
 * rolling its secret signs with both); other keys such as Stripe's test-mode `v0` are ignored. An item without
 * `=`, a repeated or missing `t`, or no `v1` makes the header garbled.
 */
export function parseAlphaSignatureHeader(value: string, scheme = "v1"): AlphaSignatureHeader | undefined {
  let timestamp: string | undefined;
  const signatures: string[] = [];
  for (const rawItem of value.split(",")) {
    const item = rawItem.trim();
    const eq = item.indexOf("=");
    if (eq <= 0) return undefined;
    const key = item.slice(0, eq);
    const text = item.slice(eq + 1);
    if (key === "t") {
      if (timestamp !== undefined) return undefined;
      timestamp = text;
    } else if (key === scheme) {
      signatures.push(text);
    }
  }
  if (timestamp === undefined || signatures.length === 0) return undefined;
  return { timestamp, signatures };
}
