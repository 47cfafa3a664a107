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
 * Runs on every delivery, so it walks the text once with `indexOf` instead of splitting it into arrays.
 */
export function parseAlphaSignatureHeader(value: string, scheme = "v1"): AlphaSignatureHeader | undefined {
  let timestamp: string | undefined;
  let signature: string | undefined;
  let more: string[] | undefined;
  let start = 0;
  for (;;) {
    let end = value.indexOf(",", start);
    if (end === -1) end = value.length;
    let item = value.slice(start, end);
    if (item.length > 0 && (mayBeSpace(item.charCodeAt(0)) || mayBeSpace(item.charCodeAt(item.length - 1)))) {
      item = item.trim();
    }
    const eq = item.indexOf("=");
    if (eq <= 0) return undefined;
    if (eq === 1 && item.charCodeAt(0) === 116 /* t */) {
      if (timestamp !== undefined) return undefined;
      timestamp = item.slice(2);
    } else if (eq === scheme.length && item.startsWith(scheme)) {
      const text = item.slice(eq + 1);
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
