/**
 * A parsed header. Signatures are given by where they lie in the header text rather than as strings, so that
 * they are decoded in place (see `SignatureMatcher`).
 */
export interface AlphaSignatureHeader {
  /** The literal timestamp text, signed as is. */
  timestamp: string;
  /** The first signature under the scheme's key is `value.slice(signatureStart, signatureEnd)`. */
  signatureStart: number;
  signatureEnd: number;
  /** Start and end of each further signature under the scheme's key, in pairs; usually none. */
  more: number[] | undefined;
}

/** Whether `code` may be whitespace that `String.prototype.trim` removes (all of it is <= 0x20 or >= 0xa0). */
const mayBeSpace = (code: number) => code <= 0x20 || code >= 0xa0;

/**
 * Parses `t=<timestamp>,v1=<signature>[,v1=<signature>...]`. Several `v1` entries are allowed (a provider
 * rolling its secret signs with both); other keys such as Stripe's test-mode `v0` are ignored. Items are
 * separated by commas and whitespace around an item is ignored. An item without `=` (or with nothing before
 * it), a repeated or missing `t`, or no `v1` makes the header garbled: the result is `undefined`. So does a
 * comma followed by a space: that is how Node and a `Headers` object join a header sent twice (the provider
 * never writes one), and a repeated header is refused, not merged.
 *
 * Runs on every delivery, so it walks the text by index and slices out only the timestamp.
 */
export function parseAlphaSignatureHeader(value: string, scheme = "v1"): AlphaSignatureHeader | undefined {
  let timestamp: string | undefined;
  let signatureStart = -1;
  let signatureEnd = -1;
  let more: number[] | undefined;
  let start = 0;
  for (;;) {
    let end = value.indexOf(",", start);
    if (end === -1) end = value.length;
    // The item is value[from, to).
    let from = start;
    let to = end;
    if (from < to && (mayBeSpace(value.charCodeAt(from)) || mayBeSpace(value.charCodeAt(to - 1)))) {
      const item = value.slice(from, to);
      from += item.length - item.trimStart().length;
      to -= item.length - item.trimEnd().length;
    }
    const eq = value.indexOf("=", from);
    if (eq === -1 || eq === from || eq >= to) return undefined;
    if (eq - from === 1 && value.charCodeAt(from) === 116 /* t */) {
      if (timestamp !== undefined) return undefined;
      timestamp = value.slice(eq + 1, to);
    } else if (eq - from === scheme.length && value.startsWith(scheme, from)) {
      if (signatureStart === -1) {
        signatureStart = eq + 1;
        signatureEnd = to;
      } else if (more === undefined) more = [eq + 1, to];
      else more.push(eq + 1, to);
    }
    if (end === value.length) break;
    start = end + 1;
    if (value.charCodeAt(start) === 32 /* " " */) return undefined; // ", ": a header sent twice, joined
  }
  if (timestamp === undefined || signatureStart === -1) return undefined;
  return { timestamp, signatureStart, signatureEnd, more };
}
