export interface AlphaSignatureHeader {
  /** The literal timestamp text, signed as is. */
  timestamp: string;
  /** The first signature under the scheme's key. */
  signature: string;
  /** Further signatures under the scheme's key, when the header carries more than one; usually none. */
  more: string[] | undefined;
}

/** Whether `code` may be whitespace that `String.prototype.trim` removes (all of it is <= 0x20 or >= 0xa0). */
const mayBeSpace = (code: number) => code <= 0x20 || code >= 0xa0;

/**
 * Parses `t=<timestamp>,v1=<signature>[,v1=<signature>...]`. Several `v1` entries are allowed (a provider
 * rolling its secret signs with both); other keys such as Stripe's test-mode `v0` are ignored. Items are
 * separated by commas and whitespace around an item is ignored. An item without `=` (or with nothing before
 * it), a repeated or missing `t`, or no `v1` makes the header garbled: the result is `undefined`.
 *
 * Runs on every delivery, so it walks the text by index and slices out only the values it keeps.
 */
export function parseAlphaSignatureHeader(value: string, scheme = "v1"): AlphaSignatureHeader | undefined {
  let timestamp: string | undefined;
  let signature: string | undefined;
  let more: string[] | undefined;
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
      const text = value.slice(eq + 1, to);
      if (signature === undefined) signature = text;
      else if (more === undefined) more = [text];
      else more.push(text);
    }
    if (end === value.length) break;
    start = end + 1;
  }
  if (timestamp === undefined || signature === undefined) return undefined;
  return { timestamp, signature, more };
}
