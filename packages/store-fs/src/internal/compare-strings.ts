/** Orders strings by UTF-16 code unit (JavaScript's `<`), the key order the store contract requires. */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
